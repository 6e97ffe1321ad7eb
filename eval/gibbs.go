package eval

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// Gibbs runs Chains independent block-Gibbs chains of an RBM for Steps
// sweeps each. One sweep is v → h ~ p(h|v) → v′ ~ p(v|h), with
//
//	p(h_j = 1 | v) = σ(b_j + vᵀW_{:,j}),   p(v_i = 1 | h) = σ(a_i + W_{i,:}h),
//
// a kernel that leaves the model's marginal p(v) = e^{−F(v)}/Z invariant.
// After every sweep (and at the start) it records each chain's free energy
// F(v) = −aᵀv − Σ_j softplus(b_j + vᵀW_{:,j}), whose mean over chains
// settles at E_p[F] once the chains have mixed.
//
// Chain c draws its start from the generator keyed (Seed, "start", c) and
// its sweeps from the one keyed (Seed, "sweep", c) (internal/seeds), so
// the result depends on Seed alone, not on Workers or on scheduling.
//
// The same settings run the chains of the other models' samplers
// (sample.go: SampleIsing, SampleDBM, SampleDBN), each keyed as its doc
// says.
type Gibbs struct {
	Chains, Steps int
	Seed          uint64
	// Workers is the number of goroutines (≤ 0: 1).
	Workers int
	// Means keeps p(v = 1 | h) of each chain's last sweep (GibbsResult.Means).
	Means bool
}

// Limits of a Gibbs run (far above sensible use; they keep a typo from
// allocating gigabytes for the free-energy record).
const (
	MaxGibbsChains  = 1 << 20
	MaxGibbsSteps   = 1 << 24
	MaxGibbsRecords = 1 << 27 // (Steps+1)·Chains
)

// Seed labels of the streams of a Gibbs run.
const (
	keyGibbsStart uint64 = 1
	keyGibbsSweep uint64 = 2
	keyMixing     uint64 = 3
)

// Start sets the initial visible states of chains. NewStarter is called
// once per worker goroutine and returns a function with its own scratch
// that sets v (length D, 0/1) to chain c's start, drawing from rng only.
type Start interface {
	NewStarter() func(c int, v []uint8, rng *rand.Rand)
}

// StartFunc is a Start without scratch.
type StartFunc func(c int, v []uint8, rng *rand.Rand)

// NewStarter implements Start.
func (f StartFunc) NewStarter() func(c int, v []uint8, rng *rand.Rand) { return f }

// UniformStart draws every unit independently with probability ½.
var UniformStart Start = StartFunc(func(_ int, v []uint8, rng *rand.Rand) {
	var r uint64
	for i := range v {
		if i%64 == 0 {
			r = rng.Uint64()
		}
		v[i] = uint8(r & 1)
		r >>= 1
	}
})

// ProposalStart starts each chain at a draw from a fitted χ² proposal q
// (Kuleshov & Ermon 2017 §5.2: q ≈ p/Z, so the chain starts near p).
func ProposalStart(q chi2.Proposal) Start { return proposalStart{q} }

type proposalStart struct{ q chi2.Proposal }

func (s proposalStart) NewStarter() func(c int, v []uint8, rng *rand.Rand) {
	d := s.q.NewDraw()
	return func(_ int, v []uint8, rng *rand.Rand) {
		s.q.Sample(d, rng)
		copy(v, d.X)
	}
}

// GibbsResult is the outcome of Gibbs.Run.
type GibbsResult struct {
	Chains, Steps, D int
	// Final holds the chains' visible states after the last sweep
	// (Chains×D, row c = chain c).
	Final []uint8
	// Means holds p(v = 1 | h) of the last sweep (Chains×D) when
	// Gibbs.Means is set (and Steps ≥ 1), else nil.
	Means []float64
	// F[t·Chains + c] is F(v) of chain c after t sweeps, t = 0…Steps.
	F []float64
}

// MeanF returns the mean free energy over the chains after t sweeps and
// its standard error sd/√Chains (the chains are independent).
func (r *GibbsResult) MeanF(t int) (mean, se float64) {
	return meanSE(r.F[t*r.Chains : (t+1)*r.Chains])
}

// meanSE returns the mean of x and its standard error sd(x)/√n (0 for
// n < 2).
func meanSE(x []float64) (mean, se float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += v
	}
	mean /= n
	if len(x) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / (n - 1) / n)
}

func (g Gibbs) check(m *models.RBM) error {
	if m == nil {
		return fmt.Errorf("gibbs: nil model")
	}
	if err := g.checkCounts(); err != nil {
		return err
	}
	if (g.Steps+1)*g.Chains > MaxGibbsRecords {
		return fmt.Errorf("gibbs: %d chains × %d sweeps is too many free energies to record (at most %d)", g.Chains, g.Steps, MaxGibbsRecords)
	}
	return nil
}

