package sbn

// The within-layer (autoregressive) input of a layer of k units with
// weights S (k × k, strictly lower triangular): unit i receives
// Σ_{j<i} S[i,j] h_j. Every sum here adds its terms one after another in
// increasing j, and every gradient entry its terms in increasing state
// order, so each result has the bits of the one-state, one-unit loop
// (addLower); only the order in which the independent sums advance
// differs. Rows are taken four at a time, the four sums side by side over
// the units below the first (instead of one dependent chain of additions),
// and for every state in turn while the rows stay in the L1 cache (where
// state after state would stream the whole k × k matrix through the
// caches once per state).
//
// The states are M = Q·G, states q·G + r (r < G) sharing their units at
// 1, on[span[2qG]:span[2qG+1]] in increasing order (the S states of one
// example share the data). cur (Q cursors) is scratch.

// addLower returns a + Σ S[i,j] over the units j < i at 1 (on, in
// increasing order), added one after another: the within-layer input of
// unit i of a layer with weights S (k × k).
func addLower(a float64, S []float64, k, i int, on []int32) float64 {
	row := S[i*k : i*k+i]
	for _, j := range on {
		if int(j) >= i {
			break
		}
		a += row[j]
	}
	return a
}

// addLowerAll adds to the activation a_m[i] = A[m·k + i] of every state m
// its within-layer input (addLower's bits).
func addLowerAll(A, S []float64, k, M, G int, on, span, cur []int32) {
	Q := M / G
	cur = startCursors(cur, Q, G, span)
	for i := 0; i < k; i += 4 {
		c := min(4, k-i)
		for q := range Q {
			below, tail := advance(cur, q, G, i, c, on, span)
			for m := q * G; m < (q+1)*G; m++ {
				addLowerRows(A[m*k+i:m*k+i+c], S, k, i, below, tail)
			}
		}
	}
}

// addLowerGrad adds, for every state m in turn, δ_m[i] = D[m·k + i] to
// the gradient gS[i,j] of S over its units j < i at 1.
func addLowerGrad(gS, D []float64, k, M, G int, on, span, cur []int32) {
	Q := M / G
	cur = startCursors(cur, Q, G, span)
	for i := range k {
		row := gS[i*k : i*k+i]
		for q := range Q {
			below, _ := advance(cur, q, G, i, 1, on, span)
			for m := q * G; m < (q+1)*G; m += 4 {
				addToRow(row, below, D[m*k+i:], k, min(4, (q+1)*G-m))
			}
		}
	}
}

// startCursors sets group q's cursor to the start of its units at 1.
func startCursors(cur []int32, Q, G int, span []int32) []int32 {
	cur = cur[:Q]
	for q := range cur {
		cur[q] = span[2*q*G]
	}
	return cur
}

// advance moves group q's cursor past its units below i and returns those
// units, and its units from i up to below i + c − 1 (the others the rows
// i, …, i + c − 1 add).
func advance(cur []int32, q, G, i, c int, on, span []int32) (below, tail []int32) {
	lo, hi := span[2*q*G], span[2*q*G+1]
	p := cur[q]
	for p < hi && int(on[p]) < i {
		p++
	}
	cur[q] = p
	e := p
	for e < hi && int(on[e]) < i+c-1 {
		e++
	}
	return on[lo:p], on[p:e]
}

// addLowerRows adds to a[r] (r < len(a) ≤ 4) the within-layer input of
// unit i + r: Σ S[i+r, j] over the units at 1 below i (below), then over
// those from i up to i + r − 1 (tail), one term after another.
func addLowerRows(a, S []float64, k, i int, below, tail []int32) {
	if len(a) == 4 {
		r0, r1, r2, r3 := S[i*k:i*k+i], S[(i+1)*k:(i+1)*k+i], S[(i+2)*k:(i+2)*k+i], S[(i+3)*k:(i+3)*k+i]
		a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
		for _, j := range below {
			a0 += r0[j]
			a1 += r1[j]
			a2 += r2[j]
			a3 += r3[j]
		}
		a[0], a[1], a[2], a[3] = a0, a1, a2, a3
	} else {
		for r := range a {
			row, x := S[(i+r)*k:(i+r)*k+i], a[r]
			for _, j := range below {
				x += row[j]
			}
			a[r] = x
		}
	}
	for r := 1; r < len(a); r++ {
		row, x := S[(i+r)*k:(i+r+1)*k], a[r]
		for _, j := range tail {
			if int(j) >= i+r {
				break
			}
			x += row[j]
		}
		a[r] = x
	}
}

// addToRow adds the c ≤ 4 values d[0], d[k], …, d[(c−1)·k], one after
// another in that order, to row[j] for every j in js.
func addToRow(row []float64, js []int32, d []float64, k, c int) {
	switch c {
	case 1:
		x0 := d[0]
		for _, j := range js {
			row[j] += x0
		}
	case 2:
		x0, x1 := d[0], d[k]
		for _, j := range js {
			row[j] = row[j] + x0 + x1
		}
	case 3:
		x0, x1, x2 := d[0], d[k], d[2*k]
		for _, j := range js {
			row[j] = row[j] + x0 + x1 + x2
		}
	default:
		x0, x1, x2, x3 := d[0], d[k], d[2*k], d[3*k]
		for _, j := range js {
			row[j] = row[j] + x0 + x1 + x2 + x3
		}
	}
}
