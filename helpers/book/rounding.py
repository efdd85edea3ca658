"""The rounding floor: how far each record moves when only float32 rounding changes
([rulebook-rounding]).

The book is executed on several instruction sets (``XLA_FLAGS``; stored in
``book/rounding/``); :func:`measure` turns them into a floor per record (the yardstick
of :mod:`helpers.book.drift`), and a verdict that differs between them becomes
``undecided`` (:func:`apply`).

Commands (``python -m helpers.book rounding --help``)::

    python -m helpers.book execute --isa SSE4_2            # the book on an older ISA
    python -m helpers.book rounding measure RUN [RUN ...]  # store book/rounding/
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import time
from functools import lru_cache
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "book" / "rounding"
FLOORS = DIR / "floors.json"
#: The environment variable XLA reads its flags from (set before JAX starts).
ISA_VARIABLE = "XLA_FLAGS"
#: ``off`` switches the rounding rule (:func:`apply`) off, for the unit tests.
RULE_VARIABLE = "HASTE_ROUNDING"
#: The instruction sets an execution may be limited to (XLA's names).
ISAS = ("SSE4_2", "AVX", "AVX2", "AVX512")
#: The fields of a record the floor is measured on (those drift compares).
FIELDS = tuple("value paper spread alternative verdict variants depends_on".split())


def isa_flags(isa: str | None) -> str | None:
    """``XLA_FLAGS`` that limit XLA's CPU code to ``isa`` (None: the machine's own).

    Raises:
        ValueError: ``isa`` is not one of :data:`ISAS`.
    """
    if isa is None:
        return None
    if isa not in ISAS:
        raise ValueError(f"isa must be one of {list(ISAS)}, got {isa!r}")
    return f"--xla_cpu_max_isa={isa}"


def other_isa(env: dict | None = None) -> str:
    """An instruction set whose float32 code differs from this process's."""
    flags = (env if env is not None else os.environ).get(ISA_VARIABLE) or ""
    return "AVX2" if "max_isa=SSE4_2" in flags or "max_isa=AVX " in flags else "SSE4_2"


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), or the platform's processor."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _walk(values: list, path: str, tol: dict, seen: dict) -> None:
    """One field over the executions: moved ranges to ``tol``, forms to ``seen``."""
    if all(_number(v) for v in values):
        finite = [float(v) for v in values if math.isfinite(float(v))]
        if len(finite) < len(values):
            if len({repr(v) for v in values}) > 1:
                seen[path] = _forms(values)
            return
        spread = max(finite) - min(finite)
        if spread > 0:
            tol[path] = float(f"{spread:.3g}")
        return
    if all(isinstance(v, dict) for v in values):
        if any(v.keys() != values[0].keys() for v in values):
            seen[path] = _forms(values)  # a key came and went: each form was seen
        for k in [k for k in values[0] if all(k in v for v in values)]:
            _walk([v[k] for v in values], f"{path}/{k}", tol, seen)
        return
    if all(isinstance(v, list) for v in values) and len({len(v) for v in values}) == 1:
        if path.endswith("depends_on"):
            if len({json.dumps(v) for v in values}) > 1:
                seen[path] = _forms(values)
            return
        for i in range(len(values[0])):
            _walk([v[i] for v in values], f"{path}/{i}", tol, seen)
        return
    if len({json.dumps(v, sort_keys=True) for v in values}) > 1:
        seen[path] = _forms(values)


def _forms(values: list) -> list:
    out = {json.dumps(v, sort_keys=True): v for v in values}
    return [out[k] for k in sorted(out)]


def _leaves(v) -> list[float]:
    if _number(v):
        return [float(v)] if math.isfinite(float(v)) else []
    if isinstance(v, dict):
        return [x for y in v.values() for x in _leaves(y)]
    if isinstance(v, list):
        return [x for y in v for x in _leaves(y)]
    return []


def _relative(values: list) -> float:
    """The largest move of a value over the executions, relative to its size."""
    tol: dict = {}
    _walk(values, "", tol, {})
    size = max((abs(x) for v in values for x in _leaves(v)), default=0.0)
    if not tol:
        return 0.0
    if size == 0:
        return math.inf
    return float(f"{max(tol.values()) / size:.3g}")


def machine_label(platform_: str, xla_flags: str | None = None) -> str:
    """An execution's short name: the kernel release and the instruction set."""
    short = platform_.removeprefix("Linux-").split("-x86_64")[0].split("-aarch64")[0]
    isa = (xla_flags or "").partition("max_isa=")[2].split()[0:1]
    return f"{short}, {isa[0]}" if isa else short


def raw_verdict(rec: dict) -> str:
    """The verdict the evidence gave before the rounding rule (:func:`apply`)."""
    return rec.get("raw_verdict", rec.get("verdict"))


