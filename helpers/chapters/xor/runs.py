"""The XoR chapter's training runs (``book/xor.md``): the main sweep over margins and
the sensitivity sweep over init scale and width."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...core import measures, xor_reln
from ...core.datasets import xor
from ...core.engine import init_params, relu_network, train
from ...core.relns import initial_weights
from ...core.xor_reln import KINDS
from .measures import CLASSES, crossover, gating_classes, gating_shares

GATED = ("weights", "gates")  # what the ReLU runs record


def train_margins(eps_grid, width, init_std, *, lr, epochs, seeds, record_epochs):
    """The main sweep of the page: at every margin, ``seeds`` ReLU networks and both
    ReLNs from the same initial weights (seed ``s`` of each), and both closed forms.

    Args:
        eps_grid: the margins, increasing; width, init_std: the ReLU network's hidden
            units and weight std (the ReLNs share the units out); lr, epochs: step
            size on the summed loss and gradient steps; seeds: how many (0 ..
            seeds-1); record_epochs: when the ReLU runs record weights and gates.

    Returns:
        A namespace of the arguments and ``relu`` ``(eps, seeds, epochs + 1)``
        losses, ``sim`` and ``cf`` ``{kind: losses}`` of the simulated ReLNs ``(eps,
        seeds, T)`` and closed forms ``(eps, T)``, ``shares`` ``(eps, seeds, records,
        3)`` the weight share of each gating class (:data:`CLASSES`), ``count_init``
        ``(eps, seeds, 3)`` the units' classes at epoch 0, ``a0`` the closed forms'
        initial strengths and ``same_init`` (the ReLNs start from the ReLU weights).
    """
    eps_grid = np.asarray(eps_grid, float)
    t_all, t_rec = np.arange(epochs + 1), np.asarray(record_epochs)
    relu = relu_network((3, width, 1), init_std)
    relns = {k: xor_reln.reln(k, width, init_std) for k in KINDS}
    a0 = {k: xor_reln.xor_initial_strength(k, width, init_std) for k in KINDS}
    same_init = all(
        np.array_equal(a, b)
        for a, b in zip(init_params(relu, 0), init_params(relns["xor"], 0))
    )
    n_eps = len(eps_grid)
    loss_relu = np.zeros((n_eps, seeds, epochs + 1))
    loss_sim = {k: np.zeros((n_eps, seeds, epochs + 1)) for k in KINDS}
    loss_cf = {k: np.zeros((n_eps, epochs + 1)) for k in KINDS}
    shares = np.zeros((n_eps, seeds, len(t_rec), 3))
    count_init = np.zeros((n_eps, seeds, 3))
    kw = dict(lr=lr, epochs=epochs, seeds=list(range(seeds)))
    for j, e in enumerate(eps_grid):
        ds = xor(e)
        run = train(relu, ds.X, ds.Y, record_epochs=t_rec, record=GATED, **kw)
        loss_relu[j] = run.loss
        (W1, W2), G = run.records["weights"], run.records["gates"][0]
        for s, r in np.ndindex(seeds, len(t_rec)):
            sh = gating_shares(G[s, r], W1[s, r], W2[s, r])
            shares[j, s, r] = [sh[c] for c in CLASSES]
        for s in range(seeds):
            count_init[j, s] = [np.mean(gating_classes(G[s, 0]) == c) for c in CLASSES]
        for k in KINDS:
            loss_sim[k][j] = train(relns[k], ds.X, ds.Y, **kw).loss
            loss_cf[k][j] = xor_reln.xor_closed_form_loss(t_all, e, k, a0[k], lr)
    return SimpleNamespace(
        eps=eps_grid, relu=loss_relu, sim=loss_sim, cf=loss_cf, shares=shares,
        count_init=count_init, a0=a0, same_init=same_init, width=width,
        init_std=init_std, lr=lr, epochs=epochs, seeds=seeds, record_epochs=t_rec,
    )  # fmt: skip


def sensitivity_sweep(groups, eps, seeds, *, lr, epochs, eps_star) -> list[dict]:
    """The switch of the ReLU networks per init scale and width (the page's
    sensitivity sweep): at every margin of ``eps``, ``seeds`` networks per setting.

    Args:
        groups: ``{width: [init std, ...]}``; the scales of one width train side by
            side in one call, seed ``s`` of every scale from the same normal numbers.
        eps: the margins, increasing; seeds: per setting; lr, epochs: as in
            :func:`train_margins`; eps_star: the ReLNs' crossover, where ``u0`` is read.

    Returns:
        One dict per setting: ``width``, ``std``, ``u0`` (both ReLNs' normalised
        initial strength at ``eps_star``), ``cross`` (the switch per seed, NaN where
        none), ``cross_med`` (their median) and ``gap`` (time gap of the ReLU network
        to the faster closed form with the setting's own ``a0``, median over margins
        and seeds).
    """
    eps = np.asarray(sorted(eps), float)
    t_all, S = np.arange(epochs + 1), list(range(seeds))
    sweep = []
    for width, stds in groups.items():
        net = relu_network((3, width, 1), stds[0])
        starts = [
            initial_weights([relu_network((3, width, 1), sd)] * seeds, S) for sd in stds
        ]
        p0 = [np.concatenate(W) for W in zip(*starts)]  # (stds x seeds, ...)
        runs = list(range(len(stds) * seeds))
        lin = np.zeros((len(eps), len(stds), seeds))
        gap = np.zeros_like(lin)
        for j, e in enumerate(eps):
            ds = xor(e)
            run = train(net, ds.X, ds.Y, lr=lr, epochs=epochs, seeds=runs,
                        params0=p0, record_epochs=[epochs], record=GATED)  # fmt: skip
            W1, W2 = (W[:, -1] for W in run.records["weights"])
            G = run.records["gates"][0][:, -1]
            for n, sd in enumerate(stds):
                a0 = {k: xor_reln.xor_initial_strength(k, width, sd) for k in KINDS}
                t = {
                    k: xor_reln.closed_form_learning_time(e, k, a0[k], lr)
                    for k in KINDS
                }
                fast = min(KINDS, key=t.get)
                L_fast = xor_reln.xor_closed_form_loss(t_all, e, fast, a0[fast], lr)
                idx = range(n * seeds, (n + 1) * seeds)
                lin[j, n] = [gating_shares(G[i], W1[i], W2[i])["linear"] for i in idx]
                gap[j, n] = [measures.time_gap(run.loss[i], L_fast) for i in idx]
        for n, sd in enumerate(stds):
            cx = np.array([crossover(eps, lin[:, n, s]) for s in S])
            med = float(np.nanmedian(cx)) if np.isfinite(cx).any() else np.nan
            u0 = xor_reln.xor_initial_strength("linear", width, sd) * eps_star
            g = float(np.median(gap[:, n]))
            sweep.append(
                dict(width=width, std=sd, u0=u0, cross=cx, cross_med=med, gap=g)
            )
    return sweep
