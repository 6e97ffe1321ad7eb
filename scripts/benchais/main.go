// Command benchais times logz's AIS on a 784×500 RBM trained on binarised
// MNIST, for scripts/bench-ais.sh: it trains the model (PCD-1, float32,
// --epochs epochs, minibatch 100, fixed seed), writes it for the peers
// (--out: W.bin, vbias.bin, hbias.bin, base.bin, float64 little-endian,
// W row-major 784×500), and runs 100 runs × 1,000 β (linear schedule, the
// data base-rate start) in the precision an ais without precision gets
// (logz_ais_default, which names it), then in float32 and in float64.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/rbm"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/train"
)

type sched struct{ lr float64 }

func (s sched) KAt(int) int                { return 1 }
func (s sched) LearningRateAt(int) float64 { return s.lr }
func (s sched) MomentumAt(int) float64     { return 0.5 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchais:", err)
	os.Exit(1)
}

func main() {
	dir := flag.String("data", "./data/mnist", "directory with the MNIST idx files")
	out := flag.String("out", "", "directory for the model files of the peers (required)")
	epochs := flag.Int("epochs", 2, "PCD-1 training epochs of the model")
	runs := flag.Int("runs", 100, "AIS runs")
	betas := flag.Int("betas", 1000, "inverse temperatures (linear schedule)")
	flag.Parse()
	if *out == "" {
		fail(fmt.Errorf("--out is required"))
	}
	g, err := data.ReadImages(filepath.Join(*dir, "train-images-idx3-ubyte.gz"))
	if err != nil {
		fail(err)
	}
	set, err := g.Binarize(data.Threshold, 0.5, nil)
	if err != nil {
		fail(err)
	}
	m := models.NewRBM(set.D, 500)
	base := data.LogOdds(set, 0.05)
	tr, err := train.NewRBMTrainer(m, train.RBMOptions{Persistent: true, BatchSize: 100, Shuffle: true, Schedule: sched{0.05}, Precision: kernel.Float32}, 1)
	if err != nil {
		fail(err)
	}
	tr.InitParams(0.01, base)
	for range *epochs {
		if _, err := tr.TrainEpoch(set); err != nil {
			fail(err)
		}
	}
	for name, xs := range map[string][]float64{"W": m.W, "vbias": m.VBias, "hbias": m.HBias, "base": base} {
		f, err := os.Create(filepath.Join(*out, name+".bin"))
		if err != nil {
			fail(err)
		}
		if err := binary.Write(f, binary.LittleEndian, xs); err != nil {
			fail(err)
		}
		if err := f.Close(); err != nil {
			fail(err)
		}
	}
	def := rbm.AIS.New().(*rbm.AISSettings).PrecisionInUse()
	for _, c := range []struct {
		name string
		prec kernel.Precision
	}{{"default", def}, {"f32", kernel.Float32}, {"f64", kernel.Float64}} {
		t0 := time.Now()
		r, err := eval.AIS{Runs: *runs, Betas: inference.LinearSchedule(*betas - 1), BaseVBias: base, Seed: 1, Precision: c.prec}.LogZ(m)
		if err != nil {
			fail(err)
		}
		fmt.Printf("logz_ais_%s %.3f logZ %.3f se %.3f", c.name, time.Since(t0).Seconds(), r.LogZ, r.LogZHi1-r.LogZ)
		if c.name == "default" {
			fmt.Printf(" (%s)", r.Precision)
		}
		fmt.Println()
	}
}
