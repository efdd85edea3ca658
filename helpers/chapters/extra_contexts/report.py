"""The records, glue and closing table of the page book/extra_contexts.md."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from ...book import kit, rulebook
from ...book.records import claims_table
from ...book.rulebook import setup_clause, verdict
from ...core.families import onehot_fraction, pathway_count
from ...core.measures import (
    LEVELS,
    Evidence,
    curve_distance,
    level_times,
    seed_spread,
    share_at_bound,
)
from ...core.relns import INITS
from . import measures
from .closed_form import context_modes
from .networks import paper_reln, same_start
from .tables import say as _say

#: The closing table's rows: a name ending in ``_C`` is one row per C.
SUMMARY = (
    "gap_reln_closed_form_C",
    "gap_relu_closed_form_C",
    "init_sensitivity",
    "follows_reln_C",
    "node_reuse_contexts_per_unit",
    "node_reuse_fraction",
    "share_mixed_selective_C",
    "functional_census",
    "units_3_of_5_C5",
)


@dataclass
class Params:
    """The page's parameters the report reads (``hidden``: ``{C: ReLU width}``)."""

    init: str
    census_threshold: float
    seeds: list
    hidden: dict
    reln_width: int
    t_all: np.ndarray
    t_rec: np.ndarray
    lr: float


@dataclass
class Runs:
    """The page's runs per C (:mod:`helpers.chapters.extra_contexts.networks`);
    ``closed_forms``: ``{C: {method: ClosedForm}}``; ``onehot``: only where the input
    is not one-hot."""

    tasks: dict
    sim: dict
    census: dict
    family: dict
    family_share: dict
    onehot: dict
    closed_forms: dict
    closed_init: dict
    modes: dict


def _page(p: Params, runs: Runs, fits: measures.Fits) -> SimpleNamespace:
    """The parameters, runs and fits, and what the page's functions derive from them."""
    CS, init, census, thr = list(p.hidden), p.init, runs.census, p.census_threshold
    r = SimpleNamespace(**vars(fits), **vars(runs), **vars(p), CS=CS)
    r.BY_K, r.FUNC_K, r.SHARE, r.PER_UNIT = measures.census_views(census)
    r.FUNC_FINAL, r.PROFILE = measures.final_units(census, runs.tasks, thr)
    r.THRESH = measures.thresholds_census(census, runs.tasks, thr)
    r.PAPER_RELN = {C: paper_reln(C) for C in CS}
    r.TWINS = {C: [i for i in same_start(runs.sim[C], init) if i != init] for C in CS}
    r.SENS = {f"C{C}": _sensitivity(r, C) for C in CS}
    r.REUSE = {  # contexts per unit (median over seeds), by weight and by function
        how: {f"C{C}": kit.med(r.PER_UNIT[C, how][:, -1]) for C in CS}
        for how in ("weight", "function")
    }
    r.RISE = _rises(r, thr)
    return r


def _sensitivity(r, C: int) -> dict:
    """``init_sensitivity`` at ``C``: per init the three time gaps and two verdicts."""
    return {
        "seed_spread": r.closed[C, r.init].spread,
        "alternative": r.closed[C, r.init].alternative,
        "same_start_as_" + r.init: r.TWINS[C],
        **{
            i: {
                "gap_relu_closed_form": r.closed[C, i].value,
                "gap_relu_reln": r.reln[C, i].value,
                "gap_reln_closed_form": kit.med(r.check[C, i]),
                "verdict": verdict(r.closed[C, i]),
                "verdict_reln": verdict(r.reln[C, i]),
            }
            for i in INITS
        },
    }


