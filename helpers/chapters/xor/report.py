"""The XoR chapter's records, glue and tables (``book/xor.md``), from its two runs:
the derived values are :func:`helpers.chapters.xor.measures.analyse`'s."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...book import kit, rulebook
from ...book.records import claims_table
from ...core import measures, xor_reln
from ...core.measures import Evidence
from ...core.xor_reln import KINDS
from .measures import analyse, learning_times, speed_ratio_window

NM = rulebook.NOISE_MULTIPLE


def _switch_evidence(cross, eps_star):
    """The switch of one setting held against ``eps_star`` ("near", its own seed
    spread, alternative 0); no value (not testable) where fewer than half of the seeds
    switch within the sweep's margins."""
    cross = np.asarray(cross, float)
    ok = cross[np.isfinite(cross)]
    if ok.size < max(2, cross.size / 2):
        return Evidence(None, alternative=0.0, compared=eps_star, criterion="near")
    return Evidence(
        float(np.median(ok)),
        spread=measures.seed_spread(ok),
        spread_interval=measures.seed_spread_interval(ok),
        alternative=0.0,
        compared=eps_star,
        criterion="near",
    )


def _pct(gap) -> float:
    """A time gap as a lag in percent, ``100 (e^gap - 1)``."""
    return 100.0 * float(np.expm1(gap))


def _plain_text(text: str) -> str:
    """A page's sentence as a record's note writes it (no Greek, no ×)."""
    return text.replace("ε", "eps").replace("×", "x")


def _tie_text(e, d) -> str:
    """A near-tie margin in words, and whether the call is close: whether the margin
    would count at the low end of the spread's 90 % interval over seeds."""
    text = (
        f"ε = {e} (the ReLNs {d['reln_gap']:.4f} apart, within {NM:g} × the seed "
        f"spread, {NM * d['spread']:.4f}"
    )
    lo = (d.get("spread_interval") or (None,))[0]
    if lo is not None and d["reln_gap"] > NM * lo:
        text += (
            f"; a close call: at the low end of the spread's 90 % interval over seeds "
            f"({NM:g} × {lo:.4f} = {NM * lo:.4f}) it would count"
        )
    return text + ")"


def _review_text(e, d, ties) -> str:
    """What the page says of the review that asked for the near-ties to be set
    aside, from the numbers of the margin the old reading is decided at."""
    asked = (
        "A review asked for margins where the two ReLNs are within the seed noise "
        "of each other to be set aside; "
    )
    if not ties:
        return asked + "with these runs there is none."
    if d["decides"]:
        return (
            asked + f"here they are {', '.join(ties)}, but the "
            "old reading is decided elsewhere."
        )
    return (
        f"A review found the old reading decided at ε = {e}, next to the crossover, "
        "where 'the faster one' hardly exists; we confirm it: the two ReLNs are "
        f"{d['reln_gap']:.3f} apart there ({_pct(d['reln_gap']):.1f} % in time), "
        f"within {NM:g} × the seed spread ({NM * d['spread']:.4f}). Two of its "
        "details were wrong. The distance it gave between the two ReLNs at that "
        "margin is the alternative's gap, the ReLU network against the slower ReLN "
        f"({d['alternative']:.3f}), not the ReLNs' distance from each other. And "
        "the alternative's gap does not tend to 0 at the crossover: the ReLU network "
        "is faster than both ReLNs there, so its gap to the slower one tends to its "
        f"gap to the faster one ({d['alternative']:.3f} against {d['gap']:.3f} at "
        f"ε = {e}); 'partly reproduced', which needs the first at least "
        f"{1 / rulebook.CLEARLY:g} × the second, is out of reach there all the same."
    )


