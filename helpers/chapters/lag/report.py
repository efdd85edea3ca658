"""The records, glue, reading and closing table of the page *Where the lag comes from*
(``book/lag.md``), from its runs (:class:`helpers.chapters.lag.measures.Runs`) and their
comparison with the ReLU network (:func:`helpers.chapters.lag.measures.compare`)."""

from __future__ import annotations

import numpy as np
from IPython.display import Markdown

from ...book import kit
from ...book.records import claims_table
from ...book.rulebook import holds
from ...core.measures import LEVELS, Evidence, seed_spread
from .measures import Comparison, Runs, compare, median_lag
from .networks import STEPS


def level_name(f: float) -> str:
    """A loss level (a fraction of the initial loss) in percent: ``"1 %"``."""
    return f"{100 * f:g} %"


def signed(v: float) -> str:
    """A change in percent with its sign, never ``-0.0 %``: two significant digits
    below 0.05 %."""
    if v and abs(v) < 0.05:
        return f"{v:+.2g} %"
    return f"{v:+.1f} %"


def share(x: float) -> str:
    """A share in whole percent, never ``0 %`` for a share that is not zero."""
    if x and abs(x) < 0.005:
        return f"{100 * x:.2g} %"
    return f"{x:.0%}"


def pct(log_lag) -> float | None:
    """A log lag ``ln(t_b / t_a)`` as percent, ``100 (e^x - 1)`` rounded to 0.01;
    None for ``nan``."""
    x = float(log_lag)
    return None if np.isnan(x) else round(100.0 * float(np.expm1(x)), 2)


def _med_lag(lag) -> list:
    """Median over seeds of ``(S, levels)`` log lags, per level, as percent (None where
    a seed does not reach the level)."""
    return [None if np.isnan(m) else pct(m) for m in median_lag(lag)]


def _lags_dict(lag) -> dict:
    return {f"lag at {level_name(f)}": v for f, v in zip(LEVELS, _med_lag(lag))}


def _within(m) -> bool:
    return holds("seed_noise", m.value, spread=m.spread) is True


def _row(c: Comparison, name: str) -> dict:
    m = c.fit[name]
    return {
        "time gap": m.value,
        "seed spread": m.spread,
        "within seed noise": _within(m),
        **_lags_dict(c.lags[name]),
    }


def _gates_row(move, i) -> dict:
    """The ReLU network's gates at record ``i``, median over seeds."""
    return {
        "item-dependent weight": float(np.median(move["item_dependent"][:, i])),
        "gates off the context pattern": float(np.median(move["off_pattern"][:, i])),
        "gates still to change": float(np.median(move["to_final"][:, i])),
    }


def _frozen_record(runs: Runs, c: Comparison, key: str) -> Evidence:
    rows = {f"epoch {e}": _row(c, f"{key}@{e}") for e in runs.freeze_epochs}
    return Evidence(rows, spread=c.fit["reln"].spread)


_FROZEN_NOTE = (
    "the ReLU network with {what} at each epoch, started from its own initial "
    "weights, vs the ReLU network: time gap (median over seeds), two-sample "
    "seed spread, whether within the rulebook's seed noise, signed lag in "
    "percent at each level (median; positive: later than the ReLU network); "
    "the record's spread is the ReLN's (reln_lag)"
)


def _records(runs: Runs, c: Comparison) -> list:
    """The page's records as ``(name, evidence, note)``."""
    ladder, move = list(c.step), runs.move
    idx = [int(np.flatnonzero(runs.t_rec == e)[0]) for e in runs.freeze_epochs]
    lags = ", ".join(
        f"{k[7:]} {signed(v)}"
        for k, v in _lags_dict(c.lags["reln"]).items()
        if v is not None
    )
    return [
        (
            "reln_lag",
            c.fit["reln"],
            "time gap, ReLU network vs the 7-pathway ReLN (one-way, the authors' "
            f"start), median over {len(runs.relu)} seeds, with the two-sample seed "
            f"spread; signed lag at each level (median over seeds): {lags}",
        ),
        (
            "frozen_gates",
            _frozen_record(runs, c, "frozen"),
            _FROZEN_NOTE.format(what="its own gates frozen"),
        ),
        (
            "snapped_gates",
            _frozen_record(runs, c, "snapped"),
            _FROZEN_NOTE.format(what="its own gates frozen and snapped to contexts"),
        ),
        (
            "lag_ladder",
            Evidence({k: _row(c, k) for k in ladder}, spread=c.fit["reln"].spread),
            "each rung against the ReLU network (each changes one thing from the rung "
            "before; all but the last start from the ReLU network's weights): "
            "time gap, two-sample seed spread, signed lag in percent per level",
        ),
        (
            "lag_steps",
            {k: _lags_dict(c.step[k]) for k in ladder},
            "what each step of the ladder adds to the lag, percent per level (median "
            "over seeds of the difference of log lags; per seed the steps add up to "
            "the ReLN's lag)",
        ),
        (
            "within_context_gating",
            Evidence(
                {
                    f"epoch {e}": _gates_row(move, i)
                    for e, i in zip(runs.freeze_epochs, idx)
                },
                spread=seed_spread(move["item_dependent"][:, -1]),
            ),
            "the ReLU network's gates at each freeze epoch, median over seeds: share "
            "of weight in units whose gating differs between items of one context; "
            "weighted share of gates off the unit's context pattern; weighted share "
            "of gates that differ from the final ones; spread: the final "
            "item-dependent share's",
        ),
    ]


