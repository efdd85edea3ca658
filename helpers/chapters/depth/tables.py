"""The depth chapter's tables in the middle of the page (``book/depth.md``), as
Markdown through :func:`helpers.book.kit.table`, each from what the page computed."""

from __future__ import annotations

import numpy as np

from ...book import kit, rulebook
from ...core.measures import Evidence, level_times
from .drops import med
from .networks import GDLN_STDS

#: How each initialisation of the GDLN ([conv-init]) is named on the page.
INIT_NAME = {
    "authors": "the authors' scales",
    "matched": "the ReLU network's std (matched)",
    "derived": "scales derived from the ReLU gates",
}


def gdln_starts(net, stds_derived, relu_std) -> str:
    """The GDLN's pathways and their initial stds under each initialisation."""
    s, relu, ctx = GDLN_STDS, f"{relu_std:.3g}", "$t_\\text{ctx}$"
    start, width = "$t_\\text{start}$", net.layers[0].width

    def dstd(name):
        return f"{med([per[name] for per in stds_derived]):.3g}"

    rows = [["1", "shared (linear)", width, "every datapoint", f"{s['layer1']:.3g}"]]
    rows[0] += [relu, dstd("shared"), start]
    for name, sl in net.layers[1].pathways:
        common = name == "common"
        out = s["readout_common"] if common else s["readout_context"]
        on = "every datapoint" if common else "contexts " + " and ".join(name[3:])
        std = f"{s['layer2']:.3g} / {out:.3g}"
        rows.append(["2", name, sl.stop - sl.start, on, std, relu, dstd(name)])
        rows[-1].append(start if common else ctx)
    head = ["layer", "pathway", "units", "on for", "init std: authors' (in / out)"]
    return kit.table(rows, head + ["matched", "derived (median)", "switched on at"])


def inits(init_rows: dict, relu_loss, spread_relu: float) -> str:
    """The GDLN against the ReLU runs under each initialisation, and their spread."""
    rows = []
    for c, x in init_rows.items():
        low = " (lower bound)" if x["gap_is_lower_bound"] else ""
        gaps = [f"{x['gap_stereotypes']:.3f}", f"{x['gap_runs']:.3f}{low}"]
        rows.append([INIT_NAME[c], x["seeds"], *gaps, x["reach_10pc"]])
        rows[-1] += [f"{x['final_loss']:.3g}", x["verdict_runs"]]
    S, reach = len(relu_loss), sum(np.isfinite(level_times(x)[1]) for x in relu_loss)
    final = med(np.asarray(relu_loss)[:, -1])
    spread = ["*two ReLU runs (the spread)*", S, "", f"{spread_relu:.3f}"]
    rows.append(spread + [f"{int(reach)} of {S}", f"{final:.3g}", ""])
    head = ["GDLN started by", "seeds", "time gap, stereotypes"]
    head += ["median gap, seed $s$ vs $s$", "runs reaching 10 % of $L(0)$"]
    return kit.table(rows, head + ["final loss (median)", "verdict on the median gap"])


def _fmt_spread(v) -> str:
    v = v[np.isfinite(v)]
    if not v.size:
        return "never"
    sd_ = v.std(ddof=1) if v.size > 1 else float("nan")
    return f"{np.median(v):.0f} ({v.min():.0f}–{v.max():.0f}; sd {sd_:.0f})"


def drops(names, drop_epochs, durations, scatter, scatter_bs) -> str:
    """Each drop's epoch, the ratio of its scatter over seeds, and its duration."""
    rows = []
    for k, nm in enumerate(names):
        (v, _), e = scatter[k], scatter_bs[k][0]
        spreads = [_fmt_spread(drop_epochs[x][:, k]) for x in ("relu", "hand")]
        rows.append([nm, *spreads, f"{np.exp(v):.1f}", f"{v:+.2f} ± {e:.2f}"])
        rows[-1] += [f"{med(durations[x][:, k]):.0f}" for x in ("relu", "hand")]
    head = ["drop", "ReLU: epoch, median (range; sd)", "GDLN", "sd ReLU / sd GDLN"]
    head += ["ln ratio ± bootstrap error", "ReLU duration", "GDLN duration"]
    return kit.table(rows, head)


def census_thresholds(final_shares: dict) -> str:
    """The census by weight at the end of training under each census threshold."""
    rows = []
    for thr, fs in sorted(final_shares.items()):
        shares = [fs[:, 0, 0], fs[:, 1, 0] + fs[:, 1, 1], fs[:, 1, 2]]
        rows.append([f"{thr:g}"] + [f"{med(x):.2f}" for x in shares])
    head = ["threshold", "layer 1: common", "layer 2: common + 2-of-3"]
    return kit.table(rows, head + ["layer 2: single"])


def schedules(checks: dict, hand) -> str:
    """The derived schedule under each appearance threshold, and the hand-set one."""
    rows = [[f"{q:g}", s_.start, s_.context] for q, s_ in checks.items()]
    rows.append(["hand-set (authors' code)", hand.start, hand.context])
    return kit.table(rows, ["$\\theta$", "$t_\\text{start}$", "$t_\\text{ctx}$"])


