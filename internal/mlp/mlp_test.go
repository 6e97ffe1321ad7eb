package mlp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// testLoss is L(y) = Σ_j c_j y_j + ½ Σ_j y_j², with ∂L/∂y = c + y, so the
// check also sees second-order terms of the net.
func testLoss(y, c []float64) float64 {
	s := 0.0
	for j, v := range y {
		s += c[j]*v + 0.5*v*v
	}
	return s
}

func newTestNet(t testing.TB, sizes []int, rng *rand.Rand) *Net {
	t.Helper()
	n, err := New(sizes, make([]float64, NumParams(sizes)))
	if err != nil {
		t.Fatal(err)
	}
	n.Init(rng)
	for i := range n.params { // non-zero biases too
		n.params[i] += 0.3 * rng.NormFloat64()
	}
	return n
}

func TestBackwardMatchesFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sizes := range [][]int{{3, 2}, {1, 1}, {4, 5, 3}, {6, 4, 5, 2}, {2, 7, 1}} {
		n := newTestNet(t, sizes, rng)
		x := make([]float64, n.In())
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		c := make([]float64, n.Out())
		for j := range c {
			c[j] = rng.NormFloat64()
		}
		s := make([]float64, n.ScratchLen())
		loss := func() float64 { return testLoss(n.Forward(s, x), c) }
		y := n.Forward(s, x)
		dy := make([]float64, len(y))
		for j := range dy {
			dy[j] = c[j] + y[j]
		}
		g := make([]float64, n.NumParams())
		dx := make([]float64, n.In())
		n.Backward(g, dx, s, x, dy)

		const h = 1e-6
		check := func(what string, i int, v *float64, got float64) {
			old := *v
			*v = old + h
			lp := loss()
			*v = old - h
			lm := loss()
			*v = old
			want := (lp - lm) / (2 * h)
			if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Errorf("sizes %v: ∂L/∂%s[%d] = %.9g, finite difference %.9g", sizes, what, i, got, want)
			}
		}
		for i := range n.params {
			check("θ", i, &n.params[i], g[i])
		}
		for i := range x {
			check("x", i, &x[i], dx[i])
		}
	}
}

func TestBinaryPathEqualsFloatPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sizes := range [][]int{{5, 3}, {9, 4, 2}, {12, 6, 5, 3}} {
		n := newTestNet(t, sizes, rng)
		xb := make([]uint8, n.In())
		xf := make([]float64, n.In())
		for i := range xb {
			if rng.IntN(2) == 1 {
				xb[i], xf[i] = 1, 1
			}
		}
		sf, sb := make([]float64, n.ScratchLen()), make([]float64, n.ScratchLen())
		yf := n.Forward(sf, xf)
		yb := n.ForwardBinary(sb, xb)
		for j := range yf {
			if math.Abs(yf[j]-yb[j]) > 1e-12 {
				t.Errorf("sizes %v: y[%d] float %v, binary %v", sizes, j, yf[j], yb[j])
			}
		}
		dy := make([]float64, n.Out())
		for j := range dy {
			dy[j] = rng.NormFloat64()
		}
		gf, gb := make([]float64, n.NumParams()), make([]float64, n.NumParams())
		dxf, dxb := make([]float64, n.In()), make([]float64, n.In())
		n.Backward(gf, dxf, sf, xf, dy)
		n.BackwardBinary(gb, dxb, sb, xb, dy)
		for i := range gf {
			if math.Abs(gf[i]-gb[i]) > 1e-12 {
				t.Errorf("sizes %v: g[%d] float %v, binary %v", sizes, i, gf[i], gb[i])
			}
		}
		for i := range dxf {
			if math.Abs(dxf[i]-dxb[i]) > 1e-12 {
				t.Errorf("sizes %v: dx[%d] float %v, binary %v", sizes, i, dxf[i], dxb[i])
			}
		}
	}
}

// Backward leaves the activations alone: a second call on the same scratch
// adds the same gradient again.
func TestBackwardIsRepeatable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := newTestNet(t, []int{6, 5, 4, 3}, rng)
	x := []uint8{1, 0, 1, 1, 0, 1}
	s := make([]float64, n.ScratchLen())
	n.ForwardBinary(s, x)
	dy := []float64{0.3, -1, 2}
	g1, g2 := make([]float64, n.NumParams()), make([]float64, n.NumParams())
	n.BackwardBinary(g1, nil, s, x, dy)
	n.BackwardBinary(g2, nil, s, x, dy)
	n.BackwardBinary(g2, nil, s, x, dy)
	for i := range g1 {
		if math.Abs(2*g1[i]-g2[i]) > 1e-12 {
			t.Fatalf("g[%d]: one call %v, two calls %v", i, g1[i], g2[i])
		}
	}
}

