"""The records, tables and sentences of the page *Against the authors' code*
(``book/authors_code.md``), from what the page computed."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ...book import kit
from ...book.records import claims_table
from ...core.measures import LEVELS, Evidence, seed_spread_interval
from .experiments import conventions
from .run_for_run import SAME_START_TOL, SHIFT_LADDER


@dataclass(frozen=True)
class Results:
    """What the page computed: ``runs`` (:class:`helpers.chapters.authors_code.Run`
    by experiment, in the page's order), the stored runs' ``manifest``
    (:func:`helpers.book.crosscheck.manifest`) and ``same_start``
    (:class:`helpers.chapters.authors_code.run_for_run.SameStart` by experiment)."""

    runs: dict
    manifest: dict
    same_start: dict = field(default_factory=dict)

    def title(self, name: str) -> str:
        return self.manifest["experiments"][name]["title"]

    @cached_property
    def conventions(self) -> dict:
        """:func:`helpers.chapters.authors_code.conventions` of the runs."""
        return conventions(self.runs)


def _interval(i) -> str:
    return f"[{i[0]:.4f}, {i[1]:.4f}]"


def evidence(c) -> dict:
    """The two records' evidence of one :class:`Comparison` ``c``: the engine's ReLU
    curves against the scripts' (``relu``), and the ReLU-GDLN gap of the engine
    against the scripts' (``relu_gdln``), each against the smaller of the two
    implementations' seed spreads, with that spread's own interval."""
    theirs_smaller = c.spread_theirs <= c.spread_ours
    rg_theirs_smaller = c.rg_spread_theirs <= c.rg_spread
    return {
        "relu": Evidence(
            c.gap,
            spread=min(c.spread_theirs, c.spread_ours),
            spread_interval=c.interval_theirs if theirs_smaller else c.interval_ours,
            criterion="seed_noise",
            time_gap=True,
        ),
        "relu_gdln": Evidence(
            kit.med(c.rg_ours),
            spread=min(c.rg_spread, c.rg_spread_theirs),
            spread_interval=seed_spread_interval(
                c.rg_theirs if rg_theirs_smaller else c.rg_ours
            ),
            per_seed=tuple(float(g) for g in c.rg_ours),
            compared=kit.med(c.rg_theirs),
            criterion="near",
            time_gap=True,
        ),
    }


def _notes(c) -> dict:
    return {
        "relu": "time gap, the script's ReLU curves against the engine's, median over "
        f"{c.seeds} x {c.seeds} pairs; seed spreads {c.spread_theirs:.4f} (scripts) "
        f"and {c.spread_ours:.4f} (engine), the smaller is the yardstick.",
        "relu_gdln": "time gap ReLU network vs GDLN, median over seeds: engine (value) "
        "against scripts (compared); seed spreads of the per-seed gaps "
        f"{c.rg_spread_theirs:.4f} (scripts) and {c.rg_spread:.4f} (engine), the "
        "smaller is the yardstick.",
    }


def _runs_table(res: Results) -> str:
    man = res.manifest
    rows = []
    for name, r in res.runs.items():
        e = man["experiments"][name]
        sec = [kit.med(e["scripts"][k]["seconds"]) for k in ("relu", "gdln")]
        rows.append(
            [e["title"], r.setup.where, len(r.seeds), r.setup.epochs]
            + [f"{sec[0]:.0f}, {sec[1]:.0f}"]
        )
    headers = ["experiment", "the authors' scripts", "seeds", "updates"]
    first = man["experiments"][next(iter(res.runs))]
    return (
        kit.table(rows, headers + ["seconds per run (ReLU, GDLN)"])
        + f"\n\nStored from commit `{man['commit'][:7]}` with JAX {first['jax']} "
        "(the authors pinned 0.4.28)."
    )


def _conventions_table(res: Results) -> str:
    rows = []
    for name, r in res.runs.items():
        c, v = r.comparison, res.conventions[name]
        rows.append(
            [name, f"{v['first_ratio']:.6f}", f"{v['target_ratio']:.6f}"]
            + [f"{c.gap:.4f}", f"{v['shift_gap']:.4f}"]
            + [f"{c.final_theirs:.3g}, {c.final_ours:.3g}"]
        )
    headers = ["experiment", "first loss: scripts / engine", "scripts / (1/2 ‖Y‖²)"]
    headers += ["ReLU gap", "gap without the one-epoch shift"]
    return kit.table(rows, headers + ["final ReLU loss: scripts, engine"])


def _headline_table(res: Results, recs: dict) -> str:
    rows = []
    for name, r in res.runs.items():
        c = r.comparison
        v = [recs[f"relu_{name}"]["verdict"], recs[f"relu_gdln_{name}"]["verdict"]]
        rows.append(
            [res.title(name), f"{c.gap:.4f}"]
            + [f"{c.spread_theirs:.4f} {_interval(c.interval_theirs)}"]
            + [f"{c.spread_ours:.4f} {_interval(c.interval_ours)}"]
            + [f"{kit.med(c.rg_theirs):.4f} (spread {c.rg_spread_theirs:.4f})"]
            + [f"{kit.med(c.rg_ours):.4f} (spread {c.rg_spread:.4f})"]
            + [f"{v[0]}, {v[1]}"]
        )
    headers = ["experiment", "ReLU: scripts vs engine", "seed spread, scripts"]
    headers += ["seed spread, engine", "ReLU vs GDLN, scripts", "ReLU vs GDLN, engine"]
    return (
        kit.table(rows, headers + ["verdicts"])
        + "\n\nTime gaps (`helpers.core.measures.time_gap`: the largest `|ln t_a/t_b|` "
        "over the epochs at which each curve reaches 50, 10, 1 and 0.1 % of its "
        "first loss), medians over seeds; in brackets, the 90 % bootstrap interval "
        "over seeds of each ReLU seed spread."
    )


def _closing(res: Results, recs: dict) -> str:
    comp = {n: r.comparison for n, r in res.runs.items()}
    conv = res.conventions
    failed = [k for k, r in recs.items() if r["verdict"] != "check"]
    worst = max(
        comp,
        key=lambda n: comp[n].gap / min(comp[n].spread_theirs, comp[n].spread_ours),
    )
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


def same_start_evidence(r) -> Evidence:
    """The record of one experiment run for run (:class:`SameStart` ``r``): the largest
    over seeds of the time gap between the script's curve and the engine's of the same
    seed and start, held against the rulebook's ``gap`` (the same equations, computed
    twice)."""
    return Evidence(
        float(np.max(r.gaps)),
        per_seed=tuple(float(g) for g in r.gaps),
        criterion="gap",
        censored=r.censored,
        censored_reference=r.censored_reference,
        time_gap=True,
    )


def _pct(f: float) -> str:
    return f"{100 * f:g} %"


def _worst_shift(r) -> tuple:
    """``(|shift| in epochs, seed, level)`` of the largest shift of :class:`SameStart`
    ``r`` at the loss levels both curves reach; ``(nan, None, None)`` if none."""
    S = np.abs(r.shift)
    if not np.isfinite(S).any():
        return float("nan"), None, None
    i, k = np.unravel_index(np.nanargmax(S), S.shape)
    return float(S[i, k]), r.seeds[i], LEVELS[k]


def _same_start_note(r) -> str:
    w, seed, level = _worst_shift(r)
    where = (
        f"largest shift at the loss levels {w:.1f} epochs (seed {seed}, "
        f"{_pct(level)} level)"
        if seed is not None
        else "no loss level reached by both"
    )
    parts = ", ".join(f"{p}" if p < r.epochs else "never" for p in r.part.tolist())
    return (
        f"seeds {r.seeds}: equal bit for bit for the first "
        f"{', '.join(str(x) for x in r.identical.tolist())} epochs; first epoch "
        f"beyond relative {SAME_START_TOL:g}: {parts} (of {r.epochs}); {where}; "
        "time gap, largest over seeds."
    )


def _same_start_table(res: Results, recs: dict, tol: float) -> str:
    rows = []
    for name, r in res.same_start.items():
        part = ", ".join(
            f"{p} ({100 * r.part_loss[i] / r.theirs[i, 0]:.0f} %)"
            if p < r.epochs
            else "none"
            for i, p in enumerate(r.part.tolist())
        )
        w, seed, level = _worst_shift(r)
        shift = f"{w:.1f} (seed {seed}, {_pct(level)})" if seed is not None else "—"
        rows.append(
            [res.title(name), ", ".join(map(str, r.seeds)), r.epochs]
            + [", ".join(str(x) for x in r.identical.tolist()), part, shift]
            + [f"{np.max(r.gaps):.2e}", recs[f"same_start_{name}"]["verdict"]]
        )
    headers = ["experiment", "seeds", "updates"]
    headers += ["equal bit for bit for the first ... epochs"]
    headers += [f"first epoch beyond {tol:g} (the script's loss there, % of its first)"]
    headers += ["largest shift at the loss levels (epochs)", "time gap, largest"]
    return (
        kit.table(rows, headers + ["verdict"])
        + "\n\nEpochs are the scripts' (`losses[epoch]`, the loss after that epoch's "
        "update). Shift: engine minus script of the epoch at which each reaches "
        f"{', '.join(_pct(f) for f in LEVELS)} of its first loss "
        "(`helpers.core.measures.level_times`), the largest over the levels both "
        "reach and the seeds; time gap: `helpers.core.measures.time_gap`."
    )


def same_start_text(res: Results, recs: dict, tol: float) -> str:
    """The reading of the section *Run for run*, from its numbers: what the engine from
    the scripts' own weights shows, against the two-set comparison above and against
    what a review reported for the depth network.

    Defined for the page book/authors_code.md.

    Args:
        res: :class:`Results` with ``same_start``.
        recs: the page's stored records (``same_start_*`` and ``relu_*``).
        tol: the relative tolerance of agreement
            (:data:`helpers.chapters.authors_code.SAME_START_TOL`).

    Returns:
        Markdown paragraphs.
    """
    same = res.same_start
    if not same:
        return ""
    ident = np.concatenate([r.identical for r in same.values()])
    parted = [
        (r.part_loss[i] / r.theirs[i, 0], name)
        for name, r in same.items()
        for i in range(len(r.seeds))
        if r.part[i] < r.epochs
    ]
    held = sum(recs[f"same_start_{n}"]["verdict"] == "check" for n in same)
    gaps = {n: float(np.max(r.gaps)) for n, r in same.items()}
    worst = max(gaps, key=gaps.get)
    spreads = {n: recs[f"relu_{n}"]["spread"] for n in same if f"relu_{n}" in recs}
    text = [
        f"**{held} of {len(same)} run-for-run checks hold.** Started from the "
        "scripts' own initial weights, the engine's ReLU loss equals the script's "
        f"bit for bit for the first {ident.min()}–{ident.max()} epochs (over "
        f"experiments and seeds), then differs by float rounding, which stays below "
        f"{tol:g} of the loss "
        + (
            f"until the two runs part at losses between "
            f"{100 * min(p for p, _ in parted):.0f} % and "
            f"{100 * max(p for p, _ in parted):.0f} % of the first."
            if parted
            else "to the end of every run."
        )
        + f" The largest time gap is {worst}'s, {gaps[worst]:.2e}"
    ]
    if worst in spreads:
        ratio = spreads[worst] / gaps[worst] if gaps[worst] > 0 else float("inf")
        text.append(
            f", {ratio:.0f} times below that experiment's seed spread "
            f"({spreads[worst]:.4f}, the yardstick of the two sets of seeds above): "
            "the engine is the scripts' computation, and the gap between the two sets "
            "of seeds above is the gap between their initial draws."
        )
    else:
        text.append(".")
    text.append("\n\n" + _any_machine(same, recs, ident))
    if "depth" in same:
        text.append("\n\n" + _depth_reading(same["depth"]))
    return "".join(text)


def _any_machine(same: dict, recs: dict, ident) -> str:
    """The paragraph *On any machine* of the section *Run for run*."""
    flipped = [
        n
        for n in same
        if "rounding" in (recs[f"same_start_{n}"].get("depends_on") or [])
    ]
    return (
        "**On any machine.** The scripts' curves were stored on one machine "
        "(`book/authors_runs/manifest.json`); the engine re-runs here. What holds on "
        "any machine is that the engine is the scripts' computation: equal bit for "
        "bit until float32 rounding parts two runs of one program on two CPUs (the "
        f"epoch count above, {ident.min()}–{ident.max()} on this execution's "
        "machine, is that machine's), then apart by rounding alone. "
        + (
            f"{len(flipped)} of the {len(same)} checks turn on rounding "
            f"({', '.join(flipped)}: undecided, {{ref}}`rulebook "
            "<rulebook-rounding>`): they hold on one machine and fail on another, so "
            "the evidence does not decide them."
            if flipped
            else "No check turns on rounding over the stored executions "
            "({ref}`rulebook <rulebook-rounding>`)."
        )
    )


def _depth_reading(r) -> str:
    """The depth network's run for run against a review's report of the same
    experiment (the book's science review of 2026-11-26, its run R1: equal bit for bit
    for 3000 epochs, within one epoch through the first two drops, parting at the
    last drop by float rounding), in words generated from ``r``
    (:class:`SameStart`)."""
    lo, hi = int(r.identical.min()), int(r.identical.max())
    frac = r.part_loss / r.theirs[:, 0]
    shifts = np.abs(r.shift)
    reached = [k for k in range(len(LEVELS)) if np.isfinite(shifts[:, k]).any()]
    worst = [float(np.nanmax(shifts[:, k])) for k in reached]
    per_level = "; ".join(f"{_pct(LEVELS[k])}: {w:.1f}" for k, w in zip(reached, worst))
    longer = "longer than" if lo >= 3000 else "shorter than"
    text = (
        "**The depth network, against a review.** The book's science review of "
        "2026-11-26 ran the engine from the depth script's weights and reported the "
        "two runs equal bit for bit for 3000 epochs, within one epoch through the "
        "first two drops of the loss, and parting at the last drop by float "
        f"rounding. Here, on seeds {', '.join(map(str, r.seeds))}, they are equal "
        f"bit for bit for {lo}–{hi} epochs, {longer} the review's 3000"
    )
    if np.isfinite(frac).any():
        text += (
            f"; they stay within relative {SAME_START_TOL:g} until epochs "
            f"{int(np.min(r.part))}–{int(np.max(r.part[np.isfinite(frac)]))}, where "
            f"the loss is down to {100 * np.nanmin(frac):.0f}–"
            f"{100 * np.nanmax(frac):.0f} % of its first"
        )
    low = r.within_one_epoch()
    text += (
        ". "
        + (
            f"They reach every loss level from {_pct(SHIFT_LADDER[0])} down to "
            f"{_pct(low)} of the first within one epoch of each other"
            if low is not None
            else f"Already at {_pct(SHIFT_LADDER[0])} of the first loss they are more "
            "than an epoch apart"
        )
        + f"; at the book's loss levels they are at most {per_level} epochs apart "
        "(largest over seeds)."
    )
    if low is not None and max(worst, default=0.0) > 1.0:
        text += (
            " Rounding alone, with no difference of the computation, thus shifts the "
            f"later part of the curve by up to {max(worst):.0f} epochs."
        )
        if np.isfinite(frac).any() and np.nanmax(frac) > LEVELS[1]:
            text += (
                " The review is right that the runs first agree within an epoch and "
                "that rounding moves the late drops; it places the parting too "
                f"late: the relative difference passes {SAME_START_TOL:g} while the "
                f"loss is still {100 * np.nanmin(frac):.0f}–"
                f"{100 * np.nanmax(frac):.0f} % of its first, and the shift passes "
                f"an epoch below {_pct(low)}, long before the loss reaches "
                f"{_pct(LEVELS[1])} of its first."
            )
    return text


def _records(res: Results) -> list:
    """The page's records as ``(name, evidence, note)``, in the page's order."""
    out = []
    for name, r in res.runs.items():
        ev, notes = evidence(r.comparison), _notes(r.comparison)
        out += [(f"{k}_{name}", ev[k], notes[k]) for k in ("relu", "relu_gdln")]
    for name, r in res.same_start.items():
        out.append((f"same_start_{name}", same_start_evidence(r), _same_start_note(r)))
    return out


def _claims(res: Results) -> list:
    """``(record name, claim)`` of the closing table, in the page's order."""
    out = []
    for name in res.runs:
        title = res.title(name)
        out += [
            (f"relu_{name}", f"{title}: the engine's ReLU network is the script's"),
            (f"relu_gdln_{name}", f"{title}: the same ReLU-GDLN gap"),
        ]
    for name in res.same_start:
        claim = f"{res.title(name)}: from the script's own weights, the same run"
        out.append((f"same_start_{name}", claim))
    return out


