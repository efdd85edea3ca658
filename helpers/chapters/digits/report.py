"""The records, glued numbers, tables and sentences of book/digits.md, read from the
page's runs by the science functions the page calls."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ...book.kit import add_all, glue_many, med, prose, table
from ...book.records import claims_table
from ...book.rulebook import NOISE_MULTIPLE as NM
from ...book.rulebook import claim
from ...core.algorithm1 import pattern_strings
from ...core.measures import Evidence, level_times, match
from ...core.paper import CONTEXTS as PAPER
from . import controls
from .comparison import assumption_211, reln_gaps, reln_test_errors
from .elbow import live_samples, read_elbow
from .gates import CLASSES, GATE_KINDS, compare_to_chance, read_census, shuffle_contexts
from .params import Params
from .task import answers, digits_task, reference_losses, relu_errors, step_size

C = 3
_say = partial(prose, "digits")


@dataclass(frozen=True)
class Runs:
    """What the page trained and measured, under the page's names."""

    task: object
    relu: object
    euler: dict
    samples_all: object
    t_collapse: float
    fits: list
    census: dict
    relns: dict
    starts: dict
    preds: dict
    controls: dict


class _Reading:
    """What the report reads from the runs, by the science functions the page calls."""

    def __init__(self, runs: Runs, p: Params):
        self.p, self.runs = p, runs
        task, relu, tol = runs.task, runs.relu, p.gate_tolerance
        self.ds, self.test, self.ref = task.train, task.test, reference_losses(task)
        self.err = relu_errors(relu, task)
        self.samples, self.live_share = live_samples(runs.samples_all, tol)
        shuffled = shuffle_contexts(self.ds, p.shuffle_seed)
        self.el = el = read_elbow(runs.fits, task, tol, shuffled)
        self.cen = cen = read_census(relu, runs.census, self.ds, p.epochs, shuffled)
        #: the census early, at the end and, for chance, at initialisation and with
        #: the contexts shuffled (early and at the end), and their single / 2-of-3
        #: weight ratios (inf when there is no 2-of-3)
        early, end = cen.early, p.epochs
        self.at = {
            "early": cen.at[f"epoch {early}"], "final": cen.at[f"epoch {end}"],
            "init": cen.init, "shuffled_early": cen.shuffled[early],
            "shuffled_final": cen.shuffled[end],
        }  # fmt: skip
        self.chance = {
            k: c["single"] / c["mixed"] if c["mixed"] > 0 else float("inf")
            for k, c in self.at.items()
        }
        losses, gdln = {k: v.loss for k, v in runs.relns.items()}, el.best.run.loss
        self.gaps = reln_gaps(relu.loss, losses, runs.preds, gdln, self.ref, p)
        self.err_reln = reln_test_errors(runs.relns, task)
        self.diag = assumption_211(task, runs.starts["mixed"].net)
        #: the early and the late lead of the ReLU network, per control
        rows = runs.controls.items()
        self.ahead = {k: controls.relu_ahead(c, NM) for k, c in rows}
        self.late = {k: controls.relu_ends_lower(c, NM) for k, c in rows}
        #: per ReLU seed, the first epoch its loss is at or below the floor (or None)
        below = [L <= self.ref.floor for L in relu.loss]
        self.t_floor = [int(np.argmax(b)) if np.any(b) else None for b in below]


def errors_table(err: dict, P_train: int, P_test: int) -> str:
    """The ReLU network's error rates (:func:`relu_errors`) as a Markdown table."""
    rows = [
        [f"{s} ({P} datapoints)",
         f"{100 * med(e['error']):.1f} ({100 * np.min(e['error']):.1f}-"
         f"{100 * np.max(e['error']):.1f})",
         *(f"{100 * med(e[k]):.1f}" for k in ("class_error", "context_error"))]
        for s, P, e in (("train", P_train, err["train"]), ("test", P_test, err["test"]))
    ]  # fmt: skip
    return table(rows, _say("errors_headers"))


