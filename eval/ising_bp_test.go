package eval

import (
	"math"
	"math/bits"
	"testing"

	"github.com/logz-ml/logz/models"
)

// exactIsing returns log Z by enumeration and the marginals P(x_i = 1)
// (from E[s_i] of the transfer matrix).
func exactIsing(t *testing.T, m *models.Ising) (float64, []float64) {
	t.Helper()
	logZ, err := m.LogZEnum(models.MaxIsingEnum, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, stats, err := m.ExpectedStats()
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, m.NumVisible())
	for i := range p {
		p[i] = stats[i]
		if m.Spins == models.SpinsPM1 {
			p[i] = (stats[i] + 1) / 2
		}
	}
	return logZ, p
}

// TestBetheExactOnTrees: a 1×n or n×1 grid is a tree (a chain), where BP
// converges to the exact marginals and log Z_Bethe = log Z. Strong
// couplings (|J| ≤ 2), random fields, both spin conventions, with and
// without damping; the tolerance 1e-10 is float64 rounding of sums of a
// few dozen terms of size ≤ 30 (≈ 1e-13) with room, and the messages
// stop changing by 1e-13.
func TestBetheExactOnTrees(t *testing.T) {
	bp := BetheBP{Damping: 0.5, Tol: 1e-13, MaxIter: 10000}
	for _, sp := range []models.Spins{models.SpinsPM1, models.Spins01} {
		for k, g := range [][2]int{{1, 1}, {1, 2}, {2, 1}, {1, 7}, {9, 1}} {
			m := isingModel(g[0], g[1], sp, 2, uint64(40+k))
			exact, marg := exactIsing(t, m)
			for _, d := range []float64{0, 0.5} {
				bp.Damping = d
				res, err := bp.Run(m)
				if err != nil {
					t.Fatal(err)
				}
				if !res.Converged {
					t.Errorf("%s damping %v: not converged after %d sweeps (residual %g)", m.Label(), d, res.Iterations, res.Residual)
				}
				if math.Abs(res.LogZ-exact) > 1e-10 {
					t.Errorf("%s damping %v: Bethe log Z %.14f, exact %.14f (diff %.2e)", m.Label(), d, res.LogZ, exact, res.LogZ-exact)
				}
				for i := range marg {
					if math.Abs(res.Marginals[i]-marg[i]) > 1e-10 {
						t.Errorf("%s damping %v: P(x_%d=1) by BP %.12f, exact %.12f", m.Label(), d, i, res.Marginals[i], marg[i])
					}
				}
			}
		}
	}
}

// evenSubgraphSum returns log Σ_S Π_{e∈S} tanh J_e over the edge sets S
// of the grid in which every site has even degree (the high-temperature
// expansion: at zero fields, spins pm1, Z = 2^D Π_e cosh J_e · that sum),
// by enumerating all 2^E edge sets.
func evenSubgraphSum(m *models.Ising) float64 {
	R, C := m.Rows, m.Cols
	type edge struct {
		i, j int
		t    float64
	}
	var es []edge
	for r := range R {
		for c := 0; c+1 < C; c++ {
			es = append(es, edge{r*C + c, r*C + c + 1, math.Tanh(m.CouplingH[r*(C-1)+c])})
		}
	}
	for r := 0; r+1 < R; r++ {
		for c := range C {
			es = append(es, edge{r*C + c, (r+1)*C + c, math.Tanh(m.CouplingV[r*C+c])})
		}
	}
	sum := 0.0
	for S := uint64(0); S < 1<<len(es); S++ {
		var odd uint64 // bit i: site i has odd degree in S
		w := 1.0
		for k := range es {
			if S>>k&1 == 1 {
				odd ^= 1<<es[k].i | 1<<es[k].j
				w *= es[k].t
			}
		}
		if bits.OnesCount64(odd) == 0 {
			sum += w
		}
	}
	return math.Log(sum)
}

