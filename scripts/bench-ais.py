"""The PyTorch peer of logz's AIS (scripts/bench-ais.sh): the same estimate
of log Z of a 784×500 RBM as logz's ais — 100 runs × 1,000 β on a linear
schedule, from the data base-rate RBM (W = 0, visible biases the data's
smoothed log-odds, the same hidden units), the path of Salakhutdinov &
Murray (2008) — written the obvious way: one product v·W and one h·Wᵀ for
all runs per step, in float32, the log weights summed in float64.

    log f_β(v) = (1−β)·a_Aᵀv + β·a_Bᵀv + Σ_j softplus(β·x_j),  x = b + Wᵀv,
    log Z_0 = H·log 2 + Σ_i softplus(a_{A,i}),

the transition at β draws h ~ σ(β·x), then v ~ σ((1−β)·a_A + β·(a_B + W h)).
Usage: bench-ais.py MODEL_DIR THREADS [f64] (W.bin, vbias.bin, hbias.bin,
base.bin: float64 little-endian, from scripts/benchais). THREADS is given to
torch.set_num_threads; the caller sets OPENBLAS_NUM_THREADS and
OMP_NUM_THREADS to it as well (Debian's PyTorch takes its products from
OpenBLAS, whose own threads set_num_threads does not limit). With f64 it
also runs once in float64, for a reference log Z."""
import math, sys, time
import numpy as np
import torch

d = sys.argv[1]
threads = int(sys.argv[2])
runs, nb = 100, 1000
rd = lambda n: np.fromfile(d + "/" + n + ".bin", dtype="<f8")
a, b, base = rd("vbias"), rd("hbias"), rd("base")
D, H = len(a), len(b)
W = rd("W").reshape(D, H)


def ais(dtype, threads, seed=1):
    torch.set_num_threads(threads)
    g = torch.Generator().manual_seed(seed)
    Wt = torch.tensor(W, dtype=dtype)
    at, bt, aA = (torch.tensor(x, dtype=dtype) for x in (a, b, base))
    betas = np.linspace(0, 1, nb)
    v = torch.bernoulli(torch.sigmoid(aA).expand(runs, D), generator=g)
    logw = torch.zeros(runs, dtype=torch.float64)
    dab = at - aA
    sp = torch.nn.functional.softplus
    for k in range(1, nb):
        bp, bn = float(betas[k - 1]), float(betas[k])
        x = torch.addmm(bt, v, Wt)
        logw += ((bn - bp) * (v @ dab) + (sp(bn * x) - sp(bp * x)).sum(1)).double()
        h = torch.bernoulli(torch.sigmoid(bn * x), generator=g)
        z = torch.addmm(at, h, Wt.t()).mul_(bn).add_((1 - bn) * aA)
        v = torch.bernoulli(torch.sigmoid(z), generator=g)
    logz0 = H * math.log(2) + float(np.logaddexp(0, base).sum())
    lw = logw.numpy()
    m = lw.max()
    w = np.exp(lw - m)
    mean = w.mean()
    se = w.std(ddof=1) / math.sqrt(runs) / mean
    return logz0 + m + math.log(mean), math.log1p(se)


suffix = "1thread" if threads == 1 else "%dthreads" % threads
runs_of = [("f32", torch.float32)] + ([("f64", torch.float64)] if sys.argv[3:] == ["f64"] else [])
for name, dt in runs_of:
    t0 = time.perf_counter()
    lz, se = ais(dt, threads)
    print("torch_%s_%s %.3f logZ %.3f se %.3f" % (name, suffix, time.perf_counter() - t0, lz, se))
