"""The tables of the page book/extra_contexts.md, as Markdown."""

from __future__ import annotations

import numpy as np

from ...book import chapter_data, kit
from ...book.rulebook import verdict
from ...core.datasets import contextual_task, effective_dataset
from ...core.measures import time_gap
from ...core.relns import common_fit, context_reln
from .closed_form import closed_form_for_stds

#: The head-start variants as the page names them.
A0_NAMES = {
    "none": "none (no head start)",
    "linear": "small-weight head start",
    "head_start": "head start, the head-start formula above",
}


def say(name: str, **values) -> str:
    """The page's sentence ``name`` (its TOML ``[prose]``) filled with ``values``."""
    return kit.prose("extra_contexts", name, **values)


def _table(rows, name: str, floatfmt=None, **values) -> str:
    """``rows`` under the headers ``[prose] <name>_heads``, inside the caption
    ``<name>`` where the TOML has one; both filled with ``values``."""
    table = kit.table(rows, say(f"{name}_heads", **values), floatfmt=floatfmt)
    if name in chapter_data.data("extra_contexts")["prose"]:
        return say(name, table=table, **values)
    return table


def _values(x, fmt: str) -> str:
    return ", ".join(f"{v:{fmt}}" for v in np.unique(np.round(x, 6))[::-1])


def common(CS, COMMON) -> str:
    """The common pathway per C (``COMMON``: :func:`common_pathway` per C)."""
    rows = []
    for C in CS:
        c, m = COMMON[C], COMMON[C]["modes"]
        modes_txt = ", ".join(f"{s:.2f} ({d:.0f})" for s, d in zip(m.s, m.d))
        error, loss = c["residual_error"], c["residual_loss"]
        cells = (f"{c['offdiag']:.0e}", f"max error {error:.0e}", f"{loss:.1f}")
        rows.append((C, *cells, modes_txt))
    return _table(rows, "common")


def effective(CS, CM, EFF) -> str:
    """The context pathways' effective datasets against the derivation."""
    rows = []
    for C in CS:
        cm, (sxx, sxq, U0, U1, s_num) = CM[C], EFF[C]
        cos = abs(U0 @ U1)
        rows.append(
            (C, _values(cm.sigma, ".3f"), _values(cm.s, ".3f"), _values(s_num, ".3f"))
            + (f"{sxx[0, 0]:.0f} I", f"{sxq[0, 0]:.0f} I")
            + (f"{cos:.3f} (theory {1 / (C - 1):.3f})",)
            + (f"{-cos * sxq[0, 0]:.3f} (theory {cm.coupling:.3f})",)
        )
    return _table(rows, "effective")


def head_start(CS, CM, CF) -> str:
    """The context modes' initial strengths under the three head-start variants."""
    rows = []
    for C in CS:
        _, idx = np.unique(CM[C].s.round(9), return_index=True)
        for k in idx[::-1]:
            a0 = [f"{CF[C][m].a0_context[k]:.2e}" for m in A0_NAMES]
            rows.append((C, f"{CM[C].s[k]:.3f}", *a0))
    heads = ("C", "context mode $s$", "$a_0$ without head start")
    return kit.table(rows, (*heads, *list(A0_NAMES.values())[1:]))


def gap_variants_table(CS, gaps, M, M_RELN, init) -> str:
    """The table of :func:`helpers.chapters.extra_contexts.measures.gap_variants`,
    with the ReLU network against the ReLN and two ReLU seeds."""
    rows = []
    for C in CS:
        for meth, name in A0_NAMES.items():
            rows.append((C, name, gaps[C, meth, "reln"], gaps[C, meth, "relu"]))
        both = f"{M_RELN[C, init].value:.3f}; {M[C, init].spread:.3f}"
        rows.append((C, "(ReLU vs ReLN; two ReLU seeds)", "", both))
    return _table(rows, "gap_variants", ".3f", init=init)


