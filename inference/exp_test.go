package inference

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestExpAgainstMathExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worst, worstX := 0.0, 0.0
	check := func(x float64) {
		got, want := Exp(x), math.Exp(x)
		if want == 0 || math.IsInf(want, 0) {
			if got != want {
				t.Fatalf("Exp(%v) = %v, want %v", x, got, want)
			}
			return
		}
		if rel := math.Abs(got-want) / want; rel > worst {
			worst, worstX = rel, x
		}
	}
	for range 2_000_000 {
		check(-750 + 1460*rng.Float64())
	}
	for range 200_000 {
		check(-1 + 2*rng.Float64())
	}
	// Grid points at the range-reduction boundaries and the ends of the fast range.
	for k := -262000; k <= 262000; k++ {
		x := float64(k) * math.Ln2 / 256
		check(x)
		check(math.Nextafter(x, 0))
		check(x + math.Ln2/512)
	}
	for _, x := range []float64{0, -0.0, expMin, expMax, math.Nextafter(expMin, 0), -708.5, -745.2, -800, 710, 1e-300, -1e-300} {
		check(x)
	}
	t.Logf("worst relative error %.3g at x = %v", worst, worstX)
	if worst > 1e-15 {
		t.Fatalf("worst relative error %.3g at x = %v exceeds 1e-15", worst, worstX)
	}
	if !math.IsNaN(Exp(math.NaN())) || Exp(math.Inf(-1)) != 0 || !math.IsInf(Exp(math.Inf(1)), 1) {
		t.Fatal("special values mishandled")
	}
}

// TestExpNegAbsKernel checks the slice kernel used by the chains: e^{−β|x|}
// within 1e-15 relative for arguments down to −708 and e^{−708} below.
func TestExpNegAbsKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 1 << 20
	x := make([]float64, n)
	for i := range x {
		x[i] = (2*rng.Float64() - 1) * math.Exp(7*rng.Float64()) // |x| up to e^7 ≈ 1100
	}
	x[0], x[1], x[2] = 0, math.Copysign(0, -1), 708
	dst := make([]float64, n)
	for _, beta := range []float64{1, 0.37, 1e-5, 0} {
		expNegAbs(dst, x, beta)
		for i, xi := range x {
			a := -beta * math.Abs(xi)
			want := math.Exp(a)
			if a < expMin {
				want = math.Exp(expMin)
			}
			if rel := math.Abs(dst[i]-want) / want; !(rel < 1e-15) {
				t.Fatalf("β=%v x=%v: e^{−β|x|} = %v, want %v (relative error %.3g)", beta, xi, dst[i], want, rel)
			}
		}
	}
}

var sinkF float64

func BenchmarkExpFast(b *testing.B) {
	xs := make([]float64, 1024)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range xs {
		xs[i] = -20 * rng.Float64()
	}
	b.ReportAllocs()
	s := 0.0
	for b.Loop() {
		for _, x := range xs {
			s += Exp(x)
		}
	}
	sinkF = s
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/exp")
}

func BenchmarkExpMath(b *testing.B) {
	xs := make([]float64, 1024)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range xs {
		xs[i] = -20 * rng.Float64()
	}
	b.ReportAllocs()
	s := 0.0
	for b.Loop() {
		for _, x := range xs {
			s += math.Exp(x)
		}
	}
	sinkF = s
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/exp")
}

func BenchmarkExpNegAbsSlice(b *testing.B) {
	xs := make([]float64, 1024)
	dst := make([]float64, 1024)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range xs {
		xs[i] = -20 + 40*rng.Float64()
	}
	b.ReportAllocs()
	for b.Loop() {
		expNegAbs(dst, xs, 0.7)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/exp")
}

// TestAVX2SameBits compares the assembly kernels of expNegAbs and sigmoids
// with the Go loops bit for bit, over arguments across the whole range,
// special values, several β, lengths with a tail, and in place.
func TestAVX2SameBits(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel on this build or CPU")
	}
	defer func() { useAVX2 = true }()
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, 1<<16)
	for i := range x {
		x[i] = (2*rng.Float64() - 1) * math.Exp(8*rng.Float64()-2)
	}
	copy(x, []float64{0, math.Copysign(0, -1), 708, -708, 709, -745, 1e-300, -1e-300, math.Inf(1), math.Inf(-1), math.NaN(), 1e308})
	for _, n := range []int{len(x), 3, 4, 7} {
		for _, beta := range []float64{1, 0.37, 0} {
			var got [2][]float64
			for k, avx := range []bool{false, true} {
				useAVX2 = avx
				d := make([]float64, n)
				expNegAbs(d, x[:n], beta)
				got[k] = d
			}
			for i := range got[0] {
				if math.Float64bits(got[0][i]) != math.Float64bits(got[1][i]) {
					t.Fatalf("n=%d β=%v: e^{−β|%v|}: Go %v, AVX2 %v", n, beta, x[i], got[0][i], got[1][i])
				}
			}
		}
		var got [2][]float64
		for k, avx := range []bool{false, true} {
			useAVX2 = avx
			p := append([]float64(nil), x[:n]...)
			sigmoids(p, p)
			got[k] = p
		}
		for i := range got[0] {
			if math.Float64bits(got[0][i]) != math.Float64bits(got[1][i]) {
				t.Fatalf("n=%d: σ(%v): Go %v, AVX2 %v", n, x[i], got[0][i], got[1][i])
			}
			if xi := x[i]; !math.IsNaN(xi) && math.Abs(xi) < 700 {
				want := 1 / (1 + math.Exp(-xi))
				if math.Abs(got[1][i]-want) > 1e-15*want {
					t.Fatalf("σ(%v) = %v, want %v", xi, got[1][i], want)
				}
			}
		}
	}
}

func BenchmarkSigmoids1024(b *testing.B) {
	xs := make([]float64, 1024)
	p := make([]float64, 1024)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range xs {
		xs[i] = -20 + 40*rng.Float64()
	}
	b.ReportAllocs()
	for b.Loop() {
		sigmoids(p, xs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/sigmoid")
}
