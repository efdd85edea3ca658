"""The page's parameters and the rows of its sweeps (``book/reviewers.md``), medians
over seeds, and :func:`score_sentence`, the count over every setting."""

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
    """The page's parameters, checked against each other on construction
    (ValueError)."""

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
    """Per std rule, the smallest width with the 2-of-3 strategy, or None."""
    return {
        rule: next((w for w in widths if rows[w]["strategy"]), None)
        for rule, rows in width_sweep.items()
    }


def width_row(st: dict, L, m: dict, fit_level: float, strategy_share: float) -> dict:
    """One row of the width sweep (section 1); ``strategy``: loss below ``fit_level``
    of its start and 2-of-3 units making ``strategy_share`` of the context output."""
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
    if share.size >= 2:
        row["mixed_of_context_spread"] = seed_spread(share)
        row["mixed_of_context_spread_interval"] = seed_spread_interval(share)
    return row


def init_row(
    ds, std, L, W1, W2, G, m, *, plateau_min: float, gate_change_max: float
) -> dict:
    """One row of the init sweep (section 2): plateau share, gates flipped from the
    first to the last record, final shares and the match (``L`` ``(seeds, T)``;
    ``W1``, ``W2``, ``G`` ``(seeds, R, ...)``)."""
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
    """One row of the optimiser comparison (section 3); ``comparable`` False (Adam:
    another time axis) leaves the match fields None."""
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
    """``(common, ctx23)``: off-diagonal mass of ``V^T Sigma_x V`` (Assumption 2.1.1)
    of the common pathway's dataset and of ctx23 on the common residual."""
    _, R = common_fit(dv)
    items = [i for i, n in enumerate(dv.inputs) if not n.startswith("ctx")]
    on = dv.contexts != 0
    return (
        diagonalizability(dv.X, dv.Y)["offdiag"],
        diagonalizability(dv.X[items][:, on], R[:, on])["offdiag"],
    )


def data_row(dv, st, m, final_loss_share: float) -> dict:
    """One row of the data comparison (section 4)."""
    return {
        **dict(zip(("offdiag_common", "offdiag_ctx23"), assumption_distance(dv))),
        **{c: nanmed(st[c]) for c in SHARES},
        **match_fields(m),
        "final_loss_share": final_loss_share,
    }


def time_to_1pc(L) -> np.ndarray:
    """``(seeds,)``: the epoch at which each loss curve reaches 1 % of its start."""
    return np.array([level_times(c)[2] for c in L])


def intervention_row(st, race: dict, t1, t1_base: float, L, L0: float, **extra):
    """One row of the interventions (section 7); ``t1``: :func:`time_to_1pc`,
    ``t1_base`` its median at the paper's settings, ``L0`` the loss at zero output."""
    return {
        **{c: nanmed(st[c]) for c in SHARES},
        "race_single": race["single"],
        "race_mixed": race["mixed"],
        "time_to_1pc_over_gd": nanmed(t1 / t1_base),
        "final_loss_share": nanmed(L[:, -1] / L0),
        **extra,
    }


def score_sentence(matches: dict, structure: Mapping | None = None) -> dict:
    """The authors' sentence scored over ``{setting: match_summary}`` ("Question 0,
    scored"): the counts of each answer, leaving out (and naming) the settings where
    ``structure`` says the ReLU network does not use the 2-of-3 strategy."""
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
    """The rows of every setting scored for the sentence, each once, the paper's
    first."""
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
    """``{setting: bool}``: whether the ReLU network uses the 2-of-3 strategy there
    (the row's ``strategy``, else 2-of-3 units making ``strategy_share`` of the
    non-common output).  Defined for the page book/reviewers.md ("Question 0, scored").
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
