"""The Background chapter's report (helpers.chapters.background.report): every
registered record is written from a small synthetic results object, with the
rulebook's verdicts, and the tables the page shows."""

from types import SimpleNamespace

import numpy as np
import pytest

from helpers.book.records import Records
from helpers.chapters import background as ch
from helpers.core import measures
from tests.chapters.records_check import check_records

T, SEEDS = 401, 4


def _curves(rate):
    t = np.arange(T)
    return np.stack([3 * np.exp(-rate * (1 + 0.02 * s) * t) for s in range(SEEDS)])


def _results():
    sep, sh = _curves(0.025), _curves(0.05)
    return ch.Results(
        modes=SimpleNamespace(s=np.array([2.646, 1.732, 1.0, 1.0])),
        diag={"offdiag": 1e-16},
        gap_seed=np.array([0.01, 0.02, 0.015, 0.012]),
        gap_expected=np.array([0.03, 0.02, 0.025, 0.04]),
        a0_seed=np.full((SEEDS, 4), 1e-3),
        a0_expected=1e-3,
        raw_projection=np.array([-1e-6, 2e-6, 3e-6, -4e-6]),
        sweep={(1e-4, 8): 0.03, (1e-3, 8): 0.04, (1e-2, 8): 0.07},
        spectra={
            "separate (context 1)": (np.array([2.6, 1.7, 1.0, 1.0]), np.ones(4)),
            "shared": (np.array([5.2, 3.4, 2.0, 2.0]), 2 * np.ones(4)),
        },
        runs={
            "separate": SimpleNamespace(loss=sep),
            "shared": SimpleNamespace(loss=sh),
        },
        predictions={
            "separate": SimpleNamespace(loss=sep[0]),
            "shared": SimpleNamespace(loss=sh[0]),
        },
        double=measures.match(sh, sep[:, ::2], alternative=sep[:, : T // 2 + 1]),
    )


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    rec = Records("background", directory=tmp_path_factory.mktemp("results"))
    results = _results()
    return rec, results, ch.report(rec, results)


def test_every_registered_record_is_written_with_the_rulebooks_verdict(written):
    rec, _, _ = written
    assert (rec.directory / "background.json").exists()
    check_records("background", rec.items)
    assert {item["verdict"] for item in rec.items.values()} == {"check"}


def test_the_numbers_and_tables_are_the_pages(written):
    rec, results, tables = written
    cf = rec.items["gap_closed_form_simulated"]
    assert cf["value"] == pytest.approx(0.0135) and cf["criterion"] == "gap"
    reuse = rec.items["gap_node_reuse_double_speed"]
    assert reuse["value"] == pytest.approx(results.double.value, rel=1e-5)
    assert reuse["lag_percent"]["median"] == pytest.approx(
        100 * np.expm1(results.double.value), rel=1e-4
    )
    assert "{bdg-success}`check`" in tables["summary"]
    sweep = ch.sweep_table(results.sweep)
    assert sweep.count("\n") == 4 and "0.0700" in sweep
    assert "5.200, 3.400" in ch.spectra_table(results.spectra)
