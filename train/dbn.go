package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// LayerData says what each layer above the first is trained on.
type LayerData int

const (
	// SampledData (the default) trains layer l+1 on one draw
	// x_l ~ Q(x_l | x_{l−1}) per example, made when the layer is stacked
	// from the very vectors layer l was trained on, and kept fixed
	// (Salakhutdinov & Murray 2008, §4.1, step 2).
	SampledData LayerData = iota
	// ResampledData draws the layer's data afresh at every epoch, by
	// ancestral sampling of Q from v up through every lower layer: a
	// lower-variance stochastic estimate of E_Q[log p(h)] (eq. 20).
	ResampledData
	// MeanFieldData trains each layer on the probabilities
	// μ_l = σ(b_{l−1} + W_{l−1}ᵀ μ_{l−1}), μ_0 = v, as real-valued rows
	// (RealData). It needs an RBMTrainer that trains on real-valued rows;
	// NewDBNTrainer reports an error if this build's does not.
	MeanFieldData
)

var layerDataNames = []string{"sampled", "resampled", "mean-field"}

// String returns "sampled", "resampled" or "mean-field".
func (d LayerData) String() string {
	if d >= 0 && int(d) < len(layerDataNames) {
		return layerDataNames[d]
	}
	return fmt.Sprintf("LayerData(%d)", int(d))
}

// ParseLayerData parses "sampled", "resampled" or "mean-field".
func ParseLayerData(s string) (LayerData, error) {
	for i, n := range layerDataNames {
		if s == n {
			return LayerData(i), nil
		}
	}
	return 0, fmt.Errorf("unknown layer data %q (want sampled, resampled or mean-field)", s)
}

// RealData is training data whose rows are real values in [0,1] (the
// mean-field layer data of a DBN) rather than binary states. Row still
// returns a binary row of the right width (the values thresholded at 1/2),
// for consumers that can only take binary data.
type RealData interface {
	data.Examples
	// RealRow writes row n into dst (length ≥ the row width). It must be
	// safe for concurrent use.
	RealRow(n int, dst []float64)
}

// DBNOptions configures a DBNTrainer.
type DBNOptions struct {
	// Layers[l] configures the RBM trainer (CD-k or PCD, schedule, ...) of
	// the RBM between layers l and l+1 (Layers[0] the first); a single entry
	// applies to every layer. Its Epochs (≥ 1) are the layer's, counted from
	// 1 for each layer.
	Layers []RBMOptions
	// Data says what the layers above the first are trained on.
	Data LayerData
	// TransposeInit initialises each layer above the first with the
	// transpose of the layer below (2008 §5.2): W_{l+1} = W_lᵀ, visible
	// biases = the hidden biases of layer l and hidden biases = its visible
	// biases. The new top RBM then makes the DBN define the same p(v) as the
	// stack below it, with Q the exact posterior of the new layer, so the
	// variational bound is unchanged at the moment of stacking. It needs
	// n_{l+1} = n_{l−1}.
	TransposeInit bool
	// InitStd is the standard deviation of the initial weights of layers not
	// initialised by transposition; 0 means 0.01.
	InitStd float64
	// BaseRateVBias initialises the visible biases of such layers to the
	// log-odds of their training data's means, log((c+1)/(N−c+1)) with c the
	// sum of the unit over the N rows; otherwise they start at 0.
	BaseRateVBias bool
	// Workers is the number of goroutines that make layer data; 0 means 2.
	// Results do not depend on it.
	Workers int
	// Frozen are trained bottom layers taken as they are: their parameters
	// are copied into the model's first len(Frozen) layers, which are not
	// trained, and greedy training starts on the layer above them, on data
	// drawn through them (Salakhutdinov & Murray 2008 §5.2: DBN-CD25 is
	// CD25(500) frozen with a 2000-unit RBM trained on top). Each must have
	// its layer's sizes; at least one layer must remain to train.
	Frozen []*models.RBM
}

