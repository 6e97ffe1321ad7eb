// Command checknumbers checks that every measured number quoted in the
// tables of a reproductions document occurs in the result files committed
// beside it, so that a reader can check each one.
//
//	go run ./scripts/checknumbers [-runs docs/runs] docs/reproductions.md
//
// A table cell's decimals (e.g. −85.75, 508.33) are looked up in the result
// files (.json, .md, .csv, .txt) of the folders its section names: every
// `docs/runs/<dir>/` or `runs/<dir>/` written in the section and every
// `configs/<name>.yaml` (whose results live in docs/runs/<name>/), or all of
// docs/runs when the section names none. A quoted value q with d decimals
// is backed when some number v in those files rounds to it, |round(v, d) −
// q| < ½·10^−d (either sign, since files hold log Z and documents may quote
// −log p). Integers (epochs, counts) are not checked.
//
// Not checked, by their column header: the paper's numbers ("paper"),
// differences or widths computed from other cells ("gap", "width",
// "difference", "−" between two names, "spread"), which the section's text
// must derive from backed numbers, and the row labels ("model", "row",
// "setting"), whose numbers are settings. It prints one line per unbacked number
// (file:line, column, value) and exits 1 if there is any.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	runs := flag.String("runs", "", "the folder of committed result files (default: runs/ beside the document)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: checknumbers [-runs DIR] DOCUMENT.md")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	doc := flag.Arg(0)
	dir := *runs
	if dir == "" {
		dir = filepath.Join(filepath.Dir(doc), "runs")
	}
	missing, err := Check(doc, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "checknumbers:", err)
		os.Exit(2)
	}
	for _, m := range missing {
		fmt.Println(m)
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "checknumbers: %d number(s) in the tables of %s occur in no result file of their section\n", len(missing), doc)
		os.Exit(1)
	}
}

// Unbacked is a quoted number found in no result file of its section.
type Unbacked struct {
	File   string
	Line   int
	Column string
	Value  string
}

func (u Unbacked) String() string {
	return fmt.Sprintf("%s:%d: column %q: %s", u.File, u.Line, u.Column, u.Value)
}

var (
	decimal   = regexp.MustCompile(`[−-]?\d+\.\d+`)
	runsRef   = regexp.MustCompile("(?:docs/)?runs/([A-Za-z0-9._-]+)")
	configRef = regexp.MustCompile(`configs/([A-Za-z0-9._-]+)\.yaml`)
	derived   = regexp.MustCompile(`(?i)paper|gap|width|difference|spread|\S\s+−\s+\S|^(model|row|settings?)$`)
)

// Check returns the unbacked numbers of doc's tables, looking in the result
// files under runs.
func Check(doc, runs string) ([]Unbacked, error) {
	lines, err := readLines(doc)
	if err != nil {
		return nil, err
	}
	idx := newIndex(runs)
	var out []Unbacked
	for _, sec := range sections(lines) {
		dirs := sec.folders()
		var values []float64
		if len(dirs) == 0 {
			values, err = idx.values(runs)
			if err != nil {
				return nil, err
			}
		}
		for _, d := range dirs {
			v, err := idx.values(filepath.Join(runs, d))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: section %q: %w", doc, sec.start+1, sec.title, err)
			}
			values = append(values, v...)
		}
		sort.Float64s(values)
		for _, c := range sec.cells() {
			if derived.MatchString(c.column) {
				continue
			}
			for _, q := range decimal.FindAllString(c.text, -1) {
				if !backed(q, values) {
					out = append(out, Unbacked{File: doc, Line: c.line + 1, Column: c.column, Value: q})
				}
			}
		}
	}
	return out, nil
}

// backed reports whether some value rounds to the quoted decimal q, of
// either sign.
func backed(q string, sorted []float64) bool {
	x, d := parse(q)
	half := 0.5 * math.Pow(10, -float64(d))
	for _, t := range []float64{x, -x} {
		// candidates lie within half (plus rounding slack) of t
		i := sort.SearchFloat64s(sorted, t-half*1.000001)
		for ; i < len(sorted) && sorted[i] <= t+half*1.000001; i++ {
			if r := roundTo(sorted[i], d); math.Abs(r-t) < half/10 {
				return true
			}
		}
	}
	return false
}

func parse(q string) (float64, int) {
	s := strings.Replace(q, "−", "-", 1)
	x, _ := strconv.ParseFloat(s, 64)
	return x, len(s) - strings.IndexByte(s, '.') - 1
}

func roundTo(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}

type section struct {
	title string
	start int
	lines []string
}

// sections splits the document at its level-2 headings; a level-3 heading
// stays in its level-2 section (its runs are usually named there).
func sections(lines []string) []section {
	var out []section
	cur := section{title: "(top)"}
	for i, l := range lines {
		if strings.HasPrefix(l, "## ") {
			out = append(out, cur)
			cur = section{title: strings.TrimPrefix(l, "## "), start: i}
		}
		cur.lines = append(cur.lines, l)
	}
	return append(out, cur)
}

func (s section) folders() []string {
	seen := map[string]bool{}
	var out []string
	add := func(d string) {
		d = strings.TrimRight(d, ".")
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, l := range s.lines {
		for _, m := range runsRef.FindAllStringSubmatch(l, -1) {
			if m[1] != "" && m[1] != "<config>" {
				add(m[1])
			}
		}
		for _, m := range configRef.FindAllStringSubmatch(l, -1) {
			add(m[1])
		}
	}
	return out
}

type cell struct {
	line         int
	column, text string
}

// cells returns the body cells of the section's tables with their column
// headers.
func (s section) cells() []cell {
	var out []cell
	var header []string
	for i, l := range s.lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "|") {
			header = nil
			continue
		}
		row := splitRow(l)
		switch {
		case header == nil:
			header = row
		case isRule(row):
		default:
			for j, c := range row {
				if j < len(header) {
					out = append(out, cell{line: s.start + i, column: header[j], text: c})
				}
			}
		}
	}
	return out
}

func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(strings.TrimSuffix(l, "|"), "|")
	parts := strings.Split(l, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func isRule(row []string) bool {
	for _, c := range row {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return true
}

// index caches the decimals of the result files under each folder.
type index struct {
	root  string
	cache map[string][]float64
}

func newIndex(root string) *index { return &index{root: root, cache: map[string][]float64{}} }

var resultExt = map[string]bool{".json": true, ".md": true, ".csv": true, ".txt": true}

func (ix *index) values(dir string) ([]float64, error) {
	if v, ok := ix.cache[dir]; ok {
		return v, nil
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("no result folder %s", dir)
	}
	var vals []float64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !resultExt[filepath.Ext(p)] {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			for _, m := range numberInFile.FindAllString(sc.Text(), -1) {
				if v, err := strconv.ParseFloat(strings.Replace(m, "−", "-", 1), 64); err == nil {
					vals = append(vals, v)
				}
			}
		}
		return sc.Err()
	})
	if err != nil {
		return nil, err
	}
	ix.cache[dir] = vals
	return vals, nil
}

// numberInFile matches decimals in result files, with exponents as JSON
// writes them.
var numberInFile = regexp.MustCompile(`[−-]?\d+\.\d+(?:[eE][-+]?\d+)?`)

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return strings.Split(string(b), "\n"), nil
}
