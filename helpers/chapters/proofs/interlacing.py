"""Proposition 4.2, steps 1 and 2 (Appendix E): Thompson's interlacing for deleted rows
and columns, and deleting a datapoint of non-negative data.

Defined for the page book/proofs.md.
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

import numpy as np

from ...core.datasets import Dataset


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


class Interlacing(NamedTuple):
    """Thompson's inequalities on ``random`` matrices and on the ``task``'s own."""

    random: list
    task: list


def interlacing_checks(ds: Dataset, n_matrices: int, n_deletions: int, seed: int):
    """:func:`random_interlacing_cases` and :func:`task_interlacing_cases` together
    (Defined for the page book/proofs.md)."""
    return Interlacing(
        random_interlacing_cases(n_matrices, seed),
        task_interlacing_cases(ds, n_deletions, seed),
    )


class Deletions(NamedTuple):
    """Deleting datapoints: ``nonneg`` and ``signed`` random datasets (each
    :func:`random_deletion_cases`, from ``n_datasets``), and :func:`deletion_effects`
    on each of the ``task`` datasets."""

    nonneg: dict
    signed: dict
    task: dict
    n_datasets: int


def deletion_checks(n_datasets: int, seed: int, task_sets: dict) -> Deletions:
    """Appendix E's step 2 on random and on the book's datasets (Defined for the page
    book/proofs.md)."""
    return Deletions(
        random_deletion_cases(n_datasets, seed),
        random_deletion_cases(n_datasets, seed + 1, signed=True),
        {k: deletion_effects(v.X, v.Y) for k, v in task_sets.items()},
        n_datasets,
    )