def _margins_table(per_margin) -> str:
    """The page's table of the claim margin by margin, near-ties marked."""
    rows = [
        [
            e,
            d["faster"],
            f"{d['reln_gap']:.3f}",
            f"{NM * d['spread']:.3f}",
            f"{d['gap']:.3f} ({d['lag_percent']:.1f} %)",
            f"{d['alternative']:.3f}",
            d["verdict"],
            "yes" if d["decides"] else "no: the ReLNs are within the noise",
        ]
        for e, d in per_margin.items()
    ]
    headers = [
        "ε",
        "faster ReLN",
        "the two ReLNs apart (time gap)",
        f"{NM:g} × seed spread",
        "ReLU vs the faster (lag)",
        "ReLU vs the slower",
        "verdict at this margin",
        "counted",
    ]
    return kit.table(rows, headers)


def _per_margin(main, d) -> dict:
    """``{margin: its numbers and verdict}`` of "follows the faster ReLN"."""
    return {
        f"{e:g}": {
            "faster": str(d.faster[j]),
            "gap": m.value,
            "lag_percent": _pct(m.value),
            "spread": m.spread,
            "alternative": m.alternative,
            "spread_interval": m.spread_interval,
            "reln_gap": float(d.separation[j]),
            "decides": bool(d.decides[j]),
            "verdict": rulebook.verdict(m),
        }
        for j, (e, m) in enumerate(zip(main.eps, d.follow))
    }


def _worst(verdicts, follow, decides) -> tuple[int | None, int]:
    """The margin that decides "always" among those that can (None if none can), and
    among all margins (the old reading); the rulebook's worst case, an undecided
    margin counted at its worse end."""
    severity = [m.value / m.spread for m in follow]
    counted = [rulebook.worse_end(m) for m in follow]
    j_all = rulebook.worst_case(verdicts, severity, counted)
    idx = np.flatnonzero(decides)
    if not idx.size:
        return None, j_all
    k = rulebook.worst_case(
        *([x[i] for i in idx] for x in (verdicts, severity, counted))
    )
    return int(idx[k]), j_all


def _outside(per_margin) -> str:
    """The counted margins outside the seed noise, in words."""
    outside = {
        v: [
            f"{e} (gap {d['gap']:.3f}, seed spread {d['spread']:.3f}, slower ReLN "
            f"{d['alternative']:.3f})"
            for e, d in per_margin.items()
            if d["verdict"] == v and d["decides"]
        ]
        for v in ("undecided", "partly reproduced", "not reproduced")
    }
    text = " ".join(
        f"{v.capitalize()} at ε = " + "; ".join(m) + "."
        for v, m in outside.items()
        if m
    )
    return text or "Every counted margin is within the seed noise."


def _readings(keys, follow, decides, j_worst, j_all, summary) -> dict:
    """Which margins decide "always": every margin (the old reading), each other
    margin alone, and a typical margin (the ``definition`` variants)."""
    reading = {
        f"every margin decides, near-ties included (the worst, ε = {keys[j_all]})": (
            follow[j_all]
        )
    }
    for j, m in enumerate(follow):
        if j not in (j_worst, j_all):
            tie = "" if decides[j] else " (the ReLNs within the noise)"
            reading[f"ε = {keys[j]} decides{tie}"] = m
    reading["a typical margin decides (medians over margins)"] = Evidence(
        summary["value"],
        spread=summary["spread"],
        alternative=summary["alternative"],
        criterion="seed_noise",
    )
    return reading


def _follow_facts(main, d) -> SimpleNamespace:
    """What the records and glue of "follows the faster ReLN" say: "always" is judged
    at the margins that can decide it (``d.decides``), the worst deciding (rulebook
    rule 4); every margin deciding (``j_all``) is a ``definition`` variant."""
    f = SimpleNamespace(per_margin=_per_margin(main, d), follow=d.follow)
    f.keys = list(f.per_margin)
    f.verdicts = [v["verdict"] for v in f.per_margin.values()]
    f.j_worst, f.j_all = _worst(f.verdicts, d.follow, d.decides)
    f.j_max = int(np.argmax([m.value for m in d.follow]))
    f.summary = {
        key: kit.med([getattr(m, key) for m in d.follow])
        for key in ("value", "spread", "alternative")
    }
    counts = {}
    for k in np.flatnonzero(d.decides):
        counts[f.verdicts[k]] = counts.get(f.verdicts[k], 0) + 1
    f.n_hold, f.n_dec = counts.get("reproduced", 0), int(np.sum(d.decides))
    f.counts = ", ".join(f"{v} at {n}" for v, n in sorted(counts.items())) or "none"
    f.ties = [_tie_text(e, v) for e, v in f.per_margin.items() if not v["decides"]]
    return f


