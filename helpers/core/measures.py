"""Shared measurements: time gaps of loss curves (the verdict measure,
[conv-measures]), curve distances (pictures only), gating censuses."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

#: The loss levels at which two curves are compared: fractions of the initial loss.
LEVELS = (0.5, 0.1, 0.01, 0.001)


def level_times(L, levels=LEVELS) -> np.ndarray:
    """First (interpolated) epoch with ``L(t) <= f L(0)`` per level ``f``; else nan."""
    L = np.asarray(L, float)
    if L.ndim != 1 or L.size < 2 or not np.all(np.isfinite(L)) or L[0] <= 0:
        raise ValueError("level_times needs one finite loss curve with L(0) > 0")
    out = []
    for f in levels:
        if not 0 < f < 1:
            raise ValueError(
                f"levels are fractions of the initial loss in (0, 1), got {f}"
            )
        target = f * L[0]
        hit = np.flatnonzero(L <= target)
        if not hit.size:
            out.append(np.nan)
            continue
        t = int(hit[0])
        a, b = L[t - 1], L[t]  # t >= 1 since L(0) > target
        out.append(t - 1 + (a - target) / (a - b) if a > b else float(t))
    return np.asarray(out, float)


def censored(La, Lb, levels=LEVELS) -> bool:
    """Whether some level is reached by ``La`` but not ``Lb`` (a lower-bound gap)."""
    ta, tb = level_times(La, levels), level_times(Lb, levels)
    return bool(np.any(~np.isnan(ta) & np.isnan(tb)))


def time_gap(La, Lb, levels=LEVELS) -> float:
    """Time gap of two loss curves ([conv-measures]): the max over levels of
    ``|ln(t_b / t_a)|``, ``t`` the epoch a curve first falls to the level (a fraction
    of its own initial loss).  A level only one curve reaches counts the other at the
    run's end (a lower bound); levels neither reaches are skipped (all: ValueError)."""
    ta, tb = level_times(La, levels), level_times(Lb, levels)
    end = [len(La) - 1, len(Lb) - 1]
    gaps = []
    for a, b in zip(ta, tb):
        if np.isnan(a) and np.isnan(b):
            continue
        a = end[0] if np.isnan(a) else a
        b = end[1] if np.isnan(b) else b
        gaps.append(abs(np.log(max(b, 0.5) / max(a, 0.5))))
    if not gaps:
        raise ValueError("time_gap: neither curve reaches any level; run longer")
    return float(max(gaps))


