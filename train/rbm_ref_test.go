package train

// The trainer's update as it was before the row-sum/scatter-add rewrite
// (issue 15): the reference against which the fast update is tested, and
// the "before" of the benchmarks.

import (
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/workgroup"
)

// refTranspose sets t.wt = Wᵀ and gives every task its statistics buffers.
func (t *RBMTrainer) refTranspose() {
	m := t.M
	D, H := m.NVis, m.NHid
	for i := range D {
		for j := range H {
			t.wt[j*D+i] = m.W[i*H+j]
		}
	}
	for _, w := range t.tasks {
		if w.gW == nil {
			w.gW, w.gA, w.gB = make([]float64, D*H), make([]float64, D), make([]float64, H)
		}
	}
}

// batch performs one parameter update from the examples idx and returns the
// summed squared reconstruction error.
func (t *RBMTrainer) refBatch(data data.Examples, idx []int, k int, lr, mom float64) float64 {
	m, o := t.M, t.Opt
	t.refTranspose()
	// Lay out the tasks: positive chunks of examples, then (PCD) chunks of chains.
	var active []*task
	for lo := 0; lo < len(idx); lo += chunkSize {
		w := t.tasks[len(active)]
		w.rows, w.negative, w.scale, w.slot = idx[lo:min(lo+chunkSize, len(idx))], false, 1/float64(len(idx)), lo
		active = append(active, w)
	}
	if o.Persistent {
		for lo := 0; lo < o.Chains; lo += chunkSize {
			w := t.tasks[len(active)]
			w.rows, w.negative, w.scale = nil, true, 1/float64(o.Chains)
			w.chainLo, w.chainHi = lo, min(lo+chunkSize, o.Chains)
			active = append(active, w)
		}
	}
	for _, w := range active {
		w.src.Seed(t.rng.Uint64(), t.rng.Uint64())
	}
	var wg workgroup.Group
	next := make(chan *task, len(active))
	for _, w := range active {
		next <- w
	}
	close(next)
	for range min(o.Workers, len(active)) {
		wg.Go(func() {
			for w := range next {
				t.refRun(w, data, k)
			}
		})
	}
	wg.Wait()
	// Combine the tasks' statistics in a fixed order and update.
	gW, gA, gB := active[0].gW, active[0].gA, active[0].gB
	s0 := active[0].scale
	for i := range gW {
		gW[i] *= s0
	}
	for i := range gA {
		gA[i] *= s0
	}
	for j := range gB {
		gB[j] *= s0
	}
	for _, w := range active[1:] {
		axpy(gW, w.scale, w.gW)
		axpy(gA, w.scale, w.gA)
		axpy(gB, w.scale, w.gB)
	}
	wd := o.WeightDecay
	for i, x := range m.W {
		t.velW[i] = mom*t.velW[i] + lr*(gW[i]-wd*x)
		m.W[i] = x + t.velW[i]
	}
	for i := range m.VBias {
		t.velA[i] = mom*t.velA[i] + lr*gA[i]
		m.VBias[i] += t.velA[i]
	}
	for j := range m.HBias {
		t.velB[j] = mom*t.velB[j] + lr*gB[j]
		m.HBias[j] += t.velB[j]
	}
	sq := 0.0
	for _, w := range active {
		sq += w.sqErr
	}
	return sq * reconScale(len(idx), t.reconEvery())
}

// run computes a task's summed statistics into w.gW, w.gA, w.gB (overwritten):
// for a positive task Σ v p(h|v)ᵀ over its examples, and for CD minus the
// same at the end of k Gibbs steps started at each example; for a negative
// (PCD) task minus the statistics of its chains after k more Gibbs steps.
func (t *RBMTrainer) refRun(w *task, data data.Examples, k int) {
	m := t.M
	D := m.NVis
	clear(w.gW)
	clear(w.gA)
	clear(w.gB)
	w.sqErr = 0
	rd, _ := data.(RealData)
	if w.negative {
		for c := w.chainLo; c < w.chainHi; c++ {
			chain := t.chains[c*D : (c+1)*D]
			copy(w.vk, chain)
			hiddenProbs(w.pk, m, w.vk, w.on, t.up)
			t.refGibbs(w, k)
			copy(chain, w.vk)
			accumulate(w, w.vk, w.pk, -1)
		}
		return
	}
	for r, n := range w.rows {
		if rd != nil {
			rd.RealRow(n, w.v)
		} else {
			for i, x := range data.Row(n) {
				w.v[i] = float64(x)
			}
		}
		hiddenProbs(w.p, m, w.v, w.on, t.up)
		// One Gibbs step from the data: the reconstruction error, and for CD
		// the start of the negative chain.
		copy(w.vk, w.v)
		copy(w.pk, w.p)
		if t.Opt.Persistent || rd != nil {
			accumulate(w, w.v, w.p, 1)
		}
		if t.Opt.Persistent {
			if (w.slot+r)%pcdReconEvery != 0 {
				continue // the reconstruction monitor's subset (pcdReconEvery)
			}
			sample(w.h, w.p, w.rng)
			visiblePre(w.vpre, m, t.wt, w.h, w.on, t.down)
			for i, x := range w.vpre {
				d := w.v[i] - nmath.Sigmoid(x)
				w.sqErr += d * d
			}
			continue
		}
		t.refGibbs(w, k)
		if rd != nil {
			accumulate(w, w.vk, w.pk, -1)
			continue
		}
		refAccumulatePair(w)
	}
}

// accumulatePair adds the CD statistics v pᵀ − v_k p_kᵀ of one example with
// binary v and v_k to gW in one pass over the rows: p − p_k for the units on
// in both (most of them after a few Gibbs steps from the data), p for those
// on only in v, −p_k for those on only in v_k; and v − v_k, p − p_k to the
// biases.
func refAccumulatePair(w *task) {
	H := len(w.p)
	d := w.pd[:H]
	for j := range d {
		d[j] = w.p[j] - w.pk[j]
		w.gB[j] += d[j]
	}
	for i, x := range w.v {
		y := w.vk[i]
		if x == 0 && y == 0 {
			continue
		}
		row := w.gW[i*H : (i+1)*H]
		switch {
		case x != 0 && y != 0:
			for j, q := range d {
				row[j] += q
			}
		case x != 0:
			for j, q := range w.p {
				row[j] += q
			}
			w.gA[i]++
		default:
			for j, q := range w.pk {
				row[j] -= q
			}
			w.gA[i]--
		}
	}
}

// gibbs advances the state (w.vk, with w.pk = p(h|w.vk)) by k block-Gibbs
// steps h ~ p(h|v), v ~ p(v|h), leaving w.pk = p(h|v_k). For a positive task
// it adds the first step's squared reconstruction error to w.sqErr.
func (t *RBMTrainer) refGibbs(w *task, k int) {
	m := t.M
	for step := range k {
		sample(w.h, w.pk, w.rng)
		visiblePre(w.vpre, m, t.wt, w.h, w.on, t.down)
		for i, x := range w.vpre {
			p := nmath.Sigmoid(x)
			if step == 0 && !w.negative {
				d := w.v[i] - p
				w.sqErr += d * d
			}
			if w.rng.Float64() < p {
				w.vk[i] = 1
			} else {
				w.vk[i] = 0
			}
		}
		hiddenProbs(w.pk, m, w.vk, w.on, t.up)
	}
}
