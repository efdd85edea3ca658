"""The figures of the page ``book/reviewers.md``, one function per figure (the page
keeps each figure's caption and label; the drawing is here)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ...figures import PALETTE, loss_curves

#: One colour per gating class and curve kind (the book's palette; "other" units).
COLORS = {k: PALETTE[k] for k in ("relu", "mixed", "single", "common", "prediction")}
COLORS["other"] = "#9467bd"


def _show():
    plt.tight_layout()
    plt.show()


def plot_paper_settings(L_relu, L_mixed, L_single, census, weight_census, t_rec):
    """Figure ``fig-reviewers-base``: the losses of the ReLU network and the two ReLNs
    (left), and each gating class's functional share over training (``census``
    ``{class: (seeds, R)}`` at ``t_rec``; medians), 2-of-3 by weight dotted (right)."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8))
    loss_curves(a, L_relu, "ReLU", COLORS["relu"])
    loss_curves(a, L_mixed, "ReLN common + 2-of-3 (matched)", COLORS["mixed"])
    loss_curves(a, L_single, "ReLN common + single", COLORS["single"])
    a.legend(fontsize=8)
    for k in ("common", "mixed", "single", "other"):
        b.plot(t_rec, np.nanmedian(census[k], axis=0), color=COLORS[k], label=k)
    by_weight = np.median(weight_census, axis=0)
    b.plot(t_rec, by_weight, color=COLORS["mixed"], ls=":", label="2-of-3 (by weight)")
    b.set(xlabel="epoch", ylabel="share of the snapped output")
    b.legend(fontsize=8)
    _show()


def plot_init_sweep(order, stds, L_init, plateau_min, multiple):
    """Figure ``fig-reviewers-init``: the loss over its initial loss per std (left;
    ``L_init`` ``(settings, seeds, T)``), and per row of ``order`` the plateau share,
    gates moved and the match over the seed spread (right; ``multiple`` dotted)."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8))
    shades = plt.cm.viridis(np.linspace(0.85, 0.1, len(order)))
    t_all = np.arange(np.shape(L_init)[-1])
    for r, col in zip(order, shades):
        k = stds.index(r["std"])
        curve = np.median(L_init[k] / L_init[k][:, :1], axis=0)
        a.plot(t_all, curve, color=col, label=f"std {r['std']:.1e}")
    a.set_yscale("log")
    a.set_xscale("symlog", linthresh=10)
    a.set(xlim=(0, t_all[-1]), xlabel="epoch", ylabel="L(t) / L(0)")
    a.legend(fontsize=7)
    xs = [r["std"] for r in order]
    b.plot(xs, [r["plateau_share"] for r in order], "o-", label="plateau share")
    b.axhline(plateau_min, ls="--", color="0.5", lw=0.8)
    b.plot(xs, [r["gate_change"] for r in order], "s-", label="gates moved")
    b.set(xscale="log", xlabel="initial std")
    b2 = b.twinx()
    ratio = [r["match_value"] / r["match_spread"] for r in order]
    b2.plot(xs, ratio, "^-", color=COLORS["mixed"], label="match / spread")
    b2.axhline(multiple, ls=":", color=COLORS["mixed"], lw=0.8)
    b2.set_yscale("log")
    b.legend(fontsize=8, loc="upper left")
    b2.legend(fontsize=8, loc="upper right")
    _show()


def plot_optimisers(opt_runs, opt_census, L_reln, t_census):
    """Figure ``fig-reviewers-optimisers``: every optimiser's loss (median over seeds)
    with the matched ReLN by gradient descent (left), and the 2-of-3 (solid) and
    single-context (dashed) shares over training (right)."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8))
    cols = plt.cm.tab10(np.arange(len(opt_runs)))
    t_all = np.arange(np.shape(L_reln)[-1])
    for (name, (L_o, *_)), col in zip(opt_runs.items(), cols):
        a.plot(t_all, np.median(L_o, axis=0), color=col, label=name)
        census = opt_census[name]
        b.plot(t_census, np.nanmedian(census["mixed"], axis=0), color=col, label=name)
        b.plot(t_census, np.nanmedian(census["single"], axis=0), color=col, ls="--")
    gd = np.median(L_reln, axis=0)
    a.plot(t_all, gd, color=COLORS["mixed"], ls="--", lw=1, label="ReLN (GD)")
    a.set(yscale="log", xlabel="epoch", ylabel="summed loss")
    a.legend(fontsize=8)
    b.set(xlabel="epoch", ylabel="share of the snapped output")
    b.legend(fontsize=8)
    _show()


def _phase_curves(maps, ctx_names):
    Wc = np.asarray(maps["common"])
    dist = np.linalg.norm(Wc - Wc[-1], axis=(1, 2)) / np.linalg.norm(Wc[-1])
    norm = sum(np.linalg.norm(np.asarray(maps[n]), axis=(1, 2)) for n in ctx_names)
    return dist, norm / norm[-1]


def plot_separation(maps, race_maps, ctx_names, t_reln, t_common, L_reln, preds):
    """Figure ``fig-reviewers-separation``: the common pathway's distance to its final
    map and the context pathways' norm over its final, simulated (median over seeds)
    and one-way race (dashed), ``t_common`` marked (left); the simulated ReLN's loss
    against the races' ``preds`` (right)."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8))
    sim = np.array([_phase_curves(m, ctx_names) for m in maps])
    race_c = _phase_curves(race_maps, ctx_names)
    common, ctx = COLORS["common"], COLORS["mixed"]
    med = np.median(sim, axis=0)
    a.plot(t_reln, med[0], color=common, label="common: distance to final")
    a.plot(t_reln, med[1], color=ctx, label="context: norm / final")
    a.plot(t_reln, race_c[0], color=common, ls="--")
    a.plot(t_reln, race_c[1], color=ctx, ls="--")
    a.axvline(t_common, color="0.4", lw=0.8)
    a.set_xlabel("epoch")
    a.legend(fontsize=8)
    loss_curves(b, L_reln, "ReLN (simulated)", COLORS["mixed"])
    t_all = np.arange(np.shape(L_reln)[-1])
    for (name, p), ls in zip(preds.items(), ["--", ":", "-."]):
        b.plot(t_all, p.loss, color=COLORS["prediction"], ls=ls, label=name)
    b.legend(fontsize=8)
    _show()
