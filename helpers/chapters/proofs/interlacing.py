"""Proposition 4.2, steps 1 and 2 (Appendix E): Thompson's interlacing for deleted rows
and columns, and deleting a datapoint of non-negative data."""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

import numpy as np

from ...core.datasets import Dataset
from .race import linear_residual


def thompson_bounds(A, keep_rows, keep_cols):
    """Singular values of ``A`` and of ``B = A[rows, cols]``, and Thompson's bounds
    ``sigma_k(A) >= sigma_k(B) >= sigma_{k+r+c}(A)`` with ``r`` rows and ``c`` columns
    deleted (``sigma_j(A) = 0`` past the rank).

    Returns:
        ``(sA, sB, upper, lower)``, ``upper``, ``lower`` the bounds for each ``k`` of B.
    """
    A = np.asarray(A, float)
    if A.ndim != 2 or A.size == 0:
        raise ValueError(f"A must be a non-empty 2-D matrix, got shape {A.shape}")
    rows, cols = np.asarray(keep_rows, int), np.asarray(keep_cols, int)
    if rows.size == 0 or cols.size == 0:
        raise ValueError("keep at least one row and one column")
    if (
        min(rows.min(), cols.min()) < 0
        or rows.max() >= A.shape[0]
        or cols.max() >= A.shape[1]
    ):
        raise ValueError(f"kept indices must lie inside A's shape {A.shape}")
    if len(set(rows.tolist())) != rows.size or len(set(cols.tolist())) != cols.size:
        raise ValueError("keep_rows and keep_cols must not repeat an index")
    sA = np.linalg.svd(A, compute_uv=False)
    sB = np.linalg.svd(A[np.ix_(rows, cols)], compute_uv=False)
    deleted = A.shape[0] - rows.size + A.shape[1] - cols.size
    sA_pad = np.r_[sA, np.zeros(deleted + sB.size)]
    k = np.arange(sB.size)
    return sA, sB, sA_pad[k], sA_pad[k + deleted]


def interlacing_gaps(A, keep_rows, keep_cols, rtol: float = 1e-10) -> dict:
    """``top_ratio = sigma_1(B) / sigma_1(A)`` and the number of ``violations`` of the
    ``inequalities`` of :func:`thompson_bounds` by more than ``rtol sigma_1(A)``."""
    sA, sB, upper, lower = thompson_bounds(A, keep_rows, keep_cols)
    tol = rtol * max(sA[0], 1e-300)
    v = int(np.sum(sB > upper + tol) + np.sum(sB < lower - tol))
    return {
        "top_ratio": float(sB[0] / sA[0]) if sA[0] > 0 else 1.0,
        "violations": v,
        "inequalities": 2 * sB.size,
    }


def _random_keep(rng, m, n, p, delete=False):
    """Rows and columns kept with probability ``p``: some of each, not all if
    ``delete``."""
    while True:
        rows = np.flatnonzero(rng.random(m) < p)
        cols = np.flatnonzero(rng.random(n) < p)
        if rows.size and cols.size and not (delete and rows.size + cols.size == m + n):
            return rows, cols


def _random_matrix(rng, kind, m, n):
    if kind == "gaussian":
        return rng.standard_normal((m, n))
    if kind == "non-negative":
        return rng.random((m, n))
    if kind == "low-rank":
        r = rng.integers(1, min(m, n) + 1)
        return rng.standard_normal((m, r)) @ rng.standard_normal((r, n))
    k = min(m, n)
    U, _ = np.linalg.qr(rng.standard_normal((m, k)))
    V, _ = np.linalg.qr(rng.standard_normal((n, k)))
    return (U * np.sort(rng.choice([1.0, 2.0, 3.0], size=k))[::-1]) @ V.T


def random_interlacing_cases(n_cases: int, seed: int, max_dim: int = 12) -> list[dict]:
    """:func:`interlacing_gaps` of random ``m x n`` matrices (``m, n <= max_dim``, the
    four kinds in turn), at least one row or column deleted."""
    rng = np.random.default_rng(int(seed))
    out = []
    for i in range(int(n_cases)):
        m, n = rng.integers(1, max_dim + 1, size=2)
        n = 2 if m * n == 1 else n
        kind = ("gaussian", "non-negative", "low-rank", "repeated")[i % 4]
        A = _random_matrix(rng, kind, m, n)
        res = interlacing_gaps(A, *_random_keep(rng, m, n, 0.7, delete=True))
        out.append({**res, "shape": (int(m), int(n)), "kind": kind})
    return out


def deletion_effects(X, Y) -> dict:
    """The effect of deleting each datapoint ``j`` on the top of the correlations.

    Returns:
        ``lambda_max`` of ``Sigma_x = X X^T``, ``sigma_1`` of ``Sigma_yx = Y X^T``, and
        per datapoint (``(P,)`` each) ``d_eig`` and ``d_sv``, what deleting it takes
        off them (non-negative: never raised), and ``overlap``, ``|v . x_j|`` for the
        top eigenvector ``v`` of ``Sigma_x`` without ``j`` (0: the edge case).
    """
    X, Y = np.asarray(X, float), np.asarray(Y, float)
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
    return dict(lambda_max=float(lam), sigma_1=float(sv), d_eig=d_eig, d_sv=d_sv,
                overlap=overlap)  # fmt: skip


