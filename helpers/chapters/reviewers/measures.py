"""The measurements of the page ``book/reviewers.md``: the match of a setting, the
strategy (the functional census read as the race's outcome), the end of the rich
regime, the modes of the race with the task's own numbers, the separation of the
phases and a race's functional shares."""

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
    """The median over seeds with NaNs left out (a census is NaN while the output is
    zero); :func:`helpers.book.kit.med` keeps NaNs."""
    return float(np.nanmedian(values))


def match_summary(relu_loss, reln_loss, single_loss, multiple: float) -> dict:
    """The match ([conv-measures], :func:`helpers.core.measures.match`): ReLU seeds
    against the ReLN of the same seeds, calibrated by the ReLU seeds' spread (and the
    ReLN's, noise on both sides), with the single-context ReLN as the alternative (one
    curve per seed: it starts from random weights too).

    ``matches``: the gap is within ``multiple`` times the spread (the rulebook's
    ``seed_noise``); ``levels``: how many of :data:`helpers.core.measures.LEVELS` every
    ReLU seed reaches within the run (the gap is measured on fewer levels when it is
    < 4); ``spread_interval``: the spread's 90 % bootstrap interval over seeds
    ([rulebook-noise]); ``undecided``: ``matches`` would flip somewhere within it (the
    value lies between ``multiple`` times its two ends); ``match``: the
    :class:`~helpers.core.measures.Match` itself, for a record.

    ``nearer``: the rulebook's "clearly nearer than the alternative" (the gap below
    half the alternative's), read with the noise of both comparisons
    (:func:`nearer_than_half`): ``nearer_verdict`` is ``'below'``, ``'not below'`` or
    ``'undecided'``, and ``nearer`` is True only for ``'below'``;
    ``alternative_spread`` and ``alternative_spread_interval``: the two-sample spread
    of the ReLU seeds against the alternative's own seeds."""
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
    """The fields of a :func:`match_summary` that every sweep's record stores
    (``book/reviewers.md``): the gap, its spread with the spread's 90 % interval, the
    alternative's gap with its own spread, and :func:`nearer_than_half`'s answer."""
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
    """Is the gap ``value`` below half the alternative's gap, beyond the noise?
    (``book/reviewers.md``; the rulebook's ``CLEARLY`` = 1/2 and ``NOISE_MULTIPLE``.)

    The noise of the comparison is the larger of the two matches' spreads (the ReLU
    seeds against the candidate's and against the alternative's: noise on both sides,
    [rulebook-noise]); ``spreads`` and ``alt_spreads`` are ``(spread, low, high)``
    with the 90 % bootstrap interval.  At each of the three (spread, interval ends)
    the answer is ``'below'`` when ``alternative / 2 - value`` exceeds ``multiple``
    times the noise, ``'not below'`` when ``value - alternative / 2`` does, and
    within the noise otherwise; ``'undecided'`` unless all three give the same
    answer beyond the noise (the chapter's seeds cannot decide it)."""
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
    """Hidden units the common + C-1-of-C ReLN needs ([conv-contextual]; Section 4: "a
    pathway needs at least as many hidden nodes as the rank of its effective dataset"):
    the rank of ``Sigma_yx`` for the common pathway, and of each context pathway's
    effective dataset on the common pathway's residual."""
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
    """:func:`helpers.core.measures.functional_census` at every recorded epoch of every
    seed: ``W1 (S, R, H, d)``, ``W2 (S, R, p, H)``; returns ``{key: array (S, R)}`` for
    the four class shares and ``snap_change`` (NaN while the output is zero)."""
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
    """:func:`helpers.chapters.reviewers.census_over_training` on the task ``ds``'s
    inputs and contexts.

    Args:
        ds: the task.
        W1, W2: weights ``(seeds, R, H, d)`` and ``(seeds, R, p, H)``.

    Returns:
        ``{class: (seeds, R)}`` and ``snap_change``.
    """
    return census_over_training(W1, W2, ds.X, ds.contexts, ds.n_contexts)


