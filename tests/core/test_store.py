"""Train once ([conv-engine]): a stored run is loaded bit for bit, a changed setting or
engine trains anew, and records never depend on the store."""

import json

import numpy as np
import pytest

import helpers as h
from helpers.core import store


@pytest.fixture
def in_store(tmp_path, monkeypatch):
    monkeypatch.setenv(store.STORE_VARIABLE, str(tmp_path / "store"))
    return tmp_path / "store"


def _train(lr=0.02, seeds=(0, 1)):
    ds = h.hierarchy4()
    net = h.relu_network((4, 16, 7), 0.1)
    return h.train(
        net, ds.X, ds.Y, lr=lr, epochs=200, seeds=list(seeds), record_epochs=[0, 200],
        record=("weights", "gates"),
    )  # fmt: skip


def _log(folder):
    return [json.loads(x) for x in (folder / "calls.jsonl").read_text().splitlines()]


def test_a_stored_run_is_loaded_bit_for_bit(in_store, monkeypatch):
    first = _train()
    again = _train()
    monkeypatch.setenv(store.STORE_VARIABLE, "off")
    fresh = _train()
    for r in (again, fresh):
        np.testing.assert_array_equal(r.loss, first.loss)
        for k in first.records:
            for a, b in zip(first.records[k], r.records[k]):
                np.testing.assert_array_equal(a, b)
    assert [c["hit"] for c in _log(in_store)] == [False, True]


def test_another_setting_is_another_run(in_store):
    _train()
    other = _train(lr=0.02 * (1 + 1e-6))
    _train(seeds=(0, 2))
    assert [c["hit"] for c in _log(in_store)] == [False, False, False]
    assert len({c["key"] for c in _log(in_store)}) == 3
    assert not np.array_equal(other.loss, _train().loss)


def test_a_changed_engine_is_another_key(monkeypatch):
    k = store.key("x", np.zeros(3, np.float32))
    machine = store._machine()
    monkeypatch.setattr(store, "_machine", lambda: (*machine[:-1], "other engine"))
    assert store.key("x", np.zeros(3, np.float32)) != k


def test_nothing_is_stored_while_disabled(in_store):
    with store.disabled():
        _train()
    assert not (in_store / "calls.jsonl").exists()


def test_a_kept_run_is_loaded_anywhere_and_its_sample_retrains(tmp_path, monkeypatch):
    """Kept runs: ``keep`` mode writes a long run with its sample; the default book
    loads its bits with the store off; the sample re-trains within SAME_RUN_TOL, and
    a sample whose inputs were scaled (a seeded fault) fails."""
    from helpers.book import kept

    monkeypatch.setenv(store.STORE_VARIABLE, "off")
    monkeypatch.setattr(store, "KEEP_MIN_SECONDS", 0.0)
    monkeypatch.setattr(store, "KEPT", tmp_path / "kept")
    store._kept_index.cache_clear()
    monkeypatch.setenv(store.KEEP_VARIABLE, str(tmp_path / "kept" / "ch"))
    first = _train()
    monkeypatch.delenv(store.KEEP_VARIABLE)
    (path,) = sorted((tmp_path / "kept" / "ch").glob("*.joblib"))
    store._kept_index.cache_clear()
    assert store.kept(path.stem) is not None
    again = _train()
    np.testing.assert_array_equal(again.loss, first.loss)
    ok = kept.check(path, epochs=100)
    assert ok["ok"] and ok["epochs"] == 100, ok
    assert not kept.check(path, epochs=100, scale=1.01)["ok"]
    monkeypatch.setenv(store.KEPT_VARIABLE, "off")
    assert store.kept(path.stem) is None
    store._kept_index.cache_clear()


@pytest.mark.slow
def test_every_kept_run_retrains_its_sample():
    """CI re-trains a sample of every kept run of the book (its first seed, the first
    SAMPLE_EPOCHS epochs) and holds it against the kept curve."""
    from helpers.book import kept

    bad = [r for r in map(kept.check, kept.files()) if not r["ok"]]
    assert not bad, bad
