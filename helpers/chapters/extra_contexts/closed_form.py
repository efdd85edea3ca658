"""Closed-form learning dynamics of the all-hierarchy contextual task for any number
of contexts C (paper Section 5, Appendices F-G; [conv-contextual]; derivation on the
page book/extra_contexts.md).

The common pathway is a linear network on ``(X, Y)`` (Eq. 7 per mode).  Context
pathway ``j`` (off in context ``j``) sees ``b_j (x) B_c``: singular values
``sqrt((C-1)/C) sigma``, input variance ``C - 1`` and effective ``d_eff = 1`` in the
race; its initial strength carries a head start from the common pathway's learning,
derived from each initialisation ([conv-init]).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from ...core.checks import check_positive
from ...core.datasets import Dataset, effective_dataset
from ...core.linear import (
    Modes,
    diagonalizability,
    initial_mode_strength,
    learning_time,
    mode_strength,
    modes,
)
from ...core.relns import STD_COMMON, STD_CONTEXT, WIDTH, common_fit


def _check_C(C) -> int:
    if isinstance(C, bool) or not isinstance(C, (int, np.integer)) or C < 2:
        raise ValueError(
            f"the closed form needs an integer number of contexts C >= 2, got {C!r}"
        )
    return int(C)


def block_coefficients(C: int) -> np.ndarray:
    """Output-block coefficients ``b`` ``(C, C + 1)`` of the context pathways' targets
    (Appendix F; [conv-contextual]): ``b_j0 = 0``, ``b_jk = 1/C - delta_jk``, so
    ``||b_j||^2 = (C-1)/C``, ``b_j . b_q = -1/C`` and ``sum_j b_j = 0``."""
    C = _check_C(C)
    b = np.zeros((C, C + 1))
    b[:, 1:] = 1.0 / C - np.eye(C)
    return b


def block_structure(ds: Dataset) -> np.ndarray:
    """The structure ``B`` (features x items) shared by every output block of ``ds``.

    Raises ValueError unless ``ds`` is the Section 5 task (all-hierarchy blocks).
    """
    C = ds.n_contexts
    if C < 2:
        raise ValueError(
            f"{ds.name}: the closed form needs a contextual task with C >= 2 contexts"
        )
    n_items = int(ds.items.max()) + 1
    if ds.P != n_items * C or ds.Y.shape[0] % (C + 1):
        raise ValueError(
            f"{ds.name}: expected {n_items} items x {C} contexts and C + 1 equal "
            f"output blocks"
        )
    nf = ds.Y.shape[0] // (C + 1)
    cols0 = np.flatnonzero(ds.contexts == 0)
    B = ds.Y[:nf, cols0][:, np.argsort(ds.items[cols0])]
    for c in range(C):
        cols = np.flatnonzero(ds.contexts == c)
        order = np.argsort(ds.items[cols])
        for k in range(C + 1):
            blk = ds.Y[k * nf : (k + 1) * nf, cols][:, order]
            want = B if (k == 0 or k == c + 1) else 0.0 * B
            if not np.allclose(blk, want):
                raise ValueError(
                    f"{ds.name}: output block {k} in context {c + 1} is not the shared "
                    f"structure; the "
                    "closed form of Section 5 needs the same structure in every block "
                    "(hierarchy everywhere)"
                )
    return B


def _centred(B):
    return B - B.mean(axis=1, keepdims=True)


def residual_formula(ds: Dataset) -> np.ndarray:
    """The common pathway's residual ([conv-contextual]): 0 in the common block,
    ``(B[:, i] - mean_i B)(delta_ck - 1/C)`` in block ``k`` at (item ``i``, context
    ``c``)."""
    B = block_structure(ds)
    Bc = _centred(B)
    C = ds.n_contexts
    nf = B.shape[0]
    R = np.zeros_like(ds.Y, dtype=float)
    for k in range(C):
        coeff = (ds.contexts == k).astype(float) - 1.0 / C
        R[(k + 1) * nf : (k + 2) * nf] = Bc[:, ds.items] * coeff
    return R


def _item_rows(ds: Dataset) -> list[int]:
    return [i for i, name in enumerate(ds.inputs) if name.startswith("item")]


def context_effective_dataset(ds: Dataset, j: int, q: int | None = None, target=None):
    """``(Sigma_yx(j), Sigma_x(q, j))`` (Eq. 4) of the context pathway off in context
    ``j`` (0-based) on the item inputs; ``target`` defaults to the common residual."""
    C = ds.n_contexts
    for name, v in (("j", j), ("q", j if q is None else q)):
        if not 0 <= v < C:
            raise ValueError(f"context pathway {name}={v} out of range 0..{C - 1}")
    Y = common_fit(ds)[1] if target is None else np.asarray(target, float)
    g = (ds.contexts != j).astype(float)
    gq = None if q is None else (ds.contexts != q).astype(float)
    items = _item_rows(ds)
    return effective_dataset(ds.X, Y, g, gate_q=gq, inputs=items, inputs_q=items)


@dataclass(frozen=True)
class ContextModes:
    """Modes of the C-1-of-C context pathways (Appendices F-G).

    ``sigma``, ``U``, ``V``: SVD of the item-centred ``B_c``; ``s = sqrt((C-1)/C)
    sigma``; ``d = C - 1``; ``overlap = C - 2``; ``cosine = -1/(C-1)`` between two
    pathways' output vectors; ``d_eff = d + (C-1) cosine overlap = 1``.  ``s_raw``,
    ``s_common``, ``d_common``: raw-target and common modes, for the head start.
    """

    C: int
    sigma: np.ndarray
    U: np.ndarray
    V: np.ndarray
    s: np.ndarray
    d: float
    overlap: float
    cosine: float
    d_eff: float
    s_raw: np.ndarray
    s_common: np.ndarray
    d_common: float
    b: np.ndarray

    @property
    def fixed_points(self) -> np.ndarray:
        return self.s / self.d_eff

    @property
    def coupling(self) -> float:
        """Race coupling of two pathways, ``cosine * overlap = -(C-2)/(C-1)``."""
        return float(self.cosine * self.overlap)


def context_modes(ds: Dataset, tol: float = 1e-9) -> ContextModes:
    """The context pathways' modes for the Section 5 task ``ds``, from its blocks."""
    B = block_structure(ds)
    C = ds.n_contexts
    Bc = _centred(B)
    U, sig, Vt = np.linalg.svd(Bc, full_matrices=False)
    keep = sig > tol * sig.max()
    U, sig, V = U[:, keep], sig[keep], Vt[keep].T
    # The head start needs the common pathway's item-centred modes to decouple from its
    # item-mean / context modes: the item mean of B orthogonal to the range of B_c.
    if np.abs(U.T @ B.mean(axis=1)).max() > 1e-9 * max(1.0, np.abs(B).max()):
        raise ValueError(
            "context_modes: the item mean of the structure is not orthogonal to its "
            "centred part"
        )
    b = block_coefficients(C)
    cosine = -1.0 / (C - 1) if C > 1 else 0.0
    d, overlap = float(C - 1), float(C - 2)
    d_eff = d + (C - 1) * cosine * overlap
    return ContextModes(
        C=C,
        sigma=sig,
        U=U,
        V=V,
        s=np.sqrt((C - 1) / C) * sig,
        d=d,
        overlap=overlap,
        cosine=cosine,
        d_eff=float(d_eff),
        s_raw=np.sqrt(C * (C - 1.0)) * sig,
        s_common=np.sqrt(C * (C + 1.0)) * sig,
        d_common=float(C),
        b=b,
    )


