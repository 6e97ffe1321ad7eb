// Package models holds the model types of logz — the binary RBM, DBN, DBM,
// the RBM-prior VAE and the Ising model (sigmoid belief nets live in sbn) —
// with their parameters, energies, free energies and conditionals, and the
// model.npz checkpoint format: a NumPy .npz of float64 arrays plus a meta
// array of UTF-8 JSON naming the type. Each type's codec (Type: its array
// names and how to build the model from them) is registered under its type
// name, so that Load reads any logz checkpoint, and an .npz written by NumPy
// that holds only W, vbias and hbias loads as an RBM.
//
// Nothing here trains or estimates: trainers are in train, estimators in
// eval, and the shared Markov kernels in inference.
package models
