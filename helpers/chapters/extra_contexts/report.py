"""The records, glue and closing table of the page book/extra_contexts.md, from the
page's runs (:class:`Runs`), its parameters (:class:`Params`) and its fits
(:class:`helpers.chapters.extra_contexts.measures.Fits`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from ...book import kit
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
from .closed_form import context_modes
from .measures import (
    Fits,
    census_views,
    competitor,
    final_units,
    gap_variants,
    halfway,
    smallest_rise,
    thresholds_census,
)
from .networks import paper_reln, same_start


@dataclass
class Params:
    """The page's parameters the report reads (``seeds``: the list of seeds;
    ``hidden``: ``{C: ReLU width}``, its keys the page's C)."""

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
    """The page's runs per C: its tasks, the trained networks
    (:func:`helpers.chapters.extra_contexts.networks.train_networks`), the ReLU census
    (``relu_census``), the family's losses and weight shares (``train_family``), the
    one-hot census (:func:`helpers.core.families.onehot_census`, per C where the input
    is not one-hot), the head-start variants of the closed form (``closed_forms``:
    ``{C: {method: ClosedForm}}``), each init's closed-form losses (``closed_init``)
    and the mode strengths read off the outputs (``modes``: ``trained_and_read``)."""

    tasks: dict
    sim: dict
    census: dict
    family: dict
    family_share: dict
    onehot: dict
    closed_forms: dict
    closed_init: dict
    modes: dict


def _page(p: Params, runs: Runs, fits: Fits) -> SimpleNamespace:
    """The page's parameters, runs and fits, with what the page derives from them by
    its own functions (under the page's names)."""
    CS, DS, SIM, CF = list(p.hidden), runs.tasks, runs.sim, runs.closed_forms
    CM = {C: context_modes(DS[C]) for C in CS}
    BY_K, FUNC_K, SHARE, PER_UNIT = census_views(runs.census)
    FUNC_FINAL, PROFILE = final_units(runs.census, DS, p.census_threshold)
    return SimpleNamespace(
        **vars(fits),
        **vars(runs),
        **vars(p),
        CS=CS,
        INITS=INITS,
        CM=CM,
        PAPER_RELN={C: paper_reln(C) for C in CS},
        SAME_START={C: same_start(SIM[C], p.init) for C in CS},
        MODES=runs.modes,
        GAP_VAR=gap_variants(CS, CF, SIM, p.init),
        HALFWAY=halfway(CS, CM, CF, runs.modes, p.t_all, p.t_rec, p.lr),
        SHARE=SHARE,
        BY_K=BY_K,
        FUNC_K=FUNC_K,
        PER_UNIT=PER_UNIT,
        FUNC_FINAL=FUNC_FINAL,
        PROFILE=PROFILE,
        THRESH=thresholds_census(runs.census, DS, p.census_threshold),
    )


def _level_ratio(r, C: int, choice: str) -> np.ndarray:
    """ln(t_closed form / t_ReLU) at each level, median over seeds."""
    pairs = zip(r.sim[C]["relu"].loss, r.closed_init[C, choice])
    return np.nanmedian([np.log(level_times(b) / level_times(a)) for a, b in pairs], 0)


def _closed_form_glue(r) -> dict:
    """Glue of the closed form against the ReLN and the ReLU network (Fig. 5)."""
    CS, init, M = r.CS, r.init, r.closed
    hs = {C: r.closed_forms[C]["head_start"] for C in CS}
    g = {
        "init": init,
        "a0_common": float(hs[CS[0]].a0_common),
        "a0_none": float(r.closed_forms[CS[0]]["none"].a0_context[0]),
        "a0_range": f"{min(hs[C].a0_context.min() for C in CS):.1e} to "
        f"{max(hs[C].a0_context.max() for C in CS):.1e}",
    }
    for C in CS:
        level = _level_ratio(r, C, init)
        g |= {
            f"gap_reln_{C}": kit.med(r.check[C, init]),
            f"gap_relu_{C}": M[C, init].value,
            f"spread_{C}": M[C, init].spread,
            f"alt_{C}": M[C, init].alternative,
            f"gap_relu_reln_{C}": r.reln[C, init].value,
            **{f"level_{C}_{k}": float(level[k]) for k in range(len(LEVELS))},
            f"verdict_{C}": verdict(M[C, init]),
        }
    # the largest gap between the simulated ReLN's and the closed form's context
    # mode strengths, relative to s
    sv_gap = (
        np.abs(r.MODES[C]["reln"][1] - hs[C].a_context[r.t_rec][None]) / r.CM[C].s
        for C in CS
    )
    implied = [row[-1] for row in r.HALFWAY]
    return g | {
        **{f"level_{k}": f"{100 * f:g} %" for k, f in enumerate(LEVELS)},
        "check_max": max(float(np.max(v)) for v in r.check.values()),
        "gap_none_min": min(r.GAP_VAR[C, "none", "reln"] for C in CS),
        "gap_linear_max": max(r.GAP_VAR[C, "linear", "reln"] for C in CS),
        "sv_gap": max(kit.med(np.max(x, axis=(1, 2))) for x in sv_gap),
        "implied_lo": float(1 / np.nanmax(implied)),
        "implied_hi": float(1 / np.nanmin(implied)),
    }


