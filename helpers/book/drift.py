"""Drift: does a re-execution reproduce the committed records?

Every record's value is computed from seeded runs, so re-executing a chapter on the same
machine must give the same numbers.  :func:`compare` lists each record whose value,
compared value, spread, alternative or verdict moved beyond :data:`RTOL` (records keep 6
significant digits), and each record that appeared or vanished.  Records marked
``"timing": true`` (seconds, speed-ups) are exempt: a clock is not seeded.

``python -m helpers.book drift`` compares a results folder with the committed one (git),
and the test command runs the same comparison after nbval has re-executed the chapters.
:func:`authors_runs` does the same for the stored runs of the authors' scripts
(``book/authors_runs``, page *Against the authors' code*): a stored curve that changes
is a drift.
"""

from __future__ import annotations

import json
import math
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import crosscheck

__all__ = [
    "RTOL",
    "Drift",
    "compare",
    "committed",
    "load",
    "report",
    "authors_runs",
]

#: Relative difference beyond which a re-executed number has drifted.  Values are stored
#: to 6 significant digits, so 1e-5 lets only the last stored digit round the other way.
RTOL = 1e-5
FIELDS = (
    "value",
    "paper",
    "spread",
    "alternative",
    "verdict",
    "variants",
    "depends_on",
)
ROOT = Path(__file__).resolve().parents[2]


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


def _same(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=RTOL, abs_tol=0.0) or a == b
    return a == b


def compare(old: dict, new: dict, chapters=None) -> list[Drift]:
    """Drifts between two ``{chapter: {record: {...}}}`` collections, for ``chapters``
    (default: those present in ``new``)."""
    out = []
    for ch in sorted(chapters if chapters is not None else new):
        a, b = old.get(ch, {}), new.get(ch, {})
        for name in sorted(set(a) | set(b)):
            ra, rb = a.get(name), b.get(name)
            if ra is None or rb is None:
                out.append(
                    Drift(
                        ch,
                        name,
                        "record",
                        "absent" if ra is None else "present",
                        "absent" if rb is None else "present",
                    )
                )
                continue
            if ra.get("timing") or rb.get("timing"):
                continue
            for f in FIELDS:
                if not _same(ra.get(f), rb.get(f)):
                    out.append(Drift(ch, name, f, ra.get(f), rb.get(f)))
    return out


def load(directory) -> dict:
    """Every ``<chapter>.json`` in ``directory``."""
    return {
        p.stem: json.loads(p.read_text())
        for p in sorted(Path(directory).glob("*.json"))
    }


def _git(*args: str) -> str:
    """The standard output of ``git args`` in the repository (raises on failure)."""
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    ).stdout


def committed(rev: str = "HEAD", folder: str = "book/results") -> dict:
    """The records as committed at ``rev`` (read with git, the working tree
    untouched)."""
    names = _git("ls-tree", "--name-only", f"{rev}:{folder}").split()
    return {
        n[:-5]: json.loads(_git("show", f"{rev}:{folder}/{n}"))
        for n in names
        if n.endswith(".json")
    }


def report(drifts: list[Drift]) -> str:
    if not drifts:
        return "no record drifted"
    lines = [f"{len(drifts)} record field(s) drifted beyond relative {RTOL:g}:"]
    lines += [f"  {d}" for d in drifts]
    return "\n".join(lines)


def authors_runs(rev: str = "HEAD", out=None) -> list[Drift]:
    """Drifts of the stored runs of the authors' scripts: each file against the sha256
    its manifest records (:func:`helpers.book.crosscheck.verify`), and each manifest
    entry's sha256, seeds and shape against the manifest committed at ``rev``."""
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
            drifts.append(
                Drift(
                    "authors_runs",
                    name,
                    "record",
                    "absent" if a is None else "present",
                    "absent" if b is None else "present",
                )
            )
            continue
        for f in ("sha256", "seeds", "commit"):
            if a.get(f) != b.get(f):
                drifts.append(Drift("authors_runs", name, f, a.get(f), b.get(f)))
    return drifts
