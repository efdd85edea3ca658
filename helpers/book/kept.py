"""Kept runs (:mod:`helpers.core.store`): ``python -m helpers.book keep CHAPTER``
executes a chapter (a run of its own, never ``book/<chapter>.ipynb``) and keeps every
engine run, race and summary (:func:`helpers.core.store.derived`) that took at least
``KEEP_MIN_SECONDS`` to make and saves at least ``KEEP_SECONDS_PER_MIB`` seconds per
MiB it weighs in ``book/kept/<chapter>/``, with a manifest (command, commit, machine,
seconds, the code stamps that :func:`stale` checks); a file kept before that the
execution asks for again stays as it was where its code holds (:func:`carried`).  The
default book loads them wherever it would train the same run; the tests re-train each
one's sample (:func:`check`).  Defined for the pages *Performance* and *Execution*.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import time
from pathlib import Path

import joblib
import numpy as np

from ..core import engine, race, store
from . import rulebook

ROOT = Path(__file__).resolve().parents[2]


def _commit() -> str:
    def git(*a):
        return subprocess.run(
            ["git", "-C", str(ROOT), *a], capture_output=True, text=True
        ).stdout.strip()

    dirty = git("status", "--porcelain", "--", "helpers", "book/*.md")
    return git("rev-parse", "--short", "HEAD") + (" (modified)" if dirty else "")


def keep(names: list[str]) -> dict:
    """Execute each chapter of ``names`` (``_toc.yml``'s) and keep its long runs in
    ``book/kept/<chapter>/``; ``{chapter: manifest}``."""
    from . import build

    unknown = [n for n in names if n not in build.CHAPTERS]
    if unknown:
        raise SystemExit(f"unknown chapters {unknown}; choose from {build.CHAPTERS}")
    out = {}
    for name in names:
        staging = build.SCRATCH / f"kept-{name}"
        shutil.rmtree(staging, ignore_errors=True)
        os.environ[store.KEEP_VARIABLE] = str(staging)
        run = build.RUNS / f"keep-{name}"  # a run of its own, apart from others
        shutil.rmtree(run, ignore_errors=True)
        try:
            seconds = build.execute(name, {}, run=run)
        finally:
            os.environ.pop(store.KEEP_VARIABLE, None)
        # an execution of this machine with everything trained: a run like any other
        # (its records can join the rounding floors: rounding measure --add)
        build.write_manifest(run, "default", {}, {name: seconds})
        dest = store.KEPT / name
        before = build.SCRATCH / f"kept-{name}-before"  # the files kept until now
        shutil.rmtree(before, ignore_errors=True)
        if dest.exists():
            shutil.copytree(dest, before)
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        runs = take(staging, dest)
        runs.update(carried(before, dest, staging))
        runs = dict(sorted(runs.items()))
        manifest = {
            "command": f"python -m helpers.book keep {name}",
            "commit": _commit(),
            "machine": f"{platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} cores, {platform.platform()}",
            "date": time.strftime("%Y-%m-%d"),
            "chapter_seconds": round(seconds, 1),
            "min_seconds": store.KEEP_MIN_SECONDS,
            "seconds_per_mib": store.KEEP_SECONDS_PER_MIB,
            "max_mib": store.KEEP_MAX_MIB,
            "derived_max_mib": store.DERIVED_MAX_MIB,
            "engine_stamp": store.engine_stamp(),
            "runs": runs,
        }
        (dest / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        shutil.rmtree(before, ignore_errors=True)
        out[name] = manifest
    return out


def take(staging: Path, dest: Path) -> dict:
    """The kept runs of ``staging`` worth their weight, written to ``dest`` (float64
    arrays that float32 holds exactly narrowed): at most :data:`store.KEEP_MAX_MIB`
    (a summary :data:`store.DERIVED_MAX_MIB`) and at least
    :data:`store.KEEP_SECONDS_PER_MIB` seconds of training saved per MiB (a summary
    kept ``same_everywhere``: whatever it saves); per file its ``what``, ``seconds``,
    ``bytes`` and, for a summary, its package and code stamp."""
    runs = {}
    for p in sorted(staging.glob("*.joblib")) if staging.exists() else []:
        c = joblib.load(p)
        c["result"] = store.narrow(store.widen(c["result"]))
        out = dest / p.name
        joblib.dump(c, out, compress=3)
        size = out.stat().st_size
        mib = size / 2**20
        most = store.DERIVED_MAX_MIB if c.get("derived") else store.KEEP_MAX_MIB
        pays = c["seconds"] >= store.KEEP_SECONDS_PER_MIB * mib
        if mib > most or not (pays or c.get("same_everywhere")):
            out.unlink()
            continue
        runs[p.name] = {"what": c["what"], "seconds": c["seconds"], "bytes": size}
        if c.get("derived"):
            runs[p.name].update(derived=True, package=c["package"], stamp=c["stamp"])
        if c.get("same_everywhere"):
            runs[p.name]["same_everywhere"] = True
    return runs


def carried(before: Path, dest: Path, staging: Path) -> dict:
    """The files kept before (``before``: the chapter's old folder) that this keep
    asked for again, copied to ``dest`` as they were where their code still holds:
    another CPU's bits would move the records that read them, and on a faster
    machine a run can fall under the time rules.  Each entry says when and where it
    was kept."""
    path = before / "manifest.json"
    if not path.exists():
        return {}
    old = json.loads(path.read_text())
    asked_file = staging / store.ASKED
    asked = set(asked_file.read_text().split()) if asked_file.exists() else set()
    out = {}
    for file, entry in old.get("runs", {}).items():
        alone = {"engine_stamp": old.get("engine_stamp", {}), "runs": {file: entry}}
        if Path(file).stem not in asked or store.stale(alone):
            continue
        shutil.copy2(before / file, dest / file)
        where = f"{old['date']}: {old['command']}, {old['machine']}"
        out[file] = {**entry, "kept": entry.get("kept", where)}
    return out


def stale() -> dict[str, list[str]]:
    """Per kept chapter, its files whose code changed since the keep
    (:func:`helpers.core.store.stale`); empty when every kept file is current."""
    out = {}
    for path in sorted(store.KEPT.glob("*/manifest.json")):
        bad = store.stale(json.loads(path.read_text()))
        if bad:
            out[path.parent.name] = bad
    return out


def files() -> list[Path]:
    """Every kept run's file."""
    return sorted(store.KEPT.glob("*/*.joblib"))


def check(path: Path, epochs: int = store.SAMPLE_EPOCHS, scale: float = 1.0) -> dict:
    """Re-train a kept run's sample and hold it against the kept curve.

    Args:
        path: a kept run's file.
        epochs: updates of the sample re-trained (its first seed).
        scale: multiplies the sample's inputs ``X`` (a seeded fault: not 1 must fail).

    Returns:
        ``{"what", "epochs", "rel": the largest relative difference of the loss,
        "tol": SAME_RUN_TOL, "ok"}``.
    """
    c = joblib.load(path)
    c["result"] = store.widen(c["result"])
    s = c["sample"]
    if "curve" in s:  # a summary: its first run's curve, kept with the sample
        c["result"] = (s["curve"][None],)
    if "static" in s:  # an engine run: X is the third input
        inputs = list(s["inputs"])
        inputs[2] = (inputs[2] * np.float32(scale)).astype(np.float32)
        new = engine.train_sample({**s, "inputs": tuple(inputs)}, epochs)
        kept = np.asarray(c["result"][0])[0, : new.size]
    else:  # a race: X is the second argument
        args = list(s["args"])
        args[1] = (args[1] * np.float32(scale)).astype(np.float32)
        new = race.integrate_sample({**s, "args": tuple(args)}, epochs)[0]
        kept = np.asarray(c["result"][0]).reshape(-1)[: new.size]
    rel = float(np.max(np.abs(new - kept) / np.abs(kept)))
    tol = rulebook.SAME_RUN_TOL
    return {"what": c["what"], "epochs": new.size - 1, "rel": rel, "tol": tol,
            "ok": rel <= tol}  # fmt: skip
