"""Performance benchmark of the training engine and of the whole book (``book/performance.md``).

    python -m helpers.chapters.performance            # the full benchmark (several minutes)
    python -m helpers.chapters.performance --quick    # the reduced one the Performance page runs

It times :func:`helpers.core.engine.train` (``jit`` + ``lax.scan`` over epochs + ``vmap``
over seeds) against two baselines written the way research scripts usually train, one
seed after another around a jitted update step:

* loop (a), ``"loop_sync"``: a Python loop over epochs, the loss read back to the host
  (``float(loss)``) every epoch;
* loop (b), ``"loop_async"``: the same loop, the losses read back only at the end.

Both baselines train the same network from the same initial weights
(:func:`helpers.core.engine.init_params`) with the same maths (full-batch gradient descent on
the summed loss, [conv-data], float32) and return the same loss curve as the engine; every
measurement records how closely they agree (and warns when they do not).  A fourth line,
``"engine_seedwise"``, calls the engine once per seed (the scan without the ``vmap``),
to separate what each of the two buys.  The networks are the two ReLU networks of [conv-constants]:
the Section 4 network (11-700-60 on the hierarchy/ring/cross task) and the depth network
of Section 6 (11-420-420-60 on the all-hierarchy task).

Rates are *seed-epochs per second* (one gradient step of one seed), measured in the
steady state: compilation is timed separately and excluded.  A configuration is measured
on ``seed_epochs / seeds`` epochs per seed (at least ``min_epochs``, at most the paper's
count), in ``rounds`` rounds in which the methods take turns; each method's rate is
that of its fastest round (on a shared machine, the least disturbed one).  Its full
paper-scale time is projected as ``seeds x (paper epochs + 1) / rate``.

The floor: the floating-point operations of one epoch are counted analytically
(:func:`flops_per_epoch`) and divided by the machine's measured rate on one large
float32 matrix multiply (:func:`matmul_rate`, probed between the configurations, the
fastest probe kept).

The raw results go to ``book/stats/benchmark.json``; the headline numbers to
``book/results/performance.json`` (:func:`records`), together with each chapter's
execution time read from ``book/stats/execution.json`` (written by ``helpers.book``).
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ..core import datasets, engine
from ..book.progress import report
from ..book.records import Records
from ..core.checks import check_seeds, check_epochs, check_positive_int, check_positive

__all__ = [
    "BenchNetwork",
    "NETWORKS",
    "METHODS",
    "BENCHMARK_JSON",
    "EXECUTION_JSON",
    "flops_per_epoch",
    "matmul_rate",
    "make_update",
    "loop_baseline",
    "time_engine",
    "time_engine_seedwise",
    "measure_epochs",
    "FULL_SEED_EPOCHS",
    "QUICK_SEED_EPOCHS",
    "measure",
    "run_benchmark",
    "chapter_times",
    "records",
    "book_chapter_seconds",
    "summary_text",
    "load_benchmark",
    "main",
]

ROOT = Path(__file__).resolve().parents[2]
BENCHMARK_JSON = ROOT / "book" / "stats" / "benchmark.json"
EXECUTION_JSON = ROOT / "book" / "stats" / "execution.json"

# The three ways of training that are compared, in the order tables show them.
METHODS = ("engine", "engine_seedwise", "loop_sync", "loop_async")
METHOD_LABELS = {
    "engine": "engine (scan + vmap)",
    "engine_seedwise": "engine, one seed per call (scan, no vmap)",
    "loop_sync": "loop (a): loss read every epoch",
    "loop_async": "loop (b): loss read at the end",
}

# The figure we were given for the authors' own scripts on this machine: 24 s for one
# 8001-epoch Section 4 run (quoted, not measured here).
AUTHORS_SECONDS_PER_RUN = 24.0


# Seed-epochs per configuration and round of the full benchmark (at least 100 and at most
# the paper's epochs per seed): about 10 s per method and round on a 2-core machine.
FULL_SEED_EPOCHS = {"section4": 24000, "depth": 6000}
QUICK_SEED_EPOCHS = {"section4": 2000, "depth": 500}

# Largest relative difference between a baseline's loss curve and the engine's that still
# counts as the same training (float32 sums in a different order differ by ~1e-6).
AGREEMENT_RTOL = 1e-4

def _progress(msg: str) -> None:
    """Progress lines through helpers.book.progress (under helpers.book: the build's log file)."""
    report(f"benchmark: {msg}")


@dataclass(frozen=True)
class BenchNetwork:
    """A benchmarked ReLU network with its task and paper-scale run ([conv-constants])."""

    name: str
    label: str
    sizes: tuple[int, ...]
    init_std: float
    lr: float
    structures: tuple[str, ...]
    paper_epochs: int  # gradient steps after the initial loss: a run has paper_epochs + 1 steps
    paper_seeds: int

    def build(self):
        """``(net, X, Y)``: the network of :func:`helpers.core.engine.relu_network` and its task."""
        ds = datasets.contextual_task(len(self.structures), list(self.structures))
        net = engine.relu_network(self.sizes, self.init_std)
        return net, ds.X, ds.Y


NETWORKS = {
    "section4": BenchNetwork(
        name="section4",
        label="Section 4 ReLU 11-700-60",
        sizes=(11, 700, 60),
        init_std=0.005 / 700,
        lr=1e-3,
        structures=("hierarchy", "ring", "cross"),
        paper_epochs=8000,
        paper_seeds=10,
    ),
    "depth": BenchNetwork(
        name="depth",
        label="Section 6 ReLU 11-420-420-60",
        sizes=(11, 420, 420, 60),
        init_std=0.0006,
        lr=1e-3,
        structures=("hierarchy", "hierarchy", "hierarchy"),
        paper_epochs=30000,
        paper_seeds=99,
    ),
}


def _network(name: str) -> BenchNetwork:
    try:
        return NETWORKS[name]
    except KeyError:
        raise ValueError(f"unknown network {name!r}; choose from {sorted(NETWORKS)}") from None


# --------------------------------------------------------------------------- the floor


def flops_per_epoch(sizes: Sequence[int], P: int) -> dict[str, int]:
    """Floating-point operations of one full-batch gradient step (matrix products only).

    For ``sizes = (n_0, ..., n_L)`` and ``P`` datapoints, a product of an ``a x b`` and a
    ``b x P`` matrix costs ``2 a b P``.  Forward: ``W_l h_{l-1}`` for every layer.
    Backward: the weight gradient ``delta_l h_{l-1}^T`` for every layer and the
    back-propagated error ``W_l^T delta_l`` for every layer but the first (the inputs
    need no gradient).  Element-wise work (ReLU, gates, update) is left out: it is
    O(units x P), small beside the products.
    """
    sizes = [int(s) for s in sizes]
    if len(sizes) < 2 or any(s <= 0 for s in sizes):
        raise ValueError(f"sizes must be (d, ..., p) with positive entries, got {sizes}")
    if int(P) <= 0:
        raise ValueError(f"P (datapoints) must be positive, got {P}")
    mults = [a * b for a, b in zip(sizes[1:], sizes[:-1])]
    forward = 2 * int(P) * sum(mults)
    weight_grads = 2 * int(P) * sum(mults)
    error_backprop = 2 * int(P) * sum(mults[1:])
    return {
        "forward": forward,
        "backward": weight_grads + error_backprop,
        "total": forward + weight_grads + error_backprop,
    }


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
    return {"n": n, "repeats": repeats, "best_seconds": best, "flops_per_s": 2.0 * n**3 / best}


# ----------------------------------------------------------------------- the baselines


def make_update(net: engine.GatedNetwork, X, Y, lr: float):
    """One jitted full-batch gradient step ``params -> (params, loss)``, as a research
    script writes it: ``h = relu(W h)`` layer by layer, ``yhat = W_L h``, the summed
    loss ``L = 1/2 ||Y - yhat||^2`` ([conv-data], Eq. 2) and ``W <- W - lr dL/dW``.  The loss
    is the one before the update (as the engine reports it).  Plain ReLU and linear
    networks only (what :func:`helpers.core.engine.relu_network` / ``linear_network`` build).
    """
    if not isinstance(net, engine.GatedNetwork) or net.kind not in ("relu", "linear"):
        raise ValueError(
            "the loop baselines train plain ReLU or linear networks (engine.relu_network / "
            f"engine.linear_network), got kind={getattr(net, 'kind', type(net).__name__)!r}"
        )
    lr = check_positive(lr, "lr")
    X = jnp.asarray(X, jnp.float32)
    Y = jnp.asarray(Y, jnp.float32)
    if X.shape[0] != net.sizes[0] or Y.shape[0] != net.sizes[-1] or X.shape[1] != Y.shape[1]:
        raise ValueError(f"the network maps {net.sizes[0]} -> {net.sizes[-1]}; got X {X.shape}, Y {Y.shape}")
    relu = net.kind == "relu"

    def loss_fn(params):
        h = X
        for W in params[:-1]:
            h = W @ h
            if relu:
                h = jax.nn.relu(h)
        return 0.5 * jnp.sum((Y - params[-1] @ h) ** 2)

    @jax.jit
    def update(params):
        loss, grads = jax.value_and_grad(loss_fn)(params)
        return [W - lr * G for W, G in zip(params, grads)], loss

    return update


@dataclass
class Timing:
    """A timed training: its loss curves ``(seeds, epochs + 1)``, the seconds of each
    timed round (compilation excluded) and the compile seconds.  Its rate is that of
    the fastest round: on a shared machine the least disturbed one."""

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
    """One way of training, split into ``compile`` (timed, once) and ``run`` (timed, per
    round); ``run`` returns the loss curves ``(seeds, epochs + 1)``."""

    def __init__(self, name, net, X, Y, lr, epochs, seeds, update=None):
        if name not in METHODS:
            raise ValueError(f"unknown method {name!r}; choose from {METHODS}")
        self.name, self.net, self.X, self.Y, self.lr = name, net, X, Y, lr
        self.epochs = check_epochs(epochs)
        self.seeds = list(check_seeds(seeds))
        self.update = update

    def _train(self, seeds):
        return engine.train(self.net, self.X, self.Y, lr=self.lr, epochs=self.epochs, seeds=seeds).loss

    def compile(self) -> float:
        """Seconds of the first call, which compiles (for the engine: a whole run)."""
        t0 = time.perf_counter()
        if self.name == "engine":
            self._train(self.seeds)
        elif self.name == "engine_seedwise":
            self._train(self.seeds[:1])
        else:
            if self.update is None:
                self.update = make_update(self.net, self.X, self.Y, self.lr)
            warm = [jnp.asarray(W, jnp.float32) for W in engine.init_params(self.net, self.seeds[0])]
            jax.block_until_ready(self.update(warm))
        return time.perf_counter() - t0

    def run(self) -> np.ndarray:
        if self.name == "engine":
            return self._train(self.seeds)
        if self.name == "engine_seedwise":
            return np.concatenate([self._train([s]) for s in self.seeds])
        loss = np.empty((len(self.seeds), self.epochs + 1))
        update = self.update
        for i, seed in enumerate(self.seeds):
            params = [jnp.asarray(W, jnp.float32) for W in engine.init_params(self.net, seed)]
            if self.name == "loop_sync":  # (a): the loss to the host every epoch
                for t in range(self.epochs + 1):
                    params, L = update(params)
                    loss[i, t] = float(L)
            else:  # (b): the losses stay on the device until the seed's run ends
                kept = []
                for t in range(self.epochs + 1):
                    params, L = update(params)
                    kept.append(L)
                loss[i] = np.asarray(jax.device_get(kept), float)
        return loss

    def timed_run(self) -> tuple[np.ndarray, float]:
        t0 = time.perf_counter()
        loss = self.run()
        return loss, time.perf_counter() - t0


def _time(method: _Method, rounds: int) -> Timing:
    first = method.compile()
    times = []
    for _ in range(check_positive_int(rounds, "rounds")):
        loss, sec = method.timed_run()
        times.append(sec)
    # the engine's first call also ran the training: its excess over a run is compilation
    comp = max(first - min(times), 0.0) if method.name == "engine" else (
        max(first - min(times) / len(method.seeds), 0.0) if method.name == "engine_seedwise" else first)
    return Timing(method.name, loss, times, comp)


def loop_baseline(net, X, Y, *, lr: float, epochs: int, seeds: Sequence[int], read_every_epoch: bool = True,
                  update=None, rounds: int = 1) -> Timing:
    """Baseline (a) (``read_every_epoch=True``) or (b): one seed after another, a Python
    loop of ``epochs + 1`` calls of the jitted :func:`make_update` (the loss at epochs
    ``0..epochs``, like the engine).  (a) reads each loss back with ``float`` as it comes;
    (b) keeps them on the device and reads them back when the seed's run ends.  The first
    call (compilation) is made and timed before the clock starts.
    """
    m = _Method("loop_sync" if read_every_epoch else "loop_async", net, X, Y, lr, epochs, seeds, update)
    return _time(m, rounds)


def time_engine(net, X, Y, *, lr: float, epochs: int, seeds: Sequence[int], rounds: int = 1) -> Timing:
    """:func:`helpers.core.engine.train` timed: a first call (compilation and run), then
    ``rounds`` identical calls; compile time is the first call's excess over the fastest."""
    return _time(_Method("engine", net, X, Y, lr, epochs, seeds), rounds)


def time_engine_seedwise(net, X, Y, *, lr: float, epochs: int, seeds: Sequence[int], rounds: int = 1) -> Timing:
    """:func:`helpers.core.engine.train` called once per seed (its ``scan`` without the
    ``vmap``): a first call on the first seed compiles, then every seed is timed."""
    return _time(_Method("engine_seedwise", net, X, Y, lr, epochs, seeds), rounds)


def _max_rel_diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-30)))


