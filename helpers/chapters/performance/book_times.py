"""The book's execution times as ``helpers.book`` records them
(``book/stats/execution.json``), for the page ``book/performance.md``."""

from __future__ import annotations

import json
from pathlib import Path

from ...book.chapter_data import chapters_present
from ...core.paper import DEPTH

ROOT = Path(__file__).resolve().parents[3]
EXECUTION_JSON = ROOT / "book" / "stats" / "execution.json"


def chapter_times(
    path: Path | str = EXECUTION_JSON, profile: str = "default"
) -> dict | None:
    """``{"seconds": per chapter, "machine": ...}`` under ``profile``, as
    ``helpers.book`` recorded them in ``path`` (``None`` when it or the profile is
    missing)."""
    path = Path(path)
    data = json.loads(path.read_text()) if path.exists() else {}
    seconds = data.get("profiles", {}).get(profile)
    if seconds is None:
        return None
    machine = data.get("machines", {}).get(profile, data.get("machine", {}))
    return {"seconds": dict(seconds), "machine": machine}


def depth_paper_training(bench: dict, runs: dict[str, int]) -> dict | None:
    """Where the depth chapter's paper-profile time goes: its training ``runs`` (the
    paper's own and this book's additions), each priced at the benchmark's per-seed
    rate on the depth network at 8 seeds; ``None`` without a benchmark of it."""
    d = bench.get("derived", {})
    try:
        rate = bench["floor_seed_epochs_per_s"]["depth"]
        rate *= d["fraction_of_floor"]["depth"]["8"]
    except KeyError:
        return None
    updates = int(DEPTH.epochs)
    seconds = {k: n * updates / rate for k, n in runs.items()}
    return {
        "runs": runs,
        "updates": updates,
        "seed_epochs_per_s": rate,
        "seconds": seconds,
    }


def book_chapter_seconds(
    own: dict[str, float] | None = None,
    path: Path | str = EXECUTION_JSON,
    profile: str = "default",
):
    """``(seconds per chapter, chapters expected)``: the times in ``execution.json``
    of the chapters present in ``book/``, updated with ``own`` (e.g. the running
    page's own time); ``None`` seconds when nothing is recorded."""
    present = chapters_present()
    times = chapter_times(path, profile)
    if times is None and not own:
        return None, present
    seconds = {**(times or {"seconds": {}})["seconds"], **(own or {})}
    return {c: float(seconds[c]) for c in present if c in seconds}, present
