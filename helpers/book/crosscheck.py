"""The authors' scripts, run beside the book's engine (page *Against the authors'
code*, ``book/authors_code.md``).

``python -m helpers.book crosscheck --authors PATH [--seeds N] [--experiments ...]
[--scripts ...]`` takes a local clone of the authors' repository
(CAandL-Lab/make-haste-slowly; the book was checked against commit b7d6e41), runs each
experiment's scripts in a temporary copy of its folder once per seed, and stores their
loss curves under ``book/authors_runs/``: one ``<experiment>.npz`` (a float32 array
``seeds x epochs`` per script, and the seeds) and ``manifest.json`` (the commit, the
seeds, the command, the patches, each run's seconds, the versions of Python, NumPy and
JAX, and each file's sha256, which :func:`verify` checks).  It needs no network and
never runs at build time; no line of the authors' code is copied here.

The temporary copy is patched as :data:`PATCHES` says, and nothing else (each text
patch must match where expected, or the command stops and names the script); the
depth experiment runs ``depth/gdln_off.py`` (``depth/run.sh`` names a ``gdln.py`` the
repository lacks).  Section 4's ``race.py`` (the race reduction drawn as Fig. 4a's
prediction) reads no random number: it is run once, with the first seed, and stored as
one curve (key ``race``).  ``--scripts KEY ...`` runs only those scripts and keeps the
experiment's other stored curves bit for bit; such a script carries its own provenance
(:func:`provenance`) and may be stored for more seeds than the experiment's.  JAX is
the installed one (the authors pinned 0.4.28; the manifest says).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
#: Where the stored curves live.
RUNS = ROOT / "book" / "authors_runs"
REPOSITORY = "CAandL-Lab/make-haste-slowly"
CHECKED_COMMIT = "b7d6e41"


@dataclass(frozen=True)
class Script:
    """One of the authors' scripts: its file, where it writes its loss curve, the key
    its curves are stored under, and whether it is run once (``once``: it reads no
    random number, so one run stands for every seed)."""

    key: str
    file: str
    losses: str
    once: bool = False


@dataclass(frozen=True)
class Experiment:
    name: str
    folder: str
    title: str
    scripts: tuple[Script, ...]


def _experiment(name, folder, title, relu="", gdln="", more=()) -> Experiment:
    """An experiment of ``relu<relu>.py`` and ``gdln<gdln>.py`` (and ``more``)."""
    scripts = (
        Script("relu", f"relu{relu}.py", f"losses/relu{relu}.txt"),
        Script("gdln", f"gdln{gdln}.py", f"losses/gated{gdln}.txt"),
    )
    return Experiment(name, folder, title, scripts + tuple(more))


EXPERIMENTS = {
    e.name: e
    for e in (
        _experiment(
            "section4",
            "3_context_diff",
            "Section 4 (C = 3: hierarchy, ring, cross)",
            more=[Script("race", "race.py", "losses/race.txt", once=True)],
        ),
        *(
            _experiment(f"contexts{c}", "diff_context_num", f"Section 5, C = {c}", c, c)
            for c in (3, 4, 5)
        ),
        _experiment("depth", "depth", "Section 6 (depth)", gdln="_off"),
    )
}

#: The patches, in words (stored in the manifest; see the module docstring).
PATCHES = (
    "seed: the line 'seed = np.random.randint(0,100000)' set to the run's seed",
    "outputs: run in a temporary copy of the experiment's folder, its output folders "
    "(losses, mds, svs, svs3, svs4, svs5, plots) created there",
    "dumps skipped: np.savetxt('mds/...') and np.savetxt('svs...') made a no-op",
    "plots skipped: plot_outputs replaced by a no-op before "
    "'if __name__ == \"__main__\":'; MPLBACKEND=Agg",
    "missing module: an empty replot_debug.py (imported by diff_context_num/gdln5.py, "
    "whose next line imports plot_outputs from replot over it)",
    "run once: 3_context_diff/race.py reads no random number (its seed line, set to "
    "the first seed, is never read); one run, stored as one curve",
)
#: What a run records of the machine and code, per experiment or per script.
PROVENANCE = ("command", "commit", "python", "numpy", "jax", "machine")

_SEED = re.compile(r"^(\s*)seed = np\.random\.randint\(0,\s*100000\)", re.M)
_DUMP = re.compile(r"np\.savetxt\((?=['\"](?:mds|svs))")
_MAIN = re.compile(r"^if __name__ == ['\"]__main__['\"]:", re.M)
_FOLDERS = ("losses", "mds", "svs", "svs3", "svs4", "svs5", "plots")
_STUB = (
    "plot_outputs = lambda *args, **kwargs: None  # crosscheck: no plots\n"
    "_crosscheck_skip = lambda *args, **kwargs: None  # crosscheck: no dumps\n\n"
)


def check_clone(path) -> Path:
    """``path`` as a clone of the authors' repository, or SystemExit naming
    ``--authors``."""
    p = Path(path).expanduser()
    if not p.is_dir():
        raise SystemExit(f"--authors {path}: no such folder")
    files = [f"{e.folder}/{s.file}" for e in EXPERIMENTS.values() for s in e.scripts]
    missing = [f for f in files if not (p / f).is_file()]
    if missing:
        raise SystemExit(
            f"--authors {path}: not a clone of {REPOSITORY} (it lacks "
            f"{', '.join(missing[:4])}{' ...' if len(missing) > 4 else ''})"
        )
    return p.resolve()


def commit_of(path: Path) -> str:
    """The clone's commit (``git rev-parse HEAD``), or ``'unknown'`` without git."""
    git = ["git", "-C", str(path), "rev-parse", "HEAD"]
    try:
        out = subprocess.run(git, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


def patch_script(text: str, seed: int, name: str = "script") -> str:
    """The script with the patches of the module docstring applied."""
    hits = _SEED.findall(text)
    if len(hits) != 1:
        raise SystemExit(
            f"{name}: expected one line 'seed = np.random.randint(0,100000)', found "
            f"{len(hits)}; is this the authors' script?"
        )
    text = _SEED.sub(lambda m: f"{m.group(1)}seed = {int(seed)}", text)
    text = _DUMP.sub("_crosscheck_skip(", text)
    if len(_MAIN.findall(text)) != 1:
        raise SystemExit(f"{name}: expected one 'if __name__ == \"__main__\":' line")
    return _MAIN.sub(lambda m: _STUB + m.group(0), text)


def run_script(folder: Path, script: Script, seed: int, env=None) -> tuple:
    """Run one script for one seed in a temporary copy of ``folder``; ``(losses,
    seconds)``."""
    with tempfile.TemporaryDirectory(prefix="crosscheck-") as tmp:
        work = Path(tmp) / folder.name
        shutil.copytree(folder, work, ignore=shutil.ignore_patterns(*_FOLDERS, ".git"))
        for d in _FOLDERS:
            (work / d).mkdir(exist_ok=True)
        src = work / script.file
        text = src.read_text()
        src.write_text(patch_script(text, seed, f"{folder.name}/{script.file}"))
        stub = work / "replot_debug.py"
        if re.search(r"^from replot_debug import", text, re.M) and not stub.exists():
            stub.write_text(
                "# crosscheck: stand-in for a module the repository lacks\n"
                "def plot_outputs(*args, **kwargs):\n    pass\n"
            )
        platforms = {"JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS", "cpu")}
        env = {**os.environ, "MPLBACKEND": "Agg", **platforms, **(env or {})}
        cmd, t0 = [sys.executable, script.file], time.perf_counter()
        done = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if done.returncode != 0:
            raise SystemExit(
                f"{folder.name}/{script.file} (seed {seed}) failed:\n"
                f"{done.stderr[-2000:]}"
            )
        losses = np.loadtxt(work / script.losses, ndmin=1)
    return losses.astype(np.float32), seconds


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest(out=RUNS) -> dict:
    """The stored manifest (empty when there is none)."""
    p = Path(out) / "manifest.json"
    return json.loads(p.read_text()) if p.exists() else {}


