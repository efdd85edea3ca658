"""The XoR chapter's measurements of the ReLU networks (``book/xor.md``; paper Section
3, Fig. 2d-e): gating classes and shares, the switch and its small-init limit, which
ReLN the ReLU network follows.  The ReLNs' closed forms are in
:mod:`helpers.core.xor_reln`."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...book.rulebook import NOISE_MULTIPLE
from ...core import measures, xor_reln
from ...core.measures import Evidence
from ...core.xor_reln import GATES, KINDS, LEARNING_FRACTION, check_eps

#: The gating classes of :func:`gating_classes`, in the order of the shares' last axis.
CLASSES = ("xor", "linear", "other")


def speed_ratio_window(ratio: float = 1.1) -> tuple[float, float]:
    """The margins at which the linear ReLN's ``s`` is ``1/ratio`` and ``ratio`` times
    the XoR ReLN's: ``4 eps^2 = r^2 (2 + eps^2)``, ``eps = r sqrt(2 / (4 - r^2))``."""
    if not 1 <= ratio < 2:
        raise ValueError(f"ratio must lie in [1, 2), got {ratio}")
    lo, hi = (float(r * np.sqrt(2 / (4 - r**2))) for r in (1.0 / ratio, float(ratio)))
    return lo, hi


def learning_times(loss, fraction: float = LEARNING_FRACTION) -> np.ndarray:
    """Learning time of each loss curve in ``loss`` (``(..., epochs + 1)``), ``inf``
    if never reached (:func:`helpers.core.measures.learning_time_from_curve`)."""
    L = np.asarray(loss, float)
    curves = L.reshape(-1, L.shape[-1])
    t = [measures.learning_time_from_curve(c, fraction) for c in curves]
    return np.reshape(t, L.shape[:-1])


def gating_classes(gates) -> np.ndarray:
    """Each hidden unit's gating class from its 0/1 activity on ``(x1, x2, x3, x4)``:
    ``'xor'`` (on for exactly one datapoint, Fig. 2c), ``'linear'`` (on for exactly the
    two same-label points, Fig. 2b), ``'other'``."""
    G = np.asarray(gates).astype(bool)
    if G.ndim != 2 or G.shape[1] != 4:
        raise ValueError(f"gates must be (hidden units x 4 datapoints), got {G.shape}")
    lin = [np.all(G == g.astype(bool), axis=1) for g in GATES["linear"].values()]
    lin = np.any(lin, axis=0)
    return np.where(G.sum(axis=1) == 1, "xor", np.where(lin, "linear", "other"))


def gating_shares(gates, W1, W2) -> dict:
    """Share of the hidden layer's weight mass (``|W2[:, j]| |W1[j, :]|``,
    :func:`helpers.core.measures.unit_weight`) in units of each gating class."""
    w = measures.unit_weight(np.asarray(W1), np.asarray(W2))
    cls = gating_classes(gates)
    if len(cls) != len(w):
        raise ValueError(f"{len(cls)} units in gates but {len(w)} in the weights")
    if w.sum() <= 0:
        raise ValueError("gating_shares: every unit has zero weight")
    return {k: float(w[cls == k].sum() / w.sum()) for k in CLASSES}


def crossover(eps, share, level: float = 0.5) -> float:
    """The margin at which ``share`` (one value per ``eps``) first rises through
    ``level``, by linear interpolation; ``nan`` if it never does."""
    e = check_eps(eps)
    y = np.asarray(share, float)
    if e.ndim != 1 or e.shape != y.shape or e.size < 2 or np.any(np.diff(e) <= 0):
        raise ValueError("crossover needs increasing eps and one share per eps")
    above = y >= level
    if above[0]:
        return float(e[0])
    idx = np.flatnonzero(above)
    if not idx.size:
        return float("nan")
    k = idx[0]
    return float(e[k - 1] + (level - y[k - 1]) * (e[k] - e[k - 1]) / (y[k] - y[k - 1]))


