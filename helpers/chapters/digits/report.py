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
from .comparison import assumption_211, reln_gaps, reln_test_errors
from .controls import (
    controls_record,
    controls_table,
    explain_controls,
    relu_ahead,
    relu_ends_lower,
)
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

    def __init__(self, runs: Runs, params: Params):
        self.p, self.runs = params, runs
        task, relu, tol = runs.task, runs.relu, params.gate_tolerance
        self.ds, self.test, self.ref = task.train, task.test, reference_losses(task)
        self.lr = step_size(task.train, params.kappa)
        self.err = relu_errors(relu, task)
        self.samples, self.live_share = live_samples(runs.samples_all, tol)
        self.gdln_width = round(self.live_share * params.relu_width)
        shuffled = shuffle_contexts(task.train, params.shuffle_seed)
        self.el = read_elbow(runs.fits, task, tol, shuffled)
        self.cen = read_census(relu, runs.census, task.train, params.epochs, shuffled)
        early, end, cen = self.cen.early, params.epochs, self.cen
        #: the census early, at the end and, for chance, at initialisation and with
        #: the contexts shuffled (early and at the end)
        self.at = {
            "early": cen.at[f"epoch {early}"], "final": cen.at[f"epoch {end}"],
            "init": cen.init, "shuffled_early": cen.shuffled[early],
            "shuffled_final": cen.shuffled[end],
        }  # fmt: skip
        #: their single / 2-of-3 weight ratios (inf when there is no 2-of-3)
        self.chance = {
            k: c["single"] / c["mixed"] if c["mixed"] > 0 else float("inf")
            for k, c in self.at.items()
        }
        losses = {k: v.loss for k, v in runs.relns.items()}
        gdln = self.el.best.run.loss
        self.gaps = reln_gaps(relu.loss, losses, runs.preds, gdln, self.ref, params)
        self.err_reln = reln_test_errors(runs.relns, task)
        self.diag = assumption_211(task, runs.starts["mixed"].net)
        self.ctx_names = [n for n in self.diag["paths"] if n != "common"]
        #: the early and the late lead of the ReLU network, per control
        self.ahead = {k: relu_ahead(c, NM) for k, c in runs.controls.items()}
        self.late = {k: relu_ends_lower(c, NM) for k, c in runs.controls.items()}
        #: the centroids over all K that gate on the context, on both, on the image
        kinds = ("context", "both", "item")
        self.n_kinds = {
            k: sum(int(np.sum(x == k)) for x in self.el.kinds_all) for k in kinds
        }
        #: per ReLU seed, the first epoch its loss is at or below the floor (or None)
        below = [L <= self.ref.floor for L in relu.loss]
        self.t_floor = [int(np.argmax(b)) if np.any(b) else None for b in below]
        #: the ReLNs' median epoch of L0 / 2
        self.t50 = {
            k: med([level_times(L, (0.5,))[0] for L in runs.relns[k].loss])
            for k in ("mixed", "single")
        }


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
    rows = [[row[0], *(f"{x:.3f}" for x in row[1:])] for row in rows]
    headers = ["time gap to the ReLU network", "all levels", "levels above the floor"]
    return table(rows, headers + [f"level {f:g}" for f in levels])


