"""The performance benchmark (issue 8): its baselines compute the engine's training, its
operation count is exact, and its records are built from the measurements.  No timing is
asserted: timings depend on the machine."""
import json

import numpy as np
import pytest

import helpers as h
from helpers.chapters import performance as bm


@pytest.fixture
def tiny(monkeypatch):
    """A small ReLU network on the Section 4 task, registered as a benchmark network."""
    tiny = bm.BenchNetwork(name="tiny", label="tiny 11-16-60", sizes=(11, 16, 60), init_std=0.05, lr=1e-2,
                           structures=("hierarchy", "ring", "cross"), paper_epochs=60, paper_seeds=2)
    monkeypatch.setitem(bm.NETWORKS, "tiny", tiny)
    return tiny


def test_flops_per_epoch_counts_every_product_of_the_section4_network():
    f = bm.flops_per_epoch((11, 700, 60), 24)
    # forward W1 X and W2 h; backward dW2, W2^T delta, dW1 (no gradient for the inputs)
    assert f["forward"] == 2 * 24 * (700 * 11 + 60 * 700) == 2_385_600
    assert f["backward"] == 2 * 24 * (700 * 11 + 60 * 700) + 2 * 24 * 60 * 700 == 4_401_600
    assert f["total"] == 6_787_200
    depth = bm.flops_per_epoch((11, 420, 420, 60), 24)
    assert depth["total"] == 2 * 24 * (2 * (420 * 11 + 420 * 420 + 60 * 420) + (420 * 420 + 60 * 420))


@pytest.mark.parametrize("read_every_epoch", [True, False])
def test_loop_baselines_reproduce_the_engines_loss_curves(tiny, read_every_epoch):
    net, X, Y = tiny.build()
    run = h.train(net, X, Y, lr=tiny.lr, epochs=60, seeds=[0, 3])
    base = bm.loop_baseline(net, X, Y, lr=tiny.lr, epochs=60, seeds=[0, 3], read_every_epoch=read_every_epoch)
    assert base.loss.shape == run.loss.shape == (2, 61)
    np.testing.assert_allclose(base.loss, run.loss, rtol=1e-5)
    assert base.loss[:, -1].max() < 0.9 * base.loss[:, 0].min()  # it trained
    assert base.seconds > 0 and base.compile_seconds >= 0


def test_linear_network_baseline_matches_the_engine():
    ds = h.hierarchy4()
    net = h.linear_network((4, 8, 7), 0.1)
    run = h.train(net, ds.X, ds.Y, lr=0.05, epochs=40, seeds=[1])
    base = bm.loop_baseline(net, ds.X, ds.Y, lr=0.05, epochs=40, seeds=[1])
    np.testing.assert_allclose(base.loss, run.loss, rtol=1e-5)


def test_seedwise_engine_equals_the_vmapped_engine(tiny):
    net, X, Y = tiny.build()
    a = bm.time_engine(net, X, Y, lr=tiny.lr, epochs=30, seeds=[0, 1, 2])
    b = bm.time_engine_seedwise(net, X, Y, lr=tiny.lr, epochs=30, seeds=[0, 1, 2], rounds=2)
    assert len(b.rounds) == 2
    np.testing.assert_allclose(a.loss, b.loss, rtol=1e-5)


def test_baselines_reject_gated_networks_and_bad_input():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    g = h.gdln(11, 60, 24, [h.Pathway("common", 4)])
    with pytest.raises(ValueError, match="plain ReLU or linear"):
        bm.make_update(g, ds.X, ds.Y, 1e-3)
    net = h.relu_network((11, 8, 60), 0.01)
    with pytest.raises(ValueError, match="lr"):
        bm.make_update(net, ds.X, ds.Y, -1.0)
    with pytest.raises(ValueError, match="maps 11 -> 60"):
        bm.make_update(net, ds.X[:5], ds.Y, 1e-3)
    with pytest.raises(ValueError, match="epochs"):
        bm.loop_baseline(net, ds.X, ds.Y, lr=1e-3, epochs=0, seeds=[0])
    with pytest.raises(ValueError, match="unknown network"):
        bm.measure("nope", 1)
    with pytest.raises(ValueError, match="positive"):
        bm.flops_per_epoch((11, 0, 60), 24)


def test_measure_epochs_clips_to_the_paper_run():
    assert bm.measure_epochs("section4", 1, 24000) == 8000
    assert bm.measure_epochs("section4", 8, 24000) == 3000
    assert bm.measure_epochs("section4", 64, 24000) == 375
    assert bm.measure_epochs("depth", 1, 6000) == 6000
    assert bm.measure_epochs("depth", 64, 6000) == 100
    assert bm.measure_epochs("depth", 64, 1000, min_epochs=100) == 100