def _sensitivity(r) -> dict:
    """The value of ``init_sensitivity``: per C and initialisation, the three time
    gaps and the verdicts on "excellent agreement" (closed form; ReLN)."""
    init = r.init
    return {
        f"C{C}": {
            "seed_spread": r.closed[C, init].spread,
            "alternative": r.closed[C, init].alternative,
            "same_start_as_" + init: [i for i in r.SAME_START[C] if i != init],
            **{
                choice: {
                    "gap_relu_closed_form": r.closed[C, choice].value,
                    "gap_relu_reln": r.reln[C, choice].value,
                    "gap_reln_closed_form": kit.med(r.check[C, choice]),
                    "verdict": verdict(r.closed[C, choice]),
                    "verdict_reln": verdict(r.reln[C, choice]),
                }
                for choice in r.INITS
            },
        }
        for C in r.CS
    }


def _init_glue(r, SENS: dict) -> dict:
    """Glue of the section on how the ReLN starts."""
    CS, INITS, M, init = r.CS, r.INITS, r.closed, r.init
    # the review's measure, to compare with its numbers: curve distance ReLU vs ReLN
    dist = {
        (C, i): kit.med(
            [
                curve_distance(a, b)
                for a, b in zip(r.sim[C]["relu"].loss, r.sim[C]["mixed", i].loss)
            ]
        )
        for C in CS
        for i in INITS
    }
    g = {}
    for C in CS:
        for i in INITS:
            g[f"sens_{C}_{i}"] = M[C, i].value
            g[f"sens_{C}_{i}_verdict"] = SENS[f"C{C}"][i]["verdict"]
            g[f"dist_{C}_{i}"] = dist[C, i]
        x = _level_ratio(r, C, "matched")
        k = int(np.nanargmax(np.abs(x)))
        g |= {
            f"closed_{C}": 100 * (1 - M[C, "matched"].value / M[C, "authors"].value),
            f"2spread_{C}": 2 * M[C, init].spread,
            f"level_matched_{C}_last": f"{abs(x[k]):.3f} at the {100 * LEVELS[k]:g} % "
            f"level (the ReLU network {'slower' if x[k] < 0 else 'faster'})",
        }
    confirmed = dist[CS[0], "matched"] < 0.5 * dist[CS[0], "authors"]
    twins = [
        f"{', '.join(i for i in r.SAME_START[C] if i != init)} at C = {C}"
        for C in CS
        if len(r.SAME_START[C]) > 1
    ]
    best = {C: min(INITS, key=lambda i: M[C, i].value) for C in CS}
    counts = Counter(SENS[f"C{C}"][i]["verdict"] for C in CS for i in INITS)
    n = len(CS) * len(INITS)
    inside, open_ = (
        [
            f"C = {C} ({', '.join(v)})"
            for C in CS
            if (v := [i for i in INITS if SENS[f"C{C}"][i]["verdict"] == w])
        ]
        for w in ("reproduced", "undecided")
    )
    return g | {
        "review_confirmed": "confirmed" if confirmed else "not confirmed",
        "same_start": "; ".join(twins) if twins else "no choice here",
        "best": ", ".join(f"{best[C]} (C = {C})" for C in CS),
        "verdicts_all": ", ".join(
            f"{v} in {k} of {n}" for v, k in sorted(counts.items())
        ),
        "init_reading": (
            "Within the seed noise: " + "; ".join(inside)
            if inside
            else "No choice is judged within the seed noise of the closed form at any C"
        )
        + (
            "; undecided (the verdict changes within the seed spread's interval): "
            + "; ".join(open_)
            + "."
            if open_
            else "; no result is undecided."
        ),
    }


