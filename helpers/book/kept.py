"""Kept runs (:mod:`helpers.core.store`): ``python -m helpers.book keep CHAPTER``
executes a chapter (a run of its own) and keeps, in ``book/kept/<chapter>/`` with a
manifest, every engine run, race and summary worth its weight (:func:`take`); a file
kept before that is asked for again stays as it was where its code holds
(:func:`carried`).  The default book loads them wherever it would train the same run;
the tests re-train each one's sample (:func:`check`).  Defined for the pages
*Performance* and *Execution*.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import time
from pathlib import Path
from unittest import mock

import joblib
import numpy as np

from ..core import engine, race, store
from . import rulebook
from .chapter_data import ROOT


def _commit() -> str:
    def git(*a):
        return subprocess.run(
            ["git", "-C", str(ROOT), *a], capture_output=True, text=True
        ).stdout.strip()

    dirty = git("status", "--porcelain", "--", "helpers", "book/*.md")
    return git("rev-parse", "--short", "HEAD") + (" (modified)" if dirty else "")


def keep(names: list[str]) -> dict:
    """Execute each chapter of ``names`` and keep its long runs; ``{chapter:
    manifest}``."""
    from . import build

    unknown = [n for n in names if n not in build.CHAPTERS]
    if unknown:
        raise SystemExit(f"unknown chapters {unknown}; choose from {build.CHAPTERS}")
    out = {}
    for name in names:
        staging = build.SCRATCH / f"kept-{name}"
        shutil.rmtree(staging, ignore_errors=True)
        run = build.RUNS / f"keep-{name}"  # a run of its own, apart from others
        shutil.rmtree(run, ignore_errors=True)
        with mock.patch.dict(os.environ, {store.KEEP_VARIABLE: str(staging)}):
            seconds = build.execute(name, {}, run=run)
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
        runs = {**take(staging, dest), **carried(before, dest, staging)}
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
            "runs": dict(sorted(runs.items())),
        }
        (dest / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        shutil.rmtree(before, ignore_errors=True)
        out[name] = manifest
    return out


def take(staging: Path, dest: Path) -> dict:
    """The runs of ``staging`` worth their weight, written (narrowed) to ``dest``: at
    most :data:`store.KEEP_MAX_MIB` (a summary :data:`store.DERIVED_MAX_MIB`), saving
    :data:`store.KEEP_SECONDS_PER_MIB` seconds per MiB (a ``same_everywhere`` summary:
    any); ``{file: {what, seconds, bytes, ...}}``."""
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
    """The files kept before (in ``before``) that this keep asked for again, copied
    to ``dest`` as they were where their code holds (another CPU's bits would move
    the records that read them), each entry saying when and where it was kept."""
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
    """``{kept chapter: its files whose code changed since}`` (empty: all current)."""
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
    """Re-train ``epochs`` of a kept run's sample (its first seed, inputs times
    ``scale``: not 1 must fail) against the kept curve; ``{"what", "epochs", "rel":
    the largest relative difference of the loss, "tol": SAME_RUN_TOL, "ok"}``."""
    c = joblib.load(path)
    s = c["sample"]
    # a summary keeps its first run's curve with the sample
    kept = s["curve"][None] if "curve" in s else store.widen(c["result"])[0]
    key, at = ("inputs", 2) if "static" in s else ("args", 1)  # X: engine run, race
    xs = list(s[key])
    xs[at] = (xs[at] * np.float32(scale)).astype(np.float32)
    if "static" in s:
        new = engine.train_sample({**s, key: tuple(xs)}, epochs)
        kept = np.asarray(kept)[0, : new.size]
    else:
        new = race.integrate_sample({**s, key: tuple(xs)}, epochs)[0]
        kept = np.asarray(kept).reshape(-1)[: new.size]
    rel = float(np.max(np.abs(new - kept) / np.abs(kept)))
    tol = rulebook.SAME_RUN_TOL
    return {"what": c["what"], "epochs": new.size - 1, "rel": rel, "tol": tol,
            "ok": rel <= tol}  # fmt: skip
