package rbm

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

// examples is a fixed set of binary vectors.
type examples [][]uint8

func (x examples) Len() int          { return len(x) }
func (x examples) Row(n int) []uint8 { return x[n] }

// blockRBM has 4 hidden units, each owning a block of 4 of the 16 visible
// units with weight w. With visible biases −w/2 and hidden biases −2w every
// set of blocks switched on (with its hidden units) has energy 0: 16 equally
// probable modes, one per subset of blocks. A Gibbs chain leaves its mode
// only by flipping a unit against a field of ±w/2 or ±2w, so for large w it
// stays where it started.
func blockRBM(w float64) *models.RBM {
	m := models.NewRBM(16, 4)
	for i := range 16 {
		m.W[i*4+i/4] = w
		m.VBias[i] = -w / 2
	}
	for j := range 4 {
		m.HBias[j] = -2 * w
	}
	return m
}

// blockData is n copies of block 0 switched on, each bit flipped with
// probability flip.
func blockData(n int, flip float64, seed uint64) examples {
	rng := rand.New(rand.NewPCG(seed, 0))
	x := make(examples, n)
	for k := range x {
		x[k] = make([]uint8, 16)
		for i := range 16 {
			on := i < 4
			if rng.Float64() < flip {
				on = !on
			}
			if on {
				x[k][i] = 1
			}
		}
	}
	return x
}

// logOdds is the smoothed log-odds of the units' means, the base rate.
func logOdds(x examples) []float64 {
	out := make([]float64, 16)
	for i := range out {
		s := 0.0
		for _, r := range x {
			s += float64(r[i])
		}
		p := (s + 0.5) / (float64(len(x)) + 1)
		out[i] = math.Log(p / (1 - p))
	}
	return out
}

// TestCSLOvershootWarned reproduces the failure of issue #11 item 15 on a
// small RBM: CSL with one Gibbs chain started at the data's base rate never
// leaves the data's mode, so its hidden states over-represent it and CSL
// comes out above the exact log-likelihood (here by about 2 nats: the chain
// sees one of 16 equally probable modes, log 16 = 2.77, and the examples with
// a flipped bit are partly explained by the others). The evaluation must say
// so. With chains that do mix (a weakly coupled model, many chains from the
// uniform start) the same evaluation gives no such warning.
func TestCSLOvershootWarned(t *testing.T) {
	run := func(m *models.RBM, csl *CSLSettings) (exact, c report.Row) {
		t.Helper()
		x := blockData(60, 0.02, 1)
		env := evalenv.Env{Experiment: "blocks", Stage: report.StageFinal, Epoch: 1, Seed: 7,
			Splits: []evalenv.Split{{Name: "test", Data: x}}, BaseRate: logOdds(x)}
		rows, err := env.Run(Family, m, []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "csl", Settings: csl}})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			switch {
			case r.Estimator == "exact" && r.Split == "test":
				exact = r
			case r.Estimator == "csl":
				c = r
			}
		}
		if exact.MeanLoglik == nil || c.MeanLoglik == nil {
			t.Fatalf("rows %+v", rows)
		}
		return exact, c
	}

	exact, c := run(blockRBM(8), &CSLSettings{Chains: 1, Steps: 50, BurnIn: 0, Init: "base-rate"})
	over := *c.MeanLoglik - *exact.MeanLoglik
	t.Logf("stuck chain: exact %.3f, CSL %.3f ± %.3f (%.2f nats above)", *exact.MeanLoglik, *c.MeanLoglik, *c.LoglikSE, over)
	if over < 1.5 {
		t.Fatalf("the stuck chain should overshoot by about 2 nats, got %.2f: the test no longer reproduces the failure", over)
	}
	// One chain: the overshoot, and that its standard error has no chain
	// error in it.
	overshoot := slices.IndexFunc(c.Warnings, func(w string) bool {
		return strings.Contains(w, "nats above exact") && strings.Contains(w, "have not mixed")
	})
	oneChain := slices.IndexFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "with one chain") })
	if len(c.Warnings) != 2 || overshoot < 0 || oneChain < 0 {
		t.Errorf("CSL %.2f nats above exact, warnings %q", over, c.Warnings)
	}

	exact, c = run(blockRBM(1), &CSLSettings{Chains: 100, Steps: 200, BurnIn: 20, Init: "uniform"})
	t.Logf("mixing chains: exact %.3f, CSL %.3f ± %.3f", *exact.MeanLoglik, *c.MeanLoglik, *c.LoglikSE)
	if len(c.Warnings) != 0 {
		t.Errorf("mixing chains: CSL %.3f vs exact %.3f, warnings %q", *c.MeanLoglik, *exact.MeanLoglik, c.Warnings)
	}
}

// TestLoglikRowsOwnTheirWarnings: the rows LoglikRows makes for each split
// from one base have their own Warnings and Notes, so a warning appended to
// one split's row (the sandwich's, CheckAISStarts') cannot overwrite
// another's through a shared array with spare capacity.
func TestLoglikRowsOwnTheirWarnings(t *testing.T) {
	x := blockData(10, 0.02, 1)
	env := &evalenv.Env{Experiment: "e", Stage: report.StageFinal, Splits: []evalenv.Split{{Name: "train", Data: x}, {Name: "test", Data: x}}}
	warn := make([]string, 1, 8)
	warn[0] = "shared"
	base := report.Row{Estimator: "ais", Notes: make([]string, 0, 8)}
	rows := LoglikRows(env, base, models.NewRBM(len(x.Row(0)), 2), 1, warn)
	rows[0].Warnings = append(rows[0].Warnings, "train only")
	rows[1].Warnings = append(rows[1].Warnings, "test only")
	rows[0].Notes = append(rows[0].Notes, "train note")
	rows[1].Notes = append(rows[1].Notes, "test note")
	if !slices.Equal(rows[0].Warnings, []string{"shared", "train only"}) || !slices.Equal(rows[0].Notes, []string{"train note"}) {
		t.Errorf("train row: %q %q", rows[0].Warnings, rows[0].Notes)
	}
	if !slices.Equal(rows[1].Warnings, []string{"shared", "test only"}) || !slices.Equal(rows[1].Notes, []string{"test note"}) {
		t.Errorf("test row: %q %q", rows[1].Warnings, rows[1].Notes)
	}
}
