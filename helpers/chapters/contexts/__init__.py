"""Analyses of the Section 4 contextual task (C = 3, hierarchy / ring / cross;
[conv-contextual]).

What the contexts chapter measures beyond training (``helpers.core.engine``), the ReLN
builder (``helpers.core.relns``) and the matrix race (``helpers.core.race``):

* the **mode race** of Eq. 6 in its diagonal form (Appendix F): the context pathways'
  modes on the common pathway's residual, coupled by overlap coefficients that are
  either derived from the data (:func:`overlap_matrix`) or set to one constant
  (:func:`constant_overlap_matrix`, the authors' hand-set -0.45, [conv-constants]);
* the effective mode strength ``u^T W_p(t) v`` of a simulated or predicted pathway map
  (:func:`mode_projections`);
* representations: classical MDS and three correspondence measures (RSA, linear CKA,
  Procrustes disparity of the MDS configurations) for Fig. 4c;
* the ReLU network's gating: census over training, how consistently its units gate by
  context, which units produce which output block;
* loss-curve gaps localised in time, with the floor of
  :func:`helpers.core.measures.curve_distance`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from ...book.rulebook import verdict
from ...core.checks import check_epochs, check_positive, check_xy
from ...core.datasets import effective_dataset
from ...core.engine import GatedNetwork, train
from ...core.linear import closed_form_map
from ...core.measures import (
    Evidence,
    bootstrap_interval,
    census_over_training,
    context_patterns,
    functional_census,
    gate_consistency,
    gating_census,
    level_times,
    match,
    output_gap,
    snap_to_contexts,
    time_gap,
    unit_weight,
)
from ...core.race import predict, race_pathways
from ...core.relns import pathway_pattern

__all__ = [
    "PathwayModes",
    "pathway_modes",
    "overlap_matrix",
    "constant_overlap_matrix",
    "partner_overlaps",
    "ModeRace",
    "mode_race",
    "authors_common_race",
    "mode_projections",
    "equivalent_initial_strength",
    "log_gap",
    "windowed_gap",
    "classical_mds",
    "representation_similarity",
    "unit_groups",
    "group_maps",
    "census_over_training",
    "gate_consistency",
    "output_division",
    "pathway_norm_ratio",
    "RELN_RECORDS",
    "train_relns",
    "median_gap",
    "pairwise_gap",
    "level_log_ratio",
    "output_gaps_at",
    "singular_values_over_training",
    "learned_in_order",
    "SIMILARITY_METRICS",
    "similarity_over_training",
    "next_seed",
    "census_seeds",
    "final_pattern_shares",
    "threshold_sensitivity",
    "functional_census_seeds",
    "pathway_output_share",
    "class_output_share",
    "STRATEGIES",
    "SAME_STRATEGY",
    "family_match",
    "init_table",
    "output_gap_match",
    "output_gap_spread",
    "strict_context_census",
    "ablate_class",
    "ablation_control",
    "pathway_energy_share",
    "unit_class",
    "division_by_class",
    "division_of_labour",
    "nanmed",
    "top_mode_strengths",
    "head_start_strengths",
    "LadderRow",
    "ladder",
    "plots",
    "report",
    "pathway_table",
    "loss_table",
    "threshold_table",
    "overlap_table",
    "ladder_table",
]


# --------------------------------------------------------------------------------------
# Effective datasets and overlaps (Eqs. 4-6, Appendix F)


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


# --------------------------------------------------------------------------------------
# The diagonal mode race (Eq. 6, Appendix F)


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


# --------------------------------------------------------------------------------------
# Loss-curve gaps localised in time


def log_gap(La, Lb, floor_frac: float = 1e-3) -> np.ndarray:
    """``|log max(L_a, f) - log max(L_b, f)|`` per epoch, ``f = floor_frac L_a(0)``: the
    integrand of :func:`helpers.core.measures.curve_distance` (its mean over epochs)."""
    La = np.asarray(La, float)
    Lb = np.asarray(Lb, float)
    if La.shape != Lb.shape or La.ndim != 1:
        raise ValueError(
            f"log_gap needs two 1-D curves of equal length, got {La.shape} and "
            f"{Lb.shape}"
        )
    f = floor_frac * La[0]
    if not f > 0:
        raise ValueError(f"log_gap: L_a(0) must be positive, got {La[0]}")
    return np.abs(np.log(np.maximum(La, f)) - np.log(np.maximum(Lb, f)))


def windowed_gap(La, Lb, edges: Sequence[int], floor_frac: float = 1e-3) -> np.ndarray:
    """Share of the curve distance contributed by each window ``[edges[k], edges[k+1])``
    of epochs: the windows' contributions sum to ``curve_distance(La, Lb)`` when the
    edges cover every epoch."""
    g = log_gap(La, Lb, floor_frac)
    e = np.asarray(edges, int)
    if (
        e.ndim != 1
        or e.size < 2
        or np.any(np.diff(e) <= 0)
        or e[0] < 0
        or e[-1] > g.size
    ):
        raise ValueError(f"edges must increase within 0..{g.size}, got {list(edges)}")
    return np.array([g[a:b].sum() / g.size for a, b in zip(e[:-1], e[1:])])


# --------------------------------------------------------------------------------------
# Representations (Fig. 4c)


def _check_rep(H, what):
    H = np.asarray(H, float)
    if H.ndim != 2 or H.shape[1] < 3:
        raise ValueError(
            f"{what} must be units x datapoints with at least 3 datapoints, got "
            f"{H.shape}"
        )
    if not np.all(np.isfinite(H)):
        raise ValueError(f"{what} must be finite")
    return H


def _sq_dists(H):
    g = np.sum(H**2, axis=0)
    return np.maximum(g[:, None] + g[None, :] - 2 * H.T @ H, 0.0)


def classical_mds(H, k: int = 2):
    """Classical (Torgerson) MDS of the datapoints' representations ``H`` (units x P).

    Returns ``(Z, explained)``: ``Z`` (P x k) the coordinates, ``explained`` the share
    of the centred Gram matrix's positive eigenvalue mass the ``k`` dimensions hold.
    """
    H = _check_rep(H, "H")
    if not 1 <= k < H.shape[1]:
        raise ValueError(f"k must lie in 1..{H.shape[1] - 1}, got {k}")
    D2 = _sq_dists(H)
    n = D2.shape[0]
    J = np.eye(n) - 1.0 / n
    B = -0.5 * J @ D2 @ J
    w, V = np.linalg.eigh(B)
    order = np.argsort(w)[::-1]
    w, V = w[order], V[:, order]
    pos = np.maximum(w, 0)
    Z = V[:, :k] * np.sqrt(pos[:k])
    # a sign convention that keeps figures stable: the largest coordinate of each axis
    # positive
    flip = np.sign(Z[np.abs(Z).argmax(axis=0), np.arange(k)])
    flip[flip == 0] = 1
    explained = float(pos[:k].sum() / pos.sum()) if pos.sum() > 0 else 0.0
    return Z * flip, explained


def _procrustes(A, B):
    """Disparity of B fitted to A by translation, rotation/reflection and scale (both
    standardised to unit Frobenius norm), and B so fitted."""
    A = A - A.mean(0)
    B = B - B.mean(0)
    na, nb = np.linalg.norm(A), np.linalg.norm(B)
    if na == 0 or nb == 0:
        raise ValueError("procrustes: a configuration has all points equal")
    A, B = A / na, B / nb
    U, s, Vt = np.linalg.svd(B.T @ A)
    R = U @ Vt
    Bf = s.sum() * B @ R
    return float(np.sum((A - Bf) ** 2)), Bf * na


def representation_similarity(Ha, Hb, k: int = 2) -> dict:
    """How alike two networks' representations of the same datapoints are (Fig. 4c).

    ``Ha``, ``Hb``: units x P (any numbers of units).  Returns ``rsa``: Pearson
    correlation of the two sets of pairwise Euclidean distances (1 = same geometry up to
    scale); ``cka``: linear CKA of the centred Gram matrices; ``procrustes``: disparity
    (0 = identical, 1 = unrelated) of the two ``k``-D classical-MDS configurations after
    the best translation, rotation/reflection and scaling; ``aligned``: ``Hb``'s MDS
    configuration so aligned onto ``Ha``'s (for plotting).
    """
    Ha = _check_rep(Ha, "Ha")
    Hb = _check_rep(Hb, "Hb")
    if Ha.shape[1] != Hb.shape[1]:
        raise ValueError(
            f"the two representations cover {Ha.shape[1]} and {Hb.shape[1]} datapoints"
        )
    iu = np.triu_indices(Ha.shape[1], 1)
    da, db = np.sqrt(_sq_dists(Ha)[iu]), np.sqrt(_sq_dists(Hb)[iu])
    rsa = (
        float(np.corrcoef(da, db)[0, 1])
        if da.std() > 0 and db.std() > 0
        else float("nan")
    )
    Ka = (Ha - Ha.mean(1, keepdims=True)).T
    Kb = (Hb - Hb.mean(1, keepdims=True)).T
    Ka, Kb = Ka @ Ka.T, Kb @ Kb.T
    den = np.sqrt(np.sum(Ka * Ka) * np.sum(Kb * Kb))
    cka = float(np.sum(Ka * Kb) / den) if den > 0 else float("nan")
    Za, _ = classical_mds(Ha, k)
    Zb, _ = classical_mds(Hb, k)
    disp, aligned = _procrustes(Za, Zb)
    return {
        "rsa": rsa,
        "cka": cka,
        "procrustes": disp,
        "mds_a": Za,
        "aligned": aligned + Za.mean(0),
    }


# --------------------------------------------------------------------------------------
# The ReLU network's gating (census over training, consistency, division of labour)


def unit_groups(
    gates, contexts, n_contexts: int, threshold: float = 0.5
) -> dict[str, np.ndarray]:
    """Hidden units grouped by their context pattern
    (:func:`helpers.core.measures.context_patterns`):
    ``{'110': unit indices, ...}``."""
    pats, _ = context_patterns(gates, contexts, n_contexts, threshold)
    groups: dict[str, list] = {}
    for j, p in enumerate(pats):
        groups.setdefault(p, []).append(j)
    return {p: np.asarray(v, int) for p, v in sorted(groups.items())}


def group_maps(W1, W2, groups: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The map ``W2[:, G] W1[G, :]`` of each group of hidden units; ``W1`` ``(..., H,
    d)``,
    ``W2`` ``(..., p, H)`` (leading axes, e.g. recorded epochs, broadcast)."""
    W1 = np.asarray(W1, float)
    W2 = np.asarray(W2, float)
    if W1.shape[-2] != W2.shape[-1]:
        raise ValueError(f"W1 has {W1.shape[-2]} hidden units, W2 {W2.shape[-1]}")
    return {g: W2[..., :, idx] @ W1[..., idx, :] for g, idx in groups.items()}