def crosscheck(
    authors,
    seeds=4,
    experiments=None,
    out=RUNS,
    command: str | None = None,
    log=print,
    scripts=None,
) -> dict:
    """Run the scripts for seeds ``1..seeds`` and store their curves in ``out``.

    Args:
        authors: a local clone of the authors' repository.
        seeds: the seeds ``1..seeds`` of every script that draws random numbers (a
            script run ``once`` takes the first).
        experiments: names of :data:`EXPERIMENTS` (default: all).
        out: the folder of the stored runs.
        command: the command line, stored as provenance.
        log: where each run's seconds are reported.
        scripts: keys of the scripts to run (default: all); the others' stored
            curves are kept, and ``seeds`` must then be at least theirs.

    Returns:
        The manifest (entries of other experiments are kept).
    """
    clone = check_clone(authors)
    names = list(experiments or EXPERIMENTS)
    if unknown := [n for n in names if n not in EXPERIMENTS]:
        raise SystemExit(
            f"--experiments: unknown {unknown}; choose from {list(EXPERIMENTS)}"
        )
    if int(seeds) < 2:
        raise SystemExit(f"--seeds must be >= 2 (a seed spread), got {seeds}")
    wanted = _wanted(names, scripts)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    man = manifest(out)
    man.update(repository=REPOSITORY, commit=commit_of(clone), patches=list(PATCHES))
    import jax  # only to record its version

    prov = {  # the provenance of the runs made now
        "command": command or "",
        "commit": man["commit"],
        "python": platform.python_version(),
        "numpy": np.__version__,
        "jax": jax.__version__,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores",
    }
    exps = man.setdefault("experiments", {})
    seed_list = list(range(1, int(seeds) + 1))
    for name in names:
        exp = EXPERIMENTS[name]
        todo = [s for s in exp.scripts if s.key in wanted]
        if not todo:
            continue
        old = exps.get(name, {}) if len(todo) < len(exp.scripts) else {}
        exps[name] = _run_experiment(clone, out, name, todo, old, seed_list, prov, log)
        text = json.dumps(man, indent=2, sort_keys=True)
        (out / "manifest.json").write_text(text + "\n")
    return man


