"""The records, glue and closing table of the page book/extra_contexts.md, from the
page's runs (:class:`Runs`), its parameters (:class:`Params`) and its fits
(:class:`helpers.chapters.extra_contexts.measures.Fits`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...book import kit
from ...book.notebook import glue
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


@dataclass
class _Page(Fits, Runs, Params):
    """The page's parameters, runs and fits, with what the report derives from them
    by the page's own functions (under the page's names)."""

    CS: list
    INITS: tuple
    CM: dict
    PAPER_RELN: dict
    SAME_START: dict
    MODES: dict
    GAP_VAR: dict
    HALFWAY: list
    SHARE: dict
    BY_K: dict
    FUNC_K: dict
    PER_UNIT: dict
    FUNC_FINAL: dict
    PROFILE: dict
    THRESH: dict


def _page(p: Params, runs: Runs, fits: Fits) -> _Page:
    """Derive what the page shows from its runs, with the functions the page calls."""
    CS, DS, SIM, CF = list(p.hidden), runs.tasks, runs.sim, runs.closed_forms
    CM = {C: context_modes(DS[C]) for C in CS}
    MODES = runs.modes
    BY_K, FUNC_K, SHARE, PER_UNIT = census_views(runs.census)
    FUNC_FINAL, PROFILE = final_units(runs.census, DS, p.census_threshold)
    return _Page(
        **vars(fits),
        **vars(runs),
        **vars(p),
        CS=CS,
        INITS=INITS,
        CM=CM,
        PAPER_RELN={C: paper_reln(C) for C in CS},
        SAME_START={C: same_start(SIM[C], p.init) for C in CS},
        MODES=MODES,
        GAP_VAR=gap_variants(CS, CF, SIM, p.init),
        HALFWAY=halfway(CS, CM, CF, MODES, p.t_all, p.t_rec, p.lr),
        SHARE=SHARE,
        BY_K=BY_K,
        FUNC_K=FUNC_K,
        PER_UNIT=PER_UNIT,
        FUNC_FINAL=FUNC_FINAL,
        PROFILE=PROFILE,
        THRESH=thresholds_census(runs.census, DS, p.census_threshold),
    )


def _closed_form_glue(r: _Page) -> None:
    """Glue of the closed form against the ReLN and the ReLU network (Fig. 5)."""
    CS, CF, init = r.CS, r.closed_forms, r.init
    glue("ec_init", init)
    glue("ec_a0_common", float(CF[CS[0]]["head_start"].a0_common))
    glue("ec_a0_none", float(CF[CS[0]]["none"].a0_context[0]))
    glue(
        "ec_a0_range",
        f"{min(CF[C]['head_start'].a0_context.min() for C in CS):.1e} to "
        f"{max(CF[C]['head_start'].a0_context.max() for C in CS):.1e}",
    )
    implied = [row[-1] for row in r.HALFWAY]
    # largest gap between simulated ReLN and closed-form context mode strengths,
    # relative to s
    sv_gap = {
        C: kit.med(
            np.max(
                np.abs(
                    r.MODES[C]["reln"][1] - CF[C]["head_start"].a_context[r.t_rec][None]
                )
                / r.CM[C].s,
                axis=(1, 2),
            )
        )
        for C in CS
    }
    for C in CS:
        glue(f"ec_gap_reln_{C}", kit.med(r.check[C, init]))
        glue(f"ec_gap_relu_{C}", r.closed[C, init].value)
        glue(f"ec_spread_{C}", r.closed[C, init].spread)
        glue(f"ec_alt_{C}", r.closed[C, init].alternative)
        glue(f"ec_gap_relu_reln_{C}", r.reln[C, init].value)
        for k in range(len(LEVELS)):
            glue(f"ec_level_{C}_{k}", float(_level_ratio(r, C, init)[k]))
        glue(f"ec_verdict_{C}", verdict(r.closed[C, init]))
    for k, f in enumerate(LEVELS):
        glue(f"ec_level_{k}", f"{100 * f:g} %")
    glue("ec_check_max", max(float(np.max(v)) for v in r.check.values()))
    glue("ec_gap_none_min", min(r.GAP_VAR[C, "none", "reln"] for C in CS))
    glue("ec_gap_linear_max", max(r.GAP_VAR[C, "linear", "reln"] for C in CS))
    glue("ec_sv_gap", max(sv_gap.values()))
    glue("ec_implied_lo", float(1 / np.nanmax(implied)))
    glue("ec_implied_hi", float(1 / np.nanmin(implied)))


def _level_ratio(r: _Page, C: int, choice: str) -> np.ndarray:
    """Where the ReLU-closed form gap sits: ln(t_closed form / t_ReLU) at each level,
    median over seeds."""
    return np.nanmedian(
        [
            np.log(level_times(b) / level_times(a))
            for a, b in zip(r.sim[C]["relu"].loss, r.closed_init[C, choice])
        ],
        axis=0,
    )


def sensitivity(r: _Page) -> dict:
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


def _init_glue(r: _Page, SENS: dict) -> None:
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
    closed = {C: 1 - M[C, "matched"].value / M[C, "authors"].value for C in CS}
    for C in CS:
        for choice in INITS:
            glue(f"ec_sens_{C}_{choice}", M[C, choice].value)
            glue(f"ec_sens_{C}_{choice}_verdict", SENS[f"C{C}"][choice]["verdict"])
            glue(f"ec_dist_{C}_{choice}", dist[C, choice])
        glue(f"ec_closed_{C}", 100 * closed[C])
        glue(f"ec_2spread_{C}", 2 * M[C, init].spread)
        r_ = _level_ratio(r, C, "matched")
        k_ = int(np.nanargmax(np.abs(r_)))
        glue(
            f"ec_level_matched_{C}_last",
            f"{abs(r_[k_]):.3f} at the {100 * LEVELS[k_]:g} % level (the ReLU "
            f"network {'slower' if r_[k_] < 0 else 'faster'})",
        )
    glue(
        "ec_review_confirmed",
        "confirmed"
        if dist[CS[0], "matched"] < 0.5 * dist[CS[0], "authors"]
        else "not confirmed",
    )
    twins_ = [
        f"{', '.join(i for i in r.SAME_START[C] if i != init)} at C = {C}"
        for C in CS
        if len(r.SAME_START[C]) > 1
    ]
    glue("ec_same_start", "; ".join(twins_) if twins_ else "no choice here")
    best = {C: min(INITS, key=lambda i: M[C, i].value) for C in CS}
    glue("ec_best", ", ".join(f"{best[C]} (C = {C})" for C in CS))
    counts = {}
    for C in CS:
        for i in INITS:
            v = SENS[f"C{C}"][i]["verdict"]
            counts[v] = counts.get(v, 0) + 1
    glue(
        "ec_verdicts_all",
        ", ".join(
            f"{v} in {n} of {len(CS) * len(INITS)}" for v, n in sorted(counts.items())
        ),
    )

    def where(verdict_):
        hits = {
            C: [i for i in INITS if SENS[f"C{C}"][i]["verdict"] == verdict_] for C in CS
        }
        return [f"C = {C} ({', '.join(v)})" for C, v in hits.items() if v]

    inside, open_ = where("reproduced"), where("undecided")
    glue(
        "ec_init_reading",
        (
            "No choice is judged within the seed noise of the closed form at any C"
            if not inside
            else "Within the seed noise: " + "; ".join(inside)
        )
        + (
            "; undecided (the verdict changes within the seed spread's interval): "
            + "; ".join(open_)
            + "."
            if open_
            else "; no result is undecided."
        ),
    )


def _family_glue(r: _Page) -> None:
    """Glue of the section on the family of ReLNs."""
    for C in r.CS:
        F = r.follows[C]
        glue(f"ec_paper_reln_{C}", r.PAPER_RELN[C])
        glue(f"ec_follow_{C}", F.value)
        glue(f"ec_follow_best_{C}", F.best)
        glue(f"ec_follow_best_gap_{C}", F.candidates[F.best])
        glue(f"ec_follow_verdict_{C}", verdict(F))
    if 3 in r.CS:
        glue("ec_follow_text_3", r.follows[3].candidates["2-of-3"])
    parts, moved = [], []
    widest = max(
        _units(n, C, r.reln_width) for C in r.CS for n in r.follows_wide[C].candidates
    )
    for C in r.CS:
        F, W = r.follows[C], r.follows_wide[C]
        v, vw = verdict(F), verdict(W)
        parts.append(
            f"C = {C}: nearest member {W.best} ({W.candidates[W.best]:.3f}; as wide "
            f"as the ReLU network: {F.best}, {F.candidates[F.best]:.3f}), the paper's "
            f"ReLN {vw}"
        )
        if v != vw:
            moved.append(f"C = {C} ({v} -> {vw})")
    glue(
        "ec_width_reading",
        f"With {r.reln_width} units in every pathway instead (a rival then grows with "
        "its pathway count, up to "
        f"{widest}"
        " units against the ReLU network's "
        + ", ".join(str(r.hidden[C]) for C in r.CS)
        + "): "
        + "; ".join(parts)
        + ". "
        + (
            "The verdict depends on the width convention at " + ", ".join(moved) + "."
            if moved
            else "No verdict depends on the width convention."
        ),
    )


def _reuse(r: _Page) -> dict:
    """Contexts per unit (median over seeds), by weight and through the function."""
    return {
        how: {f"C{C}": kit.med(r.PER_UNIT[C, how][:, -1]) for C in r.CS}
        for how in ("weight", "function")
    }


def smallest_rises(r: _Page) -> dict:
    """The smallest rise of the fraction of contexts a unit serves
    (:func:`helpers.chapters.extra_contexts.smallest_rise`): by weight at the page's
    threshold (the primary), at every other threshold of the threshold table, and
    through the function."""
    out = {
        "primary": smallest_rise({C: r.PER_UNIT[C, "weight"][:, -1] / C for C in r.CS})
    }
    for thr, per_c in r.THRESH.items():
        if thr != r.census_threshold:
            out[thr] = smallest_rise({C: per_c[C][:, 1] / C for C in r.CS})
    out["function"] = smallest_rise(
        {C: r.PER_UNIT[C, "function"][:, -1] / C for C in r.CS}
    )
    primary = {C: r.PER_UNIT[C, "weight"][:, -1] / C for C in r.CS}
    out["onehot"] = smallest_rise(
        {C: onehot_fraction(r.onehot, C, primary[C]) for C in r.CS}
    )
    return out


def _rise_verdict(rise: dict) -> str:
    return verdict(_rise_evidence(rise), criterion="beyond_noise")


def _onehot_glue(r: _Page, RISE: dict) -> None:
    """Glue of the paragraph on one-hot contexts (the ``input`` variant)."""
    if not r.onehot:
        glue("ec_onehot_reading", "Every context input here is one-hot already.")
        return
    parts = []
    for C in r.CS:
        prim = kit.med(r.SHARE[C][:, -1]), kit.med(r.PER_UNIT[C, "weight"][:, -1]) / C
        one = (
            (kit.med(r.onehot[C]["share"]), kit.med(r.onehot[C]["per_unit"]) / C)
            if C in r.onehot
            else prim
        )
        parts.append(
            f"C = {C}: share in common + {C - 1}-of-{C} units {prim[0]:.3f} -> "
            f"{one[0]:.3f}, fraction of contexts served {prim[1]:.3f} -> {one[1]:.3f}"
        )
    rise, rise1 = RISE["primary"], RISE["onehot"]
    moves = "rises" if rise1["value"] > 0 else "falls"
    glue(
        "ec_onehot_reading",
        "On one-hot contexts (the authors' input -> one-hot, median over "
        f"{len(r.seeds)} seeds): " + "; ".join(parts) + ". The fraction's smallest "
        f"step {moves} on one-hot contexts ({rise1['value']:+.4f}, C = "
        f"{rise1['step']}; with the authors' input {rise['value']:+.4f}, C = "
        f"{rise['step']}); by the rulebook's test of a rise (beyond the seed noise at "
        f"every step) that is {_rise_verdict(rise1)} on one-hot contexts against "
        f"{_rise_verdict(rise)} with the authors' input.",
    )


def _census_glue(r: _Page, REUSE: dict, RISE: dict) -> None:
    """Glue of the census section."""
    CS, BY_K, FUNC_K = r.CS, r.BY_K, r.FUNC_K
    for C in CS:
        glue(f"ec_share_{C}", kit.med(r.SHARE[C][:, -1]))
        glue(f"ec_reuse_{C}", REUSE["weight"][f"C{C}"])
        glue(f"ec_reuse_f_{C}", REUSE["function"][f"C{C}"])
        glue(f"ec_frac_{C}", REUSE["weight"][f"C{C}"] / C)
        glue(f"ec_frac_f_{C}", REUSE["function"][f"C{C}"] / C)
        glue(f"ec_single_{C}", kit.med(BY_K[C][:, -1, 1]))
        glue(f"ec_multi_{C}", kit.med(BY_K[C][:, -1, 2:C].sum(axis=1)))
        glue(f"ec_snap_{C}", 100 * kit.med([f["snap_change"] for f in r.FUNC_FINAL[C]]))
        if C > 3:
            glue(f"ec_cm2_{C}", kit.med(BY_K[C][:, -1, C - 2]))
            glue(f"ec_cm2_f_{C}", kit.med(FUNC_K[C][:, -1, C - 2]))
            for key in r.PROFILE[C][0]:
                glue(f"ec_prof_{C}_{key}", kit.med([p[key] for p in r.PROFILE[C]]))
    rise = RISE["primary"]
    glue(
        "ec_reuse_spread", max(seed_spread(r.PER_UNIT[C, "weight"][:, -1]) for C in CS)
    )
    glue("ec_frac_rise", rise["value"])
    glue("ec_frac_spread", rise["spread"])
    glue("ec_frac_interval", "{:.3f}-{:.3f}".format(*rise["interval"]))
    glue(
        "ec_reuse_rises",
        "rises"
        if all(np.diff(list(REUSE["weight"].values())) > 0)
        else "does not rise",
    )
    share = [kit.med(r.SHARE[C][:, -1]) for C in CS]
    glue("ec_share_trend", "falls" if share[-1] < share[0] else "does not fall")
    for how, key in (("weight", "ec_frac_trend"), ("function", "ec_frac_f_trend")):
        steps_ = np.diff([REUSE[how][f"C{C}"] / C for C in CS])
        glue(
            key,
            "rises"
            if all(steps_ > 0)
            else "falls"
            if all(steps_ < 0)
            else "moves in no one direction",
        )
    side_ = {
        C: "above" if REUSE["weight"][f"C{C}"] / C > (C - 1) / C else "below"
        for C in CS
    }
    glue(
        "ec_frac_vs_reln",
        "; ".join(
            f"{w} the ReLN's (C-1)/C by weight at C = "
            + ", ".join(str(C) for C in CS if side_[C] == w)
            for w in ("above", "below")
            if w in side_.values()
        ),
    )


def _setting(choice: str, init: str, twins) -> str:
    return f"{choice} (starts as {init} here)" if choice in twins else choice


def _units(name: str, C: int, per_pathway: int) -> int:
    """Hidden units of the family member ``name`` (``'4+3-of-5'``) at
    ``per_pathway`` units in every pathway."""
    ks = [int(k) for k in name.split("-of-")[0].split("+")]
    return per_pathway * pathway_count(ks, C)


def _final_losses(r: _Page, C: int) -> str:
    """The final losses of the ReLU network and the paper's ReLN (medians over
    seeds) and their ratio: how far apart the two end, beside a time gap that a
    level one of them never reaches makes a lower bound."""
    a = kit.med(r.sim[C]["relu"].loss[:, -1])
    b = kit.med(r.family[C][r.PAPER_RELN[C]][:, -1])
    return (
        f"Final losses (median over seeds): ReLU network {a:.3g}, ReLN {b:.3g}, "
        f"ratio {a / b:.3g}."
    )


def _wide(r: _Page) -> str:
    return f"{r.reln_width} units per pathway (the rivals wider than the ReLU network)"


def _rise_evidence(rise: dict) -> Evidence:
    return Evidence(
        rise["value"],
        spread=rise["spread"],
        spread_interval=rise["interval"],
        criterion="beyond_noise",
    )


def _other_starts(r: _Page, SENS: dict, C: int, key: str) -> str:
    """The clause on the other starts for a record at C (init_sensitivity)."""
    return setup_clause(
        {i: SENS[f"C{C}"][i][key] for i in r.INITS}, r.init, same=r.SAME_START[C]
    )


def _gap_records(r: _Page, SENS: dict, C: int) -> list[tuple]:
    """The closed form against the ReLN and against the ReLU network at C."""
    init, n_s, twins = r.init, len(r.seeds), r.SAME_START[C]
    others = [i for i in r.INITS if i != init]
    largest = max(float(np.max(r.check[C, i])) for i in r.INITS)
    cf_alt = competitor(r.closed[C, init], f"closed form ({C - 1}-of-{C})")
    ds = r.tasks[C]
    return [
        (
            f"gap_reln_closed_form_C{C}",
            Evidence(kit.med(r.check[C, init]), criterion="gap"),
            f"time gap, simulated one-way ReLN (common + {C - 1}-of-{C}, {init} "
            "init) vs the closed form with the head-start a0 derived from the same "
            f"init, median over {n_s} seeds; largest over every init and seed "
            f"{largest:.3f}.",
        ),
        (
            f"gap_relu_closed_form_C{C}",
            r.closed[C, init]
            .varied("init", {_setting(i, init, twins): r.closed[C, i] for i in others})
            .varied("width", {_wide(r): r.closed_wide[C, init]}),
            "time gap, ReLU network "
            f"{ds.X.shape[0]}-{r.hidden[C]}-{ds.Y.shape[0]} "
            f"vs the closed form of the common + {C - 1}-of-{C} ReLN started by the "
            f"{init} init, median over {n_s} seeds; spread: two ReLU seeds; "
            f"alternative: the single-context ReLN 1-of-{C}, the paper's; nearest "
            f"other ReLN of the family: {cf_alt}. "
            + _other_starts(r, SENS, C, "verdict"),
        ),
    ]


def _follows_record(r: _Page, SENS: dict, C: int) -> tuple:
    """The ReLU network against the paper's ReLN at C, held against the family."""
    init, twins, paper = r.init, r.SAME_START[C], r.PAPER_RELN[C]
    stand_in = " (the text's common + 2-of-3 ReLN)" if C == 3 else ""
    variants = {
        _setting(i, init, twins) + stand_in: r.reln[C, i] for i in r.INITS if i != init
    }
    starts = _other_starts(r, SENS, C, "verdict_reln")
    if C == 3:
        text = (
            " The text's ReLN (common + 2-of-3, the closed form's): "
            f"{r.follows[C].candidates['2-of-3']:.3f}."
        )
        starts = (
            " The 7-pathway ReLN is trained under the chosen start only (its "
            "init variants are the text's ReLN's). For the "
            "text's common + 2-of-3 ReLN, trained under all three, "
            + starts[0].lower()
            + starts[1:]
        )
    else:
        text, starts = "", " " + starts
    return (
        f"follows_reln_C{C}",
        r.follows[C]
        .varied("init", variants)
        .varied("width", {_wide(r): r.follows_wide[C]}),
        f"time gap, ReLU network vs the simulated ReLN {paper} ({init} "
        f"init, one-way), median over {len(r.seeds)} seeds; spread: the larger of two "
        "ReLU seeds' and two ReLN seeds' gaps; alternative: the single-context ReLN "
        f"1-of-{C}, the paper's; nearest other member of the family (each as wide "
        "as the ReLU network, Appendix F): "
        f"{competitor(r.follows[C], paper)}; every member: candidates; "
        f"with {r.reln_width} units per pathway instead, nearest other member "
        f"{competitor(r.follows_wide[C], paper)}. "
        + _final_losses(r, C)
        + text
        + starts,
    )


