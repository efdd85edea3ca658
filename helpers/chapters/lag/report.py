"""The records, glue, reading and closing table of the page book/lag.md."""

from __future__ import annotations

import numpy as np
from IPython.display import Markdown

from ...book import kit, rulebook
from ...book.records import claims_table
from ...book.rulebook import holds
from ...core.measures import LEVELS, Evidence, seed_spread
from .measures import Comparison, Runs, compare, median_lag
from .networks import STEPS

_GATES = {
    "item-dependent weight": "item_dependent",
    "gates off the context pattern": "off_pattern",
    "gates still to change": "to_final",
}


def _lv(f: float) -> str:
    """A loss level (a fraction of the initial loss) in percent: ``"1 %"``."""
    return f"{100 * f:g} %"


def _signed(v: float) -> str:
    """A change in percent with its sign: two significant digits below 0.05 %."""
    return f"{v:+.2g} %" if v and abs(v) < 0.05 else f"{v:+.1f} %"


def _share(x: float) -> str:
    """A share in whole percent, never ``0 %`` for a share that is not zero."""
    return f"{100 * x:.2g} %" if x and abs(x) < 0.005 else f"{x:.0%}"


def _med_lag(lag) -> list:
    """Median lag per level in percent, to 0.01 (None where a seed misses it)."""
    m = [float(x) for x in median_lag(lag)]
    return [None if np.isnan(x) else round(100.0 * float(np.expm1(x)), 2) for x in m]


def _levels(lag, fmt: str) -> str:
    """The median lags at the levels every seed reaches, ``fmt`` of ``v`` and ``lv``."""
    got = zip(LEVELS, _med_lag(lag))
    return ", ".join(
        fmt.format(v=_signed(v), lv=_lv(f)) for f, v in got if v is not None
    )


def _rows(c: Comparison, rows: dict) -> Evidence:
    """``{row label: network}`` as one record's evidence (the ReLN's spread)."""
    out = {}
    for k, name in rows.items():
        m = c.fit[name]
        out[k] = {
            "time gap": m.value,
            "seed spread": m.spread,
            "within seed noise": holds("seed_noise", m.value, spread=m.spread) is True,
            **{f"lag at {_lv(f)}": v for f, v in zip(LEVELS, _med_lag(c.lags[name]))},
        }
    return Evidence(out, spread=c.fit["reln"].spread)


def _records(runs: Runs, c: Comparison) -> list:
    """The page's records as ``(name, evidence, values of its note)``."""
    E, S, move = runs.freeze_epochs, runs.state_epochs, runs.move
    restart = {f"own gates of epoch {e}": f"restart frozen@{e}" for e in E}
    restart |= {f"snapped, of epoch {e}": f"restart snapped@{e}" for e in E}
    random = {"from the initial weights": "restart random"}
    random |= {f"from epoch {e}": f"random@{e}" for e in runs.random}
    idx = (int(np.flatnonzero(runs.t_rec == e)[0]) for e in E)
    gates = {
        f"epoch {e}": {k: kit.med(move[m][:, i]) for k, m in _GATES.items()}
        for e, i in zip(E, idx)
    }
    steps = {
        k: {
            f"at {_lv(f)}": None if np.isnan(x) else round(x, 2)
            for f, x in zip(LEVELS, map(float, v))
        }
        for k, v in c.step.items()
    }
    lags = _levels(c.lags["reln"], "{lv} {v}")
    spread = seed_spread(move["item_dependent"][:, -1])  # the final share's
    return [
        ("reln_lag", c.fit["reln"], {"n": len(runs.relu), "lags": lags}),
        ("frozen_gates", _rows(c, {f"epoch {e}": f"frozen@{e}" for e in S}), {}),
        ("snapped_gates", _rows(c, {f"epoch {e}": f"snapped@{e}" for e in S}), {}),
        ("random_gates", _rows(c, random), {}),
        ("restart_gates", _rows(c, restart), {}),
        ("lag_ladder", _rows(c, {k: k for k in c.step}), {}),
        ("lag_steps", steps, {}),
        ("within_context_gating", Evidence(gates, spread=spread), {}),
    ]


