"""The ReLN's effective datasets (Eq. 4), pathway overlaps (Eq. 6, Appendix F) and
the diagonal mode race ([conv-contextual], [conv-constants]), with race.py's race of
Fig. 4a (:func:`authors_race`).  For book/contexts.md and book/authors_code.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from .checks import check_epochs, check_positive, check_xy
from .datasets import effective_dataset
from .engine import GatedNetwork
from .linear import closed_form_map
from .paper import CONTEXTS as PAPER
from .race import race_pathways


@dataclass(frozen=True)
class PathwayModes:
    """Non-zero modes ``Sigma_yx(p) = U diag(s) V^T`` of a pathway's effective dataset
    (Eq. 4), ``V`` over its ``inputs`` (rows of ``X``)."""

    name: str
    gate: np.ndarray
    inputs: np.ndarray
    U: np.ndarray
    s: np.ndarray
    V: np.ndarray

    @property
    def rank(self) -> int:
        return int(self.s.size)


def pathway_modes(
    net: GatedNetwork, X, target, names: Sequence[str] | None = None, tol: float = 1e-9
) -> list[PathwayModes]:
    """Modes (Eq. 4) of a one-hidden-layer GDLN's pathways (``names``, default: the
    non-common ones) on ``target`` (e.g. the residual ``Y - W* X``, Appendix F); modes
    with ``s <= tol * s_max`` dropped."""
    X, T = check_xy(np.asarray(X, float), np.asarray(target, float))
    if X.shape[0] != net.sizes[0] or T.shape[0] != net.sizes[-1]:
        raise ValueError(
            f"the network maps {net.sizes[0]} inputs to {net.sizes[-1]} outputs; "
            f"got X {X.shape} and target {T.shape}"
        )
    pws = {p.name: p for p in race_pathways(net, a0=1.0)}
    if names is None:
        names = [n for n, p in pws.items() if not p.common]
    missing = [n for n in names if n not in pws]
    if missing:
        raise ValueError(f"no pathways {missing} in the network; it has {list(pws)}")
    out = []
    for n in names:
        p = pws[n]
        idx = np.flatnonzero(p.mask)
        syx, _ = effective_dataset(X, T, p.gate, inputs=idx)
        U, s, Vt = np.linalg.svd(syx, full_matrices=False)
        if s.max(initial=0.0) <= 0:
            raise ValueError(
                f"pathway {n!r}: its effective dataset on this target is zero"
            )
        keep = s > tol * s.max()
        out.append(PathwayModes(n, p.gate.copy(), idx, U[:, keep], s[keep], Vt[keep].T))
    return out


def _slices(pathways):
    sl, start = [], 0
    for p in pathways:
        sl.append(slice(start, start + p.rank))
        start += p.rank
    return sl, start


def overlap_matrix(X, pathways: Sequence[PathwayModes]) -> np.ndarray:
    """The race's couplings (Eq. 6) from the data, modes ordered pathway by pathway:
    ``O[(p, a), (q, b)] = (u_pa . u_qb) (v_pa^T Sigma_x(p, q) v_qb)``,
    ``Sigma_x(p, q) = sum_i g_p^i g_q^i x_p^i x_q^{iT}``."""
    X = np.asarray(X, float)
    if not pathways:
        raise ValueError("overlap_matrix needs at least one pathway")
    sl, K = _slices(pathways)
    O = np.zeros((K, K))
    dummy = np.zeros((1, X.shape[1]))
    for a, p in enumerate(pathways):
        for b, q in enumerate(pathways):
            # Sigma_x(gate_q, gate) comes as (inputs_q x inputs)
            _, sx_qp = effective_dataset(
                X, dummy, p.gate, gate_q=q.gate, inputs=p.inputs, inputs_q=q.inputs
            )
            O[sl[a], sl[b]] = (p.U.T @ q.U) * (p.V.T @ sx_qp.T @ q.V)
    return O


def constant_overlap_matrix(
    X,
    pathways: Sequence[PathwayModes],
    value: float,
    *,
    pairs: Mapping[frozenset, float] | None = None,
    top: float | None = None,
) -> np.ndarray:
    """An overlap matrix of hand-set constants ([conv-constants]): the data's diagonal,
    same-index modes of pathways ``p``, ``q`` coupled by ``pairs[frozenset({p, q})]``
    or ``value``, top modes by ``top``, else 0.  With race.py's pairs and top, Fig. 4's
    solver (two 2-of-3 pathways' cross input variance is 1: ``overlap x delta_de``)."""
    if not np.isfinite(value):
        raise ValueError(f"the overlap constant must be finite, got {value}")
    pairs = dict(pairs or {})
    names = {p.name for p in pathways}
    for k, v in pairs.items():
        if not (isinstance(k, frozenset) and len(k) == 2 and k <= names):
            raise ValueError(
                f"pairs: {k!r} is not a pair of pathways of {sorted(names)}"
            )
        if not np.isfinite(v):
            raise ValueError(f"pairs: the overlap of {sorted(k)} must be finite")
    O = np.diag(np.diag(overlap_matrix(X, pathways)))
    sl, _ = _slices(pathways)
    for a, p in enumerate(pathways):
        for b, q in enumerate(pathways):
            if a == b:
                continue
            n = min(p.rank, q.rank)
            v = pairs.get(frozenset((p.name, q.name)), value)
            O[sl[a].start + np.arange(n), sl[b].start + np.arange(n)] = v
            if top is not None:
                O[sl[a].start, sl[b].start] = top
    return O


def partner_overlaps(O, pathways: Sequence[PathwayModes]) -> dict:
    """``{'pairs': {(p, q): per mode of p, its largest |O| in q}, 'top': {(p, q):
    top-mode coefficient}}``."""
    O = np.asarray(O, float)
    sl, K = _slices(pathways)
    if O.shape != (K, K):
        raise ValueError(f"O must be {K} x {K} for these pathways, got {O.shape}")
    pairs, top = {}, {}
    for a, p in enumerate(pathways):
        for b, q in enumerate(pathways):
            if a == b:
                continue
            blk = O[sl[a], sl[b]]
            j = np.argmax(np.abs(blk), axis=1)
            pairs[(p.name, q.name)] = blk[np.arange(blk.shape[0]), j]
            top[(p.name, q.name)] = float(blk[0, 0])
    return {"pairs": pairs, "top": top}


@dataclass
class ModeRace:
    """The race: mode strengths ``a`` ``(T+1, K)``, ReLN loss ``(T+1,)``,
    ``common_map`` ``(T+1, p, d)``."""

    loss: np.ndarray
    a: np.ndarray
    common_map: np.ndarray
    fixed_point_loss: float


def mode_race(
    X,
    Y,
    target,
    pathways: Sequence[PathwayModes],
    O,
    *,
    a0,
    a0_common: float,
    lr: float,
    epochs: int,
    common_map=None,
) -> ModeRace:
    """The neural race (Eq. 6) mode by mode, Appendix F, one Euler step per epoch:
    ``tau da_pa/dt = 2 a_pa (s_pa - sum_(q,b) O[(p,a),(q,b)] a_qb)``, context pathways
    on ``target``, the common pathway by Eq. 7 from ``a0_common`` or ``common_map``
    ``(epochs + 1, p, d)``.  ``fixed_point_loss``: at ``a = O^-1 s``."""
    X, Y = check_xy(np.asarray(X, float), np.asarray(Y, float))
    _, Tg = check_xy(X, np.asarray(target, float))
    lr = check_positive(lr, "lr")
    epochs = check_epochs(epochs)
    sl, K = _slices(pathways)
    O = np.asarray(O, float)
    if O.shape != (K, K):
        raise ValueError(f"O must be {K} x {K} for these pathways, got {O.shape}")
    a = np.broadcast_to(np.asarray(a0, float), (K,)).astype(float).copy()
    if np.any(a <= 0) or not np.all(np.isfinite(a)):
        raise ValueError(f"initial mode strengths must be finite and > 0, got {a0}")
    s = np.concatenate([p.s for p in pathways])
    # each mode's output: u_pa (v_pa^T x_p^i) g_p^i
    M = np.concatenate(
        [np.einsum("ok,kn->kon", p.U, (p.V.T @ X[p.inputs]) * p.gate) for p in pathways]
    )
    A = np.empty((epochs + 1, K))
    for t in range(epochs + 1):
        A[t] = a
        a = a + lr * 2.0 * a * (s - O @ a)
    if not np.all(np.isfinite(A)):
        raise ValueError("the mode race diverged; lower lr")
    if common_map is None:
        Wc = closed_form_map(np.arange(epochs + 1), X, Y, a0_common, lr)
    else:
        Wc = np.asarray(common_map, float)
        if Wc.shape != (epochs + 1, Y.shape[0], X.shape[0]):
            raise ValueError(
                f"common_map must be {(epochs + 1, Y.shape[0], X.shape[0])}, got "
                f"{Wc.shape}"
            )
    loss = np.empty(epochs + 1)
    for start in range(0, epochs + 1, 2000):
        stop = min(start + 2000, epochs + 1)
        out = Wc[start:stop] @ X + np.einsum("tk,kon->ton", A[start:stop], M)
        loss[start:stop] = 0.5 * np.sum((Y[None] - out) ** 2, axis=(1, 2))
    a_star = np.linalg.lstsq(O, s, rcond=None)[0]
    fp = 0.5 * float(np.sum((Tg - np.einsum("k,kon->on", a_star, M)) ** 2))
    return ModeRace(loss=loss, a=A, common_map=Wc, fixed_point_loss=fp)


def authors_common_race(X, Y, a0: float, *, lr: float, epochs: int):
    """The common pathway as race.py integrates it: ``b += lr 2 b (s - d b)``, ``d``
    the ``Sigma_x`` eigenvalue of the same rank (not ``v^T Sigma_x v`` where
    Assumption 2.1.1 fails), so it tends to ``U diag(s / d) V^T``, not ``W*``.
    Defined for the page book/contexts.md (the curve Fig. 4a printed).

    Returns:
        ``(maps (epochs + 1, p, d), Y - U diag(s / d) V^T X)``."""
    X, Y = check_xy(np.asarray(X, float), np.asarray(Y, float))
    lr = check_positive(lr, "lr")
    epochs = check_epochs(epochs)
    if not (np.isfinite(a0) and a0 > 0):
        raise ValueError(f"a0 must be finite and > 0, got {a0}")
    U, s, Vt = np.linalg.svd(Y @ X.T, full_matrices=False)
    d = np.linalg.eigvalsh(X @ X.T)[::-1][: s.size]
    keep = (s > 1e-9 * s.max()) & (d > 1e-9 * d.max())
    U, s, Vt, d = U[:, keep], s[keep], Vt[keep], d[keep]
    b = np.full(s.shape, float(a0))
    B = np.empty((epochs + 1, s.size))
    for t in range(epochs + 1):
        B[t] = b
        b = b + lr * 2.0 * b * (s - d * b)
    if not np.all(np.isfinite(B)):
        raise ValueError("the common race diverged; lower lr")
    maps = np.einsum("pa,ta,ad->tpd", U, B, Vt)
    return maps, Y - (U * (s / d)) @ Vt @ X


def mode_projections(maps, modes: PathwayModes) -> np.ndarray:
    """``u_pa^T W v_pa`` per mode of maps ``W (..., p, d)``: ``(..., rank)``."""
    W = np.asarray(maps, float)
    if W.shape[-2] != modes.U.shape[0]:
        raise ValueError(
            f"maps have {W.shape[-2]} outputs, the modes {modes.U.shape[0]}"
        )
    Wp = W[..., modes.inputs]
    return np.einsum("oa,...oi,ia->...a", modes.U, Wp, modes.V)


def equivalent_initial_strength(a_t, s, d, t: float, lr: float) -> np.ndarray:
    """The ``a0`` from which Eq. 7 reaches ``a_t`` at epoch ``t``:
    ``e s / (d (s/(d a_t) - 1 + e))``, ``e = exp(-2 s t lr)``; NaN outside
    ``(0, s/d)``."""
    lr = check_positive(lr, "lr")
    a_t, s, d = np.broadcast_arrays(*(np.asarray(v, float) for v in (a_t, s, d)))
    if np.any(s <= 0) or np.any(d <= 0) or t < 0:
        raise ValueError("equivalent_initial_strength needs s > 0, d > 0 and t >= 0")
    e = np.exp(-2.0 * s * t * lr)
    ok = (a_t > 0) & (a_t < s / d)
    with np.errstate(divide="ignore", invalid="ignore"):
        a0 = e * s / (d * (s / (d * a_t) - 1.0 + e))
    return np.where(ok, a0, np.nan)


#: race.py's pairs of pathways, in the order of ``PAPER.race_overlaps``.
RACE_PAIRS = [("ctx12", "ctx23"), ("ctx12", "ctx13"), ("ctx23", "ctx13")]


def race_py_overlaps(X, modes: Sequence[PathwayModes]) -> np.ndarray:
    """The overlap matrix of race.py's constants (:func:`constant_overlap_matrix`)."""
    pairs = dict(zip(map(frozenset, RACE_PAIRS), PAPER.race_overlaps))
    return constant_overlap_matrix(
        X, modes, PAPER.race_overlaps[0], pairs=pairs, top=PAPER.race_overlap_top
    )


def authors_race(ds, net_mixed: GatedNetwork, *, lr: float, epochs: int) -> ModeRace:
    """Fig. 4a's printed curve: race.py's per-mode race on the Section 4 task ``ds``
    and its mixed one-way ReLN.  Defined for the pages book/contexts.md and
    book/authors_code.md."""
    X, Y = ds.X, ds.Y
    Wc, R = authors_common_race(X, Y, PAPER.race_a0_common, lr=lr, epochs=epochs)
    modes = pathway_modes(net_mixed, X, R)
    return mode_race(
        X, Y, R, modes, race_py_overlaps(X, modes), a0=PAPER.race_a0_context,
        common_map=Wc, a0_common=PAPER.race_a0_common, lr=lr, epochs=epochs,
    )  # fmt: skip
