package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/familytest"
)

// checkRejected parses a config that must be rejected and checks that the
// error text holds every want and none of the absent.
func checkRejected(t *testing.T, yaml string, want, absent []string) {
	t.Helper()
	_, err := Parse([]byte(yaml), "bad.yaml", Options{})
	if err == nil {
		t.Fatalf("accepted:\n%s", yaml)
	}
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is %T, want ErrorList: %v", err, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error text lacks %q; got:\n%v", w, err)
		}
	}
	for _, a := range absent {
		if strings.Contains(err.Error(), a) {
			t.Errorf("error text holds %q; got:\n%v", a, err)
		}
	}
}

// exp is okExp with extra lines for its experiment.
func exp(lines ...string) string {
	return okExp + strings.Join(lines, "\n") + "\n"
}

// TestSizeLimits: every size-like key (counts of epochs, Gibbs steps,
// chains, layers, …) is bounded when the config is read, with an error
// naming the key, its line and the limit, as hidden and betas were; and so
// are the products that make one update or one estimate (k × batch_size,
// CSL's chains × steps, also when steps: 0 is matched to the list's ais).
func TestSizeLimits(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want []string
	}{
		{"k 1e9", exp("    train: {k: 1000000000}"), []string{
			`bad.yaml:4: experiments[0].train.k: expected at most 10000 (family.MaxK), got 1000000000`}},
		{"k written 1e9", exp("    train: {k: 1e9}"), []string{
			`bad.yaml:4: experiments[0].train.k: expected at most 10000 (family.MaxK), got 1000000000`}},
		{"k_end", exp("    train: {k_end: 20000}"), []string{
			`bad.yaml:4: experiments[0].train.k_end: expected at most 10000 (family.MaxK), got 20000`}},
		{"epochs", exp("    train: {epochs: 1000000000}"), []string{
			`bad.yaml:4: experiments[0].train.epochs: expected at most 100000 (family.MaxEpochs), got 1000000000`}},
		{"cd: k × batch_size", exp("    train: {k: 1000, batch_size: 5000}"), []string{
			`bad.yaml:4: experiments[0].train: k × batch_size = 1000 × 5000 = 5000000 Gibbs sweeps of examples per update is more than the limit of 250000 (family.MaxUpdateSweeps); lower k or batch_size`}},
		{"cd: k_end × batch_size", exp("    train:", "      batch_size: 1000", "      k_end: 2000"), []string{
			`bad.yaml:6: experiments[0].train: k_end × batch_size = 2000 × 1000 = 2000000 Gibbs sweeps`}},
		{"pcd: k × chains", exp("    train: {method: pcd, k: 500, chains: 5000}"), []string{
			`bad.yaml:4: experiments[0].train: k × chains = 500 × 5000 = 2500000 Gibbs sweeps of examples per update is more than the limit of 250000`}},
		{"dbm mean_field_iters and pretraining", exp("    model: {type: dbm, layers: [4, 3]}",
			"    train: {mean_field_iters: 1000000, pretrain: {epochs: 1000000000, k: 20000}}"), []string{
			`bad.yaml:5: experiments[0].train.mean_field_iters: expected at most 10000 (family.MaxK), got 1000000`,
			`bad.yaml:5: experiments[0].train.pretrain.epochs: expected at most 100000 (family.MaxEpochs), got 1000000000`,
			`bad.yaml:5: experiments[0].train.pretrain.k: expected at most 10000 (family.MaxK), got 20000`}},
		{"dbm pretrain.k × batch_size", exp("    model: {type: dbm, layers: [4, 3]}",
			"    train: {batch_size: 1000, pretrain: {epochs: 2, k: 5000}}"), []string{
			`bad.yaml:5: experiments[0].train: pretrain.k × batch_size = 5000 × 1000 = 5000000 Gibbs sweeps`}},
		{"vae prior pcd: k × chains", exp("    model: {type: vae, latent: 4, prior: rbm, prior_hidden: 3}", "    train: {prior_training: pcd, chains: 1000, k: 1000}"), []string{
			`bad.yaml:5: experiments[0].train: k × chains = 1000 × 1000 = 1000000 Gibbs sweeps of examples per update is more than the limit of 250000`}},
		{"sbn minibatch of draws", exp("    model: {type: sbn}", "    train: {batch_size: 1000, steps: 100, samples: 10}"), []string{
			`bad.yaml:5: experiments[0].train: batch_size × steps × samples = 1000 × 100 × 10 = 1000000 latent draws per minibatch is more than the limit of 250000 (family.MaxUpdateSweeps)`}},
		{"sbn minibatch of Gibbs sweeps", exp("    model: {type: sbn}", "    train: {sampler: gibbs, batch_size: 100, burn_in: 10000}"), []string{
			`bad.yaml:5: experiments[0].train: batch_size × (burn_in + steps × samples × gibbs_sweeps) = 100 × (10000 + 10 × 5 × 1) = 1005000 Gibbs sweeps per minibatch`}},
		{"ising pcd: sweeps × chains", exp("    model: {type: ising}", "    train: {chains: 100000, sweeps: 100}"), []string{
			`bad.yaml:5: experiments[0].train: sweeps × chains = 100 × 100000 = 10000000 Gibbs sweeps of examples per update is more than the limit of 250000`}},
		{"rbm chi2: q_steps × q_samples", exp("    train: {method: chi2, momentum: 0, final_momentum: 0, q_steps: 1000, q_samples: 1000}"), []string{
			`bad.yaml:4: experiments[0].train: q_steps × q_samples = 1000 × 1000 = 1000000 draws of q per update is more than the limit of 250000 (family.MaxUpdateSweeps); lower q_steps or q_samples`}},
		{"dbn layers", exp("    model: {type: dbn, layers: [" + strings.Repeat("2, ", 100) + "2]}"), []string{
			`bad.yaml:4: experiments[0].model.layers: expected at most 100 layer sizes (family.MaxLayers), got 101`}},
		{"vae hidden layers", exp("    model: {type: vae, latent: 4, hidden: [" + strings.Repeat("2, ", 100) + "2]}"), []string{
			`bad.yaml:4: experiments[0].model.hidden: expected at most 100 layer sizes (family.MaxLayers), got 101`}},
		{"sbn, vae and ising epochs", `experiments:
  - {name: s, data: {train: planted:train, test: planted:test}, model: {type: sbn}, train: {epochs: 1000000}}
  - {name: v, data: {train: planted:train, test: planted:test}, model: {type: vae}, train: {epochs: 1000000}}
  - {name: i, data: {train: planted:train, test: planted:test, planted: {model: ising}}, model: {type: ising}, train: {epochs: 1000000}}
`, []string{
			`bad.yaml:2: experiments[0].train.epochs: expected at most 100000 (family.MaxEpochs), got 1000000`,
			`bad.yaml:3: experiments[1].train.epochs: expected at most 100000 (family.MaxEpochs), got 1000000`,
			`bad.yaml:4: experiments[2].train.epochs: expected at most 100000 (family.MaxEpochs), got 1000000`}},
		{"csl burn_in", exp("    evaluate:", "      final: [{name: csl, burn_in: 1000000000}]"), []string{
			`bad.yaml:5: experiments[0].evaluate.final[0].burn_in: expected at most 16777216 (eval.MaxGibbsSteps), got 1000000000`}},
		{"csl steps 1e9", exp("    evaluate:", "      final: [{name: csl, steps: 1e9}]"), []string{
			`bad.yaml:5: experiments[0].evaluate.final[0].steps: expected at most 16777216 (eval.MaxGibbsSteps), got 1000000000`}},
		{"csl chains × steps", exp("    evaluate:", "      final:", "        - {name: csl, chains: 100000,", "           steps: 100000}"), []string{
			`bad.yaml:7: experiments[0].evaluate.final[0]: chains × steps = 100000 × 100000 = 10000000000 hidden states is more than the limit of 2147483647 (eval.MaxCSLStates)`}},
		{"csl chains × (burn_in + steps)", exp("    evaluate:", "      final: [{name: csl, chains: 1000, burn_in: 16000000, steps: 10}]"), []string{
			`bad.yaml:5: experiments[0].evaluate.final[0]: chains × (burn_in + steps) = 1000 × (16000000 + 10) = 16000010000 Gibbs sweeps is more than the limit of 10000000000 (family.MaxSweeps)`}},
		{"csl steps 0 matched to a large ais", exp("    evaluate:", "      final:", "        - {name: ais, runs: 100000, betas: 100000}", "        - csl"), []string{
			`bad.yaml:7: experiments[0].evaluate.final[1].steps: steps 0 matches the Gibbs budget of the list's raise or ais: 100000000 steps per chain; expected at most 16777216 steps per chain (eval.MaxGibbsSteps); set steps`}},
		{"chi2 steps", exp("    evaluate:", "      final: [{name: chi2, steps: 2000000000, fit_samples: 2}]"), []string{
			`bad.yaml:5: experiments[0].evaluate.final[0].steps: expected at most 1000000 (family.MaxChi2Steps), got 2000000000`}},
		{"sbn ais chains × betas", exp("    model: {type: sbn}", "    evaluate:", "      final: [{name: ais, chains: 100000, betas: 1000000}]"), []string{
			`bad.yaml:6: experiments[0].evaluate.final[0]: chains × betas = 100000 × 1000000 = 100000000000 Gibbs sweeps is more than the limit of 10000000000 (family.MaxSweeps)`}},
		{"sbn completion rows", exp("    model: {type: sbn}", "    evaluate:", "      final: [{name: completion, rows: 2000000000, cols: 1}]"), []string{
			`bad.yaml:6: experiments[0].evaluate.final[0].rows: expected an integer in [2, 1048576] (models.MaxUnits), got 2000000000`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRejected(t, c.yaml, c.want, nil) })
	}
	// A count above its own limit is reported once, at its key.
	_, err := Parse([]byte(exp("    evaluate:", "      final: [{name: csl, steps: 1e9}]")), "bad.yaml", Options{})
	if n := len(err.(ErrorList)); n != 1 {
		t.Errorf("csl steps: 1e9: %d errors, want 1:\n%v", n, err)
	}
	// The limits themselves are accepted.
	for _, ok := range []string{
		exp("    train: {k: 25, batch_size: 10000, epochs: 100000}"),
		exp("    train: {k: 2500, batch_size: 100}"),
		exp("    train: {k: 10000, batch_size: 25}"),
		exp("    evaluate:", "      final: [{name: csl, chains: 100, steps: 16777216}, {name: csl, chains: 127, steps: 10000000}]"),
		exp("    evaluate:", "      final: [{name: ais, runs: 1000, betas: 100000}, csl]"),
	} {
		if _, err := Parse([]byte(ok), "ok.yaml", Options{}); err != nil {
			t.Errorf("rejected:\n%s%v", ok, err)
		}
	}
}