def measure_epochs(network: str, seeds: int, seed_epochs: int, min_epochs: int = 100,
                   max_epochs: int | None = None) -> int:
    """Epochs per seed a configuration is measured on: ``seed_epochs / seeds`` clipped
    to ``[min_epochs, max_epochs or the paper's epochs]``."""
    bn = _network(network)
    cap = bn.paper_epochs if max_epochs is None else min(int(max_epochs), bn.paper_epochs)
    return int(np.clip(round(seed_epochs / seeds), min(min_epochs, cap), cap))


def measure(network: str, seeds: int, *, methods: Sequence[str] = METHODS, seed_epochs: int = 24000,
            min_epochs: int = 100, max_epochs: int | None = None, rounds: int = 3) -> list[dict]:
    """Time every method on one network with ``seeds`` seeds (0 .. seeds-1).

    Each method trains the same :func:`measure_epochs` epochs per seed from the same
    initial weights, ``rounds`` times, the methods taking turns (round 1 of every
    method, then round 2, ..., the order rotated each round) so that a busy spell of the
    machine falls on all of them; the rate is that of each method's fastest round.
    Returns one row per method: seconds, compile seconds, seed-epochs per second (best
    and median round), the projected time of the paper-scale run (``seeds x`` the
    paper's epochs) at that rate, and the largest relative difference of its loss
    curves from the engine's (they must agree: same init, same maths).
    ``engine_seedwise`` is skipped for one seed (it is then the engine).
    """
    bn = _network(network)
    seeds = check_positive_int(seeds, "seeds")
    rounds = check_positive_int(rounds, "rounds")
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise ValueError(f"unknown methods {bad}; choose from {METHODS}")
    epochs = measure_epochs(network, seeds, seed_epochs, min_epochs, max_epochs)
    net, X, Y = bn.build()
    update = make_update(net, X, Y, bn.lr)
    todo = [_Method(m, net, X, Y, bn.lr, epochs, range(seeds), update) for m in methods
            if not (m == "engine_seedwise" and seeds == 1)]
    first, times, losses = {}, {m.name: [] for m in todo}, {}
    _progress(f"{network}, {seeds} seeds x {epochs + 1} epochs: compiling")
    for m in todo:
        first[m.name] = m.compile()
    for k in range(rounds):
        order = todo[k % len(todo):] + todo[:k % len(todo)]
        _progress(f"{network}, {seeds} seeds x {epochs + 1} epochs: round {k + 1}/{rounds} "
                  f"({', '.join(m.name for m in order)})")
        for m in order:
            losses[m.name], sec = m.timed_run()
            times[m.name].append(sec)
    timings = {}
    for m in todo:
        best = min(times[m.name])
        comp = {"engine": max(first[m.name] - best, 0.0),
                "engine_seedwise": max(first[m.name] - best / seeds, 0.0)}.get(m.name, first[m.name])
        timings[m.name] = Timing(m.name, losses[m.name], times[m.name], comp)
    ref = timings.get("engine")
    if ref is not None:
        for name, tm in timings.items():
            d = _max_rel_diff(tm.loss, ref.loss)
            if d > AGREEMENT_RTOL:
                _progress(f"WARNING: {name} disagrees with the engine on {network}, {seeds} seeds: relative loss "
                          f"difference {d:.2e} > {AGREEMENT_RTOL:g}; the comparison is not like for like")
    fl = flops_per_epoch(bn.sizes, X.shape[1])["total"]
    rows = []
    for name, tm in timings.items():
        rate = tm.seed_epochs_per_s
        rows.append({
            "network": network,
            "method": name,
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
            "max_rel_loss_diff_vs_engine": None if ref is None else _max_rel_diff(tm.loss, ref.loss),
            "final_loss_mean": float(tm.loss[:, -1].mean()),
        })
    return rows


