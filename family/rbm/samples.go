package rbm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/logz-ml/logz/eval"
	chi2est "github.com/logz-ml/logz/eval/chi2"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// SampleInits are the starts of the rbm sampler's chains, the default
// first.
var SampleInits = []string{sampling.InitRandom, sampling.InitData, sampling.InitQ}

// Seed labels of the sampler's streams.
const (
	keySampleFit uint64 = iota + 1
	keySampleBound
	keySampleChains
)

// Sample runs o.N block-Gibbs chains (v → h ~ p(h|v) → v ~ p(v|h)) of an
// RBM for o.Steps sweeps from o.Init (eval.Gibbs: chain c is keyed by the
// seed and c) and returns the final visible states, or with o.Mean the
// probabilities p(v=1|h) of the last sweep, with the chains' mean free
// energy after every sweep as the trace.
func (Plugin) Sample(mm models.Model, o sampling.SampleOptions) (*sampling.Drawn, error) {
	m, ok := mm.(*models.RBM)
	if !ok {
		return nil, fmt.Errorf("rbm samples: a %s is not an rbm", mm.TypeName())
	}
	init, err := o.Check(SampleInits)
	if err != nil {
		return nil, err
	}
	start, err := sampleStart(m, init, o)
	if err != nil {
		return nil, err
	}
	g := eval.Gibbs{Chains: o.N, Steps: o.Steps, Seed: seeds.Derive(o.Seed, keySampleChains), Workers: o.Workers, Means: o.Mean}
	r, err := g.Run(m, start)
	if err != nil {
		return nil, err
	}
	return GibbsDrawn(r, init, o.Mean), nil
}

// GibbsDrawn turns the result of Gibbs chains of an RBM into samples: the
// final states, or the means of the last sweep, with the mean free energy
// as the trace.
func GibbsDrawn(r *eval.GibbsResult, init string, mean bool) *sampling.Drawn {
	d := &sampling.Drawn{N: r.Chains, D: r.D, Method: sampling.MethodGibbs, Steps: r.Steps, Init: init, Values: sampling.Values(mean),
		What: sampling.GibbsCaption("block-Gibbs", r.Chains, r.Steps, init, mean, "p(v=1|h)")}
	if mean {
		d.X = r.Means
	} else {
		d.X = make([]float64, len(r.Final))
		for i, b := range r.Final {
			d.X[i] = float64(b)
		}
	}
	tr := &sampling.Trace{Name: "mean free energy F(v)", Mean: make([]float64, r.Steps+1), SE: make([]float64, r.Steps+1)}
	for t := range tr.Mean {
		tr.Mean[t], tr.SE[t] = r.MeanF(t)
	}
	d.Trace = tr
	return d
}

// Mixing runs o.N chains of o.Steps sweeps from each of starts and
// compares how soon their mean free energy reaches the long-run level
// (eval.Gibbs.Mixing).
func (Plugin) Mixing(mm models.Model, o sampling.SampleOptions, starts []string) (*eval.MixingResult, error) {
	m, ok := mm.(*models.RBM)
	if !ok {
		return nil, fmt.Errorf("rbm mixing: a %s is not an rbm", mm.TypeName())
	}
	list := make([]eval.Start, len(starts))
	for i, s := range starts {
		o.Init = s
		init, err := o.Check(SampleInits)
		if err != nil {
			return nil, err
		}
		if list[i], err = sampleStart(m, init, o); err != nil {
			return nil, err
		}
	}
	g := eval.Gibbs{Chains: o.N, Steps: o.Steps, Seed: seeds.Derive(o.Seed, keySampleChains), Workers: o.Workers}
	return g.Mixing(m, starts, list)
}

// sampleStart returns the eval.Start of a checked init.
func sampleStart(m *models.RBM, init string, o sampling.SampleOptions) (eval.Start, error) {
	switch init {
	case sampling.InitData:
		s, err := eval.ExamplesStart(o.Data, m.NVis)
		if err != nil {
			return nil, fmt.Errorf("rbm samples: %w", err)
		}
		return s, nil
	case sampling.InitQ:
		q, err := Proposal(m, o)
		if err != nil {
			return nil, err
		}
		return eval.ProposalStart(q), nil
	}
	return eval.UniformStart, nil
}

