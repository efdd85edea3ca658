"""The authors' scripts beside ours: the crosscheck command on a stand-in clone (no
network, no JAX in the scripts), the stored curves against their manifest, and the
comparison code of the page *Against the authors' code*."""

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from helpers.book import crosscheck as cc
from helpers.chapters import authors_code as ac
from helpers.chapters.authors_code import comparison, experiments

ROOT = Path(__file__).resolve().parents[2]

# A stand-in for one of the authors' scripts, with their conventions: a random seed
# line, a losses array saved under losses/, an MDS dump and a plot call.
STAND_IN = """\
import numpy as np
from replot import plot_outputs
{extra}
if __name__ == "__main__":
    num_epochs = 50
    seed = np.random.randint(0,100000) # the only randomness is in the init
    np.random.seed(seed)
    w = np.random.normal(0.0, 1.0)
    losses = np.zeros(num_epochs)
    for epoch in range(num_epochs):
        losses[epoch] = (1 + w * w) * np.exp(-0.05 * epoch)
        if epoch == 10:
            plot_outputs(losses, None, 'plots/out.pdf')
    np.savetxt('{losses}', losses)
    np.savetxt('mds/dump.txt', np.zeros((2, 2)))
"""
# plot_outputs fails if called: the crosscheck must have stubbed it.
REPLOT = "def plot_outputs(*args, **kwargs):\n    raise RuntimeError('plotted')\n"


def _stand_in_clone(root: Path) -> Path:
    for exp in cc.EXPERIMENTS.values():
        folder = root / exp.folder
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "replot.py").write_text(REPLOT)
        for s in exp.scripts:
            extra = "from replot_debug import plot_outputs\n" * (s.file == "gdln5.py")
            extra += "from replot import plot_outputs\n" * (s.file == "gdln5.py")
            (folder / s.file).write_text(STAND_IN.format(extra=extra, losses=s.losses))
    return root


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    clone = _stand_in_clone(tmp_path_factory.mktemp("clone"))
    out = tmp_path_factory.mktemp("runs")
    man = cc.crosscheck(
        clone,
        seeds=3,
        experiments=["section4", "contexts5"],
        out=out,
        command="test",
        log=lambda *_: None,
    )
    return clone, out, man


def test_a_folder_that_is_no_clone_is_refused_naming_authors(tmp_path):
    with pytest.raises(SystemExit, match="--authors .*not a clone"):
        cc.check_clone(tmp_path)
    with pytest.raises(SystemExit, match="--authors .*no such folder"):
        cc.check_clone(tmp_path / "absent")