def _raw(rec: dict) -> dict:
    out = {f: rec.get(f) for f in FIELDS}
    out["verdict"] = raw_verdict(rec)
    if isinstance(out["variants"], dict):
        out["variants"] = {k: v for k, v in out["variants"].items() if k != "rounding"}
    if isinstance(out["depends_on"], list):
        out["depends_on"] = [c for c in out["depends_on"] if c != "rounding"]
    return out


def measure(runs: dict[str, dict]) -> dict:
    """The floors, ``{chapter: {record: {"rounding", "tolerance", "seen",
    "verdicts", "values"}}}``, from ``runs``: ``{label: {chapter: {record: ...}}}``,
    one per execution of the same code (timing records left out)."""
    if len(runs) < 2:
        raise ValueError(f"runs: a floor needs at least 2 executions, got {len(runs)}")
    labels = list(runs)
    out: dict = {}
    names = {(ch, n) for recs in runs.values() for ch in recs for n in recs[ch]}
    for ch, name in sorted(names):
        have = [lb for lb in labels if name in runs[lb].get(ch, {})]
        recs = [runs[lb][ch][name] for lb in have]
        if len(recs) < 2 or any(r.get("timing") for r in recs):
            continue
        raw = [_raw(r) for r in recs]
        tol: dict = {}
        seen: dict = {}
        for f in FIELDS:
            _walk([r[f] for r in raw], f, tol, seen)
        values = [r["value"] for r in raw]
        out.setdefault(ch, {})[name] = {
            "rounding": _relative(values),
            "tolerance": tol,
            "seen": seen,
            "verdicts": {lb: r["verdict"] for lb, r in zip(have, raw)},
            "values": {lb: v for lb, v in zip(have, values) if _number(v)},
        }
    return out


def store_chapters(runs: dict[str, Path], chapters: tuple, add: bool = False) -> Path:
    """Measure the floors of ``chapters`` again from ``runs`` (``{label: run
    folder}``), keeping every other chapter's; ``add``: the runs are other machines'
    executions of the same code, joining the stored ones rather than replacing them."""
    if not chapters:
        raise ValueError("chapters: name at least one chapter to measure again")
    from . import drift  # drift reads the floors: imported here, not at the top

    executions = {k: dict(v) for k, v in floors()["executions"].items()}
    collections = {
        label: json.loads((DIR / e["records"]).read_text())
        for label, e in executions.items()
    }
    commit = _commit()
    for label in list(collections):
        if label not in runs and not add:
            for ch in chapters:
                collections[label].pop(ch, None)
    for label, folder in runs.items():
        folder = Path(folder)
        new = drift.load(folder / "results")
        missing = [ch for ch in chapters if ch not in new]
        if missing:
            raise ValueError(f"runs: {folder} lacks the chapters {missing}")
        manifest = json.loads((folder / "manifest.json").read_text())
        collections.setdefault(label, {}).update({ch: new[ch] for ch in chapters})
        e = executions.setdefault(
            label, {"what": "", "machine": manifest.get("machine"), "seconds": 0.0}
        )
        e["what"] = e["what"] or _what(manifest)
        e.setdefault("xla_flags", manifest.get("xla_flags"))
        redone = e.setdefault("redone", {})
        for ch in chapters:
            redone[ch] = {
                "commit": manifest.get("commit") or commit,
                "seconds": round(manifest.get("chapters", {}).get(ch, 0.0), 1),
            }
    return _write(executions, collections)


def _write(executions: dict, collections: dict) -> Path:
    DIR.mkdir(parents=True, exist_ok=True)
    for label, recs in collections.items():
        slug = "".join(c if c.isalnum() else "-" for c in label).strip("-")
        (DIR / f"records-{slug}.json").write_text(
            json.dumps(recs, sort_keys=True, separators=(",", ":")) + "\n"
        )
        executions[label]["records"] = f"records-{slug}.json"
    data = {
        "about": "the rounding floor of every record: python -m helpers.book "
        "rounding measure (helpers/book/rounding.py)",
        "date": time.strftime("%Y-%m-%d"),
        "commit": _commit(),
        "executions": executions,
        "records": measure(collections),
    }
    FLOORS.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    floors.cache_clear()
    return FLOORS


def store(
    runs: dict[str, Path], committed: str | None = "HEAD", stale: tuple = ()
) -> Path:
    """Measure the floors from ``runs`` (``{label: run folder}``) and the committed
    records at revision ``committed`` (less the ``stale`` chapters, made by other
    code), and store them with each execution's records in :data:`DIR`."""
    from . import drift

    collections, executions = {}, {}
    if committed:
        stats = json.loads(drift._git("show", f"{committed}:book/stats/execution.json"))
        machine = stats.get("machine", {})
        label = f"{machine_label(machine.get('platform', '?'))} (committed)"
        collections[label] = {
            ch: recs
            for ch, recs in drift.committed(committed).items()
            if ch not in stale
        }
        executions[label] = {
            "what": f"the committed records of {_commit(committed)}"
            + (f" (not {', '.join(stale)}: other code)" if stale else ""),
            "machine": machine,
            "xla_flags": None,
        }
    for label, folder in runs.items():
        folder = Path(folder)
        manifest = json.loads((folder / "manifest.json").read_text())
        collections[label] = drift.load(folder / "results")
        executions[label] = {
            "what": _what(manifest),
            "machine": manifest.get("machine"),
            "xla_flags": manifest.get("xla_flags"),
            "commit": manifest.get("commit"),
            "note": manifest.get("note"),
            "seconds": round(sum(manifest.get("chapters", {}).values()), 1),
        }
    return _write(executions, collections)


