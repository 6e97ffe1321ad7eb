// Package sbn holds sigmoid belief nets — single-layer, deep and
// autoregressive (Du, Zhu & Zhang 2015, eq. 11–14) — with their exact and
// sampling-based log-probabilities. A net has a visible layer h_0 = x of
// n_0 units and latent layers h_1 … h_L:
//
//	p(h_L)           = Π_i σ(a_i)^{h_i} (1−σ(a_i))^{1−h_i},  a = b_L + S_L h_L
//	p(h_{l−1} | h_l) = Π_i σ(a_i)^{h_i} (1−σ(a_i))^{1−h_i},  a = W_l h_l + b_{l−1} + S_{l−1} h_{l−1}
//
// where S_l is zero for a plain SBN and strictly lower triangular for the
// autoregressive SBN (unit i of a layer depends on its units j < i: raster
// order, the order in which they are sampled). A recognition network
// Q(h_l | h_{l−1}) = σ(c_l + R_lᵀ h_{l−1} + T_l h_l) (T_l zero or strictly
// lower triangular) proposes latent states for importance sampling.
//
// Every Bernoulli log-probability is x·a − softplus(a).
package sbn
