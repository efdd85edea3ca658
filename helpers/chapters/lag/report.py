"""The records, glue, reading and closing table of the page *Where the lag comes from*
(``book/lag.md``), from what the page computed (:class:`Results`)."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ...book.notebook import glue
from ...book.records import claims_table
from ...book.rulebook import holds
from ...core.measures import LEVELS, Evidence, seed_spread

__all__ = ["Results", "report", "level_name", "pct"]


@dataclass
class Results:
    """What the page computed, by the page's own names; :meth:`collect` picks them
    from the page's namespace.  Defined for the page book/lag.md.

    ``LAGS``: ``{name: (S, levels)}`` signed log lags behind the ReLU network of every
    network of the page (the rungs of the ladder and ``"frozen@e"``, ``"snapped@e"``);
    ``FIT``: ``{name: Match}`` of the same networks; ``STEP``: ``{rung: (S, levels)}``;
    ``MOVE``: ``{measure: (S, R)}`` (:func:`helpers.chapters.lag.gate_movement`)."""

    SEEDS: list
    epochs: int
    freeze_epochs: list
    t_rec: np.ndarray
    LAGS: dict
    FIT: dict
    STEP: dict
    MOVE: dict

    @classmethod
    def collect(cls, namespace: dict) -> "Results":
        """The results from a namespace holding every field by name (the page's
        ``globals()``)."""
        return cls(**{f.name: namespace[f.name] for f in fields(cls)})


def level_name(f: float) -> str:
    """A loss level as a reader reads it.

    Defined for the page book/lag.md.

    Args:
        f: a fraction of the initial loss (``0.01``).

    Returns:
        The level in percent (``"1 %"``).
    """
    return f"{100 * f:g} %"


def signed(v: float) -> str:
    """A change in percent with its sign, never ``-0.0 %``: two significant digits
    below 0.05 %.  Defined for the page book/lag.md."""
    if v and abs(v) < 0.05:
        return f"{v:+.2g} %"
    return f"{v:+.1f} %"


def share(x: float) -> str:
    """A share in whole percent, never ``0 %`` for a share that is not zero.  Defined
    for the page book/lag.md."""
    if x and abs(x) < 0.005:
        return f"{100 * x:.2g} %"
    return f"{x:.0%}"


def pct(log_lag) -> float | None:
    """A log lag as percent.

    Defined for the page book/lag.md.

    Args:
        log_lag: ``ln(t_b / t_a)``.

    Returns:
        ``100 (e^x - 1)`` rounded to 0.01, or None for ``nan``.
    """
    x = float(log_lag)
    return None if np.isnan(x) else round(100.0 * float(np.expm1(x)), 2)


def _med_lag(lag) -> list:
    """Median over seeds of ``(S, levels)`` log lags, per level, as percent (None where
    a seed does not reach the level)."""
    lag = np.asarray(lag, float)
    return [
        None if np.isnan(lag[:, i]).any() else pct(np.median(lag[:, i]))
        for i in range(lag.shape[1])
    ]


def _lags_dict(lag) -> dict:
    return {f"lag at {level_name(f)}": v for f, v in zip(LEVELS, _med_lag(lag))}


def _within(m) -> bool:
    return holds("seed_noise", m.value, spread=m.spread) is True


def _row(r: Results, name: str) -> dict:
    m = r.FIT[name]
    return {
        "time gap": m.value,
        "seed spread": m.spread,
        "within seed noise": _within(m),
        **_lags_dict(r.LAGS[name]),
    }


def _records(rec, r: Results) -> dict:
    R = {}
    ladder = [k for k in r.STEP]
    reln = r.FIT["reln"]
    R["reln"] = rec.add(
        "reln_lag",
        reln,
        f"time gap, ReLU network vs the 7-pathway ReLN (one-way, the authors' start), "
        f"median over {len(r.SEEDS)} seeds, with the two-sample seed spread; signed "
        "lag at each level (median over seeds): "
        + ", ".join(
            f"{k[7:]} {signed(v)}"
            for k, v in _lags_dict(r.LAGS["reln"]).items()
            if v is not None
        ),
    )
    for key, kind, what in (
        ("frozen", "frozen_gates", "its own gates frozen"),
        ("snapped", "snapped_gates", "its own gates frozen and snapped to contexts"),
    ):
        rows = {f"epoch {e}": _row(r, f"{key}@{e}") for e in r.freeze_epochs}
        R[key] = rec.add(
            kind,
            Evidence(rows, spread=r.FIT["reln"].spread),
            f"the ReLU network with {what} at each epoch, started from its own initial "
            "weights, vs the ReLU network: time gap (median over seeds), two-sample "
            "seed spread, whether within the rulebook's seed noise, signed lag in "
            "percent at each level (median; positive: later than the ReLU network); "
            "the record's spread is the ReLN's (reln_lag)",
        )
    R["ladder"] = rec.add(
        "lag_ladder",
        Evidence({k: _row(r, k) for k in ladder}, spread=r.FIT["reln"].spread),
        "each rung against the ReLU network (each changes one thing from the rung "
        "before; all but the last start from the ReLU network's weights): "
        "time gap, two-sample seed spread, signed lag in percent per level",
    )
    R["steps"] = rec.add(
        "lag_steps",
        {k: _lags_dict(r.STEP[k]) for k in ladder},
        "what each step of the ladder adds to the lag, percent per level (median over "
        "seeds of the difference of log lags; per seed the steps add up to the ReLN's "
        "lag)",
    )
    idx = [int(np.flatnonzero(r.t_rec == e)[0]) for e in r.freeze_epochs]
    M = r.MOVE
    R["gates"] = rec.add(
        "within_context_gating",
        Evidence(
            {
                f"epoch {e}": {
                    "item-dependent weight": float(
                        np.median(M["item_dependent"][:, i])
                    ),
                    "gates off the context pattern": float(
                        np.median(M["off_pattern"][:, i])
                    ),
                    "gates still to change": float(np.median(M["to_final"][:, i])),
                }
                for e, i in zip(r.freeze_epochs, idx)
            },
            spread=seed_spread(M["item_dependent"][:, -1]),
        ),
        "the ReLU network's gates at each freeze epoch, median over seeds: share of "
        "weight in units whose gating differs between items of one context; weighted "
        "share of gates off the unit's context pattern; weighted share of gates that "
        "differ from the final ones; spread: the final item-dependent share's",
    )
    return R


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


def _frozen_reading(r: Results, key: str, what: str) -> str:
    reln = r.FIT["reln"]
    E = list(r.freeze_epochs)
    gaps = [r.FIT[f"{key}@{e}"].value for e in E]
    closer = _first_from([g < reln.value for g in gaps], E)
    within = _first_from([_within(r.FIT[f"{key}@{e}"]) for e in E], E)
    first = [_med_lag(r.LAGS[f"{key}@{e}"])[0] for e in E]
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


def _ladder_reading(r: Results) -> tuple[str, str]:
    steps = {k: _med_lag(v) for k, v in r.STEP.items()}
    n = len(LEVELS)
    usable = [i for i in range(n) if all(v[i] is not None for v in steps.values())]
    if not usable:
        return "No loss level is reached by every network of the ladder. ", ""
    i0 = usable[0]
    pos = {k: v[i0] for k, v in steps.items() if v[i0] > 0}
    neg = {k: v[i0] for k, v in steps.items() if v[i0] < 0}
    order = sorted(steps, key=lambda k: -abs(steps[k][i0]))
    from . import STEPS

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


def _short(r: Results) -> str:
    """The answer in three sentences: whether the ReLU network's own gates close the
    lag, and which steps of the ladder make it, at the first and at the last level
    every rung reaches."""
    from . import STEPS

    reln = r.FIT["reln"].value
    E = list(r.freeze_epochs)
    gaps = {e: r.FIT[f"frozen@{e}"].value for e in E}
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
    steps = {k: _med_lag(v) for k, v in r.STEP.items()}
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


def reading(r: Results) -> dict:
    """The page's answers, from the numbers the records hold.

    Defined for the page book/lag.md.

    Args:
        r: what the page computed (:class:`Results`).

    Returns:
        ``{"short": the "In short" box, "reading": the reading after the figures}``,
        both Markdown.
    """
    reln = r.FIT["reln"]
    lo, hi = reln.spread_interval
    head = (
        f"The 7-pathway ReLN lags the ReLU network by "
        f"{_sentence_levels(r.LAGS['reln'])} (time gap {reln.value:.3f}; two-sample "
        f"seed spread {reln.spread:.3f}, 90 % interval {lo:.3f}-{hi:.3f}). "
    )
    M = r.MOVE
    item = np.median(M["item_dependent"], axis=0)
    low = int(np.argmin(item))
    gates = (
        "The ReLU network's gating is item by item within a context for "
        f"{share(item[0])} of its weight at epoch {r.t_rec[0]}, for "
        f"{share(item[low])} at epoch {r.t_rec[low]} (the units that carry the "
        f"weight are on in whole contexts), and for {share(item[-1])} at the end, when "
        f"{np.median(M['off_pattern'][:, -1]):.1%} of its weighted gates sit off "
        "their unit's context pattern. "
    )
    first, rest = _ladder_reading(r)
    body = (
        head
        + _frozen_reading(r, "frozen", "its own gates frozen")
        + _frozen_reading(r, "snapped", "the same gates snapped to contexts")
        + first
        + rest
    )
    short = head + _short(r)
    return {"short": short, "reading": "**Reading.** " + body + gates}


def _glue(r: Results, text: dict) -> None:
    from IPython.display import Markdown

    reln = r.FIT["reln"]
    glue("lag_in_short", Markdown(text["short"]))
    glue("lag_reln_gap", reln.value)
    glue("lag_spread", reln.spread)
    glue("lag_seeds", len(r.SEEDS))
    glue("lag_freeze_epochs", ", ".join(map(str, r.freeze_epochs)))
    glue("lag_epochs", r.epochs)
    glue("lag_record_every", int(r.t_rec[1] - r.t_rec[0]) if len(r.t_rec) > 1 else 0)


def _summary(R: dict) -> str:
    return claims_table(
        [
            ("The ReLN's lag behind the ReLU network", "—", R["reln"]),
            ("The ReLU network's own gates, frozen", "—", R["frozen"]),
            ("The same gates snapped to contexts", "—", R["snapped"]),
            ("The ladder from the ReLU network to the ReLN", "—", R["ladder"]),
            ("What each step adds to the lag", "—", R["steps"]),
            ("How the gates move within a context", "—", R["gates"]),
        ]
    )


def report(rec, results: Results) -> dict:
    """Write the page's records and glue, and build its reading and closing table.

    Defined for the page book/lag.md.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records`.
        results: what the page computed (:class:`Results`).

    Returns:
        ``{"records": {key: stored record}, "reading": the reading as Markdown,
        "short": the answer of the "In short" box, "summary": the closing table}``;
        the records are saved.
    """
    r = results
    R = _records(rec, r)
    text = reading(r)
    _glue(r, text)
    rec.save()
    return {
        "records": R,
        "reading": text["reading"],
        "short": text["short"],
        "summary": _summary(R),
    }
