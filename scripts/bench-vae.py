# The PyTorch peer of logz's VAE trainer (train/vae.go, train.method nvil)
# for scripts/bench-vae.sh: the same model and update in float32 on the CPU
# with two threads, written the obvious way (autograd on surrogate losses;
# every minibatch and every set of q's draws one batch of tensors; the χ²
# fitter's gradient in closed form, which halved its step's time). Every
# Adam is torch's with its defaults β₁ = 0.9, β₂ = 0.999, ε = 1e-8, those
# of logz's internal/optim (the same update).
#
# Ber(200) VAE (--prior ber200, the default): encoder q(z|x) = Π σ(κ_j),
# κ = Enc(x), Enc a tanh MLP 784-500-200 with a linear last layer; decoder
# p(x|z) = Π σ(ℓ_i), ℓ = Dec(z), 200-500-784; prior p(z) = Π σ(λ_j).
# Weights N(0, 1/fan_in), biases 0, the decoder's output bias at the data's
# log-odds log((n_i + 1)/(N − n_i + 1)) (logz's base-rate init), λ = 0.
# Per minibatch of B = 100 examples, one draw z ~ q(z|x) per example:
#   f = log p(x|z) + log p(z) − log q(z|x), b(x) a baseline net 784-100-1,
#   d = f − b(x) − μ, s = clip(d / max(1, √v), ±10) (μ, v the running mean
#   and variance of f − b from the previous minibatches, decay 0.8; the
#   first minibatch: μ = 0, v unused, norm 1);
#   decoder and prior ascend log p(x|z) + log p(z); the encoder s·log q;
#   the baseline descends ½ d²; one Adam step (3e-4) on all, gradients
#   averaged over the minibatch.
#
# RBM(64,64) prior trained by the χ² bound (--prior rbm64x64): logz's
# defaults for `model: {type: vae, latent: 64, prior: rbm, prior_hidden: 64}`
# and `train: {method: nvil}` (family/vae DefaultModel, DefaultTrain; the
# fitter's keys are family/rbm DefaultChi2Train). The nets are the same
# with 64 latents (784-500-64, 64-500-784, baseline 784-100-1); the prior
# is p(z) = p̃(z)/Z with
#   log p̃(z) = aᵀz + Σ_j softplus(c_j + (zᵀW)_j),  W 64×64 ~ N(0, 0.01²),
#   a = c = 0 (model.init_prior_std 0.01),
# and log Z replaced by the χ² bound ½ log E_r[(p̃/r)²] of a proposal r, a
# uniform mixture of K = 10 Bernoulli products over z with logits η (K×64),
# η ~ N(0, 0.1²) at the start (q_components 10, q_init_std 0.1). r is fitted
# as inference/chi2's Fitter does (q_samples 30, q_learning_rate 0.01,
# q_decay 0.9): a fitter step draws n = 30 z̃_i ~ r, t_i = 2(log p̃ − log r)
# (z̃_i), log γ ← log(0.9γ + 0.1·mean e^t) (the first step: log mean e^t),
# s_i = e^(t_i − log γ), the baseline β (the previous steps' moving average
# of mean s; the first step: this mean) and the variance v_r ← 0.9 v_r +
# 0.1 mean (s − β)² (the first step: set), then one Adam step (lr 0.01) on
# (0.5/n) Σ_i −(s_i − β)/max(1, √v_r) · ∇_η log r(z̃_i); β ← 0.9β + 0.1
# mean s. r and its fitter's state persist across minibatches.
# Per minibatch (train/vae.go Step, prior_training chi2, linearise true):
#   10 fitter steps (q_steps) at the current θ, then 30 fresh draws z̃_i ~ r
#   with t_i as above: the step's tracked bound ½ log mean e^t and the
#   linearised weights ω_i = e^(t_i − log γ)/n;
#   the NVIL update above with f = log p(x|z) + log p̃(z) − log q(z|x)
#   (p̃ unnormalised: log Z is the same for every example) and the prior's
#   parameters ascending mean_b log p̃(z_b) − Σ_i ω_i log p̃(z̃_i) (ω fixed),
#   the θ-gradient of the linearised bound; one Adam step (3e-4) on the
#   nets, the baseline and W, a, c.
# The epoch's signal is the mean over examples of f minus the tracked bound
# of the example's minibatch (logz's elbo-chi2); for Ber(200), of f (elbo).
#
# logz keeps the prior, the fitter and Adam in float64 and its per-step
# draws come from its own streams; here everything is float32 and one
# torch.Generator (seed 1) draws in program order.
#
# Prints "NAME SECONDS elbo SIGNAL": the seconds of one pass over the data
# (q's fitting included) and the epoch's signal.
# Usage: python3 bench-vae.py DATA.u8 [THREADS] [--prior ber200|rbm64x64]
#   (N×784 bytes, 0/1; THREADS defaults to 2, the peer; another
#   count is named in the output)
#        python3 bench-vae.py --check   (the χ² pieces against enumeration
#   on an RBM with 8 visible and 4 hidden units; exits 1 on a failure)
import argparse, math, sys, time
import numpy as np
import torch
import torch.nn.functional as F

