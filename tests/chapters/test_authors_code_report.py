"""The records of the page *Against the authors' code* come from one call,
``helpers.chapters.authors_code.report``: run here on the stored curves of the
authors' scripts, with the engine's side stood in for by the same curves in another
seed order (no training), into a scratch folder."""

import json

import numpy as np
import pytest

from helpers.book import crosscheck, rulebook
from helpers.book.records import Records
from helpers.chapters import authors_code as ch
from helpers.core.measures import Evidence


@pytest.fixture(scope="module")
def results():
    runs = {}
    for name in ch.EXPERIMENTS:
        theirs, seeds = ch.stored(name, 4)
        ours = {k: np.roll(c, 1, axis=0) for k, c in theirs.items()}
        runs[name] = ch.Run(
            ch.setup(name), theirs, ours, seeds, ch.compare(name, theirs, ours)
        )
    return ch.Results(runs, ch.conventions(runs), crosscheck.manifest())


@pytest.fixture(scope="module")
def written(results, tmp_path_factory):
    rec = Records("authors_code", directory=tmp_path_factory.mktemp("records"))
    tables = ch.report(rec, results)
    return rec, tables, json.loads((rec.directory / "authors_code.json").read_text())


def test_every_registered_record_is_written(written):
    _, _, stored = written
    assert set(stored) == set(rulebook.registry()["authors_code"])


def test_the_verdicts_are_the_rulebooks(written):
    _, _, stored = written
    for name, r in stored.items():
        again = rulebook.decide(r, Evidence.from_record(r))
        assert r["verdict"] == again.verdict, name
        assert r["figure"] == "fig-authors-code-loss", name
        assert isinstance(r["value"], float) and r["spread"] > 0, name


def test_the_numbers_are_the_comparisons(results, written):
    _, _, stored = written
    for name, run in results.runs.items():
        c = run.comparison
        relu, rg = stored[f"relu_{name}"], stored[f"relu_gdln_{name}"]
        assert relu["value"] == pytest.approx(c.gap, rel=1e-5)
        assert relu["spread"] == pytest.approx(
            min(c.spread_theirs, c.spread_ours), rel=1e-5
        )
        assert rg["paper"] == pytest.approx(np.median(c.rg_theirs), rel=1e-5)
        assert rg["criterion"] == "near" and relu["criterion"] == "seed_noise"
        assert f"seed spreads {c.spread_theirs:.4f} (scripts)" in relu["note"]
        assert "lag_percent" in relu


def test_the_tables_and_the_spread_paragraph(results, written):
    rec, tables, _ = written
    assert set(tables) == {"runs", "conventions", "headline", "claims", "closing"}
    assert tables["closing"].startswith(f"**{len(rec.items)} of {len(rec.items)}")
    for name in results.runs:
        assert results.title(name) in tables["headline"]
    r = results.runs["section4"]
    D = ch.gap_matrix(r.ours["relu"])
    check = ch.SpreadCheck(
        list(r.seeds), 3, ch.subset_spreads(D, 3), ch.spread(r.ours["relu"]), 0.01
    )
    text = ch.spread_text("Section 4", r.comparison, check)
    assert text.startswith("**Section 4.** Over its first 3 seeds")


def test_check_parameters_refuses_unknown_experiments():
    ch.check_parameters(["section4", "depth"], "depth")
    with pytest.raises(ValueError, match="unknown experiments"):
        ch.check_parameters(["section7"], "section7")
    with pytest.raises(ValueError, match="spread_check"):
        ch.check_parameters(["section4"], "depth")
