"""The page Where the lag comes from's report (helpers.chapters.lag.report): every
record and glue the page needs, from small results of real (tiny) networks."""

import functools
import importlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from helpers.book import rulebook
from helpers.book.records import Records
from helpers.chapters import lag as ch
from helpers.core.measures import Evidence

report_module = importlib.import_module("helpers.chapters.lag.report")
PAGE = Path(__file__).resolve().parents[2] / "book" / "lag.md"
SEEDS, EPOCHS, FREEZE = [0, 1, 2], 300, [0, 300]
T = np.arange(EPOCHS + 1)


def _curves(rng, rate, n=len(SEEDS)):
    r = rate * (1 + 0.03 * rng.standard_normal(n))
    return np.stack([10 * np.exp(-k * T / 20) + 1e-4 for k in r])


@functools.cache
def _results() -> ch.Results:
    rng = np.random.default_rng(0)
    relu = _curves(rng, 1.0)
    ladder = {
        name: _curves(rng, rate)
        for name, rate in zip(ch.LADDER, [1.3, 1.1, 1.2, 0.97, 0.95, 0.93])
    }
    nets = {
        **ladder,
        **{f"frozen@{e}": _curves(rng, 1.2 - 0.001 * e) for e in FREEZE},
        **{f"snapped@{e}": _curves(rng, 1.1 - 0.0003 * e) for e in FREEZE},
    }
    t_rec = np.arange(0, EPOCHS + 1, 100)
    S, R = len(SEEDS), len(t_rec)
    return ch.Results(
        SEEDS=SEEDS,
        epochs=EPOCHS,
        freeze_epochs=FREEZE,
        t_rec=t_rec,
        LAGS={n: ch.level_lags(relu, L) for n, L in nets.items()},
        FIT=ch.rung_matches(relu, nets),
        STEP=ch.step_lags(relu, ladder),
        MOVE={
            k: rng.random((S, R)) for k in ("item_dependent", "off_pattern", "to_final")
        },
    )


def test_every_record_and_glue_is_written(tmp_path, monkeypatch):
    glued = {}
    monkeypatch.setattr(report_module, "glue", lambda n, v: glued.setdefault(n, v))
    out = ch.report(Records("lag", directory=tmp_path), _results())
    stored = json.loads((tmp_path / "lag.json").read_text())
    registered = rulebook.registry()["lag"]
    assert set(stored) == set(registered)
    for name, rec in stored.items():
        again = rulebook.decide(registered[name], Evidence.from_record(rec)).verdict
        assert rec["verdict"] == again == "finding", name
        assert rec.get("figure") == registered[name].get("figure"), name
    cited = set(re.findall(r"\{glue:(?:text|md)\}`(\w+)", PAGE.read_text()))
    assert cited <= set(glued), sorted(cited - set(glued))
    assert stored["reln_lag"]["spread_interval"][0] <= stored["reln_lag"]["spread"]
    assert set(stored["frozen_gates"]["value"]) == {f"epoch {e}" for e in FREEZE}
    assert out["reading"].startswith("**Reading.** The 7-pathway ReLN lags")
    assert "| claim | verdict |" in out["summary"]
    # the reading's numbers are the records'
    g = stored["reln_lag"]["value"]
    assert f"time gap {g:.3f}" in out["short"]


def test_the_steps_add_up_to_the_relns_lag():
    rng = np.random.default_rng(1)
    relu = _curves(rng, 1.0)
    ladder = {n: _curves(rng, 0.8 + 0.1 * i) for i, n in enumerate(ch.LADDER)}
    steps = ch.step_lags(relu, ladder)
    total = sum(steps.values())
    np.testing.assert_allclose(total, ch.level_lags(relu, ladder["reln"]))


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
    frozen = ch.frozen_network(net, G, 5)
    assert frozen.layers[0].mode == "fixed" and frozen.sizes == net.sizes
    with pytest.raises(ValueError, match="gates"):
        ch.frozen_network(net, np.ones((4, 6)), 5)
    # all gates on: the frozen network is the linear network of the same start
    X, Y = np.eye(3)[:, [0, 1, 2, 0, 1]], np.ones((2, 5))
    a = h.train(frozen, X, Y, lr=0.05, epochs=20, seeds=[0])
    b = h.train(h.linear_network((3, 4, 2), 0.1), X, Y, lr=0.05, epochs=20, seeds=[0])
    np.testing.assert_allclose(a.loss, b.loss, rtol=1e-5)


def test_gate_change_weighs_units_by_their_weight():
    W1, W2 = np.array([[1.0], [0.0]]), np.array([[1.0, 1.0]])
    G0, G1 = np.array([[1, 1], [1, 1]]), np.array([[1, 1], [0, 0]])
    assert ch.gate_change(G0, G1, W1, W2) == 0.0  # only the weightless unit moved
    assert ch.gate_change(G0, G1[::-1], W1, W2) == 1.0


def test_the_figures_draw_with_levels_some_networks_miss():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = _results()
    lags = {**r.LAGS, "snapped@0": r.LAGS["snapped@0"].copy()}
    lags["snapped@0"][0, 1] = np.nan  # one seed never reaches the 10 % level
    rng = np.random.default_rng(2)
    relu = _curves(rng, 1.0)
    losses = {n: _curves(rng, 1.1) for n in ch.LADDER}
    ch.plots.ladder(relu, losses, lags, ch.LADDER, r.FIT["reln"].spread)
    ch.plots.frozen(FREEZE, lags, r.FIT["reln"].spread)
    ch.plots.gates(r.t_rec, r.MOVE, FREEZE)
    plt.close("all")