@dataclass(frozen=True)
class Evidence:
    """Everything a verdict needs ([rulebook-evidence]); decided by
    :func:`helpers.book.rulebook.decide`, stored by ``Records.add(name, evidence)``.

    Args:
        value: the measure (number or table); for curves, the median :func:`time_gap`.
        spread: noise yardstick ([rulebook-noise]): median over reference seed pairs,
            or the larger of that and ``spread_candidate``.
        alternative: the measure for the paper's rejected alternative (or the named
            ``paper_alternative``, else the nearest rival); decides "partly".
        per_seed: per-seed values behind ``value``, ``(seeds,)``.
        censored: the candidate misses a level the reference reaches (lower bound).
        spread_interval: 90 % bootstrap interval of ``spread``, ``(lo, hi)``.
        spread_candidate: the candidate's own seed spread, if stochastic.
        candidates: ``{name: gap}`` of a fitted family ([rulebook-best]).
        best: the nearest candidate's name.
        compared: the value held against (a record's ``paper`` field).
        criterion: a :data:`helpers.book.rulebook.CRITERIA` entry (None: :attr:`rule`).
        censored_reference: the reference misses a level the candidate reaches.
        ratio_interval: under ``smaller``, 90 % interval of ``value / compared``.
        epochs: ``{epoch: value}`` over training (gating claims).
        phase: ``(first, last)`` epochs the claim is read in ([rulebook-phase]).
        variants: ``{choice: {setting: evidence or number}}`` ([rulebook-variants]).
        timing: a measured time (a re-execution need not reproduce it).
        target: ``("<=" or ">=", bound)`` of a measured time.
        time_gap: values are time gaps, shown as a lag (:meth:`lag_percent`).
    """

    value: object
    spread: float | None = None
    alternative: float | None = None
    per_seed: tuple = ()
    censored: bool = False
    spread_interval: tuple | None = None
    spread_candidate: float | None = None
    candidates: dict | None = None
    best: str | None = None
    compared: object = None
    criterion: str | None = None
    censored_reference: bool = False
    ratio_interval: tuple | None = None
    epochs: dict | None = None
    phase: tuple | None = None
    variants: dict | None = None
    timing: bool = False
    target: tuple | None = None
    time_gap: bool = False

    def lag_percent(self) -> dict | None:
        """The gap as ``100 (e^gap - 1)`` percent: median and seed range, or None."""
        if not self.time_gap or not isinstance(self.value, (int, float)):
            return None
        pct = lambda g: 100.0 * float(np.expm1(g))  # noqa: E731
        out = {"median": pct(self.value)}
        if len(self.per_seed) >= 2:
            out["range"] = [pct(min(self.per_seed)), pct(max(self.per_seed))]
        return out

    def but(self, **changes) -> "Evidence":
        """A copy with ``changes`` (``dataclasses.replace``)."""
        return replace(self, **changes)

    def varied(self, choice: str, settings: dict) -> "Evidence":
        """A copy with one more ``choice``'s variants ``{setting: evidence|number}``."""
        return replace(self, variants={**(self.variants or {}), choice: settings})

    @property
    def rule(self) -> str | None:
        """``criterion``, else ``exact`` if ``compared`` is given, else None."""
        if self.criterion is not None:
            return self.criterion
        return "exact" if self.compared is not None else None

    def record(self) -> dict:
        """The rulebook's fields of a comparison (``seed_noise`` by default)."""
        return {
            "criterion": self.criterion or "seed_noise",
            "spread": self.spread,
            "alternative": self.alternative,
            "censored": self.censored,
            "spread_interval": self.spread_interval,
        }

    @classmethod
    def from_record(cls, rec: dict) -> "Evidence":
        """The evidence (variants apart) a stored record was decided on."""
        fields = {
            "value": rec.get("value"),
            "compared": rec.get("paper"),
            "criterion": rec.get("criterion"),
            "spread": rec.get("spread"),
            "alternative": rec.get("alternative"),
            "censored": bool(rec.get("censored", False)),
            "censored_reference": bool(rec.get("censored_reference", False)),
            "spread_interval": rec.get("spread_interval"),
            "candidates": rec.get("candidates"),
            "best": rec.get("best"),
            "ratio_interval": rec.get("ratio_interval"),
        }
        return cls(**fields)


@dataclass(frozen=True)
class Match(Evidence):
    """:class:`Evidence` of a curve (or output) comparison, ``seed_noise`` default."""

    criterion: str | None = "seed_noise"


#: Bootstrap of a seed spread ([rulebook-noise]), fixed once for the book.
BOOTSTRAP = {"resamples": 1000, "percentiles": (5.0, 95.0), "seed": 0}


def _pair_median(D, idx) -> float | None:
    """Median of ``D[a, b]`` over resampled pairs of distinct seeds."""
    vals = [D[a, b] for i, a in enumerate(idx) for b in idx[i + 1 :] if a != b]
    return float(np.median(vals)) if vals else None


def bootstrap_interval(*matrices) -> tuple[float, float]:
    """90 % bootstrap interval of a seed spread ([rulebook-noise]): each argument a
    side's symmetric seed-by-seed matrix; with two sides, of the larger spread."""
    rng = np.random.default_rng(BOOTSTRAP["seed"])
    Ds = [np.asarray(D, float) for D in matrices]
    for D in Ds:
        if D.ndim != 2 or D.shape[0] != D.shape[1] or D.shape[0] < 2:
            raise ValueError("bootstrap_interval needs square matrices of >= 2 seeds")
    draws = []
    for _ in range(BOOTSTRAP["resamples"]):
        meds = [_pair_median(D, rng.integers(0, len(D), len(D))) for D in Ds]
        if all(m is not None for m in meds):
            draws.append(max(meds))
    lo, hi = np.percentile(draws, BOOTSTRAP["percentiles"])
    return float(lo), float(hi)


