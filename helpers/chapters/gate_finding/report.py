"""The records, glued numbers and closing tables of the page *Finding the gates*
(``book/gate_finding.md``), from what the page computed."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from ...book import kit, rulebook
from ...core import measures
from ...core.algorithm1 import GateSamples
from ...core.datasets import Dataset
from ...core.measures import Evidence, Match
from .clusterings import (
    EXPECTED4,
    Depth,
    context_level,
    context_strings,
    item_dependent,
    unit_clusters,
)
from .gdlns import Constructions, Elbow, Starts
from .tables import EPS_STAR, XOR_RELNS, joined, patterns

GF = "gate_finding"


@dataclass
class Runs:
    """What the page ran, as the page names it: ``restarts``, the elbow per k-means
    restart count; ``elbows``, per construction (``elbow``: the book's);
    ``restart_ks``, the record's elbow K per restart count; ``ties``,
    :func:`.gdlns.elbow_ties`; ``m_paper_tie``, the paper construction's match against
    the K = 3 runner-up optimum (None without a K = 3 tie)."""

    ds: Dataset
    samples: GateSamples
    by_k: dict
    elbow: Elbow
    restarts: dict
    starts: Starts
    constructions: Constructions
    m_paper: Match
    sensitivity: list
    xor: dict
    depth: Depth
    elbows: dict
    restart_ks: dict
    ties: list
    m_paper_tie: Match | None


class Params(NamedTuple):
    """The page's parameters the records name (``construction``: the page's
    ``elbow_construction``)."""

    init: str
    epochs: int
    n_init: int
    n_init_check: int
    single_inits: int
    construction: str = "paper"


def construction_words(construction: str, init: str) -> str:
    """The construction ``construction`` of the elbow's GDLNs in words."""
    return kit.prose(GF, f"construction_{construction}", init=init)


#: What a review of an earlier execution (book at 921d0f8) read: the elbow K* by
#: k-means restarts; not a result of this book, the page says whether it agrees.
REVIEW_ELBOW = {100: 4, 10: 3}

#: The other binarisation cuts of the K = 4 centroids the record is read at.
THRESHOLDS = (0.4, 0.6)


def _n_restarts(n) -> str:
    return f"{n} restart" + ("" if int(n) == 1 else "s")


def _of(flags) -> str:
    return f"{sum(flags)} of {len(flags)}"


def _others(r: Runs, pm: Params) -> list[tuple[str, Elbow]]:
    """The elbow of each construction but the record's, with its words."""
    c0 = pm.construction
    return [(construction_words(c, pm.init), e) for c, e in r.elbows.items() if c != c0]


def _k_min(Ks, errors) -> int:
    """The K of the least error."""
    return Ks[int(np.argmin(errors))]


def _fig8(r: Runs) -> tuple[int, dict]:
    """Glue of Fig. 8 (the samples and the K = 4 and K = 3 clusterings), and how many
    centroid entries the K = 4 patterns miss."""
    ds, smp, C, Ks = r.ds, r.samples, r.ds.n_contexts, r.elbow.Ks
    s = {K: context_strings(r.by_k[K].clustering, ds) for K in Ks}
    cl4, cl3, k4 = r.by_k[4].clustering, r.by_k[3].clustering, s[4]
    labels = ds.column_labels()
    off = [  # the centroid entries (column, value) the K = 4 patterns do not match
        f"{labels[i]} ({cl4.centroids[k, i]:.2f})"
        for k, p in enumerate(k4)
        for i in np.flatnonzero(cl4.binary[k] != context_level(p, ds))
    ]
    beyond = []  # the patterns each K > 4 adds beyond the four (or item-dependent)
    for K in Ks[4:]:
        _, dep = measures.context_patterns(r.by_k[K].clustering.binary, ds.contexts, C)
        new = [
            p + (" off everywhere" if p == "0" * C else " item-dependent" if d else "")
            for p, d in zip(s[K], dep)
            if p not in EXPECTED4 or d
        ]
        beyond.append(f"K = {K}: {', '.join(new) or 'none'}")
    common = ["1" * C in s[K] for K in Ks]
    allon3, i_common = cl3.centroids[s[3].index("111")], k4.index("1" * C)
    n, counts = smp.n_samples, smp.counts
    # the units' paths through the K = 4 clusters: of those whose last sample is in a
    # 2-of-3 cluster, the share that were in the all-on (common) cluster before
    lab, share_t = unit_clusters(smp, cl4)
    final_mixed = lab[:, -1] != i_common
    was_common = np.any(lab[:, :-1] == i_common, axis=1)
    return len(off), {
        "rows": n, "distinct": len(smp.patterns), "n_samples_per_run": len(smp.epochs),
        "dead_share": counts[~smp.patterns.any(axis=1)].sum() / n,
        "allon_share": counts[smp.patterns.all(axis=1)].sum() / n,
        "k4_patterns": ", ".join(k4),
        "k4_exact": kit.prose(GF, "k4_off" if off else "k4_exact", off=len(off),
                              n=4 * ds.P),
        "k4_off_points": ", ".join(off) or "none",
        "beyond4": "; ".join(beyond) or "none",
        "common_all": "every" if all(common) else _of(common), "k_max": max(Ks),
        "k3_missing": ", ".join(sorted(set(EXPECTED4) - set(s[3]))) or "none",
        "k3_allon_freq": joined((allon3[ds.contexts == c].mean() for c in range(C)),
                                 ".2f"),
        "k4_shares": ", ".join(f"{p} {100 * w:.0f}%" for p, w in zip(k4, cl4.shares)),
        "mixed_were_common": np.sum(final_mixed & was_common)
        / max(np.sum(final_mixed), 1),
        "common_peak": share_t[i_common].max(), "common_end": share_t[i_common, -1],
    }  # fmt: skip


