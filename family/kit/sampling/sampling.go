// Package sampling is what a family's samplers share: the options of a
// draw (SampleOptions), what it returns (Drawn, Trace), the first-layer
// filters and the pictures (Artifact) the runner writes, their captions,
// and the optional abilities of a Plugin that make them (Sampler,
// ChainSampler, Mixer, FilterSource, ProposalPicturer).
package sampling

import (
	"fmt"
	"slices"
	"strings"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/imagegrid"
	"github.com/logz-ml/logz/models"
)

// Starts of the Markov chains of a sampler (SampleOptions.Init).
const (
	// InitRandom starts every chain at a uniform random state.
	InitRandom = "random"
	// InitData starts every chain at a training example drawn uniformly
	// with replacement (SampleOptions.Data).
	InitData = "data"
	// InitQ starts every chain at a draw of a χ² proposal q ≈ p (Kuleshov
	// & Ermon 2017 §5.2): the one saved in the checkpoint, else one
	// fitted to the model (RBMs).
	InitQ = "q"
)

// Sampling methods (Drawn.Method).
const (
	MethodGibbs     = "gibbs"
	MethodAncestral = "ancestral"
)

// Values of Drawn.Values: what each row of Drawn.X holds.
const (
	// ValuesStates are 0/1 draws of the visible units.
	ValuesStates = "states"
	// ValuesMeans are the probabilities p(v_i = 1 | ·) of the visible
	// units given the last draw of the layer above (the last Gibbs sweep's
	// hidden states, or the ancestral draw of the first hidden layer):
	// E[v | that draw], a grey image. Averaged over the draws they have
	// the model's marginals p(v_i = 1) as their mean, like the states.
	ValuesMeans = "means"
)

// DefaultSampleSteps is the number of Gibbs sweeps per chain of the
// runner's samples.npy (and of `logz sample` without --steps).
const DefaultSampleSteps = 1000

// MaxSamples bounds SampleOptions.N.
const MaxSamples = eval.MaxGibbsChains

// SampleOptions say how Family.Sample draws samples of a model.
type SampleOptions struct {
	// N is the number of samples (chains), in [1, MaxSamples].
	N int
	// Steps is the number of Gibbs sweeps of each chain (families that
	// sample by Markov chains; the ancestral samplers ignore it), in
	// [0, eval.MaxGibbsSteps].
	Steps int
	// Init is where the chains start: one of the family's SampleInits
	// ("" = the first of them). Ancestral samplers take "".
	Init string
	// Mean returns the probabilities p(v = 1 | ·) of the last step
	// (ValuesMeans) instead of binary states.
	Mean bool
	// Data holds the examples of Init "data" (rows of the model's
	// visible units).
	Data data.Examples
	// Checkpoint, if set, is the model's checkpoint, whose state may hold
	// a fitted χ² proposal for Init "q".
	Checkpoint *models.Checkpoint
	// QFit says how to fit a proposal for Init "q" when the checkpoint
	// holds none (zero: QFitDefaults).
	QFit QFit
	// Seed keys every random draw: sample (chain) i draws from generators
	// keyed by (Seed, i), so the samples do not depend on Workers.
	Seed uint64
	// Workers is the number of goroutines (≤ 0: 1).
	Workers int
	// Notice, if set, is told what the sampler did beyond the caption
	// (which proposal started the chains, its bound).
	Notice func(msg string)
}

// QFit is how a sampler fits a χ² proposal (a mixture of Components
// Bernoulli products, Steps steps of the fitter with Fit) to start chains
// at when the checkpoint holds none.
type QFit struct {
	Components, Steps int
	Fit               chi2.FitOptions
	// BaseRate, if set, are the log-odds the mixture's components start
	// at (else uniform).
	BaseRate []float64
}

// QFitDefaults are the settings of `logz sample`'s --q-* flags.
func QFitDefaults() QFit {
	return QFit{Components: 20, Steps: 500, Fit: chi2.FitOptions{Samples: 100, LearningRate: 0.05, Decay: 0.9}}
}

// Drawn is what a sampler drew: N samples of D visible units and how.
type Drawn struct {
	N int `json:"n"`
	D int `json:"d"`
	// X holds the samples, N×D row-major (sample i is X[i·D:(i+1)·D]).
	X []float64 `json:"-"`
	// Method is MethodGibbs or MethodAncestral.
	Method string `json:"method"`
	// Steps is the number of Gibbs sweeps (0 for ancestral samples).
	Steps int `json:"steps"`
	// Init is the chains' start ("" for ancestral samples).
	Init string `json:"init,omitempty"`
	// Values is ValuesStates or ValuesMeans.
	Values string `json:"values"`
	// What says in one line what was drawn, for a caption: e.g. "100
	// block-Gibbs chains of 1000 sweeps from uniform random states;
	// p(v=1|h) of the last sweep".
	What string `json:"what"`
	// Trace, if set, is a diagnostic of the chains after every sweep
	// (t = 0…Steps).
	Trace *Trace `json:"-"`
}

// Trace is a per-sweep diagnostic of a set of chains: the mean over the
// chains of a statistic (e.g. the RBM free energy F(v)) and its standard
// error, after t = 0…Steps sweeps.
type Trace struct {
	Name     string
	Mean, SE []float64
}

