"""Chapter parameters: what each chapter accepts, checked before any work starts.

A chapter's parameters are the names its ``parameters`` cell assigns (papermill injects
overrides after that cell).  :func:`check` refuses a name the chapter does not have and
a value it cannot use, with a message that names the parameter, the value and what is
allowed; ``python -m helpers.book execute`` calls it before papermill starts, and every
chapter calls :func:`check_namespace` at its top, so an interactive run is checked too.

What is allowed follows from the default's type (an integer stays an integer, a positive
number stays positive, a list stays a list of the same kind) and from the few rules in
:data:`RULES` that a type cannot say (``seeds >= 2`` where a spread over seeds is used).
"""

from __future__ import annotations

import ast
import math
import numbers
import re
from pathlib import Path

__all__ = ["RULES", "declared", "check", "check_namespace"]

BOOK = Path(__file__).resolve().parents[2] / "book"
_CELL = re.compile(
    r"```\{code-cell\} ipython3\n:tags: \[parameters[^\]]*\]\n\n?(.*?)\n```", re.S
)

#: The ReLN / GDLN initialisations a chapter may start from
#: (``helpers.core.relns.INITS``, : repeated here so that the pipeline checks parameters
#: without importing JAX; a test : keeps the two equal).
INIT_CHOICES = ("authors", "matched", "derived")
_INIT = {"choices": INIT_CHOICES}
_COUPLING = {"choices": ("full", "one-way")}

#: Rules beyond the default's type: ``{chapter: {name: {"min": m} or {"choices":
#: (...)}}}``.
RULES: dict[str, dict[str, dict]] = {
    "contexts": {"seeds": {"min": 2}, "reln_init": _INIT},
    "extra_contexts": {"seeds": {"min": 2}, "reln_init": _INIT},
    "xor": {"seeds": {"min": 2}, "sweep_seeds": {"min": 2}, "bootstrap": {"min": 1}},
    "depth": {
        "seeds": {"min": 2},
        "init_seeds": {"min": 0},
        "oneway_seeds": {"min": 0},
        "coupling": _COUPLING,
        "gdln_init": _INIT,
    },
    "proofs": {
        "race_seeds": {"min": 2},
        "reln_coupling": _COUPLING,
        "n_contexts": {"min": 2},
    },
    "gate_finding": {
        "depth_elbow_k_max": {"min": 0},
        "elbow_seeds": {"min": 2},
        "elbow_init": _INIT,
    },
    "reviewers": {"seeds": {"min": 2}},
    "digits": {"seeds": {"min": 2}, "images_per_class": {"min": 0}},
}


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
    rules = RULES.get(chapter, {})
    for name, value in values.items():
        wrong = _problem(name, value, defaults[name], rules.get(name, {}))
        if wrong:
            raise ValueError(
                f"{name} must be {wrong}, got {value!r} (chapter {chapter!r})"
            )


def check_namespace(chapter: str, namespace: dict) -> None:
    """:func:`check` on the values a chapter's parameters have in ``namespace``."""
    check(chapter, {n: namespace[n] for n in declared(chapter) if n in namespace})
