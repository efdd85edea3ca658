"""The records, glue and closing table of the page book/contexts.md, from the runs and
what the page measured of them; verdicts are the rulebook's, words the TOML's."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...book import kit, rulebook
from ...core import measures, paper
from ...core.measures import LEVELS, Evidence, seed_spread, seed_spread_interval
from . import comparisons
from .comparisons import Losses, Outputs, PathwayValues, Race
from .gating import Gating, ablation_summary
from .predictions import Constants, Ladder
from .representations import Representations
from .task import Params, Task

C, med = "contexts", kit.med


def _share(values, alternative, **kw) -> Evidence:
    """A share measured once per seed, held against 0 ("no neurons") under ``near``."""
    kw |= dict(alternative=alternative, compared=0.0, criterion="near")
    iv = seed_spread_interval(values)
    return Evidence(med(values), spread=seed_spread(values), spread_interval=iv, **kw)


def _glue_training(r) -> dict:
    """The task, the training, the time gaps and the initialisations of the ReLNs."""
    p, L, m, rows = r.params, r.losses, r.losses.m_reln, r.losses.init_rows
    S, t = r.relu.loss.shape[0], r.task
    g = {
        "L0": t.L0,
        "L_linear": t.L_linear,
        "211_offdiag": 100 * t.diag_211["offdiag"],
        "211_offdiag_H": t.diag_211_H["offdiag"],
        "mirror_err": t.mirror_err,
        "d": float(t.d_all.mean()),
        "d_spread": float(np.ptp(t.d_all)),
        "sx_cross": float(np.abs(t.sx_cross - np.eye(8)).max()),
        "raw_mixed_top": float(np.mean([x.s[0] for x in t.raw_mixed])),
        "raw_single_top": float(np.mean([x.s[0] for x in t.raw_single])),
        "res_top": float(np.mean([x.s[0] for x in t.pm_mixed])),
    }
    g |= dict(init=p.init, lr=p.lr, epochs=p.epochs, seeds=S, width=p.relu_width)
    for name in ("reln", "full", "mixed", "single"):
        fit = getattr(L, f"m_{name}")
        g[f"g_{name}"] = fit.value
    both, mixed = (r.relns[k].loss for k in ("both/one-way", "mixed/one-way"))
    g |= dict(
        g_linear=m.candidates[comparisons.STRATEGIES["common"]],
        g_best=m.best,
        g_spread_relu=comparisons.pairwise_gap(r.relu.loss),
        g_spread_reln=m.spread_candidate,
        g_spread=m.spread,
        g_spread_lo=m.spread_interval[0],
        g_spread_hi=m.spread_interval[1],
        g_mixed_vs_reln=comparisons.median_gap(both, mixed),
    )
    g |= {f"g_{name}": v for name, v in L.gaps.items()}
    sign = "" if np.all(L.level_ratio > 0) else "not "
    g["level_sign"] = kit.prose(C, "level_sign", sign=sign)
    for k, f in enumerate(LEVELS):
        g[f"level_{k}"] = f"{100 * f:g} %"
        g[f"level_ratio_{k}"] = 100 * float(L.level_ratio[k])
    within = [i for i, x in rows.items() if x["verdict_7_pathways"] == "reproduced"]
    closer = rows["authors"]["gap_2_of_3"] < rows["matched"]["gap_2_of_3"]
    which = "within" if within else "none_within"
    g["never_within"] = kit.prose(C, which, starts=", ".join(within))
    g["best_init"] = min(rows, key=lambda i: rows[i]["gap_7_pathways"])
    g["init_reading"] = kit.prose(C, "init_authors" if closer else "init_matched")
    keys = ("7_pathways", "2_of_3", "single_context")
    for choice, x in rows.items():
        for name, key in zip(("both", "mixed", "single"), keys):
            g[f"sens_{choice}_{name}"] = x[f"gap_{key}"]
        g[f"sens_{choice}_verdict"] = x["verdict_7_pathways"]
    return g


def _glue_outputs(r) -> dict:
    """The outputs, the pathways' singular values and the hidden representations."""
    o, sv, reps, g = r.outputs, r.svs, r.reps, {}
    for k, e in enumerate(r.params.show_epochs):
        for name, key in (("gap", "reln"), ("seed", "seed"), ("single", "single")):
            g[f"out_{name}_{k}"] = med(o.gaps[key][e])
        g[f"show_{k}"] = e
    g |= dict(
        out_mean=o.match.value,
        out_spread_relu=o.spread["sides"][0],
        out_spread_reln=o.spread["sides"][1],
        order_ok=int(np.sum(sv.order_ok)),
        order_n=len(sv.order_ok),
        sv_err_main=max(med(sv.rel_err[n]) for n in sv.main_names),
        sv_err_single=max(med(sv.rel_err[n]) for n in sv.single_names),
    )
    for k, e in enumerate(r.params.show_epochs):
        i = r.relu.index(e)
        for m, v in reps.sims["reln"].items():
            g[f"{m}_{k}"] = med(v[:, i])
            g[f"{m}_seed_{k}"] = med(reps.sims["seed"][m][:, i])
            g[f"{m}_single_{k}"] = med(reps.sims["single"][m][:, i])
        g[f"mds_expl_{k}"] = 100 * reps.mds_explained[k]
    first = reps.single_closer_from
    g["cka_single_from"] = kit.prose(C, "never_closer") if first is None else first
    return g


