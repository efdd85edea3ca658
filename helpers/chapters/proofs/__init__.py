"""The paper's proofs turned into computations that could fail (Appendices C, D, E).

* Lemma 4.1 (Appendix D): which on/off patterns over datapoints a single bias-free
  ReLU unit can implement on the item x context input, decided by linear programs
  (:func:`unit_pattern_lp`, :func:`farkas_certificate`) and enumerated
  (:func:`enumerate_patterns`, :func:`count_nested`).
* Proposition 4.2 (Appendix E): Thompson's interlacing inequalities for deleted rows
  and columns (:func:`interlacing_gaps`), and the effect of deleting a datapoint on the
  top eigenvalue / singular value of the correlations (:func:`deletion_effects`).
* The uniqueness race (Proposition 4.2, last step): the best linear loss the context
  pathways start from (:func:`best_linear_loss`) and the time they take to remove part
  of it (:func:`context_learning_time`).

Appendix C (the XoR ReLNs, their closed forms and the crossover margin) is computed with
:mod:`helpers.core.xor_reln`, the per-pathway initial strengths with
:func:`helpers.core.race.effective_a0`: one copy of each, shared with the XoR chapter.
"""

from __future__ import annotations

from itertools import combinations
from math import comb, factorial

import numpy as np
from scipy.optimize import linprog

from ...core.datasets import Dataset

__all__ = [
    "item_context_input",
    "unit_pattern_lp",
    "farkas_certificate",
    "lp_feasible_patterns",
    "is_nested",
    "nested_witness",
    "pattern_class",
    "count_nested",
    "enumerate_patterns",
    "thompson_bounds",
    "interlacing_gaps",
    "random_interlacing_cases",
    "deletion_effects",
    "random_deletion_cases",
    "task_interlacing_cases",
    "best_linear_loss",
    "context_learning_time",
    "uniform_nested",
    "witness_reproduces",
    "unit_classes",
    "single_norms",
    "edge_cases",
    "strategy_datasets",
    "race_from_converged_common",
    "xor_runs",
    "crossing",
    "modes_max_diff",
    "report",
    "results",
    "tables",
    "plots",
]

LP_TOL = 1e-9  # a margin above this (with |w_k| <= 1) counts as strictly positive

# --------------------------------------------------------------------------------------
# Lemma 4.1 (Appendix D): patterns a bias-free ReLU unit can implement
# --------------------------------------------------------------------------------------


