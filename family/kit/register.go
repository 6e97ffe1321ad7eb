// Package kit is the glue every family shares, in three packages by
// concern — sampling (samples, filters and pictures, and the optional
// abilities that make them), evalenv (the evaluation environment and its
// run loop) and estim (estimator definitions and the settings and drivers
// several families share) — and Register, which adds a family to the
// registry after checking the abilities declared above package family.
package kit

import (
	"fmt"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
)

// Register checks that every estimator's Impl runs in an evaluation (an evalenv.Runner), and
// adds f to the registry; it panics otherwise (a programming error caught
// when the program starts).
func Register(f *family.Family) {
	for _, e := range f.Estimators {
		if _, ok := e.Impl.(evalenv.Runner); !ok {
			panic(fmt.Sprintf("family %s: estimator %s: its Impl %T is not an evalenv.Runner", f.Name, e.Name, e.Impl))
		}
	}
	family.Register(f)
}
