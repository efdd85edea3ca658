"""The records, glue and closing tables of the page book/contexts.md, from the runs and
what the page measured of them (each a science function's result).  The verdicts are
the rulebook's (:func:`helpers.book.rulebook.decide`), from the evidence built here."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...book import kit, rulebook
from ...book.notebook import glue
from ...book.records import claims_table
from ...core import measures
from ...core.measures import LEVELS, Evidence, seed_spread, seed_spread_interval
from ...core.paper import CONTEXTS as PAPER
from .comparisons import (
    STRATEGIES,
    Losses,
    Outputs,
    PathwayValues,
    Race,
    median_gap,
    pairwise_gap,
)
from .gating import Gating, ablation_summary
from .predictions import Constants, Ladder
from .representations import Representations
from .task import Params, Task

med = kit.med


@dataclass(frozen=True)
class _Page:
    """What :func:`report` reads: the parameters, the task, the runs, the measures."""

    params: Params
    task: Task
    relu: object
    relns: dict
    losses: Losses
    outputs: Outputs
    svs: PathwayValues
    reps: Representations
    gating: Gating
    race: Race
    consts: Constants
    ladder: Ladder


# --------------------------------------------------------------------------------------
# Evidence of the paper's claims, with the variants of the book's choices


def _share(values, alternative, **fields) -> Evidence:
    """A share measured once per seed, held against 0 ("no neurons") under ``near``."""
    return Evidence(
        med(values),
        spread=seed_spread(values),
        alternative=alternative,
        compared=0.0,
        criterion="near",
        spread_interval=seed_spread_interval(values),
        **fields,
    )


def _gap_evidence(r: _Page) -> tuple[Evidence, Evidence]:
    """``gap_relu_reln`` and ``gap_relu_singles`` with their init and coupling
    variants."""
    L, init = r.losses, r.params.init
    others = [i for i in L.sens if i != init]
    reln = L.m_reln.varied("init", {i: L.sens[i]["both"] for i in others})
    reln = reln.varied(
        "coupling", {"fully coupled (the plain GDLN of Eq. 3)": L.m_full}
    )
    singles = L.m_single.but(criterion="beyond_noise").varied(
        "init",
        {
            i: measures.match(r.relu.loss, L.sens[i]["curves"]["single"]).but(
                criterion="beyond_noise"
            )
            for i in others
        },
    )
    return reln, singles


def _share_evidence(r: _Page) -> Evidence:
    """``single_context_share`` with its definition and window variants."""
    g, t_rec = r.gating, r.params.t_rec
    fc_single = g.fc["single"]
    share = _share(
        fc_single[:, g.r_last],
        g.singles_alt,
        epochs={int(t): med(fc_single[:, k]) for k, t in enumerate(t_rec) if k > 0},
        phase=tuple(g.phase),
    )
    one_only = [d["one_context_only"] for d in g.strict]
    literal = (
        "the literal reading, weight in units active in one context only "
        f"({med(one_only):.3g}, last epoch)"
    )
    # a share cannot fall below 0: held against that bound one-sided (near_bound),
    # where a seed spread shrinking at the bound is no yardstick
    at_bound = _share(one_only, g.singles_alt).but(criterion="near_bound")
    share = share.varied("definition", {literal: at_bound})
    return share.varied(
        "window",
        {
            f"epoch {e}": _share(fc_single[:, r.relu.index(e)], g.singles_alt)
            for e in r.params.show_epochs
            if r.relu.index(e) != g.r_last
        },
    )


# --------------------------------------------------------------------------------------
# Glue: the numbers and sentences the prose cites, section by section


def _glue_task(r: _Page):
    t = r.task
    kit.glue_many(
        "contexts",
        {
            "L0": t.L0,
            "L_linear": t.L_linear,
            "P": t.ds.P,
            "211_offdiag": 100 * t.diag_211["offdiag"],
            "211_offdiag_H": t.diag_211_H["offdiag"],
            "mirror_err": t.mirror_err,
            "d": float(t.d_all.mean()),
            "d_spread": float(np.ptp(t.d_all)),
            "sx_cross": float(np.abs(t.sx_cross - np.eye(8)).max()),
            "raw_mixed_top": float(np.mean([p.s[0] for p in t.raw_mixed])),
            "raw_single_top": float(np.mean([p.s[0] for p in t.raw_single])),
            "res_top": float(np.mean([p.s[0] for p in t.pm_mixed])),
        },
    )


def _glue_training(r: _Page):
    p, L = r.params, r.losses
    g = {
        "init": p.init,
        "lr": p.lr,
        "epochs": p.epochs,
        "seeds": r.relu.loss.shape[0],
        "width": p.relu_width,
    }
    for name in ("reln", "full", "mixed", "single"):
        m = getattr(L, f"m_{name}")
        g[f"g_{name}"], g[f"g_{name}_max"] = m.value, max(m.per_seed)
    g |= {
        "g_linear": L.m_reln.candidates[STRATEGIES["common"]],
        "g_best": L.m_reln.best,
        "g_spread_relu": pairwise_gap(r.relu.loss),
        "g_spread_reln": L.m_reln.spread_candidate,
        "g_spread": L.m_reln.spread,
        "g_spread_lo": L.m_reln.spread_interval[0],
        "g_spread_hi": L.m_reln.spread_interval[1],
        "g_mixed_vs_reln": median_gap(
            r.relns["both/one-way"].loss, r.relns["mixed/one-way"].loss
        ),
    }
    g |= {f"g_{name}": v for name, v in L.gaps.items()}
    g["level_sign"] = (
        "the ReLU network is faster at every level"
        if np.all(L.level_ratio > 0)
        else "the ReLU network is not faster at every level"
    )
    for k, f in enumerate(LEVELS):
        g[f"level_{k}"] = f"{100 * f:g} %"
        g[f"level_ratio_{k}"] = 100 * float(L.level_ratio[k])
    kit.glue_many("contexts", g)


def _glue_init(r: _Page):
    rows = r.losses.init_rows
    within = [i for i, x in rows.items() if x["verdict_7_pathways"] == "reproduced"]
    g = {
        "never_within": "Under none of the three starts is the 7-pathway ReLN within "
        "the seed noise of the ReLU network"
        if not within
        else f"The 7-pathway ReLN is within the seed noise under the "
        f"{', '.join(within)} start",
        "best_init": min(rows, key=lambda i: rows[i]["gap_7_pathways"]),
        "init_reading": "The context pathways started at twice the ReLU network's "
        "scale (the authors' choice) bring the ReLN closer than the ReLU network's own "
        "scale does."
        if rows["authors"]["gap_2_of_3"] < rows["matched"]["gap_2_of_3"]
        else "Starting the ReLN at the ReLU network's own scale brings it closer than "
        "the authors' doubled context scale does.",
    }
    for choice, x in rows.items():
        g[f"sens_{choice}_both"] = x["gap_7_pathways"]
        g[f"sens_{choice}_mixed"] = x["gap_2_of_3"]
        g[f"sens_{choice}_single"] = x["gap_single_context"]
        g[f"sens_{choice}_verdict"] = x["verdict_7_pathways"]
    kit.glue_many("contexts", g)


def _glue_outputs(r: _Page):
    o, sv, show = r.outputs, r.svs, r.params.show_epochs
    g = {}
    for k, e in enumerate(show):
        g[f"out_gap_{k}"] = med(o.gaps["reln"][e])
        g[f"out_seed_{k}"] = med(o.gaps["seed"][e])
        g[f"out_single_{k}"] = med(o.gaps["single"][e])
        g[f"show_{k}"] = show[k]
    kit.glue_many(
        "contexts",
        g,
        out_mean=o.match.value,
        out_spread_relu=o.spread["sides"][0],
        out_spread_reln=o.spread["sides"][1],
        order_ok=int(np.sum(sv.order_ok)),
        order_n=len(sv.order_ok),
        sv_err_main=max(med(sv.rel_err[n]) for n in sv.main_names),
        sv_err_single=max(med(sv.rel_err[n]) for n in sv.single_names),
    )


def _glue_representations(r: _Page):
    reps, g = r.reps, {}
    for k, e in enumerate(r.params.show_epochs):
        i = r.relu.index(e)
        for m, v in reps.sims["reln"].items():
            g[f"{m}_{k}"] = med(v[:, i])
            g[f"{m}_seed_{k}"] = med(reps.sims["seed"][m][:, i])
            g[f"{m}_single_{k}"] = med(reps.sims["single"][m][:, i])
        g[f"mds_expl_{k}"] = 100 * reps.mds_explained[k]
    g["cka_single_from"] = (
        "(never, in this run)"
        if reps.single_closer_from is None
        else reps.single_closer_from
    )
    kit.glue_many("contexts", g)


def _glue_gating(r: _Page):
    gt = r.gating
    c, fc, div = gt.census, gt.fc, gt.div
    kit.glue_many(
        "contexts",
        record_every=r.params.record_every,
        final_mixed=100 * med(c["common"][:, -1] + c["mixed"][:, -1]),
        final_single=100 * med(c["single"][:, -1]),
        final_other=100 * med(c["other"][:, -1]),
        single_010=100 * gt.single_by_ctx["010"],
        final_itemdep=100 * med(c["item_dependent"][:, -1]),
        final_consistency=100 * med(c["consistency"][:, -1]),
        peak_common=100 * gt.peak_common,
        split_epoch=gt.split_epoch,
        final_common=100 * med(c["common"][:, -1]),
        final_2of3=100 * med(c["mixed"][:, -1]),
        div_relu_common=100 * div["ReLU"]["common"][0],
        div_relu_mixed=100 * div["ReLU"]["2-of-3"][0],
        div_reln_common=100 * div["ReLN"]["common"][0],
        div_relu_ctx_common=100 * div["ReLU"]["common"][1:].mean(),
        div_reln_ctx_common=100 * div["ReLN"]["common"][1:].mean(),
        div_relu_single_ring=100 * div["ReLU"]["single"][2],
        div_reln_single_ring=100 * div["ReLN"]["single"][2],
        snap_final=100 * med(fc["snap_change"][:, -1]),
        snap_max=100 * float(np.max(np.median(fc["snap_change"][:, 1:], 0))),
        fsingle_final=100 * med(fc["single"][:, -1]),
        fmixed_final=100 * med(fc["mixed"][:, -1]),
        fcommon_final=100 * med(fc["common"][:, -1]),
        singles_alt=100 * gt.singles_alt,
        phase_first=gt.phase[0],
        phase_last=gt.phase[1],
        phase_snap=100 * rulebook.PHASE_SNAP,
        strict_level=100 * med([d["context_level"] for d in gt.strict]),
        strict_one=100 * med([d["one_context_only"] for d in gt.strict]),
    )
    _glue_ablation(gt)


def _glue_ablation(gt: Gating):
    ab = gt.ablation
    ctl = ablation_summary(gt.ablation, gt.control)
    kit.glue_many(
        "contexts",
        abl_loss=med([d["loss"] for d in ab]),
        abl_min=min(d["ablated"] for d in ab),
        abl_max=max(d["ablated"] for d in ab),
        abl_units=100 * med([d["share_units"] for d in ab]),
        ctl_min=ctl["control_min"],
        ctl_max=ctl["control_max"],
        ctl_units=100 * ctl["control_share_of_units"],
        ctl_reading=ablation_reading(ctl),
    )


def ablation_reading(ctl: dict) -> str:
    """The sentence the page book/contexts.md prints on the ablation and its control,
    from :func:`helpers.chapters.contexts.gating.ablation_summary`'s dict ``ctl`` (no
    threshold: which removal costs more, by how much and in how many seeds)."""
    S, n = ctl["seeds"], ctl["draws"]
    above, every = ctl["seeds_above_median"], ctl["seeds_above_every_draw"]
    lo, hi = ctl["ratio_min"], ctl["ratio_max"]
    times = f"{ctl['ratio_median']:.2g} times (from {lo:.2g} to {hi:.2g} over seeds)"
    if every == S:
        where = f"more than every one of the {n} random sets, in each of the {S} seeds"
    elif above == S:
        where = (
            f"more than the median random set in each of the {S} seeds (more than "
            f"every one of the {n} sets in {every})"
        )
    elif above == 0:
        where = f"less than the median random set in each of the {S} seeds"
    else:
        where = f"more than the median random set in {above} of the {S} seeds"
    verb = "more" if ctl["ratio_median"] > 1 else "less"
    return (
        f"Removing the single-context units costs {times} the control's loss, "
        f"{where}: per unit of weight, the single-context units matter {verb} than "
        "the 2-of-3 units."
    )


def _glue_race(r: _Page):
    race, relns = r.race, r.relns
    kit.glue_many(
        "contexts",
        ratio_final=med(race.ratio_final),
        ratio_pred=float(race.ratio_pred[-1]),
        single_norm_final=race.single_norm[1],
        single_norm_init=race.single_norm[0],
        out_single_share=100 * race.out_single_share,
        resid_mixed=med(race.resid["2-of-3"][:, -1]),
        resid_single=med(race.resid["single"][:, -1]),
        full_mixed=med(relns["mixed/one-way"].loss[:, -1]),
        full_single=med(relns["single/one-way"].loss[:, -1]),
    )


def _band(v, lo, hi) -> str:
    return "inside" if lo <= v <= hi else ("below" if v < lo else "above")


def _glue_constants(r: _Page):
    k, p = r.consts, r.params
    lo, hi = p.authors_a0_context
    pred, sim = _band(k.a0_hs_pred, lo, hi), _band(k.a0_hs_sim, lo, hi)
    same = round(float(k.top_vals.mean()), 2) == round(p.authors_overlap, 2)
    kit.glue_many(
        "contexts",
        a0_common=k.a0_common,
        a0_context=k.a0_context,
        a0_ratio_lo=lo / k.a0_context,
        a0_ratio_hi=hi / k.a0_context,
        hs_epoch=p.head_start_epoch,
        a0_equiv=k.a0_hs_pred,
        a0_equiv_sim=k.a0_hs_sim,
        a0_band="both inside"
        if pred == sim == "inside"
        else f"{pred} (prediction) and {sim} (simulation)",
        a0_eq_min=float(np.nanmin(k.a0_eq)),
        a0_eq_max=float(np.nanmax(k.a0_eq)),
        overlap_H=float(k.top_H.mean()),
        overlap_H_spread=float(np.ptp(k.top_H)),
        overlap_match="equals, to the two digits given," if same else "differs from",
        overlap_top_mean=float(k.top_vals.mean()),
        overlap_top_min=float(k.top_vals.min()),
        overlap_top_max=float(k.top_vals.max()),
        overlap_all_min=float(k.partner_all.min()),
        overlap_all_max=float(k.partner_all.max()),
        overlap_all_med=float(np.median(k.partner_all)),
    )


def _glue_ladder(r: _Page):
    lad = r.ladder
    rows, race_row = lad.rows, lad.race_row
    kit.glue_many(
        "contexts",
        ladder_init=rows[0].gap,
        ladder_init45=rows[1].gap,
        # rows 4-7: the authors' a0 band, derived overlaps and -0.45 in turn
        ladder_best_authors=min(x.gap for x in rows[4:8]),
        ladder_best_authors45=min(x.gap for x in rows[5:8:2]),
        race_final=race_row.final_loss,
        race_star_final=lad.star_row.final_loss,
        race_star_gap=lad.g_race_star,
        race_gap=lad.m_race.value,
        race_gap_mixed=race_row.gap,
        race_gap_relu=lad.g_race_relu,
        race_spread=lad.m_race.spread,
        race_fp=race_row.fixed_point_loss,
        race_fp_pct=100 * race_row.fixed_point_loss / r.task.L0,
        race_censored="never reaches the last level, 0.1 % of the initial loss, so "
        "the gap is a lower bound"
        if lad.m_race.censored
        else "reaches every level of the time gap",
        ladder_fp45=rows[1].fixed_point_loss,
        ladder_matrix=rows[-1].gap,
        sim_m_final=med(lad.sim_m[:, -1]),
        g_authors=lad.g_authors,
        reln_spread=lad.reln_spread,
    )


# --------------------------------------------------------------------------------------
# The records


def _loss_records(r: _Page) -> list:
    """The records of Fig. 4a's losses and outputs."""
    L, init, S = r.losses, r.params.init, r.relu.loss.shape[0]
    reln, singles = _gap_evidence(r)
    rows = L.init_rows
    return [
        (
            "gap_relu_reln",
            reln,
            f"time gap ReLU vs 7-pathway one-way ReLN started by the {init} init, "
            f"median over {S} seeds; competitors: common + single-context (k = 1) and "
            "the common pathway alone (k = 3); the common + 2-of-3 ReLN is the same "
            "strategy without the idle single-context pathways (gap "
            f"{L.m_mixed.value:.3f}); two-sample spread. "
            + rulebook.setup_clause(
                {i: x["verdict_7_pathways"] for i, x in rows.items()}, init
            ),
        ),
        (
            "gap_relu_singles",
            singles,
            f"time gap ReLU vs common + single-context ReLN ({init} init), "
            f"median over {S} seeds. "
            + rulebook.setup_clause(
                {i: x["verdict_single_context"] for i, x in rows.items()}, init
            ),
        ),
        (
            "init_sensitivity",
            Evidence(rows, spread=L.m_reln.spread),
            "per initialisation of the ReLNs (conv-init): time gaps to the ReLU "
            "network and the verdict the rulebook gives 'excellent agreement' under "
            "that choice.",
        ),
        (
            "output_gap",
            r.outputs.match,
            "||Yhat_ReLU - Yhat_ReLN|| / ||Yhat_ReLU|| (conv-output-gap), median over "
            f"every pair of seeds, mean over the epochs {r.params.show_epochs}; "
            "spread: the larger of the ReLU and the ReLN seed spreads of the same "
            "mean.",
        ),
    ]


