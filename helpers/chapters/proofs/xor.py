"""Appendix C: the XoR ReLNs simulated against their closed forms, and where they
swap speed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...core import race, xor_reln
from ...core.datasets import xor
from ...core.engine import init_params, train
from ...core.measures import learning_time_from_curve

EPS_PAPER = float(np.sqrt(2 / 3))  # Eq. 26


def crossing(times, eps_list, s) -> float:
    """Margin where the two XoR ReLNs' halving times ``times[eps, kind, s]`` cross,
    by linear interpolation of their log-ratio (nan when they do not)."""
    g = np.array([np.log(times[e, "linear", s] / times[e, "xor", s]) for e in eps_list])
    k = np.flatnonzero(np.sign(g[:-1]) != np.sign(g[1:]))
    if not k.size:
        return float("nan")
    k = k[0]
    e0, e1 = eps_list[k : k + 2]
    return float(e0 + (e1 - e0) * g[k] / (g[k] - g[k + 1]))


class Algebra(NamedTuple):
    """The crossover margin three ways (the root of ``3 eps^2 - 2``, root searches on
    the data's and the closed forms' modes) and how far those modes differ."""

    poly_root: float
    eps_data: float
    eps_formula: float
    modes_diff: float


def crossover_algebra(eps_list) -> Algebra:
    """Appendix C's algebra checked; ``modes_diff``: the largest difference between
    the effective modes of ``xor(eps)`` and their closed forms over ``eps_list``."""
    modes_diff = max(
        abs(float(x) - float(y))
        for e in eps_list
        for kind in xor_reln.KINDS
        for s_, d_, _ in xor_reln.effective_modes(e, kind).values()
        for x, y in zip((s_[0], d_[0]), xor_reln.analytic_modes(e, kind))
    )
    root = float(np.max(np.roots([3.0, 0.0, -2.0]).real))
    return Algebra(
        root, xor_reln.eps_star(from_data=True), xor_reln.eps_star(), modes_diff
    )


@dataclass
class Simulated:
    """The XoR ReLNs at each margin (``sim``, closed form ``cf``, initial strengths
    ``a0``, keyed ``(eps, kind, seed)``), their halving times (``halving``,
    ``halving_cf``), the margins where they cross per seed (``cross_sim``,
    ``cross_cf``), the mean initial strength and the crossover it predicts; ``eps``,
    ``seeds``, ``width``, ``init_std``, ``lr``: the settings."""

    sim: dict
    cf: dict
    a0: dict
    halving: dict
    halving_cf: dict
    cross_sim: np.ndarray
    cross_cf: np.ndarray
    a0_mean: float
    cross_pred: float
    eps: list
    seeds: int
    width: int
    init_std: float
    lr: float


def simulate(eps_list, width, init_std, lr, epochs, n_seeds: int) -> Simulated:
    """Both XoR ReLNs simulated at each margin against each pathway's closed form."""
    t, seeds = np.arange(epochs + 1), range(n_seeds)
    sim, cf, a0 = {}, {}, {}
    for eps in eps_list:
        d = xor(eps)
        for kind in xor_reln.KINDS:
            net = xor_reln.reln(kind, width * len(xor_reln.GATES[kind]), init_std)
            run = train(net, d.X, d.Y, lr=lr, epochs=epochs, seeds=list(seeds))
            for i, s in enumerate(seeds):
                a0[eps, kind, s] = race.effective_a0(net, init_params(net, s), d.X, d.Y)
                sim[eps, kind, s] = run.loss[i]
                cf[eps, kind, s] = xor_reln.xor_closed_form_loss(
                    t, eps, kind, a0[eps, kind, s], lr
                )
    half = xor_reln.LEARNING_FRACTION
    halving = {k: learning_time_from_curve(L, half) for k, L in sim.items()}
    halving_cf = {k: learning_time_from_curve(L, half) for k, L in cf.items()}
    a0_mean = float(np.mean([v for d in a0.values() for v in d.values()]))
    cross = [
        np.array([crossing(h, eps_list, s) for s in seeds])
        for h in (halving, halving_cf)
    ]
    pred = xor_reln.learning_time_crossover(a0_mean, a0_mean, lr)
    return Simulated(sim, cf, a0, halving, halving_cf, *cross, a0_mean, pred, eps_list,
                     n_seeds, width, init_std, lr)  # fmt: skip
