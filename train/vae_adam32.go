package train

import (
	"github.com/logz-ml/logz/internal/mlp"
	"github.com/logz-ml/logz/internal/optim"
)

// The float32 engine's fused Adam steps of the nets' weights keep the
// moments M and S of the weight entries in float32 (16 bytes less state to
// read and write per weight each step), compute them and the step in
// float32 (eight square roots and divisions an instruction) and take the
// step on the float32 copy of the weights, writing the float64 weights as
// its exact widening without reading them (optim.Step32.RangeW32: 8 bytes
// less again; the weights are float32 values from the first step); the biases,
// the prior and the float64 engine keep them in float64. The float64
// arrays of optim.Adam stay the state that checkpoints hold: Checkpoint
// widens the float32 moments into them first (exactly), so the format is
// unchanged and a checkpoint of either kind resumes; the float32 moments
// are made from them (rounded) at the first step after a resume.

// moments32 is the float32 M and S of one net (all its entries; only the
// weights' are used).
type moments32 struct{ m, s []float32 }

// moments32Of returns net a's float32 moments; they exist for every net
// of the step (ensureMoments32), so the step's jobs only read the map.
func (t *VAETrainer) moments32Of(a *optim.Adam) *moments32 { return t.mom32[a] }

// ensureMoments32 makes the float32 moments of the nets' Adam states that
// have none, rounding their float64 M and S.
func (t *VAETrainer) ensureMoments32(adams []*optim.Adam) {
	if t.mom32 == nil {
		t.mom32 = map[*optim.Adam]*moments32{}
	}
	for _, a := range adams {
		if t.mom32[a] != nil {
			continue
		}
		mm := &moments32{m: make([]float32, len(a.M)), s: make([]float32, len(a.S))}
		for i, x := range a.M {
			mm.m[i] = float32(x)
		}
		for i, x := range a.S {
			mm.s[i] = float32(x)
		}
		t.mom32[a] = mm
	}
}

// widenMoments32 copies the float32 moments of the weights into the
// float64 Adam states (Checkpoint; before the float32 ones are dropped).
func (t *VAETrainer) widenMoments32() {
	for a, mm := range t.mom32 {
		net := t.netOf(a)
		if net == nil {
			continue
		}
		s := net.Sizes()
		o := 0
		for l := range len(s) - 1 {
			for i := o; i < o+s[l]*s[l+1]; i++ {
				a.M[i], a.S[i] = float64(mm.m[i]), float64(mm.s[i])
			}
			o += (s[l] + 1) * s[l+1]
		}
	}
}

// dropMoments32 keeps the float32 moments in the float64 states (keep:
// InitParams) or not (Resume, which has just loaded them) and drops them.
func (t *VAETrainer) dropMoments32(keep bool) {
	if keep {
		t.widenMoments32()
	}
	t.mom32 = nil
}

// netOf is the net whose Adam state is a.
func (t *VAETrainer) netOf(a *optim.Adam) *mlp.Net {
	switch a {
	case &t.adamEnc:
		return t.M.Enc
	case &t.adamDec:
		return t.M.Dec
	case &t.adamBase:
		return t.Base
	}
	if t.M.Aux != nil {
		for i, n := range t.M.Aux.Nets() {
			if a == &t.adamAux[i] {
				return n
			}
		}
	}
	return nil
}
