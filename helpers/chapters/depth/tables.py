"""The depth chapter's tables in the middle of the page, as Markdown (defined for the
page ``book/depth.md``; the closing tables are :mod:`.report`'s).  Each takes what the
page computed and returns the table's text; none computes a measure of its own."""

from __future__ import annotations

import numpy as np

from ...book import rulebook
from ...core.measures import Evidence, level_times
from .drops import med
from .networks import GDLN_STDS

__all__ = [
    "INIT_NAME",
    "gdln_starts",
    "inits",
    "drops",
    "census_thresholds",
    "schedules",
    "derived",
    "outputs",
    "sharper_steps",
    "profile",
    "rounding",
]

#: How each initialisation of the GDLN ([conv-init]) is named on the page.
INIT_NAME = {
    "authors": "the authors' scales",
    "matched": "the ReLU network's std (matched)",
    "derived": "scales derived from the ReLU gates",
}


def gdln_starts(net, stds_derived, relu_std) -> str:
    """The GDLN's pathways and their initial stds under each initialisation.

    Args:
        net: the GDLN with the hand-set schedule (its layers' pathways).
        stds_derived: per seed, ``{pathway: std}`` of the derived initialisation.
        relu_std: the ReLU network's std (the matched initialisation).

    Returns:
        The table as Markdown.
    """
    s = GDLN_STDS

    def dstd(name):
        return med([per[name] for per in stds_derived])

    rows = [
        "| layer | pathway | units | on for | init std: authors' (in / out) | matched "
        "| derived (median) | switched on at |",
        "|---|---|---|---|---|---|---|---|",
    ]
    rows.append(
        f"| 1 | shared (linear) | {net.layers[0].width} | every datapoint | "
        f"{s['layer1']:.3g} | {relu_std:.3g} | {dstd('shared'):.3g} | "
        "$t_\\text{start}$ |"
    )
    for name, sl in net.layers[1].pathways:
        n = sl.stop - sl.start
        common = name == "common"
        out_std = s["readout_common"] if common else s["readout_context"]
        on = "every datapoint" if common else "contexts " + " and ".join(name[3:])
        when = "$t_\\text{start}$" if common else "$t_\\text{ctx}$"
        rows.append(
            f"| 2 | {name} | {n} | {on} | {s['layer2']:.3g} / {out_std:.3g} | "
            f"{relu_std:.3g} | {dstd(name):.3g} | {when} |"
        )
    return "\n".join(rows)


def inits(init_rows: dict, relu_loss, spread_relu: float) -> str:
    """The comparison with the ReLU runs under each initialisation of the GDLN
    (:func:`helpers.chapters.depth.init_comparison`'s rows), and the ReLU runs' own
    spread as the last row."""
    rows = [
        "| GDLN started by | seeds | time gap, stereotypes | median gap, seed $s$ vs "
        "$s$ | runs reaching 10 % of $L(0)$ | final loss (median) | verdict on the "
        "median gap |",
        "|---|---|---|---|---|---|---|",
    ]
    for choice, r_ in init_rows.items():
        bound = " (lower bound)" if r_["gap_is_lower_bound"] else ""
        rows.append(
            f"| {INIT_NAME[choice]} | {r_['seeds']} | {r_['gap_stereotypes']:.3f} | "
            f"{r_['gap_runs']:.3f}{bound} | "
            f"{r_['reach_10pc']} | {r_['final_loss']:.3g} | {r_['verdict_runs']} |"
        )
    reach = [np.isfinite(level_times(x)[1]) for x in relu_loss]
    S = len(relu_loss)
    rows.append(
        f"| *two ReLU runs (the spread)* | {S} | | {spread_relu:.3f} | "
        f"{int(np.sum(reach))} of {S} | {med(np.asarray(relu_loss)[:, -1]):.3g} | |"
    )
    return "\n".join(rows)


def _fmt_spread(v) -> str:
    v = v[np.isfinite(v)]
    if not v.size:
        return "never"
    sd_ = v.std(ddof=1) if v.size > 1 else float("nan")
    return f"{np.median(v):.0f} ({v.min():.0f}–{v.max():.0f}; sd {sd_:.0f})"


