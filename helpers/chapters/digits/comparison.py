"""The ReLNs against the ReLU network on the digits task: time gaps (all levels, above
the floor, level by level), the step-size check, test errors and Assumption 2.1.1
(Defined for the page book/digits.md)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.datasets import contextual_task
from ...core.engine import train
from ...core.linear import diagonalizability
from ...core.measures import Match, level_times, match
from .task import DigitsTask, Reference, answers, final_outputs, held_out_columns

#: The loss levels (fractions of L0) at which the chapter reads the gaps one at a time.
GRID = (0.9, 0.8, 0.7, 0.6, 0.5, 0.3, 0.2, 0.1)


def timing_levels(levels, floor_frac: float, margin: float) -> tuple:
    """The ``levels`` (fractions of L0) at least ``margin`` (>= 1) x ``floor_frac``,
    highest first (the highest alone if none is)."""
    lv = sorted({float(f) for f in levels}, reverse=True)
    if not lv or not all(0 < f < 1 for f in lv):
        raise ValueError(f"levels must be fractions in (0, 1), got {levels!r}")
    if not margin >= 1:
        raise ValueError(f"margin must be >= 1, got {margin!r}")
    return tuple(f for f in lv if f >= margin * floor_frac) or (lv[0],)


def step_size_check(net, X, Y, lr: float, epochs: int, loss, seed: int = 0) -> dict:
    """How much the step size moves the learning times: per factor ``f`` (0.5, 2.0),
    ``net`` trained from ``seed`` at ``f`` x the step for the epochs / ``f``, the
    largest ``|ln|`` ratio of its level times to those of ``loss`` (at ``lr``)."""
    t_main = np.array([level_times(loss)])
    out = {}
    for f in (0.5, 2.0):
        other = train(net, X, Y, lr=lr * f, epochs=int(epochs / f), seeds=[seed])
        t_f = np.array([level_times(L) for L in other.loss]) * f
        out[f] = float(np.nanmax(np.abs(np.log(t_f / t_main))))
    return out


def per_level(relu_loss, losses: dict, levels) -> dict:
    """The gaps of ``losses`` (``{name: (seeds, T)}``) to ``relu_loss`` at each of
    ``levels`` alone (skipping one a curve does not reach): ``{level: {name: gap, ...,
    "spread"}}``."""
    out = {}
    for f in levels:
        try:
            m = {k: match(relu_loss, L, levels=(f,)) for k, L in losses.items()}
        except ValueError:  # a level no ReLU seed (or no ReLN) reaches
            continue
        out[f] = {k: v.value for k, v in m.items()} | {"spread": m["mixed"].spread}
    return out


@dataclass(frozen=True)
class Gaps:
    """The ReLNs' time gaps to the ReLU network: ``m_<reln>`` over all levels and
    ``m_<reln>_above`` over the timing levels ``above`` (``reln``: the 2-of-3,
    ``single``, ``derived``), ``by_level`` (all three at the levels of ``GRID`` above
    the floor), ``per_level`` (two over ``above``), ``m_pred`` (against the race
    predictions) and ``m_gdln`` (the GDLN of Algorithm 1 at the elbow)."""

    above: tuple
    m_reln: Match
    m_single: Match
    m_reln_above: Match
    m_single_above: Match
    m_derived: Match
    m_derived_above: Match
    by_level: dict
    per_level: dict
    m_pred: dict
    m_gdln: Match


def reln_gaps(
    relu_loss, losses: dict, preds: dict, gdln_loss, ref: Reference, params
) -> Gaps:
    """The :class:`Gaps` of the ReLN curves ``losses`` (``mixed``, ``single``,
    ``derived``: ``(seeds, T)``) to ``relu_loss``, with the race ``preds`` and the
    elbow GDLN's ``gdln_loss``."""
    above = timing_levels(params.reln_levels, ref.floor / ref.L0, params.floor_margin)
    L, L0, seeds = losses, ref.L0, params.elbow_seeds
    reached = [
        f for f in GRID if all(np.all(x.min(axis=1) <= f * L0) for x in L.values())
    ]
    two = {k: L[k] for k in ("mixed", "single")}
    return Gaps(
        above=above,
        m_reln=match(relu_loss, L["mixed"], L["single"]),
        m_single=match(relu_loss, L["single"], L["mixed"]),
        m_reln_above=match(relu_loss, L["mixed"], L["single"], levels=above),
        m_single_above=match(relu_loss, L["single"], L["mixed"], levels=above),
        m_derived=match(relu_loss, L["derived"]),
        m_derived_above=match(relu_loss, L["derived"], levels=above),
        by_level=per_level(relu_loss, L, [f for f in reached if f * L0 > ref.floor]),
        per_level=per_level(relu_loss, two, above),
        m_pred={k: match(L[k], preds[k].loss) for k in preds},
        m_gdln=match(relu_loss if seeds == 1 else relu_loss[:seeds], gdln_loss),
    )


def reln_test_errors(runs: dict, task: DigitsTask) -> dict:
    """The test :func:`answers` of the ``mixed`` and ``single`` ReLN ``runs``."""
    cols = held_out_columns(task)
    return {
        k: answers(final_outputs(runs[k], task.test.X, cols), task, "test")
        for k in ("mixed", "single")
    }


def assumption_211(task: DigitsTask, net) -> dict:
    """:func:`diagonalizability` (Assumption 2.1.1) of the ``task``, of every pathway's
    effective dataset in the ReLN ``net`` and of Section 4's task: ``{task, paths,
    section4}``."""
    ds, L = task.train, net.layers[0]
    paths = {}
    for name, sl in L.pathways:
        on = L.gating[sl][0] > 0
        X = ds.X if L.in_mask is None else ds.X[np.flatnonzero(L.in_mask[sl][0])]
        paths[name] = diagonalizability(X[:, on], ds.Y[:, on])
    s4 = contextual_task(3, ["hierarchy", "ring", "cross"])
    task_ = diagonalizability(ds.X, ds.Y)
    return {"task": task_, "paths": paths, "section4": diagonalizability(s4.X, s4.Y)}
