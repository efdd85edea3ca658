"""What only the XoR chapter needs (``book/xor.md``; paper Section 3, Fig. 2d-e).

The ReLNs of the XoR task and their closed forms live in :mod:`helpers.core.xor_reln`
(the proofs chapter uses them too); this module holds the chapter's measurements of the
ReLU networks: their gating classes and shares, where the share crosses over, and the
limit of that crossover for vanishing initial weights; the training loops of the page
(:func:`train_margins`, :func:`sensitivity_sweep`); its records and glue
(:mod:`.report`) and its figures (:mod:`.plots`).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...book import rulebook
from ...core import measures, xor_reln
from ...core.datasets import xor
from ...core.engine import relu_network, train
from ...core.relns import initial_weights
from ...core.xor_reln import GATES, KINDS, LEARNING_FRACTION, check_eps

__all__ = [
    "speed_ratio_window",
    "learning_times",
    "gating_classes",
    "gating_shares",
    "crossover",
    "small_init_limit",
    "worst_case",
    "reln_separation",
    "can_decide",
    "train_margins",
    "closed_form_gaps",
    "sensitivity_sweep",
    "switch_stats",
    "switch_fit",
    "report",
    "Results",
    "plots",
]


def speed_ratio_window(ratio: float = 1.1) -> tuple[float, float]:
    """The margins at which the linear ReLN's ``s`` is ``1/ratio`` and ``ratio`` times
    the
    XoR ReLN's: ``4 eps^2 = r^2 (2 + eps^2)``, ``eps = r sqrt(2 / (4 - r^2))``."""
    if not 1 <= ratio < 2:
        raise ValueError(f"ratio must lie in [1, 2), got {ratio}")
    lo, hi = 1.0 / ratio, float(ratio)
    return float(lo * np.sqrt(2 / (4 - lo**2))), float(hi * np.sqrt(2 / (4 - hi**2)))


def learning_times(loss, fraction: float = LEARNING_FRACTION) -> np.ndarray:
    """Learning time of each loss curve in ``loss`` (``(..., epochs + 1)``), by
    :func:`helpers.core.measures.learning_time_from_curve` (``inf`` if never reached).
    """
    L = np.asarray(loss, float)
    flat = L.reshape(-1, L.shape[-1])
    return np.array(
        [measures.learning_time_from_curve(c, fraction) for c in flat]
    ).reshape(L.shape[:-1])


def gating_classes(gates) -> np.ndarray:
    """Each hidden unit's gating class from its 0/1 activity on ``(x1, x2, x3, x4)``:
    ``'xor'`` (on for exactly one datapoint, Fig. 2c), ``'linear'`` (on for exactly the
    two same-label points, Fig. 2b), ``'other'``."""
    G = np.asarray(gates).astype(bool)
    if G.ndim != 2 or G.shape[1] != 4:
        raise ValueError(
            f"gates must be (hidden units x 4 datapoints), got shape {G.shape}"
        )
    single = G.sum(axis=1) == 1
    pos, neg = (
        GATES["linear"]["positive"].astype(bool),
        GATES["linear"]["negative"].astype(bool),
    )
    lin = np.all(G == pos, axis=1) | np.all(G == neg, axis=1)
    return np.where(single, "xor", np.where(lin, "linear", "other"))


def gating_shares(gates, W1, W2) -> dict:
    """Share of the hidden layer's weight mass (``|W2[:, j]| |W1[j, :]|``,
    :func:`helpers.core.measures.unit_weight`) in units of each gating class."""
    w = measures.unit_weight(np.asarray(W1), np.asarray(W2))
    cls = gating_classes(gates)
    if len(cls) != len(w):
        raise ValueError(f"{len(cls)} units in gates but {len(w)} in the weights")
    total = w.sum()
    if total <= 0:
        raise ValueError("gating_shares: every unit has zero weight")
    return {k: float(w[cls == k].sum() / total) for k in ("xor", "linear", "other")}


