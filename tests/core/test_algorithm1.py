"""Tests of helpers.core.algorithm1: Algorithm 1 (Appendix B, [conv-gate-finding]) and
its elbow."""

import numpy as np
import pytest
from sklearn.cluster import KMeans

import helpers as h
from helpers.core import algorithm1 as gf


def _synthetic_samples(patterns, reps, noise=0.0, seed=0):
    """GateSamples built from known rows (each pattern repeated, optionally with bit
    flips)."""
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.asarray(patterns, bool), reps, axis=0)
    if noise:
        rows = rows ^ (rng.random(rows.shape) < noise)
    U, inv, cnt = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    return gf.GateSamples(
        patterns=U,
        counts=cnt,
        epochs=np.array([1]),
        run=None,
        layer=0,
        width=len(rows),
        index=inv.reshape(1, 1, -1),
    ), rows


def test_sample_epochs_follow_algorithm_1():
    ep = gf.sample_epochs(8001)
    assert ep[0] == 1 and ep[1] == 101 and ep[-1] == 8001 and len(ep) == 81
    assert gf.sample_epochs(30001, 500).tolist()[:3] == [1, 501, 1001]
    with pytest.raises(ValueError, match="every"):
        gf.sample_epochs(100, 0)


def test_pathway_widths_split_by_share():
    w = gf.pathway_widths([0.36, 0.17, 0.22, 0.25], 700)
    assert w.sum() == 700
    assert w.tolist() == [252, 119, 154, 175]
    assert gf.pathway_widths([1, 1, 1], 10).tolist() == [
        4,
        3,
        3,
    ]  # largest remainder, stable ties
    with pytest.raises(ValueError, match="shares"):
        gf.pathway_widths([], 10)
    with pytest.raises(ValueError, match="width"):
        gf.pathway_widths([1.0], 0)


def test_kmeans_recovers_planted_patterns_and_shares():
    ds = h.contextual_task(3)
    gates = [
        np.ones(24),
        h.context_gate(ds, [0, 1]),
        h.context_gate(ds, [0, 2]),
        h.context_gate(ds, [1, 2]),
    ]
    smp, _ = _synthetic_samples(gates, [40, 20, 20, 20], noise=0.05)
    cl = gf.cluster_gates(smp, 4)
    assert (
        cl.binary.tolist() == np.asarray(gates, bool).tolist()
    )  # sorted: all-on first, then 110, 101, 011
    assert gf.pattern_strings(cl.binary, ds.contexts, 3) == ["111", "110", "101", "011"]
    assert np.allclose(cl.shares, [0.4, 0.2, 0.2, 0.2])
    assert cl.labels.shape == (len(smp.patterns),)
    assert np.isclose(np.bincount(cl.labels, weights=smp.counts).sum(), smp.n_samples)


def test_collapsing_duplicates_keeps_the_kmeans_objective():
    rng = np.random.default_rng(3)
    base = rng.random((5, 12)) < 0.5
    smp, rows = _synthetic_samples(base, 30, noise=0.1, seed=1)
    assert len(smp.patterns) < len(rows)
    cl = gf.cluster_gates(smp, 3)
    full = KMeans(3, random_state=0, n_init=10).fit(rows.astype(float))
    # the same objective: the weighted inertia equals the inertia of the full stack at
    # its optimum
    assert cl.inertia == pytest.approx(full.inertia_, rel=1e-6)
    got = sorted(map(tuple, np.round(cl.centroids, 6)))
    want = sorted(map(tuple, np.round(full.cluster_centers_, 6)))
    assert np.allclose(got, want, atol=1e-6)


def test_cluster_gates_rejects_bad_k():
    smp, _ = _synthetic_samples([[1, 0, 1], [0, 1, 1]], 3)
    with pytest.raises(ValueError, match="positive integer"):
        gf.cluster_gates(smp, 0)
    with pytest.raises(ValueError, match="distinct activity rows"):
        gf.cluster_gates(smp, 5)


def test_pattern_strings_per_datapoint_and_per_context():
    assert gf.pattern_strings([[1, 0, 0, 1], [0, 1, 1, 0]]) == ["1001", "0110"]
    ds = h.contextual_task(3)
    g = np.r_[
        np.ones(8), np.r_[np.ones(5), np.zeros(3)], np.zeros(8)
    ]  # context 2 on for 5 of 8 items
    assert gf.pattern_strings(g, ds.contexts, 3) == ["110"]
    with pytest.raises(ValueError, match="n_contexts"):
        gf.pattern_strings(g, ds.contexts, 0)