# logz's defaults (family/vae DefaultTrain, family/rbm DefaultChi2Train).
Hd, Hb, B, LR = 500, 100, 100, 3e-4
DECAY, CLIP = 0.8, 10.0
Q_STEPS, Q_SAMPLES, Q_COMPONENTS, Q_LR, Q_DECAY, Q_INIT_STD = 10, 30, 10, 0.01, 0.9, 0.1
PRIOR_INIT_STD = 0.01


def logmeanexp(t):
    return float(torch.logsumexp(t, 0)) - math.log(t.shape[0])


class RBMPrior:
    """log p̃(z) = aᵀz + Σ_j softplus(c_j + (zᵀW)_j) of an RBM over z."""

    def __init__(self, W, a, c):
        self.W, self.a, self.c = W.requires_grad_(), a.requires_grad_(), c.requires_grad_()

    def params(self):
        return [self.W, self.a, self.c]

    def logp(self, z):
        return z @ self.a + F.softplus(torch.addmm(self.c, z, self.W)).sum(1)


class Mixture:
    """The proposal r: a uniform mixture of K Bernoulli products with logits
    eta (K×D), and its χ² fitter's state (inference/chi2 Fitter). The
    fitter's gradient is the closed form of the score (no autograd: with
    it a step took twice as long)."""

    def __init__(self, eta, g):
        self.eta, self.g = eta, g
        self.K, self.D = eta.shape
        self.opt = torch.optim.Adam([self.eta], lr=Q_LR)
        self.log_gamma, self.baseline, self.var, self.steps = 0.0, 0.0, 0.0, 0

    def sample(self, n):
        k = torch.randint(self.K, (n,), generator=self.g)
        return (torch.rand(n, self.D, generator=self.g) < torch.sigmoid(self.eta[k])).float()

    def log_joint(self, x):
        """log r(x|k) for every draw (rows) and component (columns)."""
        return x @ F.logsigmoid(self.eta).t() + (1 - x) @ F.logsigmoid(-self.eta).t()

    def log_q(self, x):
        return torch.logsumexp(self.log_joint(x), 1) - math.log(self.K)

    def draw(self, logp, n=Q_SAMPLES):
        """Fresh draws x, their log r(x|k) and t = 2 log w = 2(log p̃ − log r)."""
        x = self.sample(n)
        lj = self.log_joint(x)
        return x, lj, 2 * (logp(x) - (torch.logsumexp(lj, 1) - math.log(self.K)))

    def score_grad(self, x, lj, score):
        """Σ_i −score_i ∇_η log r(x_i), with ∂ log r(x)/∂η_kd =
        ρ_k(x)(x_d − σ(η_kd)), ρ_k(x) = r(x|k)/Σ_l r(x|l)."""
        rs = torch.softmax(lj, 1) * score[:, None]
        return torch.sigmoid(self.eta) * rs.sum(0)[:, None] - rs.t() @ x

    def step(self, logp):
        with torch.no_grad():
            x, lj, t = self.draw(logp)
            lm = logmeanexp(t)
            if self.steps == 0:
                self.log_gamma = lm
            else:
                u, v = math.log(Q_DECAY) + self.log_gamma, math.log1p(-Q_DECAY) + lm
                self.log_gamma = max(u, v) + math.log1p(math.exp(-abs(u - v)))
            s = torch.exp(t - self.log_gamma)
            mean = float(s.mean())
            base = self.baseline if self.steps > 0 else mean
            sq = float(((s - base) ** 2).mean())
            if self.steps == 0:
                self.baseline, self.var = mean, sq
            else:
                self.baseline = Q_DECAY * self.baseline + (1 - Q_DECAY) * mean
                self.var = Q_DECAY * self.var + (1 - Q_DECAY) * sq
            score = (s - base) / max(1.0, math.sqrt(self.var))
            self.eta.grad = (0.5 / len(t)) * self.score_grad(x, lj, score)
        self.opt.step()
        self.steps += 1

    def track(self, logp):
        """After fitting: fresh draws, the bound ½ log mean w² and the
        linearised weights ω_i = w_i²/(nγ) of the θ-gradient."""
        with torch.no_grad():
            x, _, t = self.draw(logp)
        return x, 0.5 * logmeanexp(t), torch.exp(t - self.log_gamma) / len(t)


def neg_phase(rbm, zt, omega):
    """Σ_i ω_i log p̃(z̃_i): its θ-gradient estimates that of the bound."""
    return (omega * rbm.logp(zt)).sum()


