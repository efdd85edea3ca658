"""The page More contexts than five (helpers.chapters.more_contexts)."""

import numpy as np
import pytest

import helpers as h
from helpers.chapters import more_contexts as ch
from helpers.chapters.more_contexts import races, tables
from helpers.chapters.more_contexts.report import reading


def _rows(table: str) -> list[list[str]]:
    """The cells of a Markdown table, row by row."""
    return [
        [c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()
    ]


def test_the_authors_settings_extend_by_the_nearest_C():
    assert ch.nearest_authors(2) == 1.0
    assert ch.nearest_authors(4) == pytest.approx(1.1)
    assert ch.nearest_authors(8) == pytest.approx(1.35)
    assert ch.nearest_authors(7, [700, 500, 600]) == 600


def test_race_class_shares_sum_to_one_and_count_the_common_pathway_as_C():
    ds = h.contextual_task(3)
    net = h.relns.k_of_c_reln(ds, [2, 1], width=20)
    pred = h.race.predict(net, ds.X, ds.Y, lr=0.01, epochs=50, record_epochs=[50])
    sh = races.race_class_shares(pred, 3)
    assert sh.shape == (4,) and sh.sum() == pytest.approx(1.0)
    assert sh[0] == 0 and sh[3] > 0


def test_class_curve_table_lists_each_C():
    txt = tables.class_curve_table({3: np.array([[0, 0.1, 0.6, 0.3]] * 2)}, {})
    assert ["3", "2/3 = 0.67", "0.600 (0.600-0.600)", "—"] in _rows(txt)


def test_race_loss_is_the_race_in_the_form_asked():
    ds = h.contextual_task(3)
    net = h.relns.k_of_c_reln(ds, [2], width=20)
    for form in ("matrix", "factors"):
        exact = h.race.predict(net, ds.X, ds.Y, lr=0.01, epochs=40, form=form).loss
        L, pred = races.race_loss(net, ds, lr=0.01, epochs=40, form=form, record=True)
        np.testing.assert_array_equal(L, exact)
        assert pred.record_epochs.tolist() == [40]
    with pytest.raises(ValueError, match="form"):
        races.race_loss(net, ds, lr=0.01, epochs=40, form="svd")


def test_the_family_holds_the_census_classes_the_paper_s_and_a_mixture():
    by_k = np.array([0, 0, 0.005, 0.3, 0.6, 0.095])  # C = 5
    fam = ch.family_for(5, by_k, 0.01)
    assert set(fam) == {"1-of-5", "3-of-5", "4-of-5", "5-of-5", "4+3-of-5"}
    assert set(ch.family_for(2, np.array([0, 0.5, 0.5]), 0.01)) == {"1-of-2", "2-of-2"}
    with pytest.raises(ValueError, match="C \\+ 1"):
        ch.family_for(5, by_k[:-1], 0.01)


def test_ties_are_the_candidates_within_the_spread_of_the_nearest():
    class M:
        candidates = {"a": 0.10, "b": 0.12, "c": 0.20}

    assert ch.tied_with_best(M, 0.03) == ["a", "b"]
    assert ch.tied_with_best(M, 0.0) == ["a"]


def test_the_reading_states_the_direction_against_the_seed_spread():
    frac = {3: np.array([[0, 0.70], [0, 0.71]]), 5: np.array([[0, 0.60], [0, 0.61]])}
    by_k = {
        3: np.array([[[0, 0.1, 0.6, 0.3]]] * 2),
        5: np.array([[[0, 0, 0.2, 0.5, 0.2, 0.1]]] * 2),
    }
    txt = reading(frac, by_k, {5: ["3-of-5"]}, {})
    assert txt.startswith(
        "From C = 3 to C = 5 the fraction of contexts a unit serves falls"
    )
    assert "most weight in 3-of-5 units" in txt and "not among the nearest" in txt


def test_a_reln_of_the_family_starts_matched_and_unpacks():
    ds = h.contextual_task(3)
    relu = h.relu_network((ds.X.shape[0], 20, ds.Y.shape[0]), 0.005 / 20)
    net, params0 = ch.reln(ds, [2], relu, 10)
    assert ch.reln(ds, [2], relu, 10)[0].pathway_names() == net.pathway_names()
    assert _rows(tables.settings_table([3], {3: ds}, {3: 20}, {3: 1}))[-1] == [
        "3",
        "24",
        "20",
        "1",
    ]
