"""The uniqueness race of Proposition 4.2: common + 1-of-3 against common + 2-of-3,
their superset, and the race restarted from a converged common pathway.

Defined for the page book/proofs.md.
"""

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


def best_linear_loss(X, Y) -> float:
    """Summed loss of the best linear map, ``1/2 ||Y - Y X^+ X||^2``
    ([conv-contextual]): the plateau the common pathway alone reaches, and what the
    context pathways must remove."""
    X = np.asarray(X, float)
    Y = np.asarray(Y, float)
    R = Y - Y @ np.linalg.pinv(X) @ X
    return float(0.5 * np.sum(R**2))


def context_learning_time(L, plateau: float, fraction: float = 0.5) -> float:
    """First epoch at which a loss curve falls below ``fraction * plateau`` (``inf`` if
    never): with ``plateau`` = :func:`best_linear_loss`, the time the context pathways
    need to remove that fraction of what no linear map can fit."""
    L = np.asarray(L, float)
    if not 0 < fraction < 1 or plateau <= 0:
        raise ValueError(
            f"context_learning_time needs 0 < fraction < 1 and plateau > 0, got "
            f"{fraction}, {plateau}"
        )
    hit = np.flatnonzero(L <= fraction * plateau)
    return float(hit[0]) if hit.size else float("inf")


def single_norms(run, epoch_index: int = -1) -> np.ndarray:
    """Frobenius norm of the 1-of-3 pathways' maps (the pathways named by one context)
    at the recorded epoch ``epoch_index``, per seed (``singles_inactive``)."""
    return np.array(
        [
            np.sqrt(
                sum(
                    np.sum(M[epoch_index] ** 2)
                    for n, M in run.pathway_maps(s).items()
                    if n != "common" and len(n) == 4
                )
            )
            for s in range(run.loss.shape[0])
        ]
    )


@dataclass
class Race:
    """The race's measures: the ReLU and candidate losses (``losses``, keyed as
    :data:`NAMES`), the best linear loss ``L_lin``, learning times per seed
    (``t_seed``, ReLU included), the 2-of-3 ReLN against the family (``family``) and
    the superset's gap (``gap_both``), and the 1-of-3 pathways' norms with and
    without the 2-of-3 ones at the end and at epoch ``mid`` (``norms_mid``)."""

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
    """The race read off the ReLU losses and the candidates' ``runs`` (weights
    recorded at ``mid`` and the end; Defined for the page book/proofs.md)."""
    L_lin = best_linear_loss(ds.X, ds.Y)
    losses = {k: r.loss for k, r in runs.items()}
    curves = {**losses, "relu": relu_loss}
    t_seed = {
        k: np.array([context_learning_time(L, L_lin) for L in c])
        for k, c in curves.items()
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
    """The effective datasets of a 1-of-3 and a 2-of-3 pathway (item inputs), on the
    raw targets and on the residual the best linear map leaves: ``{(pathway,
    targets): (top 4 singular values, top input eigenvalue, Sigma_yx)}`` and the
    largest entry of the two residual correlations' sum (0: one is minus the
    other)."""
    items = list(range(8))
    R = ds.Y - ds.Y @ np.linalg.pinv(ds.X) @ ds.X
    sv = {}
    names = {"1-of-3 (on in context 1)": (0,), "2-of-3 (off in context 1)": (1, 2)}
    for name, subset in names.items():
        g = context_gate(ds, subset)
        for target, T in [("raw targets Y", ds.Y), ("residual R", R)]:
            syx, sx = effective_dataset(ds.X, T, g, inputs=items)
            svals = np.linalg.svd(syx, compute_uv=False)[:4]
            sv[name, target] = (svals, np.linalg.eigvalsh(sx)[-1], syx)
    one, two = (sv[k, "residual R"][2] for k in names)
    return sv, float(np.abs(one + two).max())


def race_from_converged_common(ds: Dataset, coupling, lr, epochs) -> dict:
    """The race restarted with the common pathway at the best linear map (a balanced
    factorisation of ``Y X^+``), the context pathways from their random init (seed
    0): the summed loss of the 1-of-3 ('single') and 2-of-3 ('mixed') ReLNs."""
    U, S, Vt = np.linalg.svd(ds.Y @ np.linalg.pinv(ds.X), full_matrices=False)
    out = {}
    for kind in ["single", "mixed"]:
        net = context_reln(ds, kind, coupling=coupling)
        W1, W2 = init_params(net, 0)
        sl = net.pathway_slice("common")
        W1[sl], W2[:, sl] = 0.0, 0.0
        W1[sl.start : sl.start + S.size] = np.sqrt(S)[:, None] * Vt
        W2[:, sl.start : sl.start + S.size] = U * np.sqrt(S)
        run = train(net, ds.X, ds.Y, lr=lr, epochs=epochs, seeds=[0], params0=[W1, W2])
        out[kind] = run.loss[0]
    return out


class Control(NamedTuple):
    """The race without its transient: the two strategies' effective datasets
    (``sv``, ``identity_gap``: :func:`strategy_datasets`) and the ``losses`` of
    :func:`race_from_converged_common` after ``epochs``."""

    sv: dict
    identity_gap: float
    losses: dict
    epochs: int


def control_race(ds: Dataset, coupling, lr, epochs: int) -> Control:
    """The control of the race (Defined for the page book/proofs.md)."""
    sv, gap = strategy_datasets(ds)
    return Control(
        sv, gap, race_from_converged_common(ds, coupling, lr, epochs), epochs
    )
