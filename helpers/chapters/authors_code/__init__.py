"""The book's engine at the settings of the authors' scripts, against those scripts'
stored loss curves (page *Against the authors' code*).

The curves of the authors' scripts are stored by ``python -m helpers.book crosscheck``
(:mod:`helpers.book.crosscheck`); this module builds the same networks on
:mod:`helpers.core.engine` and compares.  Every setting below is a fact of the script
named beside it (CAandL-Lab/make-haste-slowly at b7d6e41), restated as numbers; the init
stds are set per pathway here, independently of the chapters' initialisation choices.

Two conventions differ and are aligned, not changed:

* **recording**: a script stores ``losses[epoch]`` *after* that epoch's update; the
  engine's ``loss[:, t]`` is the loss after ``t`` updates.  So the script's curve is the
  engine's ``loss[:, 1:]`` (:func:`align`);
* **initial weights**: both draw ``N(0, std^2)`` per weight, the scripts with NumPy's
  legacy ``np.random.seed``, the engine with ``np.random.default_rng``; the draws
  differ, so a run of each is compared as two seeds of the same network are.  The
  section *Run for run* removes that difference for the ReLU networks: the engine
  starts from the scripts' own draws (:func:`scripts_relu_init`) and the two runs of
  one seed are compared epoch by epoch (:func:`same_start`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ...book import crosscheck, progress
from ...core.checks import check_positive, check_positive_int
from ...core.datasets import Dataset, context_gate, contextual_task
from ...core.engine import GatedNetwork, Pathway, deep_gdln, gdln, relu_network, train
from ...core.measures import (
    bootstrap_interval,
    censored,
    level_times,
    seed_spread,
    time_gap,
)

__all__ = [
    "Setup",
    "setup",
    "EXPERIMENTS",
    "align",
    "pair_gaps",
    "cross_gaps",
    "spread",
    "gap_matrix",
    "subset_spreads",
    "Comparison",
    "compare",
    "run_ours",
    "stored",
    "check_parameters",
    "Run",
    "run",
    "conventions",
    "SpreadCheck",
    "spread_check",
    "SAME_START_TOL",
    "SHIFT_LADDER",
    "scripts_relu_init",
    "SameStart",
    "compare_same_start",
    "same_start",
    "same_start_seeds",
    "Results",
    "report",
    "spread_text",
    "plot_losses",
    "plot_same_start",
    "same_start_text",
]

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
    """``contextual_task`` with the context one-hot rows of ``X`` scaled (the authors'
    ``gen_data4`` multiplies them by 1.1, ``gen_data5`` by 1.35)."""
    ds = contextual_task(C, structures)
    X = ds.X.copy()
    X[N_ITEMS:] *= context_scale
    return Dataset(
        name=ds.name + (f", context inputs x {context_scale:g}" * (context_scale != 1)),
        X=X,
        Y=ds.Y,
        inputs=ds.inputs,
        features=ds.features,
        items=ds.items,
        contexts=ds.contexts,
        n_contexts=ds.n_contexts,
    )


def _reln(ds: Dataset, sets, std_common: float, std_context: float, width=100):
    """Common pathway (all inputs) plus one pathway per set of contexts (item inputs
    only), ``width`` units each, trained one-way as the scripts' ``update_gated``."""
    items = list(range(N_ITEMS))
    pws = [Pathway("common", width, None, None, (std_common,) * 2, common=True)]
    for s in sets:
        label = "".join(str(c + 1) for c in s)
        pws.append(
            Pathway(
                f"ctx{label}", width, context_gate(ds, s), items, (std_context,) * 2
            )
        )
    return gdln(ds.X.shape[0], ds.Y.shape[0], ds.P, pws, coupling="one-way")