// DBNTrainer trains a DBN greedily, layer by layer (Hinton et al. 2006;
// Salakhutdinov & Murray 2008, §4.1): Layers[0] is trained as an RBM on the
// data, then frozen; Layers[l] is trained as an RBM on data drawn from the
// recognition model Q(x_l | x_{l−1}) of the layers below (see LayerData),
// and so on up to the top RBM. Each layer is an RBMTrainer with its own
// options and its own generator derived from the seed, so the result is
// determined by the seed (and not by Workers or GOMAXPROCS).
//
// Drive it epoch by epoch with TrainEpoch (as the experiment runner does)
// or all at once with Train. A layer is "stacked" — initialised and given
// its data — by Prepare, which TrainEpoch calls when a layer starts; calling
// Prepare first lets one evaluate Current() at the moment of stacking.
type DBNTrainer struct {
	M   *models.DBN
	Opt DBNOptions
	// Layer is the 0-based index of the layer being trained (len(M.Layers)
	// when done), LayerEpoch its completed epochs; Completed counts all.
	Layer, LayerEpoch int
	epochs

	seed  uint64
	cur   *RBMTrainer   // trainer of Layer once stacked
	input data.Examples // Layer's training data, once made
	// inputKey is the epoch key input was made for (0 for fixed data).
	inputKey int
	// dataLen is the number of examples of the data seen by Prepare.
	dataLen int
}

// NewDBNTrainer prepares greedy training of m; seed determines every draw.
// The options are checked against the model's sizes.
func NewDBNTrainer(m *models.DBN, opt DBNOptions, seed uint64) (*DBNTrainer, error) {
	return newGreedyTrainer(m, opt, seed, false)
}

// newGreedyTrainer is NewDBNTrainer; scaled allows the layers' RBMOptions to
// set UpScale and DownScale (DBM pretraining), and each layer's data then
// come from the layers below through their scaled bottom-up conditionals.
func newGreedyTrainer(m *models.DBN, opt DBNOptions, seed uint64, scaled bool) (*DBNTrainer, error) {
	if m == nil {
		return nil, errors.New("dbn trainer: nil model")
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("dbn trainer: %w", err)
	}
	L := len(m.Layers)
	if len(opt.Layers) != 1 && len(opt.Layers) != L {
		return nil, fmt.Errorf("dbn trainer: %d layer option sets for a DBN of %d layers; give one per layer or one for all", len(opt.Layers), L)
	}
	for l := range L {
		lo := opt.layer(l)
		if lo.Epochs < 1 {
			return nil, fmt.Errorf("dbn trainer: layer %d: epochs = %d; want at least 1", l+1, lo.Epochs)
		}
		if lo.BatchSize <= 0 {
			return nil, fmt.Errorf("dbn trainer: layer %d: batch size must be positive, got %d", l+1, lo.BatchSize)
		}
		if lo.Schedule == nil {
			return nil, fmt.Errorf("dbn trainer: layer %d: no schedule", l+1)
		}
		if !scaled && (scaleOrOne(lo.UpScale) != 1 || scaleOrOne(lo.DownScale) != 1) {
			return nil, fmt.Errorf("dbn trainer: layer %d: up scale %v, down scale %v; the input scales are for DBM pretraining, a DBN's RBMs use 1 (or 0)",
				l+1, lo.UpScale, lo.DownScale)
		}
		if opt.TransposeInit && l > 0 && m.Layers[l].NHid != m.Layers[l-1].NVis {
			return nil, fmt.Errorf("dbn trainer: transposed initialisation of layer %d needs %d hidden units (the visible units of layer %d), it has %d",
				l+1, m.Layers[l-1].NVis, l, m.Layers[l].NHid)
		}
	}
	if opt.Data < SampledData || opt.Data > MeanFieldData {
		return nil, fmt.Errorf("dbn trainer: unknown layer data %v", opt.Data)
	}
	if opt.InitStd < 0 || math.IsNaN(opt.InitStd) {
		return nil, fmt.Errorf("dbn trainer: initial weight std %v must be ≥ 0", opt.InitStd)
	}
	if len(opt.Frozen) >= L {
		return nil, fmt.Errorf("dbn trainer: %d frozen bottom layers leave none of the DBN's %d layers to train", len(opt.Frozen), L)
	}
	for l, r := range opt.Frozen {
		dst := m.Layers[l]
		if r == nil || r.NVis != dst.NVis || r.NHid != dst.NHid {
			got := "none"
			if r != nil {
				got = fmt.Sprintf("%d×%d", r.NVis, r.NHid)
			}
			return nil, fmt.Errorf("dbn trainer: frozen layer %d is %s, the DBN's layer %d is %d×%d (visible×hidden)", l+1, got, l+1, dst.NVis, dst.NHid)
		}
		copy(dst.W, r.W)
		copy(dst.VBias, r.VBias)
		copy(dst.HBias, r.HBias)
	}
	total := 0
	for l := len(opt.Frozen); l < L; l++ {
		total += opt.layer(l).Epochs
	}
	return &DBNTrainer{M: m, Opt: opt, seed: seed, Layer: len(opt.Frozen), epochs: epochs{total: total}}, nil
}

