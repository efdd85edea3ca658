"""The tables of the page *More contexts* (``book/extra_contexts.md``) that sit in its
sections, as Markdown, built from what the page computed (the records and the closing
table are :func:`helpers.chapters.extra_contexts.report`'s)."""

from __future__ import annotations

import numpy as np

from ...core.datasets import contextual_task, effective_dataset
from ...core.measures import time_gap
from ...core.relns import common_fit, context_reln

__all__ = [
    "common",
    "effective",
    "head_start",
    "A0_NAMES",
    "gap_variants",
    "gap_variants_table",
    "halfway",
    "halfway_table",
    "init_table",
    "race_sizes",
    "thresholds",
    "settle",
    "final_census",
    "appendix_h",
]


def _med(x) -> float:
    return float(np.median(x))


def common(CS, COMMON) -> str:
    """The common pathway per C: Assumption 2.1.1, the residual formula, the residual
    loss and the common modes (``COMMON``: :func:`common_pathway` per C)."""
    rows = [
        "| C | Assumption 2.1.1 residual | residual = the residual equation above | "
        "residual loss | common modes: s (d) |",
        "|---|---|---|---|---|",
    ]
    for C in CS:
        c, m = COMMON[C], COMMON[C]["modes"]
        modes_txt = ", ".join(f"{s:.2f} ({d:.0f})" for s, d in zip(m.s, m.d))
        rows.append(
            f"| {C} | {c['offdiag']:.0e} | max error {c['residual_error']:.0e} | "
            f"{c['residual_loss']:.1f} | {modes_txt} |"
        )
    return "\n".join(rows)