def _settle_time(s_common, d_common, a0_common, lr, settle) -> float:
    """Steps until the common mode (Eq. 7) is within ``settle`` of its fixed point."""
    fixed = s_common / d_common
    if a0_common >= fixed * (1 - settle):
        return 0.0
    return learning_time(s_common, d_common, a0_common, fixed * (1 - settle), lr)


def _moments_at(rhs, S0, t_end, method, atol, s) -> np.ndarray:
    """The ``(3, 3)`` head-start moments at ``t_end``, integrated from ``S0``."""
    if t_end <= 0:
        return S0
    sol = solve_ivp(rhs, (0.0, t_end), S0.ravel(), method=method, rtol=1e-10, atol=atol)
    if not sol.success:
        raise RuntimeError(f"head-start integration failed for s={s}: {sol.message}")
    return sol.y[:, -1].reshape(3, 3)


def _over_modes(one, s, s_common, d_common, a0_common, lr, settle) -> np.ndarray:
    """``one(s, s_common, T)`` per broadcast pair, ``T`` the common settle time."""
    out = np.empty(s.shape)
    for idx in np.ndindex(s.shape):
        sb, sc = float(s[idx]), float(s_common[idx])
        out[idx] = one(sb, sc, _settle_time(sc, d_common, a0_common, lr, settle))
    return out


