"""The book's engine at the settings of the authors' scripts (page *Against the
authors' code*, ``book/authors_code.md``): each experiment's setup, the scripts' stored
curves (:mod:`helpers.book.crosscheck`) beside the engine's, compared.

Every setting below is a fact of the script named beside it
(CAandL-Lab/make-haste-slowly at b7d6e41).  A script stores the loss *after* each
update, the engine before it (:func:`align`).  The two draw their weights from
different generators, so their runs compare as two seeds do (:mod:`.run_for_run`
removes that difference).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from ...book import crosscheck, progress
from ...core.datasets import Dataset, context_gate, contextual_task
from ...core.engine import GatedNetwork, Pathway, deep_gdln, gdln, relu_network, train
from .comparison import (
    Comparison,
    compare,
    cross_gaps,
    gap_matrix,
    pair_spread,
    subset_spreads,
)

EXPERIMENTS = tuple(crosscheck.EXPERIMENTS)
LR = 0.001  # step_size in every script
N_ITEMS = 8


@dataclass(frozen=True)
class Setup:
    """One experiment at the authors' settings: data, networks, step size, updates."""

    name: str
    ds: Dataset
    relu: GatedNetwork
    gdln: GatedNetwork
    lr: float
    epochs: int
    where: str


def _task(C: int, structures=None, context_scale: float = 1.0) -> Dataset:
    """``contextual_task``, its context inputs scaled (``gen_data4``: 1.1, 5: 1.35)."""
    ds = contextual_task(C, structures)
    X = ds.X.copy()
    X[N_ITEMS:] *= context_scale
    name = ds.name + (f", context inputs x {context_scale:g}" * (context_scale != 1))
    return replace(ds, name=name, X=X)


def _reln(ds: Dataset, sets, std_common: float, std_context: float, width=100):
    """Common pathway (all inputs) plus one pathway per set of contexts (item inputs
    only), ``width`` units each, trained one-way as the scripts' ``update_gated``."""
    items, ctx = list(range(N_ITEMS)), (std_context,) * 2
    pws = [Pathway("common", width, None, None, (std_common,) * 2, common=True)]
    pws += [Pathway(_label(s), width, context_gate(ds, s), items, ctx) for s in sets]
    return gdln(ds.X.shape[0], ds.Y.shape[0], ds.P, pws, coupling="one-way")


def _label(contexts) -> str:
    return "ctx" + "".join(str(c + 1) for c in contexts)


def _setup_three(name: str) -> Setup:
    # 3_context_diff/{relu,gdln}.py, diff_context_num/{relu3,gdln3}.py: 700 ReLU
    # units at std 0.005/700; GDLN: common + three single-context + three 2-of-3
    # pathways of 100 units, std 10 and 20 x 0.0005/700; 8001 updates.
    s4 = name == "section4"
    ds = _task(3, ["hierarchy", "ring", "cross"] if s4 else None)
    b = 0.0005 / 700
    sets = [(0,), (1,), (2,), (0, 1), (1, 2), (0, 2)]
    where = "3_context_diff/" if s4 else "diff_context_num/"
    where += "relu.py, gdln.py" if s4 else "relu3.py, gdln3.py"
    relu = relu_network((11, 700, ds.Y.shape[0]), 0.005 / 700)
    return Setup(name, ds, relu, _reln(ds, sets, 10 * b, 20 * b), LR, 8001, where)


def _setup_many(name: str) -> Setup:
    # diff_context_num/relu{4,5}.py: 500 / 600 ReLU units at std 0.005/width;
    # gdln{4,5}.py: common + the C (C-1)-of-C pathways, 100 units each, all at
    # std 10 x 0.0005/(100 x modules) (modules 5 / 6); context inputs x 1.1 / 1.35.
    C = int(name[-1])
    width, scale = {4: (500, 1.1), 5: (600, 1.35)}[C]
    ds = _task(C, context_scale=scale)
    b = 0.0005 / (100 * (C + 1))
    sets = list(combinations(range(C), C - 1))
    relu = relu_network((N_ITEMS + C, width, ds.Y.shape[0]), 0.005 / width)
    where = f"diff_context_num/relu{C}.py, gdln{C}.py"
    return Setup(name, ds, relu, _reln(ds, sets, 10 * b, 10 * b), LR, 8001, where)


def _setup_depth() -> Setup:
    # depth/relu.py: 11-420-420-60 at std 0.0006, 30001 updates.  depth/gdln_off.py:
    # layer 1 one linear block of 7 x 60 units (std 1.15 x 0.0005); layer 2 seven
    # 60-unit modules from all of layer 1 (std 1.1 x 0.0005): four always on (the
    # common pathway), one per pair of contexts; readout 1.1 x 0.0005 (common) and
    # 8 x 0.0005 (pairs).  No update before epoch 500, the common loss alone until
    # 12000, then both (one-way).
    ds = _task(3)
    b = 0.0005
    layer1 = [Pathway("shared", 420, None, None, (1.15 * b,) * 2, on_epoch=500)]
    layer2 = [
        Pathway("common", 240, None, None, (1.1 * b,) * 2, on_epoch=500, common=True)
    ]
    for pair in combinations(range(3), 2):
        gate, stds = context_gate(ds, pair), (1.1 * b, 8 * b)
        layer2.append(Pathway(_label(pair), 60, gate, None, stds, on_epoch=12000))
    net = deep_gdln(11, ds.Y.shape[0], ds.P, [layer1, layer2], coupling="one-way")
    relu = relu_network((11, 420, 420, ds.Y.shape[0]), 0.0006)
    return Setup("depth", ds, relu, net, LR, 30001, "depth/relu.py, gdln_off.py")


