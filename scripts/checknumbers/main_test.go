package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheck: on a small document, a value that a result file of its
// section rounds to is backed (either sign, any precision), one that only
// another section's files hold is not, and the paper's and derived columns
// are skipped.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("runs/a/results.json", `{"mean_loglik": -85.74499, "log_z": 508.33, "tiny": 1.5e-3}`)
	write("runs/a/other.json", "{\"far\": 2.25,\n"+strings.Repeat("\"pad\": 0,\n", 20)+"\"estimate\": -90.5}")
	write("runs/b/x/epochs.csv", "epoch,test\n3,-101.254\n")
	write("doc.md", `# Doc

## First

`+"`configs/a.yaml`"+` gives

| model 1.5 | paper: AIS | ours: AIS | log Z | gap | ours: late |
|---|---|---|---|---|---|
| M | −1.11 | **−85.74** ± 0.0015 | 508.3 | 9.99 | −101.25 |
| N | −1.11 | −85.74 ± 508.33 | 2.25 | 9.99 | −90.50 ± 2.25 |

## Second, in docs/runs/b/

| ours |
|---|
| −101.25, 101.254, −85.74 |
`)
	got, err := Check(filepath.Join(dir, "doc.md"), filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, u := range got {
		vals = append(vals, u.Column+" "+u.Value)
	}
	// Backed: −85.74 (−85.74499 rounded) with its error 0.0015 (1.5e-3) in
	// the same file and line, −85.74 ± 508.33 likewise, 508.3, 2.25 alone,
	// the paper's, gap and model columns skipped; in section b −101.25 and
	// 101.254 (the opposite sign). Unbacked: −101.25 in section a (only b's
	// files hold it), −90.50 ± 2.25 (one file holds both, 21 lines apart)
	// and −85.74 in section b (only a's files hold it).
	want := []string{"ours: late −101.25", "ours: late −90.50 ± 2.25", "ours −85.74"}
	if !slices.Equal(vals, want) {
		t.Errorf("unbacked = %q, want %q", vals, want)
	}
}

// TestCheckMissingFolder: a section naming a result folder that is not
// committed is an error that names it.
func TestCheckMissingFolder(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.md")
	if err := os.WriteFile(doc, []byte("## S\n\nsee docs/runs/gone/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Check(doc, filepath.Join(dir, "runs")); err == nil {
		t.Fatal("no error for a missing result folder")
	}
}

// knownUnbacked are the numbers of docs/reproductions.md without a
// committed result file. The audit of issue 29 found sixteen (the 2008
// bottom block, quoted from a run whose files were not kept); the rerun of
// 2026-11-27 backs them all. The list may only shrink: it stays empty.
var knownUnbacked = []string{}

// TestReproductionsBacked: every number in the tables of the project's
// docs/reproductions.md is in a committed result file, apart from the
// known list, which must not grow and drops what has been backed.
func TestReproductionsBacked(t *testing.T) {
	got, err := Check("../../docs/reproductions.md", "../../docs/runs")
	if err != nil {
		t.Fatal(err)
	}
	left := slices.Clone(knownUnbacked)
	for _, u := range got {
		key := u.Column + " " + u.Value
		i := slices.Index(left, key)
		if i < 0 {
			t.Errorf("%v: in no committed result file of its section (commit the run's files under docs/runs/)", u)
			continue
		}
		left = slices.Delete(left, i, i+1)
	}
	for _, k := range left {
		t.Errorf("known unbacked %q is now backed or gone: drop it from knownUnbacked", k)
	}
}
