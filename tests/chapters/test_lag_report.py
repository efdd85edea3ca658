"""The page Where the lag comes from's report (helpers.chapters.lag.report): every
record and glue the page needs, from small results of real (tiny) networks."""

import functools
import json
import re
from pathlib import Path

import numpy as np
import pytest

from helpers.book import kit, rulebook
from helpers.book.records import Records
from helpers.chapters import lag as ch
from helpers.chapters.lag import measures as lm
from helpers.chapters.lag import networks as ln
from helpers.core.measures import LEVELS, Evidence

PAGE = Path(__file__).resolve().parents[2] / "book" / "lag.md"
SEEDS, EPOCHS, FREEZE = [0, 1, 2], 300, [0, 100, 300]
T = np.arange(EPOCHS + 1)


def _curves(rng, rate, n=len(SEEDS)):
    r = rate * (1 + 0.005 * rng.standard_normal(n))
    return np.stack([10 * np.exp(-k * T / 20) + 1e-4 for k in r])


@functools.cache
def _runs() -> ch.Runs:
    """Synthetic runs: the rates set how far each network lags the ReLU network."""
    rng = np.random.default_rng(0)
    relu = _curves(rng, 1.0)
    ladder = {
        name: _curves(rng, rate)
        for name, rate in zip(ch.LADDER, [1.3, 1.1, 1.2, 0.97, 0.95, 0.93])
    }
    t_rec = np.arange(0, EPOCHS + 1, 100)
    S, R = len(SEEDS), len(t_rec)
    state = FREEZE[:-1]
    return ch.Runs(
        relu=relu,
        ladder=ladder,
        frozen={e: _curves(rng, 1.0 - 0.001 * e) for e in state},
        snapped={e: _curves(rng, 0.8 + 0.002 * e) for e in state},
        random={e: _curves(rng, 0.5) for e in state[1:]},
        restart={
            "frozen": {e: _curves(rng, 1.2 - 0.001 * e) for e in FREEZE},
            "snapped": {e: _curves(rng, 1.1 - 0.0003 * e) for e in FREEZE},
            "random": _curves(rng, 1.4),
        },
        move={
            k: rng.random((S, R)) for k in ("item_dependent", "off_pattern", "to_final")
        },
        t_rec=t_rec,
    )


def test_every_record_and_glue_is_written(tmp_path, monkeypatch):
    glued = {}
    monkeypatch.setattr(kit, "glue", lambda n, v: glued.setdefault(n, v))
    out = ch.report(Records("lag", directory=tmp_path), _runs())
    stored = json.loads((tmp_path / "lag.json").read_text())
    registered = rulebook.registry()["lag"]
    assert set(stored) == set(registered) == set(out["records"])
    for name, rec in stored.items():
        again = rulebook.decide(registered[name], Evidence.from_record(rec)).verdict
        assert rec["verdict"] == again == "finding", name
        assert rec.get("figure") == registered[name].get("figure"), name
    cited = set(re.findall(r"\{glue:(?:text|md)\}`(\w+)", PAGE.read_text()))
    assert cited <= set(glued), sorted(cited - set(glued))
    assert glued["lag_seeds"] == 3 and glued["lag_epochs"] == EPOCHS
    assert glued["lag_record_every"] == 100
    assert glued["lag_freeze_epochs"] == "0, 100, 300"
    assert stored["reln_lag"]["spread_interval"][0] <= stored["reln_lag"]["spread"]
    assert set(stored["frozen_gates"]["value"]) == {"epoch 0", "epoch 100"}
    assert set(stored["restart_gates"]["value"]) == {
        f"{what} of epoch {e}" for what in ("own gates", "snapped,") for e in FREEZE
    }
    assert set(stored["random_gates"]["value"]) == {
        "from the initial weights",
        "from epoch 100",
    }
    assert out["reading"].startswith("**Reading.** The 7-pathway ReLN lags")
    assert "| claim | verdict |" in out["summary"]
    # the reading's numbers are the records'
    g = stored["reln_lag"]["value"]
    assert f"time gap {g:.3f}" in out["short"]