def k_table(elbow, ds, L0: float) -> str:
    """Algorithm 1's clustering and GDLN for every K (an :class:`Elbow`) as a table."""
    err = elbow.err_gdln
    rows = [
        [f.K, ", ".join(pattern_strings(f.clustering.binary, ds.contexts, C)),
         ", ".join(kinds), ", ".join(f"{w:.2f}" for w in f.clustering.shares),
         f"{f.output_mse:.2e}",
         f"{med(f.run.loss[:, -1]) if f.run is not None else L0:.1f}",
         f"{100 * med(err[f.K]['error']):.1f}" if f.K in err else "—"]
        for f, kinds in zip(elbow.fits, elbow.kinds_all)
    ]  # fmt: skip
    return table(rows, _say("k_headers"))


def gap_table(gaps) -> str:
    """The ReLNs' time gaps (:class:`Gaps`) as a Markdown table."""
    g, levels = gaps, list(gaps.by_level)
    rows = [
        [_say(f"gap_{key}"), *(getattr(g, f"m_{m}{a}").value for a in ("", "_above")),
         *(g.by_level[f][key] for f in levels)]
        for key, m in (("mixed", "reln"), ("single", "single"), ("derived", "derived"))
    ]  # fmt: skip
    spread = [g.by_level[f]["spread"] for f in levels]
    rows.append([_say("gap_spread"), g.m_reln.spread, g.m_reln_above.spread, *spread])
    headers = ["time gap to the ReLU network", "all levels", "levels above the floor"]
    return table(rows, headers + [f"level {f:g}" for f in levels], floatfmt=".3f")


