"""The records and glued numbers of the chapter *Real data* come from one call,
``helpers.chapters.digits.report``: run here on a tiny real run of the page's science
(30 images, 8 hidden units, 1500 epochs, 2 seeds; the controls read from the task's
own runs; the race prediction, the derived ReLN and some of the time gaps stood in for
by the matched ReLN's) into a scratch folder."""

import importlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

import helpers as h
from helpers.book import rulebook
from helpers.book.records import Records
from helpers.chapters import digits as ch
from helpers.core.measures import Evidence

report_module = importlib.import_module("helpers.chapters.digits.report")
PAGE = Path(__file__).resolve().parents[2] / "book" / "digits.md"


def _tiny():
    """The page's science at a tiny scale, under the page's names."""
    p = dict(
        images_per_class=3,
        test_fraction=0.2,
        split_seed=0,
        SEEDS=[0, 1],
        trainings=2,
        relu_width=8,
        reln_width=2,
        relu_std=0.2,
        kappa=0.5,
        epochs=1500,
        sample_every=100,
        k_max=3,
        elbow_seeds=2,
        kmeans_n_init=2,
        gate_tolerance=0.05,
        shuffle_seed=0,
        reln_levels=[0.7, 0.5, 0.3],
        floor_margin=2.0,
    )
    med = lambda v: float(np.median(v))  # noqa: E731
    task = ch.digits_task(p["images_per_class"], p["test_fraction"], p["split_seed"])
    ds, test = task.train, task.test
    X, Y, seeds, epochs = ds.X, ds.Y, p["SEEDS"], p["epochs"]
    L0 = 0.5 * float(np.sum(Y**2))
    R_star = h.common_fit(ds)[1]
    floor = ch.affine_floor(ds)
    lr = ch.step_size(ds, p["kappa"])
    net = h.relu_network((X.shape[0], p["relu_width"], Y.shape[0]), p["relu_std"])
    sample_at = ch.sample_epochs(epochs, p["sample_every"])
    relu = h.train(
        net, X, Y, lr=lr, epochs=epochs, seeds=seeds,
        record_epochs=np.union1d(sample_at, [0, epochs]),
        record=("gates", "outputs", "weights"),
    )  # fmt: skip
    samples_all = ch.samples_from_run(relu, 0, epochs=sample_at, trainings=range(2))
    samples, live_share = ch.live_samples(samples_all, p["gate_tolerance"])
    gdln_width = round(live_share * p["relu_width"])
    fits = [
        ch.centroid_fit(
            samples, ds, K, lr=lr, epochs=epochs, init_std=p["relu_std"], n_init=2,
            n_seeds=2, gdln_width=gdln_width,
        )
        for K in (1, 2, 3)
    ]  # fmt: skip
    errors_seed = np.array([f.output_mse_per_seed for f in fits])
    k_bend = ch.k_rule([1, 2, 3], errors_seed)
    k_check = ch.k_rule([1, 2, 3], errors_seed, "within")
    best = fits[k_bend["k"] - 1]
    sources = [
        ch.gate_sources(f.clustering.binary, ds, task.labels_train, 0.05) for f in fits
    ]
    cols_test = ch.held_out_columns(task)
    err_gdln = {
        f.K: ch.answers(ch.final_outputs(f.run, test.X, cols_test), task, "test")
        for f in fits
        if f.run is not None
    }
    census = ch.census_over_training(relu, ds, task.labels_train, 0.05)
    t_half = med([h.measures.level_times(L, (0.5,))[0] for L in relu.loss])
    t_rec = relu.record_epochs
    early = int(t_rec[np.argmin(np.abs(t_rec - t_half))])
    census_at = {
        f"epoch {e}": {
            k: med(census[k][:, relu.index(e)]) for k in report_module.CLASSES
        }
        for e in (early, epochs)
    }
    runs, preds, relns_, p0s = {}, {}, {}, {}
    for kind in ("mixed", "single"):
        reln = h.context_reln(ds, kind, "one-way", width=p["reln_width"])
        relns_[kind], p0s[kind] = h.relns.start(
            reln, "matched", seeds, relu_net=net, relu_std=p["relu_std"]
        )
        runs[kind] = h.train(
            relns_[kind], X, Y, lr=lr, epochs=epochs, seeds=seeds, params0=p0s[kind],
            record_epochs=[epochs], record=("weights",),
        )  # fmt: skip
        preds[kind] = runs[kind]  # the race prediction: not needed here
    net_d, p0_d = h.relns.start(
        h.context_reln(ds, "mixed", "one-way", width=p["reln_width"]), "derived",
        seeds, relu_net=net, relu_std=p["relu_std"], X=ds.X, contexts=ds.contexts,
    )  # fmt: skip
    runs["derived"] = runs["mixed"]
    L = {k: r.loss for k, r in runs.items()}
    above = ch.timing_levels(p["reln_levels"], floor / L0, p["floor_margin"])
    shuffled = np.random.default_rng(0).permutation(ds.contexts)
    match = h.measures.match
    by_level = ch.gaps_by_level(relu.loss, L, L0, floor, grid=(0.9,))
    if not by_level:  # too short a run to reach the level
        by_level = {0.9: {"mixed": 0.1, "single": 0.2, "derived": 0.1, "spread": 0.05}}
    m_reln = match(relu.loss, L["mixed"], L["single"])
    m_reln_above = match(relu.loss, L["mixed"], L["single"], levels=above)
    summary = ch.control_summary(
        {"relu": relu.loss, "mixed": L["mixed"], "single": L["single"]}, ds, 0.1
    )
    names = ("the task", "affine targets", "whitened pixels", "random context labels")
    section4 = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    return ch.Results.of(
        {
            **p,
            "task": task,
            "L0": L0,
            "R_star": R_star,
            "L_linear": 0.5 * float(np.sum(R_star**2)),
            "floor": floor,
            "lr": lr,
            "relu": relu,
            "err_train": ch.answers(relu.records["outputs"][:, -1], task, "train"),
            "err_test": ch.answers(ch.final_outputs(relu, test.X), task, "test"),
            "euler": {0.5: 0.01, 2.0: 0.02},
            "samples_all": samples_all,
            "samples": samples,
            "live_share": live_share,
            "gdln_width": gdln_width,
            "t_collapse": 0.0,
            "fits": fits,
            "errors": np.median(errors_seed, axis=1),
            "k_bend": k_bend,
            "k_check": k_check,
            "best": best,
            "best_patterns": ch.pattern_strings(best.clustering.binary, ds.contexts, 3),
            "best_src": sources[k_bend["k"] - 1],
            "kinds_all": [s["kind"] for s in sources],
            "err_gdln": err_gdln,
            "census": census,
            "t_half": t_half,
            "early": early,
            "census_at": census_at,
            "census_init": {
                k: med(census[k][:, relu.index(0)]) for k in report_module.CLASSES
            },
            "census_shuffled": ch.census_shuffled(relu, ds, (early, epochs), shuffled),
            "best_classes": ch.cluster_classes(best.clustering, ds.contexts, 3),
            "best_classes_shuffled": ch.cluster_classes(best.clustering, shuffled, 3),
            "runs": runs,
            "preds": preds,
            "p0_d": p0_d,
            "net_d": net_d,
            "above": above,
            "m_reln": m_reln,
            "m_single": match(relu.loss, L["single"], L["mixed"]),
            "m_reln_above": m_reln_above,
            "m_single_above": match(relu.loss, L["single"], L["mixed"], levels=above),
            "m_derived": m_reln,  # the derived ReLN's gaps: stood in for
            "m_derived_above": m_reln_above,
            "by_level": by_level,
            "m_pred": dict.fromkeys(preds, m_reln),  # stood in for, as the race
            "m_gdln": m_reln,
            "err_reln": {
                k: ch.answers(
                    ch.final_outputs(runs[k], test.X, cols_test), task, "test"
                )
                for k in ("mixed", "single")
            },
            "diag_task": h.diagonalizability(X, Y),
            "diag_paths": ch.pathway_diagonalizability(relns_["mixed"], ds),
            "diag_s4": h.diagonalizability(section4.X, section4.Y),
            "controls": dict.fromkeys(names, summary),
        }
    )


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    glued = {}
    results = _tiny()
    mp = pytest.MonkeyPatch()
    mp.setattr(report_module, "glue", lambda name, value: glued.update({name: value}))
    try:
        rec = Records("digits", directory=tmp_path_factory.mktemp("records"))
        tables = ch.report(rec, results)
    finally:
        mp.undo()
    stored = json.loads((rec.directory / "digits.json").read_text())
    return results, tables, stored, glued