func (o *DBNOptions) layer(l int) RBMOptions {
	if len(o.Layers) == 1 {
		return o.Layers[0]
	}
	return o.Layers[l]
}

// Done reports whether every layer has been trained.
func (t *DBNTrainer) Done() bool { return t.Layer >= len(t.M.Layers) }

// Current returns the stack built so far: the layers trained or being
// trained, including a layer stacked by Prepare. It is an *models.RBM while
// only the first layer exists, a *models.DBN afterwards (the full M when
// done), and nil before anything was stacked. It shares its parameters with
// M: evaluate it between epochs, do not modify it.
func (t *DBNTrainer) Current() models.Model {
	n := t.Layer
	if t.cur != nil {
		n++
	}
	n = min(n, len(t.M.Layers))
	switch n {
	case 0:
		return nil
	case 1:
		return t.M.Layers[0]
	}
	return &models.DBN{Layers: t.M.Layers[:n]}
}

// Prepare stacks the layer to be trained next if that has not been done:
// it initialises its parameters (by transposition or at random) and makes
// its training data from data (the same data every call). TrainEpoch calls
// it; call it yourself to evaluate Current() at the moment of stacking.
func (t *DBNTrainer) Prepare(data data.Examples) error {
	if t.Done() {
		return errors.New("dbn trainer: every layer is trained")
	}
	if err := checkEpochData(data, &t.dataLen, t.M.NumVisible(), "dbn"); err != nil {
		return err
	}
	if t.cur != nil {
		return nil
	}
	l := t.Layer
	ropt := t.Opt.layer(l)
	if ropt.Workers == 0 {
		ropt.Workers = t.Opt.Workers
	}
	rt, err := NewRBMTrainer(t.M.Layers[l], ropt, dbnSeed(t.seed, 1, uint64(l)))
	if err != nil {
		return fmt.Errorf("dbn trainer: layer %d: %w", l+1, err)
	}
	if err := t.makeInput(data, t.epochKey(1)); err != nil {
		return err
	}
	if t.Opt.TransposeInit && l > 0 {
		transposeInto(t.M.Layers[l], t.M.Layers[l-1])
	} else {
		std := t.Opt.InitStd
		if std == 0 {
			std = 0.01
		}
		var vb []float64
		if t.Opt.BaseRateVBias {
			vb = baseRate(t.input, t.M.Layers[l].NVis)
		}
		rt.InitParams(std, vb)
	}
	t.cur = rt
	return nil
}

// checkEpochData checks the training data passed to a greedy trainer
// (kind "dbn" or "dbm"): not empty, as many examples as the first call's
// (*n, set by the first call) and as many units as the model's visible
// layer.
func checkEpochData(data data.Examples, n *int, visible int, kind string) error {
	if data == nil || data.Len() == 0 {
		return fmt.Errorf("%s trainer: no training data", kind)
	}
	if *n != 0 && data.Len() != *n {
		return fmt.Errorf("%s trainer: the data have %d examples, earlier %d; pass the same data every epoch", kind, data.Len(), *n)
	}
	if w := len(data.Row(0)); w != visible {
		return fmt.Errorf("%s trainer: data have %d units per example, the %s %d visible units", kind, w, strings.ToUpper(kind), visible)
	}
	*n = data.Len()
	return nil
}