def _fig9(r: Runs, pm: Params) -> dict:
    el, few, ds = r.elbow, r.restarts[pm.n_init_check], r.ds
    e, lo, i3, i4 = el.errors, el.errors.min(), el.Ks.index(3), el.Ks.index(4)
    best3 = r.by_k[3].clustering
    return {
        "elbow_seeds": el.n_seeds, "n_init": pm.n_init, "best_k": el.best_k,
        "best_k_seeds": joined(el.best_k_seed), "best_k_within": el.best_k_within,
        "err4": e[i4], "err3": e[i3], "err_min": lo, "err4_over_min": e[i4] / lo,
        "err_ratio34": e[i3] / e[i4], "err_min_k": _k_min(el.Ks, e),
        "err_seed_sd": np.max(el.err_seed.std(axis=1) / e),
        "relu_3000": r.samples.run.loss[0, 3000],
        "relu_end": kit.med(el.relu_loss[:, -1]), "k4_3000": r.by_k[4].loss[0, 3000],
        "k4_end": kit.med(r.by_k[4].loss[:, -1]),
        "single_range": f"{100}–{100 + pm.single_inits - 1}",
        "k3_few": patterns(few["k3"], ds), "k3_few_inertia": few["k3"].inertia,
        "k3_best": patterns(best3, ds), "k3_best_inertia": best3.inertia,
        "k3_obj_diff": 100 * (few["k3"].inertia / best3.inertia - 1),
        "best_k_few": few["best_k"], "n_init_few": pm.n_init_check,
        "err3_ratio": e[i3] / few["errors"][i3],
    }  # fmt: skip


def _restarts(r: Runs, pm: Params) -> dict:
    # K* and the K of the lowest error by k-means restarts, the page's included
    el = {pm.n_init: (r.elbow.best_k, _k_min(r.elbow.Ks, r.elbow.errors))}
    for n, x in r.restarts.items():
        el.setdefault(n, (x["best_k"], _k_min(r.elbow.Ks, x["errors"])))
    el = dict(sorted(el.items()))
    seen = {n: el[n][0] for n in REVIEW_ELBOW if n in el}
    said, here = (
        "; ".join(f"{_n_restarts(n)}: K* = {k}" for n, k in d.items())
        for d in (REVIEW_ELBOW, seen)
    )
    key = "review_same" if seen == REVIEW_ELBOW else "review_other"
    ks, min_ks = (
        ", ".join(f"K = {k[i]} ({_n_restarts(n)})" for n, k in el.items())
        for i in (0, 1)
    )
    return {
        "restarts_list": joined(n for n in el if n != pm.n_init),
        "restarts_ks": ks, "restarts_min_ks": min_ks,
        "review_restarts": kit.prose(GF, key, said=said, here=here),
    }  # fmt: skip