// TestEveryCountBounded audits every integer setting of every family's
// model and train sections and of every estimator: set to 2·10⁹ (what a
// typo or 2e9 gives), each is reported at its key with an upper limit,
// under at least one of the family's training methods, unless a large
// value is harmless (listed with the reason). A new integer setting
// without a bound fails here.
func TestEveryCountBounded(t *testing.T) {
	harmless := map[string]string{
		"checkpoint_every":      "beyond the last epoch it means: only after the last epoch",
		"momentum_switch_epoch": "beyond the last epoch it means: never switch",
		"examples":              "0 or more than the split means the whole split",
		"batches":               "bounded by samples (samples ≥ batches is checked)",
		"ais.betas":             "a sandwich refuses any value (it sets the path of its ais and raise)",
		"raise.betas":           "a sandwich refuses any value (it sets the path of its ais and raise)",
	}
	// Keys used only with another setting (string fields set first).
	needs := map[string]map[string]string{"prior_hidden": {"Prior": "rbm"}}
	const huge = 2_000_000_000
	for _, f := range family.All() {
		sections := []struct {
			what string
			make func() family.Settings
		}{{"model", f.Model}, {"train", f.Train}}
		for _, e := range f.Estimators {
			sections = append(sections, struct {
				what string
				make func() family.Settings
			}{"estimator " + e.Name, e.New})
		}
		for _, sec := range sections {
			for _, key := range intKeys(reflect.TypeOf(sec.make()).Elem(), "") {
				_, ok := harmless[key.name]
				if _, nested := harmless[key.name[strings.LastIndex(key.name, ".")+1:]]; ok || nested {
					continue
				}
				what := fmt.Sprintf("%s %s %s", f.Name, sec.what, key.name)
				bounded := false
				var seen []string
				for _, method := range methodsOf(f, sec.what) {
					s := sec.make()
					rv := reflect.ValueOf(s).Elem()
					if m := rv.FieldByName("Method"); method != "" && m.IsValid() && m.Kind() == reflect.String {
						m.SetString(method)
					}
					for field, v := range needs[key.name] {
						rv.FieldByName(field).SetString(v)
					}
					fv := rv.FieldByIndex(key.index)
					rel := key.name
					if fv.Kind() == reflect.Slice {
						fv.Set(reflect.ValueOf([]int{huge}))
						rel += "[0]"
					} else {
						fv.SetInt(huge)
					}
					var p familytest.Problems
					s.Check(&p)
					for _, msg := range p {
						if strings.HasPrefix(msg, rel+": ") && (strings.Contains(msg, "at most") || strings.Contains(msg, "in [") || strings.Contains(msg, "≤")) {
							bounded = true
						}
					}
					seen = append(seen, p...)
				}
				if !bounded {
					t.Errorf("%s = %d is not reported with an upper limit (problems: %q)", what, huge, seen)
				}
			}
		}
	}
}

