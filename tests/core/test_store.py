"""Train once ([conv-engine]): a stored run is loaded bit for bit, a changed setting or
engine trains anew, and records never depend on the store."""

import collections
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


Pair = collections.namedtuple("Pair", "a b")


def test_narrow_and_widen_keep_records_networks_and_memory_order():
    """A kept summary holds dataclasses, named tuples and arrays of either memory
    order: the round trip gives them back bit for bit, and a network hashes the same
    (it may key a later run)."""
    import joblib

    run = _train()
    F = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    tree = {"run": run, "pair": Pair(F, [np.float64(0.5), np.ones(3)]), "n": 3}
    back = store.widen(store.narrow(tree))
    assert joblib.hash(back["run"].net) == joblib.hash(run.net)
    np.testing.assert_array_equal(back["run"].loss, run.loss)
    assert back["run"].loss.dtype == run.loss.dtype
    assert isinstance(back["pair"], Pair) and back["pair"].a.flags.f_contiguous
    assert joblib.hash(back["pair"]) == joblib.hash(tree["pair"])
    assert store.narrow(run).loss["float64_as_float32"].dtype == np.float32


def _summary(calls):
    def make():
        calls.append(1)
        return {"loss": _train().loss, "n": len(calls)}

    return store.derived("a test summary", ("x", 3), make, "helpers.chapters.xor")


def test_a_kept_summary_is_loaded_its_sample_retrains_and_its_code_is_stamped(
    tmp_path, monkeypatch
):
    """Kept summaries: ``keep`` mode keeps the value and its first run's sample; the
    default book loads the value without making it; the sample re-trains; a change to
    the code that makes it is another key, and ``stale`` names the changed file."""
    from helpers.book import kept

    monkeypatch.setenv(store.STORE_VARIABLE, str(tmp_path / "store"))
    monkeypatch.setattr(store, "KEEP_MIN_SECONDS", 0.0)
    monkeypatch.setattr(store, "KEEP_SECONDS_PER_MIB", 0.0)
    monkeypatch.setattr(store, "KEPT", tmp_path / "kept")
    store._kept_index.cache_clear()
    monkeypatch.setenv(store.KEEP_VARIABLE, str(tmp_path / "kept" / "ch"))
    calls = []
    first = _summary(calls)
    monkeypatch.delenv(store.KEEP_VARIABLE)
    (path,) = sorted((tmp_path / "kept" / "ch").glob("*.joblib"))  # not its run
    runs = kept.take(tmp_path / "kept" / "ch", tmp_path / "kept" / "ch")
    store._kept_index.cache_clear()
    again = _summary(calls)
    assert len(calls) == 1 and again["n"] == 1
    np.testing.assert_array_equal(again["loss"], first["loss"])
    assert _log(tmp_path / "store")[-1]["hit"] == "kept"
    ok = kept.check(path, epochs=100)
    assert ok["ok"] and ok["epochs"] == 100, ok
    assert not kept.check(path, epochs=100, scale=1.01)["ok"]
    manifest = {"runs": runs, "engine_stamp": store.engine_stamp()}
    assert store.stale(manifest) == []
    stamp = store.code_stamp("helpers.chapters.xor")
    name = sorted(stamp)[0]
    changed = {**stamp, name: "0" * 64}
    monkeypatch.setattr(store, "code_stamp", lambda package: changed)
    assert store.stale(manifest) == [f"{path.name}: {name}"]
    _summary(calls)
    assert len(calls) == 2  # another key: made anew
    store._kept_index.cache_clear()


MODULE = '''"""A module."""

__all__ = ["f"]


def f(x, y=1):  # a comment
    """Add."""
    return x + y + len(f"{x!r:>4}")
'''


@pytest.mark.parametrize(
    "edit, same",
    [
        (lambda s: s.replace('"""Add."""', '"""Add them up,\n    say."""'), True),
        (lambda s: s.replace("# a comment", "# another"), True),
        (lambda s: s.replace("(x, y=1)", "(\n    x, y=1\n)"), True),
        (lambda s: s.replace('__all__ = ["f"]', ""), True),
        (lambda s: s.replace("x + y", "x - y"), False),
        (lambda s: s.replace("y=1", "y=2"), False),
        (lambda s: s.replace(":>4", ":>5"), False),
        (lambda s: s.replace("    return", "    y = 0\n    return"), False),
    ],
)
def test_a_code_stamp_reads_code_not_words(tmp_path, edit, same):
    """A kept summary's stamp hashes what a module computes: a docstring, a comment,
    ``__all__`` or a line break changed leaves it, any code changed moves it."""
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(MODULE)
    b.write_text(edit(MODULE))
    assert b.read_text() != MODULE
    assert (store.code_hash(a) == store.code_hash(b)) is same


