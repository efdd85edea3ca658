"""Where in training the gating claims are read ([rulebook-phase],
[rulebook-structure]), their verdicts, and the switch-on schedule derived from them."""

from __future__ import annotations

import numpy as np

from ...book import rulebook
from ...core.measures import Evidence, ratio_interval
from .census import DepthRuns
from .networks import Schedule


def _stretches(mask) -> list[tuple[int, int]]:
    """``(first, last)`` indices of each run of consecutive True in ``mask``."""
    m = np.r_[False, np.asarray(mask, bool), False].astype(int)
    edges = np.flatnonzero(np.diff(m))
    return [(int(a), int(b) - 1) for a, b in zip(edges[::2], edges[1::2])]


def training_phase(snap, grid, limit: float) -> tuple[int, int] | None:
    """``(first, last)`` epochs of the longest stretch where ``snap`` (median output
    change on snapping to context-level gates) is at most ``limit`` ([rulebook-phase]);
    None if none."""
    runs = _stretches(np.asarray(snap, float) <= limit)
    if not runs:
        return None
    k, j = max(runs, key=lambda r: r[1] - r[0])
    return int(grid[k]), int(grid[j])


def epoch_ranges(grid, mask) -> str:
    """The epochs of ``grid`` where ``mask`` holds, as text (``first–last``, "none")."""
    grid = np.asarray(grid)
    if np.shape(mask) != grid.shape:
        raise ValueError(f"mask {np.shape(mask)} and grid {grid.shape} differ in shape")
    parts = [(int(grid[k]), int(grid[j])) for k, j in _stretches(mask)]
    return ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in parts) or "none"


def smaller(v, c) -> Evidence | None:
    """The rulebook's ``smaller`` evidence of per-seed ``v`` against ``c``; None where
    there is nothing to compare."""
    ok = np.isfinite(v) & np.isfinite(c)
    v, c = v[ok], c[ok]
    if ok.sum() < 2 or np.median(c) == 0:
        return None
    try:
        iv = ratio_interval(v, c)
    except ValueError:
        return None
    return Evidence(
        float(np.median(v)),
        compared=float(np.median(c)),
        criterion="smaller",
        ratio_interval=iv,
    )


def smaller_by_epoch(values, compared, grid) -> dict:
    """``{epoch: verdict}`` of :func:`smaller` on ``(seeds, records)`` arrays."""
    V, C = np.asarray(values, float), np.asarray(compared, float)
    out = {}
    for k, e in enumerate(np.asarray(grid)):
        ev = smaller(V[:, k], C[:, k])
        out[int(e)] = "nothing to compare" if ev is None else rulebook.verdict(ev)
    return out


def verdicts_over_training(by_epoch: dict, grid) -> str:
    """``{epoch: verdict}`` of :func:`smaller_by_epoch` in words."""
    grid = np.asarray(grid)

    def at(v):
        return epoch_ranges(grid, [by_epoch[int(e)] == v for e in grid])

    text = f"holds at epochs {at('reproduced')}, fails at {at('not reproduced')}"
    if "undecided" in by_epoch.values():
        text += f", and the seeds cannot decide it at {at('undecided')}"
    if "nothing to compare" in by_epoch.values():
        text += f"; at {at('nothing to compare')} there is nothing to compare with"
    return text


def window_mean(values, window) -> np.ndarray:
    """Per seed, the mean of ``(seeds, records)`` ``values`` where ``window`` holds."""
    V = np.asarray(values, float)
    W = np.broadcast_to(np.asarray(window, bool), V.shape)
    n = W.sum(axis=1)
    tot = np.where(W, V, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, tot / np.maximum(n, 1), np.nan)


def context_weight_window(runs: "DepthRuns") -> np.ndarray:
    """``(seeds, records)``: where layer 2's context classes weigh more than at init
    (a window variant, [rulebook-structure])."""
    m = sum(runs.class_mass(1, c) for c in ("mixed", "single", "other"))
    return m > m[:, :1]


def appearance_epoch(mass, grid, threshold: float = 0.3) -> float:
    """First (interpolated) epoch at which a class's weight mass reaches ``threshold``;
    NaN if never.  Random init gives about 1e-2, a working class O(1) to O(10)."""
    m = np.asarray(mass, float)
    g = np.asarray(grid, float)
    if m.shape != g.shape or m.ndim != 1:
        raise ValueError(
            f"mass and grid must be 1-D of equal length, got {m.shape} and {g.shape}"
        )
    if not (np.isfinite(threshold) and threshold > 0):
        raise ValueError(f"threshold must be a positive weight mass, got {threshold}")
    hit = m >= threshold
    if not hit.any():
        return float("nan")
    k = int(np.argmax(hit))
    if k == 0:
        return float(g[0])
    f = (threshold - m[k - 1]) / (m[k] - m[k - 1])
    return float(g[k - 1] + f * (g[k] - g[k - 1]))


