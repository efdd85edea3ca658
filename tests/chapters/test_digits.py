"""The real-data chapter's task and measurements (helpers.chapters.digits)."""

import numpy as np
import pytest

import helpers as h
from helpers.chapters import digits as ch
from helpers.core.relns import context_reln, item_rows
from tests.chapters.digits_params import TINY


@pytest.fixture(scope="module")
def small():
    return ch.task.digits_task(3)


def test_task_shapes_and_names(small):
    ds, test = small.train, small.test
    assert ds.X.shape == (64 + 3, 3 * 30) and ds.Y.shape == (10 + 2 + 2 + 3, 3 * 30)
    assert test.X.shape[1] == 3 * small.images_test.size and test.Y.shape[0] == 17
    assert ds.n_contexts == test.n_contexts == 3
    # the context pathways see the pixels, every row but ctx1..ctx3
    assert item_rows(ds) == list(range(64))
    assert ds.inputs[64:] == ("ctx1", "ctx2", "ctx3")
    # context-major columns, the same images in every context
    np.testing.assert_array_equal(ds.contexts, np.repeat([0, 1, 2], 30))
    np.testing.assert_array_equal(ds.items, np.tile(small.images_train, 3))
    # three images of every class in the training set
    np.testing.assert_array_equal(np.bincount(small.labels_train), [3] * 10)


def test_inputs_are_scaled_non_negative_pixels_over_the_context_one_hot(small):
    ds = small.train
    pixels = ds.X[:64, :30]
    assert pixels.min() >= 0
    assert np.mean(np.sum(pixels**2, axis=0)) == pytest.approx(1.0)
    np.testing.assert_array_equal(ds.X[64:], np.repeat(np.eye(3), 30, axis=1))
    # the same image gives the same pixels in every context
    np.testing.assert_array_equal(ds.X[:64, :30], ds.X[:64, 30:60])
    # the test split uses the training scale (one factor from the training images)
    from sklearn.datasets import load_digits

    raw = load_digits().data[small.images_test[0]]
    np.testing.assert_allclose(small.test.X[:64, 0], small.scale * raw)


def test_blocks_are_one_hot_in_their_context_and_zero_outside(small):
    ds = small.train
    rows = small.rows()
    assert list(rows) == ["class", "parity", "ge5", "mod3"]
    labels = np.tile(small.labels_train, 3)
    np.testing.assert_array_equal(np.argmax(ds.Y[rows["class"]], axis=0), labels)
    np.testing.assert_array_equal(ds.Y[rows["class"]].sum(axis=0), 1)
    truth = {"parity": labels % 2, "ge5": (labels >= 5).astype(int), "mod3": labels % 3}
    for k, b in enumerate(["parity", "ge5", "mod3"]):
        block = ds.Y[rows[b]]
        inside = ds.contexts == k
        assert np.all(block[:, ~inside] == 0), b
        np.testing.assert_array_equal(block[:, inside].sum(axis=0), 1)
        np.testing.assert_array_equal(
            np.argmax(block[:, inside], axis=0), truth[b][inside]
        )


def test_split_is_deterministic_stratified_and_disjoint():
    a, b = ch.task.digits_task(5, seed=0), ch.task.digits_task(5, seed=0)
    np.testing.assert_array_equal(a.images_train, b.images_train)
    np.testing.assert_array_equal(a.images_test, b.images_test)
    np.testing.assert_array_equal(a.train.X, b.train.X)
    c = ch.task.digits_task(5, seed=1)
    assert not np.array_equal(a.images_test, c.images_test)
    full = ch.task.digits_task(0)
    assert not set(full.images_train) & set(full.images_test)
    assert full.images_train.size + full.images_test.size == 1797
    # about a fifth of every class is held out
    frac = np.bincount(full.labels_test) / (
        np.bincount(full.labels_test) + np.bincount(full.labels_train)
    )
    assert np.all(np.abs(frac - 0.2) < 0.01)
    # the subsample is drawn from the training split, never from the test split
    assert set(a.images_train) <= set(full.images_train)
    np.testing.assert_array_equal(a.images_test, full.images_test)


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="images_per_class"):
        ch.task.digits_task(500)
    with pytest.raises(ValueError, match="images_per_class"):
        ch.task.digits_task(-1)
    with pytest.raises(ValueError, match="test_fraction"):
        ch.task.digits_task(3, test_fraction=1.0)