// epochKey is the key of the data of layer epoch e (1-based): 0 for data
// that stay fixed, e for data drawn afresh each epoch.
func (t *DBNTrainer) epochKey(e int) int {
	if t.Opt.Data == ResampledData {
		return e
	}
	return 0
}

// TrainEpoch trains the current layer for one epoch, stacking it first if
// it is new, and moves on to the next layer after the layer's last epoch.
// The summary is the layer's RBM trainer's, with Layer (1-based) and Epoch
// counting all epochs of all layers.
func (t *DBNTrainer) TrainEpoch(data data.Examples) (EpochSummary, error) {
	if err := t.Prepare(data); err != nil {
		return EpochSummary{}, err
	}
	l := t.Layer
	if key := t.epochKey(t.LayerEpoch + 1); t.input == nil || key != t.inputKey {
		if err := t.makeInput(data, key); err != nil {
			return EpochSummary{}, err
		}
	}
	t.cur.onBatch = t.onBatch
	st, err := t.cur.TrainEpoch(t.input)
	if err != nil {
		return EpochSummary{}, fmt.Errorf("dbn trainer: layer %d: %w", l+1, err)
	}
	t.LayerEpoch++
	t.done++
	st.Layer, st.Epoch = l+1, t.done
	if t.LayerEpoch >= t.Opt.layer(l).Epochs {
		t.Layer++
		t.LayerEpoch = 0
		t.cur, t.input = nil, nil
	}
	return st, nil
}

// EpochSettings are the epoch line's k, learning rate and momentum (of
// the layer's RBM).
func (t *DBNTrainer) EpochSettings(s EpochSummary) string { return RBMSettings(s) }

// Train runs greedy training to the end. onLayer, if set, is called when a
// layer has been stacked, before its first epoch, with the layer (1-based)
// and the stack; onEpoch, if set, after every epoch with the stack built so
// far. An error from either stops training and is returned.
func (t *DBNTrainer) Train(data data.Examples, onLayer func(layer int, stack models.Model) error, onEpoch func(st EpochSummary, stack models.Model) error) error {
	for !t.Done() {
		if t.cur == nil {
			if err := t.Prepare(data); err != nil {
				return err
			}
			if onLayer != nil {
				if err := onLayer(t.Layer+1, t.Current()); err != nil {
					return err
				}
			}
		}
		st, err := t.TrainEpoch(data)
		if err != nil {
			return err
		}
		if onEpoch != nil {
			if err := onEpoch(st, t.Current()); err != nil {
				return err
			}
		}
	}
	return nil
}

// transposeInto sets dst = the transpose of src (dst is n_{l+1}×n_{l+2} =
// src's n_l × n_{l+1} swapped): W = srcᵀ, visible biases = src's hidden
// biases, hidden biases = src's visible biases.
func transposeInto(dst, src *models.RBM) {
	for i := range src.NVis {
		for j := range src.NHid {
			dst.W[j*src.NVis+i] = src.W[i*src.NHid+j]
		}
	}
	copy(dst.VBias, src.HBias)
	copy(dst.HBias, src.VBias)
}

// makeInput makes the training data of the current layer: the data
// themselves for the first layer, otherwise the data propagated through the
// layers below by Q (sampled with generators keyed by the layer and key, or
// by mean field), Q being each layer's bottom-up conditional with its
// UpScale (1 for a DBN).
func (t *DBNTrainer) makeInput(in data.Examples, key int) error {
	t.input, t.inputKey = nil, key
	x := in
	for k := 1; k <= t.Layer; k++ {
		r := scaledUp(t.M.Layers[k-1], t.Opt.layer(k-1).UpScale)
		if t.Opt.Data == MeanFieldData {
			x = meanFieldLayer(r, x, t.workers())
		} else {
			x = sampleLayer(r, x, dbnSeed(t.seed, 2+uint64(key), uint64(k)), t.workers())
		}
	}
	t.input = x
	return nil
}