def halfway_table(rows, init) -> str:
    """The table of :func:`helpers.chapters.extra_contexts.measures.halfway`."""
    return _table(rows, "halfway", (None, ".3f", ".0f", ".0f", ".0f", ".2g"), init=init)


def init_table(CS, INITS, M, M_RELN, CHECK, SAME_START, init) -> str:
    """The comparison under every initialisation, with the verdicts on "excellent
    agreement" for the closed form and the ReLN under each."""
    rows = []
    for C in CS:
        for i in INITS:
            twin = f" (= {init})" if i != init and i in SAME_START[C] else ""
            gaps = (M[C, i].value, M_RELN[C, i].value, kit.med(CHECK[C, i]))
            verdicts = f"{verdict(M[C, i])}; {verdict(M_RELN[C, i])}"
            rows.append((C, f"{i}{twin}", *gaps, verdicts))
        spread = f"{M[C, init].spread:.3f}; {M[C, init].alternative:.3f}"
        rows.append((C, "(two ReLU seeds; single-context ReLN)", spread, "", "", ""))
    return _table(rows, "init", ".3f")


def race_sizes(CS, DS, CM) -> str:
    """One pathway of each size k: its top singular value on the residual (with the
    theory's) and on the raw target."""
    rows, centre = [], np.eye(8) - 1 / 8
    for C in CS:
        ds = DS[C]
        _, R = common_fit(ds)
        items = [i for i, n in enumerate(ds.inputs) if n.startswith("item")]
        for k in range(1, C):
            g = np.isin(ds.contexts, np.arange(k)).astype(float)
            res = effective_dataset(ds.X, R, g, inputs=items)[0]
            raw = effective_dataset(ds.X, ds.Y, g, inputs=items)[0] @ centre
            s_res, s_raw = (np.linalg.svd(x, compute_uv=False)[0] for x in (res, raw))
            rows.append((C, k, s_res, np.sqrt(k * (C - k) / C) * CM[C].sigma[0], s_raw))
    return _table(rows, "race", ".3f")


def thresholds(CS, THRESH) -> str:
    """The final census at each on/off threshold (``THRESH[thr][C]``:
    :func:`helpers.chapters.extra_contexts.measures.threshold_census`)."""
    rows = [
        (f"{thr:g}", *(" / ".join(f"{kit.med(x):.3f}" for x in per_c[C].T) for C in CS))
        for thr, per_c in THRESH.items()
    ]
    return _table(rows, "thresholds", cs=" | ".join(f"C = {C}" for C in CS))


def settle(CS, DS, STDS, SIM, init, t_all, lr, width, settles=(1e-3, 1e-6, 1e-9)):
    """The closed form against the ReLN for each ``settle`` (the end of the head
    start), median over seeds."""

    def gap(C, st):  # median over seeds at C, head start ending at ``st``
        stds = STDS[C, init][0]
        F_ = closed_form_for_stds(DS[C], t_all, lr, stds, width=width, settle=st)
        return kit.med([time_gap(x, F_.loss) for x in SIM[C]["mixed", init].loss])

    rows = [(f"{st:g}", *(gap(C, st) for C in CS)) for st in settles]
    cs = " | ".join(f"C = {C}" for C in CS)
    return _table(rows, "settle", ".3f", init=init, cs=cs)


def final_census(CS, BY_K, FUNC_K, PER_UNIT, SHARE, FUNC_FINAL, CENSUS) -> str:
    """The final census per C, by weight and through the function."""
    med, rows = kit.med, []
    for C in CS:
        bw_, fk = BY_K[C][:, -1], FUNC_K[C][:, -1]
        w, f = med(PER_UNIT[C, "weight"][:, -1]), med(PER_UNIT[C, "function"][:, -1])
        pair = [f"{med(bw_[:, k]):.3f} / {med(fk[:, k]):.3f}" for k in range(C + 1)]
        snap = med([x["snap_change"] for x in FUNC_FINAL[C]])
        item = med([c[-1]["item_dependent"] for c in CENSUS[C]["census"]])
        rows.append(
            (C, pair[C], pair[C - 1], pair[C - 2] if C > 3 else "—", pair[1])
            + (f"**{med(SHARE[C][:, -1]):.3f}**", f"{snap:.3f}")
            + (f"{w:.2f} / {f:.2f}", f"{w / C:.3f} / {f / C:.3f}", f"{item:.2f}")
        )
    return _table(rows, "census")


