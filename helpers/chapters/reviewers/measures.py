"""The measurements of the page ``book/reviewers.md``: the match, the strategy (the
functional census as the race's outcome), the race's modes and the phases."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...core import relns
from ...core.checks import check_positive
from ...core.datasets import Dataset, effective_dataset
from ...core.engine import GatedNetwork
from ...core.linear import learning_time
from ...core.measures import functional_census, level_times, match
from ...core.race import race_pathways
from ...core.relns import common_fit


def nanmed(values) -> float:
    """The median over seeds without NaNs (a census is NaN while the output is 0)."""
    return float(np.nanmedian(values))


def match_summary(relu_loss, reln_loss, single_loss, multiple: float) -> dict:
    """The match ([conv-measures]): ReLU seeds against the ReLN of the same seeds,
    noise on both sides, the single-context ReLN the alternative.

    ``matches``: gap within ``multiple`` x spread; ``undecided``: that flips within
    the spread's 90 % interval ([rulebook-noise]); ``levels``: levels every ReLU seed
    reaches; ``nearer_verdict``: :func:`nearer_than_half` (``nearer`` if 'below');
    ``alternative_spread(_interval)``: of the ReLU seeds against the alternative's."""
    m = match(relu_loss, reln_loss, alternative=single_loss)
    reached = min(
        int(np.sum(np.isfinite(level_times(L)))) for L in np.atleast_2d(relu_loss)
    )
    lo, hi = m.spread_interval
    out = {
        "value": m.value,
        "spread": m.spread,
        "spread_interval": (float(lo), float(hi)),
        "alternative": m.alternative,
        "matches": bool(m.value <= multiple * m.spread),
        "undecided": bool(multiple * lo < m.value <= multiple * hi),
        "levels": reached,
        "per_seed": list(m.per_seed),
        "match": m,
    }
    a = match(relu_loss, single_loss)
    verdict = nearer_than_half(
        m.value,
        m.alternative,
        (m.spread, *m.spread_interval),
        (a.spread, *a.spread_interval),
        multiple,
    )
    out.update(
        nearer=verdict == "below",
        nearer_verdict=verdict,
        alternative_spread=float(a.spread),
        alternative_spread_interval=tuple(float(v) for v in a.spread_interval),
    )
    return out


def match_fields(m: dict) -> dict:
    """The fields of a :func:`match_summary` that every sweep's record stores."""
    return {
        "match_value": m["value"],
        "match_spread": m["spread"],
        "match_spread_interval": tuple(m["spread_interval"]),
        "match_alternative": m["alternative"],
        "match_alternative_spread": m.get("alternative_spread"),
        "match_nearer": m.get("nearer_verdict"),
    }


def nearer_than_half(
    value: float, alternative: float, spreads, alt_spreads, multiple: float
) -> str:
    """Is the gap ``value`` below half the alternative's, beyond ``multiple`` x the
    noise (the larger spread, [rulebook-noise])?  ``spreads``, ``alt_spreads``:
    ``(spread, low, high)``; ``'below'``/``'not below'`` only if all three agree
    beyond the noise, else ``'undecided'``."""
    margin = 0.5 * float(alternative) - float(value)
    answers = set()
    for s, t in zip(spreads, alt_spreads):
        noise = multiple * max(float(s), float(t))
        answers.add(
            "below" if margin > noise else "not below" if -margin > noise else "noise"
        )
    return (
        answers.pop() if len(answers) == 1 and "noise" not in answers else ("undecided")
    )


def rank_needed(ds: Dataset) -> dict:
    """Hidden units per pathway of the common + C-1-of-C ReLN: the rank of its
    effective dataset ([conv-contextual]; Section 4)."""
    _, R = common_fit(ds)
    net = relns.context_reln(ds, "mixed", "one-way")
    out = {}
    for pw in race_pathways(net, 1.0):
        T = ds.Y if pw.common else R
        _, _, s, _, _ = _pathway_svd(ds.X, T, pw)
        out[pw.name] = int(s.size)
    out["total"] = int(sum(out.values()))
    return out


STRATEGY_CLASSES = ("common", "mixed", "single", "other")


