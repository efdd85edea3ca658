"""How the lag's networks compare with the ReLU network (``book/lag.md``;
[conv-measures], [conv-census])."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.measures import census_over_training, level_times, match, unit_weight


def level_lags(reference, curves) -> np.ndarray:
    """``(S, levels)``: ``ln(t_curve / t_reference)`` per seed at each level of
    :data:`helpers.core.measures.LEVELS` (positive: later; nan: never), both ``(S, T)``.
    Defined for the page book/lag.md."""
    R, C = np.atleast_2d(reference), np.atleast_2d(curves)
    if R.shape != C.shape:
        raise ValueError(f"reference {R.shape} and curves {C.shape} differ in shape")
    return np.array([np.log(level_times(c) / level_times(r)) for r, c in zip(R, C)])


def step_points(lags: dict, rungs) -> dict:
    """``{rung: (levels,)}``: what each step of the ladder adds to the median log lag,
    in log points (they sum to the last rung's).  Defined for the page book/lag.md."""
    out, before = {}, 0.0
    for name in rungs:
        med = median_lag(lags[name])
        out[name] = 100.0 * (med - before)
        before = med
    return out


def gate_change(G_from, G_to, W1, W2) -> float:
    """Share of ``H x P`` gate entries that differ between two gatings, weighted by
    unit weight from ``W1``, ``W2`` ([conv-census]).  Defined for the page
    book/lag.md."""
    w = unit_weight(np.asarray(W1, float), np.asarray(W2, float))
    if w.sum() <= 0:
        raise ValueError("gate_change: every unit has zero weight")
    diff = (np.asarray(G_from, bool) != np.asarray(G_to, bool)).mean(axis=1)
    return float(np.sum(w * diff) / w.sum())


def gate_movement(gates, W1, W2, ds) -> dict:
    """How the ReLU network's gates ``(S, R, H, P)`` move over training.  Defined for
    the page book/lag.md.

    Returns:
        ``{measure: (S, R)}``: ``item_dependent``, ``off_pattern`` (1 - consistency)
        and ``to_final`` (:func:`gate_change` to the last record).
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
    """Median over seeds of ``(S, levels)`` log lags, nan where any seed is nan.
    Defined for the page book/lag.md."""
    lag = np.asarray(lag, float)
    med = np.median(lag, axis=0)
    med[np.isnan(lag).any(axis=0)] = np.nan
    return med


@dataclass
class Runs:
    """The page's runs, losses ``(S, T)`` each: ``relu``, ``ladder`` ``{rung: ...}``,
    ``frozen``, ``snapped``, ``random`` ``{freeze epoch: ...}`` (from the ReLU state),
    ``restart`` (from the initial weights), and ``move`` at epochs ``t_rec``.
    Defined for the page book/lag.md."""

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
        """``{name: losses}`` of every network (``"frozen@e"``, ``"restart random"``,
        ...)."""
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
    """Every network against the ReLU network: ``lags``, ``fit`` (``Match``) and
    ``step`` (:func:`step_points`)."""

    lags: dict
    fit: dict
    step: dict


def compare(runs: Runs) -> Comparison:
    """The lags, time gaps and steps of every network of ``runs``.  Defined for the
    page book/lag.md."""
    nets = runs.nets()
    lags = {name: level_lags(runs.relu, L) for name, L in nets.items()}
    return Comparison(
        lags=lags,
        fit={name: match(runs.relu, L) for name, L in nets.items()},
        step=step_points(lags, runs.ladder),
    )
