// Package eval holds the estimators of logz, each tested against exact
// enumeration on small models and working in log space, with its warnings
// reported beside its result:
//
//   - exact log Z and log p(v) by enumeration: Gray-code walks for RBMs
//     (exact.go), and for DBNs and DBMs (dbn.go, dbm.go);
//   - AIS and RAISE on any annealing path of package inference (ais.go,
//     raise.go), RAISE for DBMs with an intractable posterior (dbm_raise.go)
//     and for DBNs with the top RBM unrolled (dbn.go); the ratio Z_B/Z_A of
//     two RBMs along their joint path, from exact, Gibbs or reversed starts
//     (ratio.go);
//   - CSL (csl.go), control variates that extend a subsample to the whole
//     split (cv.go), Gibbs sampling and mixing diagnostics (gibbs.go);
//   - the samplers of the models: Gibbs chains of an Ising model and a DBM,
//     a DBN's top-RBM chains and down-pass (sample.go), the VAE's ancestral
//     draws with exact or Gibbs latents (vae_sample.go), a mixture of
//     Bernoullis' ancestral draws (mob.go), every sample keyed
//     by its index so that the samples do not depend on the workers;
//   - the DBN and DBM variational bounds and importance sampling (dbn.go,
//     dbm.go), and the VAE's importance sampling, ELBO and exact latent
//     enumeration (vae.go), and a mixture of Bernoullis' exact log p(v)
//     (mob.go);
//   - cheap training signals: pseudo-log-likelihood and reconstruction
//     (loglik.go).
//
// Work is divided into units (units.go) so that a sharded evaluation gives
// the numbers of one process, bit for bit. eval never imports a trainer;
// sub-packages: eval/chi2 (the χ² bound), eval/report (rows, cross-checks,
// tables).
package eval