def _rises(r, thr: float) -> dict:
    """Per definition, the smallest rise of the fraction of contexts a unit serves."""
    CS, per_unit = r.CS, r.PER_UNIT
    frac = {"primary": {C: per_unit[C, "weight"][:, -1] / C for C in CS}}
    for t, per_c in r.THRESH.items():
        if t != thr:
            frac[t] = {C: per_c[C][:, 1] / C for C in CS}
    frac["function"] = {C: per_unit[C, "function"][:, -1] / C for C in CS}
    frac["onehot"] = {C: onehot_fraction(r.onehot, C, frac["primary"][C]) for C in CS}
    rise = {k: measures.smallest_rise(v) for k, v in frac.items()}
    for x in rise.values():
        kw = {"spread": x["spread"], "spread_interval": x["interval"]}
        x["evidence"] = Evidence(x["value"], criterion="beyond_noise", **kw)
        x["verdict"] = verdict(x["evidence"])
    return rise


def _level_ratio(r, C: int, choice: str) -> np.ndarray:
    """ln(t_closed form / t_ReLU) at each level, median over seeds."""
    pairs = zip(r.sim[C]["relu"].loss, r.closed_init[C, choice])
    return np.nanmedian([np.log(level_times(b) / level_times(a)) for a, b in pairs], 0)


def _closed_form_glue(r) -> dict:
    """Glue of the closed form against the ReLN and the ReLU network (Fig. 5)."""
    CS, init, CF, M = r.CS, r.init, r.closed_forms, r.closed
    hs = {C: CF[C]["head_start"] for C in CS}
    CM = {C: context_modes(r.tasks[C]) for C in CS}
    gaps = measures.gap_variants(CS, CF, r.sim, init)
    half = measures.halfway(CS, CM, CF, r.modes, r.t_all, r.t_rec, r.lr)
    implied = [x[-1] for x in half]
    g = {
        "init": init,
        "a0_common": float(hs[CS[0]].a0_common),
        "a0_none": float(CF[CS[0]]["none"].a0_context[0]),
        "a0_range": f"{min(hs[C].a0_context.min() for C in CS):.1e} to "
        f"{max(hs[C].a0_context.max() for C in CS):.1e}",
    }
    for C in CS:
        # the page cites the level ratio at C = 3 down to 1 %, at C = 5 at every level
        level = _level_ratio(r, C, init)[: {3: 3, 5: len(LEVELS)}.get(C, 0)]
        g |= {
            f"gap_reln_{C}": kit.med(r.check[C, init]),
            f"gap_relu_{C}": M[C, init].value,
            f"spread_{C}": M[C, init].spread,
            f"alt_{C}": M[C, init].alternative,
            f"gap_relu_reln_{C}": r.reln[C, init].value,
            **{f"level_{C}_{k}": float(x) for k, x in enumerate(level)},
            f"verdict_{C}": verdict(M[C, init]),
        }
    # the largest gap between the simulated ReLN's and the closed form's context
    # mode strengths, relative to s
    sv_gap = (
        np.abs(r.modes[C]["reln"][1] - hs[C].a_context[r.t_rec][None]) / CM[C].s
        for C in CS
    )
    return g | {
        **{f"level_{k}": f"{100 * f:g} %" for k, f in enumerate(LEVELS)},
        "check_max": max(float(np.max(v)) for v in r.check.values()),
        "gap_none_min": min(gaps[C, "none", "reln"] for C in CS),
        "gap_linear_max": max(gaps[C, "linear", "reln"] for C in CS),
        "sv_gap": max(kit.med(np.max(x, axis=(1, 2))) for x in sv_gap),
        "implied_lo": float(1 / np.nanmax(implied)),
        "implied_hi": float(1 / np.nanmin(implied)),
    }


