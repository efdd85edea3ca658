"""The records, glued numbers and closing tables of the page *Proofs checked
numerically* (``book/proofs.md``), from what the page computed; the sentences and the
closing table's words are the chapter's TOML's."""

from __future__ import annotations

import numpy as np

from ...book import kit, rulebook
from ...book.records import claims_table
from ...core.measures import Evidence, ratio_interval, time_gap
from .interlacing import Deletions, Interlacing
from .lemma import CLASSES, Census, TwoByTwo, UnitCensus, pattern_class
from .race import NAMES, Control, Race, context_learning_time
from .xor import EPS_PAPER, Algebra, Simulated

P = "proofs"
TOL = 1e-10  # a deletion raises a top value when it moves by more than this, relative


def _exact(value, compared=0) -> Evidence:
    return Evidence(value, compared=compared, criterion="exact")


def _lemma(two: TwoByTwo, cen: Census):
    """Lemma 4.1: the 2 x 2 patterns, the counterexample unit and the full census."""
    # the counterexample in words: the unit's weights and where it is on
    w, g = np.asarray(two.w, float), np.asarray(two.g).astype(int)
    names = [f"(o{i + 1}, c{c + 1})" for c in range(2) for i in range(2)]
    on = ", ".join(n for n, x in zip(names, g) if x)
    off = ", ".join(n for n, x in zip(names, g) if not x) or "nowhere"
    cls, single = pattern_class(g, 2, 2), int(g.sum()) == 1
    kind = "witness_both" if cls == "both" and not single else "witness_not"
    kind = kit.prose(P, kind, cls=cls, single=single)
    witness22 = kit.prose(P, "witness", w=w, on=on, off=off, kind=kind)
    full, feasible = cen.full, np.array([x["feasible"] for x in two.lp])
    classes = pattern_class(two.patterns, 2, 2)
    n_bad = int((~feasible).sum())
    cert = two.certs[int(np.flatnonzero(~feasible)[0])]
    lam, mu = (", ".join(f"{v:.2f}" for v in x) for x in cert[:2])
    n22 = {k: int(np.sum(classes[feasible] == k)) for k in CLASSES}
    # the lemma's own grid: 'both' patterns other than single-datapoint ones
    single22 = int(np.sum((classes == "both") & (np.asarray(two.patterns).sum(1) == 1)))
    definitions = {
        "single-datapoint units counted too": int(full["both"]),
        "on Appendix D's own 2 items x 2 contexts": n22["both"] - single22,
    }
    ev = _exact(int(full["both"] - full["single_datapoint"]))
    kinds = ["implementable", "constant", "context_only", "item_only", "both"]
    said = dict(full=full, C=cen.n_contexts, bits=8 * cen.n_contexts)
    said["split"] = {k: full[k] for k in kinds}
    same = np.array_equal(feasible, np.asarray(two.strict))
    ok = all((c is None) == f for c, f in zip(two.certs, feasible))
    return [
        ("lemma41_infeasible_2x2", _exact(n_bad, 2), {}),
        ("implementable_patterns_full", ev.varied("definition", definitions), said),
    ], {
        "witness22_text": witness22, "n_infeasible22": n_bad,
        "n_feasible22": int(feasible.sum()),
        "strict_same": "the same" if same else "different",
        "alt_ok": "held" if ok else "FAILED",
        "cert": kit.prose(P, "cert", lam=lam, mu=mu),
        "22_classes": ", ".join(f"{k}: {v}" for k, v in n22.items()),
        "lp33_agree": int(np.sum(cen.lp33 == cen.nested33)),
        "counts_agree": "agree"
        if full["implementable"] == full["formula"] else "DISAGREE",
        "lp33_feasible": int(np.sum(cen.lp33)),
        "lp_sample_n": int(np.shape(cen.sample)[0]),
        "lp_sample_agree": int(np.sum(cen.lp_sample == cen.nested_sample)),
        "witness_ok": "reproduces" if cen.witness_ok else "does NOT reproduce",
        "n_both": f"{full['both']:,}", "n_impl": f"{full['implementable']:,}",
        "counts_by_C": ", ".join(f"C = {k}: {v:,}" for k, v in cen.counts_by_C.items()),
    }  # fmt: skip


def _units(u: UnitCensus):
    end = u.shares[u.epochs]
    value = {**end, "non_nested_units": u.non_nested}
    return [("relu_unit_pattern_classes", value, {})], {
        "lr": u.lr, "epochs": u.epochs, "relu_both": end["both"],
        "relu_ctx": end["context-only"] + end["constant"],
        "relu_nonnested": u.non_nested, "relu_units_checked": 700 * len(u.shares),
    }  # fmt: skip