def test_every_registered_record_is_written(written):
    _, _, stored, _ = written
    assert set(stored) == set(rulebook.registry()["digits"])


def test_the_verdicts_are_the_rulebooks(written):
    _, _, stored, _ = written
    for name, r in stored.items():
        assert r["verdict"] == rulebook.decide(r, Evidence.from_record(r)).verdict
        assert r["verdict"] in ("finding", "measured"), name
        assert r.get("figure") == rulebook.claim("digits", name).get("figure"), name


def test_the_numbers_are_the_pages(written):
    results, _, stored, _ = written
    assert stored["reln_vs_relu"]["value"] == pytest.approx(
        results.m_reln.value, rel=1e-5
    )
    assert stored["reln_vs_relu"]["alternative"] == pytest.approx(
        results.m_reln.alternative, rel=1e-5
    )
    assert "lag_percent" in stored["reln_vs_relu"]
    assert stored["reln_floor"]["value"] == pytest.approx(
        results.floor / results.L0, rel=1e-5
    )
    assert stored["best_k"]["value"]["bend rule"]["k"] == results.best_k
    census = stored["census_context_level"]["value"]
    assert "epoch 0 (initialisation)" in census
    assert f"shuffled contexts, epoch {results.epochs}" in census
    assert stored["census_context_level"]["note"].startswith("single / 2-of-3 weight")
    assert stored["test_error_relu"]["spread"] == pytest.approx(
        float(np.ptp(results.err_test["error"])), rel=1e-5
    )


