package eval

import (
	"fmt"
	"math"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// BetheBP runs loopy belief propagation on an Ising grid (models.Ising,
// spins 01 or pm1) and returns the Bethe approximation of log Z at the
// beliefs it reaches.
//
// Write the model with bits x_i ∈ {0,1}, unary log-potentials
// θ_i(x) = h_i s(x) and pairwise ones θ_ij(x, y) = J_ij s(x) s(y), s the
// spin of a bit (x, or 2x − 1), so that log p̃(x) = Σ_i θ_i(x_i) +
// Σ_<ij> θ_ij(x_i, x_j). A message m_{i→j}(x_j) is held, exactly for binary
// variables, as its log-ratio l_{i→j} = log m_{i→j}(1) − log m_{i→j}(0).
// With the cavity log-odds of i without j,
//
//	u_{i\j} = θ_i(1) − θ_i(0) + Σ_{k~i, k≠j} l_{k→i},
//
// the sum-product update is, in log space,
//
//	l_{i→j} ← logaddexp(θ_ij(0,1), u_{i\j} + θ_ij(1,1)) − logaddexp(θ_ij(0,0), u_{i\j} + θ_ij(1,0)),
//
// applied to every directed edge at once from the previous messages
// (a synchronous, "flooding" schedule: deterministic, whatever the
// machine) and damped in log space, l ← (1−δ)·l_new + δ·l_old. It stops
// when the largest undamped change max |l_new − l_old| is below Tol
// (converged) or after MaxIter sweeps (not converged: the result says so
// and a caller must warn, never report the number silently). The messages
// start at 0 (uniform).
//
// The beliefs are b_i(x) ∝ exp(x·L_i) with L_i = θ_i(1) − θ_i(0) +
// Σ_{k~i} l_{k→i}, and b_ij(x, y) ∝ exp(x·u_{i\j} + y·u_{j\i} + θ_ij(x, y)).
// The Bethe approximation is −F_Bethe at those beliefs,
//
//	log Z_Bethe = Σ_i Σ_x b_i(x) θ_i(x) + Σ_<ij> Σ_{x,y} b_ij(x,y) θ_ij(x,y)
//	              + Σ_<ij> H(b_ij) − Σ_i (d_i − 1) H(b_i),
//
// H(b) = −Σ b log b, d_i the degree of site i. On a tree (a 1×n or n×1
// grid) BP converges to the exact marginals and log Z_Bethe = log Z; on a
// loopy grid its fixed points are the stationary points of F_Bethe
// (Yedidia, Freeman & Weiss 2001) and log Z_Bethe is an approximation
// that errs either way: for zero fields the loop series puts the error at
// about Σ_loops Π_edges tanh J_e (4-cycles first) while couplings are weak;
// past the point where the paramagnetic fixed point turns unstable, BP
// picks one ordered fixed point (missing the others' mass) or does not
// converge at all (frustrated, mixed-sign couplings).
type BetheBP struct {
	// Damping δ ∈ [0, 1): the weight of the old message.
	Damping float64
	// Tol is the convergence threshold on the largest change of a
	// message's log-ratio in one sweep (> 0).
	Tol float64
	// MaxIter caps the sweeps (≥ 1).
	MaxIter int
}

// DefaultBetheBP is damping 0.5, tolerance 1e-10 and at most 1,000 sweeps.
var DefaultBetheBP = BetheBP{Damping: 0.5, Tol: 1e-10, MaxIter: 1000}

// MaxBPIter bounds BetheBP.MaxIter.
const MaxBPIter = 10_000_000

// BetheResult is the outcome of BetheBP.Run.
type BetheResult struct {
	// LogZ is log Z_Bethe at the last beliefs (converged or not).
	LogZ float64
	// Converged says whether the last change was below Tol; Iterations
	// is the number of sweeps made and Residual the largest change of the
	// last one.
	Converged  bool
	Iterations int
	Residual   float64
	// Marginals are the node beliefs b_i(1) = P(x_i = 1).
	Marginals []float64
	// Messages is the number of directed messages (2 per edge); a sweep
	// updates each once.
	Messages int
}

// Check reports bad settings.
func (b BetheBP) Check() error {
	switch {
	case !(b.Damping >= 0 && b.Damping < 1):
		return fmt.Errorf("bp: damping is %v; expected a number in [0, 1)", b.Damping)
	case !(b.Tol > 0) || math.IsInf(b.Tol, 0):
		return fmt.Errorf("bp: tol is %v; expected a positive number", b.Tol)
	case b.MaxIter < 1 || b.MaxIter > MaxBPIter:
		return fmt.Errorf("bp: max_iter is %d; expected an integer in [1, %d]", b.MaxIter, MaxBPIter)
	}
	return nil
}

// bpEdge is an undirected edge i–j of the grid with its pairwise
// log-potential θ_ij(x, y), indexed [2x+y].
type bpEdge struct {
	i, j  int
	theta [4]float64
}

// Run runs BP on m.
func (b BetheBP) Run(m *models.Ising) (BetheResult, error) {
	if err := b.Check(); err != nil {
		return BetheResult{}, err
	}
	if err := m.Validate(); err != nil {
		return BetheResult{}, err
	}
	R, C, sp := m.Rows, m.Cols, m.Spins
	D := R * C
	s0, s1 := sp.Value(0), sp.Value(1)
	// Unary log-odds θ_i(1) − θ_i(0) and the edges, horizontal then vertical.
	unary := make([]float64, D)
	for i, h := range m.Fields {
		unary[i] = h * (s1 - s0)
	}
	edges := make([]bpEdge, 0, len(m.CouplingH)+len(m.CouplingV))
	add := func(i, j int, J float64) {
		edges = append(edges, bpEdge{i: i, j: j, theta: [4]float64{J * s0 * s0, J * s0 * s1, J * s1 * s0, J * s1 * s1}})
	}
	for r := range R {
		for c := 0; c+1 < C; c++ {
			add(r*C+c, r*C+c+1, m.CouplingH[r*(C-1)+c])
		}
	}
	for r := 0; r+1 < R; r++ {
		for c := range C {
			add(r*C+c, (r+1)*C+c, m.CouplingV[r*C+c])
		}
	}
	// Message 2e runs i→j of edge e, 2e+1 runs j→i.
	M := 2 * len(edges)
	msg, next := make([]float64, M), make([]float64, M)
	L := make([]float64, D)
	deg := make([]int, D)
	for _, e := range edges {
		deg[e.i]++
		deg[e.j]++
	}
	// logOdds sets L_i = unary_i + Σ incoming messages.
	logOdds := func(l []float64) {
		copy(L, unary)
		for e, ed := range edges {
			L[ed.j] += l[2*e]
			L[ed.i] += l[2*e+1]
		}
	}
	res := BetheResult{Messages: M}
	for it := 1; it <= b.MaxIter; it++ {
		logOdds(msg)
		res.Residual = 0
		for e, ed := range edges {
			t := &ed.theta
			// i→j: the cavity of i without j's message; the potential
			// indexed [2x_i + x_j].
			ui := L[ed.i] - msg[2*e+1]
			nij := nmath.LogAddExp(t[1], ui+t[3]) - nmath.LogAddExp(t[0], ui+t[2])
			// j→i: the cavity of j without i's; the potential as
			// [2x_i + x_j] with x_j the sender.
			uj := L[ed.j] - msg[2*e]
			nji := nmath.LogAddExp(t[2], uj+t[3]) - nmath.LogAddExp(t[0], uj+t[1])
			res.Residual = max(res.Residual, math.Abs(nij-msg[2*e]), math.Abs(nji-msg[2*e+1]))
			next[2*e] = (1-b.Damping)*nij + b.Damping*msg[2*e]
			next[2*e+1] = (1-b.Damping)*nji + b.Damping*msg[2*e+1]
		}
		msg, next = next, msg
		res.Iterations = it
		if math.IsNaN(res.Residual) || math.IsInf(res.Residual, 0) {
			return res, fmt.Errorf("bp: the messages of %s left the finite numbers after %d sweeps", m.Label(), it)
		}
		if res.Residual < b.Tol {
			res.Converged = true
			break
		}
	}
	// Beliefs and the Bethe free energy.
	logOdds(msg)
	res.Marginals = make([]float64, D)
	logZ := 0.0
	for i := range D {
		lb1, lb0 := nmath.LogSigmoid(L[i]), nmath.LogSigmoid(-L[i])
		b1, b0 := math.Exp(lb1), math.Exp(lb0)
		res.Marginals[i] = b1
		// Σ_x b_i(x) θ_i(x) − (d_i − 1)·H(b_i) = Σ_x b_i(x)·(θ_i(x) + (d_i − 1)·log b_i(x)).
		d := float64(deg[i] - 1)
		h := m.Fields[i]
		logZ += b0*(h*s0+d*lb0) + b1*(h*s1+d*lb1)
	}
	var a [4]float64
	for e, ed := range edges {
		ui := L[ed.i] - msg[2*e+1]
		uj := L[ed.j] - msg[2*e]
		for x := range 2 {
			for y := range 2 {
				a[2*x+y] = float64(x)*ui + float64(y)*uj + ed.theta[2*x+y]
			}
		}
		norm := nmath.LogSumExp(a[:])
		for k, ak := range a {
			lb := ak - norm
			// b_ij θ_ij − b_ij log b_ij.
			logZ += math.Exp(lb) * (ed.theta[k] - lb)
		}
	}
	res.LogZ = logZ
	if math.IsNaN(logZ) || math.IsInf(logZ, 0) {
		return res, fmt.Errorf("bp: the Bethe log Z of %s is %v", m.Label(), logZ)
	}
	return res, nil
}
