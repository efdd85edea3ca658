"""The benchmark of the training engine (page ``book/performance.md``).

    python -m helpers.chapters.performance            # the full one (about 10 minutes)
    python -m helpers.chapters.performance --quick    # the reduced one the page runs

It times :func:`helpers.core.engine.train` ([conv-engine]) on the two ReLU networks of
[conv-constants] (Section 4's 11-700-60, the depth network 11-420-420-60) as the book
uses it (``"engine"``), on one device (``"engine_one_device"``), with the seeds batched
by ``vmap`` (``"engine_vmap"``), and two loop baselines: (a) ``"authors_loop"``, a
Python loop over epochs as the authors' scripts train (per epoch a jitted update and a
loss read back to the host, the hidden activity every 10 epochs, the outputs at three
epochs) and (b) ``"loop_async"``, the losses kept on the device until the run ends.
All train the same network from the same initial weights with the same maths, and
every measurement records how closely the loss curves agree.

Rates are *seed-epochs per second* in the steady state (compilation timed apart), on
``seed_epochs / seeds`` epochs per seed (clipped to ``[min_epochs, paper epochs]``), in
``rounds`` rounds in which the methods take turns; a method's rate is its fastest
round's.  The floor: one epoch's operations (:func:`flops_per_epoch`) over the
machine's float32 matmul rate (:func:`matmul_rate`, the fastest probe kept).  The
**batching efficiency** at ``S`` seeds: the time per seed at ``S`` seeds over that at
one seed.  Raw results go to ``book/stats/benchmark.json``, the headline numbers to
``book/results/performance.json``.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ...book.progress import report as _say
from ...core import datasets, engine, store
from ...core.checks import check_epochs, check_positive, check_positive_int, check_seeds

ROOT = Path(__file__).resolve().parents[3]
BENCHMARK_JSON = ROOT / "book" / "stats" / "benchmark.json"

METHODS = ("engine", "engine_one_device", "engine_vmap", "authors_loop", "loop_async")
METHOD_LABELS = {
    "engine": "engine (every device)",
    "engine_one_device": "engine, one device",
    "engine_vmap": "engine, one device, vmap over seeds",
    "authors_loop": "loop (a): as the authors' scripts",
    "loop_async": "loop (b): losses read at the end",
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

    def build(self):
        """``(net, X, Y)``: the network of :func:`helpers.core.engine.relu_network` and
        its task."""
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
    try:
        return NETWORKS[name]
    except KeyError:
        raise ValueError(
            f"unknown network {name!r}; choose from {sorted(NETWORKS)}"
        ) from None


def flops_per_epoch(sizes: Sequence[int], P: int) -> dict[str, int]:
    """Floating-point operations of one full-batch gradient step on ``P`` datapoints,
    matrix products only (``2 a b P`` for ``a x b`` times ``b x P``): forward every
    layer; backward every layer's weight gradient and the error of all but the first.
    """
    sizes = [int(s) for s in sizes]
    if len(sizes) < 2 or min(sizes) <= 0 or int(P) <= 0:
        raise ValueError(f"sizes (d, ..., p) and P must be positive, got {sizes}, {P}")
    mults = [a * b for a, b in zip(sizes[1:], sizes[:-1])]
    forward = 2 * int(P) * sum(mults)
    backward = 2 * int(P) * sum(mults) + 2 * int(P) * sum(mults[1:])
    return {"forward": forward, "backward": backward, "total": forward + backward}


def matmul_rate(n: int = 1024, repeats: int = 10) -> dict:
    """The machine's float32 matrix-multiply rate: the best of ``repeats`` timed
    ``n x n`` products (``2 n^3`` operations each) in jitted JAX, after a warm-up."""
    n = check_positive_int(n, "n")
    repeats = check_positive_int(repeats, "repeats")
    key_a, key_b = jax.random.split(jax.random.PRNGKey(0))
    A = jax.random.normal(key_a, (n, n), jnp.float32)
    B = jax.random.normal(key_b, (n, n), jnp.float32)
    mm = jax.jit(jnp.matmul)
    mm(A, B).block_until_ready()
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        mm(A, B).block_until_ready()
        best = min(best, time.perf_counter() - t0)
    return {
        "n": n,
        "repeats": repeats,
        "best_seconds": best,
        "flops_per_s": 2.0 * n**3 / best,
    }


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
    relu = net.kind == "relu"

    def hidden(params):
        h, hs = X, []
        for W in params[:-1]:
            h = W @ h
            if relu:
                h = jax.nn.relu(h)
            hs.append(h)
        return hs

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


@dataclass
class Timing:
    """A timed training: its loss curves ``(seeds, epochs + 1)``, the seconds of each
    timed round (compilation excluded) and the compile seconds; its rate is that of the
    fastest round."""

    method: str
    loss: np.ndarray
    rounds: list
    compile_seconds: float

    @property
    def seconds(self) -> float:
        return float(min(self.rounds))

    @property
    def seed_epochs_per_s(self) -> float:
        return self.loss.size / self.seconds

    @property
    def median_seed_epochs_per_s(self) -> float:
        return self.loss.size / float(np.median(self.rounds))


class _Method:
    """One way of training, split into ``compile`` (timed once) and ``run`` (timed per
    round); ``run`` returns the loss curves ``(seeds, epochs + 1)``."""

    def __init__(self, name, net, X, Y, lr, epochs, seeds, steps=None):
        if name not in METHODS:
            raise ValueError(f"unknown method {name!r}; choose from {METHODS}")
        self.name, self.net, self.X, self.Y, self.lr = name, net, X, Y, lr
        self.epochs = check_epochs(epochs)
        self.seeds = list(check_seeds(seeds))
        self.steps = steps

    def _engine(self):
        kw = {
            "engine_one_device": {"devices": 1},
            "engine_vmap": {"devices": 1, "batching": "vmap"},
        }.get(self.name, {})
        with store.disabled():  # timed: trained every time, never loaded
            return engine.train(
                self.net,
                self.X,
                self.Y,
                lr=self.lr,
                epochs=self.epochs,
                seeds=self.seeds,
                **kw,
            ).loss

    def compile(self) -> float:
        """Seconds of the first call, which compiles (for the engine: a whole run)."""
        t0 = time.perf_counter()
        if self.name.startswith("engine"):
            self._engine()
        else:
            if self.steps is None:
                self.steps = make_steps(self.net, self.X, self.Y, self.lr)
            p = self._start(self.seeds[0])
            for f in self.steps.values():
                jax.block_until_ready(f(p))
        return time.perf_counter() - t0

    def run(self) -> np.ndarray:
        if self.name.startswith("engine"):
            return self._engine()
        loss = np.empty((len(self.seeds), self.epochs + 1))
        st = self.steps
        keep_out = set(
            np.linspace(0, self.epochs, AUTHORS_OUTPUT_EPOCHS).astype(int).tolist()
        )
        for i, seed in enumerate(self.seeds):
            params = self._start(seed)
            if self.name == "authors_loop":  # (a): as the authors' scripts, per epoch
                for t in range(self.epochs + 1):
                    loss[i, t] = float(st["loss"](params))
                    if t % AUTHORS_HIDDEN_EVERY == 0:
                        jax.device_get(st["hidden"](params))
                    if t in keep_out:
                        jax.device_get(st["outputs"](params))
                    params = st["update"](params)
            else:  # (b): the losses stay on the device until the seed's run ends
                kept = []
                for t in range(self.epochs + 1):
                    params, L = st["step"](params)
                    kept.append(L)
                loss[i] = np.asarray(jax.device_get(kept), float)
        return loss

    def _start(self, seed):
        return [jnp.asarray(W, jnp.float32) for W in engine.init_params(self.net, seed)]


def time_method(
    method: str, net, X, Y, *, lr: float, epochs: int, seeds, rounds: int = 1
) -> Timing:
    """One method timed alone: a first call (compiles), then ``rounds`` timed calls."""
    m = _Method(method, net, X, Y, lr, epochs, seeds)
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
    bn = _network(network)
    cap = (
        bn.paper_epochs if max_epochs is None else min(int(max_epochs), bn.paper_epochs)
    )
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
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise ValueError(f"unknown methods {bad}; choose from {METHODS}")
    epochs = measure_epochs(network, seeds, seed_epochs, min_epochs, max_epochs)
    net, X, Y = bn.build()
    steps = make_steps(net, X, Y, bn.lr)
    todo = [
        _Method(m, net, X, Y, bn.lr, epochs, range(seeds), steps)
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
        rows.append(_row(bn, tm, (seeds, epochs, rounds), fl, diff))
    return rows


def _take_turns(todo: list, rounds: int, label: str) -> dict[str, Timing]:
    """Compile every method, then time ``rounds`` rounds in which they take turns (the
    order rotated each round)."""
    first, times, losses = {}, {m.name: [] for m in todo}, {}
    say(f"{label}: compiling")
    for m in todo:
        first[m.name] = m.compile()
    for k in range(rounds):
        order = todo[k % len(todo) :] + todo[: k % len(todo)]
        say(f"{label}: round {k + 1}/{rounds}")
        for m in order:
            t0 = time.perf_counter()
            losses[m.name] = m.run()
            times[m.name].append(time.perf_counter() - t0)
    out = {}
    for m in todo:
        comp = first[m.name]
        if m.name.startswith("engine"):  # the first call was a whole run
            comp = max(comp - min(times[m.name]), 0.0)
        out[m.name] = Timing(m.name, losses[m.name], times[m.name], comp)
    return out


def _row(bn: BenchNetwork, tm: Timing, config: tuple, fl: int, diff) -> dict:
    """One row of the benchmark: the timing ``tm`` of a method at ``config`` (seeds,
    epochs, rounds), ``fl`` operations per seed-epoch, ``diff`` from the engine."""
    seeds, epochs, rounds = config
    rate = tm.seed_epochs_per_s
    return {
        "network": bn.name,
        "method": tm.method,
        "seeds": seeds,
        "epochs_measured": epochs + 1,
        "rounds": rounds,
        "seconds": tm.seconds,
        "seconds_rounds": list(tm.rounds),
        "compile_seconds": tm.compile_seconds,
        "seed_epochs_per_s": rate,
        "seed_epochs_per_s_median": tm.median_seed_epochs_per_s,
        "flops_per_s": fl * rate,
        "paper_run_epochs": bn.paper_epochs + 1,
        "projected_paper_run_seconds": seeds * (bn.paper_epochs + 1) / rate,
        "max_rel_loss_diff_vs_engine": diff,
        "final_loss_mean": float(tm.loss[:, -1].mean()),
    }


def _derived(rows: list[dict], matmul_flops_per_s: float, flops: dict) -> dict:
    """Per network and seed count: the engine's fraction of the floor, its batching
    efficiency, and its speed-up over each loop."""
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


def _settings(networks, seeds, seed_epochs) -> tuple[dict, dict]:
    """``(seed_epochs, seeds)`` per network of :func:`run_benchmark`'s arguments."""
    if seed_epochs is None:
        seed_epochs = FULL_SEED_EPOCHS
    if not isinstance(seed_epochs, dict):
        seed_epochs = {n: int(seed_epochs) for n in networks}
    seed_epochs = {
        n: int(seed_epochs.get(n, FULL_SEED_EPOCHS.get(n, 0))) for n in networks
    }
    if any(v <= 0 for v in seed_epochs.values()):
        raise ValueError(
            f"seed_epochs must be positive for every network, got {seed_epochs}"
        )
    if not isinstance(seeds, dict):
        seeds = {n: list(seeds) for n in networks}
    for n in networks:
        _network(n)
        if not seeds.get(n):
            raise ValueError(f"no seed counts given for network {n!r}")
    return seed_epochs, seeds


