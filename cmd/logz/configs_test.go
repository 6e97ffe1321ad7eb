package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/configs"
	"github.com/logz-ml/logz/eval/report"
)

// TestConfigsCatalog: every shipped config is listed with its families,
// data and time, and the reference's table of configs gives each the time
// its file's "# Time:" line says (the file is the one source).
func TestConfigsCatalog(t *testing.T) {
	cat, err := configs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(repoRoot, "configs", "*.yaml"))
	if len(cat) != len(files) || len(cat) == 0 {
		t.Fatalf("catalog has %d configs, configs/ %d files", len(cat), len(files))
	}
	out, _, err := runLogz(t, "configs")
	if err != nil {
		t.Fatal(err)
	}
	readme := readRepo(t, "docs/reference.md")
	for _, e := range cat {
		if e.Time == "" || e.Description == "" || len(e.Families) == 0 || len(e.Data) == 0 {
			t.Errorf("%s: incomplete entry %+v (every config has a description, a model and data, and a %q line)", e.Name, e, configs.TimePrefix)
		}
		if !strings.Contains(out, e.Name+"  [") || !strings.Contains(out, e.Time) {
			t.Errorf("logz configs does not list %s with its time %q", e.Name, e.Time)
		}
		m := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(e.Name) + "\\.yaml` \\| .* \\| (.*) \\|$").FindStringSubmatch(readme)
		if m == nil {
			t.Errorf("docs/reference.md's configs table has no row for %s", e.Name)
			continue
		}
		if cell := strings.NewReplacer(`\|`, "|", `\*`, "*").Replace(m[1]); cell != e.Time {
			t.Errorf("docs/reference.md gives %s the time %q; its file says %q", e.Name, cell, e.Time)
		}
	}
}

// TestRunShippedConfigByName: `logz run NAME` runs the built-in config
// from a folder that has no configs/ (as a go install'ed logz does), `logz
// configs show` prints it, and an unknown name is an error that suggests
// the nearest one.
func TestRunShippedConfigByName(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if _, errOut, err := runLogz(t, "run", "ising-quickstart", "--out", "out"); err != nil {
		t.Fatalf("logz run ising-quickstart: %v\n%s", err, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "results.json")); err != nil {
		t.Fatal(err)
	}
	out, _, err := runLogz(t, "configs", "show", "ising-quickstart")
	_, want, _ := configs.Lookup("ising-quickstart")
	if err != nil || out != string(want) {
		t.Errorf("configs show: %v, printed %d bytes of %d", err, len(out), len(want))
	}
	_, _, err = runLogz(t, "run", "ising-quickstrat", "--out", "x")
	if err == nil || !strings.Contains(err.Error(), `did you mean "ising-quickstart"?`) {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("an unknown config name left a run folder")
	}
}

// TestDocsConfigTimes: wherever the README or docs/ say "`NAME` takes T"
// of a shipped config, T is the time its file's "# Time:" line gives.
func TestDocsConfigTimes(t *testing.T) {
	cat, err := configs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	times := map[string]string{}
	for _, e := range cat {
		times[e.Name] = e.Time
	}
	re := regexp.MustCompile("`([a-z0-9-]+)` takes ([0-9.]+ CPU-(?:s|min))")
	n := 0
	for _, doc := range docFiles(t) {
		for _, m := range re.FindAllStringSubmatch(readRepo(t, doc), -1) {
			n++
			if want, ok := times[m[1]]; !ok {
				t.Errorf("%s: %s is not a shipped config", doc, m[1])
			} else if m[2] != want {
				t.Errorf("%s says %s takes %s; configs/%s.yaml says %q", doc, m[1], m[2], m[1], want)
			}
		}
	}
	if n < 3 {
		t.Errorf("only %d config times found in the docs", n)
	}
}

