"""The records, glue, reading and closing table of the page book/more_contexts.md."""

from dataclasses import dataclass
from math import comb
from types import SimpleNamespace

import numpy as np

from ...book import kit
from ...book.records import claims_table
from ...book.rulebook import NOISE_MULTIPLE
from ...core.families import family_name, member_widths, onehot_fraction
from ...core.measures import Evidence, seed_spread
from ...core.paper import COMMON_WIDTHS, WIDTH_RULES
from .census import census_views
from .races import other_rule


@dataclass
class Params:
    """The page's parameters the report reads (``hidden``: ``{C: ReLU width}``)."""

    seeds: list
    hidden: dict
    reln_width: int
    width_rule: str
    common_width: str
    race_form: str
    form_check_C: int
    sim_check_from: int
    family_min_share: float


@dataclass
class Runs:
    """The page's runs and races per C (``train_relu``, ``onehot_census``,
    ``race_census``, ``form_move`` or ``None``) and ``family_fit``'s fits by width
    setting: ``{"primary" | "common" | "rule": {C: Fit}}``."""

    census: dict
    snap: dict
    onehot: dict
    race: dict
    form_move: dict | None
    fits: dict


def _setting_words(rule: str, common: str, units: int) -> str:
    """A width setting in words ([rulebook-best])."""
    if rule == "per_pathway":
        return f"{units} units in every pathway"
    if common == "fixed":
        return f"a common pathway of {units} units, the rest shared"
    return "every pathway an equal share (Appendix F)"


def _page(p: Params, runs: Runs) -> SimpleNamespace:
    """The parameters and runs, with what the page's functions derive from them."""
    r = SimpleNamespace(**vars(runs), **vars(p), CS=list(p.hidden))
    r.BY_K, r.FUNC, r.FRAC = census_views(runs.census)
    r.other_form = other_rule(p.race_form, ("factors", "matrix"))
    widths = {  # each width setting by its key in `fits`: (width rule, common width)
        "primary": (p.width_rule, p.common_width),
        "common": ("total", other_rule(p.common_width, COMMON_WIDTHS)),
        "rule": (other_rule(p.width_rule, WIDTH_RULES), p.common_width),
    }
    r.SETTINGS = {k: _setting_words(*w, p.reln_width) for k, w in widths.items()}
    return r


def _glue(r) -> None:
    C, C6 = max(r.CS), min([c for c in r.CS if c >= 6] or [max(r.CS)])
    k, k6 = max(C - 2, 1), max(C6 - 2, 1)
    units = r.reln_width * (1 + comb(C, k))
    (a, _), (b, _), (_, fa), (_, fb) = (  # (common, context) units, common + j-of-C6
        member_widths([j], C6, r.hidden[C6], r.reln_width, "total", common)
        for common in ("equal", "fixed")
        for j in (C6 - 1, k6)
    )
    F = r.form_move
    kit.glue_many(
        "mc",
        width_example=f"at C = {C} the {family_name([k], C)} ReLN has {units} units "
        f"against the ReLU network's {r.hidden[C]}",
        common_example=f"at C = {C6} the common pathway has {a} units in "
        f"{family_name([C6 - 1], C6)} and {b} in {family_name([k6], C6)}; with a "
        f"fixed common pathway of {r.reln_width} units their context pathways have "
        f"{fa} and {fb}",
        seeds=str(len(r.seeds)),
        noise_multiple=f"{NOISE_MULTIPLE:g}",
        check_C=str(r.form_check_C),
        sim_from=str(r.sim_check_from),
        min_share=f"{r.family_min_share:.0%}",
        form_move=f"not measured (C = {r.form_check_C} is not among the races)"
        if F is None
        else f"at C = {F['C']} the {r.other_form} form moves the race's loss by a "
        f"time gap of {F['time gap']:.4f} and its class shares by at most "
        f"{F['largest class share change']:.4f}",
    )


def _fit_value(fits: dict) -> dict:
    """``best_reln``'s value under one width setting, per C."""
    value = {f"C{C}": {**f.gaps, "seed spread": f.relu_spread} for C, f in fits.items()}
    for C, f in fits.items():
        if f.trained:
            value[f"C{C}"]["trained"] = {
                n: {"seed spread": f.spreads[n], "race": f.race[n]} for n in f.trained
            }
    return value