func (t *DBNTrainer) workers() int {
	if t.Opt.Workers > 0 {
		return t.Opt.Workers
	}
	return 2
}

// dbnSeed derives a seed from seed, a purpose a and an index b
// (splitmix64 finaliser over a running combination).
func dbnSeed(seed, a, b uint64) uint64 {
	z := seed
	for _, x := range [2]uint64{a, b} {
		z += 0x9e3779b97f4a7c15 + x*0xd1b54a32d192ed03
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		z ^= z >> 31
	}
	return z
}

// scaledUp returns r if its up scale (0 meaning 1) is 1, otherwise a copy
// with W multiplied by it, whose HiddenPreact is then b + up·Wᵀx: the
// bottom-up conditional of a DBM pretraining RBM.
func scaledUp(r *models.RBM, up float64) *models.RBM {
	if up = scaleOrOne(up); up == 1 {
		return r
	}
	c := r.Clone()
	for i := range c.W {
		c.W[i] *= up
	}
	return c
}

// layerChunk is the number of rows made by one task with its own generator;
// it is fixed, so the draws do not depend on the number of workers.
const layerChunk = 256

// forChunks runs f(lo, hi, chunk) over the chunks of n rows on workers goroutines.
func forChunks(n, workers int, f func(lo, hi, chunk int)) {
	chunks := (n + layerChunk - 1) / layerChunk
	parallel(chunks, max(1, workers), func(_, c int) {
		f(c*layerChunk, min((c+1)*layerChunk, n), c)
	})
}

// parallel runs f(worker, i) for i = 0…n−1 on min(workers, n) goroutines
// (inline for one worker); worker < workers identifies the goroutine, for
// scratch space. Each f(·, i) must do work that depends only on i, so that
// the result does not depend on workers.
func parallel(n, workers int, f func(worker, i int)) {
	if workers <= 1 || n <= 1 {
		for i := range n {
			f(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg workgroup.Group
	for w := range min(workers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(w, i)
			}
		})
	}
	wg.Wait()
}

// readRow writes row n of x into dst as float64 (real values if x has them).
func readRow(x data.Examples, n int, dst []float64) {
	if rd, ok := x.(RealData); ok {
		rd.RealRow(n, dst)
		return
	}
	for i, b := range x.Row(n) {
		dst[i] = 0
		if b != 0 {
			dst[i] = 1
		}
	}
}

// sampleLayer returns one draw h ~ Q(h|x) = σ(b + Wᵀx) for every row x of
// in; the rows of chunk c draw from rand.NewPCG(seed, c).
func sampleLayer(r *models.RBM, in data.Examples, seed uint64, workers int) *binRows {
	N, H := in.Len(), r.NHid
	out := &binRows{d: H, data: make([]uint8, N*H)}
	forChunks(N, workers, func(lo, hi, c int) {
		rng := rand.New(rand.NewPCG(seed, uint64(c)))
		x := make([]float64, r.NVis)
		pre := make([]float64, H)
		for n := lo; n < hi; n++ {
			readRow(in, n, x)
			r.HiddenPreact(pre, x)
			row := out.data[n*H : (n+1)*H]
			for j, p := range pre {
				if rng.Float64() < nmath.Sigmoid(p) {
					row[j] = 1
				}
			}
		}
	})
	return out
}

// meanFieldLayer returns μ = σ(b + Wᵀx) for every row x of in.
func meanFieldLayer(r *models.RBM, in data.Examples, workers int) *realRows {
	N, H := in.Len(), r.NHid
	out := &realRows{d: H, data: make([]float32, N*H)}
	forChunks(N, workers, func(lo, hi, _ int) {
		x := make([]float64, r.NVis)
		pre := make([]float64, H)
		for n := lo; n < hi; n++ {
			readRow(in, n, x)
			r.HiddenPreact(pre, x)
			row := out.data[n*H : (n+1)*H]
			for j, p := range pre {
				row[j] = float32(nmath.Sigmoid(p))
			}
		}
	})
	return out
}

