"""A record whose value is a dict that gains or loses a key between executions (a
class that is present on one machine only) keeps a floor for the numbers every
execution has: another machine's values move within it without drifting, and since
0.16.0 a key it was seen to drop may be absent.  Before 0.15.0 such a dict had only
its whole forms as a floor, so any new value drifted (``more_contexts.best_reln`` on
an AMD EPYC without AVX-512)."""

from helpers.book import drift, rounding


def _rec(value):
    return {"value": value, "spread": 0.01, "verdict": "finding"}


RUNS = {
    "a": {"c": {"x": _rec({"C5": {"1-of-5": 0.8110, "4-of-5": 0.09657}})}},
    "b": {"c": {"x": _rec({"C5": {"1-of-5": 0.8111, "4-of-5": 0.09642}})}},
    "c": {
        "c": {"x": _rec({"C5": {"2-of-5": 0.39, "1-of-5": 0.8110, "4-of-5": 0.09657}})}
    },
}


def test_a_dict_whose_keys_vary_keeps_its_common_numbers_floors():
    f = rounding.measure(RUNS)["c"]["x"]
    assert set(f["seen"]) == {"value/C5"}
    assert f["tolerance"]["value/C5/4-of-5"] == 0.00015
    assert f["tolerance"]["value/C5/1-of-5"] == 0.0001
    assert "value/C5/2-of-5" not in f["tolerance"]


def test_a_new_value_within_the_floor_of_such_a_dict_is_not_drift(monkeypatch):
    floor = {"c": {"x": rounding.measure(RUNS)["c"]["x"]}}
    monkeypatch.setattr(rounding, "floors", lambda: {"records": floor})
    old = {"c": {"x": RUNS["c"]["c"]["x"]}}
    near = {"C5": {"2-of-5": 0.39, "1-of-5": 0.8110, "4-of-5": 0.09660}}
    assert drift.compare(old, {"c": {"x": _rec(near)}}) == []
    far = {"C5": {"2-of-5": 0.39, "1-of-5": 0.8110, "4-of-5": 0.0980}}
    assert [d.field for d in drift.compare(old, {"c": {"x": _rec(far)}})] == ["value"]
    # a key the committed value lacks, or a moved number no floor covers, drifts
    other = {"C5": {"2-of-5": 0.40, "1-of-5": 0.8110, "4-of-5": 0.09657}}
    assert [d.field for d in drift.compare(old, {"c": {"x": _rec(other)}})] == ["value"]


def test_a_key_rounding_was_seen_to_drop_may_be_absent(monkeypatch):
    """The committed value holds ``2-of-5``; an execution on another CPU may lack it
    (one stored execution did), but not a key every execution has, nor a new one."""
    floor = {"c": {"x": rounding.measure(RUNS)["c"]["x"]}}
    monkeypatch.setattr(rounding, "floors", lambda: {"records": floor})
    old = {"c": {"x": RUNS["c"]["c"]["x"]}}
    without = {"C5": {"1-of-5": 0.8110, "4-of-5": 0.09650}}
    assert drift.compare(old, {"c": {"x": _rec(without)}}) == []
    moved = {"C5": {"1-of-5": 0.8110, "4-of-5": 0.0980}}
    assert [d.field for d in drift.compare(old, {"c": {"x": _rec(moved)}})] == ["value"]
    lost = {"C5": {"2-of-5": 0.39, "4-of-5": 0.09650}}
    assert [d.field for d in drift.compare(old, {"c": {"x": _rec(lost)}})] == ["value"]
    new = {"C5": {"3-of-5": 0.1, "1-of-5": 0.8110, "4-of-5": 0.09650}}
    assert [d.field for d in drift.compare(old, {"c": {"x": _rec(new)}})] == ["value"]
