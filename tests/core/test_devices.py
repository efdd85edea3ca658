"""Where training runs (helpers.core.devices): the seeds spread over several devices
give
exactly the losses of one device, and a seed's losses do not depend on the seeds beside
it.
"""

import numpy as np
import pytest

import helpers as h
from helpers.core import devices
from tests.conftest import run_on_two_cpu_devices

SCRIPT = """
import json, numpy as np, jax, helpers as h
ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
net = h.relu_network((11, 40, 60), 0.05)
one = h.train(net, ds.X, ds.Y, lr=1e-3, epochs=300, seeds=[0, 1, 2], devices=1,
              record_epochs=[0, 150, 300], record=("outputs", "gates"))
two = h.train(net, ds.X, ds.Y, lr=1e-3, epochs=300, seeds=[0, 1, 2], devices=2,
              record_epochs=[0, 150, 300], record=("outputs", "gates"))
print(json.dumps({"devices": len(jax.devices()),
                  "loss": bool(np.array_equal(one.loss, two.loss)),
                  "outputs": bool(np.array_equal(one.records["outputs"],
                  two.records["outputs"])), "gates":
                  bool(np.array_equal(one.records["gates"][0],
                  two.records["gates"][0]))}))
"""


def test_the_sharded_path_on_two_cpu_devices_gives_the_single_device_losses():
    res = run_on_two_cpu_devices(SCRIPT)
    assert res == {"devices": 2, "loss": True, "outputs": True, "gates": True}


def test_a_seeds_losses_do_not_depend_on_the_seeds_beside_it():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    net = h.relu_network((11, 40, 60), 0.05)
    alone = h.train(net, ds.X, ds.Y, lr=1e-3, epochs=200, seeds=[2]).loss
    among = h.train(net, ds.X, ds.Y, lr=1e-3, epochs=200, seeds=[0, 1, 2, 3, 4]).loss
    assert np.array_equal(alone[0], among[2])


def test_plan_follows_the_backend_and_refuses_bad_input():
    p = devices.plan(5)
    assert p.batching == ("map" if p.backend == "cpu" else "vmap")
    assert p.padded >= 5 and p.padded % len(p.devices) == 0
    assert len(devices.plan(1).devices) == 1
    with pytest.raises(ValueError, match="batching"):
        devices.plan(2, batching="pmap")
    with pytest.raises(ValueError, match="devices"):
        devices.plan(2, devices=0)
    with pytest.raises(ValueError, match="seeds"):
        devices.plan(0)


def test_per_seed_initial_weights_are_used_seed_by_seed():
    ds = h.contextual_task(3, ["hierarchy", "ring", "cross"])
    net = h.relu_network((11, 20, 60), 0.05)
    inits = [h.init_params(net, s) for s in (4, 7)]
    stacked = [np.stack([p[i] for p in inits]) for i in range(2)]
    a = h.train(net, ds.X, ds.Y, lr=1e-3, epochs=50, seeds=[0, 1], params0=stacked).loss
    b = h.train(net, ds.X, ds.Y, lr=1e-3, epochs=50, seeds=[4, 7]).loss
    np.testing.assert_array_equal(a, b)


def test_the_cuda_extra_pins_the_jax_of_requirements():
    import re
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    jax_pin = re.search(
        r"^jax==([\d.]+)", (root / "requirements.txt").read_text(), re.M
    ).group(1)
    extra = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["cuda"]
    assert extra == [f"jax[cuda12]=={jax_pin}"]
