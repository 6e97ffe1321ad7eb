package config

import (
	"strings"
	"testing"
)

// TestBinarizeWarnings: binarize: threshold on data that is 0/1 already
// and a binarize_seed that no method draws with are warned of when the
// config is read, on the line that sets them, once for a value of base:;
// settings that do something are not.
func TestBinarizeWarnings(t *testing.T) {
	const exp = "experiments:\n  - name: a\n    data:\n      train: %TRAIN%\n      test: %TEST%\n%MORE%"
	mk := func(train, test, more string) string {
		return strings.NewReplacer("%TRAIN%", train, "%TEST%", test, "%MORE%", more).Replace(exp)
	}
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"threshold on planted", mk("planted:train", "planted:test", "      binarize: threshold\n"), []string{
			`w.yaml:6: experiments[0].data.binarize: threshold has no effect: planted:train and planted:test are 0/1 data already`}},
		{"threshold on npy", mk("npy:a.npy", "npy:b.npy", "      binarize: threshold\n"), []string{
			`w.yaml:6: experiments[0].data.binarize: threshold has no effect: npy:a.npy and npy:b.npy are 0/1 data already`}},
		{"seed with threshold", mk("mnist:train", "mnist:test", "      binarize: threshold\n      binarize_seed: 7\n"), []string{
			`w.yaml:7: experiments[0].data.binarize_seed: 7 is not used: binarize_seed seeds the stochastic binarisation, and binarize is threshold`}},
		{"seed with none", mk("mnist:train", "mnist:test", "      binarize: none\n      binarize_seed: 7\n"), []string{
			`w.yaml:7: experiments[0].data.binarize_seed: 7 is not used: binarize_seed seeds the stochastic binarisation, and binarize is none`}},
		{"base, two experiments", "base:\n  data: {train: planted:train, test: planted:test, binarize: threshold}\nexperiments:\n  - name: a\n  - name: b\n", []string{
			`w.yaml:2: base.data.binarize: threshold has no effect`}},
		{"threshold on mnist", mk("mnist:train", "mnist:test", "      binarize: threshold\n"), nil},
		{"threshold on mnist train, npy test", mk("mnist:train", "npy:b.npy", "      binarize: threshold\n"), nil},
		{"seed with stochastic", mk("mnist:train", "mnist:test", "      binarize_seed: 7\n"), nil},
		{"planted, default binarize", mk("planted:train", "planted:test", ""), nil},
	}
	for _, c := range cases {
		f, err := Parse([]byte(c.yaml), "w.yaml", Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(f.Warnings) != len(c.want) {
			t.Errorf("%s: %d warnings, want %d: %q", c.name, len(f.Warnings), len(c.want), f.Warnings)
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(f.Warnings[i], w) {
				t.Errorf("%s: warning %q\nwant it to start %q", c.name, f.Warnings[i], w)
			}
		}
		// Its resolved config (binarize_seed written out) warns the same
		// way, and not of the derived seed.
		r, err := f.Resolved()
		if err != nil {
			t.Fatal(err)
		}
		g, err := Parse(r, "config.resolved.yaml", Options{})
		if err != nil {
			t.Fatalf("%s: resolved: %v", c.name, err)
		}
		if (len(g.Warnings) == 0) != (len(c.want) == 0) {
			t.Errorf("%s: the resolved config warns %q", c.name, g.Warnings)
		}
	}
}

// TestShippedConfigsWarnNothing: no shipped config sets a value that does
// nothing.
func TestShippedConfigsWarnNothing(t *testing.T) {
	for name, text := range shippedConfigs(t) {
		f, err := Parse([]byte(text), name, Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, w := range f.Warnings {
			t.Errorf("shipped config warns: %s", w)
		}
	}
}