def output_division(
    W2, H, groups: Mapping[str, np.ndarray | slice], Y, block_rows: Sequence[slice]
) -> dict:
    """Which units produce which output block: for each group ``G`` and block ``b``,
    ``<W2[b, G] H[G], Y[b]> / ||Y[b]||^2`` (the group's share of the target block; the
    shares of all groups sum to the network's fit of the block)."""
    W2 = np.asarray(W2, float)
    H = np.asarray(H, float)
    Y = np.asarray(Y, float)
    if (
        W2.shape[1] != H.shape[0]
        or W2.shape[0] != Y.shape[0]
        or H.shape[1] != Y.shape[1]
    ):
        raise ValueError(
            f"shapes do not chain: W2 {W2.shape}, H {H.shape}, Y {Y.shape}"
        )
    out = {}
    for g, idx in groups.items():
        Yg = W2[:, idx] @ H[idx]
        out[g] = np.array(
            [np.sum(Yg[b] * Y[b]) / max(np.sum(Y[b] ** 2), 1e-300) for b in block_rows]
        )
    return out


def pathway_norm_ratio(
    maps: Mapping[str, np.ndarray], numerator: Sequence[str], denominator: Sequence[str]
) -> np.ndarray:
    """``sqrt(sum_num ||W_p||_F^2) / sqrt(sum_den ||W_q||_F^2)`` over the last two axes
    (leading axes, e.g. epochs, kept): e.g. single-context over 2-of-3 pathways."""
    if not numerator or not denominator:
        raise ValueError(
            "pathway_norm_ratio needs pathways in both the numerator and the "
            "denominator"
        )
    missing = [n for n in (*numerator, *denominator) if n not in maps]
    if missing:
        raise ValueError(f"no maps for {missing}; have {list(maps)}")
    num = np.sqrt(
        sum(np.sum(np.asarray(maps[n], float) ** 2, axis=(-2, -1)) for n in numerator)
    )
    den = np.sqrt(
        sum(np.sum(np.asarray(maps[n], float) ** 2, axis=(-2, -1)) for n in denominator)
    )
    return num / den


