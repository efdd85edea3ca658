"""The records, glue and tables of the page book/contexts.md: everything the page
computes goes in, through one object (``results``), and comes out as the chapter's
records (``book/results/contexts.json``), the numbers and sentences its prose cites
(glue) and its tables.  The verdicts are the rulebook's
(:func:`helpers.book.rulebook.decide`), from the evidence built here."""

from __future__ import annotations

import numpy as np
from tabulate import tabulate

from ...book import rulebook
from ...book.notebook import glue
from ...book.records import claims_table
from ...core import measures
from ...core.measures import LEVELS, Evidence, seed_spread, seed_spread_interval
from ...core.paper import CONTEXTS as PAPER
from ...core.relns import pathway_pattern
from . import STRATEGIES, median_gap, pairwise_gap

__all__ = [
    "report",
    "pathway_table",
    "loss_table",
    "threshold_table",
    "overlap_table",
    "ladder_table",
    "ablation_summary",
    "ablation_reading",
]


def med(v) -> float:
    """The median, as a float."""
    return float(np.median(v))


# --------------------------------------------------------------------------------------
# The tables the page shows where it computes them


def pathway_table(modes, raw, C) -> str:
    """The effective datasets: each pathway's singular values on the residual and its
    top one on the raw targets (``modes``, ``raw``: :class:`PathwayModes` of the same
    pathways)."""
    rows = []
    for p, r in zip(modes, raw):
        pat = pathway_pattern(p.name, C)
        on = ", ".join(str(c + 1) for c in range(C) if pat[c] == "1")
        rows.append([p.name, on, ", ".join(f"{v:.3f}" for v in p.s), f"{r.s[0]:.2f}"])
    headers = [
        "pathway",
        "on in contexts",
        "singular values of $\\Sigma_{yx}(p)$ on the residual",
        "top singular value on the raw $Y$",
    ]
    return tabulate(rows, headers, tablefmt="github", disable_numparse=True)


def loss_table(curves: dict, epochs) -> str:
    """The summed loss of each network (``{label: (seeds, T) or (T,)}``), median over
    seeds, at ``epochs``."""
    rows = [
        [label] + [f"{np.median(np.atleast_2d(L)[:, e]):.3g}" for e in epochs]
        for label, L in curves.items()
    ]
    headers = ["summed loss (median over seeds) at epoch"] + [str(e) for e in epochs]
    return tabulate(rows, headers, tablefmt="github", disable_numparse=True)


def threshold_table(thr_sens: dict) -> str:
    """The census by weight under each 'on' threshold."""
    rows = [[f"{t}", f"{v[0]:.3f}", f"{v[1]:.3f}"] for t, v in thr_sens.items()]
    headers = ["'on' threshold", "common + 2-of-3 share", "single-context share"]
    return tabulate(rows, headers, tablefmt="github", disable_numparse=True)


def overlap_table(po: dict) -> str:
    """The overlaps of the 2-of-3 pathways' modes, pair by pair
    (:func:`partner_overlaps`)."""
    rows = []
    top = {tuple(sorted(k)): v for k, v in po["top"].items()}
    for (a, b), v in top.items():
        pairs = po["pairs"][(a, b)]
        rows.append(
            [
                f"{a}, {b}",
                f"{v:.3f}",
                f"{pairs.min():.2f} / {np.median(pairs):.2f} / {pairs.max():.2f}",
            ]
        )
    headers = [
        "pathway pair",
        "overlap of the top modes $O_{p1,q1}$",
        "partner overlaps of all modes (min / median / max)",
    ]
    return tabulate(rows, headers, tablefmt="github", disable_numparse=True)


def ladder_table(rows, sim) -> str:
    """Every prediction of the common + 2-of-3 ReLN (:func:`ladder`) against its
    simulation ``sim`` (seeds x T)."""
    body = [
        [r.label, f"{r.gap:.3f}", f"{r.final_loss:.3g}", f"{r.fixed_point_loss:.2g}"]
        for r in rows
    ]
    body.append(
        ["*simulation (median over seeds)*", "—", f"{np.median(sim[:, -1]):.3g}", "—"]
    )
    headers = [
        "prediction of the common + 2-of-3 ReLN",
        "time gap to the simulation",
        "loss at the last epoch",
        "loss at the race's fixed point",
    ]
    return tabulate(body, headers, tablefmt="github", disable_numparse=True)


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