def small_init_limit(x, switches, bootstrap: int = 2000, seed: int = 0) -> dict:
    """The switch margin extrapolated to vanishing initial weights, with an interval.

    Fits ``eps_x = eps_inf + slope * x`` by least squares to the median switch of each
    setting (NaN, no switch, ignored), ``x = 1 / ln(1 / u0*)`` (0 for an infinitely
    small init).  Seed ``k`` of every setting starts from the same normal numbers, so
    the interval resamples whole seeds, the same in every setting (``bootstrap``
    times, NumPy ``default_rng(seed)``): over seeds, not over the form of the fit.

    Args:
        x: ``(settings,)`` abscissae; switches: ``(settings, seeds)`` switch margins.

    Returns:
        ``eps_inf``, ``slope``, the largest ``residual`` of the fit, and the 2.5 / 97.5
        percentiles ``lo``, ``hi`` and the std ``sd`` of the resampled ``eps_inf``.
    """
    x, Y = np.asarray(x, float), np.asarray(switches, float)
    if x.ndim != 1 or Y.ndim != 2 or Y.shape[0] != x.size:
        raise ValueError(
            f"need one x per setting and (settings, seeds) switches, got {x.shape}, "
            f"{Y.shape}"
        )
    if np.unique(x).size < 2:
        raise ValueError("the fit needs at least two settings with different x")
    if int(bootstrap) < 1:
        raise ValueError(f"bootstrap must be >= 1, got {bootstrap}")
    n = Y.shape[1]

    def fit(idx):
        return np.polyfit(x, np.nanmedian(Y[:, idx], axis=1), 1)

    slope, eps_inf = fit(np.arange(n))
    residual = float(np.max(np.abs(np.nanmedian(Y, axis=1) - (eps_inf + slope * x))))
    rng = np.random.default_rng(seed)
    boot = np.array([fit(rng.integers(0, n, n))[1] for _ in range(int(bootstrap))])
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return {
        "eps_inf": float(eps_inf), "slope": float(slope), "residual": residual,
        "lo": float(lo), "hi": float(hi), "sd": float(np.std(boot)),
    }  # fmt: skip


def reln_separation(main, faster) -> np.ndarray:
    """``(margins,)``: the time gap between the faster ReLN (``faster``: its kind per
    margin) and the slower one in the main sweep ``main``, seed against seed, median
    over seeds.  Defined for the page book/xor.md."""
    faster = [str(k) for k in faster]
    if len(faster) != len(main.eps) or set(faster) - set(KINDS):
        raise ValueError(f"faster must name one of {KINDS} per margin, got {faster}")
    out = []
    for j, k in enumerate(faster):
        other = KINDS[1 - KINDS.index(k)]
        pairs = zip(main.sim[k][j], main.sim[other][j])
        out.append(float(np.median([measures.time_gap(a, b) for a, b in pairs])))
    return np.asarray(out)


def can_decide(follow, separation) -> np.ndarray:
    """``(margins,)`` booleans: the margins that can decide "the ReLU network follows
    *the faster* ReLN", where the ReLNs' ``separation`` (:func:`reln_separation`)
    exceeds ``NOISE_MULTIPLE`` x the seed spread of ``follow`` (the ReLU network's
    :class:`helpers.core.measures.Evidence` against the faster ReLN): rulebook rule 4.
    """
    sep = np.asarray(separation, float)
    if sep.shape != (len(follow),):
        raise ValueError(f"separation needs one value per margin, got {sep.shape}")
    if not np.all(np.isfinite(sep)) or np.any(sep < 0):
        raise ValueError("separation must be finite time gaps >= 0")
    return sep > NOISE_MULTIPLE * np.array([m.spread for m in follow], float)


def switch_stats(cross) -> dict:
    """The ReLU networks' switch over seeds (``cross``: one switch margin per seed,
    NaN where none): ``eps_x`` (median), ``q25``, ``q75``, the seed ``spread``
    (:func:`helpers.core.measures.seed_spread`) and its bootstrap ``interval``, and
    ``n_missing`` (seeds without a switch)."""
    cross = np.asarray(cross, float)
    ok = cross[np.isfinite(cross)]
    q25, q75 = np.nanpercentile(cross, [25, 75])
    return {
        "cross": cross, "eps_x": float(np.nanmedian(cross)),
        "q25": float(q25), "q75": float(q75), "spread": measures.seed_spread(ok),
        "interval": measures.seed_spread_interval(ok),
        "n_missing": int(np.sum(~np.isfinite(cross))),
    }  # fmt: skip


def inv_log(u0):
    """The abscissa of the switch's fit, ``1 / ln(1 / u0)`` (0 for a vanishing init)."""
    return 1 / np.log(1 / u0)


def switch_fit(sweep, main_switch, u0_main, *, width, u0_max, bootstrap):
    """The race picture of the switch, ``eps_x = eps_inf + C / ln(1/u0*)``, fitted by
    :func:`small_init_limit` to the settings at ``width`` with a lasting plateau
    (``u0* <= u0_max``, all seeds switch) and ``main_switch`` (at ``u0_main``).

    Returns:
        That dict with ``x`` (fitted abscissae), ``fit_set`` (settings), ``n_common``
        (the seeds all share), ``off_fit`` (``{(width, std): median switch minus the
        line}`` of the other settings with ``u0* <= 1e-2``) and ``head_start`` (the XoR
        gating's head start ``exp(C ds/deps)`` at ``eps*``)."""
    fit_set = [
        d
        for d in sweep
        if d["width"] == width and d["u0"] <= u0_max and np.isfinite(d["cross"]).all()
    ]
    x = np.array([inv_log(d["u0"]) for d in fit_set] + [inv_log(u0_main)])
    n_common = min(len(main_switch), min(len(d["cross"]) for d in sweep))
    Y = [d["cross"][:n_common] for d in fit_set] + [main_switch[:n_common]]
    limit = small_init_limit(x, Y, bootstrap=bootstrap)
    off_fit = {
        (d["width"], d["std"]): d["cross_med"]
        - (limit["eps_inf"] + limit["slope"] * inv_log(d["u0"]))
        for d in sweep
        if d not in fit_set and d["u0"] <= 1e-2 and np.isfinite(d["cross_med"])
    }
    eps_star = xor_reln.eps_star()
    slope = 4 / (2 + eps_star**2) ** 1.5  # d(s_lin / s_xor) / d eps at eps*
    return {
        **limit, "x": x, "fit_set": fit_set, "n_common": n_common, "off_fit": off_fit,
        "head_start": float(np.exp(slope * limit["slope"])),
    }  # fmt: skip


