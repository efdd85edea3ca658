"""The figures of the XoR chapter (``book/xor.md``), drawn from what the page computed,
each into a new Matplotlib figure (shown when the cell ends)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyBboxPatch

from ...core import xor_reln
from ...core.datasets import xor
from ...figures import PALETTE, loss_curves
from .measures import inv_log

LABELS = {"linear": "linear ReLN", "xor": "XoR ReLN"}
MID = dict(ha="center", va="center")
ARROW = dict(arrowprops=dict(arrowstyle="->", lw=0.8))


def dataset(margins=(0.3, 1.2)):
    """Fig. ``fig-xor-dataset``: the four points in 3-D at each margin, with the
    plane ``x_3 = 0``."""
    fig = plt.figure(figsize=(9, 3.8))
    gx, gy = np.meshgrid([-1.3, 1.3], [-1.3, 1.3])
    for k, e in enumerate(margins):
        ds_ = xor(e)
        ax = fig.add_subplot(1, len(margins), k + 1, projection="3d")
        ax.plot_surface(gx, gy, 0 * gx, color="0.8", alpha=0.3)
        for i in range(4):
            x, c = ds_.X[:, i], PALETTE["reln" if ds_.Y[0, i] > 0 else "prediction"]
            ax.scatter(*x, color=c, s=60, depthshade=False)
            ax.plot([x[0], x[0]], [x[1], x[1]], [0, x[2]], color=c, lw=0.8, ls=":")
            ax.text(x[0] * 1.15, x[1] * 1.15, x[2] + 0.08, f"$x_{i + 1}$")
        ax.set(xlabel="dim 1", ylabel="dim 2", zlabel="dim 3 (margin)")
        ax.set(zlim=(-1.3, 1.3), title=f"$\\epsilon$ = {e}")
    plt.tight_layout()


def relns(width):
    """Fig. ``fig-xor-relns``: the two candidate ReLNs, their pathways and gates."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    box = dict(boxstyle="round,pad=0.02", fc="white", ec="k")
    point = [PALETTE["reln" if y > 0 else "prediction"] for y in xor(0.5).Y[0]]
    ym, hgt = 0.57, 0.15
    s_txt = {
        "linear": "$s = 2\\epsilon$, $d = 2\\epsilon^2$",
        "xor": "$s = \\sqrt{2 + \\epsilon^2}$, $d = 2 + \\epsilon^2$",
    }
    for ax, kind in zip(axes, xor_reln.KINDS):
        gates = xor_reln.GATES[kind]
        ax.add_patch(FancyBboxPatch((0.02, ym - 0.1), 0.12, 0.2, **box))
        ax.text(0.08, ym, "$x$\n(3)", **MID)
        ax.add_patch(FancyBboxPatch((0.86, ym - 0.08), 0.12, 0.16, **box))
        ax.text(0.92, ym, "$\\hat y$", **MID)
        units = xor_reln.pathway_width(kind, width)
        for (name, g), y in zip(gates.items(), np.linspace(0.84, 0.3, len(gates))):
            ax.add_patch(FancyBboxPatch((0.3, y - hgt / 2), 0.4, hgt, **box))
            ax.text(0.5, y + hgt / 4, f"{name}: {units} units", fontsize=8, **MID)
            for i in range(4):
                c = point[i] if g[i] else "0.85"
                x0, h0 = (0.37 + 0.07 * i, y - hgt / 2 + 0.015), hgt / 2 - 0.02
                ax.add_patch(plt.Rectangle(x0, 0.055, h0, fc=c, ec="k", lw=0.5))
                xy = (0.3975 + 0.07 * i, y - hgt / 4)
                ax.text(*xy, f"$x_{i + 1}$", fontsize=6, **MID)
            ax.annotate("", (0.3, y), (0.14, ym), **ARROW)
            ax.annotate("", (0.86, ym), (0.7, y), **ARROW)
        every = "every pathway: " + s_txt[kind]
        ax.text(0.5, 0.08, every, ha="center", va="bottom", fontsize=8)
        ax.set(xlim=(0, 1), ylim=(0, 0.95))
        ax.axis("off")
        fig_ = "b" if kind == "linear" else "c"
        ax.set_title(f"{LABELS[kind][:-5]} gating (paper Fig. 2{fig_})")
    plt.tight_layout()


