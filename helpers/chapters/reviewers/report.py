"""The records, the numbers in the prose (glue) and the closing table of the page
``book/reviewers.md``: the page computes its runs and rows, :func:`report` writes.

The page hands over its results by name (:class:`Results`); what is derived from them
alone (the smallest width with the strategy, the sentence's score) is derived here by
the same functions of :mod:`.sweeps`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...book.kit import add_all, glue_many
from ...book.notebook import glue
from ...book.records import claims_table
from ...book.rulebook import NOISE_MULTIPLE, PHASE_SNAP
from .measures import nanmed
from .sweeps import (
    Parameters,
    min_width,
    score_sentence,
    strategy_settings,
    structure_by_setting,
)

MULT = NOISE_MULTIPLE
#: The match's fields every sweep's record keeps.
MATCH = (
    "match_value",
    "match_spread",
    "match_spread_interval",
    "match_alternative",
    "match_alternative_spread",
    "match_nearer",
)
#: The fields the data comparison's records keep.
DATA = (
    "offdiag_common",
    "offdiag_ctx23",
    "mixed",
    "single",
    "snap_change",
    "final_loss_share",
    *MATCH,
)
#: The strategy's shares a record keeps.
STRATEGY = ("common", "mixed", "single", "other", "snap_change", "mixed_of_context")
#: How the page words the answer of :func:`~.measures.nearer_than_half`.
NEARER = {
    "below": "below",
    "not below": "not below",
    "undecided": "not told apart from",
}


def _pick(d: dict, keys) -> dict:
    return {k: d[k] for k in keys if k in d}


@dataclass
class Results:
    """What the page computed, named as on the page (``book/reviewers.md``): its
    parameters, the task's scale (``L0``, ``L_linear``, ``need``), every setting's
    match (``matches``, ``match_authors``), the strategy at the paper's settings
    (``base_end``, ``weight_census``), the sweeps' rows, the separation, the modes
    (``rows6``, ``t_sim``, ``mode_order``), node reuse (``top_raw``, ``top_res``,
    ``race7``) and the interventions."""

    params: Parameters
    L0: float
    L_linear: float
    need: dict
    matches: dict
    match_authors: dict
    base_end: dict
    weight_census: np.ndarray
    width_sweep: dict
    init_sweep: dict
    optimiser: dict
    lr_adam: dict
    data_table: dict
    separation: dict
    mode_order: dict
    rows6: list
    t_sim: np.ndarray
    top_raw: dict
    top_res: dict
    race7: dict
    intervention: dict

    @cached_property
    def min_width(self) -> dict:
        """:func:`~.sweeps.min_width` of the width sweep."""
        return min_width(self.width_sweep, self.params.widths)

    @cached_property
    def sentence(self) -> dict:
        """:func:`~.sweeps.score_sentence` on the settings with the 2-of-3 strategy
        (:func:`~.sweeps.structure_by_setting`)."""
        p = self.params
        structure = structure_by_setting(
            self.width_sweep,
            self.init_sweep,
            self.optimiser,
            self.data_table,
            p.relu_width,
            p.strategy_share,
        )
        return score_sentence(self.matches, structure)

    @property
    def t_iso(self) -> np.ndarray:
        """Each mode's half-way epoch by Eq. 7 alone."""
        return np.array([x.t_half for x in self.rows6])


# --------------------------------------------------------------------------------------
# The numbers in the prose, section by section


def _glue_setup(r: Results) -> None:
    p = r.params
    glue_many(
        "reviewers",
        L0=r.L0,
        L_linear_share=100 * r.L_linear / r.L0,
        need_total=r.need["total"],
        need_common=r.need["common"],
        need_ctx=r.need["ctx12"],
        mult=MULT,
        seeds=int(p.seeds),
        grid_widths=", ".join(map(str, p.widths)),
        grid_stds=", ".join(f"{v:.1e}" for v in p.init_stds),
        grid_batches=", ".join(map(str, p.batch_sizes)),
        grid_rhos=", ".join(f"{x / 100:g}" for x in p.code_rho_pct),
        grid_noise=", ".join(f"{v:g}" for v in p.label_noise),
        grid_gains=", ".join(f"{v:g}" for v in p.primed_gains),
        strategy_share=p.strategy_share,
        fit_level=100 * p.fit_level,
        plateau_min=p.plateau_min,
        gate_change_max=100 * p.gate_change_max,
        common_left=100 * (1 - p.common_done),
    )