def _gap_matrix(R, levels) -> np.ndarray:
    n = R.shape[0]
    D = np.zeros((n, n))
    for i, j in combinations(range(n), 2):
        D[i, j] = D[j, i] = time_gap(R[i], R[j], levels)
    return D


def seed_spread(values) -> float:
    """Median over seed pairs of ``|x_a - x_b|`` ([conv-measures])."""
    v = np.asarray(values, float).ravel()
    if v.size < 2:
        raise ValueError("seed_spread needs at least 2 seeds")
    return float(np.median([abs(a - b) for a, b in combinations(v, 2)]))


def seed_spread_interval(*values) -> tuple[float, float]:
    """90 % bootstrap interval of :func:`seed_spread` (of the larger of two sides)."""
    mats = []
    for v in values:
        v = np.asarray(v, float).ravel()
        if v.size < 2:
            raise ValueError("seed_spread_interval needs at least 2 seeds per side")
        mats.append(np.abs(v[:, None] - v[None, :]))
    return bootstrap_interval(*mats)


def ratio_interval(values, compared, paired: bool = True) -> tuple[float, float]:
    """90 % bootstrap interval of ``median(values) / median(compared)``
    ([rulebook-noise]), for ``smaller``; ``paired`` resamples both sides' seeds
    together."""
    v = np.asarray(values, float).ravel()
    c = np.asarray(compared, float).ravel()
    if v.size < 2 or c.size < 2:
        raise ValueError("ratio_interval needs at least 2 seeds per side")
    if paired and v.size != c.size:
        raise ValueError("ratio_interval: paired sides need as many seeds each")
    rng = np.random.default_rng(BOOTSTRAP["seed"])
    draws = []
    for _ in range(BOOTSTRAP["resamples"]):
        i = rng.integers(0, v.size, v.size)
        j = i if paired else rng.integers(0, c.size, c.size)
        den = np.median(c[j])
        if den != 0:
            draws.append(np.median(v[i]) / den)
    if len(draws) < BOOTSTRAP["resamples"] / 2:
        raise ValueError("ratio_interval: the compared median is 0 in most resamples")
    lo, hi = np.percentile(draws, BOOTSTRAP["percentiles"])
    return float(lo), float(hi)


def share_at_bound(per_seed, alternative=None, bound: float = 1.0) -> "Evidence":
    """:class:`Evidence` under ``near_bound`` of a per-seed share ``(seeds,)``, >= 2,
    held against ``bound`` it cannot pass; ``alternative``: the paper's rival's share.
    Defined for the pages book/extra_contexts.md and book/depth.md."""
    x = np.asarray(per_seed, float).ravel()
    return Evidence(
        float(np.median(x)),
        compared=float(bound),
        criterion="near_bound",
        spread=seed_spread(x),
        spread_interval=seed_spread_interval(x),
        ratio_interval=ratio_interval(x, np.full_like(x, bound)),
        alternative=alternative,
    )