def _representation_record(r: _Page) -> tuple:
    reps, show = r.reps, r.params.show_epochs
    value = {
        "mean_over_shown_epochs": reps.cka_gap,
        "by_epoch": {
            str(e): {k: float(v[r.relu.index(e)]) for k, v in reps.cka_by_epoch.items()}
            for e in show
        },
        "single_closer_from_epoch": reps.single_closer_from,
    }
    return (
        "representation_gap",
        value,
        "1 - linear CKA of the hidden representations against the ReLU network "
        "(reln: the 7-pathway ReLN, single: the single-context ReLN, seed: another "
        f"ReLU seed), median over seeds, at the epochs {show} and their mean; no "
        "verdict: from the epoch given the measure prefers the paper's alternative at "
        "every recorded epoch, so it cannot single out the paper's candidate.",
    )


def _gating_records(r: _Page) -> list:
    """The records of the ReLU network's gating."""
    g, show = r.gating, r.params.show_epochs
    share = _share_evidence(r)
    one_only = med([d["one_context_only"] for d in g.strict])
    ctl = ablation_summary(g.ablation, g.control)
    classes = ("common", "mixed", "single", "other", "snap_change")
    return [
        (
            "single_context_share",
            share,
            "two readings of 'context specific'. Through the function (the value): "
            "share of the ReLU network's output produced by single-context units once "
            "every unit is snapped to its nearest context-level gate (item-dependent "
            "units count by the context where they are on for most items), at the last "
            f"epoch of the phase (snap change <= {rulebook.PHASE_SNAP:g}), median over "
            f"seeds: {share.value:.3g}. Literally (the definition variant): weight "
            "share of units active, for any item, in one context only, last epoch, "
            f"median over seeds: {one_only:.3g}. Alternative: the single-context "
            "pathways' share of the single-context ReLN's output, by the same norm "
            "(the class's summed contribution).",
        ),
        (
            "single_context_strict",
            {
                k: med([d[k] for d in g.strict])
                for k in ("one_context_only", "context_level")
            },
            "weight shares at the last epoch, median over seeds: units active in one "
            "context only (for any item), and units whose gates are all-or-none per "
            "context.",
        ),
        (
            "single_context_ablation",
            ctl,
            "summed loss of the ReLU network at the last epoch, with its "
            "single-context units (functional census) removed, and, the control, with "
            "random 2-of-3 units of the same total weight |W2[:, j]| |W1[j, :]| "
            f"removed ({ctl['draws']} sets per seed, seeded by the seed; removed "
            f"weight {ctl['control_weight_ratio']:.3f} of the single-context units'); "
            "medians, min and max over seeds. " + ablation_reading(ctl),
        ),
        (
            "assumption_211_offdiag",
            r.task.diag_211["offdiag"],
            "||V^T Sigma_x V - diag|| / ||V^T Sigma_x V|| for (X, Y) of Section 4 "
            f"(all-hierarchy task of Section 5: {r.task.diag_211_H['offdiag']:.1e}).",
        ),
        (
            "census_over_training",
            {
                str(e): {k: med(g.fc[k][:, r.relu.index(e)]) for k in classes}
                for e in show
            },
            "functional census (conv-census), median over seeds, at the epochs shown.",
        ),
    ]


