"""The benchmark of the training engine (page ``book/performance.md``).

    python -m helpers.chapters.performance            # the full one (about 10 minutes)
    python -m helpers.chapters.performance --quick    # the reduced one the page runs

It times :func:`helpers.core.engine.train` on the two ReLU networks of
[conv-constants] (11-700-60 and 11-420-420-60) as the book uses it, on one device, with
the seeds batched by ``vmap``, and two loops: (a) as the authors' scripts train (a
jitted update and a loss read back per epoch, the hidden activity every 10 epochs, the
outputs at three) and (b) with the losses kept on the device until the run ends.  All
train the same network from the same weights; each row records how closely the loss
curves agree.  Rates are seed-epochs per second of the fastest of ``rounds`` rounds
(the methods taking turns, compilation timed apart); the floor is one epoch's
operations over the machine's float32 matmul rate.  Raw results go to
``book/stats/benchmark.json``, the headline numbers to ``book/results``.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ...book.progress import report as _say
from ...core import datasets, engine, store
from ...core.checks import check_epochs, check_positive, check_positive_int, check_seeds

ROOT = Path(__file__).resolve().parents[3]
BENCHMARK_JSON = ROOT / "book" / "stats" / "benchmark.json"
QUICK_JSON = ROOT / "_build" / "benchmark_quick.json"

METHODS = ("engine", "engine_one_device", "engine_vmap", "authors_loop", "loop_async")
METHOD_LABELS = {
    "engine": "engine (every device)",
    "engine_one_device": "engine, one device",
    "engine_vmap": "engine, one device, vmap over seeds",
    "authors_loop": "loop (a): as the authors' scripts",
    "loop_async": "loop (b): losses read at the end",
}
#: The engine's options of each engine method.
_ENGINE_OPTIONS = {
    "engine": {},
    "engine_one_device": {"devices": 1},
    "engine_vmap": {"devices": 1, "batching": "vmap"},
}

#: What baseline (a) copies to the host, as the authors' scripts do: the loss every
#: epoch, the hidden activity every ``hidden_every`` epochs, the outputs at three
#: epochs.
AUTHORS_HIDDEN_EVERY = 10
AUTHORS_OUTPUT_EPOCHS = 3

# Seed-epochs per configuration and round of the full benchmark.
FULL_SEED_EPOCHS = {"section4": 48000, "depth": 12000}
QUICK_SEED_EPOCHS = {"section4": 4000, "depth": 1000}

#: Largest relative difference between a baseline's loss curve and the engine's that
#: still counts as the same training: inside the engine datapoints are rows, so float32
#: sums run in another order (about 3e-4 after a few thousand epochs).
AGREEMENT_RTOL = 1e-3


def say(msg: str) -> None:
    _say(f"benchmark: {msg}")


@dataclass(frozen=True)
class BenchNetwork:
    """A benchmarked ReLU network with its task and paper-scale run
    ([conv-constants])."""

    name: str
    label: str
    sizes: tuple[int, ...]
    init_std: float
    lr: float
    structures: tuple[str, ...]
    paper_epochs: int  # gradient steps after the initial loss (runs: + 1)
    paper_seeds: int

    def summary(self) -> dict:
        """What a benchmark stores of the network (its paper epochs count the initial
        loss)."""
        return {
            "label": self.label,
            "sizes": list(self.sizes),
            "init_std": self.init_std,
            "lr": self.lr,
            "paper_epochs": self.paper_epochs + 1,
            "paper_seeds": self.paper_seeds,
        }

    def build(self):
        """``(net, X, Y)``: the network and its task."""
        ds = datasets.contextual_task(len(self.structures), list(self.structures))
        return engine.relu_network(self.sizes, self.init_std), ds.X, ds.Y


NETWORKS = {
    "section4": BenchNetwork("section4", "Section 4 ReLU 11-700-60", (11, 700, 60),
                             0.005 / 700, 1e-3, ("hierarchy", "ring", "cross"),
                             8000, 10),
    "depth": BenchNetwork("depth", "Section 6 ReLU 11-420-420-60", (11, 420, 420, 60),
                          0.0006, 1e-3, ("hierarchy",) * 3, 30000, 99),
}  # fmt: skip


def _network(name: str) -> BenchNetwork:
    if name not in NETWORKS:
        raise ValueError(f"unknown network {name!r}; choose from {sorted(NETWORKS)}")
    return NETWORKS[name]


def flops_per_epoch(sizes: Sequence[int], P: int) -> dict[str, int]:
    """Floating-point operations of one full-batch gradient step on ``P`` datapoints,
    matrix products only (``2 a b P`` for ``a x b`` times ``b x P``): forward every
    layer; backward every layer's weight gradient and the error of all but the first.
    """
    sizes, P = [int(s) for s in sizes], int(P)
    if len(sizes) < 2 or min(sizes) <= 0 or P <= 0:
        raise ValueError(f"sizes (d, ..., p) and P must be positive, got {sizes}, {P}")
    mults = [a * b for a, b in zip(sizes[1:], sizes[:-1])]
    forward = 2 * P * sum(mults)
    backward = forward + 2 * P * sum(mults[1:])
    return {"forward": forward, "backward": backward, "total": forward + backward}


def matmul_rate(n: int = 1024, repeats: int = 10) -> dict:
    """The machine's float32 matrix-multiply rate: the best of ``repeats`` timed
    ``n x n`` products (``2 n^3`` operations each) in jitted JAX, after a warm-up."""
    n, repeats = check_positive_int(n, "n"), check_positive_int(repeats, "repeats")
    keys = jax.random.split(jax.random.PRNGKey(0))
    A, B = (jax.random.normal(k, (n, n), jnp.float32) for k in keys)
    mm = jax.jit(jnp.matmul)
    mm(A, B).block_until_ready()
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        mm(A, B).block_until_ready()
        best = min(best, time.perf_counter() - t0)
    return {"n": n, "repeats": repeats, "best_seconds": best,
            "flops_per_s": 2.0 * n**3 / best}  # fmt: skip


def make_steps(net: engine.GatedNetwork, X, Y, lr: float) -> dict:
    """The jitted functions a research script calls, datapoints as columns: ``update``
    (one step ``W <- W - lr dL/dW`` on the summed loss, [conv-data]), ``step`` (the
    update that also returns the loss before it), ``loss``, ``hidden`` (every hidden
    layer's activity) and ``outputs``.  Plain ReLU and linear networks only."""
    if not isinstance(net, engine.GatedNetwork) or net.kind not in ("relu", "linear"):
        kind = getattr(net, "kind", type(net).__name__)
        raise ValueError(
            "the loop baselines train plain ReLU or linear networks (engine."
            f"relu_network / engine.linear_network), got kind={kind!r}"
        )
    lr = check_positive(lr, "lr")
    X, Y = jnp.asarray(X, jnp.float32), jnp.asarray(Y, jnp.float32)
    d, p = net.sizes[0], net.sizes[-1]
    if (X.shape[0], Y.shape[0], X.shape[1]) != (d, p, Y.shape[1]):
        raise ValueError(f"the network maps {d} -> {p}; got X {X.shape}, Y {Y.shape}")
    act = jax.nn.relu if net.kind == "relu" else (lambda h: h)

    def hidden(params):
        hs = [X]
        for W in params[:-1]:
            hs.append(act(W @ hs[-1]))
        return hs[1:]

    def loss(params):
        return 0.5 * jnp.sum((Y - params[-1] @ hidden(params)[-1]) ** 2)

    def step(params):
        value, grads = jax.value_and_grad(loss)(params)
        return [W - lr * G for W, G in zip(params, grads)], value

    return {
        "update": jax.jit(lambda p: step(p)[0]),
        "step": jax.jit(step),
        "loss": jax.jit(loss),
        "hidden": jax.jit(hidden),
        "outputs": jax.jit(lambda p: p[-1] @ hidden(p)[-1]),
    }


class Timing(NamedTuple):
    """A timed training: its loss curves ``(seeds, epochs + 1)``, the seconds of each
    timed round (compilation excluded) and the compile seconds."""

    method: str
    loss: np.ndarray
    rounds: list
    compile_seconds: float

    @property
    def seconds(self) -> float:
        """The fastest round's: the one a rate is taken from."""
        return float(min(self.rounds))


def _method(name, net, X, Y, lr, epochs, seeds, steps=None):
    """``(name, compile, run)`` of one way of training: ``compile`` is timed once (for
    the engine: a whole run), ``run`` per round, returning ``(seeds, epochs + 1)``."""
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; choose from {METHODS}")
    epochs, seeds = check_epochs(epochs), list(check_seeds(seeds))
    if name.startswith("engine"):

        def train():
            with store.disabled():  # timed: trained every time, never loaded
                kw = _ENGINE_OPTIONS[name]
                return engine.train(net, X, Y, lr=lr, epochs=epochs, seeds=seeds, **kw)

        return name, train, lambda: train().loss
    st = steps or make_steps(net, X, Y, lr)
    keep_out = set(np.linspace(0, epochs, AUTHORS_OUTPUT_EPOCHS).astype(int).tolist())

    def start(seed):
        return [jnp.asarray(W, jnp.float32) for W in engine.init_params(net, seed)]

    def compile():
        p = start(seeds[0])
        for f in st.values():
            jax.block_until_ready(f(p))

    def run():
        loss = np.empty((len(seeds), epochs + 1))
        for i, seed in enumerate(seeds):
            params = start(seed)
            if name == "authors_loop":  # (a): as the authors' scripts, per epoch
                for t in range(epochs + 1):
                    loss[i, t] = float(st["loss"](params))
                    if t % AUTHORS_HIDDEN_EVERY == 0:
                        jax.device_get(st["hidden"](params))
                    if t in keep_out:
                        jax.device_get(st["outputs"](params))
                    params = st["update"](params)
            else:  # (b): the losses stay on the device until the seed's run ends
                kept = []
                for t in range(epochs + 1):
                    params, L = st["step"](params)
                    kept.append(L)
                loss[i] = np.asarray(jax.device_get(kept), float)
        return loss

    return name, compile, run


def time_method(
    method: str, net, X, Y, *, lr: float, epochs: int, seeds, rounds: int = 1
) -> Timing:
    """One method timed alone: a first call (compiles), then ``rounds`` timed calls."""
    m = _method(method, net, X, Y, lr, epochs, seeds)
    return _take_turns([m], check_positive_int(rounds, "rounds"), method)[method]


def measure_epochs(
    network: str,
    seeds: int,
    seed_epochs: int,
    min_epochs: int = 100,
    max_epochs: int | None = None,
) -> int:
    """Epochs per seed a configuration is measured on: ``seed_epochs / seeds``
    clipped to ``[min_epochs, max_epochs or the paper's epochs]``."""
    cap = _network(network).paper_epochs
    cap = cap if max_epochs is None else min(int(max_epochs), cap)
    return int(np.clip(round(seed_epochs / seeds), min(min_epochs, cap), cap))


def measure(
    network: str,
    seeds: int,
    *,
    methods: Sequence[str] = METHODS,
    seed_epochs: int = 24000,
    min_epochs: int = 100,
    max_epochs: int | None = None,
    rounds: int = 3,
) -> list[dict]:
    """Time every method on one network with ``seeds`` seeds (0 .. seeds-1), the methods
    taking turns round by round (the order rotated each round).  One row per method:
    seconds, compile seconds, seed-epochs per second (best and median round), the
    projected paper-scale run, and the largest relative difference of its loss curves
    from the engine's.  The one-device variants are skipped for one seed (they are then
    the engine)."""
    bn = _network(network)
    seeds = check_positive_int(seeds, "seeds")
    rounds = check_positive_int(rounds, "rounds")
    epochs = measure_epochs(network, seeds, seed_epochs, min_epochs, max_epochs)
    net, X, Y = bn.build()
    steps = make_steps(net, X, Y, bn.lr)
    todo = [
        _method(m, net, X, Y, bn.lr, epochs, range(seeds), steps)
        for m in methods
        if not (m in ("engine_one_device", "engine_vmap") and seeds == 1)
    ]
    label = f"{network}, {seeds} seeds x {epochs + 1} epochs"
    timings = _take_turns(todo, rounds, label)
    fl = flops_per_epoch(bn.sizes, X.shape[1])["total"]
    rows, ref = [], timings.get("engine")
    for tm in timings.values():
        diff = None
        if ref is not None:
            diff = np.abs(tm.loss - ref.loss) / np.maximum(np.abs(ref.loss), 1e-30)
            diff = float(np.max(diff))
        if diff is not None and diff > AGREEMENT_RTOL:
            say(
                f"WARNING: {tm.method} disagrees with the engine on {label}: relative "
                f"loss difference {diff:.2e} > {AGREEMENT_RTOL:g}"
            )
        rate, paper = tm.loss.size / tm.seconds, bn.paper_epochs + 1
        rows.append({
            "network": bn.name, "method": tm.method, "seeds": seeds,
            "epochs_measured": epochs + 1, "rounds": rounds, "seconds": tm.seconds,
            "seconds_rounds": list(tm.rounds), "compile_seconds": tm.compile_seconds,
            "seed_epochs_per_s": rate,
            "seed_epochs_per_s_median": tm.loss.size / float(np.median(tm.rounds)),
            "flops_per_s": fl * rate, "paper_run_epochs": paper,
            "projected_paper_run_seconds": seeds * paper / rate,
            "max_rel_loss_diff_vs_engine": diff,
            "final_loss_mean": float(tm.loss[:, -1].mean()),
        })  # fmt: skip
    return rows


def _take_turns(todo: list, rounds: int, label: str) -> dict[str, Timing]:
    """Compile every method, then time ``rounds`` rounds in which they take turns (the
    order rotated each round)."""
    first, times, losses = {}, {name: [] for name, _, _ in todo}, {}
    say(f"{label}: compiling")
    for name, compile, _ in todo:
        t0 = time.perf_counter()
        compile()
        first[name] = time.perf_counter() - t0
    for k in range(rounds):
        say(f"{label}: round {k + 1}/{rounds}")
        for name, _, run in todo[k % len(todo) :] + todo[: k % len(todo)]:
            t0 = time.perf_counter()
            losses[name] = run()
            times[name].append(time.perf_counter() - t0)
    out = {}
    for name, comp in first.items():
        if name.startswith("engine"):  # the first call was a whole run
            comp = max(comp - min(times[name]), 0.0)
        out[name] = Timing(name, losses[name], times[name], comp)
    return out


def _derived(rows: list[dict], matmul_flops_per_s: float, flops: dict) -> dict:
    """Per network and seed count: the engine's fraction of the floor, its batching
    efficiency, and its speed-up over each other method."""
    rate = {
        (r["network"], r["method"], r["seeds"]): r["seed_epochs_per_s"] for r in rows
    }
    bases = {"authors_loop": "authors_loop", "loop_async": "loop_async"}
    bases.update(one_device="engine_one_device", vmap="engine_vmap")
    keys = ["fraction_of_floor", "batching_efficiency"]
    out: dict = {k: {} for k in keys + [f"speedup_vs_{b}" for b in bases]}
    for (net, m, s), v in sorted(rate.items()):
        if m != "engine":
            continue
        ratios = {"fraction_of_floor": v * flops[net]["total"] / matmul_flops_per_s}
        if (net, "engine", 1) in rate:
            ratios["batching_efficiency"] = rate[(net, "engine", 1)] / v
        for name, base in bases.items():
            if (net, base, s) in rate:
                ratios[f"speedup_vs_{name}"] = v / rate[(net, base, s)]
        for k, x in ratios.items():
            out[k].setdefault(net, {})[str(s)] = x
    return out


def _configurations(networks: Sequence[str], seeds, seed_epochs) -> tuple:
    """``(networks, seed counts, seed-epochs per configuration and round)`` by network,
    checked: ``seeds`` for every network or per network, ``seed_epochs`` per network or
    one for all (default :data:`FULL_SEED_EPOCHS`)."""
    given = FULL_SEED_EPOCHS if seed_epochs is None else seed_epochs
    if not isinstance(given, dict):
        given = dict.fromkeys(networks, given)
    out = {n: int(given.get(n, FULL_SEED_EPOCHS.get(n, 0))) for n in networks}
    if any(v <= 0 for v in out.values()):
        raise ValueError(f"seed_epochs must be positive for every network, got {out}")
    seeds = seeds if isinstance(seeds, dict) else dict.fromkeys(networks, list(seeds))
    nets = {n: _network(n) for n in networks}
    for n in networks:
        if not seeds.get(n):
            raise ValueError(f"no seed counts given for network {n!r}")
    return nets, seeds, out


def _machine(load_before) -> dict:
    """The machine, its JAX backend and devices, the load average before and now."""
    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "backend": jax.default_backend(),
        "devices": len(jax.devices()),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }


