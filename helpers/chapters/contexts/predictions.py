"""The predictions of the common + 2-of-3 ReLN: the authors' race.py, the constants
derived from the data and the init, and the ladder of mode races against the
simulation.  Defined for the page book/contexts.md."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ...core import modes as modes_
from ...core import relns
from ...core.datasets import contextual_task
from ...core.linear import initial_mode_strength
from ...core.measures import Evidence, match, time_gap
from ...core.modes import (
    ModeRace,
    constant_overlap_matrix,
    equivalent_initial_strength,
    mode_projections,
    mode_race,
    overlap_matrix,
    partner_overlaps,
    pathway_modes,
)
from ...core.paper import CONTEXTS as PAPER
from .comparisons import median_gap

#: The ladder's row of race.py's constants on this book's common pathway and residual.
STAR_LABEL = "race.py's constants, on the common pathway of Eq. 7 and its residual"
AUTHORS_LABEL = "authors' $a_0$"  # in the label of each row with the authors' a0
RACE_LABEL = (
    f"race.py (Fig. 4a): overlaps {', '.join(f'{v:g}' for v in PAPER.race_overlaps)}, "
    f"top {PAPER.race_overlap_top:g}, $a_0$ {PAPER.race_a0_context:.0e} "
    f"(common {PAPER.race_a0_common:.0e})"
)


def nanmed(v, axis=None):
    """Median over the finite entries (NaN where there are none), without warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmedian(v, axis=axis)


def authors_race(task, *, lr: float, epochs: int) -> ModeRace:
    """:func:`helpers.core.modes.authors_race` on ``task``.  Defined for the page
    book/contexts.md."""
    return modes_.authors_race(task.ds, task.net_mixed, lr=lr, epochs=epochs)


@dataclass(frozen=True)
class Constants:
    """The race's constants derived from the data and the init, and the head start."""

    a0_common: float  # the common pathway's initial mode strength (from its init)
    a0_context: float  # a context pathway's
    eq_top_pred: np.ndarray  # top modes' equivalent a0 over training, (pathways, R)
    eq_top_sim: np.ndarray  # the same simulated, (S, pathways, R)
    a0_hs_pred: float  # at the head-start epoch, prediction (median)
    a0_hs_sim: float  # and simulation
    a0_eq: np.ndarray  # every residual mode's equivalent a0 at that epoch
    a0_eq_used: np.ndarray  # the strengths the mode race uses
    overlaps: dict  # partner_overlaps of the 2-of-3 pathways
    top_vals: np.ndarray  # the top modes' overlap, one per pair
    partner_all: np.ndarray  # every mode's partner overlap
    top_H: np.ndarray  # the top modes' overlap on the all-hierarchy task


def _top_strengths(maps, modes, epochs, lr, d) -> list:
    """Each pathway's top mode's equivalent initial strength at each epoch."""
    tops = [(mode_projections(maps[p.name], p)[:, 0], p.s[0]) for p in modes]
    return [
        [equivalent_initial_strength(a[r], s, d, t, lr) for r, t in enumerate(epochs)]
        for a, s in tops
    ]


def race_constants(task, run_m, pred_m, t_rec, *, lr, head_start_epoch) -> Constants:
    """The mode race's constants from the data, the init and the common + 2-of-3 ReLN
    (``run_m`` simulated, ``pred_m`` its matrix race): each residual mode's equivalent
    initial strength at ``head_start_epoch`` and the modes' overlaps, also on the
    all-hierarchy task of Section 5.  Defined for the page book/contexts.md."""
    std_c, std_x = relns.STD_COMMON, relns.STD_CONTEXT
    a0x = initial_mode_strength(relns.WIDTH, std_x, std_x)
    pm, d = task.pm_mixed, float(task.C - 1)
    eq_pred = np.array(_top_strengths(pred_m.maps, pm, t_rec, lr, d), float)
    maps_sim = [run_m.pathway_maps(s) for s in range(len(run_m.loss))]
    eq_sim = np.array([_top_strengths(m, pm, t_rec, lr, d) for m in maps_sim], float)
    hs = head_start_epoch
    r_hs = list(t_rec).index(hs)
    proj = [mode_projections(pred_m.maps[p.name], p) for p in pm]
    a0_eq = np.concatenate(
        [equivalent_initial_strength(a[r_hs], p.s, d, hs, lr) for a, p in zip(proj, pm)]
    )
    po = partner_overlaps(task.O_mixed, pm)
    top = {tuple(sorted(k)): v for k, v in po["top"].items()}  # one per pair
    H = contextual_task(task.C)
    pm_H = pathway_modes(
        relns.context_reln(H, "mixed", "one-way"), H.X, relns.common_fit(H)[1]
    )
    top_H = partner_overlaps(overlap_matrix(H.X, pm_H), pm_H)["top"]
    return Constants(
        a0_common=initial_mode_strength(relns.WIDTH, std_c, std_c),
        a0_context=a0x,
        eq_top_pred=eq_pred,
        eq_top_sim=eq_sim,
        a0_hs_pred=float(nanmed(eq_pred[:, r_hs])),
        a0_hs_sim=float(nanmed(eq_sim[:, :, r_hs])),
        a0_eq=a0_eq,
        a0_eq_used=np.where(np.isfinite(a0_eq), np.maximum(a0_eq, a0x), a0x),
        overlaps=po,
        top_vals=np.array(list(top.values())),
        partner_all=np.concatenate(list(po["pairs"].values())),
        top_H=np.array(list(top_H.values())),
    )


