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


def test_ties_are_within_the_rulebook_s_multiple_of_the_larger_spread():
    gaps = {"a": 0.10, "b": 0.12, "c": 0.20}
    # 2 x 0.015 = 0.03 covers b (+0.02), not c (+0.10); 1 x would also drop b at 0.015
    assert ch.tied_with_best(gaps, dict.fromkeys(gaps, 0.015)) == ["a", "b"]
    assert ch.tied_with_best(gaps, dict.fromkeys(gaps, 0.009)) == ["a"]
    # the larger of the two spreads is the yardstick: c's own spread of 0.05 ties it
    assert ch.tied_with_best(gaps, {"a": 0.0, "b": 0.0, "c": 0.05}) == ["a", "c"]


def test_a_fixed_common_pathway_keeps_its_units_and_shares_the_rest():
    from helpers.core.families import member_widths

    # C = 6, 600 units: 4-of-6 has 16 pathways, 5-of-6 has 7 (the review's numbers)
    assert member_widths((4,), 6, 600, 100) == (38, 38)
    assert member_widths((4,), 6, 600, 100, common="fixed") == (100, 33)
    assert member_widths((5,), 6, 600, 100, common="fixed") == (100, 83)
    assert member_widths((5,), 7, 600, 100) == (27, 27)
    assert member_widths((5,), 7, 600, 100, "per_pathway", "fixed") == (100, 100)
    with pytest.raises(ValueError, match="common"):
        member_widths((5,), 7, 600, 100, common="half")
    ds = h.contextual_task(3)
    net = h.relns.k_of_c_reln(ds, [2], width=7, common_width=11)
    L = net.layers[0]
    assert {n: sl.stop - sl.start for n, sl in L.pathways}["common"] == 11
    assert L.width == 11 + 3 * 7


def test_a_family_fit_trains_the_paper_s_and_the_two_nearest_per_seed():
    ds = h.contextual_task(3)
    relu = h.relu_network((ds.X.shape[0], 12, ds.Y.shape[0]), 0.005 / 12)
    run = h.train(relu, ds.X, ds.Y, lr=0.01, epochs=600, seeds=[0, 1, 2])
    family = ch.family_for(3, np.array([0, 0.2, 0.5, 0.3]), 0.01)
    kw = dict(lr=0.01, epochs=600, form="factors")
    raced = ch.family_fit(ds, family, (relu, run.loss), 12, 3, "total", **kw)
    assert raced.trained == () and raced.follows == {}
    assert raced.gaps == raced.race
    fit = ch.family_fit(
        ds, family, (relu, run.loss), 12, 3, "total", "equal", [0, 1, 2], **kw
    )
    near = sorted(fit.race, key=fit.race.get)[:2]
    assert set(fit.trained) == {"2-of-3", *near}
    assert set(fit.follows) == set(fit.trained)
    for n in family:
        assert fit.spreads[n] >= fit.relu_spread
        if n not in fit.trained:
            assert fit.spreads[n] == fit.relu_spread  # a race has no seed noise
    assert fit.gaps["3-of-3"] == pytest.approx(fit.race["3-of-3"])  # raced, not trained
    assert fit.gaps["1-of-3"] != pytest.approx(fit.race["1-of-3"], abs=1e-3)
    assert fit.ties == ch.tied_with_best(fit.gaps, fit.spreads)


def test_the_reading_states_the_direction_against_the_seed_spread():
    frac = {3: np.array([[0, 0.70], [0, 0.71]]), 5: np.array([[0, 0.60], [0, 0.61]])}
    by_k = {
        3: np.array([[[0, 0.1, 0.6, 0.3]]] * 2),
        5: np.array([[[0, 0, 0.2, 0.5, 0.2, 0.1]]] * 2),
    }
    txt = reading(frac, by_k, {5: ["4-of-5", "3-of-5"]}, {})
    assert txt.startswith(
        "From C = 3 to C = 5 the fraction of contexts a unit serves falls"
    )
    assert "most weight in 3-of-5 units" in txt and "the paper's ReLN is among" in txt
    assert (
        "the census's heaviest class 3-of-5 is not the nearest ReLN by loss, but" in txt
    )
    txt = reading(frac, by_k, {5: ["2-of-5"]}, {})
    assert "nearest ReLN by loss 2-of-5, none tied with it" in txt
    assert "3-of-5 is not the nearest ReLN by loss and not tied with it" in txt
    assert "not among the tied" in txt


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
