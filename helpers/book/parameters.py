"""Chapter parameters: what each chapter accepts, checked before any work starts.

A chapter's parameters are the names its ``parameters`` cell assigns (papermill injects
overrides after that cell).  :func:`check` refuses a name the chapter does not have and
a value it cannot use, with a message that names the parameter, the value and what is
allowed; ``python -m helpers.book execute`` calls it before papermill starts, and every
chapter calls :func:`check_namespace` at its top, so an interactive run is checked too.

What is allowed follows from the default's type (an integer stays an integer, a positive
number stays positive, a list stays a list of the same kind) and from the few rules that
a type cannot say (``seeds >= 2`` where a spread over seeds is used), in the
``[parameters]`` of the chapter's data file (:mod:`helpers.book.chapter_data`).
"""

from __future__ import annotations

import ast
import math
import numbers
import os
import re
from pathlib import Path

from .chapter_data import rules

__all__ = ["declared", "check", "check_namespace"]

BOOK = Path(__file__).resolve().parents[2] / "book"
_CELL = re.compile(
    r"```\{code-cell\} ipython3\n:tags: \[parameters[^\]]*\]\n\n?(.*?)\n```", re.S
)


def _cell_source(chapter: str) -> str:
    src = BOOK / f"{chapter}.md"
    if not src.exists():
        raise ValueError(f"no chapter {chapter!r}: {src} does not exist")
    m = _CELL.search(src.read_text())
    return m.group(1) if m else ""


def declared(chapter: str) -> dict:
    """The chapter's parameters and their default values (its parameters cell, run)."""
    code = _cell_source(chapter)
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


def _problem(name: str, value, default, rule: dict) -> str | None:
    """What is wrong with ``value`` for a parameter whose default is ``default``."""
    if "choices" in rule:
        ok = value in rule["choices"]
        return None if ok else f"one of {list(rule['choices'])}"
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
            wrong = _problem(name, x, default[0], {"min": 0})
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


def check(chapter: str, values: dict) -> None:
    """Refuse unknown parameter names and unusable values, naming each (ValueError)."""
    defaults = declared(chapter)
    unknown = sorted(set(values) - set(defaults))
    if unknown:
        raise ValueError(
            f"chapter {chapter!r} has no parameter {', '.join(map(repr, unknown))}; "
            f"its parameters are: {', '.join(defaults)}"
        )
    rules_ = rules(chapter)
    for name, value in values.items():
        rule = rules_.get(name, {})
        wrong = _problem(name, value, defaults[name], rule)
        if not wrong and "at_most" in rule:
            wrong = _beyond(value, rule["at_most"], values, defaults)
        if not wrong and "multiple_of" in rule:
            wrong = _off_grid(value, rule["multiple_of"], values, defaults)
        if wrong:
            raise ValueError(
                f"{name} must be {wrong}, got {value!r} (chapter {chapter!r})"
            )
    for name, rule in rules_.items():  # a bound another parameter's new value moved
        if name not in values and "at_most" in rule and rule["at_most"] in values:
            wrong = _beyond(defaults[name], rule["at_most"], values, defaults)
            if wrong:
                raise ValueError(
                    f"{name} must be {wrong}, but its default is {defaults[name]!r}: "
                    f"give {name} too (chapter {chapter!r})"
                )


def _off_grid(value, other: str, values: dict, defaults: dict) -> str | None:
    """The rule ``multiple_of``: an integer (or every integer of a list) a multiple of
    the parameter ``other`` (e.g. epochs shown among the epochs recorded)."""
    step = values.get(other, defaults[other])
    xs = value if isinstance(value, (list, tuple)) else [value]
    if all(_is_int(x) and x % step == 0 for x in xs):
        return None
    each = " (each)" if isinstance(value, (list, tuple)) else ""
    return f"a multiple of {other} = {step!r}{each}, an epoch that is recorded"


def _beyond(value, other: str, values: dict, defaults: dict) -> str | None:
    """The rule ``at_most``: a number (or every number of a list) at most the value of
    the parameter ``other`` (e.g. epochs shown at most the epochs trained)."""
    bound = values.get(other, defaults[other])
    xs = value if isinstance(value, (list, tuple)) else [value]
    if all(_is_real(x) and x <= bound for x in xs):
        return None
    each = " (each)" if isinstance(value, (list, tuple)) else ""
    return f"at most {other} = {bound!r}{each}"


def check_namespace(chapter: str, namespace: dict) -> None:
    """:func:`check` on the values a chapter's parameters have in ``namespace``; the
    chapter is named in ``$HASTE_CHAPTER`` for the engine's call log
    (:mod:`helpers.core.store`)."""
    os.environ["HASTE_CHAPTER"] = chapter
    check(chapter, {n: namespace[n] for n in declared(chapter) if n in namespace})