def losses(main, eps_show, t_sim):
    """Fig. ``fig-xor-loss``: ReLU networks, simulated ReLNs and closed forms at the
    margins ``eps_show`` (``t_sim``, the ReLNs' learning times, sets the ranges)."""
    t_all = np.arange(main.epochs + 1)
    fig, axes = plt.subplots(1, len(eps_show), figsize=(12, 3.4), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, e in zip(axes, eps_show):
        j = int(np.argmin(np.abs(main.eps - e)))
        t_slow = max(np.median(t_sim[k][j]) for k in xor_reln.KINDS)
        ax.set_xlim(0, min(main.epochs, 1.6 * t_slow))
        loss_curves(ax, main.relu[j], "ReLU", PALETTE["relu"], alpha_runs=0.3)
        for k in xor_reln.KINDS:
            style = dict(color=PALETTE[k], lw=1.5)
            sim = LABELS[k] + " (sim.)"
            loss_curves(ax, main.sim[k][j], sim, alpha_runs=0, **style)
            cf = LABELS[k] + " (closed form)"
            ax.plot(t_all, main.cf[k][j], ls="--", label=cf, **style)
        ax.set(yscale="log", ylim=(1e-4, 4), title=f"$\\epsilon$ = {e:g}")
        ax.set_xlabel("epoch")
    axes[0].set_ylabel("summed loss")
    handles, labels_ = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels_, loc="lower center", ncol=5, fontsize=8)
    plt.tight_layout(rect=(0, 0.08, 1, 1))


def learning_time(main, t_relu, t_sim, switch, ties=()):
    """Fig. ``fig-xor-learning-time``: learning times against the margin, with the
    crossover, the ReLU ``switch`` and the near-tie margins ``ties`` (red crosses)."""
    eps_grid, a0, lr = main.eps, main.a0, main.lr
    eps_dense = np.linspace(0.15, eps_grid.max() + 0.05, 300)
    fig, ax = plt.subplots(figsize=(6.8, 4))
    for k in xor_reln.KINDS:
        t_cf = xor_reln.closed_form_learning_time(eps_dense, k, a0[k], lr)
        c, lab = PALETTE[k], LABELS[k]
        ax.plot(eps_dense, t_cf, color=c, lw=1.5, label=f"{lab} (closed form)")
        ax.plot(eps_grid, np.median(t_sim[k], 1), "o", color=c, ms=5, mfc="none",
                label=f"{lab} (sim.)")  # fmt: skip
    med = np.median(t_relu, axis=1)
    err = [med - t_relu.min(1), t_relu.max(1) - med]
    ax.errorbar(eps_grid, med, yerr=err, fmt="s", color=PALETTE["relu"], ms=4,
                capsize=2, label="ReLU network")  # fmt: skip
    star = "$\\epsilon^* = \\sqrt{2/3}$"
    ax.axvline(xor_reln.eps_star(), color="0.5", ls="--", lw=1.2, label=star)
    ax.set(yscale="log", xlabel="margin $\\epsilon$", ylabel="learning time (epochs)")
    iqr = "ReLU gating switch (IQR)"
    ax.axvspan(switch["q25"], switch["q75"], color="k", alpha=0.12, label=iqr)
    ax.axvline(switch["eps_x"], color="k", lw=1)
    ax.set_ylim(top=float(np.max(t_sim["linear"])) * 1.3)
    if len(ties):
        ax.plot(np.asarray(ties, float), np.zeros(len(ties)), "x", color="tab:red",
                ms=8, mew=2, clip_on=False, transform=ax.get_xaxis_transform(),
                label="ReLNs within the noise (not counted)")  # fmt: skip
    ax.legend(fontsize=7, ncol=2)
    plt.tight_layout()


