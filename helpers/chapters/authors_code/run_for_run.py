"""Run for run (page *Against the authors' code*, section *Run for run*): the
engine's ReLU network trained from the scripts' own initial weights
(:func:`scripts_relu_init`), against the script's stored run of the same seed, epoch by
epoch (:func:`same_start`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...book import crosscheck, progress
from ...book.rulebook import SAME_RUN_TOL
from ...core.checks import check_positive, check_positive_int
from ...core.engine import GatedNetwork, train
from ...core.measures import LEVELS, censored, level_times, time_gap
from .experiments import align, setup

#: Two loss curves of the same network from the same start agree to float rounding at
#: an epoch when their relative difference there, ``|L_engine - L_script| /
#: L_script``, is at most this: the rulebook's
#: :data:`helpers.book.rulebook.SAME_RUN_TOL` (why this number: there).
SAME_START_TOL = SAME_RUN_TOL
#: Run for run, the shift in time is also read on this finer ladder of loss levels
#: (fractions of the first loss, 95 % down to 5 %), to say down to which loss the two
#: runs reach every level within one epoch of each other.
SHIFT_LADDER = tuple(round(0.95 - 0.05 * k, 2) for k in range(19))
#: The page's control of the run-for-run rule: the engine from the same start at a
#: step size this factor off, a 5 % step-size (time-rescaling) error, the largest a
#: time gap of at most 0.05 (the rulebook's ``gap``, this check's earlier criterion)
#: let pass.  The rule must fail it.
CONTROL_STEP = 1.05


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


def relu_std_of(net: GatedNetwork) -> float:
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
    ``steepest`` (the largest ``|d ln L / d ln t|`` of the script's curve over the
    epochs before ``part``, :func:`steepest_drop`), ``rescale`` (the time rescaling,
    i.e. relative step-size error, the agreement before ``part`` leaves possible:
    :data:`SAME_START_TOL` over ``steepest``, at most 1: where the loss hardly
    moved before ``part`` any rescaling is left possible),
    ``gaps`` (:func:`helpers.core.measures.time_gap`, script as reference; before
    ``part`` the curves agree, so this is the shift after they part);
    ``gaps_both`` (the same at the loss levels both curves reach, NaN where they
    share none);
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
    steepest: np.ndarray
    rescale: np.ndarray
    gaps: np.ndarray
    gaps_both: np.ndarray
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


def steepest_drop(L, part: int) -> float:
    """The steepest the loss curve ``L`` falls (or rises) in log-log terms before the
    epoch ``part``: the largest ``|d ln L / d ln t|`` over epochs ``1 .. part - 1``,
    with ``t = e + 1`` updates at the script's epoch ``e`` (``L[e]`` is the loss after
    update ``e + 1``), as ``(e + 1/2) |ln L[e] - ln L[e - 1]|``.

    Defined for the page book/authors_code.md (section *Run for run*).  A time
    rescaling ``t -> t (1 + e)`` of a curve moves its loss at ``t`` by ``e |d ln L /
    d ln t|`` relative, so two curves that agree within a relative ``tol`` up to
    ``part`` cannot be one rescaled by more than ``tol`` over this number.

    Args:
        L: one loss curve, positive, ``(epochs,)``.
        part: the first epoch at which the two curves no longer agree (the curve's
            length where they agree throughout).

    Returns:
        The largest ``|d ln L / d ln t|`` before ``part``; 0.0 where ``part < 2``.
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
    where they share none): the ``levels`` reading of a censored gap."""
    ta, tb = level_times(a), level_times(b)
    both = np.isfinite(ta) & np.isfinite(tb)
    if not both.any():
        return float("nan")
    return time_gap(a, b, [f for f, ok in zip(LEVELS, both) if ok])


def _first(mask: np.ndarray) -> int:
    """The first index where ``mask`` holds (its length where it never does)."""
    return int(np.argmax(mask)) if mask.any() else len(mask)


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
        ladder_shift=np.array(
            [
                level_times(b, SHIFT_LADDER) - level_times(a, SHIFT_LADDER)
                for a, b in zip(A, B)
            ]
        ),
        steepest=steepest,
        rescale=rescale,
        gaps=np.array([time_gap(a, b) for a, b in zip(A, B)]),
        gaps_both=np.array([_gap_both(a, b) for a, b in zip(A, B)]),
        censored=any(censored(a, b) for a, b in zip(A, B)),
        censored_reference=any(censored(b, a) for a, b in zip(A, B)),
    )


def same_start(name: str, seeds: int, step: float = 1.0) -> SameStart:
    """Experiment ``name``'s ReLU network, run for run: the engine trained from the
    script's own initial weights (:func:`scripts_relu_init`) of its first ``seeds``
    stored seeds, at the script's step size and number of updates on the summed loss,
    against the script's stored curves of the same seeds (:func:`compare_same_start`).

    Defined for the page book/authors_code.md (section *Run for run*).

    Args:
        name: one of :data:`EXPERIMENTS`.
        seeds: how many of the stored seeds (at most those stored).
        step: the factor the script's step size is multiplied by (1: the script's;
            :data:`CONTROL_STEP`: the page's control, a step size 5 % off).

    Returns:
        :class:`SameStart`.
    """
    seeds = check_positive_int(seeds, "same_start seeds")
    step = check_positive(step, "step")
    s = setup(name)
    runs = crosscheck.load(name)
    seed_list = list(runs.seeds[: min(seeds, len(runs.seeds))])
    theirs = runs.curves["relu"][: len(seed_list)]
    std = relu_std_of(s.relu)
    starts = [scripts_relu_init(s.relu.sizes, std, sd) for sd in seed_list]
    params0 = [np.stack(layer) for layer in zip(*starts)]
    what = "run for run" if step == 1 else f"run for run at step x {step:g}"
    progress.report(f"authors_code: {name}, {what}, {len(seed_list)} seeds")
    run_ = train(
        s.relu,
        s.ds.X,
        s.ds.Y,
        lr=s.lr * step,
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