def _follow_glue(main, d, f) -> None:
    """The glue of "follows the faster ReLN"."""
    follow_cf = np.median(
        [
            np.median([measures.time_gap(L, main.cf[d.faster[j]][j]) for L in relu])
            for j, relu in enumerate(main.relu)
        ]
    )
    j_worst, j_all, v = f.j_worst, f.j_all, f.verdicts
    kit.glue_many("xor", follow=f.summary["value"])
    kit.glue_many(
        "xor_follow",
        worst_eps=np.nan if j_worst is None else float(main.eps[j_worst]),
        worst_verdict="no margin can decide" if j_worst is None else v[j_worst],
        n_hold=f.n_hold,
        n_decide=f.n_dec,
        spread=f.summary["spread"],
        alt=f.summary["alternative"],
        cf=float(follow_cf),
        counts=f.counts,
        ties="; ".join(f.ties) or "none: at every margin one ReLN is the faster",
        n_ties=len(f.ties),
        all_eps=float(main.eps[j_all]),
        all_verdict=v[j_all],
        review=_review_text(f.keys[j_all], f.per_margin[f.keys[j_all]], f.ties),
        max_pct=_pct(f.follow[f.j_max].value),
        max_pct_eps=float(main.eps[f.j_max]),
        outside=_outside(f.per_margin),
    )


def _follow_note(main, f) -> str:
    """The note of ``learning_time_follows_faster``."""
    k, n_eps = f.keys, len(main.eps)
    decided_at = (
        "no margin can decide"
        if f.j_worst is None
        else f"the worst of them decides, eps = {k[f.j_worst]}: time gap ReLU network "
        f"vs the faster simulated ReLN (median over {main.seeds} seeds) against "
        "the two-sample seed spread, the slower ReLN as alternative"
    )
    return (
        f"'always': judged at the {f.n_dec} of {n_eps} margins where the two "
        f"simulated ReLNs are more than {NM:g} x the seed spread "
        "apart (time gap between them, median over seeds); "
        f"{decided_at}. Near-ties, shown and not counted: "
        f"{_plain_text('; '.join(f.ties)) if f.ties else 'none'}. {f.n_hold} of "
        f"{f.n_dec} counted margins are within the seed noise ({f.counts}). Largest "
        f"lag behind the faster ReLN over all {n_eps} margins: "
        f"{_pct(f.follow[f.j_max].value):.1f} % in time (eps = {k[f.j_max]}). Every "
        f"margin deciding (the old reading, a definition variant): eps = "
        f"{k[f.j_all]}, {f.verdicts[f.j_all]}. Medians over margins: gap "
        f"{f.summary['value']:.3f}, spread {f.summary['spread']:.3f}. "
        "Margin by margin: follows_faster_per_margin."
    )


_PER_MARGIN_NOTE = (
    "per margin: which simulated ReLN is faster, the time gap of the ReLU "
    "network to it (and as a lag in percent) and to the slower one, the gap "
    "between two ReLU seeds, the time gap between the two ReLNs, whether the "
    f"margin can decide the claim (the ReLNs more than {NM:g} x the seed spread "
    "apart), and the rulebook's verdict at that margin alone."
)


