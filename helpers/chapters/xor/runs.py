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
        eps_grid: the margins, increasing.
        width, init_std: the ReLU network's hidden units and weight std (the ReLNs
            share the units out, so they start from the same weights).
        lr, epochs: step size on the summed loss and gradient steps.
        seeds: how many seeds (0 .. seeds-1).
        record_epochs: the epochs at which the ReLU runs record weights and gates.

    Returns:
        A namespace: ``relu`` ``(eps, seeds, epochs + 1)`` losses, ``sim`` and ``cf``
        ``{kind: losses}`` of the simulated ReLNs ``(eps, seeds, T)`` and closed forms
        ``(eps, T)``, ``shares`` ``(eps, seeds, records, 3)`` the weight share of each
        gating class (:data:`CLASSES`), ``count_init`` ``(eps, seeds, 3)`` the units'
        classes at epoch 0, ``a0`` the closed forms' initial strengths and
        ``same_init`` (the ReLN starts from the ReLU network's weights), with the
        arguments.
    """
    eps_grid = np.asarray(eps_grid, float)
    t_all, t_rec = np.arange(epochs + 1), np.asarray(record_epochs)
    SEEDS = list(range(seeds))
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
    for j, e in enumerate(eps_grid):
        ds = xor(e)
        kw = dict(lr=lr, epochs=epochs, seeds=SEEDS)
        run = train(relu, ds.X, ds.Y, record_epochs=t_rec, record=GATED, **kw)
        loss_relu[j] = run.loss
        W1, W2 = run.records["weights"]
        G = run.records["gates"][0]
        for s in range(seeds):
            for r in range(len(t_rec)):
                sh = gating_shares(G[s, r], W1[s, r], W2[s, r])
                shares[j, s, r] = [sh[c] for c in CLASSES]
            cls0 = gating_classes(G[s, 0])
            count_init[j, s] = [np.mean(cls0 == c) for c in CLASSES]
        for k in KINDS:
            loss_sim[k][j] = train(relns[k], ds.X, ds.Y, **kw).loss
            loss_cf[k][j] = xor_reln.xor_closed_form_loss(t_all, e, k, a0[k], lr)
    return SimpleNamespace(
        eps=eps_grid,
        relu=loss_relu,
        sim=loss_sim,
        cf=loss_cf,
        shares=shares,
        count_init=count_init,
        a0=a0,
        same_init=same_init,
        width=width,
        init_std=init_std,
        lr=lr,
        epochs=epochs,
        seeds=seeds,
        record_epochs=t_rec,
    )


def sensitivity_sweep(groups, eps, seeds, *, lr, epochs, eps_star) -> list[dict]:
    """The switch of the ReLU networks per init scale and width (the page's
    sensitivity sweep): at every margin of ``eps``, ``seeds`` networks per setting.

    Args:
        groups: ``{width: [init std, ...]}``; the scales of one width train side by
            side in one call, seed ``s`` of every scale from the same normal numbers.
        eps: the margins of the sweep, increasing.
        seeds: seeds per setting.
        lr, epochs: as in :func:`train_margins`.
        eps_star: the ReLNs' crossover, at which ``u0`` is read.

    Returns:
        One dict per setting: ``width``, ``std``, ``u0`` (both ReLNs' normalised
        initial strength at ``eps_star``), ``cross`` (the switch per seed, NaN where
        none), ``cross_med`` (their median) and ``gap`` (time gap of the ReLU network
        to the faster closed form with the setting's own ``a0``, median over margins
        and seeds).
    """
    eps = np.asarray(sorted(eps), float)
    t_all = np.arange(epochs + 1)
    S_sw = list(range(seeds))
    sweep = []
    for w_, stds_ in groups.items():
        net_ = relu_network((3, w_, 1), stds_[0])
        starts = [
            initial_weights([relu_network((3, w_, 1), sd)] * seeds, S_sw)
            for sd in stds_
        ]
        p0 = [np.concatenate(W) for W in zip(*starts)]  # (stds x seeds, ...)
        runs_ = len(stds_) * seeds
        lin_ = np.zeros((len(eps), len(stds_), seeds))
        gap_ = np.zeros_like(lin_)
        for j, e in enumerate(eps):
            ds = xor(e)
            r_ = train(net_, ds.X, ds.Y, lr=lr, epochs=epochs, seeds=list(range(runs_)),
                       params0=p0, record_epochs=[epochs], record=GATED)  # fmt: skip
            W1_, W2_ = (W[:, -1] for W in r_.records["weights"])
            G_ = r_.records["gates"][0][:, -1]
            for n, sd in enumerate(stds_):
                a0_ = {k: xor_reln.xor_initial_strength(k, w_, sd) for k in KINDS}
                fast_ = min(
                    KINDS,
                    key=lambda k: xor_reln.closed_form_learning_time(e, k, a0_[k], lr),
                )
                L_fast = xor_reln.xor_closed_form_loss(t_all, e, fast_, a0_[fast_], lr)
                for s_ in S_sw:
                    i = n * seeds + s_
                    lin_[j, n, s_] = gating_shares(G_[i], W1_[i], W2_[i])["linear"]
                    gap_[j, n, s_] = measures.time_gap(r_.loss[i], L_fast)
        for n, sd in enumerate(stds_):
            cx = np.array([crossover(eps, lin_[:, n, s_]) for s_ in S_sw])
            sweep.append(
                dict(
                    width=w_,
                    std=sd,
                    u0=xor_reln.xor_initial_strength("linear", w_, sd) * eps_star,
                    cross=cx,
                    cross_med=float(np.nanmedian(cx))
                    if np.isfinite(cx).any()
                    else np.nan,
                    gap=float(np.median(gap_[:, n])),
                )
            )
    return sweep