def census_over_training(W1, W2, X, contexts, n_contexts: int) -> dict:
    """``{key: (S, R)}``: :func:`functional_census` of ``W1 (S, R, H, d)``,
    ``W2 (S, R, p, H)``: class shares and ``snap_change`` (NaN while the output is 0).
    """
    W1 = np.asarray(W1, float)
    W2 = np.asarray(W2, float)
    S, R = W1.shape[:2]
    keys = (*STRATEGY_CLASSES, "snap_change")
    out = {k: np.full((S, R), np.nan) for k in keys}
    for s in range(S):
        for r in range(R):
            c = functional_census(W1[s, r], W2[s, r], X, contexts, n_contexts)
            for k in keys:
                out[k][s, r] = c[k]
    return out


def census(ds, W1, W2) -> dict:
    """:func:`census_over_training` on the task ``ds``."""
    return census_over_training(W1, W2, ds.X, ds.contexts, ds.n_contexts)


def strategy(census: dict, index: int = -1) -> dict:
    """The strategy at one record, per seed: the functional shares,
    ``mixed_of_context = mixed / (mixed + single + other)`` and ``winner``, the
    context class that produces most."""
    sh = {
        k: np.asarray(census[k])[:, index] for k in (*STRATEGY_CLASSES, "snap_change")
    }
    ctx = sh["mixed"] + sh["single"] + sh["other"]
    with np.errstate(invalid="ignore", divide="ignore"):
        sh["mixed_of_context"] = np.where(ctx > 0, sh["mixed"] / ctx, np.nan)
    stack = np.stack([sh["mixed"], sh["single"], sh["other"]])
    sh["winner"] = [
        ("mixed", "single", "other")[int(i)] for i in np.argmax(stack, axis=0)
    ]
    return sh


def plateau_share(L) -> np.ndarray:
    """``t(95 %) / t(50 %)`` per curve of ``L`` (``(T,)`` or ``(seeds, T)``): 0.074
    for an exponential decay, near 1 for a plateau then a sigmoidal drop."""
    L = np.atleast_2d(np.asarray(L, float))
    out = []
    for c in L:
        t95, t50 = level_times(c, (0.95, 0.5))
        out.append(t95 / t50 if t50 > 0 else np.nan)
    return np.asarray(out)


def gate_change(gates0, gates1, W1, W2) -> float:
    """Share of ``H x P`` gates that differ between two epochs, weighted by unit
    contribution at the later one ([conv-census])."""
    g0 = np.asarray(gates0, bool)
    g1 = np.asarray(gates1, bool)
    W1, W2 = np.asarray(W1, float), np.asarray(W2, float)
    w = np.linalg.norm(W2, axis=0) * np.linalg.norm(W1, axis=1)
    if w.sum() <= 0:
        raise ValueError("gate_change: every unit has zero weight")
    return float(np.sum((g0 != g1).mean(axis=1) * w) / w.sum())


@dataclass(frozen=True)
class ModeRow:
    """One mode of one pathway's effective dataset, with the epoch Eq. 7 predicts for
    it to reach half of ``s / d`` (``t_half``)."""

    pathway: str
    index: int
    s: float
    d: float
    a0: float
    t_half: float

    @property
    def final(self) -> float:
        return self.s / self.d


def _pathway_svd(X, T, pw, tol=1e-9):
    idx = np.flatnonzero(pw.mask)
    syx, sx = effective_dataset(X, T, pw.gate, inputs=idx)
    U, s, Vt = np.linalg.svd(syx, full_matrices=False)
    keep = s > tol * max(s.max(initial=0.0), 1e-300)
    V = Vt[keep].T
    d = np.einsum("ia,ij,ja->a", V, sx, V)
    return idx, U[:, keep], s[keep], V, d


def mode_table(
    net: GatedNetwork, ds: Dataset, *, lr: float, a0=None, min_share: float = 0.0
) -> list[ModeRow]:
    """Every mode of every pathway of a contextual ReLN (context pathways on the
    common residual; Appendix F, [conv-contextual]), with Eq. 7's half time in
    isolation (no coupling, no head start; the matrix race keeps both).  Modes below
    ``min_share`` of their pathway's largest are left out."""
    lr = check_positive(lr, "lr")
    _, R = common_fit(ds)
    rows = []
    for pw in race_pathways(net, a0):
        T = ds.Y if pw.common else R
        _, _, s, _, d = _pathway_svd(ds.X, T, pw)
        for k, (sk, dk) in enumerate(zip(s, d)):
            if sk < min_share * s[0]:
                continue
            half = 0.5 * sk / dk
            t = float(learning_time(sk, dk, pw.a0, half, lr)) if pw.a0 < half else 0.0
            rows.append(ModeRow(pw.name, k, float(sk), float(dk), float(pw.a0), t))
    return rows


