package eval

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/logz-ml/logz/internal/testenv"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// benchRBM is the synthetic benchmark model: weights N(0, 0.05²), visible
// biases N(−2, 0.5²) (σ(−2) ≈ 12% of pixels on, like MNIST's base rate) and
// hidden biases N(−1, 0.5²). Its units are nearly independent of each other,
// so most of them flip at every Gibbs step: a worst case for the
// incremental updates.
func benchRBM(d, h int) *models.RBM {
	rng := rand.New(rand.NewPCG(2024, 1))
	m := models.NewRBM(d, h)
	for i := range m.W {
		m.W[i] = 0.05 * rng.NormFloat64()
	}
	for i := range m.VBias {
		m.VBias[i] = -2 + 0.5*rng.NormFloat64()
	}
	for j := range m.HBias {
		m.HBias[j] = -1 + 0.5*rng.NormFloat64()
	}
	return m
}

var (
	mnistOnce  sync.Once
	mnistModel *models.RBM
	mnistBase  []float64
	mnistErr   error
)

// benchModel returns the 784×500 benchmark model and its base-rate visible
// biases. If LOGZ_MNIST_DIR names a directory holding
// train-images-idx3-ubyte.gz, the model is an RBM trained on MNIST by
// LOGZ_MNIST_UPDATES (default 2000) PCD-1 updates and the base rate is that of
// the training images (the trained model is cached in os.TempDir()); otherwise it is benchRBM(784, 500) with its own
// visible biases as the base.
func benchModel(b *testing.B) (*models.RBM, []float64) {
	dir := mnistBenchDir(b)
	if dir == "" {
		m := benchRBM(784, 500)
		return m, append([]float64(nil), m.VBias...)
	}
	mnistOnce.Do(func() {
		updates := 2000
		if s := os.Getenv("LOGZ_MNIST_UPDATES"); s != "" {
			fmt.Sscan(s, &updates)
		}
		cache := filepath.Join(os.TempDir(), fmt.Sprintf("logz-bench-mnist-pcd-784x500-%d.bin", updates))
		if mnistModel, mnistBase, mnistErr = loadBenchCache(cache); mnistErr == nil {
			return
		}
		mnistModel, mnistBase, mnistErr = mnistPCD(filepath.Join(dir, "train-images-idx3-ubyte.gz"), 500, updates)
		if mnistErr == nil {
			saveBenchCache(cache, mnistModel, mnistBase)
		}
	})
	if mnistErr != nil {
		b.Fatal(mnistErr)
	}
	b.Logf("MNIST PCD-1 model (784×500)")
	return mnistModel, mnistBase
}

// saveBenchCache stores a trained benchmark model (float64 little-endian W,
// vbias, hbias, base) so that later benchmark runs skip the training; errors
// only cost a retraining and are ignored.
func saveBenchCache(path string, m *models.RBM, base []float64) {
	var buf bytes.Buffer
	for _, xs := range [][]float64{m.W, m.VBias, m.HBias, base} {
		binary.Write(&buf, binary.LittleEndian, xs)
	}
	os.WriteFile(path, buf.Bytes(), 0o644)
}

