"""The records, glue and closing table of the page *More contexts*
(``book/extra_contexts.md``): everything the page writes that is bookkeeping rather
than science, from what the page computed (:class:`Results`)."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ...book.notebook import glue
from ...book.records import claims_table
from ...book.rulebook import setup_clause, verdict
from ...core.measures import (
    LEVELS,
    Evidence,
    curve_distance,
    level_times,
    share_at_bound,
)

__all__ = ["Results", "report"]


@dataclass
class Results:
    """What the page computed, by the page's own names (each described where the page
    computes it); :meth:`collect` picks them from the page's namespace."""

    init: str
    census_threshold: float
    CS: list
    SEEDS: list
    INITS: tuple
    DS: dict
    HIDDEN: dict
    t_rec: np.ndarray
    CM: dict
    CF: dict
    SIM: dict
    CF_INIT: dict
    M: dict
    M_RELN: dict
    CHECK: dict
    FOLLOWS: dict
    FAM: dict
    FOLLOWS_WIDE: dict
    M_WIDE: dict
    ONEHOT: dict
    reln_width: int
    PAPER_RELN: dict
    SAME_START: dict
    MODES: dict
    GAP_VAR: dict
    HALFWAY: list
    FAM_SHARE: dict
    SHARE: dict
    BY_K: dict
    FUNC_K: dict
    PER_UNIT: dict
    FUNC_FINAL: dict
    PROFILE: dict
    THRESH: dict

    @classmethod
    def collect(cls, namespace: dict) -> "Results":
        """The results from a namespace holding every field by name (the page's
        ``globals()``)."""
        return cls(**{f.name: namespace[f.name] for f in fields(cls)})


def _med(x) -> float:
    return float(np.median(x))


def _pair_spread(x) -> float:
    """median over pairs of seeds of |x_a - x_b|"""
    x = np.asarray(x, float)
    return float(np.median([abs(a - b) for i, a in enumerate(x) for b in x[i + 1 :]]))


