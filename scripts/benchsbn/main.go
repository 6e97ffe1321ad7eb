// Command benchsbn times one logz training epoch of an SBN 784-200 on a
// slice of binarised MNIST, with the sbn family's default settings (the
// ones a user gets: DSGHMC, minibatch 100, 10 steps, 5 latent samples), for
// scripts/bench-sbn.sh. With --dump it only writes the slice (N×784 bytes,
// 0/1) for the PyTorch peer.
package main

import (
	"flag"
	"fmt"
	"github.com/logz-ml/logz/family"
	"os"
	"strings"
	"time"

	"github.com/logz-ml/logz/data"
	sbnfam "github.com/logz-ml/logz/family/sbn"
	"github.com/logz-ml/logz/internal/kernel"
)

func main() {
	dir := flag.String("data", "./data/mnist", "directory with the MNIST idx files")
	n := flag.Int("examples", 10000, "the first N training images")
	seed := flag.Uint64("seed", 1, "seed of the stochastic binarisation")
	dump := flag.String("dump", "", "write the binarised slice to this file and exit")
	samplers := flag.String("samplers", "adaptive-is,gibbs", "samplers to time, comma-separated")
	precision := flag.String("precision", "", "train.precision (empty: the default)")
	flag.Parse()
	if err := run(*dir, *n, *seed, *dump, *samplers, *precision); err != nil {
		fmt.Fprintln(os.Stderr, "benchsbn:", err)
		os.Exit(1)
	}
}

func run(dir string, n int, seed uint64, dump, samplers, precision string) error {
	set, err := data.Load("mnist:train", data.Options{DataDir: dir, Binarize: data.Binarization{Method: data.Stochastic, Seed: seed}})
	if err != nil {
		return err
	}
	set = set.Limit(n)
	if dump != "" {
		return os.WriteFile(dump, set.X, 0o644)
	}
	fam := sbnfam.SBN
	for _, s := range strings.Split(samplers, ",") {
		ms := fam.Model().(*sbnfam.Model)
		ts := fam.Train().(*sbnfam.Train)
		ts.Sampler, ts.Epochs = s, 1
		if precision != "" {
			ts.Precision = kernel.Precision(precision)
		}
		m, err := fam.Plugin.NewModel(ms, set.D)
		if err != nil {
			return err
		}
		tr, err := fam.Plugin.NewTrainer(family.TrainerArgs{Model: m, ModelSettings: ms, Train: ts, Data: set, BaseRate: data.LogOdds(set, 1), Seed: 1})
		if err != nil {
			return err
		}
		t0 := time.Now()
		st, err := tr.TrainEpoch(set)
		if err != nil {
			return err
		}
		fmt.Printf("logz_%s %.3f %s %.3f\n", strings.ReplaceAll(s, "-", "_"), time.Since(t0).Seconds(), st.Signal, st.ReconError)
	}
	return nil
}
