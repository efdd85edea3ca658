"""How verdicts are decided: one rulebook for the whole book (rendered on the page
*How verdicts are decided*, ``book/rulebook.md``).

A verdict is computed from a record's registered fields (``chapters/<chapter>.toml``)
and its numbers, never typed.  By ``kind``: ``"paper"``, reproduced / partly / not
reproduced by the record's criterion where the compared value comes from the paper,
else not testable; ``"check"``, check or check failed; ``"finding"``; ``"measured"``.
The thresholds are the constants below, set once before any result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from numbers import Real
from typing import NamedTuple

import numpy as np

from ..core.measures import Evidence
from . import chapter_data

KINDS = ("paper", "check", "finding", "measured")
PROVENANCES = ("paper", "authors' code", "derived here", "none")
PAPER_VERDICTS = (
    "reproduced",
    "partly reproduced",
    "not reproduced",
    "undecided",
    "not testable",
)
#: Whose choice decides a verdict on the paper (each reason names it): the paper's
#: claim, a choice of the authors' code the paper does not state, or this book's.
DECIDED_BY = ("the paper's claim", "the authors' code", "this book's construction")
#: Criteria whose yardstick is a seed spread (its interval can change the verdict).
NOISE_CRITERIA = ("seed_noise", "near", "beyond_noise")
#: Whose choice decides a verdict (:data:`DECIDED_BY`), as a row says it.
WHO = dict(zip(DECIDED_BY, ("the paper", "the authors' code", "this book")))


def who(record: Mapping) -> str:
    """Whose choice decides a record's verdict, as a row says it (:data:`WHO`)."""
    return WHO[record.get("decided_by") or DECIDED_BY[0]]


VERDICTS = PAPER_VERDICTS + ("check", "check failed", "finding", "measured")

#: "As close as another seed": a gap agrees when at most this multiple of the gap
#: between two seeds of the reference (seed pairs' gaps scatter by about 2x).
NOISE_MULTIPLE = 2.0
#: "Clearly" smaller: at most this fraction of what it is compared with (partly
#: reproduced; "stays small / inactive" claims).
CLEARLY = 0.5
#: A closed form and its simulation agree when their time gap is at most this (Euler
#: steps lag the gradient flow by about ``lr s / 2``, a few percent here).
CHECK_GAP = 0.05
#: Two programs' runs of one network from the same start (``same_run``) agree to
#: rounding at an epoch when ``|L_a - L_b| / L_b`` is at most this (float32 rounding
#: stays far below it until they part).  Through a drop at least as steep as
#: ``L ~ 1/t`` it also bounds the step-size error ``same_run`` accepts.
SAME_RUN_TOL = 1e-4
#: Where the paper's context-level description applies ([rulebook-phase]): snapping
#: each unit to its nearest context-level gate moves the output by at most this.
PHASE_SNAP = 0.1
#: A share held against a bound it cannot pass is judged one-sided (the seed spread
#: shrinks there): its shortfall agrees when at most this, as for [rulebook-phase].
BOUND_TOLERANCE = PHASE_SNAP
#: Where a claim about a structure is read ([rulebook-structure], rule 5): where the
#: structure exists (:func:`structure_window`); other windows are ``window`` variants.
STRUCTURE_RULE = (
    "a claim about a structure is read where that structure exists: context gating "
    "at the records where the loss is below the common-only level (the best linear "
    "map's loss), outputs beyond the map every network learns first at the plateaus "
    "below the rank-one map's loss"
)

#: A re-executed number has drifted when it moves beyond this multiple of its rounding
#: floor, its range over the stored executions ([rulebook-rounding]); three
#: executions' range underestimates where a fourth machine lands, hence 3.
ROUNDING_MULTIPLE = 3.0

#: Two k-means optima tie when their objectives differ by at most this fraction of the
#: lower ([rulebook-ties]): rounding moves every objective by about 1e-3 (7e-4 measured
#: between two instruction sets), so closer optima are ordered by the machine.
KMEANS_TIE = ROUNDING_MULTIPLE * 1e-3