def _deletions(il: Interlacing, dl: Deletions):
    cases, effs, signed = il.random + il.task, dl.task.values(), dl.signed
    viol = int(sum(c["violations"] > 0 for c in cases))
    d_eig, d_sv = (
        np.concatenate([dl.nonneg[k]] + [e[k] / e[top] for e in effs])
        for k, top in (("d_eig", "lambda_max"), ("d_sv", "sigma_1"))
    )
    orth = int(np.sum((d_eig < -TOL) | (d_sv < -TOL)))
    s_eig, s_sv = (int(np.sum(signed[k] < -TOL)) for k in ("d_eig", "d_sv"))
    n_signed, n_task = int(signed["d_eig"].size), sum(len(e["d_eig"]) for e in effs)
    il_said = dict(n_random=len(il.random), n_task=len(il.task))
    dl_said = dict(n_random=dl.nonneg["d_eig"].size, n_datasets=dl.n_datasets)
    ctx = [c for c in il.task if c["deletion"] == "context inputs"][0]
    e4 = dl.task["section 4 task"]
    return [
        ("interlacing_cases", len(cases), il_said),
        ("interlacing_violations", _exact(viol), {}),
        ("orthant_cases", int(d_eig.size), {**dl_said, "n_task": n_task}),
        ("orthant_violations", _exact(orth), {}),
    ], {
        "int_cases": len(cases), "int_ineq": sum(c["inequalities"] for c in cases),
        "int_viol": viol, "int_max_ratio": float(max(c["top_ratio"] for c in cases)),
        "ctx_drop_ratio": ctx["top_ratio"], "orth_cases": int(d_eig.size),
        "orth_viol": orth, "signed_n": n_signed, "signed_eig": s_eig,
        "signed_sv": s_sv, "signed_sv_frac": s_sv / signed["d_sv"].size,
        "task_min_eig_drop": float(e4["d_eig"].min() / e4["lambda_max"]),
        "task_min_sv_drop": float(e4["d_sv"].min() / e4["sigma_1"]),
        "task_min_overlap": float(e4["overlap"].min()),
    }  # fmt: skip


def _winner(times: dict) -> str:
    return min(["single", "mixed"], key=lambda k: kit.med(times[k]))


