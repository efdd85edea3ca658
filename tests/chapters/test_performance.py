"""The performance benchmark: its baselines compute the engine's training, its operation
count is exact, and its records and targets are built from the measurements.  No timing
is asserted: timings depend on the machine."""

import json

import numpy as np
import pytest

import helpers as h
from helpers.book.chapter_data import profile
from helpers.chapters.depth import paper_profile_runs
from helpers.chapters.performance import benchmark as bm
from helpers.chapters.performance import book_times
from helpers.chapters.performance.report import records


@pytest.fixture
def tiny(monkeypatch):
    """A small ReLU network on the Section 4 task, registered as a benchmark network."""
    tiny = bm.BenchNetwork(
        name="tiny",
        label="tiny 11-16-60",
        sizes=(11, 16, 60),
        init_std=0.05,
        lr=1e-2,
        structures=("hierarchy", "ring", "cross"),
        paper_epochs=60,
        paper_seeds=2,
    )
    monkeypatch.setitem(bm.NETWORKS, "tiny", tiny)
    return tiny


def test_flops_per_epoch_counts_every_product_of_the_section4_network():
    f = bm.flops_per_epoch((11, 700, 60), 24)
    # forward W1 X and W2 h; backward dW2, W2^T delta, dW1 (no gradient for the inputs)
    assert f["forward"] == 2 * 24 * (700 * 11 + 60 * 700) == 2_385_600
    assert (
        f["backward"] == 2 * 24 * (700 * 11 + 60 * 700) + 2 * 24 * 60 * 700 == 4_401_600
    )
    assert f["total"] == 6_787_200
    depth = bm.flops_per_epoch((11, 420, 420, 60), 24)
    assert depth["total"] == 2 * 24 * (
        2 * (420 * 11 + 420 * 420 + 60 * 420) + (420 * 420 + 60 * 420)
    )


@pytest.mark.parametrize("method", bm.METHODS)
def test_every_method_reproduces_the_engines_loss_curves(tiny, method):
    net, X, Y = tiny.build()
    run = h.train(net, X, Y, lr=tiny.lr, epochs=60, seeds=[0, 3])
    t = bm.time_method(method, net, X, Y, lr=tiny.lr, epochs=60, seeds=[0, 3], rounds=2)
    assert t.loss.shape == run.loss.shape == (2, 61) and len(t.rounds) == 2
    np.testing.assert_allclose(t.loss, run.loss, rtol=1e-4)
    assert t.loss[:, -1].max() < 0.9 * t.loss[:, 0].min()  # it trained
    assert t.seconds > 0 and t.compile_seconds >= 0


def test_linear_network_baseline_matches_the_engine():
    ds = h.hierarchy4()
    net = h.linear_network((4, 8, 7), 0.1)
    run = h.train(net, ds.X, ds.Y, lr=0.05, epochs=40, seeds=[1])
    t = bm.time_method("authors_loop", net, ds.X, ds.Y, lr=0.05, epochs=40, seeds=[1])
    np.testing.assert_allclose(t.loss, run.loss, rtol=1e-4)


def test_baselines_reject_gated_networks_and_bad_input():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    g = h.gdln(11, 60, 24, [h.Pathway("common", 4)])
    with pytest.raises(ValueError, match="plain ReLU or linear"):
        bm.make_steps(g, ds.X, ds.Y, 1e-3)
    net = h.relu_network((11, 8, 60), 0.01)
    with pytest.raises(ValueError, match="lr"):
        bm.make_steps(net, ds.X, ds.Y, -1.0)
    with pytest.raises(ValueError, match="maps 11 -> 60"):
        bm.make_steps(net, ds.X[:5], ds.Y, 1e-3)
    with pytest.raises(ValueError, match="epochs"):
        bm.time_method("authors_loop", net, ds.X, ds.Y, lr=1e-3, epochs=0, seeds=[0])
    with pytest.raises(ValueError, match="unknown method"):
        bm.time_method("nope", net, ds.X, ds.Y, lr=1e-3, epochs=3, seeds=[0])
    with pytest.raises(ValueError, match="unknown network"):
        bm.measure("nope", 1)
    with pytest.raises(ValueError, match="positive"):
        bm.flops_per_epoch((11, 0, 60), 24)


def test_measure_epochs_clips_to_the_paper_run():
    assert bm.measure_epochs("section4", 1, 24000) == 8000
    assert bm.measure_epochs("section4", 8, 24000) == 3000
    assert bm.measure_epochs("section4", 64, 24000) == 375
    assert bm.measure_epochs("depth", 64, 1000, min_epochs=100) == 100


