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

**Kept summaries.**  Some runs record weights over training and weigh hundreds of MB;
what the page reads of them (a census, losses, shares) is small.  :func:`derived`
keeps that value instead: its key holds its inputs and the code that makes it
(:func:`code_stamp`: every ``.py`` and ``.toml`` of ``helpers/core`` and of the
chapter's package, this file and the page's report, tables and plots aside, each read
as code by :func:`code_hash`: a docstring, a comment or a line break changed moves
nothing), and it carries the sample of the first engine run made inside it, which the
tests re-train like any kept run's.  A manifest records each kept file's code stamps;
:func:`stale` names the kept files whose code has changed since (a test fails on them:
keep that chapter again).

**Kept for the CPU's sake.**  A summary that feeds a threshold or an argmin (the census
a family of ReLNs is chosen from, the gate samples k-means clusters) is kept with
``same_everywhere=True`` whatever training it saves: trained anew, float32 rounding on
another CPU can tip such a choice, so every CPU reads the kept value (at most
:data:`DERIVED_MAX_MIB`).
"""

from __future__ import annotations

import ast
import contextlib
import copy
import dataclasses
import functools
import hashlib
import io
import json
import os
import platform
import time
import tokenize
import tomllib
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
KEEP_MIN_SECONDS = 2.0
#: ... and only where it saves at least this many seconds of training per MiB it weighs.
KEEP_SECONDS_PER_MIB = 5.0
#: A kept run's file may hold at most this many MiB (the repository carries them).
KEEP_MAX_MIB = 3.0
#: A kept summary's file (:func:`derived`) may hold at most this many MiB.
DERIVED_MAX_MIB = 12.0
#: The epochs of a kept run's sample that the tests re-train.
SAMPLE_EPOCHS = 300
#: In ``keep`` mode, the portable keys the execution asked for, one a line.
ASKED = "asked.txt"


_OFF = [0]
#: One frame per :func:`derived` value being made: the sample of its first engine run.
_MAKING: list[dict] = []


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
    src = "".join(code_hash(Path(__file__).parent / f) for f in ENGINE[:2])
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


def _fields(tree):
    return [f.name for f in dataclasses.fields(tree)]


def _rebuilt(tree, convert):
    """A shallow copy of the dataclass ``tree`` with every field converted (no
    ``__init__``: a value's checks ran when it was made)."""
    out = copy.copy(tree)
    for name in _fields(tree):
        object.__setattr__(out, name, convert(getattr(tree, name)))
    return out


def _is_record(tree) -> bool:
    return dataclasses.is_dataclass(tree) and not isinstance(tree, type)


def narrow(tree):
    """Every float64 array that float32 holds exactly, as float32 (half the bytes:
    the engine's losses are float32 values widened); :func:`widen` undoes it, memory
    order included.  Descends into dicts, lists, tuples, named tuples and
    dataclasses."""
    if isinstance(tree, dict):
        return {k: narrow(v) for k, v in tree.items()}
    if _is_record(tree):
        return _rebuilt(tree, narrow)
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return type(tree)(*(narrow(v) for v in tree))
    if isinstance(tree, (list, tuple)):
        return type(tree)(narrow(v) for v in tree)
    if isinstance(tree, np.ndarray) and tree.dtype == np.float64:
        small = tree.astype(np.float32)
        if np.array_equal(small.astype(np.float64), tree, equal_nan=True):
            fortran = tree.flags.f_contiguous and not tree.flags.c_contiguous
            return {"float64_as_float32": small, "order": "F" if fortran else "C"}
    return tree


def widen(tree):
    if isinstance(tree, dict):
        if "float64_as_float32" in tree and set(tree) <= {
            "float64_as_float32",
            "order",
        }:
            order = tree.get("order", "C")
            return np.array(tree["float64_as_float32"], np.float64, order=order)
        return {k: widen(v) for k, v in tree.items()}
    if _is_record(tree):
        return _rebuilt(tree, widen)
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return type(tree)(*(widen(v) for v in tree))
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


def _keep(
    portable, result, what, seconds, sample, stamp=None, package="", everywhere=False
) -> None:
    """In ``keep`` mode, a run that took at least :data:`KEEP_MIN_SECONDS` (any, with
    ``everywhere``) is written to ``$HASTE_KEEP`` with its sample (``stamp``: a
    summary's :func:`code_stamp`).  Nothing is written while a summary is being made:
    the summary is kept, not its runs."""
    folder = os.environ.get(KEEP_VARIABLE)
    if not folder or portable is None or _MAKING:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    with open(Path(folder) / ASKED, "a") as fh:  # what this execution asked for
        fh.write(f"{portable}\n")
    if seconds is None or (seconds < KEEP_MIN_SECONDS and not everywhere):
        return
    content = {
        "result": narrow(result),
        "what": what,
        "seconds": round(float(seconds), 1),
        "chapter": os.environ.get("HASTE_CHAPTER", ""),
        "sample": sample() if sample else None,
        "derived": stamp is not None,
        "stamp": stamp,
        "package": package,
        "same_everywhere": bool(everywhere),
    }
    joblib.dump(content, Path(folder) / f"{portable}.joblib", compress=3)


def _compute(key: str, make):
    return make()


@functools.lru_cache(maxsize=4)
def _cached(folder: str):
    return joblib.Memory(folder, verbose=0).cache(_compute, ignore=["make"])


def _log(folder, k: str, what: str, hit, seconds: float) -> None:
    if folder is None:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)  # a first call may be a kept hit
    row = {
        "key": k,
        "what": what,
        "hit": hit,
        "seconds": round(seconds, 3),
        "chapter": os.environ.get("HASTE_CHAPTER", ""),
    }
    with open(Path(folder) / "calls.jsonl", "a") as fh:
        fh.write(json.dumps(row) + "\n")


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
    first = _MAKING and _MAKING[-1]["sample"] is None and sample is not None
    if first:  # a summary carries its first run's sample and that run's first curve
        _MAKING[-1]["sample"] = sample()
        frame = _MAKING[-1]
    out = _load_or_make(k, make, what, portable, sample)
    if first:
        curve = np.asarray(out[0])
        curve = curve[0] if curve.ndim == 2 else curve
        frame["sample"] = {**frame["sample"], "curve": curve[: SAMPLE_EPOCHS + 1]}
    return out