def _deepest(c: Comparison, names) -> int | None:
    """The lowest loss level every seed of every named network reaches."""
    bad = np.any([np.isnan(c.lags[n]).any(axis=0) for n in names], axis=0)
    return None if bad.all() else int(np.flatnonzero(~bad)[-1])


def _at(c: Comparison, name: str, i: int) -> str:
    """The median lag of a network at level ``i``, or that a seed never reaches it."""
    v = _med_lag(c.lags[name])[i]
    return "never within the run" if v is None else _signed(v)


def reading(runs: Runs, c: Comparison) -> dict:
    """The page's answers from the records' numbers: ``{"short": the "In short" box,
    "reading": the reading after the figures}``, both Markdown. Defined for the page
    book/lag.md."""
    reln = c.fit["reln"]
    lo, hi = reln.spread_interval
    text = (
        "The 7-pathway ReLN lags the ReLU network by "
        f"{_levels(c.lags['reln'], '{v} at {lv}') or 'no level every seed reaches'} "
        f"(time gap {reln.value:.3f}; two-sample seed spread {reln.spread:.3f}, 90 % "
        f"interval {lo:.3f}-{hi:.3f}). "
    )
    short = text + _start_sentence(c) + _fixed_gates_sentence(c, runs.state_epochs)
    text = short + _control_sentence(c, f"restart frozen@{runs.freeze_epochs[-1]}")
    text += _ladder_sentence(c) + _item_sentence(runs)
    return {"short": short, "reading": "**Reading.** " + text}


def _start_sentence(c: Comparison) -> str:
    """The ladder's last step: how much the start moves the ReLN's lag."""
    i = _deepest(c, ["reln", "reln_relu_start"])
    if i is None:
        return ""
    return (
        "Started from the ReLU network's own initial weights, the ReLN as built "
        f"lags {_at(c, 'reln_relu_start', i)} at the {_lv(LEVELS[i])} level; "
        f"started as the authors start it, {_at(c, 'reln', i)}: the start moves "
        f"the lag by {c.step['reln'][i]:+.1f} log points there. "
    )


def _fixed_gates_sentence(c: Comparison, E) -> str:
    """The ReLU network's own gates fixed at each state epoch in ``E`` (and snapped),
    trained on from its weights there, against the ReLN."""
    i = _deepest(c, [f"frozen@{e}" for e in E] + ["reln"])
    if i is None:
        return "No level is reached by every network fixed from the state. "
    ahead = None  # the first epoch from which the frozen network is never behind
    for e in E:
        ok = _med_lag(c.lags[f"frozen@{e}"])[i] <= 0
        ahead = (e if ahead is None else ahead) if ok else None
    at = {
        k: ", ".join(f"{_at(c, f'{k}@{e}', i)} (e = {e})" for e in E)
        for k in ("frozen", "snapped")
    }
    never = (
        f": from epoch {ahead} on its gating, fixed, is never behind the ReLU "
        "network that goes on moving its gates. "
    )
    return (
        "Fixed at epoch e and trained on from the ReLU network's own weights "
        f"there, its own gates reach the {_lv(LEVELS[i])} level with a lag of "
        f"{at['frozen']}, against the ReLN's {_at(c, 'reln', i)}"
        f"{never if ahead is not None else '. '}Snapped to contexts as well (no "
        "variation between the items of a context), they reach it "
        f"{at['snapped']}. "
    )


