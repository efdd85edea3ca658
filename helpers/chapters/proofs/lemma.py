"""Lemma 4.1 (Appendix D) as linear programs and counts: which on/off patterns over
datapoints one bias-free ReLU unit can implement on the item x context input.

Defined for the page book/proofs.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, product
from math import comb, factorial

import numpy as np
from scipy.optimize import linprog

from ...core.datasets import contextual_task
from ...core.measures import unit_weight

LP_TOL = 1e-9  # a margin above this (with |w_k| <= 1) counts as strictly positive


def item_context_input(n_items: int, n_contexts: int) -> np.ndarray:
    """The input of [conv-contextual] for any number of items: item one-hot over context
    one-hot, context-major columns (``(n_items + C) x n_items C``); for 8 items
    ``contextual_task(C).X``."""
    n, C = int(n_items), int(n_contexts)
    if n < 1 or C < 1:
        raise ValueError(
            f"item_context_input needs n_items >= 1 and n_contexts >= 1, got "
            f"{n_items}, {n_contexts}"
        )
    return np.vstack([np.tile(np.eye(n), (1, C)), np.repeat(np.eye(C), n, axis=1)])


def _check_pattern(X, pattern):
    X = np.asarray(X, float)
    g = np.asarray(pattern)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (inputs x datapoints), got shape {X.shape}")
    if g.shape != (X.shape[1],):
        raise ValueError(
            f"the pattern needs one 0/1 entry per datapoint, shape ({X.shape[1]},); "
            f"got {g.shape}"
        )
    if not np.all((g == 0) | (g == 1)):
        raise ValueError("a gating pattern must hold 0 (off) and 1 (on) only")
    return X, g.astype(bool)


def unit_pattern_lp(X, pattern, strict_off: bool = False) -> dict:
    """Can one bias-free ReLU unit be on exactly on ``pattern``? (Lemma 4.1, Appendix
    D.)

    The unit with input weights ``w`` is on for datapoint ``x_i`` when ``w.x_i > 0`` and
    off when ``w.x_i <= 0`` (the engine's ``step(pre > 0)``).  The strict inequalities
    are handled by a margin and a normalisation: solve the linear program

        max t   s.t.  w.x_i >= t (on),  w.x_i <= 0 (off; ``<= -t`` if ``strict_off``),
                      -1 <= w_k <= 1,  0 <= t <= 1,

    and call the pattern implementable when ``t* > LP_TOL``.  The constraints are
    homogeneous in ``w``, so the box loses nothing: any strictly feasible ``w`` scaled
    into the box keeps a positive margin.  Returns ``feasible``, ``margin`` and ``w``.
    """
    X, g = _check_pattern(X, pattern)
    d = X.shape[0]
    on, off = X[:, g], X[:, ~g]
    A = np.vstack(
        [
            np.hstack([-on.T, np.ones((on.shape[1], 1))]),
            np.hstack(
                [off.T, (1.0 if strict_off else 0.0) * np.ones((off.shape[1], 1))]
            ),
        ]
    )
    c = np.zeros(d + 1)
    c[-1] = -1.0
    res = linprog(
        c,
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
    """A proof that ``pattern`` is *not* implementable, or ``None`` (Motzkin's
    alternative).

    No ``w`` has ``w.x_i > 0`` on the on-set and ``w.x_j <= 0`` on the off-set exactly
    when there are ``lam >= 0`` (on-set, summing to 1) and ``mu >= 0`` (off-set) with
    ``sum lam_i x_i = sum mu_j x_j``: then ``w`` would make the left side positive and
    the right side non-positive.  For the "combined" 2 x 2 pattern this is Appendix D's
    sum of the four inequalities.  Returns ``(lam, mu)`` or ``None`` when none exists.
    """
    X, g = _check_pattern(X, pattern)
    on, off = X[:, g], X[:, ~g]
    n_on, n_off = on.shape[1], off.shape[1]
    if n_on == 0:
        return None
    A_eq = np.vstack(
        [np.hstack([on, -off]), np.r_[np.ones(n_on), np.zeros(n_off)][None]]
    )
    b_eq = np.r_[np.zeros(X.shape[0]), 1.0]
    res = linprog(
        np.zeros(n_on + n_off),
        A_eq=A_eq,
        b_eq=b_eq,
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
    P = np.asarray(patterns)
    squeeze = P.ndim == 1
    P = np.atleast_2d(P)
    if P.shape[1] != n_items * n_contexts:
        raise ValueError(
            f"patterns need {n_items * n_contexts} entries (items x contexts), got "
            f"{P.shape[1]}"
        )
    return P.reshape(P.shape[0], n_contexts, n_items).astype(bool), squeeze


def is_nested(patterns, n_items: int, n_contexts: int):
    """True where the contexts' on-sets form a chain under inclusion (context-major
    columns).

    Equivalently, no two items and two contexts show the "combined" 2 x 2 pattern of
    Appendix D (item i on in c but not c', item j on in c' but not c).
    """
    G, squeeze = _as_grid(patterns, n_items, n_contexts)
    ok = np.ones(G.shape[0], bool)
    for c, c2 in combinations(range(n_contexts), 2):
        a, b = G[:, c], G[:, c2]
        ok &= ~np.any(a & ~b, axis=1) | ~np.any(b & ~a, axis=1)
    return bool(ok[0]) if squeeze else ok


def nested_witness(pattern, n_items: int, n_contexts: int) -> np.ndarray:
    """Weights ``(w_item, w_ctx)`` that implement a nested pattern (sufficiency, Lemma
    4.1).

    ``w_item[i]`` = number of contexts in which item ``i`` is on; ``w_ctx[c] = 1/2 -
    q_c`` with ``q_c`` the number of contexts whose on-set contains context ``c``'s.
    Then ``w_item[i] + w_ctx[c] > 0`` exactly when item ``i`` is on in context ``c``.
    """
    G, _ = _as_grid(pattern, n_items, n_contexts)
    G = G[0]  # C x n
    if not is_nested(G.reshape(-1), n_items, n_contexts):
        raise ValueError(
            "nested_witness: the pattern is not nested (it contains a combined 2 x 2 "
            "pattern)"
        )
    r = G.sum(axis=0).astype(float)
    contains = np.array(
        [[np.all(G[c2] >= G[c]) for c2 in range(n_contexts)] for c in range(n_contexts)]
    )
    q = contains.sum(axis=1)
    return np.r_[r, 0.5 - q]


def pattern_class(patterns, n_items: int, n_contexts: int):
    """Classify patterns: ``'constant'`` (all on or all off), ``'context-only'`` (a
    function of the context alone), ``'item-only'`` (of the item alone) or ``'both'``.
    """
    G, squeeze = _as_grid(patterns, n_items, n_contexts)
    col_const = np.all(G == G[:, :, :1], axis=2)  # each context all-on or all-off
    row_const = np.all(G == G[:, :1, :], axis=1)  # each item the same in all contexts
    ctx_only = np.all(col_const, axis=1)
    item_only = np.all(row_const, axis=1)
    out = np.where(
        ctx_only & item_only,
        "constant",
        np.where(ctx_only, "context-only", np.where(item_only, "item-only", "both")),
    )
    return str(out[0]) if squeeze else out


def _stirling2(n, k):
    return sum(
        (-1) ** j * comb(k, j) * (k - j) ** n for j in range(k + 1)
    ) // factorial(k)


def count_nested(n_items: int, n_contexts: int) -> int:
    """Number of nested (implementable) patterns on ``n_items x n_contexts`` datapoints.

    Each item's set of "on" contexts must be one of a chain of ``m`` distinct subsets of
    the contexts; chains of ``m`` subsets of ``C`` contexts number
    ``f(m+1) + 2 f(m) + f(m-1)`` with ``f(j) = j! S(C, j)`` ordered partitions into
    ``j`` blocks, and the items map onto the chain in ``m! S(n, m)`` ways.
    """
    n, C = int(n_items), int(n_contexts)
    if n < 1 or C < 1:
        raise ValueError(
            f"count_nested needs n_items >= 1 and n_contexts >= 1, got {n_items}, "
            f"{n_contexts}"
        )

    def f(j):
        if j < 0:
            return 0
        return factorial(j) * _stirling2(C, j) if j else int(C == 0)

    return sum(
        (f(m + 1) + 2 * f(m) + f(m - 1)) * factorial(m) * _stirling2(n, m)
        for m in range(1, C + 2)
    )


def enumerate_patterns(n_items: int = 8, n_contexts: int = 3) -> dict:
    """Every on/off pattern over ``n_items x n_contexts`` datapoints, checked (Lemma
    4.1).

    Brute force over all ``2^(n C)`` patterns (each context's on-set an ``n``-bit
    integer; needs ``n <= 16`` and ``n C <= 24``): counts the nested ones and splits
    them into the classes of :func:`pattern_class`.  Returns the counts with the
    closed-form count of :func:`count_nested` beside them.
    """
    n, C = int(n_items), int(n_contexts)
    if n < 1 or C < 1 or n > 16 or n * C > 24:
        raise ValueError(
            f"enumerate_patterns is brute force: needs 1 <= n_items <= 16 and n_items "
            f"* n_contexts <= 24, "
            f"got {n_items} x {n_contexts}"
        )
    full = (1 << n) - 1
    v = np.arange(1 << n, dtype=np.uint32)
    cols = [v.reshape((1,) * c + (-1,) + (1,) * (C - c - 1)) for c in range(C)]

    def nested(a, b):
        return ((a & ~b & full) == 0) | ((b & ~a & full) == 0)

    ok = np.ones((1 << n,) * C, bool)
    for c, c2 in combinations(range(C), 2):
        ok &= nested(cols[c], cols[c2])
    ctx_only = np.ones_like(ok)
    item_only = np.ones_like(ok)
    for c in range(C):
        ctx_only &= (cols[c] == 0) | (cols[c] == full)
        item_only &= cols[c] == cols[0]
    n_ok = int(ok.sum())
    n_const = int((ok & ctx_only & item_only).sum())
    n_ctx = int((ok & ctx_only).sum()) - n_const
    n_item = int((ok & item_only).sum()) - n_const
    return {
        "items": n,
        "contexts": C,
        "patterns": 1 << (n * C),
        "implementable": n_ok,
        "constant": n_const,
        "context_only": n_ctx,
        "item_only": n_item,
        "both": n_ok - n_const - n_ctx - n_item,
        "single_datapoint": n * C,
        "formula": count_nested(n, C),
    }


def uniform_nested(rng, k: int, n_items: int, n_contexts: int) -> np.ndarray:
    """``k`` patterns drawn uniformly among the nested (implementable) ones: uniform
    random patterns (each item's set of on-contexts uniform) kept when nested."""
    n, C = int(n_items), int(n_contexts)
    out = []
    while len(out) < k:
        rows = rng.integers(0, 2**C, size=(200_000, n))  # each item's on-contexts
        bits = ((rows[:, :, None] >> np.arange(C)) & 1).astype(bool)  # (N, n, C)
        g = bits.transpose(0, 2, 1).reshape(-1, n * C)  # context-major
        out += list(g[is_nested(g, n, C)][: k - len(out)])
    return np.array(out, int)


def witness_reproduces(patterns, n_items: int, n_contexts: int) -> bool:
    """Whether the weights of :func:`nested_witness` make a unit on exactly where each
    (nested) pattern is on."""
    n = int(n_items)
    for g in np.atleast_2d(patterns):
        w = nested_witness(g, n, n_contexts)
        on = (np.add.outer(w[n:], w[:n]) > 0).reshape(-1)
        if not np.array_equal(on, np.asarray(g).astype(bool)):
            return False
    return True


CLASSES = ("constant", "context-only", "item-only", "both")


@dataclass
class TwoByTwo:
    """Appendix D's 2 items x 2 contexts: the counterexample unit (weights ``w``,
    pattern ``g``) and all 16 ``patterns`` decided by LP (``lp``, ``strict``: 'off'
    strictly negative) and by certificate (``certs``)."""

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
    return TwoByTwo(
        w,
        (w @ X > 0).astype(int),
        pats,
        [unit_pattern_lp(X, g) for g in pats],
        lp_feasible_patterns(X, pats, strict_off=True),
        [farkas_certificate(X, g) for g in pats],
    )


@dataclass
class Census:
    """Lemma 4.1 on 8 items x C contexts: the brute-force counts (``full``), the
    closed-form count per C, LP against nestedness on every 3 x 3 pattern and on a
    random ``sample`` (half nested), and whether the witness weights reproduce it."""

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
    """The checks of Lemma 4.1 on the full input (Defined for the page
    book/proofs.md)."""
    C = int(n_contexts)
    X33 = item_context_input(3, 3)
    p33 = np.array(list(product([0, 1], repeat=9)))
    nested = uniform_nested(rng, lp_sample, 8, C)
    sample = np.vstack([nested, rng.integers(0, 2, size=(lp_sample, 8 * C))])
    crit = is_nested(sample, 8, C)
    return Census(
        C,
        enumerate_patterns(8, C),
        {c: count_nested(8, c) for c in range(1, 6)},
        lp_feasible_patterns(X33, p33),
        is_nested(p33, 3, 3),
        sample,
        lp_feasible_patterns(contextual_task(C).X, sample),
        crit,
        witness_reproduces(sample[crit], 8, C),
    )


@dataclass
class UnitCensus:
    """The trained ReLU network's units (seed 0): weight ``shares`` by pattern class
    per epoch read, ``non_nested`` unit patterns over them, the last epoch's ``gates``
    and unit ``weights``, and the run's step size ``lr``."""

    shares: dict
    non_nested: int
    gates: np.ndarray
    weights: np.ndarray
    lr: float

    @property
    def epochs(self) -> int:
        return max(self.shares)


def unit_classes(run, epochs, n_items: int = 8, n_contexts: int = 3) -> UnitCensus:
    """The census of a trained ReLU network's exact unit patterns at each recorded
    epoch in ``epochs`` (seed 0)."""
    shares, non_nested = {}, 0
    for ep in epochs:
        W1, W2 = run.weights_at(ep, 0)
        G = run.records["gates"][0][0, run.index(ep)].astype(int)
        w = unit_weight(W1, W2)
        w = w / w.sum()
        cl = pattern_class(G, n_items, n_contexts)
        non_nested += int(np.sum(~is_nested(G, n_items, n_contexts)))
        shares[ep] = {k: float(w[cl == k].sum()) for k in CLASSES}
    last = max(epochs)
    gates = run.records["gates"][0][0, run.index(last)].astype(int)
    return UnitCensus(
        shares, non_nested, gates, unit_weight(*run.weights_at(last, 0)), run.lr
    )
