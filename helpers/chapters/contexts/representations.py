"""The hidden representations of Fig. 4c: classical MDS and three correspondence
measures (RSA, linear CKA, Procrustes disparity).  Defined for the page
book/contexts.md."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SIMILARITY_METRICS = ("rsa", "cka", "procrustes")


def _check_rep(H, what):
    H = np.asarray(H, float)
    if H.ndim != 2 or H.shape[1] < 3:
        raise ValueError(f"{what} must be units x datapoints (>= 3), got {H.shape}")
    if not np.all(np.isfinite(H)):
        raise ValueError(f"{what} must be finite")
    return H


def _sq_dists(H):
    g = np.sum(H**2, axis=0)
    return np.maximum(g[:, None] + g[None, :] - 2 * H.T @ H, 0.0)


def classical_mds(H, k: int = 2):
    """Classical (Torgerson) MDS of the datapoints' representations ``H`` (units x P).
    Returns ``(Z, explained)``: the coordinates ``(P, k)`` (each axis's largest
    positive) and the share of the positive eigenvalue mass they hold."""
    H = _check_rep(H, "H")
    if not 1 <= k < H.shape[1]:
        raise ValueError(f"k must lie in 1..{H.shape[1] - 1}, got {k}")
    D2 = _sq_dists(H)
    n = D2.shape[0]
    J = np.eye(n) - 1.0 / n
    w, V = np.linalg.eigh(-0.5 * J @ D2 @ J)
    order = np.argsort(w)[::-1]
    w, V = w[order], V[:, order]
    pos = np.maximum(w, 0)
    Z = V[:, :k] * np.sqrt(pos[:k])
    flip = np.sign(Z[np.abs(Z).argmax(axis=0), np.arange(k)])
    flip[flip == 0] = 1
    explained = float(pos[:k].sum() / pos.sum()) if pos.sum() > 0 else 0.0
    return Z * flip, explained


def representation_similarity(Ha, Hb, k: int = 2) -> dict:
    """How alike two networks' representations ``Ha``, ``Hb`` (units x P) of the same
    datapoints are (Fig. 4c): ``rsa`` (correlation of the pairwise distances), ``cka``
    (linear CKA), ``procrustes`` (disparity of the ``k``-D MDS configurations after the
    best similarity transform; 0 = identical), ``mds_a`` (``Ha``'s configuration) and
    ``aligned`` (``Hb``'s aligned onto it)."""
    Ha, Hb = _check_rep(Ha, "Ha"), _check_rep(Hb, "Hb")
    if Ha.shape[1] != Hb.shape[1]:
        raise ValueError(
            f"the two representations cover {Ha.shape[1]} and {Hb.shape[1]} datapoints"
        )
    iu = np.triu_indices(Ha.shape[1], 1)
    da, db = np.sqrt(_sq_dists(Ha)[iu]), np.sqrt(_sq_dists(Hb)[iu])
    ok = da.std() > 0 and db.std() > 0
    rsa = float(np.corrcoef(da, db)[0, 1]) if ok else float("nan")
    Ka, Kb = ((H - H.mean(1, keepdims=True)).T for H in (Ha, Hb))
    Ka, Kb = Ka @ Ka.T, Kb @ Kb.T
    den = np.sqrt(np.sum(Ka * Ka) * np.sum(Kb * Kb))
    cka = float(np.sum(Ka * Kb) / den) if den > 0 else float("nan")
    Za, Zb = (classical_mds(H, k)[0] for H in (Ha, Hb))
    # Procrustes: Zb fitted to Za by translation, rotation/reflection and scale
    A, B = Za - Za.mean(0), Zb - Zb.mean(0)
    na, nb = np.linalg.norm(A), np.linalg.norm(B)
    if na == 0 or nb == 0:
        raise ValueError("procrustes: a configuration has all points equal")
    A, B = A / na, B / nb
    U, s, Vt = np.linalg.svd(B.T @ A)
    Bf = s.sum() * B @ (U @ Vt)
    return {
        "rsa": rsa,
        "cka": cka,
        "procrustes": float(np.sum((A - Bf) ** 2)),
        "mds_a": Za,
        "aligned": Bf * na + Za.mean(0),
    }


@dataclass(frozen=True)
class Representations:
    """The correspondence of the hidden representations over training (Fig. 4c)."""

    sims: dict  # {"reln" | "seed" | "single": {metric: (S, R)}}
    mds_explained: list  # variance share of the 2-D MDS, seed 0, at each shown epoch
    cka_by_epoch: dict  # {name: (R,)} 1 - CKA, median over seeds
    cka_gap: dict  # {name: its mean over the shown epochs}
    single_closer_from: int | None  # the epoch from which the alternative is closer


def compare_representations(relu, reln, single, show_epochs, t_rec) -> Representations:
    """:func:`representation_similarity` of the ReLU network's hidden representations
    to the 7-pathway ReLN's, its next seed's and the single-context ReLN's, seed by
    seed and record by record (NaN at record 0).  Defined for book/contexts.md."""
    H_relu = relu.records["hidden"][0]
    # the next seed: run s paired with run s + 1
    others = {"reln": reln.records["hidden"][0], "seed": np.roll(H_relu, -1, axis=0)}
    others["single"] = single.records["hidden"][0]
    S, R = H_relu.shape[:2]
    sims = {n: {m: np.full((S, R), np.nan) for m in SIMILARITY_METRICS} for n in others}
    for s in range(S):
        for r in range(1, R):
            for name, other in others.items():
                v = representation_similarity(H_relu[s, r], other[s, r])
                for m in SIMILARITY_METRICS:
                    sims[name][m][s, r] = v[m]
    explained = [classical_mds(H_relu[0, relu.index(e)])[1] for e in show_epochs]
    cka = {name: 1 - np.median(v["cka"], axis=0) for name, v in sims.items()}
    gap = {
        name: float(np.mean([v[relu.index(e)] for e in show_epochs]))
        for name, v in cka.items()
    }
    closer = cka["single"] < cka["reln"]
    r = next((int(t_rec[r]) for r in range(1, len(t_rec)) if closer[r:].all()), None)
    return Representations(sims, explained, cka, gap, r)
