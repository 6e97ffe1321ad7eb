package mob_test

import (
	"os"
	"testing"

	"github.com/logz-ml/logz/internal/testenv"
)

// TestMain puts the tests' temporary folders on a memory file system (see
// testenv.Run): they write checkpoints and run folders, each file fsync'ed.
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }
