//go:build amd64 && !purego

package sigpair

// scaleAVX2k is Scale on elements [0, n) (anneal_amd64.s).
//
//go:noescape
func scaleAVX2k(a, s, w, ep, en *float64, n int, d *[4]float64, sel *[4]uint64)

func scaleAVX2(a *ScaleArgs) {
	scaleAVX2k(&a.A[0], &a.S[0], &a.W[0], &a.EP[0], &a.EN[0], len(a.W), &a.D, &a.Sel)
}