def _glue_base(r: Results) -> None:
    mb = r.matches["paper settings"]
    glue("reviewers_base_match", mb["value"])
    glue("reviewers_base_spread", mb["spread"])
    glue("reviewers_base_alt", mb["alternative"])
    glue("reviewers_base_ratio", mb["value"] / mb["spread"])
    glue("reviewers_base_interval", "[{:.3f}, {:.3f}]".format(*mb["spread_interval"]))
    glue("reviewers_base_half_alt", mb["alternative"] / 2)
    glue("reviewers_base_nearer", NEARER[mb["nearer_verdict"]])
    glue("reviewers_base_alt_spread", mb["alternative_spread"])
    glue("reviewers_base_margin", abs(mb["alternative"] / 2 - mb["value"]))
    top = max(mb["spread_interval"][1], mb["alternative_spread_interval"][1])
    glue("reviewers_base_noise", MULT * top)
    for k in ("common", "mixed", "single", "other", "snap_change", "mixed_of_context"):
        glue(f"reviewers_base_{k}", nanmed(r.base_end[k]))
    glue("reviewers_base_weight_mixed", nanmed(r.weight_census[:, -1]))
    glue("reviewers_authors_match", r.match_authors["value"])
    glue("reviewers_authors_factor", mb["value"] / r.match_authors["value"])


def _glue_widths(r: Results) -> None:
    p = r.params
    widths = p.widths
    glue("reviewers_w_small", widths[0])
    glue("reviewers_w_large", widths[-1])
    glue("reviewers_w_paper", p.relu_width)
    for tag, rule in (("std", "fixed std"), ("out", "fixed output scale")):
        rows_r = r.width_sweep[rule]
        mw = r.min_width[rule]
        glue(f"reviewers_min_width_{tag}", mw or "none")
        at = rows_r.get(mw, {})  # the share behind the answer, with its spread
        nan = float("nan")
        glue(f"reviewers_min_width_{tag}_share", at.get("mixed_of_context", nan))
        glue(
            f"reviewers_min_width_{tag}_spread", at.get("mixed_of_context_spread", nan)
        )
        small = rows_r[widths[0]]
        glue(f"reviewers_w_{tag}_small_loss", 100 * small["final_loss_share"])
        glue(f"reviewers_w_{tag}_small_snap", small["snap_change"])
        on = [w for w in widths if rows_r[w]["strategy"]]
        mixed_range = [rows_r[w]["mixed"] for w in on] or [nan]
        glue(f"reviewers_w_{tag}_mixed_lo", min(mixed_range))
        glue(f"reviewers_w_{tag}_mixed_hi", max(mixed_range))
        best_w = min(widths, key=lambda w: rows_r[w]["match_value"])
        glue(f"reviewers_w_{tag}_best", best_w)
        glue(f"reviewers_w_{tag}_best_match", rows_r[best_w]["match_value"])
        ref = rows_r[p.relu_width]["match_value"]
        rel = [rows_r[w]["match_value"] / ref for w in widths]
        glue(f"reviewers_w_{tag}_rel_lo", min(rel))
        glue(f"reviewers_w_{tag}_rel_hi", max(rel))
        glue(
            f"reviewers_w_{tag}_noise", sum(rows_r[w]["match_matches"] for w in widths)
        )
    paper = r.width_sweep["fixed std"][p.relu_width]
    glue("reviewers_w_paper_snap", paper["snap_change"])