def setup(name: str) -> Setup:
    """The authors' settings for experiment ``name`` (of :data:`EXPERIMENTS`)."""
    if name in ("section4", "contexts3"):
        return _setup_three(name)
    if name in ("contexts4", "contexts5"):
        return _setup_many(name)
    if name == "depth":
        return _setup_depth()
    raise ValueError(f"unknown experiment {name!r}; choose from {EXPERIMENTS}")


def stored(
    name: str, seeds: int | None = None, out=crosscheck.RUNS
) -> tuple[dict, list]:
    """The authors' stored curves of ``name`` (:func:`helpers.book.crosscheck.load`),
    the first ``seeds`` of them: ``({'relu': (S, T), 'gdln': (S, T)}, seed list)``."""
    runs = crosscheck.load(name, out)
    n = len(runs.seeds) if seeds is None else min(int(seeds), len(runs.seeds))
    if n < 2:
        raise ValueError(f"{name}: a seed spread needs 2 stored seeds, have {n}")
    return {k: c[:n] for k, c in runs.curves.items()}, list(runs.seeds[:n])


def run_ours(s: Setup, seeds) -> dict:
    """The engine's loss curves for ``seeds``, aligned with the scripts' recording:
    ``{'relu': (seeds, epochs), 'gdln': ...}``."""
    out = {}
    for key, net in (("relu", s.relu), ("gdln", s.gdln)):
        run = train(net, s.ds.X, s.ds.Y, lr=s.lr, epochs=s.epochs, seeds=list(seeds))
        out[key] = align(run.loss)
    return out


def align(engine_loss) -> np.ndarray:
    """The engine's ``(seeds, epochs + 1)`` curves as the scripts record them: without
    the loss before the first update."""
    L = np.atleast_2d(np.asarray(engine_loss, float))
    if L.shape[1] < 2:
        raise ValueError(f"need at least two recorded epochs, got {L.shape}")
    return L[:, 1:]


def check_parameters(experiments, spread_check: str) -> None:
    """Refuse (ValueError) unknown experiments and a ``spread_check`` not among them."""
    unknown = [e for e in experiments if e not in EXPERIMENTS]
    if unknown:
        raise ValueError(f"unknown experiments {unknown}; choose from {EXPERIMENTS}")
    if spread_check not in experiments:
        raise ValueError(f"spread_check {spread_check!r} is not among experiments")


@dataclass(frozen=True)
class Run:
    """One experiment on both implementations: setup, the scripts' curves
    (``theirs``), the engine's (``ours``), their ``seeds`` and :class:`Comparison`."""

    setup: Setup
    theirs: dict
    ours: dict
    seeds: list
    comparison: Comparison


def run(name: str, seeds: int) -> Run:
    """Experiment ``name``: the first ``seeds`` stored curves of the scripts and the
    engine trained on as many seeds, compared (:func:`compare`)."""
    s = setup(name)
    theirs, seed_list = stored(name, seeds)
    ours = run_ours(s, seed_list)
    return Run(s, theirs, ours, seed_list, compare(name, theirs, ours))


def conventions(runs: dict) -> dict:
    """The conventions two implementations could part on, per experiment of ``runs``:
    the scripts' first ReLU loss over the engine's (``first_ratio``) and over ``1/2
    ||Y||^2`` (``target_ratio``), the ReLU gap without :func:`align` (``shift_gap``)."""
    out = {}
    for name, r in runs.items():
        half_y2 = 0.5 * float(np.sum(r.setup.ds.Y**2))
        t0, o0 = r.theirs["relu"][:, 0], r.ours["relu"][:, 0]
        shifted = cross_gaps(r.theirs["relu"][:, 1:], r.ours["relu"][:, :-1])
        out[name] = {
            "first_ratio": float(np.median(t0) / np.median(o0)),
            "target_ratio": float(np.median(t0) / half_y2),
            "shift_gap": float(np.median(shifted)),
        }
    return out


@dataclass(frozen=True)
class SpreadCheck:
    """The engine's ReLU seed spread on more ``seeds`` (the ``k`` stored first): over
    every ``k`` of them, over all, the scripts' median gap to all, the ``curves``."""

    seeds: list
    k: int
    subsets: np.ndarray
    all_spread: float
    cross_all: float
    curves: np.ndarray  # (seeds, epochs)


def spread_check(r: Run, spread_seeds: int) -> SpreadCheck:
    """:class:`SpreadCheck` of the experiment ``r`` on ``spread_seeds`` engine seeds
    (at least the stored ones)."""
    more = list(r.seeds) + [s for s in range(1, 10 * spread_seeds) if s not in r.seeds]
    more = more[: max(int(spread_seeds), len(r.seeds))]
    progress.report(f"authors_code: {r.comparison.name}, {len(more)} engine seeds")
    wide = run_ours(r.setup, more)["relu"]
    D = gap_matrix(wide)
    k = len(r.seeds)
    cross = float(np.median(cross_gaps(r.theirs["relu"], wide)))
    return SpreadCheck(more, k, subset_spreads(D, k), pair_spread(D), cross, wide)