def test_the_numbers_are_the_runs(tmp_path):
    """The ReLN decays at 0.93 times the ReLU network's rate: it reaches every level
    1/0.93 times later (to the epoch), a lag of +7.5 %."""
    runs = _runs()
    ch.report(Records("lag", directory=tmp_path), runs)
    stored = json.loads((tmp_path / "lag.json").read_text())
    lags = stored["lag_ladder"]["value"]["reln"]
    assert lags["lag at 50 %"] == pytest.approx(100 * (1 / 0.93 - 1), abs=1.5)
    assert lags["time gap"] == pytest.approx(np.log(1 / 0.93), abs=0.02)
    # restarted, the gates of epoch 300 decay at 0.9 (a lag of +11 %); from the
    # state at 100, the own gates at 0.9 and the snapped ones at 1.0 (no lag)
    restart = stored["restart_gates"]["value"]["own gates of epoch 300"]
    assert restart["lag at 50 %"] == pytest.approx(100 * (1 / 0.9 - 1), abs=1.5)
    frozen = stored["frozen_gates"]["value"]["epoch 100"]["lag at 50 %"]
    assert frozen == pytest.approx(100 * (1 / 0.9 - 1), abs=1.5)
    snapped = stored["snapped_gates"]["value"]["epoch 100"]["lag at 50 %"]
    assert snapped == pytest.approx(0.0, abs=1.5)
    control = stored["random_gates"]["value"]["from the initial weights"]
    assert control["lag at 1 %"] == pytest.approx(100 * (1 / 1.4 - 1), abs=1.5)
    # the steps in log points add up to the ReLN's median log lag
    steps = stored["lag_steps"]["value"]
    total = sum(steps[k]["at 50 %"] for k in ch.LADDER)
    assert total == pytest.approx(100 * np.log(lags["lag at 50 %"] / 100 + 1), abs=0.1)
    gates = stored["within_context_gating"]["value"]["epoch 300"]
    assert gates["item-dependent weight"] == pytest.approx(
        np.median(runs.move["item_dependent"][:, -1]), rel=1e-5
    )
    table = ch.lag_table(ch.compare(runs).lags, {"reln": "the ReLN"})
    assert table.splitlines()[0].startswith("| network")
    assert "| own gates of epoch 300, restarted " in table
    assert "| own gates snapped at epoch 100, from its state " in table
    assert "| random gates, restarted " in table
    assert "| the ReLN " in table


def test_the_steps_add_up_to_the_relns_lag():
    rng = np.random.default_rng(1)
    relu = _curves(rng, 1.0)
    ladder = {n: _curves(rng, 0.8 + 0.1 * i) for i, n in enumerate(ch.LADDER)}
    lags = {n: lm.level_lags(relu, L) for n, L in ladder.items()}
    steps = lm.step_points(lags, ladder)
    total = sum(steps.values())
    np.testing.assert_allclose(total, 100 * lm.median_lag(lags["reln"]), atol=1e-9)
    # in percent they would not add: the sum of the steps' percentages is another
    pct = sum(100 * np.expm1(v / 100) for v in steps.values())
    assert abs(pct - 100 * np.expm1(lm.median_lag(lags["reln"]))).max() > 1


def test_bad_parameters_are_refused_by_name():
    ok = dict(
        seeds=2, epochs=800, record_every=200, freeze_epochs=[0, 800],
        relu_width=700, units=700,
    )  # fmt: skip
    ch.check_parameters(**ok)
    for change, word in (
        ({"seeds": 1}, "seeds"),
        ({"record_every": 300}, "record_every"),
        ({"freeze_epochs": [0, 100, 800]}, "freeze_epochs"),
        ({"freeze_epochs": [0, 400]}, "freeze_epochs"),
        ({"relu_width": 600}, "relu_width"),
    ):
        with pytest.raises(ValueError, match=word):
            ch.check_parameters(**{**ok, **change})


def test_frozen_network_keeps_the_relu_shapes_and_checks_its_gates():
    import helpers as h

    net = h.relu_network((3, 4, 2), 0.1)
    G = np.ones((4, 5))
    frozen = ln.frozen_network(net, G, 5)
    assert frozen.layers[0].mode == "fixed" and frozen.sizes == net.sizes
    with pytest.raises(ValueError, match="gates"):
        ln.frozen_network(net, np.ones((4, 6)), 5)
    # all gates on: the frozen network is the linear network of the same start
    X, Y = np.eye(3)[:, [0, 1, 2, 0, 1]], np.ones((2, 5))
    a = h.train(frozen, X, Y, lr=0.05, epochs=20, seeds=[0])
    b = h.train(h.linear_network((3, 4, 2), 0.1), X, Y, lr=0.05, epochs=20, seeds=[0])
    np.testing.assert_allclose(a.loss, b.loss, rtol=1e-5)


def test_gate_change_weighs_units_by_their_weight():
    W1, W2 = np.array([[1.0], [0.0]]), np.array([[1.0, 1.0]])
    G0, G1 = np.array([[1, 1], [1, 1]]), np.array([[1, 1], [0, 0]])
    assert lm.gate_change(G0, G1, W1, W2) == 0.0  # only the weightless unit moved
    assert lm.gate_change(G0, G1[::-1], W1, W2) == 1.0