def setup(name: str) -> Setup:
    """The authors' settings for experiment ``name`` (see
    :data:`helpers.book.crosscheck.EXPERIMENTS`)."""
    if name in ("section4", "contexts3"):
        # 3_context_diff/{relu,gdln}.py, diff_context_num/{relu3,gdln3}.py: 700 ReLU
        # units at std 0.005/700; GDLN: common + three single-context + three 2-of-3
        # pathways of 100 units, std 10 and 20 x 0.0005/700; 8001 updates.
        structures = ["hierarchy", "ring", "cross"] if name == "section4" else None
        ds = _task(3, structures)
        b = 0.0005 / 700
        sets = [(0,), (1,), (2,), (0, 1), (1, 2), (0, 2)]
        where = (
            "3_context_diff/relu.py, gdln.py"
            if name == "section4"
            else "diff_context_num/relu3.py, gdln3.py"
        )
        return Setup(
            name,
            ds,
            relu_network((11, 700, ds.Y.shape[0]), 0.005 / 700),
            _reln(ds, sets, 10 * b, 20 * b),
            LR,
            8001,
            where,
        )
    if name in ("contexts4", "contexts5"):
        # diff_context_num/relu{4,5}.py: 500 / 600 ReLU units at std 0.005/width;
        # gdln{4,5}.py: common + the C (C-1)-of-C pathways, 100 units each, all at
        # std 10 x 0.0005/(100 x modules) (modules 5 / 6); context inputs x 1.1 / 1.35.
        C = int(name[-1])
        width, scale = {4: (500, 1.1), 5: (600, 1.35)}[C]
        ds = _task(C, context_scale=scale)
        b = 0.0005 / (100 * (C + 1))
        sets = list(combinations(range(C), C - 1))
        return Setup(
            name,
            ds,
            relu_network((N_ITEMS + C, width, ds.Y.shape[0]), 0.005 / width),
            _reln(ds, sets, 10 * b, 10 * b),
            LR,
            8001,
            f"diff_context_num/relu{C}.py, gdln{C}.py",
        )
    if name == "depth":
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
            Pathway(
                "common", 240, None, None, (1.1 * b,) * 2, on_epoch=500, common=True
            )
        ]
        for pair in combinations(range(3), 2):
            layer2.append(
                Pathway(
                    "ctx" + "".join(str(c + 1) for c in pair),
                    60,
                    context_gate(ds, pair),
                    None,
                    (1.1 * b, 8 * b),
                    on_epoch=12000,
                )
            )
        net = deep_gdln(11, ds.Y.shape[0], ds.P, [layer1, layer2], coupling="one-way")
        return Setup(
            name,
            ds,
            relu_network((11, 420, 420, ds.Y.shape[0]), 0.0006),
            net,
            LR,
            30001,
            "depth/relu.py, gdln_off.py",
        )
    raise ValueError(f"unknown experiment {name!r}; choose from {EXPERIMENTS}")


def stored(name: str, seeds: int | None = None, out=None) -> tuple[dict, list]:
    """The authors' stored curves of ``name`` (:func:`helpers.book.crosscheck.load`),
    the first ``seeds`` of them: ``({'relu': (S, T), 'gdln': (S, T)}, seed list)``."""
    runs = crosscheck.load(name) if out is None else crosscheck.load(name, out)
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
    """The engine's ``(seeds, epochs + 1)`` curves as the scripts record them: the loss
    after each update, i.e. without the loss before the first one."""
    L = np.atleast_2d(np.asarray(engine_loss, float))
    if L.shape[1] < 2:
        raise ValueError(f"need at least two recorded epochs, got {L.shape}")
    return L[:, 1:]


def pair_gaps(A, B) -> np.ndarray:
    """:func:`helpers.core.measures.time_gap` of curve ``i`` of ``A`` against curve
    ``i`` of ``B`` (``(seeds, T)`` each; the same number of curves)."""
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    if A.shape[0] != B.shape[0]:
        raise ValueError(f"{A.shape[0]} curves against {B.shape[0]}")
    return np.array([time_gap(a, b) for a, b in zip(A, B)])


