"""The depth chapter's figures (page ``book/depth.md``), each drawn on the Matplotlib
axes the page makes, in the colours :func:`colours` picks from the book's palette."""

from __future__ import annotations

import numpy as np

from .gating import appearance_epoch
from .tables import INIT_NAME


def colours(palette: dict) -> dict:
    """The chapter's colours (networks, initialisations, census classes)."""
    names = dict(relu="relu", hand="reln", derived="prediction", matched="linear")
    names.update({c: c for c in ("common", "mixed", "single")})
    col = {k: palette[p] for k, p in names.items()} | {"other": "#dddddd"}
    init = {"authors": "hand", "matched": "matched", "derived": "derived"}
    return {**col, "init": {i: col[k] for i, k in init.items()}}


def inits(axes, relu_loss, init_loss, init_rows, limit, col):
    """Fig. *How the GDLN starts*: loss curves, and time gaps against ``limit``."""
    t = np.arange(np.shape(relu_loss)[1])
    for L in relu_loss:
        axes[0].plot(t, L, color=col["relu"], lw=0.8, alpha=0.5)
    for c, L in init_loss.items():
        for k, x in enumerate(L):
            lab = INIT_NAME[c] if k == 0 else None
            axes[0].plot(t, x, color=col["init"][c], lw=0.9, alpha=0.7, label=lab)
    axes[0].set(yscale="log", xlabel="epoch", ylabel="summed loss")
    axes[0].legend(fontsize=8)
    names = list(init_rows)
    gaps = [init_rows[i]["gap_runs"] for i in names]
    axes[1].bar(range(len(names)), gaps, color=[col["init"][i] for i in names])
    axes[1].axhline(limit, color="k", ls="--", lw=1)
    axes[1].set_xticks(range(len(names)), names)
    axes[1].set_ylabel("time gap to the ReLU runs")


def census(axes, relu, col):
    """Fig. *The ReLU network's gating over training*: layer 1, layer 2, the loss."""
    grid, ax, lin2 = relu.grid, axes[0], relu.linear_l2_change
    lines = [(relu.always_on[:, :, 0], "k", "on for every datapoint")]
    lines.append((relu.linear_l1_change, col["hand"], "output change if linear"))
    for Y_, c, lab in lines:
        for row in Y_:
            ax.plot(grid, row, color=c, lw=0.6, alpha=0.4)
        ax.plot(grid, np.median(Y_, axis=0), color=c, lw=2, label=lab)
    ax.set(title="layer 1", xlabel="epoch", ylim=(0, 1.05))
    ax.legend(fontsize=7, loc="center right")
    ax, classes = axes[1], ("common", "mixed", "single", "other")
    shares = {c: relu.functional(c) for c in classes}
    ok_t = np.all(np.isfinite(shares["common"]), axis=0)
    means = [np.nanmean(shares[c], axis=0)[ok_t] for c in classes]
    colors, labels = [col[c] for c in classes], ["common", "2-of-3", "single", "other"]
    ax.stackplot(grid[ok_t], *means, colors=colors, labels=labels, alpha=0.85)
    snap2 = np.median(relu.functional("snap_change"), axis=0)
    ax.plot(grid, snap2, "k--", lw=1.5, label="change if snapped")
    ax.plot(grid, np.median(lin2, axis=0), "k:", lw=1.5, label="change if linear")
    ax.set(ylim=(0, 1.2), title="layer 2 (functional)", xlabel="epoch")
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    axes[2].plot(np.median(relu.loss, axis=0), color=col["relu"])
    axes[2].set(yscale="log", xlabel="epoch", ylabel="summed loss")


def schedule(axes, relu, gh, gd, hand, derived, theta, col):
    """Fig. *The two schedules*: loss curves, and layer 2's classes' weight."""
    i_r, i_g, i_d = relu.stereotype(), gh.stereotype(), gd.stereotype()
    L0, ax = relu.loss[0, 0], axes[0]
    for k, L in enumerate(relu.loss):
        bold = k == i_r
        ax.plot(L, color=col["relu"], alpha=1 if bold else 0.2, lw=2 if bold else 0.7)
    ax.plot(gh.loss[i_g], color=col["hand"], lw=1.5, label="GDLN, hand-set")
    for k, L in enumerate(gd.loss):
        a, w, lab = (1, 1.5, "GDLN, derived") if k == i_d else (0.3, 0.7, None)
        ax.plot(L, color=col["derived"], alpha=a, lw=w, label=lab)
    for s, c, ls in [(hand, col["hand"], ":"), (derived, col["derived"], "--")]:
        for t in s.as_list():
            ax.axvline(t, color=c, ls=ls, lw=1)
    ax.set(yscale="log", ylim=(1e-3 * L0 / 2, 2 * L0))  # to the time gap's lowest level
    ax.set(xlabel="epoch", ylabel="summed loss")
    ax.legend()
    ax = axes[1]
    for runs, c in [(relu, col["relu"]), (gh, col["hand"])]:
        for cls, ls in [("common", "-"), ("mixed", "--")]:
            for m in runs.class_mass(1, cls):
                ax.plot(runs.grid, m, color=c, ls=ls, lw=0.8, alpha=0.6)
                t_app = appearance_epoch(m, runs.grid, theta)
                ax.plot([t_app], [theta], "o", color=c, ms=3)
    ax.axhline(theta, color="0.5", lw=0.8)
    ax.set(yscale="log", ylim=(1e-3, None))
    ax.set(xlabel="epoch", ylabel="weight of the class (layer 2)")


def drops(ax, drop_epochs: dict, names, col):
    """Fig. *Epoch of each drop*: one dot per run and drop, for each network."""
    keys = [("relu", "ReLU"), ("hand", "GDLN, hand-set"), ("derived", "GDLN, derived")]
    for j, (k, lab) in enumerate(keys):
        if k not in drop_epochs:
            continue
        for dk, x in enumerate(drop_epochs[k].T):
            y, lab_ = np.full(x.shape, dk + 0.22 * (j - 1)), lab if dk == 0 else None
            ax.plot(x, y, "o", color=col[k], ms=4, alpha=0.7, label=lab_)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set(xlabel="epoch of the drop", ylabel="drop (loss levels)")
    ax.legend(fontsize=8)


def outputs(axes, shown, Y):
    """Fig. *Outputs at the plateaus* (``shown``: level, ReLU and GDLN outputs)."""
    for row, (lv, a, b) in enumerate(shown):
        for c, (M, lab) in enumerate([(a, "ReLU"), (b, "GDLN"), (Y, "target Y")]):
            ax = axes[row, c]
            ax.grid(False)
            if M is None:
                ax.axis("off")
                continue
            kw = {"cmap": "viridis", "aspect": "auto", "interpolation": "nearest"}
            ax.imshow(M, vmin=-0.2, vmax=1.2, **kw)
            ax.set(xticks=[], yticks=[])
            ax.set_title(f"{lab}, plateau {lv:.0f}" if c < 2 else lab, fontsize=9)
