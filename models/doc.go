// Package models holds the model types of logz — the binary RBM, DBN, DBM,
// the RBM-prior VAE and the Ising model (sigmoid belief nets live in sbn) —
// with their parameters, energies, free energies and conditionals, and the
// model.npz checkpoint format: a NumPy .npz of float64 arrays plus a meta
// array of UTF-8 JSON naming the type. Each type exports its codec (a Type:
// its array names and how to build the model from them) as a value, RBMType,
// DBNType, ...; the package keeps no registry of them. Load and Save take the
// set of codecs a program knows (Codecs; logz passes the family registry's,
// family.Codecs), so that Load reads any logz checkpoint, and an .npz written
// by NumPy that holds only W, vbias and hbias loads as an RBM.
//
// Nothing here trains or estimates: trainers are in train, estimators in
// eval, and the shared Markov kernels in inference.
package models
