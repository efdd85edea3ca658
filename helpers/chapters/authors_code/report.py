"""The records, tables and sentences of the page *Against the authors' code*
(``book/authors_code.md``), from what the page computed."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

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

    @cached_property
    def conventions(self) -> dict:
        """:func:`~.experiments.conventions` of the runs."""
        return conventions(self.runs)


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
    """The page's records as ``(name, evidence, values of its template)``."""
    out = [
        (f"{k}_{name}", ev, {"c": r.comparison})
        for name, r in res.runs.items()
        for k, ev in _evidence(r.comparison).items()
    ]
    for name, r in res.same_start.items():
        c = res.runs[name].comparison if name in res.runs else None
        yard = c and f" against the engine's own seed spread {c.spread_ours:.4f}"
        values = {
            "r": r, "tol": SAME_START_TOL, "identical": _join(r.identical.tolist()),
            "part": _join(p if p < r.epochs else "never" for p in r.part.tolist()),
            "steepest": _join(r.steepest, "{:.2f}"),
            "rescale": _join(r.rescale, "{:.1e}"), "shifts": _shifts(r),
            "spread": yard or "",
        }  # fmt: skip
        out.append((f"same_start_{name}", _same_start_evidence(r, c), values))
    return out


def _runs_table(res: Results) -> str:
    man = res.manifest
    rows = []
    for name, r in res.runs.items():
        e = man["experiments"][name]
        sec = ", ".join(f"{kit.med(e['scripts'][k]['seconds']):.0f}" for k in PAIR)
        rows.append([e["title"], r.setup.where, len(r.seeds), r.setup.epochs, sec])
    first = man["experiments"][next(iter(res.runs))]
    return (
        kit.table(
            rows,
            "experiment | the authors' scripts | seeds | updates | "
            "seconds per run (ReLU, GDLN)",
        )  # fmt: skip
        + f"\n\nStored from commit `{man['commit'][:7]}` with JAX {first['jax']} "
        "(the authors pinned 0.4.28)."
    )


