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

Each call is logged (``calls.jsonl`` in the store: key, seconds, hit, miss or
``"kept"``, the chapter from ``$HASTE_CHAPTER``).

**Kept runs.**  What the default book cannot afford to train at every execution is
kept in the repository (``book/kept/<chapter>/``, written by ``python -m helpers.book
keep CHAPTER``, with a manifest: command, commit, machine, seconds).  A kept run is
found by its *portable* key: the same inputs, the engine's source, the JAX release and
the backend, but not the CPU or ``XLA_FLAGS``, so a reader's machine loads the
maintainer's bits where it would train the same run (``$HASTE_KEPT=off``: train
them).  Each kept run carries a sample (its first seed's inputs), which the tests
re-train for the first :data:`SAMPLE_EPOCHS` epochs and hold against the kept curve
within the rulebook's ``SAME_RUN_TOL``.
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
import numpy as np


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return ""


STORE_VARIABLE = "HASTE_STORE"
KEPT_VARIABLE = "HASTE_KEPT"
KEEP_VARIABLE = "HASTE_KEEP"
ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "_build" / "store"
#: The kept runs, one folder per chapter.
KEPT = ROOT / "book" / "kept"
#: A run whose training took at least this many seconds is kept by ``keep``.
KEEP_MIN_SECONDS = 10.0
#: A kept run's file may hold at most this many MiB (the repository carries them).
KEEP_MAX_MIB = 3.0
#: The epochs of a kept run's sample that the tests re-train.
SAMPLE_EPOCHS = 300


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


def portable_key(*parts) -> str:
    """The key of a run made from ``parts`` on any CPU: :func:`key` without the CPU
    and ``XLA_FLAGS`` (the JAX release, the backend and the engine's source stay in;
    an execution that emulates another CPU's rounding turns kept runs off)."""
    m = _machine()
    return joblib.hash(((m[0], m[1], m[3], m[5]), jax.default_backend(), parts))


@functools.lru_cache(maxsize=1)
def _kept_index() -> dict:
    return {p.stem: p for p in sorted(KEPT.glob("*/*.joblib"))}


def narrow(tree):
    """Every float64 array that float32 holds exactly, as float32 (half the bytes:
    the engine's losses are float32 values widened); :func:`widen` undoes it."""
    if isinstance(tree, dict):
        return {k: narrow(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(narrow(v) for v in tree)
    if isinstance(tree, np.ndarray) and tree.dtype == np.float64:
        small = tree.astype(np.float32)
        if np.array_equal(small.astype(np.float64), tree, equal_nan=True):
            return {"float64_as_float32": small}
    return tree


def widen(tree):
    if isinstance(tree, dict):
        if set(tree) == {"float64_as_float32"}:
            return tree["float64_as_float32"].astype(np.float64)
        return {k: widen(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(widen(v) for v in tree)
    return tree


def kept(portable: str):
    """A kept run's file content (``result``, ``what``, ``seconds``, ``sample``) or
    None."""
    if os.environ.get(KEPT_VARIABLE, "").lower() == "off" or _OFF[0]:
        return None
    if os.environ.get(KEEP_VARIABLE):  # keeping: what is kept is trained or cached
        return None
    path = _kept_index().get(portable)
    if path is None:
        return None
    content = joblib.load(path)
    return {**content, "result": widen(content["result"])}


def _trained_seconds(folder: Path, k: str) -> float | None:
    """How long the run ``k`` took when it was trained here (the call log)."""
    log = folder / "calls.jsonl"
    if not log.exists():
        return None
    out = None
    for line in log.read_text().splitlines():
        row = json.loads(line)
        if row["key"] == k and not row["hit"]:
            out = row["seconds"]
    return out


def _keep(portable, result, what, seconds, sample) -> None:
    """In ``keep`` mode, a run that took at least :data:`KEEP_MIN_SECONDS` is written
    to ``$HASTE_KEEP`` with its sample."""
    folder = os.environ.get(KEEP_VARIABLE)
    if not folder or portable is None or seconds is None:
        return
    if seconds < KEEP_MIN_SECONDS:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    content = {
        "result": narrow(result),
        "what": what,
        "seconds": round(float(seconds), 1),
        "chapter": os.environ.get("HASTE_CHAPTER", ""),
        "sample": sample() if sample else None,
    }
    joblib.dump(content, Path(folder) / f"{portable}.joblib", compress=3)


def _compute(key: str, make):
    return make()


@functools.lru_cache(maxsize=4)
def _cached(folder: str):
    return joblib.Memory(folder, verbose=0).cache(_compute, ignore=["make"])


def load_or_make(k: str, make, what: str = "", portable=None, sample=None):
    """``make()``'s result: kept (``portable``), from the store where the key ``k`` is
    there, or made.

    Args:
        k: the run's key (:func:`key`).
        make: a function of no arguments that trains the run.
        what: a short description for the call log.
        portable: the run's :func:`portable_key` (None: never kept).
        sample: a function of no arguments giving the sample a kept run carries.

    Returns:
        What ``make`` returns (arrays, tuples, dicts), stored on the first call.
    """
    t = time.perf_counter()
    folder = location()
    found = kept(portable) if portable else None
    if found is not None:
        out, hit = found["result"], "kept"
    elif folder is None:
        out = make()
        _keep(portable, out, what, time.perf_counter() - t, sample)
        return out
    else:
        func = _cached(str(folder))
        hit = bool(func.check_call_in_cache(k, make))
        out = func(k, make)
    seconds = time.perf_counter() - t
    if hit != "kept":
        keeping = hit and os.environ.get(KEEP_VARIABLE)
        trained = _trained_seconds(Path(folder), k) if keeping else seconds
        _keep(portable, out, what, trained, sample)
    if folder is not None:
        row = {
            "key": k,
            "what": what,
            "hit": hit,
            "seconds": round(seconds, 3),
            "chapter": os.environ.get("HASTE_CHAPTER", ""),
        }
        with open(Path(folder) / "calls.jsonl", "a") as fh:
            fh.write(json.dumps(row) + "\n")
    return out
