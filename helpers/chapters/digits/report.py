"""The records, glued numbers, tables and sentences of the chapter *Real data*
(``book/digits.md``), from what the page computed."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ...book.notebook import glue
from ...book.records import claims_table
from ...book.rulebook import NOISE_MULTIPLE as NM
from ...core.algorithm1 import pattern_strings
from ...core.measures import Evidence, level_times, match
from ...core.paper import CONTEXTS as PAPER

C = 3


def _med(v) -> float:
    return float(np.median(v))


@dataclass
class Results:
    """What the page computed, under the page's own names: its parameters, the task
    and its losses, the ReLU runs and their errors, Algorithm 1's fits, the census,
    the ReLNs and their time gaps, and the controls.  :meth:`of` picks them from the
    page's namespace."""

    # parameters
    images_per_class: int
    test_fraction: float
    split_seed: int
    SEEDS: list
    trainings: int
    relu_width: int
    reln_width: int
    relu_std: float
    kappa: float
    epochs: int
    sample_every: int
    k_max: int
    elbow_seeds: int
    kmeans_n_init: int
    gate_tolerance: float
    shuffle_seed: int
    reln_levels: list
    floor_margin: float
    # the task
    task: object
    L0: float
    R_star: np.ndarray
    L_linear: float
    floor: float
    # the ReLU network
    lr: float
    relu: object
    err_train: dict
    err_test: dict
    euler: dict
    # Algorithm 1
    samples_all: object
    samples: object
    live_share: float
    gdln_width: int
    t_collapse: float
    fits: list
    errors: np.ndarray
    k_bend: dict
    k_check: dict
    best: object
    best_patterns: list
    best_src: dict
    kinds_all: list
    err_gdln: dict
    best_classes: dict
    best_classes_shuffled: dict
    # the census
    census: dict
    t_half: float
    early: int
    census_at: dict
    census_init: dict
    census_shuffled: dict
    # the ReLNs
    runs: dict
    preds: dict
    p0_d: list
    net_d: object
    above: tuple
    m_reln: object
    m_single: object
    m_reln_above: object
    m_single_above: object
    m_derived: object
    m_derived_above: object
    by_level: dict
    m_pred: dict
    m_gdln: object
    err_reln: dict
    diag_task: dict
    diag_paths: dict
    diag_s4: dict
    # the controls
    controls: dict

    @classmethod
    def of(cls, namespace: dict) -> "Results":
        """The results under their names in ``namespace`` (the page's globals)."""
        return cls(**{f.name: namespace[f.name] for f in fields(cls)})

    @property
    def ds(self):
        return self.task.train

    @property
    def test(self):
        return self.task.test

    @property
    def best_k(self) -> int:
        return self.k_bend["k"]

    @property
    def k_within(self) -> int:
        return self.k_check["k"]


# ------------------------------------------------------------- tables the page shows


def errors_table(err_train: dict, err_test: dict, P_train: int, P_test: int) -> str:
    """The ReLU network's error rates on the training and test datapoints (medians
    over seeds, with their range) as a Markdown table."""

    def row(label, e):
        return (
            f"| {label} | {100 * _med(e['error']):.1f} "
            f"({100 * np.min(e['error']):.1f}-{100 * np.max(e['error']):.1f}) | "
            f"{100 * _med(e['class_error']):.1f} | "
            f"{100 * _med(e['context_error']):.1f} |"
        )

    return "\n".join(
        [
            "| ReLU network | error % (range over seeds) | class wrong % | "
            "context answer wrong % |",
            "|---|---|---|---|",
            row(f"train ({P_train} datapoints)", err_train),
            row(f"test ({P_test} datapoints)", err_test),
        ]
    )


def k_table(fits, kinds_all, ds, err_gdln: dict, L0: float) -> str:
    """Algorithm 1's clustering for every K: the centroids at the level of contexts,
    what each gates on, their shares, the output error, the final loss and the test
    error of the GDLN, as a Markdown table."""
    lines = [
        "| K | centroids (context level) | gate on | shares | output MSE | final loss "
        "| test error % |",
        "|---|---|---|---|---|---|---|",
    ]
    for f, kinds in zip(fits, kinds_all):
        pats = pattern_strings(f.clustering.binary, ds.contexts, C)
        e = f"{100 * _med(err_gdln[f.K]['error']):.1f}" if f.K in err_gdln else "—"
        final = _med(f.run.loss[:, -1]) if f.run is not None else L0
        lines.append(
            f"| {f.K} | {', '.join(pats)} | {', '.join(kinds)} | "
            f"{', '.join(f'{w:.2f}' for w in f.clustering.shares)} | "
            f"{f.output_mse:.2e} | {final:.1f} | {e} |"
        )
    return "\n".join(lines)


def gap_table(by_level: dict, rows: dict, spread: tuple) -> str:
    """The time gaps of the ReLNs to the ReLU network over all levels, over the
    levels above the floor and level by level, as a Markdown table: ``rows`` is
    ``{label: (key in by_level, match over all levels, match above the floor)}``,
    ``spread`` the ReLU seed spread over all levels and above the floor."""

    def mrow(label, key, *ms):
        cells = [f"{m.value:.3f}" for m in ms]
        cells += [f"{by_level[f][key]:.3f}" for f in by_level]
        return f"| {label} | " + " | ".join(cells) + " |"

    return "\n".join(
        [
            "| time gap to the ReLU network | all levels | levels above the floor | "
            + " | ".join(f"level {f:g}" for f in by_level)
            + " |",
            "|---|---|---|" + "---|" * len(by_level),
            *(mrow(label, *r) for label, r in rows.items()),
            f"| two ReLU seeds (spread) | {spread[0]:.3f} | {spread[1]:.3f} | "
            + " | ".join(f"{by_level[f]['spread']:.3f}" for f in by_level)
            + " |",
        ]
    )


