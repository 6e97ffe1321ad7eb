#!/usr/bin/python3
"""How an RBM with few hidden units spreads its probability mass over its
hidden configurations, by exact enumeration (NumPy; at most 24 hidden units).

    /usr/bin/python3 scripts/rbm-hidden-mass.py MODEL.npz [...]

For each logz (or NumPy) RBM file with W (visible x hidden), vbias and hbias
it prints log Z and the largest marginal probabilities of hidden
configurations,

    p(h) = exp(c.h + sum_i softplus(a_i + W_i.h)) / Z,

summed in log space over all 2^H configurations. Burda, Grosse &
Salakhutdinov (2015, section 5.1) explain RAISE exceeding the exact
log-likelihood of their mnistCD1-20 RBM by its putting 93% of its mass on a
single hidden configuration; this measures the same property of ours.
Needs python3-numpy (apt-get install python3-numpy).
"""
import sys

import numpy as np


def hidden_log_weights(W, a, c, chunk=1 << 16):
    H = W.shape[1]
    idx = np.arange(2 ** H)
    out = []
    for s in range(0, 2 ** H, chunk):
        h = ((idx[s:s + chunk, None] >> np.arange(H)) & 1).astype(np.float64)
        out.append(h @ c + np.logaddexp(0, a + h @ W.T).sum(axis=1))
    return np.concatenate(out)


def main(paths):
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        z = np.load(path)
        W, a, c = z["W"], z["vbias"], z["hbias"]
        if W.shape[1] > 24:
            sys.exit("%s: %d hidden units; at most 24 can be enumerated here" % (path, W.shape[1]))
        lw = hidden_log_weights(W, a, c)
        m = lw.max()
        log_z = m + np.log(np.exp(lw - m).sum())
        p = np.sort(np.exp(lw - log_z))[::-1]
        need = int(np.searchsorted(np.cumsum(p), 0.9)) + 1
        print("%s: log Z %.3f; the most probable hidden configuration holds %.3f of the mass, "
              "the top five %.3f; %d configuration(s) hold 90%%" % (path, log_z, p[0], p[:5].sum(), need))


if __name__ == "__main__":
    main(sys.argv[1:])
