package config

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one problem in a config file.
type Error struct {
	File string
	Line int    // 1-based; 0 if unknown
	Path string // key path such as experiments[1].train.k; "" for the document
	Msg  string
}

// Error formats the problem as "file:line: path: message".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
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