def evidence(r) -> dict:
    """The evidence of each of the paper's claims, ``{record: Evidence}``, each with
    the variants its claim's ``choices`` list (``seeds`` added by the rulebook)."""
    others = [i for i in r.sens if i != r.init]
    reln = r.m_reln.varied("init", {i: r.sens[i]["both"] for i in others})
    reln = reln.varied(
        "coupling", {"fully coupled (the plain GDLN of Eq. 3)": r.m_full}
    )
    beyond = lambda L: measures.match(r.relu.loss, L).but(  # noqa: E731
        criterion="beyond_noise"
    )
    singles = r.m_single.but(criterion="beyond_noise").varied(
        "init", {i: beyond(r.sens[i]["curves"]["single"]) for i in others}
    )
    at = lambda e: fc_single[:, r.relu.index(e)]  # noqa: E731
    fc_single = r.fc["single"]
    share = _share(
        fc_single[:, r.r_last],
        r.singles_alt,
        epochs={int(t): med(fc_single[:, k]) for k, t in enumerate(r.t_rec) if k > 0},
        phase=tuple(r.phase),
    )
    one_only = [d["one_context_only"] for d in r.strict]
    literal = (
        "the literal reading, weight in units active in one context only "
        f"({med(one_only):.3g}, last epoch)"
    )
    # a share cannot fall below 0: held against that bound one-sided (near_bound),
    # where a seed spread shrinking at the bound is no yardstick
    at_bound = _share(one_only, r.singles_alt).but(criterion="near_bound")
    share = share.varied("definition", {literal: at_bound})
    share = share.varied(
        "window",
        {
            f"epoch {e}": _share(at(e), r.singles_alt)
            for e in r.show_epochs
            if r.relu.index(e) != r.r_last
        },
    )
    return {
        "gap_relu_reln": reln,
        "gap_relu_singles": singles,
        "output_gap": r.m_out,
        "single_context_share": share,
    }


# --------------------------------------------------------------------------------------
# Glue: the numbers and sentences the prose cites, section by section


def _glue_task(r):
    glue("contexts_L0", r.L0)
    glue("contexts_L_linear", r.L_linear)
    glue("contexts_P", r.ds.P)
    glue("contexts_211_offdiag", 100 * r.diag_211["offdiag"])
    glue("contexts_211_offdiag_H", r.diag_211_H["offdiag"])
    glue("contexts_mirror_err", r.mirror_err)
    glue("contexts_d", float(r.d_all.mean()))
    glue("contexts_d_spread", float(np.ptp(r.d_all)))
    glue("contexts_sx_cross", float(np.abs(r.sx_cross - np.eye(8)).max()))
    glue("contexts_raw_mixed_top", float(np.mean([p.s[0] for p in r.raw_mixed])))
    glue("contexts_raw_single_top", float(np.mean([p.s[0] for p in r.raw_single])))
    glue("contexts_res_top", float(np.mean([p.s[0] for p in r.pm_mixed])))


def _glue_training(r):
    glue("contexts_init", r.init)
    glue("contexts_lr", r.lr)
    glue("contexts_epochs", r.epochs)
    glue("contexts_seeds", r.relu.loss.shape[0])
    glue("contexts_width", r.relu_width)
    for name, m in [
        ("reln", r.m_reln),
        ("full", r.m_full),
        ("mixed", r.m_mixed),
        ("single", r.m_single),
    ]:
        glue(f"contexts_g_{name}", m.value)
        glue(f"contexts_g_{name}_max", max(m.per_seed))
    glue("contexts_g_linear", r.m_reln.candidates[STRATEGIES["common"]])
    glue("contexts_g_best", r.m_reln.best)
    glue("contexts_g_spread_relu", pairwise_gap(r.relu.loss))
    glue("contexts_g_spread_reln", r.m_reln.spread_candidate)
    glue("contexts_g_spread", r.m_reln.spread)
    glue("contexts_g_spread_lo", r.m_reln.spread_interval[0])
    glue("contexts_g_spread_hi", r.m_reln.spread_interval[1])
    glue(
        "contexts_g_mixed_vs_reln",
        median_gap(r.runs["both/one-way"].loss, r.runs["mixed/one-way"].loss),
    )
    for name, v in r.gaps.items():
        glue(f"contexts_g_{name}", v)
    glue(
        "contexts_level_sign",
        "the ReLU network is faster at every level"
        if np.all(r.level_ratio > 0)
        else "the ReLU network is not faster at every level",
    )
    for k, f in enumerate(LEVELS):
        glue(f"contexts_level_{k}", f"{100 * f:g} %")
        glue(f"contexts_level_ratio_{k}", 100 * float(r.level_ratio[k]))


