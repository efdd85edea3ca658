"""The runs of the page ``book/reviewers.md``: settings of one shape in one engine
call, matched ReLNs, Adam's step, Section 4 task variants, separated phases, primed
units."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from ...core import relns, store
from ...core.checks import check_epochs, check_positive_int
from ...core.datasets import Dataset
from ...core.engine import GatedNetwork, Pathway, gdln, init_params, relu_network, train
from ...core.minibatch import stack_params


def relu_starts(
    ds: Dataset, width: int, stds: Sequence[float], seeds
) -> tuple[GatedNetwork, list]:
    """A ``(d, width, p)`` ReLU network and its initial weights for every (std, seed),
    stacked setting by setting."""
    nets = [relu_network((ds.X.shape[0], width, ds.Y.shape[0]), s) for s in stds]
    starts = [init_params(n, s) for n in nets for s in seeds]
    return nets[0], stack_params(starts)


def reln_starts(
    ds: Dataset, kind: str, stds: Sequence[float], seeds, *, width: int, relu_width: int
) -> tuple[GatedNetwork, list]:
    """The one-way contextual ReLN ``kind`` ([conv-context-reln]) and its ``"matched"``
    starts ([conv-init]) for each ReLU std, stacked setting by setting."""
    reln = relns.context_reln(ds, kind, "one-way", width=width)
    nets = []
    for std in stds:
        relu = relu_network((ds.X.shape[0], relu_width, ds.Y.shape[0]), std)
        net, _ = relns.start(reln, "matched", seeds, relu_net=relu)
        nets += [net] * len(seeds)
    labels = list(seeds) * len(stds)
    return nets[0], relns.initial_weights(nets, labels)


def train_settings(net: GatedNetwork, X, Y, params0, n_settings: int, **kw):
    """Train stacked starts in one call: ``(run, loss (settings, seeds, T))``."""
    n = np.shape(params0[0])[0]
    if n % n_settings:
        raise ValueError(f"{n} starts do not split into {n_settings} settings")
    run = train(net, X, Y, seeds=list(range(n)), params0=params0, **kw)
    return run, run.loss.reshape(n_settings, n // n_settings, -1)


def reln_settings(net: GatedNetwork, X, Y, params0, n_settings: int, maps=0, **kw):
    """:func:`train_settings` of a ReLN as a kept summary
    (:func:`helpers.core.store.derived`): ``(loss (settings, seeds, T), [pathway maps
    of the first ``maps`` starts])``.  Defined for the page book/reviewers.md."""
    n = int(np.shape(params0[0])[0])

    def make():
        run, loss = train_settings(net, X, Y, params0, n_settings, **kw)
        return loss, [run.pathway_maps(s) for s in range(maps)]

    parts = (net, X, Y, params0, n_settings, maps, kw)
    what = f"reviewers ReLNs: {n} starts, {n_settings} settings"
    return store.derived(what, parts, make, "helpers.chapters.reviewers")


ADAM_RULES = ("mean", "largest")


def adam_step_rule(W_start, W_end, epochs: int, rule: str = "mean") -> float:
    """Adam's step from a gradient-descent run (median over seeds): ``'mean'``
    ``||theta_T - theta_0|| / (sqrt(n) T)``, or ``'largest'`` ``max_i |theta_T -
    theta_0|_i / T`` (Adam moves each weight about one step per update)."""
    if rule not in ADAM_RULES:
        raise ValueError(f"rule must be one of {ADAM_RULES}, got {rule!r}")
    epochs = check_epochs(epochs)
    a = np.concatenate([np.reshape(w, (np.shape(w)[0], -1)) for w in W_start], axis=1)
    b = np.concatenate([np.reshape(w, (np.shape(w)[0], -1)) for w in W_end], axis=1)
    if rule == "mean":
        per_seed = np.linalg.norm(b - a, axis=1) / np.sqrt(a.shape[1])
    else:
        per_seed = np.abs(b - a).max(axis=1)
    return float(np.median(per_seed) / epochs)


def correlated_task(ds: Dataset, rho: float, dims: int, seed: int) -> Dataset:
    """The task ``ds`` with each item's one-hot replaced by a dense code
    ``sqrt(1 - rho) z_i + sqrt(rho) z_0``, ``z ~ N(0, I_dims / dims)`` (expected cosine
    ``rho``); context rows and targets kept."""
    if not 0 <= rho < 1:
        raise ValueError(f"rho must lie in [0, 1), got {rho}")
    dims = check_positive_int(dims, "dims")
    items = [i for i, n in enumerate(ds.inputs) if not n.startswith("ctx")]
    n_items = len(items)
    if dims < n_items:
        raise ValueError(
            f"dims must be >= the {n_items} items (codes linearly independent)"
        )
    rng = np.random.default_rng(int(seed))
    Z = rng.standard_normal((dims, n_items + 1)) / np.sqrt(dims)
    M = np.sqrt(1 - rho) * Z[:, 1:] + np.sqrt(rho) * Z[:, :1]  # dims x items
    onehot = ds.X[items]  # items x P
    X = np.vstack([M @ onehot, np.delete(ds.X, items, axis=0)])
    names = tuple(
        [f"code{k}" for k in range(dims)]
        + [n for n in ds.inputs if n.startswith("ctx")]
    )
    return replace(
        ds,
        name=f"{ds.name}, codes rho={rho:g}",
        X=X,
        inputs=names,
        reconstruction="dense correlated item codes (our construction)",
    )


def noisy_task(ds: Dataset, sigma: float, seed: int) -> Dataset:
    """The task ``ds`` with i.i.d. Gaussian label noise of std ``sigma``."""
    sigma = float(sigma)
    if not np.isfinite(sigma) or sigma < 0:
        raise ValueError(f"sigma must be a finite number >= 0, got {sigma}")
    rng = np.random.default_rng(int(seed))
    Y = ds.Y + sigma * rng.standard_normal(ds.Y.shape)
    return replace(
        ds,
        name=f"{ds.name}, label noise {sigma:g}",
        Y=Y,
        reconstruction="Gaussian label noise (our construction)",
    )


def delayed_reln(
    ds: Dataset, kind: str, std: float, width: int, on_epoch: int
) -> GatedNetwork:
    """The one-way contextual ReLN ``kind`` whose context pathways switch on at
    ``on_epoch``: the separated phases Appendix F assumes."""
    C = ds.n_contexts
    on_sets = {"mixed": [C - 1], "single": [1], "both": [C - 1, 1]}
    if kind not in on_sets:
        raise ValueError(f"kind must be one of {sorted(on_sets)}, got {kind!r}")
    pws = [Pathway("common", width, None, None, (std, std), common=True)]
    for on in on_sets[kind]:
        pws += [
            replace(p, on_epoch=int(on_epoch))
            for p in relns.context_pathways(ds, on, width, std)
        ]
    return gdln(ds.X.shape[0], ds.Y.shape[0], ds.P, pws, coupling="one-way")


def primed_relu_weights(
    ds: Dataset,
    width: int,
    std: float,
    seed: int,
    *,
    primed: int,
    gain: float,
    off: float,
) -> list[np.ndarray]:
    """Initial weights of a ``(d, width, p)`` ReLU network in which ``primed`` units per
    context ``c`` start gated to ``c`` alone: weights times ``gain`` (``a0`` as
    ``gain**2``, Eq. 7), ``3 gain std`` from ``c``, ``-off`` from the other contexts
    (an off unit gets no gradient, so its gate stays fixed)."""
    d, P = ds.X.shape
    p = ds.Y.shape[0]
    width = check_positive_int(width, "width")
    C = ds.n_contexts
    if primed < 0 or primed * C > width:
        raise ValueError(
            f"{primed} primed units per context need width >= {primed * C}, got {width}"
        )
    if not (gain > 0 and off >= 0):
        raise ValueError(f"gain must be > 0 and off >= 0, got {gain} and {off}")
    rng = np.random.default_rng(int(seed))
    W1 = rng.standard_normal((width, d)) * std
    W2 = rng.standard_normal((p, width)) * std
    ctx_rows = [i for i, n in enumerate(ds.inputs) if n.startswith("ctx")]
    for c in range(C):
        sl = slice(c * primed, (c + 1) * primed)
        W1[sl] *= gain
        W2[:, sl] *= gain
        for k, row in enumerate(ctx_rows):
            W1[sl, row] = 3.0 * gain * std if k == c else -off
    return [W1, W2]