def crossover(eps, share, level: float = 0.5) -> float:
    """The margin at which ``share`` (e.g. the linear-gating share, one value per
    ``eps``)
    first rises through ``level``, by linear interpolation; ``nan`` if it never does."""
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
    setting, ``x = 1 / ln(1 / u0*)`` (0 for an infinitely small init).  ``switches`` is
    ``(settings, seeds)``: seed ``k`` of every setting starts from the same normal
    numbers (scaled), so the interval resamples whole seeds, the same ones in every
    setting (``bootstrap`` resamples with replacement, NumPy ``default_rng(seed)``); NaN
    (no switch) is ignored in a median.  Returns ``eps_inf``, ``slope``, the largest
    ``residual`` of the fit, and the 2.5 / 97.5 percentiles ``lo``, ``hi`` and the
    standard deviation ``sd`` of the resampled ``eps_inf``: an interval over seeds, not
    over the form of the fit, which is assumed.
    """
    x = np.asarray(x, float)
    Y = np.asarray(switches, float)
    if x.ndim != 1 or Y.ndim != 2 or Y.shape[0] != x.size:
        raise ValueError(
            f"need one x per setting and (settings, seeds) switches, got {x.shape}, "
            f"{Y.shape}"
        )
    if x.size < 2 or np.unique(x).size < 2:
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
        "eps_inf": float(eps_inf),
        "slope": float(slope),
        "residual": residual,
        "lo": float(lo),
        "hi": float(hi),
        "sd": float(np.std(boot)),
    }


#: The case that decides an "always" claim: the rulebook's rule for claims decided
#: over several cases ([rulebook-cases]).
worst_case = rulebook.worst_case


def reln_separation(main, faster) -> np.ndarray:
    """How far apart the two simulated ReLNs are at each margin: the time gap
    (:func:`helpers.core.measures.time_gap`) between the faster and the slower ReLN,
    seed against seed (both start from seed ``s``'s weights), median over seeds.

    Defined for the page book/xor.md (``learning_time_follows_faster``).

    Args:
        main: the main sweep, :func:`train_margins`.
        faster: per margin, the faster ReLN's kind (``"linear"`` or ``"xor"``).

    Returns:
        ``(margins,)``: the time gap between the two ReLNs at each margin.
    """
    faster = [str(k) for k in faster]
    if len(faster) != len(main.eps) or set(faster) - set(KINDS):
        raise ValueError(
            f"faster must name one of {KINDS} per margin ({len(main.eps)}), got "
            f"{faster}"
        )
    out = []
    for j, k in enumerate(faster):
        other = KINDS[1 - KINDS.index(k)]
        pairs = zip(main.sim[k][j], main.sim[other][j])
        out.append(float(np.median([measures.time_gap(a, b) for a, b in pairs])))
    return np.asarray(out)


def can_decide(follow, separation) -> np.ndarray:
    """Which margins can decide "the ReLU network follows *the faster* ReLN": those
    where the two ReLNs are further apart than the claim's yardstick,
    ``NOISE_MULTIPLE`` x the seed spread of that margin
    (:data:`helpers.book.rulebook.NOISE_MULTIPLE`; rulebook rule 4: a measure that
    cannot single out the paper's candidate gives no verdict).  At a margin where they
    are within it, "the faster one" is itself within the seed noise.

    Defined for the page book/xor.md (``learning_time_follows_faster``).

    Args:
        follow: per margin, the :class:`helpers.core.measures.Evidence` of the ReLU
            network against the faster ReLN (its ``spread`` is the yardstick).
        separation: per margin, the time gap between the two ReLNs
            (:func:`reln_separation`).

    Returns:
        ``(margins,)`` booleans: True where the margin can decide the claim.
    """
    from ...book.rulebook import NOISE_MULTIPLE

    sep = np.asarray(separation, float)
    if sep.shape != (len(follow),):
        raise ValueError(
            f"separation needs one value per margin ({len(follow)}), got {sep.shape}"
        )
    if not np.all(np.isfinite(sep)) or np.any(sep < 0):
        raise ValueError("separation must be finite time gaps >= 0")
    spreads = np.array([m.spread for m in follow], float)
    return sep > NOISE_MULTIPLE * spreads


#: The gating classes of :func:`gating_classes`, in the order of the shares' last axis.
CLASSES = ("xor", "linear", "other")


def train_margins(eps_grid, width, init_std, *, lr, epochs, seeds, record_epochs):
    """The main sweep of the page: at every margin, ``seeds`` ReLU networks and both
    ReLNs from the same initial weights (seed ``s`` of each), and both closed forms.

    Args:
        eps_grid: the margins, increasing.
        width, init_std: the ReLU network's hidden units and weight std (the ReLNs
            share the units out, so they start from the same weights).
        lr, epochs: step size on the summed loss and gradient steps.
        seeds: how many seeds (0 .. seeds-1).
        record_epochs: the epochs at which the ReLU runs record weights and gates.

    Returns:
        A namespace: ``relu`` ``(eps, seeds, epochs + 1)`` losses, ``sim`` and ``cf``
        ``{kind: losses}`` of the simulated ReLNs ``(eps, seeds, T)`` and closed forms
        ``(eps, T)``, ``shares`` ``(eps, seeds, records, 3)`` the weight share of each
        gating class (:data:`CLASSES`), ``count_init`` ``(eps, seeds, 3)`` the units'
        classes at epoch 0, ``a0`` the closed forms' initial strengths and
        ``same_init`` (the ReLN starts from the ReLU network's weights), with the
        arguments.
    """
    eps_grid = np.asarray(eps_grid, float)
    t_all, t_rec = np.arange(epochs + 1), np.asarray(record_epochs)
    SEEDS = list(range(seeds))
    relu = relu_network((3, width, 1), init_std)
    relns = {k: xor_reln.reln(k, width, init_std) for k in KINDS}
    a0 = {k: xor_reln.xor_initial_strength(k, width, init_std) for k in KINDS}
    from ...core.engine import init_params

    same_init = all(
        np.array_equal(a, b)
        for a, b in zip(init_params(relu, 0), init_params(relns["xor"], 0))
    )
    n_eps = len(eps_grid)
    loss_relu = np.zeros((n_eps, seeds, epochs + 1))
    loss_sim = {k: np.zeros((n_eps, seeds, epochs + 1)) for k in KINDS}
    loss_cf = {k: np.zeros((n_eps, epochs + 1)) for k in KINDS}
    shares = np.zeros((n_eps, seeds, len(t_rec), 3))
    count_init = np.zeros((n_eps, seeds, 3))
    for j, e in enumerate(eps_grid):
        ds = xor(e)
        run = train(
            relu,
            ds.X,
            ds.Y,
            lr=lr,
            epochs=epochs,
            seeds=SEEDS,
            record_epochs=t_rec,
            record=("weights", "gates"),
        )
        loss_relu[j] = run.loss
        W1, W2 = run.records["weights"]
        G = run.records["gates"][0]
        for s in range(seeds):
            for r in range(len(t_rec)):
                sh = gating_shares(G[s, r], W1[s, r], W2[s, r])
                shares[j, s, r] = [sh[c] for c in CLASSES]
            cls0 = gating_classes(G[s, 0])
            count_init[j, s] = [np.mean(cls0 == c) for c in CLASSES]
        for k in KINDS:
            loss_sim[k][j] = train(
                relns[k], ds.X, ds.Y, lr=lr, epochs=epochs, seeds=SEEDS
            ).loss
            loss_cf[k][j] = xor_reln.xor_closed_form_loss(t_all, e, k, a0[k], lr)
    return SimpleNamespace(
        eps=eps_grid,
        relu=loss_relu,
        sim=loss_sim,
        cf=loss_cf,
        shares=shares,
        count_init=count_init,
        a0=a0,
        same_init=same_init,
        width=width,
        init_std=init_std,
        lr=lr,
        epochs=epochs,
        seeds=seeds,
        record_epochs=t_rec,
    )


def closed_form_gaps(main) -> dict:
    """``{kind: gaps}``: per margin, the time gap between the closed form and the
    simulated ReLN of :func:`train_margins`' run ``main`` (median over seeds)."""
    return {
        k: np.array(
            [
                np.median([measures.time_gap(cf, L) for L in sim])
                for cf, sim in zip(main.cf[k], main.sim[k])
            ]
        )
        for k in KINDS
    }


def sensitivity_sweep(groups, eps, seeds, *, lr, epochs, eps_star) -> list[dict]:
    """The switch of the ReLU networks per init scale and width (the page's
    sensitivity sweep): at every margin of ``eps``, ``seeds`` networks per setting.

    Args:
        groups: ``{width: [init std, ...]}``; the scales of one width train side by
            side in one call, seed ``s`` of every scale from the same normal numbers.
        eps: the margins of the sweep, increasing.
        seeds: seeds per setting.
        lr, epochs: as in :func:`train_margins`.
        eps_star: the ReLNs' crossover, at which ``u0`` is read.

    Returns:
        One dict per setting: ``width``, ``std``, ``u0`` (both ReLNs' normalised
        initial strength at ``eps_star``), ``cross`` (the switch per seed, NaN where
        none), ``cross_med`` (their median) and ``gap`` (time gap of the ReLU network
        to the faster closed form with the setting's own ``a0``, median over margins
        and seeds).
    """
    eps = np.asarray(sorted(eps), float)
    t_all = np.arange(epochs + 1)
    S_sw = list(range(seeds))
    sweep = []
    for w_, stds_ in groups.items():
        net_ = relu_network((3, w_, 1), stds_[0])
        starts = [
            initial_weights([relu_network((3, w_, 1), sd)] * seeds, S_sw)
            for sd in stds_
        ]
        p0 = [np.concatenate(W) for W in zip(*starts)]  # (stds x seeds, ...)
        runs_ = len(stds_) * seeds
        lin_ = np.zeros((len(eps), len(stds_), seeds))
        gap_ = np.zeros_like(lin_)
        for j, e in enumerate(eps):
            ds = xor(e)
            r_ = train(
                net_,
                ds.X,
                ds.Y,
                lr=lr,
                epochs=epochs,
                seeds=list(range(runs_)),
                params0=p0,
                record_epochs=[epochs],
                record=("weights", "gates"),
            )
            W1_, W2_ = (W[:, -1] for W in r_.records["weights"])
            G_ = r_.records["gates"][0][:, -1]
            for n, sd in enumerate(stds_):
                a0_ = {k: xor_reln.xor_initial_strength(k, w_, sd) for k in KINDS}
                fast_ = min(
                    KINDS,
                    key=lambda k: xor_reln.closed_form_learning_time(e, k, a0_[k], lr),
                )
                L_fast = xor_reln.xor_closed_form_loss(t_all, e, fast_, a0_[fast_], lr)
                for s_ in S_sw:
                    i = n * seeds + s_
                    lin_[j, n, s_] = gating_shares(G_[i], W1_[i], W2_[i])["linear"]
                    gap_[j, n, s_] = measures.time_gap(r_.loss[i], L_fast)
        for n, sd in enumerate(stds_):
            cx = np.array([crossover(eps, lin_[:, n, s_]) for s_ in S_sw])
            sweep.append(
                dict(
                    width=w_,
                    std=sd,
                    u0=xor_reln.xor_initial_strength("linear", w_, sd) * eps_star,
                    cross=cx,
                    cross_med=float(np.nanmedian(cx))
                    if np.isfinite(cx).any()
                    else np.nan,
                    gap=float(np.median(gap_[:, n])),
                )
            )
    return sweep


def switch_stats(cross) -> dict:
    """The ReLU networks' switch over seeds (``cross``: one switch margin per seed,
    NaN where none): ``eps_x`` (median), ``q25``, ``q75``, the seed ``spread``
    (:func:`helpers.core.measures.seed_spread`) and its bootstrap ``interval``, and
    ``n_missing`` (seeds without a switch)."""
    cross = np.asarray(cross, float)
    ok = cross[np.isfinite(cross)]
    q25, q75 = np.nanpercentile(cross, [25, 75])
    return {
        "cross": cross,
        "eps_x": float(np.nanmedian(cross)),
        "q25": float(q25),
        "q75": float(q75),
        "spread": measures.seed_spread(ok),
        "interval": measures.seed_spread_interval(ok),
        "n_missing": int(np.sum(~np.isfinite(cross))),
    }


def inv_log(u0):
    """The abscissa of the switch's fit, ``1 / ln(1 / u0)`` (0 for a vanishing init)."""
    return 1 / np.log(1 / u0)


def switch_fit(sweep, main_switch, u0_main, *, width, u0_max, bootstrap):
    """The race picture of the switch: ``eps_x = eps_inf + C / ln(1/u0*)``, fitted by
    :func:`small_init_limit` over the sweep's settings at ``width`` with a lasting
    plateau (``u0* <= u0_max``, every seed switching) plus the main sweep
    (``main_switch`` per seed at ``u0_main``), on the seeds both share.

    Returns:
        :func:`small_init_limit`'s dict, with ``x`` (the fitted abscissae),
        ``fit_set`` (the settings fitted), ``n_common`` (the seeds used),
        ``off_fit`` (``{(width, std): median switch minus the line}`` of the other
        settings with a plateau, ``u0* <= 1e-2``) and ``head_start`` (the slope read
        as the XoR gating's head start, ``exp(C ds/deps)`` at ``eps*``).
    """
    fit_set = [
        d
        for d in sweep
        if d["width"] == width and d["u0"] <= u0_max and np.isfinite(d["cross"]).all()
    ]
    x = np.array([inv_log(d["u0"]) for d in fit_set] + [inv_log(u0_main)])
    n_common = min(len(main_switch), min(len(d["cross"]) for d in sweep))
    limit = small_init_limit(
        x,
        [d["cross"][:n_common] for d in fit_set] + [main_switch[:n_common]],
        bootstrap=bootstrap,
    )
    line = lambda u0: limit["eps_inf"] + limit["slope"] * inv_log(u0)  # noqa: E731
    off_fit = {
        (d["width"], d["std"]): d["cross_med"] - line(d["u0"])
        for d in sweep
        if d not in fit_set and d["u0"] <= 1e-2 and np.isfinite(d["cross_med"])
    }
    eps_star = xor_reln.eps_star()
    slope = 4 / (2 + eps_star**2) ** 1.5  # d(s_lin / s_xor) / d eps at eps*
    return {
        **limit,
        "x": x,
        "fit_set": fit_set,
        "n_common": n_common,
        "off_fit": off_fit,
        "head_start": float(np.exp(slope * limit["slope"])),
    }


from . import plots  # noqa: E402
from .report import Results, report  # noqa: E402