def run_benchmark(
    networks: Sequence[str] = ("section4", "depth"),
    seeds: Sequence[int] | dict = (1, 8, 64),
    *,
    seed_epochs: dict[str, int] | int | None = None,
    min_epochs: int = 100,
    max_epochs: int | None = None,
    rounds: int = 3,
    matmul_n: int = 1024,
    methods: Sequence[str] = METHODS,
    label: str = "full",
) -> dict:
    """The whole benchmark as one JSON-ready dict: machine, floor, rows, derived ratios.

    ``seeds``: seed counts for every network, or a dict of them per network;
    ``seed_epochs``: seed-epochs each configuration trains per round (per network, or
    one for all; default :data:`FULL_SEED_EPOCHS`).
    """
    nets, seeds, seed_epochs = _configurations(networks, seeds, seed_epochs)
    started = _dt.datetime.now(_dt.timezone.utc)
    load_before = os.getloadavg()
    t_start = time.perf_counter()
    say("timing a large matrix multiply")
    probes = [matmul_rate(matmul_n)]
    rows, flops = [], {}
    opts = dict(methods=methods, min_epochs=min_epochs, max_epochs=max_epochs)
    for n, bn in nets.items():
        flops[n] = flops_per_epoch(bn.sizes, 8 * len(bn.structures))
        for s in seeds[n]:
            rows += measure(
                n, int(s), seed_epochs=seed_epochs[n], rounds=rounds, **opts
            )
            probes.append(matmul_rate(matmul_n))
    mm = dict(max(probes, key=lambda p: p["flops_per_s"]))
    mm["probes_flops_per_s"] = [p["flops_per_s"] for p in probes]
    for r in rows:
        r["fraction_of_floor"] = r["flops_per_s"] / mm["flops_per_s"]
    settings = {
        "networks": list(networks),
        "seeds": {n: [int(s) for s in seeds[n]] for n in networks},
        "seed_epochs": seed_epochs,
        "min_epochs": int(min_epochs),
        "max_epochs": max_epochs,
        "rounds": int(rounds),
        "methods": list(methods),
    }
    return {
        "label": label,
        "started_utc": started.isoformat(timespec="seconds"),
        "wall_seconds": time.perf_counter() - t_start,
        "machine": _machine(load_before),
        "settings": settings,
        "networks": {n: bn.summary() for n, bn in nets.items()},
        "matmul": mm,
        "flops_per_epoch": flops,
        "floor_seed_epochs_per_s": {
            n: mm["flops_per_s"] / flops[n]["total"] for n in networks
        },
        "rows": rows,
        "derived": _derived(rows, mm["flops_per_s"], flops),
    }


