package sbn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// rows is a binary data set for the trainer.
type rows [][]uint8

func (r rows) Len() int          { return len(r) }
func (r rows) Row(n int) []uint8 { return r[n] }

// plantedData draws m examples from the net n by ancestral sampling.
func plantedData(n *Net, m int, seed uint64) rows {
	rng := rand.New(rand.NewPCG(seed, 3))
	sc := n.NewScratch()
	h := n.States()
	out := make(rows, m)
	for k := range out {
		n.Sample(h, rng, sc)
		out[k] = make([]uint8, n.Sizes[0])
		for i, x := range h[0] {
			out[k][i] = uint8(x)
		}
	}
	return out
}

// exactLogLik returns log p(x) of each example, summing p(x, h) over every
// latent state.
func exactLogLik(n *Net, data rows) []float64 {
	sc := n.NewScratch()
	h := n.States()
	total := 0
	for _, s := range n.Sizes[1:] {
		total += s
	}
	lps := make([]float64, 1<<total)
	out := make([]float64, len(data))
	for k, x := range data {
		for i, v := range x {
			h[0][i] = float64(v)
		}
		for code := range lps {
			b := 0
			for l := 1; l < len(h); l++ {
				for i := range h[l] {
					h[l][i] = float64(code >> b & 1)
					b++
				}
			}
			lps[code] = n.LogJoint(h, 1, sc)
		}
		out[k] = nmath.LogSumExp(lps)
	}
	return out
}

// meanSE is the mean of xs and its standard error.

// TestTrainingRaisesLikelihood: on 500 examples drawn from a planted
// random SBN 8-3, a few epochs of DSGHMC with either sampler (and the
// other dynamics) raise the exact mean log-likelihood of 500 held-out
// examples from the same net by more than 3 standard errors of the paired
// per-example change, and beat the best factorised model (the latent units
// must carry structure) by more than 3 standard errors too.
var initStd, epochs = 0.5, 12

func TestTrainingRaisesLikelihood(t *testing.T) {
	// A planted net with strong latent structure: W ~ N(0, 3²), visible
	// biases centring each unit's input, uniform latents.
	planted := randomNet([]int{8, 3}, false, 3, 31)
	planted.Rec = nil
	clear(planted.B[1])
	for i := range 8 {
		planted.B[0][i] = 0
		for j := range 3 {
			planted.B[0][i] -= planted.W[1][i*3+j] / 2
		}
	}
	trainSet, test := plantedData(planted, 500, 1), plantedData(planted, 500, 2)
	best, _ := meanSE(exactLogLik(planted, test))
	// The best factorised model (independent pixels at the training
	// marginals, smoothed): a net that only learned its visible biases.
	indep := make([]float64, len(test))
	for i := range 8 {
		on := 0.5
		for _, x := range trainSet {
			on += float64(x[i])
		}
		p := on / float64(len(trainSet)+1)
		for k, x := range test {
			if x[i] == 1 {
				indep[k] += math.Log(p)
			} else {
				indep[k] += math.Log1p(-p)
			}
		}
	}
	for _, c := range []struct {
		method, sampler string
		precision       kernel.Precision
	}{
		{"sghmc", "gibbs", "float64"}, {"sghmc", "adaptive-is", "float64"}, {"sgnht", "gibbs", "float64"}, {"adam", "adaptive-is", "float64"},
		{"sghmc", "adaptive-is", "float32"}, {"adam", "adaptive-is", "float32"}, {"sghmc", "gibbs", "float32"}, {"sgnht", "gibbs", "float32"},
		{"sgld", "gibbs", "float32"}, {"sgld", "adaptive-is", "float32"}, {"rws", "adaptive-is", "float32"},
		{"wake-sleep", "adaptive-is", "float64"}, {"nvil", "adaptive-is", "float64"},
	} {
		n := New([]int{8, 3}, false)
		InitNormal(n, initStd, 5)
		before := exactLogLik(n, test)
		o := DefaultTrainOptions()
		o.Method, o.Sampler, o.Seed, o.Precision = c.method, c.sampler, 9, c.precision
		o.LearningRate, o.RecLearningRate = 0.05, 0.01
		switch c.method {
		case "adam", "rws", "wake-sleep", "nvil":
			o.LearningRate = 0.01
		case "sgld": // η/2 = 0.5/N on ∇Ũ, SGHMC's η/α
			o.LearningRate = 1
		}
		tr, err := NewTrainer(n, len(trainSet), o)
		if err != nil {
			t.Fatal(err)
		}
		var st models.EpochSummary
		for range epochs {
			if st, err = tr.TrainEpoch(trainSet); err != nil {
				t.Fatal(err)
			}
		}
		after := exactLogLik(tr.current(), test)
		d := make([]float64, len(after))
		for i := range d {
			d[i] = after[i] - before[i]
		}
		gain, se := meanSE(d)
		m0, _ := meanSE(before)
		for i := range d {
			d[i] = after[i] - indep[i]
		}
		overIndep, seIndep := meanSE(d)
		t.Logf("%s/%s/%s: held-out log p(x) %.3f → %.3f (gain %.3f ± %.3f; %.3f ± %.3f over the factorised model; planted net %.3f); last epoch %s %.3f",
			c.method, c.sampler, c.precision, m0, m0+gain, gain, se, overIndep, seIndep, best, st.Signal, st.ReconError)
		if gain < 3*se || overIndep < 3*seIndep {
			t.Errorf("%s/%s/%s: held-out log-likelihood gained %.3f ± %.3f nats, %.3f ± %.3f over independent pixels", c.method, c.sampler, c.precision, gain, se, overIndep, seIndep)
		}
	}
}
