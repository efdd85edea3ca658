"""The page More contexts than five (helpers.chapters.more_contexts)."""

import numpy as np
import pytest

import helpers as h
from helpers.chapters import more_contexts as ch


def test_the_authors_settings_extend_by_the_nearest_C():
    assert ch.nearest_authors(2) == 1.0
    assert ch.nearest_authors(4) == pytest.approx(1.1)
    assert ch.nearest_authors(8) == pytest.approx(1.35)
    assert ch.nearest_authors(7, [700, 500, 600]) == 600


def test_race_class_shares_sum_to_one_and_count_the_common_pathway_as_C():
    ds = h.contextual_task(3)
    net = h.relns.k_of_c_reln(ds, [2, 1], width=20)
    pred = h.race.predict(net, ds.X, ds.Y, lr=0.01, epochs=50, record_epochs=[50])
    sh = ch.race_class_shares(pred, 3)
    assert sh.shape == (4,) and sh.sum() == pytest.approx(1.0)
    assert sh[0] == 0 and sh[3] > 0


def test_class_curve_table_lists_each_C():
    txt = ch.class_curve_table({3: np.array([[0, 0.1, 0.6, 0.3]] * 2)}, {})
    assert "| 3 | 2/3" in txt