def mode_half_times(
    maps, net: GatedNetwork, ds: Dataset, epochs, rows: Sequence[ModeRow]
) -> np.ndarray:
    """Per mode of ``rows``, the (interpolated) epoch at which ``a(t) = u^T W_p(t) v``
    of ``maps`` ``{name: (R, p, d)}`` reaches half of ``s / d``; NaN if never."""
    _, R = common_fit(ds)
    pws = {p.name: p for p in race_pathways(net)}
    cache = {}
    epochs = np.asarray(epochs, float)
    out = []
    for r in rows:
        if r.pathway not in cache:
            pw = pws[r.pathway]
            idx, U, s, V, d = _pathway_svd(ds.X, ds.Y if pw.common else R, pw)
            Wp = np.asarray(maps[r.pathway], float)[..., idx]
            cache[r.pathway] = np.einsum("oa,toi,ia->ta", U, Wp, V)
        a = cache[r.pathway][:, r.index]
        half = 0.5 * r.final
        hit = np.flatnonzero(a >= half)
        if not hit.size:
            out.append(np.nan)
            continue
        k = int(hit[0])
        if k == 0:
            out.append(float(epochs[0]))
            continue
        a0_, a1_ = a[k - 1], a[k]
        out.append(
            float(
                epochs[k - 1] + (half - a0_) / (a1_ - a0_) * (epochs[k] - epochs[k - 1])
            )
        )
    return np.asarray(out)


def rank_agreement(a, b) -> float:
    """Share of pairs ordered alike by ``a`` and ``b`` (ties and NaNs left out)."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    agree = total = 0
    for i in range(a.size):
        for j in range(i + 1, a.size):
            da, db = a[i] - a[j], b[i] - b[j]
            if not (np.isfinite(da) and np.isfinite(db)) or da == 0 or db == 0:
                continue
            total += 1
            agree += (da > 0) == (db > 0)
    return agree / total if total else float("nan")


def separation(common_maps, context_maps: dict, epochs, done: float = 0.9) -> dict:
    """How separated the common and context phases are (maps ``(R, p, d)``):
    ``t_common``, when the common map is within ``1 - done`` of its final, and
    ``context_at``, the context maps' norm then over their final (0 as Appendix F)."""
    Wc = np.asarray(common_maps, float)
    epochs = np.asarray(epochs)
    rel = np.linalg.norm(Wc - Wc[-1], axis=(1, 2)) / max(np.linalg.norm(Wc[-1]), 1e-300)
    k = int(np.flatnonzero(rel <= 1 - done)[0])
    norm = sum(
        np.linalg.norm(np.asarray(m, float), axis=(1, 2)) for m in context_maps.values()
    )
    return {
        "t_common": int(epochs[k]),
        "context_at": float(norm[k] / max(norm[-1], 1e-300)),
    }


def pathway_top_singular_values(net: GatedNetwork, X, T) -> dict:
    """Each pathway's top singular value of ``Sigma_yx(p)`` (Eq. 4) on targets ``T``."""
    return {
        pw.name: float(
            _pathway_svd(np.asarray(X, float), np.asarray(T, float), pw)[2][0]
        )
        for pw in race_pathways(net, 1.0)
    }


def _pathway_class(pw, n_contexts):
    if pw.common:
        return "common"
    on = int(round(pw.gate.sum() / (pw.gate.size / n_contexts)))
    if on == n_contexts - 1 and n_contexts > 2:
        return "mixed"
    return "single" if on == 1 else "other"


def prediction_shares(
    pred, net: GatedNetwork, X, n_contexts: int, index: int = -1
) -> dict:
    """The functional shares ([conv-census]) of a race prediction at one record, with
    pathways for units."""
    X = np.asarray(X, float)
    parts: dict = {}
    for pw in race_pathways(net, 1.0):
        out = (
            np.asarray(pred.maps[pw.name][index], float) @ (X * pw.mask[:, None])
        ) * pw.gate
        c = _pathway_class(pw, n_contexts)
        parts[c] = parts.get(c, 0.0) + out
    norms = {c: float(np.linalg.norm(v)) for c, v in parts.items()}
    total = sum(norms.values())
    return {c: norms.get(c, 0.0) / total for c in STRATEGY_CLASSES}
