# The PyTorch peer of logz's adaptive-importance-sampling DSGHMC trainer
# (sbn/train.go), for scripts/bench-sbn.sh: the same model and update in
# float32 on the CPU, written the obvious way, on THREADS threads
# (torch.set_num_threads; on two cores one thread is often the faster).
#
# SBN 784-200: p(h) = Π σ(b1)^h (1−σ(b1))^(1−h), p(x|h) = Π σ(b0 + W h)^x …;
# recognition net q(h|x) = σ(c + Rᵀx). Per minibatch of B = 100 examples,
# K = 10 dynamics steps, each:
#   draw L = 5 proposals h_s ~ q(·|x) per example,
#   self-normalised weights w_s ∝ p(x, h_s)/q(h_s|x),
#   θ = (b0, W, b1): SGHMC on ∇Ũ = −∇log p0(θ) − (N/B) Σ_n Σ_s w_s ∇log p(x_n, h_s)
#     with η = λ/N, friction α, injected noise N(0, 2αη), Student-t prior
#     (σ = 0.09, ν = 2.2): v ← (1−α)v − η∇Ũ + noise, θ ← θ + v;
#   φ = (R, c): one Adam step (0.001) ascending (1/B) Σ_n Σ_s w_s ∇log q(h_s|x_n).
# Prints the threads, the seconds of one pass over the data and the epoch's signal, the
# mean over examples of logsumexp_s(log w_s) − log L at the last step of
# their minibatch (logz's "is-bound").
# Usage: python3 bench-sbn.py DATA.u8 [THREADS] (N×784 bytes, 0/1; THREADS 2 by default)
import math, sys, time
import numpy as np
import torch
import torch.nn.functional as F

threads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
torch.set_num_threads(threads)
x_all = torch.from_numpy(np.fromfile(sys.argv[1], dtype=np.uint8).reshape(-1, 784).astype(np.float32))
N, D = x_all.shape
H, B, L, K = 200, 100, 5, 10
lr, alpha, rec_lr, sigma, nu = 0.01, 0.1, 0.001, 0.09, 2.2
eta = lr / N
sd = math.sqrt(2 * alpha * eta)
g = torch.Generator().manual_seed(1)

counts = x_all.sum(0)
b0 = torch.log(counts + 1) - torch.log(N - counts + 1)
b1 = torch.zeros(H)
W = 0.01 * torch.randn(D, H, generator=g)
R = 0.01 * torch.randn(D, H, generator=g)
c = torch.zeros(H)
theta = [b0, W, b1]
mom = [torch.zeros_like(p) for p in theta]
opt = torch.optim.Adam([R, c], lr=rec_lr)

t0 = time.perf_counter()
perm = torch.randperm(N, generator=g)
signal = 0.0
with torch.no_grad():
    for lo in range(0, N, B):
        x = x_all[perm[lo:lo + B]]
        nb = x.shape[0]
        scale = N / nb
        for step in range(K):
            q = torch.addmm(c, x, R)                               # (B, H)
            pq = torch.sigmoid(q)
            h = (torch.rand(L, nb, H, generator=g) < pq).float()   # (L, B, H)
            logq = (h * q).sum(-1) - F.softplus(q).sum(-1)         # (L, B)
            a0 = torch.matmul(h, W.t()) + b0                       # (L, B, D)
            logp = (x * a0 - F.softplus(a0)).sum(-1) + h @ b1 - F.softplus(b1).sum()
            lw = logp - logq
            w = torch.softmax(lw, 0).unsqueeze(-1)                 # (L, B, 1)
            d0 = w * (x - torch.sigmoid(a0))
            grads = [d0.sum((0, 1)), d0.reshape(-1, D).t() @ h.reshape(-1, H),
                     (w * (h - torch.sigmoid(b1))).sum((0, 1))]
            e = (w * (h - pq)).sum(0)                              # (B, H)
            for p, gp, v in zip(theta, grads, mom):
                gu = -scale * gp + (nu + 1) * p / (nu * sigma * sigma + p * p)
                v.mul_(1 - alpha).add_(gu, alpha=-eta).add_(torch.randn(p.shape, generator=g), alpha=sd)
                p.add_(v)
            R.grad = -(x.t() @ e) / nb
            c.grad = -e.sum(0) / nb
            opt.step()
            if step == K - 1:
                signal += float((torch.logsumexp(lw, 0) - math.log(L)).sum())
t = time.perf_counter() - t0
print("pytorch_adaptive_is_%dt %.3f is-bound %.3f" % (threads, t, signal / N))