def _record_elbow(r: Runs, pm: Params) -> dict:
    """The glued numbers of the elbow the record reads (``elbow_construction``)."""
    main = r.elbows[pm.construction]
    KS, e = list(main.Ks), np.asarray(main.errors, float)
    bends = dict(zip(KS[1:-1], _bends(main)))
    k3 = [patterns(t.runner_up, r.ds) for t in r.ties if t.K == 3]
    tie = rulebook.KMEANS_TIE  # the ties in words ([rulebook-ties])
    ties = "; ".join(
        kit.prose(GF, "tie", **_tied(t, r), tie=tie, best_k=t.best_k) for t in r.ties
    ) or kit.prose(GF, "no_tie", tie=tie)
    per = {}
    for c, el in r.elbows.items():
        per[f"{c}_k"], per[f"{c}_k_within"] = int(el.best_k), int(el.best_k_within)
    return {
        "construction": pm.construction,
        "construction_words": construction_words(pm.construction, pm.init),
        "main_k": int(main.best_k), "main_k_seeds": joined(main.best_k_seed),
        "main_k_within": int(main.best_k_within),
        "main_bend3": bends.get(3, np.nan), "main_err3": e[KS.index(3)],
        "main_bend4": bends.get(4, np.nan), "main_err4": e[KS.index(4)],
        "main_err_min": e.min(), "main_err_min_k": _k_min(KS, e),
        "main_err4_over_min": e[KS.index(4)] / e.min(), **per,
        "main_restarts": ", ".join(
            f"K = {k} ({_n_restarts(n)})" for n, k in sorted(r.restart_ks.items())
        ),
        "kmeans_tie": tie, "ties": ties,
        "k3_runner_up": k3[0] if k3 else "none within KMEANS_TIE",
    }  # fmt: skip


def _gdln(r: Runs, pm: Params) -> dict:
    """Glue of the GDLNs against the ReLU trainings: per start and construction, when
    the runs reach the last loss level, and the K = 4 clustering's sensitivity."""
    rows, mi, m = r.starts.rows, r.starts.m[pm.init], r.m_paper
    best = min(rows, key=lambda i: rows[i]["gap_k4"])
    gaps = [x["gap_k4"] for x in rows.values()]
    moves = max(gaps) - min(gaps) <= rulebook.CLEARLY * min(gaps)
    matched, b = r.starts.points["matched"][4].loss, rows[best]
    # the epoch of the last loss level in the K = 4 and 3 GDLN runs (all starts)
    pts = r.starts.points.values()
    curves = {K: [L for d in pts for L in d[K].loss] for K in (4, 3)}
    reach = {K: [measures.level_times(L)[-1] for L in c] for K, c in curves.items()}
    relu_last = [measures.level_times(L)[-1] for L in r.elbow.relu_loss]
    sens = {g: [x[-1] for x in r.sensitivity if x[0] == g] for g in ("seeds", "alone")}
    subsets = [x for x in r.sensitivity if x[0] == "subsets"]
    return {
        "gap_k4": mi.value, "gap_k3": mi.alternative, "gap_spread": mi.spread,
        "gap_spread_2x": rulebook.NOISE_MULTIPLE * mi.spread,
        "gap_verdict": rows[pm.init]["verdict"], "elbow_init": pm.init,
        "epochs": pm.epochs, "best_init": best,
        "init_moves": "little" if moves else "much",
        "best_init_gap": b["gap_k4"], "best_init_verdict": b["verdict"],
        "best_init_final": b["final_loss_k4"],
        "relu_t_last": np.nanmedian(relu_last), "last_level": 100 * measures.LEVELS[-1],
        **{f"k{K}_reach": _of(np.isfinite(t)) for K, t in reach.items()},
        **{f"variant_gap{i}": v for i, v in enumerate(r.constructions.gaps)},
        "gap_k4_matched": measures.match(r.elbow.relu_loss, matched).value,
        "paper_gap": m.value, "paper_gap_k3": m.alternative, "paper_spread": m.spread,
        "paper_spread_lo": m.spread_interval[0],
        "paper_spread_hi": m.spread_interval[1], "paper_verdict": rulebook.verdict(m),
        "k3_patterns": patterns(r.by_k[3].clustering, r.ds),
        "kmeans_same": _of(sens["seeds"]), "single_same": _of(sens["alone"]),
        "subsets_ok": ", ".join(x[1] for x in subsets if x[-1]) or "none",
        "subsets_bad": ", ".join(x[1] for x in subsets if not x[-1]) or "none",
    }  # fmt: skip