# --------------------------------------------------------------------------------------
# The chapter's reductions over seeds (what the page shows, computed once here)

#: What each ReLN of Fig. 4a records beside its loss.
RELN_RECORDS = {
    "both/one-way": ("weights", "hidden", "outputs"),
    "both/full": ("weights", "hidden"),
    "mixed/one-way": ("weights",),
    "single/one-way": ("weights", "hidden", "outputs"),
}


def train_relns(
    start: Callable, init: str, X, Y, *, lr, epochs, seeds, record_epochs, progress=None
) -> tuple[dict, dict]:
    """Train the four ReLNs of Fig. 4a (:data:`RELN_RECORDS`, keys ``kind/coupling``),
    each started by ``start(kind, coupling, init)`` -> ``(net, params0)``, and integrate
    the race prediction of each ([conv-init], [conv-race]).  Returns ``(runs, preds)``.
    """
    runs, preds = {}, {}
    for key, what in RELN_RECORDS.items():
        if progress is not None:
            progress(f"contexts: ReLN {key}")
        net, p0 = start(*key.split("/"), init)
        runs[key] = train(
            net,
            X,
            Y,
            lr=lr,
            epochs=epochs,
            seeds=seeds,
            record_epochs=record_epochs,
            record=what,
            params0=p0,
        )
        preds[key] = predict(
            net, X, Y, lr=lr, epochs=epochs, record_epochs=record_epochs
        )
    return runs, preds


#: The family of candidate ReLNs of Section 4 ([rulebook-best]): the common pathway
#: with k of the three context pathways on in k contexts, by the kind of
#: :func:`helpers.core.relns.context_reln`.  k = 3 is the common pathway alone: a
#: pathway on in every context is a second common pathway, which, trained one-way on
#: the common pathway's residual, learns nothing the common one has not.  "both" is the
#: mixture the census points to and the ReLN the authors ran (3_context_diff/gdln.py).
STRATEGIES = {
    "both": "7 pathways (Fig. 4a)",
    "mixed": "common + 2-of-3",
    "single": "common + single-context",
    "common": "common alone (k = 3)",
}
#: The 7-pathway ReLN and the common + 2-of-3 ReLN are one strategy (the single-context
#: pathways of the first stay idle, Proposition 4.2): neither is the other's competitor.
SAME_STRATEGY = {"both": "mixed", "mixed": "both"}


