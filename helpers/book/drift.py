"""Drift: does a re-execution reproduce the committed records?

Records come from seeded runs: the same machine gives the same numbers, another one
numbers that move no further than float32 rounding moves them
(:mod:`helpers.book.rounding`).  :func:`compare` lists each field (:data:`FIELDS`) that
moved beyond :data:`helpers.book.rulebook.ROUNDING_MULTIPLE` times its rounding floor
(or :data:`RTOL` where rounding does not move it), each verdict or text that changed
(unless it took both forms under rounding) and each record that appeared or vanished;
``"timing": true`` records are exempt.  ``python -m helpers.book drift`` and the test
command run it; :func:`authors_runs` checks the stored runs of the authors' scripts.
"""

from __future__ import annotations

import json
import math
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import crosscheck, records, rounding, rulebook
from .chapter_data import ROOT

#: Relative drift of a number that rounding does not move: records keep 6 significant
#: digits, so only the last may round the other way.
RTOL = 1e-5
#: The fields of a record compared: the ones its rounding floor is measured on.
FIELDS = rounding.FIELDS
#: Every ``<chapter>.json`` of a folder, by chapter.
load = records.load_all


@dataclass(frozen=True)
class Drift:
    chapter: str
    record: str
    field: str
    old: object
    new: object

    def __str__(self) -> str:
        return (
            f"{self.chapter}.{self.record} [{self.field}]: "
            f"committed {self.old!r}, now {self.new!r}"
        )


def _same(a, b, path: str = "", tol=None, seen=None) -> bool:
    """Whether ``b`` reproduces ``a``: numbers within :data:`RTOL` or the rounding
    ``tol``, texts equal or both ``seen`` under rounding (each by path)."""
    tol, seen = tol or {}, seen or {}
    if path.endswith("depends_on") and isinstance(a, list) and isinstance(b, list):
        if ("rounding" in a) != ("rounding" in b):
            return False
        a = [c for c in a if c != "rounding"]
        b = [c for c in b if c != "rounding"]
        return a == b or (a in seen.get(path, []) and b in seen.get(path, []))
    if path in seen and a in seen[path] and b in seen[path]:
        return True
    if isinstance(a, list) and isinstance(b, list):  # by index, as a mapping
        a, b = dict(enumerate(a)), dict(enumerate(b))
    if isinstance(a, dict) and isinstance(b, dict):
        if not (a.keys() ^ b.keys()) <= _optional(seen.get(path, [])):
            return False
        keys = [k for k in a if k in b]
        return all(_same(a[k], b[k], f"{path}/{k}", tol, seen) for k in keys)
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isclose(a, b, rel_tol=RTOL, abs_tol=0.0) or a == b:
            return True
        floor = tol.get(path, 0.0)
        return floor > 0 and abs(a - b) <= rulebook.ROUNDING_MULTIPLE * floor
    return a == b


def _optional(forms: list) -> set:
    """The keys rounding was seen to drop: in some of a path's ``forms``, not all."""
    forms = [dict(enumerate(f)) if isinstance(f, list) else f for f in forms]
    keys = [set(f) for f in forms if isinstance(f, dict)]
    return set().union(*keys) - set.intersection(*keys) if keys else set()


def _appeared(chapter: str, name: str, old, new) -> Drift:
    state = ["absent" if x is None else "present" for x in (old, new)]
    return Drift(chapter, name, "record", *state)


def compare(old: dict, new: dict, chapters=None) -> list[Drift]:
    """Drifts between two ``{chapter: {record: {...}}}`` collections, for ``chapters``
    (default: those present in ``new``)."""
    out = []
    for ch in sorted(chapters if chapters is not None else new):
        a, b = old.get(ch, {}), new.get(ch, {})
        for name in sorted(set(a) | set(b)):
            ra, rb = a.get(name), b.get(name)
            if ra is None or rb is None:
                out.append(_appeared(ch, name, ra, rb))
                continue
            if ra.get("timing") or rb.get("timing"):
                continue
            floor = rounding.entry(ch, name) or {}
            tol, seen = floor.get("tolerance", {}), floor.get("seen", {})
            for f in FIELDS:
                if not _same(ra.get(f), rb.get(f), f, tol, seen):
                    out.append(Drift(ch, name, f, ra.get(f), rb.get(f)))
    return out


def _git(*args: str) -> str:
    """The standard output of ``git args`` (raises on failure)."""
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    ).stdout


def committed(rev: str = "HEAD", folder: str = "book/results") -> dict:
    """The records as committed at ``rev`` (read with git)."""
    names = _git("ls-tree", "--name-only", f"{rev}:{folder}").split()
    return {
        n[:-5]: json.loads(_git("show", f"{rev}:{folder}/{n}"))
        for n in names
        if n.endswith(".json")
    }


def report(drifts: list[Drift]) -> str:
    if not drifts:
        return "no record drifted"
    lines = [
        f"{len(drifts)} record field(s) drifted beyond "
        f"{rulebook.ROUNDING_MULTIPLE:g} x their rounding floor (relative {RTOL:g} "
        "where rounding does not move them):"
    ]
    lines += [f"  {d}" for d in drifts]
    return "\n".join(lines)


def authors_runs(rev: str = "HEAD", out=None) -> list[Drift]:
    """Drifts of the stored runs of the authors' scripts: each file against its
    manifest's sha256, and each manifest entry against the one committed at ``rev``."""
    out = crosscheck.RUNS if out is None else Path(out)
    drifts = [
        Drift("authors_runs", p.partition(":")[0], "file", "as stored", p)
        for p in crosscheck.verify(out)
    ]
    try:
        rel = out.resolve().relative_to(ROOT)
        text = _git("show", f"{rev}:{rel.as_posix()}/manifest.json")
    except (ValueError, subprocess.CalledProcessError):
        return drifts  # not under git here: only the files against their manifest
    old = json.loads(text).get("experiments", {})
    new = crosscheck.manifest(out).get("experiments", {})
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name), new.get(name)
        if a is None or b is None:
            drifts.append(_appeared("authors_runs", name, a, b))
            continue
        for f in ("sha256", "seeds", "commit"):
            if a.get(f) != b.get(f):
                drifts.append(Drift("authors_runs", name, f, a.get(f), b.get(f)))
    return drifts
