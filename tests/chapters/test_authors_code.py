"""The page *Against the authors' code* (helpers.chapters.authors_code): its comparison
code on the committed stored curves of the authors' scripts (book/authors_runs) gives
the numbers of the committed records, and its restatement of the scripts' setups agrees
with the ledger and with the one initialisation function."""

import hashlib
import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from helpers.book import crosscheck
from helpers.chapters import authors_code as ch
from helpers.chapters.authors_code import comparison, experiments, spreads
from helpers.core import ledger

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "book" / "results" / "authors_code.json"
#: the page's experiments and the ledger's name for each
LEDGER_KEY = {
    "section4": "contexts",
    "contexts3": "extra_contexts_C3",
    "contexts4": "extra_contexts_C4",
    "contexts5": "extra_contexts_C5",
    "depth": "depth",
}


@pytest.fixture(scope="module")
def records():
    if not RECORDS.exists():
        pytest.skip("no committed records of authors_code")
    return json.loads(RECORDS.read_text())


@pytest.mark.parametrize("name", ch.EXPERIMENTS)
def test_the_stored_curves_give_the_committed_numbers(name, records):
    """Spread of the scripts' ReLU curves and the median ReLU-GDLN gap of the scripts,
    recomputed from the stored curves (no training), equal the committed records: a
    stored curve that changes fails here as a drift."""
    assert crosscheck.verify(names=[name]) == []
    theirs, seeds = ch.stored(name)
    spread = comparison.spread(theirs["relu"])
    note = records[f"relu_{name}"]["note"]
    m = re.search(r"seed spreads ([0-9.]+) \(scripts\)", note)
    assert m, note
    assert f"{spread:.4f}" == m.group(1), (name, spread, note)
    gaps = comparison.pair_gaps(theirs["relu"], theirs["gdln"])
    committed = records[f"relu_gdln_{name}"]["paper"]
    assert np.isclose(np.median(gaps), committed, rtol=1e-5), (name, gaps, committed)


def test_section4_spread_and_gap_are_the_audited_values(records):
    theirs, _ = ch.stored("section4")
    assert round(comparison.spread(theirs["relu"]), 4) == 0.0118
    gaps = comparison.pair_gaps(theirs["relu"], theirs["gdln"])
    assert round(float(np.median(gaps)), 6) == 0.074213


def test_compare_reads_each_side_from_its_own_curves():
    theirs, _ = ch.stored("section4", 4)
    ours = {k: 1.5 * c for k, c in theirs.items()}
    c = comparison.compare("section4", theirs, ours)
    gaps = comparison.pair_gaps(theirs["relu"], theirs["gdln"])
    np.testing.assert_array_equal(c.rg_theirs, gaps)
    assert c.final_ours == pytest.approx(1.5 * c.final_theirs)
    assert c.spread_theirs == pytest.approx(comparison.spread(theirs["relu"]))


def _pathway_stds(net, layer=-1):
    L = net.layers[layer]
    return {
        n: (float(L.in_std[sl][0]), sl.stop - sl.start, bool(L.common[sl][0]))
        for n, sl in L.pathways
    }


@pytest.mark.parametrize("name", ["section4", "contexts3", "contexts4", "contexts5"])
def test_the_authors_start_is_the_ledger_and_the_page_setup(name):
    """Three statements of a script's ReLN start agree: the ``authors`` start of the
    one initialisation function (paper.toml's [authors_init] table), the ledger's book
    column, and this page's own setup."""
    from helpers.core.relns import context_reln, start

    key = LEDGER_KEY[name]
    exp = ledger.experiment(key)
    s = ch.setup(name)
    C = s.ds.n_contexts
    kind = "both" if C == 3 else "mixed"
    reln = context_reln(s.ds, kind, width=int(exp.row("reln_width").book))
    st = start(
        reln, "authors", [0], experiment=key, relu_net=s.relu, contexts=s.ds.contexts
    )
    started = _pathway_stds(st.net)
    page = _pathway_stds(s.gdln)
    assert len(started) == len(page) == exp.row("reln_modules").book
    book = {
        True: ledger._number(exp.row("reln_std_common").book),
        False: ledger._number(exp.row("reln_std_context").book),
    }
    for stds in (started, page):
        assert sum(common for _, _, common in stds.values()) == 1
        for p, (std, width, common) in stds.items():
            assert width == exp.row("reln_width").book, (name, p)
            assert np.isclose(std, book[common], rtol=1e-9), (name, p, std)
    # the ReLU network: width and std
    relu = s.relu.layers[0]
    assert relu.width == exp.row("relu_width").book
    assert np.allclose(relu.in_std, ledger._number(exp.row("relu_std").book))


def test_the_depth_setup_is_the_ledger():
    exp = ledger.experiment("depth")
    s = ch.setup("depth")
    assert np.allclose(s.relu.layers[0].in_std, exp.row("relu_std").book)
    l1, l2 = s.gdln.layers
    assert np.allclose(l1.in_std, exp.row("gdln_std_layer1").book)
    assert np.allclose(l2.in_std, exp.row("gdln_std_layer2").book)
    st = _pathway_stds(s.gdln)
    out = {n: float(l2.out_std[sl][0]) for n, sl in l2.pathways}
    for n, (_, _, common) in st.items():
        row = "gdln_std_readout_common" if common else "gdln_std_readout_context"
        assert np.isclose(out[n], exp.row(row).book), (n, out[n])
    on = sorted({int(e) for e in l2.on_epoch})
    assert on == list(exp.row("schedule").book)


