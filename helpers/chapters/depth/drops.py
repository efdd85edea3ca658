"""Plateaus and drops of the loss curves and their scatter over seeds (Fig. 6b's
"variance profiles", [rulebook-noise])."""

from __future__ import annotations

import numpy as np

from ...core.measures import BOOTSTRAP


def med(v) -> float:
    """The chapter's median: NaN-skipping (a run that never reaches a level is NaN)."""
    return float(np.nanmedian(v))


def plateaus(
    L, window: int = 500, tol: float = 2e-3, min_len: int = 1000
) -> list[tuple[int, int, float]]:
    """``(first epoch, last epoch, median loss)`` of each plateau of ``L``: maximal
    stretches of ``min_len``+ epochs moving less than ``tol * L(0)`` per ``window``."""
    L = np.asarray(L, float)
    if L.ndim != 1 or L.size <= window:
        raise ValueError(
            f"plateaus needs a 1-D loss curve longer than window={window}, got shape "
            f"{L.shape}"
        )
    if not L[0] > 0:
        raise ValueError(f"plateaus: L(0) must be positive, got {L[0]}")
    flat = np.abs(L[window:] - L[:-window]) < tol * L[0]
    out = []
    edges = np.flatnonzero(np.diff(np.r_[0, flat.astype(int), 0]))
    # flat on [a, b): stretch [a, b - 1 + window]
    for a, b in zip(edges[::2], edges[1::2]):
        stop = b - 1 + window
        if stop - a + 1 >= min_len:
            out.append((int(a), int(stop), float(np.median(L[a : stop + 1]))))
    return out


def plateau_levels(
    curves, merge: float = 0.05, min_share: float = 0.5, **kw
) -> np.ndarray:
    """Descending loss levels at which at least ``min_share`` of the runs plateau,
    plateaus closer than ``merge * L(0)`` merged."""
    curves = np.atleast_2d(np.asarray(curves, float))
    found = []
    for k, L in enumerate(curves):
        for _, _, lev in plateaus(L, **kw):
            found.append((lev, k))
    if not found:
        return np.zeros(0)
    found.sort(key=lambda x: -x[0])
    tol = merge * curves[0, 0]
    groups = [[found[0]]]
    for lev, k in found[1:]:
        if groups[-1][-1][0] - lev <= tol:
            groups[-1].append((lev, k))
        else:
            groups.append([(lev, k)])
    levels = [
        np.median([g[0] for g in grp])
        for grp in groups
        if len({g[1] for g in grp}) >= min_share * len(curves)
    ]
    return np.asarray(levels, float)


def drop_epochs(curves, levels) -> np.ndarray:
    """``(runs, len(levels) - 1)``: first epoch below the midpoint of two consecutive
    descending ``levels`` (append 0 for the final descent); NaN if never."""
    curves = np.atleast_2d(np.asarray(curves, float))
    levels = np.asarray(levels, float)
    if levels.ndim != 1 or levels.size < 2 or np.any(np.diff(levels) >= 0):
        raise ValueError(
            f"levels must be a strictly decreasing sequence of >= 2 loss values, got "
            f"{levels}"
        )
    mids = 0.5 * (levels[:-1] + levels[1:])
    out = np.full((curves.shape[0], mids.size), np.nan)
    for i, L in enumerate(curves):
        for k, m in enumerate(mids):
            hit = np.flatnonzero(L <= m)
            if hit.size:
                out[i, k] = hit[0]
    return out


def drop_durations(curves, levels, lo: float = 0.1, hi: float = 0.9) -> np.ndarray:
    """``(runs, drops)``: epochs from ``hi`` to ``lo`` of each step of ``levels``."""
    levels = np.asarray(levels, float)
    if not 0 <= lo < hi <= 1:
        raise ValueError(f"need 0 <= lo < hi <= 1, got lo={lo}, hi={hi}")
    curves = np.atleast_2d(np.asarray(curves, float))
    out = np.full((curves.shape[0], levels.size - 1), np.nan)
    for k in range(levels.size - 1):
        a, b = levels[k], levels[k + 1]
        upper = b + hi * (a - b)
        lower = b + lo * (a - b)
        for i, L in enumerate(curves):
            h1 = np.flatnonzero(L <= upper)
            h2 = np.flatnonzero(L <= lower)
            if h1.size and h2.size:
                out[i, k] = h2[0] - h1[0]
    return out