def _speedups(rows: list[dict], floor_rate: dict[str, float] | None = None) -> dict:
    """``{network: {seeds: {"vs_loop_sync": x, "vs_loop_async": y, "ceiling_vs_loop_sync": z}}}``.

    The ceiling is the speedup over loop (a) of a run at the matmul-rate floor: no
    implementation of the same dense float32 maths can beat it on this machine.
    """
    rate = {(r["network"], r["method"], r["seeds"]): r["seed_epochs_per_s"] for r in rows}
    out: dict = {}
    for (net, m, s), v in rate.items():
        if m != "engine":
            continue
        d = out.setdefault(net, {}).setdefault(str(s), {})
        for base in ("loop_sync", "loop_async"):
            if (net, base, s) in rate:
                d[f"vs_{base}"] = v / rate[(net, base, s)]
        if (net, "engine_seedwise", s) in rate:
            d["seedwise_vs_loop_sync"] = rate[(net, "engine_seedwise", s)] / rate[(net, "loop_sync", s)] \
                if (net, "loop_sync", s) in rate else None
        if floor_rate and (net, "loop_sync", s) in rate:
            d["ceiling_vs_loop_sync"] = floor_rate[net] / rate[(net, "loop_sync", s)]
    return out


def run_benchmark(networks: Sequence[str] = ("section4", "depth"), seeds: Sequence[int] | dict = (1, 8, 64), *,
                  seed_epochs: dict[str, int] | int | None = None, min_epochs: int = 100,
                  max_epochs: int | None = None, rounds: int = 3, matmul_n: int = 1024,
                  methods: Sequence[str] = METHODS, label: str = "full") -> dict:
    """The whole benchmark as one JSON-ready dict: machine, floor, rows, speedups.

    ``seeds``: seed counts for every network, or a dict of them per network.
    ``seed_epochs``: seed-epochs each configuration trains per round (per network, or
    one for all); with the defaults (:data:`FULL_SEED_EPOCHS`, 3 rounds) the benchmark
    takes several minutes.
    """
    defaults = FULL_SEED_EPOCHS
    if seed_epochs is None:
        seed_epochs = defaults
    if not isinstance(seed_epochs, dict):
        seed_epochs = {n: int(seed_epochs) for n in networks}
    seed_epochs = {n: int(seed_epochs[n] if n in seed_epochs else defaults.get(n, 0)) for n in networks}
    if any(v <= 0 for v in seed_epochs.values()):
        raise ValueError(f"seed_epochs must be positive for every network, got {seed_epochs}")
    if not isinstance(seeds, dict):
        seeds = {n: list(seeds) for n in networks}
    for n in networks:
        _network(n)
        if not seeds.get(n):
            raise ValueError(f"no seed counts given for network {n!r}")
    started = _dt.datetime.now(_dt.timezone.utc)
    load_before = os.getloadavg()
    t_start = time.perf_counter()
    _progress("timing a large matrix multiply")
    # The matmul rate is probed before, between and after the configurations and the
    # fastest probe is the machine's rate: on a shared machine a single probe can land
    # in a busy moment.
    probes = [matmul_rate(matmul_n)]
    rows = []
    flops = {}
    for n in networks:
        bn = NETWORKS[n]
        flops[n] = flops_per_epoch(bn.sizes, 8 * len(bn.structures))
        for s in seeds[n]:
            rows.extend(measure(n, int(s), methods=methods, seed_epochs=seed_epochs[n],
                                min_epochs=min_epochs, max_epochs=max_epochs, rounds=rounds))
            probes.append(matmul_rate(matmul_n))
    mm = dict(max(probes, key=lambda p: p["flops_per_s"]))
    mm["probes_flops_per_s"] = [p["flops_per_s"] for p in probes]
    for r in rows:
        r["fraction_of_matmul_peak"] = r["flops_per_s"] / mm["flops_per_s"]
    floor_rate = {n: mm["flops_per_s"] / flops[n]["total"] for n in networks}
    return {
        "label": label,
        "started_utc": started.isoformat(timespec="seconds"),
        "wall_seconds": time.perf_counter() - t_start,
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "python": platform.python_version(),
            "jax": jax.__version__,
            "backend": jax.default_backend(),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        },
        "settings": {
            "networks": list(networks),
            "seeds": {n: [int(s) for s in seeds[n]] for n in networks},
            "seed_epochs": seed_epochs,
            "min_epochs": int(min_epochs),
            "max_epochs": max_epochs,
            "rounds": int(rounds),
            "methods": list(methods),
        },
        "networks": {n: {"label": NETWORKS[n].label, "sizes": list(NETWORKS[n].sizes),
                         "init_std": NETWORKS[n].init_std, "lr": NETWORKS[n].lr,
                         "paper_epochs": NETWORKS[n].paper_epochs + 1, "paper_seeds": NETWORKS[n].paper_seeds}
                     for n in networks},
        "matmul": mm,
        "flops_per_epoch": flops,
        "floor_seed_epochs_per_s": floor_rate,
        "rows": rows,
        "speedups": _speedups(rows, floor_rate),
    }


