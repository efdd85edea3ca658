"""Measurements shared by the chapters: curve distances, learning times, gating censuses."""
from __future__ import annotations

from collections import Counter

import numpy as np

__all__ = [
    "curve_distance",
    "halfway_time",
    "learning_time_from_curve",
    "unit_weight",
    "context_patterns",
    "gating_census",
    "stereotype_index",
]


def curve_distance(La, Lb, floor_frac: float = 1e-3) -> float:
    """Distance between two loss curves ([conv-data]; the book's curve measure).

    The mean over epochs of ``|log max(L_a(t), f) - log max(L_b(t), f)|`` with the floor
    ``f = floor_frac * L_a(0)``.  A maximum of absolute differences is dominated by the
    first drop; without the floor the converged tail dominates.
    """
    La = np.asarray(La, float)
    Lb = np.asarray(Lb, float)
    if La.shape != Lb.shape or La.ndim != 1:
        raise ValueError(f"curve_distance needs two 1-D curves of equal length, got {La.shape} and {Lb.shape}")
    if not (np.all(np.isfinite(La)) and np.all(np.isfinite(Lb))):
        raise ValueError("curve_distance: the curves must be finite")
    f = floor_frac * La[0]
    if f <= 0:
        raise ValueError(f"curve_distance: L_a(0) must be positive, got {La[0]}")
    return float(np.mean(np.abs(np.log(np.maximum(La, f)) - np.log(np.maximum(Lb, f)))))


def halfway_time(L) -> int:
    """First epoch at which a loss curve is halfway from its start to its end value,
    ``L(t) <= (L(0) + L(T)) / 2``."""
    L = np.asarray(L, float)
    target = 0.5 * (L[0] + L[-1])
    return int(np.argmax(L <= target))


def learning_time_from_curve(L, fraction: float = 0.5) -> float:
    """First epoch at which ``L(t) <= fraction * L(0)`` (``inf`` if never)."""
    L = np.asarray(L, float)
    hit = np.flatnonzero(L <= fraction * L[0])
    return float(hit[0]) if hit.size else float("inf")


def unit_weight(W1, W2) -> np.ndarray:
    """Contribution of each hidden unit, ``|W2[:, j]| |W1[j, :]|`` ([conv-census])."""
    return np.linalg.norm(W2, axis=0) * np.linalg.norm(W1, axis=1)


def context_patterns(gates, contexts, n_contexts: int, threshold: float = 0.5):
    """Each unit's on/off pattern over contexts, as strings such as ``'110'``.

    A unit is "on" in context ``c`` when active for at least ``threshold`` of that
    context's datapoints ([conv-census]).  Also returns, per unit, whether its activity inside
    some context is item-dependent (neither all on nor all off).
    """
    G = np.asarray(gates, float)
    contexts = np.asarray(contexts)
    frac = np.stack([G[:, contexts == c].mean(axis=1) for c in range(n_contexts)], axis=1)
    pats = ["".join("1" if f >= threshold else "0" for f in row) for row in frac]
    item_dependent = np.any((frac > 0) & (frac < 1), axis=1)
    return pats, item_dependent


def gating_census(gates, W1, W2, contexts, n_contexts: int, threshold: float = 0.5) -> dict:
    """Share of hidden weight mass per gating class ([conv-census]).

    Classes: ``common`` (on in every context), ``mixed`` (on in C-1 of C), ``single``
    (on in exactly one context), ``other`` (the rest).  Returns the shares (summing to 1),
    the share of weight in units whose gating is item-dependent, and the weight per
    pattern string.
    """
    w = unit_weight(W1, W2)
    total = w.sum()
    if total <= 0:
        raise ValueError("gating_census: every unit has zero weight")
    pats, item_dep = context_patterns(gates, contexts, n_contexts, threshold)
    by_pattern: Counter = Counter()
    for p, wj in zip(pats, w):
        by_pattern[p] += wj / total
    C = n_contexts

    def cls(p):
        k = p.count("1")
        if k == C:
            return "common"
        if k == C - 1 and C > 2:
            return "mixed"
        if k == 1:
            return "single"
        return "other"

    shares = {"common": 0.0, "mixed": 0.0, "single": 0.0, "other": 0.0}
    for p, v in by_pattern.items():
        shares[cls(p)] += v
    shares = {k: float(v) for k, v in shares.items()}
    shares["item_dependent"] = float(w[item_dep].sum() / total)
    shares["patterns"] = {k: float(v) for k, v in sorted(by_pattern.items(), key=lambda kv: -kv[1])}
    return shares


def stereotype_index(curves) -> int:
    """The run closest to the mean trajectory: least summed squared distance of its
    curve to the mean curve ([conv-depth], Section 6)."""
    C = np.asarray(curves, float)
    return int(np.argmin(np.sum((C - C.mean(axis=0)) ** 2, axis=1)))
