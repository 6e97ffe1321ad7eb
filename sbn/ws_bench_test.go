package sbn

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logz-ml/logz/internal/kernel"
)

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMinibatchBaselines times one minibatch of 100 MNIST-like rows
// (15% of the pixels on) for each baseline of Du, Zhu & Zhang's Table 3 as
// its configs/repro-dsghmc-table3-*.yaml runs it (one step per minibatch;
// rws 5 proposals in float32, wake-sleep and nvil one in float64), on SBN
// 200, 200-200 and 200-200-200, and reports beside the wall time the
// process's CPU time per minibatch (cpu-ms/op: with -cpu 1, the time on a
// free core even on a loaded machine; an epoch of 50,000 images is 500
// minibatches).
func BenchmarkMinibatchBaselines(b *testing.B) {
	data := mnistLike()
	idx := make([]int, 100)
	for i := range idx {
		idx[i] = i
	}
	for _, method := range []string{"rws", "wake-sleep", "nvil"} {
		for _, layers := range [][]int{{200}, {200, 200}, {200, 200, 200}} {
			sizes := append([]int{784}, layers...)
			name := fmt.Sprintf("%s/sbn%s", method, strings.Trim(strings.ReplaceAll(fmt.Sprint(layers), " ", "-"), "[]"))
			b.Run(name, func(b *testing.B) {
				n := New(sizes, false)
				InitNormal(n, 0.1, 1)
				o := DefaultTrainOptions()
				o.Method, o.Steps, o.Prior = method, 1, "none"
				o.LearningRate, o.RecLearningRate = 0.001, 0.001
				o.Samples, o.Precision = 1, kernel.Float64
				if method == "rws" {
					o.Samples, o.Precision = 5, kernel.Float32
				}
				tr, err := NewTrainer(n, 50000, o)
				if err != nil {
					b.Fatal(err)
				}
				tr.minibatch(data, idx, 1, 0) // setup
				b.ReportAllocs()
				c0 := cpuTime()
				b.ResetTimer()
				k := 0
				for ; b.Loop(); k++ {
					tr.minibatch(data, idx, 1, k+1)
				}
				b.ReportMetric(float64(cpuTime()-c0)/1e6/float64(k), "cpu-ms/op")
			})
		}
	}
}

// mnistLike is 100 rows of 784 units with 15% of them on (seed 1), like
// binarised MNIST's density.
func mnistLike() rows {
	rng := rand.New(rand.NewPCG(1, 1))
	data := make(rows, 100)
	for k := range data {
		data[k] = make([]uint8, 784)
		for i := range data[k] {
			if rng.Float64() < 0.15 {
				data[k][i] = 1
			}
		}
	}
	return data
}
