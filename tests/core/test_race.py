"""The race-reduction predictor ([conv-race]) against simulated GDLNs and Eq. 7."""

import numpy as np
import pytest

import helpers as h
from helpers.core.measures import curve_distance


def test_single_pathway_prediction_is_the_closed_form():
    """One always-on pathway on a mutually diagonalizable dataset: the matrix race ODE
    started aligned is Eq. 7 (up to the Euler step)."""
    ds = h.hierarchy4()
    net = h.gdln(4, 7, 4, [h.Pathway("all", 16, None, init_std=(1e-3, 1e-3))])
    pred = h.race.predict(net, ds.X, ds.Y, lr=0.005, epochs=3000)
    a0 = h.initial_mode_strength(16, 1e-3, 1e-3)
    cf = h.closed_form_loss(np.arange(3001), ds.X, ds.Y, a0, 0.005)
    assert curve_distance(pred.loss, cf) < 0.02


def test_prediction_tracks_simulated_reln_on_contexts():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    net = h.context_reln(ds, "mixed", coupling="one-way")
    sim = h.train(net, ds.X, ds.Y, lr=1e-3, epochs=4000, seeds=[0])
    pred = h.race.predict(net, ds.X, ds.Y, lr=1e-3, epochs=4000, record_epochs=[4000])
    assert curve_distance(sim.loss[0], pred.loss) < 0.05
    assert set(pred.maps) == {"common", "ctx12", "ctx13", "ctx23"}
    assert pred.singular_values("common").shape[0] == 1


def test_predict_rejects_relu_networks():
    with pytest.raises(ValueError, match="fixed gates"):
        h.race.predict(
            h.relu_network((4, 8, 7), 0.1),
            np.eye(4),
            h.hierarchy4().Y,
            lr=0.01,
            epochs=10,
        )