def variants(task, consts: Constants, *, overlap, a0_common_authors, a0_authors, epoch):
    """The ladder's mode races, ``(label, overlaps, context a0, common a0)`` each:
    derived overlaps or ``overlap``, a0 from the init, the head start read at
    ``epoch`` or each of ``a0_authors``; race.py's constants last."""
    O, O45 = task.O_mixed, constant_overlap_matrix(task.ds.X, task.pm_mixed, overlap)
    init_, hs_ = "$a_0$ from the init", f"head start read at epoch {epoch}"
    a0x, a0c, used = consts.a0_context, consts.a0_common, consts.a0_eq_used
    out = [
        (f"derived overlaps, {init_}", O, a0x, a0c),
        (f"overlap {overlap}, {init_}", O45, a0x, a0c),
        (f"derived overlaps, {hs_}", O, used, a0c),
        (f"overlap {overlap}, {hs_}", O45, used, a0c),
    ]
    for a0 in a0_authors:
        auth_ = f"{AUTHORS_LABEL} ({a0:.0e}, common {a0_common_authors:.0e})"
        out += [
            (f"derived overlaps, {auth_}", O, a0, a0_common_authors),
            (f"overlap {overlap}, {auth_}", O45, a0, a0_common_authors),
        ]
    O_star = modes_.race_py_overlaps(task.ds.X, task.pm_mixed)
    out.append((STAR_LABEL, O_star, PAPER.race_a0_context, PAPER.race_a0_common))
    return out


@dataclass(frozen=True)
class LadderRow:
    """One prediction of the common + 2-of-3 ReLN's loss against its simulation."""

    label: str
    gap: float
    final_loss: float
    fixed_point_loss: float
    loss: np.ndarray


@dataclass(frozen=True)
class Ladder:
    """Every prediction of the common + 2-of-3 ReLN against its simulation."""

    rows: list  # LadderRow each: the variants, race.py, the matrix race
    race_row: LadderRow  # race.py's curve
    star_row: LadderRow  # race.py's constants on the common pathway of Eq. 7
    sim_m: np.ndarray  # the simulated losses, (S, T)
    m_race: Evidence  # race.py's curve against the 7-pathway ReLN (Fig. 4a)
    g_race_relu: float  # ... against the ReLU network
    g_race_star: float  # race.py's own race against STAR_LABEL's
    g_authors: float  # the authors' method (their overlap) at its best a0
    g_authors_any: float  # ... with either overlap


def prediction_ladder(
    task, rows_in, race_py, relu, reln, run_m, pred_m, *, lr, epochs, overlap
):
    """The ladder of the page book/contexts.md: the mode races ``rows_in``
    (:func:`variants`), race.py's curve ``race_py`` and the matrix race ``pred_m``,
    each against the simulated common + 2-of-3 ReLN ``run_m``; race.py's also against
    the 7-pathway ReLN ``reln`` and the ReLU network."""
    sim, X, Y, R, pm = run_m.loss, task.ds.X, task.ds.Y, task.R_star, task.pm_mixed

    def row(label, loss, fixed_point_loss):
        return LadderRow(
            label, median_gap(sim, loss), float(loss[-1]), fixed_point_loss, loss
        )

    rows = []
    for label, O, a0x, a0c in rows_in:
        mr = mode_race(X, Y, R, pm, O, a0=a0x, a0_common=a0c, lr=lr, epochs=epochs)
        rows.append(row(label, mr.loss, mr.fixed_point_loss))
    rows.append(row(RACE_LABEL, race_py.loss, race_py.fixed_point_loss))
    matrix = "matrix race (helpers.core.race), everything derived"
    rows.append(row(matrix, pred_m.loss, 0.0))
    by_label = {r.label: r for r in rows}
    race_row, star_row = by_label[RACE_LABEL], by_label[STAR_LABEL]
    authors = [r for r in rows if AUTHORS_LABEL in r.label]
    theirs = [r for r in authors if r.label.startswith(f"overlap {overlap}, ")]
    return Ladder(
        rows=rows,
        race_row=race_row,
        star_row=star_row,
        sim_m=sim,
        m_race=match(reln.loss, race_row.loss),
        g_race_relu=median_gap(relu.loss, race_row.loss),
        g_race_star=time_gap(race_py.loss, star_row.loss),
        g_authors=min(r.gap for r in theirs),
        g_authors_any=min(r.gap for r in authors),
    )