def _load_or_make(k: str, make, what: str, portable, sample):
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
    _log(folder, k, what, hit, seconds)
    return out


def _words(text: str) -> set[int]:
    """The lines of a module's docstrings and ``__all__`` (1-based): words about the
    code, not code.  A docstring on its ``def``'s own line stays."""
    out, tree = set(), ast.parse(text)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list) or not body:
            continue
        first = body[0]
        doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        if doc and isinstance(first.value.value, str):
            if first.lineno > getattr(node, "lineno", 0):
                out.update(range(first.lineno, first.end_lineno + 1))
    for node in tree.body:
        targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
        if any(getattr(t, "id", None) == "__all__" for t in targets):
            out.update(range(node.lineno, node.end_lineno + 1))
    return out


def code_hash(path: Path) -> str:
    """The sha256 of what the file ``path`` computes: a module's tokens without its
    comments, docstrings, ``__all__`` and layout; a TOML file's data.  A changed word
    or line break leaves a kept summary's key as it was (any Python 3.11+: an
    f-string counts as its source text)."""
    text = path.read_text()
    if path.suffix == ".toml":
        canon = json.dumps(tomllib.loads(text), sort_keys=True)
    else:
        words = _words(text)
        lines = text.splitlines(keepends=True)
        kept = "".join(x for i, x in enumerate(lines, 1) if i not in words)
        skip = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
        out, depth, start = [], 0, (0, 0)
        for tok in tokenize.generate_tokens(io.StringIO(kept).readline):
            name = tokenize.tok_name[tok.type]
            if name == "FSTRING_START":  # Python 3.12+: keep the f-string whole
                start = tok.start if depth == 0 else start
                depth += 1
            elif name == "FSTRING_END":
                depth -= 1
                if depth == 0:
                    out.append(_span(kept, start, tok.end))
            elif depth == 0 and tok.type not in skip:
                out.append(tok.string if tok.string.strip() else name)
        canon = " ".join(out)
    return hashlib.sha256(canon.encode()).hexdigest()


