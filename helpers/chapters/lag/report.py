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


def points(x) -> float | None:
    """A step in log points (already ``100 ln``), rounded to 0.01; None for ``nan``."""
    x = float(x)
    return None if np.isnan(x) else round(x, 2)


def _points_dict(step) -> dict:
    return {f"at {level_name(f)}": points(v) for f, v in zip(LEVELS, step)}


def _rows(c: Comparison, rows: dict) -> Evidence:
    """``{row label: network}`` as one record's evidence (the ReLN's spread)."""
    return Evidence(
        {k: _row(c, n) for k, n in rows.items()}, spread=c.fit["reln"].spread
    )


_STATE_NOTE = (
    "the ReLU network's {what} at each freeze epoch, trained on from the network's "
    "own weights at that epoch (the epochs before are the ReLU network's own), vs "
    "the ReLU network: time gap (median over seeds), two-sample seed spread, whether "
    "within the rulebook's seed noise, signed lag in percent at each level (median; "
    "positive: later; 0 at the levels passed before the freeze); the record's "
    "spread is the ReLN's (reln_lag)"
)


def _records(runs: Runs, c: Comparison) -> list:
    """The page's records as ``(name, evidence, note)``."""
    ladder, move, S = list(c.step), runs.move, runs.state_epochs
    idx = [int(np.flatnonzero(runs.t_rec == e)[0]) for e in runs.freeze_epochs]
    lags = ", ".join(
        f"{k[7:]} {signed(v)}"
        for k, v in _lags_dict(c.lags["reln"]).items()
        if v is not None
    )
    E = runs.freeze_epochs
    restart = {f"own gates of epoch {e}": f"restart frozen@{e}" for e in E}
    restart |= {f"snapped, of epoch {e}": f"restart snapped@{e}" for e in E}
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
            _rows(c, {f"epoch {e}": f"frozen@{e}" for e in S}),
            _STATE_NOTE.format(what="own gates fixed"),
        ),
        (
            "snapped_gates",
            _rows(c, {f"epoch {e}": f"snapped@{e}" for e in S}),
            _STATE_NOTE.format(what="own gates fixed and snapped to contexts"),
        ),
        (
            "random_gates",
            _rows(
                c,
                {"from the initial weights": "restart random"}
                | {f"from epoch {e}": f"random@{e}" for e in runs.random},
            ),
            "the control: random gates (each unit on for a random half of the "
            "datapoints, seeded by the seed), fixed from the ReLU network's initial "
            "weights and from its state at each freeze epoch, vs the ReLU network: "
            "time gap, two-sample seed spread, signed lag in percent per level",
        ),
        (
            "restart_gates",
            _rows(c, restart),
            "fixed gates from the start: the ReLU network's own gates of each freeze "
            "epoch (and snapped to contexts), trained from its initial weights, vs "
            "the ReLU network: time gap, two-sample seed spread, signed lag in "
            "percent per level",
        ),
        (
            "lag_ladder",
            _rows(c, {k: k for k in ladder}),
            "each rung against the ReLU network (each changes one thing from the rung "
            "before; all but the last start from the ReLU network's weights): "
            "time gap, two-sample seed spread, signed lag in percent per level",
        ),
        (
            "lag_steps",
            {k: _points_dict(c.step[k]) for k in ladder},
            "what each step of the ladder adds to the lag, in log points per level "
            "(100 times the difference of the median log lags of consecutive rungs); "
            "log points add: the steps sum to the ReLN's median log lag",
        ),
        (
            "within_context_gating",
            Evidence(
                {f"epoch {e}": _gates_row(move, i) for e, i in zip(E, idx)},
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
    return ", ".join(parts) or "no level every seed reaches"


def _first_from(flags, epochs):
    """The first epoch from which every later flag holds; None if the last fails."""
    first = None
    for e, ok in zip(epochs, flags):
        first = (e if first is None else first) if ok else None
    return first


def _deepest(c: Comparison, names) -> int | None:
    """The lowest loss level every seed of every named network reaches."""
    ok = [
        i
        for i in range(len(LEVELS))
        if all(not np.isnan(c.lags[n][:, i]).any() for n in names)
    ]
    return ok[-1] if ok else None


def _at(c: Comparison, name: str, i: int) -> str:
    """The median lag of a network at level ``i``, or that a seed never reaches it."""
    v = _med_lag(c.lags[name])[i]
    return "never within the run" if v is None else signed(v)


def _start_reading(c: Comparison) -> str:
    """The ladder's last step: the start."""
    i = _deepest(c, ["reln", "reln_relu_start"])
    if i is None:
        return ""
    return (
        "Started from the ReLU network's own initial weights, the ReLN as built lags "
        f"{_at(c, 'reln_relu_start', i)} at the {level_name(LEVELS[i])} level; "
        f"started as the authors start it, {_at(c, 'reln', i)}: the start moves the "
        f"lag by {c.step['reln'][i]:+.1f} log points there. "
    )


def _state_reading(runs: Runs, c: Comparison) -> str:
    """The ReLU network's own gates fixed at epoch e, from its state there."""
    E = runs.state_epochs
    i = _deepest(c, [f"frozen@{e}" for e in E] + ["reln"])
    if i is None:
        return "No level is reached by every network fixed from the state. "
    lv = level_name(LEVELS[i])
    lag = {e: _med_lag(c.lags[f"frozen@{e}"])[i] for e in E}
    ahead = _first_from([lag[e] <= 0 for e in E], E)
    text = (
        "Fixed at epoch e and trained on from the ReLU network's own weights there, "
        f"its own gates reach the {lv} level with a lag of "
        + ", ".join(f"{_at(c, f'frozen@{e}', i)} (e = {e})" for e in E)
        + f", against the ReLN's {_at(c, 'reln', i)}"
        + (
            f": from epoch {ahead} on its gating, fixed, is never behind the ReLU "
            "network that goes on moving its gates. "
            if ahead is not None
            else ". "
        )
        + "Snapped to contexts as well (no variation between the items of a "
        "context), they reach it "
        + ", ".join(f"{_at(c, f'snapped@{e}', i)} (e = {e})" for e in E)
        + ". "
    )
    return text


def _control_reading(runs: Runs, c: Comparison) -> str:
    """The random-gate control against the restarts."""
    end = runs.freeze_epochs[-1]
    i = _deepest(c, ["restart random", f"restart frozen@{end}"])
    if i is None:
        return ""
    lv = level_name(LEVELS[i])
    rand, own = _at(c, "restart random", i), _at(c, f"restart frozen@{end}", i)
    faster = (
        _med_lag(c.lags["restart random"])[i]
        <= _med_lag(c.lags[f"restart frozen@{end}"])[i]
    )
    return (
        "The control: random gates (each unit on for a random half of the "
        f"datapoints), fixed from the initial weights, reach the {lv} level with a "
        f"lag of {rand}, against {own} for the ReLU network's own final gates fixed "
        "from the same start. "
        + (
            "A network whose gates are fixed from the start is fast whatever the "
            "gates, so such restarts measure fixed gates, not the network's gating; "
            "the page reads the networks that go on from the state instead. "
            if faster
            else "Its own gates are faster than random ones from the same start. "
        )
    )


def _ladder_reading(c: Comparison) -> str:
    i = _deepest(c, list(c.step))
    if i is None:
        return "No loss level is reached by every network of the ladder. "
    lv = level_name(LEVELS[i])
    steps = {k: v[i] for k, v in c.step.items()}
    say = "; ".join(f"{STEPS[k]} {v:+.1f}" for k, v in steps.items())
    return (
        f"Along the ladder, in log points at the {lv} level (100 ln of the time "
        f"ratio; log points add, percentages do not): {say}; in all "
        f"{sum(steps.values()):+.1f}, the ReLN's lag ({_at(c, 'reln', i)}). The "
        "first two steps fix the gates from the start, which the control shows to "
        "be fast whatever the gates. "
    )


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
    start, state = _start_reading(c), _state_reading(runs, c)
    control = _control_reading(runs, c)
    body = head + start + state + control + _ladder_reading(c)
    short = head + start + state
    return {"short": short, "reading": "**Reading.** " + body + gates}


def _summary(R: dict) -> str:
    return claims_table(
        [
            ("The ReLN's lag behind the ReLU network", "—", R["reln_lag"]),
            ("Its own gates, fixed from its state", "—", R["frozen_gates"]),
            ("The same, snapped to contexts", "—", R["snapped_gates"]),
            ("The control: random gates", "—", R["random_gates"]),
            ("Fixed gates from the start (restarts)", "—", R["restart_gates"]),
            ("The ladder from the ReLU network to the ReLN", "—", R["lag_ladder"]),
            ("What each step adds to the lag", "—", R["lag_steps"]),
            ("How the gates move within a context", "—", R["within_context_gating"]),
        ]
    )


def net_label(name: str) -> str:
    """A network of :meth:`Runs.nets` in words: ``"snapped@400"`` reads "own gates
    snapped at epoch 400, from its state"."""
    kind, _, e = name.partition("@")
    if kind.startswith("restart "):
        kind = kind.removeprefix("restart ")
        if kind == "random":
            return "random gates, restarted"
        return (
            f"own gates of epoch {e}"
            + " snapped" * (kind == "snapped")
            + (", restarted")
        )
    what = {"frozen": "own gates fixed", "snapped": "own gates snapped"}
    return f"{what.get(kind, kind + ' gates')} at epoch {e}, from its state"


def lag_table(lags: dict, labels: dict) -> str:
    """Markdown table of signed lags in percent per loss level, median over seeds.

    Defined for the page book/lag.md.

    Args:
        lags: ``{name: (S, levels)}`` log lags (:func:`level_lags`).
        labels: ``{name: row label}``; the others read as :func:`net_label` says.

    Returns:
        The table; "—" where a level is not reached.
    """
    rows = []
    for name, lag in lags.items():
        label = labels.get(name) or net_label(name)
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