def cross_gaps(A, B) -> np.ndarray:
    """The time gap of every curve of ``A`` against every curve of ``B``: the seeds of
    two implementations are unrelated draws, so no pairing is preferred."""
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    return np.array([time_gap(a, b) for a in A for b in B])


def spread(A) -> float:
    """The seed spread of a set of curves: the median over pairs of seeds of their
    time gap."""
    A = np.atleast_2d(A)
    if A.shape[0] < 2:
        raise ValueError("a seed spread needs at least 2 curves")
    return float(
        np.median([time_gap(A[i], A[j]) for i, j in combinations(range(len(A)), 2)])
    )


def gap_matrix(A) -> np.ndarray:
    """The time gap between every two curves of ``A``, as a symmetric matrix (the input
    of :func:`helpers.core.measures.bootstrap_interval`)."""
    A = np.atleast_2d(A)
    D = np.zeros((len(A), len(A)))
    for i, j in combinations(range(len(A)), 2):
        D[i, j] = D[j, i] = time_gap(A[i], A[j])
    return D


def subset_spreads(D, k: int) -> np.ndarray:
    """The seed spread of every ``k`` of the curves behind the gap matrix ``D``: how
    much a spread measured on ``k`` seeds scatters (page *Against the authors' code*,
    the seed spreads of the two implementations)."""
    D = np.asarray(D, float)
    out = []
    for sub in combinations(range(len(D)), k):
        out.append(np.median([D[i, j] for i, j in combinations(sub, 2)]))
    return np.array(out)


@dataclass(frozen=True)
class Comparison:
    """One experiment, the authors' scripts against the engine.

    ``gap``: median of the time gaps between their ReLU curves and ours, every seed of
    one against every seed of the other (:func:`cross_gaps`; the draws are unrelated);
    ``spread_theirs`` /
    ``spread_ours``: each implementation's own seed spread; ``rg_theirs`` /
    ``rg_ours``: per seed, the time gap between the ReLU network and the GDLN of the
    same implementation; ``rg_spread`` / ``rg_spread_theirs``: the seed spread of
    ``rg_ours`` / ``rg_theirs`` (:func:`helpers.core.measures.seed_spread`);
    ``interval_theirs`` / ``interval_ours``: the 90 % bootstrap interval over seeds of
    each ReLU seed spread (:func:`helpers.core.measures.bootstrap_interval`).
    """

    name: str
    seeds: int
    gap: float
    spread_theirs: float
    spread_ours: float
    rg_theirs: np.ndarray
    rg_ours: np.ndarray
    rg_spread: float
    rg_spread_theirs: float
    interval_theirs: tuple
    interval_ours: tuple
    final_theirs: float
    final_ours: float


def compare(name: str, theirs: dict, ours: dict) -> Comparison:
    """:class:`Comparison` of stored curves ``theirs`` and engine curves ``ours``
    (``{'relu': (S, T), 'gdln': (S, T)}``, aligned, the same S and T)."""
    for k in ("relu", "gdln"):
        if np.shape(theirs[k]) != np.shape(ours[k]):
            raise ValueError(
                f"{name}.{k}: the authors' curves are {np.shape(theirs[k])}, ours "
                f"{np.shape(ours[k])}; run as many seeds and epochs"
            )
    rg_t = pair_gaps(theirs["relu"], theirs["gdln"])
    rg_o = pair_gaps(ours["relu"], ours["gdln"])
    return Comparison(
        name=name,
        seeds=int(np.shape(theirs["relu"])[0]),
        gap=float(np.median(cross_gaps(theirs["relu"], ours["relu"]))),
        spread_theirs=spread(theirs["relu"]),
        spread_ours=spread(ours["relu"]),
        rg_theirs=rg_t,
        rg_ours=rg_o,
        rg_spread=seed_spread(rg_o),
        rg_spread_theirs=seed_spread(rg_t),
        interval_theirs=bootstrap_interval(gap_matrix(theirs["relu"])),
        interval_ours=bootstrap_interval(gap_matrix(ours["relu"])),
        final_theirs=float(np.median(np.asarray(theirs["relu"])[:, -1])),
        final_ours=float(np.median(np.asarray(ours["relu"])[:, -1])),
    )


