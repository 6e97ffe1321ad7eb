//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/logz-ml/logz/configs"
)

// The example outputs the README and the manual show are what logz prints
// today: these tests produce them and compare. Times are compared within a
// stated tolerance: a Minutes cell within half a minute, a row's `seconds`
// within a factor of 20 and the quickstart's CPU time within a factor of 3
// of the time its config file states.

// finalTable returns the header and rows of the final table of a run
// folder's report.md: the full table (the terminal's may leave columns out
// or break cells to fit its width).
func finalTable(t *testing.T, dir string) (header []string, rows [][]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if header != nil && !strings.HasPrefix(l, "|") {
			break
		}
		switch {
		case header == nil && strings.HasPrefix(l, "| Experiment |"):
			header = cells(l, "|")
		case header != nil && !strings.HasPrefix(l, "| ---"):
			rows = append(rows, cells(l, "|"))
		}
	}
	if header == nil {
		t.Fatalf("%s/report.md has no final table", dir)
	}
	return header, rows
}

// TestREADMEQuickstartExamples runs the embedded quickstart once and checks
// the examples taken from it: the README's excerpt of the final table and
// its CPU time, the results.json row of docs/reference.md, and the output
// of `logz sample --compare` on its model quoted in docs/guide.md.
func TestREADMEQuickstartExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quickstart")
	}
	out := filepath.Join(t.TempDir(), "q")
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	stdout, stderr, err := runLogz(t, "run", "--out", out)
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	if err != nil {
		t.Fatalf("logz run: %v\n%s", err, stderr)
	}
	cpu := func(r syscall.Rusage) float64 {
		return float64(r.Utime.Sec+r.Stime.Sec) + float64(r.Utime.Usec+r.Stime.Usec)/1e6
	}
	cpuSeconds := cpu(after) - cpu(before)
	readme := readRepo(t, "README.md")

	t.Run("table excerpt", func(t *testing.T) {
		block := markedBlock(t, "README.md", readme, "<!-- quickstart excerpt:")
		header := cells(block[0], "|")
		realHeader, realRows := finalTable(t, out)
		col := map[string]int{}
		for i, h := range realHeader {
			col[h] = i
		}
		for _, h := range header {
			if _, ok := col[h]; !ok {
				t.Fatalf("README.md's excerpt has a column %q that logz run does not print (its columns: %q)", h, realHeader)
			}
		}
		key := func(get func(string) string) string {
			return get("Experiment") + "/" + get("Estimator") + "/" + get("β")
		}
		byKey := map[string][]string{}
		for _, r := range realRows {
			byKey[key(func(h string) string { return r[col[h]] })] = r
		}
		if len(block) < 4 || !strings.HasPrefix(block[1], "|---") {
			t.Fatalf("README.md's excerpt is not a table:\n%s", strings.Join(block, "\n"))
		}
		for _, line := range block[2:] {
			row := cells(line, "|")
			if len(row) != len(header) {
				t.Errorf("README.md excerpt row has %d cells, header %d: %s", len(row), len(header), line)
				continue
			}
			get := func(h string) string {
				for i, x := range header {
					if x == h {
						return row[i]
					}
				}
				return ""
			}
			want, ok := byKey[key(get)]
			if !ok {
				t.Errorf("README.md excerpt row %s: logz run prints no such row:\n%s", line, stdout)
				continue
			}
			for i, h := range header {
				got := want[col[h]]
				if h == "Minutes" {
					a, err1 := strconv.ParseFloat(row[i], 64)
					b, err2 := strconv.ParseFloat(got, 64)
					if err1 != nil || err2 != nil || math.Abs(a-b) > 0.5 {
						t.Errorf("README.md excerpt %s: Minutes %s, logz run printed %s (more than half a minute apart)", key(get), row[i], got)
					}
					continue
				}
				if row[i] != got {
					t.Errorf("README.md excerpt %s: column %q says %q, logz run prints %q", key(get), h, row[i], got)
				}
			}
		}
	})

	t.Run("time", func(t *testing.T) {
		m := regexp.MustCompile(`takes ([0-9.]+) CPU-s`).FindStringSubmatch(readme)
		if m == nil {
			t.Fatal("README.md does not say how many CPU-s the quickstart takes")
		}
		cat, err := configs.Catalog()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range cat {
			if e.Name == "quickstart" && e.Time != m[1]+" CPU-s" {
				t.Errorf("README.md says the quickstart takes %s CPU-s, configs/quickstart.yaml %q", m[1], e.Time)
			}
		}
		stated, _ := strconv.ParseFloat(m[1], 64)
		if cpuSeconds < stated/3 || cpuSeconds > 3*stated {
			t.Errorf("the quickstart took %.1f CPU-s; README.md and configs/quickstart.yaml say %s (tolerance: a factor of 3)", cpuSeconds, m[1])
		}
		t.Logf("quickstart: %.1f CPU-s (stated %s)", cpuSeconds, m[1])
	})

	t.Run("results.json row", func(t *testing.T) {
		ref := readRepo(t, "docs/reference.md")
		block := markedBlock(t, "docs/reference.md", ref, "<!-- results.json example:")
		var doc, real struct {
			Version   json.Number      `json:"version"`
			Estimates []map[string]any `json:"estimates"`
		}
		dec := json.NewDecoder(strings.NewReader(strings.Join(block, "\n")))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil || len(doc.Estimates) != 1 {
			t.Fatalf("docs/reference.md's results.json example: %v (%d rows)", err, len(doc.Estimates))
		}
		b, err := os.ReadFile(filepath.Join(out, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		dec = json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&real); err != nil {
			t.Fatal(err)
		}
		if doc.Version != real.Version {
			t.Errorf("results.json example: version %s, logz writes %s", doc.Version, real.Version)
		}
		want := doc.Estimates[0]
		var got map[string]any
		for _, r := range real.Estimates {
			same := true
			for _, k := range []string{"experiment", "stage", "estimator", "split", "betas"} {
				same = same && fmt.Sprint(r[k]) == fmt.Sprint(want[k])
			}
			if same {
				got = r
				break
			}
		}
		if got == nil {
			t.Fatalf("the quickstart's results.json has no row like the example's %v", want)
		}
		compareJSON(t, "results.json example", want, got)
	})

	t.Run("run files", func(t *testing.T) {
		tree := strings.Join(markedBlock(t, "docs/reference.md", readRepo(t, "docs/reference.md"), "<!-- run files:"), "\n")
		err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == ".logz.lock" {
				return err
			}
			rel, _ := filepath.Rel(out, p)
			name := rel
			if dir, file, ok := strings.Cut(rel, string(filepath.Separator)); ok && dir != "" {
				name = "<experiment>/" + file
			}
			if !strings.Contains(tree, name) {
				t.Errorf("the quickstart wrote %s, which docs/reference.md's list of run files lacks (%s)", rel, name)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})

	t.Run("samples.json", func(t *testing.T) {
		ref := readRepo(t, "docs/reference.md")
		block := markedBlock(t, "docs/reference.md", ref, "<!-- samples.json example:")
		var want, got any
		dec := json.NewDecoder(strings.NewReader(strings.Join(block, "\n")))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("docs/reference.md's samples.json example: %v", err)
		}
		b, err := os.ReadFile(filepath.Join(out, "cd1-h12", "samples.json"))
		if err != nil {
			t.Fatal(err)
		}
		dec = json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&got); err != nil {
			t.Fatal(err)
		}
		compareJSON(t, "samples.json example", want, got)
	})

	t.Run("sample --compare", func(t *testing.T) {
		guide := readRepo(t, "docs/guide.md")
		model := filepath.Join(out, "pcd1-h12", "model.npz")
		sout, serr, err := runLogz(t, "sample", "--model", model, "--n", "500", "--steps", "100", "--every", "20", "--compare", "q,random")
		if err != nil {
			t.Fatalf("logz sample: %v\n%s", err, serr)
		}
		if !strings.Contains(guide, "./logz sample --model runs/quickstart/pcd1-h12/model.npz --n 500 --steps 100 --every 20 --compare q,random\n") {
			t.Error("docs/guide.md no longer shows the sample --compare command this test runs")
		}
		matchLines(t, "docs/guide.md sample --compare output", markedBlock(t, "docs/guide.md", guide, "<!-- sample --compare output:"), sout)
		matchLines(t, "docs/guide.md sample stderr", markedBlock(t, "docs/guide.md", guide, "<!-- sample stderr:"), serr)
		m := regexp.MustCompile(`exact log Z of this model is ([0-9.]+)`).FindStringSubmatch(guide)
		_, rows := finalTable(t, out)
		var exact string
		for _, r := range rows {
			if r[0] == "pcd1-h12" && r[2] == "exact" {
				exact = r[5]
			}
		}
		if m == nil || m[1] != exact {
			t.Errorf("docs/guide.md gives the exact log Z of pcd1-h12 as %v; the quickstart prints %s", m, exact)
		}
	})
}