def _wanted(names: list, scripts) -> set:
    """The keys of the ``scripts`` to run (all of the experiments ``names``'s when
    None), or SystemExit naming ``--scripts``."""
    keys = {s.key for n in names for s in EXPERIMENTS[n].scripts}
    wanted = keys if scripts is None else set(scripts)
    if wanted - keys:
        raise SystemExit(
            f"--scripts: {sorted(wanted - keys)} not among the scripts of {names} "
            f"({sorted(keys)})"
        )
    return wanted


def _run_experiment(
    clone: Path, out: Path, name: str, todo: list, old: dict, seed_list, prov, log
) -> dict:
    """Runs the scripts ``todo`` of ``name`` beside its ``old`` entry's; its entry."""
    exp = EXPERIMENTS[name]
    arrays = {}
    if old:  # the stored arrays, as stored (float32), once verified
        bad = verify(out, [name])
        if bad:
            raise SystemExit("; ".join(bad))
        with np.load(out / old["file"]) as z:
            arrays = {k: np.array(z[k]) for k in z.files}
    kept_seeds = old.get("seeds", seed_list)
    if old and seed_list[: len(kept_seeds)] != kept_seeds:
        raise SystemExit(
            f"--scripts: {name} is stored for seeds {kept_seeds}; run its "
            f"other scripts again too, or pass --seeds {len(kept_seeds)} or more"
        )
    redo = {s.key for s in todo}
    metas = {k: v for k, v in old.get("scripts", {}).items() if k not in redo}
    metas = {k: v for k, v in metas.items() if k in arrays}
    for s in todo:
        curves, seconds = [], []
        run_seeds = kept_seeds[:1] if s.once else seed_list
        for seed in run_seeds:
            loss, sec = run_script(clone / exp.folder, s, seed)
            log(f"[crosscheck] {exp.folder}/{s.file} seed {seed}: {sec:.1f} s")
            curves.append(loss)
            seconds.append(round(sec, 1))
        arrays[s.key] = np.stack(curves)
        metas[s.key] = {
            "script": f"{exp.folder}/{s.file}",
            "losses": s.losses,
            "shape": list(arrays[s.key].shape),
            "seconds": seconds,
            **({"once": True} if s.once else {}),
            **({"seeds": run_seeds} if run_seeds != kept_seeds else {}),
            **(prov if old else {}),
        }
    arrays["seeds"] = np.asarray(kept_seeds)
    path = out / f"{name}.npz"
    np.savez_compressed(path, **arrays)
    entry = {**old, "title": exp.title, "file": path.name, "seeds": kept_seeds}
    entry.update({} if old else prov)
    entry.update({"sha256": _sha256(path), "scripts": metas})
    return entry


