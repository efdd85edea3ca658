"""The figures of the page *Where the lag comes from* (``book/lag.md``)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ...core.measures import LEVELS

_LAG = "lag behind the ReLU network (%)"


def _pct(x):
    return 100.0 * np.expm1(np.asarray(x, float))


def _reached(lag) -> list[int]:
    """The levels every seed of ``lag`` (seeds, levels) reaches."""
    return [i for i in range(len(LEVELS)) if not np.isnan(lag[:, i]).any()]


def _med_range(v, axis):
    """Median and range over seeds (``axis``); nan where a seed misses the level."""
    v = np.asarray(v, float)
    bad = np.isnan(v).any(axis=axis)
    filled = np.where(np.isnan(v), 0.0, v)
    med = np.where(bad, np.nan, np.median(filled, axis=axis))
    lo, hi = (np.where(bad, med, f(axis=axis)) for f in (filled.min, filled.max))
    return med, [np.nan_to_num(med - lo), np.nan_to_num(hi - med)]


def _spread(ax, spread) -> None:
    """The seed spread as a grey band about zero."""
    s = _pct(spread)
    ax.axhspan(-s, s, color="0.85", zorder=0, label="seed spread")
    ax.axhline(0, color="k", lw=0.8)


def ladder(relu_loss, losses: dict, lags: dict, labels: dict, spread: float) -> None:
    """Left: the median loss of the ReLU network and of each rung (log scale); right:
    each rung's signed lag per level (median, bars: range over seeds), the seed spread
    as a band. Defined for the page book/lag.md."""
    names = list(losses)
    colors = plt.cm.plasma(np.linspace(0.05, 0.85, len(names)))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.2))
    a1.semilogy(np.median(relu_loss, axis=0), color="k", lw=2, label="ReLU network")
    for c, n in zip(colors, names):
        a1.semilogy(np.median(losses[n], axis=0), color=c, lw=1.3, label=labels[n])
    a1.set(xlabel="epoch", ylabel="summed loss (median over seeds)")
    a1.legend(fontsize=7)
    keep = _reached(lags[names[-1]])  # the levels the ReLN reaches
    x, w = np.arange(len(keep)), 0.8 / len(names)
    for j, (c, n) in enumerate(zip(colors, names)):
        med, err = _med_range(_pct(lags[n][:, keep]), axis=0)
        xs = x + (j - (len(names) - 1) / 2) * w
        a2.bar(xs, np.nan_to_num(med), w, color=c, label=labels[n])
        a2.errorbar(xs, med, yerr=err, fmt="none", ecolor="0.3", lw=0.8)
    _spread(a2, spread)
    a2.set_xticks(x, [f"{100 * LEVELS[i]:g} % of L(0)" for i in keep])
    a2.set_ylabel(_LAG)
    plt.tight_layout()


def frozen(freeze_epochs, state_epochs, lags: dict, spread: float) -> None:
    """Signed lag behind the ReLU network against the freeze epoch, one panel per
    level, of each network fixed from the state or restarted, beside the ReLN and the
    seed spread (dots: median, bars: range over seeds). Defined for book/lag.md."""
    E = list(freeze_epochs)
    series = (
        ("frozen@", state_epochs, "-", "C0", 1.0, "own gates, from its state"),
        ("snapped@", state_epochs, "--", "C2", 1.0, "snapped, from its state"),
        ("random@", state_epochs, ":", "C1", 1.0, "random gates, from its state"),
        ("restart frozen@", E, "-", "C0", 0.35, "own gates, restarted"),
    )
    keep = _reached(lags["reln"])  # the levels the ReLN reaches
    fig, axes = plt.subplots(
        1, len(keep), figsize=(3.6 * len(keep), 3.6), squeeze=False
    )
    for ax, i in zip(axes[0], keep):
        for key, es, ls, col, alpha, label in series:
            es = [e for e in es if f"{key}{e}" in lags]
            med, err = _med_range([_pct(lags[f"{key}{e}"][:, i]) for e in es], axis=1)
            ax.errorbar(
                [E.index(e) for e in es], med, yerr=err, ls=ls, color=col, marker="o",
                capsize=2, alpha=alpha, label=label,
            )  # fmt: skip
        rand = np.median(_pct(lags["restart random"][:, i]))
        ax.axhline(rand, color="0.4", ls="-.", lw=1, label="random gates, restarted")
        ax.axhline(np.median(_pct(lags["reln"][:, i])), color="C3", label="ReLN")
        _spread(ax, spread)
        ax.set_xticks(range(len(E)), [str(e) for e in E])
        ax.set_title(f"{100 * LEVELS[i]:g} % of L(0)")
        ax.set_xlabel("epoch the gates are fixed at")
    axes[0][0].set_ylabel(_LAG)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    plt.tight_layout(rect=(0, 0.14, 1, 1))  # the legend below the panels


def gates(t_rec, move: dict, freeze_epochs) -> None:
    """How the ReLU network's gates move over training (median, band: range over
    seeds), the freeze epochs dotted. Defined for the page book/lag.md."""
    labels = {
        "item_dependent": "weight in units gated item by item within a context",
        "off_pattern": "gates off the unit's context pattern (weighted)",
        "to_final": "gates that differ from the final ones (weighted)",
    }
    fig, ax = plt.subplots(figsize=(8, 3.8))
    for (k, lab), col in zip(labels.items(), ("C0", "C1", "C2")):
        v = np.asarray(move[k])
        ax.plot(t_rec, np.median(v, axis=0), color=col, label=lab)
        ax.fill_between(t_rec, v.min(0), v.max(0), color=col, alpha=0.2, lw=0)
    for e in freeze_epochs:
        ax.axvline(e, color="0.5", ls=":", lw=0.8)
    ax.set(xlabel="epoch", ylabel="share", ylim=(0, 1.02))
    ax.legend(fontsize=7)
    plt.tight_layout()
