"""The page's parameters and the rows of its sweeps (``book/reviewers.md``): one
function per sweep turns its runs into the medians over seeds that its table, its
record and its prose use, and :func:`score_sentence` counts the answers over every
setting."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ...core.linear import diagonalizability
from ...core.measures import level_times, seed_spread, seed_spread_interval
from ...core.relns import common_fit
from .measures import (
    STRATEGY_CLASSES,
    census,
    gate_change,
    match_fields,
    nanmed,
    plateau_share,
    strategy,
)

#: The functional shares each sweep's row keeps (medians over seeds).
SHARES = ("common", "mixed", "single", "snap_change")
#: The thresholds that are shares, each in (0, 1).
_SHARE_PARAMETERS = (
    "strategy_share",
    "fit_level",
    "plateau_min",
    "gate_change_max",
    "common_done",
)


@dataclass(frozen=True)
class Parameters:
    """The page's parameters (its parameters cell, by name), checked against each
    other on construction: ValueError names every rule a single parameter's default
    cannot say."""

    seeds: int
    epochs: int
    init_scale: float
    relu_width: int
    reln_width: int
    record_every: int
    reln_record_every: int
    widths: list
    init_stds: list
    batch_sizes: list
    code_rho_pct: list
    code_seed: int
    label_noise: list
    noise_seed: int
    primed_units: int
    primed_gains: list
    primed_off: float
    schedule_epochs: int
    strategy_share: float
    fit_level: float
    plateau_min: float
    gate_change_max: float
    common_done: float

    def __post_init__(self):
        problems = self.problems()
        if problems:
            raise ValueError("; ".join(problems))

    @property
    def base_std(self) -> float:
        """The paper's init std, ``init_scale / relu_width``."""
        return self.init_scale / self.relu_width

    @property
    def stds(self) -> list:
        """The init sweep's stds, the paper's first."""
        b = self.base_std
        return [b] + [s for s in self.init_stds if not np.isclose(s, b, rtol=1e-9)]

    def problems(self) -> list[str]:
        """Every rule between the parameters that they break, in words."""
        widths, epochs = self.widths, self.epochs
        out = []
        if self.relu_width not in widths:
            out.append(
                f"widths must contain relu_width={self.relu_width}, got {widths}"
            )
        if any(w < 1 for w in widths):
            out.append(f"widths must be >= 1, got {widths}")
        if not any(np.isclose(s, self.base_std, rtol=1e-9) for s in self.init_stds):
            out.append(
                f"init_stds must contain init_scale / relu_width = "
                f"{self.base_std:.3g}, got {self.init_stds}"
            )
        if any(24 % b or b < 1 for b in self.batch_sizes):
            out.append(
                f"batch_sizes must divide the 24 datapoints, got {self.batch_sizes}"
            )
        for name in _SHARE_PARAMETERS:
            if not 0 < getattr(self, name) < 1:
                out.append(f"{name} must lie in (0, 1), got {getattr(self, name)}")
        if any(not 0 <= r < 100 for r in self.code_rho_pct):
            out.append(f"code_rho_pct must lie in 0..99, got {self.code_rho_pct}")
        if not 0 < self.schedule_epochs < epochs:
            out.append(
                f"schedule_epochs must lie in 1..{epochs - 1}, "
                f"got {self.schedule_epochs}"
            )
        if 3 * self.primed_units > self.relu_width:
            out.append(
                f"primed_units must be <= relu_width / 3, got {self.primed_units}"
            )
        if epochs % self.record_every or epochs % self.reln_record_every:
            out.append("record_every and reln_record_every must divide epochs")
        return out


def min_width(width_sweep: dict, widths) -> dict:
    """Per std rule, the smallest width of ``widths`` whose row has the 2-of-3
    strategy (:func:`width_row`), or None."""
    return {
        rule: next((w for w in widths if rows[w]["strategy"]), None)
        for rule, rows in width_sweep.items()
    }


def width_row(st: dict, L, m: dict, fit_level: float, strategy_share: float) -> dict:
    """One row of the width sweep (``book/reviewers.md``, section 1): the functional
    shares of :func:`strategy` ``st`` and the final loss of curves ``L`` (medians over
    seeds), the match ``m`` of :func:`match_summary`, and ``strategy``: the network
    learned the task (loss below ``fit_level`` of its start) and its 2-of-3 units make
    at least ``strategy_share`` of the non-common snapped output."""
    L = np.atleast_2d(np.asarray(L, float))
    loss_share = nanmed(L[:, -1] / L[:, 0])
    keys = (*STRATEGY_CLASSES, "snap_change", "mixed_of_context")
    row = {c: nanmed(st[c]) for c in keys}
    row.update(
        final_loss_share=loss_share,
        strategy=bool(
            loss_share <= fit_level and row["mixed_of_context"] >= strategy_share
        ),
        **match_fields(m),
        match_matches=m["matches"],
        seeds=int(L.shape[0]),
    )
    share = np.asarray(st["mixed_of_context"], float)
    share = share[np.isfinite(share)]
    if share.size >= 2:  # its seed spread, for the strategy's threshold
        row["mixed_of_context_spread"] = seed_spread(share)
        row["mixed_of_context_spread_interval"] = seed_spread_interval(share)
    return row