def _records(r) -> list[tuple]:
    """The chapter's records, each with the values its note's template names."""
    F, S, P = r.fits, r.SETTINGS, r.fits["primary"]
    census, functional, fraction = _census_records(r)
    race = {
        f"C{C}": {f"k{k}": float(v[k]) for k in range(1, C + 1)}
        for C, v in r.race.items()
    }
    out = [("census_by_class", census), ("census_functional", functional)]
    out += [("fraction_served", fraction), ("race_census", race)]
    if r.form_move is not None:
        out.append(("race_form_sensitivity", r.form_move))
    paper = {C: family_name([C - 1], C) for C in P}
    sim = {C: f.follows[paper[C]] for C, f in P.items() if paper[C] in f.follows}
    if sim:
        out.append(("race_follows_reln", Evidence(max(sim.values()), criterion="gap")))
    widths = {S[k]: _fit_value(F[k]) for k in ("common", "rule")}
    out.append(("best_reln", Evidence(_fit_value(P)).varied("width", widths)))
    peak = {
        C: int(np.argmax(np.median(r.BY_K[C][:, -1, 1:C], axis=0))) + 1 for C in r.CS
    }
    race_peak = {C: int(np.argmax(r.race[C][1:C])) + 1 for C in r.race}
    trained = sorted({C for C, f in P.items() if f.trained})
    moved = {k: [C for C in P if P[C].ties != F[k][C].ties] for k in ("common", "rule")}
    values = dict(S=S, form=r.race_form, other=r.other_form, move=r.form_move)
    values |= dict(
        n_seeds=len(r.seeds),
        noise=NOISE_MULTIPLE,
        agree=", ".join(f"C{C} {race_peak[C] == peak[C]}" for C in r.race),
        sim=", ".join(f"C{C} {g:.4f}" for C, g in sim.items()),
        members="; ".join(
            f"C{C} " + ", ".join(f"{n} {g:.4f}" for n, g in f.follows.items())
            for C, f in P.items()
            if f.follows
        ),
        trained=f"at C = {', '.join(map(str, trained))} the paper's (C-1)-of-C and "
        "the two members nearest by race trained per seed ('trained': each one's seed "
        "spread and its race's gap), the others raced; "
        if trained
        else "every member raced; ",
        ties={
            k: "; ".join(f"C{C} {', '.join(f.ties)}" for C, f in fits.items())
            for k, fits in F.items()
        },
        depends="; ".join(
            f"with {S[k]} at " + (", ".join(f"C = {C}" for C in Cs) or "no C")
            for k, Cs in moved.items()
        ),
    )
    return [(name, evidence, values) for name, evidence in out]


def _census_records(r) -> tuple:
    """The census by class, through the function and the fraction served, per C."""
    census, functional, fraction = {}, {}, {}
    for C in r.CS:
        by_k, frac, ks = r.BY_K[C][:, -1], r.FRAC[C][:, -1], range(1, C + 1)
        census[f"C{C}"] = {f"k{k}": kit.med(by_k[:, k]) for k in ks}
        census[f"C{C}"]["seed spread"] = max(seed_spread(by_k[:, k]) for k in ks)
        functional[f"C{C}"] = {f"k{k}": kit.med(r.FUNC[C][:, -1, k]) for k in ks}
        functional[f"C{C}"]["snap change"] = kit.med(r.snap[C][:, -1])
        fraction[f"C{C}"] = {
            "median": kit.med(frac),
            "seed spread": seed_spread(frac),
            "(C-1)/C": (C - 1) / C,
            "one-hot contexts": kit.med(onehot_fraction(r.onehot, C, frac)),
        }
    census = Evidence(census, spread=max(v["seed spread"] for v in census.values()))
    spread = max(v["seed spread"] for v in fraction.values())
    return census, functional, Evidence(fraction, spread=spread)


def _width_reading(r) -> str:
    """The nearest ReLN and those tied with it under each width setting, in words."""
    F, S = r.fits, r.SETTINGS
    lines, moved = [], {"common": [], "rule": []}
    for C, f in F["primary"].items():
        other = {k: F[k][C].ties for k in moved if F[k][C].ties != f.ties}
        for k in other:
            moved[k].append(str(C))
        if other:
            paper = family_name([C - 1], C)
            where = "among" if paper in f.ties else "not among"
            against = " and ".join(
                f"{', '.join(t)} with {S[k]}" for k, t in other.items()
            )
            lines.append(
                f"C = {C}: {', '.join(f.ties)} with {S['primary']}, against {against}; "
                f"the paper's {paper} is {where} them with {S['primary']}"
            )
    common, rule = (", ".join(moved[k]) or "none" for k in ("common", "rule"))
    return "**Width.** The nearest ReLN and those tied with it " + (
        f"change with the width setting at {'; '.join(lines)}. The answer depends on "
        f"the common pathway's width at C = {common} ({S['common']}) and on the width "
        f"rule at C = {rule} ({S['rule']})."
        if lines
        else "are the same under every width setting."
    )