def family_match(reference, curves: Mapping, kind: str):
    """:func:`helpers.core.measures.match` of the ReLN ``kind`` (a key of
    :data:`STRATEGIES`) to the ``reference`` losses, with every other strategy of
    ``curves`` (``{kind: (seeds, T)}``) as a competitor (contexts chapter,
    ``gap_relu_reln`` and ``init_sensitivity``)."""
    if kind not in curves:
        raise ValueError(f"no curves for {kind!r}; have {list(curves)}")
    rivals = {
        STRATEGIES[k]: v
        for k, v in curves.items()
        if k != kind and k != SAME_STRATEGY.get(kind)
    }
    alternative = STRATEGIES["single"] if kind != "single" else None
    return match(
        reference,
        curves[kind],
        competitors=rivals,
        name=STRATEGIES[kind],
        paper_alternative=alternative if alternative in rivals else None,
    )


def init_table(sens: Mapping, reference) -> dict:
    """Per initialisation of the ReLNs ([conv-init]), from ``sens`` (``{init:
    {kind: family_match, "curves": {kind: (seeds, T)}}}``): the time gaps of each
    strategy to the ``reference`` (the ReLU network's losses), the 7-pathway ReLN's
    seed spread, and the verdict the rulebook gives under that start to the 7-pathway
    and the 2-of-3 ReLN ("excellent agreement") and to the single-context ReLN
    ("a clear deviation", ``beyond_noise``) (contexts chapter, ``init_sensitivity``).
    """
    return {
        init: {
            "gap_7_pathways": d["both"].value,
            "gap_2_of_3": d["mixed"].value,
            "gap_single_context": d["single"].value,
            "gap_common_alone": d["common"].value,
            "spread": d["both"].spread,
            "verdict_7_pathways": verdict(d["both"]),
            "verdict_2_of_3": verdict(d["mixed"]),
            "verdict_single_context": verdict(
                match(reference, d["curves"]["single"]), criterion="beyond_noise"
            ),
        }
        for init, d in sens.items()
    }


def median_gap(A, B) -> float:
    """:func:`helpers.core.measures.time_gap` of ``A[s]`` against ``B[s]``, median over
    seeds ``s`` (``B`` may be one curve for every seed; [conv-measures])."""
    B = np.broadcast_to(B, np.shape(A))
    return float(np.median([time_gap(a, b) for a, b in zip(A, B)]))


def pairwise_gap(curves) -> float:
    """:func:`helpers.core.measures.time_gap` between every pair of runs ``a < b``,
    median (the seed spread of one network; [conv-measures])."""
    S = len(curves)
    return float(
        np.median(
            [time_gap(curves[a], curves[b]) for a in range(S) for b in range(a + 1, S)]
        )
    )


def level_log_ratio(La, Lb) -> np.ndarray:
    """``ln(t_b / t_a)`` at each loss level of :data:`helpers.core.measures.LEVELS`,
    median over seeds: where in time curve ``b`` lags curve ``a``."""
    return np.median(
        [np.log(level_times(b) / level_times(a)) for a, b in zip(La, Lb)], axis=0
    )


def output_gaps_at(reference, candidates: Mapping, epochs: Sequence[int]) -> dict:
    """Output gaps ([conv-output-gap]) at each of ``epochs``: ``{"seed": {e: gaps}}``
    between the reference's own seeds, and ``{name: {e: gaps}}`` of the reference
    against each candidate run (every seed against every seed).  Runs record
    ``outputs`` ``(S, R, p, P)`` and map epochs to records by ``index``."""

    def at(run, e):
        return list(run.records["outputs"][:, run.index(e)])

    out = {"seed": {e: output_gap(at(reference, e)) for e in epochs}}
    for name, run in candidates.items():
        out[name] = {e: output_gap(at(reference, e), at(run, e)) for e in epochs}
    return out


def output_gap_spread(runs: Sequence, epochs: Sequence[int]) -> dict:
    """The two-sample yardstick of the output gap ([rulebook-noise], [conv-output-gap]):
    for each run (the reference and a stochastic candidate, each recording
    ``outputs``), the matrix over its seeds ``(a, b)`` of the output gap of ``a`` to
    ``b``, mean over ``epochs``; ``spread``: the larger of the sides' medians over
    pairs, ``interval``: its 90 % bootstrap interval over seeds, ``sides``: each side's
    median (contexts chapter, ``output_gap``)."""
    mats = []
    for run in runs:
        outs = run.records["outputs"]
        S = outs.shape[0]
        D = np.zeros((S, S))
        for a in range(S):
            for b in range(a + 1, S):
                D[a, b] = D[b, a] = np.mean(
                    [
                        output_gap([outs[a, run.index(e)]], [outs[b, run.index(e)]])[0]
                        for e in epochs
                    ]
                )
        mats.append(D)
    sides = [float(np.median(D[np.triu_indices(len(D), 1)])) for D in mats]
    return {
        "spread": max(sides),
        "interval": bootstrap_interval(*mats),
        "sides": sides,
    }