def _follow(main, d, rec) -> dict:
    """The records of "the ReLU network follows the faster ReLN", their glue, the
    headline's line, the sensitivity figure's noise line and the table of margins."""
    f = _follow_facts(main, d)
    _follow_glue(main, d, f)
    primary = (
        Evidence(None, criterion="seed_noise", time_gap=True)
        if f.j_worst is None
        else f.follow[f.j_worst]
    )
    readings = _readings(f.keys, f.follow, d.decides, f.j_worst, f.j_all, f.summary)
    r_f = rec.add(
        "learning_time_follows_faster",
        primary.varied("definition", readings),
        note=_follow_note(main, f),
    )
    r_fm = rec.add("follows_faster_per_margin", f.per_margin, note=_PER_MARGIN_NOTE)
    worst = (
        ""
        if f.j_worst is None
        else f"{r_f['value']:.2f} at eps {main.eps[f.j_worst]:g}, "
    )
    counted = f"{f.n_hold} of {f.n_dec} counted margins hold ({r_f['verdict']})"
    return {
        "records": (r_f, r_fm),
        "headline": worst + counted,
        "noise": NM * f.summary["spread"],
        "margins": _margins_table(f.per_margin),
    }


def _switch_variants(main, sweep, eps_star) -> dict:
    """The sweep's variants of the switch: its init scales at this width, its widths
    at this init."""
    variants = {"init": {}, "width": {}}
    for s in sweep:
        n_sw = f"{np.isfinite(s['cross']).sum()} of {s['cross'].size} seeds switch"
        if s["width"] == main.width and s["std"] != main.init_std:
            variants["init"][f"init std {s['std']:.0e} ({n_sw})"] = s
        elif s["std"] == main.init_std and s["width"] != main.width:
            variants["width"][f"width {s['width']} ({n_sw})"] = s
    return {
        choice: {k: _switch_evidence(s["cross"], eps_star) for k, s in settings.items()}
        for choice, settings in variants.items()
        if settings
    }


def _switch(main, sweep, d, rec):
    """The record of the ReLU networks' switch and its glue."""
    sw, eps_star, eps = d.switch, d.eps_star, main.eps
    cross, eps_x = sw["cross"], sw["eps_x"]
    t_relu = np.median(learning_times(main.relu), axis=1)
    t_sim = {k: np.median(learning_times(main.sim[k]), 1) for k in KINDS}
    t_fast = np.minimum(t_sim["linear"], t_sim["xor"])
    signed = (t_relu - t_fast) / t_fast
    kit.glue_many(
        "xor",
        eps_x=eps_x,
        eps_x_spread=sw["spread"],
        eps_x_q25=sw["q25"],
        eps_x_q75=sw["q75"],
        eps_x_minmax=f"{np.nanmin(cross):.3f} to {np.nanmax(cross):.3f}",
        other_max=float(main.shares[:, :, -1, 2].max()),
        init_other=float(main.count_init[eps <= 0.5][:, :, 2].min()),
        n_missing=sw["n_missing"],
        n_above=int(np.sum(cross > eps_star)),
        eps_x_minus_star=eps_x - eps_star,
        eps_x_in_spreads=(eps_x - eps_star) / sw["spread"],
        ahead=float(-100 * min(0.0, signed[eps < eps_x].min(initial=0.0))),
        behind=float(100 * max(0.0, signed[eps > eps_x].max(initial=0.0))),
    )
    ev = Evidence(
        eps_x,
        spread=sw["spread"],
        spread_interval=sw["interval"],
        alternative=0.0,
        compared=eps_star,
        criterion="near",
    )
    for choice, settings in _switch_variants(main, sweep, eps_star).items():
        ev = ev.varied(choice, settings)
    return rec.add(
        "eps_crossover_relu",
        ev,
        note="margin at which the linear-gating share of the trained ReLU networks' "
        f"hidden weight (|w2_j| |W1_j|) rises through 1/2, median over {main.seeds} "
        f"seeds ({np.nanmin(cross):.3f} to {np.nanmax(cross):.3f}; {sw['n_missing']} "
        "without a switch); spread: median |difference| between two seeds. Compared "
        "with the crossover of the paper's criterion (Eqs. 24-26) on our "
        "reconstruction of the data, sqrt(2/3), not the number the paper prints. "
        "Alternative: 0, where the data stop being linearly separable. Init std "
        f"{main.init_std:.3g}, width {main.width}, lr {main.lr} [reconstruction]. "
        "Variants: the sensitivity sweep's init scales (at this width) and widths "
        f"(at this init), {len(sweep[0]['cross'])} seeds each.",
    )


