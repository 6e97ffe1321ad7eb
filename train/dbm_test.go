package train

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// plantedDBM returns a 10-6-4 DBM with strong structure and n training and
// n/2 test vectors drawn exactly from its marginal p(v), by enumerating the
// 2^10 visible states with the exact log f(v). Half of its weights are ±3,
// the rest 0, and the biases centre every unit (b = −½ Σ of its weights),
// so that the units are on half the time and strongly coupled: its entropy
// is about 2.4 nats below that of the independent model.
func plantedDBM(t testing.TB, n int, seed uint64) (*models.DBM, rows, rows) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	d, _ := models.NewDBM(10, 6, 4)
	for l, w := range d.W {
		n1 := d.Sizes[l+1]
		for i := range w {
			if rng.Float64() < 0.5 {
				continue
			}
			x := 3.0
			if rng.Float64() < 0.5 {
				x = -3
			}
			w[i] = x
			d.B[l][i/n1] -= x / 2
			d.B[l+1][i%n1] -= x / 2
		}
	}
	train, test := exactDraws(d.Sizes[0], n, rng, func(v []float64) float64 {
		lf, err := eval.DBMExact{}.LogUnnorm(d, v)
		if err != nil {
			t.Fatal(err)
		}
		return lf
	})
	return d, train, test
}

// dbmLogLik returns the exact log p(v) of every row.
func dbmLogLik(t testing.TB, d *models.DBM, x rows) []float64 {
	t.Helper()
	r, err := eval.DBMExact{}.LogProb(d, x)
	if err != nil {
		t.Fatal(err)
	}
	return r.LogP
}

// pairedGain returns the mean of b − a and its standard error.
func pairedGain(a, b []float64) (mean, se float64) {
	n := float64(len(a))
	var s, s2 float64
	for i := range a {
		d := b[i] - a[i]
		s += d
		s2 += d * d
	}
	mean = s / n
	return mean, math.Sqrt((s2/n - mean*mean) / (n - 1))
}

func dbmOpts(pretrain, joint int) DBMOptions {
	return DBMOptions{
		Pretrain: []RBMOptions{{
			Persistent: false, BatchSize: 20, Shuffle: true,
			Schedule: constSchedule{k: 1, lr: 0.05, mom: 0.5},
		}},
		PretrainEpochs: pretrain,
		BatchSize:      20, Chains: 50, K: 1, MFIters: 10, Shuffle: true,
		Schedule: constSchedule{k: 1, lr: 0.02, mom: 0.5}, Epochs: joint,
		BaseRateVBias: true,
	}
}

