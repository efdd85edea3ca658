"""Execute the book's chapters with papermill and build the site with Jupyter Book 1.x.

    python -m helpers.book build                  # execute every chapter, then the site
    python -m helpers.book execute xor -p seeds 8 # one chapter, other parameters
    python -m helpers.book execute --profile paper depth
    python -m helpers.book site                   # site only, from the committed notebooks

Each chapter is a MyST-markdown notebook ``book/<name>.md`` (jupytext); executing it
writes the executed ``book/<name>.ipynb`` beside it and its records under
``book/results/``.  A failing cell fails the command.  The site build turns every
Sphinx warning into an error, and MathJax is served from the site itself (no network).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from .progress import LOG_VARIABLE

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
STATS = BOOK / "stats"

# The chapters in reading order (the notebooks papermill executes).
CHAPTERS = ["conventions", "background", "xor", "contexts", "extra_contexts", "depth", "gate_finding", "proofs", "performance",
            "scorecard", "environment", "execution"]

# Parameter profiles: ``--profile paper`` runs the paper-scale settings.
PROFILES = {
    "default": {},
    "paper": {
        "xor": {"seeds": 20},
        "contexts": {"seeds": 10},
        "extra_contexts": {"seeds": 10},
        "depth": {"seeds": 99, "derived_seeds": 99},
        "gate_finding": {"trainings": 10},
        "proofs": {"relu_seeds": 10, "xor_seeds": 10},
    },
}

_VOLATILE_CELL_KEYS = ("execution", "papermill")


def chapters_present() -> list[str]:
    return [c for c in CHAPTERS if (BOOK / f"{c}.md").exists()]


def _progress(msg: str) -> None:
    print(f"[book] {msg}", file=sys.stderr, flush=True)


def _tail(log: Path, name: str, stop: threading.Event) -> None:
    """Print the chapter's progress lines to the terminal while it executes."""
    pos = 0
    while True:
        done = stop.wait(1.0)
        text = log.read_text() if log.exists() else ""
        for line in text[pos:].splitlines():
            _progress(f"{name}: {line}")
        pos = len(text)
        if done:
            return


def _strip_volatile(path: Path) -> None:
    """Drop per-cell timestamps and durations so that two runs write the same file."""
    nb = json.loads(path.read_text())
    for cell in nb.get("cells", []):
        for k in _VOLATILE_CELL_KEYS:
            cell.get("metadata", {}).pop(k, None)
    pm = nb.get("metadata", {}).get("papermill", {})
    for k in ("start_time", "end_time", "duration", "input_path", "output_path", "environment_variables"):
        pm.pop(k, None)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n")


def execute(name: str, parameters: dict | None = None) -> float:
    """Execute chapter ``name`` (``book/<name>.md``) into ``book/<name>.ipynb``; seconds."""
    import jupytext
    import papermill

    src = BOOK / f"{name}.md"
    if not src.exists():
        raise SystemExit(f"no chapter {name!r}: {src} does not exist (chapters: {chapters_present()})")
    tmp_dir = ROOT / "_build" / "papermill"
    tmp_dir.mkdir(parents=True, exist_ok=True)
    unexecuted = tmp_dir / f"{name}.ipynb"
    nb = jupytext.read(src)
    for i, cell in enumerate(nb.cells):  # stable ids: jupytext draws random ones on every conversion
        cell["id"] = f"{name}-{i}"
    jupytext.write(nb, unexecuted)
    out = BOOK / f"{name}.ipynb"
    _progress(f"executing {name} with parameters {parameters or {}}")
    log = tmp_dir / f"{name}.progress.log"
    log.write_text("")
    os.environ[LOG_VARIABLE] = str(log)  # inherited by the kernel: helpers.book.progress writes there
    stop = threading.Event()
    tail = threading.Thread(target=_tail, args=(log, name, stop), daemon=True)
    tail.start()
    t0 = time.perf_counter()
    try:
        papermill.execute_notebook(
            str(unexecuted),
            str(out),
            parameters=parameters or {},
            kernel_name="python3",
            cwd=str(BOOK),
            progress_bar=False,
            log_output=False,
        )
    finally:
        seconds = time.perf_counter() - t0
        stop.set()
        tail.join()
        os.environ.pop(LOG_VARIABLE, None)
    _strip_volatile(out)
    _progress(f"{name}: {seconds:.1f} s")
    return seconds


def _record_times(times: dict[str, float], profile: str) -> None:
    STATS.mkdir(parents=True, exist_ok=True)
    path = STATS / "execution.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data.setdefault("profiles", {}).setdefault(profile, {}).update({k: round(v, 1) for k, v in times.items()})
    import platform

    data["machine"] = {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()}
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def _install_mathjax() -> None:
    """Copy MathJax 3 (SVG output, fonts inside) from its Python package into the site."""
    try:
        import mathjax  # provided by the django-static-mathjax distribution
    except ImportError as exc:  # pragma: no cover - named in requirements.txt
        raise SystemExit("MathJax is missing: pip install -r requirements.txt") from exc
    src = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"
    if not src.exists():
        raise SystemExit(f"MathJax file not found at {src}")
    dst = ROOT / "_mathjax" / "mathjax"  # not _static: Jupyter Book would load every .js there twice
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst / "tex-svg.js")


def site(builder: str = "html") -> None:
    """Build the static site into ``_build/html`` with warnings as errors."""
    _install_mathjax()
    cmd = [sys.executable, "-c", "import sys; from jupyter_book.cli.main import main; sys.exit(main())",
           "build", str(ROOT), "--builder", builder, "--warningiserror", "--keep-going"]
    _progress("building the site: jupyter-book " + " ".join(cmd[3:]))
    res = subprocess.run(cmd, cwd=ROOT)
    if res.returncode:
        raise SystemExit(f"site build failed (exit {res.returncode}); warnings count as errors")


def _parse_value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m helpers.book", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for cmd in ("build", "execute"):
        p = sub.add_parser(cmd)
        p.add_argument("chapters", nargs="*", help=f"chapters to execute (default all): {CHAPTERS}")
        p.add_argument("--profile", default="default", choices=sorted(PROFILES))
        p.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                       help="override a chapter parameter (VALUE parsed as JSON)")
    sub.add_parser("site")
    args = ap.parse_args(argv)

    if args.cmd in ("build", "execute"):
        names = args.chapters or chapters_present()
        unknown = [n for n in names if n not in CHAPTERS]
        if unknown:
            raise SystemExit(f"unknown chapters {unknown}; choose from {CHAPTERS}")
        overrides = {k: _parse_value(v) for k, v in args.parameter}
        times = {}
        profile = args.profile if not overrides else f"{args.profile}+overrides"
        for name in names:
            params = {**PROFILES[args.profile].get(name, {}), **overrides}
            times[name] = execute(name, params)
            _record_times({name: times[name]}, profile)  # written per chapter: later chapters read it
        _progress(f"executed {len(times)} chapters in {sum(times.values()):.1f} s")
    if args.cmd in ("build", "site"):
        site()


if __name__ == "__main__":
    main()
