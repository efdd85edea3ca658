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
    "match_value", "match_spread", "match_spread_interval", "match_alternative",
    "match_alternative_spread", "match_nearer",
)  # fmt: skip
#: The fields the data comparison's records keep.
DATA = (
    "offdiag_common", "offdiag_ctx23", "mixed", "single", "snap_change",
    "final_loss_share", *MATCH,
)  # fmt: skip
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
    glue_many("reviewers",
        L0=r.L0, L_linear_share=100 * r.L_linear / r.L0, need_total=r.need["total"],
        need_common=r.need["common"], need_ctx=r.need["ctx12"], mult=MULT,
        seeds=int(p.seeds), grid_widths=", ".join(map(str, p.widths)),
        grid_stds=", ".join(f"{v:.1e}" for v in p.init_stds),
        grid_batches=", ".join(map(str, p.batch_sizes)),
        grid_rhos=", ".join(f"{x / 100:g}" for x in p.code_rho_pct),
        grid_noise=", ".join(f"{v:g}" for v in p.label_noise),
        grid_gains=", ".join(f"{v:g}" for v in p.primed_gains),
        strategy_share=p.strategy_share, fit_level=100 * p.fit_level,
        plateau_min=p.plateau_min, gate_change_max=100 * p.gate_change_max,
        common_left=100 * (1 - p.common_done),
    )  # fmt: skip


def _glue_base(r: Results) -> None:
    mb, ma = r.matches["paper settings"], r.match_authors
    top = max(mb["spread_interval"][1], mb["alternative_spread_interval"][1])
    glue_many("reviewers", {f"base_{k}": nanmed(r.base_end[k]) for k in STRATEGY},
        base_match=mb["value"], base_spread=mb["spread"], base_alt=mb["alternative"],
        base_ratio=mb["value"] / mb["spread"],
        base_interval="[{:.3f}, {:.3f}]".format(*mb["spread_interval"]),
        base_half_alt=mb["alternative"] / 2, base_nearer=NEARER[mb["nearer_verdict"]],
        base_alt_spread=mb["alternative_spread"],
        base_margin=abs(mb["alternative"] / 2 - mb["value"]), base_noise=MULT * top,
        base_weight_mixed=nanmed(r.weight_census[:, -1]), authors_match=ma["value"],
        authors_factor=mb["value"] / ma["value"],
    )  # fmt: skip


def _glue_widths(r: Results) -> None:
    p, widths, nan = r.params, r.params.widths, float("nan")
    g = {"w_small": widths[0], "w_large": widths[-1], "w_paper": p.relu_width}
    g["w_paper_snap"] = r.width_sweep["fixed std"][p.relu_width]["snap_change"]
    for tag, rule in (("std", "fixed std"), ("out", "fixed output scale")):
        rows, mw = r.width_sweep[rule], r.min_width[rule]
        at = rows.get(mw, {})  # the share behind the answer, with its spread
        mixed = [rows[w]["mixed"] for w in widths if rows[w]["strategy"]] or [nan]
        match = {w: rows[w]["match_value"] for w in widths}
        best = min(widths, key=match.get)
        rel = [match[w] / rows[p.relu_width]["match_value"] for w in widths]
        g |= {
            f"min_width_{tag}": mw or "none",
            f"min_width_{tag}_share": at.get("mixed_of_context", nan),
            f"min_width_{tag}_spread": at.get("mixed_of_context_spread", nan),
            f"w_{tag}_small_loss": 100 * rows[widths[0]]["final_loss_share"],
            f"w_{tag}_small_snap": rows[widths[0]]["snap_change"],
            f"w_{tag}_mixed_lo": min(mixed), f"w_{tag}_mixed_hi": max(mixed),
            f"w_{tag}_best": best, f"w_{tag}_best_match": match[best],
            f"w_{tag}_rel_lo": min(rel), f"w_{tag}_rel_hi": max(rel),
            f"w_{tag}_noise": sum(rows[w]["match_matches"] for w in widths),
        }  # fmt: skip
    glue_many("reviewers", g)


def _glue_init(r: Results) -> None:
    order = sorted(r.init_sweep.values(), key=lambda x: x["std"])
    top, nan = order[-1], float("nan")
    no_plateau = [x for x in order if not x["plateau"]]
    still = [x["std"] for x in order if not x["gating_moves"]]
    plateau = [x["std"] for x in order if x["plateau"]]
    glue_many("reviewers",
        base_std=r.params.base_std,
        no_plateau=min(x["std"] for x in no_plateau) if no_plateau else "none",
        still=min(still) if still else "none", top_std=top["std"],
        top_gate=100 * top["gate_change"], top_snap=top["snap_change"],
        base_gate=100 * order[0]["gate_change"],
        last_plateau=max(plateau) if plateau else nan,
        top_loss_factor=top["initial_loss"] / r.L0,
        first_noplateau_share=no_plateau[0]["plateau_share"] if no_plateau else nan,
        init_gaps=", ".join(f"{x['match_value']:.2f}" for x in order),
        init_stds=", ".join(f"{x['std']:.1e}" for x in order),
        n_describes=sum(x["reln_describes"] for x in order),
        top_mixed=top["mixed"], top_single=top["single"],
    )  # fmt: skip


