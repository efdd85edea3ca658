"""The records and glued numbers of the chapter *Real data* come from one call,
``report(rec, runs, params)``: run here on the page's own science at a tiny scale (30
images, 8 hidden units, 1500 epochs, 2 seeds; the controls read from the task's own
runs) into a scratch folder."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

import helpers as h
from helpers.book import kit
from helpers.book.records import Records
from helpers.chapters import digits as ch
from tests.chapters.digits_params import TINY
from tests.chapters.records_check import check_records

#: The page's science on a shrunk setting still compiles many networks (20-70 s
#: on 2 cores): the full test command runs it, the quick unit subset does not.
pytestmark = pytest.mark.slow

PAGE = Path(__file__).resolve().parents[2] / "book" / "digits.md"
PARAMS = ch.params.Params(**TINY)


def _tiny(p=PARAMS):
    """The page's runs at a tiny scale, as the page computes them."""
    seeds, epochs, std = list(range(p.seeds)), p.epochs, p.relu_std
    task = ch.task.digits_task(p.images_per_class, p.test_fraction, p.split_seed)
    ds = task.train
    X, Y = ds.X, ds.Y
    lr = ch.task.step_size(ds, p.kappa)
    net = h.relu_network((X.shape[0], p.relu_width, Y.shape[0]), std)
    sample_at = h.algorithm1.sample_epochs(epochs, p.sample_every)
    relu = h.train(
        net, X, Y, lr=lr, epochs=epochs, seeds=seeds,
        record_epochs=np.union1d(sample_at, [0, epochs]),
        record=("gates", "outputs", "weights"),
    )  # fmt: skip
    samples_all = h.algorithm1.samples_from_run(
        relu, 0, epochs=sample_at, trainings=range(p.trainings)
    )
    samples, live = ch.elbow.live_samples(samples_all, p.gate_tolerance)
    fits = [
        ch.elbow.centroid_fit(
            samples, ds, K, lr=lr, epochs=epochs, init_std=std, n_init=2,
            n_seeds=p.elbow_seeds, gdln_width=round(live * p.relu_width),
        )
        for K in range(1, p.k_max + 1)
    ]  # fmt: skip
    census = ch.gates.census_over_training(relu, ds, task.labels_train, 0.05)
    relns, starts, preds = {}, {}, {}
    start_kw = dict(relu_net=net, relu_std=std)
    for kind in ("mixed", "single"):
        reln = h.context_reln(ds, kind, "one-way", width=p.reln_width)
        relns[kind], starts[kind] = h.relns.start_and_train(
            reln, "matched", seeds, X, Y, lr=lr, epochs=epochs, start_kw=start_kw,
            record_epochs=[epochs], record=("weights",),
        )  # fmt: skip
        preds[kind] = h.race.predict(starts[kind].net, X, Y, lr=lr, epochs=epochs)
    relns["derived"], starts["derived"] = h.relns.start_and_train(
        h.context_reln(ds, "mixed", "one-way", width=p.reln_width), "derived", seeds,
        X, Y, lr=lr, epochs=epochs,
        start_kw=dict(start_kw, X=ds.X, contexts=ds.contexts),
    )  # fmt: skip
    L = {k: relns[k].loss for k in ("mixed", "single")}
    summary = ch.controls.control_summary({"relu": relu.loss, **L}, ds, 0.1)
    names = ("the task", "affine targets", "whitened pixels", "random context labels")
    return ch.report.Runs(
        task=task, relu=relu, euler={0.5: 0.01, 2.0: 0.02}, samples_all=samples_all,
        t_collapse=0.0, fits=fits, census=census, relns=relns, starts=starts,
        preds=preds, controls=dict.fromkeys(names, summary),
    )  # fmt: skip


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    glued = {}
    runs = _tiny()
    mp = pytest.MonkeyPatch()

    def glue(name, value):
        glued[name] = value

    mp.setattr(kit, "glue", glue)  # the report glues through the kit
    try:
        rec = Records("digits", directory=tmp_path_factory.mktemp("records"))
        tables = ch.report.report(rec, runs, PARAMS)
    finally:
        mp.undo()
    stored = json.loads((rec.directory / "digits.json").read_text())
    return runs, tables, stored, glued


def test_every_registered_record_is_written_with_the_rulebooks_verdict(written):
    _, _, stored, _ = written
    check_records("digits", stored)
    for name, r in stored.items():
        assert r["verdict"] in ("finding", "measured"), name