#: The book's own choices a verdict on the paper can rest on ([rulebook-variants]): a
#: record carries its measure under each other setting (``variants``) and the choices
#: that change the verdict (``depends_on``).
CHOICES = {
    "width": "how wide the candidate and rival networks are (per pathway, or the "
    "ReLU network's total shared out as Appendix F does)",
    "init": "how the networks start (the initialisations of [conv-init])",
    "input": "the scale of the context input (one-hot, or the authors' 1.1 and 1.35)",
    "window": "the epochs or phase of training the claim is read in",
    "seeds": "which seeds ran and how many (at the least, the yardstick at both ends "
    "of its bootstrap interval over seeds)",
    "threshold": "a cut of the book's measure (an on/off, snap or cluster cut)",
    "definition": "two readings of the paper's words",
    "baseline": "what the measure is held against (chance, another competitor)",
    "coupling": "one-way or fully coupled ReLN pathways",
    "levels": "the loss levels a time gap is read at",
    "restarts": "how many random starts an optimiser (k-means) takes the best of",
    "optimum": "which of two tied k-means optima (objectives within KMEANS_TIE) a "
    "clustering is read from: the best found, or the runner-up another machine "
    "may find best",
    "construction": "how a stand-in network is built from the ReLU network (the "
    "paper's construction of its ReLN, or the book's own)",
    "rounding": "float32 rounding: the same code on another CPU or instruction set "
    "(the stored executions of [rulebook-rounding])",
}

#: How a record's value is held against what it is compared with.
CRITERIA = {
    "exact": "the value equals the compared value (a count, a choice, a set of "
    "patterns; numbers to 6 significant digits)",
    "gap": f"the value, a time gap, is at most {CHECK_GAP:g} (closed form against "
    "simulation of the same equations)",
    "seed_noise": f"the value (a gap to the paper's candidate) is at most "
    f"{NOISE_MULTIPLE:g} x the seed spread: reproduced; else at most "
    f"{CLEARLY:g} x the gap to the paper's alternative: partly "
    f"reproduced; "
    "else not reproduced",
    "near": f"|value - compared| is at most {NOISE_MULTIPLE:g} x the value's seed "
    f"spread: reproduced; else at most {CLEARLY:g} x |value - alternative|: partly "
    "reproduced; else not reproduced",
    "near_bound": f"the value is a share that cannot pass the compared bound: its "
    f"shortfall |value - compared| is at most {BOUND_TOLERANCE:g}: reproduced "
    f"(one-sided; the seed spread shrinks at a bound); else at most {CLEARLY:g} x "
    "|value - alternative|: partly reproduced; else not reproduced",
    "beyond_noise": f"the value (a gap) exceeds {NOISE_MULTIPLE:g} x the seed spread: "
    "a clear deviation, as the claim predicts",
    "same_run": "two runs of one network from the same start by two programs: "
    f"agreeing within relative {SAME_RUN_TOL:g} until they part, they leave "
    "possible no time rescaling (step-size error) beyond the compared value, the "
    "largest over seeds of the tolerance over the steepest |d ln L / d ln t| "
    f"before the parting, which must be at most {SAME_RUN_TOL:g} (a drop at least "
    "as steep as L ~ 1/t shared within the tolerance); after they part, the "
    f"value, their time gap, is at most {NOISE_MULTIPLE:g} x the seed spread of "
    "one program's own runs (rounding has then moved the late drops, as another "
    "seed would)",
    "smaller": f"the value is at most {CLEARLY:g} x the compared value "
    "(clearly smaller); where both are measured once per seed, also at both ends of "
    "the ratio's 90 % bootstrap interval over seeds, else undecided",
    "increasing": "the values (one per setting, in order) rise strictly",
}


@lru_cache(maxsize=1)
def registry() -> dict:
    """Every registered claim, ``{chapter: {record: entry}}``."""
    claims = {c: chapter_data.claims(c) for c in chapter_data.chapters()}
    return {c: entries for c, entries in claims.items() if entries}


def claim(chapter: str, name: str) -> dict | None:
    """The registry entry of a record, or None when the record is not registered."""
    return registry().get(chapter, {}).get(name)