// TestBetheLoopCorrectionAtZeroField: with zero fields (spins pm1) the
// uniform messages are a fixed point for every J, where log Z_Bethe =
// D log 2 + Σ_e log cosh J_e, so log Z − log Z_Bethe is exactly the
// high-temperature loop sum log Σ_{even S} Π tanh J_e: about
// (plaquettes)·tanh⁴J while the couplings are weak (3×3 at J ≈ 0.1:
// 4·10⁻⁴); for a strong uniform ferromagnet it nears (E − D + 1)·log 2,
// one log 2 per independent cycle (BP stays paramagnetic and misses the
// ordered states' mass); with mixed signs frustrated plaquettes count
// negatively and the Bethe number can lie above log Z. Checked to 1e-10
// against enumeration for weak, mixed-sign and strong couplings.
func TestBetheLoopCorrectionAtZeroField(t *testing.T) {
	for k, c := range []struct {
		R, C  int
		J     float64
		ferro bool
	}{{2, 2, 0.1, true}, {3, 3, 0.1, true}, {3, 3, 0.1, false}, {3, 4, 0.3, false}, {3, 3, 1.5, false}, {3, 4, 3, false}, {3, 3, 3, true}} {
		m := isingModel(c.R, c.C, models.SpinsPM1, c.J, uint64(60+k))
		for i := range m.Fields {
			m.Fields[i] = 0
		}
		if c.ferro {
			for _, J := range [][]float64{m.CouplingH, m.CouplingV} {
				for i := range J {
					J[i] = c.J
				}
			}
		}
		exact, _ := exactIsing(t, m)
		res, err := DefaultBetheBP.Run(m)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged {
			t.Fatalf("%s J≤%v: not converged", m.Label(), c.J)
		}
		want := evenSubgraphSum(m)
		if got := exact - res.LogZ; math.Abs(got-want) > 1e-10 {
			t.Errorf("%s J≤%v: log Z − log Z_Bethe = %.12f, loop sum %.12f", m.Label(), c.J, got, want)
		}
		if c.ferro && c.J >= 3 {
			cycles := float64(len(m.CouplingH) + len(m.CouplingV) - m.NumVisible() + 1)
			t.Logf("%s J≤%v: Bethe error %.3f nats; (E−D+1)·log 2 = %.3f", m.Label(), c.J, exact-res.LogZ, cycles*math.Ln2)
		}
	}
}

// TestBetheWeakCouplingWithFields: a loopy 4×4 grid with random fields in
// [−1, 1] and couplings in [−c, c]. The loop series (Chertkov & Chernyak
// 2006) puts log Z − log Z_Bethe at Σ over generalised loops of products
// of the edges' BP correlation coefficients μ_e; the 9 plaquettes lead,
// each with |Π μ_e| ≤ tanh(2c)⁴ (a pair's correlation coefficient is at
// most Yule's Q = tanh 2|J| in magnitude, whatever its fields). The error
// must be within 9·tanh(2c)⁴ — one plaquette term each, with the larger
// loops' terms (≤ tanh(2c)⁶ each) a small fraction of it — for c = 0.05
// and 0.1 (measured: 4e-7 and 2e-6 nats against bounds 9e-4 and 1.4e-2;
// the fields shrink the correlations far below Q). The marginals' errors
// come from the same loops through the site and are held to 4·tanh(2c)⁴.
func TestBetheWeakCouplingWithFields(t *testing.T) {
	for _, sp := range []models.Spins{models.SpinsPM1, models.Spins01} {
		for k, c := range []float64{0.05, 0.1} {
			m := isingModel(4, 4, sp, c, uint64(80+k))
			exact, marg := exactIsing(t, m)
			res, err := DefaultBetheBP.Run(m)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged {
				t.Fatalf("%s c=%v: not converged", m.Label(), c)
			}
			tq := math.Tanh(2 * c)
			if sp == models.Spins01 {
				tq = math.Tanh(c / 2) // J s s' with s ∈ {0,1} is J/4 in pm1 units, and fields absorb the rest
			}
			bound := 9 * math.Pow(tq, 4)
			err2 := exact - res.LogZ
			t.Logf("%s c=%v: log Z − log Z_Bethe = %.3g (bound %.3g)", m.Label(), c, err2, bound)
			if math.Abs(err2) > bound {
				t.Errorf("%s c=%v: Bethe error %.3g above the plaquette bound %.3g", m.Label(), c, err2, bound)
			}
			// Marginals: a site's error comes from the loops through it, at
			// most 4 plaquettes, each a product of 4 correlations.
			worst := 0.0
			for i := range marg {
				worst = max(worst, math.Abs(res.Marginals[i]-marg[i]))
			}
			t.Logf("%s c=%v: largest marginal error %.3g (bound %.3g)", m.Label(), c, worst, 4*math.Pow(tq, 4))
			if worst > 4*math.Pow(tq, 4) {
				t.Errorf("%s c=%v: a marginal is off by %.3g", m.Label(), c, worst)
			}
		}
	}
}

