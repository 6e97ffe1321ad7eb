package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sigmoid64 is σ(x) in float64.
func sigmoid64(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// testInputs are random arguments over the range where σ is not 0 or 1 in
// float32 and beyond, the range-reduction grid points ±k·ln2/8 and their
// neighbours, and special values.
func testInputs() []float32 {
	rng := rand.New(rand.NewPCG(1, 2))
	var x []float32
	for range 1 << 20 {
		x = append(x, float32((2*rng.Float64()-1)*math.Exp(5*rng.Float64()-1)))
	}
	for k := -1100; k <= 1100; k++ {
		g := float32(float64(k) * math.Ln2 / 8)
		x = append(x, g, math.Nextafter32(g, 0), math.Nextafter32(g, 1000))
	}
	return append(x, 0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 86.9, -86.9, 87, -87, 88, -88, 200, -200,
		float32(math.Inf(1)), float32(math.Inf(-1)))
}

// TestAgainstFloat64: σ within 4 float32 ulps (relative 2^{−22}: half an
// ulp each from the table, s + s·q, 1 + e and the division, and about one
// from e^r − 1 and the reduction) of σ in float64 for |x| ≤ 87, and the
// clamped values beyond: σ(x) = 1 for x ≥ 87 and σ(x) =
// e^{−87}/(1+e^{−87}) (to the same tolerance) for x ≤ −87.
func TestAgainstFloat64(t *testing.T) {
	x := testInputs()
	p := make([]float32, len(x))
	Sigmoid32(p, x)
	worst, worstX := 0.0, float32(0)
	for i, xi := range x {
		want := sigmoid64(float64(xi))
		if xi <= expMin {
			want = sigmoid64(expMin)
		}
		rel := math.Abs(float64(p[i])-want) / want
		if rel > worst {
			worst, worstX = rel, xi
		}
		if !(rel <= 0x1p-22) {
			t.Fatalf("σ(%v) = %v, want %v (relative error %.3g)", xi, p[i], want, rel)
		}
	}
	t.Logf("worst relative error %.3g (%.2f ulp) at x = %v", worst, worst/0x1p-24, worstX)
	if Sigmoid32(p[:1], []float32{0}); p[0] != 0.5 {
		t.Errorf("σ(0) = %v", p[0])
	}
	if Sigmoid32(p[:1], []float32{float32(math.Copysign(0, -1))}); p[0] != 0.5 {
		t.Errorf("σ(−0) = %v", p[0])
	}
}

// TestLogisticAVX2SameBits compares the assembly with the Go loop bit for bit, with
// lengths that leave a tail for the Go loop, and in place (p aliasing x).
func TestLogisticAVX2SameBits(t *testing.T) {
	if !logisticAVX2 {
		t.Skip("no AVX2 kernel on this build or CPU")
	}
	defer func() { logisticAVX2 = true }()
	x := append(testInputs(), float32(math.NaN()))
	for _, n := range []int{len(x), 7, 8, 13} {
		var got [2][]float32
		for k, avx := range []bool{false, true} {
			logisticAVX2 = avx
			p := append([]float32(nil), x[len(x)-n:]...)
			Sigmoid32(p, p)
			got[k] = p
		}
		for i := range got[0] {
			if math.Float32bits(got[0][i]) != math.Float32bits(got[1][i]) {
				t.Fatalf("x = %v: Go %v, AVX2 %v", x[len(x)-n+i], got[0][i], got[1][i])
			}
		}
	}
}

func BenchmarkSigmoid500(b *testing.B) {
	x := make([]float32, 500)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range x {
		x[i] = float32(8*rng.Float64() - 4)
	}
	p := make([]float32, len(x))
	b.ReportAllocs()
	for b.Loop() {
		Sigmoid32(p, x)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/element")
}

// softplus64 is log(1 + e^a) in float64.
func softplus64(a float64) float64 { return max(a, 0) + math.Log1p(math.Exp(-math.Abs(a))) }

// TestLogLikAgainstFloat64: LogLik32's σ are Sigmoid32's bits, and its sum is
// Σ x·a − softplus(a) of float64 arithmetic on the same float32 logits to
// within 1e-7 per entry (the rounding of 1 + e in float32: half an ulp of a
// number in (1, 2], 6e-8, plus e's few ulps), on lengths with and without
// a tail, across several blocks of the product, and for logits beyond
// ±87, where e is clamped but 1 + e rounds to 1 either way.
func TestLogLikAgainstFloat64(t *testing.T) {
	all := testInputs()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 7, 8, 13, 200, 784, 999, 1000, 1001, 2500, 4096} {
		a := make([]float32, n)
		x := make([]float32, n)
		for i := range a {
			a[i] = all[rng.IntN(len(all)-2)] // no ±Inf
			x[i] = float32(rng.IntN(2))
		}
		p, want := make([]float32, n), make([]float32, n)
		got := LogLik32(p, a, x)
		Sigmoid32(want, a)
		ref, tol := 0.0, 1e-7*float64(n)
		for i, ai := range a {
			ref += float64(x[i])*float64(ai) - softplus64(float64(ai))
			if math.Float32bits(p[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n = %d: σ(%v) = %v, Sigmoid32 gives %v", n, ai, p[i], want[i])
			}
		}
		if d := math.Abs(got - ref); !(d <= tol) {
			t.Errorf("n = %d: LogLik32 %.12g, float64 %.12g (difference %.3g > %.3g)", n, got, ref, d, tol)
		}
	}
}

// TestLogLikAVX2SameBits compares the assembly with the Go loop bit for bit
// (the sum, and σ), in place too.
func TestLogLikAVX2SameBits(t *testing.T) {
	if !logisticAVX2 {
		t.Skip("no AVX2 kernel on this build or CPU")
	}
	defer func() { logisticAVX2 = true }()
	all := append(testInputs(), float32(math.NaN()))
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{7, 8, 13, 784, 1000, 1003, 3000} {
		a := make([]float32, n)
		x := make([]float32, n)
		for i := range a {
			a[i] = all[rng.IntN(len(all))]
			x[i] = float32(rng.IntN(2))
		}
		// The lanes themselves (the final combination may hide a lane
		// mix-up in its rounding).
		if n8 := n &^ 7; n8 > 0 && n8 <= logLikBlock {
			init := [16]float64{8: 1, 9: 1, 10: 1, 11: 1, 12: 1, 13: 1, 14: 1, 15: 1}
			accGo, accAVX := init, init
			p := make([]float32, n8)
			logLikGo(p, a[:n8], x, &accGo)
			if logLikAsm(p, a[:n8], x, &accAVX) != n8 {
				t.Fatal("the kernel did not run")
			}
			for k := range accGo {
				if math.Float64bits(accGo[k]) != math.Float64bits(accAVX[k]) && !(math.IsNaN(accGo[k]) && math.IsNaN(accAVX[k])) {
					t.Fatalf("n = %d: lane %d: Go %v, AVX2 %v", n, k, accGo[k], accAVX[k])
				}
			}
		}
		var sum [2]float64
		var ps [2][]float32
		for k, avx := range []bool{false, true} {
			logisticAVX2 = avx
			p := append([]float32(nil), a...)
			sum[k] = LogLik32(p, p, x)
			ps[k] = p
		}
		if math.Float64bits(sum[0]) != math.Float64bits(sum[1]) && !(math.IsNaN(sum[0]) && math.IsNaN(sum[1])) {
			t.Fatalf("n = %d: Go %v, AVX2 %v", n, sum[0], sum[1])
		}
		for i := range ps[0] {
			if math.Float32bits(ps[0][i]) != math.Float32bits(ps[1][i]) {
				t.Fatalf("n = %d: σ(%v): Go %v, AVX2 %v", n, a[i], ps[0][i], ps[1][i])
			}
		}
	}
}

func BenchmarkLogLik784(b *testing.B) {
	a, x, p := make([]float32, 784), make([]float32, 784), make([]float32, 784)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range a {
		a[i] = float32(8*rng.Float64() - 4)
		x[i] = float32(rng.IntN(2))
	}
	b.ReportAllocs()
	for b.Loop() {
		LogLik32(p, a, x)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(a)), "ns/element")
}

// TestExpNegAbs32 checks the float32 exponential against math.Exp of its
// float32 argument −β|x| (relative error below 3e-7, a few float32 ulps,
// down to the clamp at −87) and its assembly kernel against the Go loop bit for bit, over
// arguments across the range, special values, several β and lengths with
// a tail.
func TestExpNegAbs32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	x := make([]float32, 1<<14)
	for i := range x {
		x[i] = float32((2*rng.Float64() - 1) * math.Exp(6*rng.Float64()-2))
	}
	copy(x, []float32{0, float32(math.Copysign(0, -1)), 87, -87, 88, -100, 1e-30, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 3e38})
	avx := logisticAVX2
	defer func() { logisticAVX2 = avx }()
	for _, n := range []int{len(x), 3, 8, 13} {
		for _, beta := range []float32{1, 0.37, 0} {
			var got [2][]float32
			for k, on := range []bool{false, avx} {
				logisticAVX2 = on
				got[k] = make([]float32, n)
				ExpNegAbs32(got[k], x[:n], beta)
			}
			for i, g := range got[0] {
				if math.Float32bits(g) != math.Float32bits(got[1][i]) {
					t.Fatalf("n=%d β=%v: e^{−β|%v|}: Go %v, AVX2 %v", n, beta, x[i], g, got[1][i])
				}
				// the argument rounded to float32, as the kernel's
				a := float64(-beta * float32(math.Abs(float64(x[i]))))
				if math.IsNaN(a) || a < -87 {
					a = -87
				}
				if want := math.Exp(a); math.Abs(float64(g)-want) > 3e-7*want {
					t.Fatalf("β=%v: e^{−β|%v|} = %v, want %v", beta, x[i], g, want)
				}
			}
		}
	}
}
