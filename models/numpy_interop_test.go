package models

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNumPyReadsOurs checks with the real numpy.load, when a Python with NumPy
// is available (Debian: python3-numpy), that model.npz is readable and holds
// what we wrote. It skips otherwise: CI does not need Python.
func TestNumPyReadsOurs(t *testing.T) {
	py := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("no python3 with numpy")
	}
	m := randomRBM(5, 3, 1, 9)
	p := filepath.Join(t.TempDir(), "model.npz")
	if err := Save(p, &Checkpoint{Model: m, Bytes: map[string][]byte{"rng": {7, 8}}}, known); err != nil {
		t.Fatal(err)
	}
	script := `import json,sys,numpy as np
z=np.load(sys.argv[1])
m=json.loads(bytes(z["meta"]).decode())
print(m["type"], z["W"].shape, z["W"].dtype, "%.17g" % z["W"][4,2], z["vbias"].shape, z["hbias"].shape)`
	out, err := exec.Command(py, "-c", script, p).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	got := strings.TrimSpace(string(out))
	want := "rbm (5, 3) float64 "
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "(5,) (3,)") {
		t.Fatalf("numpy read %q", got)
	}
	if w := strconv.FormatFloat(m.W[4*3+2], 'g', 17, 64); !strings.Contains(got, " "+w+" ") {
		t.Errorf("numpy W[4,2]: %q, want %v", got, m.W[4*3+2])
	}
}