func TestLayoutAndErrors(t *testing.T) {
	sizes := []int{3, 4, 2}
	p := make([]float64, NumParams(sizes))
	if len(p) != 3*4+4+4*2+2 {
		t.Fatalf("NumParams = %d", len(p))
	}
	n := MustNew(sizes, p)
	a := n.Arrays("enc_")
	names := []string{"enc_W1", "enc_b1", "enc_W2", "enc_b2"}
	offs := []int{0, 12, 16, 24}
	for i, arr := range a {
		if arr.Name != names[i] || &arr.Data[0] != &p[offs[i]] {
			t.Errorf("array %d: %s at %p, want %s at offset %d", i, arr.Name, &arr.Data[0], names[i], offs[i])
		}
		sz := 1
		for _, s := range arr.Shape {
			sz *= s
		}
		if sz != len(arr.Data) {
			t.Errorf("%s: shape %v, %d values", arr.Name, arr.Shape, len(arr.Data))
		}
	}
	for _, bad := range []struct {
		sizes []int
		n     int
	}{{[]int{3}, 0}, {[]int{3, 0}, 0}, {[]int{3, 2}, 7}} {
		if _, err := New(bad.sizes, make([]float64, bad.n)); err == nil {
			t.Errorf("New(%v, %d params) gave no error", bad.sizes, bad.n)
		}
	}
}

func TestInitScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n := MustNew([]int{400, 300}, make([]float64, NumParams([]int{400, 300})))
	n.Init(rng)
	v := 0.0
	for _, w := range n.W[0] {
		v += w * w
	}
	v /= float64(len(n.W[0]))
	if math.Abs(v*400-1) > 0.02 {
		t.Errorf("Var(W)·fan_in = %v, want 1", v*400)
	}
	for _, b := range n.B[0] {
		if b != 0 {
			t.Fatal("bias not zero after Init")
		}
	}
}

func TestNoAllocation(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	n := newTestNet(t, []int{20, 8, 6}, rng)
	xb := make([]uint8, 20)
	xf := make([]float64, 20)
	s := make([]float64, n.ScratchLen())
	g := make([]float64, n.NumParams())
	dx := make([]float64, 20)
	dy := make([]float64, 6)
	if a := testing.AllocsPerRun(20, func() {
		n.Forward(s, xf)
		n.Backward(g, dx, s, xf, dy)
		n.ForwardBinary(s, xb)
		n.BackwardBinary(g, dx, s, xb, dy)
	}); a != 0 {
		t.Errorf("%v allocations per forward+backward", a)
	}
}

func benchNet(b *testing.B, sizes []int, binary bool) {
	rng := rand.New(rand.NewPCG(11, 12))
	n := newTestNet(b, sizes, rng)
	xb := make([]uint8, n.In())
	xf := make([]float64, n.In())
	for i := range xb {
		if rng.Float64() < 0.15 { // MNIST-like density
			xb[i], xf[i] = 1, 1
		}
		if !binary {
			xf[i] = rng.NormFloat64()
		}
	}
	s := make([]float64, n.ScratchLen())
	g := make([]float64, n.NumParams())
	dy := make([]float64, n.Out())
	for j := range dy {
		dy[j] = rng.NormFloat64()
	}
	b.ReportAllocs()
	for b.Loop() {
		if binary {
			n.ForwardBinary(s, xb)
			n.BackwardBinary(g, nil, s, xb, dy)
		} else {
			n.Forward(s, xf)
			n.Backward(g, nil, s, xf, dy)
		}
	}
}

// The two nets of the χ² aux proposal at MNIST size: r(a|x) reads 784
// binary pixels; q(x|a) maps 10 Gaussians to 784 logits.
func BenchmarkForwardBackwardBinary784x32x20(b *testing.B) { benchNet(b, []int{784, 32, 20}, true) }
func BenchmarkForwardBackwardFloat784x32x20(b *testing.B)  { benchNet(b, []int{784, 32, 20}, false) }
func BenchmarkForwardBackward10x32x784(b *testing.B)       { benchNet(b, []int{10, 32, 784}, false) }

// TestFirstLayerSplit: FirstBinary + ForwardPre is ForwardBinary, and
// BackwardPre + FirstBackwardBinary is BackwardBinary, bit for bit.
func TestFirstLayerSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, sizes := range [][]int{{7, 3}, {7, 5, 3}, {6, 4, 5, 2}} {
		n := newTestNet(t, sizes, rng)
		x := []uint8{1, 0, 1, 1, 0, 0, 1}[:n.In()]
		s1, s2 := make([]float64, n.ScratchLen()), make([]float64, n.ScratchLen())
		want := append([]float64(nil), n.ForwardBinary(s1, x)...)
		pre := make([]float64, sizes[1])
		n.FirstBinary(pre, x)
		got := n.ForwardPre(s2, pre)
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("sizes %v: output %d: %v split, %v whole", sizes, j, got[j], want[j])
			}
		}
		dy := make([]float64, n.Out())
		for j := range dy {
			dy[j] = rng.NormFloat64()
		}
		g1, g2 := make([]float64, n.NumParams()), make([]float64, n.NumParams())
		n.BackwardBinary(g1, nil, s1, x, dy)
		n.FirstBackwardBinary(g2, x, n.BackwardPre(g2, s2, dy))
		for i := range g1 {
			if g1[i] != g2[i] {
				t.Fatalf("sizes %v: gradient %d: %v split, %v whole", sizes, i, g2[i], g1[i])
			}
		}
	}
}