// methodsOf lists the training methods to try a train section under ("" =
// the section's default only).
func methodsOf(f *family.Family, what string) []string {
	out := []string{""}
	if what == "train" {
		for _, tr := range f.Trainers {
			out = append(out, tr.Method)
		}
	}
	return out
}

type intKey struct {
	name  string
	index []int
}

// intKeys lists the yaml keys of t's int and []int fields, through inline
// structs and into nested mappings (pretrain.k).
func intKeys(t reflect.Type, prefix string) []intKey {
	var out []intKey
	for i := range t.NumField() {
		sf := t.Field(i)
		key, opts, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		if opts == "inline" && sf.Type.Kind() == reflect.Struct {
			for _, k := range intKeys(sf.Type, prefix) {
				out = append(out, intKey{k.name, append([]int{i}, k.index...)})
			}
			continue
		}
		if key == "" || key == "-" || !sf.IsExported() {
			continue
		}
		switch {
		case sf.Type.Kind() == reflect.Int, sf.Type.Kind() == reflect.Slice && sf.Type.Elem().Kind() == reflect.Int:
			out = append(out, intKey{prefix + key, []int{i}})
		case sf.Type.Kind() == reflect.Struct:
			for _, k := range intKeys(sf.Type, prefix+key+".") {
				out = append(out, intKey{k.name, append([]int{i}, k.index...)})
			}
		}
	}
	return out
}

