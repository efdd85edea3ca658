"""The page *Proofs checked numerically* writes its records through
``helpers.chapters.proofs.report``: run the chapter's own science functions on a
shrunk configuration (2 contexts in the census, short trainings, few margins) into a
temporary directory, and check the records against the rulebook."""

import numpy as np
import pytest

import helpers as h
from helpers.book.records import Records
from helpers.chapters import proofs as ch
from tests.chapters.records_check import check_records

EPOCHS, LR = 1500, 0.01


@pytest.fixture(scope="module")
def parts():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    seeds = [0, 1]
    relu = h.train(
        h.relu_network((11, 40, 60), 0.005 / 40), ds.X, ds.Y, lr=LR, epochs=EPOCHS,
        seeds=seeds, record_epochs=[500, EPOCHS], record=("weights", "gates"),
    )  # fmt: skip
    rec = dict(record_epochs=[EPOCHS // 2, EPOCHS], record=("weights",))
    runs = {
        k: h.train(
            h.context_reln(ds, k), ds.X, ds.Y, lr=LR, epochs=EPOCHS, seeds=seeds, **rec
        )
        for k in ch.NAMES
    }
    eps = [0.4, 0.8, 1.5]
    return dict(
        two=ch.two_by_two([1.0, -1.0, 2.0, 0.0]),
        cen=ch.census(2, 5, np.random.default_rng(0)),
        units=ch.unit_classes(relu, [500, EPOCHS]),
        il=ch.interlacing_checks(ds, 5, 1, 0),
        dl=ch.deletion_checks(5, 0, {"section 4 task": ds}),
        race=ch.race_measures(ds, relu.loss, runs, EPOCHS // 2, "one-way"),
        ctl=ch.control_race(ds, "one-way", LR, 100),
        alg=ch.crossover_algebra(eps),
        xs=ch.simulate(eps, 8, 1e-3, 0.005, 3000, 2),
    )


def test_report_writes_every_record_as_the_rulebook_decides(parts, tmp_path):
    rec = Records("proofs", directory=tmp_path)
    summary = ch.report(rec, **parts)
    assert (tmp_path / "proofs.json").exists()
    check_records("proofs", rec.items)
    items = rec.items
    assert items["lemma41_infeasible_2x2"]["value"] == 2
    assert items["lemma41_infeasible_2x2"]["verdict"] == "check"
    # 8 items in 2 contexts: nested pairs of on-sets, 2 * 3^8 - 2^8
    full = parts["cen"].full
    assert full["implementable"] == full["formula"] == 2 * 3**8 - 2**8
    both = full["both"] - full["single_datapoint"]
    assert items["implementable_patterns_full"]["value"] == both > 0
    note = items["implementable_patterns_full"]["note"]
    assert note.startswith("False as written")
    assert "on at (o1, c1), (o2, c1), (o1, c2), off at (o2, c2)" in note
    assert "not a single-datapoint one" in note
    assert items["interlacing_violations"]["value"] == 0
    assert items["orthant_violations"]["value"] == 0
    assert items["interlacing_cases"]["value"] == len(parts["il"].random) + len(
        parts["il"].task
    )
    cls = items["relu_unit_pattern_classes"]["value"]
    assert cls["non_nested_units"] == 0
    assert sum(cls[k] for k in ch.CLASSES) == pytest.approx(1.0)
    assert items["race_winner"]["value"] == "mixed"
    assert items["crossover_eps"]["value"] == pytest.approx(np.sqrt(2 / 3))
    assert items["xor_closed_form_max_gap"]["value"] < 0.1
    assert 0.6 < items["crossover_eps_closed_form"]["value"] < 1.5
    assert "App. C: crossover at eps* = sqrt(2/3)" in summary
    assert summary.count("\n| Lemma 4.1") == 3


def test_the_pages_tables(parts):
    p = parts
    assert "of which single-datapoint" in ch.tables.full_counts(p["cen"].full, 2)
    assert "orthogonal to all" in ch.tables.edge(ch.edge_cases())
    race = ch.tables.race(p["race"])
    assert "ReLU network" in race and f"{p['race'].family.value:.3f}" in race
    assert "residual R" in ch.tables.strategies(p["ctl"].sv)
    assert "0.8165" in ch.tables.a0({1e-3: 0.94})
