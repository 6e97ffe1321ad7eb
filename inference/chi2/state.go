package chi2

import (
	"fmt"
	"math"
	"strings"

	"github.com/logz-ml/logz/models"
)

// A fitted proposal is kept in a checkpoint as state arrays under a prefix
// (e.g. "chi2_q_" for the χ² trainer's q, "track_<n>_" for a tracked
// estimator's), so that training, tracking and `logz sample --init q`
// read one format:
//
//	<prefix>kind     bytes: "mixture" or "aux"
//	<prefix>shape    the proposal's Shape() (float64 integers)
//	<prefix>params   its parameters
//	<prefix>adam_m, <prefix>adam_s, <prefix>scalars   the fitter's state
//
// (saved as "state_<prefix>…" in model.npz, like every trainer state).

// PutState adds the fitter's state to a checkpoint's arrays and bytes.
func PutState(prefix string, f *Fitter, arrays map[string]models.Array, bytes map[string][]byte) {
	bytes[prefix+"kind"] = []byte(f.Q.Kind())
	shape := f.Q.Shape()
	sh := make([]float64, len(shape))
	for i, v := range shape {
		sh[i] = float64(v)
	}
	arrays[prefix+"shape"] = models.Array{Shape: []int{len(sh)}, Data: sh}
	for k, v := range f.State() {
		arrays[prefix+k] = models.Array{Shape: []int{len(v)}, Data: v}
	}
}

// HasState reports whether a checkpoint's state holds a proposal under prefix.
func HasState(prefix string, bytes map[string][]byte) bool {
	_, ok := bytes[prefix+"kind"]
	return ok
}

// CopySaved copies every proposal saved in the checkpoint from (the
// state under each prefix p with a "<p>kind" entry naming a proposal kind)
// into to, leaving the rest of from's state behind: what a model-only file
// keeps so that evaluation and sampling warm-start from the same q.
func CopySaved(to, from *models.Checkpoint) {
	var prefixes []string
	for k, v := range from.Bytes {
		if p, ok := strings.CutSuffix(k, "kind"); ok && (string(v) == KindMixture || string(v) == KindAux) {
			prefixes = append(prefixes, p)
		}
	}
	for _, p := range prefixes {
		from.CopyState(p, to.State, to.Bytes)
	}
}

// LoadState rebuilds a fitter with options opt from a checkpoint's state
// saved by PutState under prefix.
func LoadState(prefix string, opt FitOptions, arrays map[string]models.Array, bytes map[string][]byte) (*Fitter, error) {
	kind, ok := bytes[prefix+"kind"]
	if !ok {
		return nil, fmt.Errorf("no fitted proposal under %q in the checkpoint", prefix)
	}
	sa, ok := arrays[prefix+"shape"]
	if !ok || len(sa.Data) > 8 {
		return nil, fmt.Errorf("checkpoint state %sshape: missing or malformed", prefix)
	}
	shape := make([]int, len(sa.Data))
	for i, v := range sa.Data {
		if v != math.Trunc(v) || v < 1 || v > MaxDim {
			return nil, fmt.Errorf("checkpoint state %sshape: %v is not a list of sizes", prefix, sa.Data)
		}
		shape[i] = int(v)
	}
	q, err := NewProposal(string(kind), shape)
	if err != nil {
		return nil, fmt.Errorf("checkpoint state %s: %w", prefix, err)
	}
	f, err := NewFitter(q, opt)
	if err != nil {
		return nil, err
	}
	st := map[string][]float64{}
	for _, k := range []string{"params", "adam_m", "adam_s", "scalars"} {
		a, ok := arrays[prefix+k]
		if !ok {
			return nil, fmt.Errorf("checkpoint state %s%s is missing", prefix, k)
		}
		st[k] = a.Data
	}
	if err := f.Restore(st); err != nil {
		return nil, fmt.Errorf("checkpoint state %s: %w", prefix, err)
	}
	return f, nil
}
