package eval

import "github.com/logz-ml/logz/internal/shard"

// Units shares the independent units of an estimator's work among the
// processes (shards) of a sharded evaluation: shard.Units, where its
// contract is written.
type Units = shard.Units

// Mine is shard.Mine: whether this process computes unit u.
func Mine(units Units, u int) bool { return shard.Mine(units, u) }

// Complete is shard.Complete.
func Complete(units Units, n, width int, vals []float64) error {
	return shard.Complete(units, n, width, vals)
}

// CompleteColumns is shard.CompleteColumns.
func CompleteColumns(units Units, cols ...[]float64) error {
	return shard.CompleteColumns(units, cols...)
}