def random_deletion_cases(n_datasets: int, seed: int, signed: bool = False) -> dict:
    """:func:`deletion_effects` on random non-negative datasets (about a third of the
    entries 0), or Gaussian ones if ``signed``: ``d_eig / lambda_max`` and ``d_sv /
    sigma_1`` over every (dataset, deleted datapoint)."""
    rng = np.random.default_rng(int(seed))
    d_eig, d_sv = [], []
    for _ in range(int(n_datasets)):
        d, P, p = rng.integers(2, 9), rng.integers(2, 11), rng.integers(1, 7)
        if signed:
            X, Y = rng.standard_normal((d, P)), rng.standard_normal((p, P))
        else:
            X = rng.random((d, P)) * (rng.random((d, P)) > 1 / 3)
            Y = rng.random((p, P)) * (rng.random((p, P)) > 1 / 3)
        if np.any(X) and np.any(Y @ X.T):
            eff = deletion_effects(X, Y)
            d_eig.append(eff["d_eig"] / eff["lambda_max"])
            d_sv.append(eff["d_sv"] / eff["sigma_1"])
    return {"d_eig": np.concatenate(d_eig), "d_sv": np.concatenate(d_sv)}


def task_interlacing_cases(ds: Dataset, n_random: int, seed: int) -> list[dict]:
    """Thompson's inequalities on the task's ``Sigma_yx = Y X^T`` (``common``) and on
    each context pathway's (1 or C-1 contexts, item inputs) ``Sigma_yx(p)`` of the
    common pathway's residual: every single row and column deleted, ``n_random``
    random subsets, and for ``common`` the proof's (the context inputs; each output
    block of 15 rows)."""
    if not ds.n_contexts:
        raise ValueError(f"{ds.name} has no contexts")
    rng = np.random.default_rng(int(seed))
    X, C = ds.X, ds.n_contexts
    items = [i for i, nm in enumerate(ds.inputs) if nm.startswith("item")]
    R = linear_residual(X, ds.Y)
    mats = {"common": ds.Y @ X.T}
    for on in sorted({1, max(C - 1, 1)}):
        for subset in combinations(range(C), on):
            g = np.isin(ds.contexts, subset).astype(float)
            mats["ctx" + "".join(str(c + 1) for c in subset)] = (R * g) @ X[items].T
    out = []
    for name, A in mats.items():
        m, n = A.shape
        rows, cols = np.arange(m), np.arange(n)
        dels = [(f"row {i}", np.delete(rows, i), cols) for i in range(m)]
        dels += [(f"column {j}", rows, np.delete(cols, j)) for j in range(n)]
        if name == "common":
            dels.append(("context inputs", rows, np.asarray(items)))
            block = [
                np.delete(rows, np.arange(15 * b, 15 * b + 15)) for b in range(m // 15)
            ]
            dels += [(f"output block {b}", r, cols) for b, r in enumerate(block)]
        dels += [
            (f"random {k}", *_random_keep(rng, m, n, 0.6)) for k in range(int(n_random))
        ]
        out += [
            {**interlacing_gaps(A, r, c), "matrix": name, "deletion": label}
            for label, r, c in dels
        ]
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
        orth = bool(np.all(np.abs(Xp.T @ x) < 1e-12))
        out[label] = orth, abs(V[:, -1] @ x), lam[-1], np.linalg.eigvalsh(Xw @ Xw.T)[-1]
    return out


class Interlacing(NamedTuple):
    """Thompson's inequalities on ``random`` matrices and on the ``task``'s own."""

    random: list
    task: list


def interlacing_checks(ds: Dataset, n_matrices: int, n_deletions: int, seed: int):
    """:func:`random_interlacing_cases` and :func:`task_interlacing_cases` together."""
    random = random_interlacing_cases(n_matrices, seed)
    return Interlacing(random, task_interlacing_cases(ds, n_deletions, seed))


class Deletions(NamedTuple):
    """:func:`random_deletion_cases` on ``nonneg`` and ``signed`` random datasets (of
    ``n_datasets``), :func:`deletion_effects` on each ``task`` dataset."""

    nonneg: dict
    signed: dict
    task: dict
    n_datasets: int


def deletion_checks(n_datasets: int, seed: int, task_sets: dict) -> Deletions:
    """Appendix E's step 2 on random datasets and on ``task_sets``."""
    task = {k: deletion_effects(v.X, v.Y) for k, v in task_sets.items()}
    nonneg, signed = (
        random_deletion_cases(n_datasets, seed + s, s == 1) for s in (0, 1)
    )
    return Deletions(nonneg, signed, task, n_datasets)