def _machine(load_before) -> dict:
    """The machine a benchmark ran on, with the load average before and now."""
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
    seed_epochs, seeds = _settings(networks, seeds, seed_epochs)
    started = _dt.datetime.now(_dt.timezone.utc)
    load_before = os.getloadavg()
    t_start = time.perf_counter()
    say("timing a large matrix multiply")
    probes = [matmul_rate(matmul_n)]
    rows, flops = [], {}
    opts = dict(methods=methods, min_epochs=min_epochs, max_epochs=max_epochs)
    for n in networks:
        flops[n] = flops_per_epoch(NETWORKS[n].sizes, 8 * len(NETWORKS[n].structures))
        for s in seeds[n]:
            rows += measure(
                n, int(s), seed_epochs=seed_epochs[n], rounds=rounds, **opts
            )
            probes.append(matmul_rate(matmul_n))
    mm = dict(max(probes, key=lambda p: p["flops_per_s"]))
    mm["probes_flops_per_s"] = [p["flops_per_s"] for p in probes]
    for r in rows:
        r["fraction_of_floor"] = r["flops_per_s"] / mm["flops_per_s"]
    return {
        "label": label,
        "started_utc": started.isoformat(timespec="seconds"),
        "wall_seconds": time.perf_counter() - t_start,
        "machine": _machine(load_before),
        "settings": {
            "networks": list(networks),
            "seeds": {n: [int(s) for s in seeds[n]] for n in networks},
            "seed_epochs": seed_epochs,
            "min_epochs": int(min_epochs),
            "max_epochs": max_epochs,
            "rounds": int(rounds),
            "methods": list(methods),
        },
        "networks": {
            n: {
                "label": NETWORKS[n].label,
                "sizes": list(NETWORKS[n].sizes),
                "init_std": NETWORKS[n].init_std,
                "lr": NETWORKS[n].lr,
                "paper_epochs": NETWORKS[n].paper_epochs + 1,
                "paper_seeds": NETWORKS[n].paper_seeds,
            }
            for n in networks
        },
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
    lines = []
    for r in bench["rows"]:
        d = r["max_rel_loss_diff_vs_engine"]
        lines.append(
            f"{r['network']:9s} {r['method']:18s} {r['seeds']:3d} seeds x "
            f"{r['epochs_measured']:5d} "
            f"epochs: {r['seed_epochs_per_s']:8.0f} seed-epochs/s, "
            f"{r['fraction_of_floor']:.2f} of the "
            f"floor (compile {r['compile_seconds']:.2f} s; loss vs engine {d:.1e})"
        )
    for k, by in bench["derived"].items():
        for net, v in by.items():
            lines.append(
                f"{k} {net}: " + ", ".join(f"{s} seeds {x:.2f}" for s, x in v.items())
            )
    lines.append(
        f"matmul rate {bench['matmul']['flops_per_s'] / 1e9:.1f} GFLOP/s "
        f"(n = {bench['matmul']['n']}); load average "
        f"{bench['machine']['load_average_before']}"
    )
    return "\n".join(lines)
