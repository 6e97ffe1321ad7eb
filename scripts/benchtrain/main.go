// Command benchtrain times one logz RBM training epoch (PCD-1 and CD-1,
// 784×500, minibatch 100) on binarised MNIST, for scripts/bench-train.sh:
// in the precision a config without train.precision gets (the default),
// then in float32 and in float64, interleaved per method.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/family/rbm"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/train"
)

type sched struct{ lr float64 }

func (s sched) KAt(int) int                { return 1 }
func (s sched) LearningRateAt(int) float64 { return s.lr }
func (s sched) MomentumAt(int) float64     { return 0 }

func main() {
	dir := flag.String("data", "./data/mnist", "directory with the MNIST idx files")
	lr := flag.Float64("lr", 0.05, "learning rate")
	flag.Parse()
	g, err := data.ReadImages(filepath.Join(*dir, "train-images-idx3-ubyte.gz"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	set, err := g.Binarize(data.Threshold, 0.5, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, pcd := range []bool{true, false} {
		name := "cd1"
		if pcd {
			name = "pcd1"
		}
		def, err := defaultFloat32(name[:len(name)-1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, c := range []struct {
			prec string
			f32  bool
		}{{"default", def}, {"f32", true}, {"f64", false}} {
			m := models.NewRBM(set.D, 500)
			tr, err := train.NewRBMTrainer(m, train.RBMOptions{Persistent: pcd, BatchSize: 100, Shuffle: true, Schedule: sched{*lr}, Precision: map[bool]kernel.Precision{true: kernel.Float32, false: kernel.Float64}[c.f32]}, 1)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			tr.InitParams(0.01, nil)
			t0 := time.Now()
			st, err := tr.TrainEpoch(set)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			recon := "recon"
			if s := st.Signal; s != "" {
				recon = s
			}
			fmt.Printf("logz_%s_%s %.3f %s %.2f", name, c.prec, time.Since(t0).Seconds(), recon, st.ReconError)
			if c.prec == "default" {
				fmt.Printf(" (%s)", map[bool]string{true: "float32", false: "float64"}[c.f32])
			}
			fmt.Println()
		}
	}
}

// defaultFloat32 reports whether an rbm config with this method and no
// train.precision trains in float32, as `logz run` resolves it.
func defaultFloat32(method string) (bool, error) {
	src := "name: bench\nexperiments:\n  - name: a\n    data: {train: planted:train, test: planted:test}\n    train: {method: " + method + "}\n"
	f, err := config.Parse([]byte(src), "bench.yaml", config.Options{})
	if err != nil {
		return false, err
	}
	t, ok := f.Experiments[0].Train.(*rbm.Train)
	if !ok {
		return false, fmt.Errorf("benchtrain: train settings %T, want *rbm.Train", f.Experiments[0].Train)
	}
	return rbm.Options(&t.Layer, 0).Precision == kernel.Float32, nil
}