// TestDocsConfigErrors: the reference's example of a config with errors
// gives the messages it shows.
func TestDocsConfigErrors(t *testing.T) {
	ref := readRepo(t, "docs/reference.md")
	file := markedBlock(t, "docs/reference.md", ref, "<!-- config errors example:")
	want := markedBlock(t, "docs/reference.md", ref, "<!-- config errors output")
	t.Chdir(t.TempDir())
	if err := os.WriteFile("x.yaml", []byte(strings.Join(file, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := runLogz(t, "run", "x.yaml", "--out", "out")
	if err == nil {
		t.Fatal("logz run accepted the reference's bad config")
	}
	if got := "logz: " + err.Error(); got != strings.Join(want, "\n") {
		t.Errorf("logz run x.yaml:\n%s\ndocs/reference.md shows:\n%s", got, strings.Join(want, "\n"))
	}
	if _, err := os.Stat("out"); err == nil {
		t.Error("a config with errors left a run folder")
	}
}

// TestDocsEpochsCSVColumns: the reference lists the columns of epochs.csv
// in the order logz writes them.
func TestDocsEpochsCSVColumns(t *testing.T) {
	ref := readRepo(t, "docs/reference.md")
	block := markedBlock(t, "docs/reference.md", ref, "<!-- epochs.csv columns:")
	var got []string
	for _, l := range block[2:] {
		for _, m := range regexp.MustCompile("`([a-z_0-9]+)`").FindAllStringSubmatch(cells(l, "|")[0], -1) {
			got = append(got, m[1])
		}
	}
	if strings.Join(got, ",") != strings.Join(report.EpochsCSVHeader, ",") {
		t.Errorf("docs/reference.md's epochs.csv columns\n %s\nlogz writes\n %s", strings.Join(got, ","), strings.Join(report.EpochsCSVHeader, ","))
	}
}

// TestDocsConfigKeys: the config reference's tables for the top level, an
// experiment, data, data.planted and evaluate have a row for every key
// the config reader accepts there (the model and train keys of every
// family are the generated Model families section), and no row for a key
// it does not accept.
func TestDocsConfigKeys(t *testing.T) {
	ref := readRepo(t, "docs/reference.md")
	section := func(from, to string) string {
		i := strings.Index(ref, from)
		j := strings.Index(ref[i+1:], to)
		if i < 0 || j < 0 {
			t.Fatalf("docs/reference.md has no section from %q to %q", from, to)
		}
		return ref[i : i+1+j]
	}
	keys := func(v any, extra ...string) []string {
		var out []string
		rt := reflect.TypeOf(v)
		for i := 0; i < rt.NumField(); i++ {
			tag, _, _ := strings.Cut(rt.Field(i).Tag.Get("yaml"), ",")
			if tag != "" && tag != "-" {
				out = append(out, tag)
			}
		}
		return append(out, extra...)
	}
	rowKey := regexp.MustCompile("^\\| ((?:`[a-z_]+`(?:, )?)+) \\|")
	for _, c := range []struct {
		what, from, to string
		keys           []string
	}{
		{"top level", "\n### Top level\n", "\n### ", keys(config.File{}, "base")},
		{"experiment", "\n### Experiment\n", "\n### ", keys(config.Experiment{})},
		{"data", "\n### data\n", "**Data specs**", keys(config.Data{})},
		{"data.planted", "**data.planted**", "\n### ", keys(config.Planted{})},
		{"evaluate", "\n### evaluate\n", "**Estimators.**", keys(config.Evaluate{})},
	} {
		var got []string
		for _, l := range strings.Split(section(c.from, c.to), "\n") {
			if m := rowKey.FindStringSubmatch(l); m != nil {
				for _, k := range strings.Split(m[1], ", ") {
					got = append(got, strings.Trim(k, "`"))
				}
			}
		}
		slices.Sort(got)
		want := slices.Clone(c.keys)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("docs/reference.md's %s table has the keys\n %v\nthe config reader accepts\n %v", c.what, got, want)
		}
	}
}