def _closed_form_glue(r: Results) -> None:
    """Glue of the closed form against the ReLN and the ReLU network (Fig. 5)."""
    CS, CF, init = r.CS, r.CF, r.init
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
        C: _med(
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
        glue(f"ec_gap_reln_{C}", _med(r.CHECK[C, init]))
        glue(f"ec_gap_relu_{C}", r.M[C, init].value)
        glue(f"ec_spread_{C}", r.M[C, init].spread)
        glue(f"ec_alt_{C}", r.M[C, init].alternative)
        glue(f"ec_gap_relu_reln_{C}", r.M_RELN[C, init].value)
        for k in range(len(LEVELS)):
            glue(f"ec_level_{C}_{k}", float(_level_ratio(r, C, init)[k]))
        glue(f"ec_verdict_{C}", verdict(r.M[C, init]))
    for k, f in enumerate(LEVELS):
        glue(f"ec_level_{k}", f"{100 * f:g} %")
    glue("ec_check_max", max(float(np.max(v)) for v in r.CHECK.values()))
    glue("ec_gap_none_min", min(r.GAP_VAR[C, "none", "reln"] for C in CS))
    glue("ec_gap_linear_max", max(r.GAP_VAR[C, "linear", "reln"] for C in CS))
    glue("ec_sv_gap", max(sv_gap.values()))
    glue("ec_implied_lo", float(1 / np.nanmax(implied)))
    glue("ec_implied_hi", float(1 / np.nanmin(implied)))


def _level_ratio(r: Results, C: int, choice: str) -> np.ndarray:
    """Where the ReLU-closed form gap sits: ln(t_closed form / t_ReLU) at each level,
    median over seeds."""
    return np.nanmedian(
        [
            np.log(level_times(b) / level_times(a))
            for a, b in zip(r.SIM[C]["relu"].loss, r.CF_INIT[C, choice])
        ],
        axis=0,
    )


def sensitivity(r: Results) -> dict:
    """The value of ``init_sensitivity``: per C and initialisation, the three time
    gaps and the verdicts on "excellent agreement" (closed form; ReLN)."""
    init = r.init
    return {
        f"C{C}": {
            "seed_spread": r.M[C, init].spread,
            "alternative": r.M[C, init].alternative,
            "same_start_as_" + init: [i for i in r.SAME_START[C] if i != init],
            **{
                choice: {
                    "gap_relu_closed_form": r.M[C, choice].value,
                    "gap_relu_reln": r.M_RELN[C, choice].value,
                    "gap_reln_closed_form": _med(r.CHECK[C, choice]),
                    "verdict": verdict(r.M[C, choice]),
                    "verdict_reln": verdict(r.M_RELN[C, choice]),
                }
                for choice in r.INITS
            },
        }
        for C in r.CS
    }


def _init_glue(r: Results, SENS: dict) -> None:
    """Glue of the section on how the ReLN starts."""
    CS, INITS, M, init = r.CS, r.INITS, r.M, r.init
    # the review's measure, to compare with its numbers: curve distance ReLU vs ReLN
    dist = {
        (C, i): _med(
            [
                curve_distance(a, b)
                for a, b in zip(r.SIM[C]["relu"].loss, r.SIM[C]["mixed", i].loss)
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


def _family_glue(r: Results) -> None:
    """Glue of the section on the family of ReLNs."""
    for C in r.CS:
        F = r.FOLLOWS[C]
        glue(f"ec_paper_reln_{C}", r.PAPER_RELN[C])
        glue(f"ec_follow_{C}", F.value)
        glue(f"ec_follow_best_{C}", F.best)
        glue(f"ec_follow_best_gap_{C}", F.candidates[F.best])
        glue(f"ec_follow_verdict_{C}", verdict(F))
    if 3 in r.CS:
        glue("ec_follow_text_3", r.FOLLOWS[3].candidates["2-of-3"])
    parts, moved = [], []
    widest = max(
        _units(n, C, r.reln_width) for C in r.CS for n in r.FOLLOWS_WIDE[C].candidates
    )
    for C in r.CS:
        F, W = r.FOLLOWS[C], r.FOLLOWS_WIDE[C]
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
        + ", ".join(str(r.HIDDEN[C]) for C in r.CS)
        + "): "
        + "; ".join(parts)
        + ". "
        + (
            "The verdict depends on the width convention at " + ", ".join(moved) + "."
            if moved
            else "No verdict depends on the width convention."
        ),
    )


def _reuse(r: Results) -> dict:
    """Contexts per unit (median over seeds), by weight and through the function."""
    return {
        how: {f"C{C}": _med(r.PER_UNIT[C, how][:, -1]) for C in r.CS}
        for how in ("weight", "function")
    }


def smallest_rises(r: Results) -> dict:
    """The smallest rise of the fraction of contexts a unit serves
    (:func:`helpers.chapters.extra_contexts.smallest_rise`): by weight at the page's
    threshold (the primary), at every other threshold of the threshold table, and
    through the function."""
    from . import smallest_rise

    out = {
        "primary": smallest_rise({C: r.PER_UNIT[C, "weight"][:, -1] / C for C in r.CS})
    }
    for thr, per_c in r.THRESH.items():
        if thr != r.census_threshold:
            out[thr] = smallest_rise({C: per_c[C][:, 1] / C for C in r.CS})
    out["function"] = smallest_rise(
        {C: r.PER_UNIT[C, "function"][:, -1] / C for C in r.CS}
    )
    out["onehot"] = smallest_rise({C: _onehot_per_unit(r, C) / C for C in r.CS})
    return out


def _onehot_per_unit(r: Results, C: int) -> np.ndarray:
    """Contexts per unit on one-hot contexts, per seed (the primary run where the
    authors' input is one-hot already)."""
    if C in r.ONEHOT:
        return r.ONEHOT[C]["per_unit"]
    return r.PER_UNIT[C, "weight"][:, -1]


def _rise_verdict(rise: dict) -> str:
    return verdict(_rise_evidence(rise), criterion="beyond_noise")


def _onehot_glue(r: Results, RISE: dict) -> None:
    """Glue of the paragraph on one-hot contexts (the ``input`` variant)."""
    if not r.ONEHOT:
        glue("ec_onehot_reading", "Every context input here is one-hot already.")
        return
    parts = []
    for C in r.CS:
        prim = _med(r.SHARE[C][:, -1]), _med(r.PER_UNIT[C, "weight"][:, -1]) / C
        one = (
            (_med(r.ONEHOT[C]["share"]), _med(r.ONEHOT[C]["per_unit"]) / C)
            if C in r.ONEHOT
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
        f"{len(r.SEEDS)} seeds): " + "; ".join(parts) + ". The fraction's smallest "
        f"step {moves} on one-hot contexts ({rise1['value']:+.4f}, C = "
        f"{rise1['step']}; with the authors' input {rise['value']:+.4f}, C = "
        f"{rise['step']}); by the rulebook's test of a rise (beyond the seed noise at "
        f"every step) that is {_rise_verdict(rise1)} on one-hot contexts against "
        f"{_rise_verdict(rise)} with the authors' input.",
    )


def _census_glue(r: Results, REUSE: dict, RISE: dict) -> None:
    """Glue of the census section."""
    CS, BY_K, FUNC_K = r.CS, r.BY_K, r.FUNC_K
    for C in CS:
        glue(f"ec_share_{C}", _med(r.SHARE[C][:, -1]))
        glue(f"ec_reuse_{C}", REUSE["weight"][f"C{C}"])
        glue(f"ec_reuse_f_{C}", REUSE["function"][f"C{C}"])
        glue(f"ec_frac_{C}", REUSE["weight"][f"C{C}"] / C)
        glue(f"ec_frac_f_{C}", REUSE["function"][f"C{C}"] / C)
        glue(f"ec_single_{C}", _med(BY_K[C][:, -1, 1]))
        glue(f"ec_multi_{C}", _med(BY_K[C][:, -1, 2:C].sum(axis=1)))
        glue(f"ec_snap_{C}", 100 * _med([f["snap_change"] for f in r.FUNC_FINAL[C]]))
        if C > 3:
            glue(f"ec_cm2_{C}", _med(BY_K[C][:, -1, C - 2]))
            glue(f"ec_cm2_f_{C}", _med(FUNC_K[C][:, -1, C - 2]))
            for key in r.PROFILE[C][0]:
                glue(f"ec_prof_{C}_{key}", _med([p[key] for p in r.PROFILE[C]]))
    rise = RISE["primary"]
    glue(
        "ec_reuse_spread", max(_pair_spread(r.PER_UNIT[C, "weight"][:, -1]) for C in CS)
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
    share = [_med(r.SHARE[C][:, -1]) for C in CS]
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
    from . import pathway_count

    ks = [int(k) for k in name.split("-of-")[0].split("+")]
    return per_pathway * pathway_count(ks, C)


def _final_losses(r: Results, C: int) -> str:
    """The final losses of the ReLU network and the paper's ReLN (medians over
    seeds) and their ratio: how far apart the two end, beside a time gap that a
    level one of them never reaches makes a lower bound."""
    a = _med(r.SIM[C]["relu"].loss[:, -1])
    b = _med(r.FAM[C][r.PAPER_RELN[C]][:, -1])
    return (
        f"Final losses (median over seeds): ReLU network {a:.3g}, ReLN {b:.3g}, "
        f"ratio {a / b:.3g}."
    )


def _wide(r: Results) -> str:
    return f"{r.reln_width} units per pathway (the rivals wider than the ReLU network)"


def _rise_evidence(rise: dict) -> Evidence:
    return Evidence(
        rise["value"],
        spread=rise["spread"],
        spread_interval=rise["interval"],
        criterion="beyond_noise",
    )


def _records(rec, r: Results, SENS: dict, REUSE: dict, RISE: dict) -> dict:
    """Every record of the chapter; ``{key: stored record}`` for the closing table."""
    from . import competitor

    CS, INITS, init, n_s = r.CS, r.INITS, r.init, len(r.SEEDS)
    R = {}

    def other_starts(C, key):
        """the clause on the other starts for a record at C (init_sensitivity)"""
        return setup_clause(
            {i: SENS[f"C{C}"][i][key] for i in INITS}, init, same=r.SAME_START[C]
        )

    for C in CS:
        others = [i for i in INITS if i != init]
        twins = r.SAME_START[C]
        R["reln", C] = rec.add(
            f"gap_reln_closed_form_C{C}",
            Evidence(_med(r.CHECK[C, init]), criterion="gap"),
            f"time gap, simulated one-way ReLN (common + {C - 1}-of-{C}, {init} "
            "init) vs the closed form with the head-start a0 derived from the same "
            f"init, median over {n_s} seeds; largest over every init and seed "
            f"{max(float(np.max(r.CHECK[C, i])) for i in INITS):.3f}.",
        )
        cf_alt = competitor(r.M[C, init], f"closed form ({C - 1}-of-{C})")
        R["relu", C] = rec.add(
            f"gap_relu_closed_form_C{C}",
            r.M[C, init]
            .varied("init", {_setting(i, init, twins): r.M[C, i] for i in others})
            .varied("width", {_wide(r): r.M_WIDE[C, init]}),
            "time gap, ReLU network "
            f"{r.DS[C].X.shape[0]}-{r.HIDDEN[C]}-{r.DS[C].Y.shape[0]} "
            f"vs the closed form of the common + {C - 1}-of-{C} ReLN started by the "
            f"{init} init, median over {n_s} seeds; spread: two ReLU seeds; "
            f"alternative: the single-context ReLN 1-of-{C}, the paper's; nearest "
            f"other ReLN of the family: {cf_alt}. " + other_starts(C, "verdict"),
        )
        stand_in = " (the text's common + 2-of-3 ReLN)" if C == 3 else ""
        R["follows", C] = rec.add(
            f"follows_reln_C{C}",
            r.FOLLOWS[C]
            .varied(
                "init",
                {_setting(i, init, twins) + stand_in: r.M_RELN[C, i] for i in others},
            )
            .varied("width", {_wide(r): r.FOLLOWS_WIDE[C]}),
            f"time gap, ReLU network vs the simulated ReLN {r.PAPER_RELN[C]} ({init} "
            f"init, one-way), median over {n_s} seeds; spread: the larger of two ReLU "
            "seeds' and two ReLN seeds' gaps; alternative: the single-context ReLN "
            f"1-of-{C}, the paper's; nearest other member of the family (each as wide "
            "as the ReLU network, Appendix F): "
            f"{competitor(r.FOLLOWS[C], r.PAPER_RELN[C])}; every member: candidates; "
            f"with {r.reln_width} units per pathway instead, nearest other member "
            f"{competitor(r.FOLLOWS_WIDE[C], r.PAPER_RELN[C])}. "
            + _final_losses(r, C)
            + (
                " The text's ReLN (common + 2-of-3, the closed form's): "
                f"{r.FOLLOWS[C].candidates['2-of-3']:.3f}."
                if C == 3
                else ""
            )
            + (
                " The 7-pathway ReLN is trained under the chosen start only (its "
                "init variants are the text's ReLN's). For the "
                "text's common + 2-of-3 ReLN, trained under all three, "
                + other_starts(C, "verdict_reln")[0].lower()
                + other_starts(C, "verdict_reln")[1:]
                if C == 3
                else " " + other_starts(C, "verdict_reln")
            ),
        )
        alt_name = f"1-of-{C}"  # the paper's alternative: no (C-1)-of-C pathway at all
        final = r.SHARE[C][:, -1]
        share = share_at_bound(final, _med(r.FAM_SHARE[C][alt_name]))
        if C in r.ONEHOT:  # the authors' input is one-hot already at C = 3
            onehot = share_at_bound(r.ONEHOT[C]["share"], share.alternative)
            share = share.varied("input", {"one-hot contexts": onehot})
        R["share", C] = rec.add(
            f"share_mixed_selective_C{C}",
            share.varied(
                "threshold",
                {
                    f"on = active for >= {thr:g} of its items": share_at_bound(
                        per_c[C][:, 0], share.alternative
                    )
                    for thr, per_c in r.THRESH.items()
                    if thr != r.census_threshold
                },
            ),
            "final ReLU weight share (|W2[:, j]| |W1[j, :]|) in common + "
            f"{C - 1}-of-{C} units; on in a context when active for >= "
            f"{r.census_threshold:g} of its items; median over {n_s} seeds; compared: "
            "1, the paper's ReLN has no other pathway (a bound a share cannot pass: "
            "judged one-sided); alternative: the same share in "
            f"the trained single-context ReLN {alt_name} (common + single-context "
            "pathways, the strategy the paper argues against; its share is its common "
            "pathway's).",
        )
    R["init"] = rec.add(
        "init_sensitivity",
        SENS,
        "per C and per initialisation of the ReLN (conv-init): time gaps ReLU vs "
        "closed form, ReLU vs ReLN, ReLN vs closed form (medians over seeds) and the "
        "rulebook's verdict on 'excellent agreement' under that choice; seed_spread: "
        "two ReLU seeds; alternative: the single-context ReLN started by the "
        f"{init} init.",
    )
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
    rise_ev = (
        _rise_evidence(rise)
        .varied(
            "threshold",
            {
                f"on/off threshold {k:g}": _rise_evidence(x)
                for k, x in RISE.items()
                if k not in ("primary", "function", "onehot")
            },
        )
        .varied("input", {"one-hot contexts": _rise_evidence(RISE["onehot"])})
    )
    R["reuse"] = rec.add(
        "node_reuse_contexts_per_unit",
        rise_ev.varied(
            "definition", {"through the function": _rise_evidence(RISE["function"])}
        ),
        "the smallest rise, from one C to the next, of the fraction of the C "
        "contexts a ReLU unit is on in (weighted mean over units, weight "
        f"|W2[:, j]| |W1[j, :]|, last epoch, median over {n_s} seeds): fractions "
        + ", ".join(f"{k} {v / int(k[1:]):.3f}" for k, v in REUSE["weight"].items())
        + "; contexts per unit "
        + ", ".join(f"{k} {v:.2f}" for k, v in REUSE["weight"].items())
        + f"; the smallest rise is from C = {rise['step']}; spread: the larger of "
        "the two C's seed spreads of the fraction. The same rise " + others + ". "
        "Confound: the ReLU network sees the context input, which the authors' data "
        "scale to 1.1 and 1.35 at C = 4, 5; on one-hot contexts (the paper's setup) "
        f"the smallest step is {RISE['onehot']['value']:+.4f} (C = "
        f"{RISE['onehot']['step']}).",
    )
    R["fraction"] = rec.add(
        "node_reuse_fraction",
        {k: v / int(k[1:]) for k, v in REUSE["weight"].items()},
        "the same divided by C (the chapter's node-reuse index); through the "
        "function: "
        + ", ".join(f"{k} {v / int(k[1:]):.3f}" for k, v in REUSE["function"].items())
        + "; a pure (C-1)-of-C code gives (C-1)/C.",
    )
    R["functional"] = rec.add(
        "functional_census",
        {
            f"C{C}": {
                k: _med([f[k] for f in r.FUNC_FINAL[C]]) for k in r.FUNC_FINAL[C][0]
            }
            for C in CS
        },
        "at the last epoch, median over seeds: snap_change = "
        "||Yhat_snapped - Yhat|| / "
        "||Yhat|| when every unit is snapped to its nearest context-level gate; the "
        "other entries are each class's share of the snapped output (mixed = on in "
        "C-1 of C).",
    )
    if 5 in CS:
        R["units"] = rec.add(
            "units_3_of_5_C5",
            {
                "weight_share": _med(r.BY_K[5][:, -1, 3]),
                "function_share": _med(r.FUNC_K[5][:, -1, 3]),
                **(
                    {
                        "weight_share_onehot": _med(r.ONEHOT[5]["by_k"][:, 3]),
                        "weight_share_4_of_5_onehot": _med(r.ONEHOT[5]["by_k"][:, 4]),
                        "weight_share_4_of_5": _med(r.BY_K[5][:, -1, 4]),
                    }
                    if 5 in r.ONEHOT
                    else {}
                ),
                **{
                    k: _med([p[k] for p in r.PROFILE[5]])
                    for k in r.PROFILE[5][0]
                    if k != "share"
                },
            },
            "ReLU units on in 3 of the 5 contexts at the last epoch (median over "
            "seeds): their share of the weight and of the snapped output (and on "
            "one-hot contexts, with the 4-of-5 units' share beside it), the mean "
            "number of a context's 8 items they are active for in their 3 contexts "
            "(active_on) and in the other 2 (active_off), and their mean weight from "
            "those contexts' inputs.",
        )
    return R


def _verdict_glue(r: Results, R: dict) -> None:
    """Glue of the verdicts the census section's prose states."""
    n_s = len(r.SEEDS)
    for C in r.CS:
        glue(f"ec_share_verdict_{C}", R["share", C]["verdict"])
        glue(f"ec_share_alt_{C}", R["share", C]["alternative"])
    glue("ec_reuse_verdict", R["reuse"]["verdict"])
    undecided_ = [
        (f"the share at C = {C}", R["share", C])
        for C in r.CS
        if R["share", C]["verdict"] == "undecided"
    ] + [("the rise of node reuse", R["reuse"])] * (
        R["reuse"]["verdict"] == "undecided"
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


def _summary(r: Results, R: dict) -> str:
    """The closing table."""
    rows = [
        (
            f"Closed form (App. F-G) matches the simulated ReLN, C = {C} "
            "(book's check)",
            "excellent agreement (Fig. 5)",
            R["reln", C],
        )
        for C in r.CS
    ]
    rows += [
        (
            f"Closed form matches the ReLU network's loss, C = {C} ({r.init} init)",
            "once again see excellent agreement (Fig. 5)",
            R["relu", C],
        )
        for C in r.CS
    ]
    rows.append(
        (
            "The same under the three initialisations of the ReLN",
            "the same hyper-parameters (App. H)",
            R["init"],
        )
    )
    rows += [
        (
            f"The ReLU network follows the ReLN {r.PAPER_RELN[C]} (the authors' Fig. 5 "
            f"ReLN), C = {C}",
            "once again see excellent agreement (Fig. 5)",
            R["follows", C],
        )
        for C in r.CS
    ]
    rows.append(
        (
            "Node reuse grows with C: the fraction of the C contexts a ReLU unit "
            "serves rises (smallest step)",
            "as the number of contexts increases, so too does the bias towards node "
            "reuse",
            R["reuse"],
        )
    )
    rows.append(("The same as a fraction of the C contexts", "—", R["fraction"]))
    rows += [
        (
            f"ReLU weight in common or {C - 1}-of-{C} units (the ReLN's pathways), "
            f"C = {C}",
            "the imitating ReLN has only these pathways",
            R["share", C],
        )
        for C in r.CS
    ]
    rows.append(("The census through the function", "—", R["functional"]))
    if "units" in R:
        rows.append(("The 3-of-5 units at C = 5", "—", R["units"]))
    return claims_table(rows)


def _check(r: Results, R: dict, SENS: dict) -> str:
    """The headline numbers, rounded, for the page's nbval-checked cell."""
    lines = []
    for C in r.CS:
        lines.append(
            f"C = {C}: gap_reln_closed_form = {R['reln', C]['value']:.2f}, "
            f"gap_relu_closed_form = {R['relu', C]['value']:.2f} "
            f"({R['relu', C]['verdict']}), share_mixed_selective = "
            f"{R['share', C]['value']:.2f}"
        )
        lines.append(
            "  init_sensitivity: "
            + ", ".join(
                f"{i} {SENS[f'C{C}'][i]['gap_relu_closed_form']:.2f}" for i in r.INITS
            )
        )
    reuse = _reuse(r)["weight"]
    lines.append(
        f"node_reuse_contexts_per_unit: { {k: round(v, 1) for k, v in reuse.items()} }"
    )
    return "\n".join(lines)


def report(rec, results: Results) -> dict:
    """Write the page's records and glue, and build its closing table.

    Defined for the page book/extra_contexts.md.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records`.
        results: what the page computed (:class:`Results`).

    Returns:
        ``{"records": {key: stored record}, "summary": the closing table as
        Markdown, "check": the headline numbers in a few lines (the page prints
        them for nbval)}``; the records are saved.
    """
    r = results
    SENS = sensitivity(r)
    REUSE, RISE = _reuse(r), smallest_rises(r)
    _closed_form_glue(r)
    _init_glue(r, SENS)
    _family_glue(r)
    _census_glue(r, REUSE, RISE)
    _onehot_glue(r, RISE)
    R = _records(rec, r, SENS, REUSE, RISE)
    _verdict_glue(r, R)
    rec.save()
    return {"records": R, "summary": _summary(r, R), "check": _check(r, R, SENS)}