def test_centroid_gdln_one_pathway_per_live_centroid():
    ds = h.contextual_task(3)
    cl = gf.Clustering(
        K=3,
        centroids=np.vstack(
            [np.full(24, 0.9), h.context_gate(ds, [0, 1]) * 0.8, np.zeros(24)]
        ),
        shares=np.array([0.5, 0.3, 0.2]),
        inertia=0.0,
    )
    net = gf.centroid_gdln(cl, 11, 60, width=100, init_std=1e-3)
    assert net.pathway_names() == ["c1", "c2"]  # the dead centroid gives no pathway
    assert net.sizes == (
        11,
        80,
        60,
    )  # widths 50 + 30 (the dead cluster's 20 units are dropped)
    assert net.layers[0].gating[0].tolist() == [1.0] * 24
    assert net.layers[0].gating[50].tolist() == h.context_gate(ds, [0, 1]).tolist()
    assert net.layers[0].in_mask is None  # every pathway sees every input
    deep = gf.centroid_gdln(
        cl, 11, 60, width=100, init_std=1e-3, first_layer=40, first_std=2e-3
    )
    assert deep.sizes == (11, 40, 80, 60) and deep.depth == 2
    dead = gf.Clustering(
        K=1, centroids=np.zeros((1, 24)), shares=np.ones(1), inertia=0.0
    )
    assert gf.centroid_gdln(dead, 11, 60, width=100, init_std=1e-3) is None


def test_elbow_rules():
    Ks = range(1, 8)
    e = [1.0, 0.5, 0.25, 0.01, 0.008, 0.007, 0.0068]
    assert gf.elbow_k(Ks, e) == 4
    assert gf.elbow_k(Ks, e, rule="within", factor=2) == 4
    assert gf.elbow_k(Ks, e, rule="within", factor=1) == 7
    with pytest.raises(ValueError, match="consecutive"):
        gf.elbow_k([1, 2, 4], [1, 0.5, 0.1])
    with pytest.raises(ValueError, match="at least 3"):
        gf.elbow_k([1, 2], [1, 0.5])
    with pytest.raises(ValueError, match="positive finite"):
        gf.elbow_k([1, 2, 3], [1, 0, 0.1])
    with pytest.raises(ValueError, match="rule"):
        gf.elbow_k(Ks, e, rule="kneedle")


def test_sample_gates_stacks_every_unit_at_every_sample():
    ds = h.xor(0.5)
    net = h.relu_network((3, 16, 1), 1e-2)
    smp = gf.sample_gates(net, ds.X, ds.Y, lr=0.01, epochs=200, seeds=[0, 1], every=50)
    assert smp.epochs.tolist() == [1, 51, 101, 151]
    assert smp.n_samples == 2 * 4 * 16
    assert smp.index.shape == (2, 4, 16)
    G = smp.run.records["gates"][0]
    assert np.array_equal(
        smp.patterns[smp.index], G
    )  # the collapsed rows reproduce the stack
    sub = gf.samples_from_run(smp.run, 0, epochs=[151], trainings=[1])
    assert sub.n_samples == 16
    with pytest.raises(ValueError, match="ReLU"):
        gf.sample_gates(
            h.linear_network((3, 4, 1), 1e-2), ds.X, ds.Y, lr=0.01, epochs=10, seeds=0
        )
    with pytest.raises(ValueError, match="layer"):
        gf.sample_gates(net, ds.X, ds.Y, lr=0.01, epochs=10, seeds=0, layer=1)
    with pytest.raises(ValueError, match="trainings"):
        gf.samples_from_run(smp.run, 0, trainings=[2])


def test_gdln_error_of_the_empty_gdln_is_the_relu_output_power():
    ds = h.xor(0.5)
    net = h.relu_network((3, 16, 1), 1e-2)
    smp = gf.sample_gates(net, ds.X, ds.Y, lr=0.01, epochs=200, seeds=[0], every=50)
    mse, cd, loss, out = gf.gdln_error(None, ds.X, ds.Y, smp.run, lr=0.01, epochs=200)
    assert mse == pytest.approx(float(np.mean(smp.run.records["outputs"] ** 2)))
    assert np.all(loss == 2.0) and np.all(out == 0)
    with pytest.raises(ValueError, match="epochs"):
        gf.gdln_error(None, ds.X, ds.Y, smp.run, lr=0.01, epochs=100)
    with pytest.raises(ValueError, match="n_seeds"):
        gf.gdln_error(None, ds.X, ds.Y, smp.run, lr=0.01, epochs=200, n_seeds=2)


