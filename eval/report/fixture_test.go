package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/logz-ml/logz/internal/testenv"
)

// TestMain pins tablewriter's width rules: it detects East Asian widths from
// the locale at start-up (LANG=ja_JP makes "—" and "±" two columns wide),
// which would make the golden files depend on the environment. The tests'
// temporary folders are on a memory file system (see testenv.Run).
func TestMain(m *testing.M) {
	flag.Parse()
	twwidth.SetEastAsian(false)
	os.Exit(testenv.Run(m))
}

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./eval/report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run with -update after checking the diff)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

func p(x float64) *float64 { return &x }

// fixtureRows imitates a run of two experiments shaped like Table 1 of the
// 2008 paper, with missing values, warnings, a bracket, a split-free log Z
// row, per-epoch rows and cheap signals.
func fixtureRows() []Row {
	const (
		cd1  = "cd1-25"
		cd25 = "cd25-500"
		m25  = "rbm 784-25"
		m500 = "rbm 784-500"
	)
	return []Row{
		// Per-epoch evaluation of cd1-25: exact every epoch, pll on train.
		{Experiment: cd1, Model: m25, Stage: StageEpoch, Epoch: 1, Estimator: "exact", Split: "", LogZ: p(240.125), NExamples: 0, Seconds: 1.5},
		{Experiment: cd1, Model: m25, Stage: StageEpoch, Epoch: 1, Estimator: "exact", Split: "train", LogZ: p(240.125), MeanLoglik: p(-170.004), NExamples: 60000, Seconds: 2},
		{Experiment: cd1, Model: m25, Stage: StageEpoch, Epoch: 1, Estimator: "exact", Split: "test", LogZ: p(240.125), MeanLoglik: p(-169.5), NExamples: 10000, Seconds: 0.5},
		{Experiment: cd1, Model: m25, Stage: StageEpoch, Epoch: 1, Estimator: "pll", Split: "train", Value: p(-99.87654), NExamples: 1000, Seconds: 0.25,
			Warnings: []string{"pll computed on a subsample of 1000 training examples"}},
		{Experiment: cd1, Model: m25, Stage: StageEpoch, Epoch: 2, Estimator: "exact", Split: "test", LogZ: p(250.5), MeanLoglik: p(-160.25), NExamples: 10000, Seconds: 0.5},
		{Experiment: cd1, Model: m25, Stage: StageEpoch, Epoch: 2, Estimator: "pll", Split: "train", Value: p(-95.5), NExamples: 1000, Seconds: 0.25,
			Warnings: []string{"pll computed on a subsample of 1000 training examples"}},
		{Experiment: cd1, Model: m25, Stage: StageEpoch, Epoch: 3, Estimator: "pll", Split: "train", Value: p(-94.0), NExamples: 1000, Seconds: 0.25,
			Warnings: []string{"pll computed on a subsample of 1000 training examples"}},
		{Experiment: cd1, Model: m25, Stage: StageEpoch, Epoch: 3, Estimator: "exact", Split: "test", LogZ: p(255.41), MeanLoglik: p(-151.57), NExamples: 10000, Seconds: 0.5},

		// Final evaluation of cd1-25: exact and AIS (the CD1(25) line of Table 1,
		// whose log(Ẑ−3σ̂) is undefined).
		{Experiment: cd1, Model: m25, Stage: StageFinal, Epoch: 3, Estimator: "exact", Split: "", LogZ: p(255.41), NExamples: 0, Seconds: 12},
		{Experiment: cd1, Model: m25, Stage: StageFinal, Epoch: 3, Estimator: "exact", Split: "test", LogZ: p(255.41), MeanLoglik: p(-151.57), LoglikSE: p(0.45), NExamples: 10000, Seconds: 3},
		{Experiment: cd1, Model: m25, Stage: StageFinal, Epoch: 3, Estimator: "exact", Split: "train", LogZ: p(255.41), MeanLoglik: p(-152.35), LoglikSE: p(0.19), NExamples: 60000, Seconds: 15},
		{Experiment: cd1, Model: m25, Stage: StageFinal, Epoch: 3, Estimator: "ais", Split: "", Init: "base-rate", Runs: 100, Betas: 14500,
			LogZ: p(256.52), LogZLo: nil, LogZHi: p(257.73), LogZLo1: p(255.00), LogZHi1: p(257.10), ExactLogZ: p(255.41), ESS: p(3.7),
			NExamples: 0, Seconds: 198,
			Warnings: []string{
				"effective sample size 3.7 of 100 AIS runs: log Ẑ is dominated by a few weights",
				"AIS log Ẑ is 1.11 nats above the exact log Z (more than 3σ̂)",
			}},
		{Experiment: cd1, Model: m25, Stage: StageFinal, Epoch: 3, Estimator: "ais", Split: "test", Init: "base-rate",
			MeanLoglik: p(-152.68), ExactLogZ: p(255.41), NExamples: 10000, Seconds: 3},
		{Experiment: cd1, Model: m25, Stage: StageFinal, Epoch: 3, Estimator: "ais", Split: "train", Init: "base-rate",
			MeanLoglik: p(-153.46), ExactLogZ: p(255.41), NExamples: 60000, Seconds: 15},
		{Experiment: cd1, Model: m25, Stage: StageFinal, Epoch: 3, Estimator: "pll", Split: "train", Value: p(-93.25), NExamples: 60000, Seconds: 4},
		{Experiment: cd1, Model: m25, Stage: StageFinal, Epoch: 3, Estimator: "recon", Split: "train", Value: p(0.0123456), NExamples: 60000, Seconds: 2},
		{Experiment: cd1, Model: m25, Stage: StageFinal, Epoch: 3, Estimator: "recon", Split: "test", Value: p(0.0131), NExamples: 10000, Seconds: 1},

		// cd25-500: AIS (log Z carried on each split row, no split-free row),
		// RAISE with a bracket, CSL far too low, and a uniform-start AIS run
		// with test only (no train row: a missing cell).
		{Experiment: cd25, Model: m500, Stage: StageEpoch, Epoch: 1, Estimator: "ais", Split: "valid", Init: "base-rate", Runs: 16, Betas: 1000,
			LogZ: p(430.0), MeanLoglik: p(-101.125), NExamples: 1000, Seconds: 9},
		{Experiment: cd25, Model: m500, Stage: StageEpoch, Epoch: 2, Estimator: "ais", Split: "valid", Init: "base-rate", Runs: 16, Betas: 1000,
			LogZ: p(451.0), MeanLoglik: p(-87.5), NExamples: 1000, Seconds: 9,
			Warnings: []string{"effective sample size 2.1 of 16 AIS runs"}},
		{Experiment: cd25, Model: m500, Stage: StageFinal, Epoch: 2, Estimator: "ais", Split: "test", Init: "base-rate", Runs: 100, Betas: 14500,
			LogZ: p(451.28), LogZLo: p(450.97), LogZHi: p(451.52), LogZLo1: p(451.19), LogZHi1: p(451.37), ESS: p(61),
			MeanLoglik: p(-86.34), LoglikSE: p(0.35), NExamples: 10000, Seconds: 312},
		{Experiment: cd25, Model: m500, Stage: StageFinal, Epoch: 2, Estimator: "ais", Split: "train", Init: "base-rate", Runs: 100, Betas: 14500,
			LogZ: p(451.28), LogZLo: p(450.97), LogZHi: p(451.52), LogZLo1: p(451.19), LogZHi1: p(451.37), ESS: p(61),
			MeanLoglik: p(-83.10), LoglikSE: p(0.1), NExamples: 60000, Seconds: 312},
		{Experiment: cd25, Model: m500, Stage: StageFinal, Epoch: 2, Estimator: "raise", Split: "test", Init: "base-rate", Runs: 100, Betas: 14500,
			MeanLoglik: p(-86.39), LoglikLo: p(-86.39), LoglikHi: p(-86.34), NExamples: 100, Seconds: 640.5},
		{Experiment: cd25, Model: m500, Stage: StageFinal, Epoch: 2, Estimator: "csl", Split: "test", Runs: 100,
			MeanLoglik: p(-131.0), NExamples: 10000, Seconds: 60,
			Warnings: []string{"CSL is 44.61 nats below AIS | a conservative estimate; chains may not have mixed"}},
		{Experiment: cd25, Model: m500, Stage: StageFinal, Epoch: 2, Estimator: "ais", Split: "test", Init: "uniform", Runs: 100, Betas: 14500,
			LogZ: p(431.05), LogZLo: p(-0.004), LogZHi: p(431.9), LogZLo1: p(430.1), LogZHi1: p(431.5),
			MeanLoglik: p(-106.52), NExamples: 10000, Seconds: 300,
			Warnings: []string{"AIS and RAISE disagree by 44.26 nats (AIS −106.52, RAISE −150.78): neither can be trusted"}},
	}
}