def _lazy_desc(sweep, n_seeds) -> str:
    """The settings without a lasting plateau (``u0* > 1e-2``) in words."""
    lazy = [s for s in sweep if s["u0"] > 1e-2]  # ln(1/u0*) < 4.6
    if not lazy:
        return "no setting of this sweep is in that regime"
    return "; ".join(
        f"σ = {s['std']:.0e}: {int(np.isfinite(s['cross']).sum())} of "
        f"{n_seeds} seeds switch within the sweep (median "
        f"{s['cross_med']:.2f}), time gap to the faster closed form {s['gap']:.2f}"
        if np.isfinite(s["cross_med"])
        else f"σ = {s['std']:.0e}: no switch within the sweep, time gap {s['gap']:.2f}"
        for s in lazy
    )


def _sweep_table(sweep, n_seeds) -> str:
    """The page's table of the sensitivity sweep."""
    rows = []
    for s in sweep:
        n_sw = int(np.isfinite(s["cross"]).sum())
        rows.append(
            [
                s["width"],
                f"{s['std']:.1e}",
                f"{s['u0']:.1e}",
                f"{n_sw} of {n_seeds}",
                f"{s['cross_med']:.3f}"
                if np.isfinite(s["cross_med"])
                else "none in sweep",
                f"{np.nanmin(s['cross']):.3f} to {np.nanmax(s['cross']):.3f}"
                if n_sw
                else "—",
                f"{s['gap']:.3f}",
            ]
        )
    headers = [
        "width",
        "init std",
        "$u_0^*$",
        "seeds that switch",
        "ReLU switch (median)",
        "range over seeds",
        "time gap to the faster closed form",
    ]
    return kit.table(rows, headers)


def _sweep(main, sweep, d, rec, *, sweep_widths, bootstrap, fit_u0_max):
    """The small-init limit's record and the sweep's glue."""
    fit, width, n_seeds = d.fit, main.width, len(sweep[0]["cross"])
    off_fit = fit["off_fit"]
    smallest = min(fit["fit_set"], key=lambda s: s["u0"])
    kit.glue_many(
        "xor",
        width_resid="; ".join(
            f"width {w}: {r:+.3f}" for (w, _), r in off_fit.items() if w != width
        ),
        big_init_resid="; ".join(
            f"σ = {s:.0e}: {r:+.3f}" for (w, s), r in off_fit.items() if w == width
        ),
        eps_inf=float(fit["eps_inf"]),
        eps_inf_lo=float(fit["lo"]),
        eps_inf_hi=float(fit["hi"]),
        n_common=fit["n_common"],
        bootstrap=bootstrap,
        x_min=float(fit["x"].min()),
        smallest_init_switch=smallest["cross_med"],
        smallest_init=smallest["std"],
        C_fit=float(fit["slope"]),
        fit_resid=fit["residual"],
        head_start=fit["head_start"],
        n_fit=len(fit["x"]),
        sweep_widths=" and ".join(str(w) for w in sweep_widths),
        width=width,
        lazy_desc=_lazy_desc(sweep, n_seeds),
        plateau_gap_max=max(s["gap"] for s in sweep if s["u0"] <= 1e-2),
    )
    return rec.add(
        "eps_crossover_relu_small_init_limit",
        Evidence(float(fit["eps_inf"]), spread=fit["sd"]),
        note=f"intercept of the fit eps_x = eps_inf + C / ln(1/u0*) over "
        f"{len(fit['x'])} settings at width {width} (u0* <= {fit_u0_max:g}: the init "
        f"sweep, {n_seeds} seeds each, and the main sweep); C = "
        f"{fit['slope']:.3f}. 95 % interval over seeds {fit['lo']:.3f} to "
        f"{fit['hi']:.3f} ({bootstrap} resamples of the seeds, the same for every "
        "setting); spread: its standard deviation. An extrapolation from "
        f"1/ln(1/u0*) >= {fit['x'].min():.3f}.",
    )


