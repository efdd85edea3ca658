"""The records, tables and sentences of the page *Against the authors' code*
(``book/authors_code.md``), from what the page computed."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...book import kit, rulebook
from ...book.records import claims_table
from ...core.measures import LEVELS, Evidence, seed_spread_interval
from .comparison import PAIR, span
from .experiments import conventions
from .run_for_run import CONTROL_STEP, SAME_START_TOL


@dataclass(frozen=True)
class Results:
    """What the page computed: ``runs`` (:class:`~.experiments.Run` by experiment, in
    the page's order), the stored runs' ``manifest``, ``same_start``
    (:class:`~.run_for_run.SameStart` by experiment) and ``control`` (the same at a step
    size :data:`~.run_for_run.CONTROL_STEP` off, one seed; None: none run)."""

    runs: dict
    manifest: dict
    same_start: dict = field(default_factory=dict)
    control: object = None

    def title(self, name: str) -> str:
        return self.manifest["experiments"][name]["title"]


def _prose(name: str, **values) -> str:
    return kit.prose("authors_code", name, **values)


def _join(xs, fmt="{}") -> str:
    return ", ".join(fmt.format(x) for x in xs)


def _evidence(c) -> dict:
    """The records ``relu`` and ``relu_gdln`` of one :class:`~.comparison.Comparison`,
    each against the smaller of the two implementations' seed spreads."""
    relu_iv = c.interval_theirs if c.spread_theirs <= c.spread_ours else c.interval_ours
    rg_smaller = c.rg_theirs if c.rg_spread_theirs <= c.rg_spread else c.rg_ours
    return {
        "relu": Evidence(
            c.gap, spread=min(c.spread_theirs, c.spread_ours),
            spread_interval=relu_iv, criterion="seed_noise", time_gap=True),
        "relu_gdln": Evidence(
            kit.med(c.rg_ours), spread=min(c.rg_spread, c.rg_spread_theirs),
            spread_interval=seed_spread_interval(rg_smaller),
            per_seed=tuple(float(g) for g in c.rg_ours),
            compared=kit.med(c.rg_theirs), criterion="near", time_gap=True),
    }  # fmt: skip


def _same_run(r, spread, **more) -> Evidence:
    """A run for run ``r`` (:class:`~.run_for_run.SameStart`) under the rulebook's
    ``same_run``, against the seed spread ``spread``."""
    return Evidence(float(np.max(r.gaps)), spread=spread,
                    compared=float(np.max(r.rescale)), criterion="same_run",
                    censored=r.censored, censored_reference=r.censored_reference,
                    time_gap=True, **more)  # fmt: skip


def _same_start_evidence(r, c) -> Evidence:
    """One experiment run for run, against the engine's own seed spread (``c``, its
    :class:`~.comparison.Comparison`; None: none), with the variant ``levels`` read at
    the loss levels both curves reach."""
    yard = {} if c is None else {"spread_interval": c.interval_ours}
    ev = _same_run(r, c and c.spread_ours, per_seed=tuple(map(float, r.gaps)), **yard)
    both = r.gaps_both[np.isfinite(r.gaps_both)]
    if both.size:
        kw = dict(censored=False, censored_reference=False)
        at_both = ev.but(value=float(np.max(both)), **kw)
        ev = ev.varied("levels", {"the loss levels both curves reach": at_both})
    return ev


def _shifts(r) -> str:
    """The shifts after the runs part, per loss level reached and seed."""
    out = [
        f"{100 * f:g} %: " + _join(f"{x:+.0f}" if np.isfinite(x) else "—" for x in col)
        for f, col in zip(LEVELS, r.shift.T)
        if np.isfinite(col).any()
    ]
    return "; ".join(out) or "no loss level reached by both"


def _records(res: Results) -> list:
    """The page's records as ``(name, evidence, note)``."""
    out = [
        (f"{k}_{name}", ev, _prose(f"{k}_note", c=r.comparison))
        for name, r in res.runs.items()
        for k, ev in _evidence(r.comparison).items()
    ]
    for name, r in res.same_start.items():
        c = res.runs[name].comparison if name in res.runs else None
        yard = c and f" against the engine's own seed spread {c.spread_ours:.4f}"
        note = _prose(
            "same_start_note",
            r=r,
            tol=SAME_START_TOL,
            identical=_join(r.identical.tolist()),
            part=_join(p if p < r.epochs else "never" for p in r.part.tolist()),
            steepest=_join(r.steepest, "{:.2f}"),
            rescale=_join(r.rescale, "{:.1e}"),
            shifts=_shifts(r),
            spread=yard or "",
        )
        out.append((f"same_start_{name}", _same_start_evidence(r, c), note))
    return out


def _runs_table(res: Results) -> str:
    man = res.manifest
    rows = []
    for name, r in res.runs.items():
        e = man["experiments"][name]
        sec = ", ".join(f"{kit.med(e['scripts'][k]['seconds']):.0f}" for k in PAIR)
        rows.append([e["title"], r.setup.where, len(r.seeds), r.setup.epochs, sec])
    first = man["experiments"][next(iter(res.runs))]
    head = "experiment | the authors' scripts | seeds | updates | seconds per run"
    return kit.table(rows, head + " (ReLU, GDLN)") + (
        f"\n\nStored from commit `{man['commit'][:7]}` with JAX {first['jax']} "
        "(the authors pinned 0.4.28)."
    )


def _conventions_table(res: Results, conv: dict) -> str:
    rows = [
        [name, f"{v['first_ratio']:.6f}", f"{v['target_ratio']:.6f}",
         f"{c.gap:.4f}", f"{v['shift_gap']:.4f}",
         f"{c.final_theirs:.3g}, {c.final_ours:.3g}"]
        for name, r in res.runs.items()
        for c, v in [(r.comparison, conv[name])]
    ]  # fmt: skip
    headers = "experiment | first loss: scripts / engine | scripts / (1/2 ‖Y‖²) | "
    headers += "ReLU gap | gap without the one-epoch shift | "
    return kit.table(rows, headers + "final ReLU loss: scripts, engine")


def _headline_table(res: Results, recs: dict) -> str:
    rows = [
        [res.title(name), f"{c.gap:.4f}",
         f"{c.spread_theirs:.4f} {span(c.interval_theirs)}",
         f"{c.spread_ours:.4f} {span(c.interval_ours)}",
         f"{kit.med(c.rg_theirs):.4f} (spread {c.rg_spread_theirs:.4f})",
         f"{kit.med(c.rg_ours):.4f} (spread {c.rg_spread:.4f})",
         _join(recs[f"{k}_{name}"]["verdict"] for k in ("relu", "relu_gdln"))]
        for name, r in res.runs.items()
        for c in [r.comparison]
    ]  # fmt: skip
    headers = "experiment | ReLU: scripts vs engine | seed spread, scripts | "
    headers += "seed spread, engine | ReLU vs GDLN, scripts | ReLU vs GDLN, engine | "
    return (
        kit.table(rows, headers + "verdicts")
        + "\n\nTime gaps (`helpers.core.measures.time_gap`: the largest `|ln t_a/t_b|` "
        "over the epochs at which each curve reaches 50, 10, 1 and 0.1 % of its "
        "first loss), medians over seeds; in brackets, the 90 % bootstrap interval "
        "over seeds of each ReLU seed spread."
    )


def _closing(res: Results, recs: dict, conv: dict) -> str:
    comp = {n: r.comparison for n, r in res.runs.items()}
    failed = [k for k, r in recs.items() if r["verdict"] != "check"]
    noise = {n: c.gap / min(c.spread_theirs, c.spread_ours) for n, c in comp.items()}
    worst = max(noise, key=noise.get)
    first = max(abs(v["first_ratio"] - 1) for v in conv.values())
    beyond = f" Beyond the seed noise: {', '.join(failed)}; see below."
    return _prose(
        "closing",
        held=len(recs) - len(failed),
        n=len(recs),
        worst=worst,
        first=f"to {first:.1e} (relative)" if first else "exactly",
        c=comp[worst],
        target=max(abs(v["target_ratio"] - 1) for v in conv.values()),
        shift=max(abs(conv[n]["shift_gap"] - c.gap) for n, c in comp.items()),
        failed=beyond if failed else "",
    )


def _same_start_table(res: Results, recs: dict) -> str:
    rows = []
    for name, r in res.same_start.items():
        parts = zip(r.part.tolist(), 100 * r.part_loss / r.theirs[:, 0])
        part = _join(f"{p} ({f:.0f} %)" if p < r.epochs else "none" for p, f in parts)
        rec = recs[f"same_start_{name}"]
        spread = rec.get("spread")
        yard = f" ({spread:.4f})" if isinstance(spread, float) else ""
        rows.append([res.title(name), _join(r.seeds), r.epochs,
                     _join(r.identical.tolist()), part, f"{np.max(r.rescale):.1e}",
                     f"{np.max(r.gaps):.4f}{yard}", rec["verdict"]])  # fmt: skip
    headers = [
        "experiment", "seeds", "updates", "equal bit for bit for the first ... epochs",
        f"within {SAME_START_TOL:g} until epoch (the script's loss there, % of its "
        "first)", "step-size error left possible, largest",
        "time gap after they part, largest (engine's seed spread)", "verdict",
    ]  # fmt: skip
    return (
        kit.table(rows, headers)
        + "\n\nEpochs are the scripts' (`losses[epoch]`, the loss after that epoch's "
        "update). Step-size error left possible: the tolerance over the steepest "
        "`|d ln L / d ln t|` of the script's curve before the runs part "
        "(`steepest_drop`): a time rescaling by `1 + e` moves the loss by "
        "`e |d ln L / d ln t|`, so a larger one would have parted the runs earlier. "
        "Time gap: `helpers.core.measures.time_gap` of the two curves of a seed; the "
        "engine's seed spread: the median time gap between two of its own seeds "
        "(the two sets of seeds above). The shifts per seed and level are in each "
        "record's note."
    )


def _same_start_text(res: Results, recs: dict) -> str:
    """The reading of the section *Run for run*: how long the runs from the scripts'
    weights agree, their gap after they part, the control, any machine, the depth."""
    same = res.same_start
    if not same:
        return ""
    ss = {n: recs[f"same_start_{n}"] for n in same}
    ident = np.concatenate([r.identical for r in same.values()])
    frac = np.concatenate([r.part_loss / r.theirs[:, 0] for r in same.values()])
    steep = np.concatenate([r.steepest for r in same.values()])
    until = "to the end of every run"
    if np.isfinite(frac).any():
        lo, hi = 100 * np.nanmin(frac), 100 * np.nanmax(frac)
        until = f"until the two runs part, at losses between {lo:.1f} % and {hi:.1f} %"
        until += " of the first"
    text = [
        _prose(
            "run_for_run",
            held=sum(r["verdict"] == "check" for r in ss.values()),
            n=len(same),
            ident_lo=ident.min(),
            ident_hi=ident.max(),
            tol=SAME_START_TOL,
            until=until,
            steep_lo=steep.min(),
            steep_hi=steep.max(),
            rescale=max(float(np.max(r.rescale)) for r in same.values()),
        )
    ]
    spreads = {n: rec.get("spread") for n, rec in ss.items()}
    ratio = {
        n: float(np.max(r.gaps)) / spreads[n]
        for n, r in same.items()
        if isinstance(spreads[n], float) and spreads[n] > 0
    }
    if ratio:
        worst = max(ratio, key=ratio.get)
        text.append(
            _prose(
                "after_parting",
                ratio=ratio[worst],
                worst=worst,
                mult=rulebook.NOISE_MULTIPLE,
            )
        )
    if res.control is not None:
        name = res.control.name
        text += ["\n\n", _control_text(res.control, spreads[name], res.title(name))]
    flipped = [n for n in same if "rounding" in (ss[n].get("depends_on") or [])]
    verb = "turns" if len(flipped) == 1 else "turn"
    said = _prose("none_flipped")
    if flipped:
        said = _prose(
            "flipped",
            n=len(flipped),
            total=len(same),
            verb=verb,
            names=", ".join(flipped),
        )
    text += ["\n\n", _prose("any_machine", flipped=said)]
    if "depth" in same:
        text += ["\n\n", _depth_reading(same["depth"], spreads["depth"])]
    return "".join(text)


def _control_text(ctrl, rec_spread, title: str) -> str:
    """The control (``ctrl``, one seed at a step size :data:`CONTROL_STEP` off) under
    the same rule, against the real run's yardstick ``rec_spread``."""
    v = rulebook.verdict(
        _same_run(ctrl, rec_spread), kind="check", provenance="authors' code"
    )
    old = rulebook.holds("gap", float(np.max(ctrl.gaps)))
    part, frac = ctrl.part[0], ctrl.part_loss[0] / ctrl.theirs[0, 0]
    where = (
        f"parts at epoch {part}, with the loss still {100 * frac:.2f} % of its first"
    )
    return _prose(
        "control",
        r=ctrl,
        title=title,
        step=CONTROL_STEP,
        verdict=v,
        where=where if part < ctrl.epochs else "never parts",
        check_gap=rulebook.CHECK_GAP,
        old="would have passed it." if old else "fails it too.",
    )


def _depth_reading(r, spread) -> str:
    """The depth network's run for run (``r``, its record's ``spread``) in words."""
    frac = r.part_loss / r.theirs[:, 0]
    still = ""
    if np.isfinite(frac).any():
        lo_f, hi_f = (f"{100 * x:.0f}" for x in (np.nanmin(frac), np.nanmax(frac)))
        still = f", where the loss is still {lo_f}{'' if lo_f == hi_f else '–' + hi_f}"
        still += " % of its first"
    censored = r.censored or r.censored_reference
    return _prose(
        "depth",
        seeds=_join(r.seeds),
        lo=int(r.identical.min()),
        hi=int(r.identical.max()),
        tol=SAME_START_TOL,
        parts=_join(r.part.tolist()),
        still=still,
        steep=r.steepest.max(),
        shifts=_shifts(r),
        most=np.nanmax(np.abs(r.shift)),
        gaps=_join(r.gaps, "{:.4f}"),
        spread=f"{spread:.4f}." if isinstance(spread, float) else "(none).",
    ) + (_prose("depth_censored") if censored else "")


#: The closing table's claim of each kind of record, after the experiment's title.
_CLAIMS = {
    "relu": "the engine's ReLU network is the script's",
    "relu_gdln": "the same ReLU-GDLN gap",
    "same_start": "from the script's own weights, the same run",
}


def report(rec, results: Results) -> dict:
    """Write and save the page's records (``rec``, a
    :class:`helpers.book.records.Records`) and build its tables and sentences.

    Returns:
        ``{name: Markdown}`` for ``runs``, ``conventions``, ``headline``, ``claims``
        (the closing table), ``closing``, ``same_start`` and ``same_start_text``.
    """
    recs = kit.add_all(rec, _records(results))
    kinds = [(k, n) for n in results.runs for k in ("relu", "relu_gdln")]
    kinds += [("same_start", n) for n in results.same_start]
    claims = [
        (f"{results.title(n)}: {_CLAIMS[k]}", "—", recs[f"{k}_{n}"]) for k, n in kinds
    ]
    rec.save()
    conv = conventions(results.runs)
    return {
        "runs": _runs_table(results), "conventions": _conventions_table(results, conv),
        "headline": _headline_table(results, recs), "claims": claims_table(claims),
        "closing": _closing(results, recs, conv),
        "same_start": _same_start_table(results, recs),
        "same_start_text": _same_start_text(results, recs),
    }  # fmt: skip


def spread_text(title: str, c, check) -> str:
    """The paragraph on the two implementations' seed spreads of one experiment: its
    :class:`~.comparison.Comparison` ``c`` against the engine's spread on more seeds
    (``check``, a :class:`~.experiments.SpreadCheck`)."""
    k, subs = check.k, check.subsets
    both = (c.spread_ours, c.spread_theirs)
    within = subs.min() <= min(both) and max(both) <= subs.max()
    apart = (
        c.interval_ours[0] > c.interval_theirs[1]
        or c.interval_theirs[0] > c.interval_ours[1]
    )
    return _prose(
        "spreads",
        title=title,
        k=k,
        c=c,
        ratio=c.spread_ours / c.spread_theirs,
        iv_ours=span(c.interval_ours),
        iv_theirs=span(c.interval_theirs),
        apart="do not " if apart else "",
        n=len(check.seeds),
        check=check,
        q=np.quantile(subs, [0.05, 0.5, 0.95]),
        subsets=len(subs),
        at_ours=100 * np.mean(subs <= c.spread_ours),
        at_theirs=100 * np.mean(subs <= c.spread_theirs),
        side="below" if check.cross_all <= check.all_spread else "above",
        within=_prose(
            "subsets_within" if within else "subsets_outside",
            k=k,
            lo=subs.min(),
            hi=subs.max(),
        ),
    )
