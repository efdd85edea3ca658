"""The predictions of the common + 2-of-3 ReLN (contexts chapter, "Predictions with no
tuned constant"): the authors' race.py, the constants derived from the data and the
init, and the ladder of mode races held against the simulation.  Defined for the page
book/contexts.md."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...core import modes as modes_
from ...core import relns
from ...core.datasets import contextual_task
from ...core.linear import initial_mode_strength
from ...core.measures import Evidence, match, time_gap
from ...core.modes import (
    ModeRace,
    PathwayModes,
    constant_overlap_matrix,
    equivalent_initial_strength,
    mode_projections,
    mode_race,
    overlap_matrix,
    partner_overlaps,
    pathway_modes,
)
from ...core.paper import CONTEXTS as PAPER
from .comparisons import median_gap, pairwise_gap


def nanmed(v, axis=None):
    """Median over the finite entries (NaN where there are none), without warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmedian(v, axis=axis)


def top_mode_strengths(maps_by_seed, modes: Sequence[PathwayModes], epochs, lr, d):
    """Equivalent initial strength (:func:`equivalent_initial_strength`) of each
    pathway's top mode at each recorded epoch: ``maps_by_seed`` a list over seeds of
    ``{name: (R, p, q)}`` maps; returns ``(S, pathways, R)``."""
    out = []
    for maps in maps_by_seed:
        rows = []
        for p in modes:
            proj = mode_projections(maps[p.name], p)
            rows.append(
                [
                    equivalent_initial_strength(proj[r, 0], p.s[0], d, t, lr)
                    for r, t in enumerate(epochs)
                ]
            )
        out.append(rows)
    return np.array(out, float)


def head_start_strengths(pred_maps, modes, epoch_index, epoch, lr, d, floor):
    """Every residual mode's equivalent initial strength at one epoch of the race
    prediction, concatenated over pathways (``raw``), and the strengths the mode race
    uses: at least ``floor`` (the init's), the init's where none is defined."""
    raw = np.concatenate(
        [
            equivalent_initial_strength(
                mode_projections(pred_maps[p.name], p)[epoch_index], p.s, d, epoch, lr
            )
            for p in modes
        ]
    )
    used = np.where(np.isfinite(raw), np.maximum(raw, floor), floor)
    return raw, used


@dataclass(frozen=True)
class LadderRow:
    """One prediction of the common + 2-of-3 ReLN's loss against its simulation."""

    label: str
    gap: float
    final_loss: float
    fixed_point_loss: float
    loss: np.ndarray


def ladder(
    sim, X, Y, R_star, modes, variants, *, lr, epochs, known=(), matrix_race=None
) -> list[LadderRow]:
    """Every prediction of the common + 2-of-3 ReLN's loss against its simulation.

    Defined for the page book/contexts.md ("Predictions with no tuned constant").

    Args:
        sim: the simulated losses, seeds x T.
        X, Y, R_star, modes: the task, the common pathway's converged residual and the
            context pathways' modes on it (:func:`mode_race`).
        variants: ``(label, overlaps, a0, a0_common)`` each: the mode race under it.
        lr, epochs: the step size and the number of epochs.
        known: ``(label, ModeRace)`` each: races integrated elsewhere (race.py's, on
            its own residual), placed after the variants.
        matrix_race: a loss curve, placed last; its fixed point is zero loss.

    Returns:
        One :class:`LadderRow` per prediction, each held against ``sim`` by
        :func:`median_gap`.
    """
    races = [
        (
            label,
            mode_race(
                X, Y, R_star, modes, O, a0=a0x, a0_common=a0c, lr=lr, epochs=epochs
            ),
        )
        for label, O, a0x, a0c in variants
    ]
    rows = [
        LadderRow(
            label,
            median_gap(sim, mr.loss),
            float(mr.loss[-1]),
            mr.fixed_point_loss,
            mr.loss,
        )
        for label, mr in [*races, *known]
    ]
    if matrix_race is not None:
        rows.append(
            LadderRow(
                "matrix race (helpers.core.race), everything derived",
                median_gap(sim, matrix_race),
                float(matrix_race[-1]),
                0.0,
                matrix_race,
            )
        )
    return rows


#: The ladder's row of race.py's constants on this book's common pathway and residual.
STAR_LABEL = "race.py's constants, on the common pathway of Eq. 7 and its residual"
RACE_LABEL = (
    f"race.py (Fig. 4a): overlaps {', '.join(f'{v:g}' for v in PAPER.race_overlaps)}, "
    f"top {PAPER.race_overlap_top:g}, $a_0$ {PAPER.race_a0_context:.0e} "
    f"(common {PAPER.race_a0_common:.0e})"
)


def authors_race(task, *, lr: float, epochs: int) -> ModeRace:
    """:func:`helpers.core.modes.authors_race` on ``task`` (:func:`.task.facts`).
    Defined for the page book/contexts.md."""
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