def report(rec, results: Results) -> dict:
    """Write the page's records and build its tables and closing sentences.

    Defined for the page book/authors_code.md.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records`.
        results: :class:`Results`, what the page computed.

    Returns:
        ``{name: Markdown}``: ``runs`` (the experiments and their stored runs),
        ``conventions`` (the four conventions, checked), ``headline`` (the numbers
        behind the records), ``claims`` (the closing table of the records) and
        ``closing`` (what the comparison says), ``same_start`` (the table of the
        runs from the scripts' own weights) and ``same_start_text`` (its reading).
        The records are saved.
    """
    recs = kit.add_all(rec, _records(results))
    claims = [(claim, "—", recs[key]) for key, claim in _claims(results)]
    rec.save()
    return {
        "runs": _runs_table(results),
        "conventions": _conventions_table(results),
        "headline": _headline_table(results, recs),
        "claims": claims_table(claims),
        "closing": _closing(results, recs),
        "same_start": _same_start_table(results, recs, SAME_START_TOL),
        "same_start_text": same_start_text(results, recs, SAME_START_TOL),
    }


def spread_text(title: str, c, check) -> str:
    """The paragraph on the two implementations' seed spreads of one experiment: its
    :class:`Comparison` ``c`` against the engine's spread on more seeds (``check``,
    a :class:`helpers.chapters.authors_code.SpreadCheck`)."""
    k, subs = check.k, check.subsets
    n = len(check.seeds)
    q5, q50, q95 = np.quantile(subs, [0.05, 0.5, 0.95])
    apart = (
        c.interval_ours[0] > c.interval_theirs[1]
        or c.interval_theirs[0] > c.interval_ours[1]
    )
    inside = (
        subs.min() <= min(c.spread_ours, c.spread_theirs)
        and max(c.spread_ours, c.spread_theirs) <= subs.max()
    )
    return (
        f"**{title}.** Over its first {k} seeds the engine's "
        f"ReLU spread is {c.spread_ours:.4f} and the scripts' {c.spread_theirs:.4f} "
        f"(ratio {c.spread_ours / c.spread_theirs:.1f}); their bootstrap intervals "
        f"over seeds are {_interval(c.interval_ours)} and "
        f"{_interval(c.interval_theirs)}"
        f"{', which do not overlap' if apart else ', which overlap'}. "
        f"Over {n} seeds the engine's spread is {check.all_spread:.4f}, and the spread "
        "of "
        f"every {k} of its seeds ranges over {q5:.4f}–{q95:.4f} (5 and 95 % of "
        f"{len(subs)} subsets, median {q50:.4f}): the engine's first {k} seeds lie at "
        f"{100 * np.mean(subs <= c.spread_ours):.0f} % of that range and the scripts' "
        f"spread at {100 * np.mean(subs <= c.spread_theirs):.0f} %. The time gap of "
        f"the scripts' runs to all {n} engine runs is {check.cross_all:.4f}"
        f"{', below' if check.cross_all <= check.all_spread else ', above'} the "
        "engine's own spread. "
        + (
            f"Both four-seed spreads lie within the range one implementation gives for "
            f"different sets of {k} seeds ({subs.min():.4f}–{subs.max():.4f}): their "
            f"difference is the seed noise of a {k}-seed spread, which the bootstrap "
            f"over {k} seeds understates."
            if inside
            else f"A four-seed spread lies outside the range one implementation gives "
            f"for different sets of {k} seeds ({subs.min():.4f}–{subs.max():.4f}): the "
            "two implementations' seeds do not scatter alike."
        )
    )