def _init_glue(r) -> dict:
    """Glue of the section on how the ReLN starts."""
    CS, M, init = r.CS, r.closed, r.init
    g, dist = {}, {}
    for C in CS:
        for i in INITS:
            # the review's measure, to compare with its numbers (the page's: at C = 3
            # and 5, the authors' and the matched start): curve distance
            pairs = zip(r.sim[C]["relu"].loss, r.sim[C]["mixed", i].loss)
            dist[C, i] = kit.med([curve_distance(a, b) for a, b in pairs])
            g[f"sens_{C}_{i}"] = M[C, i].value
            if C in (3, 5) and i != "derived":
                g[f"dist_{C}_{i}"] = dist[C, i]
        # the matched start: the share of the authors' gap it closes, and its
        # largest level ratio to the ReLU network
        x = _level_ratio(r, C, "matched")
        k = int(np.nanargmax(np.abs(x)))
        g[f"closed_{C}"] = 100 * (1 - M[C, "matched"].value / M[C, "authors"].value)
        g[f"2spread_{C}"] = 2 * M[C, init].spread
        way = "slower" if x[k] < 0 else "faster"
        said = {"ratio": abs(x[k]), "level": 100 * LEVELS[k], "way": way}
        g[f"level_matched_{C}_last"] = _say("level_matched", **said)
    confirmed = dist[CS[0], "matched"] < 0.5 * dist[CS[0], "authors"]
    twins = [f"{', '.join(r.TWINS[C])} at C = {C}" for C in CS if r.TWINS[C]]
    best = {C: min(INITS, key=lambda i: M[C, i].value) for C in CS}
    got = Counter(verdict(M[C, i]) for C in CS for i in INITS)
    n = len(CS) * len(INITS)
    inside, open_ = (  # the starts within the seed noise, and those undecided
        "; ".join(
            f"C = {C} ({', '.join(v)})"
            for C in CS
            if (v := [i for i in INITS if verdict(M[C, i]) == w])
        )
        for w in ("reproduced", "undecided")
    )
    first = _say("init_within", inside=inside) if inside else _say("init_none_within")
    last = _say("init_undecided", open=open_) if open_ else _say("init_none_undecided")
    return g | {
        "review_confirmed": "confirmed" if confirmed else "not confirmed",
        "same_start": "; ".join(twins) if twins else "no choice here",
        "best": ", ".join(f"{best[C]} (C = {C})" for C in CS),
        "verdicts_all": ", ".join(f"{v} in {k} of {n}" for v, k in sorted(got.items())),
        "init_reading": first + last,
    }


def _family_glue(r) -> dict:
    """Glue of the section on the family of ReLNs."""
    g, parts, moved = {}, [], []
    for C in r.CS:
        F, W = r.follows[C], r.follows_wide[C]
        # the page names the paper's ReLN at C > 3, the best rival's gap at C = 5
        g |= {f"paper_reln_{C}": r.PAPER_RELN[C]} if C > 3 else {}
        g |= {f"follow_{C}": F.value, f"follow_best_{C}": F.best}
        g |= {f"follow_best_gap_{C}": F.candidates[F.best]} if C == 5 else {}
        g[f"follow_verdict_{C}"] = verdict(F)
        gaps = {"gap": F.candidates[F.best], "wide_gap": W.candidates[W.best]}
        parts.append(_say("width_part", C=C, F=F, W=W, verdict=verdict(W), **gaps))
        if verdict(F) != verdict(W):
            moved.append(f"C = {C} ({verdict(F)} -> {verdict(W)})")
    if 3 in r.CS:
        g["follow_text_3"] = r.follows[3].candidates["2-of-3"]
    widest = max(  # the widest member's units, at reln_width units per pathway
        r.reln_width * pathway_count([int(k) for k in n.split("-of-")[0].split("+")], C)
        for C in r.CS
        for n in r.follows_wide[C].candidates
    )
    moved = _say("width_moved", moved=", ".join(moved)) if moved else None
    said = {"said": "; ".join(parts), "moved": moved or _say("width_none_moved")}
    hidden = ", ".join(str(r.hidden[C]) for C in r.CS)
    g["width_reading"] = _say(
        "width_reading", width=r.reln_width, widest=widest, hidden=hidden, **said
    )
    return g