def _sentence_levels(lag) -> str:
    parts = [
        f"{signed(v)} at {level_name(f)}"
        for f, v in zip(LEVELS, _med_lag(lag))
        if v is not None
    ]
    return ", ".join(parts)


def _first_from(flags, epochs):
    """The first epoch from which every later flag holds; None if the last fails."""
    first = None
    for e, ok in zip(epochs, flags):
        first = (e if first is None else first) if ok else None
    return first


def _frozen_reading(runs: Runs, c: Comparison, key: str, what: str) -> str:
    reln = c.fit["reln"]
    E = list(runs.freeze_epochs)
    gaps = [c.fit[f"{key}@{e}"].value for e in E]
    closer = _first_from([g < reln.value for g in gaps], E)
    within = _first_from([_within(c.fit[f"{key}@{e}"]) for e in E], E)
    first = [_med_lag(c.lags[f"{key}@{e}"])[0] for e in E]
    sign = (
        "ahead of"
        if all(v is not None and v < 0 for v in first)
        else "behind"
        if all(v is not None and v > 0 for v in first)
        else "on either side of"
    )
    text = (
        f"With {what}, the network runs {sign} the ReLU network at the first level "
        f"({', '.join(f'{signed(v)}' for v in first if v is not None)} for freeze "
        f"epochs {', '.join(map(str, E))}; time gaps "
        f"{', '.join(f'{g:.3f}' for g in gaps)}). "
    )
    some = [e for e, g in zip(E, gaps) if g < reln.value]
    if closer is not None:
        text += (
            f"From epoch {closer} on it is closer to the ReLU network than the ReLN "
            f"({reln.value:.3f}), "
            + (
                f"and within the seed noise from epoch {within} on. "
                if within is not None
                else "though never within the seed noise. "
            )
        )
    elif some:
        text += (
            "It comes closer to the ReLU network than the ReLN "
            f"({reln.value:.3f}) only when frozen at epoch "
            f"{', '.join(map(str, some))}, not from any epoch to the end. "
        )
    else:
        text += (
            "At no freeze epoch does it come as close to the ReLU network as the "
            f"ReLN ({reln.value:.3f}). "
        )
    return text


def _ladder_reading(c: Comparison) -> tuple[str, str]:
    steps = {k: _med_lag(v) for k, v in c.step.items()}
    n = len(LEVELS)
    usable = [i for i in range(n) if all(v[i] is not None for v in steps.values())]
    if not usable:
        return "No loss level is reached by every network of the ladder. ", ""
    i0 = usable[0]
    pos = {k: v[i0] for k, v in steps.items() if v[i0] > 0}
    neg = {k: v[i0] for k, v in steps.items() if v[i0] < 0}
    order = sorted(steps, key=lambda k: -abs(steps[k][i0]))

    def say(d):
        return "; ".join(f"{STEPS[k]} ({signed(d[k])})" for k in sorted(d, key=d.get))

    first = (
        f"Step by step, at the {level_name(LEVELS[i0])} level, what slows the network "
        f"down is {say(pos) or 'nothing'}, and what speeds it up is "
        f"{say(neg) or 'nothing'}; the largest step is {STEPS[order[0]]}. "
    )
    rest = ""
    late = usable[-1]
    if late != i0:
        big = max(steps, key=lambda k: steps[k][late])
        rest = (
            f"At the {level_name(LEVELS[late])} level the step that slows it most is "
            f"{STEPS[big]} ({signed(steps[big][late])}). "
        )
    return first, rest


def _short(runs: Runs, c: Comparison) -> str:
    """The answer in three sentences: whether the ReLU network's own gates close the
    lag, and which steps of the ladder make it, at the first and at the last level
    every rung reaches."""
    reln = c.fit["reln"].value
    E = list(runs.freeze_epochs)
    gaps = {e: c.fit[f"frozen@{e}"].value for e in E}
    closer = [e for e in E if gaps[e] < reln]
    if closer:
        text = (
            "The ReLU network's own gates, frozen, come closer to it than the ReLN "
            f"when frozen at epoch {', '.join(map(str, closer))}. "
        )
    else:
        text = (
            "The ReLU network's own gates, frozen at any of epochs "
            f"{', '.join(map(str, E))}, do not close the lag: the frozen network is "
            f"farther from the ReLU network than the ReLN (time gaps "
            f"{min(gaps.values()):.2f} to {max(gaps.values()):.2f}). "
        )
    steps = {k: _med_lag(v) for k, v in c.step.items()}
    usable = [
        i for i in range(len(LEVELS)) if all(v[i] is not None for v in steps.values())
    ]
    for i in dict.fromkeys([usable[0], usable[-1]]) if usable else []:
        up = max(steps, key=lambda k: steps[k][i])
        down = min(steps, key=lambda k: steps[k][i])
        text += (
            f"At the {level_name(LEVELS[i])} level the lag is "
            f"made by {STEPS[up]} ({signed(steps[up][i])}), against "
            f"{STEPS[down]} ({signed(steps[down][i])}). "
        )
    return text