def _family_glue(r) -> dict:
    """Glue of the section on the family of ReLNs."""
    g, parts, moved = {}, [], []
    for C in r.CS:
        F = r.follows[C]
        g |= {
            f"paper_reln_{C}": r.PAPER_RELN[C],
            f"follow_{C}": F.value,
            f"follow_best_{C}": F.best,
            f"follow_best_gap_{C}": F.candidates[F.best],
            f"follow_verdict_{C}": verdict(F),
        }
    if 3 in r.CS:
        g["follow_text_3"] = r.follows[3].candidates["2-of-3"]
    widest = max(
        r.reln_width * pathway_count([int(k) for k in n.split("-of-")[0].split("+")], C)
        for C in r.CS
        for n in r.follows_wide[C].candidates
    )
    for C in r.CS:
        F, W = r.follows[C], r.follows_wide[C]
        parts.append(
            f"C = {C}: nearest member {W.best} ({W.candidates[W.best]:.3f}; as wide "
            f"as the ReLU network: {F.best}, {F.candidates[F.best]:.3f}), the paper's "
            f"ReLN {verdict(W)}"
        )
        if verdict(F) != verdict(W):
            moved.append(f"C = {C} ({verdict(F)} -> {verdict(W)})")
    g["width_reading"] = (
        f"With {r.reln_width} units in every pathway instead (a rival then grows with "
        f"its pathway count, up to {widest} units against the ReLU network's "
        + ", ".join(str(r.hidden[C]) for C in r.CS)
        + "): "
        + "; ".join(parts)
        + ". "
        + (
            "The verdict depends on the width convention at " + ", ".join(moved) + "."
            if moved
            else "No verdict depends on the width convention."
        )
    )
    return g


def _rises(r) -> dict:
    """The smallest rise of the fraction of contexts a unit serves
    (:func:`helpers.chapters.extra_contexts.smallest_rise`): by weight at the page's
    threshold (the primary), at every other threshold of the threshold table, through
    the function and on one-hot contexts."""
    frac = {
        how: {C: r.PER_UNIT[C, how][:, -1] / C for C in r.CS}
        for how in ("weight", "function")
    }
    out = {"primary": smallest_rise(frac["weight"])}
    for thr, per_c in r.THRESH.items():
        if thr != r.census_threshold:
            out[thr] = smallest_rise({C: per_c[C][:, 1] / C for C in r.CS})
    out["function"] = smallest_rise(frac["function"])
    out["onehot"] = smallest_rise(
        {C: onehot_fraction(r.onehot, C, frac["weight"][C]) for C in r.CS}
    )
    return out


def _rise_evidence(rise: dict) -> Evidence:
    return Evidence(
        rise["value"],
        spread=rise["spread"],
        spread_interval=rise["interval"],
        criterion="beyond_noise",
    )


def _rise_verdict(rise: dict) -> str:
    return verdict(_rise_evidence(rise), criterion="beyond_noise")


def _census_glue(r, REUSE: dict, RISE: dict) -> dict:
    """Glue of the census section."""
    CS, BY_K, FUNC_K, med, g = r.CS, r.BY_K, r.FUNC_K, kit.med, {}
    for C in CS:
        w, f = REUSE["weight"][f"C{C}"], REUSE["function"][f"C{C}"]
        g |= {
            f"share_{C}": med(r.SHARE[C][:, -1]),
            f"reuse_{C}": w,
            f"reuse_f_{C}": f,
            f"frac_{C}": w / C,
            f"frac_f_{C}": f / C,
            f"single_{C}": med(BY_K[C][:, -1, 1]),
            f"multi_{C}": med(BY_K[C][:, -1, 2:C].sum(axis=1)),
            f"snap_{C}": 100 * med([x["snap_change"] for x in r.FUNC_FINAL[C]]),
        }
        if C > 3:
            g[f"cm2_{C}"] = med(BY_K[C][:, -1, C - 2])
            g[f"cm2_f_{C}"] = med(FUNC_K[C][:, -1, C - 2])
            for key in r.PROFILE[C][0]:
                g[f"prof_{C}_{key}"] = med([p[key] for p in r.PROFILE[C]])
    rise, share = RISE["primary"], [med(r.SHARE[C][:, -1]) for C in CS]
    trend = {}
    for how in ("weight", "function"):
        steps = np.diff([REUSE[how][f"C{C}"] / C for C in CS])
        trend[how] = (
            "rises"
            if all(steps > 0)
            else "falls"
            if all(steps < 0)
            else "moves in no one direction"
        )
    side = {
        C: "above" if REUSE["weight"][f"C{C}"] / C > (C - 1) / C else "below"
        for C in CS
    }
    rises = all(np.diff(list(REUSE["weight"].values())) > 0)
    return g | {
        "reuse_spread": max(seed_spread(r.PER_UNIT[C, "weight"][:, -1]) for C in CS),
        "frac_rise": rise["value"],
        "frac_spread": rise["spread"],
        "frac_interval": "{:.3f}-{:.3f}".format(*rise["interval"]),
        "reuse_rises": "rises" if rises else "does not rise",
        "share_trend": "falls" if share[-1] < share[0] else "does not fall",
        "frac_trend": trend["weight"],
        "frac_f_trend": trend["function"],
        "frac_vs_reln": "; ".join(
            f"{w} the ReLN's (C-1)/C by weight at C = "
            + ", ".join(str(C) for C in CS if side[C] == w)
            for w in ("above", "below")
            if w in side.values()
        ),
    }


