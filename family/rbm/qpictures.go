package rbm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// QChainSweeps are the sweeps after which the q-chains picture shows each
// chain (its columns), and QPictureChains the chains per start (rows).
var QChainSweeps = []int{1, 2, 5, 10, 20, 50, 100, 1000}

const QPictureChains = 5

// keyQChains labels the Gibbs stream of the q-chains picture.
const keyQChains uint64 = 101

// ProposalPictures draws the pictures of Kuleshov & Ermon (2017, §5.2) for
// an RBM whose checkpoint holds a fitted χ² proposal q (χ² training saves
// it under chi2_q_, a tracked chi2 estimator under track_<i>_; the first
// that loads is used, as by the sampler's "q" start):
//
//   - sampling.QComponentsArtifact, when q is a mixture of Bernoulli products:
//     the means σ(η_k) of its components, one tile each;
//   - sampling.QChainsArtifact: QPictureChains block-Gibbs chains from uniform
//     random states (the top rows) and as many from draws of q (the bottom
//     rows), each shown as p(v=1|h) after every sweep count of QChainSweeps
//     (the columns). Chain c of either start is eval.Gibbs's chain c with
//     the seed derived from seed, so each column continues the one before.
//
// A checkpoint without a proposal gives none.
func (Plugin) ProposalPictures(mm models.Model, c *models.Checkpoint, seed uint64, workers int) ([]sampling.Artifact, error) {
	m, ok := mm.(*models.RBM)
	if !ok {
		return nil, fmt.Errorf("rbm proposal pictures: a %s is not an rbm", mm.TypeName())
	}
	if c == nil {
		return nil, nil
	}
	var q chi2.Proposal
	var from string
	for _, prefix := range SavedProposals(c.Bytes) {
		f, err := chi2.LoadState(prefix, sampling.QFitDefaults().Fit, c.State, c.Bytes)
		if err == nil && f.Q.Dim() == m.NVis {
			q, from = f.Q, prefix
			break
		}
	}
	if q == nil {
		return nil, nil
	}
	h, w, _ := sampling.TileShape(m)
	var out []sampling.Artifact
	if mix, ok := q.(*chi2.Mixture); ok {
		cols := componentCols(mix.K)
		out = append(out, sampling.Artifact{Name: sampling.QComponentsArtifact, Rows: mix.K / cols, Cols: cols, TileRows: h, TileCols: w,
			X:       slices.Clone(mix.Means()),
			Caption: fmt.Sprintf("The means σ(η_k) of the %d components of the χ² proposal q, a uniform mixture of Bernoulli products, saved in the checkpoint under %s (black 0, white 1).", mix.K, from)})
	}
	n, cols, D := QPictureChains, len(QChainSweeps), m.NVis
	x := make([]float64, 2*n*cols*D)
	names := make([]string, 0, 2*n)
	for s, start := range []struct {
		name  string
		start eval.Start
	}{{"random start", eval.UniformStart}, {"q start", eval.ProposalStart(q)}} {
		for j, steps := range QChainSweeps {
			r, err := eval.Gibbs{Chains: n, Steps: steps, Seed: seeds.Derive(seed, keyQChains), Workers: workers, Means: true}.Run(m, start.start)
			if err != nil {
				return nil, fmt.Errorf("rbm proposal pictures: %w", err)
			}
			for ch := range n {
				tile := (s*n+ch)*cols + j
				copy(x[tile*D:(tile+1)*D], r.Means[ch*D:(ch+1)*D])
			}
		}
		for ch := range n {
			names = append(names, fmt.Sprintf("%s, chain %d", start.name, ch+1))
		}
	}
	sweeps := make([]string, cols)
	for j, s := range QChainSweeps {
		sweeps[j] = fmt.Sprint(s)
	}
	out = append(out, sampling.Artifact{Name: sampling.QChainsArtifact, Rows: 2 * n, Cols: cols, TileRows: h, TileCols: w, X: x, RowNames: names,
		Caption: fmt.Sprintf("Block-Gibbs chains of the trained model: the top %d rows start at uniform random states, the bottom %d at draws of the χ² proposal q saved under %s; the columns show each chain's p(v=1|h) after %s sweeps.",
			n, n, from, strings.Join(sweeps, ", "))})
	return out, nil
}

// componentCols is the number of tiles per row of the components picture:
// the largest divisor of K that is at most 16 (all K in one row up to 16).
func componentCols(K int) int {
	for c := min(K, 16); c > 1; c-- {
		if K%c == 0 {
			return c
		}
	}
	return 1
}