def structure_window(loss, level) -> np.ndarray:
    """Rule 5 ([rulebook-structure], :data:`STRUCTURE_RULE`): a boolean array of
    ``loss``'s shape (any), True where the structure exists: the loss below ``level``,
    the least loss without it (for context gating the common-only level)."""
    if not _number(level):
        raise ValueError(f"level must be a finite number, got {level!r}")
    loss = np.asarray(loss, float)
    return np.isfinite(loss) & (loss < float(level))


def _number(x):
    return isinstance(x, Real) and not isinstance(x, bool) and math.isfinite(x)


def _g(x) -> str:
    return f"{x:.3g}"


def kmeans_tie(best: float, other: float, tol: float = KMEANS_TIE) -> bool:
    """Whether two k-means objectives (>= 0) tie ([rulebook-ties]): they differ by at
    most ``tol`` times the lower one, so rounding may decide which is lower."""
    for name, x in (("best", best), ("other", other), ("tol", tol)):
        if not _number(x) or x < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {x!r}")
    return abs(other - best) <= tol * min(best, other)


def holds(criterion: str | None, value, compared=None, spread=None, alternative=None):
    """True / False / ``"partly"`` under ``criterion``; None when it cannot say: the
    first pair of :func:`thresholds` held, else (where given) the second."""
    if criterion is None:
        return None
    if criterion not in CRITERIA:
        raise ValueError(
            f"unknown criterion {criterion!r}; the rulebook has {list(CRITERIA)}"
        )
    if criterion == "increasing":
        vals = list(value.values()) if isinstance(value, dict) else list(value)
        return all(a < b for a, b in zip(vals, vals[1:]))
    if criterion == "exact":
        if compared is None:
            return None
        if _number(value) and _number(compared):
            return math.isclose(value, compared, rel_tol=1e-6, abs_tol=1e-12)
        norm = lambda v: sorted(v) if isinstance(v, list) else v  # noqa: E731
        return norm(value) == norm(compared)
    pairs = thresholds(criterion, value, compared, spread, alternative)
    noisy = criterion in ("seed_noise", "beyond_noise", "near", "same_run")
    if not pairs or (noisy and not _number(spread)):
        return None
    (q, t), *rest = pairs
    if criterion in ("gap", "smaller"):
        return q <= t
    if criterion == "same_run":
        return (rest[0][0] <= rest[0][1] and q <= t) if rest else None
    if criterion == "beyond_noise":
        return not q <= t
    if q <= t:
        return True
    return "partly" if rest and rest[0][0] <= rest[0][1] else False


#: A verdict is *marginal* when its deciding quantity lies within this fraction of a
#: threshold ([rulebook-marginal]): another seed or machine could flip it.
MARGINAL = 0.1


def thresholds(
    criterion: str | None, value, compared=None, spread=None, alternative=None
) -> list[tuple[float, float]]:
    """The pairs ``(quantity, threshold)`` that :func:`holds` compares."""
    if criterion in ("seed_noise", "beyond_noise") and _number(value):
        out = [(value, NOISE_MULTIPLE * spread)] if _number(spread) else []
        if criterion == "seed_noise" and _number(alternative):
            out.append((value, CLEARLY * alternative))
        return out
    if criterion in ("near", "near_bound") and _number(value) and _number(compared):
        d = abs(value - compared)
        out = []
        if criterion == "near_bound":
            out.append((d, BOUND_TOLERANCE))
        elif _number(spread):
            out.append((d, NOISE_MULTIPLE * spread))
        if _number(alternative):
            out.append((d, CLEARLY * abs(value - alternative)))
        return out
    if criterion == "gap" and _number(value):
        return [(value, CHECK_GAP)]
    if criterion == "same_run" and _number(value) and _number(spread):
        out = [(value, NOISE_MULTIPLE * spread)]
        return out + ([(compared, SAME_RUN_TOL)] if _number(compared) else [])
    if criterion == "smaller" and _number(value) and _number(compared):
        return [(value, CLEARLY * compared)]
    return []


def marginal(
    criterion: str | None, value, compared=None, spread=None, alternative=None
) -> bool:
    """Whether a deciding quantity lies within :data:`MARGINAL` of its threshold."""
    return any(
        t > 0 and abs(q - t) <= MARGINAL * t
        for q, t in thresholds(criterion, value, compared, spread, alternative)
    )