// Run runs the chains from start.
func (g Gibbs) Run(m *models.RBM, start Start) (*GibbsResult, error) {
	if err := g.check(m); err != nil {
		return nil, err
	}
	// The base-rate path with a zero base is used at β = 1 only: its chain
	// is the model's block-Gibbs kernel with incremental pre-activations,
	// and its log f_1(v) is −F(v) exactly (the weightless base's H log 2
	// cancels).
	path, err := inference.NewBaseRatePath(m, nil)
	if err != nil {
		return nil, err
	}
	n, D := g.Chains, m.NVis
	r := &GibbsResult{Chains: n, Steps: g.Steps, D: D, Final: make([]uint8, n*D), F: make([]float64, (g.Steps+1)*n)}
	if g.Means && g.Steps > 0 {
		r.Means = make([]float64, n*D)
	}
	// Worker w runs chains w, w+workers, … (the chains cost the same).
	workers := max(1, min(g.Workers, n))
	var wg workgroup.Group
	for w := range workers {
		wg.Go(func() {
			chain := path.NewRBMChain()
			startAt := start.NewStarter()
			v := make([]uint8, D)
			var pcg rand.PCG
			rng := rand.New(&pcg)
			for c := w; c < n; c += workers {
				pcg.Seed(seeds.Derive(g.Seed, keyGibbsStart, uint64(c)), seeds.Derive(g.Seed, keyGibbsStart, uint64(c), 1))
				startAt(c, v, rng)
				chain.SetVisible(v)
				r.F[c] = -chain.LogUnnorm(1)
				pcg.Seed(seeds.Derive(g.Seed, keyGibbsSweep, uint64(c)), seeds.Derive(g.Seed, keyGibbsSweep, uint64(c), 1))
				for t := 1; t <= g.Steps; t++ {
					chain.Transition(1, rng)
					r.F[t*n+c] = -chain.LogUnnorm(1)
				}
				copy(r.Final[c*D:(c+1)*D], chain.Visible())
				if r.Means != nil {
					chain.VisibleProbs(r.Means[c*D : (c+1)*D])
				}
			}
		})
	}
	wg.Wait()
	return r, nil
}

// MixingZ is the width, in standard errors, of the band around the
// long-run level within which a start counts as having reached it.
const MixingZ = 3

// MixingTail is the fraction of the last sweeps whose free energies
// define the long-run level.
const MixingTail = 0.2

// MixingRow is one start's line of a mixing comparison.
type MixingRow struct {
	Start string
	// Steps is the first sweep t at which the start's mean free energy
	// comes within the band of the level (see Mixing), or −1 if it never
	// does within the run.
	Steps int
	// FinalF ± FinalSE is the mean free energy after the last sweep.
	FinalF, FinalSE float64
	// MeanF[t] and SE[t] are the mean free energy after t sweeps and its
	// standard error.
	MeanF, SE []float64
	// TailF ± TailSE is this start's own long-run level (its chains'
	// tail means, as for the pooled level).
	TailF, TailSE float64
	// Agrees reports whether TailF is within MixingZ·√(TailSE² + LevelSE²)
	// of the pooled level. When it is false the starts have not reached
	// one distribution within the run (the chains have not mixed) and
	// Steps, measured against a level between them, means little.
	Agrees bool
}

// MixingResult compares how fast chains from several starts reach the
// same mean free energy.
type MixingResult struct {
	// Level ± LevelSE is the long-run mean free energy: the mean of every
	// chain's free energy over sweeps TailFrom…Steps, pooled over the
	// starts; LevelSE is the sd of the per-chain tail means over √(their
	// number) (the chains are independent; the sweeps of one chain are not,
	// so they are averaged within the chain first).
	Level, LevelSE float64
	TailFrom       int
	Rows           []MixingRow
}

// Mixing runs g from each start (chains of start i keyed by
// seeds.Derive(g.Seed, "mixing", i)) and reports, for each, the first
// sweep t at which its mean free energy F̄_s(t) is within
//
//	|F̄_s(t) − L| ≤ MixingZ · √(se_s(t)² + se_L²)
//
// of the long-run level L (MixingResult.Level): the last MixingTail of the
// sweeps (at least one) of all the starts' chains, pooled. Chains started
// from p itself are at the level from t = 0; chains from a poor start take
// as many sweeps as the kernel needs to forget it. The level is only as
// good as the run is long: every start should have mixed by the tail, and
// MixingRow.Agrees says whether each start's own tail level agrees with
// the pooled one.
func (g Gibbs) Mixing(m *models.RBM, names []string, starts []Start) (*MixingResult, error) {
	if len(names) != len(starts) || len(starts) == 0 {
		return nil, fmt.Errorf("mixing: need one name per start and at least one start, got %d names and %d starts", len(names), len(starts))
	}
	if g.Steps < 1 {
		return nil, fmt.Errorf("mixing: need at least 1 sweep, got %d", g.Steps)
	}
	g.Means = false
	runs := make([]*GibbsResult, len(starts))
	for i, s := range starts {
		gi := g
		gi.Seed = seeds.Derive(g.Seed, keyMixing, uint64(i))
		r, err := gi.Run(m, s)
		if err != nil {
			return nil, err
		}
		runs[i] = r
	}
	S, n := g.Steps, g.Chains
	tail := max(1, int(math.Ceil(MixingTail*float64(S))))
	res := &MixingResult{TailFrom: S - tail + 1}
	chainMeans := make([]float64, 0, n*len(runs))
	for _, r := range runs {
		for c := range n {
			s := 0.0
			for t := res.TailFrom; t <= S; t++ {
				s += r.F[t*n+c]
			}
			chainMeans = append(chainMeans, s/float64(tail))
		}
	}
	res.Level, res.LevelSE = meanSE(chainMeans)
	for i, r := range runs {
		row := MixingRow{Start: names[i], Steps: -1, MeanF: make([]float64, S+1), SE: make([]float64, S+1)}
		row.TailF, row.TailSE = meanSE(chainMeans[i*n : (i+1)*n])
		row.Agrees = math.Abs(row.TailF-res.Level) <= MixingZ*math.Hypot(row.TailSE, res.LevelSE)
		for t := 0; t <= S; t++ {
			mu, se := r.MeanF(t)
			row.MeanF[t], row.SE[t] = mu, se
			if row.Steps < 0 && math.Abs(mu-res.Level) <= MixingZ*math.Hypot(se, res.LevelSE) {
				row.Steps = t
			}
		}
		row.FinalF, row.FinalSE = row.MeanF[S], row.SE[S]
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}