def head_start_gain(
    s, s_common, d_common, C, a0_common, lr, std_in, std_out, settle: float = 1e-6
) -> np.ndarray:
    """Factor by which the common pathway's learning raises a context mode's ``a0``.

    Small-weight phase per hidden unit: ``x = W1 v`` and readouts ``y_b``, ``y_c``
    along the residual and common directions obey

        tau d/dt (x, y_b, y_c) = A(t) (x, y_b, y_c),
        A = [[0, s, e(t)], [s, 0, 0], [e(t), 0, 0]],  e(t) = (C-1) (s_c / C - a_c(t)),

    ``a_c`` the common mode (Eq. 7).  The moments ``E[z z^T]`` are integrated until
    ``a_c`` settles; then ``gain = E(x + y_b)^2 / (std_in^2 + std_out^2)``.
    """
    lr = check_positive(lr, "lr")
    a0_common = check_positive(a0_common, "a0_common")
    s, s_common = np.broadcast_arrays(np.asarray(s, float), np.asarray(s_common, float))
    if np.any(s <= 0) or np.any(s_common <= 0):
        raise ValueError("head_start_gain needs positive singular values")
    base = std_in**2 + std_out**2

    def gain(sb, sc, t_end):
        def rhs(t, y):
            S = y.reshape(3, 3)
            e = (C - 1) * (sc / C - mode_strength(t, sc, d_common, a0_common, lr))
            A = np.array([[0.0, sb, e], [sb, 0.0, 0.0], [e, 0.0, 0.0]]) * lr
            # scaled by e^{-2 s t / tau} to keep the numbers O(1)
            return (A @ S + S @ A.T - 2 * sb * lr * S).ravel()

        S0 = np.diag([std_in**2, std_out**2, std_out**2])
        S = _moments_at(rhs, S0, t_end, "DOP853", 1e-30 * base, sb)
        return (S[0, 0] + S[1, 1] + 2 * S[0, 1]) / base

    return _over_modes(gain, s, s_common, d_common, a0_common, lr, settle)