def _glue_optimisers(r: Results) -> None:
    p, opt, nan = r.params, r.optimiser, float("nan")
    g = {}
    for rule, lr in r.lr_adam.items():
        oa = opt.get(f"Adam, {rule} rule", {})
        qs = ("single", "mixed", "common", "final_loss_share", "snap_change")
        g[f"lr_adam_{rule}"] = lr
        g |= {f"adam_{rule}_{q}": oa.get(q, nan) for q in qs}
        g[f"adam_{rule}_winner"] = oa.get("race_winner", "not run")
    sgd, gd = [x for n, x in opt.items() if n.startswith("SGD")], opt["GD"]

    def over_sgd(f, key):
        return f([x[key] for x in sgd] or [0])

    mean = opt.get("Adam, mean rule", {}).get("final_loss_share", nan)
    glue_many("reviewers", g,
        sgd_smallest=min(p.batch_sizes), sgd_single_max=over_sgd(max, "single"),
        sgd_mixed_min=over_sgd(min, "mixed"),
        sgd_match_max=over_sgd(max, "match_value"),
        sgd_spread_max=over_sgd(max, "match_spread"), gd_single=gd["single"],
        gd_match=gd["match_value"], gd_snap=gd["snap_change"],
        sgd_batches=", ".join(str(b) for b in p.batch_sizes),
        sgd_singles=", ".join(f"{x['single']:.2f}" for x in sgd),
        sgd_matches=", ".join(f"{x['match_value']:.3f}" for x in sgd),
        adam_mean_loss=100 * mean,
    )  # fmt: skip


def _glue_data(r: Results) -> None:
    p, table = r.params, r.data_table
    code = next((k for k in table if k.startswith("codes")), None)
    noise = next((k for k in table if k.startswith("label")), None)
    qs = (*DATA[:6], "match_value", "match_spread")  # DATA[:6]: all but the match's
    tags = (("onehot", "one-hot (the paper)"), ("code", code), ("noise", noise))
    g = {
        f"{tag}_{q}": table[key][q] if key else float("nan")
        for tag, key in tags
        for q in qs
    }
    code_row = table[code] if code else None
    learned = bool(code_row and code_row["final_loss_share"] <= p.fit_level)
    glue_many("reviewers", g,
        noise_sigma=p.label_noise[0] if p.label_noise else "none",
        code_name=code or "none", code_learned="has" if learned else "has not",
        code_loss_pct=100 * code_row["final_loss_share"] if code_row else float("nan"),
        phase_snap=PHASE_SNAP,
    )  # fmt: skip


def _glue_separation(r: Results) -> None:
    sep = r.separation
    ow = sep["one-way race"]
    races = ("one-way race", "fully coupled race", "separated race")
    within = ow["gap_to_reln"] <= MULT * ow["reln_spread"]
    glue_many("reviewers",
        {f"pred{i}_{k}": sep[name][f"gap_to_{k}"]
         for i, name in enumerate(races) for k in ("reln", "relu")},
        t_common=sep["t_common"], ctx_at_sim=100 * sep["context_at_t_common_sim"],
        ctx_at_race=100 * sep["context_at_t_common_race"],
        reln_spread=ow["reln_spread"], gap_races=sep["gap_oneway_vs_full_race"],
        pred0_within="within" if within else "outside",
    )  # fmt: skip


def _families(top: dict) -> tuple[float, float]:
    """The mean top singular value of the 2-of-3 and of the single-context
    pathways."""
    mixed, single = ["ctx12", "ctx13", "ctx23"], ["ctx1", "ctx2", "ctx3"]
    return tuple(float(np.mean([top[n] for n in g])) for g in (mixed, single))