@pytest.fixture(scope="module")
def xor_samples():
    ds = h.xor(0.5)
    net = h.relu_network((3, 16, 1), 1e-2)
    smp = gf.sample_gates(net, ds.X, ds.Y, lr=0.01, epochs=200, seeds=[0, 1], every=50)
    return ds, net, smp


def test_elbow_starts_the_centroid_gdln_by_init(xor_samples):
    ds, net, smp = xor_samples
    kw = dict(lr=0.01, epochs=200, init_std=1e-2, n_init=5, n_seeds=2)
    ref = gf.elbow(smp, ds.X, ds.Y, [1, 2], **kw)  # as built
    matched = gf.elbow(smp, ds.X, ds.Y, [1, 2], init="matched", relu_net=net, **kw)
    for a, b in zip(ref, matched):  # matched is the GDLN as built: the same runs
        assert a.output_mse == b.output_mse and np.array_equal(a.loss, b.loss)
    start = dict(relu_net=net, experiment="gate_finding", **kw)
    derived = gf.elbow(smp, ds.X, ds.Y, [2], init="derived", **start)[0]
    # the derived GDLN is trained from relns.start's initial weights, seed s by seed s
    st = h.relns.start(
        derived.net, "derived", [0, 1], relu_net=net, X=ds.X, level="datapoints"
    )
    run = h.train(
        derived.net if st.net is None else st.net,
        ds.X,
        ds.Y,
        lr=0.01,
        epochs=200,
        seeds=[0, 1],
        params0=st.params0,
    )
    assert np.array_equal(derived.loss, run.loss)
    assert not np.array_equal(derived.loss, ref[1].loss)
    authors = gf.elbow(smp, ds.X, ds.Y, [2], init="authors", **start)[0]
    # no centroid is on for every point: every pathway starts at twice the ReLU std
    assert not authors.net.layers[0].gating.all(axis=1).any()
    assert not np.array_equal(authors.loss, ref[1].loss)
    # clusterings made already are reused
    fixed = gf.cluster_gates(smp, 2, random_state=3, n_init=1)
    again = gf.elbow(
        smp,
        ds.X,
        ds.Y,
        [2],
        init="authors",
        clusterings={2: fixed},
        **{**start, "n_seeds": 1},
    )
    assert again[0].clustering is fixed and again[0].loss.shape == (1, 201)
    # a bad choice is refused before any k-means
    with pytest.raises(ValueError, match="needs experiment"):
        gf.elbow(smp, ds.X, ds.Y, [2], init="authors", relu_net=net, **kw)
    with pytest.raises(ValueError, match="init must be one of"):
        gf.elbow(smp, ds.X, ds.Y, [2], init="lazy", **kw)


@pytest.mark.slow
@pytest.mark.parametrize(
    "eps, k_star, patterns",
    [(0.3, 4, ["1000", "0100", "0010", "0001"]), (1.3, 2, ["1001", "0110"])],
)
def test_algorithm_1_finds_the_faster_xor_reln(eps, k_star, patterns):
    """Section 3 / [conv-xor]: below eps* = sqrt(2/3) the XoR ReLN (one pathway per
    point),
    above it the linear ReLN (one pathway per class) is what the elbow picks."""
    ds = h.xor(eps)
    std = 0.005 / 128
    smp = gf.sample_gates(
        h.relu_network((3, 128, 1), std),
        ds.X,
        ds.Y,
        lr=0.01,
        epochs=2500,
        seeds=range(5),
        every=10,
    )
    pts = gf.elbow(smp, ds.X, ds.Y, range(1, 6), lr=0.01, epochs=2500, init_std=std)
    k = gf.elbow_k(range(1, 6), [p.output_mse for p in pts])
    assert k == k_star
    assert gf.pattern_strings(pts[k - 1].clustering.binary) == patterns
    assert (
        pts[k - 1].output_mse < 0.1 * pts[k - 2].output_mse
    )  # a real drop into the elbow
