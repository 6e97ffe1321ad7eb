#!/usr/bin/env python3
"""Writes models/testdata/numpy_rbm.npz, numpy_data.npy and numpy_expected.json.

An RBM written by NumPy (np.savez, W in Fortran order to exercise that path) and
a small binary data set, with log Z and the mean log-likelihood computed here by
brute force, independently of logz. Needs only NumPy (Debian: python3-numpy):
    /usr/bin/python3 scripts/make-numpy-fixture.py
"""
import itertools, json, os
import numpy as np

rng = np.random.default_rng(20261122)
D, H = 24, 10
W = rng.normal(0, 0.6, size=(D, H))
a = rng.normal(-0.5, 0.5, size=D)
b = rng.normal(0, 0.5, size=H)

def softplus(x):
    return np.logaddexp(0.0, x)

# log Z = logsumexp over h of [b.h + sum_i softplus(a_i + W_i.h)]
hs = np.array(list(itertools.product([0, 1], repeat=H)), dtype=np.float64)
terms = hs @ b + softplus(a[None, :] + hs @ W.T).sum(axis=1)
m = terms.max()
logZ = float(m + np.log(np.exp(terms - m).sum()))

X = (rng.random((50, D)) < 1 / (1 + np.exp(-a))).astype(np.uint8)
logf = X @ a + softplus(b[None, :] + X @ W).sum(axis=1)
ll = logf - logZ

out = os.path.join(os.path.dirname(__file__), "..", "models", "testdata")
np.savez(os.path.join(out, "numpy_rbm.npz"), W=np.asfortranarray(W), vbias=a, hbias=b)
np.save(os.path.join(out, "numpy_data.npy"), X)
with open(os.path.join(out, "numpy_expected.json"), "w") as f:
    json.dump({"log_z": logZ, "mean_loglik": float(ll.mean()), "n": int(X.shape[0]),
               "first_loglik": float(ll[0])}, f, indent=1)
print(logZ, ll.mean())
