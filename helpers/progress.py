"""Progress reporting for long runs that stays out of the rendered pages.

Messages go to the kernel process's own stderr (``sys.__stderr__``), which papermill's
terminal shows, never to a notebook cell's output.
"""
from __future__ import annotations

import sys
import time
from typing import Iterable, Iterator, TypeVar

__all__ = ["report", "steps"]

T = TypeVar("T")


def report(message: str) -> None:
    stream = sys.__stderr__
    if stream is not None:
        print(f"[progress] {message}", file=stream, flush=True)


def steps(items: Iterable[T], what: str) -> Iterator[T]:
    """Yield ``items``, reporting each step (index, total when known, seconds so far)."""
    items = list(items)
    t0 = time.perf_counter()
    for k, item in enumerate(items, 1):
        report(f"{what}: {k}/{len(items)} ({time.perf_counter() - t0:.1f} s)")
        yield item
    report(f"{what}: done in {time.perf_counter() - t0:.1f} s")