func loadBenchCache(path string) (*models.RBM, []float64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	m := models.NewRBM(784, 500)
	base := make([]float64, 784)
	r := bytes.NewReader(raw)
	for _, xs := range [][]float64{m.W, m.VBias, m.HBias, base} {
		if err := binary.Read(r, binary.LittleEndian, xs); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return m, base, m.Validate()
}

// readIDXImages reads a gzipped IDX3 file of 28×28 images and binarises them
// stochastically (pixel on with probability intensity/255, as in the 2008
// paper) with a fixed seed.
func readIDXImages(path string) ([][]uint8, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var hdr [4]uint32
	if err := binary.Read(zr, binary.BigEndian, &hdr); err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	if hdr[0] != 0x803 {
		return nil, fmt.Errorf("%s: magic %#x, want 0x803 (IDX3 unsigned bytes)", path, hdr[0])
	}
	n, d := int(hdr[1]), int(hdr[2]*hdr[3])
	pix := make([]byte, n*d)
	if _, err := io.ReadFull(zr, pix); err != nil {
		return nil, fmt.Errorf("%s: %d images of %d pixels: %w", path, n, d, err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	out := make([][]uint8, n)
	for k := range out {
		row := make([]uint8, d)
		for i := range row {
			if rng.Float64()*255 < float64(pix[k*d+i]) {
				row[i] = 1
			}
		}
		out[k] = row
	}
	return out, nil
}

// mnistPCD trains a D×H RBM by PCD-1 (minibatch 100, learning rate 0.05,
// momentum 0.9 after 50 updates, weight decay 2e-4, hidden probabilities in
// the statistics), the visible biases starting at the data's smoothed
// log-odds, which are also returned as the AIS base rate.
func mnistPCD(path string, H, updates int) (*models.RBM, []float64, error) {
	data, err := readIDXImages(path)
	if err != nil {
		return nil, nil, err
	}
	D := len(data[0])
	base := make([]float64, D)
	for i := range D {
		on := 0.0
		for _, r := range data {
			on += float64(r[i])
		}
		base[i] = nmath.Logit((on + 0.05*float64(len(data))/float64(D)) / (float64(len(data)) + 0.1*float64(len(data))/float64(D)))
		base[i] = math.Max(-9, math.Min(9, base[i]))
	}
	rng := rand.New(rand.NewPCG(11, 0))
	m := models.NewRBM(D, H)
	for i := range m.W {
		m.W[i] = 0.01 * rng.NormFloat64()
	}
	copy(m.VBias, base)
	const batch = 100
	// Persistent fantasy particles (PCD-1): the negative phase continues
	// these chains instead of restarting at the data, which removes the
	// spurious modes CD-1 leaves (a CD-1 model's Gibbs chains collapse to
	// nearly blank images).
	fantasy := make([][]float64, batch)
	for k := range fantasy {
		fantasy[k] = make([]float64, D)
		for i, x := range data[rng.IntN(len(data))] {
			fantasy[k][i] = float64(x)
		}
	}
	dW := make([]float64, D*H)
	da, db := make([]float64, D), make([]float64, H)
	v := make([]float64, D)
	v1 := make([]float64, D)
	ph := make([]float64, H)
	ph1 := make([]float64, H)
	h := make([]float64, H)
	pre := make([]float64, D)
	gW := make([]float64, D*H)
	ga, gb := make([]float64, D), make([]float64, H)
	for u := range updates {
		clear(gW)
		clear(ga)
		clear(gb)
		for k := range batch {
			row := data[rng.IntN(len(data))]
			for i, x := range row {
				v[i] = float64(x)
			}
			m.HiddenPreact(ph, v)
			models.SigmoidInPlace(ph)
			m.HiddenPreact(ph1, fantasy[k])
			models.SigmoidInPlace(ph1)
			for j, p := range ph1 {
				h[j] = 0
				if rng.Float64() < p {
					h[j] = 1
				}
			}
			m.VisiblePreact(pre, h)
			models.SampleBernoulli(v1, pre, rng)
			copy(fantasy[k], v1)
			m.HiddenPreact(ph1, v1)
			models.SigmoidInPlace(ph1)
			for i := range D {
				if v[i] != 0 {
					g := gW[i*H : (i+1)*H]
					for j := range g {
						g[j] += ph[j]
					}
				}
				if v1[i] != 0 {
					g := gW[i*H : (i+1)*H]
					for j := range g {
						g[j] -= ph1[j]
					}
				}
				ga[i] += v[i] - v1[i]
			}
			for j := range H {
				gb[j] += ph[j] - ph1[j]
			}
		}
		lr, mom := 0.02/batch, 0.5
		if u >= 50 {
			mom = 0.9
		}
		for k := range m.W {
			dW[k] = mom*dW[k] + lr*(gW[k]-batch*2e-4*m.W[k])
			m.W[k] += dW[k]
		}
		for i := range D {
			da[i] = mom*da[i] + lr*ga[i]
			m.VBias[i] += da[i]
		}
		for j := range H {
			db[j] = mom*db[j] + lr*gb[j]
			m.HBias[j] += db[j]
		}
	}
	return m, base, m.Validate()
}

// mnistBenchDir is the MNIST directory of $LOGZ_MNIST_DIR (relative to the
// module root), or "" when unset.
func mnistBenchDir(b testing.TB) string {
	dir, err := testenv.MNISTDir()
	if err != nil {
		b.Fatal(err)
	}
	return dir
}
