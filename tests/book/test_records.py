import json

import numpy as np

from helpers.book.records import Records, claims_table, verdict


def test_records_roundtrip(tmp_path):
    rec = Records("demo", directory=tmp_path)
    r = rec.add("x", np.float32(1.23456789), paper=1.2, tolerance=0.1, note="n")
    rec.add("y", {"a": np.arange(2)}, note="dict")
    path = rec.save()
    data = json.loads(path.read_text())
    assert data["x"]["value"] == 1.23457 and data["x"]["verdict"] == "reproduced"
    assert data["y"]["value"] == {"a": [0, 1]} and data["y"]["verdict"] == "measured"
    assert "| c | p | 1.235 | 1.2 ± 0.1 | reproduced |" in claims_table([("c", "p", r)])
    assert verdict(2.0, 1.0, 0.5) == "not reproduced"
