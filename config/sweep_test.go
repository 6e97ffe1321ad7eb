package config

import (
	"strings"
	"testing"
)

// TestSweep: a sweep: key names a numeric setting; every experiment's
// value reaches SweepOf through the resolved config (what the runner and
// `logz plot` read), and a path that is missing or not a number is an
// error naming the sweep key's line.
func TestSweep(t *testing.T) {
	src := `sweep: %s
base:
  data: {train: planted:train, test: planted:test, planted: {model: ising-ferro, rows: 2, cols: 3}}
  model: {type: ising, rows: 2, cols: 3}
experiments:
  - {name: a, data: {planted: {weight_scale: 0.25}}}
  - {name: b, data: {planted: {weight_scale: 1.5}}, train: {learning_rate: 0.2}}
`
	f, err := Parse([]byte(strings.Replace(src, "%s", "data.planted.weight_scale", 1)), "sweep.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	setting, xs, err := SweepOf(res)
	if err != nil || setting != "data.planted.weight_scale" || len(xs) != 2 || xs["a"] != 0.25 || xs["b"] != 1.5 {
		t.Errorf("SweepOf: %q %v %v", setting, xs, err)
	}
	if lr, err := SweepValue(f.Experiments[1], "train.learning_rate"); err != nil || lr != 0.2 {
		t.Errorf("train.learning_rate of b: %v %v", lr, err)
	}
	for _, bad := range []string{"data.planted.weightscale", "data.planted", "model.spins"} {
		_, err := Parse([]byte(strings.Replace(src, "%s", bad, 1)), "sweep.yaml", Options{})
		if err == nil || !strings.Contains(err.Error(), "sweep.yaml:1: sweep:") {
			t.Errorf("sweep %s: error %v", bad, err)
		}
	}
	// A file without sweep: sweeps nothing.
	f.Sweep = ""
	res, _ = f.Resolved()
	if setting, xs, err := SweepOf(res); setting != "" || xs != nil || err != nil {
		t.Errorf("no sweep: %q %v %v", setting, xs, err)
	}
}