def _census_glue(r) -> dict:
    """Glue of the census section."""
    CS, REUSE, BY_K, med, g = r.CS, r.REUSE, r.BY_K, kit.med, {}
    for C in CS:
        w, f = REUSE["weight"][f"C{C}"], REUSE["function"][f"C{C}"]
        g |= {
            f"share_{C}": med(r.SHARE[C][:, -1]),
            f"reuse_{C}": w,
            f"reuse_f_{C}": f,
            f"frac_{C}": w / C,
            f"frac_f_{C}": f / C,
            **({f"single_{C}": med(BY_K[C][:, -1, 1])} if C == 5 else {}),
            f"multi_{C}": med(BY_K[C][:, -1, 2:C].sum(axis=1)),
            f"snap_{C}": 100 * med([x["snap_change"] for x in r.FUNC_FINAL[C]]),
        }
        if C > 3:
            g[f"cm2_{C}"] = med(BY_K[C][:, -1, C - 2])
            g[f"cm2_f_{C}"] = med(r.FUNC_K[C][:, -1, C - 2])
        # the units on in 3 of the 5 contexts: their profile, as in the record
        if C == 5:
            for key in (k for k in r.PROFILE[C][0] if k != "share"):
                g[f"prof_{C}_{key}"] = med([p[key] for p in r.PROFILE[C]])
    rise, share = r.RISE["primary"], [kit.med(r.SHARE[C][:, -1]) for C in CS]
    trend = {}
    for how in ("weight", "function"):
        x = np.diff([REUSE[how][f"C{C}"] / C for C in CS])
        trend[how] = "rises" if all(x > 0) else "falls" if all(x < 0) else None
    side = {C: REUSE["weight"][f"C{C}"] / C > (C - 1) / C for C in CS}  # above?
    rises = all(np.diff(list(REUSE["weight"].values())) > 0)
    return g | {
        "reuse_spread": max(seed_spread(r.PER_UNIT[C, "weight"][:, -1]) for C in CS),
        "frac_rise": rise["value"],
        "frac_spread": rise["spread"],
        "frac_interval": "{:.3f}-{:.3f}".format(*rise["interval"]),
        "reuse_rises": "rises" if rises else "does not rise",
        "share_trend": "falls" if share[-1] < share[0] else "does not fall",
        "frac_trend": trend["weight"] or "moves in no one direction",
        "frac_f_trend": trend["function"] or "moves in no one direction",
        "frac_vs_reln": "; ".join(
            f"{w} the ReLN's (C-1)/C by weight at C = "
            + ", ".join(str(C) for C in CS if side[C] == up)
            for w, up in (("above", True), ("below", False))
            if up in side.values()
        ),
    }


def _onehot_glue(r) -> dict:
    """Glue of the paragraph on one-hot contexts (the ``input`` variant)."""
    if not r.onehot:
        return {"onehot_reading": _say("onehot_none")}
    med, parts = kit.med, []
    for C in r.CS:
        one = prim = med(r.SHARE[C][:, -1]), r.REUSE["weight"][f"C{C}"] / C
        if C in r.onehot:
            one = med(r.onehot[C]["share"]), med(r.onehot[C]["per_unit"]) / C
        parts.append(_say("onehot_part", C=C, k=C - 1, prim=prim, one=one))
    rise, rise1 = r.RISE["primary"], r.RISE["onehot"]
    way = "rises" if rise1["value"] > 0 else "falls"
    said = {"n": len(r.seeds), "parts": "; ".join(parts), "way": way}
    return {"onehot_reading": _say("onehot_reading", one=rise1, prim=rise, **said)}


def _mixed_share(r, C: int):
    """``share_mixed_selective`` at ``C``, with its input and threshold variants."""
    share = share_at_bound(r.SHARE[C][:, -1], kit.med(r.family_share[C][f"1-of-{C}"]))
    alt = share.alternative
    if C in r.onehot:  # the authors' input is one-hot already at C = 3
        onehot = share_at_bound(r.onehot[C]["share"], alt)
        share = share.varied("input", {"one-hot contexts": onehot})
    at = {
        f"on = active for >= {thr:g} of its items": share_at_bound(per_c[C][:, 0], alt)
        for thr, per_c in r.THRESH.items()
        if thr != r.census_threshold
    }
    return share.varied("threshold", at)