def _race_records(r: _Page) -> list:
    """The records of the race reduction's predictions."""
    L, lad = r.losses, r.ladder
    return [
        (
            "gap_reln_prediction",
            Evidence(L.gaps["pred"], criterion="gap"),
            "time gap simulated 7-pathway one-way ReLN vs helpers.core.race.predict "
            "(the book's matrix race; a0 from the init, overlaps from the data, "
            "nothing fitted), median over seeds.",
        ),
        (
            "gap_authors_prediction",
            lad.m_race,
            "time gap simulated 7-pathway ReLN (as in Fig. 4a) vs this book's "
            "implementation of the per-mode race of 3_context_diff/race.py (its common "
            "pathway, modes paired by rank, and the residual it leaves) with its "
            f"constants (overlaps {PAPER.race_overlaps}, top {PAPER.race_overlap_top}, "
            f"a0 {PAPER.race_a0_context:g} / common {PAPER.race_a0_common:g}); against "
            f"the common + 2-of-3 ReLN {lad.race_row.gap:.3f}, against the ReLU "
            f"network {lad.g_race_relu:.3f}; the race's fixed point leaves a loss of "
            f"{lad.race_row.fixed_point_loss:.2f}; spread: two ReLN seeds.",
        ),
        (
            "gap_oneway_coupled",
            L.gaps["ow_full"],
            "time gap one-way vs fully coupled 7-pathway GDLN (same seeds), median.",
        ),
        (
            "race_singles_norm_ratio",
            med(r.race.ratio_final),
            "norm of the single-context maps over the 2-of-3 maps at the last epoch, "
            "7-pathway one-way ReLN, median over seeds (race prediction "
            f"{r.race.ratio_pred[-1]:.3f}).",
        ),
    ]


