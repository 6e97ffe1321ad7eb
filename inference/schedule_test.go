package inference

import (
	"math"
	"strings"
	"testing"
)

func TestLinearSchedule(t *testing.T) {
	b := LinearSchedule(7)
	if len(b) != 8 || b[0] != 0 || b[7] != 1 || math.Abs(b[3]-3.0/7) > 1e-16 {
		t.Fatalf("LinearSchedule(7) = %v", b)
	}
	if err := ValidateSchedule(b); err != nil {
		t.Fatal(err)
	}
	if LinearSchedule(0) != nil {
		t.Fatal("LinearSchedule(0) should be nil")
	}
}

// TestSchedule2008 checks the counts and spacings of the 2008 schedule.
func TestSchedule2008(t *testing.T) {
	b := Schedule2008()
	if len(b) != 14500 {
		t.Fatalf("%d values, want 14,500", len(b))
	}
	if err := ValidateSchedule(b); err != nil {
		t.Fatal(err)
	}
	var n1, n2, n3 int
	for _, x := range b {
		switch {
		case x < 0.5:
			n1++
		case x < 0.9:
			n2++
		default:
			n3++
		}
	}
	if n1 != 500 || n2 != 4000 || n3 != 10000 {
		t.Fatalf("segments hold %d, %d, %d values; want 500, 4000, 10000", n1, n2, n3)
	}
	for _, c := range []struct {
		k    int
		want float64
	}{{1, 0.001}, {499, 0.499}, {500, 0.5}, {501, 0.5001}, {4500, 0.9}, {14499, 1}} {
		if math.Abs(b[c.k]-c.want) > 1e-12 {
			t.Errorf("β_%d = %v, want %v", c.k, b[c.k], c.want)
		}
	}
	if math.Abs((b[14499]-b[14498])-0.1/9999) > 1e-15 {
		t.Errorf("last spacing %v, want 0.1/9999", b[14499]-b[14498])
	}
}

func TestPiecewiseSchedule(t *testing.T) {
	for _, K := range []int{3, 4, 10, 29, 100, 1000, 14499, 100000} {
		b := PiecewiseSchedule(K)
		if len(b) != K+1 {
			t.Fatalf("K=%d: %d values, want %d", K, len(b), K+1)
		}
		if err := ValidateSchedule(b); err != nil {
			t.Fatalf("K=%d: %v", K, err)
		}
		// The three segments keep the 2008 proportions (to rounding).
		n1, n2 := 0, 0
		for _, x := range b {
			if x < 0.5 {
				n1++
			} else if x < 0.9 {
				n2++
			}
		}
		if K >= 100 {
			if f := float64(n1) / float64(K+1); math.Abs(f-500.0/14500) > 1.0/float64(K+1) {
				t.Errorf("K=%d: first segment fraction %v", K, f)
			}
			if f := float64(n2) / float64(K+1); math.Abs(f-4000.0/14500) > 1.0/float64(K+1) {
				t.Errorf("K=%d: second segment fraction %v", K, f)
			}
		}
	}
	for _, K := range []int{1, 2} {
		if err := ValidateSchedule(PiecewiseSchedule(K)); err != nil {
			t.Errorf("K=%d: %v", K, err)
		}
	}
	if PiecewiseSchedule(0) != nil {
		t.Error("PiecewiseSchedule(0) should be nil")
	}
}

func TestValidateSchedule(t *testing.T) {
	for _, c := range []struct {
		b    []float64
		want string
	}{
		{nil, "at least 2"},
		{[]float64{0}, "at least 2"},
		{[]float64{0.1, 1}, "β_0 = 0.1"},
		{[]float64{0, 0.5}, "index 1"},
		{[]float64{0, 0.6, 0.4, 1}, "β_2 = 0.4"},
		{[]float64{0, 0.5, 0.5, 1}, "β_2 = 0.5"},
		{[]float64{0, math.NaN(), 1}, "β_1 = NaN"},
	} {
		err := ValidateSchedule(c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.b, err, c.want)
		}
	}
}