def _race(race: Race):
    fam, ts, pair = race.family, race.t_seed, ("single", "mixed")
    t_ctx = {k: kit.med(v) for k, v in ts.items()}
    fastest, strategy = min(NAMES, key=lambda k: t_ctx[k]), _winner(ts)
    wins, n = int(np.sum(ts["mixed"] < ts["single"])), len(ts["mixed"])
    # variants: the winner on each half of the seeds, and at other cuts of L_lin
    half, by_half = max(n // 2, 1), {}
    for lo, hi in ((0, half), (half, n)):
        by_half[f"seeds {lo}-{hi - 1} only"] = _winner({k: ts[k][lo:hi] for k in pair})
    by_cut, lin, losses = {}, race.L_lin, race.losses
    for frac in (0.25, 0.75):
        t = {k: [context_learning_time(L, lin, frac) for L in losses[k]] for k in pair}
        by_cut[f"learning time at {frac:g} x L_lin"] = _winner(t)
    ev = _exact(strategy, "mixed").varied("seeds", by_half).varied("threshold", by_cut)
    times = ", ".join(f"{k} {v:.0f}" for k, v in t_ctx.items())
    late = slice(int(0.625 * race.epochs), int(0.875 * race.epochs) + 1)
    ratio = race.losses["mixed"][0, late] / race.relu_loss[0, late]
    return [
        ("fastest_candidate", fastest, {"times": times}),
        ("race_winner", ev, {}),
        ("gap_mixed_relu", fam, {}),
        ("race_learning_times", t_ctx, {}),
    ], {
        "race_seeds": n, "coupling": race.coupling,
        "fastest": NAMES[fastest], "fastest_strategy": NAMES[strategy],
        "strategy_gap": abs(t_ctx["single"] - t_ctx["mixed"]), "wins": wins,
        "both_lead_pct": (t_ctx["mixed"] - t_ctx["both"]) / t_ctx["mixed"],
        **{f"t_{k}": t_ctx[k] for k in ("single", "mixed", "both", "relu")},
        "both_lead": t_ctx["mixed"] - t_ctx["both"], "g_mixed": fam.value,
        "g_both": race.gap_both, "g_single": fam.alternative, "g_relu": fam.spread,
        "match_verdict": None,  # the record's, filled in by report()
        "late_ratio": float(np.exp(np.mean(np.log(ratio)))),
        "late_from": late.start, "late_to": late.stop - 1,
    }  # fmt: skip


def _singles(race: Race):
    def smaller(a, b):
        kw = dict(criterion="smaller", ratio_interval=ratio_interval(a, b))
        return Evidence(kit.med(a), compared=kit.med(b), **kw)

    ev, window = smaller(race.norms_both, race.norms_alone), smaller(*race.norms_mid)
    both, alone, iv = ev.value, ev.compared, ev.ratio_interval
    at_mid = {f"at epoch {race.mid}": window}  # the choices in alphabetical order
    ev = ev.varied("seeds", rulebook.seed_variants(ev)).varied("window", at_mid)
    return [("singles_inactive", ev, {"iv": iv})], {
        "singles_both": both, "singles_alone": alone, "singles_ratio": both / alone,
        "singles_iv": f"{iv[0]:.2f}–{iv[1]:.2f}",
    }  # fmt: skip


def _control(ctl: Control):
    end = {k: float(L[-1]) for k, L in ctl.losses.items()}
    raw = {n: s[0][0] for (n, t), s in ctl.sv.items() if t == "raw targets Y"}
    faster = end["mixed"] < end["single"]
    return [("race_from_converged_common", end, {})], {
        "control_epochs": ctl.epochs,
        "control_verdict": "still faster" if faster else "not faster",
        "identity_gap": ctl.identity_gap, "control_single": end["single"],
        "control_mixed": end["mixed"],
        "s_raw_single": float(raw["1-of-3 (on in context 1)"]),
        "s_raw_mixed": float(raw["2-of-3 (off in context 1)"]),
    }  # fmt: skip


def _xor(alg: Algebra, xs: Simulated):
    gaps = {key: time_gap(xs.sim[key], xs.cf[key]) for key in xs.sim}
    sim, cf = float(np.nanmean(xs.cross_sim)), float(np.nanmean(xs.cross_cf))
    cf_max = float(max(gaps.values()))
    near, h = min(xs.eps, key=lambda e: abs(e - sim)), xs.halving
    lin, xor = ([h[near, k, s] for s in range(xs.seeds)] for k in ("linear", "xor"))
    return [
        ("crossover_eps", _exact(alg.eps_data, EPS_PAPER), {}),
        ("xor_closed_form_max_gap", Evidence(cf_max, criterion="gap"), {"xs": xs}),
        ("crossover_eps_closed_form", cf, {}),
    ], {
        "poly_root": alg.poly_root, "eps_data": alg.eps_data,
        "eps_formula": alg.eps_formula, "modes_ok": alg.modes_diff, "cf_max": cf_max,
        "cf_median": kit.med(list(gaps.values())), "cross_sim": sim, "cross_cf": cf,
        "cross_pred": xs.cross_pred, "a0_mean": xs.a0_mean,
        "cross_gap": cf - xs.cross_pred, "near_eps": f"{near:g}",
        "near_diff": kit.med([abs(a - b) / b for a, b in zip(lin, xor)]),
    }  # fmt: skip


#: The closing table's rows, in the page's order (their words: each record's
#: ``summary`` and ``summary_quote`` in proofs.toml).
ROWS = """lemma41_infeasible_2x2 implementable_patterns_full relu_unit_pattern_classes
interlacing_violations orthant_violations race_winner singles_inactive gap_mixed_relu
fastest_candidate race_from_converged_common crossover_eps xor_closed_form_max_gap
crossover_eps_closed_form""".split()


def report(rec, two: TwoByTwo, cen: Census, units: UnitCensus, il: Interlacing,
           dl: Deletions, race: Race, ctl: Control, alg: Algebra,
           xs: Simulated) -> str:  # fmt: skip
    """Write and save the page's records into ``rec`` and glue its numbers (Defined
    for the page book/proofs.md), from Lemma 4.1's (:mod:`.lemma`), Proposition 4.2's
    (:mod:`.interlacing`, :mod:`.race`) and Appendix C's (:mod:`.xor`) results.
    Returns the Markdown table of every claim."""
    parts = [_lemma(two, cen), _units(units), _deletions(il, dl), _race(race)]
    parts += [_singles(race), _control(ctl), _xor(alg, xs)]
    glued = {k: v for _, values in parts for k, v in values.items()}
    # a record's note reads the glued values, the best linear loss (not glued: no
    # page reads it), and the values given beside it
    said = glued | {"L_lin": race.L_lin}
    g = kit.add_all(rec, [(n, e, said | x) for rs, _ in parts for n, e, x in rs])
    glued["match_verdict"] = g["gap_mixed_relu"]["verdict"]
    kit.glue_many("proofs", glued)
    rec.save()
    rows = [(rulebook.claim(P, n), g[n]) for n in ROWS]
    return claims_table([(e["summary"], e["summary_quote"], x) for e, x in rows])
