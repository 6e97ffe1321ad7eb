package family

import (
	"fmt"

	"github.com/logz-ml/logz/models"
)

// Limits of the training settings shared by the families, far above what
// the papers use (at most a few thousand epochs, CD-25, minibatches of
// 100), so that a typo such as k: 1000000000 is an error naming the key
// when the config is read, instead of a run that sits at 0% for hours. The
// limits of the estimators' settings follow them.
const (
	// MaxEpochs bounds epochs (and a dbm's pretrain.epochs).
	MaxEpochs = 100_000
	// MaxK bounds the Gibbs sweeps per update (k, k_end, pretrain.k) and
	// the mean-field iterations of a dbm's positive phase.
	MaxK = 10_000
	// MaxUpdateSweeps bounds k × batch_size (CD: the chains start at the
	// minibatch) or k × chains (PCD): the Gibbs sweeps of examples one
	// parameter update takes. The papers' CD-25 on minibatches of 100 takes
	// 2,500 (0.1–0.2 s for a 784×500 RBM); the limit, 100 times that, is
	// 10–20 s, the longest the epoch's progress bar waits between two
	// minibatches.
	MaxUpdateSweeps = 250_000
	// MaxLayers bounds the number of entries of a list of layer sizes (a
	// model file's layers are bounded the same way).
	MaxLayers = models.MaxLayers
)

// CheckMax reports at key rel a count above limit; what names the limit
// ("family.MaxEpochs").
func CheckMax(p Problems, rel string, n, limit int, what string) { checkMax(p, rel, n, limit, what) }

// CheckEpochs reports epochs below 1 or above MaxEpochs at key rel.
func CheckEpochs(p Problems, rel string, n int) {
	p.Check(rel, n >= 1, "a positive integer", n)
	checkMax(p, rel, n, MaxEpochs, "family.MaxEpochs")
}

// CheckLayerCount reports a list of more than MaxLayers layer sizes at key
// rel.
func CheckLayerCount(p Problems, rel string, layers []int) {
	if len(layers) > MaxLayers {
		p.Errorf(rel, "expected at most %d layer sizes (family.MaxLayers), got %d", MaxLayers, len(layers))
	}
}

// CheckUpdateSweeps reports k × n above MaxUpdateSweeps, on the line of key
// kRel, once both are positive and within their own limits; nKey names n
// (batch_size or chains).
func CheckUpdateSweeps(p Problems, kRel string, k int, nKey string, n int) {
	if k >= 1 && k <= MaxK && n >= 1 && n <= 1<<30 && k*n > MaxUpdateSweeps {
		p.Crossf("", kRel, "%s × %s = %d × %d = %d Gibbs sweeps of examples per update is more than the limit of %d (family.MaxUpdateSweeps); lower %s or %s",
			kRel, nKey, k, n, k*n, MaxUpdateSweeps, kRel, nKey)
	}
}

// CheckK reports a count of Gibbs sweeps or iterations per update below 1
// or above MaxK at key rel.
func CheckK(p Problems, rel string, n int) {
	p.Check(rel, n >= 1, "a positive integer", n)
	checkMax(p, rel, n, MaxK, "family.MaxK")
}

// CheckUpdateDraws reports q_steps × q_samples, the draws of a χ² proposal
// q per parameter update, above MaxUpdateSweeps, on the line of q_steps,
// once both are within their own limits.
func CheckUpdateDraws(p Problems, qSteps, qSamples int) {
	if qSteps >= 1 && qSamples >= 1 && qSteps*qSamples > MaxUpdateSweeps {
		p.Crossf("", "q_steps", "q_steps × q_samples = %d × %d = %d draws of q per update is more than the limit of %d (family.MaxUpdateSweeps); lower q_steps or q_samples",
			qSteps, qSamples, qSteps*qSamples, MaxUpdateSweeps)
	}
}

// DataWarner is implemented by train settings that can tell, once the
// training set is loaded and its size known, that they will not do what
// they seem to (a minibatch larger than the training set). The runner
// prints the warnings when the experiment starts and adds them to its
// training rows (results.json, the report's warnings).
type DataWarner interface {
	DataWarnings(examples int) []string
}

// TrainWarnings returns the warnings of train settings s for a training set
// of n examples (none if s is not a DataWarner).
func TrainWarnings(s Settings, n int) []string {
	if w, ok := s.(DataWarner); ok {
		return w.DataWarnings(n)
	}
	return nil
}

// BatchWarning is the warning for a minibatch of batch examples on a
// training set of n examples: empty when batch ≤ n.
func BatchWarning(batch, n int) string {
	if batch <= n || n < 1 {
		return ""
	}
	return fmt.Sprintf("train.batch_size %d is larger than the training set (%d examples): every epoch is a single update on all %d; set batch_size ≤ %d for more updates per epoch", batch, n, n, n)
}

// BatchWarnings is BatchWarning as a list.
func BatchWarnings(batch, n int) []string {
	if w := BatchWarning(batch, n); w != "" {
		return []string{w}
	}
	return nil
}

// Limits of the annealing settings, far above what the papers use (AIS with
// 100 runs of 14,500 β; RAISE with K = 100,000), so that a typo such as
// betas: 1000000000000 is an error naming the key (or flag) instead of an
// out-of-memory crash: the β schedule alone takes 8 bytes per β.
const (
	// MaxBetas bounds betas, the number K of intermediate distributions.
	MaxBetas = 10_000_000
	// MaxRuns bounds the number of AIS runs, RAISE and CSL chains per
	// example, and importance samples per example.
	MaxRuns = 100_000
	// MaxSweeps bounds runs × betas, the Gibbs sweeps of one AIS estimate
	// (10^10: 700,000 times the 2008 paper's 1.45 million).
	MaxSweeps = 10_000_000_000
)

// checkMax reports at key rel a count above its limit.
func checkMax(p Problems, rel string, n, limit int, what string) {
	p.Check(rel, n <= limit, fmt.Sprintf("at most %d (%s)", limit, what), n)
}

// Limits of the fitter: MaxChi2Draws bounds its budget (steps × draws per
// step): 10^10 log p̃ evaluations, far above any sensible use; MaxChi2Steps
// bounds steps and warm_steps (500 times the default 2,000).
const (
	MaxChi2Draws = 10_000_000_000
	MaxChi2Steps = 1_000_000
)

// CheckMaxRuns reports at key rel a count of runs, chains or samples above
// MaxRuns (for estimator settings outside this package).
func CheckMaxRuns(p Problems, rel string, n int) { checkMax(p, rel, n, MaxRuns, "family.MaxRuns") }

// CheckSweeps reports runs × betas above MaxSweeps, on the line of key rel,
// once both are within their own limits.
func CheckSweeps(p Problems, rel string, runs, betas int) {
	if runs >= 1 && runs <= MaxRuns && betas >= 1 && betas <= MaxBetas && runs*betas > MaxSweeps {
		p.Crossf("", rel, "%s × betas = %d × %d = %d Gibbs sweeps is more than the limit of %d (family.MaxSweeps)", rel, runs, betas, runs*betas, int64(MaxSweeps))
	}
}
