package config

import (
	"fmt"
	"strings"
	"testing"
)

// manyExperiments returns a config of n tiny planted experiments (the shape
// of a generated sweep).
func manyExperiments(n int) []byte {
	var b strings.Builder
	b.WriteString("name: big\nbase:\n  train: {epochs: 1}\nexperiments:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: e%d, data: {train: planted:train, test: planted:test}}\n", i)
	}
	return []byte(b.String())
}

// BenchmarkParseMany parses configs of 100 to 10,000 experiments: the time
// and allocations per experiment (ns/exp, allocs/exp) must stay flat as the
// count grows.
func BenchmarkParseMany(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			data := manyExperiments(n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(data, "big.yaml", Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/exp")
		})
	}
}

// BenchmarkResolvedMany writes the resolved config of 100 to 10,000
// experiments (what the runner saves before the first experiment).
func BenchmarkResolvedMany(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			f, err := Parse(manyExperiments(n), "big.yaml", Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.Resolved(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/exp")
		})
	}
}

// TestManyExperimentsAllocateLinearly checks that parsing and resolving a
// config allocate about as much per experiment for 500 experiments as for
// 50 (a per-experiment step that looked at every other experiment would
// make the larger file cost more per experiment). It counts allocations, not
// time, so a busy machine does not make it fail.
func TestManyExperimentsAllocateLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates ~150 MB")
	}
	per := func(n int, what string) float64 {
		data := manyExperiments(n)
		f, err := Parse(data, "big.yaml", Options{})
		if err != nil {
			t.Fatal(err)
		}
		var a float64
		switch what {
		case "parse":
			a = testing.AllocsPerRun(1, func() { Parse(data, "big.yaml", Options{}) })
		case "resolve":
			a = testing.AllocsPerRun(1, func() { f.Resolved() })
		}
		return a / float64(n)
	}
	for _, what := range []string{"parse", "resolve"} {
		small, large := per(50, what), per(500, what)
		t.Logf("%s: %.0f allocations per experiment at 50, %.0f at 500", what, small, large)
		if large > 1.2*small {
			t.Errorf("%s allocates %.0f per experiment for 500 experiments, %.0f for 50: not linear", what, large, small)
		}
	}
}

// TestProgress checks that Options.Progress hears of reading and resolving
// every progressEvery experiments and at the end.
func TestProgress(t *testing.T) {
	defer func(n int) { progressEvery = n }(progressEvery)
	progressEvery = 8
	var got []string
	opt := Options{Progress: func(stage string, done, total int) {
		got = append(got, fmt.Sprintf("%s %d/%d", stage, done, total))
	}}
	f, err := Parse(manyExperiments(21), "big.yaml", opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Resolved(); err != nil {
		t.Fatal(err)
	}
	want := "[reading 8/21 reading 16/21 reading 21/21 resolving 8/21 resolving 16/21 resolving 21/21]"
	if fmt.Sprint(got) != want {
		t.Errorf("progress %v, want %s", got, want)
	}
}
