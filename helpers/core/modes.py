"""The ReLN's effective datasets on a target (Eq. 4), the overlaps that couple its
pathways (Eq. 6, Appendix F) and the diagonal mode race they drive
([conv-contextual], [conv-constants]); and race.py's race of Fig. 4a
(:func:`authors_race`).  Shared by the pages book/contexts.md and
book/authors_code.md."""

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
    """The non-zero modes of one pathway's effective dataset (Eq. 4) on a target.

    ``Sigma_yx(p) = U diag(s) V^T`` with ``V`` in the coordinates of the inputs the
    pathway sees (``inputs``, rows of ``X``); ``gate`` is its 0/1 gate over datapoints.
    """

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
    """Modes of the effective datasets (Eq. 4) of ``net``'s pathways on ``target``.

    ``net``: a one-hidden-layer GDLN with fixed gates (its gates and input masks are
    read with :func:`helpers.core.race.race_pathways`); ``target``: the outputs the
    pathways are trained on, e.g. the common pathway's residual ``Y - W* X`` (Appendix
    F).  ``names`` selects pathways (default: every pathway not marked common).  Modes
    with ``s <= tol * s_max`` are dropped.
    """
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
    """The coupling coefficients of the race reduction (Eq. 6), derived from the data.

    ``O[(p, a), (q, b)] = (u_pa . u_qb) (v_pa^T Sigma_x(p, q) v_qb)`` with
    ``Sigma_x(p, q) = sum_i g_p^i g_q^i x_p^i x_q^{iT}`` (Eq. 4): mode ``a`` of pathway
    ``p`` is slowed by mode ``b`` of pathway ``q`` in proportion to ``O a_qb``.  The
    diagonal blocks hold each pathway's input variances ``d_pa = v_pa^T Sigma_x(p, p)
    v_pa`` (orthogonal ``u`` make them diagonal).  Modes are ordered pathway by pathway.
    """
    X = np.asarray(X, float)
    if not pathways:
        raise ValueError("overlap_matrix needs at least one pathway")
    sl, K = _slices(pathways)
    O = np.zeros((K, K))
    dummy = np.zeros((1, X.shape[1]))
    for a, p in enumerate(pathways):
        for b, q in enumerate(pathways):
            # effective_dataset returns Sigma_x(gate_q, gate) as (inputs_q x inputs)
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
    """The overlap matrix of a race solver with hand-set constants ([conv-constants]).

    The diagonal keeps the data's input variances ``d_pa`` (:func:`overlap_matrix`);
    mode ``a`` of pathway ``p`` and mode ``a`` of every other pathway (same index, modes
    ordered by singular value) are coupled by ``value``, or by ``pairs[frozenset({p,
    q})]`` where given, and the two top modes by ``top`` where given; everything else is
    0.  With ``value = -0.45`` alone this is the book's one-constant reading; with the
    pairs and top value of ``3_context_diff/race.py`` (-0.45 for ctx12-ctx23, -0.465 for
    the two pairs with ctx13, -0.49 on the top modes) it is the solver behind Fig. 4's
    predicted curve (contexts chapter, "Predictions with no tuned constant").  In the
    summed-loss units of the book the cross input variance of two 2-of-3 pathways is 1
    (one shared context of one-hot items), so race.py's ``overlap x delta_de`` is the
    overlap itself.
    """
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
    """For each ordered pair of pathways ``(p, q)``, each mode of ``p`` and its partner
    in
    ``q`` (the mode with the largest ``|O|``): the partner coefficient.

    Returns ``{(p, q): array over p's modes}`` and, under ``'top'``, the coefficient
    between the two pathways' top modes (what a solver coupling "mode 1 with mode 1"
    uses).
    """
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
    """Trajectories of the diagonal race: context mode strengths ``a`` ``(T+1, K)``, the
    summed loss of the whole ReLN ``(T+1,)`` and the common pathway's map ``(T+1, p,
    d)``.
    """

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
    """Integrate the neural race reduction (Eq. 6) mode by mode, as in Appendix F.

    One-way coupled ReLN: the common pathway is a linear network on ``(X, Y)`` (Eq. 7,
    :func:`helpers.core.linear.closed_form_map`, initial strength ``a0_common``); the
    context pathways learn ``target`` (the common pathway's converged residual) with
    each map kept on its effective dataset's singular vectors, ``W_p = U_p diag(a_p)
    V_p^T``, and

        tau da_pa/dt = 2 a_pa (s_pa - sum_(q,b) O[(p,a),(q,b)] a_qb),

    one Euler step of size ``lr`` per epoch, like the simulations.  ``a0`` is one number
    or one per mode.  The loss is ``1/2 ||Y - W_c X - sum_p g_p W_p X_p||^2`` at every
    epoch; ``fixed_point_loss`` is the context part's loss at ``a = O^-1 s`` on
    ``target``.  ``common_map`` ``(epochs + 1, p, d)``, where given, replaces Eq. 7's
    common pathway (``a0_common`` is then unused): :func:`authors_common_race`.
    """
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
    # each mode's output pattern on the data: u_pa (v_pa^T x_p^i) g_p^i
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
    """The common pathway as the authors' ``3_context_diff/race.py`` integrates it, and
    the residual its context pathways learn.

    Defined for the page book/contexts.md (the curve Fig. 4a printed).  Each mode of
    ``Sigma_yx = U diag(s) V^T`` grows by one Euler step of Eq. 6 per epoch, ``b += lr
    2 b (s - d b)``, with ``d`` the eigenvalue of ``Sigma_x`` of the same rank (the two
    sorted independently, as race.py pairs them; where Assumption 2.1.1 fails this is
    not ``v^T Sigma_x v``), so the map tends to ``U diag(s / d) V^T`` rather than the
    least-squares ``W*``.

    Args:
        X, Y: inputs ``(d, P)`` and targets ``(p, P)`` (summed-loss units).
        a0: every mode's initial strength (> 0).
        lr: the step size; epochs: the number of steps.

    Returns:
        ``(maps, residual)``: the common map at every epoch ``(epochs + 1, p, d)`` and
        ``Y - U diag(s / d) V^T X``, race.py's target for the context pathways.
    """
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
    """Effective strengths ``u_pa^T W_p(t) v_pa`` of a pathway's maps on its own modes.

    ``maps``: ``(..., p, d)`` with ``d`` all inputs (as from ``Run.pathway_maps`` or
    ``Prediction.maps``); returns ``(..., rank)``.
    """
    W = np.asarray(maps, float)
    if W.shape[-2] != modes.U.shape[0]:
        raise ValueError(
            f"maps have {W.shape[-2]} outputs, the modes {modes.U.shape[0]}"
        )
    Wp = W[..., modes.inputs]
    return np.einsum("oa,...oi,ia->...a", modes.U, Wp, modes.V)