def match(
    reference,
    candidate,
    alternative=None,
    levels=LEVELS,
    *,
    competitors=None,
    name="paper's candidate",
    paper_alternative=None,
) -> Match:
    """:class:`Match` of ``candidate`` to ``reference`` curves, ``(seeds, T)`` (or one
    candidate curve), calibrated by both sides' seed noise ([rulebook-noise]).
    ``competitors``: ``{name: curves}`` ([rulebook-best]); the alternative is then
    ``paper_alternative``, else the nearest."""
    R = np.atleast_2d(np.asarray(reference, float))
    if R.shape[0] < 2:
        raise ValueError(
            "match needs at least 2 reference seeds: their spread is the yardstick"
        )
    if competitors is not None and alternative is not None:
        raise ValueError("give the paper's alternative or competitors, not both")
    per = _gaps_to(R, candidate, levels)
    D_ref = _gap_matrix(R, levels)
    spread = _pair_median(D_ref, range(len(R)))
    C = np.atleast_2d(np.asarray(candidate, float))
    mats = [D_ref]
    spread_c = None
    if C.shape[0] >= 2 and not np.allclose(C, C[:1]):
        D_c = _gap_matrix(C, levels)
        spread_c = _pair_median(D_c, range(len(C)))
        mats.append(D_c)
    C = np.repeat(C, R.shape[0], axis=0) if C.shape[0] == 1 else C
    cens = any(censored(r, c, levels) for r, c in zip(R, C))
    cens_ref = any(censored(c, r, levels) for r, c in zip(R, C))
    family = best = None
    if competitors is not None:
        family, best, alt = _family_gaps(
            R, per, levels, competitors, name, paper_alternative
        )
    else:
        alt = (
            None
            if alternative is None
            else float(np.median(_gaps_to(R, alternative, levels)))
        )
    out = Match(
        float(np.median(per)),
        max(spread, spread_c) if spread_c is not None else spread,
        alt,
        tuple(float(g) for g in per),
        cens,
        bootstrap_interval(*mats),
        spread_c,
        family,
        best,
        criterion="seed_noise",
        censored_reference=cens_ref,
        time_gap=True,
    )
    if not cens_ref:
        return out
    # [rulebook-noise]: judged at levels all reach; every level is the variant
    curves = [*R, *C] + [
        c for v in (competitors or {}).values() for c in np.atleast_2d(v)
    ]
    reached = np.all([~np.isnan(level_times(c, levels)) for c in curves], axis=0)
    both = tuple(lv for lv, ok in zip(levels, reached) if ok)
    if not both:
        return out
    primary = match(
        reference,
        candidate,
        alternative,
        both,
        competitors=competitors,
        name=name,
        paper_alternative=paper_alternative,
    )
    every = ", ".join(f"{100 * lv:g} %" for lv in levels)
    return primary.varied(
        "levels", {f"every level ({every}): the reference censored, a lower bound": out}
    )


def _gaps_to(R: np.ndarray, other, levels) -> list:
    """Per-seed time gaps of ``other`` (one curve or one per seed) to ``R``."""
    O = np.atleast_2d(np.asarray(other, float))
    if O.shape[0] == 1:
        O = np.repeat(O, R.shape[0], axis=0)
    if O.shape[0] != R.shape[0]:
        raise ValueError(
            f"{O.shape[0]} candidate curves for {R.shape[0]} reference seeds"
        )
    return [time_gap(r, o, levels) for r, o in zip(R, O)]


def _family_gaps(R, per, levels, competitors: dict, name: str, paper_alternative):
    """``(family {name: median gap}, best, alternative gap)`` ([rulebook-best])."""
    if not competitors:
        raise ValueError("competitors: give at least one competing candidate")
    family = {name: float(np.median(per))}
    family.update(
        {k: float(np.median(_gaps_to(R, v, levels))) for k, v in competitors.items()}
    )
    best = min(family, key=family.get)
    if paper_alternative is None:
        alt = min(v for k, v in family.items() if k != name)
    elif paper_alternative in competitors:
        alt = family[paper_alternative]
    else:
        raise ValueError(
            f"paper_alternative {paper_alternative!r} is not one of the "
            f"competitors {list(competitors)}"
        )
    return family, best, alt


def curve_distance(La, Lb, floor_frac: float = 1e-3) -> float:
    """Mean over epochs of ``|log max(L_a, f) - log max(L_b, f)|``,
    ``f = floor_frac L_a(0)``: for pictures only; verdicts use :func:`time_gap`
    ([conv-measures])."""
    La = np.asarray(La, float)
    Lb = np.asarray(Lb, float)
    if La.shape != Lb.shape or La.ndim != 1:
        raise ValueError(
            f"curve_distance needs two 1-D curves of equal length, got {La.shape} and "
            f"{Lb.shape}"
        )
    if not (np.all(np.isfinite(La)) and np.all(np.isfinite(Lb))):
        raise ValueError("curve_distance: the curves must be finite")
    f = floor_frac * La[0]
    if f <= 0:
        raise ValueError(f"curve_distance: L_a(0) must be positive, got {La[0]}")
    return float(np.mean(np.abs(np.log(np.maximum(La, f)) - np.log(np.maximum(Lb, f)))))


