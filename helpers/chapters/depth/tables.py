"""The depth chapter's tables in the middle of the page, as Markdown through
:func:`helpers.book.kit.table` (defined for the page ``book/depth.md``; the closing
tables are :mod:`.report`'s).  Each takes what the page computed."""

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
    """The GDLN's pathways (``net``: the hand-set schedule's) and their initial stds
    under each initialisation (``stds_derived``: per seed, ``{pathway: std}``)."""
    s, relu = GDLN_STDS, f"{relu_std:.3g}"
    start, ctx = "$t_\\text{start}$", "$t_\\text{ctx}$"

    def dstd(name):
        return f"{med([per[name] for per in stds_derived]):.3g}"

    rows = [["1", "shared (linear)", net.layers[0].width, "every datapoint"]]
    rows[0] += [f"{s['layer1']:.3g}", relu, dstd("shared"), start]
    for name, sl in net.layers[1].pathways:
        common = name == "common"
        out = s["readout_common"] if common else s["readout_context"]
        on = "every datapoint" if common else "contexts " + " and ".join(name[3:])
        rows.append(
            ["2", name, sl.stop - sl.start, on, f"{s['layer2']:.3g} / {out:.3g}"]
        )
        rows[-1] += [relu, dstd(name), start if common else ctx]
    head = ["layer", "pathway", "units", "on for", "init std: authors' (in / out)"]
    return kit.table(rows, head + ["matched", "derived (median)", "switched on at"])


def inits(init_rows: dict, relu_loss, spread_relu: float) -> str:
    """The comparison with the ReLU runs under each initialisation of the GDLN
    (:func:`.compare.init_comparison`'s rows), and the ReLU runs' own spread last."""
    rows = [
        [INIT_NAME[c], x["seeds"], f"{x['gap_stereotypes']:.3f}"]
        + [
            f"{x['gap_runs']:.3f}"
            + (" (lower bound)" if x["gap_is_lower_bound"] else "")
        ]
        + [x["reach_10pc"], f"{x['final_loss']:.3g}", x["verdict_runs"]]
        for c, x in init_rows.items()
    ]
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
    """Each drop's epoch (ReLU and hand-scheduled GDLN), the ratio of their scatter
    over seeds with its bootstrap error, and each drop's duration."""
    rows = [
        [nm]
        + [_fmt_spread(drop_epochs[x][:, k]) for x in ("relu", "hand")]
        + [
            f"{np.exp(scatter[k][0]):.1f}",
            f"{scatter[k][0]:+.2f} ± {scatter_bs[k][0]:.2f}",
        ]
        + [f"{med(durations[x][:, k]):.0f}" for x in ("relu", "hand")]
        for k, nm in enumerate(names)
    ]
    head = ["drop", "ReLU: epoch, median (range; sd)", "GDLN", "sd ReLU / sd GDLN"]
    head += ["ln ratio ± bootstrap error", "ReLU duration", "GDLN duration"]
    return kit.table(rows, head)


def census_thresholds(final_shares: dict) -> str:
    """The census by weight at the end of training under each census threshold
    (:attr:`.census.DepthRuns.final_shares`)."""
    rows = [
        [f"{thr:g}", f"{med(fs[:, 0, 0]):.2f}"]
        + [f"{med(fs[:, 1, 0] + fs[:, 1, 1]):.2f}", f"{med(fs[:, 1, 2]):.2f}"]
        for thr, fs in sorted(final_shares.items())
    ]
    head = ["threshold", "layer 1: common", "layer 2: common + 2-of-3"]
    return kit.table(rows, head + ["layer 2: single"])


def schedules(checks: dict, hand) -> str:
    """The derived schedule under each appearance threshold, and the hand-set one."""
    rows = [[f"{q:g}", s_.start, s_.context] for q, s_ in checks.items()]
    rows.append(["hand-set (authors' code)", hand.start, hand.context])
    return kit.table(rows, ["$\\theta$", "$t_\\text{start}$", "$t_\\text{ctx}$"])


def derived(names, drop_epochs, gap_stereo, gap_stereo_derived, m_hand, m_derived):
    """Drop by drop, how far each schedule's GDLN lies from the ReLU runs, and the time
    gaps of both schedules (``m_hand``, ``m_derived``: :func:`.compare.match_runs` on
    the same seeds)."""
    rel = np.nanmedian(drop_epochs["relu"], axis=0)
    off_h = np.nanmedian(drop_epochs["hand"], axis=0) - rel
    off_d = np.nanmedian(drop_epochs["derived"], axis=0) - rel
    rows = [
        [nm, f"{rel[k]:.0f}", f"{off_h[k]:+.0f}", f"{off_d[k]:+.0f}"]
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
    return kit.table(
        rows, head + ["ReLU stereotype: change since the previous plateau"]
    )


def sharper_steps(names, durations, shared) -> str:
    """The reviewer's question on Fig. 6 ("larger, sharper steps"), answered from the
    drops' durations."""
    dr, dg = (np.nanmedian(durations[x], axis=0) for x in ("relu", "hand"))
    ratio = dg / dr
    k = int(np.nanargmax(ratio))
    sharper = ", ".join(nm for nm, q in zip(names, ratio) if q > 1.25)
    return (
        '*"ReLU networks appear to make larger, sharper steps in the loss"* (reviewer '
        "on Fig. 6). The drop table above times each drop from 90 % to 10 % of its "
        "step; the median durations (ReLU / GDLN, epochs) are "
        + ", ".join(f"{nm}: {r:.0f} / {g:.0f}" for nm, r, g in zip(names, dr, dg))
        + ". "
        + (
            f"The reviewer's impression is borne out for {sharper}: there the GDLN "
            f"takes up to {ratio[k]:.1f} times as long as the ReLU network. "
            if ratio[k] > 1.25
            else "The two networks' steps are about equally sharp (no drop takes the "
            "GDLN 25 % longer). "
        )
        + "The steps are not larger: both networks plateau at the same levels"
        + (
            "."
            if np.all(shared)
            else ", except the ReLU network's extra plateau, which splits one of the "
            "GDLN's steps in two."
        )
    )


def profile(names, var24) -> str:
    """Per drop of a stored run (:func:`.drops.drop_scatter`): each network's sd of the
    drop epoch, their ratio, its log with the bootstrap error, and the rulebook's
    verdict on "the same scatter" at that drop."""
    rows = []
    for k, name in enumerate(names):
        (v, _), (e, iv) = var24["scatter"][k], var24["scatter_bs"][k]
        ev = Evidence(v, spread=e, compared=0.0, criterion="near", spread_interval=iv)
        sd = [f"{var24['sd'][x][k]:.0f}" for x in ("relu", "hand")]
        rows.append([name, *sd, f"{np.exp(v):.2f}", f"{v:+.2f} ± {e:.2f}"])
        rows[-1].append(rulebook.verdict(ev))
    head = ["drop", "sd ReLU", "sd GDLN", "ratio", "ln ratio ± bootstrap error"]
    return kit.table(rows, head + ["same?"])


def rounding(names, floor) -> str:
    """The rounding floor (:func:`.drops.rounding_floor`): per drop, how far each run
    from the same initial weights lands from the reference, per seed, and the standard
    deviation rounding alone adds to one run."""
    others = list(floor["diff"])
    rows = [
        [name]
        + [", ".join(f"{d:+.0f}" for d in floor["diff"][o][:, k]) for o in others]
        + [f"{floor['sd'][k]:.0f}"]
        for k, name in enumerate(names)
    ]
    head = [f"{k}: epochs against the reference, per seed" for k in others]
    return kit.table(rows, ["drop"] + head + ["sd from rounding"])
