"""The records, glue, reading and closing table of the page book/more_contexts.md,
from the page's runs (:class:`Runs`) and parameters (:class:`Params`)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ...book import kit
from ...book.notebook import glue
from ...book.records import claims_table
from ...core.families import family_name, onehot_fraction
from ...core.measures import Evidence, seed_spread
from .census import census_views
from .races import other_rule, tied_with_best


@dataclass
class Params:
    """The page's parameters the report reads (``hidden``: ``{C: ReLU width}``, its
    keys the page's C)."""

    seeds: list
    hidden: dict
    reln_width: int
    width_rule: str
    race_form: str
    form_check_C: int
    sim_check_from: int
    family_min_share: float


@dataclass
class Runs:
    """The page's runs and races per C: the ReLU census
    (:func:`helpers.chapters.more_contexts.census.train_relu`) and snap change, the
    one-hot census, the race's census under the two width rules
    (:func:`helpers.chapters.more_contexts.races.race_census`), what the race's form
    moves (``None`` where not measured), the family fits under the two width rules
    (``family_fit``) and the race against the trained ReLN (``race_follows_reln``)."""

    census: dict
    snap: dict
    onehot: dict
    race: dict
    race_other: dict
    form_move: dict | None
    fit: dict
    fit_other: dict
    sim_gap: dict


@dataclass
class _Page(Runs, Params):
    """The page's parameters and runs, with what the report derives from them by the
    page's own functions (under the page's names)."""

    CS: list
    BY_K: dict
    FUNC: dict
    FRAC: dict
    TIES: dict
    TIES_OTHER: dict
    OTHER: str


def _page(p: Params, runs: Runs) -> _Page:
    BY_K, FUNC, FRAC = census_views(runs.census)
    return _Page(
        **vars(runs),
        **vars(p),
        CS=list(p.hidden),
        BY_K=BY_K,
        FUNC=FUNC,
        FRAC=FRAC,
        TIES={C: tied_with_best(m, m.spread) for C, m in runs.fit.items()},
        TIES_OTHER={C: tied_with_best(m, m.spread) for C, m in runs.fit_other.items()},
        OTHER=other_rule(p.width_rule),
    )


def _glue(r: _Page) -> None:
    other = {"factors": "matrix", "matrix": "factors"}[r.race_form]
    C = max(r.CS)
    k = max(C - 2, 1)
    units = r.reln_width * (1 + len(list(combinations(range(C), k))))
    glue(
        "mc_width_example",
        f"at C = {C} the {family_name([k], C)} ReLN has {units} units "
        f"against the ReLU network's {r.hidden[C]}",
    )
    glue("mc_check_C", str(r.form_check_C))
    glue("mc_sim_from", str(r.sim_check_from))
    glue("mc_min_share", f"{r.family_min_share:.0%}")
    F = r.form_move
    glue(
        "mc_form_move",
        f"not measured (C = {r.form_check_C} is not among the races)"
        if F is None
        else f"at C = {F['C']} the {other} form moves the race's loss by a time gap "
        f"of {F['time gap']:.4f} and its class shares by at most "
        f"{F['largest class share change']:.4f}",
    )


def _census_records(r: _Page) -> list[tuple]:
    """The ReLU network's census by class, through the function, and the fraction
    of contexts a unit serves."""
    CS, BY_K, FUNC, FRAC, spr = r.CS, r.BY_K, r.FUNC, r.FRAC, seed_spread
    census = (
        "census_by_class",
        Evidence(
            {
                f"C{C}": {
                    **{f"k{k}": kit.med(BY_K[C][:, -1, k]) for k in range(1, C + 1)},
                    "seed spread": max(spr(BY_K[C][:, -1, k]) for k in range(1, C + 1)),
                }
                for C in CS
            },
            spread=max(spr(BY_K[C][:, -1, k]) for C in CS for k in range(1, C + 1)),
        ),
        f"final share of the ReLU network's weight in units on in k of the C "
        f"contexts (k = C: common), median over {len(r.seeds)} seeds; seed spread: "
        "the largest over the classes of that C.",
    )
    functional = (
        "census_functional",
        {
            f"C{C}": {
                **{f"k{k}": kit.med(FUNC[C][:, -1, k]) for k in range(1, C + 1)},
                "snap change": kit.med(r.snap[C][:, -1]),
            }
            for C in CS
        },
        "the same census through the function (each unit snapped to its "
        "context-level gate) and the snap change, last epoch, median over seeds",
    )
    fraction = (
        "fraction_served",
        Evidence(
            {
                f"C{C}": {
                    "median": kit.med(FRAC[C][:, -1]),
                    "seed spread": spr(FRAC[C][:, -1]),
                    "(C-1)/C": (C - 1) / C,
                    "one-hot contexts": kit.med(_onehot_fraction(r, C)),
                }
                for C in CS
            },
            spread=max(spr(FRAC[C][:, -1]) for C in CS),
        ),
        "weighted fraction of the C contexts a ReLU unit is on in, last epoch, "
        "median over seeds; a pure (C-1)-of-C code gives (C-1)/C; 'one-hot "
        "contexts': the same for the ReLU network trained with a one-hot context "
        "input (the paper's setup; the authors' data scale it to 1.1 and 1.35, this "
        "page from C = 4 on)",
    )
    return [census, functional, fraction]