def _setup(main, d) -> tuple[float, int]:
    """The glue of the setup and the closed forms; returns the largest closed-form gap
    and how often the simulation is the slower."""
    eps, lr, a0 = main.eps, main.lr, main.a0
    t_sim = {k: learning_times(main.sim[k]) for k in KINDS}
    t_cf = {k: learning_times(main.cf[k]) for k in KINDS}
    t_exact = {k: xor_reln.closed_form_learning_time(eps, k, a0[k], lr) for k in KINDS}
    window = speed_ratio_window(1.1)
    n_slower = int(sum(np.sum(np.median(t_sim[k], 1) >= t_cf[k]) for k in KINDS))
    cf_gap_max = float(max(d.cf_gap[k].max() for k in KINDS))
    s_max = max(xor_reln.analytic_modes(eps.max(), k)[0] for k in KINDS)
    kit.glue_many(
        "xor",
        mode_err=float(d.mode_err),
        diag_ok="holds" if d.diag_ok else "fails",
        equal_a0_cross=xor_reln.learning_time_crossover(a0["linear"], a0["linear"], lr),
        euler=float(100 * s_max * lr / 2),
        lr=lr,
        epochs=main.epochs,
        init_std=main.init_std,
        eps_star=d.eps_star,
        eps_star_time=d.eps_star_time,
        a0_lin=a0["linear"],
        a0_xor=a0["xor"],
        fraction=xor_reln.LEARNING_FRACTION,
        window_lo=window[0],
        window_hi=window[1],
        same_init="identical" if main.same_init else "NOT identical",
        cf_gap=cf_gap_max,
        check_gap=rulebook.CHECK_GAP,
        sim_slower=n_slower,
        n_cmp=2 * len(eps),
        sampled_vs_exact=int(
            max(np.max(np.abs(t_cf[k] - np.ceil(t_exact[k]))) for k in KINDS)
        ),
        n_eps=len(eps),
        final_loss=float(main.relu[:, :, -1].max()),
        seeds=main.seeds,
    )
    return cf_gap_max, n_slower


def _checks(main, d, rec) -> tuple[dict, list]:
    """The book's two checks (the crossover of the data, the closed forms) and the
    setup's glue; returns the records and their headline lines."""
    cf_gap_max, n_slower = _setup(main, d)
    eps_star_data = xor_reln.eps_star(from_data=True)
    sqrt = float(np.sqrt(2 / 3))
    r = kit.add_all(
        rec,
        [
            (
                "eps_star",
                Evidence(eps_star_data, compared=sqrt, criterion="exact"),
                "root of s_lin = s_XoR from the singular values of the pathways' "
                "effective datasets of the reconstructed data (not from the formulas), "
                "against sqrt(2/3), the root of 2 eps = sqrt(2 + eps^2) (Eqs. 24-26 as "
                "reconstructed). The closed-form learning times cross at "
                f"{d.eps_star_time:.6f}: a linear pathway has twice the units of an "
                "XoR pathway, so at eps* both ReLNs also start equally strong.",
            ),
            (
                "gap_closed_form_reln",
                Evidence(cf_gap_max, criterion="gap"),
                "largest, over both ReLNs and all margins, of the time gap between the "
                "closed form (Eqs. 22-23, a0 derived from the init) and the simulated "
                f"ReLN (median over {main.seeds} seeds); the simulation is the slower "
                f"at {n_slower} of {2 * len(main.eps)} comparisons (Euler steps).",
            ),
        ],
    )
    return r, [
        f"eps_star (from the data)       = {eps_star_data:.4f} "
        f"({r['eps_star']['verdict']})",
        f"gap_closed_form_reln           = {cf_gap_max:.2f} "
        f"({r['gap_closed_form_reln']['verdict']})",
    ]


