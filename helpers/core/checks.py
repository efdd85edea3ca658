"""Input checks: every bad input gets an error naming the problem."""

from __future__ import annotations

import numbers

import numpy as np


class TrainingDiverged(FloatingPointError):
    """A run whose loss became NaN or infinite; the message names the epoch and seed."""


def check_xy(X, Y):
    """``X`` (d x P) and ``Y`` (p x P), finite, with the same number of datapoints."""
    X = np.asarray(X)
    Y = np.asarray(Y)
    if X.ndim != 2 or Y.ndim != 2:
        raise ValueError(
            f"X and Y must be 2-D with datapoints as columns; got X.shape={X.shape}, "
            f"Y.shape={Y.shape}"
        )
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} datapoints (columns) but Y has {Y.shape[1]}: "
            f"X.shape={X.shape}, Y.shape={Y.shape}"
        )
    if X.shape[1] == 0:
        raise ValueError("X and Y hold no datapoints")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(Y))):
        raise ValueError("X and Y must be finite (found NaN or inf)")
    return X, Y


def check_gate(gate, P: int, name: str = "gate") -> np.ndarray:
    """A gate over ``P`` datapoints: 0/1 values, on for at least one datapoint."""
    g = np.asarray(gate, dtype=float)
    if g.shape != (P,):
        raise ValueError(
            f"{name} must have one entry per datapoint, shape ({P},); got {g.shape}"
        )
    if not np.all((g == 0) | (g == 1)):
        bad = np.unique(g[(g != 0) & (g != 1)])[:5]
        raise ValueError(
            f"{name} must be 0/1 (off/on) for every datapoint; found values {bad}"
        )
    if g.sum() == 0:
        raise ValueError(
            f"{name} is off for every datapoint: such a pathway never learns"
        )
    return g


def check_positive(value, name: str) -> float:
    if not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def check_positive_int(value, name: str) -> int:
    """A count (seeds, rounds, repeats, epochs): an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_epochs(epochs, name: str = "epochs") -> int:
    """A number of gradient steps: an integer >= 1."""
    return check_positive_int(epochs, name)


def check_seeds(seeds) -> tuple[int, ...]:
    """One seed or a list of distinct seeds, as a tuple of ints."""
    if isinstance(seeds, (int, np.integer)):
        seeds = [int(seeds)]
    seeds = tuple(int(s) for s in seeds)
    if not seeds:
        raise ValueError("seeds must name at least one seed")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct, got {seeds}")
    return seeds
