"""Run for run (page *Against the authors' code*): the engine's ReLU network trained
from the scripts' own initial weights against the script's stored run of the same seed,
epoch by epoch."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...book import crosscheck, progress
from ...book.rulebook import SAME_RUN_TOL
from ...core.checks import check_positive, check_positive_int
from ...core.engine import train
from ...core.measures import LEVELS, censored, level_times, time_gap
from .experiments import Setup, align, setup

#: Two loss curves from the same start agree to float rounding at an epoch when
#: ``|L_engine - L_script| / L_script`` is at most this (the rulebook's; why: there).
SAME_START_TOL = SAME_RUN_TOL
#: The page's control of the run-for-run rule: the engine from the same start at a
#: step size this factor off, a 5 % step-size (time-rescaling) error, the largest a
#: time gap of at most 0.05 (the rulebook's ``gap``, this check's earlier criterion)
#: let pass.  The rule must fail it.
CONTROL_STEP = 1.05


def scripts_relu_init(sizes, std: float, seed: int) -> list[np.ndarray]:
    """The initial weights of the authors' ReLU scripts for ``seed``, drawn as they draw
    them: their ``init_random_params_relu`` (``3_context_diff/relu.py``,
    ``diff_context_num/relu{3,4,5}.py`` lines 17-21, ``depth/relu.py`` lines 19-23, at
    b7d6e41) seeds ``np.random`` and draws one ``(out, in)`` matrix per layer by
    ``np.random.normal(0, param_scale_relu)``, as a ``RandomState(seed)`` does.

    Args:
        sizes: the layer sizes, inputs first (``(11, 700, 60)``).
        std: every weight's standard deviation (the script's ``param_scale_relu``).
        seed: the script's seed.

    Returns:
        One float64 matrix per layer, ``(sizes[l + 1], sizes[l])``.
    """
    sizes = [check_positive_int(n, "sizes") for n in sizes]
    if len(sizes) < 2:
        raise ValueError(f"sizes must name at least inputs and outputs, got {sizes}")
    std = check_positive(std, "std")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    draws = np.random.RandomState(int(seed))
    return [draws.normal(0.0, std, (m, n)) for n, m in zip(sizes[:-1], sizes[1:])]


def train_from_script_draws(s: Setup, seeds, step: float = 1.0) -> np.ndarray:
    """The engine's ReLU network of ``s`` trained from the scripts' draws for
    ``seeds`` (:func:`scripts_relu_init`) at ``step`` times the step size, aligned as
    the scripts record: ``(seeds, epochs)``."""
    layers = s.relu.layers
    stds = np.concatenate([np.ravel(L.in_std) for L in layers] + [layers[-1].out_std])
    if not np.all(stds == stds[0]):
        raise ValueError("the scripts' ReLU networks use one init std for every layer")
    starts = [scripts_relu_init(s.relu.sizes, float(stds[0]), sd) for sd in seeds]
    params0 = [np.stack(layer) for layer in zip(*starts)]
    run = train(
        s.relu, s.ds.X, s.ds.Y, lr=s.lr * step, epochs=s.epochs, seeds=list(seeds),
        params0=params0,
    )  # fmt: skip
    return align(run.loss)


@dataclass(frozen=True)
class SameStart:
    """The engine's ReLU network from the script's own initial weights (``ours``)
    against the script's stored run (``theirs``), ``(seeds, epochs)`` each.  Per seed:
    ``identical`` leading epochs; ``part``, the first epoch off by more than
    :data:`SAME_START_TOL` (``part_loss``: the script's loss there); ``shift`` (epochs)
    at each of :data:`~helpers.core.measures.LEVELS`; ``steepest`` drop before it and
    the step-size error left possible (``rescale``); time gaps at all levels and at
    those both reach; ``censored*``: a level one of them misses."""

    name: str
    seeds: list
    theirs: np.ndarray
    ours: np.ndarray
    identical: np.ndarray
    part: np.ndarray
    part_loss: np.ndarray
    shift: np.ndarray
    steepest: np.ndarray
    rescale: np.ndarray
    gaps: np.ndarray
    gaps_both: np.ndarray
    censored: bool
    censored_reference: bool

    @property
    def epochs(self) -> int:
        return int(self.theirs.shape[1])

    def relative(self) -> np.ndarray:
        """``|ours - theirs| / theirs`` per seed and epoch."""
        return np.abs(self.ours - self.theirs) / np.abs(self.theirs)


def steepest_drop(L, part: int) -> float:
    """The largest ``|d ln L / d ln t|`` of the positive loss curve ``L`` over epochs
    ``1 .. part - 1`` (0.0 where ``part < 2``), as ``(e + 1/2) |ln L[e] - ln L[e-1]|``:
    curves within ``tol`` up to ``part`` are not rescaled by more than ``tol`` over it.
    """
    L = np.asarray(L, float)
    if L.ndim != 1 or not np.all(L > 0):
        raise ValueError("steepest_drop needs one positive loss curve")
    part = min(int(part), len(L))
    if part < 2:
        return 0.0
    t = np.arange(1, part) + 0.5  # between updates e and e + 1
    return float(np.max(t * np.abs(np.diff(np.log(L[:part])))))


def _gap_both(a, b) -> float:
    """The time gap at the levels both curves reach (NaN where none)."""
    both = np.isfinite(level_times(a)) & np.isfinite(level_times(b))
    levels = [f for f, ok in zip(LEVELS, both) if ok]
    return time_gap(a, b, levels) if levels else float("nan")


def _first(mask: np.ndarray) -> int:
    return int(np.argmax(mask)) if mask.any() else len(mask)


def compare_same_start(name: str, seeds, theirs, ours) -> SameStart:
    """:class:`SameStart` of ``theirs`` (script) and ``ours`` (engine), seed by seed."""
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
    identical = np.array([_first(row != 0) for row in rel])
    part = np.array([_first(row > SAME_START_TOL) for row in rel])
    part_loss = np.array([A[i, p] if p < T else np.nan for i, p in enumerate(part)])
    shift = np.array([level_times(b) - level_times(a) for a, b in zip(A, B)])
    steepest = np.array([steepest_drop(a, p) for a, p in zip(A, part)])
    # 1: a rescaling by 100 % or more is left possible (the loss hardly moved)
    rescale = np.minimum(SAME_START_TOL / np.maximum(steepest, SAME_START_TOL), 1.0)
    pairs = list(zip(A, B))
    return SameStart(
        name, [int(s) for s in seeds], A, B, identical, part, part_loss, shift,
        steepest, rescale, np.array([time_gap(a, b) for a, b in pairs]),
        np.array([_gap_both(a, b) for a, b in pairs]),
        any(censored(a, b) for a, b in pairs), any(censored(b, a) for a, b in pairs),
    )  # fmt: skip


def same_start(name: str, seeds: int, step: float = 1.0) -> SameStart:
    """Experiment ``name``'s ReLU network run for run on its first ``seeds`` stored
    seeds (:func:`train_from_script_draws` at ``step``; :data:`CONTROL_STEP`: the
    page's control) against the script's stored curves (:func:`compare_same_start`)."""
    seeds = check_positive_int(seeds, "same_start seeds")
    step = check_positive(step, "step")
    runs = crosscheck.load(name)
    seed_list = list(runs.seeds[:seeds])
    what = "run for run" if step == 1 else f"run for run at step x {step:g}"
    progress.report(f"authors_code: {name}, {what}, {len(seed_list)} seeds")
    ours = train_from_script_draws(setup(name), seed_list, step)
    theirs = runs.curves["relu"][: len(seed_list)]
    return compare_same_start(name, seed_list, theirs, ours)


def same_start_seeds(experiments, seeds: int, depth_seeds: int) -> dict:
    """How many stored seeds each experiment is run for run on: ``seeds``, and
    ``depth_seeds`` for the (costly) depth network."""
    seeds = check_positive_int(seeds, "same_start_seeds")
    depth_seeds = check_positive_int(depth_seeds, "same_start_depth_seeds")
    return {e: depth_seeds if e == "depth" else seeds for e in experiments}