def _distance(value, compared, yardstick: str, alternative) -> str:
    d = _g(abs(value - compared))
    text = f"|{_g(value)} - {_g(compared)}| = {d} against {yardstick}"
    return text + (f"; alternative {_g(alternative)}" if _number(alternative) else "")


def _rule(criterion, value, compared, spread, alternative) -> str:
    """The criterion with the record's numbers filled in, for the reason."""
    if criterion not in ("exact", "increasing") and not _number(value):
        return CRITERIA.get(criterion, "")
    if criterion in ("seed_noise", "beyond_noise") and _number(spread):
        text = f"gap {_g(value)} against {NOISE_MULTIPLE:g} x seed spread {_g(spread)}"
        if criterion == "seed_noise" and _number(alternative):
            text += f"; alternative's gap {_g(alternative)}"
        return text
    if criterion == "near" and _number(spread) and _number(compared):
        yardstick = f"{NOISE_MULTIPLE:g} x seed spread {_g(spread)}"
        return _distance(value, compared, yardstick, alternative)
    if criterion == "near_bound" and _number(compared):
        yardstick = (
            f"{BOUND_TOLERANCE:g} (one-sided: a share cannot pass {_g(compared)})"
        )
        return "shortfall " + _distance(value, compared, yardstick, alternative)
    if criterion == "gap" and _number(value):
        return f"time gap {_g(value)} against {CHECK_GAP:g}"
    if criterion == "same_run" and _number(spread) and _number(compared):
        return (
            f"step-size error left possible {_g(compared)} against {SAME_RUN_TOL:g}; "
            f"time gap {_g(value)} against {NOISE_MULTIPLE:g} x seed spread "
            f"{_g(spread)}"
        )
    if criterion == "smaller" and _number(value) and _number(compared):
        return f"{_g(value)} against {CLEARLY:g} x {_g(compared)}"
    if criterion == "exact":
        show = lambda x: _g(x) if _number(x) else repr(x)[:60]  # noqa: E731
        return f"{show(value)} against {show(compared)}"
    return CRITERIA.get(criterion, "")


def _outcome(ok) -> str:
    return {True: "reproduced", "partly": "partly reproduced"}.get(ok, "not reproduced")


_NOT_THE_PAPERS = {
    "none": "the paper states no value to compare with",
    "derived here": "the compared value is the book's own, not the paper's",
    "authors' code": "the compared value is a fact of the authors' code, "
    "not of the paper",
}


def _judge(
    kind: str,
    provenance: str,
    criterion: str | None,
    value,
    compared=None,
    spread=None,
    alternative=None,
    censored: bool = False,
    interval=None,
    decided_by: str | None = None,
    candidates: dict | None = None,
    ratio_interval=None,
    censored_reference: bool = False,
) -> tuple[str, str]:
    """``(verdict, reason)`` for a record, by the rules of the module docstring.

    ``censored`` (``censored_reference``): the candidate (the reference) never
    reached a level the other did, so the gap is a lower bound that cannot show
    agreement.  ``interval`` / ``ratio_interval``: 90 % bootstrap intervals over seeds
    ([rulebook-noise]); a verdict that differs at their ends is ``undecided``.
    ``candidates``: ``{name: gap}`` of a fitted family ([rulebook-best])."""
    decided_by = _checked_choices(kind, provenance, decided_by)
    if kind == "measured":
        return "measured", "a measurement; no claim is judged on it"
    if kind == "finding":
        return "finding", "a result beyond the paper"
    best = min(candidates.values()) if candidates else None
    censors = ("seed_noise", "gap", "same_run", "beyond_noise")
    lower_bound = (censored or censored_reference) and criterion in censors

    def judged(s):
        at = (criterion, value, compared, s, alternative, best, lower_bound)
        return _outcome_at(*at, censored)

    ok = judged(spread)
    rule = _rule(criterion, value, compared, spread, alternative)
    if _number(best) and best < value:
        rule += f"; nearest candidate's gap {best:.3g}"
    if lower_bound:
        rule += f" (a lower bound: {_censored_sides(censored, censored_reference)})"
    if kind == "check":
        return _check_verdict(ok, rule)
    if provenance != "paper":
        source = _NOT_THE_PAPERS[provenance]
        return "not testable", f"{source}; the chapter reports what was measured"
    if ok is None:
        return (
            "not testable",
            "the paper's value cannot be compared by a criterion here",
        )
    who = f" Decided by {decided_by}."
    ends = (interval, ratio_interval)
    return _paper_verdict(ok, rule, judged, criterion, value, compared, *ends, who)


