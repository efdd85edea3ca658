"""The records, glue and closing table of the page *More contexts than five*
(``book/more_contexts.md``), from what the page computed (:class:`Results`)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from itertools import combinations

import numpy as np

from ...book.notebook import glue
from ...book.records import claims_table
from ...core.measures import Evidence, seed_spread

__all__ = ["Results", "report"]


@dataclass
class Results:
    """What the page computed, by the page's own names; :meth:`collect` picks them
    from the page's namespace."""

    CS: list
    SEEDS: list
    race_form: str
    form_check_C: int
    sim_check_from: int
    family_min_share: float
    BY_K: dict
    FUNC: dict
    FRAC: dict
    SNAP: dict
    RACE: dict
    FORM_MOVE: dict | None
    FIT: dict
    TIES: dict
    SIM_GAP: dict
    HIDDEN: dict
    reln_width: int
    width_rule: str
    OTHER: str
    RACE_OTHER: dict
    FIT_OTHER: dict
    TIES_OTHER: dict
    ONEHOT: dict

    @classmethod
    def collect(cls, namespace: dict) -> "Results":
        """The results from a namespace holding every field by name (the page's
        ``globals()``)."""
        return cls(**{f.name: namespace[f.name] for f in fields(cls)})


def _med(x) -> float:
    return float(np.median(x))


def _glue(r: Results) -> None:
    from . import family_name

    other = {"factors": "matrix", "matrix": "factors"}[r.race_form]
    C = max(r.CS)
    k = max(C - 2, 1)
    units = r.reln_width * (1 + len(list(combinations(range(C), k))))
    glue(
        "mc_width_example",
        f"at C = {C} the {family_name([k], C)} ReLN has {units} units "
        f"against the ReLU network's {r.HIDDEN[C]}",
    )
    glue("mc_check_C", str(r.form_check_C))
    glue("mc_sim_from", str(r.sim_check_from))
    glue("mc_min_share", f"{r.family_min_share:.0%}")
    F = r.FORM_MOVE
    glue(
        "mc_form_move",
        f"not measured (C = {r.form_check_C} is not among the races)"
        if F is None
        else f"at C = {F['C']} the {other} form moves the race's loss by a time gap "
        f"of {F['time gap']:.4f} and its class shares by at most "
        f"{F['largest class share change']:.4f}",
    )