def test_step_size_rule_and_the_floor(small):
    ds = small.train
    lr = ch.task.step_size(ds, 0.1)
    s1 = np.linalg.svd(ds.Y @ ds.X.T, compute_uv=False)[0]
    assert lr * s1 == pytest.approx(0.1)
    # a context-gated ReLN fits an affine map of the pixels per context: below the best
    # linear map of X, above zero
    floor = ch.task.affine_floor(ds)
    linear = 0.5 * np.sum(h.common_fit(ds)[1] ** 2)
    assert 0 <= floor < linear
    # on Section 4's one-hot items a per-context affine map fits everything
    assert (
        ch.task.affine_floor(h.contextual_task(3, ["hierarchy", "ring", "cross"]))
        < 1e-20
    )


def test_answers_count_class_and_context_label(small):
    ds = small.train
    assert ch.task.answers(ds.Y, small)["error"] == 0
    Yhat = ds.Y.copy()
    rows = small.rows()
    # break the parity answer of the first datapoint of context 1
    Yhat[rows["parity"], 0] = Yhat[rows["parity"], 0][::-1]
    e = ch.task.answers(np.stack([ds.Y, Yhat]), small)
    np.testing.assert_allclose(e["error"], [0, 1 / ds.P])
    np.testing.assert_allclose(e["class_error"], [0, 0])
    np.testing.assert_allclose(e["context_error"], [0, 1 / ds.P])


def test_gate_sources_tell_context_image_and_both_apart(small):
    ds = small.train
    n = 30
    labels = small.labels_train
    by_ctx = np.repeat([1.0, 0.0, 1.0], n)  # on in contexts 1 and 3
    by_img = np.tile((labels >= 5).astype(float), 3)  # the same in every context
    both = by_ctx * by_img
    off = np.zeros(ds.P)
    G = np.stack([by_ctx, by_img, both, off, np.ones(ds.P)])
    src = ch.gates.gate_sources(G, ds, labels, tol=0.05)
    assert list(src["kind"]) == ["context", "item", "both", "off", "context"]
    np.testing.assert_allclose(src["dev_context"][:2], [0, 0.5])  # half the images
    assert src["dev_class"][2] == 0  # "both" here is a function of class and context
    # one datapoint flipped stays within the tolerance
    flip = by_ctx.copy()
    flip[0] = 0
    assert ch.gates.gate_sources(flip[None], ds, tol=0.05)["kind"][0] == "context"
    w = ch.gates.weight_by_kind(src["kind"], [1, 1, 2, 0, 0])
    assert w == {"off": 0.0, "context": 0.25, "item": 0.25, "both": 0.5}


def test_held_out_columns_keep_the_context(small):
    cols = ch.task.held_out_columns(small)
    C, n_te, n_tr = 3, small.images_test.size, 30
    assert cols.shape == (C * n_te,)
    np.testing.assert_array_equal(small.train.contexts[cols], small.test.contexts)
    # a context-gated ReLN evaluated on the test split through these columns has the
    # gates the same ReLN would have there
    reln = context_reln(small.train, "mixed", width=2)
    moved = ch.task.on_columns(reln, cols)
    direct = context_reln(small.test, "mixed", width=2)
    np.testing.assert_array_equal(moved.layers[0].gating, direct.layers[0].gating)
    assert 0 <= cols.min() and cols.max() < C * n_tr


