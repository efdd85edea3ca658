"""The figures of the page book/contexts.md, one function per figure (the page keeps
captions and labels); each draws its figure and shows it."""

import matplotlib.pyplot as plt
import numpy as np

from ... import figures
from ...book.rulebook import CLEARLY, NOISE_MULTIPLE
from ...core.relns import INITS, pathway_pattern
from .predictions import nanmed
from .representations import representation_similarity

#: The book's palette, and race_py, the authors' race.py (green as in their replot.py).
COLORS = {k: figures.PALETTE[k] for k in ("relu", "reln", "single", "prediction")}
COLORS |= {"full": "#e377c2", "mixed": "#8c564b", "race_py": "#2ca02c"}
COLORS["common"] = figures.PALETTE["common"]
#: The census's classes of units: colour and label.
CLASSES = {
    "common": (COLORS["common"], "common"),
    "mixed": (COLORS["reln"], "2-of-3"),
    "single": (COLORS["single"], "single-context"),
    "other": ("#bcbd22", "other"),
}
BLOCK_NAMES = ["common H", "ctx 1: H", "ctx 2: R", "ctx 3: K"]


def task(ds, C):
    """fig-contexts-task: inputs and outputs of the task, and its ReLN."""
    fig = plt.figure(figsize=(10, 4.6))
    gs = fig.add_gridspec(
        2, 2, width_ratios=[1, 1.35], height_ratios=[11, 60], hspace=0.08, wspace=0.08
    )
    axX, axY, axN = (fig.add_subplot(g) for g in (gs[0, 0], gs[1, 0], gs[:, 1]))
    line = dict(color=COLORS["reln"], lw=0.8)
    for ax, M in ((axX, ds.X), (axY, ds.Y)):
        ax.imshow(M, cmap="Greys", aspect="auto", vmin=0, vmax=1)
        for c in range(1, C):
            ax.axvline(8 * c - 0.5, **line)
        ax.set(xticks=[], yticks=[])
        ax.grid(False)
    for b in range(1, C + 1):
        axY.axhline(15 * b - 0.5, **line)
    axX.axhline(7.5, **line)
    axX.set_title("inputs X (11 x 24) and outputs Y (60 x 24)", fontsize=9)
    for b, name in enumerate(["common (H)", "ctx 1: H", "ctx 2: R", "ctx 3: K"]):
        axY.text(-1, 15 * b + 7, name, ha="right", va="center", fontsize=8)
    text = dict(ha="center", va="top", fontsize=8)
    for c in range(C):
        axY.text(8 * c + 3.5, 61.5, f"context {c + 1}", **text)
    colors = {"common": "0.85", "mixed": "#f4c2c2"}
    figures.draw_context_reln(axN, ds, "mixed", block_names=BLOCK_NAMES, colors=colors)
    plt.show()


def losses(relu, runs, preds, race_py, L0):
    """fig-contexts-loss: the paper's Fig. 4a with seeds, linear and log scale."""
    t_all = np.arange(relu.loss.shape[1])
    curves = [
        (relu.loss, "ReLU, 700 units", "relu"),
        (runs["both/one-way"].loss, "ReLN, 7 pathways (one-way)", "reln"),
        (runs["both/full"].loss, "ReLN, 7 pathways (fully coupled)", "full"),
        (runs["mixed/one-way"].loss, "common + 2-of-3", "mixed"),
        (runs["single/one-way"].loss, "common + single-context", "single"),
    ]
    dashed = [(race_py, "authors' race.py", COLORS["race_py"])]
    dashed += [(preds["both/one-way"].loss, "this book's race", COLORS["prediction"])]
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.9))
    for ax, log in zip(axes, [False, True]):
        for L, label, col in curves:
            figures.loss_curves(ax, L, label, COLORS[col], log=log)
        for L, label, col in dashed:
            ax.plot(t_all, L, color=col, ls="--", lw=1.5, label=label)
    axes[0].legend(fontsize=8)
    axes[1].set_ylim(1e-2, 2 * L0)
    plt.tight_layout()
    plt.show()