def check_parameters(experiments, spread_check: str) -> None:
    """Refuse experiments the page does not know, and a ``spread_check`` that is not
    among them (ValueError); the other parameters' rules are in the chapter's data
    file."""
    unknown = [e for e in experiments if e not in EXPERIMENTS]
    if unknown:
        raise ValueError(f"unknown experiments {unknown}; choose from {EXPERIMENTS}")
    if spread_check not in experiments:
        raise ValueError(f"spread_check {spread_check!r} is not among experiments")


@dataclass(frozen=True)
class Run:
    """One experiment on both implementations: the setup, the scripts' stored curves
    (``theirs``) and the engine's (``ours``) on the same ``seeds``, and their
    :class:`Comparison`."""

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
    """The conventions two implementations could part on, checked on ``runs``
    (:class:`Run` by experiment): per experiment the ratio of the scripts' first
    ReLU loss to the engine's (``first_ratio``) and to ``1/2 ||Y||^2``
    (``target_ratio``), and the ReLU time gap without the one-epoch shift of
    :func:`align` (``shift_gap``)."""
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
    """The engine's ReLU seed spread of one experiment re-measured on more seeds:
    ``seeds`` (the stored ones first), the spread over all (``all_spread``), that of
    every ``k`` of them (``subsets``, ``k`` the stored seeds' number), and the time gap
    of the scripts' runs to all the engine's (``cross_all``)."""

    seeds: list
    k: int
    subsets: np.ndarray
    all_spread: float
    cross_all: float


def spread_check(r: Run, spread_seeds: int) -> SpreadCheck:
    """:class:`SpreadCheck` of the experiment ``r`` on ``spread_seeds`` engine seeds
    (at least the stored ones)."""
    more = list(r.seeds) + [s for s in range(1, 10 * spread_seeds) if s not in r.seeds]
    more = more[: max(int(spread_seeds), len(r.seeds))]
    progress.report(f"authors_code: {r.comparison.name}, {len(more)} engine seeds")
    wide = run_ours(r.setup, more)["relu"]
    D = gap_matrix(wide)
    k = len(r.seeds)
    return SpreadCheck(
        seeds=more,
        k=k,
        subsets=subset_spreads(D, k),
        all_spread=float(np.median(D[np.triu_indices(len(D), 1)])),
        cross_all=float(np.median(cross_gaps(r.theirs["relu"], wide))),
    )


#: Two loss curves of the same network from the same start agree to float rounding at
#: an epoch when their relative difference there, ``|L_engine - L_script| /
#: L_script``, is at most this.  Both compute in float32 (about 6e-8 relative per
#: operation): a difference that only rounding makes stays orders of magnitude below
#: it until the two runs part; set before comparing any curve.
SAME_START_TOL = 1e-4
#: Run for run, the shift in time is also read on this finer ladder of loss levels
#: (fractions of the first loss, 95 % down to 5 %), to say down to which loss the two
#: runs reach every level within one epoch of each other.
SHIFT_LADDER = tuple(round(0.95 - 0.05 * k, 2) for k in range(19))


