package data

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/testenv"
)

// TestImportsStayLow: data, with everything it imports, needs no package of
// the module above models and internal — no trainer, estimator or family.
func TestImportsStayLow(t *testing.T) {
	testenv.CheckImports(t, "data", func(path string) bool {
		return path == "data" || path == "models" || strings.HasPrefix(path, "models/") || strings.HasPrefix(path, "internal/")
	})
}