def reading(runs: Runs, c: Comparison) -> dict:
    """The page's answers, from the numbers the records hold.

    Defined for the page book/lag.md.

    Args:
        runs, c: the page's runs and their comparison (:func:`compare`).

    Returns:
        ``{"short": the "In short" box, "reading": the reading after the figures}``,
        both Markdown.
    """
    reln = c.fit["reln"]
    lo, hi = reln.spread_interval
    head = (
        f"The 7-pathway ReLN lags the ReLU network by "
        f"{_sentence_levels(c.lags['reln'])} (time gap {reln.value:.3f}; two-sample "
        f"seed spread {reln.spread:.3f}, 90 % interval {lo:.3f}-{hi:.3f}). "
    )
    M = runs.move
    item = np.median(M["item_dependent"], axis=0)
    low = int(np.argmin(item))
    gates = (
        "The ReLU network's gating is item by item within a context for "
        f"{share(item[0])} of its weight at epoch {runs.t_rec[0]}, for "
        f"{share(item[low])} at epoch {runs.t_rec[low]} (the units that carry the "
        f"weight are on in whole contexts), and for {share(item[-1])} at the end, when "
        f"{np.median(M['off_pattern'][:, -1]):.1%} of its weighted gates sit off "
        "their unit's context pattern. "
    )
    first, rest = _ladder_reading(c)
    body = (
        head
        + _frozen_reading(runs, c, "frozen", "its own gates frozen")
        + _frozen_reading(runs, c, "snapped", "the same gates snapped to contexts")
        + first
        + rest
    )
    short = head + _short(runs, c)
    return {"short": short, "reading": "**Reading.** " + body + gates}


def _summary(R: dict) -> str:
    return claims_table(
        [
            ("The ReLN's lag behind the ReLU network", "—", R["reln_lag"]),
            ("The ReLU network's own gates, frozen", "—", R["frozen_gates"]),
            ("The same gates snapped to contexts", "—", R["snapped_gates"]),
            ("The ladder from the ReLU network to the ReLN", "—", R["lag_ladder"]),
            ("What each step adds to the lag", "—", R["lag_steps"]),
            ("How the gates move within a context", "—", R["within_context_gating"]),
        ]
    )


def lag_table(lags: dict, labels: dict) -> str:
    """Markdown table of signed lags in percent per loss level, median over seeds.

    Defined for the page book/lag.md.

    Args:
        lags: ``{name: (S, levels)}`` log lags (:func:`level_lags`).
        labels: ``{name: row label}``; ``"frozen@e"`` reads "own gates frozen at
            epoch e".

    Returns:
        The table; "—" where a level is not reached.
    """
    rows = []
    for name, lag in lags.items():
        kind, _, e = name.partition("@")
        label = labels.get(name, f"own gates {kind} at epoch {e}" if e else name)
        cells = [
            "—" if np.isnan(m) else f"{100 * np.expm1(m):+.1f} %"
            for m in median_lag(lag)
        ]
        rows.append([label, *cells])
    return kit.table(rows, ["network", *(f"{100 * f:g} % of L(0)" for f in LEVELS)])


def report(rec, runs: Runs) -> dict:
    """Write the page's records and glue, and build its reading and closing table.

    Defined for the page book/lag.md.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records`.
        runs: the page's runs; they are compared by :func:`compare`, as the page does.

    Returns:
        ``{"records": {name: stored record}, "reading": the reading as Markdown,
        "short": the answer of the "In short" box, "summary": the closing table}``;
        the records are saved.
    """
    c = compare(runs)
    R = kit.add_all(rec, _records(runs, c))
    text = reading(runs, c)
    t = runs.t_rec
    kit.glue_many(
        "lag",
        in_short=Markdown(text["short"]),
        reln_gap=c.fit["reln"].value,
        spread=c.fit["reln"].spread,
        seeds=len(runs.relu),
        freeze_epochs=", ".join(map(str, runs.freeze_epochs)),
        epochs=int(t[-1]),
        record_every=int(t[1] - t[0]) if len(t) > 1 else 0,
    )
    rec.save()
    return {
        "records": R,
        "reading": text["reading"],
        "short": text["short"],
        "summary": _summary(R),
    }