def init_row(
    ds, std, L, W1, W2, G, m, *, plateau_min: float, gate_change_max: float
) -> dict:
    """One row of the init sweep (section 2 of the page): the plateau share, the
    weighted share of gates flipped between the first and the last recorded epoch,
    the functional shares at the last epoch and the match, medians over seeds.

    Args:
        ds: the task.
        std: the initial std.
        L: loss curves ``(seeds, T)``.
        W1, W2, G: recorded weights and gates ``(seeds, R, ...)``.
        m: the setting's :func:`helpers.chapters.reviewers.match_summary`.
        plateau_min, gate_change_max: the page's thresholds.

    Returns:
        The row (``plateau`` and ``gating_moves`` read against the thresholds).
    """
    st = strategy(census(ds, W1[:, [-1]], W2[:, [-1]]))
    moved = [gate_change(g[0], g[-1], w1[-1], w2[-1]) for g, w1, w2 in zip(G, W1, W2)]
    plateau = nanmed(plateau_share(L))
    return {
        "std": std,
        "plateau_share": plateau,
        "plateau": bool(plateau >= plateau_min),
        "gate_change": nanmed(moved),
        "gating_moves": bool(nanmed(moved) > gate_change_max),
        "initial_loss": nanmed(L[:, 0]),
        **{c: nanmed(st[c]) for c in SHARES},
        **match_fields(m),
        "reln_describes": m["matches"],
        "seeds": int(np.shape(L)[0]),
    }


def optimiser_row(st, L, m, step, comparable: bool = True) -> dict:
    """One row of the optimiser comparison (section 3 of the page).

    Args:
        st: :func:`helpers.chapters.reviewers.strategy` of the run's census.
        L: loss curves ``(seeds, T)``.
        m: the run's :func:`helpers.chapters.reviewers.match_summary`.
        step: the optimiser's step.
        comparable: whether the optimiser's epochs are gradient descent's time, so
            that a time gap to the gradient-descent ReLN means something (False for
            Adam, whose step is normalised per weight: its match fields are then
            None and ``match_nearer`` says why).

    Returns:
        The row: step, the race's winner among the context classes (largest median
        share), the functional shares, the final loss over the initial, the match.
    """
    winner = max(("mixed", "single", "other"), key=lambda c: nanmed(st[c]))
    fields = match_fields(m)
    if not comparable:
        fields = dict.fromkeys(fields)
        fields["match_nearer"] = "not compared: another time axis"
    return {
        "step": step,
        "race_winner": winner,
        **{c: nanmed(st[c]) for c in SHARES},
        "final_loss_share": nanmed(L[:, -1] / L[:, 0]),
        **fields,
        "seeds": int(np.shape(L)[0]),
    }


def assumption_distance(dv) -> tuple[float, float]:
    """How far a task is from Assumption 2.1.1: the off-diagonal mass of
    ``V^T Sigma_x V`` (:func:`helpers.core.linear.diagonalizability`).

    Args:
        dv: the task.

    Returns:
        ``(common, ctx23)``: for the common pathway's dataset, and for pathway ctx23
        on the common pathway's residual (items only, contexts 2 and 3).
    """
    _, R = common_fit(dv)
    items = [i for i, n in enumerate(dv.inputs) if not n.startswith("ctx")]
    on = dv.contexts != 0
    return (
        diagonalizability(dv.X, dv.Y)["offdiag"],
        diagonalizability(dv.X[items][:, on], R[:, on])["offdiag"],
    )


def data_row(dv, st, m, final_loss_share: float) -> dict:
    """One row of the data comparison (section 4 of the page).

    Args:
        dv: the task (one-hot, dense codes or noisy labels).
        st: the strategy at the last epoch (medians or per-seed shares).
        m: the run's :func:`helpers.chapters.reviewers.match_summary`.
        final_loss_share: the final loss over the initial (median over seeds).

    Returns:
        The row: :func:`assumption_distance`, the shares, the match, the final loss.
    """
    return {
        **dict(zip(("offdiag_common", "offdiag_ctx23"), assumption_distance(dv))),
        **{c: nanmed(st[c]) for c in SHARES},
        **match_fields(m),
        "final_loss_share": final_loss_share,
    }


def time_to_1pc(L) -> np.ndarray:
    """Per seed, the epoch at which the loss first reaches 1 % of its start
    (interpolated, :func:`helpers.core.measures.level_times`).

    Args:
        L: loss curves ``(seeds, T)``.

    Returns:
        The epochs, ``(seeds,)``.
    """
    return np.array([level_times(c)[2] for c in L])


