"""The PyTorch peer of logz's AIS (scripts/bench-ais.sh): the same estimate
of log Z of a 784×500 RBM as logz's ais — 100 runs × 1,000 β on a linear
schedule, from the data base-rate RBM (W = 0, visible biases the data's
smoothed log-odds, the same hidden units), the path of Salakhutdinov &
Murray (2008) — written the obvious way: one product v·W and one h·Wᵀ for
all runs per step, in float32, the log weights summed in float64.

    log f_β(v) = (1−β)·a_Aᵀv + β·a_Bᵀv + Σ_j softplus(β·x_j),  x = b + Wᵀv,
    log Z_0 = H·log 2 + Σ_i softplus(a_{A,i}),

the transition at β draws h ~ σ(β·x), then v ~ σ((1−β)·a_A + β·(a_B + W h)).
It is timed on one thread and on two (torch.set_num_threads), and run once
in float64 for a reference log Z.

Usage: bench-ais.py MODEL_DIR [RUNS [BETAS]] (W.bin, vbias.bin, hbias.bin,
base.bin: float64 little-endian, from scripts/benchais)."""
import math, sys, time
import numpy as np
import torch

d = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 100
nb = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
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


for name, dt, threads in (("torch_f32_1thread", torch.float32, 1), ("torch_f32_2threads", torch.float32, 2)):
    t0 = time.perf_counter()
    lz, se = ais(dt, threads)
    print("%s %.3f logZ %.3f se %.3f" % (name, time.perf_counter() - t0, lz, se))
t0 = time.perf_counter()
lz, se = ais(torch.float64, 1)
print("torch_f64_1thread %.3f logZ %.3f se %.3f" % (time.perf_counter() - t0, lz, se))