def _glue_init(r: Results) -> None:
    p = r.params
    order = sorted(r.init_sweep.values(), key=lambda x: x["std"])
    no_plateau = [x["std"] for x in order if not x["plateau"]]
    still = [x["std"] for x in order if not x["gating_moves"]]
    glue("reviewers_base_std", p.base_std)
    glue("reviewers_no_plateau", min(no_plateau) if no_plateau else "none")
    glue("reviewers_still", min(still) if still else "none")
    glue("reviewers_top_std", order[-1]["std"])
    glue("reviewers_top_gate", 100 * order[-1]["gate_change"])
    glue("reviewers_top_snap", order[-1]["snap_change"])
    glue("reviewers_base_gate", 100 * order[0]["gate_change"])
    plateau_stds = [x["std"] for x in order if x["plateau"]]
    glue("reviewers_last_plateau", max(plateau_stds) if plateau_stds else float("nan"))
    glue("reviewers_top_loss_factor", order[-1]["initial_loss"] / r.L0)
    first = next((x["plateau_share"] for x in order if not x["plateau"]), float("nan"))
    glue("reviewers_first_noplateau_share", first)
    glue("reviewers_init_gaps", ", ".join(f"{x['match_value']:.2f}" for x in order))
    glue("reviewers_init_stds", ", ".join(f"{x['std']:.1e}" for x in order))
    glue("reviewers_n_describes", sum(x["reln_describes"] for x in order))
    glue("reviewers_top_mixed", order[-1]["mixed"])
    glue("reviewers_top_single", order[-1]["single"])


def _glue_optimisers(r: Results) -> None:
    p = r.params
    opt = r.optimiser
    for rule in r.lr_adam:
        glue(f"reviewers_lr_adam_{rule}", r.lr_adam[rule])
        oa = opt.get(f"Adam, {rule} rule", {})
        for q in ("single", "mixed", "common", "final_loss_share", "snap_change"):
            glue(f"reviewers_adam_{rule}_{q}", oa.get(q, float("nan")))
        glue(f"reviewers_adam_{rule}_winner", oa.get("race_winner", "not run"))
    sgd = [opt[n] for n in opt if n.startswith("SGD")]
    glue("reviewers_sgd_smallest", min(p.batch_sizes))
    glue("reviewers_sgd_single_max", max([x["single"] for x in sgd] or [0]))
    glue("reviewers_sgd_mixed_min", min([x["mixed"] for x in sgd] or [0]))
    glue("reviewers_sgd_match_max", max([x["match_value"] for x in sgd] or [0]))
    glue("reviewers_sgd_spread_max", max([x["match_spread"] for x in sgd] or [0]))
    gd = opt["GD"]
    glue("reviewers_gd_single", gd["single"])
    glue("reviewers_gd_match", gd["match_value"])
    glue("reviewers_gd_snap", gd["snap_change"])
    glue("reviewers_sgd_batches", ", ".join(str(b) for b in p.batch_sizes))
    glue("reviewers_sgd_singles", ", ".join(f"{x['single']:.2f}" for x in sgd))
    glue("reviewers_sgd_matches", ", ".join(f"{x['match_value']:.3f}" for x in sgd))
    mean = opt.get("Adam, mean rule", {}).get("final_loss_share", float("nan"))
    glue("reviewers_adam_mean_loss", 100 * mean)


def _glue_data(r: Results) -> None:
    p = r.params
    table = r.data_table
    glue(
        "reviewers_noise_sigma",
        p.label_noise[0] if p.label_noise else "none",
    )
    code_keys = [k for k in table if k.startswith("codes")]
    noise_keys = [k for k in table if k.startswith("label")]
    for tag, key in [
        ("onehot", "one-hot (the paper)"),
        ("code", (code_keys or [None])[0]),
        ("noise", (noise_keys or [None])[0]),
    ]:
        for q in (
            "offdiag_common",
            "offdiag_ctx23",
            "mixed",
            "single",
            "snap_change",
            "match_value",
            "match_spread",
            "final_loss_share",
        ):
            glue(f"reviewers_{tag}_{q}", table[key][q] if key else float("nan"))
    glue("reviewers_code_name", code_keys[0] if code_keys else "none")
    code_row = table[code_keys[0]] if code_keys else None
    code_learned = bool(code_row and code_row["final_loss_share"] <= p.fit_level)
    glue("reviewers_code_learned", "has" if code_learned else "has not")
    pct = 100 * code_row["final_loss_share"] if code_row else float("nan")
    glue("reviewers_code_loss_pct", pct)
    glue("reviewers_phase_snap", PHASE_SNAP)