// TestPlantedLimits: settings of the planted data generator that would
// give a model out of range (hidden biases of −48,751, weights of −Inf)
// or too many values are refused when the config is read, naming the
// setting and the limit.
func TestPlantedLimits(t *testing.T) {
	planted := func(s string) string {
		return "experiments:\n  - name: a\n    data:\n      train: planted:train\n      test: planted:test\n      planted: {" + s + "}\n"
	}
	cases := []struct {
		name string
		yaml string
		want []string
	}{
		{"visible 100000", planted("visible: 100000"), []string{
			`bad.yaml:6: experiments[0].data.planted: settings of the planted data generator out of range: visible × weight_scale = 100000 × 0.5 = 50000 must be at most 1000 (data.MaxPlantedScaledUnits`,
			`lower visible or weight_scale`}},
		{"weight_scale 1e308", planted("weight_scale: 1e308"), []string{
			`bad.yaml:6: experiments[0].data.planted.weight_scale: expected a positive number at most 100 (data.MaxPlantedWeightScale), got 1e+308`}},
		{"weight_scale × visible", planted("visible: 40, hidden: 8, weight_scale: 50"), []string{
			`bad.yaml:6: experiments[0].data.planted: settings of the planted data generator out of range: visible × weight_scale = 40 × 50 = 2000 must be at most 1000`}},
		{"visible above the unit limit", planted("visible: 200000"), []string{
			`bad.yaml:6: experiments[0].data.planted.visible: expected an integer in [1, 100000] (data.MaxPlantedUnits), got 200000`}},
		{"hidden above the unit limit", planted("model: sbn, hidden: 2000000000"), []string{
			`bad.yaml:6: experiments[0].data.planted.hidden: expected an integer in [1, 100000] (data.MaxPlantedUnits), got 2000000000`}},
		{"split too large", planted("train: 1000000000"), []string{
			`bad.yaml:6: experiments[0].data.planted.train: expected at most 53687091 examples of 20 units (data.MaxElements = 1073741824 values per split), got 1000000000`}},
		{"ising grid", planted("model: ising, rows: 1000"), []string{
			`bad.yaml:6: experiments[0].data.planted.rows: expected an integer in [1, 300] (data.MaxPlantedGrid), got 1000`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRejected(t, c.yaml, c.want, nil) })
	}
	// sbn and ising have no visible × weight_scale limit (nothing sums over
	// the visible units), and the limits themselves are accepted.
	for _, ok := range []string{
		planted("model: sbn, visible: 1000, hidden: 8, weight_scale: 100"),
		planted("model: ising, rows: 30, cols: 30, weight_scale: 100"),
		planted("visible: 10, hidden: 8, weight_scale: 100"),
		planted("visible: 2000, hidden: 8, weight_scale: 0.5"),
	} {
		if _, err := Parse([]byte(ok), "ok.yaml", Options{}); err != nil {
			t.Errorf("rejected:\n%s%v", ok, err)
		}
	}
}