def _paper_verdict(
    ok, rule: str, judged, criterion, value, compared, interval, ratio_interval, who
) -> tuple[str, str]:
    """``(verdict, reason)`` on the paper's claim; ``undecided`` where it changes
    within the seeds' interval (``judged``: the outcome at another spread)."""
    if interval is not None and criterion in NOISE_CRITERIA:
        lo, hi = (float(x) for x in interval)
        ends = {_outcome(judged(lo)), _outcome(judged(hi)), _outcome(ok)}
        rule += f" (spread's 90 % interval over seeds {lo:.3g}-{hi:.3g})"
        if len(ends) > 1:
            return _undecided_within(rule, "the spread's interval", ends, who)
    if ratio_interval is not None and criterion == "smaller" and _number(compared):
        lo, hi = (float(x) for x in ratio_interval)
        ends = {_outcome(holds(criterion, r * compared, compared)) for r in (lo, hi)}
        ends.add(_outcome(ok))
        iv = f"90 % interval over seeds {lo:.3g}-{hi:.3g})"
        rule += (
            f" (ratio {value / compared:.3g}; its {iv}"
            if compared
            else f" (ratio's {iv}"
        )
        if len(ends) > 1:
            return _undecided_within(rule, "the ratio's interval", ends, who)
    if ok is True:
        return "reproduced", f"{rule}: holds.{who}"
    if ok == "partly":
        return "partly reproduced", (
            f"{rule}: outside the seed noise, but clearly nearer the "
            f"paper's candidate than the alternative the paper argues against.{who}"
        )
    return "not reproduced", f"{rule}: fails.{who}"


def _checked_choices(kind: str, provenance: str, decided_by: str | None) -> str:
    """``decided_by`` (default the paper's claim); ValueError on an unknown field."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if provenance not in PROVENANCES:
        raise ValueError(f"provenance must be one of {PROVENANCES}, got {provenance!r}")
    decided_by = decided_by or DECIDED_BY[0]
    if decided_by not in DECIDED_BY:
        raise ValueError(f"decided_by must be one of {DECIDED_BY}, got {decided_by!r}")
    return decided_by


def _outcome_at(
    criterion, value, compared, spread, alternative, best, lower_bound, censored
):
    """:func:`holds` at ``spread``, failing where another candidate (gap ``best``) is
    nearer beyond noise, read as a lower bound where ``lower_bound``."""
    ok = holds(criterion, value, compared, spread, alternative)
    nearer = (
        _number(best) and _number(spread) and value - best > NOISE_MULTIPLE * spread
    )
    if ok is not None and nearer:
        ok = False  # another candidate of the family is nearer beyond noise
    if lower_bound:
        if criterion == "beyond_noise":
            ok = True if ok is True else None
        elif censored:
            ok = False if ok is not None else None
        elif ok is True:
            # the reference alone censored: no agreement shown, nor disagreement
            ok = "partly"
    return ok


def _censored_sides(censored: bool, censored_reference: bool) -> str:
    """Which side of a time gap never reaches a loss level the other reaches."""
    sides = [("candidate", "reference")] if censored else []
    sides += [("reference", "candidate")] if censored_reference else []
    said = [f"the {a} never reaches a loss level the {b} reaches" for a, b in sides]
    return " / ".join(said)


def _check_verdict(ok, rule: str) -> tuple[str, str]:
    if ok is None:
        return "check", "shown in the chapter (no numeric criterion)"
    if ok == "partly":
        # the reference alone censored: a lower bound shows neither (no "partly")
        return "undecided", (
            f"undecided: {rule}; within the rule, but a lower bound cannot show "
            "that the runs agree"
        )
    if ok is True:
        return "check", f"holds: {rule}"
    return "check failed", f"fails: {rule}"


def _undecided_within(rule: str, where: str, ends: set, who: str) -> tuple[str, str]:
    return "undecided", (
        f"{rule}: the verdict changes within {where} "
        f"({' / '.join(sorted(ends))}); more seeds are needed.{who}"
    )


class Verdict(NamedTuple):
    """What :func:`decide` returns; ``variants``: ``{choice: [row, ...]}``."""

    verdict: str
    reason: str
    variants: dict
    depends_on: list


def _as_evidence(x) -> Evidence:
    if isinstance(x, Evidence):
        return x
    if hasattr(x, "value") and hasattr(x, "spread"):  # anything with Match's fields
        optional = ("spread_interval", "candidates", "criterion")
        return Evidence(
            x.value,
            x.spread,
            getattr(x, "alternative", None),
            censored=bool(getattr(x, "censored", False)),
            **{k: getattr(x, k, None) for k in optional},
        )
    return Evidence(x)


def _primary(claim: Mapping, ev: Evidence) -> tuple[str, str]:
    same = "value compared spread alternative censored candidates ratio_interval"
    return _judge(
        claim["kind"],
        claim["provenance"],
        ev.rule,
        interval=ev.spread_interval,
        decided_by=claim.get("decided_by"),
        censored_reference=ev.censored_reference,
        **{k: getattr(ev, k) for k in same.split()},
    )


def _setting(ev: Evidence, x) -> Evidence:
    """One variant's evidence: given whole, or a number that replaces the value."""
    if isinstance(x, Evidence):
        return x.but(variants=None)
    none = dict(candidates=None, best=None, ratio_interval=None, variants=None)
    return ev.but(value=x, per_seed=(), **none)