def _share_record(r: _Page, C: int) -> tuple:
    """The ReLU weight in the units the paper's ReLN has, at C."""
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
    return (
        f"share_mixed_selective_C{C}",
        share.varied("threshold", at),
        "final ReLU weight share (|W2[:, j]| |W1[j, :]|) in common + "
        f"{C - 1}-of-{C} units; on in a context when active for >= "
        f"{r.census_threshold:g} of its items; median over {len(r.seeds)} seeds; "
        "compared: 1, the paper's ReLN has no other pathway (a bound a share cannot "
        "pass: judged one-sided); alternative: the same share in "
        f"the trained single-context ReLN {alt_name} (common + single-context "
        "pathways, the strategy the paper argues against; its share is its common "
        "pathway's).",
    )


def _init_record(r: _Page, SENS: dict) -> tuple:
    return (
        "init_sensitivity",
        SENS,
        "per C and per initialisation of the ReLN (conv-init): time gaps ReLU vs "
        "closed form, ReLU vs ReLN, ReLN vs closed form (medians over seeds) and the "
        "rulebook's verdict on 'excellent agreement' under that choice; seed_spread: "
        "two ReLU seeds; alternative: the single-context ReLN started by the "
        f"{r.init} init.",
    )


def _reuse_records(r: _Page, REUSE: dict, RISE: dict) -> list[tuple]:
    """The rise of node reuse with C, and the fractions it is made of."""
    rise = RISE["primary"]
    # the rise at the other thresholds and through the function go in the note, not
    # in variants: the claim lists only seeds (a stored reason must begin with what
    # the rulebook gives the stored fields alone, its seeds clause included, which an
    # undecided verdict's further variants would break)
    others = "; ".join(
        f"{'through the function' if k == 'function' else f'at threshold {k:g}'} "
        f"{x['value']:+.4f} against 2 x {x['spread']:.4f} "
        f"({verdict(_rise_evidence(x), criterion='beyond_noise')})"
        for k, x in RISE.items()
        if k not in ("primary", "onehot")
    )
    at = {
        f"on/off threshold {k:g}": _rise_evidence(x)
        for k, x in RISE.items()
        if k not in ("primary", "function", "onehot")
    }
    rise_ev = (
        _rise_evidence(rise)
        .varied("threshold", at)
        .varied("input", {"one-hot contexts": _rise_evidence(RISE["onehot"])})
        .varied(
            "definition", {"through the function": _rise_evidence(RISE["function"])}
        )
    )
    w = REUSE["weight"]
    return [
        (
            "node_reuse_contexts_per_unit",
            rise_ev,
            "the smallest rise, from one C to the next, of the fraction of the C "
            "contexts a ReLU unit is on in (weighted mean over units, weight "
            f"|W2[:, j]| |W1[j, :]|, last epoch, median over {len(r.seeds)} seeds): "
            "fractions "
            + ", ".join(f"{k} {v / int(k[1:]):.3f}" for k, v in w.items())
            + "; contexts per unit "
            + ", ".join(f"{k} {v:.2f}" for k, v in w.items())
            + f"; the smallest rise is from C = {rise['step']}; spread: the larger of "
            "the two C's seed spreads of the fraction. The same rise " + others + ". "
            "Confound: the ReLU network sees the context input, which the authors' "
            "data scale to 1.1 and 1.35 at C = 4, 5; on one-hot contexts (the paper's "
            f"setup) the smallest step is {RISE['onehot']['value']:+.4f} (C = "
            f"{RISE['onehot']['step']}).",
        ),
        (
            "node_reuse_fraction",
            {k: v / int(k[1:]) for k, v in w.items()},
            "the same divided by C (the chapter's node-reuse index); through the "
            "function: "
            + ", ".join(
                f"{k} {v / int(k[1:]):.3f}" for k, v in REUSE["function"].items()
            )
            + "; a pure (C-1)-of-C code gives (C-1)/C.",
        ),
    ]