def _what(manifest: dict) -> str:
    """The command that made a run, from its manifest."""
    return f"python -m helpers.book {manifest.get('command') or 'execute'}"


def _commit(rev: str = "HEAD") -> str | None:
    out = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", rev],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return out or None


@lru_cache(maxsize=1)
def floors() -> dict:
    """The stored floors (``book/rounding/floors.json``), or an empty set."""
    if not FLOORS.exists():
        return {"executions": {}, "records": {}}
    return json.loads(FLOORS.read_text())


def entry(chapter: str, name: str) -> dict | None:
    """The stored floor of one record, or None where it was not measured."""
    return floors()["records"].get(chapter, {}).get(name)


def apply(
    chapter: str, name: str, verdict: str, reason: str, variants: dict, depends_on: list
) -> tuple[str, str, dict, list, dict]:
    """The rounding rule ([rulebook-rounding]) on one decided record.

    Returns:
        ``(verdict, reason, variants, depends_on, extra)`` (the first four as
        :func:`helpers.book.rulebook.decide` gives them): unchanged where every
        execution agrees; else ``undecided``, ``rounding`` a variant and a choice it
        depends on; ``extra``: ``rounding`` (and ``raw_verdict``).
    """
    e = entry(chapter, name)
    if e is None or os.environ.get(RULE_VARIABLE) == "off":
        return verdict, reason, variants, depends_on, {}
    extra = {"rounding": e["rounding"]}
    stored = e["verdicts"]
    if len(set(stored.values()) | {verdict}) == 1:
        return verdict, reason, variants, depends_on, extra
    rows = [
        dict(setting=f"executed on {label}", value=e["values"].get(label), verdict=v)
        for label, v in stored.items()
    ]
    said = "; ".join(f"{v} on {label}" for label, v in stored.items())
    here = "" if verdict in stored.values() else f"; {verdict} in this execution"
    reason = (
        f"float32 rounding decides it, not the evidence ({said}{here}). "
        f"This execution: {verdict}, because {reason}"
    )
    variants = dict(sorted({**(variants or {}), "rounding": rows}.items()))
    depends_on = sorted(set(depends_on or []) | {"rounding"})
    extra["raw_verdict"] = verdict
    return "undecided", reason, variants, depends_on, extra


def _seconds(e: dict) -> float | str:
    """An execution's chapter time: its own, else its chapters' measured again."""
    redone = [r.get("seconds", 0.0) for r in (e.get("redone") or {}).values()]
    return e.get("seconds") or round(sum(redone), 1) or ""


def summary(records: dict, most: int = 8) -> str:
    """The rulebook page's Markdown account of the floors ([rulebook-rounding])."""
    data = floors()
    if not data["executions"]:
        return "No rounding floor is stored (`book/rounding/floors.json`)."
    rows = [
        (
            label,
            e.get("xla_flags") or "its own",
            (e.get("machine") or {}).get("cpu", ""),
            _seconds(e),
        )
        for label, e in data["executions"].items()
    ]
    floors_ = [
        (f"{ch}.{name}", e["rounding"])
        for ch, recs in data["records"].items()
        for name, e in recs.items()
    ]
    moved = sorted((x for x in floors_ if x[1] > 0), key=lambda x: -x[1])
    most_moved = [(f"`{n}`", f"{100 * r:.3g} %") for n, r in moved[:most]]
    turned = [
        f"`{ch}.{name}` ({'; '.join(x['verdict'] for x in r['variants']['rounding'])})"
        for ch, recs in records.items()
        for name, r in recs.items()
        if "rounding" in (r.get("depends_on") or [])
    ]
    out = [
        tabulate(rows, ["execution", "XLA_FLAGS", "CPU", "seconds"], tablefmt="github"),
        "",
        f"Stored by `python -m helpers.book rounding measure` on {data['date']} "
        f"(commit {data.get('commit')}); each execution by "
        "`python -m helpers.book execute --isa <ISA>` (a run).",
        "",
        f"Of {len(floors_)} records, {len(moved)} move under rounding; the most:",
        "",
        tabulate(most_moved, ["record", "rounding"], tablefmt="github"),
        "",
        "Verdicts that turn on rounding (undecided): " + ", ".join(turned) + "."
        if turned
        else "No verdict turns on rounding.",
    ]
    return "\n".join(out)
