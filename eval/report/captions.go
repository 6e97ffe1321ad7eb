package report

import (
	"slices"
	"strings"
)

// Captions are built from the series a figure draws, so that they speak
// only of what the picture shows (no RAISE, CSL or χ² where there is none).

// drawnEstimators returns the estimators (without start) of the series
// that are drawn as points — not exact, not reference lines — in order of
// first appearance.
func drawnEstimators(ss []*series) []string {
	var out []string
	for _, s := range ss {
		if s.ref || isExact(s.label) || len(s.xy) == 0 {
			continue
		}
		est, _ := splitLabel(s.label)
		if !slices.Contains(out, est) {
			out = append(out, est)
		}
	}
	return out
}

// drawsEstimator reports whether one of ss is an estimator est drawn as points.
func drawsEstimator(ss []*series, est string) bool {
	return slices.Contains(drawnEstimators(ss), est)
}

// hasExact reports whether ss has exact enumeration's line.
func hasExact(ss []*series) bool {
	return slices.ContainsFunc(ss, func(s *series) bool { return isExact(s.label) && !s.ref })
}

// hasRefs reports whether ss has dashed reference lines.
func hasRefs(ss []*series) bool {
	return slices.ContainsFunc(ss, func(s *series) bool { return s.ref })
}

// seErrorBars are the estimators whose bars are ± 3 standard errors of the
// estimate; every other estimator's bar comes from log(Ẑ ± 3σ̂).
var seErrorBars = []string{"raise", "csl"}

// barsSentence says what the bars of the drawn series are, naming the
// estimators that have them; "" without bars.
func barsSentence(ss []*series) string {
	var logZ, se []string
	for _, s := range ss {
		if s.ref || isExact(s.label) || len(s.bars()) == 0 {
			continue
		}
		est, _ := splitLabel(s.label)
		if slices.Contains(seErrorBars, est) {
			if !slices.Contains(se, est) {
				se = append(se, est)
			}
		} else if !slices.Contains(logZ, est) {
			logZ = append(logZ, est)
		}
	}
	var parts []string
	if len(logZ) > 0 {
		parts = append(parts, "of "+joinAnd(logZ)+", from log(Ẑ − 3σ̂) to log(Ẑ + 3σ̂) (the error of its log Ẑ)")
	}
	if len(se) > 0 {
		parts = append(parts, "of "+joinAnd(se)+", ± 3 standard errors of the estimate")
	}
	if len(parts) == 0 {
		return ""
	}
	return "Bars " + strings.Join(parts, "; bars ") + "."
}

// joinAnd joins names as "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// joinSentences appends sentence b to a, with one space between ("" is
// left out).
func joinSentences(a, b string) string {
	switch {
	case b == "":
		return a
	case a == "":
		return b
	}
	return a + " " + b
}