def log_scatter_ratio(a, b) -> tuple[float, float]:
    """``(ln(sd(a) / sd(b)), normal-theory standard error)`` of two samples of event
    epochs (NaN = never)."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if a.size < 2 or b.size < 2:
        return float("nan"), float("nan")
    sa, sb = a.std(ddof=1), b.std(ddof=1)
    if sa <= 0 or sb <= 0:
        return float("nan"), float("nan")
    return float(np.log(sa / sb)), float(
        np.sqrt(0.5 / (a.size - 1) + 0.5 / (b.size - 1))
    )


#: Inner resamples of :func:`scatter_bootstrap`.
INNER_RESAMPLES = 200


def _sd(x):
    return np.std(x, axis=-1, ddof=1)


def _iqr(x):
    lo, hi = np.percentile(x, [25.0, 75.0], axis=-1)
    return hi - lo


def _mad(x):
    m = np.median(x, axis=-1, keepdims=True)
    return np.median(np.abs(x - m), axis=-1)


#: Spreads of a drop's epochs over seeds, ``(..., n) -> (...)``: the paper's "variance"
#: (sd) and two robust ones (the variance profile's ``definition`` variants).
SPREADS = {"sd": _sd, "iqr": _iqr, "mad": _mad}
SPREAD_NAMES = {
    "sd": "standard deviation",
    "iqr": "interquartile range",
    "mad": "median absolute deviation",
}


def _spread_fn(spread: str):
    if spread not in SPREADS:
        raise ValueError(f"spread must be one of {sorted(SPREADS)}, got {spread!r}")
    return SPREADS[spread]


def _log_sd_ratio(A, B, spread: str = "sd"):
    """ln(spread(A) / spread(B)) along the last axis, NaN where undefined."""
    f = _spread_fn(spread)
    sa, sb = f(A), f(B)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log(sa / sb)
    r = np.asarray(r, float)
    r[~np.isfinite(r)] = np.nan
    return r


def log_spread_ratio(a, b, spread: str = "sd") -> float:
    """``ln(spread(a) / spread(b))`` of two samples of drop epochs (NaN = never),
    ``spread`` in :data:`SPREADS`; NaN with < 2 finite values a side or a spread of 0.
    Defined for the page ``book/depth.md``."""
    f = _spread_fn(spread)
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if a.size < 2 or b.size < 2:
        return float("nan")
    sa, sb = float(f(a)), float(f(b))
    if not (sa > 0 and sb > 0):
        return float("nan")
    return float(np.log(sa / sb))


def scatter_bootstrap(a, b, spread: str = "sd") -> tuple[float, tuple[float, float]]:
    """Bootstrap seed noise of ``ln(spread(a) / spread(b))`` ([rulebook-noise]):
    ``(se, (lo, hi))``, the standard error over seed resamples and its 90 % interval
    (a bootstrap of the bootstrap); resamples without scatter are left out."""
    f = _spread_fn(spread)
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if a.size < 2 or b.size < 2:
        return float("nan"), (float("nan"), float("nan"))
    rng = np.random.default_rng(BOOTSTRAP["seed"])

    def se(x, y, n):
        ix = rng.integers(0, x.shape[-1], x.shape[:-1] + (n, x.shape[-1]))
        iy = rng.integers(0, y.shape[-1], y.shape[:-1] + (n, y.shape[-1]))
        xs = np.take_along_axis(x[..., None, :].repeat(n, -2), ix, -1)
        ys = np.take_along_axis(y[..., None, :].repeat(n, -2), iy, -1)
        return np.nanstd(_log_sd_ratio(xs, ys, spread), axis=-1, ddof=1)

    point = float(se(a, b, BOOTSTRAP["resamples"]))
    m = BOOTSTRAP["resamples"]
    outer_a = a[rng.integers(0, a.size, (m, a.size))]
    outer_b = b[rng.integers(0, b.size, (m, b.size))]
    keep = (f(outer_a) > 0) & (f(outer_b) > 0)
    draws = se(outer_a[keep], outer_b[keep], INNER_RESAMPLES)
    lo, hi = np.nanpercentile(draws, BOOTSTRAP["percentiles"])
    return point, (float(lo), float(hi))


def subset_scatter_ratios(a, b, k: int, draws: int = 1000, seed: int = 0):
    """``(draws, 2)``: :func:`log_scatter_ratio` of random ``k``-run subsets a side."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if min(a.size, b.size) < k or k < 2:
        raise ValueError(f"need at least k = {k} >= 2 finite values on each side")
    rng = np.random.default_rng(seed)
    out = [
        log_scatter_ratio(
            rng.choice(a, k, replace=False), rng.choice(b, k, replace=False)
        )
        for _ in range(int(draws))
    ]
    return np.asarray(out, float)


