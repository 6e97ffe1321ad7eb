// Command pairgibbs trains an SBN with the Gibbs sampler twice from the same
// initial weights and seed, in train.precision float64 and float32, on a
// slice of stochastically binarised MNIST, and measures both nets with
// per-example AIS (the same chains' seeds) on the same test images: each
// precision's mean test log-likelihood ± its standard error over the
// examples, and the paired difference float32 − float64 ± the standard
// error of the per-example differences. With --control both runs are
// float64, the second with another train.seed (seed + 1000; the same
// initial weights): the spread of two runs that differ only in their
// random draws, to set the float32 − float64 difference against.
//
//	go run ./scripts/pairgibbs --data DIR [--n 2000] [--epochs 3] [--seed 1] [--test 30] [--chains 4] [--betas 100] [--layers 200] [--control]
//
// AIS on an SBN 784-200 costs about 3 ms of CPU per example, chain and
// step (β) on this machine's cores: the defaults take about half a minute
// per precision, 100 × 16 × 1000 over an hour.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/sbn"
)

func main() {
	dir := flag.String("data", "./data/mnist", "directory with the MNIST idx files")
	nTrain := flag.Int("n", 2000, "training images (the first N)")
	epochs := flag.Int("epochs", 3, "epochs")
	seed := flag.Uint64("seed", 1, "train.seed (and the initial weights')")
	nTest := flag.Int("test", 30, "test images (the first N)")
	chains := flag.Int("chains", 4, "AIS chains per example")
	betas := flag.Int("betas", 100, "AIS steps")
	layers := flag.String("layers", "200", "latent layer sizes, e.g. 200-200")
	control := flag.Bool("control", false, "two float64 runs with train seeds seed and seed+1000 instead")
	flag.Parse()
	if err := run(*dir, *nTrain, *epochs, *seed, *nTest, *chains, *betas, *layers, *control); err != nil {
		fmt.Fprintln(os.Stderr, "pairgibbs:", err)
		os.Exit(1)
	}
}

func load(path string, n int, seed uint64) (data.Examples, error) {
	g, err := data.ReadImages(path)
	if err != nil {
		return nil, err
	}
	set, err := g.Binarize(data.Stochastic, 0, rand.New(rand.NewPCG(seed, seed)))
	if err != nil {
		return nil, err
	}
	if n > set.Len() {
		return nil, fmt.Errorf("%s has %d images, %d asked", path, set.Len(), n)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return set.Subset(idx), nil
}

func meanSE(x []float64) (float64, float64) {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return m, math.Sqrt(s / float64(len(x)-1) / float64(len(x)))
}

func run(dir string, nTrain, epochs int, seed uint64, nTest, chains, betas int, layers string, control bool) error {
	trainSet, err := load(filepath.Join(dir, "train-images-idx3-ubyte.gz"), nTrain, 7)
	if err != nil {
		return err
	}
	testSet, err := load(filepath.Join(dir, "t10k-images-idx3-ubyte.gz"), nTest, 8)
	if err != nil {
		return err
	}
	sizes := []int{784}
	for _, s := range strings.Split(layers, "-") {
		k, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("--layers %q: %v", layers, err)
		}
		sizes = append(sizes, k)
	}
	var lp [2][]float64
	precisions, seeds := []string{"float64", "float32"}, []uint64{seed, seed}
	if control {
		precisions, seeds = []string{"float64", "float64"}, []uint64{seed, seed + 1000}
	}
	for p, precision := range precisions {
		n := sbn.New(sizes, false)
		sbn.InitNormal(n, 0.01, seed)
		o := sbn.DefaultTrainOptions()
		o.Sampler, o.Precision, o.Seed, o.Epochs = "gibbs", kernel.Precision(precision), seeds[p], epochs
		tr, err := sbn.NewTrainer(n, trainSet.Len(), o)
		if err != nil {
			return err
		}
		t0 := time.Now()
		var sig float64
		for range epochs {
			st, err := tr.TrainEpoch(trainSet)
			if err != nil {
				return err
			}
			sig = st.ReconError
		}
		train := time.Since(t0).Seconds()
		t0 = time.Now()
		res, err := sbn.AIS{Chains: chains, Betas: betas, Seed: 99}.LogProb(tr.Net(), testSet)
		if err != nil {
			return err
		}
		lp[p] = res.LogP
		m, se := meanSE(res.LogP)
		fmt.Printf("%s seed=%d train %d images × %d epochs %.0f s (last epoch log-joint %.3f); AIS %d×%d on %d test images %.0f s: %.3f ± %.3f\n",
			precision, seeds[p], nTrain, epochs, train, sig, chains, betas, nTest, time.Since(t0).Seconds(), m, se)
	}
	d := make([]float64, nTest)
	for i := range d {
		d[i] = lp[1][i] - lp[0][i]
	}
	m, se := meanSE(d)
	fmt.Printf("paired %s(seed %d) − %s(seed %d): %.3f ± %.3f nats\n", precisions[1], seeds[1], precisions[0], seeds[0], m, se)
	return nil
}