def _glue_separation(r: Results) -> None:
    sep = r.separation
    glue("reviewers_t_common", sep["t_common"])
    glue("reviewers_ctx_at_sim", 100 * sep["context_at_t_common_sim"])
    glue("reviewers_ctx_at_race", 100 * sep["context_at_t_common_race"])
    races = ("one-way race", "fully coupled race", "separated race")
    for i, name in enumerate(races):
        glue(f"reviewers_pred{i}_reln", sep[name]["gap_to_reln"])
        glue(f"reviewers_pred{i}_relu", sep[name]["gap_to_relu"])
    ow = sep["one-way race"]
    glue("reviewers_reln_spread", ow["reln_spread"])
    glue("reviewers_gap_races", sep["gap_oneway_vs_full_race"])
    within = ow["gap_to_reln"] <= MULT * ow["reln_spread"]
    glue("reviewers_pred0_within", "within" if within else "outside")


def _families(top: dict) -> tuple[float, float]:
    """The mean top singular value of the 2-of-3 and of the single-context
    pathways."""
    mixed, single = ["ctx12", "ctx13", "ctx23"], ["ctx1", "ctx2", "ctx3"]
    return tuple(float(np.mean([top[n] for n in g])) for g in (mixed, single))


def _glue_modes(r: Results) -> None:
    rows6, t_iso, t_sim = r.rows6, r.t_iso, r.t_sim
    for k, v in r.mode_order.items():
        glue(f"reviewers_order_{k}", v)
    mix_raw, one_raw = _families(r.top_raw)
    mix_res, one_res = _families(r.top_res)
    glue("reviewers_top_common", r.top_raw["common"])
    glue("reviewers_mix_raw", mix_raw)
    glue("reviewers_one_raw", one_raw)
    glue("reviewers_mix_res", mix_res)
    glue("reviewers_one_res", one_res)
    final = np.array([x.final for x in rows6])
    big = int(np.argmax(final))
    glue("reviewers_big_mode", f"{rows6[big].pathway} mode {rows6[big].index + 1}")
    glue("reviewers_big_final", final[big])
    glue("reviewers_big_tsim", t_sim[big])
    first = int(np.nanargmin(t_sim))
    glue(
        "reviewers_first_mode", f"{rows6[first].pathway} mode {rows6[first].index + 1}"
    )
    glue("reviewers_first_final", final[first])
    glue("reviewers_first_tsim", t_sim[first])
    c0 = rows6[0]
    glue("reviewers_c0_s", c0.s)
    glue("reviewers_c0_d", c0.d)
    glue("reviewers_c0_final", c0.final)
    glue("reviewers_c0_tsim", t_sim[0])
    glue("reviewers_big_rank", int(np.sum(t_sim < t_sim[big])) + 1)
    glue("reviewers_big_s", rows6[big].s)
    glue("reviewers_big_d", rows6[big].d)
    ctx_top = next(i for i, x in enumerate(rows6) if x.pathway != "common")
    glue("reviewers_ctx_top_name", rows6[ctx_top].pathway)
    glue("reviewers_ctx_top_iso", t_iso[ctx_top])
    glue("reviewers_ctx_top_sim", t_sim[ctx_top])
    glue("reviewers_race1_single", r.race7[1.0]["single"])
    glue("reviewers_race1_mixed", r.race7[1.0]["mixed"])
    glue("reviewers_relu_single", nanmed(r.base_end["single"]))
    glue("reviewers_relu_mixed", nanmed(r.base_end["mixed"]))


def _glue_interventions(r: Results) -> None:
    p = r.params
    iv = r.intervention
    glue("reviewers_primed_units", p.primed_units)
    glue("reviewers_primed_off", p.primed_off)
    glue("reviewers_schedule_epochs", p.schedule_epochs)
    glue("reviewers_epochs", p.epochs)
    qs = ("mixed", "single", "race_single", "race_mixed", "time_to_1pc_over_gd")
    for i, row in enumerate(iv.values()):
        for q in qs:
            glue(f"reviewers_iv{i}_{q}", row[q])
    rs = iv["schedule"]
    glue("reviewers_sched_common_start", rs["common_at_switch"])
    ahead = rs["race_single"] > rs["race_mixed"]
    glue("reviewers_sched_race_order", "ahead" if ahead else "behind")
    gains = [f"primed, gain {g:g}" for g in p.primed_gains]
    glue("reviewers_gain_lo", p.primed_gains[0])
    glue("reviewers_gain_hi", p.primed_gains[-1])
    for tag, key in [("lo", gains[0]), ("hi", gains[-1]), ("sched", "schedule")]:
        for q in qs:
            glue(f"reviewers_{tag}_{q}", iv[key][q])


