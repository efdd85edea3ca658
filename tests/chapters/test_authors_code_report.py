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
from helpers.chapters.authors_code import comparison, run_for_run
from helpers.core.measures import Evidence


@pytest.fixture(scope="module")
def results():
    runs = {}
    for name in ch.EXPERIMENTS:
        theirs, seeds = ch.stored(name, 4)
        ours = {k: np.roll(c, 1, axis=0) for k, c in theirs.items()}
        runs[name] = ch.Run(
            ch.setup(name), theirs, ours, seeds, comparison.compare(name, theirs, ours)
        )
    same = _same_start_stand_in()
    return ch.Results(runs, crosscheck.manifest(), same, _slower(same["section4"]))


def _rescaled(A, factor):
    """The curves ``A`` (``(seeds, epochs)``, the loss after update ``e + 1`` at
    ``e``) run ``factor`` times slower: each resampled at ``t / factor`` updates,
    log-linearly between epochs (a step size ``1 / factor`` of the script's)."""
    T = A.shape[1]
    t = (np.arange(T) + 1.0) / factor
    return np.exp(np.stack([np.interp(t, np.arange(T) + 1.0, np.log(a)) for a in A]))


def _slower(r, factor=1.05):
    """A time-rescaled engine: :class:`SameStart` ``r``'s scripts' curves against
    themselves run 5 % slower (a step size 5 % off)."""
    return run_for_run.compare_same_start(
        r.name, r.seeds, r.theirs, _rescaled(r.theirs, factor)
    )


