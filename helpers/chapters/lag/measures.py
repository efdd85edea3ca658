"""How the lag's networks compare with the ReLU network (``book/lag.md``): signed lags
per loss level, time gaps, what each step of the ladder adds, how the ReLU network's
gates move ([conv-measures], [conv-census])."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.measures import census_over_training, level_times, match, unit_weight


def level_lags(reference, curves) -> np.ndarray:
    """Signed lag of each curve behind the reference's curve of the same seed.

    Defined for the page book/lag.md.

    Args:
        reference: losses ``(S, T)`` (the ReLU network).
        curves: losses ``(S, T)``.

    Returns:
        ``ln(t_curve / t_reference)`` at each level of
        :data:`helpers.core.measures.LEVELS`, ``(S, levels)``; positive: the curve
        reaches the level later; ``nan`` where either never reaches it.
    """
    R, C = np.atleast_2d(reference), np.atleast_2d(curves)
    if R.shape != C.shape:
        raise ValueError(f"reference {R.shape} and curves {C.shape} differ in shape")
    return np.array([np.log(level_times(c) / level_times(r)) for r, c in zip(R, C)])


def step_points(lags: dict, rungs) -> dict:
    """What each step of the ladder adds to the lag, in log points, level by level.

    Defined for the page book/lag.md.

    Args:
        lags: ``{name: (S, levels)}`` log lags (:func:`level_lags`).
        rungs: the ladder's rungs in order.

    Returns:
        ``{rung: (levels,)}``: ``100`` times the median log lag of the rung minus that
        of the rung before (the first: minus zero, the ReLU network's own). Log lags
        add where percentages do not: the steps sum to the last rung's median log
        lag in log points; ``nan`` where a seed misses the level.
    """
    out, before = {}, 0.0
    for name in rungs:
        med = median_lag(lags[name])
        out[name] = 100.0 * (med - before)
        before = med
    return out


def gate_change(G_from, G_to, W1, W2) -> float:
    """Weighted share of gate entries that differ between two gatings of one network.

    Defined for the page book/lag.md.

    Args:
        G_from: ``H x P`` gates at one epoch.
        G_to: ``H x P`` gates at another.
        W1: ``H x d`` first-layer weights (the weighting's epoch).
        W2: ``p x H`` readout.

    Returns:
        ``sum_j w_j mean_i [G_from != G_to] / sum_j w_j`` with ``w_j`` the unit's
        weight ``|W2[:, j]| |W1[j, :]|`` ([conv-census]).
    """
    w = unit_weight(np.asarray(W1, float), np.asarray(W2, float))
    if w.sum() <= 0:
        raise ValueError("gate_change: every unit has zero weight")
    diff = (np.asarray(G_from, bool) != np.asarray(G_to, bool)).mean(axis=1)
    return float(np.sum(w * diff) / w.sum())


def gate_movement(gates, W1, W2, ds) -> dict:
    """How the ReLU network's gates move over training, per seed and record.

    Defined for the page book/lag.md.

    Args:
        gates: recorded gates ``(S, R, H, P)``.
        W1: recorded first-layer weights ``(S, R, H, d)``.
        W2: recorded readouts ``(S, R, p, H)``.
        ds: the contextual task.

    Returns:
        ``{measure: (S, R)}``: ``item_dependent`` (share of weight in units whose
        gating differs between items of one context), ``off_pattern`` (weighted share
        of gates that differ from the unit's context pattern, 1 - the contexts
        chapter's consistency), ``to_final`` (weighted share of gates that differ from
        the last record's, weighted at the last record).
    """
    S, R = np.shape(gates)[:2]
    out = {k: np.empty((S, R)) for k in ("item_dependent", "off_pattern", "to_final")}
    for s in range(S):
        c = census_over_training(gates[s], W1[s], W2[s], ds.contexts, ds.n_contexts)
        out["item_dependent"][s] = c["item_dependent"]
        out["off_pattern"][s] = 1.0 - c["consistency"]
        for r in range(R):
            out["to_final"][s, r] = gate_change(
                gates[s, r], gates[s, -1], W1[s, -1], W2[s, -1]
            )
    return out


def median_lag(lag) -> np.ndarray:
    """Median over seeds of log lags ``(S, levels)``, ``nan`` where any seed is.
    Defined for the page book/lag.md."""
    lag = np.asarray(lag, float)
    med = np.median(lag, axis=0)
    med[np.isnan(lag).any(axis=0)] = np.nan
    return med


@dataclass
class Runs:
    """The page's runs, losses ``(S, T)`` each: the ReLU network's ``relu``; the
    ladder's ``{rung: losses}``; its own gates fixed at each freeze epoch and trained
    on from its state there, ``frozen``, ``snapped`` (to contexts) and the control's
    ``random`` gates, each ``{freeze epoch: losses}``; the restarts from its initial
    weights ``restart`` (``{"frozen": {epoch: losses}, "snapped": {...}, "random":
    losses}``); the gates' movement ``move`` (:func:`gate_movement`) at the recorded
    epochs ``t_rec``.  Defined for the page book/lag.md."""

    relu: np.ndarray
    ladder: dict
    frozen: dict
    snapped: dict
    random: dict
    restart: dict
    move: dict
    t_rec: np.ndarray

    @property
    def freeze_epochs(self) -> list:
        """Every freeze epoch (the restarts'; the last is the end)."""
        return list(self.restart["frozen"])

    @property
    def state_epochs(self) -> list:
        """The freeze epochs the network goes on from (all but the end)."""
        return list(self.frozen)

    def nets(self) -> dict:
        """``{name: losses}``: the rungs, ``"frozen@e"``, ``"snapped@e"`` and
        ``"random@e"`` (from the state), ``"restart frozen@e"``, ``"restart
        snapped@e"`` and ``"restart random"``."""
        R = self.restart
        return {
            **self.ladder,
            **{f"{k}@{e}": L for k in FROM_STATE for e, L in getattr(self, k).items()},
            **{f"restart {k}@{e}": L for k in RESTARTED for e, L in R[k].items()},
            "restart random": R["random"],
        }


#: The networks that go on from the ReLU network's state, and the restarts.
FROM_STATE = ("frozen", "snapped", "random")
RESTARTED = ("frozen", "snapped")


@dataclass
class Comparison:
    """Every network of the page against the ReLU network: ``lags`` ``{name: (S,
    levels)}`` (:func:`level_lags`), ``fit`` ``{name: Match}`` (time gap and seed
    spread, :func:`helpers.core.measures.match`),
    ``step`` ``{rung: (levels,)}`` in log points (:func:`step_points`)."""

    lags: dict
    fit: dict
    step: dict


def compare(runs: Runs) -> Comparison:
    """The lags, time gaps and steps of every network of ``runs``.  Defined for the
    page book/lag.md (and its report)."""
    nets = runs.nets()
    lags = {name: level_lags(runs.relu, L) for name, L in nets.items()}
    return Comparison(
        lags=lags,
        fit={name: match(runs.relu, L) for name, L in nets.items()},
        step=step_points(lags, runs.ladder),
    )
