// Package all registers every model family of logz: import it (for its
// side effect) wherever configs are read or models evaluated. A new family
// is one line here.
package all

import (
	_ "github.com/logz-ml/logz/family/dbm"   // deep Boltzmann machines
	_ "github.com/logz-ml/logz/family/dbn"   // deep belief networks
	_ "github.com/logz-ml/logz/family/ising" // grid pairwise MRFs (Ising models)
	_ "github.com/logz-ml/logz/family/mob"   // mixtures of Bernoullis
	_ "github.com/logz-ml/logz/family/rbm"   // restricted Boltzmann machines
	_ "github.com/logz-ml/logz/family/sbn"   // sigmoid belief nets, plain and autoregressive
	_ "github.com/logz-ml/logz/family/vae"   // VAEs with binary latents (Bernoulli or RBM prior)
)
