package rbm

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// checkpointWithQ returns a checkpoint of m holding a mixture of K
// components under prefix (nil prefix: none), and the mixture.
func checkpointWithQ(t *testing.T, m *models.RBM, K int, prefix string) (*models.Checkpoint, *chi2.Mixture) {
	t.Helper()
	c := &models.Checkpoint{Model: m, State: map[string]models.Array{}, Bytes: map[string][]byte{}}
	if prefix == "" {
		return c, nil
	}
	q, err := chi2.NewMixture(m.NVis, K, nil, 1.5, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	f, err := chi2.NewFitter(q, sampling.QFitDefaults().Fit)
	if err != nil {
		t.Fatal(err)
	}
	chi2.PutState(prefix, f, c.State, c.Bytes)
	return c, q
}

// TestProposalPictures: the components picture holds σ(η) of the saved
// mixture, one tile per component in its order; the chains picture holds,
// at row (start, chain) and column j, p(v=1|h) of eval.Gibbs's chain after
// QChainSweeps[j] sweeps from that start (uniform random, or draws of the
// saved q) with the picture's seed, the q rows computed here from a q
// built from the logits themselves. A checkpoint without a proposal, or
// none, gives no picture; a tracked proposal (track_0_) is found too.
// Mutations checked: drawing the q rows from the uniform start, and
// taking the means as the logits (no σ), each fail it.
func TestProposalPictures(t *testing.T) {
	m := tinyRBM(9, 4, 1.0, 11) // 9 units: 3×3 tiles
	for _, prefix := range []string{"chi2_q_", "track_0_"} {
		c, q := checkpointWithQ(t, m, 6, prefix)
		arts, err := Plugin{}.ProposalPictures(m, c, 77, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(arts) != 2 || arts[0].Name != sampling.QComponentsArtifact || arts[1].Name != sampling.QChainsArtifact {
			t.Fatalf("%s: artifacts %v", prefix, arts)
		}
		comp := arts[0]
		if err := comp.Check(); err != nil || comp.Rows != 1 || comp.Cols != 6 || comp.TileRows != 3 || comp.TileCols != 3 || !strings.Contains(comp.Caption, prefix) {
			t.Fatalf("%s: components %+v, %v", prefix, comp, err)
		}
		for i, eta := range q.Params() {
			if got, want := comp.X[i], nmath.Sigmoid(eta); got != want {
				t.Fatalf("%s: component mean %d is %v, want σ(%v) = %v", prefix, i, got, eta, want)
			}
		}
		ch := arts[1]
		n, cols := QPictureChains, len(QChainSweeps)
		if err := ch.Check(); err != nil || ch.Rows != 2*n || ch.Cols != cols || len(ch.RowNames) != 2*n ||
			ch.RowNames[0] != "random start, chain 1" || ch.RowNames[n] != "q start, chain 1" {
			t.Fatalf("%s: chains %+v, %v", prefix, ch.RowNames, err)
		}
		// The q start from a mixture rebuilt from the saved logits.
		q2, _ := chi2.NewMixture(9, 6, nil, 0, rand.New(rand.NewPCG(1, 1)))
		copy(q2.Params(), q.Params())
		q2.Changed()
		for s, start := range []eval.Start{eval.UniformStart, eval.ProposalStart(q2)} {
			for j, steps := range QChainSweeps {
				r, err := eval.Gibbs{Chains: n, Steps: steps, Seed: seeds.Derive(77, keyQChains), Workers: 1, Means: true}.Run(m, start)
				if err != nil {
					t.Fatal(err)
				}
				for c := range n {
					tile := (s*n+c)*cols + j
					if got := ch.X[tile*9 : (tile+1)*9]; !slices.Equal(got, r.Means[c*9:(c+1)*9]) {
						t.Fatalf("%s: start %d chain %d after %d sweeps: %v, want %v", prefix, s, c, steps, got, r.Means[c*9:(c+1)*9])
					}
				}
			}
		}
	}
	for _, c := range []*models.Checkpoint{nil, func() *models.Checkpoint { c, _ := checkpointWithQ(t, m, 6, ""); return c }()} {
		if arts, err := (Plugin{}).ProposalPictures(m, c, 77, 1); err != nil || arts != nil {
			t.Errorf("no proposal: %v, %v", arts, err)
		}
	}
	// A proposal over other units is not this model's: no picture.
	c, _ := checkpointWithQ(t, tinyRBM(5, 2, 1.0, 1), 3, "chi2_q_")
	if arts, err := (Plugin{}).ProposalPictures(m, c, 77, 1); err != nil || arts != nil {
		t.Errorf("a proposal of 5 units for 9: %v, %v", arts, err)
	}
}

func TestComponentCols(t *testing.T) {
	for K, want := range map[int]int{1: 1, 6: 6, 10: 10, 16: 16, 20: 10, 30: 15, 17: 1, 100: 10} {
		if got := componentCols(K); got != want {
			t.Errorf("componentCols(%d) = %d, want %d", K, got, want)
		}
	}
}
