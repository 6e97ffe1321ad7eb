package data

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/logz-ml/logz/internal/testenv"
)

func mnistDir(tb testing.TB) string {
	dir, err := testenv.MNISTDir()
	if err != nil {
		tb.Fatal(err)
	}
	if dir == "" {
		tb.Skipf("$%s is not set", testenv.MNISTVar)
	}
	return dir
}

// Facts about the original files, computed independently (Python's gzip
// module): pixel sums, the number of pixels ≥ 128, and label counts.
var realFacts = []struct {
	scheme, split string
	n             int
	pixSum        int
	over127       int
	labels        []int
}{
	{"mnist", "train", 60000, 1567298545, 6221431, []int{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}},
	{"mnist", "test", 10000, 264923200, 1052359, []int{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}},
	{"fashion-mnist", "train", 60000, 3431114169, 14801503, []int{6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000}},
	{"fashion-mnist", "test", 10000, 573469082, 2471969, []int{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}},
}

func TestRealData(t *testing.T) {
	for _, f := range realFacts {
		t.Run(f.scheme+":"+f.split, func(t *testing.T) {
			var dir string
			if f.scheme == "mnist" {
				dir = mnistDir(t)
			} else {
				dir = DefaultFashionDir
				if d := os.Getenv(EnvFashionDir); d != "" {
					dir = d
				}
				if _, err := os.Stat(dir); err != nil {
					t.Skipf("no Fashion-MNIST: %v", err)
				}
			}
			opt := Options{DataDir: dir, FashionDir: dir, Binarize: Binarization{Method: Threshold}}
			spec := f.scheme + ":" + f.split
			s, err := Load(spec, opt)
			if err != nil {
				t.Fatal(err)
			}
			if s.N != f.n || s.D != 784 {
				t.Fatalf("%d×%d, want %d×784", s.N, s.D, f.n)
			}
			ones := 0
			for _, x := range s.X {
				ones += int(x)
			}
			if ones != f.over127 {
				t.Errorf("threshold 0.5 gave %d ones, want %d", ones, f.over127)
			}
			path, err := findImages(Spec{Scheme: f.scheme, Part: f.split}, opt)
			if err != nil {
				t.Fatal(err)
			}
			g, err := ReadImages(path)
			if err != nil {
				t.Fatal(err)
			}
			sum := 0
			for _, p := range g.Pix {
				sum += int(p)
			}
			if sum != f.pixSum {
				t.Errorf("pixel sum %d, want %d", sum, f.pixSum)
			}
			// Stochastic binarisation: the mean of the bits is Σ p/255 / (N·D)
			// within 5 standard errors (variance Σ q(1−q)).
			sb, err := g.Binarize(Stochastic, 0, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			var bits, variance float64
			for k, x := range sb.X {
				bits += float64(x)
				q := float64(g.Pix[k]) / 255
				variance += q * (1 - q)
			}
			if d := math.Abs(bits - float64(sum)/255); d > 5*math.Sqrt(variance) {
				t.Errorf("stochastic: %.0f ones, expected %.0f ± %.0f", bits, float64(sum)/255, math.Sqrt(variance))
			}
			lpath := filepath.Join(filepath.Dir(path), map[string]string{"train": "train", "test": "t10k"}[f.split]+"-labels-idx1-ubyte")
			if _, err := os.Stat(lpath); err != nil {
				lpath += ".gz"
			}
			labels, err := ReadLabels(lpath)
			if err != nil {
				t.Fatal(err)
			}
			counts := make([]int, 10)
			for _, l := range labels {
				counts[l%10]++
			}
			for c := range counts {
				if counts[c] != f.labels[c] {
					t.Fatalf("label counts %v, want %v", counts, f.labels)
				}
			}
		})
	}
}

// go test ./data -bench LoadMNIST with LOGZ_MNIST_DIR set: read the gzip
// training images and binarise them stochastically.
func BenchmarkLoadMNISTTrain(b *testing.B) {
	opt := Options{DataDir: mnistDir(b), Binarize: Binarization{Method: Stochastic, Seed: 1}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load("mnist:train", opt); err != nil {
			b.Fatal(err)
		}
	}
}