// TestQuotedScalars: a quoted true or number where a bool or a number is
// expected is a string in YAML; the error says so.
func TestQuotedScalars(t *testing.T) {
	cases := []struct {
		name         string
		yaml         string
		want, absent []string
	}{
		{"quoted bool", exp(`    train: {shuffle: "true"}`), []string{
			`bad.yaml:4: experiments[0].train.shuffle: expected true or false, got "true" (the quotes make it a string; write true without quotes)`}, nil},
		{"single-quoted bool", exp(`    train: {shuffle: 'false'}`), []string{
			`got "false" (the quotes make it a string; write false without quotes)`}, nil},
		{"quoted int", exp(`    train: {epochs: "3"}`), []string{
			`bad.yaml:4: experiments[0].train.epochs: expected a positive integer, got "3" (the quotes make it a string; write 3 without quotes)`}, nil},
		{"quoted float", exp(`    train: {learning_rate: "1e-3"}`), []string{
			`experiments[0].train.learning_rate: expected a positive number, got "1e-3" (the quotes make it a string; write 1e-3 without quotes)`}, nil},
		{"quoted seed", "seed: '7'\n" + okExp, []string{
			`bad.yaml:1: seed: expected a non-negative integer, got "7" (the quotes make it a string; write 7 without quotes)`}, nil},
		{"quoted estimator setting", exp(`    evaluate: {final: [{name: ais, runs: "100"}]}`), []string{
			`runs: expected an integer ≥ 2, got "100" (the quotes make it a string; write 100 without quotes)`}, nil},
		// No hint when the text without quotes would not do either.
		{"quoted fraction for an int", exp(`    train: {epochs: "2.5"}`), []string{
			`experiments[0].train.epochs: expected a positive integer, got "2.5"`}, []string{"quotes"}},
		{"quoted word for a bool", exp(`    train: {shuffle: "yes"}`), []string{
			`experiments[0].train.shuffle: expected true or false, got "yes"`}, []string{"quotes"}},
		{"plain word for a bool", exp(`    train: {shuffle: yes}`), []string{
			`experiments[0].train.shuffle: expected true or false, got "yes"`}, []string{"quotes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRejected(t, c.yaml, c.want, c.absent) })
	}
}

// TestLeadingZero: an integer written with a leading zero is refused,
// naming the line and the key and saying what to write: YAML 1.1 (as
// yaml.v3 reads it) takes epochs: 010 for octal 8 and 09 for 9. An
// explicit base (0o10, 0x8) and a plain 0 are read as written; a --set
// value is held to the same rule.
func TestLeadingZero(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want string
	}{
		{"octal-looking", exp(`    train: {epochs: 010}`),
			`bad.yaml:4: experiments[0].train.epochs: expected a positive integer, got 010 (leading zero, which YAML reads as octal: write 10, or 0o10 if you mean octal)`},
		{"negative", exp(`    reference: {test: -07}`),
			`bad.yaml:4: experiments[0].reference.test: expected a log-likelihood in nats (≤ 0), got -07 (leading zero, which YAML reads as octal: write -7, or -0o7 if you mean octal)`},
		{"with + and _", exp(`    train: {batch_size: +0_20}`),
			`bad.yaml:4: experiments[0].train.batch_size: expected a positive integer, got +0_20 (leading zero, which YAML reads as octal: write 20, or 0o20 if you mean octal)`},
		{"not octal (YAML reads 9)", exp(`    train: {epochs: 09}`),
			`bad.yaml:4: experiments[0].train.epochs: expected a positive integer, got 09 (leading zero: write 9)`},
		{"zeros", "seed: 00\n" + okExp,
			`bad.yaml:1: seed: expected a non-negative integer, got 00 (leading zero: write 0)`},
		{"in a list", exp(`    model: {type: vae, latent: 5, hidden: [100, 0200]}`),
			`bad.yaml:4: experiments[0].model.hidden[1]: expected an integer, got 0200 (leading zero`},
		{"in base", "base: {train: {epochs: 010}}\n" + okExp,
			`bad.yaml:1: base.train.epochs: expected a positive integer, got 010 (leading zero`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRejected(t, c.yaml, []string{c.want}, nil) })
	}
	for ok, want := range map[string]int{"0o10": 8, "0x8": 8, "10": 10, "1_000": 1000, "1e2": 100} {
		f, err := Parse([]byte(exp("    train: {epochs: "+ok+"}")), "ok.yaml", Options{})
		if err != nil {
			t.Errorf("epochs: %s rejected: %v", ok, err)
		} else if got := rbmTrain(t, f.Experiments[0]).Epochs; got != want {
			t.Errorf("epochs: %s read as %d, want %d", ok, got, want)
		}
	}
	if _, err := Parse([]byte(exp(`    train: {momentum: 0.5, k_end: 0}`)), "ok.yaml", Options{}); err != nil {
		t.Errorf("0.5 and 0 rejected: %v", err)
	}
	_, err := Parse([]byte(okExp), "x.yaml", Options{Set: overrides(t, "train.epochs=010")})
	if err == nil || !strings.Contains(err.Error(), "--set train.epochs=010: expected a positive integer, got 010 (leading zero") {
		t.Errorf("--set train.epochs=010: %v, want the leading zero refused", err)
	}
	// Quoted, it is text, with no hint to drop the quotes (010 would not do).
	checkRejected(t, exp(`    train: {epochs: "010"}`), []string{`got "010"`}, []string{"without quotes"})
}