def _glue_init(r):
    rows = r.init_rows
    within = [i for i, x in rows.items() if x["verdict_7_pathways"] == "reproduced"]
    glue(
        "contexts_never_within",
        "Under none of the three starts is the 7-pathway ReLN within the seed noise "
        "of the ReLU network"
        if not within
        else f"The 7-pathway ReLN is within the seed noise under the "
        f"{', '.join(within)} start",
    )
    glue("contexts_best_init", min(rows, key=lambda i: rows[i]["gap_7_pathways"]))
    glue(
        "contexts_init_reading",
        "The context pathways started at twice the ReLU network's scale (the authors' "
        "choice) bring the ReLN closer than the ReLU network's own scale does."
        if rows["authors"]["gap_2_of_3"] < rows["matched"]["gap_2_of_3"]
        else "Starting the ReLN at the ReLU network's own scale brings it closer than "
        "the authors' doubled context scale does.",
    )
    for choice, x in rows.items():
        glue(f"contexts_sens_{choice}_both", x["gap_7_pathways"])
        glue(f"contexts_sens_{choice}_mixed", x["gap_2_of_3"])
        glue(f"contexts_sens_{choice}_single", x["gap_single_context"])
        glue(f"contexts_sens_{choice}_verdict", x["verdict_7_pathways"])


def _glue_outputs(r):
    for k, e in enumerate(r.show_epochs):
        glue(f"contexts_out_gap_{k}", med(r.out_gaps["reln"][e]))
        glue(f"contexts_out_seed_{k}", med(r.out_gaps["seed"][e]))
        glue(f"contexts_out_single_{k}", med(r.out_gaps["single"][e]))
        glue(f"contexts_show_{k}", r.show_epochs[k])
    glue("contexts_out_mean", r.m_out.value)
    glue("contexts_out_spread_relu", r.out_spread["sides"][0])
    glue("contexts_out_spread_reln", r.out_spread["sides"][1])
    glue("contexts_order_ok", int(np.sum(r.order_ok)))
    glue("contexts_order_n", len(r.order_ok))
    glue("contexts_sv_err_main", max(med(r.rel_err[n]) for n in r.main_names))
    glue("contexts_sv_err_single", max(med(r.rel_err[n]) for n in r.single_names))


def _glue_representations(r):
    for k, e in enumerate(r.show_epochs):
        i = r.relu.index(e)
        for m, v in r.sims["reln"].items():
            glue(f"contexts_{m}_{k}", med(v[:, i]))
            glue(f"contexts_{m}_seed_{k}", med(r.sims["seed"][m][:, i]))
            glue(f"contexts_{m}_single_{k}", med(r.sims["single"][m][:, i]))
        glue(f"contexts_mds_expl_{k}", 100 * r.mds_explained[k])
    glue(
        "contexts_cka_single_from",
        "(never, in this run)"
        if r.single_closer_from is None
        else r.single_closer_from,
    )


