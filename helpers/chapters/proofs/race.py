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
    """Per seed, the norm of the 1-of-3 pathways' maps at the epoch ``epoch_index``."""
    norms = []
    for s in range(run.loss.shape[0]):
        maps = run.pathway_maps(s).items()
        singles = [M[epoch_index] for n, M in maps if n != "common" and len(n) == 4]
        norms.append(np.sqrt(sum(np.sum(M**2) for M in singles)))
    return np.array(norms)


@dataclass
class Race:
    """The race: the losses (candidates keyed as :data:`NAMES`), best linear loss,
    learning times per seed, the 2-of-3 ReLN against the ``family``, the superset's
    gap, the 1-of-3 pathways' norms with and without the 2-of-3 ones (end, ``mid``)."""

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
    gap_both = match(relu_loss, losses["both"]).value
    both, alone = runs["both"], runs["single"]
    mid_norms = (single_norms(both, 0), single_norms(alone, 0))
    return Race(relu_loss, losses, L_lin, t_seed, family, gap_both, single_norms(both),
                single_norms(alone), mid_norms, mid, coupling)  # fmt: skip


def strategy_datasets(ds: Dataset):
    """The effective datasets of a 1-of-3 and a 2-of-3 pathway (item inputs) on the
    raw targets and on the best linear map's residual.

    Returns:
        ``{(pathway, targets): (top 4 singular values, top input eigenvalue,
        Sigma_yx (p x 8))}`` and the largest entry of the two residual ``Sigma_yx``'s
        sum (0: one is minus the other).
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
    """The race without its transient: :func:`strategy_datasets` and the ReLNs'
    ``losses`` over ``epochs`` from a converged common pathway."""

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
        top = slice(sl.start, sl.start + S.size)
        W1[top], W2[:, top] = np.sqrt(S)[:, None] * Vt, U * np.sqrt(S)
        run = train(net, ds.X, ds.Y, lr=lr, epochs=epochs, seeds=[0], params0=[W1, W2])
        losses[kind] = run.loss[0]
    return Control(*strategy_datasets(ds), losses, epochs)