def mlp(sizes, g):
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


def epoch(path, threads, prior):
    torch.set_num_threads(threads)
    x_all = torch.from_numpy(np.fromfile(path, dtype=np.uint8).reshape(-1, 784).astype(np.float32))
    N, D = x_all.shape
    Z = 200 if prior == "ber200" else 64
    g = torch.Generator().manual_seed(1)
    enc, dec, base = mlp([D, Hd, Z], g), mlp([Z, Hd, D], g), mlp([D, Hb, 1], g)
    counts = x_all.sum(0)
    with torch.no_grad():
        dec[-1].copy_(torch.log(counts + 1) - torch.log(N - counts + 1))
    if prior == "ber200":
        lam = torch.zeros(Z, requires_grad=True)
        prior_params, rbm, q = [lam], None, None
    else:
        rbm = RBMPrior(PRIOR_INIT_STD * torch.randn(Z, 64, generator=g), torch.zeros(Z), torch.zeros(64))
        prior_params = rbm.params()
        q = Mixture(Q_INIT_STD * torch.randn(Q_COMPONENTS, Z, generator=g), g)
    opt = torch.optim.Adam(enc + dec + base + prior_params, lr=LR)
    mu, var, steps = 0.0, 0.0, 0

    t0 = time.perf_counter()
    perm = torch.randperm(N, generator=g)
    total = 0.0
    for lo in range(0, N, B):
        x = x_all[perm[lo:lo + B]]
        nb = x.shape[0]
        if rbm is not None:
            for _ in range(Q_STEPS):
                q.step(rbm.logp)
            zt, bound, omega = q.track(rbm.logp)
        kappa = forward(enc, x)
        with torch.no_grad():
            z = (torch.rand(kappa.shape, generator=g) < torch.sigmoid(kappa)).float()
        logq = -F.binary_cross_entropy_with_logits(kappa, z, reduction="none").sum(1)
        ell = forward(dec, z)
        logpx = -F.binary_cross_entropy_with_logits(ell, x, reduction="none").sum(1)
        if rbm is None:
            logpz = (z * lam - F.softplus(lam)).sum(1)
        else:
            logpz = rbm.logp(z)
        b = forward(base, x).squeeze(1)
        with torch.no_grad():
            f = logpx + logpz - logq
            d = f - b - mu
            norm = max(1.0, math.sqrt(var)) if steps > 0 else 1.0
            s = torch.clamp(d / norm, -CLIP, CLIP)
        loss = -(logpx + logpz + s * logq).sum() / nb + 0.5 * ((f - mu - b) ** 2).sum() / nb
        if rbm is not None:
            loss = loss + neg_phase(rbm, zt, omega)
        opt.zero_grad()
        loss.backward()
        opt.step()
        md = float(d.mean())
        mean, vr = mu + md, max(0.0, float((d * d).mean()) - md * md)
        if steps > 0:
            mu, var = DECAY * mu + (1 - DECAY) * mean, DECAY * var + (1 - DECAY) * vr
        else:
            mu, var = mean, vr
        steps += 1
        total += float(f.sum())
        if rbm is not None:
            total -= nb * bound
    t = time.perf_counter() - t0
    name = "pytorch_" + prior + ("" if threads == 2 else "_%dthread" % threads)
    print("%s %.3f elbo %.3f" % (name, t, total / N))