def test_every_number_the_prose_cites_is_glued(written):
    _, tables, _, glued = written
    cited = set(re.findall(r"\{glue:text\}`(\w+)", PAGE.read_text()))
    assert cited and cited <= set(glued), sorted(cited - set(glued))
    assert set(tables) == {"controls", "summary", "printed"}
    assert tables["printed"].startswith("best_k")
    assert "| affine targets |" in tables["controls"]


def test_the_prose_follows_the_records(written):
    results, _, _, glued = written
    c = results.best_classes
    words = glued["digits_alg1_words"]
    assert f"single-context {c['single']:.2f}" in words
    # the sentence follows the comparison: which class outweighs which, or a tie
    if c["single"] > c["mixed"]:
        assert "single-context clusters outweigh the 2-of-3 ones" in words
    elif c["mixed"] > c["single"]:
        assert "2-of-3 clusters outweigh the single-context ones" in words
    else:
        assert "weigh the same" in words
    assert "initialisation" in glued["digits_census_words"]
    assert glued["digits_whitened_words"].startswith("With whitened pixels")
    assert glued["digits_n_above"] == len(results.above)


def test_timing_levels_and_the_chance_controls_check_their_input():
    assert ch.timing_levels([0.3, 0.7, 0.5, 0.1], 0.1157, 2.0) == (0.7, 0.5, 0.3)
    assert ch.timing_levels([0.5, 0.1], 0.4, 2.0) == (0.5,)
    with pytest.raises(ValueError, match="levels must be fractions"):
        ch.timing_levels([1.5], 0.1, 2.0)
    with pytest.raises(ValueError, match="margin must be"):
        ch.timing_levels([0.5], 0.1, 0.5)
    assert ch.compare_to_chance(0.2, {"a": 0.5, "b": 0.6}) == "below"
    assert ch.compare_to_chance(0.55, {"a": 0.5, "b": 0.6}) == "within"
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    with pytest.raises(ValueError, match="permutation"):
        ch.census_shuffled(None, ds, [0], np.zeros(ds.P, int))
