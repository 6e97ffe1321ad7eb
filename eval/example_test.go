package eval_test

import (
	"fmt"
	"math"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family"
	_ "github.com/logz-ml/logz/family/all" // every model family's codec
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/models"
)

// toyRBM is a 12×4 RBM with fixed weights, and three examples.
func toyRBM() (*models.RBM, *data.Set) {
	m := models.NewRBM(12, 4)
	for k := range m.W {
		m.W[k] = math.Sin(float64(3*k+1)) * 1.5
	}
	for i := range m.VBias {
		m.VBias[i] = math.Cos(float64(i)) - 0.5
	}
	x := &data.Set{Name: "toy", N: 3, D: 12, X: []uint8{
		1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0,
		0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1,
		1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0,
	}}
	return m, x
}

// Load a model file: a logz model.npz, or an .npz of W, vbias and hbias
// written by NumPy. The codecs come from the registry of model families,
// which the blank import of family/all fills.
func Example_load() {
	c, err := models.Load("../models/testdata/numpy_rbm.npz", family.Codecs())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Model.TypeName(), c.Model.NumVisible(), "visible units")
	// Output: rbm 24 visible units
}

// The exact log Z of a small RBM (enumeration over its hidden units), and
// AIS's estimate with its error bars: log(Ẑ ± 3σ̂), σ̂ the standard error
// of the mean importance weight. Same seed, same numbers, on any number of
// cores.
func ExampleAIS_LogZ() {
	m, _ := toyRBM()
	exact, err := eval.Exact{}.LogZ(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := eval.AIS{Runs: 100, Betas: inference.LinearSchedule(1000), Seed: 1}.LogZ(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("exact log Z %.2f\n", exact)
	fmt.Printf("AIS   log Z %.2f, ±3σ̂ band [%.2f, %.2f], ESS %.0f of %d\n", res.LogZ, res.LogZLo3, res.LogZHi3, res.ESS, res.Runs)
	// Output:
	// exact log Z 12.10
	// AIS   log Z 12.09, ±3σ̂ band [12.06, 12.13], ESS 99 of 100
}

// RAISE estimates log p(v) of each example from below (a stochastic lower
// bound); the mean over the examples comes with its standard error. Here
// it is checked against the exact log p(v) = −F(v) − log Z.
func ExampleRAISE_LogProb() {
	m, x := toyRBM()
	logZ, _ := eval.Exact{}.LogZ(m)
	res, err := eval.RAISE{Chains: 50, Betas: inference.LinearSchedule(1000), Seed: 1}.LogProb(m, x)
	if err != nil {
		fmt.Println(err)
		return
	}
	v := make([]float64, x.D)
	for n := range x.N {
		x.RowFloat(v, n)
		fmt.Printf("example %d: RAISE %.2f, exact %.2f\n", n, res.LogP[n], -m.FreeEnergy(v, nil)-logZ)
	}
	fmt.Printf("mean %.2f ± %.2f over the examples\n", res.Mean.Mean, res.Mean.SE)
	// Output:
	// example 0: RAISE -12.17, exact -12.18
	// example 1: RAISE -12.70, exact -12.72
	// example 2: RAISE -9.18, exact -9.15
	// mean -11.35 ± 1.09 over the examples
}