def _glue_gating(r) -> dict:
    """The gating census, its divergences, phase and ablation."""
    gt, ctl = r.gating, r.ctl
    c, fc, div, ab = gt.census, gt.fc, gt.div, gt.ablation

    def end(x):  # at the last record, in %, median over seeds
        return 100 * med(x[:, -1])

    return dict(
        record_every=r.params.record_every,
        final_mixed=end(c["common"] + c["mixed"]),
        final_single=end(c["single"]),
        final_other=end(c["other"]),
        single_010=100 * gt.single_by_ctx["010"],
        final_itemdep=end(c["item_dependent"]),
        final_consistency=end(c["consistency"]),
        peak_common=100 * gt.peak_common,
        split_epoch=gt.split_epoch,
        final_common=end(c["common"]),
        final_2of3=end(c["mixed"]),
        div_relu_common=100 * div["ReLU"]["common"][0],
        div_relu_mixed=100 * div["ReLU"]["2-of-3"][0],
        div_reln_common=100 * div["ReLN"]["common"][0],
        div_relu_single_ring=100 * div["ReLU"]["single"][2],
        div_reln_single_ring=100 * div["ReLN"]["single"][2],
        snap_final=end(fc["snap_change"]),
        snap_max=100 * float(np.max(np.median(fc["snap_change"][:, 1:], 0))),
        fsingle_final=end(fc["single"]),
        fmixed_final=end(fc["mixed"]),
        fcommon_final=end(fc["common"]),
        singles_alt=100 * gt.singles_alt,
        phase_first=gt.phase[0],
        phase_last=gt.phase[1],
        phase_snap=100 * rulebook.PHASE_SNAP,
        strict_level=100 * med([d["context_level"] for d in gt.strict]),
        strict_one=100 * med([d["one_context_only"] for d in gt.strict]),
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
    """The page's sentence on the ablation and its control, from
    :func:`.gating.ablation_summary`'s dict ``ctl``."""
    S, above = ctl["seeds"], ctl["seeds_above_median"]
    where = {S: "above_median", 0: "below_median"}.get(above, "some_above")
    if ctl["seeds_above_every_draw"] == S:
        where = "above_every"
    where = kit.prose(C, f"ablation_{where}", **ctl)
    verb = "more" if ctl["ratio_median"] > 1 else "less"
    return kit.prose(C, "ablation", where=where, verb=verb, **ctl)


def _glue_race(r) -> dict:
    """The race reduction: the pathways' norms, its constants and its predictions."""
    race, relns, k, p = r.race, r.relns, r.consts, r.params
    lad, rows, race_row = r.ladder, r.ladder.rows, r.ladder.race_row
    lo, hi = p.authors_a0_context
    pred, sim = (
        "inside" if lo <= v <= hi else ("below" if v < lo else "above")
        for v in (k.a0_hs_pred, k.a0_hs_sim)
    )
    same = round(float(k.top_vals.mean()), 2) == round(p.authors_overlap, 2)
    band = "a0_inside" if pred == sim == "inside" else "a0_band"
    return dict(
        ratio_final=med(race.ratio_final),
        ratio_pred=float(race.ratio_pred[-1]),
        single_norm_final=race.single_norm[1],
        single_norm_init=race.single_norm[0],
        out_single_share=100 * race.out_single_share,
        resid_mixed=med(race.resid["2-of-3"][:, -1]),
        resid_single=med(race.resid["single"][:, -1]),
        full_mixed=med(relns["mixed/one-way"].loss[:, -1]),
        full_single=med(relns["single/one-way"].loss[:, -1]),
        a0_common=k.a0_common,
        a0_context=k.a0_context,
        a0_ratio_lo=lo / k.a0_context,
        a0_ratio_hi=hi / k.a0_context,
        hs_epoch=p.head_start_epoch,
        a0_equiv=k.a0_hs_pred,
        a0_equiv_sim=k.a0_hs_sim,
        a0_band=kit.prose(C, band, pred=pred, sim=sim),
        a0_eq_min=float(np.nanmin(k.a0_eq)),
        a0_eq_max=float(np.nanmax(k.a0_eq)),
        overlap_H=float(k.top_H.mean()),
        overlap_H_spread=float(np.ptp(k.top_H)),
        overlap_match=kit.prose(C, "overlap_same" if same else "overlap_differs"),
        overlap_top_mean=float(k.top_vals.mean()),
        overlap_top_min=float(k.top_vals.min()),
        overlap_top_max=float(k.top_vals.max()),
        overlap_all_min=float(k.partner_all.min()),
        overlap_all_max=float(k.partner_all.max()),
        overlap_all_med=med(k.partner_all),
        ladder_init=rows[0].gap,
        ladder_init45=rows[1].gap,
        ladder_best_authors=lad.g_authors_any,
        ladder_best_authors45=lad.g_authors,
        race_final=race_row.final_loss,
        race_star_final=lad.star_row.final_loss,
        race_star_gap=lad.g_race_star,
        race_gap=lad.m_race.value,
        race_gap_mixed=race_row.gap,
        race_gap_relu=lad.g_race_relu,
        race_spread=lad.m_race.spread,
        race_fp=race_row.fixed_point_loss,
        race_fp_pct=100 * race_row.fixed_point_loss / r.task.L0,
        race_censored=kit.prose(C, "censored" if lad.m_race.censored else "uncensored"),
        ladder_fp45=rows[1].fixed_point_loss,
        ladder_matrix=rows[-1].gap,
    )


def _share_record(r, at: dict) -> tuple[Evidence, list]:
    """The single-context share at the phase's last epoch, with its variants (the
    literal definition, the shown epochs ``at``), and the literal reading per seed."""
    g, p = r.gating, r.params
    fc, alt = g.fc["single"], g.singles_alt
    epochs = {int(t): med(fc[:, k]) for k, t in enumerate(p.t_rec) if k > 0}
    share = _share(fc[:, g.r_last], alt, epochs=epochs, phase=tuple(g.phase))
    one_only = [d["one_context_only"] for d in g.strict]
    literal = kit.prose(C, "literal", one_only=med(one_only))
    # a share cannot fall below 0: held against that bound one-sided (near_bound),
    # where a seed spread shrinking at the bound is no yardstick
    at_bound = _share(one_only, alt).but(criterion="near_bound")
    window = {
        f"epoch {e}": _share(fc[:, i], alt) for e, i in at.items() if i != g.r_last
    }
    share = share.varied("definition", {literal: at_bound}).varied("window", window)
    return share, one_only


def _records(r, glued: dict) -> list:
    """The records in order, each with the values its template names."""
    L, g, p, rows = r.losses, r.gating, r.params, r.losses.init_rows
    classes = ("common", "mixed", "single", "other", "snap_change")
    # the time gaps, with their init and coupling variants
    others = [i for i in L.sens if i != p.init]
    coupled = {"fully coupled (the plain GDLN of Eq. 3)": L.m_full}
    reln = L.m_reln.varied("init", {i: L.sens[i]["both"] for i in others})
    reln = reln.varied("coupling", coupled)
    beyond = dict(criterion="beyond_noise")
    single = {
        i: measures.match(r.relu.loss, L.sens[i]["curves"]["single"]).but(**beyond)
        for i in others
    }
    singles = L.m_single.but(**beyond).varied("init", single)
    at = {str(e): r.relu.index(e) for e in p.show_epochs}  # the shown epochs' records
    share, one_only = _share_record(r, at)

    def setup(verdict):
        return rulebook.setup_clause({i: x[verdict] for i, x in rows.items()}, p.init)

    values = glued | dict(
        r=r,
        setup_7=setup("verdict_7_pathways"),
        setup_single=setup("verdict_single_context"),
        snap=rulebook.PHASE_SNAP,
        share=share.value,
        one_only=med(one_only),
        P=paper.CONTEXTS,
    )
    cka = r.reps.cka_by_epoch
    by_epoch = {e: {k: float(v[i]) for k, v in cka.items()} for e, i in at.items()}
    cka = {
        "mean_over_shown_epochs": r.reps.cka_gap,
        "by_epoch": by_epoch,
        "single_closer_from_epoch": r.reps.single_closer_from,
    }
    census = {e: {k: med(g.fc[k][:, i]) for k in classes} for e, i in at.items()}
    strict = ("one_context_only", "context_level")
    records = [
        ("gap_relu_reln", reln),
        ("gap_relu_singles", singles),
        ("init_sensitivity", Evidence(rows, spread=L.m_reln.spread)),
        ("output_gap", r.outputs.match),
        ("representation_gap", cka),
        ("single_context_share", share),
        ("single_context_strict", {k: med([d[k] for d in g.strict]) for k in strict}),
        ("single_context_ablation", r.ctl),
        ("assumption_211_offdiag", r.task.diag_211["offdiag"]),
        ("census_over_training", census),
        ("gap_reln_prediction", Evidence(L.gaps["pred"], criterion="gap")),
        ("gap_authors_prediction", r.ladder.m_race),
        ("gap_oneway_coupled", L.gaps["ow_full"]),
        ("race_singles_norm_ratio", med(r.race.ratio_final)),
    ]
    return [(name, evidence, values) for name, evidence in records]


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
    """Write and save the records ``rec`` and the glue of the page book/contexts.md from
    its runs (``relu``, ``relns``) and what it measured of them (``losses`` ..
    ``ladder``).  Returns ``summary`` (the closing table), ``headline`` (what the
    check cell prints) and ``records``."""
    r = SimpleNamespace(
        params=params, task=task, relu=relu, relns=dict(relns),
        losses=losses, outputs=outputs, svs=svs, reps=reps,
        gating=gating, race=race, consts=consts, ladder=ladder,
        ctl=ablation_summary(gating.ablation, gating.control),
    )  # fmt: skip
    g = {}
    for part in (_glue_training, _glue_outputs, _glue_gating, _glue_race):
        g |= part(r)
    out = kit.add_all(rec, _records(r, g))
    share = out["single_context_share"]
    g["literal_verdict"] = share["variants"]["definition"][0]["verdict"]
    g["share_verdict"] = share["verdict"]
    kit.glue_many(C, g)
    rec.save()
    summary = kit.summary(C, out)
    v = {n: x["verdict"] for n, x in out.items()}
    share = med(gating.fc["single"][:, -1])
    headline = kit.prose(C, "headline", g=g, v=v, share=share)
    return {"summary": summary, "headline": headline, "records": out}
