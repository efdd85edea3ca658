"""Train once: a run the engine has trained is stored, and loaded when asked again.

A run is identified by everything that makes its bits ([conv-engine]): the compiled
program's inputs (the network's gates and masks, the initial weights, the data, the
step size, the epochs and what is recorded, all as the float32 arrays the device gets),
how the seeds are laid out on the devices, the engine's own source code, the JAX
release, ``XLA_FLAGS`` and the CPU.  The key is ``joblib.hash`` of all of it; the store
is a ``joblib.Memory`` under ``_build/store/`` (``$HASTE_STORE``: another folder, or
``off``).  The first chapter that needs a run trains it; later chapters, and later
executions on the same machine, load it.  A changed engine, setting or machine gives
another key and trains anew.  Records never depend on the store: a loaded run is the
stored arrays bit for bit (a test executes with an empty store and with a full one).

Each call is logged (``calls.jsonl`` in the store: key, seconds, hit or miss, the
chapter from ``$HASTE_CHAPTER``), which the Performance page reads for the time table.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import platform
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import jax
import joblib


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return ""


STORE_VARIABLE = "HASTE_STORE"
ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "_build" / "store"


_OFF = [0]


@contextlib.contextmanager
def disabled():
    """Within it every run is trained, none loaded or stored (what is timed)."""
    _OFF[0] += 1
    try:
        yield
    finally:
        _OFF[0] -= 1


def location() -> Path | None:
    """The store's folder, or None when ``$HASTE_STORE`` is ``off`` (or within
    :func:`disabled`)."""
    v = os.environ.get(STORE_VARIABLE, "")
    if v.lower() == "off" or _OFF[0]:
        return None
    return Path(v) if v else DEFAULT


@functools.lru_cache(maxsize=1)
def _machine() -> tuple:
    """What of the machine and the libraries can change a float32 result's bits."""
    cpu = ""
    try:
        text = Path("/proc/cpuinfo").read_text()
        lines = [x for x in text.splitlines() if x.startswith(("model name", "flags"))]
        cpu = hashlib.sha256("\n".join(sorted(set(lines))).encode()).hexdigest()
    except OSError:
        cpu = platform.processor()
    src = "".join(
        (Path(__file__).parent / f).read_text() for f in ("engine.py", "devices.py")
    )
    return (
        jax.__version__,
        _version("jaxlib"),
        os.environ.get("XLA_FLAGS", ""),
        platform.machine(),
        cpu,
        hashlib.sha256(src.encode()).hexdigest(),
    )


def key(*parts) -> str:
    """The key of a run made from ``parts`` on this machine (``joblib.hash``)."""
    return joblib.hash((_machine(), parts))


def _compute(key: str, make):
    return make()


@functools.lru_cache(maxsize=4)
def _cached(folder: str):
    return joblib.Memory(folder, verbose=0).cache(_compute, ignore=["make"])


def load_or_make(k: str, make, what: str = ""):
    """``make()``'s result, from the store where the key ``k`` is there.

    Args:
        k: the run's key (:func:`key`).
        make: a function of no arguments that trains the run.
        what: a short description for the call log.

    Returns:
        What ``make`` returns (arrays, tuples, dicts), stored on the first call.
    """
    folder = location()
    t = time.perf_counter()
    if folder is None:
        return make()
    func = _cached(str(folder))
    hit = func.check_call_in_cache(k, make)
    out = func(k, make)
    row = {
        "key": k,
        "what": what,
        "hit": bool(hit),
        "seconds": round(time.perf_counter() - t, 3),
        "chapter": os.environ.get("HASTE_CHAPTER", ""),
    }
    with open(Path(folder) / "calls.jsonl", "a") as fh:
        fh.write(json.dumps(row) + "\n")
    return out
