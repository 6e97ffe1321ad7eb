package experiment

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExactFloatsRoundTrip: every float64 — the shortest decimal form, a
// subnormal, the largest, −0, NaN and ±Inf — reads back bit for bit.
func TestExactFloatsRoundTrip(t *testing.T) {
	in := exactFloats{0.1, -7.512345678901234, 1e-310, math.MaxFloat64, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1e21, 123456789}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[0.1,-7.512345678901234,1e-310,1.7976931348623157e+308,-0,"NaN","+Inf","-Inf",1e+21,1.23456789e+08]`; string(b) != want {
		t.Errorf("encoded %s, want %s", b, want)
	}
	var out exactFloats
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if math.Float64bits(out[i]) != math.Float64bits(in[i]) && !(math.IsNaN(in[i]) && math.IsNaN(out[i])) {
			t.Errorf("value %d: %v read back as %v", i, in[i], out[i])
		}
	}
	if err := json.Unmarshal([]byte(`[1,"Inf"]`), &out); err == nil || !strings.Contains(err.Error(), `value 1 is the string "Inf"`) {
		t.Errorf("a bad string: %v", err)
	}
}

// TestParseShard: i/n and env/n with the index from the first job-array
// variable set (SGE's counted from 1), and what is wrong with bad ones.
func TestParseShard(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	none := env(nil)
	for _, c := range []struct {
		s    string
		vars map[string]string
		want Shard
		err  string
	}{
		{s: "0/1", want: Shard{0, 1}},
		{s: "6/7", want: Shard{6, 7}},
		{s: "env/8", vars: map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SGE_TASK_ID": "1"}, want: Shard{3, 8}},
		{s: "env/8", vars: map[string]string{"SGE_TASK_ID": "1"}, want: Shard{0, 8}},
		{s: "env/8", vars: map[string]string{"PBS_ARRAY_INDEX": "7"}, want: Shard{7, 8}},
		{s: "env/8", vars: map[string]string{"JOB_COMPLETION_INDEX": "5"}, want: Shard{5, 8}},
		{s: "7/7", err: "not an integer in [0, 7)"},
		{s: "-1/3", err: "not an integer in [0, 3)"},
		{s: "3", err: "want i/n"},
		{s: "1/0", err: "not an integer in [1, 10000]"},
		{s: "env", err: "want i/n"},
		{s: "env/4", err: "none of $SLURM_ARRAY_TASK_ID, $SGE_TASK_ID, $PBS_ARRAY_INDEX, $JOB_COMPLETION_INDEX is set (outside a job array, give it: i/4)"},
		{s: "env/4", vars: map[string]string{"SLURM_ARRAY_TASK_ID": "4"}, err: "$SLURM_ARRAY_TASK_ID = 4 gives shard 4, not in [0, 4)"},
		{s: "env/4", vars: map[string]string{"SLURM_ARRAY_TASK_ID": "x"}, err: `$SLURM_ARRAY_TASK_ID is "x", not an integer`},
	} {
		getenv := none
		if c.vars != nil {
			getenv = env(c.vars)
		}
		got, err := ParseShard(c.s, getenv)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s %v: %v, %v; want %v", c.s, c.vars, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s %v: %v; want an error with %q", c.s, c.vars, err, c.err)
		}
	}
}

// TestPartChecksum: a part reads back with its checksum whatever the
// layout of its JSON (re-indented, as by jq), its NaN and ±Inf values
// included; a number changed in the file is refused, naming the file.
func TestPartChecksum(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.eval-0-of-2.json")
	p := evalPart{
		Format: partFormat, Kind: "eval", Experiment: "a", Fingerprint: Fingerprint{Config: "c", Seed: 1, Logz: "test"},
		Shards: 2, Seconds: 1.25,
		Entries: []partEntry{{Index: 1, Estimator: "ais", RowSeconds: []float64{0.5},
			Work: []partWork{{N: 4, Width: 1, Units: []int{0, 2}, Values: exactFloats{-3.0625, math.Inf(-1)}}}}},
	}
	if err := writePart(path, &p); err != nil {
		t.Fatal(err)
	}
	if _, err := readEvalPart(path); err != nil {
		t.Fatalf("as written: %v", err)
	}
	b, _ := os.ReadFile(path)
	if !bytes.Contains(b, []byte(`"checksum":"`+p.Checksum+`"`)) || len(p.Checksum) != 64 {
		t.Errorf("checksum %q not in the file:\n%s", p.Checksum, b)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, indented.Bytes(), 0o644)
	if _, err := readEvalPart(path); err != nil {
		t.Errorf("re-indented: %v", err)
	}
	os.WriteFile(path, bytes.Replace(b, []byte("-3.0625"), []byte("-3.0626"), 1), 0o644)
	if _, err := readEvalPart(path); err == nil || !strings.Contains(err.Error(), path+": checksum mismatch") {
		t.Errorf("a value edited: %v, want a checksum mismatch naming the file", err)
	}
}