def _glue_sentence(r: Results) -> None:
    p = r.params
    for k, v in r.sentence.items():
        if not isinstance(v, list):
            glue(f"reviewers_sentence_{k}", v)
    matching = ", ".join(r.sentence["matching_settings"]) or "none"
    glue("reviewers_sentence_matching", matching)
    excluded = r.sentence["excluded_no_strategy"]
    glue("reviewers_sentence_excluded", ", ".join(excluded) or "none")
    glue("reviewers_sentence_n_excluded", len(excluded))
    adam = [k for k, x in r.optimiser.items() if x["match_value"] is None]
    glue("reviewers_sentence_not_timed", ", ".join(adam) or "none")
    ref = r.matches["paper settings"]["value"]
    rel_gaps = [m["value"] / ref for m in r.matches.values()]
    glue("reviewers_rel_lo", min(rel_gaps))
    glue("reviewers_rel_hi", max(rel_gaps))
    other_widths = sum(len(rows) - 1 for rows in r.width_sweep.values())
    glue("reviewers_n_widths", other_widths)
    glue("reviewers_n_stds", len(p.stds) - 1)
    glue("reviewers_n_opts", len(r.optimiser) - 1)
    glue("reviewers_n_data", len(r.data_table) - 1)
    winners = strategy_settings(
        r.width_sweep, r.init_sweep, r.optimiser, r.data_table, p.relu_width
    )
    glue("reviewers_n_strategy_settings", len(winners))
    glue(
        "reviewers_all_mixed",
        sum(x["mixed"] > max(x["single"], x.get("other", 0.0)) for x in winners),
    )


# --------------------------------------------------------------------------------------
# The records, in the page's order: (name, evidence, note)


def _paper_records(r: Results) -> list[tuple]:
    p, s, mb, ma = r.params, r.sentence, r.matches["paper settings"], r.match_authors
    n_s = int(p.seeds)
    return [
        (
            "authors_sentence",
            s,
            f"the OpenReview reply scored on {s['settings']} settings: the matched "
            f"common + 2-of-3 ReLN within {MULT:g} x the ReLU seed spread; {n_s} "
            f"seeds each; of {s['all_settings']} settings timed against the ReLN, "
            "left out where the ReLU network does not use the 2-of-3 strategy: "
            f"{', '.join(s['excluded_no_strategy']) or 'none'}; Adam is not timed "
            "(its epochs are not gradient descent's time)",
        ),
        (
            "paper_settings_match",
            mb["match"].but(criterion="seed_noise"),
            f"time gap ReLU (700 units) vs matched common + 2-of-3 ReLN, median over "
            f"{n_s} seeds; authors' initialisation: {ma['value']:.3f}",
        ),
        (
            "authors_init_match",
            ma["match"].but(criterion="seed_noise"),
            "the same ReLN with the authors' stds (context pathways at 2 x the ReLU "
            "std)",
        ),
        (
            "paper_settings_strategy",
            {c: nanmed(r.base_end[c]) for c in STRATEGY},
            f"functional census at epoch {p.epochs}, median over {n_s} seeds",
        ),
        ("rank_needed", r.need, "hidden units each pathway needs (rank)"),
    ]


_WIDTH_KEYS = (
    "std",
    "common",
    "mixed",
    "single",
    "mixed_of_context",
    "mixed_of_context_spread",
    "mixed_of_context_spread_interval",
    "snap_change",
    "final_loss_share",
    "strategy",
    *MATCH,
    "seeds",
)
_SHARE_KEYS = (
    "mixed_of_context",
    "mixed_of_context_spread",
    "mixed_of_context_spread_interval",
    "final_loss_share",
    "strategy",
)