def drop_scatter(relu_loss, gdln_loss, levels_all) -> dict:
    """The variance profile of two sets of runs at the drops between ``levels_all``:
    ``drops`` ``(seeds, drops)`` per network, ``sd``, ``pairs``, ``scatter``,
    ``scatter_bs``, ``z = |ln ratio| / se`` and ``k``, the worst drop."""
    levels_all = np.asarray(levels_all, float)
    drops = {
        "relu": drop_epochs(relu_loss, levels_all),
        "hand": drop_epochs(gdln_loss, levels_all),
    }
    n = levels_all.size - 1
    pairs = [(drops["relu"][:, k], drops["hand"][:, k]) for k in range(n)]
    scatter = [log_scatter_ratio(a, b) for a, b in pairs]
    scatter_bs = [scatter_bootstrap(a, b) for a, b in pairs]
    z = np.array([abs(v) / e for (v, _), (e, _) in zip(scatter, scatter_bs)])
    sd = {k: np.nanstd(v, axis=0, ddof=1) for k, v in drops.items()}
    return {
        "drops": drops,
        "sd": sd,
        "pairs": pairs,
        "scatter": scatter,
        "scatter_bs": scatter_bs,
        "z": z,
        "k": int(np.nanargmax(z)),
    }


def rounding_floor(curves: dict, levels_all) -> dict:
    """How far rounding alone moves each drop, from ``curves`` ``{name: (seeds,
    epochs + 1)}`` of the same starts (the first the reference): ``drops``, ``diff``,
    ``max |diff|`` and ``sd`` (rms ``diff`` / sqrt 2) per drop."""
    names = list(curves)
    if len(names) < 2:
        raise ValueError("rounding_floor needs a reference and at least one other run")
    drops = {k: drop_epochs(v, levels_all) for k, v in curves.items()}
    ref = drops[names[0]]
    diff = {k: drops[k] - ref for k in names[1:]}
    allx = np.concatenate([diff[k] for k in names[1:]])
    with np.errstate(invalid="ignore"):
        sd = np.sqrt(np.nanmean(allx**2, axis=0) / 2)
    return {
        "drops": drops,
        "diff": diff,
        "max": {k: np.nanmax(np.abs(d), axis=0) for k, d in diff.items()},
        "sd": sd,
    }


def pool_seeds(seeds, curves, stored_seeds, stored_curves) -> dict:
    """This execution's curves pooled with the stored seeds not trained here (when
    equally long): ``{name: curves, "seeds": pooled, "added": stored seeds added}``."""
    seeds = [int(x) for x in seeds]
    if set(curves) != set(stored_curves):
        raise ValueError(
            f"curves {sorted(curves)} and stored_curves {sorted(stored_curves)} differ"
        )
    T = {np.shape(v)[-1] for v in curves.values()}
    T_s = {np.shape(v)[-1] for v in stored_curves.values()}
    new = [k for k, x in enumerate(stored_seeds) if int(x) not in seeds]
    if T != T_s:
        new = []  # other epochs (a test run): this execution's seeds alone
    out = {
        k: np.concatenate([np.asarray(v, float), np.asarray(stored_curves[k])[new]])
        if new
        else np.asarray(v, float)
        for k, v in curves.items()
    }
    out["added"] = [int(stored_seeds[k]) for k in new]
    out["seeds"] = seeds + out["added"]
    return out


def same_start(engine_loss, seeds, stored: dict) -> dict:
    """The curves :func:`rounding_floor` compares (engine, plain float32 and float64),
    cut to the seeds and epochs both have."""
    seeds = [int(x) for x in seeds]
    keep = [k for k, x in enumerate(stored["seeds"]) if int(x) in seeds]
    if len(keep) < 1:
        raise ValueError("no seed of the stored rounding run ran in this execution")
    rows = [seeds.index(int(stored["seeds"][k])) for k in keep]
    T = min(np.shape(engine_loss)[-1], stored["float32"].shape[-1])
    out = {"engine, float32": np.asarray(engine_loss, float)[rows, :T]}
    for k in ("float32", "float64"):
        out[f"plain, {k}"] = np.asarray(stored[k], float)[keep, :T]
    return out


def drop_names(levels_all) -> list[str]:
    """The drops between consecutive levels, named ``"66 → 30"``."""
    return [f"{a:.0f} → {b:.0f}" for a, b in zip(levels_all[:-1], levels_all[1:])]


