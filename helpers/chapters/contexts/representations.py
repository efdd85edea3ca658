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

    Returns ``(Z, explained)``: ``Z`` (P x k) the coordinates (each axis's largest
    coordinate positive), ``explained`` the share of the centred Gram matrix's positive
    eigenvalue mass the ``k`` dimensions hold.
    """
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
    ok = da.std() > 0 and db.std() > 0
    rsa = float(np.corrcoef(da, db)[0, 1]) if ok else float("nan")
    Ka = (Ha - Ha.mean(1, keepdims=True)).T
    Kb = (Hb - Hb.mean(1, keepdims=True)).T
    Ka, Kb = Ka @ Ka.T, Kb @ Kb.T
    den = np.sqrt(np.sum(Ka * Ka) * np.sum(Kb * Kb))
    cka = float(np.sum(Ka * Kb) / den) if den > 0 else float("nan")
    Za, _ = classical_mds(Ha, k)
    Zb, _ = classical_mds(Hb, k)
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


def next_seed(H) -> np.ndarray:
    """The runs rolled by one seed (run ``s`` paired with run ``s + 1``): the
    reference's own seeds as a comparison."""
    return np.roll(np.asarray(H), -1, axis=0)


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
    to the 7-pathway ReLN's (``reln``), its next seed's and the single-context ReLN's
    (``single``), seed by seed and record by record (NaN at record 0: two unrelated
    random inits).  Defined for the page book/contexts.md."""
    H_relu = relu.records["hidden"][0]
    others = {
        "reln": reln.records["hidden"][0],
        "seed": next_seed(H_relu),
        "single": single.records["hidden"][0],
    }
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
    r = next((r for r in range(1, len(t_rec)) if closer[r:].all()), None)
    return Representations(
        sims, explained, cka, gap, None if r is None else int(t_rec[r])
    )
