"""Measurements shared by the chapters: learning-time comparisons of loss curves (the
book's verdict measure, [conv-measures]), curve distances (pictures only), gating
censuses by weight and by function."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations

import numpy as np

__all__ = [
    "LEVELS",
    "level_times",
    "time_gap",
    "Match",
    "match",
    "seed_spread",
    "censored",
    "curve_distance",
    "output_gap",
    "halfway_time",
    "learning_time_from_curve",
    "unit_weight",
    "context_patterns",
    "gating_census",
    "stereotype_index",
    "snap_to_contexts",
    "functional_census",
]

#: The loss levels at which two curves are compared: fractions of the initial loss.
LEVELS = (0.5, 0.1, 0.01, 0.001)


def level_times(L, levels=LEVELS) -> np.ndarray:
    """The first epoch at which ``L(t) <= f L(0)``, for each level ``f``, interpolated
    linearly between epochs; ``nan`` for a level the curve never reaches."""
    L = np.asarray(L, float)
    if L.ndim != 1 or L.size < 2 or not np.all(np.isfinite(L)) or L[0] <= 0:
        raise ValueError("level_times needs one finite loss curve with L(0) > 0")
    out = []
    for f in levels:
        if not 0 < f < 1:
            raise ValueError(
                f"levels are fractions of the initial loss in (0, 1), got {f}"
            )
        target = f * L[0]
        hit = np.flatnonzero(L <= target)
        if not hit.size:
            out.append(np.nan)
            continue
        t = int(hit[0])
        a, b = L[t - 1], L[t]  # t >= 1 since L(0) > target
        out.append(t - 1 + (a - target) / (a - b) if a > b else float(t))
    return np.asarray(out, float)


def censored(La, Lb, levels=LEVELS) -> bool:
    """Whether :func:`time_gap` of these curves is only a lower bound: some level is
    reached by ``La`` (the reference) but not by ``Lb`` within the run."""
    ta, tb = level_times(La, levels), level_times(Lb, levels)
    return bool(np.any(~np.isnan(ta) & np.isnan(tb)))


def time_gap(La, Lb, levels=LEVELS) -> float:
    """How far apart two loss curves are in time ([conv-measures]): the largest, over
    the
    levels both reach, of ``|ln(t_b / t_a)|``, where ``t`` is the epoch at which a curve
    first falls to the level (a fraction of *its own* initial loss).  0.05 means 5 %
    apart at the worst level.  It does not depend on how long the runs are, unlike a
    mean over epochs.

    A level that one curve reaches and the other does not within the run counts with the
    other's time set to the run's end: a lower bound of the gap.  Levels neither reaches
    are skipped; if ``La`` reaches none, the gap is undefined (ValueError).
    """
    ta, tb = level_times(La, levels), level_times(Lb, levels)
    end = [len(La) - 1, len(Lb) - 1]
    gaps = []
    for a, b in zip(ta, tb):
        if np.isnan(a) and np.isnan(b):
            continue
        a = end[0] if np.isnan(a) else a
        b = end[1] if np.isnan(b) else b
        gaps.append(abs(np.log(max(b, 0.5) / max(a, 0.5))))
    if not gaps:
        raise ValueError("time_gap: neither curve reaches any level; run longer")
    return float(max(gaps))


@dataclass(frozen=True)
class Match:
    """How closely a candidate (a ReLN, a closed form) follows a reference network.

    ``value``: median over seeds of :func:`time_gap` (reference seed ``s`` against
    candidate seed ``s``); ``spread``: median over pairs of reference seeds of the same
    gap (how far apart two runs of the reference itself are); ``alternative``: the same
    as ``value`` for the paper's alternative, when there is one; ``per_seed``: the gaps
    behind ``value``; ``censored``: for some seed the candidate never reaches, within
    the run, a loss level the reference reaches, so ``value`` is only a lower bound.
    """

    value: float
    spread: float
    alternative: float | None
    per_seed: tuple
    censored: bool = False

    def record(self) -> dict:
        """Keyword arguments for ``Records.add`` (the rulebook's ``seed_noise``
        test)."""
        return {
            "criterion": "seed_noise",
            "spread": self.spread,
            "alternative": self.alternative,
            "censored": self.censored,
        }


def seed_spread(values) -> float:
    """The seed spread of a scalar measured once per seed ([conv-measures]): the median
    over pairs of seeds of ``|x_a - x_b|``, the yardstick of the rulebook's ``near``."""
    v = np.asarray(values, float).ravel()
    if v.size < 2:
        raise ValueError("seed_spread needs at least 2 seeds")
    return float(np.median([abs(a - b) for a, b in combinations(v, 2)]))