def _functional_record(r: _Page) -> tuple:
    F = r.FUNC_FINAL
    return (
        "functional_census",
        {f"C{C}": {k: kit.med([f[k] for f in F[C]]) for k in F[C][0]} for C in r.CS},
        "at the last epoch, median over seeds: snap_change = "
        "||Yhat_snapped - Yhat|| / "
        "||Yhat|| when every unit is snapped to its nearest context-level gate; the "
        "other entries are each class's share of the snapped output (mixed = on in "
        "C-1 of C).",
    )


def _units_record(r: _Page) -> tuple:
    """The ReLU units on in 3 of the 5 contexts (at C = 5)."""
    med, by_k = kit.med, r.BY_K[5][:, -1]
    onehot = {}
    if 5 in r.onehot:
        onehot = {
            "weight_share_onehot": med(r.onehot[5]["by_k"][:, 3]),
            "weight_share_4_of_5_onehot": med(r.onehot[5]["by_k"][:, 4]),
            "weight_share_4_of_5": med(by_k[:, 4]),
        }
    P = r.PROFILE[5]
    return (
        "units_3_of_5_C5",
        {
            "weight_share": med(by_k[:, 3]),
            "function_share": med(r.FUNC_K[5][:, -1, 3]),
            **onehot,
            **{k: med([p[k] for p in P]) for k in P[0] if k != "share"},
        },
        "ReLU units on in 3 of the 5 contexts at the last epoch (median over "
        "seeds): their share of the weight and of the snapped output (and on "
        "one-hot contexts, with the 4-of-5 units' share beside it), the mean "
        "number of a context's 8 items they are active for in their 3 contexts "
        "(active_on) and in the other 2 (active_off), and their mean weight from "
        "those contexts' inputs.",
    )


