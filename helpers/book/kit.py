"""The report kit: what every chapter's ``report.py`` does, done one way: medians,
Markdown tables, glue of many values, records' notes and the page's sentences from the
chapter's TOML (``template``, ``[prose]``), and records added as a list, or from the
science function their TOML table names (:func:`registered`: a new claim touches its
table, that function and the page's prose, not the report).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence

import numpy as np
from tabulate import tabulate

from . import chapter_data, rulebook
from .notebook import glue
from .records import claims_table


def med(values) -> float:
    """The median of ``values`` (flattened, in their own precision) as a float."""
    return float(np.median(values))


def table(
    rows: Iterable[Sequence],
    headers: Sequence[str] | str,
    *,
    floatfmt: str | Sequence[str] | None = None,
    colalign: Sequence[str] | None = None,
) -> str:
    """A Markdown (GitHub) table of ``rows`` under ``headers`` (a list, or one string
    split at ``" | "``); ``floatfmt``: one format, or one per column, of float cells."""
    if isinstance(headers, str):
        headers = [h.strip() for h in headers.split(" | ")]
    if floatfmt is None or isinstance(floatfmt, str):
        fmts = [floatfmt] * len(headers)
    else:
        fmts = list(floatfmt)

    def cell(x, fmt):
        real = isinstance(x, (float, np.floating)) and not isinstance(x, bool)
        return format(float(x), fmt) if real and fmt is not None else x

    body = [[cell(x, f) for x, f in zip(row, fmts)] for row in rows]
    return tabulate(
        body, list(headers), tablefmt="github", colalign=colalign, disable_numparse=True
    )


def glue_many(prefix: str, values: dict | None = None, **more) -> None:
    """Glue every value of ``values`` and ``more`` as ``<prefix>_<name>``."""
    for k, v in {**(values or {}), **more}.items():
        glue(f"{prefix}_{k}" if prefix else k, v)


def note(chapter: str, name: str, **values) -> str:
    """The note of ``chapter.name``: its TOML ``template`` filled with ``values``.

    Raises:
        KeyError: the template names a field not given.
    """
    entry = rulebook.claim(chapter, name) or {}
    return _fill(entry.get("template", ""), f"{chapter}.{name}: the note", values)


def _fill(template: str, what: str, values: dict) -> str:
    """``template`` filled with ``values``; a missing field named with ``what``."""
    try:
        return template.format(**values)
    except KeyError as e:
        raise KeyError(f"{what} needs the value {e}") from None


def prose(chapter: str, name: str, **values) -> str:
    """The sentence ``name`` of the chapter's ``[prose]`` table (a template of words
    the report glues into the page) filled with ``values``.

    Raises:
        KeyError: no such sentence, or the template names a field not given.
    """
    templates = chapter_data.data(chapter).get("prose", {})
    if name not in templates:
        raise KeyError(f"{chapter}: no [prose] {name!r}; have {sorted(templates)}")
    return _fill(templates[name], f"{chapter}.prose.{name}:", values)


def summary(chapter: str, records: dict, **values) -> str:
    """The closing table of ``records`` (``{name: record}``, in order): each one's
    TOML ``summary`` filled with ``values``, and its ``summary_quote`` (else "—")."""
    entries = {name: rulebook.claim(chapter, name) for name in records}
    return claims_table(
        (e["summary"].format(**values), e.get("summary_quote", "—"), records[name])
        for name, e in entries.items()
    )


def add_all(rec, records: Iterable[tuple]) -> dict:
    """Add ``records`` to ``rec`` (a :class:`helpers.book.records.Records`):
    ``(name, evidence)``, ``(name, evidence, note)`` or ``(name, evidence, {field:
    value})`` (filling the template, :func:`note`).  Returns ``{name: record}``."""
    out = {}
    for item in records:
        name, evidence, *rest = item
        said = rest[0] if rest else ""
        if isinstance(said, dict):
            said = note(rec.chapter, name, **said)
        out[name] = rec.add(name, evidence, said)
    return out


def registered(chapter: str, *runs) -> list[tuple]:
    """The records of ``chapter`` whose TOML table names their science function.

    Args:
        chapter: the chapter's name; a table's ``evidence = "module:function"`` names a
            module of ``helpers.chapters.<chapter>``.
        runs: what the report hands each function (its runs), as positional arguments.

    Returns:
        ``(name, evidence, values)`` per such record, in the TOML's order, for
        :func:`add_all`: each function returns ``(evidence, values)``, the values
        filling the record's ``template``.
    """
    out = []
    for name, entry in (rulebook.registry().get(chapter) or {}).items():
        if "evidence" not in entry:
            continue
        module, _, function = entry["evidence"].partition(":")
        package = importlib.import_module(f"helpers.chapters.{chapter}.{module}")
        out.append((name, *getattr(package, function)(*runs)))
    return out