def _race_records(r: _Page) -> list[tuple]:
    """The race reduction's census, what its form moves, the race against the
    trained ReLN and the family fits."""
    BY_K = r.BY_K
    peak = {C: int(np.argmax(np.median(BY_K[C][:, -1, 1:C], axis=0))) + 1 for C in r.CS}
    race_peak = {C: int(np.argmax(r.race[C][1:C])) + 1 for C in r.race}
    other_peak = {C: int(np.argmax(r.race_other[C][1:C])) + 1 for C in r.race_other}
    race = {
        f"C{C}": {
            **{f"k{k}": float(v[k]) for k in range(1, C + 1)},
            r.OTHER: {f"k{k}": float(r.race_other[C][k]) for k in range(1, C + 1)},
        }
        for C, v in r.race.items()
    }
    out = [
        (
            "race_census",
            race,
            "share of the race reduction's final output maps by class (ReLN of every "
            "context pathway, one-way, every pathway at the ReLU std, "
            f"{_rule_words(r.width_rule)}), integrated in the {r.race_form} form; "
            "agreement of the most weighted context class with the ReLU network's: "
            + ", ".join(f"C{C} {race_peak[C] == peak[C]}" for C in r.race)
            + f"; with {_rule_words(r.OTHER)} (under '{r.OTHER}'): "
            + ", ".join(f"C{C} {other_peak[C] == peak[C]}" for C in r.race_other),
        )
    ]
    form = r.race_form
    if r.form_move is not None:
        other = {"factors": "matrix", "matrix": "factors"}[form]
        note = (
            f"the all-pathway race at C = {r.form_move['C']}, {other} form against "
            f"{form} form: the time gap of the losses and the largest change of a "
            "class share"
        )
        out.append(("race_form_sensitivity", r.form_move, note))
    if r.sim_gap:
        note = (
            "time gap, the trained (C-1)-of-C ReLN (seed 0, matched start, one-way) "
            f"vs its race in the {form} form, largest over C: "
            + ", ".join(f"C{C} {g:.4f}" for C, g in r.sim_gap.items())
        )
        gap = Evidence(max(r.sim_gap.values()), criterion="gap")
        out.append(("race_follows_reln", gap, note))
    return out + [_fit_record(r)]


def _fit_record(r: _Page) -> tuple:
    """The ReLU network's loss against the race of each ReLN of the family."""
    moved = [C for C in r.fit if r.fit[C].best != r.fit_other[C].best]
    fits = {
        f"C{C}": {
            **m.candidates,
            "seed spread": m.spread,
            r.OTHER: dict(r.fit_other[C].candidates),
        }
        for C, m in r.fit.items()
    }
    return (
        "best_reln",
        fits,
        "time gap, ReLU network vs the race reduction of each ReLN (median over "
        f"seeds), every member {_rule_words(r.width_rule)}; nearest and those "
        "within the seed spread of it: "
        + "; ".join(f"C{C} {', '.join(r.TIES[C])}" for C in r.fit)
        + f". With {_rule_words(r.OTHER)} (under '{r.OTHER}'): "
        + "; ".join(f"C{C} {', '.join(r.TIES_OTHER[C])}" for C in r.fit_other)
        + ". The nearest member depends on the width convention at "
        + (", ".join(f"C = {C}" for C in moved) or "no C")
        + ".",
    )


def _rule_words(rule: str) -> str:
    return {
        "total": "as wide as the ReLU network (its units shared out, Appendix F)",
        "per_pathway": "the paper's 100 units in every pathway",
    }[rule]


def _onehot_fraction(r: _Page, C: int) -> np.ndarray:
    return onehot_fraction(r.onehot, C, r.FRAC[C][:, -1])