def drops(names, drop_epochs, durations, scatter, scatter_bs) -> str:
    """Each drop's epoch (ReLU and hand-scheduled GDLN), the ratio of their scatter
    over seeds with its bootstrap error, and each drop's duration."""
    rows = [
        "| drop | ReLU: epoch, median (range; sd) | GDLN | sd ReLU / sd GDLN | "
        "ln ratio ± bootstrap error | ReLU duration | GDLN duration |",
        "|---|---|---|---|---|---|---|",
    ]
    for k, nm in enumerate(names):
        rows.append(
            f"| {nm} | {_fmt_spread(drop_epochs['relu'][:, k])} | "
            f"{_fmt_spread(drop_epochs['hand'][:, k])} | {np.exp(scatter[k][0]):.1f} | "
            f"{scatter[k][0]:+.2f} ± {scatter_bs[k][0]:.2f} | "
            f"{med(durations['relu'][:, k]):.0f} | "
            f"{med(durations['hand'][:, k]):.0f} |"
        )
    return "\n".join(rows)


def census_thresholds(final_shares: dict) -> str:
    """The census by weight at the end of training under each census threshold
    (:attr:`helpers.chapters.depth.DepthRuns.final_shares`)."""
    rows = [
        "| threshold | layer 1: common | layer 2: common + 2-of-3 | layer 2: single |",
        "|---|---|---|---|",
    ]
    for thr, fs in sorted(final_shares.items()):
        rows.append(
            f"| {thr:g} | {med(fs[:, 0, 0]):.2f} | "
            f"{med(fs[:, 1, 0] + fs[:, 1, 1]):.2f} | {med(fs[:, 1, 2]):.2f} |"
        )
    return "\n".join(rows)


def schedules(checks: dict, hand) -> str:
    """The derived schedule under each appearance threshold, and the hand-set one."""
    rows = ["| $\\theta$ | $t_\\text{start}$ | $t_\\text{ctx}$ |", "|---|---|---|"]
    rows += [f"| {q:g} | {s_.start} | {s_.context} |" for q, s_ in checks.items()]
    rows.append(f"| hand-set (authors' code) | {hand.start} | {hand.context} |")
    return "\n".join(rows)


def derived(names, drop_epochs, gap_stereo, gap_stereo_derived, m_hand, m_derived):
    """Drop by drop, how far each schedule's GDLN lies from the ReLU runs, and the time
    gaps of both schedules (``m_hand``, ``m_derived``: :func:`match_runs` on the same
    seeds)."""
    rel = np.nanmedian(drop_epochs["relu"], axis=0)
    off_h = np.nanmedian(drop_epochs["hand"], axis=0) - rel
    off_d = np.nanmedian(drop_epochs["derived"], axis=0) - rel
    rows = [
        "| drop | ReLU median epoch | hand-set: GDLN − ReLU | derived: GDLN − ReLU |",
        "|---|---|---|---|",
    ]
    for k, nm in enumerate(names):
        rows.append(f"| {nm} | {rel[k]:.0f} | {off_h[k]:+.0f} | {off_d[k]:+.0f} |")
    rows.append(
        f"| time gap, ReLU stereotype vs GDLN stereotype | | {gap_stereo:.3f} | "
        f"{gap_stereo_derived:.3f} |"
    )
    rows.append(
        f"| median time gap, seed $s$ vs $s$ (first {len(m_derived.per_seed)} seeds) "
        f"| | {m_hand.value:.3f} | {m_derived.value:.3f} |"
    )
    return "\n".join(rows)