def seed_variants(ev: Evidence) -> dict:
    """The ``seeds`` variants ([rulebook-variants]): the yardstick (or, under
    ``smaller`` and ``near_bound``, the ratio) at both ends of its 90 % bootstrap
    interval over seeds."""
    ends = ("low end of its interval", "high end")
    if ev.rule in NOISE_CRITERIA and ev.spread_interval is not None:
        spreads = zip(map(float, ev.spread_interval), ends)
        return {
            f"seed spread {_g(s)} ({end})": ev.but(
                spread=s, spread_interval=None, variants=None
            )
            for s, end in spreads
        }
    out = {}
    if (
        ev.rule in ("smaller", "near_bound")
        and ev.ratio_interval is not None
        and _number(ev.compared)
        and _number(ev.value)
    ):
        what = "ratio" if ev.rule == "smaller" else "median over seeds"
        for r, end in zip(map(float, ev.ratio_interval), ends):
            x = r if ev.rule == "smaller" else r * ev.compared
            out[f"{what} {_g(x)} ({end})"] = ev.but(
                value=r * ev.compared, ratio_interval=None, variants=None
            )
    return out


def variants_clause(variants: dict, primary: str) -> tuple[str, list]:
    """The sentence a reason ends with, and ``depends_on``: the choices with a
    setting whose verdict differs from ``primary`` (not testable excepted)."""
    if not variants:
        return "", []
    sure = (primary, "not testable")
    moved = {  # a setting that cannot test the claim gives no other verdict
        c: [f"{r['setting']}: {r['verdict']}" for r in rows if r["verdict"] not in sure]
        for c, rows in variants.items()
    }
    depends = [c for c, said in moved.items() if said]
    if not depends:
        return f" Robust to {', '.join(variants)}.", []
    parts = "; ".join(f"{c} ({'; '.join(moved[c])})" for c in depends)
    return f" Depends on {parts}.", depends


