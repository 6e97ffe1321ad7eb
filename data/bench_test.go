package data

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// syntheticDigits returns n 28×28 images that look like MNIST to a
// compressor: background zeros, a blob of ink with grey edges.
func syntheticDigits(n int) *Grey {
	rng := rand.New(rand.NewPCG(1, 1))
	g := &Grey{Name: "synthetic", N: n, D: 784, Pix: make([]uint8, n*784)}
	for k := range n {
		cx, cy := 8+rng.IntN(12), 8+rng.IntN(12)
		for y := range 28 {
			for x := range 28 {
				d := (x-cx)*(x-cx) + (y-cy)*(y-cy)
				switch {
				case d < 12:
					g.Pix[k*784+y*28+x] = uint8(250 + rng.IntN(6))
				case d < 25:
					g.Pix[k*784+y*28+x] = uint8(rng.IntN(256))
				}
			}
		}
	}
	return g
}

func BenchmarkDecodeIDXGzip10k(b *testing.B) {
	g := syntheticDigits(10000)
	z := gz(b, makeIDX([]int{10000, 28, 28}, g.Pix))
	b.SetBytes(int64(len(g.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeIDX(bytes.NewReader(z), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBinarizeStochastic10k(b *testing.B) {
	g := syntheticDigits(10000)
	rng := rand.New(rand.NewPCG(1, 2))
	b.SetBytes(int64(len(g.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Binarize(Stochastic, 0, rng); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBinarizeThreshold10k(b *testing.B) {
	g := syntheticDigits(10000)
	b.SetBytes(int64(len(g.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Binarize(Threshold, 0.5, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// The default planted training set (2000 exact draws from the 20×8 RBM).
func BenchmarkPlantedTrain(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Planted(PlantedSpec{}, "train"); err != nil {
			b.Fatal(err)
		}
	}
}