// Check reports options a sampler with the given starts (nil: ancestral)
// cannot use, and returns the start to use ("" for ancestral samplers).
func (o SampleOptions) Check(inits []string) (string, error) {
	switch {
	case o.N < 1 || o.N > MaxSamples:
		return "", fmt.Errorf("samples: the number of samples must be in [1, %d], got %d", MaxSamples, o.N)
	case o.Steps < 0 || o.Steps > eval.MaxGibbsSteps:
		return "", fmt.Errorf("samples: the number of sweeps must be in [0, %d], got %d", eval.MaxGibbsSteps, o.Steps)
	}
	if len(inits) == 0 {
		if o.Init != "" {
			return "", fmt.Errorf("samples: this family draws ancestral samples, which have no start (init %q)", o.Init)
		}
		return "", nil
	}
	init := o.Init
	if init == "" {
		init = inits[0]
	}
	if !slices.Contains(inits, init) {
		return "", fmt.Errorf("samples: unknown start %q (known: %s)", init, strings.Join(inits, ", "))
	}
	if o.Mean && o.Steps < 1 {
		return "", fmt.Errorf("samples: means p(v=1|h) need at least one sweep")
	}
	if init == InitData && (o.Data == nil || o.Data.Len() == 0) {
		return "", fmt.Errorf("samples: the data start needs data examples")
	}
	return init, nil
}

// StartCaption says in words where chains started.
func StartCaption(init string) string {
	switch init {
	case InitRandom:
		return "uniform random states"
	case InitData:
		return "random training examples"
	case InitQ:
		return "draws of a χ² proposal q"
	}
	return init
}

// GibbsCaption is the one-line caption of n Gibbs chains of steps sweeps
// from init: how and what was kept.
func GibbsCaption(kind string, n, steps int, init string, mean bool, meanOf string) string {
	kept := "the visible states after the last sweep"
	if mean {
		kept = meanOf + " of the last sweep"
	}
	return fmt.Sprintf("%d %s chains of %d sweeps from %s; %s", n, kind, steps, StartCaption(init), kept)
}

// Values returns ValuesMeans or ValuesStates.
func Values(mean bool) string {
	if mean {
		return ValuesMeans
	}
	return ValuesStates
}

// Filters returns the weights of a D×H matrix w as they are drawn: one
// tile per hidden unit j holding column j (w[i·H + j], i = 0…D−1); it is
// what Family.Filters returns.
type Filters struct {
	// W is visible×hidden, row-major.
	W               []float64
	Visible, Hidden int
	// What names the matrix ("W1, the visible-to-first-hidden weights").
	What string
}

// Column returns the weights of hidden unit j (length Visible).
func (f *Filters) Column(j int) []float64 {
	out := make([]float64, f.Visible)
	for i := range out {
		out[i] = f.W[i*f.Hidden+j]
	}
	return out
}

// TileShape returns the shape (rows h, columns w) in which a model's
// visible units are drawn as an image tile, and whether it is the data's
// own image shape: the model's grid when it has one (ImageShape, e.g. an
// Ising model's rows × cols), a perfect square (28×28 for MNIST), else
// imagegrid.Shape's layout of the units (4×5 for 20 units: not a picture).
func TileShape(m models.Model) (h, w int, image bool) {
	if g, ok := m.(interface{ ImageShape() (rows, cols int) }); ok {
		h, w = g.ImageShape()
		return h, w, true
	}
	h, w = imagegrid.Shape(m.NumVisible())
	return h, w, h == w
}

// Artifact is a picture an estimator hands to the runner beside its rows
// (Env.Artifact): Rows rows of Cols tiles of TileRows × TileCols units,
// X holding the Rows·Cols tiles one after the other (row-major, values in
// [0,1], 1 = white). The runner writes <Name>.npy (Rows·Cols ×
// TileRows·TileCols float64), <Name>.json (this without X) and <Name>.png
// in the experiment's folder.
type Artifact struct {
	Name     string    `json:"name"`
	Rows     int       `json:"rows"`
	Cols     int       `json:"cols"`
	TileRows int       `json:"tile_rows"`
	TileCols int       `json:"tile_cols"`
	X        []float64 `json:"-"`
	// RowNames name the rows of tiles, top to bottom.
	RowNames []string `json:"row_names,omitempty"`
	// Caption says in one line what the picture shows.
	Caption string `json:"caption"`
}

// Check reports an artifact whose sizes do not fit its values.
func (a *Artifact) Check() error {
	if a.Name == "" || strings.ContainsAny(a.Name, `/\.`) {
		return fmt.Errorf("artifact: bad name %q (a file stem without / or .)", a.Name)
	}
	if a.Rows < 1 || a.Cols < 1 || a.TileRows < 1 || a.TileCols < 1 || len(a.X) != a.Rows*a.Cols*a.TileRows*a.TileCols {
		return fmt.Errorf("artifact %s: %d values for %d×%d tiles of %d×%d units", a.Name, len(a.X), a.Rows, a.Cols, a.TileRows, a.TileCols)
	}
	if a.RowNames != nil && len(a.RowNames) != a.Rows {
		return fmt.Errorf("artifact %s: %d row names for %d rows", a.Name, len(a.RowNames), a.Rows)
	}
	return nil
}
