"""Progress reporting for long runs that stays out of the rendered pages.

Under ``python -m helpers.book``, ``HASTE_PROGRESS_LOG`` names a log file the build
echoes (ipykernel would put stderr into the page); interactively, ``sys.stderr``.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")
LOG_VARIABLE = "HASTE_PROGRESS_LOG"


def say(message: str) -> None:
    """One line of the build's own (``python -m helpers.book``) on stderr."""
    print(f"[book] {message}", file=sys.stderr, flush=True)


def report(message: str) -> None:
    """One progress line: to the build's log file if there is one, else to stderr."""
    path = os.environ.get(LOG_VARIABLE)
    if path:
        with open(path, "a") as f:
            f.write(f"{message}\n")
    else:
        print(f"[progress] {message}", file=sys.stderr, flush=True)


def steps(items: Iterable[T], what: str) -> Iterator[T]:
    """Yield ``items``, reporting each step with the time spent and left."""
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
