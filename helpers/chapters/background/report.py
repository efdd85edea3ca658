"""The Background chapter's records, glue and tables (``book/background.md``):
everything the page's prose and closing table read, written from what the page
computed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from tabulate import tabulate

from ...book import rulebook
from ...book.notebook import glue
from ...book.records import claims_table
from ...core.measures import Evidence, halfway_time, time_gap

__all__ = ["Results", "report", "sweep_table", "spectra_table"]


@dataclass
class Results:
    """What the page computed, for :func:`report`.

    Args:
        modes: the hierarchy's modes (``helpers.core.linear.modes``).
        diag: its ``helpers.core.linear.diagonalizability``.
        gap_seed, gap_expected: per seed, the time gap between the simulated loss and
            the closed form from the seed's own ``a0`` and from the expected ``a0``.
        a0_seed, a0_expected: those initial strengths, ``(seeds, modes)`` and one.
        raw_projection: the raw initial projections ``u^T W2 W1 v``.
        sweep: :func:`helpers.chapters.background.init_sweep`.
        spectra: :func:`helpers.chapters.background.effective_spectra` of the
            separate (context 1) and shared pathways.
        runs, predictions: ``{"separate": run, "shared": run}`` of the two GDLNs and
            their race predictions.
        double: the :class:`helpers.core.measures.Evidence` of "twice as fast".
    """

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
    headers = ["init std", "hidden", "time gap (median over seeds)"]
    return tabulate(rows, headers, tablefmt="github", disable_numparse=True)


def spectra_table(spectra: dict) -> str:
    """The effective datasets' spectra as a Markdown table, one row per pathway."""
    rows = [
        [k, ", ".join(f"{v:.3f}" for v in s), ", ".join(f"{v:.1f}" for v in d)]
        for k, (s, d) in spectra.items()
    ]
    headers = [
        "pathway",
        "singular values of $\\Sigma_{yx}(p)$",
        "eigenvalues of $\\Sigma_x(p,p)$",
    ]
    return tabulate(rows, headers, tablefmt="github", disable_numparse=True)


def report(rec, results: Results) -> dict:
    """Write the Background chapter's records and the glue its prose reads.

    Defined for the page book/background.md.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records` (``"background"``).
        results: what the page computed (:class:`Results`).

    Returns:
        ``{"summary": the closing table, "headline": the records' values and
        verdicts in two lines}``; the records are saved.
    """
    r = results
    gap_seed, seeds = np.asarray(r.gap_seed), len(r.gap_seed)
    check_gap = rulebook.CHECK_GAP
    glue("bg_s", ", ".join(f"{v:.3f}" for v in r.modes.s))
    glue("bg_offdiag", r.diag["offdiag"])
    r_cf = rec.add(
        "gap_closed_form_simulated",
        Evidence(float(np.median(gap_seed)), criterion="gap"),
        note="time gap, closed-form vs simulated linear-network loss on the Fig. 7 "
        f"hierarchy, median over {seeds} seeds (largest {gap_seed.max():.4f}); a0 "
        "from each seed's initial weights (Eq. bg-a0); with the expected a0 for every "
        f"seed: {np.median(r.gap_expected):.4f}.",
    )
    glue("bg_gap_seed", float(np.median(gap_seed)))
    glue("bg_gap_seed_max", float(gap_seed.max()))
    glue("bg_gap_expected", float(np.median(r.gap_expected)))
    glue("bg_check_gap", check_gap)
    glue("bg_a0_expected", r.a0_expected)
    glue("bg_a0_seed_range", f"{r.a0_seed.min():.2e} to {r.a0_seed.max():.2e}")
    glue("bg_raw_neg", int(np.sum(r.raw_projection < 0)))
    glue("bg_raw_total", int(r.raw_projection.size))
    worst = max(r.sweep, key=r.sweep.get)
    over = [k for k, v in r.sweep.items() if v > check_gap]
    glue("bg_sweep_max", r.sweep[worst])
    glue("bg_sweep_worst", f"init std {worst[0]:.0e}, {worst[1]} hidden units")
    glue(
        "bg_sweep_over",
        f"{len(over)} of the {len(r.sweep)} settings exceed the rulebook's check gap "
        f"of {check_gap:g}: the agreement is a small-init property"
        if over
        else f"every setting stays within the rulebook's check gap of {check_gap:g}",
    )
    sep, sh = r.runs["separate"], r.runs["shared"]
    speedup = np.array(
        [halfway_time(a) / halfway_time(b) for a, b in zip(sep.loss, sh.loss)]
    )
    speedup_pred = halfway_time(r.predictions["separate"].loss) / halfway_time(
        r.predictions["shared"].loss
    )
    ratio = r.spectra["shared"][0][0] / r.spectra["separate (context 1)"][0][0]
    m_double = r.double
    r_reuse = rec.add(
        "gap_node_reuse_double_speed",
        m_double,
        note="time gap between the shared GDLN's loss and the separate GDLN's loss at "
        f"twice the speed (every second epoch), same seed, median over {seeds} seeds; "
        "spread: two seeds of the shared GDLN; alternative: the separate GDLN at its "
        "own speed. Twice is derived here: the ratio of the effective datasets' "
        f"singular values, {ratio:.3f}; the paper states the effect in words. "
        f"Halfway-time ratio, median over seeds: {np.median(speedup):.3f}.",
    )
    glue("bg_speedup", float(np.median(speedup)))
    glue("bg_gap_double", m_double.value)
    glue("bg_gap_double_spread", m_double.spread)
    glue("bg_gap_double_alt", m_double.alternative)
    glue("bg_speedup_theory", float(ratio))
    glue("bg_speedup_pred", float(speedup_pred))
    pred_sh = r.predictions["shared"].loss
    glue("bg_pred_gap", float(np.median([time_gap(L, pred_sh) for L in sh.loss])))
    rec.save()
    headline = "\n".join(
        [
            f"gap_closed_form_simulated   = {r_cf['value']:.2f} ({r_cf['verdict']})",
            "gap_node_reuse_double_speed = "
            f"{r_reuse['value']:.2f} ({r_reuse['verdict']})",
        ]
    )
    summary = claims_table(
        [
            (
                "Closed-form mode dynamics follow a simulated linear network (Fig. 7; "
                "book's check)",
                "near exact agreement",
                r_cf,
            ),
            (
                "A layer shared by two pathways learns twice as fast (node reuse; the "
                "factor derived here; book's check)",
                "more frequently used edges will naturally learn quicker",
                r_reuse,
            ),
        ]
    )
    return {"summary": summary, "headline": headline}
