import json

import numpy as np

from helpers.analysis import curve_distance, gating_census, halfway_time, stereotype_index
from helpers.records import Records, claims_table, verdict


def test_records_roundtrip(tmp_path):
    rec = Records("demo", directory=tmp_path)
    r = rec.add("x", np.float32(1.23456789), paper=1.2, tolerance=0.1, note="n")
    rec.add("y", {"a": np.arange(2)}, note="dict")
    path = rec.save()
    data = json.loads(path.read_text())
    assert data["x"]["value"] == 1.23457 and data["x"]["verdict"] == "reproduced"
    assert data["y"]["value"] == {"a": [0, 1]} and data["y"]["verdict"] == "measured"
    assert "| 1.235 (tolerance 0.1) | reproduced |" in claims_table([("c", "p", r)])
    assert verdict(2.0, 1.0, 0.5) == "not reproduced"


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