def decide(claim: Mapping, evidence) -> Verdict:
    """The verdict on ``claim`` (a registry entry or stored record) from
    ``evidence`` (an ``Evidence`` or a bare value) ([rulebook-evidence])."""
    ev = _as_evidence(evidence)
    v, reason = _primary(claim, ev)
    settings = dict(ev.variants or {})
    if claim["kind"] == "paper" and "seeds" not in settings:
        if auto := seed_variants(ev):
            settings["seeds"] = auto
    unknown = sorted(set(settings) - set(CHOICES))
    if unknown:
        raise ValueError(
            f"variants of unknown choices {unknown}; the rulebook has {list(CHOICES)}"
        )
    variants = {}
    for choice, options in sorted(settings.items()):  # as the stored record sorts them
        if not options:
            raise ValueError(f"variants: the choice {choice!r} has no setting")
        rows = []
        for setting, x in options.items():
            var = _setting(ev, x)
            row = {"setting": str(setting), "value": var.value}
            rows.append({**row, "verdict": _primary(claim, var)[0]})
        variants[choice] = rows
    clause, depends_on = variants_clause(variants, v)
    return Verdict(v, reason + clause, variants, depends_on)


def verdict(
    match,
    kind: str = "paper",
    provenance: str = "paper",
    criterion: str | None = None,
    compared=None,
) -> str:
    """The verdict :func:`decide` gives one setting's evidence (anything with
    ``Evidence``'s fields), for a page's per-setting verdicts without a record each;
    ``criterion`` defaults to the evidence's own, else ``seed_noise``."""
    ev = _as_evidence(match)
    rule = criterion or ev.criterion or ("exact" if compared is not None else None)
    ev = ev.but(
        criterion=rule or "seed_noise",
        compared=ev.compared if compared is None else compared,
        variants=None,
    )
    return decide({"kind": kind, "provenance": provenance}, ev).verdict


#: The verdicts on the paper from worst to best ([rulebook-cases]).
WORST_FIRST = ("not testable", "not reproduced", "partly reproduced", "reproduced")


def worse_end(match) -> str:
    """The verdict a case counts by ([rulebook-cases]): its own, or where undecided,
    the worse of the verdicts at the yardstick interval's two ends."""
    v = verdict(match)
    ev = _as_evidence(match)
    if v != "undecided" or ev.spread_interval is None:
        return v
    ends = {
        verdict(ev.but(spread=float(x), spread_interval=None))
        for x in ev.spread_interval
    }
    return min(ends, key=WORST_FIRST.index)


def worst_case(verdicts, severity, counted=None) -> int:
    """Index of the case that decides a claim stated for every case ([rulebook-cases]):
    the worst ``counted`` verdict (:func:`worse_end`; default ``verdicts``), a decided
    case first, then the largest ``severity`` (distance from agreement)."""
    verdicts, severity = list(verdicts), list(severity)
    counted = verdicts if counted is None else list(counted)
    if not verdicts or not (len(verdicts) == len(severity) == len(counted)):
        raise ValueError("worst_case needs one severity per verdict, and at least one")
    order = WORST_FIRST + ("undecided",)
    unknown = (set(verdicts) | set(counted)) - set(order)
    if unknown:
        raise ValueError(f"not verdicts on the paper: {sorted(unknown)}")
    between = len(WORST_FIRST) - 1.5  # undecided: between partly and reproduced
    rank = [
        (order.index(c) if c != "undecided" else between, v == "undecided", -x)
        for v, c, x in zip(verdicts, counted, severity)
    ]
    return min(range(len(rank)), key=rank.__getitem__)


def setup_clause(verdicts: Mapping, chosen: str, same=(), record="init_sensitivity"):
    """The clause a verdict's note carries on the other setups ([rulebook-labels]):
    ``verdicts`` is ``{choice: verdict}`` per initialisation ([conv-init]), ``same``
    the choices that start exactly as ``chosen`` (pages *Contexts*, *More contexts*)."""
    if chosen not in verdicts:
        raise ValueError(f"no verdict under the chosen setup {chosen!r}")
    own = verdicts[chosen]
    moved = [f"under {c}: {v}" for c, v in verdicts.items() if c != chosen and v != own]
    twins = [c for c in same if c != chosen]
    where = record + "".join(f"; {c} starts exactly as {chosen} here" for c in twins)
    if not moved:
        return f"No other start changes the verdict ({where})."
    return f"Another start changes it: {'; '.join(moved)} ({where})."
