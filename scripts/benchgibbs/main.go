// Command benchgibbs times one epoch of DSGHMC with the Gibbs sampler on a
// slice of stochastically binarised MNIST (SBN 784-200 by default: minibatch
// 100, 10 dynamics steps, 5 kept states, burn-in 5, 1 sweep between kept
// states — the defaults) and prints the seconds and a hash of the trained
// parameters, so that two builds can be timed side by side and shown to
// compute the same net.
//
//	go run ./scripts/benchgibbs --data DIR [--n 2000] [--layers 200] [--ar] [--workers 0] [--epochs 1] [--cpuprofile FILE]
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/sbn"
)

func main() {
	dir := flag.String("data", "./data/mnist", "directory with the MNIST idx files")
	nEx := flag.Int("n", 2000, "training images (the first n)")
	layers := flag.String("layers", "200", "latent layer sizes, e.g. 200-200")
	ar := flag.Bool("ar", false, "autoregressive SBN")
	workers := flag.Int("workers", 0, "goroutines (0: GOMAXPROCS)")
	epochs := flag.Int("epochs", 1, "epochs to time")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the timed epochs to this file")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchgibbs:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*dir, *nEx, *layers, *ar, *workers, *epochs); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "benchgibbs:", err)
		os.Exit(1)
	}
}

func run(dir string, nEx int, layers string, ar bool, workers, epochs int) error {
	g, err := data.ReadImages(filepath.Join(dir, "train-images-idx3-ubyte.gz"))
	if err != nil {
		return err
	}
	set, err := g.Binarize(data.Stochastic, 0, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		return err
	}
	set = set.Limit(nEx)
	sizes := []int{set.D}
	for _, s := range strings.Split(layers, "-") {
		k, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("--layers %q: %v", layers, err)
		}
		sizes = append(sizes, k)
	}
	n := sbn.New(sizes, ar)
	sbn.InitNormal(n, 0.01, 1)
	o := sbn.DefaultTrainOptions()
	o.Sampler, o.Workers, o.Epochs = "gibbs", workers, epochs
	tr, err := sbn.NewTrainer(n, set.Len(), o)
	if err != nil {
		return err
	}
	t0 := time.Now()
	var sig float64
	for range epochs {
		st, err := tr.TrainEpoch(set)
		if err != nil {
			return err
		}
		sig = st.ReconError
	}
	sec := time.Since(t0).Seconds()
	h := fnv.New64a()
	for l := range n.B {
		put := func(xs []float64) {
			for _, x := range xs {
				b := math.Float64bits(x)
				h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(b >> 32), byte(b >> 40), byte(b >> 48), byte(b >> 56)})
			}
		}
		put(n.B[l])
		if l > 0 {
			put(n.W[l])
		}
		if n.S != nil {
			put(n.S[l])
		}
	}
	fmt.Printf("%s n=%d epochs=%d seconds=%.2f per-epoch-50k=%.0f signal=%.6f hash=%016x\n",
		n.Label(), set.Len(), epochs, sec, sec/float64(epochs)*50000/float64(set.Len()), sig, h.Sum64())
	return nil
}