// matchLines checks that the lines of a quoted output occur in got, in
// order: consecutively, except that a line "…" skips any number of lines
// and a line ending in "…" matches any line that starts with the rest.
func matchLines(t *testing.T, what string, quoted []string, got string) {
	t.Helper()
	real := strings.Split(got, "\n")
	for i := range real {
		real[i] = strings.TrimRight(real[i], " ")
	}
	j, skip := 0, true
	for _, q := range quoted {
		if strings.TrimSpace(q) == "…" {
			skip = true
			continue
		}
		match := func(r string) bool {
			if p, ok := strings.CutSuffix(q, "…"); ok {
				return strings.HasPrefix(r, p)
			}
			return r == q
		}
		for j < len(real) && !match(real[j]) && skip {
			j++
		}
		if j >= len(real) || !match(real[j]) {
			t.Errorf("%s: %q is not what logz prints here; it printed:\n%s", what, q, got)
			return
		}
		j++
		skip = false
	}
}

// compareJSON checks a documented JSON value against the real one: the same
// keys, the same strings, and every number equal to the real one rounded to
// the documented number of decimals (`seconds`, a wall time, within a
// factor of 20).
func compareJSON(t *testing.T, path string, want, got any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: documented an object, logz writes %v", path, got)
			return
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				t.Errorf("%s: logz writes %q (%v), which the example leaves out", path, k, g[k])
			}
		}
		for k, v := range w {
			if _, ok := g[k]; !ok {
				t.Errorf("%s: the example has %q, which logz does not write", path, k)
				continue
			}
			compareJSON(t, path+"."+k, v, g[k])
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: documented %v, logz writes %v", path, want, got)
			return
		}
		for i := range w {
			compareJSON(t, fmt.Sprintf("%s[%d]", path, i), w[i], g[i])
		}
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			t.Errorf("%s: documented %s, logz writes %v", path, w, got)
			return
		}
		wf, _ := w.Float64()
		gf, _ := g.Float64()
		if strings.HasSuffix(path, ".seconds") {
			if gf <= 0 || wf < gf/20 || wf > gf*20 {
				t.Errorf("%s: documented %s s, the run took %s s (tolerance: a factor of 20)", path, w, g)
			}
			return
		}
		_, frac, ok := strings.Cut(w.String(), ".")
		if !ok { // an integer: exactly
			if w.String() != g.String() {
				t.Errorf("%s: documented %s, logz writes %s", path, w, g)
			}
			return
		}
		d := len(frac)
		if math.Abs(gf-wf) > 0.5*math.Pow(10, -float64(d))*(1+1e-9) {
			t.Errorf("%s: documented %s, logz writes %s (%.*f)", path, w, g, d, gf)
		}
	default:
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("%s: documented %v, logz writes %v", path, want, got)
		}
	}
}

