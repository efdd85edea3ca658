"""Progress reporting for long runs that stays out of the rendered pages.

Under ``python -m helpers.book`` the environment variable ``HASTE_PROGRESS_LOG`` names a
log file: messages are appended there and the build prints them to its terminal as they
come (ipykernel forwards even the process's own stderr into cell outputs, so writing to
a stream would land in the page). Run interactively, messages go to ``sys.stderr``.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")
LOG_VARIABLE = "HASTE_PROGRESS_LOG"


def report(message: str) -> None:
    """One progress line: to the build's log file if there is one, else to stderr."""
    path = os.environ.get(LOG_VARIABLE)
    if path:
        with open(path, "a") as f:
            f.write(f"{message}\n")
    else:
        print(f"[progress] {message}", file=sys.stderr, flush=True)


def steps(items: Iterable[T], what: str) -> Iterator[T]:
    """Yield ``items``, reporting each step: index, total, seconds so far and, from the
    second step on, an estimate of the seconds left (the mean step so far)."""
    items = list(items)
    t0 = time.perf_counter()
    for k, item in enumerate(items, 1):
        spent = time.perf_counter() - t0
        left = (
            f", about {spent / (k - 1) * (len(items) - k + 1):.0f} s left"
            if k > 1
            else ""
        )
        report(f"{what}: {k}/{len(items)} ({spent:.1f} s{left})")
        yield item
    report(f"{what}: done in {time.perf_counter() - t0:.1f} s")
