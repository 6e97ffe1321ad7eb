package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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

// TestPartNamesChecked: a file in a parts folder whose name claims a shard
// count outside [1, MaxShards] or an index outside [0, count) is an error
// naming it, before a merge makes room for that many parts (eval-0-of--5.json
// once panicked in make, eval-0-of-4000000000.json asked for 64 GB); a
// well-formed name is listed.
func TestPartNamesChecked(t *testing.T) {
	for _, c := range []struct {
		file string
		bad  bool
	}{
		{"eval-0-of--5.json", true},
		{"eval-0-of-4000000000.json", true},
		{"eval-3-of-3.json", true},
		{"eval--1-of-3.json", true},
		{"eval-2-of-3.json", false},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, c.file), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		names, shards, err := evalParts(dir, "")
		switch {
		case c.bad && (err == nil || !strings.Contains(err.Error(), c.file) || !strings.Contains(err.Error(), "not a part logz writes")):
			t.Errorf("%s: got %v", c.file, err)
		case !c.bad && (err != nil || len(names) != 1 || shards[0] != Shard{Index: 2, Count: 3}):
			t.Errorf("%s: got %v %v %v", c.file, names, shards, err)
		}
		if c.bad {
			if _, problems := collectParts(dir, "", Fingerprint{}, "test"); len(problems) == 0 || !strings.Contains(problems[0], c.file) {
				t.Errorf("%s: merge: %v", c.file, problems)
			}
		}
	}
}
