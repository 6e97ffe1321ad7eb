package seeds

import "testing"

func TestSplitmix64(t *testing.T) {
	// splitmix64 is SplitMix64's output function: the first output of the
	// generator seeded with 0 is 0xe220a8397b1dcdaf (the reference
	// implementation by Vigna).
	if got := splitmix64(0); got != 0xe220a8397b1dcdaf {
		t.Errorf("splitmix64(0) = %#x, want 0xe220a8397b1dcdaf", got)
	}
}
