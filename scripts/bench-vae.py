# The PyTorch peer of logz's VAE trainer (train/vae.go, train.method nvil)
# for scripts/bench-vae.sh: the same model and update in float32 on the CPU
# with two threads, written the obvious way (autograd on surrogate losses).
#
# Ber(200) VAE: encoder q(z|x) = Π σ(κ_j), κ = Enc(x), Enc a tanh MLP
# 784-500-200 with a linear last layer; decoder p(x|z) = Π σ(ℓ_i), ℓ =
# Dec(z), 200-500-784; prior p(z) = Π σ(λ_j). Weights N(0, 1/fan_in),
# biases 0, the decoder's output bias at the data's log-odds
# log((n_i + 1)/(N − n_i + 1)) (logz's base-rate init), λ = 0.
# Per minibatch of B = 100 examples, one draw z ~ q(z|x) per example:
#   f = log p(x|z) + log p(z) − log q(z|x), b(x) a baseline net 784-100-1,
#   d = f − b(x) − μ, s = clip(d / max(1, √v), ±10) (μ, v the running mean
#   and variance of f − b from the previous minibatches, decay 0.8; the
#   first minibatch: μ = 0, v unused, norm 1);
#   decoder and prior ascend log p(x|z) + log p(z); the encoder s·log q;
#   the baseline descends ½ d²; one Adam step (3e-4) on all, gradients
#   averaged over the minibatch.
# Prints the seconds of one pass over the data and the epoch's mean f.
# Usage: python3 bench-vae.py DATA.u8 [THREADS] (N×784 bytes, 0/1; THREADS
# defaults to 2, the peer; another count is named in the output)
import math, sys, time
import numpy as np
import torch
import torch.nn.functional as F

threads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
torch.set_num_threads(threads)
x_all = torch.from_numpy(np.fromfile(sys.argv[1], dtype=np.uint8).reshape(-1, 784).astype(np.float32))
N, D = x_all.shape
Z, Hd, Hb, B = 200, 500, 100, 100
decay, clip = 0.8, 10.0
g = torch.Generator().manual_seed(1)


def mlp(sizes):
    ps = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        ps.append((torch.randn(a, b, generator=g) / math.sqrt(a)).requires_grad_())
        ps.append(torch.zeros(b, requires_grad=True))
    return ps


def forward(ps, x):
    for i in range(0, len(ps), 2):
        x = torch.addmm(ps[i + 1], x, ps[i])
        if i + 2 < len(ps):
            x = torch.tanh(x)
    return x


enc, dec, base = mlp([D, Hd, Z]), mlp([Z, Hd, D]), mlp([D, Hb, 1])
counts = x_all.sum(0)
with torch.no_grad():
    dec[-1].copy_(torch.log(counts + 1) - torch.log(N - counts + 1))
lam = torch.zeros(Z, requires_grad=True)
opt = torch.optim.Adam(enc + dec + base + [lam], lr=3e-4)
mu, var, steps = 0.0, 0.0, 0

t0 = time.perf_counter()
perm = torch.randperm(N, generator=g)
total_f = 0.0
for lo in range(0, N, B):
    x = x_all[perm[lo:lo + B]]
    nb = x.shape[0]
    kappa = forward(enc, x)
    with torch.no_grad():
        z = (torch.rand(kappa.shape, generator=g) < torch.sigmoid(kappa)).float()
    logq = -F.binary_cross_entropy_with_logits(kappa, z, reduction="none").sum(1)
    ell = forward(dec, z)
    logpx = -F.binary_cross_entropy_with_logits(ell, x, reduction="none").sum(1)
    logpz = (z * lam - F.softplus(lam)).sum(1)
    b = forward(base, x).squeeze(1)
    with torch.no_grad():
        f = logpx + logpz - logq
        d = f - b - mu
        norm = max(1.0, math.sqrt(var)) if steps > 0 else 1.0
        s = torch.clamp(d / norm, -clip, clip)
    loss = -(logpx + logpz + s * logq).sum() / nb + 0.5 * ((f - mu - b) ** 2).sum() / nb
    opt.zero_grad()
    loss.backward()
    opt.step()
    md = float(d.mean())
    mean, vr = mu + md, max(0.0, float((d * d).mean()) - md * md)
    if steps > 0:
        mu, var = decay * mu + (1 - decay) * mean, decay * var + (1 - decay) * vr
    else:
        mu, var = mean, vr
    steps += 1
    total_f += float(f.sum())
t = time.perf_counter() - t0
name = "pytorch_ber200" if threads == 2 else "pytorch_ber200_%dthread" % threads
print("%s %.3f elbo %.3f" % (name, t, total_f / N))