def _per_c_records(r, C: int) -> list[tuple]:
    """The four records at ``C``, with every field of their notes."""
    init, twins, M, reln = r.init, r.TWINS[C], r.closed, r.reln
    others = [i for i in INITS if i != init]
    setting = {i: f"{i} (starts as {init} here)" if i in twins else i for i in others}
    stand_in = " (the text's common + 2-of-3 ReLN)" if C == 3 else ""
    wide = f"{r.reln_width} units per pathway (the rivals wider than the ReLU network)"
    starts = {  # the clause on the other starts (init_sensitivity)
        key: setup_clause({i: r.SENS[f"C{C}"][i][key] for i in INITS}, init, twins)
        for key in ("verdict", "verdict_reln")
    }
    closed = M[C, init].varied("init", {setting[i]: M[C, i] for i in others})
    follows = r.follows[C].varied(
        "init", {setting[i] + stand_in: reln[C, i] for i in others}
    )
    evidence = {
        "gap_reln_closed_form": Evidence(kit.med(r.check[C, init]), criterion="gap"),
        "gap_relu_closed_form": closed.varied("width", {wide: r.closed_wide[C, init]}),
        "follows_reln": follows.varied("width", {wide: r.follows_wide[C]}),
        "share_mixed_selective": _mixed_share(r, C),
    }
    paper, ds, clause = r.PAPER_RELN[C], r.tasks[C], starts["verdict_reln"]
    a, b = kit.med(r.sim[C]["relu"].loss[:, -1]), kit.med(r.family[C][paper][:, -1])
    values = {
        **{"C": C, "k": C - 1, "init": init, "n": len(r.seeds), "paper": paper},
        **{"a": a, "b": b, "ratio": a / b, "thr": r.census_threshold},
        "largest": max(float(np.max(r.check[C, i])) for i in INITS),
        "net": f"{ds.X.shape[0]}-{r.hidden[C]}-{ds.Y.shape[0]}",
        "cf_alt": measures.competitor(M[C, init], f"closed form ({C - 1}-of-{C})"),
        "cf_starts": starts["verdict"],
        "alt": measures.competitor(r.follows[C], paper),
        "width": r.reln_width,
        "alt_wide": measures.competitor(r.follows_wide[C], paper),
        "starts": clause,
        # C = 3: the text's ReLN, and the clause mid-sentence
        "text_gap": r.follows[C].candidates.get("2-of-3"),
        "starts_mid": clause[0].lower() + clause[1:],
    }
    return [(f"{name}_C{C}", ev, values) for name, ev in evidence.items()]


