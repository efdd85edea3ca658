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
