// Package familytest holds test helpers for model families.
package familytest

import "fmt"

// Problems records what a settings Check method reports (it implements
// family.Problems), one "key: message" string per problem; cross-field
// problems read "key@line-key: message".
type Problems []string

// Check records want/got at rel unless ok.
func (p *Problems) Check(rel string, ok bool, want string, got any) {
	if !ok {
		*p = append(*p, fmt.Sprintf("%s: expected %s, got %v", rel, want, got))
	}
}

// Enum records val at rel unless it is one of allowed.
func (p *Problems) Enum(rel, val string, allowed []string) bool {
	for _, a := range allowed {
		if a == val {
			return true
		}
	}
	*p = append(*p, fmt.Sprintf("%s: %q not one of %v", rel, val, allowed))
	return false
}

// Errorf records a message at rel.
func (p *Problems) Errorf(rel, format string, args ...any) {
	*p = append(*p, rel+": "+fmt.Sprintf(format, args...))
}

// Crossf records a cross-field message at rel, reported on lineRel's line.
func (p *Problems) Crossf(rel, lineRel, format string, args ...any) {
	*p = append(*p, rel+"@"+lineRel+": "+fmt.Sprintf(format, args...))
}