def _records(r) -> list[tuple]:
    """Every record of the chapter as ``(name, evidence, values of its note)``."""
    med, F, RISE = kit.med, r.FUNC_FINAL, r.RISE
    out = [x for C in r.CS for x in _per_c_records(r, C)]
    frac = {
        how: {k: v / int(k[1:]) for k, v in x.items()} for how, x in r.REUSE.items()
    }
    # the primary rise, the other thresholds, one-hot contexts and the rise through
    # the function as its variants; the other thresholds' and the function's in words
    ev = {k: x["evidence"] for k, x in RISE.items()}
    at = {k: f"at threshold {k:g}" for k in RISE if not isinstance(k, str)}
    thresholds = {f"on/off threshold {k:g}": ev[k] for k in at}
    rise = ev["primary"].varied("threshold", thresholds)
    rise = rise.varied("input", {"one-hot contexts": ev["onehot"]})
    rise = rise.varied("definition", {"through the function": ev["function"]})
    at["function"] = "through the function"
    values = {
        "init": r.init,
        "n": len(r.seeds),
        "others": "; ".join(_say("rise_other", at=a, x=RISE[k]) for k, a in at.items()),
        "fractions": ", ".join(f"{k} {v:.3f}" for k, v in frac["weight"].items()),
        "per_unit": ", ".join(f"{k} {v:.2f}" for k, v in r.REUSE["weight"].items()),
        "step": RISE["primary"]["step"],
        "onehot": RISE["onehot"]["value"],
        "onehot_step": RISE["onehot"]["step"],
        "function": ", ".join(f"{k} {v:.3f}" for k, v in frac["function"].items()),
    }
    census = {f"C{C}": {k: med([f[k] for f in F[C]]) for k in F[C][0]} for C in r.CS}
    out += [
        ("init_sensitivity", r.SENS, values),
        ("node_reuse_contexts_per_unit", rise, values),
        ("node_reuse_fraction", frac["weight"], values),
        ("functional_census", census, values),
    ]
    if 5 in r.CS:  # the ReLU units on in 3 of the 5 contexts: shares and profile
        by_k, P = r.BY_K[5][:, -1], r.PROFILE[5]
        units = {"weight_share": med(by_k[:, 3])}
        units["function_share"] = med(r.FUNC_K[5][:, -1, 3])
        if 5 in r.onehot:
            units["weight_share_onehot"] = med(r.onehot[5]["by_k"][:, 3])
            units["weight_share_4_of_5_onehot"] = med(r.onehot[5]["by_k"][:, 4])
            units["weight_share_4_of_5"] = med(by_k[:, 4])
        units |= {k: med([p[k] for p in P]) for k in P[0] if k != "share"}
        out.append(("units_3_of_5_C5", units, values))
    return out


def _verdict_glue(r, R: dict) -> dict:
    """Glue of the verdicts the census section's prose states."""
    g, undecided = {}, []
    for C in r.CS:
        share = R[f"share_mixed_selective_C{C}"]
        g[f"share_verdict_{C}"] = share["verdict"]
        g[f"share_alt_{C}"] = share["alternative"]
        if share["verdict"] == "undecided":
            undecided.append((f"the share at C = {C}", share))
    reuse = R["node_reuse_contexts_per_unit"]
    if reuse["verdict"] == "undecided":
        undecided.append(("the rise of node reuse", reuse))
    items = [
        (w, x, re.split(r" \(|; alternative", x["reason"])[0]) for w, x in undecided
    ]
    said = "; ".join(_say("undecided_item", who=w, x=x, reason=y) for w, x, y in items)
    reading = _say("undecided_reading", n=len(r.seeds), said=said)
    return g | {
        "reuse_verdict": reuse["verdict"],
        "undecided_reading": reading if undecided else _say("undecided_none"),
    }


def _summary(r, R: dict) -> str:
    """The closing table, in :data:`SUMMARY`'s order."""
    rows = []
    for key in SUMMARY:
        for C in r.CS if key.endswith("_C") else [None]:
            name = f"{key}{C}" if C else key
            if name in R:
                e = rulebook.claim("extra_contexts", name)
                said = e["summary"].format(init=r.init, reln=r.PAPER_RELN.get(C))
                rows.append((said, e["summary_quote"], R[name]))
    return claims_table(rows)


def report(rec, params: Params, runs: Runs, fits: measures.Fits) -> dict:
    """Write and save the page's records (``rec``: its Records) and glue from its
    parameters, runs and fits (:func:`.measures.fit_all`). Defined for the page
    book/extra_contexts.md.

    Returns:
        ``{"records": {name: stored record}, "summary": the closing table}``.
    """
    r = _page(params, runs, fits)
    for f in (_closed_form_glue, _init_glue, _family_glue, _census_glue, _onehot_glue):
        kit.glue_many("ec", f(r))
    R = kit.add_all(rec, _records(r))
    kit.glue_many("ec", _verdict_glue(r, R))
    rec.save()
    return {"records": R, "summary": _summary(r, R)}