def check():
    """The χ² pieces of the peer (RBMPrior, Mixture, neg_phase) against
    enumeration on an RBM with 8 visible and 4 hidden units (W, a, c ~
    N(0, 1)): log p̃(z) is log Σ_h exp(zᵀWh + aᵀz + cᵀh); r sums to one over
    {0,1}^8; its draws have the moments of the log r it reports; the
    θ-gradient estimate Σ_i ω_i ∇ log p̃(z̃_i) averages to the exact gradient
    of ½ log E_r[(p̃/r)²]; the bound of r, exact by enumeration, is ≥ the
    exact log Z and after fitting (the training loop's fitter steps) it is
    closer. Sampling tolerances are 5 standard errors (from the sample
    variance), rounding tolerances float32's."""
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(7)
    Dv, Hh = 8, 4
    rbm = RBMPrior(torch.randn(Dv, Hh, generator=g), torch.randn(Dv, generator=g), torch.randn(Hh, generator=g))
    q = Mixture(Q_INIT_STD * torch.randn(Q_COMPONENTS, Dv, generator=g), g)
    states = lambda n: torch.tensor([[(i >> j) & 1 for j in range(n)] for i in range(1 << n)], dtype=torch.float32)
    allz, allh = states(Dv), states(Hh)
    fails = []

    def expect(ok, what):
        print("check %s: %s" % ("ok" if ok else "FAILED", what))
        if not ok:
            fails.append(what)

    def exact():
        """log Z and the bound ½ log Σ_z p̃² / r, by enumeration."""
        lp = rbm.logp(allz)
        return float(torch.logsumexp(lp, 0)), 0.5 * torch.logsumexp(2 * lp - q.log_q(allz), 0)

    def tol(x):  # 16 float32 roundings of the largest term
        return 16 * torch.finfo(torch.float32).eps * float(x.abs().max())

    with torch.no_grad():
        joint = allz @ rbm.W @ allh.t() + (allz @ rbm.a)[:, None] + (allh @ rbm.c)[None, :]
        err = float((rbm.logp(allz) - torch.logsumexp(joint, 1)).abs().max())
        expect(err < tol(joint), "log p̃(z) against Σ_h over 2^4 states: largest difference %.1e (< %.1e)" % (err, tol(joint)))
        lq = q.log_q(allz)
        mass = float(torch.logsumexp(lq, 0))
        expect(abs(mass) < tol(lq), "log Σ_z r(z) = %.2e (0 within %.1e)" % (mass, tol(lq)))
        logz, b0 = exact()
        b0 = float(b0)
        expect(b0 >= logz - tol(torch.tensor(logz)), "initial r: exact bound %.5f ≥ log Z %.5f" % (b0, logz))
        # Draws: the mean of w² = p̃²/r² over r's draws against Σ_z p̃²/r.
        n = 200_000
        _, _, t = q.draw(rbm.logp, n)
        w2 = torch.exp(t.double() - 2 * logz)
        se = float(w2.std()) / math.sqrt(n)
        want = math.exp(2 * (b0 - logz))
        expect(abs(float(w2.mean()) - want) < 5 * se,
               "E_r[w²]/Z² by %d draws %.5f, by enumeration %.5f (5 SE %.5f)" % (n, float(w2.mean()), want, 5 * se))
        # The fitter's closed-form gradient against autograd of the surrogate.
        x, lj, _ = q.draw(rbm.logp)
        score = torch.randn(len(x), generator=g)
        got = q.score_grad(x, lj, score)
    eta = q.eta.clone().requires_grad_()
    lj = x @ F.logsigmoid(eta).t() + (1 - x) @ F.logsigmoid(-eta).t()
    (ref,) = torch.autograd.grad(-(score * torch.logsumexp(lj, 1)).sum(), eta)
    err, bnd = float((got - ref).abs().max()), 16 * torch.finfo(torch.float32).eps * float(score.abs().sum())
    expect(err < bnd, "fitter's gradient against autograd: largest difference %.1e (< %.1e, 16 roundings of Σ|score|)" % (err, bnd))
    # The θ-gradient at the initial r (far from p̃/Z, so the weights
    # matter): exact by autograd through the enumeration, against the mean
    # of the training loop's estimate with γ at its exact value.
    _, bound = exact()
    ps = rbm.params()
    want = torch.cat([w.flatten() for w in torch.autograd.grad(bound, ps)]).double()
    q.log_gamma = 2 * float(bound)
    M = 4000
    est = torch.empty(M, want.numel(), dtype=torch.float64)
    for m in range(M):
        zt, _, omega = q.track(rbm.logp)
        est[m] = torch.cat([v.flatten() for v in torch.autograd.grad(neg_phase(rbm, zt, omega), ps)]).double()
    mean, se = est.mean(0), est.std(0) / math.sqrt(M)
    zmax = float(((mean - want).abs() / se).max())
    expect(zmax < 5, "θ-gradient of the bound, %d estimates of %d draws: largest |mean − exact|/SE over %d entries %.2f (< 5)"
           % (M, Q_SAMPLES, want.numel(), zmax))
    q.log_gamma = 0.0
    for _ in range(2000):
        q.step(rbm.logp)
    logz, b1 = exact()
    b1 = float(b1)
    expect(b1 >= logz - tol(torch.tensor(logz)) and b1 - logz < 0.1 * (b0 - logz),
           "fitted r (2,000 steps): exact bound %.5f ≥ log Z %.5f, gap %.5f < a tenth of the initial %.5f"
           % (b1, logz, b1 - logz, b0 - logz))
    return 1 if fails else 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="PyTorch peer of logz's VAE NVIL epoch")
    ap.add_argument("data", nargs="?", help="N×784 bytes of 0/1")
    ap.add_argument("threads", nargs="?", type=int, default=2)
    ap.add_argument("--prior", choices=["ber200", "rbm64x64"], default="ber200")
    ap.add_argument("--check", action="store_true", help="check the χ² pieces against enumeration and exit")
    a = ap.parse_args()
    if a.check:
        sys.exit(check())
    if a.data is None:
        ap.error("DATA.u8 is required")
    epoch(a.data, a.threads, a.prior)
