"""The ReLU network against its GDLN ([conv-measures], [rulebook-noise]): time gaps
with seeds on both sides, per initialisation, and outputs at the plateaus."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ...book import rulebook
from ...core.measures import (
    Match,
    bootstrap_interval,
    censored,
    level_times,
    output_gap,
    stereotype_index,
    time_gap,
)
from .census import DepthRuns
from .drops import med, plateau_levels


def match_runs(reference, candidate) -> Match:
    """Time-gap :class:`Match` of candidate run ``s`` against reference run ``s``
    ([conv-measures], [rulebook-noise]); the spread is the larger of the two sides'
    median pairwise gaps (the candidate's only when its runs differ)."""
    R = np.atleast_2d(np.asarray(reference, float))
    Cd = np.atleast_2d(np.asarray(candidate, float))
    if Cd.shape[0] > R.shape[0]:
        raise ValueError(
            f"{Cd.shape[0]} candidate runs but only {R.shape[0]} reference runs"
        )
    if R.shape[0] < 2:
        raise ValueError("match_runs needs at least 2 reference runs")

    def gaps(A):
        D = np.zeros((len(A), len(A)))
        for i, j in combinations(range(len(A)), 2):
            D[i, j] = D[j, i] = time_gap(A[i], A[j])
        return D, float(np.median(D[np.triu_indices(len(A), 1)]))

    D_r, spread = gaps(R)
    mats, spread_c = [D_r], None
    if Cd.shape[0] >= 2 and not np.allclose(Cd, Cd[:1]):
        D_c, spread_c = gaps(Cd)
        mats.append(D_c)
        spread = max(spread, spread_c)
    per = [time_gap(r, c) for r, c in zip(R, Cd)]
    cens = any(censored(r, c) for r, c in zip(R, Cd))
    return Match(
        float(np.median(per)),
        spread,
        None,
        tuple(float(g) for g in per),
        cens,
        bootstrap_interval(*mats),
        spread_c,
        criterion="seed_noise",
        time_gap=True,
    )


def output_match(reference, candidate) -> Match:
    """Relative output gaps of candidate to reference runs as a :class:`Match` with
    noise on both sides ([rulebook-noise]); ``None`` entries are skipped."""

    R = [np.asarray(o, float) for o in reference if o is not None]
    Cd = [np.asarray(o, float) for o in candidate if o is not None]
    if len(R) < 2 or len(Cd) < 2:
        raise ValueError("output_match needs at least 2 runs on each side")

    def mat(A):
        D = np.zeros((len(A), len(A)))
        for i, j in combinations(range(len(A)), 2):
            D[i, j] = D[j, i] = output_gap([A[i]], [A[j]])[0]
        return D

    cross = output_gap(R, Cd)
    s_r = float(np.median(output_gap(R)))
    s_c = float(np.median(output_gap(Cd)))
    return Match(
        float(np.median(cross)),
        max(s_r, s_c),
        None,
        tuple(float(g) for g in cross),
        False,
        bootstrap_interval(mat(R), mat(Cd)),
        s_c,
        criterion="seed_noise",
    )


def init_comparison(relu_loss, init_loss: dict, reference: int) -> tuple[dict, dict]:
    """The ReLU-GDLN comparison per GDLN init ([conv-init]); ``reference`` the ReLU
    stereotype.  Returns ``(rows, evidence)``: per init the table row and the
    stereotypes' gap as evidence."""

    R = np.asarray(relu_loss, float)
    t_relu = np.array([level_times(x) for x in R])
    rows, evidence = {}, {}
    for choice, L in init_loss.items():
        m_i = match_runs(R, L)
        k = stereotype_index(L)
        stereo_i = time_gap(R[reference], L[k])
        t_c = np.array([level_times(x) for x in L])
        bound = np.isfinite(t_relu[: len(L)]) & np.isnan(t_c)
        rows[choice] = {
            "seeds": len(L),
            "gap_stereotypes": stereo_i,
            "gap_runs": m_i.value,
            "final_loss": float(np.nanmedian(L[:, -1])),
            "reach_10pc": f"{int(np.isfinite(t_c[:, 1]).sum())} of {len(L)}",
            # a level the ReLU partner reaches and the GDLN run does not
            "gap_is_lower_bound": bool(bound.any()),
            "verdict_runs": rulebook.verdict(m_i),
        }
        evidence[choice] = m_i.but(
            value=stereo_i,
            per_seed=(stereo_i,),
            censored=censored(R[reference], L[k]),
        )
    return rows, evidence


def plateau_record(runs: DepthRuns, level: float, tol: float = 0.02) -> np.ndarray:
    """Per run, the index into ``runs.grid`` mid-way through its stay at ``level``
    (within ``tol * L(0)``); -1 if none."""
    return _plateau_index(runs.loss, runs.grid, level, tol)


def _plateau_index(loss, grid, level, tol):
    out = np.full(loss.shape[0], -1)
    for s, L in enumerate(loss):
        idx = np.flatnonzero(np.abs(L[grid] - level) <= tol * L[0])
        if idx.size:
            out[s] = idx[idx.size // 2]
    return out


def plateau_outputs(loss, grid, outputs, level: float, tol: float = 0.02) -> list:
    """Each run's output mid-way through its stay at ``level`` (None if no record);
    ``loss`` ``(S, T)``, ``outputs`` ``(S, len(grid), p, P)``."""
    loss = np.atleast_2d(np.asarray(loss, float))
    grid = np.asarray(grid)
    if np.shape(outputs)[:2] != (loss.shape[0], grid.size):
        raise ValueError(
            f"outputs must be (runs, records, ...) = ({loss.shape[0]}, {grid.size}, "
            f"...), "
            f"got {np.shape(outputs)}"
        )
    idx = _plateau_index(loss, grid, level, tol)
    return [np.asarray(outputs[s, k]) if k >= 0 else None for s, k in enumerate(idx)]


def compare_plateaus(relu: DepthRuns, gdln: DepthRuns, levels, shared, i_r, i_g):
    """Outputs of the ReLU and GDLN runs mid-way through each plateau of ``levels``.

    Returns:
        ``(gaps, matches, steps, shown)``: per level ``(level, shared, ReLU-GDLN,
        ReLU-ReLU, GDLN-GDLN)`` median gaps; ``{level: Match}`` on shared plateaus;
        the ReLU stereotype's change since the last plateau; the stereotypes' outputs.
    """

    gaps, matches, steps, shown, prev = [], {}, [], [], None
    for lv, sh in zip(levels, shared):
        Or = plateau_outputs(relu.loss, relu.grid, relu.outputs, lv)
        Og = plateau_outputs(gdln.loss, gdln.grid, gdln.outputs, lv)
        cross, within = output_gap(Or, Og), output_gap(Or)
        within_g = output_gap(Og)
        step = output_gap([Or[i_r]], [prev])
        gaps.append((lv, sh, med(cross), med(within), med(within_g)))
        if sh and min(sum(o is not None for o in O_) for O_ in (Or, Og)) >= 2:
            matches[lv] = output_match(Or, Og)  # noise on both sides
        steps.append(med(step) if step.size else float("nan"))
        shown.append((lv, Or[i_r], Og[i_g]))
        prev = Or[i_r]
    return gaps, matches, steps, shown


@dataclass(frozen=True)
class Stereotypes:
    """The ReLU runs against the GDLN runs (:func:`stereotypes`)."""

    i_r: int
    i_g: int
    m_runs: Match
    m_stereo: Match
    spread_relu: float
    gap_mean: float


def stereotypes(relu_loss, gdln_loss) -> Stereotypes:
    """Fig. 6b's stereotypes compared, with seeds on both sides ([conv-depth]).
    Defined for the page book/depth.md."""
    i_r, i_g = stereotype_index(relu_loss), stereotype_index(gdln_loss)
    gap = time_gap(relu_loss[i_r], gdln_loss[i_g])
    m_runs = match_runs(relu_loss, gdln_loss)
    cens = censored(relu_loss[i_r], gdln_loss[i_g])
    return Stereotypes(
        i_r,
        i_g,
        m_runs,
        m_runs.but(value=gap, per_seed=(gap,), censored=cens),
        match_runs(relu_loss, relu_loss[:1]).spread,
        time_gap(relu_loss.mean(axis=0), gdln_loss.mean(axis=0)),
    )


def derived_comparison(relu_loss, hand_loss, derived_loss, i_r: int) -> dict:
    """The derived schedule's GDLN runs against the ReLU runs (``gap_stereo``,
    ``m_derived``) and the hand-set runs on the same seeds (``m_hand_same``)."""
    i_d = stereotype_index(derived_loss)
    return {
        "gap_stereo": time_gap(relu_loss[i_r], derived_loss[i_d]),
        "m_derived": match_runs(relu_loss, derived_loss),
        "m_hand_same": match_runs(relu_loss, hand_loss[: len(derived_loss)]),
    }


def plateau_comparison(relu, gdln, levels, L_rank, L0: float, i_r, i_g) -> dict:
    """:func:`compare_plateaus` below the first plateau, with ``shared`` and
    ``worst``: among shared plateaus below the rank-one loss (rule 5), the largest
    gap against its spread.  ``L0``: the initial loss ``||Y||^2 / 2``."""
    plat = list(levels[1:])
    lv_g = plateau_levels(gdln.loss)
    shared = np.array([np.any(np.abs(lv_g - lv) <= 0.05 * L0) for lv in plat], bool)
    gaps, m_out, steps, shown = compare_plateaus(relu, gdln, plat, shared, i_r, i_g)
    cand = [g for g in gaps if g[0] in m_out and m_out[g[0]].spread > 0]
    informative = [g for g in cand if g[0] < L_rank[0] - 0.05 * L0] or cand
    worst = max(informative, key=lambda g: g[2] / m_out[g[0]].spread)
    return {
        "shared": shared,
        "gaps": gaps,
        "matches": m_out,
        "steps": steps,
        "shown": shown,
        "worst": worst,
    }


def coupling_comparison(relu_loss, main_loss, other_loss) -> tuple[list, Match | None]:
    """The other coupling's GDLN: per-seed gaps to the main GDLN and
    :func:`match_runs` against ReLU (``[nan], None`` when not run)."""
    if other_loss is None:
        return [np.nan], None
    gaps = [time_gap(main_loss[k], other_loss[k]) for k in range(len(other_loss))]
    return gaps, match_runs(relu_loss, other_loss)