def test_scripts_relu_init_is_the_scripts_draw():
    """The draw of ``init_random_params_relu`` (np.random.seed, then one
    np.random.normal matrix per layer, inputs first), restated."""
    np.random.seed(3)
    want = [np.random.normal(0.0, 0.01, (n, m)) for m, n in [(11, 20), (20, 6)]]
    got = ch.scripts_relu_init((11, 20, 6), 0.01, 3)
    assert [W.shape for W in got] == [(20, 11), (6, 20)]
    assert all(np.array_equal(a, b) for a, b in zip(got, want))
    for bad, match in (((11,), "sizes"), ((11, 0, 6), "sizes")):
        with pytest.raises(ValueError, match=match):
            ch.scripts_relu_init(bad, 0.01, 3)
    with pytest.raises(ValueError, match="std"):
        ch.scripts_relu_init((11, 20, 6), -1.0, 3)
    with pytest.raises(ValueError, match="seed"):
        ch.scripts_relu_init((11, 20, 6), 0.01, -3)


def test_the_engine_from_the_scripts_weights_is_the_script_bit_for_bit():
    """Section 4's ReLU network, from the script's weights of stored seed 1: the
    engine's first 150 losses equal the script's stored ones exactly."""
    from helpers.core.engine import train

    s = ch.setup("section4")
    runs = crosscheck.load("section4")
    seed = runs.seeds[0]
    W0 = ch.scripts_relu_init(s.relu.sizes, 0.005 / 700, seed)
    run = train(s.relu, s.ds.X, s.ds.Y, lr=s.lr, epochs=150, seeds=[seed], params0=W0)
    assert np.array_equal(experiments.align(run.loss)[0], runs.curves["relu"][0, :150])


@pytest.fixture(scope="module")
def race():
    if "race" not in crosscheck.manifest()["experiments"]["section4"]["scripts"]:
        pytest.skip("no stored run of race.py")
    return ch.race_check()


def test_the_stored_race_py_run_is_the_books_race_to_float32_rounding(race):
    """Fig. 4a's race: the authors' race.py as stored against the book's integration
    of it (contexts page), epoch by epoch after the one-epoch alignment."""
    assert race.theirs.shape == race.ours.shape == (8001,)
    worst, epoch = race.worst
    assert worst < 1e-4 and 1 <= epoch <= 8001
    assert race.gap < 1e-4
    # a one-epoch offset is visible: the comparison resolves the recording convention
    assert race.unshifted.max() > 100 * worst
    text = ch.race_text(race)
    assert f"{worst:.2g}" in text and "float32" in text


def test_a_race_py_run_that_differs_is_seen(race, tmp_path):
    """A stored race.py curve 1 % off (a stand-in for another race) is 1 % apart."""
    runs = tmp_path / "runs"
    shutil.copytree(crosscheck.RUNS, runs)
    with np.load(runs / "section4.npz") as z:
        arrays = {k: np.array(z[k]) for k in z.files}
    arrays["race"] = (arrays["race"] * np.float32(1.01)).astype(np.float32)
    np.savez_compressed(runs / "section4.npz", **arrays)
    man = json.loads((runs / "manifest.json").read_text())
    digest = hashlib.sha256((runs / "section4.npz").read_bytes()).hexdigest()
    man["experiments"]["section4"]["sha256"] = digest
    (runs / "manifest.json").write_text(json.dumps(man))
    off = ch.race_check(runs)
    assert off.worst[0] == pytest.approx(0.01 / 1.01, rel=1e-2)
    fig = ch.plot_race(off)
    assert len(fig.axes) == 2 and len(fig.axes[0].lines) == 2
    assert len(fig.axes[1].lines) == 3  # aligned, one epoch off, float32's epsilon


def _curves(taus, T=3000):
    t = np.arange(T, dtype=float)
    return np.exp(-t[None] / np.asarray(taus, float)[:, None])


def test_the_permutation_test_tells_chance_from_a_wider_scatter():
    rng = np.random.default_rng(1)
    a = _curves(100 * np.exp(0.02 * rng.standard_normal(10)))
    b = _curves(100 * np.exp(0.02 * rng.standard_normal(10)))
    wide = _curves(100 * np.exp(0.2 * rng.standard_normal(10)))
    d, p = spreads.permutation_p(a, b, n=300)
    assert p > 0.05 and abs(d) < 0.02
    d, p = spreads.permutation_p(a, wide, n=300)
    assert p < 0.01 and d > 0.05
    with pytest.raises(ValueError, match="at least 2"):
        spreads.permutation_p(a[:1], b)


def test_the_spread_text_says_chance_only_when_the_test_allows_it():
    r = spreads.ScriptSpread(
        seeds=list(range(1, 25)), theirs=0.0188, theirs_interval=(0.016, 0.022),
        same=0.0188, same_interval=(0.016, 0.022), same_gap=0.001, ours=0.0245,
        ours_interval=(0.019, 0.03), ours_seeds=24, difference=0.0057, p=0.15,
        first=(0.018, 0.0272),
    )  # fmt: skip
    text = ch.script_spread_text("C = 4", r)
    assert "0.0180" in text and "0.0272" in text and "15 %" in text
    assert "chance of the two draws" in text
    text = ch.script_spread_text("C = 4", replace(r, p=0.01))
    assert "not found here" in text and "chance of the two draws" not in text
