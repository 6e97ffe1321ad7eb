package eval

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
)

// AnnealedSampler draws samples from an intermediate distribution
// p_β = f_β / Z_β of an annealing path — the path AIS and RAISE use (for an
// RBM inference.NewBaseRatePath: base-rate or uniform start at β = 0, the
// model at β = 1), as in Fig. 5 of Burda, Grosse & Salakhutdinov (2015).
// Each sample starts from an exact draw of p_0, anneals linearly to β in
// Steps transitions (transition k at β·k/Steps) and then makes Sweeps more
// transitions at β: a Markov chain that leaves p_β invariant, so its state
// approaches a draw of p_β as Steps + Sweeps grows.
type AnnealedSampler struct {
	Steps, Sweeps int
	// Seed keys the samples: sample i at β draws from the generator of
	// (Seed, the bits of β, i) alone, so the same β gives the same samples
	// whatever the other βs asked for and the number of workers.
	Seed    uint64
	Workers int
}

// VisibleChain is a chain whose visible state can be read (the RBM and DBM
// chains of package inference).
type VisibleChain interface {
	inference.Chain
	Visible() []uint8
}

// Sample returns n samples of p_β on path as an n×D matrix of 0/1 values
// (row i is sample i), D the width of the path's visible state.
func (a AnnealedSampler) Sample(path inference.Path, beta float64, n int) ([]uint8, int, error) {
	if !(beta >= 0 && beta <= 1) {
		return nil, 0, fmt.Errorf("annealed samples: β = %v; expected a number in [0, 1]", beta)
	}
	if n < 1 || a.Steps < 0 || a.Sweeps < 0 {
		return nil, 0, fmt.Errorf("annealed samples: n = %d, steps = %d, sweeps = %d; expected n ≥ 1 and steps, sweeps ≥ 0", n, a.Steps, a.Sweeps)
	}
	probe, ok := path.NewChain().(VisibleChain)
	if !ok {
		return nil, 0, fmt.Errorf("annealed samples: the chains of a %T do not show their visible state", path)
	}
	D := len(probe.Visible())
	out := make([]uint8, n*D)
	seed := seeds.Derive(a.Seed, math.Float64bits(beta))
	workgroup.EachSample(n, a.Workers, seed, func() func(int, *rand.Rand) {
		c := path.NewChain().(VisibleChain)
		return func(i int, rng *rand.Rand) {
			c.SampleBase(rng)
			for k := 1; k <= a.Steps; k++ {
				c.Transition(beta*float64(k)/float64(a.Steps), rng)
			}
			for range a.Sweeps {
				c.Transition(beta, rng)
			}
			copy(out[i*D:(i+1)*D], c.Visible())
		}
	})
	return out, D, nil
}