def _glue_gating(r):
    c, fc = r.census, r.fc
    glue("contexts_record_every", r.record_every)
    glue("contexts_final_mixed", 100 * med(c["common"][:, -1] + c["mixed"][:, -1]))
    glue("contexts_final_single", 100 * med(c["single"][:, -1]))
    glue("contexts_final_other", 100 * med(c["other"][:, -1]))
    glue("contexts_single_010", 100 * r.single_by_ctx["010"])
    glue("contexts_final_itemdep", 100 * med(c["item_dependent"][:, -1]))
    glue("contexts_final_consistency", 100 * med(c["consistency"][:, -1]))
    glue("contexts_peak_common", 100 * r.peak_common)
    glue("contexts_split_epoch", r.split_epoch)
    glue("contexts_final_common", 100 * med(c["common"][:, -1]))
    glue("contexts_final_2of3", 100 * med(c["mixed"][:, -1]))
    div = r.div
    glue("contexts_div_relu_common", 100 * div["ReLU"]["common"][0])
    glue("contexts_div_relu_mixed", 100 * div["ReLU"]["2-of-3"][0])
    glue("contexts_div_reln_common", 100 * div["ReLN"]["common"][0])
    glue("contexts_div_relu_ctx_common", 100 * div["ReLU"]["common"][1:].mean())
    glue("contexts_div_reln_ctx_common", 100 * div["ReLN"]["common"][1:].mean())
    glue("contexts_div_relu_single_ring", 100 * div["ReLU"]["single"][2])
    glue("contexts_div_reln_single_ring", 100 * div["ReLN"]["single"][2])
    glue("contexts_snap_final", 100 * med(fc["snap_change"][:, -1]))
    glue(
        "contexts_snap_max", 100 * float(np.max(np.median(fc["snap_change"][:, 1:], 0)))
    )
    glue("contexts_fsingle_final", 100 * med(fc["single"][:, -1]))
    glue("contexts_fmixed_final", 100 * med(fc["mixed"][:, -1]))
    glue("contexts_fcommon_final", 100 * med(fc["common"][:, -1]))
    glue("contexts_singles_alt", 100 * r.singles_alt)
    glue("contexts_phase_first", r.phase[0])
    glue("contexts_phase_last", r.phase[1])
    glue("contexts_phase_snap", 100 * rulebook.PHASE_SNAP)
    glue("contexts_strict_level", 100 * med([d["context_level"] for d in r.strict]))
    glue("contexts_strict_one", 100 * med([d["one_context_only"] for d in r.strict]))
    ab = r.ablation
    glue("contexts_abl_loss", med([d["loss"] for d in ab]))
    glue("contexts_abl_min", min(d["ablated"] for d in ab))
    glue("contexts_abl_max", max(d["ablated"] for d in ab))
    glue("contexts_abl_units", 100 * med([d["share_units"] for d in ab]))
    ctl = ablation_summary(r.ablation, r.control)
    glue("contexts_ctl_min", ctl["control_min"])
    glue("contexts_ctl_max", ctl["control_max"])
    glue("contexts_ctl_units", 100 * ctl["control_share_of_units"])
    glue("contexts_ctl_reading", ablation_reading(ctl))


def ablation_summary(ablation, control) -> dict:
    """The record ``single_context_ablation``: the loss without the single-context
    units and without the control's random equal-weight 2-of-3 units, over seeds.

    Defined for the page book/contexts.md.

    Args:
        ablation: per seed, :func:`helpers.chapters.contexts.ablate_class`'s dict.
        control: per seed, :func:`helpers.chapters.contexts.ablation_control`'s dict
            (the same seeds, in the same order).

    Returns:
        Medians, minima and maxima over seeds; ``ratio_*``: the loss without the
        single-context units over the control's (median over its draws), per seed;
        ``seeds_above_median`` / ``seeds_above_every_draw``: in how many seeds the
        single-context units' removal costs more than the control's median draw /
        than every draw; ``draws`` per seed and ``seeds``.
    """
    if len(ablation) != len(control) or not ablation:
        raise ValueError(
            f"ablation and control need one entry per seed each, got {len(ablation)} "
            f"and {len(control)}"
        )
    single = np.array([d["ablated"] for d in ablation], float)
    ctl = np.array([d["ablated"] for d in control], float)
    top = np.array([np.max(d["ablated_draws"]) for d in control], float)
    ratio = single / ctl
    return {
        "loss": med([d["loss"] for d in ablation]),
        "ablated_median": med(single),
        "ablated_min": float(single.min()),
        "ablated_max": float(single.max()),
        "share_of_units": med([d["share_units"] for d in ablation]),
        "control_median": med(ctl),
        "control_min": float(ctl.min()),
        "control_max": float(ctl.max()),
        "control_weight_ratio": med([d["weight_ratio"] for d in control]),
        "control_share_of_units": med([d["share_units"] for d in control]),
        "ratio_median": med(ratio),
        "ratio_min": float(ratio.min()),
        "ratio_max": float(ratio.max()),
        "seeds_above_median": int(np.sum(single > ctl)),
        "seeds_above_every_draw": int(np.sum(single > top)),
        "draws": int(len(control[0]["ablated_draws"])),
        "seeds": int(len(single)),
    }


