// Command benchgibbs times one epoch of DSGHMC with the Gibbs sampler on a
// slice of stochastically binarised MNIST (SBN 784-200 by default: minibatch
// 100, 10 dynamics steps, 5 kept states, burn-in 5, 1 sweep between kept
// states — the defaults) and prints the seconds and a hash of the trained
// parameters, so that two builds can be timed side by side and shown to
// compute the same net.
//
//	go run ./scripts/benchgibbs --data DIR [--n 2000] [--skip 0] [--layers 200] [--ar] [--workers 0] [--epochs 1]
//	                            [--precision float32|float64] [--load FILE] [--save FILE] [--cpuprofile FILE]
//
// --skip starts the slice that many images in; --save writes the trained
// parameters (raw float64: every b_l, W_l, S_l) and --load starts from
// such a file instead of N(0, 0.01²) weights, so that a later phase of
// training (fewer latent units flip) can be timed with two builds.
// --precision is train.precision (empty: the trainer's default, float32);
// the two precisions draw different chains, so their hashes differ.
package main

import (
	"encoding/binary"
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
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/sbn"
)

func main() {
	dir := flag.String("data", "./data/mnist", "directory with the MNIST idx files")
	nEx := flag.Int("n", 2000, "training images")
	skip := flag.Int("skip", 0, "images skipped before the slice")
	load := flag.String("load", "", "start from the parameters in this file (written by --save)")
	save := flag.String("save", "", "write the trained parameters to this file")
	layers := flag.String("layers", "200", "latent layer sizes, e.g. 200-200")
	ar := flag.Bool("ar", false, "autoregressive SBN")
	workers := flag.Int("workers", 0, "goroutines (0: GOMAXPROCS)")
	epochs := flag.Int("epochs", 1, "epochs to time")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the timed epochs to this file")
	precision := flag.String("precision", "", "train.precision: float32 or float64 (empty: the default)")
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
	if err := run(*dir, *nEx, *skip, *layers, *ar, *workers, *epochs, *load, *save, *precision); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "benchgibbs:", err)
		os.Exit(1)
	}
}

func run(dir string, nEx, skip int, layers string, ar bool, workers, epochs int, load, save, precision string) error {
	g, err := data.ReadImages(filepath.Join(dir, "train-images-idx3-ubyte.gz"))
	if err != nil {
		return err
	}
	set, err := g.Binarize(data.Stochastic, 0, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		return err
	}
	if skip+nEx > set.Len() {
		return fmt.Errorf("--skip %d --n %d: the data has %d images", skip, nEx, set.Len())
	}
	idx := make([]int, nEx)
	for i := range idx {
		idx[i] = skip + i
	}
	set = set.Subset(idx)
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
	if load != "" {
		b, err := os.ReadFile(load)
		if err != nil {
			return err
		}
		if len(b) != 8*len(params(n)) {
			return fmt.Errorf("%s holds %d values, the net has %d", load, len(b)/8, len(params(n)))
		}
		for i, p := range params(n) {
			*p = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	}
	o := sbn.DefaultTrainOptions()
	o.Sampler, o.Workers, o.Epochs = "gibbs", workers, epochs
	if precision != "" {
		o.Precision = kernel.Precision(precision)
	}
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
	if save != "" {
		var b []byte
		for _, p := range params(n) {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(*p))
		}
		if err := os.WriteFile(save, b, 0o644); err != nil {
			return err
		}
	}
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
	fmt.Printf("%s precision=%s n=%d epochs=%d seconds=%.2f per-epoch-50k=%.0f signal=%.6f hash=%016x\n",
		n.Label(), o.Precision, set.Len(), epochs, sec, sec/float64(epochs)*50000/float64(set.Len()), sig, h.Sum64())
	return nil
}

// params lists pointers to every parameter of n: b_l, W_l, S_l by layer.
func params(n *sbn.Net) []*float64 {
	var ps []*float64
	add := func(xs []float64) {
		for i := range xs {
			ps = append(ps, &xs[i])
		}
	}
	for l := range n.B {
		add(n.B[l])
		if l > 0 {
			add(n.W[l])
		}
		if n.S != nil {
			add(n.S[l])
		}
	}
	return ps
}
