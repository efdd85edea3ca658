"""The records, glued numbers and closing tables of the page *Proofs checked
numerically* (``book/proofs.md``), from what the page computed."""

from __future__ import annotations

import numpy as np

from ...book import records as records_
from ...book import rulebook
from ...book.notebook import glue
from ...core.measures import Evidence, ratio_interval, time_gap
from .interlacing import Deletions, Interlacing
from .lemma import Census, TwoByTwo, UnitCensus, pattern_class
from .race import NAMES, Control, Race, context_learning_time
from .xor import EPS_PAPER, Algebra, Simulated

TOL = 1e-10  # a deletion raises a top value when it moves by more than this, relative


def _witness(two: TwoByTwo) -> str:
    """The 2 x 2 counterexample in words: the unit's weights and where it is on."""
    w = np.asarray(two.w, float)
    g = np.asarray(two.g).astype(int)
    names = [f"(o{i + 1}, c{c + 1})" for c in range(2) for i in range(2)]
    on = ", ".join(n for n, x in zip(names, g) if x)
    off = ", ".join(n for n, x in zip(names, g) if not x) or "nowhere"
    cls = pattern_class(g, 2, 2)
    single = int(g.sum()) == 1
    kind = (
        "a pattern of item and context together, not a single-datapoint one"
        if cls == "both" and not single
        else f"NOT a counterexample (class {cls}, single datapoint: {single})"
    )
    return (
        f"w_item = ({w[0]:g}, {w[1]:g}), w_ctx = ({w[2]:g}, {w[3]:g}): on at {on}, "
        f"off at {off}; {kind}"
    )


def _lemma(rec, two: TwoByTwo, cen: Census) -> dict:
    witness22 = _witness(two)
    glue("proofs_witness22_text", witness22)
    feasible = np.array([x["feasible"] for x in two.lp])
    classes = pattern_class(two.patterns, 2, 2)
    n_bad = int((~feasible).sum())
    cert = two.certs[int(np.flatnonzero(~feasible)[0])]
    out = {}
    out["r_22"] = rec.add(
        "lemma41_infeasible_2x2",
        Evidence(n_bad, compared=2, criterion="exact"),
        "patterns of the 16 on 2 items x 2 contexts that no bias-free ReLU unit "
        "implements (LP margin t* = 0 with |w_k| <= 1, and a Motzkin certificate "
        "found for each); Appendix D names the two 'combined' patterns.",
    )
    glue("proofs_n_infeasible22", n_bad)
    glue("proofs_n_feasible22", int(feasible.sum()))
    same = np.array_equal(feasible, np.asarray(two.strict))
    glue("proofs_strict_same", "the same" if same else "different")
    ok = all((c is None) == f for c, f in zip(two.certs, feasible))
    glue("proofs_alt_ok", "held" if ok else "FAILED")
    glue(
        "proofs_cert",
        f"lambda = ({', '.join(f'{v:.2f}' for v in cert[0])}), "
        f"mu = ({', '.join(f'{v:.2f}' for v in cert[1])})",
    )
    kinds = ["constant", "context-only", "item-only", "both"]
    n22 = {k: int(np.sum(classes[feasible] == k)) for k in kinds}
    glue("proofs_22_classes", ", ".join(f"{k}: {v}" for k, v in n22.items()))
    # the lemma's own grid: 'both' patterns other than single-datapoint ones
    single22 = int(np.sum((classes == "both") & (np.asarray(two.patterns).sum(1) == 1)))
    full = cen.full
    split = {
        k: full[k]
        for k in ["implementable", "constant", "context_only", "item_only", "both"]
    }
    value = int(full["both"] - full["single_datapoint"])
    ev = Evidence(value, compared=0, criterion="exact").varied(
        "definition",
        {
            "single-datapoint units counted too": int(full["both"]),
            "on Appendix D's own 2 items x 2 contexts": n22["both"] - single22,
        },
    )
    out["r_full"] = rec.add(
        "implementable_patterns_full",
        ev,
        "False as written, by one unit on Appendix D's own 2 items x 2 contexts "
        f"(counterexample: {witness22}). The count: implementable patterns that "
        "depend on the item and the context, other than "
        f"the single-datapoint edge case (split: {split}); the lemma allows none. "
        f"Brute force over all 2^{8 * cen.n_contexts} on/off patterns of one bias-free "
        f"ReLU unit on 8 items x {cen.n_contexts} contexts: implementable = nested "
        "per-context on-sets (no combined 2x2 sub-pattern). constant = all on / all "
        "off; context_only / item_only = a non-constant function of the context / "
        f"item alone; both = depends on item and context ({full['single_datapoint']} "
        f"of them are single-datapoint units). Closed-form count {full['formula']}. "
        "Appendix D concludes that gating is consistent for context (or item) "
        "features, with single-datapoint units the only exception.",
    )
    glue("proofs_lp33_agree", int(np.sum(cen.lp33 == cen.nested33)))
    agree = full["implementable"] == full["formula"]
    glue("proofs_counts_agree", "agree" if agree else "DISAGREE")
    glue("proofs_lp33_feasible", int(np.sum(cen.lp33)))
    glue("proofs_lp_sample_n", int(np.shape(cen.sample)[0]))
    glue("proofs_lp_sample_agree", int(np.sum(cen.lp_sample == cen.nested_sample)))
    witness = "reproduces" if cen.witness_ok else "does NOT reproduce"
    glue("proofs_witness_ok", witness)
    glue("proofs_n_both", f"{full['both']:,}")
    glue("proofs_n_impl", f"{full['implementable']:,}")
    by_c = ", ".join(f"C = {k}: {v:,}" for k, v in cen.counts_by_C.items())
    glue("proofs_counts_by_C", by_c)
    return out