def output_gap_match(gaps: Mapping, spread: Mapping, by_epoch=None) -> Evidence:
    """The evidence of "excellent agreement across all ... outputs" (contexts chapter,
    ``output_gap``): the median output gap to the ReLN (``gaps``:
    :func:`output_gaps_at` with candidates ``reln`` and ``single``), mean over the
    epochs, against the two-sample spread of the same mean (``spread``:
    :func:`output_gap_spread`); the alternative is the single-context ReLN.
    ``by_epoch`` (``{epoch: output_gap_spread at that epoch}``) adds each epoch read
    alone as a variant of the window."""
    epochs = list(gaps["reln"])

    def at(name, e):
        return float(np.median(gaps[name][e]))

    mean = {n: float(np.mean([at(n, e) for e in epochs])) for n in ("reln", "single")}
    ev = Evidence(
        mean["reln"],
        spread["spread"],
        mean["single"],
        (mean["reln"],),
        spread_interval=spread["interval"],
        spread_candidate=spread["sides"][1],
        criterion="seed_noise",
    )
    if not by_epoch:
        return ev
    return ev.varied(
        "window",
        {
            f"epoch {e} alone": Evidence(
                at("reln", e),
                s["spread"],
                at("single", e),
                spread_interval=s["interval"],
                spread_candidate=s["sides"][1],
                criterion="seed_noise",
            )
            for e, s in by_epoch.items()
        },
    )


def singular_values_over_training(run, pred, k: int) -> tuple[dict, dict, dict]:
    """The top ``k`` singular values of each pathway's map over training: simulated
    ``{name: (S, R, k)}`` and predicted ``{name: (R, k)}``, and their largest
    difference relative to the simulated pathway's largest value ``{name: (S,)}``."""
    S = run.loss.shape[0]
    sim = {
        n: np.stack(
            [
                np.linalg.svd(run.pathway_maps(s)[n], compute_uv=False)[:, :k]
                for s in range(S)
            ]
        )
        for n in pred.names
    }
    pr = {n: pred.singular_values(n)[:, :k] for n in pred.names}
    err = {
        n: np.array(
            [np.abs(sim[n][s] - pr[n]).max() / sim[n][s].max() for s in range(S)]
        )
        for n in pred.names
    }
    return sim, pr, err


def learned_in_order(sv, epochs, frac: float = 0.1) -> bool:
    """Whether the singular values above ``frac`` times the largest (``sv`` ``(R, k)``,
    sorted by final size) reach half their final value in order of final size."""
    final = sv[-1]
    keep = final > frac * final.max()
    t_half = np.array(
        [epochs[np.argmax(sv[:, a] >= 0.5 * final[a])] for a in np.flatnonzero(keep)]
    )
    return bool(np.all(np.diff(t_half) >= 0))


SIMILARITY_METRICS = ("rsa", "cka", "procrustes")


def similarity_over_training(H_ref, others: Mapping) -> dict:
    """:func:`representation_similarity` of the reference's hidden representations
    (``(S, R, H, P)``) against each of ``others`` (same shape), seed by seed and record
    by record: ``{name: {metric: (S, R)}}``, NaN at record 0 (two unrelated random
    inits)."""
    S, R = H_ref.shape[:2]
    out = {
        name: {m: np.full((S, R), np.nan) for m in SIMILARITY_METRICS}
        for name in others
    }
    for s in range(S):
        for r in range(1, R):
            for name, other in others.items():
                v = representation_similarity(H_ref[s, r], other[s, r])
                for m in SIMILARITY_METRICS:
                    out[name][m][s, r] = v[m]
    return out


def next_seed(H) -> np.ndarray:
    """The runs rolled by one seed (run ``s`` paired with run ``s + 1``): the
    reference's own seeds as a comparison."""
    return np.roll(np.asarray(H), -1, axis=0)


def census_seeds(G, W1, W2, contexts, n_contexts: int) -> dict:
    """:func:`census_over_training` of every seed (``G`` ``(S, R, H, P)``, ``W1``,
    ``W2`` likewise): ``{class: (S, R)}``."""
    cens = [
        census_over_training(G[s], W1[s], W2[s], contexts, n_contexts)
        for s in range(len(G))
    ]
    return {k: np.stack([c[k] for c in cens]) for k in cens[0]}


def final_pattern_shares(G, W1, W2, contexts, n_contexts: int, patterns) -> dict:
    """The weight share of each of ``patterns`` at the last record, median over
    seeds ([conv-census])."""
    final = [
        gating_census(G[s, -1], W1[s, -1], W2[s, -1], contexts, n_contexts)["patterns"]
        for s in range(len(G))
    ]
    return {p: float(np.median([fp.get(p, 0.0) for fp in final])) for p in patterns}


def threshold_sensitivity(G, W1, W2, contexts, n_contexts: int, thresholds) -> dict:
    """``{threshold: (common + 2-of-3 share, single-context share)}`` at the last
    record, median over seeds, for each "on" threshold of the census."""
    out = {}
    for thr in thresholds:
        shares = []
        for s in range(len(G)):
            c = gating_census(
                G[s, -1], W1[s, -1], W2[s, -1], contexts, n_contexts, threshold=thr
            )
            shares.append((c["common"] + c["mixed"], c["single"]))
        out[thr] = np.median(shares, axis=0)
    return out


