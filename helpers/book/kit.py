"""The report kit: the few things every chapter's report does, done one way.

A chapter's report (``helpers/chapters/<chapter>/report.py``) turns runs into records,
glued numbers and tables.  It uses:

* :func:`med`, the one median of the book's reports;
* :func:`table`, a Markdown table through ``tabulate`` (never written by hand);
* :func:`glue_many`, many glued values under one prefix in one call;
* :func:`note`, a record's note: the template in the chapter's TOML table
  (``template = "... {n} seeds ..."``) filled from the values the evidence was made
  of (the table's ``note`` is the claim's fixed caveat, not the record's);
* :func:`add_all`, a chapter's records as a list of ``(name, evidence)``, or
  ``(name, evidence, values)`` that fill the record's template;
* :func:`registered`, the records whose TOML table names the science function that
  measures them (``evidence = "module:function"``): a new claim touches its TOML
  table, that function and the page's prose, not the report.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence

import numpy as np
from tabulate import tabulate

from . import rulebook
from .notebook import glue


def med(values) -> float:
    """The median of ``values`` as a Python float, taken in their own precision (a
    float32 array's in float32, as ``np.median`` does; NaNs propagate).

    Args:
        values: any array-like of numbers, shape ``(n, ...)`` flattened.

    Returns:
        ``float(np.median(values))``.
    """
    return float(np.median(values))


def table(
    rows: Iterable[Sequence],
    headers: Sequence[str] | str,
    *,
    floatfmt: str | Sequence[str] | None = None,
    colalign: Sequence[str] | None = None,
) -> str:
    """A Markdown (GitHub) table of ``rows`` under ``headers``.

    Args:
        rows: one sequence of cells per row; strings are left as they are.
        headers: the column titles, or one string of them separated by ``" | "``.
        floatfmt: the format of float cells (one for all, or one per column; None:
            as ``str`` writes them).
        colalign: ``"left"``, ``"right"`` or ``"center"`` per column.

    Returns:
        The table's Markdown text.
    """
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
    """Glue every value under ``<prefix>_<name>`` (``prefix`` empty: ``<name>``).

    Args:
        prefix: the chapter's glue prefix (``"xor"``).
        values, more: ``{name: value}``; NumPy scalars become Python numbers.
    """
    for k, v in {**(values or {}), **more}.items():
        glue(f"{prefix}_{k}" if prefix else k, v)


def note(chapter: str, name: str, **values) -> str:
    """The note of the record ``chapter.name``: its TOML template filled in.

    Args:
        chapter: the chapter's name.
        name: the record's name; its table in ``helpers/book/chapters/<chapter>.toml``
            holds ``template = "... {field:fmt} ..."``.
        values: the fields the template names.

    Returns:
        The note in words (empty where the table has none).

    Raises:
        KeyError: the template names a field not given (its name in the message).
    """
    entry = rulebook.claim(chapter, name) or {}
    template = entry.get("template", "")
    try:
        return template.format(**values)
    except KeyError as e:
        raise KeyError(f"{chapter}.{name}: the note needs the value {e}") from None


def add_all(rec, records: Iterable[tuple]) -> dict:
    """Add a chapter's records to ``rec`` (a :class:`helpers.book.records.Records`).

    Args:
        rec: the chapter's records.
        records: ``(name, evidence)``, ``(name, evidence, note)`` or ``(name,
            evidence, {field: value})`` per record (the last fills the record's
            template, :func:`note`).

    Returns:
        ``{name: stored record}``.
    """
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
