"""The records, glued numbers and closing tables of the page *Finding the gates*
(``book/gate_finding.md``), from what the page computed."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from ...book import kit, rulebook
from ...book.records import claims_table
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

GF = "gate_finding"


@dataclass
class Runs:
    """What the page ran, as the page names it.  Beyond the obvious: ``restarts``,
    :func:`.gdlns.elbow_restarts` per k-means restart count; ``elbows``, the elbow
    per construction of its GDLNs (``elbow`` is the book's); ``restart_ks``, the
    record's elbow K per restart count; ``ties``, :func:`.gdlns.elbow_ties`;
    ``m_paper_tie``, the paper construction's match against the K = 3 runner-up
    optimum (None without a K = 3 tie)."""

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
    """The page's parameters the records name: the elbow GDLNs' start, the epochs,
    k-means' restarts (the page's and the check's), single-restart runs, and the
    construction the elbow record reads (``elbow_construction``)."""

    init: str
    epochs: int
    n_init: int
    n_init_check: int
    single_inits: int
    construction: str = "paper"


def construction_words(construction: str, init: str) -> str:
    """The construction ``construction`` of the elbow's GDLNs in words."""
    return kit.prose(GF, f"construction_{construction}", init=init)


#: What a review of an earlier execution of this chapter (book at 921d0f8) read:
#: the elbow K* by k-means restarts.  Not a result of this book: the page says
#: whether this execution agrees.
REVIEW_ELBOW = {100: 4, 10: 3}

#: The binarisation cuts of the K = 4 centroids the record is also read at (the
#: chapter's is 1/2).
THRESHOLDS = (0.4, 0.6)


def _n_restarts(n) -> str:
    return f"{n} restart" + ("" if int(n) == 1 else "s")


def _joined(cl, ds) -> str:
    """A clustering's context-level strings, joined."""
    return ", ".join(context_strings(cl, ds))


def _fig8(r: Runs) -> tuple[int, dict]:
    """Glue of Fig. 8 (the samples and the K = 4 and K = 3 clusterings), and how many
    centroid entries the K = 4 patterns miss."""
    ds, smp, C, Ks = r.ds, r.samples, r.ds.n_contexts, r.elbow.Ks
    cl4, cl3 = (r.by_k[K].clustering for K in (4, 3))
    k4, s3 = context_strings(cl4, ds), context_strings(cl3, ds)
    labels = ds.column_labels()
    off = [  # the centroid entries (column, value) the K = 4 patterns do not match
        f"{labels[i]} ({cl4.centroids[k, i]:.2f})"
        for k, p in enumerate(k4)
        for i in np.flatnonzero(cl4.binary[k] != context_level(p, ds))
    ]
    beyond = []  # the patterns each K > 4 adds beyond the four (or item-dependent)
    for K in Ks[4:]:
        pats, dep = measures.context_patterns(
            r.by_k[K].clustering.binary, ds.contexts, C
        )
        new = [
            p + (" off everywhere" if p == "0" * C else " item-dependent" if d else "")
            for p, d in zip(pats, dep)
            if p not in EXPECTED4 or d
        ]
        beyond.append(f"K = {K}: {', '.join(new) if new else 'none'}")
    common = ["1" * C in context_strings(r.by_k[K].clustering, ds) for K in Ks]
    missing3 = sorted(set(EXPECTED4) - set(s3))
    allon3 = cl3.centroids[s3.index("111")]
    i_common = k4.index("1" * C)
    exact = kit.prose(GF, "k4_off" if off else "k4_exact", off=len(off), n=4 * ds.P)
    n, counts = smp.n_samples, smp.counts
    # the units' paths through the K = 4 clusters: of those whose last sample is in a
    # 2-of-3 cluster, the share that were in the all-on (common) cluster before
    lab, share_t = unit_clusters(smp, cl4)
    final_mixed = lab[:, -1] != i_common
    was_common = np.any(lab[:, :-1] == i_common, axis=1)
    were_common = np.sum(final_mixed & was_common) / max(np.sum(final_mixed), 1)
    return len(off), {
        "rows": n, "distinct": len(smp.patterns), "n_samples_per_run": len(smp.epochs),
        "dead_share": float(counts[~smp.patterns.any(axis=1)].sum() / n),
        "allon_share": float(counts[smp.patterns.all(axis=1)].sum() / n),
        "k4_patterns": ", ".join(k4), "k4_exact": exact,
        "k4_off_points": ", ".join(off) or "none",
        "beyond4": "; ".join(beyond) or "none",
        "common_all": "every" if all(common) else f"{sum(common)} of {len(Ks)}",
        "k_max": max(Ks), "k3_missing": ", ".join(missing3) or "none",
        "k3_allon_freq": ", ".join(
            f"{allon3[ds.contexts == c].mean():.2f}" for c in range(C)
        ),
        "k4_shares": ", ".join(f"{s} {100 * w:.0f}%" for s, w in zip(k4, cl4.shares)),
        "mixed_were_common": float(were_common),
        "common_peak": float(share_t[i_common].max()),
        "common_end": float(share_t[i_common, -1]),
    }  # fmt: skip


def _fig9(r: Runs, pm: Params) -> dict:
    KS, e, few = r.elbow.Ks, r.elbow.errors, r.restarts[pm.n_init_check]
    e3, e4 = (float(e[KS.index(K)]) for K in (3, 4))
    L_relu, L4, best3 = r.samples.run.loss[0], r.by_k[4].loss[0], r.by_k[3].clustering
    err3_few = few["errors"][KS.index(3)]
    return {
        "elbow_seeds": r.elbow.n_seeds, "n_init": pm.n_init, "best_k": r.elbow.best_k,
        "best_k_seeds": ", ".join(str(k) for k in r.elbow.best_k_seed),
        "best_k_within": r.elbow.best_k_within, "err4": e4, "err3": e3,
        "err_min": float(e.min()), "err4_over_min": float(e[KS.index(4)] / e.min()),
        "err_ratio34": float(e[KS.index(3)] / e[KS.index(4)]),
        "err_min_k": int(KS[int(np.argmin(e))]),
        "err_seed_sd": float(np.max(r.elbow.err_seed.std(axis=1) / e)),
        "relu_3000": float(L_relu[3000]),
        "relu_end": kit.med(r.elbow.relu_loss[:, -1]), "k4_3000": float(L4[3000]),
        "k4_end": kit.med(r.by_k[4].loss[:, -1]),
        "single_range": f"{100}–{100 + pm.single_inits - 1}",
        "k3_few": _joined(few["k3"], r.ds), "k3_few_inertia": few["k3"].inertia,
        "k3_best": _joined(best3, r.ds), "k3_best_inertia": best3.inertia,
        "k3_obj_diff": 100 * (few["k3"].inertia / best3.inertia - 1),
        "err3_few": err3_few, "best_k_few": few["best_k"],
        "n_init_few": pm.n_init_check, "err3_ratio": float(e[KS.index(3)] / err3_few),
    }  # fmt: skip


def _restarts(r: Runs, pm: Params) -> dict:
    KS = list(r.elbow.Ks)
    # K* and the K of the lowest error by k-means restarts, the page's included
    el = {pm.n_init: (int(r.elbow.best_k), KS[int(np.argmin(r.elbow.errors))])}
    for n, x in r.restarts.items():
        el.setdefault(n, (int(x["best_k"]), KS[int(np.argmin(x["errors"]))]))
    el = dict(sorted(el.items()))
    seen = {n: el[n][0] for n in REVIEW_ELBOW if n in el}
    said, here = (
        "; ".join(f"{_n_restarts(n)}: K* = {k}" for n, k in d.items())
        for d in (REVIEW_ELBOW, seen)
    )
    key = "review_same" if seen == REVIEW_ELBOW else "review_other"
    text = kit.prose(GF, key, said=said, here=here)
    ks, min_ks = (
        ", ".join(f"K = {k[i]} ({_n_restarts(n)})" for n, k in el.items())
        for i in (0, 1)
    )
    return {
        "restarts_list": ", ".join(str(n) for n in el if n != pm.n_init),
        "restarts_ks": ks, "restarts_min_ks": min_ks, "review_restarts": text,
    }  # fmt: skip


def _record_elbow(r: Runs, pm: Params) -> dict:
    """The glued numbers of the elbow the record reads (``elbow_construction``)."""
    main = r.elbows[pm.construction]
    KS, e = list(main.Ks), np.asarray(main.errors, float)
    bends = dict(zip(KS[1:-1], _bends(main)))
    k3 = [_joined(t.runner_up, r.ds) for t in r.ties if t.K == 3]
    per = {}
    for c, el in r.elbows.items():
        per[f"{c}_k"], per[f"{c}_k_within"] = int(el.best_k), int(el.best_k_within)
    return {
        "construction": pm.construction,
        "construction_words": construction_words(pm.construction, pm.init),
        "main_k": int(main.best_k),
        "main_k_seeds": ", ".join(str(k) for k in main.best_k_seed),
        "main_k_within": int(main.best_k_within),
        "main_bend3": float(bends.get(3, np.nan)), "main_err3": float(e[KS.index(3)]),
        "main_bend4": float(bends.get(4, np.nan)), "main_err4": float(e[KS.index(4)]),
        "main_err_min": float(e.min()), "main_err_min_k": int(KS[int(np.argmin(e))]),
        "main_err4_over_min": float(e[KS.index(4)] / e.min()),
        **per,
        "main_restarts": ", ".join(
            f"K = {k} ({_n_restarts(n)})" for n, k in sorted(r.restart_ks.items())
        ),
        "kmeans_tie": rulebook.KMEANS_TIE, "ties": _tie_words(r),
        "k3_runner_up": k3[0] if k3 else "none within KMEANS_TIE",
    }  # fmt: skip


def _gdln(r: Runs, pm: Params) -> dict:
    """Glue of the GDLNs against the ReLU trainings: per start and construction, when
    the runs reach the last loss level, and the K = 4 clustering's sensitivity."""
    rows, m_main, m = r.starts.rows, r.starts.m[pm.init], r.m_paper
    best = min(rows, key=lambda i: rows[i]["gap_k4"])
    gaps = [x["gap_k4"] for x in rows.values()]
    moves = max(gaps) - min(gaps) <= rulebook.CLEARLY * min(gaps)
    matched = r.starts.points["matched"][4].loss
    # the last loss level's epoch in the ReLU and the K = 4 and 3 GDLN runs (all starts)
    curves = {"relu": r.elbow.relu_loss}
    curves |= {
        f"k{K}": np.concatenate([d[K].loss for d in r.starts.points.values()])
        for K in (4, 3)
    }
    last = {
        k: np.array([measures.level_times(L) for L in c])[:, -1]
        for k, c in curves.items()
    }
    sens = {g: [x[-1] for x in r.sensitivity if x[0] == g] for g in ("seeds", "alone")}
    subsets = [x for x in r.sensitivity if x[0] == "subsets"]
    return {
        "gap_k4": m_main.value, "gap_k3": m_main.alternative,
        "gap_spread": m_main.spread,
        "gap_spread_2x": rulebook.NOISE_MULTIPLE * m_main.spread,
        "gap_verdict": rows[pm.init]["verdict"], "elbow_init": pm.init,
        "epochs": pm.epochs, "best_init": best,
        "init_moves": "little" if moves else "much",
        "best_init_gap": rows[best]["gap_k4"],
        "best_init_verdict": rows[best]["verdict"],
        "best_init_final": rows[best]["final_loss_k4"],
        "relu_t_last": float(np.nanmedian(last["relu"])),
        "last_level": 100 * measures.LEVELS[-1],
        **{
            f"{k}_reach": f"{int(np.isfinite(t).sum())} of {len(t)}"
            for k, t in last.items()
            if k != "relu"
        },
        **{f"variant_gap{i}": v for i, v in enumerate(r.constructions.gaps)},
        "gap_k4_matched": measures.match(r.elbow.relu_loss, matched).value,
        "paper_gap": m.value, "paper_gap_k3": m.alternative, "paper_spread": m.spread,
        "paper_spread_lo": m.spread_interval[0],
        "paper_spread_hi": m.spread_interval[1], "paper_verdict": rulebook.verdict(m),
        "k3_patterns": _joined(r.by_k[3].clustering, r.ds),
        "kmeans_same": f"{sum(sens['seeds'])} of {len(sens['seeds'])}",
        "single_same": f"{sum(sens['alone'])} of {len(sens['alone'])}",
        "subsets_ok": ", ".join(x[1] for x in subsets if x[-1]) or "none",
        "subsets_bad": ", ".join(x[1] for x in subsets if not x[-1]) or "none",
    }  # fmt: skip


def _xor_glue(r: Runs) -> dict:
    """Algorithm 1 on the XoR task: at how many margins below and above ``eps*`` it
    finds the expected patterns, and where the two elbow rules disagree."""
    eps_star = np.sqrt(2 / 3)
    key = {e: ",".join(sorted(x["patterns"])) for e, x in r.xor.items()}
    ok = {
        "below": [key[e] == "0001,0010,0100,1000" for e in key if e < eps_star],
        "above": [key[e] == "0110,1001" for e in key if e > eps_star],
    }
    disagree = [e for e in sorted(key) if r.xor[e]["k"] != r.xor[e]["k_within"]]
    return {
        **{f"xor_{k}": f"{sum(v)} of {len(v)}" for k, v in ok.items()},
        "xor_disagree": ", ".join(f"{e:g}" for e in disagree) or "none",
    }


def _depth_glue(r: Runs) -> dict:
    """Algorithm 1 on the deeper network: layer 1's patterns at K = 2, layer 2's at
    each K, and whether its runs learn in step."""
    ds, c1, c2 = r.depth.ds, r.depth.layer1, r.depth.layer2
    s1 = context_strings(c1[2], ds)
    s2 = {K: context_strings(c, ds) for K, c in c2.items()}
    dep = [f"{item_dependent(c, ds)} of {K}" for K, c in c2.items()]
    d_end = r.depth.samples.run.loss[:, -1]
    spread = float(d_end.max() / d_end.min())
    step = "out_of_step" if spread > 2 else "in_step"
    mixed = ["110", "101", "011"]
    first = [K for K, s in s2.items() if all(m in s for m in mixed)]
    first = str(first[0]) if first else f"no K up to {max(r.depth.layer2)}"
    return {
        "d_layer1_k2": ", ".join(f"{p} ({w:.2f})" for p, w in zip(s1, c1[2].shares)),
        "d2_itemdep": ", ".join(dep),
        "d_layer1_on": float(sum(w for s, w in zip(s1, c1[2].shares) if s == "111")),
        "d_in_step": kit.prose(GF, step, spread=spread),
        "d_init_loss": float(r.depth.samples.run.loss[0, 0]),
        "d_end_loss": ", ".join(f"{v:.3g}" for v in d_end),
        "d2_k4": ", ".join(s2[4]) if 4 in c2 else "n/a",
        "d2_all": ", ".join(sorted({s for ss in s2.values() for s in ss})),
        "d2_first_mixed": first,
    }  # fmt: skip


def _bends(e: Elbow) -> np.ndarray:
    """The bend rule's second differences of log error at the inner K."""
    le = np.log(np.asarray(e.errors, float))
    return le[:-2] - 2 * le[1:-1] + le[2:]


def _tie_words(r: Runs) -> str:
    """The k-means ties in words ([rulebook-ties])."""
    tie = rulebook.KMEANS_TIE
    if not r.ties:
        return kit.prose(GF, "no_tie", tie=tie)
    return "; ".join(
        kit.prose(GF, "tie", **_tied(t, r), tie=tie, best_k=t.best_k) for t in r.ties
    )


def _tied(t, r: Runs) -> dict:
    """A tie's values for the ``optimum`` variants' names."""
    return dict(K=t.K, runner_up=_joined(t.runner_up, r.ds), excess=100 * t.excess)


def _records(rec, r: Runs, pm: Params, mismatch: int, glued: dict) -> dict:
    """The page's records, each with the values its note names, and their variants:
    the other binarisation thresholds, constructions, k-means restarts, GDLN seeds,
    the factor-2 rule, and each tied runner-up k-means optimum ([rulebook-ties])."""
    ds, main, cl4 = r.ds, r.elbows[pm.construction], r.by_k[4].clustering
    k4, best_k = context_strings(cl4, ds), int(main.best_k)
    words = {c: construction_words(c, pm.init) for c in r.elbows}
    others = {c: e for c, e in r.elbows.items() if c != pm.construction}
    t4 = next((t for t in r.ties if t.K == 4), None)
    t3 = next((t for t in r.ties if t.K == 3), None)
    opt = {kit.prose(GF, "optimum", **_tied(t, r)): int(t.best_k) for t in r.ties}
    opt4 = {kit.prose(GF, "k4_optimum_none"): list(k4)}
    if t4 is not None:
        key = kit.prose(GF, "k4_optimum", **_tied(t4, r))
        opt4 = {key: list(context_strings(t4.runner_up, ds))}
    opt3 = {kit.prose(GF, "k3_optimum_none"): r.m_paper}
    if t3 is not None and r.m_paper_tie is not None:
        opt3 = {kit.prose(GF, "k3_optimum", **_tied(t3, r)): r.m_paper_tie}
    cuts = {
        f"centroids binarised at {t:g}": context_strings(replace(cl4, threshold=t), ds)
        for t in THRESHOLDS
    }
    ev4 = Evidence(list(k4), compared=EXPECTED4, criterion="exact")
    restarts = {
        f"{n} k-means restart{'s' if n > 1 else ''} instead of {pm.n_init}": int(k)
        for n, k in sorted(r.restart_ks.items())
        if n != pm.n_init
    }
    seeds = {f"GDLN seed {s} alone": int(k) for s, k in enumerate(main.best_k_seed)}
    rule2 = "elbow: the smallest K within a factor 2 of the best error"
    ev_k = (  # choices in alphabetical order, as the records store them
        Evidence(best_k, compared=4, criterion="exact")
        .varied("construction", {words[c]: int(e.best_k) for c, e in others.items()})
        .varied("optimum", opt or {kit.prose(GF, "optimum_none"): best_k})
        .varied("restarts", restarts)
        .varied("seeds", seeds)
        .varied("threshold", {rule2: int(main.best_k_within)})
    )
    by_start = {
        f"the book's construction, {k} start": r.starts.m[k] for k in sorted(r.starts.m)
    }
    errors = {str(K): float(e) for K, e in zip(main.Ks, main.errors)}
    m, rows, v = r.m_paper, r.starts.rows, rulebook.verdict(r.m_paper)
    final = kit.med(r.constructions.paper_loss[:, -1])
    changed = any(x["verdict"] != v for x in rows.values())
    said = dict(glued, main=main, mismatch=mismatch, n=4 * ds.P, k_max=max(main.Ks))
    said.update(
        bends=", ".join(f"{K}: {b:.3g}" for K, b in zip(main.Ks[1:-1], _bends(main))),
        lowest=", ".join(
            f"{e.Ks[int(np.argmin(e.errors))]} with the {c}'s construction"
            for c, e in r.elbows.items()
        ),
        others="; ".join(
            f"{words[c]}: " + ", ".join(f"{K}: {x:.3g}" for K, x in zip(e.Ks, e.errors))
            for c, e in others.items()
        ),
        final=final,
        other="Another" if changed else "No other",
        starts="; ".join(
            f"{k} start: gap {x['gap_k4']:.3f}, {x['verdict']}" for k, x in rows.items()
        ),
    )
    init = {f"book's construction, {k} start": x for k, x in rows.items()}
    init["paper's construction"] = dict(
        gap_k4=m.value, gap_k3=m.alternative, final_loss_k4=final, verdict=v
    )
    records = [
        ("k4_patterns", ev4.varied("threshold", cuts).varied("optimum", opt4)),
        ("best_k", ev_k),
        ("elbow_errors", errors),
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
    for part in (_xor_glue, _depth_glue):  # Algorithm 1 on XoR, on the deeper net
        glued.update(part(r))
    kit.glue_many("gf", glued)
    g = _records(rec, r, pm, mismatch, glued)
    rec.save()
    rows = [(rulebook.claim(GF, n), x) for n, x in g.items()]
    ok = [i for i, x in r.starts.rows.items() if x["verdict"] == "reproduced"]
    others = [
        kit.prose(GF, "other", words=construction_words(c, pm.init), k=e.best_k)
        for c, e in r.elbows.items()
        if c != pm.construction
    ]
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
    summary = claims_table([(e["summary"], e["summary_quote"], x) for e, x in rows])
    return {"summary": summary, "closing": closing}
