"""Two sets of loss curves compared by time gaps (page *Against the authors' code*):
the scripts' seeds and the engine's are unrelated draws, held against seed spreads."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ...core.measures import bootstrap_interval, seed_spread, time_gap

PAIR = ("relu", "gdln")


def span(i) -> str:
    """An interval ``(lo, hi)`` as ``[lo, hi]``, four decimals."""
    return f"[{i[0]:.4f}, {i[1]:.4f}]"


def pair_gaps(A, B) -> np.ndarray:
    """The time gap of curve ``i`` of ``A`` against curve ``i`` of ``B`` (``(seeds,
    T)`` each)."""
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    if A.shape[0] != B.shape[0]:
        raise ValueError(f"{A.shape[0]} curves against {B.shape[0]}")
    return np.array([time_gap(a, b) for a, b in zip(A, B)])


def cross_gaps(A, B) -> np.ndarray:
    """The time gap of every curve of ``A`` against every curve of ``B``."""
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    return np.array([time_gap(a, b) for a in A for b in B])


def gap_matrix(A) -> np.ndarray:
    """The time gap between every two curves of ``A``, as a symmetric matrix."""
    A = np.atleast_2d(A)
    D = np.zeros((len(A), len(A)))
    for i, j in combinations(range(len(A)), 2):
        D[i, j] = D[j, i] = time_gap(A[i], A[j])
    return D


def pair_spread(D, idx=None) -> float:
    """The median of the gap matrix ``D`` over pairs of the curves ``idx`` (all)."""
    idx = np.arange(len(D)) if idx is None else np.asarray(idx)
    i, j = np.triu_indices(len(idx), 1)
    return float(np.median(np.asarray(D)[idx[i], idx[j]]))


def spread(A) -> float:
    """The seed spread of a set of curves: the median over pairs of their time gap."""
    if len(np.atleast_2d(A)) < 2:
        raise ValueError("a seed spread needs at least 2 curves")
    return pair_spread(gap_matrix(A))


def subset_spreads(D, k: int) -> np.ndarray:
    """The seed spread of every ``k`` of the curves behind the gap matrix ``D``."""
    return np.array(
        [pair_spread(D, list(sub)) for sub in combinations(range(len(D)), k)]
    )


@dataclass(frozen=True)
class Comparison:
    """One experiment, the authors' scripts (``theirs``) against the engine (``ours``):
    ``gap``, the median ReLU :func:`cross_gaps`; each ReLU seed ``spread_*`` with its
    90 % bootstrap ``interval_*``; ``rg_*``, per seed the time gap from the ReLU network
    to the GDLN, and ``rg_spread*`` its :func:`helpers.core.measures.seed_spread`;
    ``final_*``: the median final ReLU loss."""

    name: str
    seeds: int
    gap: float
    spread_theirs: float
    spread_ours: float
    rg_theirs: np.ndarray
    rg_ours: np.ndarray
    rg_spread: float
    rg_spread_theirs: float
    interval_theirs: tuple
    interval_ours: tuple
    final_theirs: float
    final_ours: float


def compare(name: str, theirs: dict, ours: dict) -> Comparison:
    """:class:`Comparison` of stored curves ``theirs`` and engine curves ``ours``
    (``{'relu': (S, T), 'gdln': (S, T)}``, aligned, the same S and T)."""
    for k in PAIR:
        if np.shape(theirs[k]) != np.shape(ours[k]):
            raise ValueError(
                f"{name}.{k}: the authors' curves are {np.shape(theirs[k])}, ours "
                f"{np.shape(ours[k])}; run as many seeds and epochs"
            )
    t, t_gdln = (np.asarray(theirs[k]) for k in PAIR)
    o, o_gdln = (np.asarray(ours[k]) for k in PAIR)
    rg_t, rg_o = pair_gaps(t, t_gdln), pair_gaps(o, o_gdln)
    D_t, D_o = gap_matrix(t), gap_matrix(o)
    return Comparison(
        name, len(t), float(np.median(cross_gaps(t, o))), pair_spread(D_t),
        pair_spread(D_o), rg_t, rg_o, seed_spread(rg_o), seed_spread(rg_t),
        bootstrap_interval(D_t), bootstrap_interval(D_o),
        float(np.median(t[:, -1])), float(np.median(o[:, -1])),
    )  # fmt: skip
