// Package train holds the trainers of logz, each checkpointable so that a
// resumed run reproduces an uninterrupted one bit for bit:
//
//   - RBMs: CD-k (k fixed or growing) and PCD with SGD, momentum, weight
//     decay and learning-rate schedules, in float64 or float32 arithmetic
//     (rbm.go, rbm_fast.go), and χ² learning with a fitted proposal (chi2.go);
//   - DBNs: greedy layer-wise training of a stack of RBMs (dbn.go);
//   - DBMs: greedy pretraining with doubled inputs, then joint PCD with a
//     mean-field positive phase (dbm.go);
//   - Ising models and other fully visible MRFs: the exact gradient, PCD and
//     χ² learning (ising.go, chi2mrf.go);
//   - VAEs with Bernoulli or RBM priors: NVIL with learned baselines (vae.go).
//   - mixtures of Bernoullis: EM with Beta/Dirichlet smoothing, one
//     iteration per epoch (mob.go).
//
// Every trainer has the same methods, the runner's trainer contract
// (family.Trainer) with nothing to adapt:
//
//	TrainEpoch(x data.Examples) (EpochSummary, error)
//	Checkpoint(experiment string) (*models.Checkpoint, error)
//	Resume(c *models.Checkpoint) error
//	Completed() int          // epochs done, all layers and phases counted
//	Total() int              // epochs in all, Epochs of the options
//	Current() models.Model   // the model to evaluate now
//	SetOnBatch(f func(int))  // f(examples) after every minibatch
//	EpochSettings(s EpochSummary) string // the epoch line's settings
//
// Completed, Total and SetOnBatch come from an embedded epochs; every
// epoch runs the same loop, Order then Minibatches (trainer.go), which
// sbn.Trainer shares.
//
// Trainers consume data.Examples and the kernels and χ² machinery of
// inference; they never import an estimator (package eval): what training
// and measuring share lives below both. Sigmoid belief nets train in sbn.
package train
