//go:build !amd64 || purego

package sigpair

var useAVX2 = false

func prodAVX2(ng int, a *ProdArgs) bool { return prodGo(0, ng, a) }

func shiftAVX2(a *ShiftArgs) bool { return shiftGo(a) }

func prod2AVX2(a, b *ProdArgs) (bool, bool) { return prodGo(0, 1, a), prodGo(0, 1, b) }

func prod32AVX2(a *Prod32Args) bool { return prod8Go(a) }

func shift32AVX2(sh *Shift32Args) bool { return shift8Go(sh) }

func rhoAVX2(sh, pr *RhoArgs) uint16 {
	var r uint16
	if sh != nil {
		r = uint16(rhoGo(sh))
	}
	if pr != nil && rhoProdGo(pr) {
		r |= 1 << 8
	}
	return r
}
