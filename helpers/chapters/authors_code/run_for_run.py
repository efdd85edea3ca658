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

#: Two loss curves of the same network from the same start agree to float rounding at
#: an epoch when their relative difference there, ``|L_engine - L_script| /
#: L_script``, is at most this: the rulebook's
#: :data:`helpers.book.rulebook.SAME_RUN_TOL` (why this number: there).
SAME_START_TOL = SAME_RUN_TOL
#: The page's control of the run-for-run rule: the engine from the same start at a
#: step size this factor off, a 5 % step-size (time-rescaling) error, the largest a
#: time gap of at most 0.05 (the rulebook's ``gap``, this check's earlier criterion)
#: let pass.  The rule must fail it.
CONTROL_STEP = 1.05


def scripts_relu_init(sizes, std: float, seed: int) -> list[np.ndarray]:
    """The initial weights of the authors' ReLU scripts for ``seed``, drawn as they draw
    them.

    Their ``init_random_params_relu`` (``3_context_diff/relu.py`` and
    ``diff_context_num/relu{3,4,5}.py`` lines 17-21, ``depth/relu.py`` lines 19-23;
    CAandL-Lab/make-haste-slowly at b7d6e41) calls ``np.random.seed(seed)``, then draws
    one ``(units out, units in)`` matrix per layer, input layer first, by
    ``np.random.normal(0, param_scale_relu)``: a ``RandomState(seed)`` is the same
    generator in the same state.  The float64 draws are rounded to float32 on the
    first update, by JAX there and by the engine here.

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
    stds = np.concatenate(
        [np.ravel(L.in_std) for L in s.relu.layers]
        + [np.ravel(s.relu.layers[-1].out_std)]
    )
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
    """One experiment's ReLU network trained by the engine from the script's own
    initial weights (``ours``) against the script's stored run (``theirs``), both
    ``(seeds, epochs)`` in the script's epochs.

    Per seed: ``identical``, the leading epochs equal bit for bit; ``part``, the first
    epoch whose relative difference exceeds :data:`SAME_START_TOL` (the length where
    none does) and ``part_loss`` the script's loss there (NaN where none); ``shift``,
    engine minus script, in epochs, at each level of
    :data:`helpers.core.measures.LEVELS`; ``steepest``, :func:`steepest_drop` before
    ``part``, and ``rescale``, the step-size error the agreement leaves possible
    (:data:`SAME_START_TOL` over ``steepest``, at most 1); ``gaps`` and ``gaps_both``,
    the time gap (script as reference) at all levels and at those both reach.
    ``censored`` / ``censored_reference``: for some seed the engine / the script
    misses a level the other reaches (that gap is a lower bound)."""

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
    ``1 .. part - 1`` (0.0 where ``part < 2``), as ``(e + 1/2) |ln L[e] - ln L[e-1]|``
    (``L[e]`` the loss after update ``e + 1``).

    A time rescaling ``t -> t (1 + e)`` moves the loss by ``e |d ln L / d ln t|``
    relative: two curves that agree within ``tol`` up to ``part`` cannot be one
    rescaled by more than ``tol`` over this number.
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
    """:func:`helpers.core.measures.time_gap` at the levels both curves reach (NaN
    where they share none)."""
    ta, tb = level_times(a), level_times(b)
    both = np.isfinite(ta) & np.isfinite(tb)
    if not both.any():
        return float("nan")
    return time_gap(a, b, [f for f, ok in zip(LEVELS, both) if ok])


def _first(mask: np.ndarray) -> int:
    """The first index where ``mask`` holds (its length where it never does)."""
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
    return SameStart(
        name=name,
        seeds=[int(s) for s in seeds],
        theirs=A,
        ours=B,
        identical=identical,
        part=part,
        part_loss=part_loss,
        shift=shift,
        steepest=steepest,
        rescale=rescale,
        gaps=np.array([time_gap(a, b) for a, b in zip(A, B)]),
        gaps_both=np.array([_gap_both(a, b) for a, b in zip(A, B)]),
        censored=any(censored(a, b) for a, b in zip(A, B)),
        censored_reference=any(censored(b, a) for a, b in zip(A, B)),
    )


def same_start(name: str, seeds: int, step: float = 1.0) -> SameStart:
    """Experiment ``name``'s ReLU network run for run on its first ``seeds`` stored
    seeds (:func:`train_from_script_draws` at ``step``; :data:`CONTROL_STEP`: the
    page's control) against the script's stored curves (:func:`compare_same_start`)."""
    seeds = check_positive_int(seeds, "same_start seeds")
    step = check_positive(step, "step")
    runs = crosscheck.load(name)
    seed_list = list(runs.seeds[: min(seeds, len(runs.seeds))])
    what = "run for run" if step == 1 else f"run for run at step x {step:g}"
    progress.report(f"authors_code: {name}, {what}, {len(seed_list)} seeds")
    ours = train_from_script_draws(setup(name), seed_list, step)
    return compare_same_start(
        name, seed_list, runs.curves["relu"][: len(seed_list)], ours
    )


def same_start_seeds(experiments, seeds: int, depth_seeds: int) -> dict:
    """How many stored seeds each experiment is run for run on: ``seeds``, and
    ``depth_seeds`` for the (costly) depth network."""
    seeds = check_positive_int(seeds, "same_start_seeds")
    depth_seeds = check_positive_int(depth_seeds, "same_start_depth_seeds")
    return {e: depth_seeds if e == "depth" else seeds for e in experiments}