def test_a_code_stamp_reads_a_toml_file_s_data(tmp_path):
    a, b, c = (tmp_path / f"{n}.toml" for n in "abc")
    a.write_text('x = 1  # one\n[t]\ny = "z"\n')
    b.write_text('x = 1\n\n[t]\ny   = "z"\n')
    c.write_text('x = 2\n[t]\ny = "z"\n')
    assert store.code_hash(a) == store.code_hash(b) != store.code_hash(c)


def test_a_summary_kept_same_everywhere_is_kept_whatever_it_saves(
    tmp_path, monkeypatch
):
    """A summary that a threshold or an argmin reads is kept ``same_everywhere``:
    under the time rules (too short, too little saved per MiB) a plain summary is
    dropped and this one is kept, with the flag in the manifest."""
    from helpers.book import kept

    monkeypatch.setenv(store.STORE_VARIABLE, str(tmp_path / "store"))
    monkeypatch.setattr(store, "KEEP_MIN_SECONDS", 1e6)
    monkeypatch.setattr(store, "KEEP_SECONDS_PER_MIB", 1e6)
    monkeypatch.setenv(store.KEEP_VARIABLE, str(tmp_path / "staging"))

    def summary(what, everywhere):
        def make():
            return {"loss": _train().loss}

        return store.derived(
            what, ("x",), make, "helpers.chapters.xor", same_everywhere=everywhere
        )

    summary("plain", False)
    summary("for the CPU", True)
    (tmp_path / "kept").mkdir()
    runs = kept.take(tmp_path / "staging", tmp_path / "kept")
    assert [r["what"] for r in runs.values()] == ["for the CPU"]
    assert all(r["same_everywhere"] and r["derived"] for r in runs.values())


def test_a_file_kept_before_stays_when_asked_again_and_current(tmp_path):
    """A kept file stays as it was where the execution asked for it again and its
    code still holds (another CPU's bits would move records; a faster machine trains
    it under the time rules), saying when it was kept; what was not asked for goes."""
    from helpers.book import kept

    before, dest, staging = (tmp_path / d for d in ("before", "dest", "staging"))
    for d in (before, dest, staging):
        d.mkdir()
    entry = {"what": "a run", "seconds": 9.0, "bytes": 3}
    old = {
        "date": "2026-01-01", "command": "keep ch", "machine": "slow",
        "engine_stamp": store.engine_stamp(),
        "runs": {f"{k}.joblib": entry for k in ("asked", "gone", "new")},
    }  # fmt: skip
    (before / "manifest.json").write_text(json.dumps(old))
    for k in ("asked", "gone", "new"):
        (before / f"{k}.joblib").write_bytes(k.encode())
    (staging / store.ASKED).write_text("asked\nnew\n")
    (dest / "new.joblib").write_bytes(b"kept again")
    out = kept.carried(before, dest, staging)
    assert sorted(out) == ["asked.joblib", "new.joblib"]
    assert (dest / "new.joblib").read_bytes() == b"new"  # the old bits stay
    assert out["asked.joblib"]["kept"] == "2026-01-01: keep ch, slow"
    assert (dest / "asked.joblib").read_bytes() == b"asked"
    stale = {**old, "engine_stamp": {"helpers/core/engine.py": "another"}}
    (before / "manifest.json").write_text(json.dumps(stale))
    assert kept.carried(before, dest, staging) == {}


def test_no_kept_run_is_stale():
    """Every kept file was made by the code in the repository now: a change to the
    engine or to a summary's code fails here until the chapter is kept again
    (``python -m helpers.book keep CHAPTER``), instead of the book silently training
    it at every execution."""
    from helpers.book import kept

    assert kept.stale() == {}


#: The summaries a threshold or an argmin reads, per chapter, from its defaults: the
#: family of ReLNs is chosen from each C's census by ``family_min_share``; k-means
#: picks its optimum among near-ties of Algorithm 1's samples.
SAME_EVERYWHERE = {
    "more_contexts": lambda p: {
        f"more_contexts census: C = {C}" for C in p["contexts"]
    },
    "gate_finding": lambda p: {
        f"gate_finding samples: (11, {p['width']}, 60), {p['trainings']} trainings"
    },
}


@pytest.mark.parametrize("chapter", sorted(SAME_EVERYWHERE))
def test_what_a_threshold_reads_is_kept_for_every_cpu(chapter):
    """Trained anew, another CPU's rounding could tip a choice made from these
    summaries (the family's member at C = 5, the K = 4 runner-up's tie): the default
    page loads each of them from ``book/kept`` (``keep CHAPTER``), kept
    ``same_everywhere`` whatever training it saves."""
    from helpers.book import parameters

    manifest = json.loads((store.KEPT / chapter / "manifest.json").read_text())
    kept = {
        r["what"]
        for r in manifest["runs"].values()
        if r.get("derived") and r.get("same_everywhere")
    }
    assert SAME_EVERYWHERE[chapter](parameters.declared(chapter)) <= kept