def test_gate_finding_end_to_end_on_a_small_digits_task(small):
    """Algorithm 1 on real inputs: sample, cluster, build and train the centroid GDLNs,
    pick the elbow, evaluate on the test split."""
    ds = small.train
    width, epochs, seeds = 14, 300, [0, 1]
    lr = ch.task.step_size(ds, 0.1)
    std = 1e-3
    net = h.relu_network((ds.X.shape[0], width, ds.Y.shape[0]), std)
    at = h.algorithm1.sample_epochs(epochs, 100)
    np.testing.assert_array_equal(at, [1, 101, 201])
    kw = dict(lr=lr, epochs=epochs, seeds=seeds, record=("gates", "outputs", "weights"))
    run = h.train(net, ds.X, ds.Y, record_epochs=np.union1d(at, [0, epochs]), **kw)
    samples = h.algorithm1.samples_from_run(run, 0, epochs=at)
    assert samples.n_samples == len(seeds) * len(at) * width
    assert samples.P == ds.P
    fits = [
        ch.elbow.centroid_fit(
            samples, ds, K, lr=lr, epochs=epochs, init_std=std, n_init=2, n_seeds=2
        )
        for K in (1, 2, 3)
    ]
    errors = [f.output_mse for f in fits]
    assert all(np.isfinite(e) and e > 0 for e in errors)
    for f in fits:  # one error per GDLN seed, whose mean is the error
        assert len(f.output_mse_per_seed) == 2
        assert np.mean(f.output_mse_per_seed) == pytest.approx(f.output_mse)
    live, share = ch.elbow.live_samples(samples)
    assert live.patterns.any(axis=1).all() and 0 < share <= 1
    assert live.n_samples == pytest.approx(share * samples.n_samples)
    # with a tolerance, rows on for at most that share of the datapoints go too
    near, share_t = ch.elbow.live_samples(samples, 0.05)
    assert (near.patterns.mean(axis=1) > 0.05).all() and share_t <= share
    with pytest.raises(ValueError):
        ch.elbow.live_samples(samples, 1.0)
    f = ch.elbow.centroid_fit(
        live, ds, 2, lr=lr, epochs=epochs, init_std=std, n_init=2, gdln_width=10
    )
    if f.run is not None:  # the rest of the ReLU width stays inert
        assert f.net.sizes[1] == width
    assert [f.K for f in fits] == [1, 2, 3]
    k = h.algorithm1.elbow_k([1, 2, 3], errors)
    assert k == 2  # the only inner K
    for f in fits:
        pats = h.algorithm1.pattern_strings(f.clustering.binary, ds.contexts, 3)
        assert len(pats) == f.K and all(len(p) == 3 for p in pats)
        assert f.clustering.shares.sum() == pytest.approx(1.0)
        if f.run is not None:
            # every K has the ReLU network's width; units of dead centroids stay at zero
            assert f.net.sizes[1] == width
            if "inert" in f.net.pathway_names():
                sl = f.net.pathway_slice("inert")
                assert not np.any(f.run.records["weights"][0][:, :, sl])
                assert not np.any(f.run.records["weights"][1][:, :, :, sl])
            assert f.run.loss.shape == (2, epochs + 1)
            assert f.run.loss[:, -1].max() < f.run.loss[:, 0].min()  # it learns
            out = ch.task.final_outputs(
                f.run, small.test.X, ch.task.held_out_columns(small)
            )
            assert out.shape == (2, ds.Y.shape[0], small.test.P)
    # the ReLU network on the test split, and its gating census over training
    out = ch.task.final_outputs(run, small.test.X)
    err = ch.task.answers(out, small, "test")
    assert err["error"].shape == (2,) and np.all(
        (0 <= err["error"]) & (err["error"] <= 1)
    )
    census = ch.gates.census_over_training(run, ds, small.labels_train)
    assert census["common"].shape == (2, run.record_epochs.size)
    total = sum(census[k] for k in ("common", "mixed", "single", "other"))
    np.testing.assert_allclose(total, 1, atol=1e-6)
    kinds = sum(census[k] for k in ch.gates.GATE_KINDS)
    np.testing.assert_allclose(kinds, 1, atol=1e-6)


def test_k_rule_gives_the_range_over_seeds():
    E = np.array([[8.0, 8.0, 8.0], [2.0, 4.0, 2.0], [1.5, 1.0, 1.5], [1.4, 0.9, 1.4]])
    r = ch.elbow.k_rule([1, 2, 3, 4], E)
    assert r["k"] == 2 and r["per_seed"] == [2, 3, 2] and r["interval"] == (2, 3)
    assert ch.elbow.k_rule([1, 2, 3, 4], E, "within")["k"] == 2


def test_affine_targets_bring_the_floor_to_zero(small):
    ds = small.train
    a = ch.controls.affine_targets(ds)
    assert a.Y.shape == ds.Y.shape and ch.task.affine_floor(a) < 1e-9 * np.sum(a.Y**2)
    rows = [i for i, f in enumerate(ds.features) if f.startswith("c2.")]
    assert not np.any(a.Y[rows][:, ds.contexts != 1])  # blocks stay in their context
    common = a.Y[:10]
    n = ds.P // 3
    np.testing.assert_allclose(common[:, :n], common[:, n : 2 * n], atol=1e-12)


def test_whitened_pixels_have_isotropic_covariance(small):
    ds = small.train
    w = ch.controls.whitened_pixels(ds)
    n = ds.P // 3
    Z = w.X[: len(item_rows(w))][:, :n]
    ev = np.linalg.eigvalsh(np.cov(Z))
    np.testing.assert_allclose(ev, ev[-1], rtol=1e-8)
    assert np.mean(np.sum(Z**2, axis=0)) == pytest.approx(1.0)
    np.testing.assert_array_equal(w.X[-3:], ds.X[-3:])  # context rows kept


