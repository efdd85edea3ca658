"""The records, the glued numbers and the closing table of the page
``book/reviewers.md``, from what the page computed (:class:`Results`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...book.kit import add_all, glue_many
from ...book.records import claims_table
from ...book.rulebook import NOISE_MULTIPLE as MULT
from ...book.rulebook import PHASE_SNAP
from .measures import nanmed
from .sweeps import (
    Parameters,
    min_width,
    score_sentence,
    strategy_settings,
    structure_by_setting,
)

#: The match's fields every sweep's record keeps.
MATCH = ("match_value", "match_spread", "match_spread_interval", "match_alternative")
MATCH += ("match_alternative_spread", "match_nearer")
#: The fields the data comparison's records keep.
DATA = ("offdiag_common", "offdiag_ctx23", "mixed", "single", "snap_change")
DATA += ("final_loss_share", *MATCH)
#: The strategy's shares a record keeps.
STRATEGY = ("common", "mixed", "single", "other", "snap_change", "mixed_of_context")


def _each(rows: dict, keys) -> dict:
    """Every row of ``rows`` with only the fields ``keys`` (those it has)."""
    return {name: {k: x[k] for k in keys if k in x} for name, x in rows.items()}


@dataclass
class Results:
    """What the page computed, by the page's names (``book/reviewers.md``): its
    parameters, the task's scale, every setting's match, the strategy at the paper's
    settings, the sweeps' rows, the separation, the modes, node reuse and the
    interventions."""

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
        """:func:`~.sweeps.score_sentence` on the settings with the 2-of-3 strategy."""
        p = self.params
        sweeps = (self.width_sweep, self.init_sweep, self.optimiser, self.data_table)
        structure = structure_by_setting(*sweeps, p.relu_width, p.strategy_share)
        return score_sentence(self.matches, structure)


# The numbers in the prose, section by section


def _glue_setup(r: Results) -> None:
    p = r.params
    glue_many("reviewers",
        L_linear_share=100 * r.L_linear / r.L0, need_total=r.need["total"],
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
    shares = ("common", "mixed", "single", "snap_change")  # those the page reads
    glue_many("reviewers", {f"base_{k}": nanmed(r.base_end[k]) for k in shares},
        base_match=mb["value"], base_spread=mb["spread"], base_alt=mb["alternative"],
        base_ratio=mb["value"] / mb["spread"],
        base_interval="[{:.3f}, {:.3f}]".format(*mb["spread_interval"]),
        base_half_alt=mb["alternative"] / 2,
        base_nearer=mb["nearer_verdict"].replace("undecided", "not told apart from"),
        base_alt_spread=mb["alternative_spread"],
        base_margin=abs(mb["alternative"] / 2 - mb["value"]), base_noise=MULT * top,
        base_weight_mixed=nanmed(r.weight_census[:, -1]), authors_match=ma["value"],
        authors_factor=mb["value"] / ma["value"],
    )  # fmt: skip


def _glue_widths(r: Results) -> None:
    p, widths, nan = r.params, r.params.widths, float("nan")
    g = {"w_small": widths[0]}
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
            f"w_{tag}_mixed_lo": min(mixed), f"w_{tag}_mixed_hi": max(mixed),
            f"w_{tag}_best": best,
            f"w_{tag}_rel_lo": min(rel), f"w_{tag}_rel_hi": max(rel),
            f"w_{tag}_noise": sum(rows[w]["match_matches"] for w in widths),
        }  # fmt: skip
    glue_many("reviewers", g)


def _glue_init(r: Results) -> None:
    order = sorted(r.init_sweep.values(), key=lambda x: x["std"])
    top, nan = order[-1], float("nan")
    no_plateau = [x for x in order if not x["plateau"]]
    plateau = [x["std"] for x in order if x["plateau"]]
    glue_many("reviewers",
        base_std=r.params.base_std,
        no_plateau=min(x["std"] for x in no_plateau) if no_plateau else "none",
        top_std=top["std"],
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
    g = {f"lr_adam_{rule}": lr for rule, lr in r.lr_adam.items()}
    # of the Adam rows the page reads the largest rule's shares and race
    oa = opt.get("Adam, largest rule", {})
    g |= {f"adam_largest_{q}": oa.get(q, nan) for q in ("single", "mixed", "common")}
    g["adam_largest_snap_change"] = oa.get("snap_change", nan)
    g["adam_largest_winner"] = oa.get("race_winner", "not run")
    sgd, gd = [x for n, x in opt.items() if n.startswith("SGD")], opt["GD"]
    mean = opt.get("Adam, mean rule", {}).get("final_loss_share", nan)
    glue_many("reviewers", g,
        sgd_smallest=min(p.batch_sizes), gd_single=gd["single"],
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
    # per row the fields the page reads; DATA[:2]: the overlaps, DATA[2:5]: the shares
    qs = {"onehot": (*DATA[:2], "final_loss_share"), "code": DATA[:5]}
    qs["noise"] = DATA[2:5]
    qs = {tag: (*fields, "match_value") for tag, fields in qs.items()}
    tags = (("onehot", "one-hot (the paper)"), ("code", code), ("noise", noise))
    code_row, nan = table[code] if code else None, float("nan")
    learned = bool(code_row and code_row["final_loss_share"] <= p.fit_level)
    glue_many("reviewers",
        {f"{t}_{q}": table[k][q] if k else nan for t, k in tags for q in qs[t]},
        noise_sigma=p.label_noise[0] if p.label_noise else "none",
        code_name=code or "none", code_learned="has" if learned else "has not",
        code_loss_pct=100 * code_row["final_loss_share"] if code_row else nan,
        phase_snap=PHASE_SNAP,
    )  # fmt: skip


def _glue_separation(r: Results) -> None:
    sep, ow = r.separation, r.separation["one-way race"]
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


def _families(top: dict) -> dict:
    """The mean top singular value of the 2-of-3 and of the single pathways."""
    names = {"2-of-3": ("ctx12", "ctx13", "ctx23"), "single": ("ctx1", "ctx2", "ctx3")}
    return {k: float(np.mean([top[n] for n in g])) for k, g in names.items()}


def _glue_modes(r: Results) -> None:
    rows6, t_sim = r.rows6, r.t_sim
    t_iso = np.array([x.t_half for x in rows6])  # each mode's by Eq. 7 alone
    mix_raw, one_raw = _families(r.top_raw).values()
    mix_res, one_res = _families(r.top_res).values()
    final = np.array([x.final for x in rows6])
    big = int(np.argmax(final))
    ctx = next(i for i, x in enumerate(rows6) if x.pathway != "common")
    c0, b = rows6[0], rows6[big]
    mode = [f"{x.pathway} mode {x.index + 1}" for x in rows6]

    order = {k: v for k, v in r.mode_order.items() if k != "isolated_vs_sim"}
    glue_many("reviewers", {f"order_{k}": v for k, v in order.items()},
        top_common=r.top_raw["common"], mix_raw=mix_raw, one_raw=one_raw,
        mix_res=mix_res, one_res=one_res, big_mode=mode[big], big_final=final[big],
        big_tsim=t_sim[big], c0_s=c0.s, c0_d=c0.d, c0_final=c0.final,
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
    # the fields the page reads: of the lowest gain, of the highest, of the schedule
    rows = {"lo": (iv[f"primed, gain {gains[0]:g}"], qs[:3])}
    rows |= {"hi": (iv[f"primed, gain {gains[-1]:g}"], qs[1:]), "sched": (rs, qs)}
    ahead = rs["race_single"] > rs["race_mixed"]
    glue_many("reviewers",
        {f"{tag}_{q}": row[q] for tag, (row, fields) in rows.items() for q in fields},
        primed_units=p.primed_units, primed_off=p.primed_off,
        schedule_epochs=p.schedule_epochs, epochs=p.epochs,
        sched_common_start=rs["common_at_switch"],
        sched_race_order="ahead" if ahead else "behind",
        gain_lo=gains[0], gain_hi=gains[-1],
    )  # fmt: skip


def _glue_sentence(r: Results) -> None:
    p, s, excluded = r.params, r.sentence, r.sentence["excluded_no_strategy"]
    not_timed = [k for k, x in r.optimiser.items() if x["match_value"] is None]
    ref = r.matches["paper settings"]["value"]
    rel_gaps = [m["value"] / ref for m in r.matches.values()]
    winners = strategy_settings(
        r.width_sweep, r.init_sweep, r.optimiser, r.data_table, p.relu_width
    )
    mixed_wins = [x["mixed"] > max(x["single"], x.get("other", 0.0)) for x in winners]
    glue_many("reviewers",
        {f"sentence_{k}": v for k, v in s.items() if not isinstance(v, list)},
        sentence_matching=", ".join(s["matching_settings"]) or "none",
        sentence_excluded=", ".join(excluded) or "none",
        sentence_n_excluded=len(excluded),
        sentence_not_timed=", ".join(not_timed) or "none",
        rel_lo=min(rel_gaps), rel_hi=max(rel_gaps),
        n_widths=sum(len(rows) - 1 for rows in r.width_sweep.values()),
        n_stds=len(p.stds) - 1, n_data=len(r.data_table) - 1,
        n_strategy_settings=len(winners), all_mixed=sum(mixed_wins),
    )  # fmt: skip


#: The glue, section by section in the page's order.
_GLUES = (
    _glue_setup, _glue_base, _glue_widths, _glue_init, _glue_optimisers, _glue_data,
    _glue_separation, _glue_modes, _glue_interventions, _glue_sentence,
)  # fmt: skip

# The records, in the page's order: each note the template of the record's TOML table

#: The fields the width sweep's records keep: of the shares, and of every row.
_SHARE_KEYS = ("mixed_of_context", "mixed_of_context_spread")
_SHARE_KEYS += ("mixed_of_context_spread_interval", "final_loss_share", "strategy")
_WIDTH_KEYS = ("std", "common", "mixed", "single", "mixed_of_context")
_WIDTH_KEYS += ("mixed_of_context_spread", "mixed_of_context_spread_interval")
_WIDTH_KEYS += ("snap_change", "final_loss_share", "strategy", *MATCH, "seeds")
_INIT_KEYS = ("std", "plateau_share", "plateau", "gate_change", "gating_moves")
_INIT_KEYS += ("mixed", "single", "snap_change", *MATCH, "reln_describes")
_OPT_KEYS = ("step", "race_winner", "mixed", "single", "common", "final_loss_share")
_OPT_KEYS += MATCH
_IV_KEYS = ("mixed", "single", "common", "race_mixed", "race_single")
_IV_KEYS += ("time_to_1pc_over_gd",)


def _records(r: Results) -> list[tuple]:
    """Every record of the chapter, ``(name, evidence, values of its template)``."""
    p, s, table = r.params, r.sentence, r.data_table
    mb, ma = r.matches["paper settings"], r.match_authors
    ws, one_hot = r.width_sweep, "one-hot (the paper)"
    codes = [k for k in table if k.startswith("codes")]
    noise = [k for k in table if k.startswith("label")]
    values = {
        "p": p, "s": s, "n": int(p.seeds), "mult": MULT, "ma": ma,
        "excluded": ", ".join(s["excluded_no_strategy"]) or "none",
        "common_left": 1 - p.common_done,
    }  # fmt: skip
    # per width rule the smallest width with the 2-of-3 strategy, the shares at each
    min_widths = {
        rule: {"width": r.min_width[rule] or "none", "shares": _each(rows, _SHARE_KEYS)}
        for rule, rows in ws.items()
    }
    # the top singular values by family, and the race's and ReLU network's shares
    node_reuse = {
        "top_s_raw": {"common": r.top_raw["common"], **_families(r.top_raw)},
        "top_s_residual": _families(r.top_res),
        "race_single_share": r.race7[1.0]["single"],
        "race_mixed_share": r.race7[1.0]["mixed"],
        **{f"relu_{c}_share": nanmed(r.base_end[c]) for c in ("single", "mixed")},
    }  # fmt: skip
    records = [
        ("authors_sentence", s),
        ("paper_settings_match", mb["match"].but(criterion="seed_noise")),
        ("authors_init_match", ma["match"].but(criterion="seed_noise")),
        ("paper_settings_strategy", {c: nanmed(r.base_end[c]) for c in STRATEGY}),
        ("rank_needed", r.need),
        ("width_sweep", {rule: _each(rows, _WIDTH_KEYS) for rule, rows in ws.items()}),
        ("min_width_for_strategy", min_widths),
        ("init_scale_sweep", _each(r.init_sweep, _INIT_KEYS)),
        ("optimiser", _each(r.optimiser, _OPT_KEYS)),
        ("correlated_inputs", _each({k: table[k] for k in [one_hot, *codes]}, DATA)),
        ("label_noise", _each({k: table[k] for k in noise}, DATA)),
        ("separation", r.separation),
        ("mode_order", r.mode_order),
        ("node_reuse", node_reuse),
        ("intervention", _each(r.intervention, _IV_KEYS)),
    ]
    return [(name, ev, values) for name, ev in records]


def _per(d: dict, key: str, fmt: str) -> str:
    return "; ".join(f"{k}: {format(v[key], fmt)}" for k, v in d.items())


def _summary(recs: dict, r: Results) -> str:
    """The closing table: per headline its record, or a one-line digest of it."""
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
    rows = []
    for label, name, t in heads:
        rec = recs[name] if t is None else {**recs[name], "value": t, "spread": None}
        rows.append((label, "OpenReview" if name == "authors_sentence" else "—", rec))
    return claims_table(rows)


def report(rec, results: Results) -> dict:
    """Write the chapter's records, glue every number the prose cites and build the
    closing table: ``{"records": {name: record}, "summary": Markdown, "path": file}``.
    """
    for part in _GLUES:
        part(results)
    recs = add_all(rec, _records(results))
    path = rec.save()
    return {"records": recs, "summary": _summary(recs, results), "path": path}
