"""The Background chapter's records, glue and tables (``book/background.md``),
written from what the page computed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...book import kit, rulebook
from ...core.measures import Evidence, halfway_time, time_gap


@dataclass
class Results:
    """What the page computed, for :func:`report`: the hierarchy's ``modes`` and
    their ``diag``; per seed the time gap of simulation and closed form from the seed's
    own ``a0`` and from the expected one; ``u^T W2 W1 v``; the init ``sweep``; the
    pathways' ``spectra``; the two GDLNs' ``runs`` and ``predictions`` (``{"separate":
    run, "shared": run}``); ``double``, the evidence of "twice as fast"."""

    modes: object
    diag: dict
    gap_seed: np.ndarray
    gap_expected: np.ndarray
    a0_seed: np.ndarray
    a0_expected: float
    raw_projection: np.ndarray
    sweep: dict
    spectra: dict
    runs: dict
    predictions: dict
    double: Evidence


def sweep_table(sweep: dict) -> str:
    """The init sweep as a Markdown table (init std, hidden, median time gap)."""
    rows = [[f"{std:.0e}", hid, f"{gap:.4f}"] for (std, hid), gap in sweep.items()]
    return kit.table(rows, ["init std", "hidden", "time gap (median over seeds)"])


def spectra_table(spectra: dict) -> str:
    """The effective datasets' spectra as a Markdown table, one row per pathway."""
    rows = [
        [k, ", ".join(f"{v:.3f}" for v in s), ", ".join(f"{v:.1f}" for v in d)]
        for k, (s, d) in spectra.items()
    ]
    headers = ["pathway", "singular values of $\\Sigma_{yx}(p)$"]
    return kit.table(rows, [*headers, "eigenvalues of $\\Sigma_x(p,p)$"])


def report(rec, results: Results) -> dict:
    """Write the Background chapter's records ``rec`` (saved) and glue the numbers its
    prose reads from what the page computed (:class:`Results`); return the closing
    table (``summary``).  Defined for the page book/background.md."""
    r, gap = results, rulebook.CHECK_GAP
    gap_seed = np.asarray(r.gap_seed)
    worst = max(r.sweep, key=r.sweep.get)
    over = [k for k, v in r.sweep.items() if v > gap]
    sep, sh = r.runs["separate"].loss, r.runs["shared"].loss
    pred_sep, pred_sh = r.predictions["separate"].loss, r.predictions["shared"].loss
    speedup = kit.med([halfway_time(a) / halfway_time(b) for a, b in zip(sep, sh)])
    said = {
        "s": ", ".join(f"{v:.3f}" for v in r.modes.s),
        "offdiag": r.diag["offdiag"],
        "gap_seed": kit.med(gap_seed),
        "gap_seed_max": gap_seed.max(),
        "gap_expected": kit.med(r.gap_expected),
        "check_gap": gap,
        "a0_expected": r.a0_expected,
        "a0_seed_range": f"{r.a0_seed.min():.2e} to {r.a0_seed.max():.2e}",
        "raw_neg": np.sum(r.raw_projection < 0),
        "raw_total": r.raw_projection.size,
        "sweep_max": r.sweep[worst],
        "sweep_worst": f"init std {worst[0]:.0e}, {worst[1]} hidden units",
        "sweep_over": f"{len(over)} of the {len(r.sweep)} settings exceed the "
        f"rulebook's check gap of {gap:g}: the agreement is a small-init property"
        if over
        else f"every setting stays within the rulebook's check gap of {gap:g}",
        "speedup": speedup,
        "gap_double": r.double.value,
        "gap_double_spread": r.double.spread,
        "gap_double_alt": r.double.alternative,
        "speedup_theory": r.spectra["shared"][0][0]
        / r.spectra["separate (context 1)"][0][0],
        "speedup_pred": halfway_time(pred_sep) / halfway_time(pred_sh),
        "pred_gap": kit.med([time_gap(L, pred_sh) for L in sh]),
    }
    kit.glue_many("bg", said)
    said.update(n_cf=len(gap_seed), n=len(sep))
    cf = Evidence(said["gap_seed"], criterion="gap")
    recs = kit.add_all(
        rec,
        [
            ("gap_closed_form_simulated", cf, said),
            ("gap_node_reuse_double_speed", r.double, said),
        ],
    )
    rec.save()
    return {"summary": kit.summary(rec.chapter, recs)}