def _variants_reading(r: _Page) -> str:
    """The page's reading of its two variants: the width rule and one-hot input."""
    lines = []
    for C in r.fit:
        paper = family_name([C - 1], C)
        a, b = r.TIES[C], r.TIES_OTHER[C]
        if a != b:
            where = "among" if paper in a else "not among"
            lines.append(
                f"C = {C}: nearest {', '.join(a)} ('{r.width_rule}') against "
                f"{', '.join(b)} ('{r.OTHER}'); the paper's {paper} is {where} the "
                f"nearest under '{r.width_rule}'"
            )
    width = (
        "**Width.** The nearest ReLNs change with the width convention at "
        + "; ".join(lines)
        + "."
        if lines
        else "**Width.** The nearest ReLNs are the same under both width conventions."
    )
    frac = {
        C: (kit.med(r.FRAC[C][:, -1]), kit.med(_onehot_fraction(r, C))) for C in r.CS
    }
    Cs = list(frac)
    d1 = frac[Cs[-1]][1] - frac[Cs[0]][1]
    onehot = (
        "**Input.** On one-hot contexts the fraction of contexts a unit serves is "
        + ", ".join(
            f"{v[1]:.3f} (C = {C}; {v[0]:.3f} with the input above)"
            for C, v in frac.items()
        )
        + f"; from C = {Cs[0]} to {Cs[-1]} it "
        + ("rises" if d1 > 0 else "falls")
        + f" by {abs(d1):.3f}."
    )
    return width + "\n\n" + onehot


def _summary(R: dict) -> str:
    return claims_table(
        [
            ("ReLU census by class, C = 2..8", "—", R["census_by_class"]),
            ("Fraction of contexts a unit serves", "—", R["fraction_served"]),
            ("The ReLU census through the function", "—", R["census_functional"]),
            ("The race reduction's census", "—", R["race_census"]),
            ("The ReLN nearest the ReLU network's loss", "—", R["best_reln"]),
            *(
                [("What the race's form moves", "—", R["race_form_sensitivity"])]
                if "race_form_sensitivity" in R
                else []
            ),
            *(
                [("The race follows the trained ReLN", "—", R["race_follows_reln"])]
                if "race_follows_reln" in R
                else []
            ),
        ]
    )


def reading(frac: dict, by_k: dict, ties: dict, race_shares: dict) -> str:
    """The page's answer, generated from its records: per C the fraction of contexts
    a ReLU unit serves (median and seed spread) against the pure (C-1)/C, the class
    with the most weight, and whether the paper's (C-1)-of-C ReLN is among the
    nearest ReLNs; then the direction of the fraction from the smallest to the largest
    C, judged against the seed spreads."""
    lines, meds, spreads = [], {}, {}
    for C, F in frac.items():
        final = np.asarray(F)[:, -1]
        meds[C], spreads[C] = float(np.median(final)), seed_spread(final)
        shares = np.median(np.asarray(by_k[C])[:, -1, 1:C], axis=0)
        peak = int(np.argmax(shares)) + 1
        paper = family_name([C - 1], C)
        tie = ties.get(C)
        fit = (
            ""
            if tie is None
            else "; the paper's ReLN is "
            + ("among the nearest" if paper in tie else "not among the nearest")
            + f" ({', '.join(tie)})"
        )
        race_peak = ""
        if C in race_shares:
            k_race = int(np.argmax(race_shares[C][1:C])) + 1
            race_peak = f"; the race's most weighted class: {k_race}-of-{C}"
        lines.append(
            f"- C = {C}: fraction {meds[C]:.3f} (seed spread {spreads[C]:.3f}; pure "
            f"(C-1)/C = {(C - 1) / C:.3f}); most weight in {peak}-of-{C} units"
            + race_peak
            + fit
            + "."
        )
    Cs = list(frac)
    lo, hi = Cs[0], Cs[-1]
    d = meds[hi] - meds[lo]
    noise = max(spreads[lo], spreads[hi])
    below = [C for C in Cs if (C - 1) / C - meds[C] > spreads[C]]
    trend = (
        "stays within the seed spread"
        if abs(d) <= noise
        else ("rises" if d > 0 else "falls")
        + f" by {abs(d):.3f} (more than the seed spread {noise:.3f})"
    )
    head = (
        f"From C = {lo} to C = {hi} the fraction of contexts a unit serves {trend}; it "
        f"lies below the pure (C-1)/C by more than the seed spread at C = "
        + (", ".join(str(C) for C in below) or "none")
        + "."
    )
    return head + "\n\n" + "\n".join(lines)


def report(rec, params: Params, runs: Runs) -> dict:
    """Write the page's records and glue, and build its reading and closing table.

    Defined for the page book/more_contexts.md.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records`.
        params: the page's parameters (:class:`Params`).
        runs: the page's runs (:class:`Runs`).

    Returns:
        ``{"records": {key: stored record}, "reading": the page's answer as
        Markdown, "summary": the closing table as Markdown}``; the records are
        saved.
    """
    r = _page(params, runs)
    _glue(r)
    R = kit.add_all(rec, _census_records(r) + _race_records(r))
    rec.save()
    return {
        "records": R,
        "reading": "**Reading.** "
        + reading(r.FRAC, r.BY_K, r.TIES, r.race)
        + "\n\n"
        + _variants_reading(r),
        "summary": _summary(R),
    }
