package train

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

func dbnOptions(data LayerData, transpose bool, epochs ...int) DBNOptions {
	var ls []RBMOptions
	for l, e := range epochs {
		ls = append(ls, RBMOptions{
			Persistent: l == 1, Chains: 30, BatchSize: 40, Shuffle: true,
			Schedule: constSchedule{k: 1, lr: 0.1, mom: 0.5}, Epochs: e,
		})
	}
	return DBNOptions{Layers: ls, Data: data, TransposeInit: transpose, BaseRateVBias: true}
}

func newDBNTrainer(t *testing.T, opt DBNOptions, seed uint64, sizes ...int) *DBNTrainer {
	t.Helper()
	m, err := models.NewDBN(sizes...)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewDBNTrainer(m, opt, seed)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func sameDBN(a, b *models.DBN) bool {
	for l := range a.Layers {
		if !sameParams(a.Layers[l], b.Layers[l]) {
			return false
		}
	}
	return true
}

// TestDBNTransposedStackingKeepsBound: after the first layer is trained,
// stacking a second layer initialised with its transpose (2008 §5.2) gives a
// DBN whose exact log p(v) and exact variational bound both equal the RBM's
// exact log p(v) on every training vector: the training bound is unchanged
// at the moment of stacking. Training the new layer then moves the bound.
func TestDBNTransposedStackingKeepsBound(t *testing.T) {
	_, train, _ := planted(600, 7)
	tr := newDBNTrainer(t, dbnOptions(SampledData, true, 8, 4), 3, 10, 6, 10)
	if tr.Current() != nil {
		t.Fatal("stack before anything was stacked")
	}
	var atStack, after float64
	err := tr.Train(train, func(layer int, stack models.Model) error {
		switch layer {
		case 1:
			if _, ok := stack.(*models.RBM); !ok {
				t.Errorf("layer 1 stack is %T", stack)
			}
		case 2:
			d, ok := stack.(*models.DBN)
			if !ok || d.NumLayers() != 2 {
				t.Fatalf("layer 2 stack is %T", stack)
			}
			rbmLL := exactLogLikPer(d.Layers[0], train)
			ex, err := eval.DBNExact{}.LogProb(d, train)
			if err != nil {
				t.Fatal(err)
			}
			for n := range train {
				if math.Abs(ex.ELBO[n]-rbmLL[n]) > 1e-9 || math.Abs(ex.LogP[n]-rbmLL[n]) > 1e-9 {
					t.Fatalf("v=%v: DBN bound %v, DBN log p %v, RBM log p %v", train[n], ex.ELBO[n], ex.LogP[n], rbmLL[n])
				}
			}
			atStack = ex.MeanELBO.Mean
		}
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := eval.DBNExact{}.LogProb(tr.M, train)
	if err != nil {
		t.Fatal(err)
	}
	after = ex.MeanELBO.Mean
	if atStack == 0 || after == atStack {
		t.Fatalf("bound at stacking %v, after training layer 2 %v", atStack, after)
	}
	t.Logf("mean training bound: %.4f at stacking, %.4f after 4 epochs of layer 2 (exact log p %.4f)", atStack, after, ex.Mean.Mean)
}

// exactLogLikPer is log p(v) of every row by enumeration.
func exactLogLikPer(m *models.RBM, xs rows) []float64 {
	v := make([]float64, m.NVis)
	all := make([]float64, 1<<m.NVis)
	for s := range all {
		for i := range v {
			v[i] = float64(s >> i & 1)
		}
		all[s] = m.LogUnnorm(v, nil)
	}
	lz := nmath.LogSumExp(all)
	out := make([]float64, len(xs))
	for n, x := range xs {
		for i := range v {
			v[i] = float64(x[i])
		}
		out[n] = m.LogUnnorm(v, nil) - lz
	}
	return out
}

// TestDBNTrainerDeterministic: the same seed gives identical DBNs whatever
// Workers and GOMAXPROCS, in both sampled modes; another seed differs.
func TestDBNTrainerDeterministic(t *testing.T) {
	_, train, _ := planted(500, 3)
	for _, mode := range []LayerData{SampledData, ResampledData} {
		var ref *models.DBN
		for _, procs := range []int{1, 2} {
			for _, workers := range []int{1, 3} {
				old := runtime.GOMAXPROCS(procs)
				opt := dbnOptions(mode, false, 2, 2, 2)
				opt.Workers = workers
				tr := newDBNTrainer(t, opt, 9, 10, 7, 5, 4)
				err := tr.Train(train, nil, nil)
				runtime.GOMAXPROCS(old)
				if err != nil {
					t.Fatal(err)
				}
				if ref == nil {
					ref = tr.M
				} else if !sameDBN(ref, tr.M) {
					t.Fatalf("%v: GOMAXPROCS=%d workers=%d differs", mode, procs, workers)
				}
			}
		}
		other := newDBNTrainer(t, dbnOptions(mode, false, 2, 2, 2), 10, 10, 7, 5, 4)
		if err := other.Train(train, nil, nil); err != nil {
			t.Fatal(err)
		}
		if sameDBN(ref, other.M) {
			t.Errorf("%v: seeds 9 and 10 gave the same DBN", mode)
		}
	}
}

// TestDBNResumeEqualsUninterrupted: a checkpoint saved to disk in the middle
// of a layer (PCD, with persistent chains) or at a layer boundary, resumed
// in a fresh trainer, finishes with exactly the parameters of an
// uninterrupted run.
func TestDBNResumeEqualsUninterrupted(t *testing.T) {
	_, train, _ := planted(400, 4)
	for _, mode := range []LayerData{SampledData, ResampledData} {
		opt := dbnOptions(mode, false, 2, 3, 2)
		full := newDBNTrainer(t, opt, 21, 10, 7, 5, 4)
		if err := full.Train(train, nil, nil); err != nil {
			t.Fatal(err)
		}
		if full.Completed() != 7 || full.Total() != 7 || !full.Done() {
			t.Fatalf("epoch %d of %d, done %v", full.Completed(), full.Total(), full.Done())
		}
		for _, stop := range []int{2, 3, 4, 6} {
			part := newDBNTrainer(t, opt, 21, 10, 7, 5, 4)
			for range stop {
				if _, err := part.TrainEpoch(train); err != nil {
					t.Fatal(err)
				}
			}
			loaded := saveAndLoad(t, part)
			resumed := newDBNTrainer(t, opt, 21, 10, 7, 5, 4)
			if err := resumed.Resume(loaded); err != nil {
				t.Fatal(err)
			}
			if resumed.Completed() != stop || loaded.Meta.Epoch != stop {
				t.Fatalf("resumed at epoch %d (meta %d), want %d", resumed.Completed(), loaded.Meta.Epoch, stop)
			}
			if err := resumed.Train(train, nil, nil); err != nil {
				t.Fatal(err)
			}
			if !sameDBN(full.M, resumed.M) {
				t.Errorf("%v: resumed after epoch %d differs from the uninterrupted run", mode, stop)
			}
		}
		// A checkpoint taken after Prepare, before the layer's first epoch.
		part := newDBNTrainer(t, opt, 21, 10, 7, 5, 4)
		for range 2 {
			part.TrainEpoch(train)
		}
		if err := part.Prepare(train); err != nil {
			t.Fatal(err)
		}
		c, _ := part.Checkpoint("x")
		resumed := newDBNTrainer(t, opt, 21, 10, 7, 5, 4)
		if err := resumed.Resume(c); err != nil {
			t.Fatal(err)
		}
		if err := resumed.Train(train, nil, nil); err != nil {
			t.Fatal(err)
		}
		if !sameDBN(full.M, resumed.M) {
			t.Errorf("%v: resumed after stacking differs", mode)
		}
	}
}

// TestDBNTrainCallbacks: onLayer sees each new layer once, before its first
// epoch, and onEpoch every epoch with the stack so far.
func TestDBNTrainCallbacks(t *testing.T) {
	_, train, _ := planted(200, 6)
	tr := newDBNTrainer(t, dbnOptions(SampledData, false, 1, 2, 1), 2, 10, 6, 5, 3)
	var log []string
	within := 0 // epochs of the layer
	err := tr.Train(train, func(layer int, s models.Model) error {
		log = append(log, "L"+string(rune('0'+layer))+":"+s.TypeName())
		within = 0
		return nil
	}, func(st EpochSummary, s models.Model) error {
		n := 1
		if d, ok := s.(*models.DBN); ok {
			n = d.NumLayers()
		}
		within++
		log = append(log, "e"+string(rune('0'+st.Epoch))+"/"+string(rune('0'+st.Layer))+"."+string(rune('0'+within))+":"+string(rune('0'+n)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "L1:rbm e1/1.1:1 L2:dbn e2/2.1:2 e3/2.2:2 L3:dbn e4/3.1:3"
	if got := strings.Join(log, " "); got != want {
		t.Errorf("callbacks\n got %s\nwant %s", got, want)
	}
	if _, err := tr.TrainEpoch(train); err == nil || !strings.Contains(err.Error(), "every layer is trained") {
		t.Errorf("training past the end: %v", err)
	}
}

// TestSampleLayerMatchesQ: the sampled data of a layer have, unit by unit,
// the mean of the recognition probabilities (within 4.5 standard errors).
func TestSampleLayerMatchesQ(t *testing.T) {
	_, train, _ := planted(3000, 8)
	r := models.NewRBM(10, 6)
	for i := range r.W {
		r.W[i] = 0.7 * math.Sin(float64(3*i+1))
	}
	for j := range r.HBias {
		r.HBias[j] = 0.3 * float64(j-3)
	}
	s := sampleLayer(r, train, 5, 2)
	mf := meanFieldLayer(r, train, 2)
	if s.Len() != len(train) || mf.Len() != len(train) {
		t.Fatalf("lengths %d %d", s.Len(), mf.Len())
	}
	x := make([]float64, 6)
	for j := range 6 {
		var hs, ps, pv float64
		for n := range train {
			hs += float64(s.Row(n)[j])
			mf.RealRow(n, x)
			ps += x[j]
			pv += x[j] * (1 - x[j])
		}
		N := float64(len(train))
		se := math.Sqrt(pv) / N // sd of the mean of independent Bernoulli(p_n)
		if d := hs/N - ps/N; math.Abs(d) > 4.5*se {
			t.Errorf("unit %d: sampled mean %.4f, mean of Q %.4f (SE %.4f)", j, hs/N, ps/N, se)
		}
	}
	// Thresholded rows of the mean-field data.
	mf.RealRow(0, x)
	for j, b := range mf.Row(0) {
		if (x[j] >= 0.5) != (b == 1) {
			t.Errorf("Row(0)[%d] = %d for probability %v", j, b, x[j])
		}
	}
}

func TestDBNTrainerErrors(t *testing.T) {
	m, _ := models.NewDBN(10, 6, 5)
	check := func(name string, opt DBNOptions, want string) {
		t.Helper()
		_, err := NewDBNTrainer(m, opt, 1)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", name, err, want)
		}
	}
	check("epochs", dbnOptions(SampledData, false, 1, 0), "layer 2: epochs = 0")
	check("count", dbnOptions(SampledData, false, 1, 1, 1), "3 layer option sets for a DBN of 2 layers")
	check("transpose", dbnOptions(SampledData, true, 1, 1), "transposed initialisation of layer 2 needs 10 hidden units")
	bad := dbnOptions(SampledData, false, 1)
	bad.Layers[0].Schedule = nil
	check("schedule", bad, "layer 1: no schedule")
	if _, err := NewDBNTrainer(m, dbnOptions(SampledData, false, 1), 1); err != nil {
		t.Fatal(err)
	}
	if d, err := ParseLayerData("mean-field"); err != nil || d != MeanFieldData || d.String() != "mean-field" {
		t.Errorf("ParseLayerData: %v %v", d, err)
	}
	if _, err := ParseLayerData("mf"); err == nil {
		t.Error("ParseLayerData(mf): no error")
	}
	tr, _ := NewDBNTrainer(m, dbnOptions(SampledData, false, 1), 1)
	if _, err := tr.TrainEpoch(rows{{1, 0, 1}}); err == nil || !strings.Contains(err.Error(), "3 units per example") {
		t.Errorf("short rows: %v", err)
	}
}

// TestRBMTrainerRealRows (when RBMTrainer trains on RealData): with PCD,
// one full batch, no momentum and no weight decay, the negative phase does
// not depend on the data, so the difference between an update on
// real-valued rows R and one on all-zero rows is exactly the positive phase
// ε·(1/N) Σ_n r_n σ(b + Wᵀr_n)ᵀ (and ε·mean r for the visible biases).
func TestRBMTrainerRealRows(t *testing.T) {
	const D, H, N = 6, 4, 50
	real := &realRows{d: D, data: make([]float32, N*D)}
	for i := range real.data {
		real.data[i] = float32(0.5 + 0.45*math.Sin(float64(7*i+3)))
	}
	zero := &binRows{d: D, data: make([]uint8, N*D)}
	const lr = 0.3
	run := func(x data.Examples) *models.RBM {
		m := models.NewRBM(D, H)
		tr, err := NewRBMTrainer(m, RBMOptions{Persistent: true, Chains: 10, BatchSize: N, Schedule: constSchedule{k: 1, lr: lr}}, 4)
		if err != nil {
			t.Fatal(err)
		}
		tr.InitParams(0.5, nil)
		if _, err := tr.TrainEpoch(x); err != nil {
			t.Fatal(err)
		}
		return m
	}
	mr, mz := run(real), run(zero)
	init := models.NewRBM(D, H)
	tr, _ := NewRBMTrainer(init, RBMOptions{Persistent: true, Chains: 10, BatchSize: N, Schedule: constSchedule{k: 1, lr: lr}}, 4)
	tr.InitParams(0.5, nil)
	wantW := make([]float64, D*H)
	wantA := make([]float64, D)
	wantB := make([]float64, H)
	x := make([]float64, D)
	p := make([]float64, H)
	for n := range N {
		real.RealRow(n, x)
		init.HiddenPreact(p, x)
		for j := range p {
			p[j] = nmath.Sigmoid(p[j])
			wantB[j] += lr * (p[j] - nmath.Sigmoid(init.HBias[j])) / N
		}
		for i := range D {
			wantA[i] += lr * x[i] / N
			for j := range H {
				wantW[i*H+j] += lr * x[i] * p[j] / N
			}
		}
	}
	for i := range wantW {
		if d := mr.W[i] - mz.W[i]; math.Abs(d-wantW[i]) > 1e-12 {
			t.Fatalf("W[%d]: update difference %v, positive phase %v", i, d, wantW[i])
		}
	}
	for i := range wantA {
		if d := mr.VBias[i] - mz.VBias[i]; math.Abs(d-wantA[i]) > 1e-12 {
			t.Fatalf("vbias[%d]: %v vs %v", i, d, wantA[i])
		}
	}
	for j := range wantB {
		if d := mr.HBias[j] - mz.HBias[j]; math.Abs(d-wantB[j]) > 1e-12 {
			t.Fatalf("hbias[%d]: %v vs %v", j, d, wantB[j])
		}
	}
}

// TestDBNMeanField (when supported): mean-field layer data are the
// propagated probabilities, training is deterministic, and resumes exactly.
func TestDBNMeanField(t *testing.T) {
	_, train, _ := planted(300, 12)
	opt := dbnOptions(MeanFieldData, false, 2, 2, 1)
	a := newDBNTrainer(t, opt, 5, 10, 6, 5, 3)
	for range 2 {
		a.TrainEpoch(train)
	}
	if err := a.Prepare(train); err != nil {
		t.Fatal(err)
	}
	in, ok := a.input.(*realRows)
	if !ok {
		t.Fatalf("layer 2 data are %T", a.input)
	}
	want := meanFieldLayer(a.M.Layers[0], train, 1)
	for i := range want.data {
		if in.data[i] != want.data[i] {
			t.Fatalf("layer 2 data differ from σ(b + Wᵀv) at %d", i)
		}
	}
	c, _ := a.Checkpoint("x")
	if err := a.Train(train, nil, nil); err != nil {
		t.Fatal(err)
	}
	b := newDBNTrainer(t, opt, 5, 10, 6, 5, 3)
	if err := b.Resume(c); err != nil {
		t.Fatal(err)
	}
	if err := b.Train(train, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !sameDBN(a.M, b.M) {
		t.Error("resumed mean-field run differs")
	}
}

// TestDBNFrozenBottomEqualsGreedy: a DBN whose bottom layer is taken frozen
// from a trained RBM (2008 §5.2, DBN-CD25 = CD25(500) + a top RBM) trains
// only the layers above, and with the same seed and options it ends with
// exactly the DBN that greedy training of every layer produces: the layer
// data and the top layer's generator are keyed by the layer, not by where
// training started. The frozen layer is not changed, resuming keeps it,
// and the epochs counted are the top layer's only.
func TestDBNFrozenBottomEqualsGreedy(t *testing.T) {
	_, train, _ := planted(400, 5)
	for _, mode := range []LayerData{SampledData, ResampledData} {
		full := newDBNTrainer(t, dbnOptions(mode, false, 3, 2, 2), 11, 10, 7, 5, 4)
		if err := full.Train(train, nil, nil); err != nil {
			t.Fatal(err)
		}
		opt := dbnOptions(mode, false, 3, 2, 2)
		bottom := full.M.Layers[0].Clone()
		opt.Frozen = []*models.RBM{bottom}
		tr := newDBNTrainer(t, opt, 11, 10, 7, 5, 4)
		if got := tr.Total(); got != 4 {
			t.Errorf("%v: Total = %d, want 4 (the two layers above the frozen one)", mode, got)
		}
		// Stop after one epoch, resume in a fresh trainer, finish.
		if _, err := tr.TrainEpoch(train); err != nil {
			t.Fatal(err)
		}
		c := saveAndLoad(t, tr)
		again := newDBNTrainer(t, opt, 11, 10, 7, 5, 4)
		if err := again.Resume(c); err != nil {
			t.Fatal(err)
		}
		if err := again.Train(train, nil, nil); err != nil {
			t.Fatal(err)
		}
		if !sameDBN(full.M, again.M) {
			t.Errorf("%v: frozen bottom + greedy top differs from greedy training of every layer", mode)
		}
		if !sameParams(bottom, again.M.Layers[0]) || again.Completed() != 4 {
			t.Errorf("%v: the frozen layer changed or the epochs (%d) are not the top layers' 4", mode, again.Completed())
		}
	}
	// Wrong sizes and nothing left to train are errors.
	m, _ := models.NewDBN(10, 7, 5)
	r := models.NewRBM(10, 6)
	if _, err := NewDBNTrainer(m, DBNOptions{Layers: dbnOptions(SampledData, false, 1).Layers, Frozen: []*models.RBM{r}}, 1); err == nil || !strings.Contains(err.Error(), "frozen layer 1 is 10×6") {
		t.Errorf("mismatched frozen layer: err = %v", err)
	}
	a := models.NewRBM(10, 7)
	b := models.NewRBM(7, 5)
	if _, err := NewDBNTrainer(m, DBNOptions{Layers: dbnOptions(SampledData, false, 1).Layers, Frozen: []*models.RBM{a, b}}, 1); err == nil || !strings.Contains(err.Error(), "none of the DBN's 2 layers") {
		t.Errorf("all layers frozen: err = %v", err)
	}
}