// TestREADMEFamilies: the README's table of families and estimators has
// one row per registered family, with its trainers and estimators.
func TestREADMEFamilies(t *testing.T) {
	block := markedBlock(t, "README.md", readRepo(t, "README.md"), "<!-- families:")
	fams := describeFamilies()
	if len(block) != len(fams)+2 {
		t.Errorf("README.md's families table has %d rows, the registry %d families", len(block)-2, len(fams))
	}
	rows := map[string][]string{}
	for _, l := range block[2:] {
		row := cells(l, "|")
		rows[row[0]] = row
	}
	quote := func(l []string) string {
		q := make([]string, len(l))
		for i, s := range l {
			q[i] = "`" + s + "`"
		}
		return strings.Join(q, ", ")
	}
	for _, f := range fams {
		row, ok := rows["`"+f.Name+"`"]
		if !ok || len(row) != 4 {
			t.Errorf("README.md's families table has no row for %s", f.Name)
			continue
		}
		var trainers, ests []string
		for _, tr := range f.Trainers {
			trainers = append(trainers, tr.Method)
		}
		for _, e := range f.Estimators {
			ests = append(ests, e.Name)
		}
		if row[2] != quote(trainers) || row[3] != quote(ests) {
			t.Errorf("README.md's families table, %s:\n got trainers %s; estimators %s\nwant trainers %s; estimators %s", f.Name, row[2], row[3], quote(trainers), quote(ests))
		}
	}
}
