"""The page *Proofs checked numerically* writes its records through
``helpers.chapters.proofs.report``: run it on a small results object (exact
computations where they are cheap, synthetic loss curves for the trainings) into a
temporary directory, and check the records against the rulebook."""

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

import helpers as h
from helpers.book import rulebook
from helpers.book.records import Records
from helpers.chapters import proofs as ch
from helpers.core.measures import Evidence


def _curves(rates, T=400, L0=10.0):
    t = np.arange(T + 1)
    return np.array([L0 * np.exp(-r * t) + 1e-3 for r in rates])


@pytest.fixture(scope="module")
def results():
    X22 = ch.item_context_input(2, 2)
    patterns22 = np.array(list(itertools.product([0, 1], repeat=4)))
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    relu = _curves([0.020, 0.021, 0.019, 0.0205])
    losses = {
        "single": _curves([0.010, 0.011, 0.009, 0.0105]),
        "mixed": _curves([0.019, 0.020, 0.018, 0.0195]),
        "both": _curves([0.0195, 0.0205, 0.0185, 0.02]),
    }
    names = {"single": "1-of-3", "mixed": "2-of-3", "both": "both"}
    L_lin = 2.0
    curves = {**losses, "relu": relu}
    t_seed = {
        k: np.array([ch.context_learning_time(L, L_lin) for L in c])
        for k, c in curves.items()
    }
    family = h.measures.match(
        relu, losses["mixed"], name=names["mixed"], competitors={"1": losses["single"]}
    )
    sv, identity_gap = ch.strategy_datasets(ds)
    eps_list, seeds = [0.5, 1.0], [0, 1]
    xor_sim = {
        (e, k, s): _curves([0.01 * (1 + e if k == "linear" else 2 - e)])[0]
        for e in eps_list
        for k in ("linear", "xor")
        for s in seeds
    }
    halving = {k: h.learning_time_from_curve(L, 0.5) for k, L in xor_sim.items()}
    full = ch.enumerate_patterns(4, 2)
    shares = {k: 0.25 for k in ch.CLASSES}
    w_witness = np.array([1.0, -1.0, 2.0, 0.0])
    return SimpleNamespace(
        w_witness=w_witness,
        g_witness=(w_witness @ X22 > 0).astype(int),
        patterns22=patterns22,
        lp22=[ch.unit_pattern_lp(X22, g) for g in patterns22],
        strict22=ch.lp_feasible_patterns(X22, patterns22, strict_off=True),
        certs22=[ch.farkas_certificate(X22, g) for g in patterns22],
        full=full,
        n_contexts=2,
        counts_by_C={1: 16, 2: ch.count_nested(4, 2)},
        lp33=np.array([True, False]),
        nested33=np.array([True, False]),
        sample=np.zeros((2, 8), int),
        lp_sample_feasible=np.array([True, False]),
        crit_sample=np.array([True, False]),
        witness_ok=True,
        unit_shares={100: shares, 400: shares},
        non_nested=0,
        relu_epochs=[100, 400],
        epochs=400,
        lr=1e-3,
        random_cases=ch.random_interlacing_cases(5, 0),
        task_cases=ch.task_interlacing_cases(ds, 0, 0),
        nonneg=ch.random_deletion_cases(5, 0),
        signed=ch.random_deletion_cases(5, 1, signed=True),
        task_eff={"section 4 task": ch.deletion_effects(ds.X, ds.Y)},
        orthant_datasets=5,
        NAMES=names,
        L_lin=L_lin,
        relu_loss=relu,
        losses=losses,
        t_seed=t_seed,
        family=family,
        gap_both=0.05,
        norms_both=np.array([0.4, 0.5, 0.45, 0.48]),
        norms_alone=np.array([5.0, 5.2, 4.9, 5.1]),
        norms_mid=(np.array([0.2, 0.3, 0.25, 0.2]), np.array([4.0, 4.1, 3.9, 4.2])),
        mid=200,
        reln_coupling="one-way",
        control={"single": np.array([9.0, 7.7]), "mixed": np.array([9.0, 8.4])},
        control_epochs=1,
        sv=sv,
        identity_gap=identity_gap,
        poly_root=float(np.sqrt(2 / 3)),
        eps_speed_data=float(np.sqrt(2 / 3)),
        eps_speed_formula=float(np.sqrt(2 / 3)),
        EPS_PAPER=float(np.sqrt(2 / 3)),
        modes_ok=0.0,
        xor_sim=xor_sim,
        xor_cf=xor_sim,
        xor_a0={},
        halving=halving,
        halving_cf=halving,
        cross_sim=np.array([0.8, 0.9]),
        cross_cf=np.array([0.85, 0.9]),
        a0_mean=1e-3,
        cross_pred=0.9,
        xor_eps=eps_list,
        xor_seeds=2,
        xor_width=4,
        xor_init_std=1e-3,
        xor_lr=0.005,
    )


def test_report_writes_every_record_as_the_rulebook_decides(results, tmp_path):
    rec = Records("proofs", directory=tmp_path)
    tables = ch.report(rec, results)
    assert (tmp_path / "proofs.json").exists()
    claims = rulebook.registry()["proofs"]
    assert set(rec.items) == set(claims)
    for name, r in rec.items.items():
        claim = claims[name]
        ev = Evidence.from_record(r)
        assert r["verdict"] == rulebook.decide(claim, ev).verdict, name
        if claim["kind"] == "paper":
            assert set(claim["choices"]) <= set(r["variants"]), name
            assert isinstance(r["depends_on"], list), name
    items = rec.items
    assert items["lemma41_infeasible_2x2"]["value"] == 2
    assert items["lemma41_infeasible_2x2"]["verdict"] == "check"
    full = results.full
    assert items["implementable_patterns_full"]["value"] == (
        full["both"] - full["single_datapoint"]
    )
    note = items["implementable_patterns_full"]["note"]
    assert note.startswith("False as written")
    assert "on at (o1, c1), (o2, c1), (o1, c2), off at (o2, c2)" in note
    assert "not a single-datapoint one" in note
    assert items["interlacing_violations"]["verdict"] == "check"
    assert items["orthant_violations"]["verdict"] == "check"
    assert items["race_winner"]["value"] == "mixed"
    assert items["singles_inactive"]["verdict"] == "reproduced"
    assert "check" in tables["summary"] and "race_winner" in tables["headline"]


def test_the_pages_tables(results):
    r = results
    assert "of which single-datapoint" in ch.tables.full_counts(r.full, 2)
    assert "orthogonal to all" in ch.tables.edge(ch.edge_cases())
    gaps = {"single": 0.3, "mixed": 0.07, "both": 0.06}
    race = ch.tables.race(r.NAMES, r.t_seed, r.losses, r.relu_loss, gaps, 0.02)
    assert "ReLU network" in race and "0.070" in race
    assert "residual R" in ch.tables.strategies(r.sv)
    assert "0.8165" in ch.tables.a0({1e-3: 0.94}, float(np.sqrt(2 / 3)))