// Proposal returns the χ² proposal that starts the chains of init "q": the
// one saved in o.Checkpoint under chi2_q_ or track_<i>_ (the first that
// loads), else a mixture fitted here with o.QFit. It tells o.Notice which,
// and its bound on log Z.
func Proposal(m *models.RBM, o sampling.SampleOptions) (chi2.Proposal, error) {
	notice := o.Notice
	if notice == nil {
		notice = func(string) {}
	}
	qf := o.QFit
	if qf.Components == 0 {
		base := qf.BaseRate
		qf = sampling.QFitDefaults()
		qf.BaseRate = base
	}
	target := chi2.RBMTarget{M: m}
	bound := func(q chi2.Proposal, what string) error {
		e, err := chi2est.Bound(target, q, 2000, 20, seeds.Derive(o.Seed, keySampleBound), max(1, o.Workers))
		if err != nil {
			return fmt.Errorf("the χ² bound of %s: %w", what, err)
		}
		notice(fmt.Sprintf("χ² bound of q: log Z ≤ %.4f ± %.4f (2000 draws; biased low, ESS %.0f)", e.LogZ, e.SE, e.ESS))
		return nil
	}
	if c := o.Checkpoint; c != nil {
		for _, prefix := range SavedProposals(c.Bytes) {
			f, err := chi2.LoadState(prefix, qf.Fit, c.State, c.Bytes)
			if err == nil && f.Q.Dim() != m.NVis {
				err = fmt.Errorf("it has %d units, the model %d", f.Q.Dim(), m.NVis)
			}
			if err != nil {
				notice(fmt.Sprintf("the proposal saved under %s cannot start the chains: %v", prefix, err))
				continue
			}
			notice(fmt.Sprintf("q is the χ² proposal saved in the checkpoint under %s (%s, shape %v, %d fitter steps)", prefix, f.Q.Kind(), f.Q.Shape(), f.Steps))
			return f.Q, bound(f.Q, "the saved proposal")
		}
	}
	if qf.Components < 1 || qf.Components > chi2.MaxComponents {
		return nil, fmt.Errorf("q components: want an integer in [1, %d], got %d", chi2.MaxComponents, qf.Components)
	}
	if qf.Steps < 0 {
		return nil, fmt.Errorf("q steps: want an integer ≥ 0, got %d", qf.Steps)
	}
	from := "uniform"
	if qf.BaseRate != nil {
		from = "the data base rate"
	}
	rng := rand.New(rand.NewPCG(seeds.Derive(o.Seed, keySampleFit), seeds.Derive(o.Seed, keySampleFit, 1)))
	t0 := time.Now()
	fit := eval.ProposalFit{Fit: qf.Fit, Steps: qf.Steps, New: func(d int, rng *rand.Rand) (chi2.Proposal, error) {
		return chi2.NewMixture(d, qf.Components, qf.BaseRate, 0.5, rng)
	}}
	q, err := fit.FitRBM(m, rng)
	if err != nil {
		return nil, err
	}
	notice(fmt.Sprintf("no χ² proposal in the checkpoint; fitted a mixture of %d Bernoulli products from %s (%d steps of %d draws) in %s",
		qf.Components, from, qf.Steps, qf.Fit.Samples, time.Since(t0).Round(time.Millisecond)))
	return q, bound(q, "the fitted proposal")
}

// SavedProposals lists the prefixes under which a checkpoint's state holds
// a fitted proposal: chi2_q_ first, then track_<i>_ by increasing i.
func SavedProposals(b map[string][]byte) []string {
	var out, track []string
	if chi2.HasState("chi2_q_", b) {
		out = append(out, "chi2_q_")
	}
	for k := range b {
		rest, ok := strings.CutPrefix(k, "track_")
		if !ok {
			continue
		}
		i, ok := strings.CutSuffix(rest, "_kind")
		if _, err := strconv.Atoi(i); ok && err == nil {
			track = append(track, "track_"+i+"_")
		}
	}
	slices.SortFunc(track, func(a, b string) int {
		x, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(a, "track_"), "_"))
		y, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(b, "track_"), "_"))
		return x - y
	})
	return append(out, track...)
}

// Filters returns an RBM's weights W (visible×hidden), one filter per
// hidden unit.
func (Plugin) Filters(mm models.Model) (*sampling.Filters, bool) {
	m, ok := mm.(*models.RBM)
	if !ok {
		return nil, false
	}
	return &sampling.Filters{W: m.W, Visible: m.NVis, Hidden: m.NHid, What: "W, the visible-to-hidden weights"}, true
}
