"""The tables the page book/contexts.md shows where it computes them."""

import numpy as np

from ...book import kit
from ...core.relns import pathway_pattern


def pathway_table(task) -> str:
    """Each pathway's singular values on the residual and its top one on ``Y``."""
    rows = []
    for p, r in zip(task.pm_mixed + task.pm_single, task.raw_mixed + task.raw_single):
        pat = pathway_pattern(p.name, task.C)
        on = ", ".join(str(c + 1) for c in range(task.C) if pat[c] == "1")
        rows.append([p.name, on, ", ".join(f"{v:.3f}" for v in p.s), f"{r.s[0]:.2f}"])
    svs = "singular values of $\\Sigma_{yx}(p)$ on the residual"
    heads = ["pathway", "on in contexts", svs, "top singular value on the raw $Y$"]
    return kit.table(rows, heads)


def loss_table(curves: dict, epochs) -> str:
    """The summed loss of each curve (``{label: (seeds, T) or (T,)}``) at ``epochs``."""
    meds = {label: np.median(np.atleast_2d(L), axis=0) for label, L in curves.items()}
    rows = [[label] + [f"{m[e]:.3g}" for e in epochs] for label, m in meds.items()]
    headers = ["summed loss (median over seeds) at epoch"] + [str(e) for e in epochs]
    return kit.table(rows, headers)


def threshold_table(thr_sens: dict) -> str:
    """The census by weight under each 'on' threshold."""
    rows = [[f"{t}", f"{v[0]:.3f}", f"{v[1]:.3f}"] for t, v in thr_sens.items()]
    headers = ["'on' threshold", "common + 2-of-3 share", "single-context share"]
    return kit.table(rows, headers)


def overlap_table(po: dict) -> str:
    """The 2-of-3 pathways' modes' overlaps, pair by pair (``partner_overlaps``)."""
    rows = []
    for (a, b), v in {tuple(sorted(k)): v for k, v in po["top"].items()}.items():
        p = po["pairs"][(a, b)]
        spread = f"{p.min():.2f} / {np.median(p):.2f} / {p.max():.2f}"
        rows.append([f"{a}, {b}", f"{v:.3f}", spread])
    top = "overlap of the top modes $O_{p1,q1}$"
    heads = ["pathway pair", top, "partner overlaps of all modes (min / median / max)"]
    return kit.table(rows, heads)


def ladder_table(lad) -> str:
    """Every prediction of the common + 2-of-3 ReLN against its simulation."""
    body = [
        [r.label, f"{r.gap:.3f}", f"{r.final_loss:.3g}", f"{r.fixed_point_loss:.2g}"]
        for r in lad.rows
    ]
    final = f"{np.median(lad.sim_m[:, -1]):.3g}"
    body.append(["*simulation (median over seeds)*", "—", final, "—"])
    heads = ["prediction of the common + 2-of-3 ReLN", "time gap to the simulation"]
    heads += ["loss at the last epoch", "loss at the race's fixed point"]
    return kit.table(body, heads)