def matched_initial_strength(
    s,
    s_common,
    d_common,
    C,
    a0_common,
    lr,
    width,
    std_in,
    std_out,
    settle: float = 1e-6,
) -> np.ndarray:
    """Effective ``a0`` of each context mode from the full (nonlinear) head start.

    As :func:`head_start_gain`, with errors ``e_b = s - m_b`` and ``e_c = (C-1)(s_c/C -
    a_c(t)) - (C-1)^2 m_c`` (``m = S_x.`` over ``width`` units); returns the ``a0`` for
    which Eq. 7 passes through ``m_b(T)`` once the common mode has settled at ``T``.
    """
    lr = check_positive(lr, "lr")
    a0_common = check_positive(a0_common, "a0_common")
    s, s_common = np.broadcast_arrays(np.asarray(s, float), np.asarray(s_common, float))

    def matched(sb, sc, t_end):
        def rhs(t, y):
            S = y.reshape(3, 3)
            eb = sb - S[0, 1]
            ec = (C - 1) * (sc / C - mode_strength(t, sc, d_common, a0_common, lr)) - (
                C - 1
            ) ** 2 * S[0, 2]
            A = np.array([[0.0, eb, ec], [eb, 0.0, 0.0], [ec, 0.0, 0.0]]) * lr
            return (A @ S + S @ A.T).ravel()

        S0 = width * np.diag([std_in**2, std_out**2, std_out**2])
        m_b = _moments_at(rhs, S0, t_end, "LSODA", 1e-12 * S0[0, 0], sb)[0, 1]
        if not 0 < m_b < sb:
            raise ValueError(
                f"matched_initial_strength: the residual mode (s={sb:.4g}) reached "
                f"{m_b:.4g} during the head "
                "start, outside (0, s); Eq. 7 cannot be matched"
            )
        e = np.exp(-2.0 * sb * t_end * lr)
        return sb * e / (sb / m_b - 1.0 + e)

    return _over_modes(matched, s, s_common, d_common, a0_common, lr, settle)


A0_METHODS = ("head_start", "linear", "none")


def context_initial_strength(
    cm: ContextModes,
    lr: float,
    width: int = WIDTH,
    std_context: float = STD_CONTEXT,
    std_common: float = STD_COMMON,
    method: str = "head_start",
    settle: float = 1e-6,
) -> np.ndarray:
    """Initial strength of each context mode, derived from the init (nothing fitted).

    ``method``: ``'none'`` (:func:`initial_mode_strength` alone), ``'linear'`` (times
    :func:`head_start_gain`) or ``'head_start'`` (:func:`matched_initial_strength`).
    """
    if method not in A0_METHODS:
        raise ValueError(f"method must be one of {A0_METHODS}, got {method!r}")
    a0 = initial_mode_strength(width, std_context, std_context)
    if method == "none":
        return np.full(cm.s.shape, a0)
    a0c = initial_mode_strength(width, std_common, std_common)
    uniq, inv = np.unique(np.round(cm.s, 12), return_inverse=True)
    sc = np.array([cm.s_common[np.flatnonzero(inv == k)[0]] for k in range(len(uniq))])
    if method == "linear":
        vals = a0 * head_start_gain(
            uniq, sc, cm.d_common, cm.C, a0c, lr, std_context, std_context, settle
        )
    else:
        vals = matched_initial_strength(
            uniq,
            sc,
            cm.d_common,
            cm.C,
            a0c,
            lr,
            width,
            std_context,
            std_context,
            settle,
        )
    return vals[inv]


@dataclass
class ClosedForm:
    """Closed-form trajectories of the Section 5 ReLN (Appendices F-G): mode strengths
    ``a_common`` ``(T, k)``, ``a_context`` ``(T, r)`` (Eq. 7), summed ``loss`` ``(T,)``.
    """

    ds: Dataset
    t: np.ndarray
    lr: float
    common: Modes
    context: ContextModes
    a0_common: float
    a0_context: np.ndarray
    a_common: np.ndarray
    a_context: np.ndarray
    loss: np.ndarray

    def context_map(self, j: int) -> np.ndarray:
        """Map of the context pathway off in context ``j``, ``(T, p, n_items)``:
        ``sum_alpha a_alpha(t) (b_j / ||b_j||) (x) u_alpha v_alpha^T``."""
        cm = self.context
        bhat = cm.b[j] / np.linalg.norm(cm.b[j])
        U = np.kron(bhat[:, None], cm.U)  # (C+1) nf x r
        return np.einsum("pa,ta,da->tpd", U, self.a_context, cm.V)

    def common_map(self) -> np.ndarray:
        m = self.common
        return np.einsum("pa,ta,da->tpd", m.U, self.a_common, m.V)