func newDBM(t testing.TB, opt DBMOptions, seed uint64, sizes ...int) *DBMTrainer {
	t.Helper()
	m, err := models.NewDBM(sizes...)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewDBMTrainer(m, opt, seed)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestDBMTrainingRaisesExactLikelihood trains 10-6-4 DBMs on data drawn
// from a planted 10-6-4 DBM and measures the exact test log-likelihood
// (by enumeration). Pretraining must raise it above the model at the
// stacking of the first RBM (base-rate visible biases, tiny weights),
// joint training must raise it further, and joint training without
// pretraining must raise it above its random start; each gain by more than
// 3 standard errors of the paired per-example differences.
func TestDBMTrainingRaisesExactLikelihood(t *testing.T) {
	truth, train, test := plantedDBM(t, 2000, 2)
	best := dbmLogLik(t, truth, test)
	gain := func(what string, a, b []float64) {
		t.Helper()
		g, se := pairedGain(a, b)
		t.Logf("%s: %+.4f nats (SE %.4f)", what, g, se)
		if !(g > 3*se) {
			t.Errorf("%s: gain %.4f nats is not above 3 SE = %.4f", what, g, 3*se)
		}
	}
	run := func(tr *DBMTrainer, phase string) {
		t.Helper()
		for tr.Phase() == phase {
			if _, err := tr.TrainEpoch(train); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Several trainer seeds: at the earlier settings (one sweep of 50
	// chains, learning rate 0.02, momentum 0.5) joint training lowered the
	// likelihood at 5 of 8 seeds. Replacing the chains' statistics by exact
	// expectations (enumeration) made every seed converge to the planted
	// model, mean-field positive phase or exact: the persistent chains did
	// not mix between the ±3-weight model's modes. Five sweeps per update
	// and a smaller step fix that; each of seeds 1–8 gains > 12 SE.
	for _, seed := range []uint64{1, 5, 6} {
		tr := newDBM(t, dbmJointOpts(10, 40), seed, 10, 6, 4)
		if err := tr.Prepare(train); err != nil {
			t.Fatal(err)
		}
		init := dbmLogLik(t, tr.current(), test)
		run(tr, PhasePretrain)
		pre := dbmLogLik(t, tr.current(), test)
		run(tr, PhaseJoint)
		joint := dbmLogLik(t, tr.current(), test)
		t.Logf("seed %d: mean test log-lik %.4f at stacking, %.4f pretrained, %.4f jointly trained (planted %.4f)",
			seed, mean(init), mean(pre), mean(joint), mean(best))
		gain("pretraining", init, pre)
		gain("joint training after pretraining", pre, joint)
		if m0, m1, mb := mean(init), mean(joint), mean(best); !(m1 > m0+0.8*(mb-m0)) {
			t.Errorf("seed %d: pretraining and joint training close less than 80%% of the gap: %.4f → %.4f (planted %.4f)", seed, m0, m1, mb)
		}
	}

	tr := newDBM(t, dbmOpts(0, 30), 5, 10, 6, 4)
	if err := tr.Prepare(train); err != nil {
		t.Fatal(err)
	}
	init := dbmLogLik(t, tr.current(), test)
	run(tr, PhaseJoint)
	joint := dbmLogLik(t, tr.current(), test)
	t.Logf("without pretraining: %.4f at the start, %.4f jointly trained", mean(init), mean(joint))
	gain("joint training from random weights", init, joint)
}

// dbmJointOpts is dbmOpts with joint training that follows the likelihood
// on plantedDBM at every seed tried: 5 sweeps per update, step 0.005.
func dbmJointOpts(pretrain, joint int) DBMOptions {
	o := dbmOpts(pretrain, joint)
	o.K = 5
	o.Schedule = constSchedule{k: 5, lr: 0.005, mom: 0}
	return o
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// TestDBMPretrainComposition follows a 3-layer DBM through pretraining:
// the phases, layers and epochs reported, the input scales of each RBM
// (bottom-up doubled below the top, top-down doubled above the first), and
// that Current() is always a valid DBM composed from the RBMs as
// documented, ending with the composition of the pretrained RBMs.
func TestDBMPretrainComposition(t *testing.T) {
	_, train, _ := plantedDBM(t, 300, 2)
	opt := dbmOpts(2, 1)
	opt.Pretrain = append(opt.Pretrain, opt.Pretrain[0], opt.Pretrain[0])
	opt.Pretrain[1].Persistent = true
	tr := newDBM(t, opt, 3, 10, 6, 5, 4)
	if tr.Total() != 7 {
		t.Fatalf("Total = %d, want 3·2+1", tr.Total())
	}
	wantScales := [][2]float64{{2, 1}, {2, 2}, {1, 2}}
	var rbms []*models.RBM
	var got []string
	for !tr.Done() {
		if err := tr.Prepare(train); err != nil {
			t.Fatal(err)
		}
		if tr.Phase() == PhasePretrain {
			l := tr.pre.Layer
			if s := wantScales[l]; tr.pre.cur.up != s[0] || tr.pre.cur.down != s[1] {
				t.Errorf("RBM %d: scales up %v down %v, want %v", l+1, tr.pre.cur.up, tr.pre.cur.down, s)
			}
			rbms = tr.preM.Layers
		}
		phase, within := tr.Phase(), tr.j.epoch+1
		if phase == PhasePretrain {
			within = tr.pre.LayerEpoch + 1
		}
		st, err := tr.TrainEpoch(train)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, phase+string(rune('0'+st.Layer))+"."+string(rune('0'+within))+"/"+string(rune('0'+st.Epoch)))
		d := tr.current()
		if err := d.Validate(); err != nil {
			t.Fatalf("after epoch %d: %v", st.Epoch, err)
		}
		if st.Epoch == 6 {
			// The composition of the pretrained RBMs.
			for l, r := range rbms {
				if !slices.Equal(d.W[l], r.W) {
					t.Errorf("W%d is not the weights of RBM %d", l+1, l+1)
				}
			}
			check := func(l int, want []float64) {
				if !slices.Equal(d.B[l], want) {
					t.Errorf("b%d = %v, want %v", l, d.B[l], want)
				}
			}
			check(0, rbms[0].VBias)
			for l := 1; l < 3; l++ {
				avg := make([]float64, len(d.B[l]))
				for j := range avg {
					avg[j] = (rbms[l-1].HBias[j] + rbms[l].VBias[j]) / 2
				}
				check(l, avg)
			}
			check(3, rbms[2].HBias)
			if tr.Phase() != PhaseJoint {
				t.Errorf("phase %s after pretraining", tr.Phase())
			}
		}
	}
	want := "pretrain1.1/1 pretrain1.2/2 pretrain2.1/3 pretrain2.2/4 pretrain3.1/5 pretrain3.2/6 joint0.1/7"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("epochs\n got %s\nwant %s", s, want)
	}
	if _, err := tr.TrainEpoch(train); err == nil || !strings.Contains(err.Error(), "every epoch is trained") {
		t.Errorf("training past the end: %v", err)
	}
}

// TestScaledRBMConditionals checks the modified RBMs directly: the
// trainer's conditionals are p(h|v) = σ(c + 2Wᵀv) and p(v|h) = σ(a + 2Wh)
// for binary and real-valued inputs, a PCD update's positive phase uses
// the doubled p(h|v), and the mean-field layer data of a DBM's second
// pretraining RBM are σ(c + 2W_1ᵀv) of the first.
func TestScaledRBMConditionals(t *testing.T) {
	const D, H = 7, 5
	m := models.NewRBM(D, H)
	for i := range m.W {
		m.W[i] = 0.8 * math.Sin(float64(5*i+1))
	}
	for i := range m.VBias {
		m.VBias[i] = 0.3 * float64(i-3)
	}
	for j := range m.HBias {
		m.HBias[j] = -0.2 * float64(j-2)
	}
	tr, err := NewRBMTrainer(m, RBMOptions{BatchSize: 1, Schedule: constSchedule{k: 1}, UpScale: 2, DownScale: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	wt := make([]float64, D*H)
	for i := range D {
		for j := range H {
			wt[j*D+i] = m.W[i*H+j]
		}
	}
	v := []float64{1, 0, 1, 1, 0, 0.25, 1}
	h := []float64{0, 1, 1, 0, 1}
	p := make([]float64, H)
	pre := make([]float64, D)
	on := make([]int32, 0, D)
	hiddenProbs(p, m, v, on, tr.up)
	visiblePre(pre, m, wt, h, on, tr.down)
	for j := range H {
		s := 0.0
		for i := range D {
			s += v[i] * m.W[i*H+j]
		}
		if want := nmath.Sigmoid(m.HBias[j] + 2*s); math.Abs(p[j]-want) > 1e-14 {
			t.Errorf("p(h_%d=1|v) = %v, want σ(c + 2Wᵀv) = %v", j, p[j], want)
		}
	}
	for i := range D {
		s := 0.0
		for j := range H {
			s += m.W[i*H+j] * h[j]
		}
		if want := m.VBias[i] + 2*s; math.Abs(pre[i]-want) > 1e-14 {
			t.Errorf("visible pre-activation %d = %v, want a + 2Wh = %v", i, pre[i], want)
		}
	}

	// PCD, one full batch, no momentum: the update on binary data X minus
	// the update on all-zero rows is ε (1/N) Σ_n x_n σ(c + 2Wᵀx_n)ᵀ (and
	// ε·mean x for a, ε·mean(σ(c + 2Wᵀx) − σ(c)) for c), as the negative
	// phase does not depend on the data.
	const N, lr = 40, 0.3
	x := make(rows, N)
	zero := make(rows, N)
	for n := range x {
		x[n], zero[n] = make([]uint8, D), make([]uint8, D)
		for i := range x[n] {
			x[n][i] = uint8((n*7 + i*3 + n*i) % 3 % 2)
		}
	}
	run := func(d data.Examples) *models.RBM {
		r := m.Clone()
		tr, err := NewRBMTrainer(r, RBMOptions{Persistent: true, Chains: 10, BatchSize: N, Schedule: constSchedule{k: 1, lr: lr}, UpScale: 2, DownScale: 2}, 4)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.TrainEpoch(d); err != nil {
			t.Fatal(err)
		}
		return r
	}
	mx, mz := run(x), run(zero)
	xf := make([]float64, D)
	for j := range H {
		var gw [D]float64
		gb := 0.0
		for n := range N {
			s := 0.0
			for i := range D {
				xf[i] = float64(x[n][i])
				s += xf[i] * m.W[i*H+j]
			}
			q := nmath.Sigmoid(m.HBias[j] + 2*s)
			gb += (q - nmath.Sigmoid(m.HBias[j])) / N
			for i := range D {
				gw[i] += xf[i] * q / N
			}
		}
		for i := range D {
			if d := mx.W[i*H+j] - mz.W[i*H+j]; math.Abs(d-lr*gw[i]) > 1e-12 {
				t.Fatalf("W[%d,%d]: update difference %v, doubled positive phase %v", i, j, d, lr*gw[i])
			}
		}
		if d := mx.HBias[j] - mz.HBias[j]; math.Abs(d-lr*gb) > 1e-12 {
			t.Fatalf("hbias[%d]: update difference %v, want %v", j, d, lr*gb)
		}
	}

	// Mean-field layer data of the second pretraining RBM.
	_, train, _ := plantedDBM(t, 100, 2)
	opt := dbmOpts(1, 1)
	opt.PretrainData = MeanFieldData
	dt := newDBM(t, opt, 1, 10, 6, 4)
	for range 2 {
		if err := dt.Prepare(train); err != nil {
			t.Fatal(err)
		}
		if dt.pre.Layer == 0 {
			if _, err := dt.TrainEpoch(train); err != nil {
				t.Fatal(err)
			}
		}
	}
	in, ok := dt.pre.input.(*realRows)
	if !ok || dt.pre.Layer != 1 {
		t.Fatalf("layer %d data are %T", dt.pre.Layer+1, dt.pre.input)
	}
	r1 := dt.preM.Layers[0]
	got := make([]float64, 6)
	for n, row := range train {
		in.RealRow(n, got)
		for j := range 6 {
			s := 0.0
			for i, b := range row {
				s += float64(b) * r1.W[i*6+j]
			}
			if want := nmath.Sigmoid(r1.HBias[j] + 2*s); math.Abs(got[j]-want) > 1e-6 { // stored as float32
				t.Fatalf("example %d unit %d: layer data %v, want σ(c + 2Wᵀv) = %v", n, j, got[j], want)
			}
		}
	}
	// A DBN refuses the scales.
	dbnOpt := dbnOptions(SampledData, false, 1, 1)
	dbnOpt.Layers[0].UpScale = 2
	dm, _ := models.NewDBN(10, 6, 5)
	if _, err := NewDBNTrainer(dm, dbnOpt, 1); err == nil || !strings.Contains(err.Error(), "for DBM pretraining") {
		t.Errorf("DBN with scaled RBM: %v", err)
	}
}

// refMeanField is an independent per-example mean field: the doubled
// bottom-up start and iters fixed-point iterations, odd layers then even.
func refMeanField(d *models.DBM, v []float64, iters int) [][]float64 {
	L := d.NumLayers()
	mu := make([][]float64, L+1)
	mu[0] = v
	for l := 1; l <= L; l++ {
		mu[l] = make([]float64, d.Sizes[l])
		d.LayerInput(mu[l], l, mu[l-1], nil)
		s := 2.0
		if l == L {
			s = 1
		}
		for j, x := range mu[l] {
			mu[l][j] = nmath.Sigmoid(d.B[l][j] + s*x)
		}
	}
	z := make([]float64, 100)
	for range iters {
		for _, start := range []int{1, 2} {
			for l := start; l <= L; l += 2 {
				var above []float64
				if l < L {
					above = mu[l+1]
				}
				d.Preact(z[:d.Sizes[l]], l, mu[l-1], above)
				for j := range mu[l] {
					mu[l][j] = nmath.Sigmoid(z[j])
				}
			}
		}
	}
	return mu
}

// TestDBMJointUpdate checks one joint update of a 3-layer DBM against an
// independent computation: the mean-field positive phase (doubled start,
// MFIters iterations), and ΔW_l = ε(E_data[μ_l μ_{l+1}ᵀ] − E_chains[x_l
// x_{l+1}ᵀ] − λW_l), Δb_l = ε(E_data[μ_l] − E_chains[x_l]) with the chains as
// they are after their sweeps. With many iterations the mean field reaches
// eval.DBMMeanField's fixed point.
func TestDBMJointUpdate(t *testing.T) {
	_, train, _ := plantedDBM(t, 30, 4)
	const lr, wd = 0.1, 0.01
	opt := dbmOpts(0, 1)
	opt.BatchSize, opt.Chains, opt.WeightDecay, opt.InitStd, opt.Shuffle = 30, 17, wd, 0.7, false
	opt.Schedule = constSchedule{k: 2, lr: lr, mom: 0.9}
	opt.K = 0 // the schedule's k
	tr := newDBM(t, opt, 8, 10, 6, 5, 4)
	if err := tr.Prepare(train); err != nil {
		t.Fatal(err)
	}
	before := tr.M.Clone()
	if tr.Phase() != PhaseJoint {
		t.Fatalf("phase %s, want %s", tr.Phase(), PhaseJoint)
	}
	st, err := tr.TrainEpoch(train) // one minibatch: the momentum buffers start at 0
	if err != nil {
		t.Fatal(err)
	}
	if st.K != 2 || st.Layer != 0 || st.Epoch != 1 {
		t.Errorf("stats %+v", st)
	}
	d, j := tr.M, tr.j
	L := d.NumLayers()
	B, M := float64(len(train)), float64(opt.Chains)
	// The trainer's mean field, row by row, against the reference.
	pos := make([][]float64, L+1) // E_data[μ_l]
	posW := make([][]float64, L)  // E_data[μ_l μ_{l+1}ᵀ]
	for l := range L + 1 {
		pos[l] = make([]float64, d.Sizes[l])
		if l < L {
			posW[l] = make([]float64, len(d.W[l]))
		}
	}
	recon := 0.0
	for n, row := range train {
		v := make([]float64, len(row))
		for i, b := range row {
			v[i] = float64(b)
		}
		mu := refMeanField(before, v, 10)
		for l := range L + 1 {
			got := j.mu[l][n*d.Sizes[l] : (n+1)*d.Sizes[l]]
			for i := range got {
				if math.Abs(got[i]-mu[l][i]) > 1e-12 {
					t.Fatalf("example %d: μ_%d[%d] = %v, reference %v", n, l, i, got[i], mu[l][i])
				}
			}
			axpy(pos[l], 1/B, mu[l])
			if l < L {
				n1 := d.Sizes[l+1]
				for i, a := range mu[l] {
					for k, b := range mu[l+1] {
						posW[l][i*n1+k] += a * b / B
					}
				}
			}
		}
		pv := make([]float64, len(v))
		before.Preact(pv, 0, nil, mu[1])
		for i := range v {
			e := v[i] - nmath.Sigmoid(pv[i])
			recon += e * e / B
		}
	}
	if math.Abs(st.ReconError-recon) > 1e-12 {
		t.Errorf("ReconError %v, want %v", st.ReconError, recon)
	}
	for l := range L + 1 {
		n := d.Sizes[l]
		for i := range n {
			neg := 0.0
			for c := range opt.Chains {
				neg += j.chains[l][c*n+i] / M
			}
			if want := lr * (pos[l][i] - neg); math.Abs(d.B[l][i]-before.B[l][i]-want) > 1e-12 {
				t.Fatalf("Δb_%d[%d] = %v, want %v", l, i, d.B[l][i]-before.B[l][i], want)
			}
		}
		if l == L {
			break
		}
		n1 := d.Sizes[l+1]
		for i := range n {
			for k := range n1 {
				neg := 0.0
				for c := range opt.Chains {
					neg += j.chains[l][c*n+i] * j.chains[l+1][c*n1+k] / M
				}
				idx := i*n1 + k
				want := lr * (posW[l][idx] - neg - wd*before.W[l][idx])
				if got := d.W[l][idx] - before.W[l][idx]; math.Abs(got-want) > 1e-12 {
					t.Fatalf("ΔW_%d[%d,%d] = %v, want %v", l, i, k, got, want)
				}
			}
		}
	}

	// Many iterations reach the fixed point of eval's mean field.
	opt.MFIters = 300
	tr = newDBM(t, opt, 8, 10, 6, 5, 4)
	if err := tr.Prepare(train); err != nil {
		t.Fatal(err)
	}
	before = tr.M.Clone()
	if _, err := tr.TrainEpoch(train); err != nil {
		t.Fatal(err)
	}
	v := make([]float64, 10)
	for n, row := range train {
		for i, b := range row {
			v[i] = float64(b)
		}
		fit, err := eval.DBMMeanField{Iters: 10000, Tol: 1e-14}.Fit(before, v)
		if err != nil {
			t.Fatal(err)
		}
		for l := 1; l <= L; l++ {
			got := tr.j.mu[l][n*d.Sizes[l] : (n+1)*d.Sizes[l]]
			for i := range got {
				if math.Abs(got[i]-fit.Mu[l][i]) > 1e-9 {
					t.Fatalf("example %d: μ_%d[%d] = %v after 300 iterations, eval's fixed point %v", n, l, i, got[i], fit.Mu[l][i])
				}
			}
		}
	}
}

// TestDBMGibbsSweep checks the negative phase's sweep on many chains
// started at one state x⁰: the odd layers are drawn from
// p(x_l | x⁰_{l−1}, x⁰_{l+1}) and then the even layers from their
// conditionals given the new odd layers: every unit's mean over the chains
// must match the mean of its conditional probabilities within 4.5
// standard errors.
func TestDBMGibbsSweep(t *testing.T) {
	_, train, _ := plantedDBM(t, 20, 4)
	opt := dbmOpts(0, 1)
	opt.Chains, opt.InitStd = 4000, 1
	tr := newDBM(t, opt, 2, 10, 6, 5, 4)
	if err := tr.Prepare(train); err != nil {
		t.Fatal(err)
	}
	for l := range tr.M.B {
		for i := range tr.M.B[l] {
			tr.M.B[l][i] = 0.3 * math.Cos(float64(l+3*i))
		}
	}
	tr.setup()
	tr.transposeWeights()
	d, j := tr.M, tr.j
	L := d.NumLayers()
	x0 := make([][]float64, L+1)
	for l := range L + 1 {
		x0[l] = append([]float64(nil), j.chains[l][:d.Sizes[l]]...)
		for c := range opt.Chains {
			copy(j.chains[l][c*d.Sizes[l]:], x0[l])
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for c := range opt.Chains {
		tr.sweep(&j.work[0], c, rng)
	}
	chain := func(l, c int) []float64 { return j.chains[l][c*d.Sizes[l] : (c+1)*d.Sizes[l]] }
	for l := range L + 1 {
		n := d.Sizes[l]
		// Mean of the unit values minus their conditional probabilities
		// given the neighbours they were drawn from.
		diff := make([]float64, n)
		vr := make([]float64, n)
		z := make([]float64, n)
		for c := range opt.Chains {
			var below, above []float64
			if l > 0 {
				below = chain(l-1, c)
				if l%2 == 1 {
					below = x0[l-1]
				}
			}
			if l < L {
				above = chain(l+1, c)
				if l%2 == 1 {
					above = x0[l+1]
				}
			}
			d.Preact(z, l, below, above)
			for i, x := range chain(l, c) {
				p := nmath.Sigmoid(z[i])
				diff[i] += x - p
				vr[i] += p * (1 - p)
			}
		}
		for i := range n {
			if se := math.Sqrt(vr[i]); math.Abs(diff[i]) > 4.5*se {
				t.Errorf("layer %d unit %d: Σ(x − p) = %.2f over %d chains, SE %.2f", l, i, diff[i], opt.Chains, se)
			}
		}
	}
}

func sameDBM(a, b *models.DBM) bool {
	for l := range a.W {
		if !slices.Equal(a.W[l], b.W[l]) {
			return false
		}
	}
	for l := range a.B {
		if !slices.Equal(a.B[l], b.B[l]) {
			return false
		}
	}
	return true
}

func resumeOpts() DBMOptions {
	opt := dbmOpts(2, 3)
	opt.Pretrain = append(opt.Pretrain, opt.Pretrain[0])
	opt.Pretrain[1].Persistent, opt.Pretrain[1].Chains = true, 15
	opt.PretrainData = ResampledData
	opt.Schedule = constSchedule{k: 2, lr: 0.02, mom: 0.5}
	opt.K = 0
	return opt
}

func trainAll(t *testing.T, tr *DBMTrainer, data data.Examples) {
	t.Helper()
	for !tr.Done() {
		if _, err := tr.TrainEpoch(data); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDBMResumeEqualsUninterrupted: a checkpoint saved to disk in the middle
// of a pretraining layer (CD, then PCD with persistent chains), at a layer
// boundary, at the end of pretraining, after joint training was prepared,
// or in the middle of joint training, resumed in a fresh trainer, finishes
// with exactly the parameters of an uninterrupted run.
func TestDBMResumeEqualsUninterrupted(t *testing.T) {
	_, train, _ := plantedDBM(t, 200, 4)
	full := newDBM(t, resumeOpts(), 21, 10, 6, 4)
	trainAll(t, full, train)
	if full.Completed() != 7 || full.Total() != 7 {
		t.Fatalf("epoch %d of %d", full.Completed(), full.Total())
	}
	for _, stop := range []int{1, 2, 3, 4, -4, 5, 6} {
		part := newDBM(t, resumeOpts(), 21, 10, 6, 4)
		for range max(stop, -stop) {
			if _, err := part.TrainEpoch(train); err != nil {
				t.Fatal(err)
			}
		}
		if stop < 0 { // prepared for joint training: chains made
			if err := part.Prepare(train); err != nil {
				t.Fatal(err)
			}
		}
		loaded := saveAndLoad(t, part)
		if !sameDBM(loaded.Model.(*models.DBM), part.current()) {
			t.Errorf("stop %d: the saved model is not Current()", stop)
		}
		resumed := newDBM(t, resumeOpts(), 21, 10, 6, 4)
		if err := resumed.Resume(loaded); err != nil {
			t.Fatalf("stop %d: %v", stop, err)
		}
		if resumed.Completed() != max(stop, -stop) || resumed.Phase() != part.Phase() {
			t.Fatalf("stop %d: resumed at epoch %d, phase %s", stop, resumed.Completed(), resumed.Phase())
		}
		trainAll(t, resumed, train)
		if !sameDBM(full.M, resumed.M) {
			t.Errorf("resumed after epoch %d differs from the uninterrupted run", stop)
		}
	}
	// Mismatched options are refused.
	c, _ := full.Checkpoint("x")
	other := resumeOpts()
	other.Chains = 7
	if err := newDBM(t, other, 21, 10, 6, 4).Resume(c); err == nil || !strings.Contains(err.Error(), "50 persistent chains, the experiment asks for 7") {
		t.Errorf("resume with other chains: %v", err)
	}
	other = resumeOpts()
	other.PretrainEpochs = 3
	if err := newDBM(t, other, 21, 10, 6, 4).Resume(c); err == nil || !strings.Contains(err.Error(), "pretrained with 2 epochs per layer") {
		t.Errorf("resume with other pretraining: %v", err)
	}
	if err := newDBM(t, resumeOpts(), 21, 10, 7, 4).Resume(c); err == nil || !strings.Contains(err.Error(), "layer sizes") {
		t.Errorf("resume with other sizes: %v", err)
	}
}

// TestDBMDeterministic: the same seed gives identical DBMs whatever Workers
// and GOMAXPROCS, for a tiny model and for one large enough that gonum's
// Dgemm runs in parallel; another seed differs.
func TestDBMDeterministic(t *testing.T) {
	_, small, _ := plantedDBM(t, 200, 3)
	rng := rand.New(rand.NewPCG(3, 3))
	big := make(rows, 140)
	for n := range big {
		big[n] = make([]uint8, 20)
		for i := range big[n] {
			if rng.Float64() < 0.3+0.4*float64(i%2) {
				big[n][i] = 1
			}
		}
	}
	for _, c := range []struct {
		data  rows
		sizes []int
		opt   DBMOptions
	}{
		{small, []int{10, 6, 4}, resumeOpts()},
		{big, []int{20, 130, 260}, DBMOptions{BatchSize: 70, Chains: 30, Epochs: 2, Shuffle: true, BaseRateVBias: true, Schedule: constSchedule{k: 1, lr: 0.05, mom: 0.5}}},
	} {
		var ref *models.DBM
		for _, procs := range []int{1, 2} {
			for _, workers := range []int{1, 3} {
				old := runtime.GOMAXPROCS(procs)
				opt := c.opt
				opt.Workers = workers
				tr := newDBM(t, opt, 9, c.sizes...)
				trainAll(t, tr, c.data)
				runtime.GOMAXPROCS(old)
				if ref == nil {
					ref = tr.M
				} else if !sameDBM(ref, tr.M) {
					t.Fatalf("%v: GOMAXPROCS=%d workers=%d differs", c.sizes, procs, workers)
				}
			}
		}
		other := newDBM(t, c.opt, 10, c.sizes...)
		trainAll(t, other, c.data)
		if sameDBM(ref, other.M) {
			t.Errorf("%v: seeds 9 and 10 gave the same DBM", c.sizes)
		}
	}
}

// TestDBMDivergenceNamesEpoch: a huge learning rate makes the parameters
// non-finite; the error wraps ErrDiverged and names the epoch and
// minibatch, in joint training and in pretraining.
func TestDBMDivergenceNamesEpoch(t *testing.T) {
	_, train, _ := plantedDBM(t, 200, 5)
	opt := dbmOpts(0, 3)
	opt.Schedule = constSchedule{k: 1, lr: 1e308, mom: 0.9}
	tr := newDBM(t, opt, 1, 10, 6, 4)
	_, err := tr.TrainEpoch(train)
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "epoch 1 (joint epoch 1), minibatch ") {
		t.Errorf("joint: err = %v", err)
	}
	opt = dbmOpts(1, 1)
	opt.Pretrain[0].Schedule = constSchedule{k: 1, lr: 1e308, mom: 0.9}
	tr = newDBM(t, opt, 1, 10, 6, 4)
	_, err = tr.TrainEpoch(train)
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "epoch 1 (pretraining)") || !strings.Contains(err.Error(), "layer 1") {
		t.Errorf("pretraining: err = %v", err)
	}
}

func TestDBMTrainerErrors(t *testing.T) {
	m, _ := models.NewDBM(10, 6, 4)
	check := func(name string, mod func(o *DBMOptions), want string) {
		t.Helper()
		opt := dbmOpts(1, 1)
		mod(&opt)
		_, err := NewDBMTrainer(m, opt, 1)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", name, err, want)
		}
	}
	check("nothing", func(o *DBMOptions) { o.PretrainEpochs, o.Epochs = 0, 0 }, "nothing to train")
	check("pretrain epochs", func(o *DBMOptions) { o.PretrainEpochs = -1 }, "pretraining epochs = -1")
	check("joint epochs", func(o *DBMOptions) { o.Epochs = -2 }, "joint epochs = -2")
	check("batch", func(o *DBMOptions) { o.BatchSize = 0 }, "batch size must be positive, got 0")
	check("schedule", func(o *DBMOptions) { o.Schedule = nil }, "no schedule for joint training")
	check("chains", func(o *DBMOptions) { o.Chains = -1 }, "chains = -1")
	check("K", func(o *DBMOptions) { o.K = -1 }, "K = -1")
	check("mf", func(o *DBMOptions) { o.MFIters = -3 }, "mean-field iterations = -3")
	check("decay", func(o *DBMOptions) { o.WeightDecay = math.NaN() }, "weight decay NaN")
	check("std", func(o *DBMOptions) { o.InitStd = -1 }, "initial weight std -1")
	check("pretrain count", func(o *DBMOptions) { o.Pretrain = append(o.Pretrain, o.Pretrain[0], o.Pretrain[0]) }, "3 pretraining option sets for a DBM of 2 layers")
	check("pretrain scale", func(o *DBMOptions) { o.Pretrain[0].UpScale = 2 }, "pretraining RBM 1: up scale 2, down scale 0; leave them 0")
	check("pretrain batch", func(o *DBMOptions) { o.Pretrain[0].BatchSize = 0 }, "pretraining RBM 1: batch size must be positive")
	check("pretrain schedule", func(o *DBMOptions) { o.Pretrain[0].Schedule = nil }, "pretraining RBM 1: no schedule")
	check("layer data", func(o *DBMOptions) { o.PretrainData = 7 }, "unknown layer data")
	if _, err := NewDBMTrainer(nil, dbmOpts(1, 1), 1); err == nil {
		t.Error("nil model accepted")
	}
	bad, _ := models.NewDBM(10, 6, 4)
	bad.W[1][3] = math.Inf(1)
	if _, err := NewDBMTrainer(bad, dbmOpts(1, 1), 1); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("non-finite model: %v", err)
	}
	// Without pretraining, the pretraining options are not needed.
	opt := dbmOpts(0, 1)
	opt.Pretrain, opt.Chains = nil, 0
	tr, err := NewDBMTrainer(m, opt, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Opt.Chains != 20 || tr.Opt.MFIters != 10 || tr.Opt.Workers != 2 || tr.Opt.InitStd != 0.01 {
		t.Errorf("defaults: %+v", tr.Opt)
	}
	if _, err := tr.TrainEpoch(rows{{1, 0, 1}}); err == nil || !strings.Contains(err.Error(), "3 units per example, the DBM 10") {
		t.Errorf("short rows: %v", err)
	}
	if _, err := tr.TrainEpoch(rows{}); err == nil || !strings.Contains(err.Error(), "no training data") {
		t.Errorf("no data: %v", err)
	}
}