def _onehot_glue(r, RISE: dict) -> dict:
    """Glue of the paragraph on one-hot contexts (the ``input`` variant)."""
    if not r.onehot:
        return {"onehot_reading": "Every context input here is one-hot already."}
    med, parts = kit.med, []
    for C in r.CS:
        prim = med(r.SHARE[C][:, -1]), med(r.PER_UNIT[C, "weight"][:, -1]) / C
        one = r.onehot.get(C, {})
        one = (med(one["share"]), med(one["per_unit"]) / C) if C in r.onehot else prim
        parts.append(
            f"C = {C}: share in common + {C - 1}-of-{C} units {prim[0]:.3f} -> "
            f"{one[0]:.3f}, fraction of contexts served {prim[1]:.3f} -> {one[1]:.3f}"
        )
    rise, rise1 = RISE["primary"], RISE["onehot"]
    return {
        "onehot_reading": "On one-hot contexts (the authors' input -> one-hot, median "
        f"over {len(r.seeds)} seeds): " + "; ".join(parts) + ". The fraction's "
        f"smallest step {'rises' if rise1['value'] > 0 else 'falls'} on one-hot "
        f"contexts ({rise1['value']:+.4f}, C = {rise1['step']}; with the authors' "
        f"input {rise['value']:+.4f}, C = {rise['step']}); by the rulebook's test of "
        "a rise (beyond the seed noise at every step) that is "
        f"{_rise_verdict(rise1)} on one-hot contexts against {_rise_verdict(rise)} "
        "with the authors' input."
    }


def _setting(choice: str, init: str, twins) -> str:
    return f"{choice} (starts as {init} here)" if choice in twins else choice


def _wide(r) -> str:
    return f"{r.reln_width} units per pathway (the rivals wider than the ReLU network)"


def _other_starts(r, SENS: dict, C: int, key: str) -> str:
    """The clause on the other starts for a record at C (init_sensitivity)."""
    return setup_clause(
        {i: SENS[f"C{C}"][i][key] for i in r.INITS}, r.init, same=r.SAME_START[C]
    )