def functional_census_seeds(W1, W2, X, contexts, n_contexts: int) -> dict:
    """:func:`helpers.core.measures.functional_census` at every record of every seed
    (``W1`` ``(S, R, H, d)``, ``W2`` ``(S, R, p, H)``): ``{key: (S, R)}``."""
    cens = [
        [
            functional_census(W1[s, r], W2[s, r], X, contexts, n_contexts)
            for r in range(W1.shape[1])
        ]
        for s in range(W1.shape[0])
    ]
    return {k: np.array([[c[k] for c in row] for row in cens]) for k in cens[0][0]}


def pathway_output_share(W2, H, pathways: Mapping, names) -> float:
    """Share of a ReLN's output produced by the pathways ``names``, median over seeds:
    ``sum_names ||W2[:, p] H[p]|| / sum_all ||W2[:, p] H[p]||`` (``W2`` ``(S, p, H)``,
    ``H`` ``(S, H, P)`` at one epoch; ``pathways`` name -> slice of hidden units)."""
    part = lambda s, sl: np.linalg.norm(W2[s][:, sl] @ H[s][sl])  # noqa: E731
    return float(
        np.median(
            [
                sum(part(s, pathways[n]) for n in names)
                / sum(part(s, sl) for sl in pathways.values())
                for s in range(len(W2))
            ]
        )
    )


def pathway_energy_share(W2, H, Yhat, pathways: Mapping, names) -> float:
    """Share of the output's energy in the summed contribution of the pathways
    ``names``, median over seeds (``Yhat`` ``(S, p, P)``, the network's output)."""
    return float(
        np.median(
            [
                np.sum(
                    sum(W2[s][:, pathways[n]] @ H[s][pathways[n]] for n in names) ** 2
                )
                / np.sum(Yhat[s] ** 2)
                for s in range(len(W2))
            ]
        )
    )


def class_output_share(W2, H, pathways: Mapping, classes: Mapping, name: str) -> float:
    """Share of a ReLN's output produced by the class ``name`` of pathways, median over
    seeds, measured as :func:`helpers.core.measures.functional_census` measures the
    ReLU network's classes: the norm of the class's *summed* contribution over the sum
    of the classes' norms (``W2`` ``(S, p, H)``, ``H`` ``(S, H, P)`` at one epoch;
    ``pathways`` name -> slice of hidden units; ``classes`` class -> pathway names).
    Used for the single-context ReLN's share, the alternative of
    ``contexts.single_context_share`` (contexts chapter)."""
    if name not in classes:
        raise ValueError(f"no class {name!r}; have {list(classes)}")

    def part(s, names):
        return np.linalg.norm(
            sum(W2[s][:, pathways[n]] @ H[s][pathways[n]] for n in names)
        )

    return float(
        np.median(
            [
                part(s, classes[name]) / sum(part(s, v) for v in classes.values())
                for s in range(len(W2))
            ]
        )
    )


def strict_context_census(gates, W1, W2, contexts, n_contexts: int) -> dict:
    """The gating census counted strictly, at one record (contexts chapter, "The ReLU
    network's own gating"): ``context_level``, the weight share of units whose gates
    are all-or-none in every context (and on somewhere), the only units a ReLN's
    context-level gates describe exactly; ``one_context_only``, the weight share of
    units active, for any item, in exactly one context (the literal reading of "context
    specific").  ``gates`` ``H x P``; weights as in the census ([conv-census])."""
    G = np.asarray(gates, bool)
    contexts = np.asarray(contexts)
    w = unit_weight(W1, W2)
    total = w.sum()
    if total <= 0:
        raise ValueError("strict_context_census: every unit has zero weight")
    per = [G[:, contexts == c] for c in range(n_contexts)]
    any_on = np.stack([g.any(axis=1) for g in per], axis=1)
    all_or_none = np.all([g.all(axis=1) | ~g.any(axis=1) for g in per], axis=0)
    level = all_or_none & any_on.any(axis=1)
    one = any_on.sum(axis=1) == 1
    return {
        "context_level": float(w[level].sum() / total),
        "one_context_only": float(w[one].sum() / total),
    }


def _snapped_classes(W1, X, contexts, n_contexts: int):
    """The pre-activations ``W1 X`` and each unit's class of the functional census
    (every unit snapped to its nearest context-level gate, [conv-census]):
    ``{"common", "mixed", "single"}`` -> boolean mask over units."""
    pre = W1 @ X
    G = snap_to_contexts(pre > 0, contexts, n_contexts)
    on = np.stack(
        [G[:, np.asarray(contexts) == c].max(axis=1) for c in range(n_contexts)], axis=1
    )
    k = on.sum(axis=1)
    masks = {"common": k == n_contexts, "mixed": k == n_contexts - 1, "single": k == 1}
    return pre, masks