#: The closing table's rows: (record, the claim in the table, the paper's words).
SUMMARY = [
    ("gap_relu_reln", "ReLU loss follows the 7-pathway ReLN (Fig. 4a)",
     "'excellent agreement'"),
    ("gap_relu_singles", "ReLU loss deviates from the single-context ReLN (Prop. 4.2)",
     "'a clear deviation'"),
    ("init_sensitivity", "The same comparison under each initialisation of the ReLN",
     "—"),
    ("output_gap", "Outputs of ReLU network and ReLN agree (Fig. 4a)",
     "'excellent agreement across all ... outputs'"),
    ("representation_gap", "Hidden representations correspond (Fig. 4c): no verdict, "
     "the measure prefers the alternative late", "'near exact correspondence'"),
    ("single_context_share", "No context-specific ReLU units (Section 4)",
     "'no neurons ... context specific'"),
    ("single_context_strict",
     "The same, counted strictly (one context only; all-or-none gates)", "—"),
    ("single_context_ablation", "What the single-context units do (loss without them)",
     "—"),
    ("assumption_211_offdiag", "Assumption 2.1.1 on this task (off-diagonal share)",
     "—"),
    ("census_over_training", "The census through the function, over training", "—"),
    ("gap_reln_prediction", "The book's race prediction follows the simulated ReLN",
     "—"),
    ("gap_authors_prediction", "race.py's constants in this book's per-mode race, "
     "against the 7-pathway ReLN (Fig. 4a)", "—"),
    ("gap_oneway_coupled", "One-way (authors) vs fully coupled GDLN", "—"),
    ("race_singles_norm_ratio",
     "Single-context maps beside the 2-of-3 maps in the 7-pathway ReLN", "—"),
]  # fmt: skip


