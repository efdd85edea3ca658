"""The tables of the page book/more_contexts.md, as Markdown
(:func:`helpers.book.kit.table`)."""

from __future__ import annotations

import numpy as np

from ...book import kit
from ...core.families import family_name


def settings_table(CS, DS, HIDDEN, CVAL) -> str:
    """The task's settings per C: datapoints, ReLU width and the on context input."""
    rows = [(C, DS[C].P, HIDDEN[C], f"{CVAL[C]:g}") for C in CS]
    return kit.table(rows, ("C", "datapoints", "ReLU width", "context input"))


def class_curve_table(relu: dict, race: dict) -> str:
    """Per C: the ReLU network's final census share by the fraction k/C of the
    contexts a unit is on in (median over seeds, with the range over seeds) and the
    race reduction's prediction where it was integrated."""
    rows = []
    for C, shares in relu.items():
        shares = np.asarray(shares)  # (seeds, C + 1)
        for k in range(1, C + 1):
            med = np.median(shares[:, k])
            if med < 0.005 and (C not in race or race[C][k] < 0.005):
                continue
            lo, hi = shares[:, k].min(), shares[:, k].max()
            r = f"{race[C][k]:.3f}" if C in race else "—"
            rows.append(
                (C, f"{k}/{C} = {k / C:.2f}", f"{med:.3f} ({lo:.3f}-{hi:.3f})", r)
            )
    heads = ("C", "k/C", "ReLU census (median; range over seeds)", "race reduction")
    return kit.table(rows, heads)


def fit_table(fits: dict) -> str:
    """The family fits (:class:`helpers.chapters.more_contexts.races.Fit` per C), one
    row per C: every member's time gap to the ReLU network (the paper's (C-1)-of-C in
    bold, a member trained per seed marked *), the nearest, the members tied with it
    within noise and the nearest one's yardstick."""
    rows = []
    for C, f in fits.items():
        paper = family_name([C - 1], C)

        def cell(n, g):
            star = "*" if n in f.trained else ""
            return f"**{n}**{star} {g:.3f}" if n == paper else f"{n}{star} {g:.3f}"

        cells = ", ".join(cell(n, g) for n, g in sorted(f.gaps.items(), key=_second))
        rows.append((C, cells, f.best, ", ".join(f.ties), f"{f.spreads[f.best]:.3f}"))
    heads = ("C", "time gap of each ReLN (common + ...; * trained)", "nearest")
    return kit.table(rows, (*heads, "tied within noise", "seed spread of the nearest"))


def _second(item):
    return item[1]