def _records(r: _Page, SENS: dict, REUSE: dict, RISE: dict) -> list[tuple]:
    """Every record of the chapter as ``(name, evidence, note)``."""
    out = []
    for C in r.CS:
        out += [
            *_gap_records(r, SENS, C),
            _follows_record(r, SENS, C),
            _share_record(r, C),
        ]
    out += [_init_record(r, SENS), *_reuse_records(r, REUSE, RISE)]
    out.append(_functional_record(r))
    if 5 in r.CS:
        out.append(_units_record(r))
    return out


def _verdict_glue(r: _Page, R: dict) -> None:
    """Glue of the verdicts the census section's prose states."""
    n_s = len(r.seeds)
    for C in r.CS:
        glue(f"ec_share_verdict_{C}", R[f"share_mixed_selective_C{C}"]["verdict"])
        glue(f"ec_share_alt_{C}", R[f"share_mixed_selective_C{C}"]["alternative"])
    glue("ec_reuse_verdict", R["node_reuse_contexts_per_unit"]["verdict"])
    undecided_ = [
        (f"the share at C = {C}", R[f"share_mixed_selective_C{C}"])
        for C in r.CS
        if R[f"share_mixed_selective_C{C}"]["verdict"] == "undecided"
    ] + [("the rise of node reuse", R["node_reuse_contexts_per_unit"])] * (
        R["node_reuse_contexts_per_unit"]["verdict"] == "undecided"
    )
    glue(
        "ec_undecided_reading",
        "Undecided over "
        + f"{n_s} seeds: "
        + "; ".join(
            f"{name} ({r_['reason'].split(' (')[0].split('; alternative')[0]}; the "
            "spread's 90 % interval "
            f"{r_['spread_interval'][0]:.4f}-{r_['spread_interval'][1]:.4f})"
            for name, r_ in undecided_
        )
        + ": the seed spread, the yardstick, is itself too uncertain over so few "
        "seeds; more seeds (the paper profile's) are the way to decide them."
        if undecided_
        else "No verdict here is undecided.",
    )


_AGREE = "once again see excellent agreement (Fig. 5)"
_REUSE = "as the number of contexts increases, so too does the bias towards node reuse"


def _summary(r: _Page, R: dict) -> str:
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
    """Write the page's records and glue, and build its closing table.

    Defined for the page book/extra_contexts.md.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records`.
        params: the page's parameters (:class:`Params`).
        runs: the page's runs (:class:`Runs`).
        fits: the page's fits (:func:`helpers.chapters.extra_contexts.measures.
            fit_all`).

    Returns:
        ``{"records": {name: stored record}, "summary": the closing table as
        Markdown}``; the records are saved.
    """
    r = _page(params, runs, fits)
    SENS = sensitivity(r)
    REUSE, RISE = _reuse(r), smallest_rises(r)
    _closed_form_glue(r)
    _init_glue(r, SENS)
    _family_glue(r)
    _census_glue(r, REUSE, RISE)
    _onehot_glue(r, RISE)
    R = kit.add_all(rec, _records(r, SENS, REUSE, RISE))
    _verdict_glue(r, R)
    rec.save()
    return {"records": R, "summary": _summary(r, R)}