def _width_records(r: Results) -> list[tuple]:
    p = r.params
    sweep = r.width_sweep
    return [
        (
            "width_sweep",
            {
                rule: {w: _pick(x, _WIDTH_KEYS) for w, x in rows.items()}
                for rule, rows in sweep.items()
            },
            f"fixed std {p.base_std:.3g}, and fixed output scale (W std^2 as at "
            f"{p.relu_width} units); ReLN matched, {p.reln_width} units per pathway",
        ),
        (
            "min_width_for_strategy",
            {
                rule: {
                    "width": r.min_width[rule] or "none",
                    "shares": {w: _pick(x, _SHARE_KEYS) for w, x in rows.items()},
                }
                for rule, rows in sweep.items()
            },
            f"smallest width of {p.widths} whose 2-of-3 units make >= "
            f"{p.strategy_share} of the non-common snapped output, loss below "
            f"{p.fit_level} L(0); per width the 2-of-3 share of the non-common output "
            "(median), its seed spread and 90 % interval",
        ),
    ]


_INIT_KEYS = (
    "std",
    "plateau_share",
    "plateau",
    "gate_change",
    "gating_moves",
    "mixed",
    "single",
    "snap_change",
    *MATCH,
    "reln_describes",
)
_OPT_KEYS = ("step", "race_winner", "mixed", "single", "common", "final_loss_share")


def _sweep_records(r: Results) -> list[tuple]:
    p, table = r.params, r.data_table
    code_keys = [k for k in table if k.startswith("codes")]
    noise_keys = [k for k in table if k.startswith("label")]
    return [
        (
            "init_scale_sweep",
            {k: _pick(v, _INIT_KEYS) for k, v in r.init_sweep.items()},
            f"{p.relu_width} units, {int(p.seeds)} seeds per std",
        ),
        (
            "optimiser",
            {k: _pick(v, (*_OPT_KEYS, *MATCH)) for k, v in r.optimiser.items()},
            "same initial weights; SGD at the same expected distance per epoch",
        ),
        (
            "correlated_inputs",
            {k: _pick(table[k], DATA) for k in ["one-hot (the paper)", *code_keys]},
            f"dense item codes in R^8 (seed {p.code_seed}); offdiag: distance from "
            "Assumption 2.1.1",
        ),
        (
            "label_noise",
            {k: _pick(table[k], DATA) for k in noise_keys},
            f"Gaussian noise on every target entry (seed {p.noise_seed})",
        ),
    ]


_IV_KEYS = (
    "mixed",
    "single",
    "common",
    "race_mixed",
    "race_single",
    "time_to_1pc_over_gd",
)


def _race_records(r: Results) -> list[tuple]:
    p = r.params
    mix_raw, one_raw = _families(r.top_raw)
    mix_res, one_res = _families(r.top_res)
    node_reuse = {
        "top_s_raw": {
            "common": r.top_raw["common"],
            "2-of-3": mix_raw,
            "single": one_raw,
        },
        "top_s_residual": {"2-of-3": mix_res, "single": one_res},
        "race_single_share": r.race7[1.0]["single"],
        "race_mixed_share": r.race7[1.0]["mixed"],
        "relu_single_share": nanmed(r.base_end["single"]),
        "relu_mixed_share": nanmed(r.base_end["mixed"]),
    }
    return [
        (
            "separation",
            r.separation,
            f"common pathway finished: within {1 - p.common_done:.0%} of its final map",
        ),
        (
            "mode_order",
            r.mode_order,
            "rank agreement (Kendall) of mode half-way times",
        ),
        (
            "node_reuse",
            node_reuse,
            "top singular values of the effective datasets (Eq. 4); singles' "
            "functional share in the 7-pathway race (gain 1) and in the ReLU network",
        ),
        (
            "intervention",
            {k: _pick(v, _IV_KEYS) for k, v in r.intervention.items()},
            f"{p.primed_units} primed units per context (off weight {p.primed_off}); "
            f"schedule: {p.schedule_epochs} epochs on W* X first",
        ),
    ]


def _records(r: Results) -> list[tuple]:
    """Every record of the chapter, in the page's order."""
    parts = (_paper_records, _width_records, _sweep_records, _race_records)
    return [item for part in parts for item in part(r)]


def _per(d: dict, key: str, fmt: str) -> str:
    return "; ".join(f"{k}: {format(v[key], fmt)}" for k, v in d.items())