// TestErrorsWhereWritten: a range error of a value base: set names the
// line and the path where it was written (base.train.learning_rate), as a
// type error does, once for all the experiments that inherit it; a value an
// experiment overrides, and a problem that depends on the experiment (an
// estimator against its model, values from both), name the experiment.
func TestErrorsWhereWritten(t *testing.T) {
	two := "  - name: b\n    data: {train: planted:train, test: planted:test}\n"
	cases := []struct {
		name         string
		yaml         string
		want, absent []string
	}{
		{"range error in base", "base:\n  train:\n    learning_rate: -1\n    epochs: x\n" + okExp + two, []string{
			`bad.yaml:3: base.train.learning_rate: expected a positive number, got -1`,
			`bad.yaml:4: base.train.epochs: expected a positive integer, got "x"`}, []string{
			`experiments[0].train.learning_rate`, `experiments[1].train.learning_rate`}},
		{"size limit in base", "base:\n  train: {k: 1000000000}\n" + okExp, []string{
			`bad.yaml:2: base.train.k: expected at most 10000 (family.MaxK), got 1000000000`}, nil},
		{"estimator in base", "base:\n  evaluate:\n    final: [{name: csl, burn_in: 1000000000}]\n" + okExp, []string{
			`bad.yaml:3: base.evaluate.final[0].burn_in: expected at most 16777216`}, nil},
		{"planted in base", "base:\n  data:\n    planted: {weight_scale: 1e308}\n" + okExp, []string{
			`bad.yaml:3: base.data.planted.weight_scale: expected a positive number at most 100`}, nil},
		{"cross-field in base", "base:\n  train: {k: 5, k_end: 2}\n" + okExp, []string{
			`bad.yaml:2: base.train: k_end must be 0 (constant k) or ≥ k (5), got 2`}, nil},
		{"overridden in the experiment", "base:\n  train: {learning_rate: 0.1}\n" + okExp + "    train: {learning_rate: -2}\n", []string{
			`bad.yaml:6: experiments[0].train.learning_rate: expected a positive number, got -2`}, []string{`base.train.learning_rate`}},
		{"values from base and the experiment", "base:\n  train: {k_end: 2}\n" + okExp + "    train: {k: 5}\n", []string{
			`bad.yaml:2: experiments[0].train: k_end must be 0 (constant k) or ≥ k (5), got 2`}, nil},
		{"estimator of base against the experiment's model", "base:\n  evaluate: {final: [exact]}\nexperiments:\n  - name: a\n    model: {hidden: 30}\n" +
			"    data: {train: planted:train, test: planted:test, planted: {visible: 30}}\n", []string{
			`bad.yaml:2: experiments[0].evaluate.final[0]: exact enumeration needs min(visible, hidden) ≤ max_units (25)`}, []string{`base.evaluate`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRejected(t, c.yaml, c.want, c.absent) })
	}
	// Inherited by two experiments, the problem is reported once.
	_, err := Parse([]byte("base:\n  train: {learning_rate: -1}\n"+okExp+two), "bad.yaml", Options{})
	if n := strings.Count(fmt.Sprint(err), "learning_rate"); n != 1 {
		t.Errorf("learning_rate reported %d times, want once:\n%v", n, err)
	}
}

// TestEveryBatchWarned: the train settings of every family with a
// batch_size warn, through family.TrainWarnings, of a minibatch larger
// than the training set (one update per epoch), and only then.
func TestEveryBatchWarned(t *testing.T) {
	for _, f := range family.All() {
		s := f.Train()
		fs := fieldsOf(reflect.TypeOf(s).Elem())
		b, ok := fs.byKey["batch_size"]
		if !ok {
			continue
		}
		reflect.ValueOf(s).Elem().FieldByIndex(b.index).SetInt(500)
		want := "train.batch_size 500 is larger than the training set (300 examples): every epoch is a single update on all 300"
		if w := family.TrainWarnings(s, 300); len(w) != 1 || !strings.Contains(w[0], want) {
			t.Errorf("%s: batch_size 500 on 300 examples: warnings %q, want %q", f.Name, w, want)
		}
		if w := family.TrainWarnings(s, 500); len(w) != 0 {
			t.Errorf("%s: batch_size 500 on 500 examples: warnings %q, want none", f.Name, w)
		}
	}
}