def ablation_reading(ctl: dict) -> str:
    """The sentence the page prints on the ablation and its control, from
    :func:`ablation_summary`'s numbers (no threshold: it says which removal costs more,
    by how much and in how many seeds).

    Defined for the page book/contexts.md.

    Args:
        ctl: :func:`ablation_summary`'s dict.

    Returns:
        One sentence.
    """
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


def _glue_race(r):
    glue("contexts_ratio_final", med(r.ratio_final))
    glue("contexts_ratio_pred", float(r.ratio_pred[-1]))
    glue("contexts_single_norm_final", r.single_norm[1])
    glue("contexts_single_norm_init", r.single_norm[0])
    glue("contexts_out_single_share", 100 * r.out_single_share)
    glue("contexts_resid_mixed", med(r.resid["2-of-3"][:, -1]))
    glue("contexts_resid_single", med(r.resid["single"][:, -1]))
    glue("contexts_full_mixed", med(r.runs["mixed/one-way"].loss[:, -1]))
    glue("contexts_full_single", med(r.runs["single/one-way"].loss[:, -1]))


def _glue_constants(r):
    lo, hi = r.authors_a0_context
    band = lambda v: "inside" if lo <= v <= hi else ("below" if v < lo else "above")  # noqa: E731
    glue("contexts_a0_common", r.a0_common)
    glue("contexts_a0_context", r.a0_context)
    glue("contexts_a0_ratio_lo", lo / r.a0_context)
    glue("contexts_a0_ratio_hi", hi / r.a0_context)
    glue("contexts_hs_epoch", r.head_start_epoch)
    glue("contexts_a0_equiv", r.a0_hs_pred)
    glue("contexts_a0_equiv_sim", r.a0_hs_sim)
    glue(
        "contexts_a0_band",
        "both inside"
        if band(r.a0_hs_pred) == band(r.a0_hs_sim) == "inside"
        else f"{band(r.a0_hs_pred)} (prediction) and {band(r.a0_hs_sim)} (simulation)",
    )
    top = r.top_vals
    same = round(float(top.mean()), 2) == round(r.authors_overlap, 2)
    glue("contexts_a0_eq_min", float(np.nanmin(r.a0_eq)))
    glue("contexts_a0_eq_max", float(np.nanmax(r.a0_eq)))
    glue("contexts_overlap_H", float(r.top_H.mean()))
    glue("contexts_overlap_H_spread", float(np.ptp(r.top_H)))
    glue(
        "contexts_overlap_match",
        "equals, to the two digits given," if same else "differs from",
    )
    glue("contexts_overlap_top_mean", float(top.mean()))
    glue("contexts_overlap_top_min", float(top.min()))
    glue("contexts_overlap_top_max", float(top.max()))
    glue("contexts_overlap_all_min", float(r.partner_all.min()))
    glue("contexts_overlap_all_max", float(r.partner_all.max()))
    glue("contexts_overlap_all_med", float(np.median(r.partner_all)))


def _glue_ladder(r):
    rows, race_row = r.ladder, r.race_row
    glue("contexts_ladder_init", rows[0].gap)
    glue("contexts_ladder_init45", rows[1].gap)
    # rows 4-7: the authors' a0 band, derived overlaps and -0.45 in turn
    glue("contexts_ladder_best_authors", min(x.gap for x in rows[4:8]))
    glue("contexts_ladder_best_authors45", min(x.gap for x in rows[5:8:2]))
    glue("contexts_race_final", race_row.final_loss)
    glue("contexts_race_star_final", r.star_row.final_loss)
    glue("contexts_race_star_gap", r.g_race_star)
    glue("contexts_race_gap", r.m_race.value)
    glue("contexts_race_gap_mixed", race_row.gap)
    glue("contexts_race_gap_relu", r.g_race_relu)
    glue("contexts_race_spread", r.m_race.spread)
    glue("contexts_race_fp", race_row.fixed_point_loss)
    glue("contexts_race_fp_pct", 100 * race_row.fixed_point_loss / r.L0)
    glue(
        "contexts_race_censored",
        "never reaches the last level, 0.1 % of the initial loss, so the gap is a "
        "lower bound"
        if r.m_race.censored
        else "reaches every level of the time gap",
    )
    glue("contexts_ladder_fp45", rows[1].fixed_point_loss)
    glue("contexts_ladder_matrix", rows[-1].gap)
    glue("contexts_sim_m_final", med(r.sim_m[:, -1]))
    glue("contexts_g_authors", r.g_authors)
    glue("contexts_reln_spread", r.reln_spread)


