"""The contextual task of Section 4 ([conv-contextual]), the page's parameters and the
ReLN's effective datasets (Eqs. 4-6).  Defined for the page book/contexts.md."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.datasets import Dataset, contextual_task, effective_dataset
from ...core.engine import GatedNetwork
from ...core.linear import diagonalizability
from ...core.modes import PathwayModes, overlap_matrix, pathway_modes
from ...core.relns import common_fit, context_reln, item_rows

#: Each 2-of-3 pathway (off in context j) and the single-context pathway on in j.
MIRRORS = {"ctx23": "ctx1", "ctx13": "ctx2", "ctx12": "ctx3"}


@dataclass(frozen=True)
class Params:
    """The page's parameters (its papermill cell); see book/contexts.md."""

    seeds: int
    epochs: int
    lr: float
    relu_width: int
    relu_std: float
    record_every: int
    show_epochs: list
    head_start_epoch: int
    authors_overlap: float
    authors_a0_common: float
    authors_a0_context: list
    census_thresholds: list
    control_draws: int
    init: str

    def __post_init__(self):
        if int(self.seeds) < 2:
            raise ValueError(f"seeds must be >= 2 (the yardstick): {self.seeds}")
        for e in [*self.show_epochs, self.head_start_epoch]:
            if e not in self.t_rec:
                raise ValueError(
                    f"epoch {e}: not a multiple of record_every in 0..{self.epochs}"
                )

    seed_list = property(lambda self: list(range(int(self.seeds))))
    t_rec = property(lambda self: np.arange(0, self.epochs + 1, self.record_every))


@dataclass(frozen=True)
class Task:
    """The task, its common pathway's fit and its context pathways' effective
    datasets on the residual (``pm_*``) and on the raw targets (``raw_*``)."""

    ds: Dataset
    C: int
    R_star: np.ndarray  # the residual the common pathway's converged map leaves
    L0: float  # the initial summed loss
    L_linear: float  # the best any linear network can do
    diag_211: dict  # Assumption 2.1.1 (diagonalizability) here
    diag_211_H: dict  # and on the all-hierarchy task of Section 5
    net_mixed: GatedNetwork  # common + 2-of-3, one-way
    net_single: GatedNetwork  # common + single-context, one-way
    pm_mixed: list[PathwayModes]
    pm_single: list[PathwayModes]
    raw_mixed: list[PathwayModes]
    raw_single: list[PathwayModes]
    O_mixed: np.ndarray  # the derived overlaps of the 2-of-3 pathways
    d_all: np.ndarray  # their input variances (O's diagonal)
    sx_cross: np.ndarray  # Sigma_x(q, p) of two 2-of-3 pathways, items only
    mirror_err: float  # largest |s| difference, 2-of-3 against single-context


def facts(ds: Dataset) -> Task:
    """The effective datasets of the contextual task ``ds`` and the numbers the page
    cites."""
    C, X, Y = ds.n_contexts, ds.X, ds.Y
    items = item_rows(ds)
    R_star = common_fit(ds)[1]
    net_mixed = context_reln(ds, "mixed", "one-way")
    net_single = context_reln(ds, "single", "one-way")
    pm_mixed, pm_single = (pathway_modes(n, X, R_star) for n in (net_mixed, net_single))
    O_mixed = overlap_matrix(X, pm_mixed)
    g0, g1 = pm_mixed[0].gate, pm_mixed[1].gate
    sx = effective_dataset(X, Y, g0, gate_q=g1, inputs=items, inputs_q=items)[1]
    singles, H = {p.name: p for p in pm_single}, contextual_task(C)
    return Task(
        ds=ds,
        C=C,
        R_star=R_star,
        L0=0.5 * float(np.sum(Y**2)),
        L_linear=0.5 * float(np.sum(R_star**2)),
        diag_211=diagonalizability(X, Y),
        diag_211_H=diagonalizability(H.X, H.Y),
        net_mixed=net_mixed,
        net_single=net_single,
        pm_mixed=pm_mixed,
        pm_single=pm_single,
        raw_mixed=pathway_modes(net_mixed, X, Y),
        raw_single=pathway_modes(net_single, X, Y),
        O_mixed=O_mixed,
        d_all=np.diag(O_mixed),
        sx_cross=sx,
        mirror_err=max(
            np.abs(p.s - singles[MIRRORS[p.name]].s).max() for p in pm_mixed
        ),
    )