def gating(main, eps_show, switch):
    """Fig. ``fig-xor-gating``: the final linear and XoR shares of every seed against
    the margin, with the switch; the shares during training at ``eps_show``."""
    final = main.shares[:, :, -1]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    for s in range(final.shape[1]):
        for c, k in ((1, "linear"), (0, "xor")):
            ax1.plot(main.eps, final[:, s, c], color=PALETTE[k], lw=1, alpha=0.6,
                     marker=".")  # fmt: skip
    ax1.plot([], [], color=PALETTE["linear"], label="linear gating")
    ax1.plot([], [], color=PALETTE["xor"], label="XoR gating")
    ax1.axvline(xor_reln.eps_star(), color="0.5", ls="--", label="$\\epsilon^*$")
    ax1.axvspan(switch["q25"], switch["q75"], color="k", alpha=0.12)
    ax1.axvline(switch["eps_x"], color="k", lw=1.2, label="ReLU switch (median)")
    ax1.axhline(0.5, color="0.7", lw=0.8)
    ax1.set(xlabel="margin $\\epsilon$", ylabel="share of hidden weight")
    ax1.legend(fontsize=8)
    for e, ls in zip(eps_show, ["-", "--", "-.", ":"]):
        med = np.median(main.shares[int(np.argmin(np.abs(main.eps - e)))], axis=0)
        for c, k in ((1, "linear"), (0, "xor")):
            ax2.plot(main.record_epochs, med[:, c], color=PALETTE[k], ls=ls, lw=1.3)
        ax2.plot(main.record_epochs, med[:, 2], color="0.5", ls=ls, lw=1.0)
        ax2.plot([], [], color="k", ls=ls, label=f"$\\epsilon$ = {e:g}")
    ax2.plot([], [], color="0.5", label="other gating")
    ax2.set_xscale("symlog", linthresh=100)
    ax2.set(xlabel="epoch", ylabel="share of hidden weight", xlim=(0, main.epochs))
    ax2.legend(fontsize=7)
    plt.tight_layout()


def sensitivity(sweep, fit, width, main_point, noise):
    """Fig. ``fig-xor-sensitivity``: left, each setting's switch (median, range over
    seeds) against ``1/ln(1/u0*)`` with the ``fit``, its limit and the
    ``main_point`` ``(x, switch)``; right, its time gap to the faster closed form
    against ``noise`` (settings at ``width`` by init std, the others by width)."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    eps_inf, C_fit = fit["eps_inf"], fit["slope"]
    x_max = 0.2
    xx = np.linspace(0, x_max, 50)
    fit_label = f"fit: {eps_inf:.3f} + {C_fit:.2f} / ln(1/$u_0^*$)"
    ax1.plot(xx, eps_inf + C_fit * xx, color="0.3", lw=1, label=fit_label)
    ax1.axhline(xor_reln.eps_star(), color="0.5", ls="--", label="$\\epsilon^*$")
    for d in sweep:
        x = inv_log(d["u0"]) if d["u0"] < 1 else np.inf
        if not np.isfinite(d["cross_med"]) or x > x_max:
            continue
        at_width = d["width"] == width
        y, lo, hi = d["cross_med"], np.nanmin(d["cross"]), np.nanmax(d["cross"])
        mk = "o" if at_width else ("s" if d["width"] < width else "D")
        other = f"width {d['width']}, σ = {d['std']:.1e}"
        ax1.errorbar(x, y, yerr=[[y - lo], [hi - y]], fmt=mk, ms=5, capsize=2,
                     color="C0" if at_width else "C1",
                     label=None if at_width else other)  # fmt: skip
        if at_width:
            ax1.annotate(f"σ={d['std']:.0e}", (x, y), textcoords="offset points",
                         xytext=(6, -4), fontsize=7)  # fmt: skip
    ax1.plot(*main_point, "*", color="k", ms=10, label="main sweep")
    ax1.errorbar(0.003, eps_inf, yerr=[[eps_inf - fit["lo"]], [fit["hi"] - eps_inf]],
                 fmt="o", color="k", ms=3, capsize=3, lw=1.5,
                 label="limit (95 % interval over seeds)")  # fmt: skip
    ax1.set(xlim=(0, x_max), xlabel="$1 / \\ln(1/u_0^*)$")
    ax1.set_ylabel("ReLU switch $\\epsilon_\\times$")
    ax1.legend(fontsize=7)
    at = [d["width"] == width for d in sweep]
    ax2.bar(range(len(sweep)), [d["gap"] for d in sweep],
            color=["C0" if a else "C1" for a in at])  # fmt: skip
    spread = "2 x ReLU seed spread (main sweep)"
    ax2.axhline(noise, color="0.5", ls="--", lw=1, label=spread)
    labels = [
        f"σ={d['std']:.0e}" if a else f"H={d['width']}" for d, a in zip(sweep, at)
    ]
    ax2.set_xticks(range(len(sweep)), labels, rotation=45, fontsize=8)
    ax2.set_ylabel("time gap to the faster closed form")
    ax2.legend(fontsize=8)
    plt.tight_layout()
