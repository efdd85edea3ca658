"""The runs of the page ``book/reviewers.md``: many settings of one network shape
trained in one engine call, the ReLNs started as the ReLU network, Adam's step, the
Section 4 task with dense codes or noisy labels, the ReLN with separated phases and
the ReLU network with primed single-context units."""

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
    stacked setting by setting (``len(stds) * len(seeds)`` starts): the draw of
    :func:`helpers.core.engine.init_params` for each seed, at each std."""
    nets = [relu_network((ds.X.shape[0], width, ds.Y.shape[0]), s) for s in stds]
    starts = [init_params(n, s) for n in nets for s in seeds]
    return nets[0], stack_params(starts)


def reln_starts(
    ds: Dataset, kind: str, stds: Sequence[float], seeds, *, width: int, relu_width: int
) -> tuple[GatedNetwork, list]:
    """The contextual ReLN ``kind`` (one-way coupled, ``width`` units per pathway,
    [conv-context-reln]) with the ``"matched"`` initialisation ([conv-init],
    :func:`helpers.core.relns.start`) for each ReLU std in ``stds``: every weight at
    that std; initial weights stacked setting by setting, seed by seed."""
    reln = relns.context_reln(ds, kind, "one-way", width=width)
    nets = []
    for std in stds:
        relu = relu_network((ds.X.shape[0], relu_width, ds.Y.shape[0]), std)
        net, _ = relns.start(reln, "matched", seeds, relu_net=relu)
        nets += [net] * len(seeds)
    labels = list(seeds) * len(stds)
    return nets[0], relns.initial_weights(nets, labels)


def train_settings(net: GatedNetwork, X, Y, params0, n_settings: int, **kw):
    """:func:`helpers.core.engine.train` of stacked starts (``n_settings`` settings
    times the seeds), in one call; returns the run and its loss as
    ``(settings, seeds, T)``.
    The seed labels are 0, 1, ...: the starts are given, so they only name the runs."""
    n = np.shape(params0[0])[0]
    if n % n_settings:
        raise ValueError(f"{n} starts do not split into {n_settings} settings")
    run = train(net, X, Y, seeds=list(range(n)), params0=params0, **kw)
    return run, run.loss.reshape(n_settings, n // n_settings, -1)


def reln_settings(net: GatedNetwork, X, Y, params0, n_settings: int, maps=0, **kw):
    """:func:`train_settings` of a ReLN as a kept summary
    (:func:`helpers.core.store.derived`): the run records the weights of every start
    (megabytes a start), the page reads the loss and the first ``maps`` starts'
    pathway maps (:meth:`helpers.core.engine.Run.pathway_maps`).

    Defined for the page book/reviewers.md.

    Returns:
        ``(loss (settings, seeds, T), [maps of start 0, ...])``.
    """
    n = int(np.shape(params0[0])[0])

    def make():
        run, loss = train_settings(net, X, Y, params0, n_settings, **kw)
        return loss, [run.pathway_maps(s) for s in range(maps)]

    parts = (net, X, Y, params0, n_settings, maps, kw)
    what = f"reviewers ReLNs: {n} starts, {n_settings} settings"
    return store.derived(what, parts, make, "helpers.chapters.reviewers")


ADAM_RULES = ("mean", "largest")


def adam_step_rule(W_start, W_end, epochs: int, rule: str = "mean") -> float:
    """Adam's step from a gradient-descent run of ``epochs`` epochs (one update each).

    Adam moves each weight by about its step per update while the weight's gradient
    keeps its sign.  ``'mean'``: the distance that run moved its weights, per weight and
    per epoch, ``||theta_T - theta_0|| / (sqrt(n) T)``: Adam covers the same distance in
    the same time.  ``'largest'``: the largest distance any one weight moved, per epoch,
    ``max_i |theta_T - theta_0|_i / T``: the smallest step with which Adam can bring
    every weight from the run's start to its end within the run.  ``W_start``,
    ``W_end``: lists of weight arrays with a leading axis over seeds; the median over
    seeds."""
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
    """The task ``ds`` with each item's one-hot replaced by a dense correlated code.

    Item ``i``'s code is ``sqrt(1 - rho) z_i + sqrt(rho) z_0`` with ``z_0, ..., z_n``
    drawn i.i.d. from ``N(0, I_dims / dims)`` by ``np.random.default_rng(seed)`` (unit
    expected norm; two codes have expected cosine ``rho``).  The context one-hot rows
    and the targets are kept, so the context pathways still see the item rows only
    (:func:`helpers.core.relns.item_rows`).  ``rho = 0`` is a dense code with random,
    finite-sample correlations, not a whitened one.
    """
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
    """The task ``ds`` with i.i.d. Gaussian label noise of std ``sigma`` added to every
    target entry (``np.random.default_rng(seed)``); inputs unchanged."""
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
    """The one-way coupled contextual ReLN ``kind`` (``'mixed'``, ``'single'`` or
    ``'both'``) at init std ``std`` whose context pathways switch on at ``on_epoch``:
    the separated phases that Appendix F assumes (the common pathway first, the context
    pathways on its converged residual)."""
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
    context start gated to that context alone, with a larger initial scale.

    Every weight is drawn as by :func:`helpers.core.engine.init_params` (std ``std``,
    ``np.random.default_rng(seed)``).  Then, for each context ``c``, ``primed`` units
    get their item weights and readout multiplied by ``gain`` (a larger initial scale
    for a single-context "pathway", Eq. 7: ``a0`` grows as ``gain**2``), their weight
    from context ``c`` set to ``3 gain std`` (on for every item of ``c`` at the start)
    and their weights from the other contexts set to ``-off``.  A unit that is off
    receives no gradient through that input, so with ``off`` far above the item weights'
    final size the unit stays off outside ``c``: its gate is fixed, like a ReLN
    pathway's.
    """
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
