"""Records: what a chapter writes, and that only the rulebook decides a verdict."""

import json

import numpy as np
import pytest

from helpers.book import rulebook
from helpers.book.records import Records, claims_table


@pytest.fixture
def registered(monkeypatch):
    entries = {
        "demo": {
            "x": {
                "where": "Sec. 1",
                "group": "Section 2",
                "claim": "c",
                "quote": "q",
                "measure": "m",
                "kind": "paper",
                "provenance": "paper",
            },
            "y": {
                "where": "Sec. 1",
                "group": "Section 2",
                "claim": "d",
                "quote": "",
                "measure": "m",
                "kind": "measured",
                "provenance": "none",
            },
        }
    }
    monkeypatch.setattr(rulebook, "_registry", lambda: entries)


def test_records_roundtrip(tmp_path, registered):
    rec = Records("demo", directory=tmp_path)
    r = rec.add(
        "x",
        np.float32(0.05),
        spread=np.float64(0.03),
        alternative=0.4,
        criterion="seed_noise",
        note="n",
    )
    rec.add("y", {"a": np.arange(2)}, note="dict")
    data = json.loads(rec.save().read_text())
    assert data["x"]["value"] == 0.05 and data["x"]["verdict"] == "reproduced"
    assert data["x"]["claim"] == "c" and data["x"]["provenance"] == "paper"
    assert data["y"]["value"] == {"a": [0, 1]} and data["y"]["verdict"] == "measured"
    row = claims_table([("c", "p", r)])
    assert "0.05 (seed spread 0.03)" in row and "reproduced: gap 0.05" in row


def test_unregistered_records_are_refused_unless_timed(tmp_path, registered):
    rec = Records("demo", directory=tmp_path)
    with pytest.raises(ValueError, match="not registered"):
        rec.add("z", 1.0)
    assert (
        rec.add("t", 530.0, timing=True, target=("<=", 600))["verdict"] == "target met"
    )
    assert (
        rec.add("u", 0.4, timing=True, target=(">=", 0.55))["verdict"]
        == "target missed"
    )


def test_a_match_is_recorded_as_its_fields(tmp_path, registered):
    from helpers.core.measures import Match

    m = Match(0.3, 0.1, 0.9, (0.3, 0.3), censored=False)
    by_match = Records("demo", directory=tmp_path).add("x", m, note="n")
    by_fields = Records("demo", directory=tmp_path).add(
        "x", m.value, **m.record(), note="n"
    )
    assert by_match == by_fields
    assert by_match["verdict"] == "partly reproduced"
    assert rulebook.verdict(m) == by_match["verdict"]
    # the call overrides the match's criterion (and keeps its spread)
    beyond = Records("demo", directory=tmp_path).add("x", m, criterion="beyond_noise")
    assert beyond["criterion"] == "beyond_noise" and beyond["spread"] == 0.1
    assert rulebook.verdict(m, kind="finding", provenance="none") == "finding"
    censored = Match(0.01, 0.1, None, (0.01,), censored=True)
    assert rulebook.verdict(censored) == "not reproduced"
    assert rulebook.verdict(m, criterion="near", compared=0.25) == "reproduced"
