"""The ReLNs of the contextual task and the three initialisations ([conv-init])."""

import numpy as np
import pytest

import helpers as h
from helpers.core import relns


def test_derived_stds_give_each_pathway_the_strength_of_its_relu_units():
    gates = {"a": np.array([1, 1, 1, 1]), "b": np.array([1, 1, 0, 0])}
    relu = np.array([[1, 1, 1, 1]] * 8 + [[1, 1, 0, 0]] * 2 + [[0, 0, 0, 0]] * 5)
    stds = relns.derived_stds(relu, gates, {"a": 4, "b": 2}, relu_std=0.1)
    assert stds["a"] == pytest.approx(0.1 * np.sqrt(8 / 4))
    assert stds["b"] == pytest.approx(0.1 * np.sqrt(2 / 2))
    # a unit equally near two pathways is split between them; an empty pathway keeps one
    # unit
    stds = relns.derived_stds(np.array([[1, 1, 1, 0]]), gates, {"a": 1, "b": 1}, 1.0)
    assert stds == {"a": pytest.approx(1.0), "b": pytest.approx(1.0)}


def test_the_three_initialisations():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    relu = h.relu_network((11, 700, 60), 0.005 / 700)
    reln = h.context_reln(ds, "mixed")
    net, p0 = relns.reln_initial_weights(reln, ds, "authors", [0, 1], relu, 0.005 / 700)
    assert net is reln and p0 is None
    net, p0 = relns.reln_initial_weights(reln, ds, "matched", [0, 1], relu, 0.005 / 700)
    assert p0 is None and np.allclose(net.layers[0].in_std, 0.005 / 700)
    net, p0 = relns.reln_initial_weights(reln, ds, "derived", [0, 1], relu, 0.005 / 700)
    assert [W.shape for W in p0] == [(2, 400, 11), (2, 60, 400)]
    # with every context pathway present, more ReLU units gate like the common pathway
    # at epoch 0 than like any one 2-of-3 pathway
    net, p0 = relns.reln_initial_weights(
        h.context_reln(ds, "both"), ds, "derived", [0], relu, 0.005 / 700
    )
    sl_c, sl_m = net.pathway_slice("common"), net.pathway_slice("ctx12")
    assert net.layers[0].in_std[sl_c][0] > net.layers[0].in_std[sl_m][0]
    with pytest.raises(ValueError, match="init must be one of"):
        relns.reln_initial_weights(reln, ds, "random", [0], relu, 0.1)
