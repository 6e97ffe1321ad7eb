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
// −log p). An estimate quoted with its error, "−96.34 ± 1.15", is backed
// only by one file holding both, at most a few lines apart (as a
// results.json estimate or a CSV row holds them): a section naming many
// folders would back almost any single two-decimal number somewhere.
// Integers (epochs, counts) are not checked.
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
	"slices"
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
		if len(dirs) == 0 {
			dirs = []string{"."}
		}
		var files []fileValues
		for _, d := range dirs {
			f, err := idx.files(filepath.Join(runs, d))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: section %q: %w", doc, sec.start+1, sec.title, err)
			}
			files = append(files, f...)
		}
		for _, c := range sec.cells() {
			if derived.MatchString(c.column) {
				continue
			}
			// An estimate and its error ("−96.34 ± 1.15") come from one
			// file: a file that holds both, at most pairWindow lines apart.
			paired := map[int]bool{}
			for _, m := range withError.FindAllStringSubmatchIndex(c.text, -1) {
				q, e := c.text[m[2]:m[3]], c.text[m[4]:m[5]]
				paired[m[2]] = true
				if !slices.ContainsFunc(files, func(f fileValues) bool { return pairBacked(q, e, f) }) {
					out = append(out, Unbacked{File: doc, Line: c.line + 1, Column: c.column, Value: q + " ± " + e})
				}
			}
			for _, m := range decimal.FindAllStringIndex(c.text, -1) {
				q := c.text[m[0]:m[1]]
				if paired[m[0]] || errorOfPair(c.text, m[0]) {
					continue
				}
				if !slices.ContainsFunc(files, func(f fileValues) bool { return len(linesOf(q, f)) > 0 }) {
					out = append(out, Unbacked{File: doc, Line: c.line + 1, Column: c.column, Value: q})
				}
			}
		}
	}
	return out, nil
}

// withError matches an estimate with its standard error, "−96.34 ± 1.15"
// (the estimate possibly in bold).
var withError = regexp.MustCompile(`([−-]?\d+\.\d+)\**\s*±\s*(\d+\.\d+)`)

// errorOfPair reports whether the decimal at byte i of text is the error
// of a withError pair (checked with its estimate).
func errorOfPair(text string, i int) bool {
	for _, m := range withError.FindAllStringSubmatchIndex(text, -1) {
		if m[4] == i {
			return true
		}
	}
	return false
}

// linesOf returns the lines of f that hold a value rounding to the quoted
// decimal q, of either sign.
func linesOf(q string, f fileValues) []int {
	x, d := parse(q)
	half := 0.5 * math.Pow(10, -float64(d))
	var out []int
	for _, t := range []float64{x, -x} {
		// candidates lie within half (plus rounding slack) of t
		i := sort.Search(len(f), func(i int) bool { return f[i].v >= t-half*1.000001 })
		for ; i < len(f) && f[i].v <= t+half*1.000001; i++ {
			if r := roundTo(f[i].v, d); math.Abs(r-t) < half/10 {
				out = append(out, f[i].line)
			}
		}
		if x == 0 {
			break
		}
	}
	return out
}

// pairBacked reports whether f holds an estimate q and its error e at most
// pairWindow lines apart.
func pairBacked(q, e string, f fileValues) bool {
	le := linesOf(e, f)
	for _, a := range linesOf(q, f) {
		for _, b := range le {
			if a-b <= pairWindow && b-a <= pairWindow {
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

// index caches the decimals of the result files under each folder, file
// by file.
type index struct {
	root  string
	cache map[string][]fileValues
}

func newIndex(root string) *index { return &index{root: root, cache: map[string][]fileValues{}} }

// fileValues are the decimals of one result file, sorted by value, each
// with its line.
type fileValues []valueAt

type valueAt struct {
	v    float64
	line int
}

// pairWindow is how many lines apart an estimate and its error may lie in
// a result file: a results.json estimate spreads its fields over a few
// lines (mean_loglik, then loglik_lo, loglik_hi, loglik_se).
const pairWindow = 8

var resultExt = map[string]bool{".json": true, ".md": true, ".csv": true, ".txt": true}

func (ix *index) files(dir string) ([]fileValues, error) {
	if v, ok := ix.cache[dir]; ok {
		return v, nil
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("no result folder %s", dir)
	}
	var files []fileValues
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
		var vals fileValues
		for line := 1; sc.Scan(); line++ {
			for _, m := range numberInFile.FindAllString(sc.Text(), -1) {
				if v, err := strconv.ParseFloat(strings.Replace(m, "−", "-", 1), 64); err == nil {
					vals = append(vals, valueAt{v, line})
				}
			}
		}
		sort.Slice(vals, func(i, j int) bool { return vals[i].v < vals[j].v })
		files = append(files, vals)
		return sc.Err()
	})
	if err != nil {
		return nil, err
	}
	ix.cache[dir] = files
	return files, nil
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