def _per_c_records(r, SENS: dict, C: int) -> list[tuple]:
    """The records at C: the closed form against the ReLN and the ReLU network, the
    ReLU network against the paper's ReLN (held against the family), and the ReLU
    weight in the units the paper's ReLN has."""
    init, twins, paper, ds = r.init, r.SAME_START[C], r.PAPER_RELN[C], r.tasks[C]
    others = [i for i in r.INITS if i != init]
    C_n = {"C": C, "k": C - 1, "init": init, "n": len(r.seeds)}
    stand_in = " (the text's common + 2-of-3 ReLN)" if C == 3 else ""
    starts = _other_starts(r, SENS, C, "verdict_reln")
    a = kit.med(r.sim[C]["relu"].loss[:, -1])
    b = kit.med(r.family[C][paper][:, -1])
    alt_name = f"1-of-{C}"  # the paper's alternative: no (C-1)-of-C pathway at all
    share = share_at_bound(r.SHARE[C][:, -1], kit.med(r.family_share[C][alt_name]))
    if C in r.onehot:  # the authors' input is one-hot already at C = 3
        onehot = share_at_bound(r.onehot[C]["share"], share.alternative)
        share = share.varied("input", {"one-hot contexts": onehot})
    at = {
        f"on = active for >= {thr:g} of its items": share_at_bound(
            per_c[C][:, 0], share.alternative
        )
        for thr, per_c in r.THRESH.items()
        if thr != r.census_threshold
    }
    return [
        (
            f"gap_reln_closed_form_C{C}",
            Evidence(kit.med(r.check[C, init]), criterion="gap"),
            C_n | {"largest": max(float(np.max(r.check[C, i])) for i in r.INITS)},
        ),
        (
            f"gap_relu_closed_form_C{C}",
            r.closed[C, init]
            .varied("init", {_setting(i, init, twins): r.closed[C, i] for i in others})
            .varied("width", {_wide(r): r.closed_wide[C, init]}),
            C_n
            | {
                "net": f"{ds.X.shape[0]}-{r.hidden[C]}-{ds.Y.shape[0]}",
                "alt": competitor(r.closed[C, init], f"closed form ({C - 1}-of-{C})"),
                "starts": _other_starts(r, SENS, C, "verdict"),
            },
        ),
        (
            f"follows_reln_C{C}",
            r.follows[C]
            .varied(
                "init",
                {_setting(i, init, twins) + stand_in: r.reln[C, i] for i in others},
            )
            .varied("width", {_wide(r): r.follows_wide[C]}),
            C_n
            | {
                "paper": paper,
                "alt": competitor(r.follows[C], paper),
                "width": r.reln_width,
                "alt_wide": competitor(r.follows_wide[C], paper),
                "a": a,
                "b": b,
                "ratio": a / b,
                "starts": starts,
                # C = 3: the text's ReLN, and the clause mid-sentence
                "text_gap": r.follows[C].candidates.get("2-of-3"),
                "starts_mid": starts[0].lower() + starts[1:],
            },
        ),
        (
            f"share_mixed_selective_C{C}",
            share.varied("threshold", at),
            C_n | {"thr": r.census_threshold},
        ),
    ]


def _reuse_records(r, REUSE: dict, RISE: dict) -> list[tuple]:
    """The rise of node reuse with C, and the fractions it is made of."""
    # the rise at the other thresholds and through the function go in the note, not
    # in variants: the claim lists only seeds (a stored reason must begin with what
    # the rulebook gives the stored fields alone, its seeds clause included, which an
    # undecided verdict's further variants would break)
    others = "; ".join(
        f"{'through the function' if k == 'function' else f'at threshold {k:g}'} "
        f"{x['value']:+.4f} against 2 x {x['spread']:.4f} ({_rise_verdict(x)})"
        for k, x in RISE.items()
        if k not in ("primary", "onehot")
    )
    at = {
        f"on/off threshold {k:g}": _rise_evidence(x)
        for k, x in RISE.items()
        if k not in ("primary", "function", "onehot")
    }
    rise_ev = (
        _rise_evidence(RISE["primary"])
        .varied("threshold", at)
        .varied("input", {"one-hot contexts": _rise_evidence(RISE["onehot"])})
        .varied(
            "definition", {"through the function": _rise_evidence(RISE["function"])}
        )
    )
    w, f = REUSE["weight"], REUSE["function"]
    return [
        (
            "node_reuse_contexts_per_unit",
            rise_ev,
            {
                "n": len(r.seeds),
                "fractions": ", ".join(
                    f"{k} {v / int(k[1:]):.3f}" for k, v in w.items()
                ),
                "per_unit": ", ".join(f"{k} {v:.2f}" for k, v in w.items()),
                "step": RISE["primary"]["step"],
                "others": others,
                "onehot": RISE["onehot"]["value"],
                "onehot_step": RISE["onehot"]["step"],
            },
        ),
        (
            "node_reuse_fraction",
            {k: v / int(k[1:]) for k, v in w.items()},
            {"function": ", ".join(f"{k} {v / int(k[1:]):.3f}" for k, v in f.items())},
        ),
    ]


