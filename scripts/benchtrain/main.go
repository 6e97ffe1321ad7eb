// Command benchtrain times one logz RBM training epoch (PCD-1 and CD-1,
// 784×500, minibatch 100, in float32 and float64) on binarised MNIST, for
// scripts/bench-train.sh.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/logz-ml/logz/data"
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
	for _, f32 := range []bool{true, false} {
		for _, pcd := range []bool{true, false} {
			m := models.NewRBM(set.D, 500)
			tr, err := train.NewRBMTrainer(m, train.RBMOptions{Persistent: pcd, BatchSize: 100, Shuffle: true, Schedule: sched{*lr}, Float32: f32}, 1)
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
			name := "cd1"
			if pcd {
				name = "pcd1"
			}
			prec := "f64"
			if f32 {
				prec = "f32"
			}
			recon := "recon"
			if s := st.Signal; s != "" {
				recon = s
			}
			fmt.Printf("logz_%s_%s %.3f %s %.2f\n", name, prec, time.Since(t0).Seconds(), recon, st.ReconError)
		}
	}
}
