package sbn

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/testenv"
)

// TestImportsBesideTrainAndEval: sbn, with everything it imports, stands on
// models, data and the internal kernels alone — beside train and eval, not
// above them (no trainer, estimator, inference machinery or family).
func TestImportsBesideTrainAndEval(t *testing.T) {
	testenv.CheckImports(t, "sbn", func(path string) bool {
		return path == "data" || path == "models" || strings.HasPrefix(path, "models/") ||
			strings.HasPrefix(path, "internal/") || strings.HasPrefix(path, "sbn/")
	})
}