// baseRate returns log((c_i+1)/(N−c_i+1)), c_i = Σ_n x_{n,i}.
func baseRate(x data.Examples, d int) []float64 {
	c := make([]float64, d)
	row := make([]float64, d)
	for n := range x.Len() {
		readRow(x, n, row)
		for i, v := range row {
			c[i] += v
		}
	}
	N := float64(x.Len())
	for i, s := range c {
		c[i] = math.Log(s+1) - math.Log(N-s+1)
	}
	return c
}

// binRows is an N×d binary matrix (sampled layer data).
type binRows struct {
	d    int
	data []uint8
}

func (b *binRows) Len() int          { return len(b.data) / b.d }
func (b *binRows) Row(n int) []uint8 { return b.data[n*b.d : (n+1)*b.d] }

// realRows is an N×d matrix of probabilities (mean-field layer data), kept
// in float32 to halve its memory.
type realRows struct {
	d    int
	data []float32
}

func (r *realRows) Len() int { return len(r.data) / r.d }

// Row returns the row thresholded at 1/2 (a new slice each call).
func (r *realRows) Row(n int) []uint8 {
	out := make([]uint8, r.d)
	for i, p := range r.data[n*r.d : (n+1)*r.d] {
		if p >= 0.5 {
			out[i] = 1
		}
	}
	return out
}

// RealRow implements RealData.
func (r *realRows) RealRow(n int, dst []float64) {
	for i, p := range r.data[n*r.d : (n+1)*r.d] {
		dst[i] = float64(p)
	}
}

var _ RealData = (*realRows)(nil)

// dbnTrainState is the non-array trainer state kept in the model.npz meta.
type dbnTrainState struct {
	Layer      int             `json:"layer"` // 0-based
	LayerEpoch int             `json:"layer_epoch"`
	Epoch      int             `json:"epoch"`
	Data       string          `json:"layer_data"`
	Transpose  bool            `json:"transpose_init"`
	Stacked    bool            `json:"stacked"`       // the current layer has started training
	RBM        json.RawMessage `json:"rbm,omitempty"` // the current layer's RBMTrainer state
	// Precisions are the layers' training precisions (RBMOptions.Precision,
	// float64 when unset; "" for a frozen layer), always saved. Checkpoints
	// written before they were recorded lack them: their finished layers'
	// precisions are not known and not checked (the current layer's is, in
	// its RBM state).
	Precisions []kernel.Precision `json:"precisions,omitempty"`
}

// precisions are the precisions of the layers greedy training trains
// (float64 when unset), "" for the frozen ones (not trained here).
func (t *DBNTrainer) precisions() []kernel.Precision {
	ps := make([]kernel.Precision, len(t.M.Layers))
	for l := len(t.Opt.Frozen); l < len(ps); l++ {
		ps[l] = t.Opt.layer(l).Precision.Or(kernel.Float64)
	}
	return ps
}

// checkLayerPrecisions refuses, with kernel.Check's message (as the RBM
// trainer), a checkpoint whose layers were trained in other precisions
// than the experiment's: was are the checkpoint's (nil when it does not
// record them: not checked), now the experiment's; a layer frozen in
// either ("") is not compared.
func checkLayerPrecisions(was, now []kernel.Precision) error {
	if was == nil {
		return nil
	}
	if len(was) != len(now) {
		return fmt.Errorf("checkpoint records the precisions of %d layers, the experiment has %d", len(was), len(now))
	}
	for l := range was {
		if was[l] == "" || now[l] == "" {
			continue
		}
		if err := precisionMismatch(was[l], now[l]); err != nil {
			return fmt.Errorf("layer %d: %w", l+1, err)
		}
	}
	return nil
}

