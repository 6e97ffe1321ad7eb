package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is one problem in a config file.
type Error struct {
	File string
	Line int    // 1-based; 0 if unknown
	Path string // key path such as experiments[1].train.k; "" for the document
	Msg  string
	// Set is the --set argument (Override.Arg) whose value has the
	// problem, "" for a problem of the file's own text. Such a problem has
	// no line, and Path is relative to the override's (empty for PATH
	// itself).
	Set string
}

// Error formats the problem as "file:line: path: message", or for a value
// given by --set as "--set PATH=VALUE: path: message".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Set != "" {
		b.WriteString("--set " + e.Set)
	} else {
		b.WriteString(e.File)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList holds every problem found in a file, in line order.
type ErrorList []*Error

// Error joins the problems, one per line.
func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Unwrap exposes the problems to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// sorted returns the list in line order (problems without a line first),
// with exact repeats (e.g. from a YAML alias used twice) removed.
func (l ErrorList) sorted() ErrorList {
	sort.SliceStable(l, func(i, j int) bool { return l[i].Line < l[j].Line })
	seen := map[string]bool{}
	out := l[:0]
	for _, e := range l {
		s := e.Error()
		if !seen[s] {
			seen[s] = true
			out = append(out, e)
		}
	}
	return out
}

// suggest returns the candidate closest to s, if it is close enough to be a
// likely typo: equal up to case, '-' and '_', or within a small edit
// distance.
func suggest(s string, candidates []string) (string, bool) {
	norm := func(x string) string {
		return strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(x))
	}
	ns := norm(s)
	for _, c := range candidates {
		if norm(c) == ns {
			return c, true
		}
	}
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(s), c); d < bestD {
			best, bestD = c, d
		}
	}
	// Close enough: at most a third of the word's letters (at least one)
	// edited, and fewer than half.
	n := len([]rune(s))
	if bestD <= max(1, n/3) && 2*bestD < n {
		return best, true
	}
	return "", false
}

// editDistance is the optimal-string-alignment distance (insertions,
// deletions, substitutions and adjacent transpositions) between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// knownHint returns ` (did you mean "x"?; known: a, b)` or ` (known: a, b)`.
func knownHint(s string, candidates []string) string {
	return knownHintAs(s, candidates, strings.Join(candidates, ", "))
}

// knownHintAs is knownHint with the known values displayed as known.
func knownHintAs(s string, candidates []string, known string) string {
	if c, ok := suggest(s, candidates); ok {
		return fmt.Sprintf(" (did you mean %q?; known: %s)", c, known)
	}
	return " (known: " + known + ")"
}