def output_gap(A, B=None) -> np.ndarray:
    """Relative gaps ``||a - b|| / ||a||`` ([conv-output-gap]) of every ``a`` in
    ``A`` to every ``b`` in ``B`` (None: pairs within ``A``); None entries skipped."""
    A = [np.asarray(a, float) for a in A if a is not None]
    if B is None:
        pairs = list(combinations(A, 2))
    else:
        pairs = [(a, np.asarray(b, float)) for a in A for b in B if b is not None]
    return np.array(
        [np.linalg.norm(a - b) / np.linalg.norm(a) for a, b in pairs], float
    )


def halfway_time(L) -> int:
    """First epoch with ``L(t) <= (L(0) + L(T)) / 2``."""
    L = np.asarray(L, float)
    target = 0.5 * (L[0] + L[-1])
    return int(np.argmax(L <= target))


def learning_time_from_curve(L, fraction: float = 0.5) -> float:
    """First epoch at which ``L(t) <= fraction * L(0)`` (``inf`` if never)."""
    L = np.asarray(L, float)
    hit = np.flatnonzero(L <= fraction * L[0])
    return float(hit[0]) if hit.size else float("inf")


def unit_weight(W1, W2) -> np.ndarray:
    """Contribution of each hidden unit, ``|W2[:, j]| |W1[j, :]|`` ([conv-census])."""
    return np.linalg.norm(W2, axis=0) * np.linalg.norm(W1, axis=1)


def context_patterns(gates, contexts, n_contexts: int, threshold: float = 0.5):
    """Per unit, the on/off pattern over contexts (``'110'``; on: active for
    ``threshold`` of the context's items, [conv-census]) and item-dependence."""
    G = np.asarray(gates, float)
    contexts = np.asarray(contexts)
    frac = np.stack(
        [G[:, contexts == c].mean(axis=1) for c in range(n_contexts)], axis=1
    )
    pats = ["".join("1" if f >= threshold else "0" for f in row) for row in frac]
    item_dependent = np.any((frac > 0) & (frac < 1), axis=1)
    return pats, item_dependent


def gating_census(
    gates, W1, W2, contexts, n_contexts: int, threshold: float = 0.5
) -> dict:
    """Share of hidden weight per gating class ([conv-census]): ``common`` (all
    contexts), ``mixed`` (C-1 of C), ``single``, ``other``; plus ``item_dependent`` and
    ``patterns`` (weight per pattern)."""
    w = unit_weight(W1, W2)
    total = w.sum()
    if total <= 0:
        raise ValueError("gating_census: every unit has zero weight")
    pats, item_dep = context_patterns(gates, contexts, n_contexts, threshold)
    by_pattern: Counter = Counter()
    for p, wj in zip(pats, w):
        by_pattern[p] += wj / total
    C = n_contexts

    def cls(p):
        k = p.count("1")
        if k == C:
            return "common"
        if k == C - 1 and C > 2:
            return "mixed"
        if k == 1:
            return "single"
        return "other"

    shares = {"common": 0.0, "mixed": 0.0, "single": 0.0, "other": 0.0}
    for p, v in by_pattern.items():
        shares[cls(p)] += v
    shares = {k: float(v) for k, v in shares.items()}
    shares["item_dependent"] = float(w[item_dep].sum() / total)
    shares["patterns"] = {
        k: float(v) for k, v in sorted(by_pattern.items(), key=lambda kv: -kv[1])
    }
    return shares


def stereotype_index(curves) -> int:
    """The run nearest the mean curve ([conv-depth], Section 6)."""
    C = np.asarray(curves, float)
    return int(np.argmin(np.sum((C - C.mean(axis=0)) ** 2, axis=1)))


