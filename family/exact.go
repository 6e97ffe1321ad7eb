package family

// MaxExactUnits is the most units exact enumeration may be allowed to
// enumerate (2^40 terms).
const MaxExactUnits = 40

// Exact is the settings of exact enumeration.
type Exact struct {
	// MaxUnits: exact enumeration refuses models that need more than 2^MaxUnits
	// terms; ≤ 40.
	MaxUnits int `yaml:"max_units" want:"an integer in [1,40]" flag:"max-units"`
}

// Check reports a max_units outside [1, MaxExactUnits].
func (e *Exact) Check(p Problems) {
	p.Check("max_units", e.Valid(), "an integer in [1,40]", e.MaxUnits)
}

// Valid reports whether MaxUnits is in [1, MaxExactUnits].
func (e *Exact) Valid() bool { return e.MaxUnits >= 1 && e.MaxUnits <= MaxExactUnits }
