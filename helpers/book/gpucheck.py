"""``python -m helpers.book gpu-check OUT --limit SECONDS``: the book on a GPU.

Each step, timed, in its own process and written to ``OUT/gpu-check.json`` as soon as
it ends (a cut run keeps what it did): ``environment`` (JAX's version, backend,
devices, matmul precision), ``engine-tests``, ``benchmark`` (the engine at 1 to 512
seeds, ``python -m helpers.chapters.performance``), ``default:<chapter>`` (a run, never
``book/``), then ``paper:<chapter>`` as time allows.  A step starts only with more than
``--reserve`` seconds left; one that would run past the limit is cut and recorded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .chapter_data import ROOT, chapters_present

BENCH_SEEDS = (1, 8, 64, 512)


def steps(chapters: list[str], paper: list[str], out: Path) -> list[tuple[str, list]]:
    """The commands of the check, in order: ``[(step name, argv)]``."""
    py = sys.executable
    probe = (
        "import json, jax, helpers; d = jax.devices(); print(json.dumps({"
        "'jax': jax.__version__, 'backend': jax.default_backend(), "
        "'devices': [str(x) for x in d], "
        "'matmul_precision': str(jax.config.jax_default_matmul_precision)}))"
    )
    bench = [
        py, "-m", "helpers.chapters.performance", "--no-records", "--out",
        str(out / "benchmark.json"), "--seeds", *map(str, BENCH_SEEDS),
    ]  # fmt: skip
    run = [
        py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
        str(ROOT / "tests" / "core" / "test_engine.py"),
    ]  # fmt: skip
    # (no addopts: one lane, and neither nbval nor xdist is needed there)
    book = [py, "-m", "helpers.book", "execute"]
    return [
        ("environment", [py, "-c", probe]),
        ("engine-tests", run),
        ("benchmark", bench),
        *((f"default:{ch}", [*book, ch]) for ch in chapters),
        *((f"paper:{ch}", [*book, "--profile", "paper", ch]) for ch in paper),
    ]


def run(
    out: Path,
    limit: float,
    reserve: float = 30.0,
    chapters: list[str] | None = None,
    paper: list[str] | None = None,
) -> dict:
    """Run the check into ``out`` within ``limit`` seconds, a step starting only with
    more than ``reserve`` left; ``chapters``, ``paper``: default every chapter.

    Returns:
        ``{"limit_s", "steps": [{name, seconds, rc, status}], "stopped"}``.
    """
    if not limit > 0:
        raise ValueError(f"limit must be a positive number of seconds, got {limit!r}")
    if reserve < 0:
        raise ValueError(f"reserve must be at least 0 seconds, got {reserve!r}")
    known = chapters_present()
    for name, given in (("chapters", chapters), ("paper", paper)):
        bad = sorted(set(given or ()) - set(known))
        if bad:
            raise ValueError(f"{name}: unknown chapters {bad}; the book has {known}")
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    env["JAX_DEFAULT_MATMUL_PRECISION"] = "highest"
    t0 = time.monotonic()
    report = {"limit_s": limit, "steps": [], "stopped": None}
    plan = steps(chapters or known, paper if paper is not None else known, out)
    for name, argv in plan:
        left = limit - (time.monotonic() - t0)
        if left <= reserve:
            report["stopped"] = f"before {name}: {left:.0f} s left"
            break
        log = out / f"{name.replace(':', '-')}.log"
        t = time.monotonic()
        with open(log, "w") as fh:
            try:
                rc = subprocess.run(
                    argv, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT,
                    timeout=left - reserve / 2,
                ).returncode  # fmt: skip
                status = "passed" if rc == 0 else "failed"
            except subprocess.TimeoutExpired:
                rc, status = None, "cut at the limit"
        seconds = round(time.monotonic() - t, 1)
        row = dict(name=name, seconds=seconds, rc=rc, status=status, log=log.name)
        if name == "environment" and rc == 0:
            row["environment"] = json.loads(log.read_text().strip().splitlines()[-1])
        report["steps"].append(row)
        (out / "gpu-check.json").write_text(json.dumps(report, indent=2) + "\n")
        print(f"[gpu-check] {name}: {status} in {row['seconds']} s", flush=True)
        if status == "cut at the limit":
            report["stopped"] = f"{name} cut at the limit"
            break
    (out / "gpu-check.json").write_text(json.dumps(report, indent=2) + "\n")
    return report
