"""The tables the page *Proofs checked numerically* (``book/proofs.md``) shows where
its computations are, as Markdown (each from what the page computed)."""

from __future__ import annotations

import numpy as np

from ...book import kit
from .race import NAMES, Race
from .xor import EPS_PAPER


def full_counts(full: dict, n_contexts: int) -> str:
    """The census of every on/off pattern of one unit on 8 items x C contexts."""
    rows = [
        (f"all on/off patterns, $2^{{{8 * n_contexts}}}$", full["patterns"]),
        ("implementable (nested), brute force", full["implementable"]),
        ("implementable, closed-form count", full["formula"]),
        ("constant (all on or all off)", full["constant"]),
        ("context only (not constant)", full["context_only"]),
        ("item only (not constant)", full["item_only"]),
        ("item *and* context", full["both"]),
        ("of which single-datapoint", full["single_datapoint"]),
    ]
    return kit.table([(k, f"{v:,}") for k, v in rows], ["", "count"])


def edge(cases: dict) -> str:
    """Appendix E's orthogonal-datapoint edge case (``ch.edge_cases()``)."""
    rows = [
        (label, "yes" if o else "no", f"{ov:.3f}", f"{lw:.3f}", f"{lv:.3f}")
        for label, (o, ov, lw, lv) in cases.items()
    ]
    headers = (
        "added datapoint | orthogonal to all others | overlap with $v'$ | "
        "$\\lambda'$ (without) | $\\lambda$ (with)"
    )
    return kit.table(rows, headers)


def race(r: Race) -> str:
    """Learning times, final losses and time gaps to the ReLU network of the race's
    candidates."""
    m, losses = r.family, {**r.losses, "relu": r.relu_loss}
    gaps = {"mixed": f"{m.value:.3f}", "single": f"{m.alternative:.3f}"}
    gaps |= {"both": f"{r.gap_both:.3f}", "relu": f"{m.spread:.3f} (between seeds)"}
    rows = [
        (name, f"{np.median(r.t_seed[k]):.0f}", f"{np.median(losses[k][:, -1]):.3g}",
         gaps[k])
        for k, name in (NAMES | {"relu": "ReLU network"}).items()
    ]  # fmt: skip
    headers = (
        "candidate | learning time (epochs, median) | loss at the end | "
        "time gap to ReLU"
    )
    return kit.table(rows, headers)


def strategies(sv: dict) -> str:
    """Singular values of the 1-of-3 and 2-of-3 effective datasets
    (``ch.strategy_datasets``)."""
    rows = [
        (n, t, ", ".join(f"{v:.3f}" for v in s4), f"{lam:.0f}")
        for (n, t), (s4, lam, _) in sv.items()
    ]
    headers = (
        "pathway | targets | top singular values of $\\Sigma_{yx}(p)$ | "
        "top eigenvalue of $\\Sigma_x(p)$"
    )
    return kit.table(rows, headers)


def a0(eps_time: dict) -> str:
    """The exact-time crossover margin for each initial strength a0."""
    rows = [(f"{a:.0e}", f"{v:.4f}") for a, v in eps_time.items()]
    rows.append(("$a_0 \\to 0$", f"{EPS_PAPER:.4f}"))
    return kit.table(rows, ["$a_0$", "exact-time crossover $\\varepsilon$"])
