package main

import (
	"fmt"
	"io"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
	belief "github.com/logz-ml/logz/sbn"
)

// exactLogProbs returns log p(v_n) of every example, enumerated exactly,
// for the models whose family gives per-example exact values within
// maxUnits latent (or, for an RBM, smaller-layer) units: an rbm (−F(v) −
// log Z), a sigmoid belief net (sbn.ExactLogProb) and a mixture of
// Bernoullis. ok is false for any other model, or one too large.
func exactLogProbs(m models.Model, x data.Examples, maxUnits int) (lp []float64, ok bool, err error) {
	switch m := m.(type) {
	case *models.RBM:
		if maxUnits <= 0 || min(m.NVis, m.NHid) > maxUnits {
			return nil, false, nil
		}
		lz, err := eval.Exact{MaxUnits: maxUnits}.LogZ(m)
		if err != nil {
			return nil, false, err
		}
		lp = make([]float64, x.Len())
		v, scratch := make([]float64, m.NVis), make([]float64, m.NHid)
		for n := range lp {
			for i, b := range x.Row(n) {
				v[i] = float64(b)
			}
			lp[n] = m.LogUnnorm(v, scratch) - lz
		}
		return lp, true, nil
	case *belief.Net:
		h := 0
		for _, s := range m.Sizes[1:] {
			h += s
		}
		if h > maxUnits {
			return nil, false, nil
		}
		lp, err := belief.ExactLogProb(m, x, maxUnits, nil)
		return lp, err == nil, err
	case *models.MoB:
		lp, err := eval.MoBLogProbs(m, x, 0, nil)
		return lp, err == nil, err
	}
	return nil, false, nil
}

// pairedExact gives the paired verdict from per-example exact values of
// both models: Δ = mean_n[log p_B(v_n) − log p_A(v_n)] ± the standard error
// of the differences over the examples (no estimator error). ok is false
// when one of the models gives no such values.
func pairedExact(w io.Writer, a, b pairedModel, set *data.Set, maxUnits int) (ok bool, err error) {
	la, okA, err := exactLogProbs(a.ckpt.Model, set, maxUnits)
	if err != nil || !okA {
		return false, err
	}
	lb, okB, err := exactLogProbs(b.ckpt.Model, set, maxUnits)
	if err != nil || !okB {
		return false, err
	}
	d := make([]float64, len(la))
	for n := range la {
		d[n] = lb[n] - la[n]
	}
	st := estim.MeanOf(d)
	mean, se := st.Mean, st.SE
	fp := set.Fingerprint()
	fmt.Fprintf(w, "A: %s (%s)\nB: %s (%s)\n", a.path, evalenv.Label(a.ckpt.Model), b.path, evalenv.Label(b.ckpt.Model))
	fmt.Fprintf(w, "Examples: %s\n", fp)
	fmt.Fprintf(w, "  Δ = mean log p_B − mean log p_A = %.4f ± %.4f  (both exact, enumerated per example; σ = the paired standard error over the %d examples; 95%%: [%.4f, %.4f])\n",
		mean, se, len(la), mean-eval.VerdictZ*se, mean+eval.VerdictZ*se)
	fmt.Fprintf(w, "Verdict: %s; both log p exact, so the ± is the paired standard error over the examples alone.\n", eval.Verdict("A", "B", mean, se))
	return true, nil
}
