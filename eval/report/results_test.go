package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
)

func TestF(t *testing.T) {
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if F(x) != nil {
			t.Errorf("F(%v) = %v, want nil", x, *F(x))
		}
	}
	for _, x := range []float64{0, -151.57, 1e300, math.SmallestNonzeroFloat64} {
		if got := F(x); got == nil || *got != x {
			t.Errorf("F(%v) = %v, want a pointer to it", x, got)
		}
	}
	// Each call returns its own pointer.
	a, b := F(1), F(1)
	*a = 2
	if *b != 1 {
		t.Error("F returned a shared pointer")
	}
}

func TestBand(t *testing.T) {
	near := func(got *float64, want float64) bool {
		return got != nil && math.Abs(*got-want) <= 1e-12*math.Max(1, math.Abs(want))
	}
	// Ẑ = 10, σ̂ = 1: log 7 and log 13 for k = 3.
	lo, hi := Band(math.Log(10), 0, 3)
	if !near(lo, math.Log(7)) || !near(hi, math.Log(13)) {
		t.Errorf("Band(log 10, log 1, 3) = %v, %v; want log 7, log 13", deref(lo), deref(hi))
	}
	// Ẑ = 2, σ̂ = 1, k = 3: Ẑ−3σ̂ < 0, lower end undefined.
	lo, hi = Band(math.Log(2), 0, 3)
	if lo != nil || !near(hi, math.Log(5)) {
		t.Errorf("Band(log 2, log 1, 3) = %v, %v; want nil, log 5", deref(lo), deref(hi))
	}
	// Ẑ − kσ̂ = 0 exactly: log 0 = −Inf, undefined.
	lo, _ = Band(math.Log(3), 0, 3)
	if lo != nil {
		t.Errorf("Band(log 3, log 1, 3) lower = %v, want nil", *lo)
	}
	// Zero standard error: the band collapses onto log Ẑ.
	lo, hi = Band(255.41, math.Inf(-1), 3)
	if !near(lo, 255.41) || !near(hi, 255.41) {
		t.Errorf("zero σ̂: %v, %v", deref(lo), deref(hi))
	}
	// Huge values stay in log space: Ẑ = e^1000, σ̂ = e^998.
	lo, hi = Band(1000, 998, 3)
	if !near(lo, 1000+math.Log1p(-3*math.Exp(-2))) || !near(hi, 1000+math.Log1p(3*math.Exp(-2))) {
		t.Errorf("Band(1000, 998, 3) = %v, %v", deref(lo), deref(hi))
	}
	for _, c := range [][3]float64{{math.NaN(), 0, 3}, {math.Inf(1), 0, 3}, {1, math.NaN(), 3}, {1, math.Inf(1), 3}, {1, 0, 0}, {1, 0, -1}} {
		if lo, hi := Band(c[0], c[1], c[2]); lo != nil || hi != nil {
			t.Errorf("Band%v = %v, %v; want nil, nil", c, deref(lo), deref(hi))
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestSetLogZ(t *testing.T) {
	// Weights 1, 2, 3, 4: mean 2.5, sample variance 5/3, σ̂ = sqrt(5/3/4),
	// ESS = (Σw)²/Σw² = 100/30.
	w := []float64{1, 2, 3, 4}
	logw := make([]float64, len(w))
	for i, x := range w {
		logw[i] = math.Log(x)
	}
	var r Row
	r.SetLogZ(nmath.Summarise(logw))
	se := math.Sqrt(5.0 / 3.0 / 4.0)
	want := map[string]float64{
		"log_z": math.Log(2.5), "log_z_lo": math.Log(2.5 - 3*se), "log_z_hi": math.Log(2.5 + 3*se),
		"log_z_lo1": math.Log(2.5 - se), "log_z_hi1": math.Log(2.5 + se), "ess": 100.0 / 30.0,
	}
	for _, f := range r.floatFields() {
		wv, ok := want[f.name]
		if !ok {
			continue
		}
		if f.p == nil || math.Abs(*f.p-wv) > 1e-12 {
			t.Errorf("%s = %v, want %v", f.name, deref(f.p), wv)
		}
	}
	// One weight: σ̂ cannot be estimated... Summarise gives log σ̂ = −Inf, the
	// band collapses; all fields stay finite.
	r = Row{}
	r.SetLogZ(nmath.Summarise([]float64{7}))
	if r.LogZ == nil || *r.LogZ != 7 || r.LogZLo == nil || *r.LogZLo != 7 {
		t.Errorf("single weight: log_z %v, log_z_lo %v", deref(r.LogZ), deref(r.LogZLo))
	}
	// No weights: everything null, nothing NaN.
	r = Row{Experiment: "e", Stage: StageFinal, Estimator: "ais"}
	r.SetLogZ(nmath.Summarise(nil))
	if r.LogZ != nil || r.LogZLo != nil || r.LogZHi != nil {
		t.Error("no weights: log Z fields not null")
	}
	if err := r.Validate(); err != nil {
		t.Errorf("row from empty weights does not validate: %v", err)
	}
}

func TestResultsRoundTrip(t *testing.T) {
	rows := fixtureRows()
	path := filepath.Join(t.TempDir(), "results.json")
	if err := WriteResults(path, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	want := fixtureRows()
	for i := range want {
		if want[i].Warnings == nil {
			want[i].Warnings = []string{} // null never comes back: [] does
		}
	}
	if !reflect.DeepEqual(got, want) {
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("row %d differs after the round trip:\n got %+v\nwant %+v", i, got[i], want[i])
			}
		}
		t.Fatalf("round trip: %d rows, want %d", len(got), len(want))
	}
	// Writing what was read gives the same bytes.
	first, _ := os.ReadFile(path)
	var again bytes.Buffer
	if err := EncodeResults(&again, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again.Bytes()) {
		t.Error("re-encoding the rows read back changes the file")
	}
}

func TestResultsJSONShape(t *testing.T) {
	rows := []Row{{Experiment: "cd1-25", Stage: StageFinal, Epoch: 3, Estimator: "exact", Split: "", LogZ: F(255.41),
		NExamples: 0, Seconds: 1.25}}
	var buf bytes.Buffer
	if err := EncodeResults(&buf, rows); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, buf.Bytes())
	}
	if doc["version"] != 1.0 {
		t.Errorf("version = %v, want 1", doc["version"])
	}
	est := doc["estimates"].([]any)[0].(map[string]any)
	// Contract fields are always present, null where missing.
	for _, k := range []string{"experiment", "stage", "epoch", "estimator", "split", "log_z", "log_z_lo", "log_z_hi",
		"mean_loglik", "loglik_lo", "loglik_hi", "n_examples", "seconds", "warnings"} {
		if _, ok := est[k]; !ok {
			t.Errorf("field %q missing from %s", k, buf.Bytes())
		}
	}
	for _, k := range []string{"log_z_lo", "log_z_hi", "mean_loglik", "loglik_lo", "loglik_hi"} {
		if est[k] != nil {
			t.Errorf("%s = %v, want null", k, est[k])
		}
	}
	if w, ok := est["warnings"].([]any); !ok || len(w) != 0 {
		t.Errorf("warnings = %#v, want []", est["warnings"])
	}
	// Optional extras are left out when unset.
	for _, k := range []string{"model", "log_z_lo1", "log_z_hi1", "loglik_se", "value", "exact_log_z", "runs", "betas", "init", "ess"} {
		if _, ok := est[k]; ok {
			t.Errorf("unset optional field %q present", k)
		}
	}
	if !strings.Contains(buf.String(), "\n  \"estimates\": [\n    {\n      \"experiment\": \"cd1-25\",") {
		t.Errorf("output not indented by two spaces:\n%s", buf.String())
	}
	if !strings.HasSuffix(buf.String(), "}\n") {
		t.Error("output does not end in a newline")
	}
	// No rows: an empty list, not null.
	buf.Reset()
	if err := EncodeResults(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "{\n  \"version\": 1,\n  \"estimates\": []\n}\n" {
		t.Errorf("empty results = %q", got)
	}
	// A Row marshalled on its own also writes [] for nil warnings.
	b, err := json.Marshal(Row{Experiment: "e", Stage: StageEpoch, Estimator: "pll", Value: F(-1)})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"warnings":[]`)) {
		t.Errorf("json.Marshal(Row) = %s", b)
	}
	// EncodeResults keeps characters such as < and & readable.
	buf.Reset()
	if err := EncodeResults(&buf, []Row{{Experiment: "a<b&c", Stage: StageEpoch, Estimator: "pll"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"a<b&c"`) {
		t.Errorf("HTML-escaped output:\n%s", buf.String())
	}
}