def _conventions_table(res: Results) -> str:
    rows = [
        [name, f"{v['first_ratio']:.6f}", f"{v['target_ratio']:.6f}",
         f"{c.gap:.4f}", f"{v['shift_gap']:.4f}",
         f"{c.final_theirs:.3g}, {c.final_ours:.3g}"]
        for name, r in res.runs.items()
        for c, v in [(r.comparison, res.conventions[name])]
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


def _closing(res: Results, recs: dict) -> str:
    comp = {n: r.comparison for n, r in res.runs.items()}
    conv = res.conventions
    failed = [k for k, r in recs.items() if r["verdict"] != "check"]
    noise = {n: c.gap / min(c.spread_theirs, c.spread_ours) for n, c in comp.items()}
    worst = max(noise, key=noise.get)
    c = comp[worst]
    first = max(abs(v["first_ratio"] - 1) for v in conv.values())
    target = max(abs(v["target_ratio"] - 1) for v in conv.values())
    shift = max(abs(conv[n]["shift_gap"] - comp[n].gap) for n in comp)
    text = [
        f"**{len(recs) - len(failed)} of {len(recs)} checks hold.** "
        "The first recorded losses of the scripts and the engine agree "
        + (f"to {first:.1e} (relative)" if first else "exactly")
        + " in every experiment, and equal 1/2 ‖Y‖² to "
        f"{target:.1e}: the same targets and the same summed loss. Without the "
        f"one-epoch shift the ReLU gaps move by at most {shift:.1e}: the recording "
        f"offset is far below the seed noise. The largest ReLU gap relative to the "
        f"seed noise is {worst}'s ({c.gap:.4f} against spreads "
        f"{c.spread_theirs:.4f} and {c.spread_ours:.4f})."
    ]
    if failed:
        text.append(f"Beyond the seed noise: {', '.join(failed)}; see below.")
    return " ".join(text)


def _same_start_table(res: Results, recs: dict, tol: float) -> str:
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
        f"within {tol:g} until epoch (the script's loss there, % of its first)",
        "step-size error left possible, largest",
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


def _control_text(ctrl, rec_spread, title: str) -> str:
    """The control (``ctrl``, one seed at a step size :data:`CONTROL_STEP` off) under
    the same rule, against the real run's yardstick ``rec_spread``."""
    ev = _same_run(ctrl, rec_spread)
    v = rulebook.verdict(ev, kind="check", provenance="authors' code")
    old = rulebook.holds("gap", float(np.max(ctrl.gaps)))
    part, frac = ctrl.part[0], ctrl.part_loss[0] / ctrl.theirs[0, 0]
    where = (
        f"parts at epoch {part}, with the loss still {100 * frac:.2f} % of its first"
    )
    return (
        f"**A control.** The same engine from the same start (seed "
        f"{ctrl.seeds[0]} of {title}) at a step size {CONTROL_STEP:g} times the "
        f"script's is equal to it bit for bit for {ctrl.identical[0]} epochs (the "
        "loss hardly moves at first, so equal bits alone prove little), then "
        f"{where if part < ctrl.epochs else 'never parts'}; it leaves a step-size "
        f"error of {ctrl.rescale[0]:.2g} possible "
        f"and its time gap is {ctrl.gaps[0]:.4f}. Under the rule it is **{v}**; "
        f"the earlier criterion, a time gap of at most {rulebook.CHECK_GAP:g}, "
        + ("would have passed it." if old else "fails it too.")
    )


def _same_start_text(res: Results, recs: dict, tol: float) -> str:
    """The reading of the section *Run for run* (agreement within ``tol``)."""
    same = res.same_start
    if not same:
        return ""
    held = sum(recs[f"same_start_{n}"]["verdict"] == "check" for n in same)
    text = [_run_for_run_text(same, held, tol), _after_parting(same, recs)]
    if res.control is not None:
        name = res.control.name
        spread = recs[f"same_start_{name}"].get("spread")
        text.append("\n\n" + _control_text(res.control, spread, res.title(name)))
    text.append("\n\n" + _any_machine(same, recs))
    if "depth" in same:
        text.append("\n\n" + _depth_reading(same["depth"], recs["same_start_depth"]))
    return "".join(text)


def _run_for_run_text(same: dict, held: int, tol: float) -> str:
    """How long the runs from the scripts' weights agree, and what that leaves."""
    ident = np.concatenate([r.identical for r in same.values()])
    frac = np.concatenate([r.part_loss / r.theirs[:, 0] for r in same.values()])
    steep = np.concatenate([r.steepest for r in same.values()])
    rescale = max(float(np.max(r.rescale)) for r in same.values())
    return (
        f"**{held} of {len(same)} run-for-run checks hold.** Started from the "
        "scripts' own initial weights, the engine's ReLU loss equals the script's "
        f"bit for bit for the first {ident.min()}–{ident.max()} epochs (over "
        "experiments and seeds), then differs by float rounding, which stays below "
        f"{tol:g} of the loss "
        + (
            f"until the two runs part, at losses between "
            f"{100 * np.nanmin(frac):.1f} % and {100 * np.nanmax(frac):.1f} % of the "
            "first"
            if np.isfinite(frac).any()
            else "to the end of every run"
        )
        + f". Before they part the two share drops as steep as |d ln L / d ln t| = "
        f"{steep.min():.1f}–{steep.max():.1f}; a step size off by a factor `1 + e` "
        "rescales time and moves the loss by `e |d ln L / d ln t|`, so the agreement "
        f"leaves no step-size error beyond {rescale:.1e} possible (the rule asks at "
        f"most {tol:g}, {{ref}}`rulebook <rulebook>`, criterion `same_run`)."
    )


def _after_parting(same: dict, recs: dict) -> str:
    """The largest time gap after the runs part against the engine's seed spread."""
    spreads = {n: recs[f"same_start_{n}"].get("spread") for n in same}
    ratio = {
        n: float(np.max(r.gaps)) / spreads[n]
        for n, r in same.items()
        if isinstance(spreads[n], float) and spreads[n] > 0
    }
    if not ratio:
        return ""
    worst = max(ratio, key=ratio.get)
    return (
        " After they part, rounding moves the later drops as another seed "
        "would: the largest time gap between the two runs of a seed is "
        f"{ratio[worst]:.2f} times the engine's own seed spread ({worst}), and "
        f"the rule allows {rulebook.NOISE_MULTIPLE:g}."
    )


def _any_machine(same: dict, recs: dict) -> str:
    """The paragraph *On any machine* of the section *Run for run*."""
    depends = {n: recs[f"same_start_{n}"].get("depends_on") or [] for n in same}
    flipped = [n for n in same if "rounding" in depends[n]]
    return (
        "**On any machine.** The scripts' curves were stored on one machine "
        "(`book/authors_runs/manifest.json`); the engine re-runs here. The epochs "
        "equal bit for bit, the epoch the runs part and the shifts after it are this "
        "machine's: float32 rounding differs between CPUs and instruction sets, and "
        "a difference of the last bit grows through each plateau. What the rule asks "
        "of every machine is what separates one computation from another: agreement "
        "through a steep drop, and later shifts within the seed noise. "
        + (
            f"{len(flipped)} of the {len(same)} checks "
            f"{'turns' if len(flipped) == 1 else 'turn'} on rounding "
            f"({', '.join(flipped)}: undecided, {{ref}}`rulebook "
            "<rulebook-rounding>`): the stored executions on other CPUs and "
            "instruction sets do not all give this one's verdict, so the evidence "
            "does not decide it."
            if flipped
            else "No check turns on rounding over the stored executions "
            "({ref}`rulebook <rulebook-rounding>`)."
        )
    )


def _depth_reading(r, rec: dict) -> str:
    """The depth network's run for run (``r``, its record ``rec``) in words."""
    lo, hi = int(r.identical.min()), int(r.identical.max())
    frac = r.part_loss / r.theirs[:, 0]
    text = (
        f"**The depth network.** On seeds {_join(r.seeds)} the runs are equal bit "
        f"for bit for {lo}–{hi} epochs and within relative {SAME_START_TOL:g} until "
        f"epochs {_join(r.part.tolist())}"
    )
    if np.isfinite(frac).any():
        lo_f, hi_f = (f"{100 * x:.0f}" for x in (np.nanmin(frac), np.nanmax(frac)))
        text += f", where the loss is still {lo_f}{'' if lo_f == hi_f else '–' + hi_f}"
        text += " % of its first"
    text += (
        f": they share the first drop "
        f"(|d ln L / d ln t| up to {r.steepest.max():.0f}), and part after it. "
        "After they part, rounding moves the later drops by "
        f"(engine minus script, epochs, per seed) {_shifts(r)}: up to "
        f"{np.nanmax(np.abs(r.shift)):.0f} epochs, the kind of shift the "
        "{doc}`depth page <depth>` measures as the rounding floor of the same "
        "network (its *Rounding* paragraph, over more seeds and sums), differing "
        "from seed to seed and machine to machine, so they are read against a "
        "spread: the time gaps "
        f"{_join(r.gaps, '{:.4f}')} against the engine's own seed spread "
    )
    spread = rec.get("spread")
    text += f"{spread:.4f}." if isinstance(spread, float) else "(none)."
    if r.censored or r.censored_reference:
        text += (
            " A level one run reaches and the other does not within the run makes "
            "that seed's gap a lower bound, which cannot show agreement: the "
            "record's `levels` variant reads the gap at the levels both reach."
        )
    return text


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
    tol = SAME_START_TOL
    return {
        "runs": _runs_table(results), "conventions": _conventions_table(results),
        "headline": _headline_table(results, recs), "claims": claims_table(claims),
        "closing": _closing(results, recs),
        "same_start": _same_start_table(results, recs, tol),
        "same_start_text": _same_start_text(results, recs, tol),
    }  # fmt: skip


def spread_text(title: str, c, check) -> str:
    """The paragraph on the two implementations' seed spreads of one experiment: its
    :class:`~.comparison.Comparison` ``c`` against the engine's spread on more seeds
    (``check``, a :class:`~.experiments.SpreadCheck`)."""
    k, subs = check.k, check.subsets
    n = len(check.seeds)
    q5, q50, q95 = np.quantile(subs, [0.05, 0.5, 0.95])
    apart = (
        c.interval_ours[0] > c.interval_theirs[1]
        or c.interval_theirs[0] > c.interval_ours[1]
    )
    return (
        f"**{title}.** Over its first {k} seeds the engine's "
        f"ReLU spread is {c.spread_ours:.4f} and the scripts' {c.spread_theirs:.4f} "
        f"(ratio {c.spread_ours / c.spread_theirs:.1f}); their bootstrap intervals "
        f"over seeds are {span(c.interval_ours)} and "
        f"{span(c.interval_theirs)}, which {'do not ' if apart else ''}overlap. "
        f"Over {n} seeds the engine's spread is {check.all_spread:.4f}, and the spread "
        f"of every {k} of its seeds ranges over {q5:.4f}–{q95:.4f} (5 and 95 % of "
        f"{len(subs)} subsets, median {q50:.4f}): the engine's first {k} seeds lie at "
        f"{100 * np.mean(subs <= c.spread_ours):.0f} % of that range and the scripts' "
        f"spread at {100 * np.mean(subs <= c.spread_theirs):.0f} %. The time gap of "
        f"the scripts' runs to all {n} engine runs is {check.cross_all:.4f}"
        f"{', below' if check.cross_all <= check.all_spread else ', above'} the "
        "engine's own spread. " + _subset_range_sentence(c, subs, k)
    )


def _subset_range_sentence(c, subs, k: int) -> str:
    """Whether both ``k``-seed spreads of ``c`` lie within the range of the engine's
    ``k``-seed subsets' spreads ``subs``, in words."""
    both = (c.spread_ours, c.spread_theirs)
    sets = f"different sets of {k} seeds ({subs.min():.4f}–{subs.max():.4f})"
    if subs.min() <= min(both) and max(both) <= subs.max():
        return (
            f"Both four-seed spreads lie within the range one implementation gives for "
            f"{sets}: their difference is the seed noise of a {k}-seed spread, which "
            f"the bootstrap over {k} seeds understates."
        )
    return (
        f"A four-seed spread lies outside the range one implementation gives for "
        f"{sets}: the two implementations' seeds do not scatter alike."
    )