// TestBetheStrongFerromagnet: 4×4, J = 2 everywhere, a small uniform field
// h = 0.01 (spins pm1). BP settles in the ordered fixed point the field
// favours (all +); the Bethe log Z is then that state's log-weight plus
// its excitations, while the true Z also holds the all-− state's mass:
// log Z − log Z_Bethe ≈ log(1 + e^{−2Dh}) ≈ 0.54 nats. The excitations
// (a flipped spin costs at least e^{−4J·2} ≈ 3e-4 of the weight) differ
// between the two by far less than 0.01.
func TestBetheStrongFerromagnet(t *testing.T) {
	m := models.NewIsing(4, 4, models.SpinsPM1)
	for i := range m.Fields {
		m.Fields[i] = 0.01
	}
	for _, J := range [][]float64{m.CouplingH, m.CouplingV} {
		for i := range J {
			J[i] = 2
		}
	}
	exact, _ := exactIsing(t, m)
	res, err := DefaultBetheBP.Run(m)
	if err != nil || !res.Converged {
		t.Fatalf("err %v, converged %v", err, res.Converged)
	}
	want := math.Log1p(math.Exp(-2 * 16 * 0.01))
	if got := exact - res.LogZ; math.Abs(got-want) > 0.01 {
		t.Errorf("log Z − log Z_Bethe = %.4f, want ≈ log(1+e^{−2Dh}) = %.4f", got, want)
	}
	for i, p := range res.Marginals {
		if p < 0.99 {
			t.Errorf("P(x_%d=1) = %.4f: BP should sit in the + state", i, p)
		}
	}
}

// TestBetheNonConvergence: frustrated strong couplings (mixed signs,
// |J| ≤ 3, small fields) on 5×5 without damping: the messages oscillate,
// and Run says so — Converged false after MaxIter sweeps with a residual
// above Tol — while still returning a finite number.
func TestBetheNonConvergence(t *testing.T) {
	m := isingModel(5, 5, models.SpinsPM1, 3, 7)
	for i := range m.Fields {
		m.Fields[i] *= 0.1
	}
	bp := BetheBP{Damping: 0, Tol: 1e-10, MaxIter: 200}
	res, err := bp.Run(m)
	if err != nil {
		t.Fatal(err)
	}
	if res.Converged || res.Iterations != bp.MaxIter || !(res.Residual >= bp.Tol) {
		t.Fatalf("converged %v after %d sweeps, residual %g: expected no convergence", res.Converged, res.Iterations, res.Residual)
	}
	if math.IsNaN(res.LogZ) || math.IsInf(res.LogZ, 0) {
		t.Errorf("log Z %v", res.LogZ)
	}
}

// TestBetheBadSettings: every bad setting is an error naming it.
func TestBetheBadSettings(t *testing.T) {
	m := isingModel(2, 2, models.SpinsPM1, 0.1, 1)
	for _, b := range []BetheBP{{Damping: 1, Tol: 1e-8, MaxIter: 10}, {Damping: -0.1, Tol: 1e-8, MaxIter: 10},
		{Damping: 0.5, Tol: 0, MaxIter: 10}, {Damping: 0.5, Tol: math.NaN(), MaxIter: 10}, {Damping: 0.5, Tol: 1e-8, MaxIter: 0}} {
		if _, err := b.Run(m); err == nil {
			t.Errorf("%+v: no error", b)
		}
	}
}