func TestNonFiniteRefused(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	good := Row{Experiment: "e", Stage: StageFinal, Estimator: "ais", Split: "test"}
	cases := []struct {
		mutate func(*Row)
		field  string
	}{
		{func(r *Row) { r.LogZ = &nan }, "log_z"},
		{func(r *Row) { r.LogZLo = &inf }, "log_z_lo"},
		{func(r *Row) { x := math.Inf(-1); r.LogZHi1 = &x }, "log_z_hi1"},
		{func(r *Row) { r.MeanLoglik = &nan }, "mean_loglik"},
		{func(r *Row) { r.LoglikSE = &inf }, "loglik_se"},
		{func(r *Row) { r.Value = &nan }, "value"},
		{func(r *Row) { r.ExactLogZ = &nan }, "exact_log_z"},
		{func(r *Row) { r.ESS = &nan }, "ess"},
		{func(r *Row) { r.Seconds = nan }, "seconds"},
		{func(r *Row) { r.Seconds = inf }, "seconds"},
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	old := []byte(`{"version":1,"estimates":[]}`)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		bad := good
		c.mutate(&bad)
		rows := []Row{good, bad}
		var buf bytes.Buffer
		err := EncodeResults(&buf, rows)
		if err == nil || !strings.Contains(err.Error(), "field "+c.field+" ") || !strings.Contains(err.Error(), "row 1 ") {
			t.Errorf("%s: EncodeResults error %v, want one naming row 1 and the field", c.field, err)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: EncodeResults wrote %d bytes before failing", c.field, buf.Len())
		}
		if _, err := json.Marshal(bad); err == nil {
			t.Errorf("%s: json.Marshal(Row) accepted a non-finite number", c.field)
		}
		if err := WriteResults(path, rows); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: WriteResults error %v, want one naming the file", c.field, err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
			t.Fatalf("%s: refused write changed the file to %s", c.field, got)
		}
		for _, f := range []func(io.Writer, []Row) error{
			WriteEpochsCSV,
			func(w io.Writer, r []Row) error { return RenderTable(w, r, TableOptions{}) },
			func(w io.Writer, r []Row) error { return WriteMarkdown(w, "t", nil, r) },
		} {
			bad.Stage = StageEpoch // also reach the epochs.csv writer
			buf.Reset()
			if err := f(&buf, []Row{good, bad}); err == nil || buf.Len() != 0 {
				t.Errorf("%s: a renderer accepted a non-finite number (err %v, %d bytes)", c.field, err, buf.Len())
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %d entries", len(entries))
	}
}

func TestValidate(t *testing.T) {
	good := Row{Experiment: "e", Stage: StageEpoch, Estimator: "ais"}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mutate func(*Row)
		want   string
	}{
		{func(r *Row) { r.Experiment = "" }, "experiment is empty"},
		{func(r *Row) { r.Stage = "" }, `stage is ""`},
		{func(r *Row) { r.Stage = "Final" }, `stage is "Final"`},
		{func(r *Row) { r.Estimator = "" }, "estimator is empty"},
		{func(r *Row) { r.Epoch = -1 }, "epoch is -1"},
		{func(r *Row) { r.NExamples = -2 }, "n_examples is -2"},
		{func(r *Row) { r.Runs = -1 }, "runs is -1"},
		{func(r *Row) { r.Betas = -1 }, "betas is -1"},
		{func(r *Row) { r.Seconds = -0.5 }, "seconds is -0.5"},
	} {
		r := good
		c.mutate(&r)
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate() = %v, want %q", err, c.want)
		}
	}
}