def _task(r: _Reading) -> dict:
    """The task, the step size, the ReLU network's loss and errors."""
    p, ds, ref, err, euler = r.p, r.ds, r.ref, r.err, r.runs.euler
    every = digits_task(0, p.test_fraction, p.split_seed)  # the paper profile's
    n_all = (every.train.P // C, every.test.P // C)
    X, Y, XX = ds.X, ds.Y, ds.X @ ds.X.T
    s_all = np.linalg.svd(Y @ X.T, compute_uv=False)
    s1, v1 = float(s_all[0]), np.linalg.svd(Y @ X.T)[2][0]
    d1, lam = float(v1 @ XX @ v1), float(np.linalg.eigh(XX)[0][-1])
    s1_all = float(np.linalg.svd(every.train.Y @ every.train.X.T, compute_uv=False)[0])
    loss = r.runs.relu.loss
    t_lev = np.array([level_times(L) for L in loss])
    t10 = med(t_lev[:, 1]) if np.all(np.isfinite(t_lev[:, 1])) else "never"
    return {
        "per_class": p.images_per_class if p.images_per_class else "all",
        "n_train": ds.P // C,
        "P": ds.P,
        "n_train_all": n_all[0],
        "n_test_all": n_all[1],
        "n_images_all": sum(n_all),
        "L0": ref.L0,
        "L_linear": ref.linear,
        "L_linear_frac": ref.linear / ref.L0,
        "L_linear_class": ref.linear_class,
        "floor": ref.floor,
        "floor_frac": ref.floor / ref.L0,
        "width": p.relu_width,
        "reln_width": p.reln_width,
        "rank": int(np.sum(s_all > 1e-9 * s1)),
        "std": p.relu_std,
        "s1": s1,
        "lam_bound": (s1 / d1) * lam / s1,
        "paper_kappa": PAPER.lr * s1,
        "kappa": p.kappa,
        "lr": step_size(ds, p.kappa),
        "epochs": p.epochs,
        "flow_time": p.kappa * p.epochs,
        "euler_pct": 100 * euler[0.5],
        "euler2_pct": 100 * euler[2.0],
        "s1_all": s1_all,
        "paper_kappa_all": PAPER.lr * s1_all,
        "t50": med(t_lev[:, 0]),
        "t10": t10,
        "relu_final": med(loss[:, -1]),
        "relu_spread": match(loss, loss).spread,
        "relu_final_frac": med(loss[:, -1]) / ref.L0,
        "test_error_lo": 100 * float(np.min(err["test"]["error"])),
        "test_error_hi": 100 * float(np.max(err["test"]["error"])),
        **{f"{s}_error": 100 * med(err[s]["error"]) for s in ("train", "test")},
    }


def _algorithm1(r: _Reading) -> dict:
    """Algorithm 1's samples and elbow, and the census over training."""
    sa, el, p, best, kb = r.runs.samples_all, r.el, r.p, r.el.best, r.el.k_bend
    census, relu, t_floor = r.runs.census, r.runs.relu, r.t_floor
    allon = r.samples.counts[r.samples.patterns.all(axis=1)].sum() / sa.n_samples
    agree = el.best_k == el.k_within and kb["interval"][0] == kb["interval"][1]
    train_out = best.run.records["outputs"][:, -1] if best.run else None
    snap_at_floor = [
        census["snap_change"][s, int(np.argmin(np.abs(relu.record_epochs - t)))]
        for s, t in enumerate(t_floor)
        if t is not None
    ]
    return {
        "trainings": p.trainings, "rows": sa.n_samples, "distinct": len(sa.patterns),
        "distinct_pct": 100 * len(sa.patterns) / sa.n_samples,
        "gdln_width": round(r.live_share * p.relu_width),
        "k_interval": "{}-{}".format(*kb["interval"]),
        "k_check_interval": "{}-{}".format(*el.k_check["interval"]),
        "collapse_s": r.runs.t_collapse, "dead_share": float(1 - r.live_share),
        "dead_exact_share": float(1 - live_samples(sa)[1]),  # off for every datapoint
        "allon_share": float(allon), "best_k": el.best_k, "k_within": el.k_within,
        "best_patterns": ", ".join(el.best_patterns),
        "best_kinds": ", ".join(
            f"{q} ({k})" for q, k in zip(el.best_patterns, el.best_src["kind"])
        ),
        "test_gdln": 100 * med(el.err_gdln[el.best_k]["error"])
        if el.best_k in el.err_gdln else float("nan"),
        "train_gdln": 100 * med(answers(train_out, r.runs.task)["error"])
        if best.run else float("nan"),
        "gdln_final": med(best.run.loss[:, -1]) if best.run else r.ref.L0,
        "n_centroids": sum(len(k) for k in el.kinds_all),
        **{f"n_{tag}": sum(int(np.sum(x == k)) for x in el.kinds_all)
           for tag, k in (("ctx", "context"), ("both", "both"), ("item", "item"))},
        "kmeans_n_init": p.kmeans_n_init,
        "elbow_seeds": p.elbow_seeds, "tol": p.gate_tolerance,
        "err_ratio": float(el.errors[0] / el.errors[-1]),
        "k_agree": _say("k_agree" if agree else "k_disagree"), "k_max": p.k_max,
        **{f"{tag}_{k}": med(census[k][:, relu.index(e)])
           for tag, e in (("early", r.cen.early), ("final", p.epochs))
           for k in (*CLASSES, *GATE_KINDS, "by_class")
           if k not in ("item_dependent", "off")},
        "early": r.cen.early,
        "t_floor": int(med([t for t in t_floor if t is not None]))
        if all(t is not None for t in t_floor) else "never",
        "snap_at_floor": med(snap_at_floor) if snap_at_floor else float("nan"),
    }  # fmt: skip


def _parting(by_level: dict) -> tuple[str, float | None]:
    """Where the curves part, in words, and the level from which all gaps are beyond."""
    beyond = [by_level[f]["mixed"] > NM * by_level[f]["spread"] for f in by_level]
    part = next((f for i, f in enumerate(by_level) if all(beyond[i:])), None)
    first = [f for f in by_level if part is None or f > part]
    most = {
        k: max((by_level[f][k] for f in first), default=0)
        for k in ("mixed", "single", "spread")
    }
    levels = ", ".join(f"{f:g}" for f in first)
    text = [_say("parting_first", levels=levels, most=most)] if first else []
    last = "parting_within" if part is None else "parting_from"
    text.append(_say(last, part=part, nm=NM))
    return "; ".join(text), part


def _relns(r: _Reading) -> dict:
    """The ReLNs against the ReLU network."""
    g, relns, diag, by_level = r.gaps, r.runs.relns, r.diag, r.gaps.by_level
    t50 = {  # the ReLNs' median epoch of L0 / 2
        k: med([level_times(L, (0.5,))[0] for L in relns[k].loss])
        for k in ("mixed", "single")
    }
    upper = [f for f in by_level if f > 0.5]
    early_max = max(max(by_level[f]["mixed"], by_level[f]["single"]) for f in upper)
    f0, ctx = list(by_level)[0], [n for n in diag["paths"] if n != "common"]
    net, W2 = r.runs.starts["derived"].net, r.runs.starts["derived"].params0[-1]
    stds = {  # the derived init's readout std per pathway
        n: np.median(W2[:, :, net.pathway_slice(n)].std(axis=(1, 2))) / r.p.relu_std
        for n in net.pathway_names()
    }
    return {
        f"m_{k}{tail}": getattr(getattr(g, f"m_{k}"), field)
        for k in ("reln", "single", "reln_above", "single_above", "gdln")
        for tail, field in (("", "value"), ("_spread", "spread"))
        if not tail or k.startswith("reln")
    } | {
        "above": ", ".join(f"{f:g}" for f in g.above),
        "pred_mixed": g.m_pred["mixed"].value,
        "pred_single": g.m_pred["single"].value,
        "reln_final": med(relns["mixed"].loss[:, -1]),
        "single_final": med(relns["single"].loss[:, -1]),
        "test_reln": 100 * med(r.err_reln["mixed"]["error"]),
        "test_single": 100 * med(r.err_reln["single"]["error"]),
        "diag_task": diag["task"]["offdiag"],
        "leak_task": diag["task"]["leak"],
        "diag_s4": diag["section4"]["offdiag"],
        "diag_paths": max(diag["paths"][n]["offdiag"] for n in ctx),
        "leak_paths": max(diag["paths"][n]["leak"] for n in ctx),
        "t50_reln": t50["mixed"],
        "t50_single": t50["single"],
        "parting": _parting(by_level)[0],
        "early_max": early_max,
        "early_max_pct": 100 * (np.exp(early_max) - 1),
        "first_level": f"{f0:g}",
        "first_matched": by_level[f0]["mixed"],
        "first_derived": by_level[f0]["derived"],
        "first_spread": by_level[f0]["spread"],
        "m_derived_above": g.m_derived_above.value,
        "derived_stds": ", ".join(f"{n} {x:.2f}" for n, x in stds.items()),
        "mixed_vs_single": "faster" if t50["mixed"] < t50["single"] else "slower",
    }


def _controls(r: _Reading) -> dict:
    """The controls: their gaps, floors and snap changes, and the leads in words."""
    out, tags = {}, {"aff": "affine targets", "wht": "whitened pixels"}
    for tag, k in (tags | {"rnd": "random context labels"}).items():
        c, m = r.runs.controls[k], r.runs.controls[k]["mixed"]
        last = ("snap", "snap_change") if tag == "aff" else ("floor", "floor")
        out |= {
            f"c_{tag}_mixed": m.value,
            f"c_{tag}_single": c["single"].value,
            f"c_{tag}_hi": m.spread_interval[1],
            f"c_{tag}_{last[0]}": c[last[1]],
        }
    leads = {k: {"early": r.ahead[k], "late": r.late[k]} for k in r.runs.controls}
    finals = {k: c["final"] for k, c in r.runs.controls.items()}

    def names(d, v):
        return ", ".join(k for k, x in d.items() if x == v) or "none"

    return out | {
        "n_seeds": r.p.seeds,
        "nm": NM,
        "ahead_list": names(r.ahead, True),
        "behind_list": names(r.ahead, False),
        "lower_list": names(r.late, True),
        "not_lower_list": names(r.late, False),
        "explanation": controls.explain_controls(leads, finals),
    }


def _cluster_words(r: _Reading) -> str:
    """Algorithm 1's clusters at the elbow by class, and read with shuffled contexts."""
    c, sh = r.el.best_classes, r.el.best_classes_shuffled
    s, m = c["single"], c["mixed"]
    way = "single" if s > m else "mixed" if m > s else "same"
    return _say("clusters", c=c, sh=sh, verdict=_say(f"clusters_{way}"))


def _values(r: _Reading, gl: dict) -> dict:
    """The glued values ``gl`` and what the sentences and the notes read beside them."""
    el, g, q, at, c = r.el, r.gaps, r.chance, r.at, r.el.best_classes
    f, lv, w = at["final"], g.per_level, r.runs.controls["whitened pixels"]
    a, b, sp = w["mixed"].value, w["single"].value, w["mixed"].spread
    census, err, i = r.runs.census, r.err["test"], r.runs.relu.index(r.cen.early)
    kinds = ("context", "item", "both")  # the census's weight on each, in the notes

    def joined(xs, fmt=".2f"):
        return ", ".join(format(x, fmt) for x in xs)

    def by_class(c):
        return ", ".join(f"{k} {v:.2f}" for k, v in c.items())

    return gl | {
        "p": r.p, "g": g, "q": q, "f": f, "e": at["early"], "c": c, "kb": el.k_bend,
        "kc": el.k_check, "a": a, "b": b, "sp": sp, "diff": abs(a - b),
        "cms": {k: _say("shares", c=x, ratio=q[k]) for k, x in at.items()},
        "lead": "single-context" if f["single"] > f["mixed"] else "2-of-3",
        "levels": ", ".join(f"{x:g}" for x in w["levels"]),
        "nearer": "2-of-3" if a < b else "single-context",
        "n_nearer": sum(x["mixed"] < x["single"] for x in lv.values()),
        "apart": sum(x["single"] - x["mixed"] > NM * x["spread"] for x in lv.values()),
        "n_levels": len(lv), "n_above": len(g.above),
        "per_level": "; ".join(_say("level_gap", f=f, x=x) for f, x in lv.items()),
        "errors": joined(el.errors, ".3g"), "n_distinct": len(r.samples.patterns),
        "shares": joined(el.best.clustering.shares), "by_class": by_class(c),
        "by_class_shuffled": by_class(el.best_classes_shuffled),
        **{f"dev_{k}": joined(el.best_src[f"dev_{k}"], ".3f")
           for k in ("context", "item", "class")},
        **{f"shares_{t}": " / ".join(f"{med(census[k][:, j]):.3f}" for k in kinds)
           for t, j in (("early", i), ("final", -1))},
        "candidates": tuple(r.p.reln_levels), "m_derived": g.m_derived.value,
        "record_levels": "; ".join(
            _say("record_level", f=f, x=x) for f, x in g.per_level.items()
        ),
        "t_floor_med": "never" if None in r.t_floor else med(r.t_floor),
        "P_test": r.test.P, "early_cm": at["early"]["common"] + at["early"]["mixed"],
        "class_err": med(err["class_error"]), "context_err": med(err["context_error"]),
        "train_err": med(r.err["train"]["error"]),
        "reln_err": med(r.err_reln["mixed"]["error"]),
        "single_err": med(r.err_reln["single"]["error"]),
        "part": _parting(g.by_level)[1], "patterns": " ".join(el.best_patterns),
        "kinds": " ".join(el.best_src["kind"]), "relu": med(err["error"]),
        "gdln": med(el.err_gdln[el.best_k]["error"]),
    }  # fmt: skip


def _chance(r: _Reading, v: dict) -> dict:
    """The census and Algorithm 1 against chance, the ReLNs, the controls, in words."""
    q, g, c = r.chance, r.gaps, r.el.best_classes
    vs = {
        t: compare_to_chance(q[t], {"init": q["init"], "shuffled": q[f"shuffled_{t}"]})
        for t in ("early", "final")
    }
    better = g.m_reln_above.value < g.m_single_above.value
    mixed_ahead = "yes" if c["mixed"] > c["single"] else "partly"
    v = v | {
        "final_vs": vs["final"],
        "early_text": _say(f"early_{vs['early']}"),
        "nearest": "the nearer" if better else "not the nearer",
        "answer": _say("lead_" + (mixed_ahead if vs["early"] == "below" else "chance")),
    }
    v["census"] = _say("census", **v)
    v["whitened"] = _say(
        "whitened_same" if v["diff"] <= v["sp"] else "whitened_apart", **v
    )
    prop42 = "for" if v["t50_reln"] < v["t50_single"] else "against"
    return {
        "chance_table": _say("chance_table", **v),
        "census_words": v["census"][0].upper() + v["census"][1:],
        "alg1_words": _cluster_words(r), "whitened_words": v["whitened"],
        "floor_margin": r.p.floor_margin, "n_above": len(g.above),
        "levels_words": _say("levels", **v), "prop42_words": _say(f"prop42_{prop42}"),
        "nearer_words": _say("nearer_yes" if better else "nearer_no"),
        "better_words": _say("better", **v),
        "conclusion_words": _say("conclusion", **v),
        "reviewers_words": _say("reviewers", **v),
    }  # fmt: skip


def _evidence(r: _Reading) -> dict:
    """Each record's evidence, by name."""
    el, g, d, e = r.el, r.gaps, r.diag, r.err["test"]["error"]
    gdln_err, pm, euler = (
        el.err_gdln[el.best_k]["error"],
        g.m_pred["mixed"],
        r.runs.euler,
    )
    gdln_spread = float(np.ptp(gdln_err)) if r.p.elbow_seeds > 1 else None
    cen = {**r.cen.at, "epoch 0 (initialisation)": r.cen.init}
    cen |= {f"shuffled contexts, epoch {e}": c for e, c in r.cen.shuffled.items()}
    return {
        "best_k": {
            rule: {"k": int(k), "per_gdln_seed": c["per_seed"],
                   "interval": list(c["interval"])}
            for rule, k, c in (("bend rule", el.best_k, el.k_bend),
                               ("factor-2 rule", el.k_within, el.k_check))
        },
        "k_patterns_context_level": list(el.best_patterns),
        "k_patterns_gate_on": [str(k) for k in el.best_src["kind"]],
        "census_context_level": cen, "reln_vs_relu": g.m_reln,
        "singles_vs_relu": g.m_single, "reln_vs_relu_above_floor": g.m_reln_above,
        "singles_vs_relu_above_floor": g.m_single_above,
        "gap_by_level": {f"{f:g}": x for f, x in g.by_level.items()},
        "reln_floor": r.ref.floor / r.ref.L0,
        "reln_vs_prediction": Evidence(
            pm.value, spread=pm.spread, per_seed=pm.per_seed, time_gap=True
        ),
        "assumption_211": {
            "task_offdiag": d["task"]["offdiag"], "task_leak": d["task"]["leak"],
            "pathways_offdiag_max": max(
                d["paths"][k]["offdiag"] for k in d["paths"] if k != "common"
            ),
            "section4_offdiag": d["section4"]["offdiag"],
        },
        "test_error_relu": Evidence(med(e), spread=float(np.ptp(e))),
        "test_error_gdln": Evidence(med(gdln_err), spread=gdln_spread),
        "controls": controls.controls_record(r.runs.controls, r.ahead, r.late),
        "step_size_check": {"half_step": euler[0.5], "double_step": euler[2.0]},
    }  # fmt: skip


def report(rec, runs: Runs, params: Params) -> dict:
    """Write and save the records ``rec`` and glue every number the page
    book/digits.md cites, from its :class:`Runs`; returns the tables ``controls`` and
    ``summary`` and ``printed`` (what the output check prints)."""
    r = _Reading(runs, params)
    gl = _task(r) | _algorithm1(r) | _relns(r) | _controls(r)
    v = _values(r, gl)
    gl |= _chance(r, v)
    glue_many("digits", gl)
    recs = add_all(rec, [(name, e, v) for name, e in _evidence(r).items()])
    rec.save()
    # the closing table's values in words: the elbow's rules, the controls' leads
    yes = {True: "yes", False: "no"}
    leads = "; ".join(f"{k}: {yes[x]} / {yes[r.late[k]]}" for k, x in r.ahead.items())
    said = {"best_k": _say("summary_best_k", **v), "controls": leads}
    recs |= {k: {**recs[k], "value": x} for k, x in said.items()}
    rows = [(claim("digits", n), x) for n, x in recs.items()]
    summary = claims_table([(e["summary"], e["summary_quote"], x) for e, x in rows])
    return {
        "controls": controls.controls_table(runs.controls),
        "summary": summary,
        "printed": _say("printed", **v),
    }
