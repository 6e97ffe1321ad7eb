package sigpair

// ScaleArgs are the operands of Scale, for one group of four lanes stored
// contiguously (lane q of element i at [4i + q]): A and S of the elements,
// W the flipped unit's outgoing row with e^{W} in EP and e^{−W} in EN, D
// the change of the unit's state per lane (+1, −1; 0 for no flip), Sel as
// in ShiftArgs (all ones: EN; 0: EP).
type ScaleArgs struct {
	A, S   []float64
	W      []float64
	EP, EN []float64
	D      [4]float64
	Sel    [4]uint64
}

// Scale is the flip update of unnormalised σ pairs, with no division: for
// every lane q with D[q] ≠ 0 and every element i it sets A[4i+q] +=
// D[q]·W[i] (Shift's addition) and S[4i+q] *= e_i (e_i = EN[i] where
// Sel[q] is all ones, EP[i] where it is 0), and leaves T alone: the ratio
// S/T = e^{a} then follows a, while S + T drifts from 1 (the caller keeps
// the normaliser Π (t + s) of a row itself). Lanes with D[q] = 0 are left
// untouched. The assembly performs each lane's operations as scaleGo does
// (the same bits).
func Scale(a *ScaleArgs) {
	n := len(a.W)
	if n == 0 {
		return
	}
	_, _, _, _ = a.EP[:n], a.EN[:n], a.A[:4*n], a.S[:4*n]
	if useAVX2 {
		scaleAVX2(a)
		return
	}
	scaleGo(a)
}

// scaleGo is Scale in Go (see prodGo).
func scaleGo(a *ScaleArgs) {
	for q := range 4 {
		d := a.D[q]
		if d == 0 {
			continue
		}
		e := a.EP
		if a.Sel[q]>>63 != 0 {
			e = a.EN
		}
		for i, w := range a.W {
			o := 4*i + q
			a.A[o] += float64(d * w)
			a.S[o] *= e[i]
		}
	}
}
