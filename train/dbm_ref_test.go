package train

// The joint DBM update as it was before internal/gemm (gonum's Dgemm for the
// dense mean-field products), kept as the reference that the faster update
// must agree with to rounding (TestDBMJointUpdateMatchesReference).

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/nmath"
)

func (t *DBMTrainer) jointBatchRef(data data.Examples, idx []int, k int, lr, mom float64) float64 {
	m, o, j := t.M, t.Opt, t.j
	L := m.NumLayers()
	B := len(idx)
	t.transposeWeights()
	t.visibleInput(data, idx)
	t.meanFieldRef(B)
	sq := t.reconErrorRef(B)
	// Negative phase: fixed chunks of chains, each with its own generator
	// seeded from the master in order.
	for i := range j.srcs {
		j.srcs[i].Seed(j.rng.Uint64(), j.rng.Uint64())
	}
	parallel(len(j.srcs), o.Workers, func(w, c int) {
		s := &j.work[w]
		for ch := c * chunkSize; ch < min((c+1)*chunkSize, o.Chains); ch++ {
			for range k {
				t.sweep(s, ch, j.rngs[c])
			}
		}
	})
	// Dense positive statistics of the hidden-hidden weights, μ_lᵀ μ_{l+1}
	// with μ_l transposed first into z (gonum's Dgemm is about 1.6× faster
	// without the transposed operand here).
	for l := 1; l < L; l++ {
		n, n1 := m.Sizes[l], m.Sizes[l+1]
		mt := j.z[:n*B]
		for r := range B {
			for i, x := range j.mu[l][r*n : (r+1)*n] {
				mt[i*B+r] = x
			}
		}
		blas64.Implementation().Dgemm(blas.NoTrans, blas.NoTrans, n, n1, B, 1/float64(B),
			mt, B, j.mu[l+1][:B*n1], n1, 0, j.gpos[l], n1)
	}
	// Weight updates, a chunk of rows of one W_l per task.
	var offs [16]int
	tasks := rowTasks(m.Sizes[:L], offs[:0])
	parallel(tasks[len(tasks)-1], o.Workers, func(w, task int) {
		l := 0
		for task >= tasks[l] {
			l++
		}
		lo := (task - (tasks[l] - chunks(m.Sizes[l], dbmRowChunk))) * dbmRowChunk
		t.updateRows(&j.work[w], l, lo, min(lo+dbmRowChunk, m.Sizes[l]), B, lr, mom)
	})
	// Biases.
	invB, invM := 1/float64(B), 1/float64(o.Chains)
	for l := range L + 1 {
		n := m.Sizes[l]
		g := j.work[0].g[:n]
		clear(g)
		for r := range B {
			axpy(g, invB, j.mu[l][r*n:(r+1)*n])
		}
		for c := range o.Chains {
			axpy(g, -invM, j.chains[l][c*n:(c+1)*n])
		}
		vel := j.velB[l]
		for i, d := range g {
			vel[i] = mom*vel[i] + lr*d
			m.B[l][i] += vel[i]
		}
	}
	return sq
}

func (t *DBMTrainer) meanFieldRef(B int) {
	m, j := t.M, t.j
	L := m.NumLayers()
	gemm := blas64.Implementation().Dgemm
	// layerInput sets z (B × n_l) to the input of layer l from below and,
	// if above, from above.
	layerInput := func(l int, above bool) []float64 {
		n := m.Sizes[l]
		z := j.z[:B*n]
		if l == 1 {
			copy(z, j.in0[:B*n])
		} else {
			p := m.Sizes[l-1]
			gemm(blas.NoTrans, blas.NoTrans, B, n, p, 1, j.mu[l-1][:B*p], p, m.W[l-1], n, 0, z, n)
		}
		if above && l < L {
			q := m.Sizes[l+1]
			gemm(blas.NoTrans, blas.Trans, B, n, q, 1, j.mu[l+1][:B*q], q, m.W[l], q, 1, z, n)
		}
		return z
	}
	for l := 1; l <= L; l++ {
		s := 2.0
		if l == L {
			s = 1
		}
		t.sigmoidRowsRef(j.mu[l], layerInput(l, false), m.B[l], s, B)
	}
	for range t.Opt.MFIters {
		for _, start := range [2]int{1, 2} {
			for l := start; l <= L; l += 2 {
				t.sigmoidRowsRef(j.mu[l], layerInput(l, true), m.B[l], 1, B)
			}
		}
	}
}