def closed_form(
    ds: Dataset,
    t,
    lr: float,
    width: int = WIDTH,
    std_common: float = STD_COMMON,
    std_context: float = STD_CONTEXT,
    a0_method: str = "head_start",
    a0_context=None,
    settle: float = 1e-6,
) -> ClosedForm:
    """Closed-form mode strengths and summed loss of the Section 5 ReLN at epochs ``t``
    (chapter equation ``extra_contexts-loss``); ``a0_context`` overrides the derived
    context ``a0`` (one number or one per mode)."""
    lr = check_positive(lr, "lr")
    t = np.asarray(t, float)
    cm = context_modes(ds)
    m = modes(ds.X, ds.Y)
    a0c = initial_mode_strength(width, std_common, std_common)
    if a0_context is None:
        a0x = context_initial_strength(
            cm, lr, width, std_context, std_common, a0_method, settle
        )
    else:
        a0x = np.broadcast_to(np.asarray(a0_context, float), cm.s.shape).copy()
    a_c = mode_strength(t[:, None], m.s, m.d, a0c, lr)
    a_x = mode_strength(t[:, None], cm.s, cm.d_eff, a0x[None, :], lr)
    C = cm.C
    L_common = 0.5 * np.sum(ds.Y**2) - np.sum(m.s * a_c - 0.5 * m.d * a_c**2, axis=1)
    L_floor = 0.5 * C * np.sum(cm.s**2)  # the residual the common pathway cannot fit
    loss = (L_common - L_floor) + 0.5 * C * np.sum((cm.s - a_x) ** 2, axis=1)
    return ClosedForm(
        ds=ds,
        t=t,
        lr=lr,
        common=m,
        context=cm,
        a0_common=a0c,
        a0_context=a0x,
        a_common=a_c,
        a_context=a_x,
        loss=loss,
    )


def loss_from_maps(ds: Dataset, common_map, context_maps) -> np.ndarray:
    """Summed loss (Eq. 2) ``(T,)`` of a ``common_map`` ``(T, p, d)`` and
    ``context_maps`` (pathway ``j`` off in context ``j``), each ``(T, p, n_items)``."""
    items = _item_rows(ds)
    out = np.einsum("tpd,dn->tpn", np.asarray(common_map), ds.X)
    for j, Wj in enumerate(context_maps):
        g = (ds.contexts != j).astype(float)
        out = out + np.einsum("tpd,dn->tpn", np.asarray(Wj), ds.X[items]) * g
    return 0.5 * np.sum((ds.Y[None] - out) ** 2, axis=(1, 2))


def output_mode_strengths(ds: Dataset, outputs) -> tuple[np.ndarray, np.ndarray]:
    """Mode strengths ``(a_common (..., k), a_context (..., r))`` read off any
    network's outputs ``(..., p, P)``: ``u^T Yhat X^T v / d`` for the common modes and
    ``<Yhat, D_alpha> s_alpha / ((C-1) sigma_alpha)`` for the residual modes
    ``D_alpha`` (blind to the common pathway's output)."""
    Yhat = np.asarray(outputs, float)
    if Yhat.shape[-2:] != ds.Y.shape:
        raise ValueError(
            f"outputs must end in the shape of Y {ds.Y.shape}, got {Yhat.shape}"
        )
    m = modes(ds.X, ds.Y)
    a_common = np.einsum("pa,...pn,dn,da->...a", m.U, Yhat, ds.X, m.V) / m.d
    cm = context_modes(ds)
    C = cm.C
    nf = cm.U.shape[0]
    # D_alpha[block k, (i, c)] = (delta_ck - 1/C) u_alpha v_alpha[i]
    coeff = (ds.contexts[None, :] == np.arange(C)[:, None]).astype(
        float
    ) - 1.0 / C  # (C, P)
    D = np.zeros((len(cm.s), ds.Y.shape[0], ds.P))
    for k in range(C):
        D[:, (k + 1) * nf : (k + 2) * nf, :] = (
            np.einsum("ra,na->arn", cm.U, cm.V[ds.items]) * coeff[k]
        )
    a_context = np.einsum("...pn,apn->...a", Yhat, D) * cm.s / ((C - 1) * cm.sigma)
    return a_common, a_context