# --------------------------------------------------------------------------------------
# The records


def _records(rec, r) -> dict:
    """Every record of the chapter, in the order the page presents them."""
    S, init, show = r.relu.loss.shape[0], r.init, r.show_epochs
    ev = evidence(r)
    out = {}
    out["gap_relu_reln"] = rec.add(
        "gap_relu_reln",
        ev["gap_relu_reln"],
        f"time gap ReLU vs 7-pathway one-way ReLN started by the {init} init, "
        f"median over {S} seeds; competitors: common + single-context (k = 1) and the "
        "common pathway alone (k = 3); the common + 2-of-3 ReLN is the same strategy "
        f"without the idle single-context pathways (gap {r.m_mixed.value:.3f}); "
        "two-sample spread. "
        + rulebook.setup_clause(
            {i: x["verdict_7_pathways"] for i, x in r.init_rows.items()}, init
        ),
    )
    out["gap_relu_singles"] = rec.add(
        "gap_relu_singles",
        ev["gap_relu_singles"],
        f"time gap ReLU vs common + single-context ReLN ({init} init), "
        f"median over {S} seeds. "
        + rulebook.setup_clause(
            {i: x["verdict_single_context"] for i, x in r.init_rows.items()}, init
        ),
    )
    out["init_sensitivity"] = rec.add(
        "init_sensitivity",
        Evidence(r.init_rows, spread=r.m_reln.spread),
        "per initialisation of the ReLNs (conv-init): time gaps to the ReLU network "
        "and the verdict the rulebook gives 'excellent agreement' under that choice.",
    )
    out["output_gap"] = rec.add(
        "output_gap",
        ev["output_gap"],
        "||Yhat_ReLU - Yhat_ReLN|| / ||Yhat_ReLU|| (conv-output-gap), median over "
        f"every pair of seeds, mean over the epochs {show}; spread: the larger of "
        "the ReLU and the ReLN seed spreads of the same mean.",
    )
    cka = r.cka_by_epoch
    out["representation_gap"] = rec.add(
        "representation_gap",
        {
            "mean_over_shown_epochs": r.cka_gap,
            "by_epoch": {
                str(e): {k: float(v[r.relu.index(e)]) for k, v in cka.items()}
                for e in show
            },
            "single_closer_from_epoch": r.single_closer_from,
        },
        "1 - linear CKA of the hidden representations against the ReLU network "
        "(reln: the 7-pathway ReLN, single: the single-context ReLN, seed: another "
        f"ReLU seed), median over seeds, at the epochs {show} and their mean; no "
        "verdict: from the epoch given the measure prefers the paper's alternative at "
        "every recorded epoch, so it cannot single out the paper's candidate.",
    )
    one_only = med([d["one_context_only"] for d in r.strict])
    out["single_context_share"] = rec.add(
        "single_context_share",
        ev["single_context_share"],
        "two readings of 'context specific'. Through the function (the value): share "
        "of the ReLU network's output produced by single-context units once every unit "
        "is snapped to its nearest context-level gate (item-dependent units count by "
        "the context where they are on for most items), at the last epoch of the "
        f"phase (snap change <= {rulebook.PHASE_SNAP:g}), median over seeds: "
        f"{ev['single_context_share'].value:.3g}. Literally (the definition variant): "
        "weight share of units active, for any item, in one context only, last "
        f"epoch, median over seeds: {one_only:.3g}. Alternative: the single-context "
        "pathways' share of the single-context ReLN's output, by the same norm (the "
        "class's summed contribution).",
    )
    out["single_context_strict"] = rec.add(
        "single_context_strict",
        {
            k: med([d[k] for d in r.strict])
            for k in ("one_context_only", "context_level")
        },
        "weight shares at the last epoch, median over seeds: units active in one "
        "context only (for any item), and units whose gates are all-or-none per "
        "context.",
    )
    ctl = ablation_summary(r.ablation, r.control)
    out["single_context_ablation"] = rec.add(
        "single_context_ablation",
        ctl,
        "summed loss of the ReLU network at the last epoch, with its single-context "
        "units (functional census) removed, and, the control, with random 2-of-3 units "
        "of the same total weight |W2[:, j]| |W1[j, :]| removed "
        f"({ctl['draws']} sets per seed, seeded by the seed; removed weight "
        f"{ctl['control_weight_ratio']:.3f} of the single-context units'); medians, "
        "min and max over seeds. " + ablation_reading(ctl),
    )
    out["assumption_211_offdiag"] = rec.add(
        "assumption_211_offdiag",
        r.diag_211["offdiag"],
        "||V^T Sigma_x V - diag|| / ||V^T Sigma_x V|| for (X, Y) of Section 4 "
        f"(all-hierarchy task of Section 5: {r.diag_211_H['offdiag']:.1e}).",
    )
    classes = ("common", "mixed", "single", "other", "snap_change")
    out["census_over_training"] = rec.add(
        "census_over_training",
        {str(e): {k: med(r.fc[k][:, r.relu.index(e)]) for k in classes} for e in show},
        "functional census (conv-census), median over seeds, at the epochs shown.",
    )
    out["gap_reln_prediction"] = rec.add(
        "gap_reln_prediction",
        Evidence(r.gaps["pred"], criterion="gap"),
        "time gap simulated 7-pathway one-way ReLN vs helpers.core.race.predict (the "
        "book's matrix race; a0 from the init, overlaps from the data, nothing "
        "fitted), median over seeds.",
    )
    out["gap_authors_prediction"] = rec.add(
        "gap_authors_prediction",
        r.m_race,
        "time gap simulated 7-pathway ReLN (as in Fig. 4a) vs this book's "
        "implementation of the per-mode race of 3_context_diff/race.py (its common "
        "pathway, modes paired by rank, and the residual it leaves) with its "
        f"constants (overlaps {PAPER.race_overlaps}, top {PAPER.race_overlap_top}, a0 "
        f"{PAPER.race_a0_context:g} / common {PAPER.race_a0_common:g}); against the "
        f"common + 2-of-3 ReLN {r.race_row.gap:.3f}, against the ReLU network "
        f"{r.g_race_relu:.3f}; the race's fixed point leaves a loss of "
        f"{r.race_row.fixed_point_loss:.2f}; spread: two ReLN seeds.",
    )
    out["gap_oneway_coupled"] = rec.add(
        "gap_oneway_coupled",
        r.gaps["ow_full"],
        "time gap one-way vs fully coupled 7-pathway GDLN (same seeds), median.",
    )
    out["race_singles_norm_ratio"] = rec.add(
        "race_singles_norm_ratio",
        med(r.ratio_final),
        "norm of the single-context maps over the 2-of-3 maps at the last epoch, "
        "7-pathway one-way ReLN, median over seeds (race prediction "
        f"{r.ratio_pred[-1]:.3f}).",
    )
    return out