def load_benchmark(path: Path | str = BENCHMARK_JSON) -> dict | None:
    """The stored benchmark at ``path`` (``None`` when there is none)."""
    path = Path(path)
    return json.loads(path.read_text()) if path.exists() else None


def summary_text(bench: dict) -> str:
    """The benchmark's rows and ratios as plain text."""
    lines = [
        f"{r['network']:9s} {r['method']:18s} {r['seeds']:3d} seeds x "
        f"{r['epochs_measured']:5d} epochs: {r['seed_epochs_per_s']:8.0f} "
        f"seed-epochs/s, {r['fraction_of_floor']:.2f} of the floor (compile "
        f"{r['compile_seconds']:.2f} s; loss vs engine "
        f"{r['max_rel_loss_diff_vs_engine']:.1e})"
        for r in bench["rows"]
    ]
    lines += [
        f"{k} {net}: " + ", ".join(f"{s} seeds {x:.2f}" for s, x in v.items())
        for k, by in bench["derived"].items()
        for net, v in by.items()
    ]
    mm, load = bench["matmul"], bench["machine"]["load_average_before"]
    lines.append(
        f"matmul rate {mm['flops_per_s'] / 1e9:.1f} GFLOP/s (n = {mm['n']}); load "
        f"average {load}"
    )
    return "\n".join(lines)
