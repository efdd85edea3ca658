"""Stored runs of the depth chapter (defined for the page ``book/depth.md``): run once
by a command into ``book/depth_runs/`` with a manifest; the page reads, never re-runs.

* ``scatter``: loss curves of the ReLU network and the main GDLN of Fig. 6b, seeds
  ``first .. first + n - 1``, pooled by the page with its own ([rulebook-noise]).
* ``rounding``: the rounding floor of the drop epochs: :func:`plain_descent` from the
  engine's float32 starts, in float32 and float64 (needs ``JAX_ENABLE_X64=1``).

Commands (from the repository root)::

    python -m helpers.chapters.depth.stored scatter --first 12 --seeds 12
    JAX_ENABLE_X64=1 python -m helpers.chapters.depth.stored rounding --seeds 4
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from ...book import crosscheck
from ...core import relns
from ...core.engine import init_params, train
from .networks import EPOCHS, HAND_SCHEDULE, LR, depth_gdln, depth_task, relu_depth

ROOT = Path(__file__).resolve().parents[3]
#: Where the stored runs live.
RUNS = ROOT / "book" / "depth_runs"
#: The stored runs, by name: their file.
KINDS = {"scatter": "scatter.npz", "rounding": "rounding.npz"}
COMMANDS = {
    "scatter": "python -m helpers.chapters.depth.stored scatter --first {first} "
    "--seeds {n}",
    "rounding": "JAX_ENABLE_X64=1 python -m helpers.chapters.depth.stored rounding "
    "--seeds {n}",
}


def _check_seeds(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"seeds must be an integer >= 2, got {n!r}")
    return int(n)


def plain_descent(params0, X, Y, lr: float, epochs: int, dtype) -> np.ndarray:
    """Full-batch gradient descent of ``W3 relu(W2 relu(W1 X))`` on the summed loss,
    apart from the engine, in ``dtype`` (float64 needs ``JAX_ENABLE_X64=1``).

    Args:
        params0: ``[W1, W2, W3]``, optionally with a leading axis over seeds.

    Returns:
        the loss before every update, ``(seeds, epochs + 1)`` (``(epochs + 1,)`` for
        one start), as float64.
    """
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    if dtype == np.float64 and not jax.config.jax_enable_x64:
        raise ValueError("dtype float64 needs JAX_ENABLE_X64=1 (jax_enable_x64)")
    if isinstance(epochs, bool) or int(epochs) != epochs or epochs < 1:
        raise ValueError(f"epochs must be a positive integer, got {epochs!r}")
    Ws = [np.asarray(W) for W in params0]
    single = Ws[0].ndim == 2
    if single:
        Ws = [W[None] for W in Ws]
    Ws = [jnp.asarray(W, dtype) for W in Ws]
    Xj, Yj = jnp.asarray(X, dtype), jnp.asarray(Y, dtype)
    step_size = jnp.asarray(lr, dtype)

    def loss(V):
        h1 = jnp.maximum(V[0] @ Xj, 0)
        h2 = jnp.maximum(V[1] @ h1, 0)
        return 0.5 * jnp.sum((Yj - V[2] @ h2) ** 2)

    grad = jax.value_and_grad(loss)

    def step(V, _):
        value, G = grad(V)
        return [W - step_size * dW for W, dW in zip(V, G)], value

    @jax.jit
    def run(V):
        return jax.lax.scan(step, V, None, length=int(epochs) + 1)[1]

    out = np.stack([np.asarray(run([W[s] for W in Ws])) for s in range(len(Ws[0]))])
    out = out.astype(np.float64)
    return out[0] if single else out


def _setup():
    ds = depth_task()
    return ds, relu_depth(ds), depth_gdln(ds, HAND_SCHEDULE)


def scatter(n: int, epochs: int | None = None, first: int = 0) -> dict:
    """Loss curves of seeds ``first .. first + n - 1`` of the ReLU network and the
    main GDLN, as the page trains them (``epochs``: fewer only for tests).

    Returns:
        ``{"relu": (n, epochs + 1), "gdln": (n, epochs + 1), "seeds": (n,)}``, float32.
    """
    n = _check_seeds(n)
    ds, relu, gdln = _setup()
    if isinstance(first, bool) or int(first) != first or first < 0:
        raise ValueError(f"first must be an integer >= 0, got {first!r}")
    seeds = list(range(int(first), int(first) + n))
    kw = dict(lr=LR, epochs=epochs or EPOCHS, seeds=seeds, record=())
    L_relu = train(relu, ds.X, ds.Y, **kw).loss
    net, p0 = relns.start(
        gdln, "authors", seeds, experiment="depth", relu_net=relu, X=ds.X,
        contexts=ds.contexts,
    )  # fmt: skip
    L_gdln = train(net, ds.X, ds.Y, params0=p0, **kw).loss
    return {
        "relu": L_relu.astype(np.float32),
        "gdln": L_gdln.astype(np.float32),
        "seeds": np.array(seeds),
    }


def rounding(n: int, epochs: int | None = None) -> dict:
    """The ReLU network from the engine's starts of seeds ``0 .. n-1``, trained by
    :func:`plain_descent` in float32 and float64: ``{"float32", "float64": (n, epochs +
    1), "seeds": (n,)}``."""
    n = _check_seeds(n)
    ds, relu, _ = _setup()
    starts = [
        [np.asarray(W, np.float32) for W in init_params(relu, s)] for s in range(n)
    ]
    stacked = [np.stack([p[k] for p in starts]) for k in range(3)]
    out = {"seeds": np.array(range(n))}
    for name, dt in (("float64", np.float64), ("float32", np.float32)):
        out[name] = plain_descent(stacked, ds.X, ds.Y, LR, epochs or EPOCHS, dt)
    return out


def load(kind: str, runs: Path | None = None) -> tuple[dict, dict]:
    """``(arrays, manifest entry)`` of the stored run ``kind`` (sha256 checked)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    runs = RUNS if runs is None else Path(runs)
    entry = json.loads((runs / "manifest.json").read_text())[kind]
    path = runs / entry["file"]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != entry["sha256"]:
        raise ValueError(f"{path} does not match its manifest's sha256")
    with np.load(path) as z:
        return {k: z[k] for k in z.files}, entry


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return out + (" (working tree modified)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None) -> None:
    """Run one stored run and write it with its manifest entry."""
    ap = argparse.ArgumentParser(prog="python -m helpers.chapters.depth.stored")
    ap.add_argument("kind", choices=list(KINDS))
    ap.add_argument("--seeds", type=int, required=True)
    ap.add_argument("--first", type=int, default=0, help="first seed (scatter)")
    ap.add_argument("--out", type=Path, default=RUNS)
    ap.add_argument("--epochs", type=int, default=None, help="fewer: tests only")
    a = ap.parse_args(argv)
    n = _check_seeds(a.seeds)
    t0, c0 = time.time(), time.process_time()
    if a.kind == "scatter":
        arrays = scatter(n, a.epochs, a.first)
    else:
        arrays = rounding(n, a.epochs)
    seconds, cpu = time.time() - t0, time.process_time() - c0
    a.out.mkdir(parents=True, exist_ok=True)
    path = a.out / KINDS[a.kind]
    np.savez_compressed(path, **arrays)
    man = a.out / "manifest.json"
    manifest = json.loads(man.read_text()) if man.exists() else {}
    manifest[a.kind] = {
        "command": COMMANDS[a.kind].format(n=n, first=a.first)
        + (f" --epochs {a.epochs}" if a.epochs else ""),
        "file": path.name,
        "seeds": [int(x) for x in arrays["seeds"]],
        "commit": _commit(),
        "machine": f"{platform.machine()}, {len(jax.devices())} JAX device(s) "
        f"({jax.devices()[0].platform})",
        "python": platform.python_version(),
        "jax": jax.__version__,
        "numpy": np.__version__,
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu, 1),
        "date": time.strftime("%Y-%m-%d"),
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "shapes": {k: list(v.shape) for k, v in arrays.items()},
    }
    man.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    print(f"wrote {path} ({seconds:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()


def authors_runs():
    """The authors' own script runs of Fig. 6b (loss curves and provenance), read by
    :func:`helpers.book.crosscheck.load`.  Defined for the page book/depth.md."""
    return crosscheck.load("depth")
