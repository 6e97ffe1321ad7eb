package experiment

import (
	"fmt"
	"math"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

// logUnnormer is a model whose unnormalised log-probability log f(v) is
// cheap for every example (an RBM's −F(v)).
type logUnnormer interface {
	LogUnnorm(v, scratch []float64) float64
}

// checkLabels refuses evaluate.by_label on evaluation splits without
// labels.
func checkLabels(exp config.Experiment, train, valid, test *data.Set) error {
	if !exp.Evaluate.ByLabel {
		return nil
	}
	for _, sp := range Splits(exp, train, valid, test) {
		if s, ok := sp.Data.(*data.Set); !ok || s.Labels == nil {
			spec := ""
			if sp.Source != nil {
				spec = " (" + sp.Source.Spec + ")"
			}
			return fmt.Errorf("%s: evaluate.by_label: the %s split%s has no labels; by_label needs labelled data (mnist:, fashion-mnist: or digits: with the labels file beside the images), or remove by_label", exp.Name, sp.Name, spec)
		}
	}
	return nil
}

// addByLabel fills Row.ByLabel on the rows whose mean log-likelihood is
// the split's mean of log f(v) − log Z with their own log Z (exact, AIS,
// the χ² bound on a model with a cheap log f): per-example log p(v_n) =
// log f(v_n) − log Z, averaged over each label's examples. A row is
// broken down only when its own mean agrees with that recomputation, so
// that rows of other estimators (bounds, subsamples, control variates)
// are left alone.
func addByLabel(m models.Model, splits []evalenv.Split, rows []report.Row) {
	lu, ok := m.(logUnnormer)
	if !ok {
		return
	}
	lf := map[string][]float64{}
	for i := range rows {
		r := &rows[i]
		if r.Split == "" || r.LogZ == nil || r.MeanLoglik == nil || r.Subsampled() || r.ControlVariate != "" {
			continue
		}
		var set *data.Set
		for _, sp := range splits {
			if s, ok := sp.Data.(*data.Set); ok && sp.Name == r.Split && s.Labels != nil {
				set = s
			}
		}
		if set == nil || r.NExamples != set.N {
			continue
		}
		x, ok := lf[r.Split]
		if !ok {
			x = logUnnormAll(lu, set)
			lf[r.Split] = x
		}
		mean := estim.MeanOf(x).Mean - *r.LogZ
		if math.Abs(mean-*r.MeanLoglik) > 1e-6*math.Max(1, math.Abs(mean)) {
			continue
		}
		r.ByLabel = estim.ByLabel(x, nil, set.Labels, *r.LogZ)
	}
}

// AddByLabel is addByLabel for `logz eval --by-label`: it breaks down the
// rows of a shared log Z of model m on the labelled splits (the rows of
// estimators that keep per-example values, RAISE, are broken down by the
// estimator when Env.ByLabel is set).
func AddByLabel(m models.Model, splits []evalenv.Split, rows []report.Row) {
	addByLabel(m, splits, rows)
}

// logUnnormAll returns log f(v_n) for every example of s.
func logUnnormAll(m logUnnormer, s *data.Set) []float64 {
	v := make([]float64, s.D)
	var scratch []float64
	if r, ok := m.(*models.RBM); ok {
		scratch = make([]float64, r.NHid)
	}
	out := make([]float64, s.N)
	for n := range out {
		s.RowFloat(v, n)
		out[n] = m.LogUnnorm(v, scratch)
	}
	return out
}
