"""Lemma 4.1 (Appendix D) as linear programs and counts: which on/off patterns over
datapoints one bias-free ReLU unit can implement on the item x context input."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, product
from math import comb, factorial

import numpy as np
from scipy.optimize import linprog

from ...core.datasets import contextual_task
from ...core.measures import unit_weight

LP_TOL = 1e-9  # a margin above this (with |w_k| <= 1) counts as strictly positive
CLASSES = ("constant", "context-only", "item-only", "both")


def item_context_input(n_items: int, n_contexts: int) -> np.ndarray:
    """The input of [conv-contextual]: item one-hot over context one-hot, context-major
    columns, ``(n_items + C, n_items C)``; for 8 items ``contextual_task(C).X``."""
    n, C = int(n_items), int(n_contexts)
    if n < 1 or C < 1:
        raise ValueError(
            f"item_context_input needs n_items >= 1 and n_contexts >= 1, got "
            f"{n_items}, {n_contexts}"
        )
    return np.vstack([np.tile(np.eye(n), (1, C)), np.repeat(np.eye(C), n, axis=1)])


def _on_off(X, pattern):
    X, g = np.asarray(X, float), np.asarray(pattern)
    if X.ndim != 2 or g.shape != (X.shape[1],):
        raise ValueError(
            f"the pattern needs one 0/1 entry per datapoint, shape ({X.shape[1]},); "
            f"got {g.shape}"
        )
    if not np.all((g == 0) | (g == 1)):
        raise ValueError("a gating pattern must hold 0 (off) and 1 (on) only")
    return X[:, g == 1], X[:, g == 0]


def unit_pattern_lp(X, pattern, strict_off: bool = False) -> dict:
    """Can one bias-free ReLU unit be on (``w.x_i > 0``) exactly on ``pattern``?

    Solves ``max t`` s.t. ``w.x_i >= t`` (on), ``w.x_i <= 0`` (off; ``<= -t`` if
    ``strict_off``), ``|w_k| <= 1``, ``0 <= t <= 1``: the constraints are homogeneous
    in ``w``, so the pattern is implementable iff ``t* > LP_TOL``.  Returns
    ``feasible``, ``margin`` and ``w``.
    """
    on, off = _on_off(X, pattern)
    d = on.shape[0]
    A = np.block([[-on.T, np.ones((on.shape[1], 1))],
                  [off.T, np.full((off.shape[1], 1), float(strict_off))]])  # fmt: skip
    res = linprog(
        np.r_[np.zeros(d), -1.0],
        A_ub=A if A.size else None,
        b_ub=np.zeros(A.shape[0]) if A.size else None,
        bounds=[(-1, 1)] * d + [(0, 1)],
        method="highs",
    )
    if res.status != 0:  # pragma: no cover - the LP is always feasible (w = 0, t = 0)
        raise RuntimeError(f"linprog failed: {res.message}")
    t = float(res.x[-1])
    return {"feasible": t > LP_TOL, "margin": t, "w": res.x[:-1]}


def farkas_certificate(X, pattern):
    """A proof that ``pattern`` is *not* implementable, or ``None`` (Motzkin).

    ``(lam, mu)``, ``lam >= 0`` on the on-set summing to 1 and ``mu >= 0`` on the
    off-set, with ``sum lam_i x_i = sum mu_j x_j``: no ``w`` can make the left side
    positive and the right side non-positive (Appendix D's sum of four inequalities).
    """
    on, off = _on_off(X, pattern)
    n_on, n_off = on.shape[1], off.shape[1]
    if n_on == 0:
        return None
    res = linprog(
        np.zeros(n_on + n_off),
        A_eq=np.vstack([np.hstack([on, -off]), np.r_[np.ones(n_on), np.zeros(n_off)]]),
        b_eq=np.r_[np.zeros(on.shape[0]), 1.0],
        bounds=[(0, None)] * (n_on + n_off),
        method="highs",
    )
    if res.status == 2:
        return None
    if res.status != 0:  # pragma: no cover
        raise RuntimeError(f"linprog failed: {res.message}")
    return res.x[:n_on], res.x[n_on:]


def lp_feasible_patterns(X, patterns, strict_off: bool = False) -> np.ndarray:
    """:func:`unit_pattern_lp` on each row of ``patterns`` (N x P); boolean array."""
    patterns = np.atleast_2d(np.asarray(patterns))
    return np.array(
        [unit_pattern_lp(X, p, strict_off)["feasible"] for p in patterns], bool
    )


def _as_grid(patterns, n_items, n_contexts):
    """Patterns as ``(N, contexts, items)`` booleans, and whether one was given."""
    P = np.asarray(patterns)
    P2 = np.atleast_2d(P)
    if P2.shape[1] != n_items * n_contexts:
        raise ValueError(
            f"patterns need {n_items * n_contexts} entries (items x contexts), got "
            f"{P2.shape[1]}"
        )
    return P2.reshape(-1, n_contexts, n_items).astype(bool), P.ndim == 1


def is_nested(patterns, n_items: int, n_contexts: int):
    """True where the contexts' on-sets form a chain under inclusion: no "combined"
    2 x 2 pattern of Appendix D (context-major columns)."""
    G, squeeze = _as_grid(patterns, n_items, n_contexts)
    ok = np.ones(G.shape[0], bool)
    for c, c2 in combinations(range(n_contexts), 2):
        a, b = G[:, c], G[:, c2]
        ok &= ~np.any(a & ~b, axis=1) | ~np.any(b & ~a, axis=1)
    return bool(ok[0]) if squeeze else ok


def nested_witness(pattern, n_items: int, n_contexts: int) -> np.ndarray:
    """Weights ``(w_item, w_ctx)`` implementing a nested pattern (Lemma 4.1):
    ``w_item[i]`` the number of contexts where item ``i`` is on, ``w_ctx[c] = 1/2 -
    q_c``, ``q_c`` the number of contexts whose on-set contains context ``c``'s."""
    if not is_nested(np.ravel(pattern), n_items, n_contexts):
        raise ValueError("nested_witness: the pattern is not nested")
    G = _as_grid(pattern, n_items, n_contexts)[0][0]  # C x n
    q = [sum(np.all(G2 >= Gc) for G2 in G) for Gc in G]
    return np.r_[G.sum(axis=0).astype(float), 0.5 - np.array(q)]


def pattern_class(patterns, n_items: int, n_contexts: int):
    """``'constant'``, ``'context-only'`` (a function of the context alone),
    ``'item-only'`` or ``'both'``, per pattern."""
    G, squeeze = _as_grid(patterns, n_items, n_contexts)
    ctx_only = np.all(G == G[:, :, :1], axis=(1, 2))
    item_only = np.all(G == G[:, :1, :], axis=(1, 2))
    out = np.array(CLASSES)[2 * ~ctx_only + ~item_only]  # CLASSES' order, as 2 bits
    return str(out[0]) if squeeze else out


def _stirling2(n, k):
    return sum(
        (-1) ** j * comb(k, j) * (k - j) ** n for j in range(k + 1)
    ) // factorial(k)


def count_nested(n_items: int, n_contexts: int) -> int:
    """Number of nested (implementable) patterns on ``n_items x n_contexts`` datapoints.

    The items map onto a chain of ``m`` distinct context subsets in ``m! S(n, m)`` ways;
    such chains number ``f(m+1) + 2 f(m) + f(m-1)``, ``f(j) = j! S(C, j)``.
    """
    n, C = int(n_items), int(n_contexts)
    if n < 1 or C < 1:
        raise ValueError(
            f"count_nested needs n_items >= 1 and n_contexts >= 1, got {n}, {C}"
        )

    def f(j):
        return factorial(j) * _stirling2(C, j) if j > 0 else 0

    return sum(
        (f(m + 1) + 2 * f(m) + f(m - 1)) * factorial(m) * _stirling2(n, m)
        for m in range(1, C + 2)
    )


def enumerate_patterns(n_items: int = 8, n_contexts: int = 3) -> dict:
    """All ``2^(n C)`` patterns by brute force (``n <= 16``, ``n C <= 24``): the nested
    ones counted per :func:`pattern_class`, beside :func:`count_nested`."""
    n, C = int(n_items), int(n_contexts)
    if n < 1 or C < 1 or n > 16 or n * C > 24:
        raise ValueError(
            f"enumerate_patterns is brute force: needs 1 <= n_items <= 16 and "
            f"n_items * n_contexts <= 24, got {n} x {C}"
        )
    full = (1 << n) - 1  # each context's on-set an n-bit integer, one axis per context
    v = np.arange(1 << n, dtype=np.uint32)
    cols = [v.reshape((1,) * c + (-1,) + (1,) * (C - c - 1)) for c in range(C)]
    ok = np.ones((1 << n,) * C, bool)
    for a, b in combinations(cols, 2):
        ok &= ((a & ~b & full) == 0) | ((b & ~a & full) == 0)
    ctx_only, item_only = np.ones_like(ok), np.ones_like(ok)
    for col in cols:
        ctx_only &= (col == 0) | (col == full)
        item_only &= col == cols[0]
    n_ok = int(ok.sum())
    n_const = int((ok & ctx_only & item_only).sum())
    n_ctx = int((ok & ctx_only).sum()) - n_const
    n_item = int((ok & item_only).sum()) - n_const
    return {
        "items": n, "contexts": C, "patterns": 1 << (n * C), "implementable": n_ok,
        "constant": n_const, "context_only": n_ctx, "item_only": n_item,
        "both": n_ok - n_const - n_ctx - n_item, "single_datapoint": n * C,
        "formula": count_nested(n, C),
    }  # fmt: skip


def uniform_nested(rng, k: int, n_items: int, n_contexts: int) -> np.ndarray:
    """``k`` patterns uniform among the nested ones: uniform random patterns (each
    item's on-contexts uniform), kept when nested."""
    n, C = int(n_items), int(n_contexts)
    out = []
    while len(out) < k:
        rows = rng.integers(0, 2**C, size=(200_000, n))  # each item's on-contexts
        bits = ((rows[:, :, None] >> np.arange(C)) & 1).astype(bool)  # (N, n, C)
        g = bits.transpose(0, 2, 1).reshape(-1, n * C)  # context-major
        out += list(g[is_nested(g, n, C)][: k - len(out)])
    return np.array(out, int)


def witness_reproduces(patterns, n_items: int, n_contexts: int) -> bool:
    """Whether :func:`nested_witness`'s unit is on exactly where each pattern is."""
    n = int(n_items)
    for g in np.atleast_2d(patterns):
        w = nested_witness(g, n, n_contexts)
        if not np.array_equal(np.add.outer(w[n:], w[:n]).ravel() > 0, g.astype(bool)):
            return False
    return True


@dataclass
class TwoByTwo:
    """Appendix D's 2 x 2: the unit ``w`` and its pattern ``g``; all 16 ``patterns``
    by LP (``lp``; ``strict``: 'off' strictly negative) and certificate (``certs``)."""

    w: np.ndarray
    g: np.ndarray
    patterns: np.ndarray
    lp: list
    strict: np.ndarray
    certs: list


def two_by_two(w_witness) -> TwoByTwo:
    """Every pattern on 2 items x 2 contexts checked, beside the unit ``w_witness``."""
    X = item_context_input(2, 2)
    w = np.asarray(w_witness, float)
    pats = np.array(list(product([0, 1], repeat=4)))
    lp = [unit_pattern_lp(X, g) for g in pats]
    strict = lp_feasible_patterns(X, pats, strict_off=True)
    certs = [farkas_certificate(X, g) for g in pats]
    return TwoByTwo(w, (w @ X > 0).astype(int), pats, lp, strict, certs)


@dataclass
class Census:
    """Lemma 4.1 on 8 items x C contexts: brute-force counts (``full``), the closed
    form per C, LP against nestedness on every 3 x 3 pattern and on a random
    ``sample`` (half nested), and whether the witness reproduces the nested ones."""

    n_contexts: int
    full: dict
    counts_by_C: dict
    lp33: np.ndarray
    nested33: np.ndarray
    sample: np.ndarray
    lp_sample: np.ndarray
    nested_sample: np.ndarray
    witness_ok: bool


def census(n_contexts: int, lp_sample: int, rng) -> Census:
    """The checks of Lemma 4.1 on the full input."""
    C = int(n_contexts)
    p33 = np.array(list(product([0, 1], repeat=9)))
    nested = uniform_nested(rng, lp_sample, 8, C)
    sample = np.vstack([nested, rng.integers(0, 2, size=(lp_sample, 8 * C))])
    crit = is_nested(sample, 8, C)
    return Census(
        C, enumerate_patterns(8, C), {c: count_nested(8, c) for c in range(1, 6)},
        lp_feasible_patterns(item_context_input(3, 3), p33), is_nested(p33, 3, 3),
        sample, lp_feasible_patterns(contextual_task(C).X, sample), crit,
        witness_reproduces(sample[crit], 8, C),
    )  # fmt: skip


@dataclass
class UnitCensus:
    """A trained ReLU network's units (seed 0): weight ``shares`` by pattern class per
    epoch, ``non_nested`` unit patterns, the last epoch's ``gates`` and ``weights``."""

    shares: dict
    non_nested: int
    gates: np.ndarray
    weights: np.ndarray
    lr: float

    @property
    def epochs(self) -> int:
        return max(self.shares)


def unit_classes(run, epochs, n_items: int = 8, n_contexts: int = 3) -> UnitCensus:
    """The pattern classes of a trained ReLU network's units at each of ``epochs``."""
    shares, non_nested, at = {}, 0, {}
    for ep in epochs:
        G = at[ep] = run.records["gates"][0][0, run.index(ep)].astype(int)
        w = unit_weight(*run.weights_at(ep, 0))
        cl = pattern_class(G, n_items, n_contexts)
        non_nested += int(np.sum(~is_nested(G, n_items, n_contexts)))
        shares[ep] = {k: float((w / w.sum())[cl == k].sum()) for k in CLASSES}
    last = max(epochs)
    w_last = unit_weight(*run.weights_at(last, 0))
    return UnitCensus(shares, non_nested, at[last], w_last, run.lr)
