package rbm_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/experiment"
)

// TestAISPrecisionFromConfig: an ais without precision runs its chains in
// float32, precision: float64 in float64, and each row's notes say which;
// the two estimates agree within the estimator's standard error (the same
// seed: most runs follow one trajectory, see eval's TestAISFloat32Paired). An unknown precision is
// a config error naming the key.
func TestAISPrecisionFromConfig(t *testing.T) {
	cfg := strings.Replace(tinyChi2, "train: {method: chi2, epochs: 3, batch_size: 40, learning_rate: 0.02, momentum: 0, final_momentum: 0, q_steps: 2}",
		"train: {method: cd, epochs: 1, batch_size: 40}", 1)
	cfg = strings.Replace(cfg, "final: [exact]", "final: [{name: ais, runs: 50, betas: 200}, {name: ais, runs: 50, betas: 200, precision: float64}]", 1)
	f, err := config.Parse([]byte(cfg), "tiny.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	rows, err := experiment.Run(f, experiment.Options{Out: t.TempDir(), Stderr: &stderr})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var logZ, se []float64
	for _, want := range []string{"float32", "float64"} {
		note := "AIS chains in " + want + " (log weights summed in float64)"
		for _, r := range rows {
			if r.Estimator == "ais" && r.Stage == "final" && slices.Contains(r.Notes, note) {
				logZ = append(logZ, float64(*r.LogZ))
				se = append(se, float64(*r.LogZHi1)-float64(*r.LogZ))
				break
			}
		}
	}
	if len(logZ) != 2 {
		t.Fatalf("want one final ais row noting float32 and one float64, got log Z %v", logZ)
	}
	// Paired runs: most follow one trajectory, so the two differ by far
	// less than the estimator's standard error.
	if d := logZ[0] - logZ[1]; d > se[1] || d < -se[1] {
		t.Errorf("float32 log Z %.6f, float64 %.6f ± %.3g", logZ[0], logZ[1], se[1])
	}
	bad := strings.Replace(cfg, "precision: float64", "precision: float16", 1)
	if _, err := config.Parse([]byte(bad), "tiny.yaml", config.Options{}); err == nil || !strings.Contains(err.Error(), "precision") {
		t.Errorf("precision: float16: error %v, want one naming precision", err)
	}
}