func (t *DBMTrainer) sigmoidRowsRef(mu, z, b []float64, s float64, B int) {
	n := len(b)
	parallel(chunks(B, chunkSize), t.Opt.Workers, func(_, c int) {
		for r := c * chunkSize; r < min((c+1)*chunkSize, B); r++ {
			zr, mr := z[r*n:(r+1)*n], mu[r*n:(r+1)*n]
			for i, x := range zr {
				mr[i] = nmath.Sigmoid(b[i] + s*x)
			}
		}
	})
}

func (t *DBMTrainer) reconErrorRef(B int) float64 {
	m, j := t.M, t.j
	D, n1 := m.Sizes[0], m.Sizes[1]
	z := j.z[:B*D]
	blas64.Implementation().Dgemm(blas.NoTrans, blas.Trans, B, D, n1, 1, j.mu[1][:B*n1], n1, m.W[0], n1, 0, z, D)
	nc := chunks(B, chunkSize)
	parallel(nc, t.Opt.Workers, func(_, c int) {
		s := 0.0
		for r := c * chunkSize; r < min((c+1)*chunkSize, B); r++ {
			v := j.mu[0][r*D : (r+1)*D]
			for i, x := range z[r*D : (r+1)*D] {
				d := v[i] - nmath.Sigmoid(m.B[0][i]+x)
				s += d * d
			}
		}
		j.sq[c] = s
	})
	s := 0.0
	for _, x := range j.sq[:nc] {
		s += x
	}
	return s
}

// TestDBMJointUpdateMatchesReference runs a few joint updates with the fast
// update and with the reference (gonum Dgemm) one from the same state and
// seed, for a 2- and a 3-layer DBM whose sizes leave edge tiles and several
// column blocks, and a minibatch that is not a multiple of 4. The dense
// products sum in another order, so the parameters agree to rounding (1e-12
// relative to the largest entry) rather than bit for bit; the persistent
// chains (binary) must be identical.
func TestDBMJointUpdateMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sizes := range [][]int{{21, 70, 131}, {20, 67, 45, 30}} {
		data := make(rows, 40)
		for n := range data {
			data[n] = make([]uint8, sizes[0])
			for i := range data[n] {
				if rng.Float64() < 0.2+0.5*float64(i%3)/2 {
					data[n][i] = 1
				}
			}
		}
		opt := DBMOptions{BatchSize: 13, Chains: 11, K: 2, MFIters: 4, WeightDecay: 1e-3, Epochs: 1, InitStd: 0.5,
			BaseRateVBias: true, Schedule: constSchedule{k: 2, lr: 0.05, mom: 0.5}}
		fast, ref := newDBM(t, opt, 7, sizes...), newDBM(t, opt, 7, sizes...)
		for _, tr := range []*DBMTrainer{fast, ref} {
			if err := tr.Prepare(data); err != nil {
				t.Fatal(err)
			}
			tr.setup()
		}
		idx := make([]int, opt.BatchSize)
		for u := range 5 {
			for i := range idx {
				idx[i] = (u*opt.BatchSize + i) % len(data)
			}
			fast.jointBatch(data, idx, 2, 0.05, 0.5)
			ref.jointBatchRef(data, idx, 2, 0.05, 0.5)
		}
		near := func(what string, a, b []float64) {
			scale := 0.0
			for _, x := range b {
				scale = max(scale, math.Abs(x))
			}
			for i := range a {
				if d := math.Abs(a[i] - b[i]); d > 1e-12*scale {
					t.Fatalf("%v %s[%d]: fast %v, reference %v (scale %v)", sizes, what, i, a[i], b[i], scale)
				}
			}
		}
		for l := range fast.M.W {
			near("W", fast.M.W[l], ref.M.W[l])
			near("velW", fast.j.velW[l], ref.j.velW[l])
		}
		for l := range fast.M.B {
			near("b", fast.M.B[l], ref.M.B[l])
			if !slices.Equal(fast.j.chains[l], ref.j.chains[l]) {
				t.Fatalf("%v: chains of layer %d differ", sizes, l)
			}
		}
		same := true
		for l := range fast.M.W {
			same = same && slices.Equal(fast.M.W[l], ref.M.W[l])
		}
		t.Logf("%v: bit-identical parameters: %v", sizes, same)
	}
}