def _loss_keeping(W2, pre, Y, keep) -> float:
    """The summed loss of ``W2 relu(pre)`` with only the units ``keep``."""
    return 0.5 * float(np.sum((Y - W2[:, keep] @ np.maximum(pre[keep], 0)) ** 2))


def ablate_class(W1, W2, X, Y, contexts, n_contexts: int, cls: str = "single") -> dict:
    """The summed loss of a one-hidden-layer ReLU network before and after removing the
    units of one class of the functional census.

    Defined for the page book/contexts.md (``single_context_ablation``).

    Args:
        W1, W2: the network's weights, ``(H, d)`` and ``(p, H)``; the network is
            ``W2 relu(W1 X)``.
        X, Y: inputs ``(d, P)`` and targets ``(p, P)``.
        contexts: the context of each datapoint, ``(P,)``.
        n_contexts: the number of contexts.
        cls: the class removed, ``common``, ``mixed`` (on in C-1 of C) or ``single``,
            after every unit is snapped to its nearest context-level gate
            ([conv-census]).

    Returns:
        ``{"loss": the summed loss, "ablated": the same without the class,
        "share_units": the fraction of units removed}``.
    """
    W1, W2, X, Y = (np.asarray(a, float) for a in (W1, W2, X, Y))
    pre, masks = _snapped_classes(W1, X, contexts, n_contexts)
    if cls not in masks:
        raise ValueError(f"cls must be one of {list(masks)}, got {cls!r}")
    keep = ~masks[cls]
    return {
        "loss": _loss_keeping(W2, pre, Y, np.ones_like(keep)),
        "ablated": _loss_keeping(W2, pre, Y, keep),
        "share_units": float(1 - keep.mean()),
    }