def _hierarchy_top_overlaps(C: int) -> np.ndarray:
    """The top modes' overlaps on the all-hierarchy task of Section 5 (theory:
    ``-(C-2)/(C-1)``)."""
    ds = contextual_task(C)
    net = relns.context_reln(ds, "mixed", "one-way")
    pm = pathway_modes(net, ds.X, relns.common_fit(ds)[1])
    return np.array(
        list(partner_overlaps(overlap_matrix(ds.X, pm), pm)["top"].values())
    )


def race_constants(task, run_m, pred_m, t_rec, *, lr, head_start_epoch) -> Constants:
    """The constants of the mode race read off the data, the init and the common +
    2-of-3 ReLN (``run_m`` simulated, ``pred_m`` its matrix race).  Defined for the
    page book/contexts.md."""
    std_c, std_x = relns.STD_COMMON, relns.STD_CONTEXT
    a0_context = initial_mode_strength(relns.WIDTH, std_x, std_x)
    pm, d_ctx = task.pm_mixed, float(task.C - 1)
    eq_pred = top_mode_strengths([pred_m.maps], pm, t_rec, lr, d_ctx)[0]
    maps = [run_m.pathway_maps(s) for s in range(len(run_m.loss))]
    eq_sim = top_mode_strengths(maps, pm, t_rec, lr, d_ctx)
    r_hs = list(t_rec).index(head_start_epoch)
    po = partner_overlaps(task.O_mixed, pm)
    a0_eq, used = head_start_strengths(
        pred_m.maps, pm, r_hs, head_start_epoch, lr, d_ctx, floor=a0_context
    )
    return Constants(
        a0_common=initial_mode_strength(relns.WIDTH, std_c, std_c),
        a0_context=a0_context,
        eq_top_pred=eq_pred,
        eq_top_sim=eq_sim,
        a0_hs_pred=float(nanmed(eq_pred[:, r_hs])),
        a0_hs_sim=float(nanmed(eq_sim[:, :, r_hs])),
        a0_eq=a0_eq,
        a0_eq_used=used,
        overlaps=po,
        top_vals=np.array(
            list({tuple(sorted(k)): v for k, v in po["top"].items()}.values())
        ),
        partner_all=np.concatenate(list(po["pairs"].values())),
        top_H=_hierarchy_top_overlaps(task.C),
    )


def variants(task, consts: Constants, *, overlap, a0_common_authors, a0_authors, epoch):
    """The mode races of the ladder: ``(label, overlaps, a0 of the context pathways,
    a0 of the common one)`` each, derived overlaps or the constant ``overlap``, from
    the init, the head start read at ``epoch``, each of the authors' ``a0_authors``,
    and race.py's constants last."""
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
        auth_ = f"authors' $a_0$ ({a0:.0e}, common {a0_common_authors:.0e})"
        out += [
            (f"derived overlaps, {auth_}", O, a0, a0_common_authors),
            (f"overlap {overlap}, {auth_}", O45, a0, a0_common_authors),
        ]
    O_star = modes_.race_py_overlaps(task.ds.X, task.pm_mixed)
    out.append((STAR_LABEL, O_star, PAPER.race_a0_context, PAPER.race_a0_common))
    return out


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
    g_authors: float  # the authors' method at its best a0
    reln_spread: float  # two common + 2-of-3 seeds


def prediction_ladder(
    task, rows_in, race_py, relu, reln, run_m, pred_m, *, lr, epochs, overlap
):
    """The ladder of the page book/contexts.md: the mode races ``rows_in``
    (:func:`variants`), race.py's curve ``race_py`` and the matrix race ``pred_m``
    against the simulated common + 2-of-3 ReLN ``run_m``; race.py's curve also
    against the 7-pathway ReLN ``reln`` and the ReLU network."""
    sim = run_m.loss
    rows = ladder(
        sim, task.ds.X, task.ds.Y, task.R_star, task.pm_mixed, rows_in, lr=lr,
        epochs=epochs, known=[(RACE_LABEL, race_py)], matrix_race=pred_m.loss,
    )  # fmt: skip
    race_row = next(r for r in rows if r.label == RACE_LABEL)
    star_row = next(r for r in rows if r.label == STAR_LABEL)
    authors = [r for r in rows if r.label.startswith(f"overlap {overlap}, auth")]
    return Ladder(
        rows=rows,
        race_row=race_row,
        star_row=star_row,
        sim_m=sim,
        m_race=match(reln.loss, race_row.loss),
        g_race_relu=median_gap(relu.loss, race_row.loss),
        g_race_star=time_gap(race_py.loss, star_row.loss),
        g_authors=min(r.gap for r in authors),
        reln_spread=pairwise_gap(sim),
    )
