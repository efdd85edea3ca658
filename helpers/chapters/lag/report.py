"""The records, glue, reading and closing table of the page book/lag.md."""

from __future__ import annotations

from functools import partial

import numpy as np
from IPython.display import Markdown

from ...book import kit
from ...book.rulebook import holds
from ...core.measures import LEVELS, Evidence, seed_spread
from .measures import Comparison, Runs, compare, median_lag
from .networks import STEPS

_GATES = {
    "item-dependent weight": "item_dependent",
    "gates off the context pattern": "off_pattern",
    "gates still to change": "to_final",
}
_say = partial(kit.prose, "lag")


def _lv(f: float) -> str:
    """A loss level (a fraction of the initial loss) in percent: ``"1 %"``."""
    return f"{100 * f:g} %"


def _signed(v: float | None) -> str:
    """A change in percent with its sign: two significant digits below 0.05 %."""
    if v is None:
        return "never within the run"
    return f"{v:+.2g} %" if v and abs(v) < 0.05 else f"{v:+.1f} %"


def _share(x: float) -> str:
    """A share in whole percent, never ``0 %`` for a share that is not zero."""
    return f"{100 * x:.2g} %" if x and abs(x) < 0.005 else f"{x:.0%}"


def _r2(values) -> list:
    """Each value to 0.01, None for nan."""
    return [None if np.isnan(x) else round(x, 2) for x in map(float, values)]


def _med_lag(lag) -> list:
    """Median lag per level in percent, to 0.01 (None where a seed misses it)."""
    return _r2(100.0 * np.expm1(float(x)) for x in median_lag(lag))


def _levels(lag, fmt: str) -> str:
    """The median lags at the levels every seed reaches, ``fmt`` of ``v`` and ``lv``."""
    got = [(v, f) for f, v in zip(LEVELS, _med_lag(lag)) if v is not None]
    return ", ".join(fmt.format(v=_signed(v), lv=_lv(f)) for v, f in got)


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
    t = list(runs.t_rec)
    gates = {
        f"epoch {e}": {k: kit.med(move[m][:, t.index(e)]) for k, m in _GATES.items()}
        for e in E
    }
    at = [f"at {_lv(f)}" for f in LEVELS]
    steps = {k: dict(zip(at, _r2(v))) for k, v in c.step.items()}
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


def _level(c: Comparison, names) -> dict | None:
    """The lowest level every seed of every named network reaches (``i``; ``lv``, in
    words; ``at``: each network's median lag there), None if none is."""
    bad = np.any([np.isnan(c.lags[n]).any(axis=0) for n in names], axis=0)
    if bad.all():
        return None
    i = int(np.flatnonzero(~bad)[-1])
    at = {n: _signed(_med_lag(v)[i]) for n, v in c.lags.items()}
    return {"i": i, "lv": _lv(LEVELS[i]), "at": at}


def reading(runs: Runs, c: Comparison) -> dict:
    """The page's answers from the records' numbers: ``{"short": the "In short" box,
    "reading": the reading after the figures}``, both Markdown. Defined for the page
    book/lag.md."""
    lags = _levels(c.lags["reln"], "{v} at {lv}") or "no level every seed reaches"
    short = _say("reln", lags=lags, r=c.fit["reln"])
    if lv := _level(c, ["reln", "reln_relu_start"]):
        short += _say("start", step=c.step["reln"][lv["i"]], **lv)
    short += _fixed(c, runs.state_epochs)
    text, own = short, f"restart frozen@{runs.freeze_epochs[-1]}"
    if lv := _level(c, ["restart random", own]):  # the control: random gates
        m = [_med_lag(c.lags[n])[lv["i"]] for n in ("restart random", own)]
        then = _say("control_faster" if m[0] <= m[1] else "control_slower")
        text += _say("control", own=lv["at"][own], **lv) + then
    if lv := _level(c, list(c.step)):
        steps = {k: v[lv["i"]] for k, v in c.step.items()}
        say = "; ".join(f"{STEPS[k]} {v:+.1f}" for k, v in steps.items())
        text += _say("ladder", steps=say, total=sum(steps.values()), **lv)
    else:
        text += _say("ladder_none")
    M, t = runs.move, runs.t_rec
    item = np.median(M["item_dependent"], axis=0)
    low = int(np.argmin(item))
    text += _say(
        "item",
        first=_share(item[0]),
        t0=t[0],
        low=_share(item[low]),
        t_low=t[low],
        end=_share(item[-1]),
        off=np.median(M["off_pattern"][:, -1]),
    )
    return {"short": short, "reading": "**Reading.** " + text}


def _fixed(c: Comparison, E) -> str:
    """The ReLU network's own gates fixed at each state epoch in ``E`` (and snapped),
    trained on from its weights there, against the ReLN."""
    lv = _level(c, [f"frozen@{e}" for e in E] + ["reln"])
    if lv is None:
        return _say("fixed_none")
    behind = [_med_lag(c.lags[f"frozen@{e}"])[lv["i"]] > 0 for e in E]
    # the first epoch from which the frozen network is never behind
    ahead = next((e for j, e in enumerate(E) if not any(behind[j:])), None)
    never = ". " if ahead is None else _say("never_behind", ahead=ahead)
    at = {
        k: ", ".join(f"{lv['at'][f'{k}@{e}']} (e = {e})" for e in E)
        for k in ("frozen", "snapped")
    }
    return _say("fixed", never=never, **at, **lv)


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
    """Write and save the page's records (``rec``: its :class:`Records`) and glue
    from its ``runs``. Defined for the page book/lag.md.

    Returns ``{"records": {name: stored record}, "short", "reading", "summary": the
    closing table}``, all but the records Markdown (:func:`reading`)."""
    c = compare(runs)
    R = kit.add_all(rec, _records(runs, c))
    text, t = reading(runs, c), runs.t_rec
    kit.glue_many(
        "lag",
        in_short=Markdown(text["short"]),
        seeds=len(runs.relu),
        freeze_epochs=", ".join(map(str, runs.freeze_epochs)),
        epochs=int(t[-1]),
        record_every=int(t[1] - t[0]) if len(t) > 1 else 0,
    )
    rec.save()
    return {"records": R, **text, "summary": kit.summary("lag", R)}
