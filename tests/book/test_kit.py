"""The report kit (helpers.book.kit): one way to write tables, medians and notes."""

import numpy as np
import pytest

from helpers.book import kit, rulebook


def test_a_table_formats_floats_as_asked_and_leaves_text_alone():
    rows = [["a", 1.23456, np.float32(0.5)], ["1e-3", 2, 0.25]]
    text = kit.table(rows, ["x", "y", "z"], floatfmt=[None, ".2f", ".0%"])
    assert text.splitlines()[2] == "| a    | 1.23 | 50% |"
    assert "| 1e-3 | 2    | 25% |" in text  # a string stays a string
    assert "1.23456" in kit.table(rows, ["x", "y", "z"])  # no format: as str writes it
    assert kit.table(rows, "x | y | z") == kit.table(rows, ["x", "y", "z"])


def test_one_median_in_the_values_own_precision():
    assert kit.med([3, 1, 2]) == 2.0 and isinstance(kit.med(np.arange(4)), float)
    x = np.array([0.1, 0.7], np.float32)  # the copies it replaced: float(np.median(x))
    assert kit.med(x) == float(np.median(x)) == float(np.float32(0.1) / 2 + x[1] / 2)


def test_a_note_is_its_template_filled_and_names_a_missing_value(monkeypatch):
    entry = {"template": "median over {n} seeds, gap {gap:.2f}", "note": "fixed"}
    monkeypatch.setattr(rulebook, "claim", lambda chapter, name: entry)
    assert kit.note("x", "y", n=4, gap=0.123) == "median over 4 seeds, gap 0.12"
    with pytest.raises(KeyError, match="x.y: the note needs the value 'gap'"):
        kit.note("x", "y", n=4)


def test_records_given_values_get_their_filled_template(monkeypatch):
    entry = {"template": "{n} seeds"}
    monkeypatch.setattr(rulebook, "claim", lambda chapter, name: entry)
    added = []

    class Rec:
        chapter = "x"

        def add(self, name, evidence, note=""):
            added.append((name, evidence, note))
            return note

    out = kit.add_all(Rec(), [("a", 1.0, {"n": 3}), ("b", 2.0), ("c", 3.0, "said")])
    assert out == {"a": "3 seeds", "b": "", "c": "said"}


def test_a_record_whose_table_names_its_function_is_measured_by_it(monkeypatch):
    """``evidence = "module:function"`` in a record's table: the report adds the record
    from that science function (a new claim needs no line of the report)."""
    table = {"a": {"evidence": "measures:eps_star_record"}, "b": {}}
    monkeypatch.setattr(rulebook, "registry", lambda: {"xor": table})
    from helpers.chapters.xor import measures

    monkeypatch.setattr(measures, "eps_star_record", lambda main: (main, {"n": 1}))
    assert kit.registered("xor", 0.5) == [("a", 0.5, {"n": 1})]
    assert kit.registered("lag", 0.5) == []


def test_a_sentence_is_its_prose_template_filled(monkeypatch):
    from helpers.book import chapter_data

    data = {"prose": {"gap": "a gap of {g:.1f} epochs"}, "x": {"claim": "c"}}
    monkeypatch.setattr(chapter_data, "data", lambda chapter: data)
    assert kit.prose("x", "gap", g=2.26) == "a gap of 2.3 epochs"
    with pytest.raises(KeyError, match="no \\[prose\\] 'other'"):
        kit.prose("x", "other")
    with pytest.raises(KeyError, match="x.prose.gap: needs the value 'g'"):
        kit.prose("x", "gap")