def test_the_figures_draw_with_levels_some_networks_miss():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.container import BarContainer

    runs = _runs()
    c = ch.compare(runs)
    lags = {**c.lags, "snapped@0": c.lags["snapped@0"].copy()}
    lags["snapped@0"][0, 1] = np.nan  # one seed never reaches the 10 % level
    spread = c.fit["reln"].spread
    ch.plots.ladder(runs.relu, runs.ladder, lags, ch.LADDER, spread)
    bars = [len(b) for b in plt.gcf().axes[1].containers if isinstance(b, BarContainer)]
    assert bars == [len(LEVELS)] * len(ch.LADDER)  # every level reached by all
    ch.plots.frozen(FREEZE, FREEZE[:-1], lags, spread)
    panels = plt.gcf().axes
    assert len(panels) == len(LEVELS)
    bars = {b.get_label(): b for b in panels[1].containers}  # the 10 % level
    assert np.isnan(bars["snapped, from its state"].lines[0].get_ydata()[0])  # at 0
    assert np.isfinite(bars["own gates, from its state"].lines[0].get_ydata()).all()
    assert len(bars["own gates, restarted"].lines[0].get_ydata()) == len(FREEZE)
    ch.plots.gates(runs.t_rec, runs.move, FREEZE)
    assert len(plt.gcf().axes[0].collections) == 3  # one band per measure
    plt.close("all")


@pytest.mark.slow
def test_the_report_reads_real_runs(tmp_path):
    """A shrunk page: ReLU network, frozen and snapped gates, the whole ladder, trained
    for real on the contextual task with a ReLN of 7 x 4 units."""
    import helpers as h

    epochs, t_rec, seeds = 40, np.arange(0, 41, 20), [0, 1]
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    relu_net = h.relu_network((ds.X.shape[0], 28, ds.Y.shape[0]), 0.1)
    relu = h.train(relu_net, ds.X, ds.Y, lr=0.01, epochs=epochs, seeds=seeds,
                   record_epochs=t_rec, record=("weights", "gates"))  # fmt: skip
    G, (W1, W2) = relu.records["gates"][0], relu.records["weights"]
    at, kw = {0: 0, 40: 2}, dict(lr=0.01, epochs=epochs)
    state = dict(state=(W1, W2, relu.loss))
    frozen = ch.train_frozen(relu_net, ds, G, seeds, {0: 0, 20: 1}, **kw, **state)
    snapped = ch.train_frozen(relu_net, ds, G, seeds, {20: 1}, snap=True, **kw, **state)
    # from the state at epoch 20 the first 20 epochs are the ReLU network's, and at
    # epoch 20 the fixed-gate network is the ReLU network (the same loss)
    np.testing.assert_array_equal(frozen[20][:, :21], relu.loss[:, :21])
    with pytest.raises(ValueError, match="epochs_at"):
        ch.train_frozen(relu_net, ds, G, seeds, {40: 2}, **kw, **state)
    rand = ch.random_gates(G.shape[2:], seeds)
    assert rand.shape == (2, 28, ds.P) and np.all(rand.sum(axis=2) == ds.P // 2)
    restart = {
        "frozen": ch.train_frozen(relu_net, ds, G, seeds, at, **kw),
        "snapped": ch.train_frozen(relu_net, ds, G, seeds, at, snap=True, **kw),
        "random": ch.train_frozen(relu_net, ds, rand, seeds, {0: 0}, **kw)[0],
    }
    random = ch.train_frozen(relu_net, ds, rand, seeds, {20: 1}, **kw, **state)
    reln = h.context_reln(ds, "both", "one-way", width=4)
    start = h.relns.start(reln, "authors", seeds, experiment="contexts",
                          relu_net=relu_net, relu_std=0.1, X=ds.X,
                          contexts=ds.contexts)  # fmt: skip
    ladder = ch.train_ladder(
        relu_net, ds, seeds, restart["frozen"][40], restart["snapped"][40], start, **kw
    )
    assert list(ladder) == list(ch.LADDER)
    assert all(L.shape == (2, epochs + 1) for L in ladder.values())
    move = ch.gate_movement(G, W1, W2, ds)
    assert np.all(move["to_final"][:, -1] == 0)  # the last record is the final gates
    snapped[0] = restart["snapped"][0]  # from epoch 0 the state is the start
    runs = ch.Runs(relu.loss, ladder, frozen, snapped, random, restart, move, t_rec)
    out = ch.report(Records("lag", directory=tmp_path), runs)
    assert out["records"]["reln_lag"]["value"] == pytest.approx(
        ch.compare(runs).fit["reln"].value, rel=1e-5
    )
    assert set(out["records"]["frozen_gates"]["value"]) == {"epoch 0", "epoch 20"}
    # from epoch 0 the state is the initial weights: the restart, bit for bit
    np.testing.assert_array_equal(frozen[0], restart["frozen"][0])