def ablation_control(
    W1,
    W2,
    X,
    Y,
    contexts,
    n_contexts: int,
    *,
    draws: int,
    seed: int,
    cls: str = "single",
    pool: str = "mixed",
) -> dict:
    """The control of :func:`ablate_class`: remove random units of another class that
    carry as much weight as the class removed there.

    Defined for the page book/contexts.md (``single_context_ablation``). Each draw
    orders the units of ``pool`` at random and removes the shortest run of them from
    the start whose summed weight ``|W2[:, j]| |W1[j, :]|`` ([conv-census]) comes
    nearest to that of the class ``cls`` (one unit fewer where that is nearer).

    Args:
        W1, W2, X, Y, contexts, n_contexts: as for :func:`ablate_class`.
        draws: how many random sets are drawn (at least 1).
        seed: the seed of the draws (``numpy.random.default_rng(seed)``).
        cls: the class whose removal is controlled for (``single`` by default).
        pool: the class the random units come from (``mixed``: on in C-1 of C).

    Returns:
        ``{"ablated": the summed loss without the random units, median over draws,
        "ablated_draws": (draws,) losses, "weight_ratio": the removed weight over
        ``cls``'s weight, median over draws, "share_units": the fraction of units
        removed, median over draws, "enough": whether ``pool`` holds at least as much
        weight as ``cls``}``.
    """
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)):
        raise ValueError(f"draws must be an integer >= 1, got {draws!r}")
    if draws < 1:
        raise ValueError(f"draws must be an integer >= 1, got {draws}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    W1, W2, X, Y = (np.asarray(a, float) for a in (W1, W2, X, Y))
    pre, masks = _snapped_classes(W1, X, contexts, n_contexts)
    for name, c in (("cls", cls), ("pool", pool)):
        if c not in masks:
            raise ValueError(f"{name} must be one of {list(masks)}, got {c!r}")
    if cls == pool:
        raise ValueError(f"pool must differ from cls, both are {cls!r}")
    w = unit_weight(W1, W2)
    target = float(w[masks[cls]].sum())
    if target <= 0:
        raise ValueError(f"ablation_control: the class {cls!r} has no weight")
    units = np.flatnonzero(masks[pool])
    rng = np.random.default_rng(int(seed))
    losses, ratios, shares = [], [], []
    for _ in range(int(draws)):
        order = rng.permutation(units)
        total = np.concatenate([[0.0], np.cumsum(w[order])])
        n = int(np.argmin(np.abs(total - target)))
        keep = np.ones(w.shape[0], bool)
        keep[order[:n]] = False
        losses.append(_loss_keeping(W2, pre, Y, keep))
        ratios.append(total[n] / target)
        shares.append(n / w.shape[0])
    return {
        "ablated": float(np.median(losses)),
        "ablated_draws": np.array(losses),
        "weight_ratio": float(np.median(ratios)),
        "share_units": float(np.median(shares)),
        "enough": bool(w[units].sum() >= target),
    }


def unit_class(pattern: str, n_contexts: int) -> str:
    """``common``, ``2-of-3`` (on in C-1 of C), ``single`` or ``other`` for a context
    pattern such as ``'110'``."""
    n_on = pattern.count("1")
    if n_on == n_contexts:
        return "common"
    if n_on == n_contexts - 1:
        return "2-of-3"
    return "single" if n_on == 1 else "other"


def division_by_class(shares: Mapping, n_contexts: int) -> dict:
    """:func:`output_division` shares per pattern summed per :func:`unit_class`."""
    out = {"common": 0.0, "2-of-3": 0.0, "single": 0.0, "other": 0.0}
    for pat, v in shares.items():
        key = unit_class(pat, n_contexts)
        out[key] = out[key] + v
    return out


def division_of_labour(relu, reln, ds, blocks) -> dict:
    """Which units produce which output block at the last record, per class, median
    over seeds: the ReLU network's units grouped by their final context pattern
    against the ReLN's pathways, ``{"ReLU" | "ReLN": {class: (blocks,)}}``."""
    C = ds.n_contexts
    G, (_, W2) = relu.records["gates"][0], relu.records["weights"]
    H_relu, H_reln = relu.records["hidden"][0], reln.records["hidden"][0]
    pw = {pathway_pattern(n, C): sl for n, sl in reln.net.layers[0].pathways}
    div_relu, div_reln = [], []
    for s in range(G.shape[0]):
        groups = unit_groups(G[s, -1], ds.contexts, C)
        shares = output_division(W2[s, -1], H_relu[s, -1], groups, ds.Y, blocks)
        div_relu.append(division_by_class(shares, C))
        W2_reln = reln.records["weights"][1][s, -1]
        shares = output_division(W2_reln, H_reln[s, -1], pw, ds.Y, blocks)
        div_reln.append(division_by_class(shares, C))
    return {
        name: {k: np.median([d[k] for d in D], axis=0) for k in D[0]}
        for name, D in [("ReLU", div_relu), ("ReLN", div_reln)]
    }


def nanmed(v, axis=None):
    """Median over the finite entries (NaN where there are none), without warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmedian(v, axis=axis)


def top_mode_strengths(maps_by_seed, modes: Sequence[PathwayModes], epochs, lr, d):
    """Equivalent initial strength (:func:`equivalent_initial_strength`) of each
    pathway's top mode at each recorded epoch: ``maps_by_seed`` a list over seeds of
    ``{name: (R, p, q)}`` maps; returns ``(S, pathways, R)``."""
    out = []
    for maps in maps_by_seed:
        rows = []
        for p in modes:
            proj = mode_projections(maps[p.name], p)
            rows.append(
                [
                    equivalent_initial_strength(proj[r, 0], p.s[0], d, t, lr)
                    for r, t in enumerate(epochs)
                ]
            )
        out.append(rows)
    return np.array(out, float)


def head_start_strengths(pred_maps, modes, epoch_index, epoch, lr, d, floor):
    """Every residual mode's equivalent initial strength at one epoch of the race
    prediction, concatenated over pathways (``raw``), and the strengths the mode race
    uses: at least ``floor`` (the init's), the init's where none is defined."""
    raw = np.concatenate(
        [
            equivalent_initial_strength(
                mode_projections(pred_maps[p.name], p)[epoch_index], p.s, d, epoch, lr
            )
            for p in modes
        ]
    )
    used = np.where(np.isfinite(raw), np.maximum(raw, floor), floor)
    return raw, used


@dataclass(frozen=True)
class LadderRow:
    """One prediction of the common + 2-of-3 ReLN's loss against its simulation."""

    label: str
    gap: float
    final_loss: float
    fixed_point_loss: float
    loss: np.ndarray


def ladder(
    sim, X, Y, R_star, modes, variants, *, lr, epochs, known=(), matrix_race=None
) -> list[LadderRow]:
    """Every prediction of the common + 2-of-3 ReLN's loss against its simulation.

    Defined for the page book/contexts.md ("Predictions with no tuned constant").

    Args:
        sim: the simulated losses, seeds x T.
        X, Y, R_star, modes: the task, the common pathway's converged residual and the
            context pathways' modes on it (:func:`mode_race`).
        variants: ``(label, overlaps, a0, a0_common)`` each: the mode race under it.
        lr, epochs: the step size and the number of epochs.
        known: ``(label, ModeRace)`` each: races integrated elsewhere (race.py's, on
            its own residual), placed after the variants.
        matrix_race: a loss curve, placed last; its fixed point is zero loss.

    Returns:
        One :class:`LadderRow` per prediction, each held against ``sim`` by
        :func:`median_gap`.
    """
    races = [
        (
            label,
            mode_race(
                X, Y, R_star, modes, O, a0=a0x, a0_common=a0c, lr=lr, epochs=epochs
            ),
        )
        for label, O, a0x, a0c in variants
    ]
    rows = [
        LadderRow(
            label,
            median_gap(sim, mr.loss),
            float(mr.loss[-1]),
            mr.fixed_point_loss,
            mr.loss,
        )
        for label, mr in [*races, *known]
    ]
    if matrix_race is not None:
        rows.append(
            LadderRow(
                "matrix race (helpers.core.race), everything derived",
                median_gap(sim, matrix_race),
                float(matrix_race[-1]),
                0.0,
                matrix_race,
            )
        )
    return rows


from . import plots  # noqa: E402  (the figures use the functions above)
from .report import (  # noqa: E402
    ladder_table,
    loss_table,
    overlap_table,
    pathway_table,
    report,
    threshold_table,
)
