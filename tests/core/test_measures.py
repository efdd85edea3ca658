import numpy as np
import pytest

from helpers.core import measures
from helpers.core.measures import (
    curve_distance,
    gating_census,
    halfway_time,
    output_gap,
    stereotype_index,
)


def test_curve_distance_definition():
    La = np.array([10.0, 1.0, 0.001])
    Lb = np.array([10.0, 2.0, 0.0001])
    # floor 0.01: last entries both floored
    assert curve_distance(La, Lb) == np.log(2) / 3
    assert curve_distance(La, La) == 0


def test_halfway_and_stereotype():
    assert halfway_time([10, 9, 6, 5, 1, 0]) == 3
    curves = np.array([[3.0, 2, 1], [3.0, 2.2, 1.1], [3.0, 1.0, 0.2]])
    assert stereotype_index(curves) == 0


def test_gating_census_classes():
    contexts = np.repeat(np.arange(3), 2)
    gates = np.array(
        [[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]]
    )
    W1 = np.ones((4, 2))
    W2 = np.ones((3, 4))
    c = gating_census(gates, W1, W2, contexts, 3)
    assert c["common"] == 0.25 and c["mixed"] == 0.25 and c["single"] == 0.5
    assert c["item_dependent"] == 0.25


def test_time_gap_does_not_depend_on_run_length_and_seed_spread_is_pairwise():
    from helpers.core import measures

    t = np.arange(4000)
    a = 100 / (1 + np.exp((t - 800) / 60)) + 0.01
    b = 100 / (1 + np.exp((t - 880) / 60)) + 0.01
    g = measures.time_gap(a, b)
    assert g == pytest.approx(np.log(880 / 800), rel=0.05)
    assert measures.time_gap(a[:1500], b[:1500]) == pytest.approx(g)
    assert measures.time_gap(a, b) == pytest.approx(measures.time_gap(b, a))
    # a level one curve never reaches counts at the run's end (a lower bound)
    flat = np.full(4000, 100.0) - np.linspace(0, 60, 4000)
    assert measures.time_gap(a, flat) >= np.log(3999 / measures.level_times(a)[1])
    assert measures.seed_spread([1.0, 2.0, 4.0]) == 2.0
    m = measures.match([a, b], [b, a], alternative=[flat, flat])
    assert m.value == pytest.approx(g) and m.spread == pytest.approx(g)
    assert m.record()["criterion"] == "seed_noise"
    with pytest.raises(ValueError, match="2 reference seeds"):
        measures.match([a], [b])


def test_functional_census_of_units_built_to_be_contextual():
    import helpers as h
    from helpers.core import measures

    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    # unit 0: on everywhere (item weights 1); unit 1: off in context 3; unit 2: context
    # 2 only
    W1 = np.zeros((3, 11))
    W1[0, :8] = 1.0
    W1[1, :8], W1[1, 10] = 1.0, -5.0
    W1[2, :8], W1[2, 8], W1[2, 10] = 1.0, -5.0, -5.0
    W2 = np.ones((60, 3))
    fc = measures.functional_census(W1, W2, ds.X, ds.contexts, 3)
    assert fc["snap_change"] == pytest.approx(0.0, abs=1e-12)  # already context-level
    assert fc["common"] > fc["mixed"] > fc["single"] > 0 and fc["other"] == 0
    assert fc["common"] + fc["mixed"] + fc["single"] + fc["other"] == pytest.approx(1.0)
    G = measures.snap_to_contexts(
        np.array([[1, 1, 0, 0, 0, 0]]), np.array([0, 0, 0, 1, 1, 1]), 2, threshold=0.5
    )
    np.testing.assert_array_equal(G, [[1, 1, 1, 0, 0, 0]])


def test_output_gap_is_relative_to_the_reference_over_all_pairs():
    A = [np.ones((2, 2)), 2 * np.ones((2, 2)), None]
    assert output_gap(A).tolist() == [1.0]  # ||1 - 2|| / ||1||, the pair (0, 1)
    assert output_gap(A[:1], [2 * np.ones((2, 2)), None]).tolist() == [1.0]
    # every reference run against every candidate run, reference first
    g = output_gap(A[:2], [3 * np.ones((2, 2))])
    assert g.tolist() == [2.0, 0.5]
    assert output_gap(A[:1]).size == 0


def test_ratio_interval_brackets_the_ratio_of_medians():
    rng = np.random.default_rng(1)
    a, b = rng.normal(1.0, 0.1, 12), rng.normal(4.0, 0.2, 12)
    lo, hi = measures.ratio_interval(a, b)
    assert lo <= np.median(a) / np.median(b) <= hi and hi - lo < 0.2
    assert measures.ratio_interval(a, b) == (lo, hi)  # a fixed seed: reproducible
    lo2, hi2 = measures.ratio_interval(a, b[:6], paired=False)
    assert lo2 <= hi2
    with pytest.raises(ValueError):
        measures.ratio_interval(a, b[:6])  # paired sides of unequal seeds
    with pytest.raises(ValueError):
        measures.ratio_interval(a, np.zeros(12))  # nothing to compare with