def mode_check(eps_grid) -> tuple[float, bool]:
    """The formulas' modes against the SVD of every pathway's effective dataset, over
    ``eps_grid`` and both ReLNs: ``(largest relative difference of s and d, whether
    Assumption 2.1.1 holds for every pathway)``."""
    err, ok = 0.0, True
    for e in eps_grid:
        for kind in KINDS:
            s_f, d_f = xor_reln.analytic_modes(e, kind)
            for name, (s_n, d_n, dg) in xor_reln.effective_modes(e, kind).items():
                if s_n.size != 1:
                    raise ValueError(f"{kind}/{name} has {s_n.size} modes")
                err = max(err, abs(s_n[0] - s_f) / s_f, abs(d_n[0] - d_f) / d_f)
                ok &= dg["holds"]
    return err, ok


def follow_faster(main) -> tuple[np.ndarray, list]:
    """``(faster, follow)``: per margin of the main sweep, the faster simulated
    ReLN's kind (median learning time) and :func:`helpers.core.measures.match` of the
    ReLU network to it, the slower as alternative."""
    t_sim = {k: learning_times(main.sim[k]) for k in KINDS}
    linear_faster = np.median(t_sim["linear"], 1) < np.median(t_sim["xor"], 1)
    faster = np.where(linear_faster, "linear", "xor")
    slower = np.where(linear_faster, "xor", "linear")
    follow = [
        measures.match(main.relu[j], main.sim[faster[j]][j], main.sim[slower[j]][j])
        for j in range(len(main.eps))
    ]
    return faster, follow


def switch_crossings(main) -> np.ndarray:
    """Per seed, the margin where the linear share of the final weight rises through
    1/2 (:func:`crossover`; NaN where it never does)."""
    final = main.shares[:, :, -1]
    return np.array([crossover(main.eps, final[:, s, 1]) for s in range(main.seeds)])


def analyse(main, sweep, *, bootstrap, fit_u0_max) -> SimpleNamespace:
    """Every value the chapter derives from its main sweep ``main`` and sensitivity
    ``sweep`` by the functions the page calls one by one, ``cf_gap`` (the largest over
    kinds and margins of the closed form's time gap to the simulated ReLN, median
    over seeds) and ``follow_cf`` (of the ReLU network to the faster closed form, median
    over seeds and margins); ``fit_u0_max``: :func:`switch_fit`'s ``u0_max``."""
    mode_err, diag_ok = mode_check(main.eps)
    faster, follow = follow_faster(main)
    separation = reln_separation(main, faster)
    cross = switch_crossings(main)
    eps_star, a0 = xor_reln.eps_star(), main.a0
    t_star = xor_reln.learning_time_crossover(a0["linear"], a0["xor"], main.lr)
    u0_main = a0["linear"] * eps_star
    kw = dict(width=main.width, u0_max=fit_u0_max, bootstrap=bootstrap)
    cf_gap = max(
        np.median([measures.time_gap(cf, L) for L in sim])
        for k in KINDS
        for cf, sim in zip(main.cf[k], main.sim[k])
    )
    to_faster = [
        np.median([measures.time_gap(L, main.cf[k][j]) for L in relu])
        for j, (k, relu) in enumerate(zip(faster, main.relu))
    ]
    return SimpleNamespace(
        mode_err=mode_err, diag_ok=diag_ok, eps_star=eps_star, eps_star_time=t_star,
        cf_gap=cf_gap, follow_cf=float(np.median(to_faster)), faster=faster,
        follow=follow, separation=separation, decides=can_decide(follow, separation),
        switch=switch_stats(cross), fit=switch_fit(sweep, cross, u0_main, **kw),
    )  # fmt: skip


def eps_star_record(main) -> tuple[Evidence, dict]:
    """Record ``eps_star`` (Section 3, Eqs. 24-26; the book's check), defined for the
    page book/xor.md: the root of ``s_lin = s_XoR`` from the reconstructed data's
    effective datasets against sqrt(2/3), and the closed-form learning times' crossover
    of the main sweep ``main`` (its note's ``eps_star_time``)."""
    star = xor_reln.eps_star(from_data=True)
    ev = Evidence(star, compared=float(np.sqrt(2 / 3)), criterion="exact")
    a0 = main.a0
    t = xor_reln.learning_time_crossover(a0["linear"], a0["xor"], main.lr)
    return ev, {"eps_star_time": t}
