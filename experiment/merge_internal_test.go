package experiment

import "testing"

// TestMissingShards: one missing shard reads as one ("shard 0 of 2 is
// missing", not "shards 0 of 2 are missing", which reads as none); several
// are listed with "and", runs of three or more as a range.
func TestMissingShards(t *testing.T) {
	for _, c := range []struct {
		missing []int
		n       int
		want    string
	}{
		{[]int{0}, 2, "shard 0 of 2 is missing"},
		{[]int{1}, 2, "shard 1 of 2 is missing"},
		{[]int{0, 2}, 4, "shards 0 and 2 of 4 are missing"},
		{[]int{0, 1}, 3, "shards 0 and 1 of 3 are missing"},
		{[]int{0, 2, 3}, 4, "shards 0, 2 and 3 of 4 are missing"},
		{[]int{0, 1, 2, 3, 4, 5, 9, 12, 13, 14}, 16, "shards 0–5, 9 and 12–14 of 16 are missing"},
		{[]int{3, 4, 5}, 8, "shards 3–5 of 8 are missing"},
	} {
		if got := missingShards(c.missing, c.n); got != c.want {
			t.Errorf("missingShards(%v, %d) = %q, want %q", c.missing, c.n, got, c.want)
		}
	}
}