def init_gaps(init_rows, spread, single_gap):
    """fig-contexts-init: the ReLU-ReLN time gap under each initialisation."""
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    xs = np.arange(len(INITS))
    bars = [
        ("gap_7_pathways", COLORS["reln"], "7 pathways"),
        ("gap_2_of_3", COLORS["mixed"], "common + 2-of-3"),
        ("gap_single_context", COLORS["single"], "common + single-context"),
    ]
    for k, (kind, col, lab) in enumerate(bars):
        gaps = [init_rows[i][kind] for i in INITS]
        ax.bar(xs + (k - 1) * 0.27, gaps, 0.25, color=col, label=lab)
    black = dict(color="k", lw=1)
    ax.axhline(NOISE_MULTIPLE * spread, ls="--", label="2 x ReLU seed spread", **black)
    ax.axhline(
        CLEARLY * single_gap, ls=":", label="half the alternative's gap", **black
    )
    ax.set_xticks(xs, INITS)
    ax.set(ylabel="time gap to the ReLU network", yscale="log")
    ax.legend(fontsize=7)
    plt.show()


def outputs(relu, reln, show_epochs):
    """fig-contexts-outputs: both networks' outputs (seed 0) and their difference."""
    out_relu, out_reln = relu.records["outputs"], reln.records["outputs"]
    n = len(show_epochs)
    fig, axes = plt.subplots(3, n, figsize=(10, 7.5), sharex=True, sharey=True)
    for k, e in enumerate(show_epochs):
        A, B = out_relu[0, relu.index(e)], out_reln[0, reln.index(e)]
        shown = [(A, "ReLU"), (B, "ReLN"), (A - B, "ReLU - ReLN")]
        for r, (M, name) in enumerate(shown):
            ax, lim = axes[r, k], 1.0 if r < 2 else 0.2
            ax.imshow(M, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
            ax.grid(False)
            ax.set(xticks=[], yticks=[])
            if r == 0:
                ax.set_title(f"epoch {e}")
            if k == 0:
                ax.set_ylabel(name)
    plt.tight_layout()
    plt.show()


def singular_values(t_rec, sv_sim, sv_pred, relu_maps, single_names, C, k_show):
    """fig-contexts-svs: each pathway's top singular values over training."""
    order = ["common", "ctx12", "ctx13", "ctx23", "ctx1", "ctx2", "ctx3"]
    fig, axes = plt.subplots(2, 4, figsize=(12, 5.5), sharex=True, sharey=True)
    axes, pred = axes.ravel(), COLORS["prediction"]
    for ax, n in zip(axes, order):
        kind = "single" if n in single_names else "reln"
        ax.plot(t_rec, sv_sim[n][0], color=COLORS[n if n == "common" else kind], lw=1.2)
        ax.plot(t_rec, sv_pred[n], color=pred, lw=1, ls="--")
        pat = pathway_pattern(n, C)
        if pat in relu_maps:
            svs = np.linalg.svd(relu_maps[pat], compute_uv=False)[:, :k_show]
            ax.plot(t_rec, svs, color="0.45", lw=0.8, ls=":")
        ax.set_title(f"{n} (pattern {pat})", fontsize=9)
        ax.set_xlabel("epoch")
    axes[0].set_ylabel("singular value")
    axes[4].set_ylabel("singular value")
    axes[-1].plot([], [], color="k", label="simulated ReLN")
    axes[-1].plot([], [], color=pred, ls="--", label="race prediction")
    axes[-1].plot([], [], color="0.45", ls=":", label="ReLU units, same pattern")
    axes[-1].legend(loc="center", fontsize=8)
    axes[-1].axis("off")
    plt.tight_layout()
    plt.show()


def mds(relu, reln, ds, show_epochs, sims, t_rec, C):
    """fig-contexts-mds: MDS of the hidden representations at the epochs shown (seed
    0; ReLU filled, the ReLN aligned onto it open), and the correspondence measures
    over training (medians over seeds)."""
    H_relu, H_reln = relu.records["hidden"][0], reln.records["hidden"][0]
    fig = plt.figure(figsize=(12, 7.5))
    gs = fig.add_gridspec(2, 3, height_ratios=[1.2, 1])
    offset = dict(fontsize=7, xytext=(3, 3), textcoords="offset points")
    ctx_colors = ["#1f77b4", "#2ca02c", "#9467bd"]
    for k, e in enumerate(show_epochs):
        ax = fig.add_subplot(gs[0, k])
        v = representation_similarity(
            H_relu[0, relu.index(e)], H_reln[0, reln.index(e)]
        )
        A, B = v["mds_a"], v["aligned"]
        for i in range(ds.P):
            c = ctx_colors[ds.contexts[i]]
            ax.scatter(*A[i], color=c, s=40)
            ax.scatter(*B[i], facecolor="none", edgecolor=c, s=90, lw=1.2)
            ax.annotate(str(ds.items[i]), A[i], **offset)
        ax.set_title(f"epoch {e}: Procrustes {v['procrustes']:.3f}", fontsize=9)
        ax.set(xticks=[], yticks=[])
    for c in range(C):
        ax.scatter([], [], color=ctx_colors[c], label=f"context {c + 1}")
    ax.legend(fontsize=7, loc="lower right")
    measures = [
        ("rsa", "RSA (distance correlation)"),
        ("cka", "linear CKA"),
        ("procrustes", "Procrustes disparity (2-D MDS)"),
    ]
    pairs = [
        ("reln", COLORS["reln"], "ReLU vs ReLN"),
        ("seed", COLORS["relu"], "ReLU vs ReLU (other seed)"),
        ("single", COLORS["single"], "ReLU vs single-context ReLN"),
    ]
    for k, (m, label) in enumerate(measures):
        ax = fig.add_subplot(gs[1, k])
        for name, col, lab in pairs:
            med = np.median(sims[name][m][:, 1:], axis=0)
            ax.plot(t_rec[1:], med, color=col, lw=1.5, label=lab)
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("epoch")
        if m == "procrustes":
            ax.set_yscale("log")
    ax.legend(fontsize=7)
    plt.tight_layout()
    plt.show()


def census(t_rec, census, div):
    """fig-contexts-census: the census by weight, and who produces each output block."""
    fig, axes = plt.subplots(1, 2, figsize=(11.5, 4), width_ratios=[1.3, 1])
    shares = {k: np.mean(census[k], axis=0) for k in [*CLASSES, "consistency"]}
    line = ("consistency", "gates following the context pattern")
    _class_shares(axes[0], t_rec, shares, line, "share of weight mass", "lower left")
    ax, xs, w = axes[1], np.arange(len(BLOCK_NAMES)), 0.2
    hatched = dict(hatch="//", alpha=0.5, edgecolor="k")
    kinds = {"common": "common", "2-of-3": "reln", "single": "single"}
    for k, (cls, kind) in enumerate(kinds.items()):
        x, col = xs + (k - 1) * w, COLORS[kind]
        ax.bar(x - w / 4, div["ReLU"][cls], w / 2, color=col, label=f"{cls} (ReLU)")
        reln = dict(color=col, **hatched, label=f"{cls} (ReLN)")
        ax.bar(x + w / 4, div["ReLN"][cls], w / 2, **reln)
    ax.set_xticks(xs, BLOCK_NAMES, fontsize=8)
    ax.set_ylabel("share of the target block produced")
    ax.legend(fontsize=6, ncol=2)
    plt.tight_layout()
    plt.show()


def functional(t_rec, fc):
    """fig-contexts-functional: the census through the function over training."""
    fig, ax = plt.subplots(figsize=(7.5, 3.5))
    shares = {k: np.median(fc[k][:, 1:], axis=0) for k in [*CLASSES, "snap_change"]}
    line = ("snap_change", "output change when snapped")
    ylabel = "share of the snapped output"
    _class_shares(ax, t_rec[1:], shares, line, ylabel, "center right")
    plt.show()


def _class_shares(ax, t, shares: dict, line: tuple, ylabel: str, loc: str) -> None:
    """The classes' ``shares`` stacked over ``t``, ``line``'s (key, label) over them."""
    colors, labels = zip(*CLASSES.values())
    curves = [shares[k] for k in CLASSES]
    ax.stackplot(t, *curves, colors=colors, labels=labels, alpha=0.8)
    ax.plot(t, shares[line[0]], color="k", lw=1.5, label=line[1])
    ax.set(xlabel="epoch", ylabel=ylabel, ylim=(0, 1.02))
    ax.legend(fontsize=7, loc=loc)


def race(t_rec, maps_sim, pred, mixed_names, single_names, runs, resid):
    """fig-contexts-race: the context pathways' map norms, and the losses with and
    without the common pathway."""
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 3.9))
    for n in mixed_names + single_names:
        col = COLORS["reln"] if n in mixed_names else COLORS["single"]
        sim = np.median([np.linalg.norm(m[n], axis=(1, 2)) for m in maps_sim], axis=0)
        ax.plot(t_rec, sim, color=col, lw=1.3)
        norm = np.linalg.norm(pred.maps[n], axis=(1, 2))
        ax.plot(t_rec, norm, color=col, lw=1, ls="--")
        end = (t_rec[-1], np.linalg.norm(pred.maps[n][-1]))
        ax.annotate(n, end, fontsize=7, xytext=(2, 0), textcoords="offset points")
    ax.set(yscale="log", xlabel="epoch", ylabel="$\\|W_2 W_1\\|_F$ of the pathway")
    mixed, single = runs["mixed/one-way"].loss, runs["single/one-way"].loss
    figures.loss_curves(ax2, mixed, "common + 2-of-3", COLORS["mixed"])
    figures.loss_curves(ax2, single, "common + single-context", COLORS["single"])
    t_all = np.arange(mixed.shape[1])
    for label, col in [("2-of-3", COLORS["mixed"]), ("single", COLORS["single"])]:
        med, lab = np.median(resid[label], axis=0), f"{label} alone on the residual"
        ax2.plot(t_all, med, color=col, ls=":", lw=2, label=lab)
    ax2.legend(fontsize=7)
    plt.tight_layout()
    plt.show()


