"""What the ReLU network's gates are a function of (context, image, both), the census
over training and its chance readings (Defined for the page book/digits.md)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...book.kit import med
from ...core.algorithm1 import pattern_strings
from ...core.datasets import Dataset
from ...core.measures import functional_census, gating_census, level_times, unit_weight

#: The census's classes, as the page reads them.
CLASSES = ("common", "mixed", "single", "other", "item_dependent", "snap_change")

GATE_KINDS = ("off", "context", "item", "both")


def _by_context(G, ds: Dataset):
    """``G`` (``R x P``) as ``R x C x n``; the same images in every context."""
    G, C = np.atleast_2d(np.asarray(G, float)), ds.n_contexts
    n = ds.P // C
    if n * C != ds.P or not np.all(ds.contexts == np.repeat(np.arange(C), n)):
        raise ValueError(
            f"{ds.name}: columns must be context-major with C = {C} equal blocks"
        )
    items = ds.items.reshape(C, n)
    if not np.all(items == items[0]):
        raise ValueError(
            f"{ds.name}: every context must show the same images in the same order"
        )
    if G.shape[1] != ds.P:
        raise ValueError(f"gates cover {G.shape[1]} datapoints, the dataset {ds.P}")
    return G.reshape(G.shape[0], C, n)


def gate_sources(G, ds: Dataset, labels=None, tol: float = 0.05) -> dict:
    """What each gate (a row of ``G`` over the datapoints) is a function of.

    Returns:
        ``dev_context``, ``dev_item`` (and with the classes ``labels``, ``dev_class``):
        the share of datapoints where the gate differs from its nearest gate by
        context, by image (by class and context); ``kind``: ``'off'`` (on for at most
        ``tol``), ``'context'``, ``'item'`` (that deviation at most ``tol``) or
        ``'both'``.
    """
    if not 0 <= tol < 0.5:
        raise ValueError(f"tol must lie in [0, 0.5), got {tol}")
    B = _by_context(G, ds) >= 0.5  # R x C x n
    ctx = B.mean(axis=2, keepdims=True) >= 0.5
    item = B.mean(axis=1, keepdims=True) >= 0.5
    out = {
        "dev_context": np.mean(B != ctx, axis=(1, 2)),
        "dev_item": np.mean(B != item, axis=(1, 2)),
    }
    if labels is not None:
        labels = np.asarray(labels)
        snap = np.zeros_like(B)
        for c in np.unique(labels):
            m = labels == c
            snap[:, :, m] = B[:, :, m].mean(axis=2, keepdims=True) >= 0.5
        out["dev_class"] = np.mean(B != snap, axis=(1, 2))
    tests = [B.mean(axis=(1, 2)), out["dev_context"], out["dev_item"]]
    out["kind"] = np.select(
        [t <= tol for t in tests], ["off", "context", "item"], "both"
    )
    return out


def weight_by_kind(kind, weight) -> dict:
    """Share of ``weight`` (e.g. ``unit_weight``) per gate kind."""
    kind, w = np.asarray(kind), np.asarray(weight, float)
    return {k: float(w[kind == k].sum() / w.sum()) for k in GATE_KINDS}


def _census(W1, W2, G, ds: Dataset, contexts) -> dict:
    """:func:`gating_census` read with ``contexts``, with its ``snap_change``."""
    C = ds.n_contexts
    out = gating_census(G, W1, W2, contexts, C)
    out["snap_change"] = functional_census(W1, W2, ds.X, contexts, C)["snap_change"]
    return out


def census_over_training(run, ds: Dataset, labels=None, tol: float = 0.05) -> dict:
    """The ReLU network's gating at every record, per seed ([conv-census]): ``(seeds,
    R)`` arrays of the census classes (``CLASSES``) and the weight shares by gate kind
    (``by_class``: gates following class and context)."""
    G, (W1, W2) = run.records["gates"][0], run.records["weights"]
    S, R = G.shape[:2]
    out = {k: np.zeros((S, R)) for k in (*CLASSES, *GATE_KINDS, "by_class")}
    for s, r in np.ndindex(S, R):
        cen = _census(W1[s, r], W2[s, r], G[s, r], ds, ds.contexts)
        w = unit_weight(W1[s, r], W2[s, r])
        src = gate_sources(G[s, r], ds, labels, tol)
        cen |= weight_by_kind(src["kind"], w)
        for k in (*CLASSES, *GATE_KINDS):
            out[k][s, r] = cen[k]
        if labels is not None:
            out["by_class"][s, r] = float(w[src["dev_class"] <= tol].sum() / w.sum())
    return out


def census_shuffled(run, ds: Dataset, epochs, contexts) -> dict:
    """The census of ``run`` at ``epochs`` read with ``contexts`` (a permutation of
    ``ds.contexts``): ``{epoch: {class: median over seeds}}``."""
    shuffled = np.asarray(contexts)
    if sorted(shuffled.tolist()) != sorted(np.asarray(ds.contexts).tolist()):
        raise ValueError("contexts must be a permutation of ds.contexts")
    G, (W1, W2) = run.records["gates"][0], run.records["weights"]
    out = {}
    for e in epochs:
        i = run.index(int(e))
        rows = [
            _census(W1[s, i], W2[s, i], G[s, i], ds, shuffled) for s in range(len(G))
        ]
        out[int(e)] = {k: med([c[k] for c in rows]) for k in CLASSES}
    return out


def cluster_classes(clustering, contexts, n_contexts: int) -> dict:
    """Algorithm 1's clusters by census class: the share of the sampled rows in
    clusters whose binarised centroid, read with ``contexts``, is on in every context
    (``common``), in C - 1 (``mixed``), in one (``single``) or otherwise."""
    C = int(n_contexts)
    pats = pattern_strings(clustering.binary, np.asarray(contexts), C)
    out = {"common": 0.0, "mixed": 0.0, "single": 0.0, "other": 0.0}
    names = {1: "single", C: "common"} | ({C - 1: "mixed"} if C > 2 else {})
    for p, w in zip(pats, clustering.shares):
        out[names.get(p.count("1"), "other")] += float(w)
    return out


def compare_to_chance(value: float, baselines: dict) -> str:
    """``'below'``, ``'above'`` or ``'within'`` the range of ``baselines`` (a dict)."""
    lo, hi = min(baselines.values()), max(baselines.values())
    return "below" if value < lo else "above" if value > hi else "within"


def shuffle_contexts(ds: Dataset, seed: int) -> np.ndarray:
    """The contexts of ``ds`` shuffled over the datapoints (the chance control)."""
    return np.random.default_rng(seed).permutation(ds.contexts)


@dataclass(frozen=True)
class CensusReading:
    """The census where the loss has halved (median epoch ``t_half``, nearest record
    ``early``) and at the end (``at``: ``{"epoch e": {class: median}}``), at epoch 0
    (``init``) and with shuffled contexts (``shuffled``)."""

    t_half: float
    early: int
    at: dict
    init: dict
    shuffled: dict


def read_census(
    relu, census: dict, ds: Dataset, epochs: int, shuffled
) -> CensusReading:
    """The :class:`CensusReading` of ``census`` (of ``relu`` on ``ds``)."""
    t_rec = relu.record_epochs
    t_half = med([level_times(L, (0.5,))[0] for L in relu.loss])
    early = int(t_rec[np.argmin(np.abs(t_rec - t_half))])

    def at(e):
        return {k: med(census[k][:, relu.index(e)]) for k in CLASSES}

    return CensusReading(
        t_half=t_half,
        early=early,
        at={f"epoch {e}": at(e) for e in (early, epochs)},
        init=at(0),
        shuffled=census_shuffled(relu, ds, (early, epochs), shuffled),
    )
