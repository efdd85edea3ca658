"""Two sets of loss curves compared by time gaps (page *Against the authors' code*):
the scripts' seeds and the engine's are unrelated draws, held against seed spreads."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ...core.measures import bootstrap_interval, seed_spread, time_gap


def pair_gaps(A, B) -> np.ndarray:
    """:func:`helpers.core.measures.time_gap` of curve ``i`` of ``A`` against curve
    ``i`` of ``B`` (``(seeds, T)`` each; the same number of curves)."""
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    if A.shape[0] != B.shape[0]:
        raise ValueError(f"{A.shape[0]} curves against {B.shape[0]}")
    return np.array([time_gap(a, b) for a, b in zip(A, B)])


def cross_gaps(A, B) -> np.ndarray:
    """The time gap of every curve of ``A`` against every curve of ``B``: the seeds of
    two implementations are unrelated draws, so no pairing is preferred."""
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    return np.array([time_gap(a, b) for a in A for b in B])


def spread(A) -> float:
    """The seed spread of a set of curves: the median over pairs of seeds of their
    time gap."""
    A = np.atleast_2d(A)
    if A.shape[0] < 2:
        raise ValueError("a seed spread needs at least 2 curves")
    return float(
        np.median([time_gap(A[i], A[j]) for i, j in combinations(range(len(A)), 2)])
    )


def gap_matrix(A) -> np.ndarray:
    """The time gap between every two curves of ``A``, as a symmetric matrix (the input
    of :func:`helpers.core.measures.bootstrap_interval`)."""
    A = np.atleast_2d(A)
    D = np.zeros((len(A), len(A)))
    for i, j in combinations(range(len(A)), 2):
        D[i, j] = D[j, i] = time_gap(A[i], A[j])
    return D


def subset_spreads(D, k: int) -> np.ndarray:
    """The seed spread of every ``k`` of the curves behind the gap matrix ``D``: how
    much a spread measured on ``k`` seeds scatters (page *Against the authors' code*,
    the seed spreads of the two implementations)."""
    D = np.asarray(D, float)
    out = []
    for sub in combinations(range(len(D)), k):
        out.append(np.median([D[i, j] for i, j in combinations(sub, 2)]))
    return np.array(out)


@dataclass(frozen=True)
class Comparison:
    """One experiment, the authors' scripts against the engine.

    ``gap``: median of the time gaps between their ReLU curves and ours, every seed of
    one against every seed of the other (:func:`cross_gaps`; the draws are unrelated);
    ``spread_theirs`` /
    ``spread_ours``: each implementation's own seed spread; ``rg_theirs`` /
    ``rg_ours``: per seed, the time gap between the ReLU network and the GDLN of the
    same implementation; ``rg_spread`` / ``rg_spread_theirs``: the seed spread of
    ``rg_ours`` / ``rg_theirs`` (:func:`helpers.core.measures.seed_spread`);
    ``interval_theirs`` / ``interval_ours``: the 90 % bootstrap interval over seeds of
    each ReLU seed spread (:func:`helpers.core.measures.bootstrap_interval`).
    """

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
    for k in ("relu", "gdln"):
        if np.shape(theirs[k]) != np.shape(ours[k]):
            raise ValueError(
                f"{name}.{k}: the authors' curves are {np.shape(theirs[k])}, ours "
                f"{np.shape(ours[k])}; run as many seeds and epochs"
            )
    rg_t = pair_gaps(theirs["relu"], theirs["gdln"])
    rg_o = pair_gaps(ours["relu"], ours["gdln"])
    return Comparison(
        name=name,
        seeds=int(np.shape(theirs["relu"])[0]),
        gap=float(np.median(cross_gaps(theirs["relu"], ours["relu"]))),
        spread_theirs=spread(theirs["relu"]),
        spread_ours=spread(ours["relu"]),
        rg_theirs=rg_t,
        rg_ours=rg_o,
        rg_spread=seed_spread(rg_o),
        rg_spread_theirs=seed_spread(rg_t),
        interval_theirs=bootstrap_interval(gap_matrix(theirs["relu"])),
        interval_ours=bootstrap_interval(gap_matrix(ours["relu"])),
        final_theirs=float(np.median(np.asarray(theirs["relu"])[:, -1])),
        final_ours=float(np.median(np.asarray(ours["relu"])[:, -1])),
    )