def _records(rec, r: Results) -> dict:
    CS, BY_K, FUNC, FRAC, spr = r.CS, r.BY_K, r.FUNC, r.FRAC, seed_spread
    peak = {C: int(np.argmax(np.median(BY_K[C][:, -1, 1:C], axis=0))) + 1 for C in CS}
    race_peak = {C: int(np.argmax(r.RACE[C][1:C])) + 1 for C in r.RACE}
    R = {}
    R["census"] = rec.add(
        "census_by_class",
        Evidence(
            {
                f"C{C}": {
                    **{f"k{k}": _med(BY_K[C][:, -1, k]) for k in range(1, C + 1)},
                    "seed spread": max(spr(BY_K[C][:, -1, k]) for k in range(1, C + 1)),
                }
                for C in CS
            },
            spread=max(spr(BY_K[C][:, -1, k]) for C in CS for k in range(1, C + 1)),
        ),
        f"final share of the ReLU network's weight in units on in k of the C "
        f"contexts (k = C: common), median over {len(r.SEEDS)} seeds; seed spread: "
        "the largest over the classes of that C.",
    )
    R["functional"] = rec.add(
        "census_functional",
        {
            f"C{C}": {
                **{f"k{k}": _med(FUNC[C][:, -1, k]) for k in range(1, C + 1)},
                "snap change": _med(r.SNAP[C][:, -1]),
            }
            for C in CS
        },
        "the same census through the function (each unit snapped to its "
        "context-level gate) and the snap change, last epoch, median over seeds",
    )
    R["fraction"] = rec.add(
        "fraction_served",
        Evidence(
            {
                f"C{C}": {
                    "median": _med(FRAC[C][:, -1]),
                    "seed spread": spr(FRAC[C][:, -1]),
                    "(C-1)/C": (C - 1) / C,
                    "one-hot contexts": _med(_onehot_fraction(r, C)),
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
    other_peak = {C: int(np.argmax(r.RACE_OTHER[C][1:C])) + 1 for C in r.RACE_OTHER}
    R["race"] = rec.add(
        "race_census",
        {
            f"C{C}": {
                **{f"k{k}": float(v[k]) for k in range(1, C + 1)},
                r.OTHER: {f"k{k}": float(r.RACE_OTHER[C][k]) for k in range(1, C + 1)},
            }
            for C, v in r.RACE.items()
        },
        "share of the race reduction's final output maps by class (ReLN of every "
        "context pathway, one-way, every pathway at the ReLU std, "
        f"{_rule_words(r.width_rule)}), integrated in the {r.race_form} form; "
        "agreement of the most weighted context class with the ReLU network's: "
        + ", ".join(f"C{C} {race_peak[C] == peak[C]}" for C in r.RACE)
        + f"; with {_rule_words(r.OTHER)} (under '{r.OTHER}'): "
        + ", ".join(f"C{C} {other_peak[C] == peak[C]}" for C in r.RACE_OTHER),
    )
    if r.FORM_MOVE is not None:
        other = {"factors": "matrix", "matrix": "factors"}[r.race_form]
        R["form"] = rec.add(
            "race_form_sensitivity",
            r.FORM_MOVE,
            f"the all-pathway race at C = {r.FORM_MOVE['C']}, {other} form against "
            f"{r.race_form} form: the time gap of the losses and the largest change "
            "of a class share",
        )
    if r.SIM_GAP:
        R["sim"] = rec.add(
            "race_follows_reln",
            Evidence(max(r.SIM_GAP.values()), criterion="gap"),
            "time gap, the trained (C-1)-of-C ReLN (seed 0, matched start, one-way) "
            f"vs its race in the {r.race_form} form, largest over C: "
            + ", ".join(f"C{C} {g:.4f}" for C, g in r.SIM_GAP.items()),
        )
    moved = [C for C in r.FIT if r.FIT[C].best != r.FIT_OTHER[C].best]
    R["fit"] = rec.add(
        "best_reln",
        {
            f"C{C}": {
                **m.candidates,
                "seed spread": m.spread,
                r.OTHER: dict(r.FIT_OTHER[C].candidates),
            }
            for C, m in r.FIT.items()
        },
        "time gap, ReLU network vs the race reduction of each ReLN (median over "
        f"seeds), every member {_rule_words(r.width_rule)}; nearest and those within "
        "the seed spread of it: "
        + "; ".join(f"C{C} {', '.join(r.TIES[C])}" for C in r.FIT)
        + f". With {_rule_words(r.OTHER)} (under '{r.OTHER}'): "
        + "; ".join(f"C{C} {', '.join(r.TIES_OTHER[C])}" for C in r.FIT_OTHER)
        + ". The nearest member depends on the width convention at "
        + (", ".join(f"C = {C}" for C in moved) or "no C")
        + ".",
    )
    return R


def _rule_words(rule: str) -> str:
    return {
        "total": "as wide as the ReLU network (its units shared out, Appendix F)",
        "per_pathway": "the paper's 100 units in every pathway",
    }[rule]


def _onehot_fraction(r: Results, C: int) -> np.ndarray:
    """The fraction of contexts a unit serves on one-hot contexts, per seed (the
    page's own run where its input is one-hot already)."""
    if C in r.ONEHOT:
        return r.ONEHOT[C]["per_unit"] / C
    return r.FRAC[C][:, -1]


def _variants_reading(r: Results) -> str:
    """The page's reading of its two variants: the width rule and one-hot input."""
    from . import family_name

    lines = []
    for C in r.FIT:
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
    frac = {C: (_med(r.FRAC[C][:, -1]), _med(_onehot_fraction(r, C))) for C in r.CS}
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
            ("ReLU census by class, C = 2..8", "—", R["census"]),
            ("Fraction of contexts a unit serves", "—", R["fraction"]),
            ("The ReLU census through the function", "—", R["functional"]),
            ("The race reduction's census", "—", R["race"]),
            ("The ReLN nearest the ReLU network's loss", "—", R["fit"]),
            *([("What the race's form moves", "—", R["form"])] if "form" in R else []),
            *(
                [("The race follows the trained ReLN", "—", R["sim"])]
                if "sim" in R
                else []
            ),
        ]
    )


def report(rec, results: Results) -> dict:
    """Write the page's records and glue, and build its reading and closing table.

    Defined for the page book/more_contexts.md.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records`.
        results: what the page computed (:class:`Results`).

    Returns:
        ``{"records": {key: stored record}, "reading": the page's answer as
        Markdown, "summary": the closing table as Markdown}``; the records are
        saved.
    """
    from . import reading

    r = results
    _glue(r)
    R = _records(rec, r)
    rec.save()
    return {
        "records": R,
        "reading": "**Reading.** "
        + reading(r.FRAC, r.BY_K, r.TIES, r.RACE)
        + "\n\n"
        + _variants_reading(r),
        "summary": _summary(R),
    }
