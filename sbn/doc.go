// Package sbn will hold sigmoid belief nets — single-layer, deep and
// autoregressive (Du, Zhu & Zhang 2015, eq. 11–14) — and their training by
// doubly stochastic SGHMC with a Gibbs sampler or a neural adaptive
// importance sampler. It is empty until that issue is taken up; the folder
// is part of the project's fixed layout.
package sbn