def _control_sentence(c: Comparison, own: str) -> str:
    """The random-gate control against the network's own final gates (``own``), both
    fixed from the initial weights."""
    i = _deepest(c, ["restart random", own])
    if i is None:
        return ""
    faster = _med_lag(c.lags["restart random"])[i] <= _med_lag(c.lags[own])[i]
    return (
        "The control: random gates (each unit on for a random half of the "
        f"datapoints), fixed from the initial weights, reach the {_lv(LEVELS[i])} "
        f"level with a lag of {_at(c, 'restart random', i)}, against "
        f"{_at(c, own, i)} for the ReLU network's own final gates fixed from the "
        "same start. "
    ) + (
        "A network whose gates are fixed from the start is fast whatever the "
        "gates, so such restarts measure fixed gates, not the network's gating; "
        "the page reads the networks that go on from the state instead. "
        if faster
        else "Its own gates are faster than random ones from the same start. "
    )


def _ladder_sentence(c: Comparison) -> str:
    """The ladder's steps in log points at the deepest level every network reaches."""
    i = _deepest(c, list(c.step))
    if i is None:
        return "No loss level is reached by every network of the ladder. "
    steps = {k: v[i] for k, v in c.step.items()}
    say = "; ".join(f"{STEPS[k]} {v:+.1f}" for k, v in steps.items())
    return (
        f"Along the ladder, in log points at the {_lv(LEVELS[i])} level (100 ln "
        f"of the time ratio; log points add, percentages do not): {say}; in all "
        f"{sum(steps.values()):+.1f}, the ReLN's lag ({_at(c, 'reln', i)}). The "
        "first two steps fix the gates from the start, which the control shows "
        "to be fast whatever the gates. "
    )


def _item_sentence(runs: Runs) -> str:
    """How much of the ReLU network's gating is item by item within a context over
    training, and how much sits off its unit's context pattern at the end."""
    M, t = runs.move, runs.t_rec
    item = np.median(M["item_dependent"], axis=0)
    low = int(np.argmin(item))
    return (
        "The ReLU network's gating is item by item within a context for "
        f"{_share(item[0])} of its weight at epoch {t[0]}, for {_share(item[low])} at "
        f"epoch {t[low]} (the units that carry the weight are on in whole contexts), "
        f"and for {_share(item[-1])} at the end, when "
        f"{np.median(M['off_pattern'][:, -1]):.1%} of its weighted gates sit off "
        "their unit's context pattern. "
    )


def _net_label(name: str) -> str:
    """A network of :meth:`Runs.nets` in words (``"snapped@400"``: "own gates snapped
    at epoch 400, from its state")."""
    kind, _, e = name.partition("@")
    if kind == "restart random":
        return "random gates, restarted"
    if kind.startswith("restart "):
        snapped = " snapped" * (kind == "restart snapped")
        return f"own gates of epoch {e}{snapped}, restarted"
    what = {"frozen": "own gates fixed", "snapped": "own gates snapped"}
    return f"{what.get(kind, kind + ' gates')} at epoch {e}, from its state"


def lag_table(lags: dict, labels: dict) -> str:
    """Markdown table of the median signed lags ``{name: (S, levels) log lags}`` in
    percent per loss level ("—" where not reached), each row labelled by ``labels`` or
    else in words. Defined for the page book/lag.md."""
    rows = [
        [labels.get(name) or _net_label(name)]
        + ["—" if np.isnan(m) else f"{100 * np.expm1(m):+.1f} %" for m in median_lag(v)]
        for name, v in lags.items()
    ]
    return kit.table(rows, ["network", *(f"{_lv(f)} of L(0)" for f in LEVELS)])


def report(rec, runs: Runs) -> dict:
    """Write and save the page's records (``rec``: its
    :class:`helpers.book.records.Records`) and glue from its ``runs`` (compared by
    :func:`compare`). Defined for the page book/lag.md.

    Returns ``{"records": {name: stored record}, "short", "reading", "summary": the
    closing table}``, all but the records Markdown (:func:`reading`)."""
    c = compare(runs)
    R = kit.add_all(rec, _records(runs, c))
    text, t = reading(runs, c), runs.t_rec
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
    claims = [(rulebook.claim("lag", n)["summary"], "—", R[n]) for n in R]
    return {"records": R, **text, "summary": claims_table(claims)}