def test_the_numbers_are_the_science_functions(written):
    runs, _, stored, _ = written
    ref = ch.task.reference_losses(runs.task)
    shuffled = ch.gates.shuffle_contexts(runs.task.train, PARAMS.shuffle_seed)
    elbow = ch.elbow.read_elbow(runs.fits, runs.task, 0.05, shuffled)
    L = {k: r.loss for k, r in runs.relns.items()}
    gaps = ch.comparison.reln_gaps(
        runs.relu.loss, L, runs.preds, elbow.best.run.loss, ref, PARAMS
    )
    assert stored["reln_vs_relu"]["value"] == pytest.approx(gaps.m_reln.value, 1e-5)
    assert stored["reln_vs_relu"]["alternative"] == pytest.approx(
        gaps.m_reln.alternative, rel=1e-5
    )
    assert stored["reln_vs_prediction"]["value"] == pytest.approx(
        gaps.m_pred["mixed"].value, rel=1e-5
    )
    assert "lag_percent" in stored["reln_vs_relu"]
    assert stored["reln_floor"]["value"] == pytest.approx(ref.floor / ref.L0, 1e-5)
    assert 0 < ref.floor < ref.linear < ref.L0
    assert stored["best_k"]["value"]["bend rule"]["k"] == elbow.best_k
    rows = ch.report.gap_table(gaps).splitlines()[2:]  # every gap to three decimals
    assert len(rows) == 4 and f"{gaps.m_reln.value:.3f}" in rows[0]
    assert all(
        re.fullmatch(r"\d+\.\d{3}", c.strip())
        for r in rows
        for c in r[1:-1].split("|")[1:]
    )
    census = stored["census_context_level"]["value"]
    assert "epoch 0 (initialisation)" in census
    assert f"shuffled contexts, epoch {PARAMS.epochs}" in census
    assert stored["census_context_level"]["note"].startswith("single / 2-of-3 weight")
    err = ch.task.relu_errors(runs.relu, runs.task)["test"]["error"]
    assert stored["test_error_relu"]["spread"] == pytest.approx(np.ptp(err), 1e-5)
    assert stored["test_error_relu"]["value"] == pytest.approx(np.median(err), 1e-5)


def test_every_number_the_prose_cites_is_glued(written):
    _, tables, _, glued = written
    cited = set(re.findall(r"\{glue:text\}`(\w+)", PAGE.read_text()))
    assert cited and cited <= set(glued), sorted(cited - set(glued))
    assert set(tables) == {"controls", "summary", "printed"}
    assert tables["printed"].startswith("best_k")
    assert "| affine targets " in tables["controls"]
    assert glued["digits_n_seeds"] == 2 and glued["digits_width"] == 8


def test_the_prose_follows_the_records(written):
    runs, _, _, glued = written
    shuffled = ch.gates.shuffle_contexts(runs.task.train, PARAMS.shuffle_seed)
    c = ch.elbow.read_elbow(runs.fits, runs.task, 0.05, shuffled).best_classes
    words = glued["digits_alg1_words"]
    assert f"single-context {c['single']:.2f}" in words
    # this tiny run's elbow: single-context clusters outweigh the 2-of-3 ones
    assert c["single"] > c["mixed"]
    assert "single-context clusters outweigh the 2-of-3 ones" in words
    assert "initialisation" in glued["digits_census_words"]
    assert glued["digits_whitened_words"].startswith("With whitened pixels")
    # 30 images of 64 pixels: the floor is far below L0 / 2, every level is kept
    assert glued["digits_floor_frac"] < 0.15 and glued["digits_n_above"] == 3


@pytest.mark.parametrize(
    "single, mixed, words",
    [
        (0.4, 0.1, "single-context clusters outweigh the 2-of-3 ones"),
        (0.1, 0.4, "2-of-3 clusters outweigh the single-context ones"),
        (0.2, 0.2, "single-context and 2-of-3 clusters weigh the same"),
    ],
)
def test_the_cluster_sentence_says_which_way_the_shares_go(single, mixed, words):
    c = {"common": 0.5, "mixed": mixed, "single": single, "other": 0.0}

    class R:
        class el:
            best_classes = c
            best_classes_shuffled = c

    text = ch.report._cluster_words(R)
    assert words in text
    assert f"2-of-3 {mixed:.2f}, single-context {single:.2f}" in text


def test_timing_levels_and_the_chance_controls_check_their_input():
    timing_levels = ch.comparison.timing_levels
    assert timing_levels([0.3, 0.7, 0.5, 0.1], 0.1157, 2.0) == (0.7, 0.5, 0.3)
    assert timing_levels([0.5, 0.1], 0.4, 2.0) == (0.5,)
    with pytest.raises(ValueError, match="levels must be fractions"):
        timing_levels([1.5], 0.1, 2.0)
    with pytest.raises(ValueError, match="margin must be"):
        timing_levels([0.5], 0.1, 0.5)
    assert ch.gates.compare_to_chance(0.2, {"a": 0.5, "b": 0.6}) == "below"
    assert ch.gates.compare_to_chance(0.55, {"a": 0.5, "b": 0.6}) == "within"
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    with pytest.raises(ValueError, match="permutation"):
        ch.gates.census_shuffled(None, ds, [0], np.zeros(ds.P, int))