#: The closing table: record -> (the claim in words, the paper's words).
SUMMARY = {
    "eps_star": (
        "The crossover of the two ReLNs on the reconstructed data (Eqs. 24-26), from "
        "the data's effective datasets (book's check)",
        "the crossover the paper prints (not used: the book computes it)",
    ),
    "gap_closed_form_reln": (
        "Closed forms (Eqs. 18-23) follow the simulated ReLNs (book's check)",
        "solve their dynamics analytically",
    ),
    "learning_time_follows_faster": (
        "The ReLU network always matches the faster ReLN (paper Fig. 2d, 2e), judged "
        "at the worst margin where one ReLN is faster beyond the seed noise",
        "one of these ReLNs always closely matches ... the faster one",
    ),
    "follows_faster_per_margin": ("The same, margin by margin", "—"),
    "eps_crossover_relu": (
        "The ReLU network switches from XoR to linear gating near the crossover "
        "$\\epsilon^*$, well above $\\epsilon = 0$",
        "marks the approximate point at which a ReLU network switches",
    ),
    "eps_crossover_relu_small_init_limit": (
        "The switch in the limit of small initial weights (fit with a 95 % interval "
        "over seeds)",
        "—",
    ),
}


def report(rec, main, sweep, *, sweep_widths, bootstrap, fit_u0_max) -> dict:
    """Write the XoR chapter's records and the glue its prose reads.

    Defined for the page book/xor.md.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records` (``"xor"``).
        main: the main sweep (:func:`helpers.chapters.xor.runs.train_margins`).
        sweep: the sensitivity sweep (:func:`...runs.sensitivity_sweep`).
        sweep_widths, bootstrap, fit_u0_max: the page's parameters of the sweep.

    Returns:
        ``{"sweep": Markdown table of the sensitivity sweep, "summary": the closing
        table, "noise": twice the main sweep's median ReLU seed spread (the
        sensitivity figure's line), "headline": the records' values and verdicts in
        five lines, "margins": Markdown table of "follows the faster ReLN" margin by
        margin, the near-ties marked}``; the records are saved.
    """
    d = analyse(main, sweep, bootstrap=bootstrap, fit_u0_max=fit_u0_max)
    r, lines = _checks(main, d, rec)
    follow = _follow(main, d, rec)
    r["learning_time_follows_faster"], r["follows_faster_per_margin"] = follow[
        "records"
    ]
    r["eps_crossover_relu"] = _switch(main, sweep, d, rec)
    params = dict(sweep_widths=sweep_widths, bootstrap=bootstrap, fit_u0_max=fit_u0_max)
    r["eps_crossover_relu_small_init_limit"] = _sweep(main, sweep, d, rec, **params)
    kit.glue_many(
        "xor",
        verdict_x=r["eps_crossover_relu"]["verdict"],
        verdict_f=r["learning_time_follows_faster"]["verdict"],
    )
    rec.save()
    headline = "\n".join(
        [
            *lines,
            f"learning_time_follows_faster   = {follow['headline']}",
            f"eps_crossover_relu             = {d.switch['eps_x']:.2f} "
            f"({r['eps_crossover_relu']['verdict']})",
            f"small-init limit               = {d.fit['eps_inf']:.2f}",
        ]
    )
    return {
        "sweep": _sweep_table(sweep, len(sweep[0]["cross"])),
        "summary": claims_table([(c, q, r[n]) for n, (c, q) in SUMMARY.items()]),
        "noise": follow["noise"],
        "headline": headline,
        "margins": follow["margins"],
    }