def test_measure_and_run_benchmark_rows_agree_with_the_engine(tiny):
    bench = bm.run_benchmark(["tiny"], [1, 2], seed_epochs=40, min_epochs=10, matmul_n=64, rounds=2)
    methods = {(r["method"], r["seeds"]) for r in bench["rows"]}
    assert methods == {("engine", 1), ("loop_sync", 1), ("loop_async", 1),
                       ("engine", 2), ("engine_seedwise", 2), ("loop_sync", 2), ("loop_async", 2)}
    for r in bench["rows"]:
        assert r["epochs_measured"] == (41 if r["seeds"] == 1 else 21)
        assert len(r["seconds_rounds"]) == 2 and r["seconds"] == min(r["seconds_rounds"])
        assert r["max_rel_loss_diff_vs_engine"] < 1e-5
        assert r["projected_paper_run_seconds"] == pytest.approx(r["seeds"] * 61 / r["seed_epochs_per_s"])
        assert r["fraction_of_matmul_peak"] == pytest.approx(r["flops_per_s"] / bench["matmul"]["flops_per_s"])
    rate = {(r["method"], r["seeds"]): r["seed_epochs_per_s"] for r in bench["rows"]}
    sp = bench["speedups"]["tiny"]["2"]
    assert sp["vs_loop_sync"] == pytest.approx(rate[("engine", 2)] / rate[("loop_sync", 2)])
    floor = bench["matmul"]["flops_per_s"] / bm.flops_per_epoch((11, 16, 60), 24)["total"]
    assert sp["ceiling_vs_loop_sync"] == pytest.approx(floor / rate[("loop_sync", 2)])
    json.dumps(bench)  # JSON-ready


def _fake_bench(speedup8):
    rows = []
    for s, r_engine, r_loop in ((1, 200.0, 100.0), (8, 100.0 * speedup8, 100.0), (64, 300.0, 100.0)):
        for m, r in (("engine", r_engine), ("loop_sync", r_loop)):
            rows.append({"network": "section4", "method": m, "seeds": s, "seed_epochs_per_s": r,
                         "fraction_of_matmul_peak": r / 1000.0})
    return {"started_utc": "2026-01-01T00:00:00+00:00", "label": "full",
            "machine": {"cpus": 2, "load_average_before": [0.1], "load_average_after": [0.2]},
            "matmul": {"n": 1024, "flops_per_s": 1e9}, "rows": rows,
            "speedups": bm._speedups(rows, {"section4": 3000.0})}


def test_records_carry_the_issue_names_and_targets(tmp_path):
    rec = bm.records(_fake_bench(12.0), {"background": 100.0, "performance": 20.5},
                     chapters=["background", "performance"], directory=tmp_path)
    path = rec.save()
    data = json.loads(path.read_text())
    for name in ("speedup_vs_loop_1seed", "speedup_vs_loop_8seeds", "speedup_vs_loop_64seeds",
                 "fraction_of_matmul_peak", "book_total_seconds", "chapter_seconds"):
        assert name in data
    assert data["speedup_vs_loop_1seed"]["value"] == 2.0
    assert data["speedup_vs_loop_8seeds"]["value"] == 12.0
    assert data["speedup_vs_loop_8seeds"]["verdict"] == "target met"
    assert data["speedup_vs_loop_64seeds"]["value"] == 3.0
    assert data["speedup_ceiling_vs_loop_8seeds"]["value"] == 30.0
    assert data["fraction_of_matmul_peak"]["value"] == 1.2
    assert data["book_total_seconds"]["value"] == 120.5
    assert data["book_total_seconds"]["verdict"] == "target met"
    assert data["chapter_seconds"]["value"] == {"background": 100.0, "performance": 20.5}


def test_records_flag_missed_targets_and_missing_chapters(tmp_path):
    rec = bm.records(_fake_bench(2.0), {"background": 700.0}, chapters=["background", "xor"], directory=tmp_path)
    assert rec.items["speedup_vs_loop_8seeds"]["verdict"] == "target missed"
    assert rec.items["book_total_seconds"]["verdict"] == "target missed"
    assert "xor" in rec.items["book_total_seconds"]["note"]
    rec = bm.records(_fake_bench(2.0), {"background": 100.0}, chapters=["background", "xor"], directory=tmp_path)
    assert rec.items["book_total_seconds"]["verdict"] == "incomplete"
    rec = bm.records(_fake_bench(2.0), None, directory=tmp_path)
    assert "book_total_seconds" not in rec.items


def test_chapter_times_read_execution_json(tmp_path):
    assert bm.chapter_times(tmp_path / "missing.json") is None
    p = tmp_path / "execution.json"
    p.write_text(json.dumps({"machine": {"cpus": 2}, "profiles": {"default": {"xor": 54.3}, "paper": {"xor": 300}}}))
    t = bm.chapter_times(p)
    assert t["seconds"] == {"xor": 54.3} and t["machine"]["cpus"] == 2