def effective(CS, CM, EFF) -> str:
    """The context pathways' effective datasets against the derivation."""
    rows = [
        "| C | $\\sigma$ of $B_c$ | $s$ from the singular-value formula above | $s$ of "
        "$\\Sigma_{yx}(j)$ (computed) | "
        "$\\Sigma_x(j,j)$ | $\\Sigma_x(q,j)$ | cosine $u_j \\cdot u_q$ | "
        "coupling, the coupling formula above |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for C in CS:
        cm, (sxx, sxq, U0, U1, s_num) = CM[C], EFF[C]
        rows.append(
            f"| {C} | "
            f"{', '.join(f'{v:.3f}' for v in np.unique(cm.sigma.round(6))[::-1])} "
            "| "
            f"{', '.join(f'{v:.3f}' for v in np.unique(cm.s.round(6))[::-1])} | "
            f"{', '.join(f'{v:.3f}' for v in np.unique(s_num.round(6))[::-1])} | "
            f"{sxx[0, 0]:.0f} I | {sxq[0, 0]:.0f} I | {abs(U0 @ U1):.3f} (theory "
            f"{1 / (C - 1):.3f}) | {-abs(U0 @ U1) * sxq[0, 0]:.3f} (theory "
            f"{cm.coupling:.3f}) |"
        )
    return "\n".join(rows)


def head_start(CS, CM, CF) -> str:
    """The context modes' initial strengths under the three head-start variants."""
    rows = [
        "| C | context mode $s$ | $a_0$ without head start | small-weight head start "
        "| head start, the head-start formula above |",
        "|---|---|---|---|---|",
    ]
    for C in CS:
        s_u, idx = np.unique(CM[C].s.round(9), return_index=True)
        for k in idx[::-1]:
            rows.append(
                f"| {C} | {CM[C].s[k]:.3f} | {CF[C]['none'].a0_context[k]:.2e} | "
                f"{CF[C]['linear'].a0_context[k]:.2e} | "
                f"{CF[C]['head_start'].a0_context[k]:.2e} |"
            )
    return "\n".join(rows)


#: The head-start variants as the page names them.
A0_NAMES = {
    "none": "none (no head start)",
    "linear": "small-weight head start",
    "head_start": "head start, the head-start formula above",
}


def gap_variants(CS, CF, SIM, init) -> dict:
    """``{(C, variant, "reln" or "relu"): time gap}``: each head-start variant's
    closed form against the simulated ReLN and the ReLU network, median over
    seeds."""
    out = {}
    for C in CS:
        for meth in A0_NAMES:
            L_cf = CF[C][meth].loss
            for net_, key in (("reln", ("mixed", init)), ("relu", "relu")):
                out[C, meth, net_] = _med([time_gap(L, L_cf) for L in SIM[C][key].loss])
    return out


def gap_variants_table(CS, gaps, M, M_RELN, init) -> str:
    """The table of :func:`gap_variants`, with the ReLU network against the ReLN and
    two ReLU seeds."""
    rows = [
        "| C | $a_0$ variant | closed form vs ReLN | closed form vs ReLU |",
        "|---|---|---|---|",
    ]
    for C in CS:
        for meth, name in A0_NAMES.items():
            rows.append(
                f"| {C} | {name} | {gaps[C, meth, 'reln']:.3f} | "
                f"{gaps[C, meth, 'relu']:.3f} |"
            )
        rows.append(
            f"| {C} | (ReLU vs ReLN; two ReLU seeds) | | "
            f"{M_RELN[C, init].value:.3f}; {M[C, init].spread:.3f} |"
        )
    return f"Time gaps under the {init} initialisation (median over seeds):\n\n" + (
        "\n".join(rows)
    )


def halfway(CS, CM, CF, MODES, t_all, t_rec, lr) -> list:
    """Per C and distinct context mode ``s``: ``(C, s, closed form's, ReLN's and ReLU
    network's epoch at s / 2, the a0 the ReLU run implies over the head-start a0)``
    (medians over seeds)."""
    from . import halfway_epoch

    out = []
    for C in CS:
        cm = CM[C]
        s_u, idx = np.unique(cm.s.round(9), return_index=True)
        for k in idx[::-1]:
            s = cm.s[k]
            t_cf = halfway_epoch(t_all, CF[C]["head_start"].a_context[:, k], s / 2)
            t_n, t_u = (
                np.median(
                    [halfway_epoch(t_rec, a[:, k], s / 2) for a in MODES[C][n][1]]
                )
                for n in ("reln", "relu")
            )
            # Eq. (extra_contexts-mode) with d = 1 reaches s/2 at t when s / a0 =
            # 1 + exp(2 s t / tau)
            implied = s / (1 + np.exp(2 * s * t_u * lr)) if np.isfinite(t_u) else np.nan
            out.append(
                (C, s, t_cf, t_n, t_u, implied / CF[C]["head_start"].a0_context[k])
            )
    return out


def halfway_table(rows, init) -> str:
    """The table of :func:`halfway`."""
    lines = [
        "| C | mode $s$ | closed form | ReLN | ReLU | $a_0$ the ReLU run implies / "
        "head-start $a_0$ |",
        "|---|---|---|---|---|---|",
    ]
    for C, s, t_cf, t_n, t_u, ratio in rows:
        lines.append(
            f"| {C} | {s:.3f} | {t_cf:.0f} | {t_n:.0f} | {t_u:.0f} | {ratio:.2g} |"
        )
    return (
        "Epoch at which each context mode reaches half its final strength (medians "
        f"over seeds; {init} initialisation):\n\n" + "\n".join(lines)
    )


def init_table(CS, INITS, M, M_RELN, CHECK, SAME_START, init) -> str:
    """The comparison under every initialisation, with the verdict on "excellent
    agreement" for the closed form and the ReLN under each."""
    from ...book.rulebook import verdict

    rows = [
        "| C | init | ReLU vs closed form | ReLU vs ReLN | ReLN vs closed form | "
        'verdict on "excellent agreement" (closed form; ReLN) |',
        "|---|---|---|---|---|---|",
    ]
    for C in CS:
        for choice in INITS:
            twin = f" (= {init})" if choice != init and choice in SAME_START[C] else ""
            rows.append(
                f"| {C} | {choice}{twin} | {M[C, choice].value:.3f} | "
                f"{M_RELN[C, choice].value:.3f} | "
                f"{float(np.median(CHECK[C, choice])):.3f} | "
                f"{verdict(M[C, choice])}; {verdict(M_RELN[C, choice])} |"
            )
        rows.append(
            f"| {C} | (two ReLU seeds; single-context ReLN) | "
            f"{M[C, init].spread:.3f}; "
            f"{M[C, init].alternative:.3f} | | | |"
        )
    return "Time gaps, median over seeds:\n\n" + "\n".join(rows)


def race_sizes(CS, DS, CM) -> str:
    """One pathway of each size k: its top singular value on the residual (with the
    theory's) and on the raw target."""
    rows = [
        "| C | contexts on (k) | top $s$ on the residual | theory "
        "$\\sqrt{k(C-k)/C}\\,\\sigma_1$ | "
        "top $s$ on the raw target (item-centred) |",
        "|---|---|---|---|---|",
    ]
    for C in CS:
        ds = DS[C]
        _, R = common_fit(ds)
        items = [i for i, n in enumerate(ds.inputs) if n.startswith("item")]
        centre = np.eye(8) - 1 / 8
        for k in range(1, C):
            g = np.isin(ds.contexts, np.arange(k)).astype(float)
            s_res = np.linalg.svd(
                effective_dataset(ds.X, R, g, inputs=items)[0], compute_uv=False
            )[0]
            s_raw = np.linalg.svd(
                effective_dataset(ds.X, ds.Y, g, inputs=items)[0] @ centre,
                compute_uv=False,
            )[0]
            rows.append(
                f"| {C} | {k} | {s_res:.3f} | "
                f"{np.sqrt(k * (C - k) / C) * CM[C].sigma[0]:.3f} | {s_raw:.3f} |"
            )
    return "\n".join(rows)


def thresholds(CS, THRESH) -> str:
    """The final census at each on/off threshold (``THRESH[thr][C]``:
    :func:`threshold_census`)."""
    rows = [
        "| threshold | " + " | ".join(f"C = {C}" for C in CS) + " |",
        "|---|" + "---|" * len(CS),
    ]
    for thr, per_c in THRESH.items():
        vals = [" / ".join(f"{_med(x):.3f}" for x in per_c[C].T) for C in CS]
        rows.append(f"| {thr:g} | " + " | ".join(vals) + " |")
    return (
        "Share of weight in common + (C-1)-of-C units / contexts per unit, at the end "
        "of training (median over seeds):\n\n" + "\n".join(rows)
    )


def settle(CS, DS, STDS, SIM, init, t_all, lr, width, settles=(1e-3, 1e-6, 1e-9)):
    """The closed form against the ReLN for each ``settle`` (the end of the head
    start), median over seeds, as a table."""
    from . import closed_form_for_stds

    rows = [
        "| settle | " + " | ".join(f"C = {C}" for C in CS) + " |",
        "|---|" + "---|" * len(CS),
    ]
    for st in settles:
        vals = []
        for C in CS:
            F_ = closed_form_for_stds(
                DS[C], t_all, lr, STDS[C, init][0], width=width, settle=st
            )
            vals.append(
                _med([time_gap(L, F_.loss) for L in SIM[C]["mixed", init].loss])
            )
        rows.append(f"| {st:g} | " + " | ".join(f"{x:.3f}" for x in vals) + " |")
    return (
        f"Time gap closed form vs ReLN ({init} initialisation, median over "
        "seeds):\n\n" + "\n".join(rows)
    )


def final_census(CS, BY_K, FUNC_K, PER_UNIT, SHARE, FUNC_FINAL, CENSUS) -> str:
    """The final census per C, by weight and through the function."""
    rows = [
        "| C | common | (C-1)-of-C | (C-2)-of-C | single-context | common + "
        "(C-1)-of-C | snap change | contexts per unit | fraction of contexts | "
        "item-dependent |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for C in CS:
        bw_, fk = BY_K[C][:, -1], FUNC_K[C][:, -1]

        def pair(k):
            return f"{_med(bw_[:, k]):.3f} / {_med(fk[:, k]):.3f}"

        pu_w, pu_f = PER_UNIT[C, "weight"][:, -1], PER_UNIT[C, "function"][:, -1]
        rows.append(
            f"| {C} | {pair(C)} | {pair(C - 1)} | {pair(C - 2) if C > 3 else '—'} | "
            f"{pair(1)} | **{_med(SHARE[C][:, -1]):.3f}** | "
            f"{_med([f['snap_change'] for f in FUNC_FINAL[C]]):.3f} | "
            f"{_med(pu_w):.2f} / {_med(pu_f):.2f} | "
            f"{_med(pu_w) / C:.3f} / {_med(pu_f) / C:.3f} | "
            f"{_med([c[-1]['item_dependent'] for c in CENSUS[C]['census']]):.2f} |"
        )
    return (
        "Final census, median over seeds; *a / b*: by weight / through the function "
        "(share of the snapped output); *snap change*: "
        "$\\lVert \\hat Y_\\text{snapped} - \\hat Y\\rVert / \\lVert \\hat Y\\rVert$; "
        "*item-dependent*: weight in units whose activity varies between items inside "
        "some context:\n\n" + "\n".join(rows)
    )


def appendix_h(CS, SIM, STDS, HIDDEN, relu_std, init) -> str:
    """Appendix H's hyper-parameters, read from the code's settings and networks."""
    ds3 = contextual_task(3)
    n_path = lambda ds, kind: len(context_reln(ds, kind).pathway_names())  # noqa: E731
    net_widths = {C: SIM[C]["relu"].net.sizes for C in CS}
    reln_runs = {C: SIM[C]["mixed", init] for C in CS}

    def common_width(net):
        sl = net.pathway_slice("common")
        return sl.stop - sl.start

    rows = [
        (
            "Num-Hidden (GDLN), per pathway",
            "100",
            ", ".join(f"{common_width(reln_runs[C].net)} (C = {C})" for C in CS),
        ),
        (
            "Num-Modules (GDLN single modules, 3 contexts)",
            "4",
            str(n_path(ds3, "single")),
        ),
        (
            "Num-Modules (GDLN double modules, 3 contexts)",
            "4",
            str(n_path(ds3, "mixed")),
        ),
        (
            "Num-Modules (GDLN single and double, 3 contexts)",
            "7",
            str(n_path(ds3, "both")),
        ),
        (
            "Num-Modules (GDLN triple modules, 4 contexts)",
            "5",
            str(n_path(contextual_task(4), "mixed")),
        ),
        (
            "Num-Modules (GDLN quad modules, 5 contexts)",
            "6",
            str(n_path(contextual_task(5), "mixed")),
        ),
        (
            "Num-Hidden (ReLU)",
            "700",
            ", ".join(f"{net_widths[C][1]} (C = {C})" for C in CS),
        ),
        ("Num-Modules (ReLU)", "NA", "NA (gates are the units' own signs)"),
        (
            "Init-Scale",
            "(see the paper's table)",
            "ReLU: "
            + ", ".join(f"{relu_std / HIDDEN[C]:.2e} (C = {C})" for C in CS)
            + f"; ReLN ({init} init, C = {CS[0]}): "
            + ", ".join(f"{n} {v:.2e}" for n, v in STDS[CS[0], init][0].items()),
        ),
        (
            "Num-Epochs",
            "8000",
            f"{reln_runs[CS[0]].loss.shape[1] - 1} updates "
            f"({reln_runs[CS[0]].loss.shape[1]} loss values)",
        ),
        (
            "Step-Size",
            "0.001",
            f"{reln_runs[CS[0]].lr:g} on the summed loss",
        ),
        (
            "Input / output sizes",
            "(not in the table)",
            ", ".join(
                f"{net_widths[C][0]} / {net_widths[C][-1]} (C = {C})" for C in CS
            ),
        ),
    ]
    return "\n".join(
        [
            "| hyper-parameter | paper (Appendix H) | this book (from the code) |",
            "|---|---|---|",
        ]
        + [f"| {a} | {b} | {c} |" for a, b, c in rows]
    )
