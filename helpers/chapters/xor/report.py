"""The XoR chapter's records, glue and tables (``book/xor.md``), from its two runs:
the derived values are :func:`helpers.chapters.xor.measures.analyse`'s."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...book import kit, rulebook
from ...core import measures, xor_reln
from ...core.measures import Evidence
from ...core.xor_reln import KINDS
from .measures import analyse, learning_times

NM = rulebook.NOISE_MULTIPLE


def _near(value, spread=None, interval=None) -> Evidence:
    """A switch margin held against eps* ("near", alternative 0)."""
    kw = dict(alternative=0.0, compared=xor_reln.eps_star(), criterion="near")
    return Evidence(value, spread=spread, spread_interval=interval, **kw)


def _switch_evidence(cross) -> Evidence:
    """A setting's switch; not testable where under half of its seeds switch."""
    cross = np.asarray(cross, float)
    ok = cross[np.isfinite(cross)]
    if ok.size < max(2, cross.size / 2):
        return _near(None)
    spread = measures.seed_spread(ok), measures.seed_spread_interval(ok)
    return _near(float(np.median(ok)), *spread)


def _pct(gap) -> float:
    """A time gap as a lag in percent, ``100 (e^gap - 1)``."""
    return 100.0 * float(np.expm1(gap))


def _tie_text(e, d) -> str:
    """A near-tie margin in words, and whether the call is close."""
    text = (
        f"ε = {e} (the ReLNs {d['reln_gap']:.4f} apart, within {NM:g} × the seed "
        f"spread, {NM * d['spread']:.4f}"
    )
    lo = (d["spread_interval"] or (None,))[0]
    if lo is not None and d["reln_gap"] > NM * lo:
        text += (
            f"; a close call: at the low end of the spread's 90 % interval over seeds "
            f"({NM:g} × {lo:.4f} = {NM * lo:.4f}) it would count"
        )
    return text + ")"


def _review_text(e, d, ties) -> str:
    """The page's words on the review that asked to set the near-ties aside."""
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


def _worst(verdicts, follow, among) -> int | None:
    """The worst of the margins ``among`` (:func:`rulebook.worst_case`), or None."""
    among = list(among)
    if among:
        cases = [(verdicts[i], follow[i].value / follow[i].spread) for i in among]
        counted = [rulebook.worse_end(follow[i]) for i in among]
        return int(among[rulebook.worst_case(*zip(*cases), counted)])


def _outside(per_margin) -> str:
    """The counted margins outside the seed noise, in words."""
    text = []
    for v in ("undecided", "partly reproduced", "not reproduced"):
        m = [
            f"{e} (gap {d['gap']:.3f}, seed spread {d['spread']:.3f}, slower ReLN "
            f"{d['alternative']:.3f})"
            for e, d in per_margin.items()
            if d["verdict"] == v and d["decides"]
        ]
        if m:
            text.append(f"{v.capitalize()} at ε = " + "; ".join(m) + ".")
    return " ".join(text) or "Every counted margin is within the seed noise."


def _margins_table(per) -> str:
    """The Markdown table of "follows the faster ReLN" margin by margin."""
    rows = [
        [
            e,
            v["faster"],
            f"{v['reln_gap']:.3f}",
            f"{NM * v['spread']:.3f}",
            f"{v['gap']:.3f} ({v['lag_percent']:.1f} %)",
            f"{v['alternative']:.3f}",
            v["verdict"],
            "yes" if v["decides"] else "no: the ReLNs are within the noise",
        ]
        for e, v in per.items()
    ]
    return kit.table(
        rows,
        f"ε | faster ReLN | the two ReLNs apart (time gap) | {NM:g} × seed spread | "
        "ReLU vs the faster (lag) | ReLU vs the slower | verdict at this margin | "
        "counted",
    )