def _summary(recs: dict, r: Results) -> str:
    """The closing table: one row per headline, each value a one-line digest of its
    record (the record holds every number behind it; None: the record itself)."""
    width_flat = {
        f"{w} ({rule})": x
        for rule, rows in r.width_sweep.items()
        for w, x in rows.items()
        if w != r.params.relu_width
    }
    s, sep, table = r.sentence, r.separation, r.data_table
    codes = {k: table[k] for k in recs["correlated_inputs"]["value"]}
    noise = {k: table[k] for k in recs["label_noise"]["value"]}
    within = f"within noise in {s['within_seed_noise']} of {s['settings']} settings"
    heads = [
        ("Authors' reply: same hyper-parameters, matching dynamics", "authors_sentence",
         within),
        ("The match at the paper's settings (matched init)", "paper_settings_match",
         None),
        ("... with the authors' initialisation", "authors_init_match", None),
        ("Smallest width with the 2-of-3 strategy", "min_width_for_strategy",
         "; ".join(f"{k}: {v}" for k, v in r.min_width.items())),
        ("Width sweep: 2-of-3 share", "width_sweep", _per(width_flat, "mixed", ".2f")),
        ("Width sweep: match", "width_sweep", _per(width_flat, "match_value", ".3f")),
        ("Init sweep: plateau share", "init_scale_sweep",
         _per(r.init_sweep, "plateau_share", ".2f")),
        ("Init sweep: match", "init_scale_sweep",
         _per(r.init_sweep, "match_value", ".2f")),
        ("SGD and Adam: race winner", "optimiser",
         _per(r.optimiser, "race_winner", "s")),
        ("SGD and Adam: single-context share", "optimiser",
         _per(r.optimiser, "single", ".2f")),
        ("Dense item codes: match", "correlated_inputs",
         _per(codes, "match_value", ".3f")),
        ("Label noise: match", "label_noise", _per(noise, "match_value", ".3f")),
        ("Context pathways grown when the common one has finished", "separation",
         f"{sep['context_at_t_common_sim']:.2f} of their final norm"),
        ("Mode order: matrix race against simulation", "mode_order",
         f"{r.mode_order['race_vs_sim']:.2f} of pairs"),
        ("Interventions: single-context share", "intervention",
         _per(r.intervention, "single", ".2f")),
    ]  # fmt: skip
    rows = [
        (
            label,
            "OpenReview" if name == "authors_sentence" else "—",
            recs[name]
            if text is None
            else {**recs[name], "value": text, "spread": None},
        )
        for label, name, text in heads
    ]
    return claims_table(rows)


def _checks(r: Results) -> str:
    """The lines the page prints for nbval (``nbval-check-output``)."""
    s, mb = r.sentence, r.matches["paper settings"]
    lines = [
        f"settings within seed noise = {s['within_seed_noise']} of {s['settings']}",
        f"paper settings match       = {mb['value']:.2f} (spread {mb['spread']:.3f})",
        f"authors' init match        = {r.match_authors['value']:.2f}",
        f"min width for the strategy = {r.min_width}",
        f"2-of-3 share, paper        = {nanmed(r.base_end['mixed']):.2f}",
    ]
    for name, x in r.optimiser.items():
        lines.append(
            f"{name:26s} = winner {x['race_winner']}, single {x['single']:.2f}"
        )
    ctx = r.separation["context_at_t_common_sim"]
    lines.append(f"context learned at t_common = {ctx:.2f}")
    lines.append(f"race vs simulation order   = {r.mode_order['race_vs_sim']:.2f}")
    for name, x in r.intervention.items():
        lines.append(f"{name:26s} = single {x['single']:.2f}")
    return "\n".join(lines)


def report(rec, results: Results) -> dict:
    """Write the chapter's records, glue every number the prose cites and build the
    closing table.  Defined for the page book/reviewers.md.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records` (``"reviewers"``).
        results: what the page computed (:class:`Results`).

    Returns:
        ``{"records": {name: record}, "summary": the closing table (Markdown),
        "checks": the lines the page prints for nbval, "path": the records' file}``.
    """
    r = results
    for part in (
        _glue_setup,
        _glue_base,
        _glue_widths,
        _glue_init,
        _glue_optimisers,
        _glue_data,
        _glue_separation,
        _glue_modes,
        _glue_interventions,
        _glue_sentence,
    ):
        part(r)
    recs = add_all(rec, _records(r))
    path = rec.save()
    return {
        "records": recs,
        "summary": _summary(recs, r),
        "checks": _checks(r),
        "path": path,
    }