// didYouMean returns ` (did you mean "x"?)` or "".
func didYouMean(s string, candidates []string) string {
	if c, ok := suggest(s, candidates); ok {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

// KnownHint is the " (did you mean …?; known: …)" suffix of messages about
// an unknown name s among candidates.
func KnownHint(s string, candidates []string) string { return knownHint(s, candidates) }

// yamlLineRE matches the position prefix of a yaml.v3 error message.
var yamlLineRE = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// yamlParserProblems are the messages of yaml.v3's parser (the other
// messages come from its scanner). They matter for the line: yaml.v3 reports
// a parser error at the 0-based line of its context (the start of the
// enclosing collection) and a scanner error at the 1-based line, and it
// leaves the line out when the 0-based line is 0.
var yamlParserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"found undefined tag handle":             true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// yamlUnknownAnchorRE matches the composer's error for an alias without
// its anchor, which carries no line.
var yamlUnknownAnchorRE = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// yamlSyntaxLine returns the 1-based line of a YAML syntax error in data
// (0 if unknown) and the message without its "yaml: line N:" prefix, with
// a hint for the terse ones.
//
// yaml.v3's own line is often not where the problem is: it is the line
// before the start of the enclosing construct for parser errors (an
// unclosed [ on line 6 is "line 5"; a badly indented key on line 6 of a
// mapping that starts on line 3 is "line 2") and missing altogether when
// that construct starts on line 1. So the text is parsed again:
//
//   - with a blank line in front, which makes yaml.v3 always report its
//     mark, one off in a known direction: the line of the context for a
//     parser error (for an unclosed or comma-less flow collection, the line
//     of its [ or {), else of the problem;
//   - for an error inside a block collection ("did not find expected key"
//     or "'-' indicator", i.e. bad indentation), the context is where the
//     collection starts, not the bad line: that is the first line from
//     there on at which the text up to it fails in the same way (a block
//     collection cut at a line end is complete, so it fails only once it
//     holds the offending token).
func yamlSyntaxLine(data []byte, err error) (int, string) {
	m := yamlLineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, strings.TrimPrefix(err.Error(), "yaml: ")
	}
	msg := m[2]
	line := yamlLine(data, m[1], msg)
	// A problem at the end of the text is on the last line that has some.
	if n := len(strings.Split(strings.TrimRight(string(data), " \t\r\n"), "\n")); line > n {
		line = n
	}
	return line, msg + yamlHints[msg]
}

// yamlHints explain yaml.v3's terser messages.
var yamlHints = map[string]string{
	"mapping values are not allowed in this context": ` (a value that contains ": " or ends with ":" must be quoted)`,
	"did not find expected key":                      " (check the indentation of this line against the keys above it)",
	"did not find expected '-' indicator":            " (check the indentation of this line against the - items above it)",
	"did not find expected ',' or ']'":               " (the [ list that opens on this line lacks its ] or a ',' between items)",
	"did not find expected ',' or '}'":               " (the { mapping that opens on this line lacks its } or a ',' between entries)",
}

// yamlLine returns the 1-based line of the problem msg that yaml.v3
// reported at line reported ("" for none).
func yamlLine(data []byte, reported, msg string) int {
	if a := yamlUnknownAnchorRE.FindStringSubmatch(msg); a != nil {
		return aliasLine(data, a[1])
	}
	if msg == "control characters are not allowed" {
		return controlCharLine(data)
	}
	padded := append([]byte("\n"), data...)
	pm := yamlLineRE.FindStringSubmatch(errString(firstYAMLError(padded)))
	if pm == nil || pm[2] != msg || pm[1] == "" {
		// Not the same error once padded: keep yaml.v3's line.
		line, _ := strconv.Atoi(reported)
		return line
	}
	line, _ := strconv.Atoi(pm[1])
	if !yamlParserProblems[msg] {
		// Scanner errors are reported 1-based: one off for the padding.
		return line - 1
	}
	if msg == "did not find expected key" || msg == "did not find expected '-' indicator" {
		// Whether the first k lines fail so is monotone in k (false before
		// the offending line, true from it on): search.
		lines := strings.SplitAfter(string(data), "\n")
		from := max(line, 1)
		if k := from + sort.Search(len(lines)-from+1, func(i int) bool {
			prefix := strings.Join(lines[:from+i], "")
			pm := yamlLineRE.FindStringSubmatch(errString(firstYAMLError([]byte(prefix))))
			return pm != nil && pm[2] == msg
		}); k <= len(lines) {
			return k
		}
	}
	return line
}

// firstYAMLError decodes every document of data and returns the first
// error, or nil.
func firstYAMLError(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// controlCharLine returns the first line of data with a control character
// that YAML does not allow, or 0.
func controlCharLine(data []byte) int {
	line := 1
	for _, c := range data {
		switch {
		case c == '\n':
			line++
		case c < 0x20 && c != '\t' && c != '\r', c == 0x7f:
			return line
		}
	}
	return 0
}

// aliasLine returns the first line of data that uses the alias *name, or 0.
func aliasLine(data []byte, name string) int {
	re := regexp.MustCompile(`\*` + regexp.QuoteMeta(name) + `(?:$|[\s,\]}])`)
	for i, l := range strings.Split(string(data), "\n") {
		if re.MatchString(l) {
			return i + 1
		}
	}
	return 0
}

// DidYouMean is the ` (did you mean "x"?)` suffix of messages about an
// unknown value s among candidates, or "".
func DidYouMean(s string, candidates []string) string { return didYouMean(s, candidates) }