def provenance(entry: dict, key: str) -> dict:
    """``{field: value}`` of :data:`PROVENANCE` for script ``key``'s stored curves
    (``relu``, ``gdln``, ``race``) in an experiment's ``manifest()["experiments"]``
    ``entry``: the script's own where it was run on its own (``--scripts``), else the
    experiment's."""
    own = entry["scripts"][key]
    return {f: own.get(f, entry.get(f)) for f in PROVENANCE}


@dataclass(frozen=True)
class AuthorsRuns:
    """One experiment's stored runs: ``curves[key]`` is ``(seeds, epochs)``, the loss
    after each of the script's updates (their ``losses[epoch]`` is recorded after the
    update of that epoch); ``(1, epochs)`` for a script run once (``race``)."""

    name: str
    seeds: tuple[int, ...]
    curves: dict
    meta: dict


def load(name: str, out=RUNS) -> AuthorsRuns:
    """The stored runs of experiment ``name`` (checked against the manifest's
    sha256)."""
    out = Path(out)
    entry = manifest(out).get("experiments", {}).get(name)
    if entry is None:
        raise FileNotFoundError(
            f"no stored runs of {name!r} in {out}: run python -m helpers.book "
            f"crosscheck --authors PATH --experiments {name}"
        )
    bad = verify(out, [name])
    if bad:
        raise ValueError("; ".join(bad))
    with np.load(out / entry["file"]) as z:
        curves = {k: np.asarray(z[k], np.float64) for k in z.files if k != "seeds"}
        seeds = tuple(int(s) for s in z["seeds"])
    for k, c in curves.items():
        rows = len(entry.get("scripts", {}).get(k, {}).get("seeds", seeds))
        if c.ndim != 2 or c.shape[0] != rows:
            raise ValueError(
                f"{name}.{k}: expected ({rows} seeds, epochs), got {c.shape}"
            )
    return AuthorsRuns(name, seeds, curves, entry)


def verify(out=RUNS, names=None) -> list[str]:
    """Problems with the stored files: a file missing or not the one the manifest
    hashed (an empty list when every file is as stored)."""
    out = Path(out)
    exps = manifest(out).get("experiments", {})
    problems = []
    for name in names or sorted(exps):
        entry = exps.get(name)
        if entry is None:
            problems.append(f"{name}: not in {out / 'manifest.json'}")
            continue
        p = out / entry["file"]
        if not p.exists():
            problems.append(f"{name}: {p} is missing")
        elif _sha256(p) != entry["sha256"]:
            problems.append(
                f"{name}: {p.name} changed since it was stored (sha256 differs from "
                "the manifest's); re-run the crosscheck command"
            )
    return problems


def add_arguments(p: argparse.ArgumentParser) -> None:
    add = p.add_argument
    keys = sorted({s.key for e in EXPERIMENTS.values() for s in e.scripts})
    text = f"a local clone of {REPOSITORY} (checked at {CHECKED_COMMIT})"
    add("--authors", required=True, metavar="PATH", help=text)
    add("--seeds", type=int, default=4, help="seeds 1..N per script")
    add("--experiments", nargs="+", choices=list(EXPERIMENTS), help="default: all")
    text = "only these scripts; the others' stored curves are kept (default: all)"
    add("--scripts", nargs="+", choices=keys, help=text)
    add("--out", default=str(RUNS), help="where the curves are stored")


def main(args) -> int:
    """The ``crosscheck`` subcommand (registered in :mod:`helpers.book.build`)."""
    parts = ["python -m helpers.book crosscheck --authors", shlex.quote(args.authors)]
    parts += ["--seeds", str(args.seeds)]
    if args.experiments:
        parts += ["--experiments", *args.experiments]
    if args.scripts:
        parts += ["--scripts", *args.scripts]
    if Path(args.out).resolve() != RUNS:
        parts += ["--out", shlex.quote(args.out)]
    crosscheck(
        args.authors,
        args.seeds,
        args.experiments,
        args.out,
        " ".join(parts),
        scripts=args.scripts,
    )
    return 0