def test_the_command_refuses_a_bad_path_by_name(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "helpers.book",
            "crosscheck",
            "--authors",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode != 0
    assert "--authors" in done.stderr and "not a clone" in done.stderr


def test_only_the_seed_line_dumps_and_plots_are_patched():
    text = STAND_IN.format(extra="", losses="losses/x.txt")
    out = cc.patch_script(text, 42, "x.py")
    assert "    seed = 42 # the only randomness" in out
    assert "np.random.randint" not in out
    assert "_crosscheck_skip('mds/dump.txt'" in out
    assert "np.savetxt('losses/x.txt', losses)" in out
    changed = [line for line in out.splitlines() if line not in set(text.splitlines())]
    assert len(changed) == 4  # the seed, the dump and the two stubs
    with pytest.raises(SystemExit, match="x.py: expected one line"):
        cc.patch_script(text.replace("seed = np", "s = np"), 1, "x.py")


def test_the_command_stores_one_curve_per_seed(stored):
    clone, out, man = stored
    assert man["patches"] == list(cc.PATCHES)
    for name in ("section4", "contexts5"):
        runs = cc.load(name, out)
        assert runs.seeds == (1, 2, 3)
        race = {"race"} if name == "section4" else set()
        assert set(runs.curves) == {"relu", "gdln"} | race
        for key, c in runs.curves.items():
            rows = 1 if key == "race" else 3  # race.py is run once, for seed 1
            assert c.shape == (rows, 50)
            # seed s: the stand-in's loss starts at 1 + w^2, w ~ N(0, 1) from seed s
            np.random.seed(rows - 1 or 1)  # the second seed; race: its only, seed 1
            w = np.random.normal(0.0, 1.0)
            assert c[min(1, rows - 1), 0] == pytest.approx(1 + w * w, rel=1e-6)
            assert len(man["experiments"][name]["scripts"][key]["seconds"]) == rows
    entry = man["experiments"]["section4"]
    assert entry["scripts"]["relu"]["script"] == "3_context_diff/relu.py"
    assert entry["command"] == "test" and entry["jax"]
    # nothing was written into the clone
    assert not any((clone / "3_context_diff").glob("losses*"))
    assert not (clone / "diff_context_num" / "replot_debug.py").exists()
    assert cc.verify(out) == []


def _copy_runs(out, tmp_path):
    """A copy of the stored runs in ``out``, to change without touching them."""
    copy = tmp_path / "runs"
    copy.mkdir()
    for p in out.iterdir():
        (copy / p.name).write_bytes(p.read_bytes())
    return copy


def test_one_script_run_again_keeps_the_others_as_stored(stored, tmp_path):
    clone, out, _ = stored
    copy = _copy_runs(out, tmp_path)
    # the stand-in race.py now gives another curve: only it may change
    race = clone / "3_context_diff" / "race.py"
    text = race.read_text()
    race.write_text(text.replace("np.exp(-0.05 * epoch)", "np.exp(-0.07 * epoch)"))
    try:
        man = cc.crosscheck(
            clone,
            seeds=3,
            experiments=["section4"],
            out=copy,
            command="again",
            log=lambda *_: None,
            scripts=["race"],
        )
    finally:
        race.write_text(text)
    before, after = cc.load("section4", out), cc.load("section4", copy)
    for key in ("relu", "gdln"):
        assert np.array_equal(before.curves[key], after.curves[key])
    assert not np.array_equal(before.curves["race"], after.curves["race"])
    entry = man["experiments"]["section4"]
    assert entry["command"] == "test"  # the seeded curves' run
    assert cc.provenance(entry, "race")["command"] == "again"
    assert cc.provenance(entry, "relu")["command"] == "test"
    assert entry["scripts"]["race"]["seeds"] == [1]
    assert (
        man["experiments"]["contexts5"] == cc.manifest(out)["experiments"]["contexts5"]
    )
    with pytest.raises(SystemExit, match="stored for seeds"):
        cc.crosscheck(clone, 2, ["section4"], copy, log=None, scripts=["relu"])
    # one script stored for more seeds: the first rows are the experiment's seeds
    cc.crosscheck(clone, 5, ["section4"], copy, log=lambda *_: None, scripts=["relu"])
    more = cc.load("section4", copy)
    assert more.seeds == (1, 2, 3) and more.curves["relu"].shape == (5, 50)
    assert np.array_equal(more.curves["relu"][:3], before.curves["relu"])
    assert more.meta["scripts"]["relu"]["seeds"] == [1, 2, 3, 4, 5]
    with pytest.raises(SystemExit, match="--scripts"):
        cc.crosscheck(clone, 3, ["contexts5"], copy, log=None, scripts=["race"])


def test_a_stored_curve_that_changes_fails_the_check(stored, tmp_path):
    _, out, _ = stored
    copy = _copy_runs(out, tmp_path)
    with np.load(copy / "section4.npz") as z:
        arrays = {k: z[k] for k in z.files}
    arrays["relu"] = arrays["relu"].copy()
    arrays["relu"][0, 5] *= 1.001
    np.savez_compressed(copy / "section4.npz", **arrays)
    problems = cc.verify(copy)
    assert len(problems) == 1 and "section4" in problems[0]
    with pytest.raises(ValueError, match="changed since it was stored"):
        cc.load("section4", copy)
    with pytest.raises(FileNotFoundError, match="--experiments depth"):
        cc.load("depth", copy)


def test_the_committed_curves_match_their_manifest():
    man = cc.manifest()
    if not man:
        pytest.skip("no stored runs of the authors' scripts")
    assert cc.verify() == []
    assert set(man["experiments"]) <= set(cc.EXPERIMENTS)
    assert man["commit"].startswith(cc.CHECKED_COMMIT)
    for name, entry in man["experiments"].items():
        runs = cc.load(name)
        assert len(runs.seeds) >= 2
        epochs = ac.setup(name).epochs
        for key, c in runs.curves.items():
            rows = len(entry["scripts"][key].get("seeds", runs.seeds))
            assert c.shape == (rows, epochs), (name, key)
            assert np.all(np.isfinite(c)) and c[:, -1].max() < c[:, 0].min()
            assert len(entry["scripts"][key]["seconds"]) == rows
            assert cc.provenance(entry, key)["command"].startswith(
                "python -m helpers.book crosscheck"
            )


def test_time_gap_of_curves_one_time_scale_apart():
    t = np.arange(2000.0)
    fast = np.exp(-t / 100)[None].repeat(3, 0)
    slow = np.exp(-t / 150)[None].repeat(3, 0)
    g = comparison.pair_gaps(fast, slow)
    assert g.shape == (3,)
    assert np.allclose(g, np.log(1.5), atol=0.02)
    assert comparison.spread(fast) == 0.0
    assert comparison.cross_gaps(fast, slow[:2]).shape == (6,)
    with pytest.raises(ValueError, match="3 curves against 2"):
        comparison.pair_gaps(fast, slow[:2])


def test_align_drops_the_loss_before_the_first_update():
    L = np.arange(12.0).reshape(2, 6)
    assert np.array_equal(experiments.align(L), L[:, 1:])


def test_compare_on_curves_of_the_same_shape():
    t = np.arange(3000.0)
    taus = np.array([100.0, 110.0, 120.0, 130.0])
    relu = np.exp(-t[None] / taus[:, None])
    gdln = np.exp(-t[None] / (1.2 * taus[:, None]))
    c = comparison.compare(
        "x", {"relu": relu, "gdln": gdln}, {"relu": relu, "gdln": gdln}
    )
    assert c.seeds == 4
    assert c.spread_theirs == c.spread_ours > 0
    # every seed against every seed: the same set of curves is as far as its spread
    assert c.gap == pytest.approx(np.median(comparison.cross_gaps(relu, relu)))
    assert np.allclose(c.rg_theirs, np.log(1.2), atol=0.02)
    with pytest.raises(ValueError, match="run as many seeds"):
        comparison.compare(
            "x", {"relu": relu, "gdln": gdln}, {"relu": relu[:2], "gdln": gdln}
        )


@pytest.mark.parametrize("name", ac.EXPERIMENTS)
def test_our_setups_follow_the_scripts(name):
    s = ac.setup(name)
    C = s.ds.n_contexts
    assert s.ds.X.shape == (8 + C, 8 * C) and s.ds.Y.shape == (15 * (C + 1), 8 * C)
    assert s.lr == 0.001
    n_pathways = {"section4": 7, "contexts3": 7, "contexts4": 5, "contexts5": 6}
    if name == "depth":
        assert s.relu.sizes == (11, 420, 420, 60) and s.epochs == 30001
        assert s.gdln.pathway_names() == ["common", "ctx12", "ctx13", "ctx23"]
        assert s.gdln.layers[1].on_epoch.max() == 12000
        assert s.gdln.coupling == "one-way"
    else:
        assert len(s.gdln.pathway_names()) == n_pathways[name]
        assert s.epochs == 8001
        width = s.relu.sizes[1]
        assert np.allclose(s.relu.layers[0].in_std, 0.005 / width)
    scale = {"contexts4": 1.1, "contexts5": 1.35}.get(name, 1.0)
    assert np.allclose(s.ds.X[8:].max(axis=1), scale)


def test_run_ours_gives_the_scripts_recording():
    s = replace(ac.setup("contexts4"), epochs=20)
    out = experiments.run_ours(s, [0, 1])
    assert out["relu"].shape == out["gdln"].shape == (2, 20)