# ---------------------------------------------------------------------- book and records


def chapter_times(path: Path | str = EXECUTION_JSON, profile: str = "default") -> dict | None:
    """Each chapter's execution seconds with default parameters, as ``helpers.book``
    recorded them in ``book/stats/execution.json`` (``None`` when the file is missing)."""
    path = Path(path)
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    return {"seconds": dict(data.get("profiles", {}).get(profile, {})), "machine": data.get("machine", {})}


def load_benchmark(path: Path | str = BENCHMARK_JSON) -> dict | None:
    path = Path(path)
    return json.loads(path.read_text()) if path.exists() else None


def _row(bench: dict, network: str, method: str, seeds: int) -> dict | None:
    for r in bench["rows"]:
        if (r["network"], r["method"], r["seeds"]) == (network, method, seeds):
            return r
    return None


def records(bench: dict, chapter_seconds: dict[str, float] | None, chapters: Sequence[str] | None = None,
            source: str = "", directory=None) -> Records:
    """The Performance records from a benchmark dict and the chapter times.

    ``speedup_vs_loop_<n>seed(s)``: engine / loop (a) rates on the Section 4 network;
    ``speedup_ceiling_vs_loop_8seeds``: the same ratio for a run at the matmul floor;
    ``fraction_of_matmul_peak``: the engine's operation rate at 8 seeds on the Section 4
    network over the measured matmul rate; ``chapter_seconds`` / ``book_total_seconds``:
    the chapters' execution times (``chapters`` lists those expected; missing ones are
    named in the note).  Targets get the verdict ``target met`` / ``target
    missed``; the rest ``measured``.  Every record is marked ``timing``.
    """
    rec = Records("performance", directory)
    sp = bench["speedups"].get("section4", {})
    m = bench["machine"]
    where = (f"From {source or 'a benchmark run'} started {bench['started_utc']} on {m['cpus']} CPUs, "
             f"load average {m['load_average_before'][0]} before / {m['load_average_after'][0]} after.")
    for n, name in ((1, "speedup_vs_loop_1seed"), (8, "speedup_vs_loop_8seeds"), (64, "speedup_vs_loop_64seeds")):
        v = sp.get(str(n), {}).get("vs_loop_sync")
        if v is None:
            continue
        kw = {}
        if n == 8:
            kw = dict(paper=10, verdict_="target met" if v >= 10 else "target missed")
        rec.add(name, v, note=f"engine / loop (a) in seed-epochs per second, Section 4 ReLU network, {n} seed(s)"
                              + ("; target >= 10" if n == 8 else "") + f". {where}",
                figure="fig-performance-rates", **kw)
    ceiling = sp.get("8", {}).get("ceiling_vs_loop_sync")
    if ceiling is not None:
        rec.add("speedup_ceiling_vs_loop_8seeds", ceiling,
                note="(matmul rate / operations per epoch) / loop (a) rate: the largest speedup over loop (a) that "
                     f"any implementation of the same dense float32 maths could reach on this machine. {where}")
    r8 = _row(bench, "section4", "engine", 8)
    if r8 is not None:
        rec.add("fraction_of_matmul_peak", r8["fraction_of_matmul_peak"],
                note="the engine's matrix-product operations per second (Section 4 network, 8 seeds) over the rate "
                     f"of one {bench['matmul']['n']}x{bench['matmul']['n']} float32 matmul. {where}")
        rec.add("speedup_vs_authors_quoted_8seeds", r8["seed_epochs_per_s"] * AUTHORS_SECONDS_PER_RUN
                / (NETWORKS["section4"].paper_epochs + 1),
                note=f"engine at 8 seeds against the {AUTHORS_SECONDS_PER_RUN:.0f} s per 8001-epoch run quoted "
                     f"for the authors' scripts (quoted, not measured here). {where}")
    rec.add("speedups", {net: {s: {k: v for k, v in d.items() if k in ("vs_loop_sync", "vs_loop_async")}
                               for s, d in by.items()} for net, by in bench["speedups"].items()},
            note=f"engine / loop (a) and engine / loop (b), per network and seed count. {where}")
    if chapter_seconds is not None:
        missing = [c for c in (chapters or []) if c not in chapter_seconds]
        total = float(sum(chapter_seconds.values()))
        note = "execution seconds of each chapter with default parameters (book/stats/execution.json)"
        if missing:
            note += f"; no time recorded for {missing}"
        rec.add("chapter_seconds", {k: round(float(v), 1) for k, v in chapter_seconds.items()}, note=note,
                figure="fig-performance-book")
        verdict_ = "target missed" if total > 600 else ("target met" if not missing else "incomplete")
        rec.add("book_total_seconds", total, paper=600, verdict_=verdict_, figure="fig-performance-book",
                note="sum of chapter_seconds; target <= 600 s on the 2-core machine"
                     + (f"; incomplete: no time for {missing}" if missing else ""))
    for r in rec.items.values():  # every record here is a measured time or a ratio of times
        r["timing"] = True
    return rec