def scripts_relu_init(sizes, std: float, seed: int) -> list[np.ndarray]:
    """The initial weights of the authors' ReLU scripts for ``seed``, drawn as they draw
    them.

    Defined for the page book/authors_code.md (section *Run for run*).  Their
    ``init_random_params_relu`` (``3_context_diff/relu.py`` and
    ``diff_context_num/relu{3,4,5}.py`` lines 17-21, ``depth/relu.py`` lines 19-23;
    CAandL-Lab/make-haste-slowly at b7d6e41) seeds NumPy's global legacy generator with
    ``np.random.seed(seed)`` and then draws one matrix per layer, input layer first,
    each of shape ``(units out, units in)`` by ``np.random.normal`` with mean 0 and
    standard deviation ``param_scale_relu`` (line 64 of the Section 4 and 5 scripts,
    ``0.005 / num_hidden``; line 79 of ``depth/relu.py``, ``0.0006``).  A
    ``RandomState(seed)`` is the same generator in the same state.  The scripts keep
    these float64 draws and JAX rounds them to float32 on the first update; the engine
    rounds them the same way.

    Args:
        sizes: the layer sizes, inputs first (``(11, 700, 60)``).
        std: the standard deviation of every weight (the script's
            ``param_scale_relu``).
        seed: the script's seed (the ``seed`` the crosscheck set).

    Returns:
        One float64 matrix per layer, ``(sizes[l + 1], sizes[l])``, as the script holds
        them before training.
    """
    sizes = [check_positive_int(n, "sizes") for n in sizes]
    if len(sizes) < 2:
        raise ValueError(f"sizes must name at least inputs and outputs, got {sizes}")
    std = check_positive(std, "std")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    draws = np.random.RandomState(int(seed))
    weights = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        weights.append(draws.normal(loc=0.0, scale=std, size=(fan_out, fan_in)))
    return weights


def _relu_std(net: GatedNetwork) -> float:
    """The one init std of a ReLU network of :func:`setup` (the scripts use one scale
    for every layer)."""
    stds = np.concatenate(
        [np.ravel(L.in_std) for L in net.layers] + [np.ravel(net.layers[-1].out_std)]
    )
    if not np.allclose(stds, stds[0], rtol=0, atol=0):
        raise ValueError("the scripts' ReLU networks use one init std for every layer")
    return float(stds[0])


@dataclass(frozen=True)
class SameStart:
    """One experiment's ReLU network trained by the engine from the script's own
    initial weights, against the script's stored run of the same seed.

    Epochs are the script's: ``theirs[:, e]`` and ``ours[:, e]`` are the losses after
    the update of its loop's epoch ``e`` (``losses[e]``).  Per seed:
    ``identical`` (how many leading epochs are equal bit for bit), ``part`` (the first
    epoch whose relative difference exceeds :data:`SAME_START_TOL`; the curves' length
    where none does), ``part_loss`` (the script's loss there, NaN where none),
    ``shift`` (engine minus script, in epochs, of the time each reaches each loss
    level of :data:`helpers.core.measures.LEVELS`; NaN where either does not),
    ``ladder_shift`` (the same on :data:`SHIFT_LADDER`),
    ``gaps`` (:func:`helpers.core.measures.time_gap`, script as reference);
    ``censored`` / ``censored_reference``: for some seed the engine / the script
    misses a level the other reaches, so that seed's gap is a lower bound."""

    name: str
    seeds: list
    theirs: np.ndarray
    ours: np.ndarray
    identical: np.ndarray
    part: np.ndarray
    part_loss: np.ndarray
    shift: np.ndarray
    ladder_shift: np.ndarray
    gaps: np.ndarray
    censored: bool
    censored_reference: bool

    @property
    def epochs(self) -> int:
        return int(self.theirs.shape[1])

    def within_one_epoch(self) -> float | None:
        """The lowest level of :data:`SHIFT_LADDER` down to which every seed reaches
        every level within one epoch of the script (None if not even the first)."""
        low = None
        for k, f in enumerate(SHIFT_LADDER):
            col = self.ladder_shift[:, k]
            if not (np.all(np.isfinite(col)) and np.all(np.abs(col) <= 1.0)):
                break
            low = f
        return low

    def relative(self) -> np.ndarray:
        """``|ours - theirs| / theirs`` per seed and epoch."""
        return np.abs(self.ours - self.theirs) / np.abs(self.theirs)