def _units(rec, u: UnitCensus) -> dict:
    end = u.shares[u.epochs]
    rec_ = rec.add(
        "relu_unit_pattern_classes",
        {**end, "non_nested_units": u.non_nested},
        "share of the ReLU network's hidden weight mass (seed 0) by the class of each "
        f"unit's exact on/off pattern at epoch {u.epochs}; non_nested_units counts "
        "units, over all recorded epochs, whose pattern contains a combined 2x2 "
        "sub-pattern (Lemma 4.1 says: none).",
    )
    glue("proofs_lr", u.lr)
    glue("proofs_epochs", u.epochs)
    glue("proofs_relu_both", end["both"])
    glue("proofs_relu_ctx", end["context-only"] + end["constant"])
    glue("proofs_relu_nonnested", u.non_nested)
    glue("proofs_relu_units_checked", 700 * len(u.shares))
    return {"r_relu_cls": rec_}


def _deletions(rec, il: Interlacing, dl: Deletions) -> dict:
    cases = il.random + il.task
    n_ineq = sum(c["inequalities"] for c in cases)
    viol = int(sum(c["violations"] > 0 for c in cases))
    out = {}
    out["r_int_cases"] = rec.add(
        "interlacing_cases",
        len(cases),
        f"(matrix, deletion) pairs tested: {len(il.random)} random matrices, "
        f"{len(il.task)} deletions from the task's correlation matrices; "
        f"{n_ineq} inequalities of Eq. proofs-thompson in all.",
    )
    out["r_int_viol"] = rec.add(
        "interlacing_violations",
        Evidence(viol, compared=0, criterion="exact"),
        "cases where an inequality sigma_k(A) >= sigma_k(B) >= sigma_{k+r+c}(A) "
        "fails by more than 1e-10 sigma_1(A).",
    )
    glue("proofs_int_cases", len(cases))
    glue("proofs_int_ineq", n_ineq)
    glue("proofs_int_viol", viol)
    glue("proofs_int_max_ratio", float(max(c["top_ratio"] for c in cases)))
    ctx = [c for c in il.task if c["deletion"] == "context inputs"][0]
    glue("proofs_ctx_drop_ratio", ctx["top_ratio"])

    effs = dl.task.values()
    d_eig = np.concatenate(
        [dl.nonneg["d_eig"]] + [e["d_eig"] / e["lambda_max"] for e in effs]
    )
    d_sv = np.concatenate(
        [dl.nonneg["d_sv"]] + [e["d_sv"] / e["sigma_1"] for e in effs]
    )
    orth = int(np.sum((d_eig < -TOL) | (d_sv < -TOL)))
    s_eig = int(np.sum(dl.signed["d_eig"] < -TOL))
    s_sv = int(np.sum(dl.signed["d_sv"] < -TOL))
    n_task = sum(len(e["d_eig"]) for e in effs)
    out["r_orth_cases"] = rec.add(
        "orthant_cases",
        int(d_eig.size),
        "(dataset, deleted datapoint) pairs with non-negative X and Y: "
        f"{dl.nonneg['d_eig'].size} from {dl.n_datasets} random datasets, "
        f"{n_task} from the Section 4 task, the Section 5 task and the Fig. 7 "
        "hierarchy; each checks lambda_max(Sigma_x) and sigma_1(Sigma_yx).",
    )
    out["r_orth_viol"] = rec.add(
        "orthant_violations",
        Evidence(orth, compared=0, criterion="exact"),
        "cases where deleting a datapoint raised lambda_max(X X^T) or sigma_1(Y X^T) "
        f"by more than 1e-10 of its value. Control on {dl.signed['d_eig'].size} signed "
        f"deletions: lambda_max raised {s_eig} times (PSD: never), "
        f"sigma_1(Sigma_yx) raised {s_sv} times.",
    )
    e4 = dl.task["section 4 task"]
    glue("proofs_orth_cases", int(d_eig.size))
    glue("proofs_orth_viol", orth)
    glue("proofs_signed_n", int(dl.signed["d_eig"].size))
    glue("proofs_signed_eig", s_eig)
    glue("proofs_signed_sv", s_sv)
    glue("proofs_signed_sv_frac", s_sv / dl.signed["d_sv"].size)
    glue("proofs_task_min_eig_drop", float(e4["d_eig"].min() / e4["lambda_max"]))
    glue("proofs_task_min_sv_drop", float(e4["d_sv"].min() / e4["sigma_1"]))
    glue("proofs_task_min_overlap", float(e4["overlap"].min()))
    return out


