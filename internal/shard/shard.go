// Package shard is the contract by which an estimator's independent units
// of work are shared among the processes of a sharded evaluation (Units),
// for every package that estimates: eval and the model families' own
// estimators.
package shard

// Units shares the independent units of an estimator's work among the
// processes (shards) of a sharded evaluation: the runs of AIS, the
// (example, chain) pairs of RAISE, the chain groups of CSL, the examples
// (or blocks of proposals) of importance sampling. Every unit draws its
// random numbers from a stream keyed by the estimator's seed and the unit's
// index alone, so a unit has the same value whichever process computes it,
// and the estimate summarised from all the units' values is the same, bit
// for bit, as when one process computes them all.
//
// An estimator given Units computes only the units Mine accepts (Mine may
// be called from several goroutines) and then calls Complete once with the
// values of all n units, width numbers per unit, unit-major: unit u's at
// vals[u·width : (u+1)·width], those of the units it did not compute
// left at zero (Complete checks: a unit computed by the wrong process would
// waste that process's time). Complete fills them in — in a merge, from the values the shards
// recorded; in a shard, it records this shard's and fills the others with
// stand-ins, as that shard's estimate is not used — and then the estimator
// summarises vals as usual. A nil Units computes every unit.
//
// A unit's values must depend on the estimator's inputs, settings and seed
// alone — not on anything computed from other units of the same
// evaluation, such as an AIS log Ẑ subtracted from every example, which a
// shard knows only from its stand-ins: such a term is applied after
// Complete.
type Units interface {
	Mine(u int) bool
	Complete(n, width int, vals []float64) error
}

// Mine reports whether this process computes unit u of units (always
// without Units).
func Mine(units Units, u int) bool { return units == nil || units.Mine(u) }

// Complete hands the values of n units, width per unit, to units (see
// Units); without Units there is nothing to do.
func Complete(units Units, n, width int, vals []float64) error {
	if units == nil {
		return nil
	}
	return units.Complete(n, width, vals)
}

// CompleteColumns hands per-unit values kept in separate slices of equal
// length (one unit per index; e.g. an estimate and its error per example)
// to units, packed unit-major, and unpacks what Complete filled in.
func CompleteColumns(units Units, cols ...[]float64) error {
	if units == nil || len(cols) == 0 {
		return nil
	}
	n, w := len(cols[0]), len(cols)
	vals := make([]float64, n*w)
	for u := range n {
		for k, c := range cols {
			vals[u*w+k] = c[u]
		}
	}
	if err := units.Complete(n, w, vals); err != nil {
		return err
	}
	for u := range n {
		for k, c := range cols {
			c[u] = vals[u*w+k]
		}
	}
	return nil
}