func TestReadResultsErrors(t *testing.T) {
	row := `{"experiment":"e","stage":"final","epoch":0,"estimator":"exact","split":"","log_z":1,"log_z_lo":null,"log_z_hi":null,"mean_loglik":null,"loglik_lo":null,"loglik_hi":null,"n_examples":0,"seconds":0,"warnings":[]}`
	cases := []struct{ name, data, want string }{
		{"empty", "", "empty file"},
		{"truncated", `{"version":1,"estimates":[` + row, "truncated"},
		{"syntax", "{\n  \"version\": 1,\n  \"estimates\": [,]\n}", "line 3, column"},
		{"nan literal", `{"version":1,"estimates":[{"experiment":"e","log_z":NaN}]}`, "invalid JSON"},
		{"type", "{\"version\":1,\n\"estimates\":[{\"experiment\":\"e\",\"epoch\":\"3\"}]}", "line 2"},
		{"type field", `{"version":1,"estimates":[{"experiment":"e","epoch":"3"}]}`, "epoch"},
		{"unknown field", `{"version":1,"estimates":[],"extra":1}`, `unknown field "extra"`},
		{"unknown row field", `{"version":1,"estimates":[{"experiment":"e","logz":1}]}`, `unknown field "logz"`},
		{"no version", `{"estimates":[]}`, `missing field "version"`},
		{"version 2", `{"version":2,"estimates":[]}`, "version 2"},
		{"no estimates", `{"version":1}`, `missing field "estimates"`},
		{"null estimates", `{"version":1,"estimates":null}`, `missing field "estimates"`},
		{"bad stage", `{"version":1,"estimates":[{"experiment":"e","stage":"middle","estimator":"ais"}]}`, `estimates[0]: field stage is "middle"`},
		{"no experiment", `{"version":1,"estimates":[` + row + `,{"stage":"final","estimator":"ais"}]}`, "estimates[1]: field experiment is empty"},
		{"trailing", `{"version":1,"estimates":[]} {}`, "unexpected data after"},
		{"not an object", `[1,2]`, "want struct"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadResults(path)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want the file name and %q", c.name, err, c.want)
		}
	}
	if _, err := ReadResults(filepath.Join(dir, "missing.json")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	// A minimal valid file with null warnings reads back with [].
	rows, err := DecodeResults(strings.NewReader(`{"version":1,"estimates":[{"experiment":"e","stage":"epoch","epoch":2,"estimator":"pll","split":"train","value":-90.5,"warnings":null}]}`), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Warnings == nil || rows[0].Value == nil || *rows[0].Value != -90.5 || rows[0].LogZ != nil {
		t.Errorf("decoded %+v", rows)
	}
}

func TestWriteFileAtomicKeepsOldOnFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.md")
	if err := os.WriteFile(path, []byte("old report"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFileAtomic(path, func(w io.Writer) error {
		if err := WriteMarkdown(w, "new", nil, fixtureRows()); err != nil {
			return err
		}
		return errors.New("disk full")
	})
	if err == nil {
		t.Fatal("failure not reported")
	}
	if got, _ := os.ReadFile(path); string(got) != "old report" {
		t.Fatalf("old file replaced by %.40q", got)
	}
	if err := WriteFileAtomic(path, func(w io.Writer) error { return WriteMarkdown(w, "new", nil, fixtureRows()) }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.HasPrefix(got, []byte("# new\n")) {
		t.Fatalf("new file starts %.40q", got)
	}
}