def closed_form_for_stds(
    ds: Dataset,
    t,
    lr: float,
    stds: dict,
    width: int = WIDTH,
    a0_method: str = "head_start",
    settle: float = 1e-6,
) -> ClosedForm:
    """:func:`closed_form` for pathways started at ``stds`` (one seed's
    :meth:`helpers.core.relns.Start.stds`); the context pathways enter with the root
    mean square of their stds (exact when they share one)."""
    ctx = [v for n, v in stds.items() if n != "common"]
    if "common" not in stds or not ctx:
        raise ValueError(
            f"stds must name the common pathway and the context pathways, got "
            f"{sorted(stds)}"
        )
    return closed_form(
        ds,
        t,
        lr,
        width=width,
        std_common=stds["common"],
        std_context=float(np.sqrt(np.mean(np.square(ctx)))),
        a0_method=a0_method,
        settle=settle,
    )


def closed_form_losses(
    ds: Dataset, t, lr: float, stds_per_seed, width: int = WIDTH, settle: float = 1e-6
) -> np.ndarray:
    """The closed-form loss ``(seeds, T)`` for each seed's initial stds."""
    cache: dict = {}
    out = []
    for stds in stds_per_seed:
        key = tuple(sorted(stds.items()))
        if key not in cache:
            cache[key] = closed_form_for_stds(
                ds, t, lr, stds, width=width, settle=settle
            ).loss
        out.append(cache[key])
    return np.stack(out)


def common_pathway(ds: Dataset) -> dict:
    """The common pathway's dataset ([conv-contextual]): its modes
    (:func:`helpers.core.linear.modes`), Assumption 2.1.1's off-diagonal residual, the
    largest error of :func:`residual_formula` against the least-squares residual, and
    the loss that residual leaves."""
    _, R = common_fit(ds)
    return {
        "modes": modes(ds.X, ds.Y),
        "offdiag": diagonalizability(ds.X, ds.Y)["offdiag"],
        "residual_error": float(np.abs(R - residual_formula(ds)).max()),
        "residual_loss": float(0.5 * np.sum(R**2)),
    }


def effective_check(ds: Dataset) -> tuple:
    """What the table of effective datasets compares with the derivation: pathway 0's
    ``Sigma_x(0, 0)``, its overlap ``Sigma_x(1, 0)`` with pathway 1, the top output
    singular vectors of pathways 0 and 1, and pathway 0's singular values."""
    cm = context_modes(ds)
    syx, sxx = context_effective_dataset(ds, 0)
    _, sxq = context_effective_dataset(ds, 0, q=1)
    U0 = np.linalg.svd(syx)[0][:, 0]
    U1 = np.linalg.svd(context_effective_dataset(ds, 1)[0])[0][:, 0]
    s_num = np.linalg.svd(syx, compute_uv=False)[: len(cm.s)]
    return sxx, sxq, U0, U1, s_num


def halfway_epoch(t, a, target) -> float:
    """First (interpolated) epoch at which a mode strength reaches ``target``."""
    a = np.asarray(a)
    k = np.flatnonzero(a >= target)
    if not k.size:
        return np.inf
    k = int(k[0])
    if k == 0:
        return float(t[0])
    return float(t[k - 1] + (target - a[k - 1]) / (a[k] - a[k - 1]) * (t[k] - t[k - 1]))


def mode_strengths(runs: dict, ds: Dataset, init: str) -> dict:
    """``{"reln": ..., "relu": ...}``: :func:`output_mode_strengths` of one C's runs."""
    return {
        net_: output_mode_strengths(ds, runs[key].records["outputs"])
        for net_, key in (("reln", ("mixed", init)), ("relu", "relu"))
    }