def drop_profile(relu_loss, gdln_loss) -> dict:
    """:func:`drop_scatter` at the ReLU runs' plateaus, with ``levels``,
    ``levels_all``, ``names``, ``durs`` and ``sub`` (4 + 4 seed subsets, worst drop)."""
    levels = plateau_levels(relu_loss)
    levels_all = np.r_[levels, 0.0]
    out = drop_scatter(relu_loss, gdln_loss, levels_all)
    out.update(
        levels=levels,
        levels_all=levels_all,
        names=drop_names(levels_all),
        durs={
            "relu": drop_durations(relu_loss, levels_all),
            "hand": drop_durations(gdln_loss, levels_all),
        },
        sub=subset_scatter_ratios(*out["pairs"][out["k"]], 4),
    )
    return out


def stored_profile(seeds, relu_loss, gdln_loss, big: dict) -> dict:
    """:func:`drop_scatter` on the runs pooled with the stored ``big``
    (:func:`pool_seeds`), with ``pool``, ``levels_all`` and ``names``."""
    both = {"relu": relu_loss, "gdln": gdln_loss}
    pool = pool_seeds(seeds, both, big["seeds"], {k: big[k] for k in both})
    lv = np.r_[plateau_levels(pool["relu"]), 0.0]
    out = drop_scatter(pool["relu"], pool["gdln"], lv)
    out.update(pool=pool, levels_all=lv, names=drop_names(lv))
    return out


def spread_profile(drops_a, drops_b, spread: str) -> dict:
    """The variance profile of ``(seeds, drops)`` epochs with another ``spread``
    (:data:`SPREADS`), judged as the default is.  Defined for the page
    ``book/depth.md``.

    Returns:
        ``{"spread", "value", "spread_ratio", "scatter_bs", "z", "k"}``, per drop;
        ``k`` the worst drop (None when no ``z`` is finite).
    """
    A = np.atleast_2d(np.asarray(drops_a, float))
    B = np.atleast_2d(np.asarray(drops_b, float))
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"drops differ: {A.shape[1]} against {B.shape[1]}")
    value = np.array(
        [log_spread_ratio(A[:, k], B[:, k], spread) for k in range(A.shape[1])]
    )
    bs = [scatter_bootstrap(A[:, k], B[:, k], spread) for k in range(A.shape[1])]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(value) / np.array([e for e, _ in bs])
    z[~np.isfinite(z)] = np.nan
    k = int(np.nanargmax(z)) if np.isfinite(z).any() else None
    return {
        "spread": spread,
        "value": value,
        "spread_ratio": np.exp(value),
        "scatter_bs": bs,
        "z": z,
        "k": k,
    }


def authors_profile(relu_loss, gdln_loss, levels_all, engine_pair, k: int) -> dict:
    """The authors' script runs timed at the engine's ``levels_all``, and where their
    scatter ratio at drop ``k`` falls among the engine's ``n + n``-seed subsets of
    ``engine_pair``.  Defined for the page ``book/depth.md``.  (The scripts record the
    loss after each update, the engine before: one epoch later, which no spread sees.)

    Returns:
        ``{"drops", "scatter", "sd", "n", "k", "k_worst", "subsets", "percentile"}``,
        ``percentile`` the share (%) of subsets below the scripts' log ratio.
    """
    d = {
        "relu": drop_epochs(relu_loss, levels_all),
        "gdln": drop_epochs(gdln_loss, levels_all),
    }
    n = int(min(d["relu"].shape[0], d["gdln"].shape[0]))
    if n < 2:
        raise ValueError(f"authors_profile needs at least 2 runs a side, got {n}")
    if not 0 <= k < d["relu"].shape[1]:
        raise ValueError(f"drop {k} out of range (0..{d['relu'].shape[1] - 1})")
    scatter = [
        log_scatter_ratio(d["relu"][:, j], d["gdln"][:, j])
        for j in range(d["relu"].shape[1])
    ]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.array([abs(v) / e for v, e in scatter])
    z[~np.isfinite(z)] = np.nan
    sub = subset_scatter_ratios(*engine_pair, n)
    v = scatter[k][0]
    ok = np.isfinite(sub[:, 0])
    pct = 100.0 * float(np.mean(sub[ok, 0] < v)) if np.isfinite(v) else float("nan")
    return {
        "drops": d,
        "scatter": scatter,
        "sd": {s: np.nanstd(x, axis=0, ddof=1) for s, x in d.items()},
        "n": n,
        "k": int(k),
        "k_worst": int(np.nanargmax(z)) if np.isfinite(z).any() else None,
        "subsets": sub,
        "percentile": pct,
    }
