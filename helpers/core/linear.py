"""Closed-form theory of deep linear networks ([conv-linear], paper Appendix A, Eq. 7).

All time arguments are in epochs; ``tau = 1 / lr``.  Correlations match the summed
loss: ``Sigma_yx = Y X^T``, ``Sigma_x = X X^T`` ([conv-data]).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .checks import check_positive, check_xy


@dataclass(frozen=True)
class Modes:
    """``Sigma_yx = U diag(s) V^T`` and ``d = diag(V^T Sigma_x V)``."""

    s: np.ndarray
    d: np.ndarray
    U: np.ndarray
    V: np.ndarray

    @property
    def fixed_points(self) -> np.ndarray:
        """``s / d``."""
        return self.s / self.d


def modes(X, Y, tol: float = 1e-9) -> Modes:
    """The dataset's :class:`Modes` with ``s > tol * s_max`` ([conv-linear])."""
    X, Y = check_xy(np.asarray(X, float), np.asarray(Y, float))
    syx = Y @ X.T
    U, s, Vt = np.linalg.svd(syx, full_matrices=False)
    keep = s > tol * max(s.max(initial=0.0), 1e-300)
    U, s, V = U[:, keep], s[keep], Vt[keep].T
    # For stable figures: the largest entry of each v positive.
    flip = np.sign(V[np.abs(V).argmax(axis=0), np.arange(V.shape[1])])
    U, V = U * flip, V * flip
    d = np.einsum("ia,ij,ja->a", V, X @ X.T, V)
    return Modes(s=s, d=d, U=U, V=V)


def mode_strength(t, s, d, a0, lr):
    """Eq. 7: ``a(t) = (s/d) e^{2st/tau} / (e^{2st/tau} - 1 + s/(d a0))``."""
    lr = check_positive(lr, "lr")
    t = np.asarray(t, float)
    s, d, a0 = (np.asarray(v, float) for v in (s, d, a0))
    if np.any(a0 <= 0):
        raise ValueError(f"initial mode strength a0 must be > 0, got {a0}")
    if np.any(d <= 0) or np.any(s <= 0):
        raise ValueError("mode_strength needs s > 0 and d > 0 for every mode")
    # written with exp(-2 s t / tau) so that large t cannot overflow
    e = np.exp(-2.0 * s * t * lr)
    return (s / d) / (1.0 - e + e * s / (d * a0))


def learning_time(s, d, a0, af, lr):
    """Epochs from ``a0`` to ``af < s/d`` ([conv-linear]):
    ``t = tau / (2 s) * ln( af (s - d a0) / (a0 (s - d af)) )``."""
    lr = check_positive(lr, "lr")
    s, d, a0, af = (np.asarray(v, float) for v in (s, d, a0, af))
    if np.any(af >= s / d) or np.any(a0 >= af) or np.any(a0 <= 0):
        raise ValueError("learning_time needs 0 < a0 < af < s/d for every mode")
    return 1.0 / (2.0 * s * lr) * np.log(af * (s - d * a0) / (a0 * (s - d * af)))


def closed_form_map(t, X, Y, a0, lr) -> np.ndarray:
    """``W(t) = U A(t) V^T``, ``(T, p, d)``."""
    m = modes(X, Y)
    a0 = np.broadcast_to(np.asarray(a0, float), m.s.shape)
    A = mode_strength(np.asarray(t, float)[:, None], m.s, m.d, a0, lr)  # T x modes
    return np.einsum("pa,ta,da->tpd", m.U, A, m.V)


def closed_form_loss(t, X, Y, a0, lr) -> np.ndarray:
    """``1/2 ||Y - W(t) X||^2`` of the closed-form map, evaluated directly so it stays
    exact where Assumption 2.1.1 holds only approximately ([conv-linear])."""
    X = np.asarray(X, float)
    Y = np.asarray(Y, float)
    W = closed_form_map(t, X, Y, a0, lr)
    R = Y[None] - W @ X
    return 0.5 * np.sum(R**2, axis=(1, 2))


def diagonalizability(X, Y) -> dict:
    """Distance from Assumption 2.1.1 (``V`` eigenvectors of ``Sigma_x``): relative
    ``offdiag`` of ``V^T Sigma_x V``, ``leak`` of ``Sigma_x V`` out of ``V``, and
    ``holds`` (both < 1e-8)."""
    X = np.asarray(X, float)
    m = modes(X, Y)
    Sx = X @ X.T
    M = m.V.T @ Sx @ m.V
    off = np.linalg.norm(M - np.diag(np.diag(M))) / max(np.linalg.norm(M), 1e-300)
    SxV = Sx @ m.V
    leak = np.linalg.norm(SxV - m.V @ (m.V.T @ SxV)) / max(np.linalg.norm(SxV), 1e-300)
    return {
        "offdiag": float(off),
        "leak": float(leak),
        "holds": bool(off < 1e-8 and leak < 1e-8),
    }


def initial_mode_strength(
    width: int, std_in: float, std_out: float, depth: int = 2
) -> float:
    """A pathway's effective initial mode strength, no fitted constant: ``x = W1 v``
    and ``y = W2^T u`` grow as ``(x + y) e^{s t / tau} / 2``, so the mode starts as if
    aligned from ``a0 = E|x0 + y0|^2 / 4 = width (std_in^2 + std_out^2) / 4``."""
    if depth != 2:
        raise NotImplementedError(
            "initial_mode_strength is derived for one hidden layer (depth 2)"
        )
    return float(width) * (std_in**2 + std_out**2) / 4.0