def _glue_task(r: _Reading) -> None:
    ds, test, ref = r.ds, r.test, r.ref
    task_all = digits_task(0, r.p.test_fraction, r.p.split_seed)  # the paper profile's
    n_all = (task_all.train.P // C, task_all.test.P // C)
    X, Y, p, euler, err = r.ds.X, r.ds.Y, r.p, r.runs.euler, r.err
    s_all = np.linalg.svd(Y @ X.T, compute_uv=False)
    s1 = float(s_all[0])
    evals = np.linalg.eigh(X @ X.T)[0]
    Vt_ = np.linalg.svd(Y @ X.T)[2]
    d1 = float(Vt_[0] @ (X @ X.T) @ Vt_[0])
    all_images = task_all.train
    s1_all = float(np.linalg.svd(all_images.Y @ all_images.X.T, compute_uv=False)[0])
    loss = r.runs.relu.loss
    t_lev = np.array([level_times(L) for L in loss])
    t10 = med(t_lev[:, 1]) if np.all(np.isfinite(t_lev[:, 1])) else "never"
    glue_many("digits", {
        "per_class": r.p.images_per_class if r.p.images_per_class else "all",
        "n_train": ds.P // C, "n_test": test.P // C, "P": ds.P, "P_test": test.P,
        "n_train_all": n_all[0], "n_test_all": n_all[1], "n_images_all": sum(n_all),
        "scale": r.runs.task.scale, "L0": ref.L0, "L_linear": ref.linear,
        "L_linear_frac": ref.linear / ref.L0, "L_linear_class": ref.linear_class,
        "floor": ref.floor, "floor_frac": ref.floor / ref.L0,
        "width": p.relu_width, "reln_width": p.reln_width,
        "rank": int(np.sum(s_all > 1e-9 * s1)), "std": p.relu_std, "s1": s1,
        "lam_bound": (s1 / d1) * float(evals[-1]) / s1, "paper_kappa": PAPER.lr * s1,
        "kappa": p.kappa, "lr": r.lr, "epochs": p.epochs,
        "flow_time": p.kappa * p.epochs, "euler_pct": 100 * euler[0.5],
        "euler2_pct": 100 * euler[2.0], "s1_all": s1_all,
        "paper_kappa_all": PAPER.lr * s1_all, "t50": med(t_lev[:, 0]), "t10": t10,
        "relu_final": med(loss[:, -1]), "relu_spread": match(loss, loss).spread,
        "relu_final_frac": med(loss[:, -1]) / r.ref.L0,
        "test_error_lo": 100 * float(np.min(err["test"]["error"])),
        "test_error_hi": 100 * float(np.max(err["test"]["error"])),
        **{f"{s}_{part}": 100 * med(err[s][part]) for s in ("train", "test")
           for part in ("error", "class_error", "context_error")},
    })  # fmt: skip


def _glue_algorithm1(r: _Reading) -> None:
    """Algorithm 1's samples and elbow, and the census over training."""
    sa, el, p, n = r.runs.samples_all, r.el, r.p, r.n_kinds
    best, kb = el.best, el.k_bend
    dead_exact = 1 - live_samples(sa)[1]  # off for every datapoint
    allon = r.samples.counts[r.samples.patterns.all(axis=1)].sum() / sa.n_samples
    agree = el.best_k == el.k_within and kb["interval"][0] == kb["interval"][1]
    train_out = best.run.records["outputs"][:, -1] if best.run else None
    glue_many("digits", {
        "trainings": p.trainings, "rows": sa.n_samples, "distinct": len(sa.patterns),
        "distinct_pct": 100 * len(sa.patterns) / sa.n_samples,
        "gdln_width": r.gdln_width, "k_interval": "{}-{}".format(*kb["interval"]),
        "k_check_interval": "{}-{}".format(*el.k_check["interval"]),
        "collapse_s": r.runs.t_collapse, "dead_share": float(1 - r.live_share),
        "dead_exact_share": float(dead_exact), "allon_share": float(allon),
        "best_k": el.best_k, "k_within": el.k_within,
        "best_patterns": ", ".join(el.best_patterns),
        "best_kinds": ", ".join(
            f"{q} ({k})" for q, k in zip(el.best_patterns, el.best_src["kind"])
        ),
        "test_gdln": 100 * med(el.err_gdln[el.best_k]["error"])
        if el.best_k in el.err_gdln else float("nan"),
        "train_gdln": 100 * med(answers(train_out, r.runs.task)["error"])
        if best.run else float("nan"),
        "gdln_final": med(best.run.loss[:, -1]) if best.run else r.ref.L0,
        "n_centroids": sum(len(k) for k in el.kinds_all), "n_ctx": n["context"],
        "n_both": n["both"], "n_item": n["item"], "kmeans_n_init": p.kmeans_n_init,
        "elbow_seeds": p.elbow_seeds, "tol": p.gate_tolerance,
        "err_ratio": float(el.errors[0] / el.errors[-1]),
        "k_agree": _say("k_agree" if agree else "k_disagree"), "k_max": p.k_max,
    })  # fmt: skip
    census, relu = r.runs.census, r.runs.relu
    shares = {
        f"{tag}_{k}": med(census[k][:, relu.index(e)])
        for tag, e in (("early", r.cen.early), ("final", r.p.epochs))
        for k in (*CLASSES, *GATE_KINDS, "by_class")
    }
    at, t_floor, t_rec = r.at["early"], r.t_floor, relu.record_epochs
    snap_at_floor = [
        census["snap_change"][s, int(np.argmin(np.abs(t_rec - t)))]
        for s, t in enumerate(t_floor)
        if t is not None
    ]
    glue_many("digits", {
        **shares, "early": r.cen.early, "early_cm": at["common"] + at["mixed"],
        "t_floor": int(med([t for t in t_floor if t is not None]))
        if all(t is not None for t in t_floor) else "never",
        "snap_at_floor": med(snap_at_floor) if snap_at_floor else float("nan"),
    })  # fmt: skip


def _cluster_words(r: _Reading) -> str:
    """Algorithm 1's clusters at the elbow by class, and read with shuffled contexts."""
    c, sh = r.el.best_classes, r.el.best_classes_shuffled
    s, m = c["single"], c["mixed"]
    way = "single" if s > m else "mixed" if m > s else "same"
    return _say("clusters", c=c, sh=sh, verdict=_say(f"clusters_{way}"))


def _glue_chance(r: _Reading) -> None:
    q, at, g, c = r.chance, r.at, r.gaps, r.el.best_classes
    f, e, w = at["final"], at["early"], r.runs.controls["whitened pixels"]
    lv = g.per_level
    vs = {
        t: compare_to_chance(q[t], {"init": q["init"], "shuffled": q[f"shuffled_{t}"]})
        for t in ("early", "final")
    }
    a, b, sp = w["mixed"].value, w["single"].value, w["mixed"].spread
    better = g.m_reln_above.value < g.m_single_above.value
    mixed_ahead = "yes" if c["mixed"] > c["single"] else "partly"
    v = {
        "q": q, "f": f, "e": e, "c": c, "k": r.el.best_k, "nm": NM,
        "cms": {k: _say("shares", c=x, ratio=q[k]) for k, x in at.items()},
        "epoch": r.cen.early, "epochs": r.p.epochs, "final_vs": vs["final"],
        "early_text": _say(f"early_{vs['early']}"),
        "lead": "single-context" if f["single"] > f["mixed"] else "2-of-3",
        "a": a, "b": b, "sp": sp, "diff": abs(a - b),
        "levels": ", ".join(f"{x:g}" for x in w["levels"]),
        "nearer": "2-of-3" if a < b else "single-context",
        "n_nearer": sum(x["mixed"] < x["single"] for x in lv.values()),
        "apart": sum(x["single"] - x["mixed"] > NM * x["spread"] for x in lv.values()),
        "n_levels": len(lv), "n_above": len(g.above),
        "per_level": "; ".join(_say("level_gap", f=f, x=x) for f, x in lv.items()),
        "nearest": "the nearer" if better else "not the nearer",
        "reln": g.m_reln_above.value, "single": g.m_single_above.value,
        "answer": _say("lead_" + (mixed_ahead if vs["early"] == "below" else "chance")),
        "cm": e["common"] + e["mixed"],
    }  # fmt: skip
    v["census"] = _say("census", **v)
    v["whitened"] = _say("whitened_same" if v["diff"] <= sp else "whitened_apart", **v)
    prop42 = "for" if r.t50["mixed"] < r.t50["single"] else "against"
    glue_many("digits", {
        "chance_table": _say("chance_table", **v),
        "census_words": v["census"][0].upper() + v["census"][1:],
        "alg1_words": _cluster_words(r), "whitened_words": v["whitened"],
        "floor_margin": r.p.floor_margin, "n_above": len(g.above),
        "levels_words": _say("levels", **v), "prop42_words": _say(f"prop42_{prop42}"),
        "nearer_words": _say("nearer_yes" if better else "nearer_no"),
        "better_words": _say("better", **v),
        "conclusion_words": _say("conclusion", **v),
        "reviewers_words": _say("reviewers", **v),
    })  # fmt: skip


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


def _glue_relns(r: _Reading) -> None:
    """The ReLNs against the ReLU network, and the controls."""
    g, relns, diag, t50, by_level = r.gaps, r.runs.relns, r.diag, r.t50, r.gaps.by_level
    ms = {
        f"m_{k}{tail}": getattr(getattr(g, f"m_{k}"), field)
        for k in ("reln", "single", "reln_above", "single_above", "gdln")
        for tail, field in (("", "value"), ("_spread", "spread"))
    }
    upper = [f for f in by_level if f > 0.5]
    early_max = max(max(by_level[f]["mixed"], by_level[f]["single"]) for f in upper)
    f0 = list(by_level)[0]
    net, W2 = r.runs.starts["derived"].net, r.runs.starts["derived"].params0[-1]
    stds = {  # the derived init's readout std per pathway
        n: np.median(W2[:, :, net.pathway_slice(n)].std(axis=(1, 2))) / r.p.relu_std
        for n in net.pathway_names()
    }
    glue_many("digits", {
        **ms, "above": ", ".join(f"{f:g}" for f in g.above),
        "pred_mixed": g.m_pred["mixed"].value, "pred_single": g.m_pred["single"].value,
        "pred_spread": g.m_pred["mixed"].spread,
        "reln_final": med(relns["mixed"].loss[:, -1]),
        "single_final": med(relns["single"].loss[:, -1]),
        "test_reln": 100 * med(r.err_reln["mixed"]["error"]),
        "test_single": 100 * med(r.err_reln["single"]["error"]),
        "diag_task": diag["task"]["offdiag"], "leak_task": diag["task"]["leak"],
        "diag_s4": diag["section4"]["offdiag"],
        "diag_paths": max(diag["paths"][n]["offdiag"] for n in r.ctx_names),
        "leak_paths": max(diag["paths"][n]["leak"] for n in r.ctx_names),
        "t50_reln": t50["mixed"], "t50_single": t50["single"],
        "parting": _parting(by_level)[0], "early_max": early_max,
        "early_max_pct": 100 * (np.exp(early_max) - 1), "first_level": f"{f0:g}",
        "first_matched": by_level[f0]["mixed"],
        "first_derived": by_level[f0]["derived"],
        "first_spread": by_level[f0]["spread"],
        "m_derived_above": g.m_derived_above.value,
        "derived_stds": ", ".join(f"{n} {x:.2f}" for n, x in stds.items()),
        "mixed_vs_single": "faster" if t50["mixed"] < t50["single"] else "slower",
    })  # fmt: skip
    ahead, late = r.ahead, r.late

    def names(d, v):
        return ", ".join(k for k, x in d.items() if x == v) or "none"

    tags = {"aff": "affine targets", "wht": "whitened pixels"}
    tags |= {"rnd": "random context labels", "task": "the task"}
    for tag, k in tags.items():
        c = r.runs.controls[k]
        glue_many(f"digits_c_{tag}", {
            "mixed": c["mixed"].value, "single": c["single"].value,
            "spread": c["mixed"].spread, "hi": c["mixed"].spread_interval[1],
            "floor": c["floor"], "snap": c["snap_change"],
        })  # fmt: skip
    leads = {k: {"early": ahead[k], "late": late[k]} for k in r.runs.controls}
    finals = {k: c["final"] for k, c in r.runs.controls.items()}
    glue_many("digits", {
        "n_seeds": r.p.seeds, "nm": NM, "ahead_list": names(ahead, True),
        "behind_list": names(ahead, False), "lower_list": names(late, True),
        "not_lower_list": names(late, False),
        "explanation": explain_controls(leads, finals),
    })  # fmt: skip


def _records(r: _Reading) -> list:
    """The records, ``(name, evidence, values)``."""
    el, g, p, census, err = r.el, r.gaps, r.p, r.runs.census, r.err["test"]
    i_early, t_floor = r.runs.relu.index(r.cen.early), r.t_floor
    shares = {  # the census's weight on the context only / the image only / both
        t: " / ".join(
            f"{med(census[k][:, i]):.3f}" for k in ("context", "item", "both")
        )
        for t, i in (("early", i_early), ("final", -1))
    }
    pm, gdln_err = g.m_pred["mixed"], el.err_gdln[el.best_k]["error"]
    pred = Evidence(pm.value, spread=pm.spread, per_seed=pm.per_seed, time_gap=True)

    def joined(xs, fmt):
        return ", ".join(format(x, fmt) for x in xs)

    def by_class(c):
        return ", ".join(f"{k} {v:.2f}" for k, v in c.items())

    v = {
        "p": p, "kb": el.k_bend, "kc": el.k_check, "k_within": el.k_within,
        "errors": joined(el.errors, ".3g"), "n_rows": r.runs.samples_all.n_samples,
        "dead": 1 - r.live_share, "n_distinct": len(r.samples.patterns),
        "P": r.ds.P, "shares": joined(el.best.clustering.shares, ".2f"),
        "by_class": by_class(el.best_classes),
        "by_class_shuffled": by_class(el.best_classes_shuffled),
        **{f"dev_{k}": joined(el.best_src[f"dev_{k}"], ".3f")
           for k in ("context", "item", "class")},
        "n": r.n_kinds, "q": r.chance, "early": r.cen.early,
        "shares_early": shares["early"], "shares_final": shares["final"],
        "floor_frac": r.ref.floor / r.ref.L0, "above": g.above,
        "candidates": tuple(p.reln_levels),
        "per_level": "; ".join(
            _say("record_level", f=f, x=x) for f, x in g.per_level.items()
        ),
        "m_derived": g.m_derived.value, "m_derived_above": g.m_derived_above.value,
        "linear_frac": r.ref.linear / r.ref.L0,
        "relu_final_frac": med(r.runs.relu.loss[:, -1]) / r.ref.L0,
        "t_floor_med": "never" if None in t_floor else med(t_floor),
        "pred_single": g.m_pred["single"].value, "P_test": r.test.P,
        "class_err": med(err["class_error"]), "context_err": med(err["context_error"]),
        "train_err": med(r.err["train"]["error"]), "best_k": el.best_k,
        "reln_err": med(r.err_reln["mixed"]["error"]),
        "single_err": med(r.err_reln["single"]["error"]), "nm": NM,
    }  # fmt: skip
    best_k = {
        rule: {"k": int(k), "per_gdln_seed": c["per_seed"],
               "interval": list(c["interval"])}
        for rule, k, c in (("bend rule", el.best_k, el.k_bend),
                           ("factor-2 rule", el.k_within, el.k_check))
    }  # fmt: skip
    cen = {**r.cen.at, "epoch 0 (initialisation)": r.cen.init}
    cen |= {f"shuffled contexts, epoch {e}": c for e, c in r.cen.shuffled.items()}
    diag = {
        "task_offdiag": r.diag["task"]["offdiag"], "task_leak": r.diag["task"]["leak"],
        "pathways_offdiag_max": max(r.diag["paths"][k]["offdiag"] for k in r.ctx_names),
        "section4_offdiag": r.diag["section4"]["offdiag"],
    }  # fmt: skip
    gdln_spread = float(np.ptp(gdln_err)) if p.elbow_seeds > 1 else None
    spread, euler = float(np.ptp(err["error"])), r.runs.euler
    evidence = {
        "best_k": best_k,
        "k_patterns_context_level": list(el.best_patterns),
        "k_patterns_gate_on": [str(k) for k in el.best_src["kind"]],
        "census_context_level": cen,
        "reln_vs_relu": g.m_reln,
        "singles_vs_relu": g.m_single,
        "reln_vs_relu_above_floor": g.m_reln_above,
        "singles_vs_relu_above_floor": g.m_single_above,
        "gap_by_level": {f"{f:g}": x for f, x in g.by_level.items()},
        "reln_floor": r.ref.floor / r.ref.L0,
        "reln_vs_prediction": pred,
        "assumption_211": diag,
        "test_error_relu": Evidence(med(err["error"]), spread=spread),
        "test_error_gdln": Evidence(med(gdln_err), spread=gdln_spread),
        "controls": controls_record(r.runs.controls, r.ahead, r.late),
        "step_size_check": {"half_step": euler[0.5], "double_step": euler[2.0]},
    }  # fmt: skip
    return [(name, e, v) for name, e in evidence.items()]


def report(rec, runs: Runs, params: Params) -> dict:
    """Write and save the records ``rec`` and glue every number the page
    book/digits.md cites, from its :class:`Runs`; returns the tables ``controls`` and
    ``summary`` and ``printed`` (what the output check prints)."""
    r = _Reading(runs, params)
    _glue_task(r)
    _glue_algorithm1(r)
    _glue_relns(r)
    _glue_chance(r)
    el, g, recs = r.el, r.gaps, add_all(rec, _records(r))
    rec.save()
    yes = {True: "yes", False: "no"}
    v = {
        "e": r.at["early"], "g": g, "k": el.best_k, "k_within": el.k_within,
        "kb": el.k_bend, "kc": el.k_check, "part": _parting(g.by_level)[1],
        "patterns": " ".join(el.best_patterns), "kinds": " ".join(el.best_src["kind"]),
        "relu": med(r.err["test"]["error"]),
        "gdln": med(el.err_gdln[el.best_k]["error"]),
    }  # fmt: skip
    # the closing table's values in words: the elbow's rules, the controls' leads
    leads = "; ".join(f"{k}: {yes[x]} / {yes[r.late[k]]}" for k, x in r.ahead.items())
    said = {"best_k": _say("summary_best_k", **v), "controls": leads}
    recs |= {k: {**recs[k], "value": x} for k, x in said.items()}
    rows = [(claim("digits", n), x) for n, x in recs.items()]
    summary = claims_table([(e["summary"], e["summary_quote"], x) for e, x in rows])
    controls = controls_table(runs.controls)
    return {"controls": controls, "summary": summary, "printed": _say("printed", **v)}