def compare_same_start(name: str, seeds, theirs, ours) -> SameStart:
    """:class:`SameStart` of the script's curves ``theirs`` and the engine's ``ours``
    (``(seeds, epochs)`` each, aligned by :func:`align`, row ``i`` of both from seed
    ``seeds[i]``).

    Defined for the page book/authors_code.md (section *Run for run*)."""
    A, B = np.atleast_2d(theirs).astype(float), np.atleast_2d(ours).astype(float)
    if A.shape != B.shape or A.shape[0] != len(seeds):
        raise ValueError(
            f"{name}: {len(seeds)} seeds, the script's curves {A.shape} and the "
            f"engine's {B.shape}; they must match"
        )
    if not (np.all(np.isfinite(A)) and np.all(A > 0)):
        raise ValueError(f"{name}: the script's losses must be finite and positive")
    T = A.shape[1]
    rel = np.abs(B - A) / A
    first = lambda mask: int(np.argmax(mask)) if mask.any() else T  # noqa: E731
    identical = np.array([first(row != 0) for row in rel])
    part = np.array([first(row > SAME_START_TOL) for row in rel])
    part_loss = np.array([A[i, p] if p < T else np.nan for i, p in enumerate(part)])
    shift = np.array([level_times(b) - level_times(a) for a, b in zip(A, B)])
    return SameStart(
        name=name,
        seeds=[int(s) for s in seeds],
        theirs=A,
        ours=B,
        identical=identical,
        part=part,
        part_loss=part_loss,
        shift=shift,
        ladder_shift=np.array(
            [
                level_times(b, SHIFT_LADDER) - level_times(a, SHIFT_LADDER)
                for a, b in zip(A, B)
            ]
        ),
        gaps=np.array([time_gap(a, b) for a, b in zip(A, B)]),
        censored=any(censored(a, b) for a, b in zip(A, B)),
        censored_reference=any(censored(b, a) for a, b in zip(A, B)),
    )


def same_start(name: str, seeds: int) -> SameStart:
    """Experiment ``name``'s ReLU network, run for run: the engine trained from the
    script's own initial weights (:func:`scripts_relu_init`) of its first ``seeds``
    stored seeds, at the script's step size and number of updates on the summed loss,
    against the script's stored curves of the same seeds (:func:`compare_same_start`).

    Defined for the page book/authors_code.md (section *Run for run*).

    Args:
        name: one of :data:`EXPERIMENTS`.
        seeds: how many of the stored seeds (at most those stored).

    Returns:
        :class:`SameStart`.
    """
    seeds = check_positive_int(seeds, "same_start seeds")
    s = setup(name)
    runs = crosscheck.load(name)
    seed_list = list(runs.seeds[: min(seeds, len(runs.seeds))])
    theirs = runs.curves["relu"][: len(seed_list)]
    std = _relu_std(s.relu)
    starts = [scripts_relu_init(s.relu.sizes, std, sd) for sd in seed_list]
    params0 = [np.stack(layer) for layer in zip(*starts)]
    progress.report(f"authors_code: {name}, run for run, {len(seed_list)} seeds")
    run_ = train(
        s.relu,
        s.ds.X,
        s.ds.Y,
        lr=s.lr,
        epochs=s.epochs,
        seeds=seed_list,
        params0=params0,
    )
    return compare_same_start(name, seed_list, theirs, align(run_.loss))


def same_start_seeds(experiments, seeds: int, depth_seeds: int) -> dict:
    """How many stored seeds each experiment is run for run on: ``seeds``, and
    ``depth_seeds`` for the depth network (30001 updates of two 420-unit layers, the
    costly one).  Defined for the page book/authors_code.md."""
    seeds = check_positive_int(seeds, "same_start_seeds")
    depth_seeds = check_positive_int(depth_seeds, "same_start_depth_seeds")
    return {e: depth_seeds if e == "depth" else seeds for e in experiments}


from .plots import plot_losses, plot_same_start  # noqa: E402
from .report import Results, report, same_start_text, spread_text  # noqa: E402
