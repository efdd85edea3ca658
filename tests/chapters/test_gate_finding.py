"""Unit tests of helpers.chapters.gate_finding: how the centroid GDLN of Algorithm 1
starts
([conv-init]) and the elbow with a GDLN so started (Algorithm 1 itself: tests/core)."""

import numpy as np
import pytest

import helpers as h
from helpers.chapters import gate_finding as gf
from helpers.core.engine import init_params


@pytest.fixture(scope="module")
def xor_samples():
    ds = h.xor(0.5)
    net = h.relu_network((3, 16, 1), 1e-2)
    smp = gf.sample_gates(net, ds.X, ds.Y, lr=0.01, epochs=200, seeds=[0, 1], every=50)
    return ds, net, smp


def _two_pathway_gdln(P=4, d=3, p=1):
    all_on = h.Pathway("c1", 6, np.ones(P), None, (0.1, 0.1))
    half = h.Pathway("c2", 10, np.array([1.0, 0, 0, 1]), None, (0.1, 0.1))
    return h.gdln(d, p, P, [all_on, half])


def test_centroid_start_matched_and_authors():
    net = _two_pathway_gdln()
    m, p0 = gf.centroid_start(net, "matched", [0], None, None, relu_std=0.02)
    assert (
        p0 is None
        and np.allclose(m.layers[0].in_std, 0.02)
        and np.allclose(m.layers[0].out_std, 0.02)
    )
    a, p0 = gf.centroid_start(net, "authors", [0], None, None, relu_std=0.02)
    assert p0 is None
    assert gf.AUTHORS_CONTEXT_FACTOR == 2.0
    assert np.allclose(
        a.layers[0].in_std[:6], 0.02
    )  # on for every datapoint: the ReLU std
    assert np.allclose(a.layers[0].out_std[6:], 0.04)  # any other pathway: twice it
    Wa, Wm = init_params(a, 3), init_params(m, 3)  # the same draw, other scales
    assert np.allclose(Wa[0][:6], Wm[0][:6]) and np.allclose(Wa[0][6:], 2 * Wm[0][6:])
    assert np.allclose(Wa[1][:, 6:], 2 * Wm[1][:, 6:])
    assert gf.centroid_start(None, "derived", [0], None, None, relu_std=0.02) == (
        None,
        None,
    )
    with pytest.raises(ValueError, match="init"):
        gf.centroid_start(net, "lazy", [0], None, None, relu_std=0.02)


def test_centroid_start_derived_follows_the_relu_units_at_init():
    ds = h.xor(0.5)
    relu = h.relu_network((3, 40, 1), 0.02)
    net = _two_pathway_gdln()
    d, p0 = gf.centroid_start(net, "derived", [0, 1], relu, ds.X, relu_std=0.02)
    assert [W.shape for W in p0] == [(2, 16, 3), (2, 1, 16)]
    # seed s's std per pathway is derived_stds on ReLU seed s's gates at epoch 0
    _, _, g0 = h.forward(relu, init_params(relu, 1), ds.X)
    gates = {"c1": np.ones(4), "c2": np.array([1.0, 0, 0, 1])}
    want = h.relns.derived_stds(g0[0], gates, {"c1": 6, "c2": 10}, 0.02)
    got_c2 = p0[1][1][:, 6:].std()
    assert got_c2 == pytest.approx(want["c2"], rel=0.7)  # 10 weights: a rough check
    seed1 = h.relns.with_stds(net, want)
    assert np.allclose(p0[0][1], init_params(seed1, 1)[0])  # exactly that seed's draw
    assert d.layers[0].in_std[0] > 0


def test_started_error_matched_is_algorithm_1s(xor_samples):
    ds, net, smp = xor_samples
    cl = gf.cluster_gates(smp, 2, random_state=0, n_init=5)
    g = gf.centroid_gdln(cl, 3, 1, width=16, init_std=1e-2)
    a = gf.gdln_error(g, ds.X, ds.Y, smp.run, lr=0.01, epochs=200, n_seeds=2)
    b = gf.started_error(
        g,
        "matched",
        ds.X,
        ds.Y,
        smp.run,
        net,
        lr=0.01,
        epochs=200,
        n_seeds=2,
        relu_std=1e-2,
    )
    assert a[0] == pytest.approx(b[0]) and np.allclose(a[2], b[2])
    c = gf.started_error(
        g,
        "derived",
        ds.X,
        ds.Y,
        smp.run,
        net,
        lr=0.01,
        epochs=200,
        n_seeds=2,
        relu_std=1e-2,
    )
    assert c[2].shape == (2, 201) and c[3].shape == smp.run.records["outputs"].shape
    assert c[0] > 0 and not np.allclose(c[2], a[2])


def test_elbow_started_reuses_clusterings(xor_samples):
    ds, net, smp = xor_samples
    pts = gf.elbow_started(
        smp,
        ds.X,
        ds.Y,
        [1, 2],
        init="matched",
        relu_net=net,
        lr=0.01,
        epochs=200,
        relu_std=1e-2,
        n_init=5,
        n_seeds=2,
    )
    ref = gf.elbow(
        smp, ds.X, ds.Y, [1, 2], lr=0.01, epochs=200, init_std=1e-2, n_init=5, n_seeds=2
    )
    assert [p.output_mse for p in pts] == pytest.approx([p.output_mse for p in ref])
    fixed = gf.cluster_gates(smp, 2, random_state=3, n_init=1)
    again = gf.elbow_started(
        smp,
        ds.X,
        ds.Y,
        [2],
        init="authors",
        relu_net=net,
        lr=0.01,
        epochs=200,
        relu_std=1e-2,
        n_seeds=1,
        clusterings={2: fixed},
    )
    assert again[0].clustering is fixed and again[0].loss.shape == (1, 201)


def test_authors_start_reads_common_at_the_level_of_contexts():
    contexts = np.array([0, 0, 1, 1])
    almost = h.Pathway(
        "c1", 6, np.array([1.0, 0, 1, 1]), None, (0.1, 0.1)
    )  # on in 2 of 2 contexts
    one = h.Pathway("c2", 10, np.array([0.0, 0, 1, 1]), None, (0.1, 0.1))
    net = h.gdln(3, 1, 4, [almost, one])
    by_point, _ = gf.centroid_start(net, "authors", [0], None, None, relu_std=0.02)
    by_context, _ = gf.centroid_start(
        net, "authors", [0], None, None, relu_std=0.02, contexts=contexts
    )
    assert np.allclose(
        by_point.layers[0].in_std[:6], 0.04
    )  # one datapoint off: not common
    assert np.allclose(
        by_context.layers[0].in_std[:6], 0.02
    )  # on in every context: common
    assert np.allclose(by_context.layers[0].in_std[6:], 0.04)