def test_random_attributes_are_seeded_bits_in_their_context(small):
    ds = small.train
    r = ch.controls.random_attributes(ds, 0)
    assert r.Y.shape == (16, ds.P)
    np.testing.assert_array_equal(r.Y[:10], ds.Y[:10])
    for k in range(3):
        blk = r.Y[10 + 2 * k : 12 + 2 * k]
        np.testing.assert_array_equal(blk.sum(axis=0), ds.contexts == k)
    np.testing.assert_array_equal(r.Y, ch.controls.random_attributes(ds, 0).Y)
    assert not np.array_equal(r.Y, ch.controls.random_attributes(ds, 1).Y)


def test_controls_and_their_reading(small):
    ds = ch.controls.affine_targets(small.train)
    lr = ch.task.step_size(ds, 0.5)
    row = ch.controls.control_run(
        ds, [0, 1], relu_width=8, reln_width=2, relu_std=0.1, lr=lr, epochs=600
    )
    assert row["floor"] < 1e-9 and row["levels"] == h.measures.LEVELS
    assert set(row["t50"]) == {"relu", "mixed", "single"}
    assert row["mixed"].spread_interval[0] <= row["mixed"].spread_interval[1]
    assert isinstance(ch.controls.relu_ahead(row, 2.0), bool)
    rec = ch.controls.controls_record({"affine targets": row}, {"affine targets": True})
    assert rec["affine targets"]["relu_ahead"] is True
    assert "| affine targets |" in ch.controls.controls_table({"affine targets": row})
    assert isinstance(ch.controls.relu_ends_lower(row, 2.0), bool)
    rec = ch.controls.controls_record(
        {"affine targets": row}, {"affine targets": True}, {"affine targets": False}
    )
    assert rec["affine targets"]["relu_ends_lower"] is False
    lo, hi = rec["affine targets"]["final_spread_interval"]
    assert 0 <= lo <= hi
    leads = {
        "the task": {"early": True, "late": True},
        "affine targets": {"early": True, "late": True},
        "whitened pixels": {"early": False, "late": True},
    }
    finals = {"whitened pixels": {"relu": 0.012, "mixed": 0.116, "single": 0.2}}
    text = ch.controls.explain_controls(leads, finals)
    # each control is read for both leads, and the late one survives whitening
    assert "without targets that are not affine" in text
    assert "no longer halves its loss first" in text and "0.012 L0" in text
    assert "early lead is lost with whitened pixels" in text
    assert "late lead survives every control" in text and "needed for the lead" not in (
        text
    )
    gone = ch.controls.explain_controls(
        {**leads, "affine targets": {"early": True, "late": False}}
    )
    assert "late lead is lost with affine targets" in gone
    none = {"the task": {"early": False, "late": False}}
    assert "no lead" in ch.controls.explain_controls(none)


def test_relu_ends_lower_reads_the_final_losses_against_their_noise():
    row = {
        "final": {"relu": 0.01, "mixed": 0.1, "single": 0.2},
        "final_per_seed": {
            "relu": [0.01, 0.011, 0.009],
            "mixed": [0.1, 0.11, 0.09],
            "single": [0.2, 0.21, 0.19],
        },
    }
    assert ch.controls.relu_ends_lower(row, 2.0)
    row["final"]["relu"] = 0.09  # within the noise of the nearer ReLN
    row["final_per_seed"]["relu"] = [0.09, 0.05, 0.13]
    assert not ch.controls.relu_ends_lower(row, 2.0)


def test_params_name_the_value_they_refuse():
    # the page's own scale: the tiny parameters with the page's sizes
    p = dict(
        TINY, images_per_class=10, seeds=4, trainings=3, relu_width=140, reln_width=35,
        init_scale=0.005 / 700**0.5 * 700**0.5, kappa=0.1, epochs=3000,
        k_max=8, elbow_seeds=3, kmeans_n_init=20, show_ks=[3, 4],
    )  # fmt: skip
    assert ch.params.Params(**p).relu_std == pytest.approx(0.005 / 140**0.5)
    for name, bad in [
        ("trainings", 5),
        ("elbow_seeds", 1),
        ("kappa", 1.0),
        ("show_ks", [9]),
        ("reln_levels", [0.7, 0.5]),
        ("reln_levels", [0.7, 0.5, 1.3]),
        ("floor_margin", 0.5),
        ("epochs", 200),
    ]:
        with pytest.raises(ValueError, match=name):
            ch.params.Params(**{**p, name: bad})