def _glue_modes(r: Results) -> None:
    rows6, t_iso, t_sim = r.rows6, r.t_iso, r.t_sim
    mix_raw, one_raw = _families(r.top_raw)
    mix_res, one_res = _families(r.top_res)
    final = np.array([x.final for x in rows6])
    big, first = int(np.argmax(final)), int(np.nanargmin(t_sim))
    ctx = next(i for i, x in enumerate(rows6) if x.pathway != "common")
    c0, b = rows6[0], rows6[big]

    def mode(i):
        return f"{rows6[i].pathway} mode {rows6[i].index + 1}"

    glue_many("reviewers", {f"order_{k}": v for k, v in r.mode_order.items()},
        top_common=r.top_raw["common"], mix_raw=mix_raw, one_raw=one_raw,
        mix_res=mix_res, one_res=one_res, big_mode=mode(big), big_final=final[big],
        big_tsim=t_sim[big], first_mode=mode(first), first_final=final[first],
        first_tsim=t_sim[first], c0_s=c0.s, c0_d=c0.d, c0_final=c0.final,
        c0_tsim=t_sim[0], big_rank=int(np.sum(t_sim < t_sim[big])) + 1, big_s=b.s,
        big_d=b.d, ctx_top_name=rows6[ctx].pathway, ctx_top_iso=t_iso[ctx],
        ctx_top_sim=t_sim[ctx], race1_single=r.race7[1.0]["single"],
        race1_mixed=r.race7[1.0]["mixed"], relu_single=nanmed(r.base_end["single"]),
        relu_mixed=nanmed(r.base_end["mixed"]),
    )  # fmt: skip


def _glue_interventions(r: Results) -> None:
    p, iv = r.params, r.intervention
    rs, gains = iv["schedule"], p.primed_gains
    qs = ("mixed", "single", "race_single", "race_mixed", "time_to_1pc_over_gd")
    rows = {f"iv{i}": row for i, row in enumerate(iv.values())}
    rows |= {"lo": iv[f"primed, gain {gains[0]:g}"]}
    rows |= {"hi": iv[f"primed, gain {gains[-1]:g}"], "sched": rs}
    ahead = rs["race_single"] > rs["race_mixed"]
    glue_many("reviewers",
        {f"{tag}_{q}": row[q] for tag, row in rows.items() for q in qs},
        primed_units=p.primed_units, primed_off=p.primed_off,
        schedule_epochs=p.schedule_epochs, epochs=p.epochs,
        sched_common_start=rs["common_at_switch"],
        sched_race_order="ahead" if ahead else "behind",
        gain_lo=gains[0], gain_hi=gains[-1],
    )  # fmt: skip


def _glue_sentence(r: Results) -> None:
    p, s = r.params, r.sentence
    excluded = s["excluded_no_strategy"]
    not_timed = [k for k, x in r.optimiser.items() if x["match_value"] is None]
    ref = r.matches["paper settings"]["value"]
    rel_gaps = [m["value"] / ref for m in r.matches.values()]
    winners = strategy_settings(
        r.width_sweep, r.init_sweep, r.optimiser, r.data_table, p.relu_width
    )
    glue_many("reviewers",
        {f"sentence_{k}": v for k, v in s.items() if not isinstance(v, list)},
        sentence_matching=", ".join(s["matching_settings"]) or "none",
        sentence_excluded=", ".join(excluded) or "none",
        sentence_n_excluded=len(excluded),
        sentence_not_timed=", ".join(not_timed) or "none",
        rel_lo=min(rel_gaps), rel_hi=max(rel_gaps),
        n_widths=sum(len(rows) - 1 for rows in r.width_sweep.values()),
        n_stds=len(p.stds) - 1, n_opts=len(r.optimiser) - 1,
        n_data=len(r.data_table) - 1, n_strategy_settings=len(winners),
        all_mixed=sum(
            x["mixed"] > max(x["single"], x.get("other", 0.0)) for x in winners
        ),
    )  # fmt: skip


#: The glue, section by section in the page's order.
_GLUES = (
    _glue_setup, _glue_base, _glue_widths, _glue_init, _glue_optimisers, _glue_data,
    _glue_separation, _glue_modes, _glue_interventions, _glue_sentence,
)  # fmt: skip


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


#: The fields the width sweep's records keep: of the shares, and of every row.
_SHARE_KEYS = (
    "mixed_of_context", "mixed_of_context_spread", "mixed_of_context_spread_interval",
    "final_loss_share", "strategy",
)  # fmt: skip
_WIDTH_KEYS = (
    "std", "common", "mixed", "single", "mixed_of_context", "mixed_of_context_spread",
    "mixed_of_context_spread_interval", "snap_change", "final_loss_share", "strategy",
    *MATCH, "seeds",
)  # fmt: skip


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
    "std", "plateau_share", "plateau", "gate_change", "gating_moves", "mixed",
    "single", "snap_change", *MATCH, "reln_describes",
)  # fmt: skip
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
    for part in _GLUES:
        part(r)
    recs = add_all(rec, _records(r))
    path = rec.save()
    return {
        "records": recs,
        "summary": _summary(recs, r),
        "checks": _checks(r),
        "path": path,
    }