def derived(names, drop_epochs, gap_stereo, gap_stereo_derived, m_hand, m_derived):
    """Drop by drop, each schedule's GDLN against the ReLU runs, and its time gaps."""
    rel = np.nanmedian(drop_epochs["relu"], axis=0)
    off = [np.nanmedian(drop_epochs[x], axis=0) - rel for x in ("hand", "derived")]
    rows = [
        [nm, f"{rel[k]:.0f}"] + [f"{o[k]:+.0f}" for o in off]
        for k, nm in enumerate(names)
    ]
    gaps = [f"{gap_stereo:.3f}", f"{gap_stereo_derived:.3f}"]
    rows.append(["time gap, ReLU stereotype vs GDLN stereotype", ""] + gaps)
    n = len(m_derived.per_seed)
    gaps = [f"{m_hand.value:.3f}", f"{m_derived.value:.3f}"]
    rows.append([f"median time gap, seed $s$ vs $s$ (first {n} seeds)", ""] + gaps)
    head = ["drop", "ReLU median epoch", "hand-set: GDLN − ReLU"]
    return kit.table(rows, head + ["derived: GDLN − ReLU"])


def outputs(gaps_out, steps) -> str:
    """The output gaps at each plateau (:func:`.compare.compare_plateaus`)."""
    rows = [
        [f"{lv:.1f}", "yes" if sh else "ReLU only", f"{cross:.4f}", f"{within:.4f}"]
        + [f"{within_g:.4f}", f"{step:.2f}"]
        for (lv, sh, cross, within, within_g), step in zip(gaps_out, steps)
    ]
    head = ["plateau", "both networks stop there", "ReLU vs GDLN (median over pairs)"]
    head += ["ReLU vs ReLU", "GDLN vs GDLN"]
    last = "ReLU stereotype: change since the previous plateau"
    return kit.table(rows, head + [last])


def sharper_steps(names, durations, shared) -> str:
    """The reviewer's "larger, sharper steps" (Fig. 6), from the drops' durations."""
    dr, dg = (np.nanmedian(durations[x], axis=0) for x in ("relu", "hand"))
    ratio = dg / dr
    k = int(np.nanargmax(ratio))
    durs = ", ".join(f"{nm}: {r:.0f} / {g:.0f}" for nm, r, g in zip(names, dr, dg))
    sharp = "The two networks' steps are about equally sharp (no drop takes the GDLN "
    sharp += "25 % longer). "
    if ratio[k] > 1.25:
        sharper = ", ".join(nm for nm, q in zip(names, ratio) if q > 1.25)
        sharp = f"The reviewer's impression is borne out for {sharper}: there the GDLN "
        sharp += f"takes up to {ratio[k]:.1f} times as long as the ReLU network. "
    extra = ", except the ReLU network's extra plateau, which splits one of the GDLN's "
    extra = "." if np.all(shared) else extra + "steps in two."
    return (
        '*"ReLU networks appear to make larger, sharper steps in the loss"* (reviewer '
        "on Fig. 6). The drop table above times each drop from 90 % to 10 % of its "
        f"step; the median durations (ReLU / GDLN, epochs) are {durs}. {sharp}The "
        f"steps are not larger: both networks plateau at the same levels{extra}"
    )


def same_scatter(scatter, scatter_bs) -> list:
    """Per drop, the evidence of "the same scatter": the log ratio near 0."""
    return [
        Evidence(v, spread=e, compared=0.0, criterion="near", spread_interval=iv)
        for (v, _), (e, iv) in zip(scatter, scatter_bs)
    ]


def profile(names, var24) -> str:
    """Per drop of a stored run: each network's sd of the drop epoch, their ratio and
    the rulebook's verdict on "the same scatter" (:func:`.drops.drop_scatter`)."""
    rows, same = [], same_scatter(var24["scatter"], var24["scatter_bs"])
    for k, name in enumerate(names):
        (v, _), e = var24["scatter"][k], var24["scatter_bs"][k][0]
        sd = [f"{var24['sd'][x][k]:.0f}" for x in ("relu", "hand")]
        rows.append([name, *sd, f"{np.exp(v):.2f}", f"{v:+.2f} ± {e:.2f}"])
        rows[-1].append(rulebook.verdict(same[k]))
    head = ["drop", "sd ReLU", "sd GDLN", "ratio", "ln ratio ± bootstrap error"]
    return kit.table(rows, head + ["same?"])


def rounding(names, floor) -> str:
    """The rounding floor (:func:`.drops.rounding_floor`): per drop and seed, how far a
    run from the same initial weights lands, and the sd rounding alone adds."""
    others = list(floor["diff"])
    rows = []
    for k, name in enumerate(names):
        diffs = [", ".join(f"{d:+.0f}" for d in floor["diff"][o][:, k]) for o in others]
        rows.append([name, *diffs, f"{floor['sd'][k]:.0f}"])
    head = [f"{k}: epochs against the reference, per seed" for k in others]
    return kit.table(rows, ["drop"] + head + ["sd from rounding"])
