"""The figures of the page *Proofs checked numerically* (``book/proofs.md``): each
function draws one figure from what the page computed."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ... import figures
from ...core import xor_reln
from .lemma import CLASSES, TwoByTwo, UnitCensus, pattern_class
from .race import NAMES, Race
from .xor import EPS_PAPER, Simulated

P = figures.PALETTE


def _pattern(ax, image, title):
    """One on/off pattern as a grey image, without ticks."""
    ax.imshow(image, cmap="Greys", vmin=-0.3, vmax=1.3)
    ax.set(xticks=[], yticks=[])
    ax.grid(False)
    ax.set_title(title, fontsize=7.5)


def lemma_2x2(two: TwoByTwo):
    """The 16 patterns of 2 items x 2 contexts with their LP margins and classes
    (fig-proofs-lemma-2x2); infeasible ones framed in red."""
    fig, axes = plt.subplots(2, 8, figsize=(11, 3.4))
    classes = pattern_class(two.patterns, 2, 2)
    for ax, g, r, cl in zip(axes.flat, two.patterns, two.lp, classes):
        _pattern(ax, g.reshape(2, 2).T, f"t*={max(r['margin'], 0.0):.2f}\n{cl}")
        if not r["feasible"]:
            for sp in ax.spines.values():
                sp.set(visible=True, color="red", linewidth=2.5)
    plt.tight_layout()


def relu_patterns(units: UnitCensus):
    """Weight share by pattern class over training, and the eight heaviest units'
    patterns at the end (fig-proofs-relu-patterns)."""
    shares, gates, weights = units.shares, units.gates, units.weights
    eps = list(shares)
    fig = plt.figure(figsize=(11, 3.6))
    ax = fig.add_axes([0.06, 0.15, 0.38, 0.75])
    cols = dict(zip(CLASSES, [P["common"], P["mixed"], P["single"], P["xor"]]))
    bottom = np.zeros(len(eps))
    for k, c in cols.items():
        v = np.array([shares[ep][k] for ep in eps])
        ax.bar(range(len(eps)), v, bottom=bottom, color=c, label=k)
        bottom += v
    ax.set_xticks(range(len(eps)), eps)
    ax.set(xlabel="epoch", ylabel="share of weight mass")
    ax.legend(fontsize=8, loc="lower left")
    for k, j in enumerate(np.argsort(-weights)[:8]):
        axp = fig.add_axes([0.50 + 0.12 * (k % 4), 0.50 - 0.30 * (k // 4), 0.11, 0.25])
        title = f"{pattern_class(gates[j], 8, 3)}, {weights[j] / weights.sum():.1%}"
        _pattern(axp, gates[j].reshape(3, 8), title)


def interlacing(ratios_random, ratios_task):
    """Histogram of sigma_1(B) / sigma_1(A) over the deletions
    (fig-proofs-interlacing)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    bins = np.r_[np.linspace(0, 1, 41)[:-1], 1 + 1e-9]  # last bin ends above 1
    sets = [(ratios_random, "prediction", "random"), (ratios_task, "mixed", "task")]
    for r, c, name in sets:
        ax.hist(r, bins=bins, alpha=0.6, color=P[c], label=f"{name} ({len(r)})")
    ax.axvline(1.0, color="k", ls="--", lw=1)
    ax.set(xlim=(0, 1.05), xlabel=r"$\sigma_1(B) / \sigma_1(A)$", ylabel="cases")
    ax.set_yscale("log")
    ax.legend()
    plt.tight_layout()


def race(r: Race):
    """The race's loss curves and their log-ratio to the ReLU loss (fig-proofs-race)."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    colors = {"single": P["single"], "mixed": P["mixed"], "both": P["prediction"]}
    figures.loss_curves(ax1, r.relu_loss, "ReLU", P["relu"], alpha_runs=0.3, bold=0)
    L_relu = r.relu_loss[0]
    t, floor = np.arange(len(L_relu)), 1e-3 * L_relu[0]
    for k, curves in r.losses.items():
        L, ls = curves[0], "--" if k == "both" else "-"
        ax1.plot(t, L, color=colors[k], lw=1.3, ls=ls, label=NAMES[k])
        log_ratio = np.log(np.maximum(L, floor)) - np.log(np.maximum(L_relu, floor))
        ax2.plot(t, log_ratio, color=colors[k], ls=ls, label=NAMES[k])
    ax1.axhline(r.L_lin / 2, color="k", ls=":", lw=0.8)
    ax1.set(yscale="log", xlabel="epoch", ylabel="summed loss")
    ax1.legend(fontsize=8)
    ax2.axhline(0, color="k", lw=0.8)
    ax2.set(xlabel="epoch", ylabel="log(L_ReLN / L_ReLU)")
    ax2.legend(fontsize=8)
    plt.tight_layout()


def xor(xs: Simulated):
    """Appendix C: simulated and closed-form losses at three margins, and the halving
    times against the margin (fig-proofs-xor)."""
    eps_list = xs.eps
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    kinds = [("linear", P["linear"]), ("xor", P["xor"])]
    show = [eps_list[0], min(eps_list, key=lambda e: abs(e - EPS_PAPER)), eps_list[-1]]
    styles = dict(zip(show, ["-", "-.", ":"]))
    t = np.arange(len(xs.sim[eps_list[0], "linear", 0]))
    for eps in show:
        for kind, c in kinds:
            ax1.plot(t, xs.sim[eps, kind, 0], color=c, ls=styles[eps], lw=1.5)
            ax1.plot(t, xs.cf[eps, kind, 0], color="k", ls="--", lw=0.7)
        ax1.plot([], [], color="grey", ls=styles[eps], label=f"eps = {eps:g}")
    ax1.plot([], [], color=P["linear"], label="linear ReLN")
    ax1.plot([], [], color=P["xor"], label="XoR ReLN")
    ax1.plot([], [], "k--", lw=0.7, label="closed form")
    # float32 simulations floor near 1e-10
    ax1.set(yscale="log", ylim=(1e-6, 5), xlabel="epoch", ylabel="summed loss")
    ax1.legend(fontsize=7)
    eps_fine = np.linspace(min(eps_list), max(eps_list), 200)
    for kind, c in kinds:
        t_cf = xor_reln.closed_form_learning_time(eps_fine, kind, xs.a0_mean, xs.lr)
        ax2.plot(eps_fine, t_cf, color=c, label=f"{kind} (closed form)")
        for s in range(xs.seeds):
            times = [xs.halving[e, kind, s] for e in eps_list]
            ax2.plot(eps_list, times, "o", color=c, ms=4, alpha=0.7)
    ax2.axvline(EPS_PAPER, color="grey", lw=1)
    ax2.axvline(xs.cross_pred, color=P["reln"], lw=1, ls="--")
    ax2.set(xlabel="margin eps", ylabel="epochs to halve the loss")
    ax2.legend(fontsize=8)
    plt.tight_layout()