def _headline(r: _Page, out) -> str:
    """The lines the page's check cell prints (compared by nbval)."""
    L, rows = r.losses, r.losses.init_rows

    def v(n):
        return out[n]["verdict"]

    best = min(rows, key=lambda i: rows[i]["gap_7_pathways"])
    lines = [
        f"gap_relu_reln           = {L.m_reln.value:.2f} ({v('gap_relu_reln')})",
        f"gap_relu_singles        = {L.m_single.value:.1f} ({v('gap_relu_singles')})",
        f"output_gap              = {r.outputs.match.value:.2f} ({v('output_gap')})",
        f"representation_gap      = {v('representation_gap')}",
        f"single_context_share    = {med(r.gating.fc['single'][:, -1]):.2f} "
        f"({v('single_context_share')})",
        f"gap_reln_prediction     = {L.gaps['pred']:.2f} ({v('gap_reln_prediction')})",
        f"gap_authors_prediction  = {v('gap_authors_prediction')}",
        f"best initialisation     = {best}",
    ]
    return "\n".join(lines)


def report(
    rec,
    params: Params,
    task: Task,
    relu,
    relns: dict,
    *,
    losses: Losses,
    outputs: Outputs,
    svs: PathwayValues,
    reps: Representations,
    gating: Gating,
    race: Race,
    consts: Constants,
    ladder: Ladder,
) -> dict:
    """Write the chapter's records and glue, and build its closing tables.

    Defined for the page book/contexts.md.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records`.
        params, task: :class:`helpers.chapters.contexts.task.Params` and
            :func:`helpers.chapters.contexts.task.facts`'s task.
        relu, relns: the ReLU network's run and the ReLNs of Fig. 4a
            (:func:`helpers.chapters.contexts.comparisons.train_relns`).
        losses, outputs, svs, reps, gating, race, consts, ladder: what the page
            measured of them, each by its science function:
            ``comparisons.compare_losses``, ``compare_outputs``, ``pathway_values``,
            ``representations.compare_representations``, ``gating.gating_summary``,
            ``comparisons.race_norms``, ``predictions.race_constants`` and
            ``predictions.prediction_ladder``.

    Returns:
        ``{"summary": the closing table (Markdown), "headline": the lines the page's
        check cell prints, "records": {name: record}}``; the records are saved.
    """
    r = _Page(
        params, task, relu, dict(relns), losses, outputs, svs, reps, gating, race,
        consts, ladder,
    )  # fmt: skip
    for part in (
        _glue_task,
        _glue_training,
        _glue_init,
        _glue_outputs,
        _glue_representations,
        _glue_gating,
        _glue_race,
        _glue_constants,
        _glue_ladder,
    ):
        part(r)
    out = kit.add_all(
        rec,
        [
            *_loss_records(r),
            _representation_record(r),
            *_gating_records(r),
            *_race_records(r),
        ],
    )
    literal = out["single_context_share"]["variants"]["definition"][0]
    glue("contexts_literal_verdict", literal["verdict"])
    glue("contexts_share_verdict", out["single_context_share"]["verdict"])
    rec.save()
    summary = claims_table([(claim, words, out[n]) for n, claim, words in SUMMARY])
    return {"summary": summary, "headline": _headline(r, out), "records": out}