def _xor_glue(r: Runs) -> dict:
    """Algorithm 1 on the XoR task: at how many margins below and above ``eps*`` it
    finds the expected ReLN, and where the two elbow rules disagree."""
    reads = {
        e: XOR_RELNS.get(",".join(sorted(x["patterns"]))) for e, x in r.xor.items()
    }
    disagree = [e for e in sorted(r.xor) if r.xor[e]["k"] != r.xor[e]["k_within"]]
    return {
        "xor_below": _of([reads[e] == "XoR ReLN" for e in reads if e < EPS_STAR]),
        "xor_above": _of([reads[e] == "linear ReLN" for e in reads if e > EPS_STAR]),
        "xor_disagree": joined(disagree, "g") or "none",
    }


def _depth_glue(r: Runs) -> dict:
    """Algorithm 1 on the deeper network: layer 1's patterns at K = 2, layer 2's at
    each K, and whether its runs learn in step."""
    ds, c1, c2 = r.depth.ds, r.depth.layer1, r.depth.layer2
    s1 = list(zip(context_strings(c1[2], ds), c1[2].shares))
    s2 = {K: context_strings(c, ds) for K, c in c2.items()}
    d_end = r.depth.samples.run.loss[:, -1]
    spread = float(d_end.max() / d_end.min())
    first = [K for K, s in s2.items() if {"110", "101", "011"} <= set(s)]
    return {
        "d_layer1_k2": ", ".join(f"{p} ({w:.2f})" for p, w in s1),
        "d2_itemdep": joined(f"{item_dependent(c, ds)} of {K}" for K, c in c2.items()),
        "d_layer1_on": float(sum(w for p, w in s1 if p == "111")),
        "d_in_step": kit.prose(GF, "out_of_step" if spread > 2 else "in_step",
                               spread=spread),
        "d_init_loss": r.depth.samples.run.loss[0, 0],
        "d_end_loss": joined(d_end, ".3g"),
        "d2_k4": ", ".join(s2[4]) if 4 in c2 else "n/a",
        "d2_first_mixed": str(first[0]) if first else f"no K up to {max(c2)}",
    }  # fmt: skip


def _bends(e: Elbow) -> np.ndarray:
    """The bend rule's second differences of log error at the inner K."""
    le = np.log(np.asarray(e.errors, float))
    return le[:-2] - 2 * le[1:-1] + le[2:]


def _tied(t, r: Runs) -> dict:
    """A tie's values for the ``optimum`` variants' names."""
    return dict(K=t.K, runner_up=patterns(t.runner_up, r.ds), excess=100 * t.excess)


def _said(r: Runs, pm: Params, mismatch: int, glued: dict) -> dict:
    """The values the records' notes name: ``glued`` and more."""
    main, v = r.elbows[pm.construction], rulebook.verdict(r.m_paper)
    return dict(
        glued,
        main=main,
        mismatch=mismatch,
        n=4 * r.ds.P,
        k_max=max(main.Ks),
        bends=joined(f"{K}: {b:.3g}" for K, b in zip(main.Ks[1:-1], _bends(main))),
        lowest=joined(
            f"{_k_min(e.Ks, e.errors)} with the {c}'s construction"
            for c, e in r.elbows.items()
        ),
        others="; ".join(
            f"{w}: " + joined(f"{K}: {x:.3g}" for K, x in zip(e.Ks, e.errors))
            for w, e in _others(r, pm)
        ),
        final=kit.med(r.constructions.paper_loss[:, -1]),
        other="Another"
        if any(x["verdict"] != v for x in r.starts.rows.values())
        else "No other",
        starts="; ".join(
            f"{k} start: gap {x['gap_k4']:.3f}, {x['verdict']}"
            for k, x in r.starts.rows.items()
        ),
    )