def equivalent_initial_strength(a_t, s, d, t: float, lr: float) -> np.ndarray:
    """The initial strength ``a0`` from which Eq. 7 reaches ``a_t`` at epoch ``t``.

    Inverts ``a(t) = (s/d) / (1 - e + e s/(d a0))``, ``e = exp(-2 s t lr)``:
    ``a0 = e s / (d (s/(d a_t) - 1 + e))``.  Where a mode has grown faster than Eq. 7
    allows from 0 (e.g. it had a head start), this is the ``a0`` a solver that starts
    the mode at ``t = 0`` must use.  Entries with ``a_t`` outside ``(0, s/d)`` give NaN.
    """
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
    """The curve Fig. 4a printed, as this book integrates it: the per-mode race of the
    authors' 3_context_diff/race.py (its common pathway, modes paired by rank, its
    residual and hand-set constants) on the Section 4 task ``ds`` and its mixed,
    one-way ReLN ``net_mixed``.  Defined for the pages book/contexts.md and
    book/authors_code.md."""
    X, Y = ds.X, ds.Y
    Wc, R = authors_common_race(X, Y, PAPER.race_a0_common, lr=lr, epochs=epochs)
    modes = pathway_modes(net_mixed, X, R)
    return mode_race(
        X, Y, R, modes, race_py_overlaps(X, modes), a0=PAPER.race_a0_context,
        common_map=Wc, a0_common=PAPER.race_a0_common, lr=lr, epochs=epochs,
    )  # fmt: skip