def _same_start_stand_in():
    """Run for run without training: the engine's side is the scripts' curve, equal for
    a third of the run and then off by a relative error that grows from 1e-6 by
    a factor 10 every sixth of the run (so it passes SAME_START_TOL)."""
    out = {}
    for name in ch.EXPERIMENTS:
        theirs, seeds = ch.stored(name, 2)
        A = theirs["relu"]
        T = A.shape[1]
        t = np.arange(T)
        err = np.where(t < T // 3, 0.0, 1e-6 * 10.0 ** ((t - T // 3) / (T / 6)))
        out[name] = run_for_run.compare_same_start(name, seeds, A, A * (1 + err))
    return out


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
        assert isinstance(r["value"], float), name
        if name.startswith("same_start_"):
            assert r["figure"] == "fig-authors-code-same-start", name
            assert r["criterion"] == "same_run", name
            assert r["spread"] > 0 and r["paper"] <= rulebook.SAME_RUN_TOL, name
        else:
            assert r["figure"] == "fig-authors-code-loss", name
            assert r["spread"] > 0, name


def test_the_same_start_records_are_the_runs(results, written):
    _, tables, stored = written
    for name, r in results.same_start.items():
        rec = stored[f"same_start_{name}"]
        assert rec["value"] == pytest.approx(max(r.gaps), rel=1e-5)
        assert rec["paper"] == pytest.approx(max(r.rescale), rel=1e-5)
        c = results.runs[name].comparison
        assert rec["spread"] == pytest.approx(c.spread_ours, rel=1e-5)
        assert rec["verdict"] == "check"
        T = r.epochs
        assert list(r.identical) == [T // 3] * len(r.seeds)
        assert (
            f"equal bit for bit for the first {T // 3}, {T // 3} epochs"
            in (rec["note"])
        )
        assert results.title(name) in tables["same_start"]
    text = tables["same_start_text"]
    assert text.startswith(f"**{len(results.same_start)} of")
    assert "**The depth network.**" in text
    assert "45 epochs" not in text and "review" not in text
    # the control, a step size 5 % off, fails the rule and passed the old one
    assert "**A control.**" in text
    assert "Under the rule it is **check failed**" in text
    assert "would have passed it" in text


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
    assert set(tables) == {
        "runs",
        "conventions",
        "headline",
        "claims",
        "closing",
        "same_start",
        "same_start_text",
    }
    assert tables["closing"].startswith(f"**{len(rec.items)} of {len(rec.items)}")
    for name in results.runs:
        assert results.title(name) in tables["headline"]
    r = results.runs["section4"]
    D = comparison.gap_matrix(r.ours["relu"])
    check = ch.SpreadCheck(
        list(r.seeds),
        3,
        comparison.subset_spreads(D, 3),
        comparison.spread(r.ours["relu"]),
        0.01,
        r.ours["relu"],
    )
    text = ch.spread_text("Section 4", r.comparison, check)
    assert text.startswith("**Section 4.** Over its first 3 seeds")


def test_check_parameters_refuses_unknown_experiments():
    ch.check_parameters(["section4", "depth"], "depth")
    with pytest.raises(ValueError, match="unknown experiments"):
        ch.check_parameters(["section7"], "section7")
    with pytest.raises(ValueError, match="spread_check"):
        ch.check_parameters(["section4"], "depth")


def test_compare_same_start_finds_where_the_runs_part():
    A = np.linspace(10.0, 1.0, 100)[None]
    B = A.copy()
    B[0, 40:] *= 1 + 1e-7  # rounding: below the tolerance
    B[0, 70:] *= 1 + 1e-3  # beyond it
    r = run_for_run.compare_same_start("x", [7], A, B)
    assert r.identical.tolist() == [40] and r.part.tolist() == [70]
    assert r.part_loss[0] == A[0, 70]
    same = run_for_run.compare_same_start("x", [7], A, A)
    assert same.part.tolist() == [100] and np.isnan(same.part_loss[0])
    assert same.gaps.tolist() == [0.0]
    with pytest.raises(ValueError, match="must match"):
        run_for_run.compare_same_start("x", [7, 8], A, B)


def test_same_start_seeds_checks_its_parameters():
    n = ch.same_start_seeds(["section4", "depth"], 4, 2)
    assert n == {"section4": 4, "depth": 2}
    with pytest.raises(ValueError, match="same_start_depth_seeds"):
        ch.same_start_seeds(["depth"], 4, 0)
    with pytest.raises(ValueError, match="same_start_seeds"):
        ch.same_start_seeds(["depth"], 2.5, 2)


def _same_run(r, spread):
    """The verdict of the rulebook's ``same_run`` on :class:`SameStart` ``r``."""
    ev = Evidence(
        float(max(r.gaps)),
        spread=spread,
        compared=float(max(r.rescale)),
        criterion="same_run",
        censored=r.censored,
        censored_reference=r.censored_reference,
    )
    return rulebook.verdict(ev, kind="check", provenance="authors' code")


@pytest.mark.parametrize("factor", [1.05, 1 / 1.05, 1.01, 1.001])
def test_a_time_rescaled_engine_fails_the_same_start_rule(results, factor):
    # the stand-in engine (the script's curves, off by rounding) passes; the same
    # curves resampled 5 % (1 %, 0.1 %) slower or faster, a step-size error, fail,
    # while the earlier criterion (time gap at most 0.05) passed the 5 % one
    spread = results.runs["section4"].comparison.spread_ours
    real = results.same_start["section4"]
    assert _same_run(real, spread) == "check"
    slow = _slower(real, factor)
    assert _same_run(slow, spread) == "check failed"
    assert max(slow.rescale) > rulebook.SAME_RUN_TOL
    if factor == 1.05:
        assert rulebook.holds("gap", float(max(slow.gaps))) is True


def test_later_shifts_beyond_the_seed_spread_fail_the_same_start_rule(results):
    # runs that agree through the first drops and then drift apart by more than
    # twice the engine's own seed spread fail: the later part is judged too
    real = results.same_start["section4"]
    A = real.theirs
    T = A.shape[1]
    late = np.where(np.arange(T) < T // 2, A, _rescaled(A, 1.1))
    far = run_for_run.compare_same_start("section4", real.seeds, A, late)
    spread = results.runs["section4"].comparison.spread_ours
    assert max(far.rescale) <= rulebook.SAME_RUN_TOL
    assert not (far.censored or far.censored_reference)
    assert max(far.gaps) > rulebook.NOISE_MULTIPLE * spread
    assert _same_run(far, spread) == "check failed"


def test_steepest_drop_bounds_a_time_rescaling():
    t = np.arange(1, 2001, dtype=float)
    L = 1 / t  # |d ln L / d ln t| = 1 everywhere (4 % more at the first step)
    assert run_for_run.steepest_drop(L, 2000) == pytest.approx(1.0, rel=0.05)
    assert run_for_run.steepest_drop(L**3, 2000) == pytest.approx(3.0, rel=0.05)
    assert run_for_run.steepest_drop(L, 1) == 0.0
    assert run_for_run.steepest_drop(np.ones(100), 100) == 0.0
    # runs apart from the first epoch agree through no drop: nothing is excluded
    r = run_for_run.compare_same_start("x", [1], L[None], L[None] * 1.001)
    assert r.part.tolist() == [0] and r.rescale.tolist() == [1.0]