def snap_to_contexts(
    gates, contexts, n_contexts: int, threshold: float = 0.5
) -> np.ndarray:
    """Gates ``(H, P)`` snapped to context level ([conv-census])."""
    G = np.asarray(gates, float)
    contexts = np.asarray(contexts)
    out = np.zeros_like(G)
    for c in range(n_contexts):
        cols = contexts == c
        out[:, cols] = G[:, cols].mean(axis=1, keepdims=True) >= threshold
    return out


def functional_census(
    W1, W2, X, contexts, n_contexts: int, threshold: float = 0.5
) -> dict:
    """The census through the function of ``W2 relu(W1 X)`` ([conv-census]), gates
    snapped (:func:`snap_to_contexts`): ``snap_change`` (relative output change) and
    each class's share of the snapped output (norms of class contributions)."""
    W1, W2, X = (np.asarray(a, float) for a in (W1, W2, X))
    pre = W1 @ X
    yhat = W2 @ np.maximum(pre, 0)
    G = snap_to_contexts(pre > 0, contexts, n_contexts, threshold)
    snapped = W2 @ (G * pre)
    norm = np.linalg.norm(yhat)
    change = float(np.linalg.norm(snapped - yhat) / norm) if norm > 0 else float("nan")
    on = np.stack(
        [G[:, np.asarray(contexts) == c].max(axis=1) for c in range(n_contexts)], axis=1
    )
    k = on.sum(axis=1)
    C = n_contexts
    classes = {"common": k == C, "mixed": (k == C - 1) & (C > 2), "single": k == 1}
    classes["other"] = ~(classes["common"] | classes["mixed"] | classes["single"])
    parts = {
        c: float(np.linalg.norm(W2[:, m] @ (G[m] * pre[m]))) for c, m in classes.items()
    }
    total = sum(parts.values())
    shares = {c: (v / total if total > 0 else float("nan")) for c, v in parts.items()}
    return {"snap_change": change, **shares}


CENSUS_CLASSES = ("common", "mixed", "single", "other", "item_dependent")


def census_over_training(
    gates, W1, W2, contexts, n_contexts: int, threshold: float = 0.5
) -> dict:
    """:func:`gating_census` per epoch: ``gates`` ``(R, H, P)``, ``W1`` ``(R, H, d)``,
    ``W2`` ``(R, p, H)`` -> ``{class: (R,)}``, with ``'consistency'``."""
    G = np.asarray(gates)
    W1 = np.asarray(W1, float)
    W2 = np.asarray(W2, float)
    if not (G.ndim == W1.ndim == W2.ndim == 3) or not (
        G.shape[0] == W1.shape[0] == W2.shape[0]
    ):
        raise ValueError(
            f"need gates (R, H, P), W1 (R, H, d), W2 (R, p, H); got {G.shape}, "
            f"{W1.shape}, {W2.shape}"
        )
    out = {c: np.empty(G.shape[0]) for c in (*CENSUS_CLASSES, "consistency")}
    for r in range(G.shape[0]):
        c = gating_census(G[r], W1[r], W2[r], contexts, n_contexts, threshold)
        for k in CENSUS_CLASSES:
            out[k][r] = c[k]
        out["consistency"][r] = gate_consistency(
            G[r], W1[r], W2[r], contexts, n_contexts, threshold
        )
    return out


def gate_consistency(
    gates, W1, W2, contexts, n_contexts: int, threshold: float = 0.5
) -> float:
    """Weight-averaged share of gates agreeing with the unit's context pattern
    ([conv-census]); 1: purely contextual gating, as in the ReLN."""
    G = np.asarray(gates, float)
    contexts = np.asarray(contexts)
    pats, _ = context_patterns(G, contexts, n_contexts, threshold)
    P_on = np.array([[ch == "1" for ch in p] for p in pats], float)[:, contexts]
    w = unit_weight(W1, W2)
    if w.sum() <= 0:
        raise ValueError("gate_consistency: every unit has zero weight")
    agree = (G == P_on).mean(axis=1)
    return float(np.sum(agree * w) / w.sum())