#: The closing table's rows: (record, the claim in the table, the paper's words).
SUMMARY = [
    (
        "gap_relu_reln",
        "ReLU loss follows the 7-pathway ReLN (Fig. 4a)",
        "'excellent agreement'",
    ),
    (
        "gap_relu_singles",
        "ReLU loss deviates from the single-context ReLN (Prop. 4.2)",
        "'a clear deviation'",
    ),
    (
        "init_sensitivity",
        "The same comparison under each initialisation of the ReLN",
        "—",
    ),
    (
        "output_gap",
        "Outputs of ReLU network and ReLN agree (Fig. 4a)",
        "'excellent agreement across all ... outputs'",
    ),
    (
        "representation_gap",
        "Hidden representations correspond (Fig. 4c): no verdict, the measure "
        "prefers the alternative late",
        "'near exact correspondence'",
    ),
    (
        "single_context_share",
        "No context-specific ReLU units (Section 4)",
        "'no neurons ... context specific'",
    ),
    (
        "single_context_strict",
        "The same, counted strictly (one context only; all-or-none gates)",
        "—",
    ),
    (
        "single_context_ablation",
        "What the single-context units do (loss without them)",
        "—",
    ),
    (
        "assumption_211_offdiag",
        "Assumption 2.1.1 on this task (off-diagonal share)",
        "—",
    ),
    ("census_over_training", "The census through the function, over training", "—"),
    (
        "gap_reln_prediction",
        "The book's race prediction follows the simulated ReLN",
        "—",
    ),
    (
        "gap_authors_prediction",
        "race.py's constants in this book's per-mode race, against the 7-pathway ReLN "
        "(Fig. 4a)",
        "—",
    ),
    ("gap_oneway_coupled", "One-way (authors) vs fully coupled GDLN", "—"),
    (
        "race_singles_norm_ratio",
        "Single-context maps beside the 2-of-3 maps in the 7-pathway ReLN",
        "—",
    ),
]