def _span(text: str, start: tuple, end: tuple) -> str:
    lines = text.splitlines(keepends=True)
    if start[0] == end[0]:
        return lines[start[0] - 1][start[1] : end[1]]
    middle = "".join(lines[start[0] : end[0] - 1])
    return lines[start[0] - 1][start[1] :] + middle + lines[end[0] - 1][: end[1]]


def _sources(root: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    files = sorted([*root.rglob("*.py"), *root.rglob("*.toml")])
    return {
        str(f.relative_to(ROOT)): code_hash(f)
        for f in files
        if f.stem not in skip and "__pycache__" not in f.parts
    }


#: Modules of a chapter's package that read a summary but never make one.
READERS = ("report", "tables", "plots")


def code_stamp(package: str) -> dict[str, str]:
    """The :func:`code_hash` of every file whose code can make a summary of ``package``
    (a chapter's dotted package, e.g. ``helpers.chapters.depth``): each ``.py`` and
    ``.toml`` of ``helpers/core`` (this file aside: it decides where values live, not
    what they are) and of the package (its :data:`READERS` aside)."""
    core = _sources(Path(__file__).parent, skip=("store",))
    folder = ROOT.joinpath(*package.split("."))
    if not folder.is_dir():
        raise ValueError(f"package must be a package of the book, got {package!r}")
    return {**core, **_sources(folder, skip=READERS)}


#: The code that makes a kept run's bits; the first two are in every run's key.
ENGINE = ("engine.py", "devices.py", "race.py")


def engine_stamp() -> dict[str, str]:
    """The :func:`code_hash` of the code that makes a kept run's bits
    (:data:`ENGINE`)."""
    here = Path(__file__).parent
    return {str((here / f).relative_to(ROOT)): code_hash(here / f) for f in ENGINE}


def derived(what: str, parts, make, package: str, same_everywhere: bool = False):
    """``make()``'s value, kept in the repository by ``keep`` like a run (a *kept
    summary*, loaded on any CPU) and made everywhere else.

    Args:
        what: a short description (the call log, the manifest); part of the key.
        parts: everything ``make`` reads that is not code (networks, data, seeds,
            settings), hashed into the key.
        make: a function of no arguments.
        package: the chapter's dotted package; its code (:func:`code_stamp`) is part
            of the key, so a change to it makes the value anew.
        same_everywhere: keep it whatever training it saves (not only where it pays
            for its bytes): a threshold or an argmin reads it, which another CPU's
            rounding could tip.

    Returns:
        What ``make`` returns, or the kept value bit for bit.
    """
    stamp = code_stamp(package)
    digest = hashlib.sha256(json.dumps(stamp, sort_keys=True).encode()).hexdigest()
    portable = portable_key("derived", what, digest, parts)
    t = time.perf_counter()
    found = kept(portable)
    if found is not None:
        _log(location(), portable, what, "kept", time.perf_counter() - t)
        return found["result"]
    keeping = bool(os.environ.get(KEEP_VARIABLE))
    _MAKING.append({"sample": None})
    try:
        with disabled() if keeping else contextlib.nullcontext():
            out = make()  # while keeping, every run is trained: the time is real
    finally:
        frame = _MAKING.pop()
    if _MAKING:  # a summary made inside another: the outer one is kept
        if _MAKING[-1]["sample"] is None:
            _MAKING[-1]["sample"] = frame["sample"]
    elif frame["sample"] is not None:  # a summary with no engine run is not kept
        seconds = time.perf_counter() - t
        sample = frame["sample"]
        _keep(portable, out, what, seconds, lambda: sample, stamp, package,
              same_everywhere)  # fmt: skip
    return out


def stale(manifest: dict) -> list[str]:
    """The files of a kept chapter's ``manifest`` whose code changed since the keep:
    a file of a summary's :func:`code_stamp` changed, added or gone, or the engine's
    code changed (:func:`engine_stamp`)."""
    out = []
    now = engine_stamp()
    for name, entry in manifest.get("runs", {}).items():
        was = entry.get("stamp") or manifest.get("engine_stamp", {})
        if entry.get("derived"):
            now_here = code_stamp(entry["package"])
        else:
            now_here = now
        changed = sorted(
            f for f in set(was) | set(now_here) if was.get(f) != now_here.get(f)
        )
        if changed:
            out.append(f"{name}: {', '.join(changed)}")
    return out