def head_start(t_rec, modes, consts, band, epoch):
    """fig-contexts-headstart: the equivalent a0 of each 2-of-3 pathway's top mode."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for k, (p, col) in enumerate(zip(modes, ["#d62728", "#ff9896", "#8c564b"])):
        sim = nanmed(consts.eq_top_sim[:, k], axis=0)
        ax.plot(t_rec, sim, color=col, lw=1.5, label=f"{p.name} (s = {p.s[0]:.2f})")
        ax.plot(t_rec, consts.eq_top_pred[k], color=col, lw=1, ls="--")
    ax.axhline(consts.a0_context, color="0.5", lw=1, label="$a_0$ from the init")
    ax.axhspan(*band, color="#2ca02c", alpha=0.15, label="authors' hand-set $a_0$")
    ax.axvline(epoch, color="k", lw=0.6, ls=":")
    ax.set(yscale="log", xlabel="epoch", ylabel="equivalent $a_0$ (top residual mode)")
    ax.legend(fontsize=7)
    plt.show()


def ladder(lad):
    """fig-contexts-ladder: the common + 2-of-3 ReLN against every prediction."""
    rows, t_all = lad.rows, np.arange(lad.sim_m.shape[1])
    fig, ax = plt.subplots(figsize=(8, 4.2))
    figures.loss_curves(ax, lad.sim_m, "simulated ReLN", COLORS["mixed"])
    styles = ["0.5", "0.5", "#17becf", "#17becf"] + ["#2ca02c"] * 2 + ["#9467bd"] * 2
    label = "race.py (Fig. 4a)"
    ax.plot(t_all, lad.race_row.loss, color="#d62728", ls="-.", lw=1.2, label=label)
    for r, col, ls in zip(rows[:-2], styles, ["-", "--"] * 4):
        label = r.label.replace("$a_0$", "a0").replace("$", "")
        ax.plot(t_all, r.loss, color=col, ls=ls, lw=1, label=label)
    pred = COLORS["prediction"]
    ax.plot(t_all, rows[-1].loss, color=pred, lw=1.5, label="matrix race")
    ax.legend(fontsize=6, loc="lower left")
    plt.show()