def _headline(r, out) -> str:
    """The lines the page's check cell prints (compared by nbval)."""
    v = lambda n: out[n]["verdict"]  # noqa: E731
    best = min(r.init_rows, key=lambda i: r.init_rows[i]["gap_7_pathways"])
    lines = [
        f"gap_relu_reln           = {r.m_reln.value:.2f} ({v('gap_relu_reln')})",
        f"gap_relu_singles        = {r.m_single.value:.1f} ({v('gap_relu_singles')})",
        f"output_gap              = {r.m_out.value:.2f} ({v('output_gap')})",
        f"representation_gap      = {v('representation_gap')}",
        f"single_context_share    = {med(r.fc['single'][:, -1]):.2f} "
        f"({v('single_context_share')})",
        f"gap_reln_prediction     = {r.gaps['pred']:.2f} ({v('gap_reln_prediction')})",
        f"gap_authors_prediction  = {v('gap_authors_prediction')}",
        f"best initialisation     = {best}",
    ]
    return "\n".join(lines)


def report(rec, results) -> dict:
    """Write the chapter's records and glue, and build its closing tables.

    Defined for the page book/contexts.md.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records`.
        results: what the page computed (a ``types.SimpleNamespace``), by the page's
            own names: the parameters (``init``, ``lr``, ``epochs``, ``relu_width``,
            ``record_every``, ``show_epochs``, ``head_start_epoch``,
            ``authors_overlap``, ``authors_a0_context``, ``t_rec``); the task (``ds``,
            ``L0``, ``L_linear``, ``diag_211``, ``diag_211_H``) and its effective
            datasets (``mirror_err``, ``d_all``, ``sx_cross``, ``raw_mixed``,
            ``raw_single``, ``pm_mixed``); the runs (``relu``, ``runs``) and their
            comparisons (``m_reln``, ``m_full``, ``m_mixed``, ``m_single``, ``gaps``,
            ``level_ratio``, ``sens``, ``init_rows``); the outputs (``out_gaps``,
            ``out_spread``, ``m_out``) and singular values (``order_ok``,
            ``rel_err``, ``main_names``, ``single_names``); the representations
            (``sims``, ``mds_explained``, ``cka_gap``, ``cka_by_epoch``,
            ``single_closer_from``); the gating (``census``, ``single_by_ctx``,
            ``peak_common``, ``split_epoch``, ``div``, ``fc``, ``singles_alt``,
            ``phase``, ``r_last``, ``strict``, ``ablation``, ``control``); the race
            (``ratio_final``, ``ratio_pred``, ``single_norm``, ``out_single_share``,
            ``resid``); the constants (``a0_common``, ``a0_context``, ``a0_hs_pred``,
            ``a0_hs_sim``, ``a0_eq``, ``top_H``, ``top_vals``, ``partner_all``) and the
            ladder of predictions (``ladder``, ``race_row``, ``m_race``,
            ``g_race_relu``, ``sim_m``, ``g_authors``, ``reln_spread``; ``star_row``
            and ``g_race_star``: race.py's constants on the book's common pathway and
            residual, and its time gap to race.py's own race).

    Returns:
        ``{"summary": the closing table (Markdown), "headline": the lines the page's
        check cell prints, "records": {name: record}}``; the records are saved.
    """
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
        part(results)
    out = _records(rec, results)
    literal = out["single_context_share"]["variants"]["definition"][0]
    glue("contexts_literal_verdict", literal["verdict"])
    glue("contexts_share_verdict", out["single_context_share"]["verdict"])
    rec.save()
    summary = claims_table([(claim, words, out[n]) for n, claim, words in SUMMARY])
    return {"summary": summary, "headline": _headline(results, out), "records": out}