def match(reference, candidate, alternative=None, levels=LEVELS) -> Match:
    """:class:`Match` of ``candidate`` curves to ``reference`` curves (``(seeds, T)``
    each,
    or one curve for a deterministic candidate), calibrated by the reference's own
    seeds.
    """
    R = np.atleast_2d(np.asarray(reference, float))
    if R.shape[0] < 2:
        raise ValueError(
            "match needs at least 2 reference seeds: their spread is the yardstick"
        )

    def gaps(other):
        O = np.atleast_2d(np.asarray(other, float))
        if O.shape[0] == 1:
            O = np.repeat(O, R.shape[0], axis=0)
        if O.shape[0] != R.shape[0]:
            raise ValueError(
                f"{O.shape[0]} candidate curves for {R.shape[0]} reference seeds"
            )
        return [time_gap(r, o, levels) for r, o in zip(R, O)]

    per = gaps(candidate)
    pairs = [
        time_gap(R[i], R[j], levels) for i, j in combinations(range(R.shape[0]), 2)
    ]
    alt = None if alternative is None else float(np.median(gaps(alternative)))
    C = np.atleast_2d(np.asarray(candidate, float))
    C = np.repeat(C, R.shape[0], axis=0) if C.shape[0] == 1 else C
    cens = any(censored(r, c, levels) for r, c in zip(R, C))
    return Match(
        float(np.median(per)),
        float(np.median(pairs)),
        alt,
        tuple(float(g) for g in per),
        cens,
    )


def curve_distance(La, Lb, floor_frac: float = 1e-3) -> float:
    """Distance between two loss curves, for pictures only ([conv-measures]): it is a
    mean over epochs, so it shrinks as runs get longer; verdicts use :func:`time_gap`.

    The mean over epochs of ``|log max(L_a(t), f) - log max(L_b(t), f)|`` with the floor
    ``f = floor_frac * L_a(0)``.  A maximum of absolute differences is dominated by the
    first drop; without the floor the converged tail dominates.
    """
    La = np.asarray(La, float)
    Lb = np.asarray(Lb, float)
    if La.shape != Lb.shape or La.ndim != 1:
        raise ValueError(
            f"curve_distance needs two 1-D curves of equal length, got {La.shape} and "
            f"{Lb.shape}"
        )
    if not (np.all(np.isfinite(La)) and np.all(np.isfinite(Lb))):
        raise ValueError("curve_distance: the curves must be finite")
    f = floor_frac * La[0]
    if f <= 0:
        raise ValueError(f"curve_distance: L_a(0) must be positive, got {La[0]}")
    return float(np.mean(np.abs(np.log(np.maximum(La, f)) - np.log(np.maximum(Lb, f)))))