def _n_path(C: int, kind: str) -> str:
    """The number of pathways of the ReLN ``kind`` at ``C`` contexts, as text."""
    return str(len(context_reln(contextual_task(C), kind).pathway_names()))


def appendix_h(CS, SIM, STDS, HIDDEN, relu_std, init) -> str:
    """Appendix H's hyper-parameters, read from the code's settings and networks."""
    sizes = {C: SIM[C]["relu"].net.sizes for C in CS}
    reln = {C: SIM[C]["mixed", init] for C in CS}
    first = reln[CS[0]]

    def per_c(f):
        return ", ".join(f"{f(C)} (C = {C})" for C in CS)

    def common_width(C):
        sl = reln[C].net.pathway_slice("common")
        return sl.stop - sl.start

    stds = ", ".join(f"{n} {v:.2e}" for n, v in STDS[CS[0], init][0].items())
    relu = per_c(lambda C: f"{relu_std / HIDDEN[C]:.2e}")
    T = first.loss.shape[1]
    rows = [
        ("Num-Hidden (GDLN), per pathway", "100", per_c(common_width)),
        ("Num-Modules (GDLN single modules, 3 contexts)", "4", _n_path(3, "single")),
        ("Num-Modules (GDLN double modules, 3 contexts)", "4", _n_path(3, "mixed")),
        ("Num-Modules (GDLN single and double, 3 contexts)", "7", _n_path(3, "both")),
        ("Num-Modules (GDLN triple modules, 4 contexts)", "5", _n_path(4, "mixed")),
        ("Num-Modules (GDLN quad modules, 5 contexts)", "6", _n_path(5, "mixed")),
        ("Num-Hidden (ReLU)", "700", per_c(lambda C: sizes[C][1])),
        ("Num-Modules (ReLU)", "NA", "NA (gates are the units' own signs)"),
        ("Init-Scale", "(see the paper's table)", f"ReLU: {relu}; ReLN ({init} "
         f"init, C = {CS[0]}): {stds}"),
        ("Num-Epochs", "8000", f"{T - 1} updates ({T} loss values)"),
        ("Step-Size", "0.001", f"{first.lr:g} on the summed loss"),
        ("Input / output sizes", "(not in the table)",
         per_c(lambda C: f"{sizes[C][0]} / {sizes[C][-1]}")),
    ]  # fmt: skip
    return _table(rows, "appendix_h")


def family_table(follows, closed, paper, init: str, wide) -> str:
    """The family fits ([rulebook-best]): per C every ReLN's time gap to the ReLU
    network at both widths (``follows``, ``wide``), the closed form's and the spread."""
    rows = []
    for C, m in follows.items():
        other = wide[C]
        for name, gap in sorted(m.candidates.items(), key=lambda kv: kv[1]):
            label = f"**{name}** (paper's)" if name == paper[C] else name
            best = " (nearest)" if name == m.best else ""
            w = f"{other.candidates[name]:.3f}"
            w += " (nearest)" if name == other.best else ""
            rows.append((C, label, f"{gap:.3f}{best}", w))
        cf = f"closed form of common + {C - 1}-of-{C}"
        rows.append((C, cf, f"{closed[C, init].value:.3f}", ""))
        lo, hi = m.spread_interval
        label = "(seed spread: ReLU and ReLN seeds; 90 % interval)"
        rows.append((C, label, f"{m.spread:.3f} ({lo:.3f}-{hi:.3f})", ""))
    return _table(rows, "family")