def _winner(times: dict) -> str:
    return min(["single", "mixed"], key=lambda k: float(np.median(times[k])))


def _race(rec, race: Race) -> dict:
    names, fam = NAMES, race.family
    t_ctx = {k: float(np.median(v)) for k, v in race.t_seed.items()}
    fastest = min(names, key=lambda k: t_ctx[k])
    strategy = _winner(race.t_seed)
    wins = int(np.sum(race.t_seed["mixed"] < race.t_seed["single"]))
    n_seeds = len(race.t_seed["mixed"])
    out = {}
    out["r_fast"] = rec.add(
        "fastest_candidate",
        fastest,
        "the fastest of the three candidates ('single' = common + 1-of-3, 'mixed' = "
        "common + 2-of-3, 'both' = common + 1-of-3 + 2-of-3) to half the best linear "
        "loss, median learning times over seeds (epochs): "
        + ", ".join(f"{k} {v:.0f}" for k, v in t_ctx.items())
        + ". 'both' contains every 2-of-3 pathway plus three 1-of-3 ones.",
    )
    # variants: the winner on each half of the seeds, and at other cuts of L_lin
    half = max(n_seeds // 2, 1)
    halves = {
        f"seeds 0-{half - 1} only": slice(0, half),
        f"seeds {half}-{n_seeds - 1} only": slice(half, n_seeds),
    }
    by_half = {
        label: _winner({k: race.t_seed[k][sl] for k in ("single", "mixed")})
        for label, sl in halves.items()
    }
    by_cut = {}
    for frac in (0.25, 0.75):
        t = {
            k: [context_learning_time(L, race.L_lin, frac) for L in race.losses[k]]
            for k in ("single", "mixed")
        }
        by_cut[f"learning time at {frac:g} x L_lin"] = _winner(t)
    ev = (
        Evidence(strategy, compared="mixed", criterion="exact")
        .varied("seeds", by_half)
        .varied("threshold", by_cut)
    )
    out["r_fast_strategy"] = rec.add(
        "race_winner",
        ev,
        "the faster of the two gating strategies of the paper's race, median learning "
        "time over seeds: "
        + ", ".join(f"{k} {t_ctx[k]:.0f}" for k in ("single", "mixed"))
        + f" epochs; 2-of-3 faster in {wins} of {n_seeds} seeds.",
    )
    out["r_match"] = rec.add(
        "gap_mixed_relu",
        fam,
        "time gap ReLU network vs common + 2-of-3 ReLN (authors' init, "
        f"{race.coupling} coupling), median over seeds, against the race's rival "
        "(common + 1-of-3); 'both' contains the paper's candidate, so it is no rival: "
        f"gap {race.gap_both:.3f}.",
    )
    out["r_times"] = rec.add(
        "race_learning_times",
        t_ctx,
        "median over seeds of the first epoch with loss <= L_lin / 2, L_lin = best "
        f"linear loss {race.L_lin:.3f}.",
    )
    glue("proofs_race_seeds", n_seeds)
    glue("proofs_coupling", race.coupling)
    glue("proofs_L_lin", race.L_lin)
    glue("proofs_fastest", names[fastest])
    glue("proofs_fastest_strategy", names[strategy])
    glue("proofs_strategy_gap", abs(t_ctx["single"] - t_ctx["mixed"]))
    glue("proofs_wins", wins)
    glue("proofs_both_lead_pct", (t_ctx["mixed"] - t_ctx["both"]) / t_ctx["mixed"])
    for k in ("single", "mixed", "both", "relu"):
        glue(f"proofs_t_{k}", t_ctx[k])
    glue("proofs_both_lead", t_ctx["mixed"] - t_ctx["both"])
    glue("proofs_g_mixed", fam.value)
    glue("proofs_g_both", race.gap_both)
    glue("proofs_g_single", fam.alternative)
    glue("proofs_g_relu", fam.spread)
    glue("proofs_match_verdict", out["r_match"]["verdict"])
    late = slice(int(0.625 * race.epochs), int(0.875 * race.epochs) + 1)
    ratio = race.losses["mixed"][0, late] / race.relu_loss[0, late]
    glue("proofs_late_ratio", float(np.exp(np.mean(np.log(ratio)))))
    glue("proofs_late_from", late.start)
    glue("proofs_late_to", late.stop - 1)

    return out


def _singles(rec, race: Race) -> dict:
    n_seeds = len(race.t_seed["mixed"])
    both, alone = float(np.median(race.norms_both)), float(np.median(race.norms_alone))
    iv = ratio_interval(race.norms_both, race.norms_alone)
    mid_both, mid_alone = race.norms_mid
    window = Evidence(
        float(np.median(mid_both)),
        compared=float(np.median(mid_alone)),
        criterion="smaller",
        ratio_interval=ratio_interval(mid_both, mid_alone),
    )
    ev = Evidence(both, compared=alone, criterion="smaller", ratio_interval=iv)
    ev = ev.varied("seeds", rulebook.seed_variants(ev)).varied(  # alphabetical order
        "window", {f"at epoch {race.mid}": window}
    )
    out = rec.add(
        "singles_inactive",
        ev,
        "norm of the 1-of-3 pathways' maps at the end when trained with the 2-of-3 "
        "pathways ('both'), against the same pathways trained without them (common + "
        f"1-of-3), medians over {n_seeds} seeds; ratio {both / alone:.3f} (90 % "
        f"bootstrap interval over seeds {iv[0]:.3f}-{iv[1]:.3f}).",
    )
    glue("proofs_singles_both", both)
    glue("proofs_singles_alone", alone)
    glue("proofs_singles_ratio", both / alone)
    glue("proofs_singles_iv", f"{iv[0]:.2f}–{iv[1]:.2f}")
    return {"r_singles": out}


def _control(rec, ctl: Control, L_lin: float) -> dict:
    c = ctl.losses
    out = rec.add(
        "race_from_converged_common",
        {k: float(L[-1]) for k, L in c.items()},
        f"summed loss after {ctl.epochs} epochs of the 1-of-3 ('single') and "
        "2-of-3 ('mixed') ReLNs started with the common pathway at the best linear "
        f"map (loss {L_lin:.3f}); the effective residual datasets of the two "
        "strategies have equal singular values.",
    )
    glue("proofs_control_epochs", ctl.epochs)
    faster = c["mixed"][-1] < c["single"][-1]
    glue("proofs_control_verdict", "still faster" if faster else "not faster")
    glue("proofs_identity_gap", ctl.identity_gap)
    glue("proofs_control_single", float(c["single"][-1]))
    glue("proofs_control_mixed", float(c["mixed"][-1]))
    raw = {n: s[0][0] for (n, t), s in ctl.sv.items() if t == "raw targets Y"}
    glue("proofs_s_raw_single", float(raw["1-of-3 (on in context 1)"]))
    glue("proofs_s_raw_mixed", float(raw["2-of-3 (off in context 1)"]))
    return {"r_control": out}


def _xor(rec, alg: Algebra, xs: Simulated) -> dict:
    out = {}
    out["r_cross"] = rec.add(
        "crossover_eps",
        Evidence(alg.eps_data, compared=EPS_PAPER, criterion="exact"),
        "root of s_linear(eps) - s_xor(eps) with s the top singular value of each "
        "pathway's effective dataset of helpers.xor(eps) (Eqs. 24-26); positive root "
        f"of 3 eps^2 - 2: {alg.poly_root:.12f}.",
    )
    gaps = {key: time_gap(xs.sim[key], xs.cf[key]) for key in xs.sim}
    out["r_cf_xor"] = rec.add(
        "xor_closed_form_max_gap",
        Evidence(float(max(gaps.values())), criterion="gap"),
        "largest time gap between a simulated XoR-task ReLN and Eqs. 18-23 "
        f"(per-pathway a0 from the initial weights) over eps in {xs.eps}, both "
        f"ReLNs, {xs.seeds} seeds. Width {xs.width}, init std "
        f"{xs.init_std}, lr {xs.lr}: [reconstruction].",
    )
    sim, cf = float(np.nanmean(xs.cross_sim)), float(np.nanmean(xs.cross_cf))
    out["r_cross_cf"] = rec.add(
        "crossover_eps_closed_form",
        cf,
        "margin where the closed-form curves, evaluated with each simulated pathway's "
        "own a0, halve their loss at the same time (mean over seeds); the simulated "
        f"ReLNs cross at {sim:.3f}; a priori, at the mean a0: {xs.cross_pred:.3f}. The "
        "ReLU network's switch is scored in the XoR chapter.",
    )
    glue("proofs_poly_root", alg.poly_root)
    glue("proofs_eps_data", alg.eps_data)
    glue("proofs_eps_formula", alg.eps_formula)
    glue("proofs_modes_ok", alg.modes_diff)
    glue("proofs_cf_max", float(max(gaps.values())))
    glue("proofs_cf_median", float(np.median(list(gaps.values()))))
    glue("proofs_cross_sim", sim)
    glue("proofs_cross_cf", cf)
    glue("proofs_cross_pred", xs.cross_pred)
    glue("proofs_a0_mean", xs.a0_mean)
    glue("proofs_cross_gap", cf - xs.cross_pred)
    near = min(xs.eps, key=lambda e: abs(e - sim))
    glue("proofs_near_eps", f"{near:g}")
    h = xs.halving
    diffs = [
        abs(h[near, "linear", s] - h[near, "xor", s]) / h[near, "xor", s]
        for s in range(xs.seeds)
    ]
    glue("proofs_near_diff", float(np.median(diffs)))
    return out


def report(
    rec,
    two: TwoByTwo,
    cen: Census,
    units: UnitCensus,
    il: Interlacing,
    dl: Deletions,
    race: Race,
    ctl: Control,
    alg: Algebra,
    xs: Simulated,
) -> str:
    """Write the page's records and glue its numbers (Defined for the page
    book/proofs.md).

    Args:
        rec: the chapter's :class:`helpers.book.records.Records` (``"proofs"``).
        two, cen, units: Lemma 4.1 (:func:`.lemma.two_by_two`, :func:`.lemma.census`,
            :func:`.lemma.unit_classes`).
        il, dl: Proposition 4.2's steps 1 and 2
            (:func:`.interlacing.interlacing_checks`, :func:`.deletion_checks`).
        race, ctl: its race (:func:`.race.race_measures`, :func:`.race.control_race`).
        alg, xs: Appendix C (:func:`.xor.crossover_algebra`, :func:`.xor.simulate`).

    Returns:
        The Markdown table of every claim; the records are saved.
    """
    g = {
        **_lemma(rec, two, cen),
        **_units(rec, units),
        **_deletions(rec, il, dl),
        **_race(rec, race),
        **_singles(rec, race),
        **_control(rec, ctl, race.L_lin),
        **_xor(rec, alg, xs),
    }
    rec.save()
    return records_.claims_table(
        [
            ("Lemma 4.1, 2 x 2: the two combined patterns are the only ones no ReLU "
             "unit implements (LP and certificate, all 16 patterns)",
             "'cannot implement'", g["r_22"]),
            ("Lemma 4.1 on the full input: units gate consistently on context or "
             "item (enumeration of every pattern on 8 x C)",
             "'must gate consistently for either context or object features'",
             g["r_full"]),
            ("Lemma 4.1 in the trained ReLU network: the patterns its units hold", "—",
             g["r_relu_cls"]),
            ("Prop. 4.2: deleting rows or columns never raises the top singular value "
             "(Thompson)", "'can only decrease'", g["r_int_viol"]),
            ("Prop. 4.2: deleting a datapoint of non-negative data never raises the "
             "top eigenvalue", "'can only decrease'", g["r_orth_viol"]),
            ("Prop. 4.2: the 2-of-3 strategy wins the race against 1-of-3",
             "'modules that are active for two contexts wins the race'",
             g["r_fast_strategy"]),
            ("Prop. 4.2: trained together, the 1-of-3 pathways stay inactive",
             "'remain inactive'", g["r_singles"]),
            ("Prop. 4.2: common + 2-of-3 matches the ReLU loss",
             "'matches the loss trajectory of the ReLU network'", g["r_match"]),
            ("The fastest of 1-of-3, 2-of-3 and their superset", "—", g["r_fast"]),
            ("Without the transient (common pathway converged), the race's losses",
             "—", g["r_control"]),
            ("App. C: crossover at eps* = sqrt(2/3)", "Eqs. 24-26", g["r_cross"]),
            ("App. C: closed-form losses (Eqs. 18-23) match simulated ReLNs", "—",
             g["r_cf_xor"]),
            ("App. C: where the closed forms with each pathway's a0 swap speed", "—",
             g["r_cross_cf"]),
        ]
    )  # fmt: skip