def output_gap(A, B=None) -> np.ndarray:
    """Relative output gaps ``||a - b|| / ||a||`` ([conv-output-gap]): every output
    ``a`` of ``A`` (the reference runs) against every ``b`` of ``B``, or, when ``B`` is
    None, every pair ``i < j`` of ``A`` (the reference's seed spread).  ``A``, ``B``:
    sequences of outputs of one shape (``None`` entries are skipped).  Summarise with
    the median."""
    A = [np.asarray(a, float) for a in A if a is not None]
    if B is None:
        pairs = list(combinations(A, 2))
    else:
        pairs = [(a, np.asarray(b, float)) for a in A for b in B if b is not None]
    return np.array(
        [np.linalg.norm(a - b) / np.linalg.norm(a) for a, b in pairs], float
    )


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
    context's datapoints ([conv-census]).  Also returns, per unit, whether its activity
    inside some context is item-dependent (neither all on nor all off).
    """
    G = np.asarray(gates, float)
    contexts = np.asarray(contexts)
    frac = np.stack(
        [G[:, contexts == c].mean(axis=1) for c in range(n_contexts)], axis=1
    )
    pats = ["".join("1" if f >= threshold else "0" for f in row) for row in frac]
    item_dependent = np.any((frac > 0) & (frac < 1), axis=1)
    return pats, item_dependent


def gating_census(
    gates, W1, W2, contexts, n_contexts: int, threshold: float = 0.5
) -> dict:
    """Share of hidden weight mass per gating class ([conv-census]).

    Classes: ``common`` (on in every context), ``mixed`` (on in C-1 of C), ``single``
    (on in exactly one context), ``other`` (the rest).  Returns the shares (summing to
    1), the share of weight in units whose gating is item-dependent, and the weight per
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
    shares["patterns"] = {
        k: float(v) for k, v in sorted(by_pattern.items(), key=lambda kv: -kv[1])
    }
    return shares


def stereotype_index(curves) -> int:
    """The run closest to the mean trajectory: least summed squared distance of its
    curve to the mean curve ([conv-depth], Section 6)."""
    C = np.asarray(curves, float)
    return int(np.argmin(np.sum((C - C.mean(axis=0)) ** 2, axis=1)))


def snap_to_contexts(
    gates, contexts, n_contexts: int, threshold: float = 0.5
) -> np.ndarray:
    """Each unit's gates replaced by its nearest context-level gate: on for every
    datapoint of a context where it is on for at least ``threshold`` of them, off
    elsewhere ([conv-census]).  ``gates``: ``H x P``."""
    G = np.asarray(gates, float)
    contexts = np.asarray(contexts)
    out = np.zeros_like(G)
    for c in range(n_contexts):
        cols = contexts == c
        out[:, cols] = G[:, cols].mean(axis=1, keepdims=True) >= threshold
    return out


def functional_census(
    W1, W2, X, contexts, n_contexts: int, threshold: float = 0.5
) -> dict:
    """The gating census read through the network's function ([conv-census]).

    Every hidden unit of a one-hidden-layer ReLU network ``W2 relu(W1 X)`` is snapped to
    its nearest context-level gate (:func:`snap_to_contexts`).  Returns
    ``snap_change``: ``||yhat_snapped - yhat|| / ||yhat||``, how much of the output the
    context-level description misses; and the share of the snapped output that each
    class produces (``common``, ``mixed`` = on in C-1 of C, ``single``, ``other``), as
    the Frobenius norm of the class's summed contribution over the sum of the four.
    """
    W1, W2, X = (np.asarray(a, float) for a in (W1, W2, X))
    pre = W1 @ X
    yhat = W2 @ np.maximum(pre, 0)
    G = snap_to_contexts(pre > 0, contexts, n_contexts, threshold)
    snapped = W2 @ (G * pre)
    norm = np.linalg.norm(yhat)
    change = float(np.linalg.norm(snapped - yhat) / norm) if norm > 0 else float("nan")
    on = np.stack(
        [G[:, np.asarray(contexts) == c].max(axis=1) for c in range(n_contexts)], axis=1
    )
    k = on.sum(axis=1)
    C = n_contexts
    classes = {"common": k == C, "mixed": (k == C - 1) & (C > 2), "single": k == 1}
    classes["other"] = ~(classes["common"] | classes["mixed"] | classes["single"])
    parts = {
        c: float(np.linalg.norm(W2[:, m] @ (G[m] * pre[m]))) for c, m in classes.items()
    }
    total = sum(parts.values())
    shares = {c: (v / total if total > 0 else float("nan")) for c, v in parts.items()}
    return {"snap_change": change, **shares}