def _records(rec, r: Runs, pm: Params, said: dict) -> dict:
    """The page's records, each with the values its note names (``said``), and their
    variants: the other binarisation thresholds, constructions, k-means restarts,
    GDLN seeds, the factor-2 rule, and each tied runner-up k-means optimum
    ([rulebook-ties])."""
    ds, main, cl4, m = r.ds, r.elbows[pm.construction], r.by_k[4].clustering, r.m_paper
    k4, best_k = context_strings(cl4, ds), int(main.best_k)
    tie = {t.K: t for t in r.ties}
    opt = {kit.prose(GF, "optimum", **_tied(t, r)): int(t.best_k) for t in r.ties}
    opt4 = {kit.prose(GF, "k4_optimum_none"): list(k4)}
    if 4 in tie:
        key = kit.prose(GF, "k4_optimum", **_tied(tie[4], r))
        opt4 = {key: list(context_strings(tie[4].runner_up, ds))}
    opt3 = {kit.prose(GF, "k3_optimum_none"): m}
    if 3 in tie and r.m_paper_tie is not None:
        opt3 = {kit.prose(GF, "k3_optimum", **_tied(tie[3], r)): r.m_paper_tie}
    cuts = {
        f"centroids binarised at {t:g}": context_strings(replace(cl4, threshold=t), ds)
        for t in THRESHOLDS
    }
    restarts = {
        f"{n} k-means restart{'s' if n > 1 else ''} instead of {pm.n_init}": int(k)
        for n, k in sorted(r.restart_ks.items())
        if n != pm.n_init
    }
    others = {w: int(e.best_k) for w, e in _others(r, pm)}
    seeds = {f"GDLN seed {s} alone": int(k) for s, k in enumerate(main.best_k_seed)}
    rule2 = "elbow: the smallest K within a factor 2 of the best error"
    ev_k = (  # choices in alphabetical order, as the records store them
        Evidence(best_k, compared=4, criterion="exact")
        .varied("construction", others)
        .varied("optimum", opt or {kit.prose(GF, "optimum_none"): best_k})
        .varied("restarts", restarts)
        .varied("seeds", seeds)
        .varied("threshold", {rule2: int(main.best_k_within)})
    )
    by_start = {
        f"the book's construction, {k} start": r.starts.m[k] for k in sorted(r.starts.m)
    }
    init = {f"book's construction, {k} start": x for k, x in r.starts.rows.items()}
    init["paper's construction"] = dict(
        gap_k4=m.value,
        gap_k3=m.alternative,
        final_loss_k4=said["final"],
        verdict=rulebook.verdict(m),
    )
    ev4 = Evidence(list(k4), compared=EXPECTED4, criterion="exact")
    records = [
        ("k4_patterns", ev4.varied("threshold", cuts).varied("optimum", opt4)),
        ("best_k", ev_k),
        ("elbow_errors", {str(K): float(e) for K, e in zip(main.Ks, main.errors)}),
        ("gap_k4_relu", m.varied("construction", by_start).varied("optimum", opt3)),
        ("init_sensitivity", init),
    ]
    return kit.add_all(rec, [(name, ev, said) for name, ev in records])


def report(rec, runs: Runs, params: Params) -> dict:
    """Write the page's records (into ``rec``), glue its numbers, and build its
    closing table and paragraph from what it ran (:class:`Runs`) and its parameters
    (:class:`Params`); Defined for the page book/gate_finding.md.

    Returns:
        ``{"summary": Markdown table of every claim, "closing": the closing
        paragraph}``; the records are saved.
    """
    r, pm = runs, params
    if pm.construction not in r.elbows:
        raise ValueError(
            f"elbow_construction {pm.construction!r} has no elbow among "
            f"{sorted(r.elbows)}"
        )
    mismatch, glued = _fig8(r)
    for part in (_fig9, _restarts, _record_elbow, _gdln):
        glued.update(part(r, pm))
    glued.update(_xor_glue(r), **_depth_glue(r))
    kit.glue_many("gf", glued)
    g = _records(rec, r, pm, _said(r, pm, mismatch, glued))
    rec.save()
    ok = [i for i, x in r.starts.rows.items() if x["verdict"] == "reproduced"]
    others = [kit.prose(GF, "other", words=w, k=e.best_k) for w, e in _others(r, pm)]
    closing = kit.prose(
        GF,
        "closing",
        **glued,
        v_k4=g["k4_patterns"]["verdict"],
        v_best=g["best_k"]["verdict"],
        v_gap=g["gap_k4_relu"]["verdict"],
        others="; ".join(others),
        restarts=", ".join(f"K = {k} ({n})" for n, k in sorted(r.restart_ks.items())),
        Ties=glued["ties"][0].upper() + glued["ties"][1:],
        started=kit.prose(GF, "started", ok=", ".join(ok))
        if ok
        else kit.prose(GF, "started_none"),
    )
    summary = kit.summary(GF, g)
    return {"summary": summary, "closing": closing}