def book_chapter_seconds(own: dict[str, float] | None = None, path: Path | str = EXECUTION_JSON):
    """``(seconds per chapter, chapters expected)``: the times in ``execution.json`` of the
    chapters present in ``book/`` (``helpers.book.CHAPTERS`` with a ``.md``), updated
    with ``own`` (e.g. the running page's own time).  ``None`` seconds when the file is
    missing and ``own`` is empty."""
    from ..book.build import chapters_present

    present = chapters_present()
    times = chapter_times(path)
    if times is None and not own:
        return None, present
    seconds = {c: float(times["seconds"][c]) for c in present if times and c in times["seconds"]}
    seconds.update(own or {})
    return {c: seconds[c] for c in present if c in seconds}, present


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m helpers.chapters.performance", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--networks", nargs="+", default=["section4", "depth"], choices=sorted(NETWORKS))
    ap.add_argument("--seeds", nargs="+", type=int, default=None, help="seed counts (default 1 8 64)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help=f"multiply the seed-epochs per configuration and round {FULL_SEED_EPOCHS}")
    ap.add_argument("--min-epochs", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=None,
                    help="timed rounds per method, interleaved; the fastest counts (default 3, --quick 2)")
    ap.add_argument("--quick", action="store_true",
                    help=f"the reduced benchmark the Performance page runs by default ({QUICK_SEED_EPOCHS} "
                         "seed-epochs, 2 rounds, 1 and 8 seeds for Section 4, 1 for depth, at least 50 epochs; "
                         "no records written)")
    ap.add_argument("--out", type=Path, default=None, help=f"results JSON (default {BENCHMARK_JSON}; "
                                                            "--quick: _build/benchmark_quick.json)")
    ap.add_argument("--no-records", action="store_true", help="do not write book/results/performance.json")
    args = ap.parse_args(argv)
    if args.scale <= 0:
        raise SystemExit("--scale must be positive")
    if args.quick:
        base = QUICK_SEED_EPOCHS
        seeds = {"section4": args.seeds or [1, 8], "depth": args.seeds or [1]}
        min_epochs = min(args.min_epochs, 50)
        out = args.out or ROOT / "_build" / "benchmark_quick.json"
    else:
        base = FULL_SEED_EPOCHS
        seeds = {n: args.seeds or [1, 8, 64] for n in args.networks}
        min_epochs = args.min_epochs
        out = args.out or BENCHMARK_JSON
    seeds = {n: seeds[n] for n in args.networks}
    seed_epochs = {n: max(1, int(round(base[n] * args.scale))) for n in args.networks}
    bench = run_benchmark(args.networks, seeds, seed_epochs=seed_epochs, min_epochs=min_epochs,
                          rounds=args.rounds or (2 if args.quick else 3), label="quick" if args.quick else "full")
    bench["command"] = " ".join(["python -m helpers.chapters.performance", *(argv if argv is not None else sys.argv[1:])])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(bench, indent=2, sort_keys=True) + "\n")
    _progress(f"wrote {out}")
    print(summary_text(bench))
    if not args.no_records and not args.quick:
        secs, present = book_chapter_seconds()
        try:
            where = str(out.resolve().relative_to(ROOT))
        except ValueError:
            where = str(out)
        rec = records(bench, secs, chapters=present, source=where)
        _progress(f"wrote {rec.save()}")


def summary_text(bench: dict) -> str:
    """The benchmark's rows and ratios as plain text."""
    lines = []
    for r in bench["rows"]:
        d = r["max_rel_loss_diff_vs_engine"]
        lines.append(f"{r['network']:9s} {r['method']:16s} {r['seeds']:3d} seeds x {r['epochs_measured']:5d} epochs: "
                     f"{r['seed_epochs_per_s']:8.0f} seed-epochs/s, {r['fraction_of_matmul_peak']:.2f} of matmul rate "
                     f"(compile {r['compile_seconds']:.2f} s; paper-scale run {r['projected_paper_run_seconds']:.0f} s; "
                     f"loss vs engine {d:.1e})")
    for net, by in bench["speedups"].items():
        for s, v in by.items():
            lines.append(f"speedup {net}, {s} seeds: " + ", ".join(f"{k} {x:.2f}x" for k, x in v.items() if x is not None))
    lines.append(f"matmul rate {bench['matmul']['flops_per_s'] / 1e9:.1f} GFLOP/s "
                 f"(n = {bench['matmul']['n']}); load average {bench['machine']['load_average_before']}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