def outputs(gaps_out, steps) -> str:
    """The output gaps at each plateau (:func:`compare_plateaus`)."""
    rows = [
        "| plateau | both networks stop there | ReLU vs GDLN (median over pairs) | "
        "ReLU vs ReLU | GDLN vs GDLN | ReLU stereotype: change since the previous "
        "plateau |",
        "|---|---|---|---|---|---|",
    ]
    for (lv, sh, cross, within, within_g), step in zip(gaps_out, steps):
        rows.append(
            f"| {lv:.1f} | {'yes' if sh else 'ReLU only'} | {cross:.4f} | "
            f"{within:.4f} | {within_g:.4f} | {step:.2f} |"
        )
    return "\n".join(rows)


def sharper_steps(names, durations, shared) -> str:
    """The reviewer's question on Fig. 6 ("larger, sharper steps"), answered from the
    drops' durations."""
    dr = np.nanmedian(durations["relu"], axis=0)
    dg = np.nanmedian(durations["hand"], axis=0)
    ratio = dg / dr
    k_sharp = int(np.nanargmax(ratio))
    txt = (
        '*"ReLU networks appear to make larger, sharper steps in the loss"* (reviewer '
        "on Fig. 6). The drop table above times each drop from 90 % to 10 % of its "
        "step; the median durations (ReLU / GDLN, epochs) are "
        + ", ".join(f"{nm}: {r:.0f} / {g:.0f}" for nm, r, g in zip(names, dr, dg))
        + ". "
    )
    if ratio[k_sharp] > 1.25:
        sharper = [nm for nm, q in zip(names, ratio) if q > 1.25]
        txt += (
            f"The reviewer's impression is borne out for {', '.join(sharper)}: there "
            f"the GDLN takes up to {ratio[k_sharp]:.1f} times as long as the ReLU "
            "network. "
        )
    else:
        txt += (
            "The two networks' steps are about equally sharp "
            "(no drop takes the GDLN 25 % longer). "
        )
    if np.all(shared):
        txt += "The steps are not larger: both networks plateau at the same levels."
    else:
        txt += (
            "The steps are not larger: both networks plateau at the same levels, "
            "except the ReLU network's extra plateau, which splits one of the GDLN's "
            "steps in two."
        )
    return txt


def profile(names, var24) -> str:
    """Per drop of a stored run (:func:`helpers.chapters.depth.drop_scatter`): each
    network's sd of the drop epoch, their ratio, its log with the bootstrap error, and
    the rulebook's verdict on "the same scatter" at that drop.

    Args:
        names: the drops' names (``"66 → 30"``).
        var24: what :func:`helpers.chapters.depth.drop_scatter` returned.

    Returns:
        the table as Markdown.
    """
    rows = [
        "| drop | sd ReLU | sd GDLN | ratio | ln ratio ± bootstrap error | same? |",
        "|---|---|---|---|---|---|",
    ]
    for k, name in enumerate(names):
        (v, _), (e, iv) = var24["scatter"][k], var24["scatter_bs"][k]
        ev = Evidence(v, spread=e, compared=0.0, criterion="near", spread_interval=iv)
        rows.append(
            f"| {name} | {var24['sd']['relu'][k]:.0f} | {var24['sd']['hand'][k]:.0f} "
            f"| {np.exp(v):.2f} | {v:+.2f} ± {e:.2f} | {rulebook.verdict(ev)} |"
        )
    return "\n".join(rows)


def rounding(names, floor) -> str:
    """The rounding floor (:func:`helpers.chapters.depth.rounding_floor`): per drop,
    how far each run from the same initial weights lands from the reference, per
    seed, and the standard deviation rounding alone adds to one run.

    Args:
        names: the drops' names.
        floor: what :func:`helpers.chapters.depth.rounding_floor` returned.

    Returns:
        the table as Markdown.
    """
    others = list(floor["diff"])
    head = " | ".join(f"{k}: epochs against the reference, per seed" for k in others)
    rows = [f"| drop | {head} | sd from rounding |", "|---" * (len(others) + 2) + "|"]
    for k, name in enumerate(names):
        cells = " | ".join(
            ", ".join(f"{d:+.0f}" for d in floor["diff"][o][:, k]) for o in others
        )
        rows.append(f"| {name} | {cells} | {floor['sd'][k]:.0f} |")
    return "\n".join(rows)
