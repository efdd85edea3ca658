"""The bottom line at a glance: one figure, a row per claim of the paper grouped by
section, its deciding number in units of the threshold between "reproduced" and the
rest (:func:`helpers.book.rulebook.thresholds`; left of 1 the claim holds, a
``beyond_noise`` claim drawn inverted).  Seed-noise claims carry the spread's
bootstrap interval, the alternative the paper argues against is a grey cross, a short
yellow line ends "partly reproduced"; the marker's colour is the verdict's, hollow
where it depends on a choice or on rounding; an ``exact`` claim sits at the left end
when it matches, else at the right.  Drawn from the records alone (a run's site shows
the run's).  On the intro page and the scorecard (``book/scorecard.md``).
"""

from __future__ import annotations

import base64
import io

import numpy as np

from . import rulebook, scorecard

#: The verdicts' colours (the badges' hues).
COLOURS = {
    "reproduced": "#2e7d32",
    "partly reproduced": "#e0a800",
    "not reproduced": "#c62828",
    "undecided": "#1f77b4",
    "not testable": "#7f7f7f",
}
#: The x range shown, in units of the threshold; beyond it a marker sits at the edge.
LIMITS = (0.03, 100.0)


def _clip(x: float) -> float:
    return float(np.clip(x, *LIMITS))


def positions(records: dict) -> list[dict]:
    """Each claim's row of the figure, in the scorecard's order: ``name``, ``label``,
    ``group``, ``verdict``, ``x`` (the deciding number over its threshold), and the
    x of ``interval`` (lo, hi), ``alternative`` and ``partly`` (or None), all clipped
    to :data:`LIMITS`, and ``hollow`` (the verdict depends on a choice)."""
    rows = []
    order = {g: i for i, g in enumerate(scorecard.GROUPS)}
    claims = sorted(
        scorecard.claims(records),
        key=lambda c: order.get(c[2].get("group"), len(order)),
    )
    for _, name, r, _ in claims:
        crit = r.get("criterion")
        value, paper = r.get("value"), r.get("paper")
        spread, alt = r.get("spread"), r.get("alternative")
        pairs = rulebook.thresholds(crit, value, paper, spread, alt)
        x = interval = alt_x = partly = None
        if pairs and pairs[0][1] > 0:
            q, t = pairs[0]
            x = q / t
            if len(pairs) > 1 and pairs[1][1] > 0:
                partly = pairs[1][1] / t
            iv = r.get("spread_interval")
            if crit in rulebook.NOISE_CRITERIA and isinstance(iv, list) and min(iv) > 0:
                k = rulebook.NOISE_MULTIPLE
                d = abs(value - paper) if crit == "near" else q
                interval = (d / (k * max(iv)), d / (k * min(iv)))
            if crit == "seed_noise" and rulebook._number(alt):
                alt_x = alt / t
            if crit == "beyond_noise":  # a clear deviation holds right of 1: invert
                x = t / q if q > 0 else LIMITS[1]
                if interval is not None:
                    interval = (1 / interval[1], 1 / interval[0])
        elif crit == "exact":
            x = LIMITS[0] if r["verdict"] == "reproduced" else LIMITS[1]
        rows.append(
            {
                "name": name,
                "label": scorecard._label(r),
                "group": r.get("group") or "Other",
                "verdict": r["verdict"],
                "x": None if x is None else _clip(x),
                "interval": None if interval is None else tuple(map(_clip, interval)),
                "alternative": None if alt_x is None else _clip(alt_x),
                "partly": None if partly is None else _clip(partly),
                "hollow": bool(r.get("depends_on")),
            }
        )
    return rows


def _short(text: str, n: int = 44) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def figure(records: dict):
    """``(fig, rows)``: the figure (read at 390 px wide) and :func:`positions`."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    rows = positions(records)
    n = len(rows)
    height = 1.4 + 0.32 * n
    fig, ax = plt.subplots(figsize=(4.6, height), dpi=100)
    ax.set_xscale("log")
    ax.set_xlim(*LIMITS)
    ax.set_ylim(n - 0.5, -0.5)
    ax.axvspan(LIMITS[0], 1.0, color=COLOURS["reproduced"], alpha=0.07, lw=0)
    ax.axvline(1.0, color="#444444", lw=1)
    groups = []
    for i, row in enumerate(rows):
        if not groups or groups[-1][0] != row["group"]:
            groups.append((row["group"], i))
            if i:
                ax.axhline(i - 0.5, color="#bbbbbb", lw=0.6)
        y, c = i, COLOURS.get(row["verdict"], "#7f7f7f")
        if row["partly"] is not None:
            ax.plot([row["partly"]] * 2, [y - 0.2, y + 0.25], color="#e0a800", lw=1)
        if row["alternative"] is not None:
            ax.plot(row["alternative"], y, "x", color="#888888", ms=5, mew=1.2)
        if row["interval"] is not None:
            ax.plot(row["interval"], [y, y], color=c, lw=1.4, alpha=0.8)
        if row["x"] is not None:
            mfc = "white" if row["hollow"] else c
            dot = dict(ms=7, mew=1.8, color=c, mfc=mfc, clip_on=False, zorder=3)
            ax.plot(row["x"], y, "o", **dot)
    ax.set_yticks([])
    label = dict(fontsize=8, va="bottom", ha="left", color="#222222")
    for i, row in enumerate(rows):
        ax.text(LIMITS[0] * 1.08, i - 0.22, _short(row["label"], 52), **label)
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("deciding number / its threshold (left of 1: holds)", fontsize=8.5)
    side = dict(ha="left", va="top", fontsize=7.5, rotation=-90, color="#555555")
    for g, i in groups:
        ax.text(1.03, i - 0.5, g, transform=ax.get_yaxis_transform(), **side)
    dots = [
        Line2D([], [], ls="", marker="o", color=COLOURS[v], label=v, ms=5)
        for v in ("reproduced", "partly reproduced", "not reproduced", "undecided")
    ]
    choice = dict(mfc="white", color="#444444", ms=5, label="depends on a choice")
    dots += [
        Line2D([], [], ls="", marker="o", **choice),
        Line2D([], [], ls="", marker="x", color="#888888", label="alternative"),
    ]
    legend = dict(loc="lower center", ncol=2, fontsize=8, handletextpad=0.3)
    fig.legend(handles=dots, columnspacing=0.8, **legend)
    fig.tight_layout(rect=(0, 0.8 / height, 0.95, 1))
    return fig, rows


def alt_text(records: dict) -> str:
    """The figure's alternative text: what it shows and the counts."""
    c = scorecard.counts(records)
    rows = positions(records)
    hollow = sum(r["hollow"] for r in rows)
    said = ", ".join(f"{c[v]} {v}" for v in scorecard.COUNTED if c.get(v))
    return (
        f"The paper's {len(rows)} claims, one row each, their deciding number in units "
        f"of the threshold they are judged against: {said}; {hollow} depend on a "
        "choice of this book or on rounding."
    )


def html(records: dict) -> str:
    """The figure as an HTML image, a PNG inside the page with :func:`alt_text`."""
    import matplotlib.pyplot as plt

    fig, _ = figure(records)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=150, metadata={"Software": None})
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode()
    alt = alt_text(records).replace('"', "&quot;")
    return (
        f'<img class="glance" src="data:image/png;base64,{data}" alt="{alt}" '
        'style="width:100%;max-width:400px;height:auto">'
    )