def derive_schedule(
    relu: DepthRuns,
    gdln: DepthRuns,
    reference: Schedule,
    threshold: float = 0.3,
    layer: int = 1,
    resolution: int = 100,
) -> tuple[Schedule, dict]:
    """A switch-on schedule for the depth GDLN derived from the ReLU runs' gates.

    ``start`` and ``context``: the median epochs at which the ReLU network's common and
    2-of-3 units appear in ``layer`` (:func:`appearance_epoch`), minus the lags the GDLN
    under ``reference`` shows, rounded to ``resolution``.  Returns the schedule and the
    intermediate numbers.
    """

    def med(runs, cls):
        m = runs.class_mass(layer, cls)
        t = np.array(
            [appearance_epoch(m[s], runs.grid, threshold) for s in range(m.shape[0])]
        )
        return float(np.nanmedian(t)), t

    relu_common, relu_common_all = med(relu, "common")
    relu_mixed, relu_mixed_all = med(relu, "mixed")
    gdln_common, _ = med(gdln, "common")
    gdln_mixed, _ = med(gdln, "mixed")
    lag_common = gdln_common - reference.start
    lag_context = gdln_mixed - reference.context
    if not np.all(np.isfinite([relu_common, relu_mixed, lag_common, lag_context])):
        raise ValueError(
            "derive_schedule: a class never appears in the ReLU or GDLN runs"
        )

    def rnd(t):
        return int(max(0, resolution * round(t / resolution)))

    start = rnd(relu_common - lag_common)
    context = max(start, rnd(relu_mixed - lag_context))
    info = {
        "relu_appear_common": relu_common,
        "relu_appear_mixed": relu_mixed,
        "relu_appear_common_seeds": relu_common_all,
        "relu_appear_mixed_seeds": relu_mixed_all,
        "gdln_appear_common": gdln_common,
        "gdln_appear_mixed": gdln_mixed,
        "lag_common": lag_common,
        "lag_context": lag_context,
        "threshold": threshold,
    }
    return Schedule(start, context), info


def gating_phase(relu: DepthRuns) -> tuple[tuple[int, int], np.ndarray]:
    """Rule 3's phase ([rulebook-phase]) as ``(first, last)`` epochs and a mask of
    ``relu.grid`` (the least-change record if no record is within ``PHASE_SNAP``)."""
    snap_all = np.median(relu.snap_all, axis=0)
    phase = training_phase(snap_all, relu.grid, rulebook.PHASE_SNAP)
    if phase is None:
        phase = (int(relu.grid[np.nanargmin(snap_all)]),) * 2
    return phase, (relu.grid >= phase[0]) & (relu.grid <= phase[1])


def gating_series(relu: DepthRuns) -> dict:
    """The ``(seeds, records)`` series the gating claims read."""
    return {
        "strict1": relu.always_on[:, :, 0],
        "lin1": relu.linear_l1_change,
        "lin2": relu.linear_l2_change,
        "single": relu.functional("single"),
        "mixed": relu.functional("mixed"),
        "snap_all": relu.snap_all,
        "snap2": relu.functional("snap_change"),
    }


def phase_means(relu: DepthRuns, in_phase) -> dict:
    """Per seed, means over rule 3's phase of :func:`gating_series`.  Defined for the
    page book/depth.md."""
    s = gating_series(relu)
    keys = ("strict1", "lin1", "lin2", "single", "mixed")
    return {k: s[k][:, in_phase].mean(axis=1) for k in keys}


def context_gating(relu: DepthRuns, L_rank) -> np.ndarray:
    """Rule 5's window ``(seeds, records)``: loss below the best linear map's
    ([rulebook-structure])."""
    return rulebook.structure_window(relu.loss[:, relu.grid], L_rank[-1])


def window_reading(relu: DepthRuns, mask) -> dict:
    """Per seed, :func:`gating_series` averaged over ``mask``, and ``ratio`` (single
    over 2-of-3 share)."""
    s = gating_series(relu)
    out = {k: window_mean(v, mask) for k, v in s.items()}
    out["ratio"] = out["single"] / np.where(out["mixed"] > 0, out["mixed"], np.nan)
    return out


def chance_ratio(relu: DepthRuns) -> np.ndarray:
    """Per seed, layer 2's single over 2-of-3 share at init: the chance level."""
    single, mixed = relu.functional("single"), relu.functional("mixed")
    return single[:, 0] / np.where(mixed[:, 0] > 0, mixed[:, 0], np.nan)


def derived_schedules(relu, gdln, hand: Schedule, threshold: float, check) -> tuple:
    """``(derived, info, {threshold: schedule})`` of :func:`derive_schedule`."""
    derived, info = derive_schedule(relu, gdln, hand, threshold=threshold)
    thetas = sorted(set(check) | {threshold})
    checks = {q: derive_schedule(relu, gdln, hand, threshold=q)[0] for q in thetas}
    return derived, info, checks