def strategy(census: dict, index: int = -1) -> dict:
    """The strategy at one recorded epoch (default: the last), per seed: the functional
    shares, ``mixed_of_context``, the 2-of-3 units' part of what the non-common units
    produce, ``mixed / (mixed + single + other)``, and ``winner``, the class among
    2-of-3 / single / other that produces most (the race's winner among the context
    classes)."""
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
    """``t(95 %) / t(50 %)``: the share of the time to halve the loss that is spent
    before it has fallen by 5 % (times from :func:`helpers.core.measures.level_times`,
    as fractions of each curve's own initial loss).  An exponential decay from the first
    epoch gives ``ln(1/0.95) / ln 2 = 0.074``; a learning curve that sits on a plateau
    before a sigmoidal drop gives values near 1.  ``L``: one curve or ``(seeds, T)``."""
    L = np.atleast_2d(np.asarray(L, float))
    out = []
    for c in L:
        t95, t50 = level_times(c, (0.95, 0.5))
        out.append(t95 / t50 if t50 > 0 else np.nan)
    return np.asarray(out)


def gate_change(gates0, gates1, W1, W2) -> float:
    """How far the ReLU gating moved: the share of (unit, datapoint) gates that differ
    between two epochs, each unit weighted by its contribution ``|W2[:, j]| |W1[j, :]|``
    at the later epoch ([conv-census]).  ``gates``: ``H x P`` booleans."""
    g0 = np.asarray(gates0, bool)
    g1 = np.asarray(gates1, bool)
    W1, W2 = np.asarray(W1, float), np.asarray(W2, float)
    w = np.linalg.norm(W2, axis=0) * np.linalg.norm(W1, axis=1)
    if w.sum() <= 0:
        raise ValueError("gate_change: every unit has zero weight")
    return float(np.sum((g0 != g1).mean(axis=1) * w) / w.sum())


@dataclass(frozen=True)
class ModeRow:
    """One mode of one pathway's effective dataset: singular value ``s``, input variance
    ``d``, final strength ``s / d``, initial strength ``a0`` and the predicted epoch at
    which the strength is halfway to ``s / d`` (Eq. 7 from ``a0``)."""

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
    """Every mode of every pathway of a contextual ReLN, the common pathway on
    ``(X, Y)`` and each context pathway on the common pathway's converged residual
    (Appendix F, [conv-contextual]), with the learning time Eq. 7 predicts for it in
    isolation.

    ``a0``: initial strengths per pathway (default: from each pathway's width and init
    stds, :func:`helpers.core.linear.initial_mode_strength`).  Modes with ``s`` below
    ``min_share`` of their pathway's largest are left out.  The time is the epoch at
    which ``a`` reaches half of ``s/d`` (:func:`helpers.core.linear.learning_time`); it
    ignores the couplings between pathways and the head start that the context pathways
    get while the common pathway learns, which the matrix race
    (:mod:`helpers.core.race`) keeps.
    """
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
    """The epoch at which each mode of ``rows`` is halfway to its final strength in a
    simulated or predicted ReLN: ``a(t) = u^T W_p(t) v`` from the pathway maps ``{name:
    (R, p, d)}`` recorded at ``epochs`` (interpolated linearly; NaN if never reached).
    The final strength is the row's ``s / d``, the value Eq. 7 converges to."""
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
    """Share of pairs ordered the same way by ``a`` and ``b`` (Kendall's concordance,
    ties and NaN pairs left out): 1 = the same order, 0.5 = unrelated, 0 = reversed."""
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
    """How separated the common and the context phases are in a ReLN's training.

    ``common_maps``: the common pathway's map ``(R, p, d)`` at ``epochs``;
    ``context_maps``: ``{name: (R, p, d)}``.  ``t_common``: the first recorded epoch at
    which the common map is within ``1 - done`` of its final map (relative Frobenius
    distance); ``context_at``: the context pathways' summed norm at that epoch over
    their final summed norm (0 = perfectly separated phases, as Appendix F assumes).
    """
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
    """The largest singular value of each pathway's effective ``Sigma_yx(p)`` (Eq. 4) on
    the targets ``T``: what sets each pathway's speed at the start of the race."""
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
    """The functional shares ([conv-census]) of a race prediction's pathways at one
    recorded epoch: each class's summed output ``sum_p g_p (W_p X_p)``, its Frobenius
    norm over the sum of the classes' norms (the definition of
    :func:`helpers.core.measures.functional_census`, with pathways for units)."""
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
