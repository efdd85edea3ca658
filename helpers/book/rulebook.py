"""How verdicts are decided: one rulebook for the whole book (page *How verdicts are
decided*, ``book/rulebook.md``, renders this module's constants).

Every record of a chapter is registered in ``claims/<chapter>.toml`` beside this module
(the fields are described in ``claims/README.md``): the claim
in words, where it is in the paper, the paper's own sentence, what is measured, the
record's **kind** and the **provenance** of the value it is compared with.  The verdict
is computed here from those fields and the record's numbers, never typed:

* ``kind = "paper"`` (a statement of the paper): ``reproduced`` or ``not reproduced`` by
  the record's criterion, **only** when the compared value comes from the paper; a
  claim whose value was lost from our copy, or which the paper states without a number
  that the book's criteria can test yet, is ``not testable``;
* ``kind = "check"`` (the book's own consistency check): ``check`` or ``check failed``;
* ``kind = "finding"`` (beyond the paper): ``finding``;
* ``kind = "measured"`` (a plain measurement): ``measured``.
"""
from __future__ import annotations

import math
import tomllib
from functools import lru_cache
from pathlib import Path

__all__ = ["KINDS", "PROVENANCES", "CRITERIA", "VERDICTS", "PAPER_VERDICTS", "registry", "claim",
           "holds", "decide"]

KINDS = ("paper", "check", "finding", "measured")
PROVENANCES = ("paper", "authors' code", "derived here", "none")
PAPER_VERDICTS = ("reproduced", "partly reproduced", "not reproduced", "not testable")
VERDICTS = PAPER_VERDICTS + ("check", "check failed", "finding", "measured")

#: A measure (a curve distance, a gap) "agrees" when it is within this multiple of the
#: same measure between two seeds of the reference network: as close as another seed.
NOISE_MULTIPLE = 2.0

#: How a record's value is held against its compared value (``paper`` field).
CRITERIA = {
    "seed_noise": f"value <= {NOISE_MULTIPLE:g} x the seed-to-seed spread (reproduced); "
                  "else partly reproduced if value < half the gap to the paper's "
                  "alternative; else not reproduced",
    "beyond_noise": f"value > {NOISE_MULTIPLE:g} x the seed-to-seed spread (a clear "
                    "deviation, as the claim predicts)",
    "within": "|value - compared| <= tolerance",
    "exact": "value equals the compared value (a count, a choice, a set of patterns)",
    "above": "value > compared (a clear deviation the claim predicts)",
    "below": "value < compared",
    "increasing": "the values (one per setting, in order) rise strictly",
}

CLAIMS_DIR = Path(__file__).with_name("claims")


@lru_cache(maxsize=1)
def _registry() -> dict:
    """``{chapter: {record: entry}}`` from ``claims/<chapter>.toml``."""
    return {p.stem: tomllib.loads(p.read_text()) for p in sorted(CLAIMS_DIR.glob("*.toml"))}


def registry() -> dict:
    """Every registered claim, ``{chapter: {record: entry}}``."""
    return _registry()


def claim(chapter: str, name: str) -> dict | None:
    """The registry entry of a record, or None when the record is not registered."""
    return _registry().get(chapter, {}).get(name)


def _number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def holds(criterion: str | None, value, compared, tolerance=None, spread=None) -> bool | None:
    """Whether ``value`` meets ``criterion`` against ``compared`` (or the seed ``spread``);
    None when the fields cannot say (no criterion, or nothing to compare with)."""
    if criterion is None:
        return None
    if criterion not in CRITERIA:
        raise ValueError(f"unknown criterion {criterion!r}; the rulebook has {list(CRITERIA)}")
    if criterion in ("seed_noise", "beyond_noise"):
        if not (_number(value) and _number(spread)):
            return None
        near = value <= NOISE_MULTIPLE * spread
        return near if criterion == "seed_noise" else not near
    if criterion == "increasing":
        vals = list(value.values()) if isinstance(value, dict) else list(value)
        return all(a < b for a, b in zip(vals, vals[1:]))
    if compared is None:
        return None
    if criterion == "exact":
        norm = (lambda v: sorted(v) if isinstance(v, list) else v)  # noqa: E731
        return norm(value) == norm(compared)
    if not (_number(value) and _number(compared)):
        return None
    if criterion == "within":
        return None if tolerance is None else abs(value - compared) <= tolerance
    return value > compared if criterion == "above" else value < compared


def decide(kind: str, provenance: str, criterion: str | None, value, compared,
           tolerance=None, spread=None, alternative=None) -> tuple[str, str]:
    """``(verdict, reason)`` for a record, by the rules of the module docstring."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if provenance not in PROVENANCES:
        raise ValueError(f"provenance must be one of {PROVENANCES}, got {provenance!r}")
    if kind == "measured":
        return "measured", "a measurement; no claim is judged on it"
    if kind == "finding":
        return "finding", "a result beyond the paper"
    ok = holds(criterion, value, compared, tolerance, spread)
    rule = CRITERIA.get(criterion, "")
    if criterion in ("seed_noise", "beyond_noise") and ok is not None:
        rule = (f"value {value:.3g} against {NOISE_MULTIPLE:g} x seed spread "
                f"{spread:.3g} = {NOISE_MULTIPLE * spread:.3g}")
    if kind == "check":
        if ok is None:
            return "check", "shown in the chapter (no numeric criterion)"
        return ("check", f"holds: {rule}") if ok else ("check failed", f"fails: {rule}")
    if provenance != "paper":
        source = {"none": "the paper states no value to compare with",
                  "derived here": "the compared value is the book's own, not the paper's",
                  "authors' code": "the compared value is a fact of the authors' code, "
                                   "not of the paper"}[provenance]
        return "not testable", f"{source}; the chapter reports what was measured"
    if ok is None:
        return "not testable", "the paper's value cannot be compared by a criterion here"
    if ok:
        return "reproduced", f"{rule}: holds"
    if criterion == "seed_noise" and _number(alternative) and value < alternative / 2:
        return "partly reproduced", (f"{rule}: outside the seed noise, but nearer the "
                                     f"paper's candidate than its alternative ({alternative:.3g})")
    return "not reproduced", f"{rule}: fails"
