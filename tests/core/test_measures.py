import numpy as np

from helpers.core.measures import curve_distance, gating_census, halfway_time, stereotype_index


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
    gates = np.array([[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]])
    W1 = np.ones((4, 2))
    W2 = np.ones((3, 4))
    c = gating_census(gates, W1, W2, contexts, 3)
    assert c["common"] == 0.25 and c["mixed"] == 0.25 and c["single"] == 0.5
    assert c["item_dependent"] == 0.25