// Checkpoint returns the whole DBN (layers not stacked yet hold whatever M
// holds) with the state needed to resume: the position in the greedy
// schedule and the current layer's RBM trainer state (momentum buffers,
// persistent chains, generator). Layer data are not saved: they are remade
// from the seed on Resume. The arrays alias the trainer's buffers.
func (t *DBNTrainer) Checkpoint(experiment string) (*models.Checkpoint, error) {
	// A layer stacked but not trained yet is saved as not stacked: Prepare
	// remakes its initial state exactly (and a PCD trainer has no chains
	// before its first epoch).
	started := t.cur != nil && t.LayerEpoch > 0
	st := dbnTrainState{Layer: t.Layer, LayerEpoch: t.LayerEpoch, Epoch: t.done, Data: t.Opt.Data.String(), Transpose: t.Opt.TransposeInit, Stacked: started,
		Precisions: t.precisions()}
	c := &models.Checkpoint{Model: t.M, Meta: models.Meta{Experiment: experiment, Epoch: t.done}, State: map[string]models.Array{}, Bytes: map[string][]byte{}}
	if started {
		inner, err := t.cur.Checkpoint(experiment)
		if err != nil {
			return nil, err
		}
		st.RBM = inner.Meta.Train
		c.State, c.Bytes = inner.State, inner.Bytes
	}
	js, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	c.Meta.Train = js
	return c, nil
}

// Resume restores a trainer made by NewDBNTrainer with the options and seed
// of the checkpointed run, so that training continues exactly as if it had
// not stopped.
func (t *DBNTrainer) Resume(c *models.Checkpoint) error {
	m, ok := c.Model.(*models.DBN)
	if !ok {
		return fmt.Errorf("checkpoint holds a %s, not a dbn", c.Model.TypeName())
	}
	if a, b := fmt.Sprint(m.Sizes()), fmt.Sprint(t.M.Sizes()); a != b {
		return fmt.Errorf("checkpoint DBN has layer sizes %s, the experiment's %s", a, b)
	}
	var st dbnTrainState
	if err := decodeTrainState(c, &st); err != nil {
		return err
	}
	if st.Data != t.Opt.Data.String() || st.Transpose != t.Opt.TransposeInit {
		return fmt.Errorf("checkpoint was trained with layer data %s, transpose_init %v; the experiment asks for %s, %v",
			st.Data, st.Transpose, t.Opt.Data, t.Opt.TransposeInit)
	}
	if err := checkLayerPrecisions(st.Precisions, t.precisions()); err != nil {
		return err
	}
	L := len(t.M.Layers)
	if st.Layer < len(t.Opt.Frozen) || st.Layer > L || st.LayerEpoch < 0 || (st.Layer < L && st.LayerEpoch >= t.Opt.layer(st.Layer).Epochs) {
		return fmt.Errorf("checkpoint training state (layer %d, epoch %d of it) does not fit the experiment's %d layers and epochs", st.Layer+1, st.LayerEpoch, L)
	}
	for l, r := range m.Layers {
		dst := t.M.Layers[l]
		copy(dst.W, r.W)
		copy(dst.VBias, r.VBias)
		copy(dst.HBias, r.HBias)
	}
	t.Layer, t.LayerEpoch, t.done = st.Layer, st.LayerEpoch, st.Epoch
	t.cur, t.input = nil, nil
	if !st.Stacked {
		return nil
	}
	if st.Layer >= L {
		return errors.New("checkpoint training state: a stacked layer beyond the last")
	}
	ropt := t.Opt.layer(st.Layer)
	if ropt.Workers == 0 {
		ropt.Workers = t.Opt.Workers
	}
	rt, err := NewRBMTrainer(t.M.Layers[st.Layer], ropt, dbnSeed(t.seed, 1, uint64(st.Layer)))
	if err != nil {
		return fmt.Errorf("layer %d: %w", st.Layer+1, err)
	}
	inner := &models.Checkpoint{Model: t.M.Layers[st.Layer], Meta: models.Meta{Train: st.RBM}, State: c.State, Bytes: c.Bytes}
	if err := rt.Resume(inner); err != nil {
		return fmt.Errorf("layer %d: %w", st.Layer+1, err)
	}
	if rt.done != st.LayerEpoch {
		return fmt.Errorf("checkpoint training state: layer %d has %d epochs done but its RBM trainer %d", st.Layer+1, st.LayerEpoch, rt.done)
	}
	t.cur = rt
	return nil
}
