"""The records, tables and sentences of the page *Against the authors' code*
(``book/authors_code.md``), from what the page computed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...book.records import claims_table
from ...core.measures import Evidence, seed_spread_interval


@dataclass(frozen=True)
class Results:
    """What the page computed: ``runs`` (:class:`helpers.chapters.authors_code.Run`
    by experiment, in the page's order), ``conventions``
    (:func:`helpers.chapters.authors_code.conventions` of them) and the stored runs'
    ``manifest`` (:func:`helpers.book.crosscheck.manifest`)."""

    runs: dict
    conventions: dict
    manifest: dict

    def title(self, name: str) -> str:
        return self.manifest["experiments"][name]["title"]


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
            float(np.median(c.rg_ours)),
            spread=min(c.rg_spread, c.rg_spread_theirs),
            spread_interval=seed_spread_interval(
                c.rg_theirs if rg_theirs_smaller else c.rg_ours
            ),
            per_seed=tuple(float(g) for g in c.rg_ours),
            compared=float(np.median(c.rg_theirs)),
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
    rows = [
        "| experiment | the authors' scripts | seeds | updates | seconds per run "
        "(ReLU, GDLN) |",
        "|---|---|---|---|---|",
    ]
    for name, r in res.runs.items():
        e = man["experiments"][name]
        sec = [np.median(e["scripts"][k]["seconds"]) for k in ("relu", "gdln")]
        rows.append(
            f"| {e['title']} | {r.setup.where} | {len(r.seeds)} | {r.setup.epochs} | "
            f"{sec[0]:.0f}, {sec[1]:.0f} |"
        )
    first = man["experiments"][next(iter(res.runs))]
    rows += [
        "",
        f"Stored from commit `{man['commit'][:7]}` with JAX {first['jax']} (the "
        "authors pinned 0.4.28).",
    ]
    return "\n".join(rows)


def _conventions_table(res: Results) -> str:
    rows = [
        "| experiment | first loss: scripts / engine | scripts / (1/2 ‖Y‖²) | "
        "ReLU gap | gap without the one-epoch shift | final ReLU loss: scripts, "
        "engine |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in res.runs.items():
        c, v = r.comparison, res.conventions[name]
        rows.append(
            f"| {name} | {v['first_ratio']:.6f} | {v['target_ratio']:.6f} | "
            f"{c.gap:.4f} | {v['shift_gap']:.4f} | "
            f"{c.final_theirs:.3g}, {c.final_ours:.3g} |"
        )
    return "\n".join(rows)


def _headline_table(res: Results, recs: dict) -> str:
    rows = [
        "| experiment | ReLU: scripts vs engine | seed spread, scripts | seed spread, "
        "engine | ReLU vs GDLN, scripts | ReLU vs GDLN, engine | verdicts |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in res.runs.items():
        c = r.comparison
        v = [recs[f"relu_{name}"]["verdict"], recs[f"relu_gdln_{name}"]["verdict"]]
        rows.append(
            f"| {res.title(name)} | {c.gap:.4f} | "
            f"{c.spread_theirs:.4f} {_interval(c.interval_theirs)} | "
            f"{c.spread_ours:.4f} {_interval(c.interval_ours)} | "
            f"{np.median(c.rg_theirs):.4f} (spread {c.rg_spread_theirs:.4f}) | "
            f"{np.median(c.rg_ours):.4f} (spread {c.rg_spread:.4f}) | "
            f"{v[0]}, {v[1]} |"
        )
    rows += [
        "",
        "Time gaps (`helpers.core.measures.time_gap`: the largest `|ln t_a/t_b|` "
        "over the epochs at which each curve reaches 50, 10, 1 and 0.1 % of its "
        "first loss), medians over seeds; in brackets, the 90 % bootstrap interval "
        "over seeds of each ReLU seed spread.",
    ]
    return "\n".join(rows)


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
        f"The first recorded losses of the scripts and the engine agree to "
        f"{first:.1e} (relative) in every experiment, and equal 1/2 ‖Y‖² to "
        f"{target:.1e}: the same targets and the same summed loss. Without the "
        f"one-epoch shift the ReLU gaps move by at most {shift:.1e}: the recording "
        f"offset is far below the seed noise. The largest ReLU gap relative to the "
        f"seed noise is {worst}'s ({c.gap:.4f} against spreads "
        f"{c.spread_theirs:.4f} and {c.spread_ours:.4f})."
    ]
    if failed:
        text.append(f"Beyond the seed noise: {', '.join(failed)}; see below.")
    return " ".join(text)


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
        ``closing`` (what the comparison says).  The records are saved.
    """
    recs, claims = {}, []
    for name, r in results.runs.items():
        ev, notes = evidence(r.comparison), _notes(r.comparison)
        for key in ("relu", "relu_gdln"):
            recs[f"{key}_{name}"] = rec.add(f"{key}_{name}", ev[key], notes[key])
        title = results.title(name)
        claims += [
            (
                f"{title}: the engine's ReLU network is the script's",
                "—",
                recs[f"relu_{name}"],
            ),
            (f"{title}: the same ReLU-GDLN gap", "—", recs[f"relu_gdln_{name}"]),
        ]
    rec.save()
    return {
        "runs": _runs_table(results),
        "conventions": _conventions_table(results),
        "headline": _headline_table(results, recs),
        "claims": claims_table(claims),
        "closing": _closing(results, recs),
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
