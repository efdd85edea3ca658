"""Chapter parameters: what each chapter accepts, checked before any work starts.

A chapter's parameters are the names its ``parameters`` cell assigns.  :func:`check`
refuses an unknown name and a value the chapter cannot use, naming the parameter, the
value and what is allowed: what the default's type allows, and the rules in
``[parameters]`` of the chapter's data file (:mod:`helpers.book.chapter_data`).  The
build calls it before papermill starts; every page calls :func:`page` with each of
its parameters by name, so an interactive run is checked too.
"""

from __future__ import annotations

import ast
import math
import numbers
import os
import re

from .chapter_data import BOOK, rules

_CELL = re.compile(
    r"```\{code-cell\} ipython3\n:tags: \[parameters[^\]]*\]\n\n?(.*?)\n```", re.S
)


def declared(chapter: str) -> dict:
    """The chapter's parameters and their default values (its parameters cell, run)."""
    src = BOOK / f"{chapter}.md"
    if not src.exists():
        raise ValueError(f"no chapter {chapter!r}: {src} does not exist")
    m = _CELL.search(src.read_text())
    code = m.group(1) if m else ""
    names = [
        t.id
        for node in ast.parse(code).body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    ]
    namespace: dict = {}
    exec(compile(code, f"<parameters of {chapter}>", "exec"), namespace)  # noqa: S102
    return {n: namespace[n] for n in names}


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _is_real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)


def _problem(value, default, rule: dict) -> str | None:
    """What is wrong with ``value`` for a parameter whose default is ``default``."""
    if "choices" in rule:
        return None if value in rule["choices"] else f"one of {list(rule['choices'])}"
    if isinstance(default, bool):
        return None if isinstance(value, bool) else "true or false"
    if _is_int(default):
        lo = rule.get("min", 1 if default >= 1 else 0)
        return None if _is_int(value) and value >= lo else f"an integer >= {lo}"
    if isinstance(default, float) or default is None:
        if default is None and value is None:
            return None
        if default is not None and default < 0:
            return None if _is_real(value) else "a finite number"
        return None if _is_real(value) and value > 0 else "a positive number"
    if isinstance(default, str):
        return None if isinstance(value, str) and value else "a non-empty string"
    if isinstance(default, (list, tuple)):
        if not isinstance(value, (list, tuple)):
            return "a list"
        if not default:
            return None
        if not value:
            return "a non-empty list"
        for x in value:
            wrong = _problem(x, default[0], {"min": 0})
            if wrong:
                plural = wrong.replace("an integer", "integers").replace("a ", "")
                return f"a list of {plural}s"
        return None
    if isinstance(default, dict):
        if not isinstance(value, dict):
            return "a mapping"
        unknown = sorted(set(value) - set(default))
        return f"a mapping with keys among {sorted(default)}" if unknown else None
    return None


#: The keys a rule may have: ``min``, ``max`` (each number), ``choices``; ``at_most``,
#: ``at_least``, ``multiple_of`` (another parameter, or a number), ``contains`` (a
#: parameter a list must hold), ``divides``, ``min_items``, ``items`` (a list's exact
#: length), ``path`` (a folder under which a string names a file); ``free``: any value
#: of the default's type.
RULE_KEYS = (
    "min", "max", "choices", "at_most", "at_least", "multiple_of", "contains",
    "divides", "min_items", "items", "path", "free",
)  # fmt: skip


def _numbers(value) -> list:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _numbers(v)]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _numbers(v)]
    return [value] if _is_real(value) else []


def _bounds(value, rule: dict) -> str | None:
    """``min``, ``max``, ``divides``, ``min_items`` and ``items`` on a value of the
    right type."""
    xs = _numbers(value)
    each = " (each)" if isinstance(value, (list, tuple, dict)) else ""
    lo, hi = rule.get("min"), rule.get("max")
    if lo is not None and any(x < lo for x in xs):
        return f"at least {lo!r}{each}" + (f" and at most {hi!r}" if hi else "")
    if hi is not None and any(x > hi for x in xs):
        return f"at most {hi!r}{each}" + (f" and at least {lo!r}" if lo else "")
    n = rule.get("divides")
    if n is not None and any(not _is_int(x) or n % x for x in xs):
        return f"a divisor of {n}{each}"
    k = rule.get("min_items")
    if k is not None and isinstance(value, (list, tuple)) and len(value) < k:
        return f"a list of at least {k} items"
    k = rule.get("items")
    if k is not None and isinstance(value, (list, tuple)) and len(value) != k:
        return f"a list of exactly {k} items"
    where = rule.get("path")
    if where is not None and isinstance(value, str):
        if not (BOOK.parent / where / value).is_file():
            return f"a file under {where}/"
    return None


def _relations(value, rule: dict, merged: dict) -> str | None:
    """``at_most``, ``at_least``, ``multiple_of`` and ``contains``: the value against
    the current value of another parameter."""
    xs = _numbers(value) if not isinstance(value, dict) else []
    each = " (each)" if isinstance(value, (list, tuple)) else ""
    other = rule.get("at_most")
    if other is not None and any(x > merged[other] for x in xs):
        return f"at most {other} = {merged[other]!r}{each}"
    other = rule.get("at_least")
    if other is not None and any(x < merged[other] for x in xs):
        return f"at least {other} = {merged[other]!r}{each}"
    step = rule.get("multiple_of")
    if step is not None:
        n = merged[step] if isinstance(step, str) else step
        if any(not _is_int(x) or x % n for x in xs):
            said = f"{step} = {n!r}" if isinstance(step, str) else f"{n!r}"
            tail = ", an epoch that is recorded" if isinstance(step, str) else ""
            return f"a multiple of {said}{each}{tail}"
    other = rule.get("contains")
    if other is not None and merged[other] not in value:
        return f"a list that contains {other} = {merged[other]!r}"
    return None


def check(chapter: str, values: dict) -> None:
    """Refuse unknown parameter names and unusable values of ``values`` (``{parameter:
    value}``, the others keep their defaults) for ``chapter``, naming each.

    Raises:
        ValueError: the first parameter that breaks its rule, with what is allowed;
            where another parameter's new value moved a default out of its rule, the
            message says to give that parameter too.
    """
    defaults = declared(chapter)
    unknown = sorted(set(values) - set(defaults))
    if unknown:
        raise ValueError(
            f"chapter {chapter!r} has no parameter {', '.join(map(repr, unknown))}; "
            f"its parameters are: {', '.join(defaults)}"
        )
    rules_ = rules(chapter)
    merged = {**defaults, **values}
    for name in [*values, *(n for n in defaults if n not in values)]:
        rule = rules_.get(name, {})
        value = merged[name]
        wrong = _problem(value, defaults[name], rule)
        wrong = wrong or _bounds(value, rule) or _relations(value, rule, merged)
        if wrong:
            why = f"but its default is {defaults[name]!r}: give {name} too"
            why = f"got {value!r}" if name in values else why
            raise ValueError(f"{name} must be {wrong}, {why} (chapter {chapter!r})")


def page(chapter: str, **values) -> None:
    """:func:`check` on a page's parameters, each passed by name (every one its
    parameters cell declares: a test holds the pages to it); the chapter is named in
    ``$HASTE_CHAPTER`` for the engine's call log (:mod:`helpers.core.store`)."""
    os.environ["HASTE_CHAPTER"] = chapter
    check(chapter, values)
