package kernel

import (
	"strings"
	"testing"
)

func TestPrecision(t *testing.T) {
	if Of[float32]() != Float32 || Of[float64]() != Float64 {
		t.Fatalf("Of: %s %s", Of[float32](), Of[float64]())
	}
	for _, c := range []struct {
		in   string
		want Precision
		err  bool
	}{{"", Float64, false}, {"float32", Float32, false}, {"float64", Float64, false}, {"f32", "", true}} {
		got, err := Parse(c.in, Float64)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("Parse(%q) = %q, %v", c.in, got, err)
		}
	}
	if err := Check("x", "", Float64); err != nil {
		t.Errorf("unset checkpoint precision is float64: %v", err)
	}
	if err := Check("vae trainer state", Float32, Float64); err == nil || !strings.Contains(err.Error(), "float32") {
		t.Errorf("mismatch not refused: %v", err)
	}
}
