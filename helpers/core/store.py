"""Train once: a trained run is stored and loaded when asked again ([conv-engine]).

A run's key (``joblib.hash``) holds everything that makes its bits: the float32 inputs
the device gets, the seeds' layout, the engine's code, the JAX release, ``XLA_FLAGS``
and the CPU.  The store is a ``joblib.Memory`` under ``_build/store/``
(``$HASTE_STORE``: another folder, or ``off``); each call is logged in
``calls.jsonl``.  A loaded run is the stored arrays bit for bit.
**Kept runs** (``book/kept/<chapter>/``, by ``python -m helpers.book keep CHAPTER``)
are found by a *portable* key (no CPU, no ``XLA_FLAGS``; ``$HASTE_KEPT=off``: train).
Each carries a sample the tests re-train for :data:`SAMPLE_EPOCHS` epochs.
**Kept summaries** (:func:`derived`): a small value read off heavy runs, keyed by its
inputs and :func:`code_stamp` (code read by :func:`code_hash`, so words move nothing);
:func:`stale` names kept files whose code changed.  ``same_everywhere=True`` keeps a
summary that feeds a threshold or argmin, which another CPU's rounding could tip.
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
#: ... and saves at least this many seconds of training per MiB.
KEEP_SECONDS_PER_MIB = 5.0
#: Largest kept run file, MiB.
KEEP_MAX_MIB = 3.0
#: Largest kept summary file (:func:`derived`), MiB.
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
    """The store's folder; None if ``off`` or within :func:`disabled`."""
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
    """:func:`key` without the CPU and ``XLA_FLAGS``: the key of kept runs."""
    m = _machine()
    return joblib.hash(((m[0], m[1], m[3], m[5]), jax.default_backend(), parts))


@functools.lru_cache(maxsize=1)
def _kept_index() -> dict:
    return {p.stem: p for p in sorted(KEPT.glob("*/*.joblib"))}


def _fields(tree):
    return [f.name for f in dataclasses.fields(tree)]


def _rebuilt(tree, convert):
    """Shallow copy, fields converted, bypassing ``__init__`` (checks already ran)."""
    out = copy.copy(tree)
    for name in _fields(tree):
        object.__setattr__(out, name, convert(getattr(tree, name)))
    return out


def _is_record(tree) -> bool:
    return dataclasses.is_dataclass(tree) and not isinstance(tree, type)


def narrow(tree):
    """Float64 arrays that float32 holds exactly, as float32 (half the bytes);
    :func:`widen` undoes it.  Recurses into containers and dataclasses."""
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
    """A kept run's content (``result``, ``what``, ``seconds``, ``sample``) or None."""
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
    """In ``keep`` mode, write a slow enough run; never inside a summary being made."""
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
    """``make()``'s result: kept (by ``portable``, None: never), stored (by ``k``), or
    made and stored.  ``sample()``: what a kept run carries; ``what``: for the log."""
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
    """Lines (1-based) of docstrings and ``__all__``; a same-line docstring stays."""
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
    """:func:`_code_hash` of ``path`` now, cached while the file is unchanged."""
    st = Path(path).stat()
    return _code_hash(Path(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=512)
def _code_hash(path: Path, mtime_ns: int, size: int) -> str:
    """sha256 of a module's tokens (no comments, docstrings, ``__all__`` or layout;
    an f-string as its source text) or of a TOML file's data."""
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
    """:func:`code_hash` of each file of ``helpers/core`` (this one aside) and of the
    dotted ``package`` (:data:`READERS` aside): the code a summary depends on."""
    core = _sources(Path(__file__).parent, skip=("store",))
    folder = ROOT.joinpath(*package.split("."))
    if not folder.is_dir():
        raise ValueError(f"package must be a package of the book, got {package!r}")
    return {**core, **_sources(folder, skip=READERS)}


#: The code that makes a kept run's bits; the first two are in every run's key.
ENGINE = ("engine.py", "devices.py", "race.py")


def engine_stamp() -> dict[str, str]:
    """:func:`code_hash` of each :data:`ENGINE` file."""
    here = Path(__file__).parent
    return {str((here / f).relative_to(ROOT)): code_hash(here / f) for f in ENGINE}


def derived(what: str, parts, make, package: str, same_everywhere: bool = False):
    """``make()``'s value as a *kept summary* (loaded on any CPU), else made.

    Args:
        what: a description; part of the key.
        parts: everything ``make`` reads that is not code, hashed into the key.
        make: a function of no arguments.
        package: the chapter's dotted package (its :func:`code_stamp` is keyed).
        same_everywhere: keep it whatever it saves (it feeds a threshold/argmin).
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
    """Kept files of ``manifest`` whose stamped code changed since the keep."""
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
