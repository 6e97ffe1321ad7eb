package models_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/brute"
	"github.com/logz-ml/logz/internal/npyx"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// TestMoBLogProbAgainstEnumeration: on tiny random mixtures (D ≤ 10) log
// p(x) equals the log of the definition's sum of products (modeltest.MoB, in
// plain probabilities) for every one of the 2^D states, and p sums to 1
// over them; unnormalised log-weights mean the normalised mixture. The
// tolerance is float64 rounding of sums of D + K terms of size ≤ 30.
// Mutation checked: dropping the softplus sum from Base (log p(x|k)
// without its normaliser) fails both checks; normalising the weights with
// the first weight instead of the logsumexp fails them too.
func TestMoBLogProbAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ K, D int }{{1, 1}, {1, 5}, {3, 6}, {7, 10}, {2, 9}} {
		m, err := modeltest.RandomMoB(c.K, c.D, 2, rng)
		if err != nil {
			t.Fatal(err)
		}
		m.LogWeights[0] += 3 // unnormalised
		tab := m.NewMoBTables()
		a := make([]float64, c.K)
		var on []int32
		total := 0.0
		for code := range 1 << c.D {
			x := brute.Bits(code, c.D)
			var lp float64
			lp, on = tab.LogProb(x, a, on)
			want := math.Log(modeltest.MoB(m, x))
			if math.Abs(lp-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("%s x=%v: log p %.15g, by definition %.15g", m.Label(), x, lp, want)
			}
			if l := m.LogProb(x); l != lp {
				t.Errorf("%s x=%v: MoB.LogProb %v, tables %v", m.Label(), x, l, lp)
			}
			total += math.Exp(lp)
		}
		if math.Abs(total-1) > 1e-12 {
			t.Errorf("%s: p sums to %.15g over all %d states", m.Label(), total, 1<<c.D)
		}
	}
}

// TestMoBJointIsComponentLogLik: a_k from the tables is log π_k + log
// p(x|k) by the definition, for each component separately (so the
// responsibilities a trainer takes from it are right, not only their
// logsumexp). Mutation checked: transposing Lt wrongly (Lt[k·D+d]) fails.
func TestMoBJointIsComponentLogLik(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m, err := modeltest.RandomMoB(4, 7, 1.5, rng)
	if err != nil {
		t.Fatal(err)
	}
	tab := m.NewMoBTables()
	a := make([]float64, 4)
	logPi := m.LogMix()
	for code := range 1 << 7 {
		x := brute.Bits(code, 7)
		tab.Joint(a, models.OnUnits(x, nil))
		for k := range 4 {
			one := &models.MoB{K: 1, D: 7, LogWeights: []float64{0}, Logits: m.Logits[k*7 : (k+1)*7]}
			want := logPi[k] + math.Log(modeltest.MoB(one, x))
			if math.Abs(a[k]-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Fatalf("x=%v component %d: a %.15g, want %.15g", x, k, a[k], want)
			}
		}
	}
}

var mobCodecs = models.Codecs{models.MoBType}

// TestMoBCheckpointRoundTrip: a mixture saved to model.npz loads back the
// same bits, shapes and label.
func TestMoBCheckpointRoundTrip(t *testing.T) {
	m, err := modeltest.RandomMoB(5, 12, 3, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "m.npz")
	if err := models.Save(p, &models.Checkpoint{Model: m}, mobCodecs); err != nil {
		t.Fatal(err)
	}
	c, err := models.Load(p, mobCodecs)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Model.(*models.MoB)
	if got.Label() != "mob 12-5" || got.K != 5 || got.D != 12 {
		t.Fatalf("loaded %s, saved %s", got.Label(), m.Label())
	}
	for i, v := range m.Logits {
		if math.Float64bits(got.Logits[i]) != math.Float64bits(v) {
			t.Fatalf("logits[%d]: %v, saved %v", i, got.Logits[i], v)
		}
	}
	for k, v := range m.LogWeights {
		if math.Float64bits(got.LogWeights[k]) != math.Float64bits(v) {
			t.Fatalf("log_weights[%d]: %v, saved %v", k, got.LogWeights[k], v)
		}
	}
}

// TestMoBBadArraysAndSizes: wrong shapes, non-finite values and absurd
// sizes are errors that name the array or the limit. Mutation checked:
// dropping the log_weights length check loads a 3-row logits with 2
// weights.
func TestMoBBadArraysAndSizes(t *testing.T) {
	arr := func(shape []int, data []float64) *npyx.Array { return &npyx.Array{Shape: shape, Data: data} }
	for _, c := range []struct {
		a    map[string]*npyx.Array
		want string
	}{
		{map[string]*npyx.Array{"logits": arr([]int{2, 2}, make([]float64, 4))}, "needs arrays log_weights"},
		{map[string]*npyx.Array{"log_weights": arr([]int{2}, make([]float64, 2)), "logits": arr([]int{4}, make([]float64, 4))}, "logits has shape [4]"},
		{map[string]*npyx.Array{"log_weights": arr([]int{2}, make([]float64, 2)), "logits": arr([]int{3, 2}, make([]float64, 6))}, "log_weights has shape [2]"},
		{map[string]*npyx.Array{"log_weights": arr([]int{1}, []float64{0}), "logits": arr([]int{1, 2}, []float64{0, math.NaN()})}, "logits[0,1] is NaN"},
		{map[string]*npyx.Array{"log_weights": arr([]int{1}, []float64{math.Inf(-1)}), "logits": arr([]int{1, 1}, []float64{0})}, "log_weights[0] is -Inf"},
	} {
		_, err := models.MoBType.FromArrays(c.a)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error containing %q, got %v", c.want, err)
		}
	}
	for _, c := range []struct {
		K, D int
		want string
	}{{0, 5, "0 components"}, {models.MaxMoBComponents + 1, 5, "components"}, {-3, 5, "-3 components"}, {2, 0, "0 units"}, {60000, 1 << 20, "models.MaxParams"}} {
		if _, err := models.NewMoB(c.K, c.D); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewMoB(%d, %d): want an error containing %q, got %v", c.K, c.D, c.want, err)
		}
	}
	if _, err := models.MoBType.New(5, []int{3, 4}); err == nil {
		t.Error("MoBType.New with two sizes made a mixture")
	}
}