def _input_reading(r) -> str:
    """The fraction of contexts a unit serves on one-hot contexts, in words."""
    med = {C: kit.med(r.FRAC[C][:, -1]) for C in r.CS}
    hot = {C: kit.med(onehot_fraction(r.onehot, C, r.FRAC[C][:, -1])) for C in r.CS}
    lo, hi = r.CS[0], r.CS[-1]
    d1 = hot[hi] - hot[lo]
    each = ", ".join(
        f"{hot[C]:.3f} (C = {C}; {med[C]:.3f} with the input above)" for C in r.CS
    )
    return (
        f"**Input.** On one-hot contexts the fraction of contexts a unit serves is "
        f"{each}; from C = {lo} to {hi} it {'rises' if d1 > 0 else 'falls'} by "
        f"{abs(d1):.3f}."
    )


#: The closing table's rows, (record, claim), where the run wrote the record.
SUMMARY = [
    ("census_by_class", "ReLU census by class, C = 2..8"),
    ("fraction_served", "Fraction of contexts a unit serves"),
    ("census_functional", "The ReLU census through the function"),
    ("race_census", "The race reduction's census"),
    ("best_reln", "The ReLN nearest the ReLU network's loss"),
    ("race_form_sensitivity", "What the race's form moves"),
    ("race_follows_reln", "The race follows the trained ReLN"),
]


def _class_line(C: int, med: float, spread: float, by_k, tie, race) -> str:
    """The answer's line at ``C`` (``tie``: the tied ReLNs, nearest first, or None)."""
    peak = int(np.argmax(np.median(np.asarray(by_k)[:, -1, 1:C], axis=0))) + 1
    paper, heavy = family_name([C - 1], C), family_name([peak], C)
    line = (
        f"- C = {C}: fraction {med:.3f} (seed spread {spread:.3f}; pure "
        f"(C-1)/C = {(C - 1) / C:.3f}); most weight in {peak}-of-{C} units"
    )
    if race is not None:
        line += f"; the race's most weighted class: {np.argmax(race[1:C]) + 1}-of-{C}"
    if tie is None:
        return line + "."
    tied = f"tied with it {', '.join(tie[1:])}" if tie[1:] else "none tied with it"
    nearest = (
        "is the nearest ReLN"
        if tie[0] == heavy
        else "is not the nearest ReLN by loss"
        + (", but tied with it" if heavy in tie else " and not tied with it")
    )
    among = "among the tied" if paper in tie else "not among the tied"
    return (
        f"{line}; nearest ReLN by loss {tie[0]}, {tied}; the census's heaviest class "
        f"{heavy} {nearest}; the paper's ReLN is {among}."
    )


def reading(frac: dict, by_k: dict, fits: dict, race_shares: dict) -> str:
    """The page's answer from its records: per C the fraction of contexts a ReLU unit
    serves against the pure (C-1)/C, the heaviest class and the nearest ReLNs
    (``fits``: a :class:`helpers.chapters.more_contexts.races.Fit` or the tied names,
    nearest first, per C); then the fraction's trend against the seed spreads."""
    lines, meds, spreads = [], {}, {}
    for C, F in frac.items():
        final = np.asarray(F)[:, -1]
        meds[C], spreads[C] = float(np.median(final)), seed_spread(final)
        tie = getattr(fits.get(C), "ties", fits.get(C))
        lines.append(
            _class_line(C, meds[C], spreads[C], by_k[C], tie, race_shares.get(C))
        )
    lo, hi = list(frac)[0], list(frac)[-1]
    d, noise = meds[hi] - meds[lo], max(spreads[lo], spreads[hi])
    below = [str(C) for C in frac if (C - 1) / C - meds[C] > spreads[C]]
    trend = (
        "stays within the seed spread"
        if abs(d) <= noise
        else ("rises" if d > 0 else "falls")
        + f" by {abs(d):.3f} (more than the seed spread {noise:.3f})"
    )
    return (
        f"From C = {lo} to C = {hi} the fraction of contexts a unit serves {trend}; it "
        "lies below the pure (C-1)/C by more than the seed spread at C = "
        f"{', '.join(below) or 'none'}.\n\n" + "\n".join(lines)
    )


def report(rec, params: Params, runs: Runs) -> dict:
    """Write the page's records and glue, and build its reading and closing table.

    Returns:
        ``{"records": {key: stored record}, "reading": the page's answer as Markdown,
        "summary": the closing table as Markdown}``; the records are saved.
    """
    r = _page(params, runs)
    _glue(r)
    R = kit.add_all(rec, _records(r))
    rec.save()
    said = [reading(r.FRAC, r.BY_K, r.fits["primary"], r.race)]
    said += [_width_reading(r), _input_reading(r)]
    return {
        "records": R,
        "reading": "**Reading.** " + "\n\n".join(said),
        "summary": claims_table([(c, "—", R[n]) for n, c in SUMMARY if n in R]),
    }