def test_run_benchmark_rows_and_derived_ratios(tiny):
    bench = bm.run_benchmark(
        ["tiny"], [1, 2], seed_epochs=40, min_epochs=10, matmul_n=64, rounds=2
    )
    methods = {(r["method"], r["seeds"]) for r in bench["rows"]}
    assert methods == {(m, s) for m in bm.METHODS for s in (1, 2)} - {
        ("engine_one_device", 1),
        ("engine_vmap", 1),
    }
    for r in bench["rows"]:
        assert r["epochs_measured"] == (41 if r["seeds"] == 1 else 21)
        assert len(r["seconds_rounds"]) == 2 and r["seconds"] == min(
            r["seconds_rounds"]
        )
        assert r["max_rel_loss_diff_vs_engine"] < bm.AGREEMENT_RTOL
        assert r["fraction_of_floor"] == pytest.approx(
            r["flops_per_s"] / bench["matmul"]["flops_per_s"]
        )
    rate = {(r["method"], r["seeds"]): r["seed_epochs_per_s"] for r in bench["rows"]}
    d = bench["derived"]
    assert d["batching_efficiency"]["tiny"]["2"] == pytest.approx(
        rate[("engine", 1)] / rate[("engine", 2)]
    )
    assert d["speedup_vs_authors_loop"]["tiny"]["2"] == pytest.approx(
        rate[("engine", 2)] / rate[("authors_loop", 2)]
    )
    json.dumps(bench)  # JSON-ready


def _fake_bench(floor8=0.6, eff8=0.5):
    derived = {
        "fraction_of_floor": {
            "section4": {"1": 0.3, "8": floor8, "64": 0.7},
            "depth": {"1": 0.4, "8": 0.65, "64": 0.7},
        },
        "batching_efficiency": {
            "section4": {"1": 1.0, "8": eff8, "64": 0.5},
            "depth": {"1": 1.0, "8": 0.55, "64": 0.5},
        },
        "speedup_vs_authors_loop": {"section4": {"1": 3.0, "8": 6.0}},
    }
    return {
        "started_utc": "2026-01-01T00:00:00+00:00",
        "label": "full",
        "machine": {
            "cpus": 2,
            "load_average_before": [0.1],
            "load_average_after": [0.2],
        },
        "matmul": {"n": 1024, "flops_per_s": 1e9},
        "rows": [],
        "derived": derived,
    }


def test_records_carry_the_targets(tmp_path):
    rec = records(
        _fake_bench(),
        {"background": 100.0, "performance": 20.5},
        chapters=["background", "performance"],
        paper_seconds={"depth": 1400.0, "xor": 100.0},
        directory=tmp_path,
    )
    data = json.loads(rec.save().read_text())
    assert (
        data["floor_target"]["value"] == 0.6
        and data["floor_target"]["verdict"] == "target met"
    )
    assert (
        data["batching_target"]["value"] == 0.55
        and data["batching_target"]["verdict"] == "target met"
    )
    assert data["book_total_seconds"]["value"] == 120.5
    # each chapter's time rounded to 0.1 s; their sum a record of its own
    assert data["paper_profile_seconds"]["value"] == {"depth": 1400.0, "xor": 100.0}
    assert data["paper_total_seconds"]["value"] == 1500.0
    assert data["paper_depth_seconds"]["verdict"] == "target met"
    assert all(r.get("timing") for r in data.values())


def test_records_flag_missed_targets_and_missing_chapters(tmp_path):
    rec = records(
        _fake_bench(floor8=0.4, eff8=0.7),
        {"background": 1000.0},
        chapters=["background", "xor"],
        directory=tmp_path,
    )
    assert rec.items["floor_target"]["verdict"] == "target missed"
    assert rec.items["batching_target"]["verdict"] == "target missed"
    assert rec.items["book_total_seconds"]["verdict"] == "target missed"
    assert "xor" in rec.items["book_total_seconds"]["note"]
    rec = records(_fake_bench(), None, directory=tmp_path)
    assert (
        "book_total_seconds" not in rec.items
        and "paper_profile_seconds" not in rec.items
    )


def test_chapter_times_read_execution_json(tmp_path):
    assert book_times.chapter_times(tmp_path / "missing.json") is None
    p = tmp_path / "execution.json"
    p.write_text(
        json.dumps(
            {
                "machine": {"cpus": 2},
                "profiles": {"default": {"xor": 54.3}, "paper": {"xor": 300}},
            }
        )
    )
    assert book_times.chapter_times(p)["seconds"] == {"xor": 54.3}
    assert book_times.chapter_times(p, "paper")["seconds"] == {"xor": 300}
    assert book_times.chapter_times(p, "gpu") is None


def test_depth_paper_training_prices_the_paper_runs_and_ours():
    p = profile("paper", "depth")
    bench = {
        "floor_seed_epochs_per_s": {"depth": 2000.0},
        "derived": {"fraction_of_floor": {"depth": {"8": 0.5}}},
    }
    split = book_times.depth_paper_training(bench, paper_profile_runs())
    assert split["runs"]["paper"] == 2 * p["seeds"] == 198
    assert (
        split["runs"]["ours"]
        == 2 * p["init_seeds"] + p["derived_seeds"] + p["coupling_seeds"]
    )
    assert split["seed_epochs_per_s"] == 1000.0
    assert split["seconds"]["paper"] == pytest.approx(198 * split["updates"] / 1000.0)
    assert (
        book_times.depth_paper_training({"derived": {}}, paper_profile_runs()) is None
    )