def item_context_input(n_items: int, n_contexts: int) -> np.ndarray:
    """The input of [conv-contextual] for any number of items: item one-hot over context
    one-hot,
    context-major columns (``(n_items + C) x n_items C``).  For 8 items it equals
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


# --------------------------------------------------------------------------------------
# Proposition 4.2 (Appendix E): interlacing and datapoint deletion
# --------------------------------------------------------------------------------------


def thompson_bounds(A, keep_rows, keep_cols):
    """Singular values of ``A``, of the submatrix ``B = A[rows, cols]`` and Thompson's
    bounds (Thompson 1972; Appendix E): with ``r`` rows and ``c`` columns deleted,

        sigma_k(A) >= sigma_k(B) >= sigma_{k + r + c}(A)   (sigma_j(A) = 0 past rank).

    Returns ``(sA, sB, upper, lower)`` with ``upper[k] = sigma_k(A)`` and
    ``lower[k] = sigma_{k+r+c}(A)`` for each ``k`` of ``B``.
    """
    A = np.asarray(A, float)
    if A.ndim != 2 or A.size == 0:
        raise ValueError(f"A must be a non-empty 2-D matrix, got shape {A.shape}")
    rows = np.asarray(keep_rows, int)
    cols = np.asarray(keep_cols, int)
    if rows.size == 0 or cols.size == 0:
        raise ValueError("keep at least one row and one column")
    if len(set(rows.tolist())) != rows.size or len(set(cols.tolist())) != cols.size:
        raise ValueError("keep_rows and keep_cols must not repeat an index")
    if (
        rows.min() < 0
        or rows.max() >= A.shape[0]
        or cols.min() < 0
        or cols.max() >= A.shape[1]
    ):
        raise ValueError(f"kept indices must lie inside A's shape {A.shape}")
    sA = np.linalg.svd(A, compute_uv=False)
    sB = np.linalg.svd(A[np.ix_(rows, cols)], compute_uv=False)
    deleted = (A.shape[0] - rows.size) + (A.shape[1] - cols.size)
    sA_pad = np.r_[sA, np.zeros(deleted + sB.size)]
    k = np.arange(sB.size)
    return sA, sB, sA_pad[k], sA_pad[k + deleted]


def interlacing_gaps(A, keep_rows, keep_cols, rtol: float = 1e-10) -> dict:
    """How far ``B = A[rows, cols]`` is from violating Thompson's interlacing (Appendix
    E).

    ``top_ratio = sigma_1(B) / sigma_1(A)`` (never above 1 if the theorem holds);
    ``violations``: number of the ``2 k`` inequalities broken by more than
    ``rtol * sigma_1(A)`` (round-off).
    """
    sA, sB, upper, lower = thompson_bounds(A, keep_rows, keep_cols)
    tol = rtol * max(sA[0], 1e-300)
    v = int(np.sum(sB > upper + tol) + np.sum(sB < lower - tol))
    return {
        "top_ratio": float(sB[0] / sA[0]) if sA[0] > 0 else 1.0,
        "violations": v,
        "inequalities": 2 * sB.size,
    }


def random_interlacing_cases(n_cases: int, seed: int, max_dim: int = 12) -> list[dict]:
    """Random matrices and random deletions for :func:`interlacing_gaps`.

    Shapes ``m, n`` in ``1..max_dim``; entries Gaussian, non-negative, low-rank or with
    a repeated singular value (a quarter each); at least one row or column deleted.
    """
    rng = np.random.default_rng(int(seed))
    out = []
    for i in range(int(n_cases)):
        m, n = rng.integers(1, max_dim + 1, size=2)
        if m * n == 1:
            n = 2
        kind = i % 4
        if kind == 0:
            A = rng.standard_normal((m, n))
        elif kind == 1:
            A = rng.random((m, n))
        elif kind == 2:
            r = rng.integers(1, min(m, n) + 1)
            A = rng.standard_normal((m, r)) @ rng.standard_normal((r, n))
        else:
            k = min(m, n)
            U, _ = np.linalg.qr(rng.standard_normal((m, k)))
            V, _ = np.linalg.qr(rng.standard_normal((n, k)))
            s = np.sort(rng.choice([1.0, 2.0, 3.0], size=k))[::-1]
            A = (U * s) @ V.T
        while True:
            rows = np.flatnonzero(rng.random(m) < 0.7)
            cols = np.flatnonzero(rng.random(n) < 0.7)
            if rows.size and cols.size and rows.size + cols.size < m + n:
                break
        res = interlacing_gaps(A, rows, cols)
        res.update(
            shape=(int(m), int(n)),
            kind=("gaussian", "non-negative", "low-rank", "repeated")[kind],
        )
        out.append(res)
    return out


def deletion_effects(X, Y) -> dict:
    """Effect of deleting each datapoint on the top of the correlations (Appendix E).

    For each datapoint ``j``: ``d_eig[j] = lambda_max(Sigma_x) - lambda_max(Sigma_x
    without j)`` and ``d_sv[j] = sigma_1(Sigma_yx) - sigma_1(Sigma_yx without j)``, with
    ``Sigma_x = X X^T`` and ``Sigma_yx = Y X^T``.  Non-negative entries are the same as
    "never raised by the deletion"; ``overlap[j]`` is ``|v . x_j|`` for the top
    eigenvector ``v`` of ``Sigma_x`` without ``j`` (zero overlap is the edge case where
    the top eigenvalue need not change).
    """
    X = np.asarray(X, float)
    Y = np.asarray(Y, float)
    if X.ndim != 2 or Y.ndim != 2 or X.shape[1] != Y.shape[1] or X.shape[1] < 2:
        raise ValueError(
            f"deletion_effects needs X (d x P) and Y (p x P) with P >= 2, got "
            f"{X.shape}, {Y.shape}"
        )
    lam = np.linalg.eigvalsh(X @ X.T)[-1]
    sv = np.linalg.svd(Y @ X.T, compute_uv=False)[0]
    P = X.shape[1]
    d_eig, d_sv, overlap = np.zeros(P), np.zeros(P), np.zeros(P)
    for j in range(P):
        keep = np.arange(P) != j
        Xj, Yj = X[:, keep], Y[:, keep]
        w, V = np.linalg.eigh(Xj @ Xj.T)
        d_eig[j] = lam - w[-1]
        d_sv[j] = sv - np.linalg.svd(Yj @ Xj.T, compute_uv=False)[0]
        overlap[j] = abs(V[:, -1] @ X[:, j])
    return {
        "lambda_max": float(lam),
        "sigma_1": float(sv),
        "d_eig": d_eig,
        "d_sv": d_sv,
        "overlap": overlap,
    }


def random_deletion_cases(n_datasets: int, seed: int, signed: bool = False) -> dict:
    """:func:`deletion_effects` on random datasets (Appendix E's orthant argument).

    Non-negative data (``signed=False``: uniform entries, about a third set to 0) or
    Gaussian data as the control.  Returns, over every (dataset, deleted datapoint), the
    changes relative to the full value, ``d_eig / lambda_max`` and ``d_sv / sigma_1``.
    """
    rng = np.random.default_rng(int(seed))
    d_eig, d_sv = [], []
    for _ in range(int(n_datasets)):
        d, P, p = rng.integers(2, 9), rng.integers(2, 11), rng.integers(1, 7)
        if signed:
            X, Y = rng.standard_normal((d, P)), rng.standard_normal((p, P))
        else:
            X = rng.random((d, P)) * (rng.random((d, P)) > 1 / 3)
            Y = rng.random((p, P)) * (rng.random((p, P)) > 1 / 3)
        if not (np.any(X) and np.any(Y @ X.T)):
            continue
        eff = deletion_effects(X, Y)
        d_eig.append(eff["d_eig"] / eff["lambda_max"])
        d_sv.append(eff["d_sv"] / eff["sigma_1"])
    return {"d_eig": np.concatenate(d_eig), "d_sv": np.concatenate(d_sv)}


def task_interlacing_cases(ds: Dataset, n_random: int, seed: int) -> list[dict]:
    """Thompson's inequalities on the contextual task's own correlation matrices
    (Appendix E).

    Matrices: ``Sigma_yx = Y X^T`` of the common pathway, and for every context pathway
    (on in one or in C-1 contexts, item inputs only, [conv-contextual]) the effective
    ``Sigma_yx(p)`` of the residual the common pathway leaves.  Deletions: every single
    row, every single column, ``n_random`` random subsets, and for the common matrix the
    structured ones of the proof (the context inputs; each output block of 15 rows).
    """
    if not ds.n_contexts:
        raise ValueError(f"{ds.name} has no contexts")
    rng = np.random.default_rng(int(seed))
    X, Y, C = ds.X, ds.Y, ds.n_contexts
    items = [i for i, nm in enumerate(ds.inputs) if nm.startswith("item")]
    R = Y - Y @ np.linalg.pinv(X) @ X
    mats = {"common": Y @ X.T}
    for on in sorted({1, max(C - 1, 1)}):
        for subset in combinations(range(C), on):
            g = np.isin(ds.contexts, subset).astype(float)
            mats["ctx" + "".join(str(c + 1) for c in subset)] = (R * g) @ X[items].T
    out = []
    for name, A in mats.items():
        m, n = A.shape
        dels = [
            (f"row {i}", np.delete(np.arange(m), i), np.arange(n)) for i in range(m)
        ]
        dels += [
            (f"column {j}", np.arange(m), np.delete(np.arange(n), j)) for j in range(n)
        ]
        if name == "common":
            dels.append(("context inputs", np.arange(m), np.asarray(items)))
            dels += [
                (
                    f"output block {b}",
                    np.delete(np.arange(m), np.arange(15 * b, 15 * b + 15)),
                    np.arange(n),
                )
                for b in range(m // 15)
            ]
        for k in range(int(n_random)):
            while True:
                rows = np.flatnonzero(rng.random(m) < 0.6)
                cols = np.flatnonzero(rng.random(n) < 0.6)
                if rows.size and cols.size:
                    break
            dels.append((f"random {k}", rows, cols))
        for label, rows, cols in dels:
            res = interlacing_gaps(A, rows, cols)
            res.update(matrix=name, deletion=label)
            out.append(res)
    return out


# --------------------------------------------------------------------------------------
# The uniqueness race (Proposition 4.2, last step)
# --------------------------------------------------------------------------------------


def best_linear_loss(X, Y) -> float:
    """Summed loss of the best linear map, ``1/2 ||Y - Y X^+ X||^2``
    ([conv-contextual]): the
    plateau the common pathway alone reaches, and what the context pathways must remove.
    """
    X = np.asarray(X, float)
    Y = np.asarray(Y, float)
    R = Y - Y @ np.linalg.pinv(X) @ X
    return float(0.5 * np.sum(R**2))


def context_learning_time(L, plateau: float, fraction: float = 0.5) -> float:
    """First epoch at which a loss curve falls below ``fraction * plateau`` (``inf`` if
    never): with ``plateau`` = :func:`best_linear_loss`, the time the context pathways
    need to remove that fraction of what no linear map can fit."""
    L = np.asarray(L, float)
    if not 0 < fraction < 1 or plateau <= 0:
        raise ValueError(
            f"context_learning_time needs 0 < fraction < 1 and plateau > 0, got "
            f"{fraction}, {plateau}"
        )
    hit = np.flatnonzero(L <= fraction * plateau)
    return float(hit[0]) if hit.size else float("inf")


def single_norms(run, epoch_index: int = -1) -> np.ndarray:
    """Frobenius norm of the 1-of-3 pathways' maps (the pathways named by one context)
    at the recorded epoch ``epoch_index``, per seed (``singles_inactive``)."""
    return np.array(
        [
            np.sqrt(
                sum(
                    np.sum(M[epoch_index] ** 2)
                    for n, M in run.pathway_maps(s).items()
                    if n != "common" and len(n) == 4
                )
            )
            for s in range(run.loss.shape[0])
        ]
    )


# --------------------------------------------------------------------------------------
# What the page computes beyond the statements (samplers, censuses, controls)
# --------------------------------------------------------------------------------------


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


def unit_classes(run, epochs, n_items: int = 8, n_contexts: int = 3):
    """The census of a trained ReLU network's exact unit patterns (seed 0): share of
    hidden weight by pattern class at each recorded epoch in ``epochs``, the number of
    non-nested unit patterns over them, and the final gates and unit weights."""
    from ...core.measures import unit_weight

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
    return shares, non_nested, gates, unit_weight(*run.weights_at(last, 0))


def edge_cases() -> dict:
    """Appendix E's orthogonal-datapoint edge case on four small datasets: ``{label:
    (orthogonal to all others, overlap with v', lambda' without, lambda with)}``."""
    base = np.array([[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]])  # lambda_max = 4
    cases = {
        "orthogonal to all, small: (0, 0, 1)": (base, np.array([0.0, 0.0, 1.0])),
        "orthogonal to all, large: (0, 0, 3)": (base, np.array([0.0, 0.0, 3.0])),
        "not orthogonal to all, but to v': (0, 0, 1) added to {(1,1,0) x2, (0,0,1)}": (
            np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
            np.array([0.0, 0.0, 1.0]),
        ),
        "overlapping v': (1, 0, 0)": (base, np.array([1.0, 0.0, 0.0])),
    }
    out = {}
    for label, (Xp, x) in cases.items():
        lam, V = np.linalg.eigh(Xp @ Xp.T)
        Xw = np.column_stack([Xp, x])
        lam_with = np.linalg.eigvalsh(Xw @ Xw.T)[-1]
        orth = bool(np.all(np.abs(Xp.T @ x) < 1e-12))
        out[label] = (orth, abs(V[:, -1] @ x), lam[-1], lam_with)
    return out


def strategy_datasets(ds: Dataset):
    """The effective datasets of a 1-of-3 and a 2-of-3 pathway (item inputs), on the
    raw targets and on the residual the best linear map leaves: ``{(pathway,
    targets): (top 4 singular values, top input eigenvalue, Sigma_yx)}`` and the
    largest entry of the two residual correlations' sum (0: one is minus the
    other)."""
    from ...core.datasets import context_gate, effective_dataset

    items = list(range(8))
    R = ds.Y - ds.Y @ np.linalg.pinv(ds.X) @ ds.X
    sv = {}
    names = {"1-of-3 (on in context 1)": (0,), "2-of-3 (off in context 1)": (1, 2)}
    for name, subset in names.items():
        g = context_gate(ds, subset)
        for target, T in [("raw targets Y", ds.Y), ("residual R", R)]:
            syx, sx = effective_dataset(ds.X, T, g, inputs=items)
            svals = np.linalg.svd(syx, compute_uv=False)[:4]
            sv[name, target] = (svals, np.linalg.eigvalsh(sx)[-1], syx)
    one, two = (sv[k, "residual R"][2] for k in names)
    return sv, float(np.abs(one + two).max())


def race_from_converged_common(ds: Dataset, coupling, lr, epochs) -> dict:
    """The race restarted with the common pathway at the best linear map (a balanced
    factorisation of ``Y X^+``), the context pathways from their random init (seed
    0): the summed loss of the 1-of-3 ('single') and 2-of-3 ('mixed') ReLNs."""
    from ...core.engine import init_params, train
    from ...core.relns import context_reln

    U, S, Vt = np.linalg.svd(ds.Y @ np.linalg.pinv(ds.X), full_matrices=False)
    out = {}
    for kind in ["single", "mixed"]:
        net = context_reln(ds, kind, coupling=coupling)
        W1, W2 = init_params(net, 0)
        sl = net.pathway_slice("common")
        W1[sl], W2[:, sl] = 0.0, 0.0
        W1[sl.start : sl.start + S.size] = np.sqrt(S)[:, None] * Vt
        W2[:, sl.start : sl.start + S.size] = U * np.sqrt(S)
        run = train(net, ds.X, ds.Y, lr=lr, epochs=epochs, seeds=[0], params0=[W1, W2])
        out[kind] = run.loss[0]
    return out


def xor_runs(eps_list, width, init_std, lr, epochs, seeds):
    """Appendix C: both XoR ReLNs (``width`` units per pathway) simulated at each
    margin, and the per-pathway closed form from each pathway's initial strength:
    ``(simulated, closed_form, a0)``, keyed ``(eps, kind, seed)``."""
    from ...core import race, xor_reln
    from ...core.datasets import xor
    from ...core.engine import init_params, train

    t = np.arange(epochs + 1)
    sim, cf, a0s = {}, {}, {}
    for eps in eps_list:
        d = xor(eps)
        for kind in xor_reln.KINDS:
            net = xor_reln.reln(kind, width * len(xor_reln.GATES[kind]), init_std)
            run = train(net, d.X, d.Y, lr=lr, epochs=epochs, seeds=list(seeds))
            for i, s in enumerate(seeds):
                a0 = race.effective_a0(net, init_params(net, s), d.X, d.Y)
                a0s[eps, kind, s] = a0
                sim[eps, kind, s] = run.loss[i]
                cf[eps, kind, s] = xor_reln.xor_closed_form_loss(t, eps, kind, a0, lr)
    return sim, cf, a0s


def crossing(times, eps_list, s) -> float:
    """Margin where the two XoR ReLNs' halving times ``times[eps, kind, s]`` cross,
    by linear interpolation of their log-ratio (nan when they do not)."""
    g = np.array([np.log(times[e, "linear", s] / times[e, "xor", s]) for e in eps_list])
    k = np.flatnonzero(np.sign(g[:-1]) != np.sign(g[1:]))
    if not k.size:
        return float("nan")
    k = k[0]
    e0, e1 = eps_list[k], eps_list[k + 1]
    return float(e0 + (e1 - e0) * g[k] / (g[k] - g[k + 1]))


def modes_max_diff(eps_list) -> float:
    """Largest difference between the XoR ReLNs' effective modes computed from
    ``xor(eps)`` and the closed forms (Eq. proofs-xor-modes), over ``eps_list``."""
    from ...core import xor_reln

    return max(
        abs(float(x) - float(y))
        for e in eps_list
        for kind in xor_reln.KINDS
        for s_, d_, _ in xor_reln.effective_modes(e, kind).values()
        for x, y in zip((s_[0], d_[0]), xor_reln.analytic_modes(e, kind))
    )


from . import plots, tables  # noqa: E402
from .report import report, results  # noqa: E402