def _records(r, SENS: dict, REUSE: dict, RISE: dict) -> list[tuple]:
    """Every record of the chapter as ``(name, evidence, values of its note)``."""
    med, F = kit.med, r.FUNC_FINAL
    out = [x for C in r.CS for x in _per_c_records(r, SENS, C)]
    out += [
        ("init_sensitivity", SENS, {"init": r.init}),
        *_reuse_records(r, REUSE, RISE),
        (
            "functional_census",
            {f"C{C}": {k: med([f[k] for f in F[C]]) for k in F[C][0]} for C in r.CS},
            {},
        ),
    ]
    if 5 in r.CS:  # the ReLU units on in 3 of the 5 contexts
        by_k, P = r.BY_K[5][:, -1], r.PROFILE[5]
        onehot = {}
        if 5 in r.onehot:
            onehot = {
                "weight_share_onehot": med(r.onehot[5]["by_k"][:, 3]),
                "weight_share_4_of_5_onehot": med(r.onehot[5]["by_k"][:, 4]),
                "weight_share_4_of_5": med(by_k[:, 4]),
            }
        units = {
            "weight_share": med(by_k[:, 3]),
            "function_share": med(r.FUNC_K[5][:, -1, 3]),
            **onehot,
            **{k: med([p[k] for p in P]) for k in P[0] if k != "share"},
        }
        out.append(("units_3_of_5_C5", units, {}))
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
    said = "; ".join(
        f"{name} ({x['reason'].split(' (')[0].split('; alternative')[0]}; the "
        "spread's 90 % interval "
        f"{x['spread_interval'][0]:.4f}-{x['spread_interval'][1]:.4f})"
        for name, x in undecided
    )
    return g | {
        "reuse_verdict": reuse["verdict"],
        "undecided_reading": f"Undecided over {len(r.seeds)} seeds: {said}: the seed "
        "spread, the yardstick, is itself too uncertain over so few seeds; more seeds "
        "(the paper profile's) are the way to decide them."
        if undecided
        else "No verdict here is undecided.",
    }


_AGREE = "once again see excellent agreement (Fig. 5)"
_REUSE = "as the number of contexts increases, so too does the bias towards node reuse"


def _summary(r, R: dict) -> str:
    """The closing table: ``(claim, the paper's words, record)`` per row."""
    CS, fig5 = r.CS, "excellent agreement (Fig. 5)"
    rows = [
        *(
            (f"Closed form (App. F-G) matches the simulated ReLN, C = {C} (book's "
             "check)", fig5, R[f"gap_reln_closed_form_C{C}"])
            for C in CS
        ),
        *(
            (f"Closed form matches the ReLU network's loss, C = {C} ({r.init} init)",
             _AGREE, R[f"gap_relu_closed_form_C{C}"])
            for C in CS
        ),
        ("The same under the three initialisations of the ReLN",
         "the same hyper-parameters (App. H)", R["init_sensitivity"]),
        *(
            (f"The ReLU network follows the ReLN {r.PAPER_RELN[C]} (the authors' "
             f"Fig. 5 ReLN), C = {C}", _AGREE, R[f"follows_reln_C{C}"])
            for C in CS
        ),
        ("Node reuse grows with C: the fraction of the C contexts a ReLU unit serves "
         "rises (smallest step)", _REUSE, R["node_reuse_contexts_per_unit"]),
        ("The same as a fraction of the C contexts", "—", R["node_reuse_fraction"]),
        *(
            (f"ReLU weight in common or {C - 1}-of-{C} units (the ReLN's pathways), "
             f"C = {C}", "the imitating ReLN has only these pathways",
             R[f"share_mixed_selective_C{C}"])
            for C in CS
        ),
        ("The census through the function", "—", R["functional_census"]),
    ]  # fmt: skip
    if "units_3_of_5_C5" in R:
        rows.append(("The 3-of-5 units at C = 5", "—", R["units_3_of_5_C5"]))
    return claims_table(rows)


def report(rec, params: Params, runs: Runs, fits: Fits) -> dict:
    """Write and save the page's records (``rec``: its
    :class:`helpers.book.records.Records`) and glue from its parameters, runs and fits
    (:func:`helpers.chapters.extra_contexts.measures.fit_all`).

    Defined for the page book/extra_contexts.md.

    Returns:
        ``{"records": {name: stored record}, "summary": the closing table as
        Markdown}``.
    """
    r = _page(params, runs, fits)
    SENS, REUSE = (
        _sensitivity(r),
        {
            how: {f"C{C}": kit.med(r.PER_UNIT[C, how][:, -1]) for C in r.CS}
            for how in ("weight", "function")
        },
    )
    RISE = _rises(r)
    kit.glue_many("ec", _closed_form_glue(r))
    kit.glue_many("ec", _init_glue(r, SENS))
    kit.glue_many("ec", _family_glue(r))
    kit.glue_many("ec", _census_glue(r, REUSE, RISE))
    kit.glue_many("ec", _onehot_glue(r, RISE))
    R = kit.add_all(rec, _records(r, SENS, REUSE, RISE))
    kit.glue_many("ec", _verdict_glue(r, R))
    rec.save()
    return {"records": R, "summary": _summary(r, R)}