def _readings(d, keys, j_worst, j_all, mid) -> Evidence:
    """The worst counted margin's evidence (none if none can decide) and its
    "definition" variants: every margin deciding (at its worst), each other margin
    on its own, and a typical margin (medians over margins)."""
    primary = Evidence(None, criterion="seed_noise", time_gap=True)
    if j_worst is not None:
        primary = d.follow[j_worst]
    every = f"every margin decides, near-ties included (the worst, ε = {keys[j_all]})"
    readings = {every: d.follow[j_all]}
    for j, m in enumerate(d.follow):
        if j not in (j_worst, j_all):
            tie = "" if d.decides[j] else " (the ReLNs within the noise)"
            readings[f"ε = {keys[j]} decides{tie}"] = m
    typical = Evidence(**mid, criterion="seed_noise")
    readings["a typical margin decides (medians over margins)"] = typical
    return primary.varied("definition", readings)


def _follow(main, d) -> tuple[list, float, str]:
    """The records, glue, noise line and margins' table of "follows the faster
    ReLN": per margin the faster ReLN, the ReLU network's time gap to it against the
    seed spread and the slower ReLN, and whether the margin decides."""
    per = {
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
    keys, verdicts = list(per), [v["verdict"] for v in per.values()]
    j_worst = _worst(verdicts, d.follow, np.flatnonzero(d.decides))
    j_all = _worst(verdicts, d.follow, range(len(keys)))
    mid = {
        k: kit.med([getattr(m, k) for m in d.follow])
        for k in ("value", "spread", "alternative")
    }
    ties = [_tie_text(e, v) for e, v in per.items() if not v["decides"]]
    j_max = int(np.argmax([m.value for m in d.follow]))
    counts = Counter(verdicts[k] for k in np.flatnonzero(d.decides))
    g = dict(
        worst_eps=np.nan if j_worst is None else float(main.eps[j_worst]),
        worst_verdict="no margin can decide" if j_worst is None else verdicts[j_worst],
        n_hold=counts["reproduced"], n_decide=int(np.sum(d.decides)),
        spread=mid["spread"], alt=mid["alternative"], cf=d.follow_cf,
        counts=", ".join(f"{v} at {n}" for v, n in sorted(counts.items())) or "none",
        ties="; ".join(ties) or "none: at every margin one ReLN is the faster",
        all_eps=float(main.eps[j_all]), all_verdict=verdicts[j_all],
        review=_review_text(keys[j_all], per[keys[j_all]], ties),
        max_pct=_pct(d.follow[j_max].value), max_pct_eps=float(main.eps[j_max]),
        outside=_outside(per),
    )  # fmt: skip
    kit.glue_many("xor", follow=mid["value"])
    kit.glue_many("xor_follow", g)
    decided = "no margin can decide"
    if j_worst is not None:
        decided = (
            f"the worst of them decides, eps = {keys[j_worst]}: time gap ReLU network "
            f"vs the faster simulated ReLN (median over {main.seeds} seeds) against "
            "the two-sample seed spread, the slower ReLN as alternative"
        )
    plain = "; ".join(ties).replace("ε", "eps").replace("×", "x") or "none"
    values = {**g, "n_eps": len(main.eps), "nm": NM, "decided": decided}
    values |= {"ties": plain, "gap": mid["value"]}
    ev = _readings(d, keys, j_worst, j_all, mid)
    records = [
        ("learning_time_follows_faster", ev, values),
        ("follows_faster_per_margin", per, {"nm": NM}),
    ]
    return records, NM * mid["spread"], _margins_table(per)


def _switch(main, sweep, d) -> list:
    """The record of the ReLU networks' switch and its glue; its variants: the
    sweep's other init stds (at the main width) and other widths (at the main std)."""
    sw, eps_star, eps = d.switch, d.eps_star, main.eps
    cross, eps_x = sw["cross"], sw["eps_x"]
    t_relu = np.median(learning_times(main.relu), axis=1)
    t_fast = np.minimum(*(np.median(learning_times(main.sim[k]), 1) for k in KINDS))
    signed = (t_relu - t_fast) / t_fast
    g = dict(
        eps_x=eps_x, eps_x_spread=sw["spread"], eps_x_q25=sw["q25"],
        eps_x_q75=sw["q75"],
        eps_x_minmax=f"{np.nanmin(cross):.3f} to {np.nanmax(cross):.3f}",
        other_max=float(main.shares[:, :, -1, 2].max()),
        init_other=float(main.count_init[eps <= 0.5][:, :, 2].min()),
        n_above=int(np.sum(cross > eps_star)),
        eps_x_minus_star=eps_x - eps_star,
        eps_x_in_spreads=(eps_x - eps_star) / sw["spread"],
        ahead=float(-100 * min(0.0, signed[eps < eps_x].min(initial=0.0))),
        behind=float(100 * max(0.0, signed[eps > eps_x].max(initial=0.0))),
    )  # fmt: skip
    kit.glue_many("xor", g)
    ev = _near(eps_x, sw["spread"], sw["interval"])
    variants = {"init": {}, "width": {}}
    for s in sweep:
        n_sw = f"{np.isfinite(s['cross']).sum()} of {s['cross'].size} seeds switch"
        if s["width"] == main.width and s["std"] != main.init_std:
            variants["init"][f"init std {s['std']:.0e} ({n_sw})"] = s["cross"]
        elif s["std"] == main.init_std and s["width"] != main.width:
            variants["width"][f"width {s['width']} ({n_sw})"] = s["cross"]
    for choice, crosses in variants.items():
        if crosses:
            ev = ev.varied(choice, {k: _switch_evidence(c) for k, c in crosses.items()})
    values = dict(g, n_missing=sw["n_missing"], seeds=main.seeds, width=main.width)
    values |= {"init_std": main.init_std}
    values |= {"lr": main.lr, "n_sweep": len(sweep[0]["cross"])}
    return [("eps_crossover_relu", ev, values)]


def _sweep(main, sweep, d, sweep_widths, bootstrap, fit_u0_max) -> tuple[list, str]:
    """The small-init limit's record and the sweep's glue and table."""
    fit, wd, n_seeds = d.fit, main.width, len(sweep[0]["cross"])
    smallest = min(fit["fit_set"], key=lambda s: s["u0"])
    off = fit["off_fit"].items()
    # the settings with no lasting plateau (u0* > 1e-2, ln(1/u0*) < 4.6) in words
    lazy = "; ".join(
        f"σ = {s['std']:.0e}: {int(np.isfinite(s['cross']).sum())} of "
        f"{n_seeds} seeds switch within the sweep (median "
        f"{s['cross_med']:.2f}), time gap to the faster closed form {s['gap']:.2f}"
        if np.isfinite(s["cross_med"])
        else f"σ = {s['std']:.0e}: no switch within the sweep, time gap {s['gap']:.2f}"
        for s in sweep
        if s["u0"] > 1e-2
    )
    g = dict(
        width_resid="; ".join(f"width {w}: {r:+.3f}" for (w, _), r in off if w != wd),
        big_init_resid="; ".join(
            f"σ = {x:.0e}: {r:+.3f}" for (w, x), r in off if w == wd
        ),
        eps_inf=float(fit["eps_inf"]), eps_inf_lo=float(fit["lo"]),
        eps_inf_hi=float(fit["hi"]), n_common=fit["n_common"], bootstrap=bootstrap,
        x_min=float(fit["x"].min()), smallest_init_switch=smallest["cross_med"],
        smallest_init=smallest["std"], C_fit=float(fit["slope"]),
        fit_resid=fit["residual"], head_start=fit["head_start"], n_fit=len(fit["x"]),
        sweep_widths=" and ".join(str(w) for w in sweep_widths), width=wd,
        lazy_desc=lazy or "no setting of this sweep is in that regime",
        plateau_gap_max=max(s["gap"] for s in sweep if s["u0"] <= 1e-2),
    )  # fmt: skip
    kit.glue_many("xor", g)
    ev = Evidence(float(fit["eps_inf"]), spread=fit["sd"])
    values = dict(g, fit_u0_max=fit_u0_max, n_seeds=n_seeds)
    rows = [
        [s["width"], f"{s['std']:.1e}", f"{s['u0']:.1e}",
         f"{np.isfinite(s['cross']).sum()} of {n_seeds}",
         f"{s['cross_med']:.3f}" if np.isfinite(s["cross_med"]) else "none in sweep",
         f"{np.nanmin(s['cross']):.3f} to {np.nanmax(s['cross']):.3f}"
         if np.isfinite(s["cross"]).any() else "—",
         f"{s['gap']:.3f}"]
        for s in sweep
    ]  # fmt: skip
    limit = [("eps_crossover_relu_small_init_limit", ev, values)]
    return limit, kit.table(
        rows,
        "width | init std | $u_0^*$ | seeds that switch | ReLU switch (median) | "
        "range over seeds | time gap to the faster closed form",
    )


def _checks(main, d) -> list:
    """The setup's glue and the book's check of the closed forms: their largest gap
    to the simulated ReLNs, how many simulated learning times are not shorter, and
    the sampled against the exact closed-form times."""
    eps, lr, a0 = main.eps, main.lr, main.a0
    s_max = max(xor_reln.analytic_modes(eps.max(), k)[0] for k in KINDS)
    t_sim = {k: learning_times(main.sim[k]) for k in KINDS}
    t_cf = {k: learning_times(main.cf[k]) for k in KINDS}
    t_exact = {k: xor_reln.closed_form_learning_time(eps, k, a0[k], lr) for k in KINDS}
    g = dict(
        mode_err=float(d.mode_err), diag_ok="holds" if d.diag_ok else "fails",
        equal_a0_cross=xor_reln.learning_time_crossover(a0["linear"], a0["linear"], lr),
        euler=float(100 * s_max * lr / 2), lr=lr, epochs=main.epochs,
        init_std=main.init_std, eps_star=d.eps_star, eps_star_time=d.eps_star_time,
        a0_lin=a0["linear"], a0_xor=a0["xor"], fraction=xor_reln.LEARNING_FRACTION,
        same_init="identical" if main.same_init else "NOT identical",
        cf_gap=float(d.cf_gap), check_gap=rulebook.CHECK_GAP,
        sim_slower=int(sum(np.sum(np.median(t_sim[k], 1) >= t_cf[k]) for k in KINDS)),
        n_cmp=2 * len(eps),
        sampled_vs_exact=int(
            max(np.max(np.abs(t_cf[k] - np.ceil(t_exact[k]))) for k in KINDS)
        ),
        n_eps=len(eps), final_loss=float(main.relu[:, :, -1].max()), seeds=main.seeds,
    )  # fmt: skip
    kit.glue_many("xor", g)
    return [("gap_closed_form_reln", Evidence(g["cf_gap"], criterion="gap"), g)]


def report(rec, main, sweep, *, sweep_widths, bootstrap, fit_u0_max) -> dict:
    """Write the XoR chapter's records (saved) and the glue its prose reads.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records` (``"xor"``).
        main: the main sweep (:func:`helpers.chapters.xor.runs.train_margins`).
        sweep: the sensitivity sweep (:func:`...runs.sensitivity_sweep`).
        sweep_widths, bootstrap, fit_u0_max: the page's parameters of the sweep.

    Returns:
        ``{"sweep": Markdown table of the sensitivity sweep, "summary": the closing
        table, "noise": twice the main sweep's median ReLU seed spread (the
        sensitivity figure's line), "margins": Markdown table of "follows the faster
        ReLN" margin by margin, the near-ties marked}``.
    """
    d = analyse(main, sweep, bootstrap=bootstrap, fit_u0_max=fit_u0_max)
    records = kit.registered("xor", main) + _checks(main, d)
    follow, noise, margins = _follow(main, d)
    records += follow + _switch(main, sweep, d)
    limit, table = _sweep(main, sweep, d, sweep_widths, bootstrap, fit_u0_max)
    r = kit.add_all(rec, records + limit)
    kit.glue_many(
        "xor",
        verdict_x=r["eps_crossover_relu"]["verdict"],
        verdict_f=r["learning_time_follows_faster"]["verdict"],
    )
    rec.save()
    summary = kit.summary("xor", r)
    return {"sweep": table, "summary": summary, "noise": noise, "margins": margins}