# ---------------------------------------------------------------------- the glue


def _glue_task(r: Results):
    from . import digits_task

    ds, test, task = r.ds, r.test, r.task
    glue("digits_per_class", r.images_per_class if r.images_per_class else "all")
    glue("digits_n_train", ds.P // C)
    glue("digits_n_test", test.P // C)
    glue("digits_P", ds.P)
    glue("digits_P_test", test.P)
    task_all = digits_task(0, r.test_fraction, r.split_seed)  # the paper profile's
    glue("digits_n_train_all", task_all.train.P // C)
    glue("digits_n_test_all", task_all.test.P // C)
    glue("digits_n_images_all", task_all.train.P // C + task_all.test.P // C)
    glue("digits_scale", task.scale)
    glue("digits_L0", r.L0)
    glue("digits_L_linear", r.L_linear)
    glue("digits_L_linear_frac", r.L_linear / r.L0)
    glue(
        "digits_L_linear_class",
        0.5 * float(np.sum(r.R_star[task.rows()["class"]] ** 2)),
    )
    glue("digits_floor", r.floor)
    glue("digits_floor_frac", r.floor / r.L0)
    return task_all


def _glue_relu(r: Results, task_all) -> None:
    X, Y = r.ds.X, r.ds.Y
    s_all = np.linalg.svd(Y @ X.T, compute_uv=False)
    s1 = float(s_all[0])
    evals = np.linalg.eigh(X @ X.T)[0]
    Vt_ = np.linalg.svd(Y @ X.T)[2]
    d1 = float(Vt_[0] @ (X @ X.T) @ Vt_[0])
    glue("digits_width", r.relu_width)
    glue("digits_reln_width", r.reln_width)
    glue("digits_rank", int(np.sum(s_all > 1e-9 * s1)))
    glue("digits_std", r.relu_std)
    glue("digits_s1", s1)
    glue("digits_lam_bound", (s1 / d1) * float(evals[-1]) / s1)
    glue("digits_paper_kappa", PAPER.lr * s1)
    glue("digits_kappa", r.kappa)
    glue("digits_lr", r.lr)
    glue("digits_epochs", r.epochs)
    glue("digits_flow_time", r.kappa * r.epochs)
    glue("digits_euler_pct", 100 * r.euler[0.5])
    glue("digits_euler2_pct", 100 * r.euler[2.0])
    all_images = task_all.train
    s1_all = float(np.linalg.svd(all_images.Y @ all_images.X.T, compute_uv=False)[0])
    glue("digits_s1_all", s1_all)
    glue("digits_paper_kappa_all", PAPER.lr * s1_all)
    loss = r.relu.loss
    t_lev = np.array([level_times(L) for L in loss])
    glue("digits_t50", _med(t_lev[:, 0]))
    glue(
        "digits_t10",
        _med(t_lev[:, 1]) if np.all(np.isfinite(t_lev[:, 1])) else "never",
    )
    glue("digits_relu_final", _med(loss[:, -1]))
    glue("digits_relu_spread", match(loss, loss).spread)
    glue("digits_relu_final_frac", _med(loss[:, -1]) / r.L0)
    for part in ("error", "class_error", "context_error"):
        glue(f"digits_train_{part}", 100 * _med(r.err_train[part]))
        glue(f"digits_test_{part}", 100 * _med(r.err_test[part]))
    glue("digits_test_error_lo", 100 * float(np.min(r.err_test["error"])))
    glue("digits_test_error_hi", 100 * float(np.max(r.err_test["error"])))


def _kind_counts(kinds_all) -> dict:
    return {
        k: sum(int(np.sum(kinds == k)) for kinds in kinds_all)
        for k in ("context", "both", "item")
    }


def _glue_algorithm1(r: Results) -> None:
    from . import answers, live_samples

    sa, best = r.samples_all, r.best
    dead_exact = 1 - live_samples(sa)[1]  # off for every datapoint
    allon = r.samples.counts[r.samples.patterns.all(axis=1)].sum() / sa.n_samples
    glue("digits_trainings", r.trainings)
    glue("digits_rows", sa.n_samples)
    glue("digits_distinct", len(sa.patterns))
    glue("digits_distinct_pct", 100 * len(sa.patterns) / sa.n_samples)
    glue("digits_gdln_width", r.gdln_width)
    glue("digits_k_interval", "{}-{}".format(*r.k_bend["interval"]))
    glue("digits_k_check_interval", "{}-{}".format(*r.k_check["interval"]))
    glue("digits_collapse_s", r.t_collapse)
    glue("digits_dead_share", float(1 - r.live_share))
    glue("digits_dead_exact_share", float(dead_exact))
    glue("digits_allon_share", float(allon))
    glue("digits_best_k", r.best_k)
    glue("digits_k_within", r.k_within)
    glue("digits_best_patterns", ", ".join(r.best_patterns))
    glue(
        "digits_best_kinds",
        ", ".join(f"{p} ({k})" for p, k in zip(r.best_patterns, r.best_src["kind"])),
    )
    glue(
        "digits_test_gdln",
        100 * _med(r.err_gdln[r.best_k]["error"])
        if r.best_k in r.err_gdln
        else float("nan"),
    )
    glue(
        "digits_train_gdln",
        100 * _med(answers(best.run.records["outputs"][:, -1], r.task)["error"])
        if best.run
        else float("nan"),
    )
    glue("digits_gdln_final", _med(best.run.loss[:, -1]) if best.run else r.L0)
    n = _kind_counts(r.kinds_all)
    glue("digits_n_centroids", sum(len(k) for k in r.kinds_all))
    glue("digits_n_ctx", n["context"])
    glue("digits_n_both", n["both"])
    glue("digits_n_item", n["item"])
    glue("digits_kmeans_n_init", r.kmeans_n_init)
    glue("digits_elbow_seeds", r.elbow_seeds)
    glue("digits_tol", r.gate_tolerance)
    glue("digits_err_ratio", float(r.errors[0] / r.errors[-1]))
    glue(
        "digits_k_agree",
        "the rule and the check agree"
        if r.best_k == r.k_within and r.k_bend["interval"][0] == r.k_bend["interval"][1]
        else "the rule and the check (or the GDLN seeds) disagree, so the curve has no "
        "clear elbow and K* is a choice, not a finding",
    )
    glue("digits_k_max", r.k_max)


def _floor_times(r: Results) -> list:
    """Per ReLU seed, the first epoch its loss is at or below the floor (None:
    never)."""
    return [
        int(np.argmax(L <= r.floor)) if np.any(L <= r.floor) else None
        for L in r.relu.loss
    ]


def _glue_census(r: Results) -> None:
    from . import GATE_KINDS

    census, relu = r.census, r.relu
    for tag, e in (("early", r.early), ("final", r.epochs)):
        i = relu.index(e)
        for k in (*CLASSES, *GATE_KINDS, "by_class"):
            glue(f"digits_{tag}_{k}", _med(census[k][:, i]))
    glue("digits_early", r.early)
    at = r.census_at[f"epoch {r.early}"]
    glue("digits_early_cm", at["common"] + at["mixed"])
    t_floor = _floor_times(r)
    glue(
        "digits_t_floor",
        int(_med([t for t in t_floor if t is not None]))
        if all(t is not None for t in t_floor)
        else "never",
    )
    t_rec = relu.record_epochs
    snap_at_floor = [
        census["snap_change"][s, int(np.argmin(np.abs(t_rec - t)))]
        for s, t in enumerate(t_floor)
        if t is not None
    ]
    glue("digits_snap_at_floor", _med(snap_at_floor) if snap_at_floor else float("nan"))


def _ratio(c: dict) -> float:
    """Single-context weight over 2-of-3 weight (inf when there is no 2-of-3)."""
    return c["single"] / c["mixed"] if c["mixed"] > 0 else float("inf")


def _chance(r: Results) -> dict:
    """The census's single / 2-of-3 ratio early and at the end, beside chance: the
    network at initialisation and the trained one with the contexts shuffled."""
    early, final = r.census_at[f"epoch {r.early}"], r.census_at[f"epoch {r.epochs}"]
    sh_e, sh_f = r.census_shuffled[r.early], r.census_shuffled[r.epochs]
    return {
        "early": _ratio(early),
        "final": _ratio(final),
        "init": _ratio(r.census_init),
        "shuffled_early": _ratio(sh_e),
        "shuffled_final": _ratio(sh_f),
    }


def _census_chance_words(r: Results) -> tuple[str, str]:
    """The census against chance: a sentence of numbers, and what they say."""
    from . import compare_to_chance

    q = _chance(r)
    at = r.census_at
    e, f = at[f"epoch {r.early}"], at[f"epoch {r.epochs}"]
    i, se, sf = r.census_init, r.census_shuffled[r.early], r.census_shuffled[r.epochs]

    def cms(c):
        return (
            f"common {c['common']:.2f}, 2-of-3 {c['mixed']:.2f}, single-context "
            f"{c['single']:.2f} (single / 2-of-3 = {_ratio(c):.2f})"
        )

    numbers = (
        f"when the loss has halved (epoch {r.early}) the census reads {cms(e)}; at "
        f"initialisation {cms(i)}; with the contexts shuffled {cms(se)}. At the end "
        f"(epoch {r.epochs}): {cms(f)}; shuffled {cms(sf)}."
    )
    base_e = {"initialisation": q["init"], "shuffled": q["shuffled_early"]}
    base_f = {"initialisation": q["init"], "shuffled": q["shuffled_final"]}
    where_e = compare_to_chance(q["early"], base_e)
    where_f = compare_to_chance(q["final"], base_f)
    early_text = {
        "below": "early in learning the network holds less single-context weight per "
        "unit of 2-of-3 weight than chance gives, the direction the paper describes",
        "within": "early in learning the balance of single-context and 2-of-3 weight "
        "is within what chance gives",
        "above": "early in learning the network holds more single-context weight per "
        "unit of 2-of-3 weight than chance gives, against the paper's description",
    }[where_e]
    lead = "single-context" if f["single"] > f["mixed"] else "2-of-3"
    words = (
        f"{early_text} ({q['early']:.2f} against {q['init']:.2f} at initialisation "
        f"and {q['shuffled_early']:.2f} with shuffled contexts). By the end "
        f"{lead} units hold more of the weight ({f['single']:.2f} single-context "
        f"against {f['mixed']:.2f} 2-of-3, ratio {q['final']:.2f}, {where_f} the "
        "range chance gives)."
    )
    return numbers, words


def _cluster_words(r: Results) -> str:
    """Algorithm 1's clusters at the elbow by class, and read with shuffled
    contexts."""
    c, sh = r.best_classes, r.best_classes_shuffled

    def shares(x):
        return (
            f"common {x['common']:.2f}, 2-of-3 {x['mixed']:.2f}, single-context "
            f"{x['single']:.2f}, other {x['other']:.2f}"
        )

    if c["single"] > c["mixed"]:
        verdict = (
            "single-context clusters outweigh the 2-of-3 ones, the opposite of "
            "Section 4's structure"
        )
    elif c["mixed"] > c["single"]:
        verdict = "2-of-3 clusters outweigh the single-context ones, as in Section 4"
    else:
        verdict = "single-context and 2-of-3 clusters weigh the same"
    return (
        f"By share of the sampled rows its clusters are {shares(c)}: {verdict} (with "
        f"the contexts shuffled over the datapoints the same centroids read "
        f"{shares(sh)})."
    )


def _whitened_words(r: Results) -> str:
    """Whether whitening leaves the two ReLNs distinguishable."""
    w = r.controls["whitened pixels"]
    a, b = w["mixed"].value, w["single"].value
    sp = w["mixed"].spread
    lv = ", ".join(f"{f:g}" for f in w["levels"])
    if abs(a - b) <= sp:
        return (
            f"With whitened pixels the two ReLNs cannot be told apart: their gaps to "
            f"the ReLU network, {a:.3f} (2-of-3) and {b:.3f} (single-context) over the "
            f"levels {lv}, differ by {abs(a - b):.3f}, less than the seed spread "
            f"{sp:.3f}; whitening erases the difference between the paper's ReLN and "
            "its alternative on this task."
        )
    nearer = "2-of-3" if a < b else "single-context"
    return (
        f"With whitened pixels the two ReLNs stay apart: their gaps, {a:.3f} (2-of-3) "
        f"and {b:.3f} (single-context) over the levels {lv}, differ by "
        f"{abs(a - b):.3f}, more than the seed spread {sp:.3f}; the {nearer} ReLN is "
        "the nearer."
    )


def _per_level(r: Results) -> dict:
    """The two ReLNs' time gaps to the ReLU network at each timing level alone (the
    levels some seed of the ReLU network reaches)."""
    out = {}
    for f in r.above:
        try:
            m = {
                k: match(r.relu.loss, r.runs[k].loss, levels=(f,))
                for k in ("mixed", "single")
            }
        except ValueError:  # a level no ReLU seed (or no ReLN) reaches
            continue
        out[f] = {k: v.value for k, v in m.items()} | {"spread": m["mixed"].spread}
    return out


def _glue_chance(r: Results) -> None:
    numbers, words = _census_chance_words(r)
    glue("digits_chance_table", numbers)
    glue("digits_census_words", words[0].upper() + words[1:])
    alg1 = _cluster_words(r)
    glue("digits_alg1_words", alg1)
    glue("digits_whitened_words", _whitened_words(r))
    glue("digits_floor_margin", r.floor_margin)
    glue("digits_n_above", len(r.above))
    lv = _per_level(r)
    nearer = [f for f, g in lv.items() if g["mixed"] < g["single"]]
    apart = [f for f, g in lv.items() if g["single"] - g["mixed"] > NM * g["spread"]]
    glue(
        "digits_levels_words",
        f"the 2-of-3 ReLN is the nearer at {len(nearer)} of the {len(lv)} levels "
        + "("
        + "; ".join(
            f"{f:g}: {g['mixed']:.3f} against {g['single']:.3f}" for f, g in lv.items()
        )
        + f"), and nearer by more than {NM:g} x the seed spread at {len(apart)}",
    )
    faster = _t50(r, "mixed") < _t50(r, "single")
    glue(
        "digits_prop42_words",
        "as Proposition 4.2 predicts" if faster else "against Proposition 4.2",
    )
    better = r.m_reln_above.value < r.m_single_above.value
    glue(
        "digits_nearer_words", "nearer to it than" if better else "no nearer to it than"
    )
    glue(
        "digits_better_words",
        "the paper's common + 2-of-3 ReLN is the nearer of the two candidates"
        if better
        else "the paper's common + 2-of-3 ReLN is not the nearer of the two candidates",
    )
    q = _chance(r)
    from . import compare_to_chance

    where = compare_to_chance(
        q["early"], {"init": q["init"], "shuffled": q["shuffled_early"]}
    )
    c = r.best_classes
    if where == "below" and c["mixed"] > c["single"]:
        lead = "Yes, early in learning, and beyond chance."
    elif where == "below":
        lead = "Partly: early in learning the census leans to 2-of-3 beyond chance, "
        lead += "but Algorithm 1's clusters do not."
    else:
        lead = "Not beyond chance."
    e = r.census_at[f"epoch {r.early}"]
    glue(
        "digits_conclusion_words",
        f"{lead} When the loss has halved {e['common'] + e['mixed']:.2f} of the ReLU "
        f"network's weight is in always-on and 2-of-3 units and {e['single']:.2f} in "
        "single-context ones (Section 4 reports none): a single / 2-of-3 ratio of "
        f"{q['early']:.2f}, against {q['init']:.2f} at initialisation and "
        f"{q['shuffled_early']:.2f} with the contexts shuffled. At the end the ratio "
        f"is {q['final']:.2f}, and at K* = {r.best_k} Algorithm 1 puts "
        f"{c['single']:.2f} of the rows in single-context clusters against "
        f"{c['mixed']:.2f} in 2-of-3 ones.",
    )
    m = r.m_reln_above.value < r.m_single_above.value
    glue(
        "digits_reviewers_words",
        f"Algorithm 1 finds an always-on cluster ({c['common']:.2f} of the rows) and "
        f"clusters on in some contexts only, {c['single']:.2f} single-context against "
        f"{c['mixed']:.2f} 2-of-3 at K* = {r.best_k}; in the census {words} Of the two "
        "ReLNs the paper's 2-of-3 one is "
        + ("the nearer" if m else "not the nearer")
        + f" to the ReLU network over the {len(r.above)} levels above the floor "
        f"({r.m_reln_above.value:.3f} against {r.m_single_above.value:.3f}), with a "
        "race reduction that predicts it. " + _whitened_words(r),
    )


def _t50(r: Results, kind: str) -> float:
    return _med([level_times(L, (0.5,))[0] for L in r.runs[kind].loss])


#: The census's classes, as the page reads them.
CLASSES = ("common", "mixed", "single", "other", "item_dependent", "snap_change")


def _parting(by_level: dict) -> tuple[str, float | None]:
    """Where the curves part, in words, from the gaps level by level, and the level
    from which on every gap is beyond the noise (None: none such)."""
    beyond = [by_level[f]["mixed"] > NM * by_level[f]["spread"] for f in by_level]
    part = next((f for i, f in enumerate(by_level) if all(beyond[i:])), None)
    first = [f for f in by_level if part is None or f > part]
    text = []
    if first:
        text.append(
            "through the levels "
            + ", ".join(f"{f:g}" for f in first)
            + " of $L_0$ the "
            f"2-of-3 ReLN stays within {max(by_level[f]['mixed'] for f in first):.3f} "
            "of the ReLU network (the single-context ReLN within "
            f"{max(by_level[f]['single'] for f in first):.3f}), against a seed spread "
            f"of up to {max(by_level[f]['spread'] for f in first):.3f}"
        )
    if part is not None:
        text.append(
            f"from the level {part:g} on, the gap exceeds {NM:g} x the seed spread at "
            "every level (the rulebook's mark for 'as close as another seed')"
        )
    else:
        text.append(f"at the lowest levels the gap is within {NM:g} x the seed spread")
    return "; ".join(text), part


def _glue_relns(r: Results) -> None:
    glue("digits_above", ", ".join(f"{f:g}" for f in r.above))
    for key, m in (
        ("reln", r.m_reln),
        ("single", r.m_single),
        ("reln_above", r.m_reln_above),
        ("single_above", r.m_single_above),
        ("gdln", r.m_gdln),
    ):
        glue(f"digits_m_{key}", m.value)
        glue(f"digits_m_{key}_spread", m.spread)
    glue("digits_pred_mixed", r.m_pred["mixed"].value)
    glue("digits_pred_single", r.m_pred["single"].value)
    glue("digits_pred_spread", r.m_pred["mixed"].spread)
    glue("digits_reln_final", _med(r.runs["mixed"].loss[:, -1]))
    glue("digits_single_final", _med(r.runs["single"].loss[:, -1]))
    glue("digits_test_reln", 100 * _med(r.err_reln["mixed"]["error"]))
    glue("digits_test_single", 100 * _med(r.err_reln["single"]["error"]))
    glue("digits_diag_task", r.diag_task["offdiag"])
    glue("digits_leak_task", r.diag_task["leak"])
    glue("digits_diag_s4", r.diag_s4["offdiag"])
    ctx_names = [n for n in r.diag_paths if n != "common"]
    glue("digits_diag_paths", max(r.diag_paths[n]["offdiag"] for n in ctx_names))
    glue("digits_leak_paths", max(r.diag_paths[n]["leak"] for n in ctx_names))
    t_r = np.array([level_times(L) for L in r.runs["mixed"].loss])
    t_s = np.array([level_times(L) for L in r.runs["single"].loss])
    glue("digits_t50_reln", _med(t_r[:, 0]))
    glue("digits_t50_single", _med(t_s[:, 0]))
    faster = _med(t_r[:, 0]) < _med(t_s[:, 0])
    by_level = r.by_level
    glue("digits_parting", _parting(by_level)[0])
    upper = [f for f in by_level if f > 0.5]
    early_max = max(max(by_level[f]["mixed"], by_level[f]["single"]) for f in upper)
    glue("digits_early_max", early_max)
    glue("digits_early_max_pct", 100 * (np.exp(early_max) - 1))
    f0 = list(by_level)[0]
    glue("digits_first_level", f"{f0:g}")
    glue("digits_first_matched", by_level[f0]["mixed"])
    glue("digits_first_derived", by_level[f0]["derived"])
    glue("digits_first_spread", by_level[f0]["spread"])
    glue("digits_m_derived_above", r.m_derived_above.value)
    ratios = []
    for name in r.net_d.pathway_names():
        sl = r.net_d.pathway_slice(name)
        W2_p = r.p0_d[-1][:, :, sl]  # readout weights of the pathway, per seed
        ratios.append(f"{name} {np.median(W2_p.std(axis=(1, 2))) / r.relu_std:.2f}")
    glue("digits_derived_stds", ", ".join(ratios))
    glue("digits_mixed_vs_single", "faster" if faster else "slower")


def _leads(r: Results) -> tuple[dict, dict]:
    """The early and the late lead of the ReLU network, per control."""
    from . import relu_ahead, relu_ends_lower

    ahead = {k: relu_ahead(c, NM) for k, c in r.controls.items()}
    late = {k: relu_ends_lower(c, NM) for k, c in r.controls.items()}
    return ahead, late


def _glue_controls(r: Results, ahead: dict, late: dict) -> None:
    from . import explain_controls

    glue("digits_n_seeds", len(r.SEEDS))
    glue("digits_nm", NM)
    glue("digits_ahead_list", ", ".join(k for k, v in ahead.items() if v) or "none")
    glue(
        "digits_behind_list", ", ".join(k for k, v in ahead.items() if not v) or "none"
    )
    glue("digits_lower_list", ", ".join(k for k, v in late.items() if v) or "none")
    glue(
        "digits_not_lower_list",
        ", ".join(k for k, v in late.items() if not v) or "none",
    )
    for tag, k in (
        ("aff", "affine targets"),
        ("wht", "whitened pixels"),
        ("rnd", "random context labels"),
        ("task", "the task"),
    ):
        c = r.controls[k]
        glue(f"digits_c_{tag}_mixed", c["mixed"].value)
        glue(f"digits_c_{tag}_single", c["single"].value)
        glue(f"digits_c_{tag}_spread", c["mixed"].spread)
        glue(f"digits_c_{tag}_hi", c["mixed"].spread_interval[1])
        glue(f"digits_c_{tag}_floor", c["floor"])
        glue(f"digits_c_{tag}_snap", c["snap_change"])
    leads = {k: {"early": ahead[k], "late": late[k]} for k in r.controls}
    finals = {k: c["final"] for k, c in r.controls.items()}
    glue("digits_explanation", explain_controls(leads, finals))


# ------------------------------------------------------------------- the records


def _records(rec, r: Results, ahead: dict, late: dict) -> dict:
    from . import controls_record

    ds, census, kb, kc = r.ds, r.census, r.k_bend, r.k_check
    i_early = r.relu.index(r.early)
    n_seeds = len(r.SEEDS)
    n = _kind_counts(r.kinds_all)
    t_floor = _floor_times(r)
    src = r.best_src
    ctx_names = [p for p in r.diag_paths if p != "common"]
    gdln_err = r.err_gdln[r.best_k]["error"]
    out = {}
    out["best_k"] = rec.add(
        "best_k",
        {
            "bend rule": {
                "k": int(r.best_k),
                "per_gdln_seed": kb["per_seed"],
                "interval": list(kb["interval"]),
            },
            "factor-2 rule": {
                "k": int(r.k_within),
                "per_gdln_seed": kc["per_seed"],
                "interval": list(kc["interval"]),
            },
        },
        "elbow of the output MSE between the ReLU network and the GDLN of the K "
        f"binarised centroids, K = 1..{r.k_max}, bend rule of the gate-finding chapter "
        f"on the median over {r.elbow_seeds} GDLN seeds (per seed: {kb['per_seed']}); "
        f"factor-2 check: K = {r.k_within} (per seed: {kc['per_seed']}); errors "
        + ", ".join(f"{e:.3g}" for e in r.errors)
        + f"; {r.trainings} trainings sampled every {r.sample_every} epochs, "
        f"{r.samples_all.n_samples} rows, rows on for <= {r.gate_tolerance} of the "
        f"datapoints ({1 - r.live_share:.2f}) dropped before "
        f"k-means ({r.kmeans_n_init} restarts), {len(r.samples.patterns)} distinct "
        f"live rows of {ds.P} entries.",
    )
    out["k_patterns_context_level"] = rec.add(
        "k_patterns_context_level",
        list(r.best_patterns),
        "binarised centroids at the elbow as context-level on/off strings (on in a "
        "context when on for at least half its images); shares "
        + ", ".join(f"{w:.2f}" for w in r.best.clustering.shares)
        + "; by class "
        + ", ".join(f"{k} {v:.2f}" for k, v in r.best_classes.items())
        + "; read with the contexts shuffled over the datapoints "
        + ", ".join(f"{k} {v:.2f}" for k, v in r.best_classes_shuffled.items())
        + ".",
    )
    out["k_patterns_gate_on"] = rec.add(
        "k_patterns_gate_on",
        [str(k) for k in src["kind"]],
        f"what each centroid at the elbow is a function of, to {r.gate_tolerance} of "
        "the datapoints: share differing from its context-level gate "
        + ", ".join(f"{v:.3f}" for v in src["dev_context"])
        + "; from its image-level gate "
        + ", ".join(f"{v:.3f}" for v in src["dev_item"])
        + "; from its class-and-context gate "
        + ", ".join(f"{v:.3f}" for v in src["dev_class"])
        + f". Over all K: {n['context']} context only, {n['both']} both, "
        f"{n['item']} image only.",
    )
    shares = {
        t: " / ".join(
            f"{_med(census[k][:, i]):.3f}" for k in ("context", "item", "both")
        )
        for t, i in (("early", i_early), ("final", -1))
    }
    q = _chance(r)
    chance = {
        "epoch 0 (initialisation)": r.census_init,
        **{f"shuffled contexts, epoch {e}": c for e, c in r.census_shuffled.items()},
    }
    out["census_context_level"] = rec.add(
        "census_context_level",
        {**r.census_at, **chance},
        "single / 2-of-3 weight: early "
        f"{q['early']:.3f}, final {q['final']:.3f}; chance: at initialisation "
        f"{q['init']:.3f}, contexts shuffled over the datapoints (seed "
        f"{r.shuffle_seed}) {q['shuffled_early']:.3f} early and "
        f"{q['shuffled_final']:.3f} at the end. "
        "Gating census by weight (conv-census) and the functional census's snap "
        f"change, median over {n_seeds} seeds, at the record epoch nearest the loss's "
        f"half-time ({r.early}) and at the end ({r.epochs}); weight in units gating on "
        f"the context only / image only / both: early {shares['early']}, final "
        f"{shares['final']}.",
    )
    out["reln_vs_relu"] = rec.add(
        "reln_vs_relu",
        r.m_reln,
        "time gap ReLU vs common + 2-of-3 ReLN (one-way, matched init), median over "
        f"{n_seeds} seeds, all levels; the level 0.1 lies below the ReLN's floor "
        f"({r.floor / r.L0:.3f} L0), so the gap is a lower bound set by the run's end.",
    )
    out["singles_vs_relu"] = rec.add(
        "singles_vs_relu",
        r.m_single,
        "time gap ReLU vs common + single-context ReLN (one-way, matched init), "
        f"median over {n_seeds} seeds, all levels; alternative: the 2-of-3 ReLN.",
    )
    out["reln_vs_relu_above_floor"] = rec.add(
        "reln_vs_relu_above_floor",
        r.m_reln_above,
        f"as reln_vs_relu over the levels at least {r.floor_margin:g} x the ReLN floor "
        f"({r.above}; candidates {tuple(r.reln_levels)}); per level "
        + "; ".join(
            f"{f:g}: {g['mixed']:.4f} (single {g['single']:.4f}, spread "
            f"{g['spread']:.4f})"
            for f, g in _per_level(r).items()
        )
        + ".",
    )
    out["singles_vs_relu_above_floor"] = rec.add(
        "singles_vs_relu_above_floor",
        r.m_single_above,
        f"as singles_vs_relu over the levels at least {r.floor_margin:g} x the ReLN "
        f"floor ({r.above}).",
    )
    out["gap_by_level"] = rec.add(
        "gap_by_level",
        {f"{f:g}": g for f, g in r.by_level.items()},
        "time gap ReLU vs each ReLN at one level at a time (fractions of L0 on a "
        "fixed grid, those above the ReLN floor), median over seeds, and the ReLU seed "
        "spread at that level; 'derived': the 2-of-3 ReLN from the derived init "
        f"(all levels {r.m_derived.value:.4f}, above the floor "
        f"{r.m_derived_above.value:.4f}).",
    )
    out["reln_floor"] = rec.add(
        "reln_floor",
        r.floor / r.L0,
        "lowest loss of any context-gated ReLN (per-context affine fit of the "
        f"pixels) over L0; best linear map {r.L_linear / r.L0:.3f} L0; ReLU network at "
        f"the end {_med(r.relu.loss[:, -1]) / r.L0:.4f} L0 (median), below the floor "
        f"from epoch {'never' if None in t_floor else _med(t_floor)}.",
    )
    out["reln_vs_prediction"] = rec.add(
        "reln_vs_prediction",
        Evidence(
            r.m_pred["mixed"].value,
            spread=r.m_pred["mixed"].spread,
            per_seed=r.m_pred["mixed"].per_seed,
            time_gap=True,
        ),
        "time gap simulated common + 2-of-3 ReLN vs helpers.core.race.predict "
        "(nothing fitted), median over seeds; single-context: "
        f"{r.m_pred['single'].value:.4f}.",
    )
    out["assumption_211"] = rec.add(
        "assumption_211",
        {
            "task_offdiag": r.diag_task["offdiag"],
            "task_leak": r.diag_task["leak"],
            "pathways_offdiag_max": max(r.diag_paths[p]["offdiag"] for p in ctx_names),
            "section4_offdiag": r.diag_s4["offdiag"],
        },
        "helpers.core.linear.diagonalizability of the task and of the 2-of-3 "
        "pathways' effective datasets (0 when Assumption 2.1.1 holds).",
    )
    err = r.err_test
    out["test_error_relu"] = rec.add(
        "test_error_relu",
        _spread_only(_med(err["error"]), float(np.ptp(err["error"]))),
        f"share of the {r.test.P} test datapoints answered wrongly (class or context "
        f"label), median over {n_seeds} seeds (spread: max - min); class wrong "
        f"{_med(err['class_error']):.3f}, context answer wrong "
        f"{_med(err['context_error']):.3f}; train {_med(r.err_train['error']):.4f}.",
    )
    out["test_error_gdln"] = rec.add(
        "test_error_gdln",
        _spread_only(
            _med(gdln_err), float(np.ptp(gdln_err)) if r.elbow_seeds > 1 else None
        ),
        f"the Algorithm 1 GDLN at K = {r.best_k}, {r.elbow_seeds} seed(s), test gates "
        "from the nearest training image in the same context; common + 2-of-3 "
        f"ReLN {_med(r.err_reln['mixed']['error']):.3f}, single-context "
        f"{_med(r.err_reln['single']['error']):.3f}.",
    )
    out["controls"] = rec.add(
        "controls",
        controls_record(r.controls, ahead, late),
        f"ReLU ({r.relu_width} units) vs the two ReLNs ({r.reln_width} units per "
        f"pathway, matched) on the task and three controls, {n_seeds} seeds; gaps "
        f"over the levels of {tuple(r.reln_levels)} at least {r.floor_margin:g} x "
        "each task's floor; relu_ahead (the early lead): halves "
        f"first and the 2-of-3 gap is beyond {NM:g} x the top of the spread's "
        "interval; relu_ends_lower (the late lead): final loss below both ReLNs' by "
        f"more than {NM:g} x the top of the final losses' spread interval.",
    )
    out["step_size_check"] = rec.add(
        "step_size_check",
        {"half_step": r.euler[0.5], "double_step": r.euler[2.0]},
        "largest |ln| ratio of the level times with lr/2 (twice the epochs) and 2 lr "
        f"(half the epochs) to those with lr = {r.kappa} / s_1, seed 0: the Euler "
        "effect.",
    )
    return out


def _spread_only(value: float, spread: float | None):
    """A measured value with the range over seeds as its spread."""
    return Evidence(value, spread=spread)


def _summary(r: Results, recs: dict, ahead: dict, late: dict) -> str:
    kb, kc = r.k_bend, r.k_check
    best = {
        **recs["best_k"],
        "value": f"bend rule K = {r.best_k} (GDLN seeds {kb['interval'][0]}-"
        f"{kb['interval'][1]}); factor-2 rule K = {r.k_within} "
        f"({kc['interval'][0]}-{kc['interval'][1]})",
    }
    ctl = {
        **recs["controls"],
        "value": "; ".join(
            f"{k}: {'yes' if ahead[k] else 'no'} / {'yes' if late[k] else 'no'}"
            for k in ahead
        ),
    }
    return claims_table(
        [
            ("Elbow of Algorithm 1 on real data", "K = 4 on Section 4", best),
            (
                "Gating patterns at the elbow (context level)",
                "common + 2-of-3",
                recs["k_patterns_context_level"],
            ),
            (
                "What those patterns gate on",
                "context only (Lemma 4.1)",
                recs["k_patterns_gate_on"],
            ),
            (
                "Census at the level of contexts, early and final",
                "no single-context units",
                recs["census_context_level"],
            ),
            (
                "ReLU network vs common + 2-of-3 ReLN",
                "'excellent agreement'",
                recs["reln_vs_relu"],
            ),
            (
                "ReLU network vs common + single-context ReLN",
                "clear deviation",
                recs["singles_vs_relu"],
            ),
            (
                "... over the levels above the ReLN floor",
                "—",
                recs["reln_vs_relu_above_floor"],
            ),
            (
                "... single-context, above the floor",
                "—",
                recs["singles_vs_relu_above_floor"],
            ),
            ("Time gaps level by level", "—", recs["gap_by_level"]),
            (
                "Floor of any context-gated ReLN (share of L0)",
                "—",
                recs["reln_floor"],
            ),
            ("Race reduction vs simulated ReLN", "—", recs["reln_vs_prediction"]),
            (
                "Distance from Assumption 2.1.1",
                "assumed to hold",
                recs["assumption_211"],
            ),
            ("Test error of the ReLU network", "—", recs["test_error_relu"]),
            (
                "Test error of the Algorithm 1 GDLN at the elbow",
                "—",
                recs["test_error_gdln"],
            ),
            (
                "Controls: is the ReLU network still ahead (early at L0/2; late at "
                "the end)?",
                "—",
                ctl,
            ),
            (
                "Step-size check (halved and doubled step)",
                "—",
                recs["step_size_check"],
            ),
        ]
    )


def _printed(r: Results) -> str:
    """The chapter's headline numbers as the page prints them for the notebook's
    output check."""
    at = r.census_at[f"epoch {r.early}"]
    return "\n".join(
        [
            f"best_k                   = {r.best_k}",
            f"k_patterns_context_level = {' '.join(r.best_patterns)}",
            f"k_patterns_gate_on       = {' '.join(r.best_src['kind'])}",
            f"census early (common, 2-of-3) = {at['common']:.1f}, {at['mixed']:.1f}",
            f"reln_vs_relu             = {r.m_reln.value:.2f}",
            f"singles_vs_relu          = {r.m_single.value:.2f}",
            f"reln_vs_relu_above_floor = {r.m_reln_above.value:.2f}",
            f"singles_above_floor      = {r.m_single_above.value:.2f}",
            f"parting level            = {_parting(r.by_level)[1]}",
            f"test_error_relu          = {_med(r.err_test['error']):.2f}",
            f"test_error_gdln          = {_med(r.err_gdln[r.best_k]['error']):.2f}",
        ]
    )


def report(rec, results: Results) -> dict:
    """Write the chapter's records and glue every number its prose cites.

    Defined for the page book/digits.md.

    Args:
        rec: the chapter's :class:`helpers.book.records.Records`.
        results: :class:`Results`, what the page computed.

    Returns:
        ``{name: Markdown or text}``: ``controls`` (Table 2, the task and its
        controls), ``summary`` (the closing table of the records) and ``printed``
        (the headline numbers the page prints for the notebook's output check).
        The records are saved.
    """
    from . import controls_table

    r = results
    task_all = _glue_task(r)
    _glue_relu(r, task_all)
    _glue_algorithm1(r)
    _glue_census(r)
    _glue_relns(r)
    ahead, late = _leads(r)
    _glue_controls(r, ahead, late)
    _glue_chance(r)
    recs = _records(rec, r, ahead, late)
    rec.save()
    return {
        "controls": controls_table(r.controls),
        "summary": _summary(r, recs, ahead, late),
        "printed": _printed(r),
    }