def intervention_row(st, race: dict, t1, t1_base: float, L, L0: float, **extra):
    """One row of the interventions (section 7 of the page).

    Args:
        st: the strategy at the last epoch.
        race: the 7-pathway race's shares under the same intervention.
        t1: per seed, the epoch at which the loss reaches 1 % of the initial loss.
        t1_base: the same at the paper's settings (median over seeds).
        L: loss curves ``(seeds, T)``.
        L0: the task's initial loss at zero output.
        extra: further fields of the row.

    Returns:
        The row.
    """
    return {
        **{c: nanmed(st[c]) for c in SHARES},
        "race_single": race["single"],
        "race_mixed": race["mixed"],
        "time_to_1pc_over_gd": nanmed(t1 / t1_base),
        "final_loss_share": nanmed(L[:, -1] / L0),
        **extra,
    }


def score_sentence(matches: dict, structure: Mapping | None = None) -> dict:
    """The authors' sentence scored over every setting's match (section "Question 0,
    scored"), on the settings where the structure it is about exists.

    Args:
        matches: ``{setting: match_summary}``.
        structure: ``{setting: bool}`` (:func:`structure_by_setting`): whether the
            ReLU network uses the 2-of-3 strategy there; a setting without it is left
            out of the counts (the ReLN of 2-of-3 pathways cannot describe a network
            that does not use them) and named.  Missing settings count as True.

    Returns:
        The counts over the scored settings: settings, within the seed noise,
        undecided within the spread's interval, below / not below half the
        alternative's gap beyond the noise or undecided, the settings whose ReLU
        network reaches every loss level, and the names of the settings within the
        noise; ``all_settings`` and ``excluded_no_strategy`` (names) beside them.
    """
    structure = structure or {}
    kept = {k: m for k, m in matches.items() if structure.get(k, True)}
    excluded = [k for k in matches if k not in kept]
    matches = kept
    ms = matches.values()
    return {
        "all_settings": len(kept) + len(excluded),
        "excluded_no_strategy": excluded,
        "settings": len(matches),
        "within_seed_noise": sum(m["matches"] for m in ms),
        "undecided_within_interval": sum(m["undecided"] for m in ms),
        "nearer_than_half_the_alternative": sum(m["nearer"] for m in ms),
        "not_nearer_than_half": sum(m["nearer_verdict"] == "not below" for m in ms),
        "nearer_undecided": sum(m["nearer_verdict"] == "undecided" for m in ms),
        "reference_reaches_every_level": sum(m["levels"] == 4 for m in ms),
        "matching_settings": [k for k, m in matches.items() if m["matches"]],
    }


def strategy_settings(width_sweep, init_sweep, optimiser, data_table, relu_width):
    """The rows of every setting scored for the sentence, each once (the paper's
    setting first), for the count of settings where 2-of-3 units win.

    Returns:
        A list of rows with ``mixed`` and ``single`` shares.
    """
    return (
        [width_sweep["fixed std"][relu_width]]
        + [
            r
            for rows in width_sweep.values()
            for w, r in rows.items()
            if w != relu_width
        ]
        + list(init_sweep.values())[1:]
        + list(optimiser.values())[1:]
        + list(data_table.values())[1:]
    )


def structure_by_setting(
    width_sweep, init_sweep, optimiser, data_table, relu_width, strategy_share
) -> dict:
    """Whether the ReLU network uses the 2-of-3 strategy in each setting the sentence
    is scored on (Defined for the page book/reviewers.md, "Question 0, scored").

    Args:
        width_sweep: ``{rule: {width: row}}`` (rows carry ``strategy``: the network
            learned the task and 2-of-3 units make at least ``strategy_share`` of
            the non-common snapped output).
        init_sweep, optimiser, data_table: ``{name: row}`` with functional shares.
        relu_width: the paper's width (the row of "paper settings").
        strategy_share: the page's threshold, read on the other rows as 2-of-3 units'
            share of the output that common units do not make.

    Returns:
        ``{setting name as in the page's matches: bool}``.
    """

    def has(row):
        if "strategy" in row:
            return bool(row["strategy"])
        rest = 1.0 - row["common"]
        return bool(rest > 0 and row["mixed"] / rest >= strategy_share)

    out = {"paper settings": has(width_sweep["fixed std"][relu_width])}
    for rule, rows in width_sweep.items():
        out.update({f"width {w} ({rule})": has(r) for w, r in rows.items()})
    out.update({f"init std {r['std']:.1e}": has(r) for r in init_sweep.values()})
    out.update({k: has(r) for k, r in optimiser.items()})
    out.update({k: has(r) for k, r in data_table.items()})
    return out
