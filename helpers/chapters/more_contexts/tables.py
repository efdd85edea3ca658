"""The tables of the page book/more_contexts.md (:func:`helpers.book.kit.table`)."""

import numpy as np

from ...book import kit
from ...core.families import family_name


def settings_table(CS, DS, HIDDEN, CVAL) -> str:
    """The task's settings per C: datapoints, ReLU width and the on context input."""
    rows = [(C, DS[C].P, HIDDEN[C], f"{CVAL[C]:g}") for C in CS]
    return kit.table(rows, ("C", "datapoints", "ReLU width", "context input"))


def class_curve_table(relu: dict, race: dict) -> str:
    """Per C and k/C: the ReLU census share (``relu``: ``{C: (seeds, C + 1)}``; median,
    range over seeds) and the race reduction's, classes under 0.005 in both left out."""
    rows = []
    for C, shares in relu.items():
        for k, s in enumerate(np.asarray(shares).T[1:], 1):
            med, r = np.median(s), race[C][k] if C in race else None
            if med < 0.005 and (r is None or r < 0.005):
                continue
            census = f"{med:.3f} ({s.min():.3f}-{s.max():.3f})"
            r = "—" if r is None else f"{r:.3f}"
            rows.append((C, f"{k}/{C} = {k / C:.2f}", census, r))
    heads = ("C", "k/C", "ReLU census (median; range over seeds)", "race reduction")
    return kit.table(rows, heads)


def fit_table(fits: dict) -> str:
    """Per C (a :class:`.races.Fit`): each member's time gap (the paper's in bold, *
    trained per seed), the nearest, those tied with it and the nearest's seed spread."""
    rows = []
    for C, f in fits.items():
        paper = family_name([C - 1], C)
        cells = ", ".join(
            f"{f'**{n}**' if n == paper else n}{'*' if n in f.trained else ''} {g:.3f}"
            for n, g in sorted(f.gaps.items(), key=lambda item: item[1])
        )
        rows.append((C, cells, f.best, ", ".join(f.ties), f"{f.spreads[f.best]:.3f}"))
    heads = ("C", "time gap of each ReLN (common + ...; * trained)", "nearest")
    return kit.table(rows, (*heads, "tied within noise", "seed spread of the nearest"))
