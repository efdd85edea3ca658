"""The uniqueness race of Proposition 4.2: common + 1-of-3 against common + 2-of-3,
their superset, and the race restarted from a converged common pathway."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...core.datasets import Dataset, context_gate, effective_dataset
from ...core.engine import init_params, train
from ...core.measures import Match, match
from ...core.relns import context_reln

#: The race's candidates, by the kind of :func:`helpers.core.relns.context_reln`.
NAMES = {
    "single": "common + 1-of-3",
    "mixed": "common + 2-of-3",
    "both": "common + 1-of-3 + 2-of-3",
}


def linear_residual(X, Y) -> np.ndarray:
    """What the best linear map leaves of the targets, ``Y - Y X^+ X``."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    return Y - Y @ np.linalg.pinv(X) @ X


def best_linear_loss(X, Y) -> float:
    """``1/2 ||Y - Y X^+ X||^2``: the plateau the common pathway alone reaches, and
    what the context pathways must remove ([conv-contextual])."""
    return float(0.5 * np.sum(linear_residual(X, Y) ** 2))


def context_learning_time(L, plateau: float, fraction: float = 0.5) -> float:
    """First epoch at which the loss curve ``L`` falls below ``fraction * plateau``
    (``inf`` if never)."""
    if not 0 < fraction < 1 or plateau <= 0:
        raise ValueError(
            f"context_learning_time needs 0 < fraction < 1 and plateau > 0, got "
            f"{fraction}, {plateau}"
        )
    hit = np.flatnonzero(np.asarray(L, float) <= fraction * plateau)
    return float(hit[0]) if hit.size else float("inf")


def single_norms(run, epoch_index: int = -1) -> np.ndarray:
    """Per seed, the Frobenius norm of the 1-of-3 pathways' maps at the recorded epoch
    ``epoch_index``."""
    norms = []
    for s in range(run.loss.shape[0]):
        maps = run.pathway_maps(s).items()
        singles = [M[epoch_index] for n, M in maps if n != "common" and len(n) == 4]
        norms.append(np.sqrt(sum(np.sum(M**2) for M in singles)))
    return np.array(norms)


@dataclass
class Race:
    """The race: ReLU and candidate ``losses`` (keyed as :data:`NAMES`), the best
    linear loss ``L_lin``, learning times per seed (``t_seed``, ReLU included), the
    2-of-3 ReLN against the ``family`` and the superset's gap (``gap_both``), and the
    1-of-3 pathways' norms with and without the 2-of-3 ones (at the end; ``norms_mid``
    at epoch ``mid``)."""

    relu_loss: np.ndarray
    losses: dict
    L_lin: float
    t_seed: dict
    family: Match
    gap_both: float
    norms_both: np.ndarray
    norms_alone: np.ndarray
    norms_mid: tuple
    mid: int
    coupling: str

    @property
    def epochs(self) -> int:
        return self.relu_loss.shape[1] - 1


def race_measures(ds: Dataset, relu_loss, runs: dict, mid: int, coupling) -> Race:
    """The race read off the ReLU losses and the candidates' ``runs``."""
    L_lin = best_linear_loss(ds.X, ds.Y)
    losses = {k: r.loss for k, r in runs.items()}
    t_seed = {
        k: np.array([context_learning_time(L, L_lin) for L in c])
        for k, c in {**losses, "relu": relu_loss}.items()
    }
    # the paper's candidate against the family (rulebook, rule 2); "both" contains it
    family = match(
        relu_loss,
        losses["mixed"],
        name=NAMES["mixed"],
        competitors={NAMES["single"]: losses["single"]},
    )
    return Race(
        relu_loss,
        losses,
        L_lin,
        t_seed,
        family,
        match(relu_loss, losses["both"]).value,
        single_norms(runs["both"]),
        single_norms(runs["single"]),
        (single_norms(runs["both"], 0), single_norms(runs["single"], 0)),
        mid,
        coupling,
    )


def strategy_datasets(ds: Dataset):
    """The effective datasets of a 1-of-3 and a 2-of-3 pathway (item inputs) on the
    raw targets and on the best linear map's residual.

    Returns:
        ``{(pathway, targets): (top 4 singular values, top input eigenvalue,
        Sigma_yx)}`` and the largest entry of the two residual ``Sigma_yx``'s sum (0:
        one is minus the other).
    """
    R = linear_residual(ds.X, ds.Y)
    sv = {}
    names = {"1-of-3 (on in context 1)": (0,), "2-of-3 (off in context 1)": (1, 2)}
    for name, subset in names.items():
        g = context_gate(ds, subset)
        for target, T in [("raw targets Y", ds.Y), ("residual R", R)]:
            syx, sx = effective_dataset(ds.X, T, g, inputs=list(range(8)))
            svals = np.linalg.svd(syx, compute_uv=False)[:4]
            sv[name, target] = (svals, np.linalg.eigvalsh(sx)[-1], syx)
    one, two = (sv[k, "residual R"][2] for k in names)
    return sv, float(np.abs(one + two).max())


class Control(NamedTuple):
    """The race without its transient: the strategies' effective datasets (``sv``,
    ``identity_gap``: :func:`strategy_datasets`) and the summed ``losses`` after
    ``epochs`` of the 1-of-3 and 2-of-3 ReLNs started from a converged common
    pathway."""

    sv: dict
    identity_gap: float
    losses: dict
    epochs: int


def control_race(ds: Dataset, coupling, lr, epochs: int) -> Control:
    """The race restarted with the common pathway at the best linear map (a balanced
    factorisation of ``Y X^+``), the context pathways at their random init (seed 0)."""
    U, S, Vt = np.linalg.svd(ds.Y @ np.linalg.pinv(ds.X), full_matrices=False)
    losses = {}
    for kind in ["single", "mixed"]:
        net = context_reln(ds, kind, coupling=coupling)
        W1, W2 = init_params(net, 0)
        sl = net.pathway_slice("common")
        W1[sl], W2[:, sl] = 0.0, 0.0
        W1[sl.start : sl.start + S.size] = np.sqrt(S)[:, None] * Vt
        W2[:, sl.start : sl.start + S.size] = U * np.sqrt(S)
        run = train(net, ds.X, ds.Y, lr=lr, epochs=epochs, seeds=[0], params0=[W1, W2])
        losses[kind] = run.loss[0]
    return Control(*strategy_datasets(ds), losses, epochs)
