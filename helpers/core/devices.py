"""Where training runs: every device JAX sees, and how the seeds share them.

This module is the one place that decides it ([conv-engine]).

* **Devices.** On a CPU machine JAX shows one device for all cores; :func:`configure`
  (called when :mod:`helpers` is imported, before JAX starts) asks for one CPU device
  per core, so that seeds run on every core at once.  ``HASTE_CPU_DEVICES=n`` sets
  another count.  On a GPU machine the devices are the GPUs.  Several hosts: call
  ``jax.distributed.initialize()`` first in every process (JAX's multi-controller
  model); :func:`jax.devices` then lists every host's devices and the trainers (the
  engine, :mod:`helpers.core.engine`, and the mini-batch trainer,
  :mod:`helpers.core.minibatch`) spread the seeds over all of them with the same code
  (see :func:`plan`), and gather the results from every host (:func:`get`).
* **Seeds across devices.** A trainer's one-seed program runs on equal shares of the
  seeds, one per device, with :func:`jax.shard_map` over a one-axis mesh
  (:func:`seed_program`; :func:`pad_seeds` pads the last share with copies of a seed,
  :func:`get` drops them afterwards).
* **Seeds within a device.** On a CPU, one seed after another (:func:`jax.lax.map`):
  a batched (``vmap``) product of small matrices runs slower per seed on a CPU than the
  same product seed by seed, measured on the Performance page.  On a GPU, ``vmap``:
  batching fills the device.

On a CPU a seed's result does not depend on how many seeds ran beside it or on how many
devices there were: each seed runs the same unbatched program (a test checks it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

__all__ = [
    "DEVICES_VARIABLE",
    "configure",
    "Plan",
    "plan",
    "SEEDS",
    "SHARED",
    "seed_program",
    "pad_seeds",
    "put",
    "get",
]

DEVICES_VARIABLE = "HASTE_CPU_DEVICES"


def configure() -> int | None:
    """Ask JAX for one CPU device per core (or ``$HASTE_CPU_DEVICES``) if JAX has not
    started yet; returns the count asked for, or None when it was too late (JAX already
    ran something: it keeps the devices it has)."""
    wanted = os.environ.get(DEVICES_VARIABLE)
    try:
        n = int(wanted) if wanted else (os.cpu_count() or 1)
    except ValueError:
        raise ValueError(
            f"{DEVICES_VARIABLE} must be a positive integer, got {wanted!r}"
        ) from None
    if n < 1:
        raise ValueError(
            f"{DEVICES_VARIABLE} must be a positive integer, got {wanted!r}"
        )
    # float32 products at full float32 precision on every backend: a GPU's default is
    # TF32, whose rounding moves results far beyond a CPU's (on a CPU: no bit moves)
    jax.config.update("jax_default_matmul_precision", "highest")
    try:
        jax.config.update("jax_num_cpu_devices", n)
    except RuntimeError:
        return None
    return n


@dataclass(frozen=True)
class Plan:
    """How a training of ``seeds`` seeds runs: on ``devices`` (a share of the seeds
    each, ``per_device`` of them after padding), batched within a device by
    ``batching`` (``'map'``: one seed after another; ``'vmap'``: all at once)."""

    backend: str
    devices: tuple
    batching: str
    per_device: int

    @property
    def padded(self) -> int:
        return len(self.devices) * self.per_device


def plan(seeds: int, devices: int | None = None, batching: str | None = None) -> Plan:
    """The plan for ``seeds`` seeds: every device (or the first ``devices``), but no
    more
    devices than seeds; ``batching`` by backend unless given (``'map'`` or ``'vmap'``).
    """
    if isinstance(seeds, bool) or int(seeds) < 1:
        raise ValueError(f"seeds must be a positive integer, got {seeds!r}")
    backend = jax.default_backend()
    available = jax.devices()
    if devices is not None:
        if isinstance(devices, bool) or not 1 <= int(devices) <= len(available):
            raise ValueError(
                f"devices must be an integer in 1..{len(available)} (the devices "
                f"JAX sees), got {devices!r}"
            )
        available = available[: int(devices)]
    if batching is None:
        batching = "map" if backend == "cpu" else "vmap"
    if batching not in ("map", "vmap"):
        raise ValueError(f"batching must be 'map' or 'vmap', got {batching!r}")
    used = tuple(available[: min(len(available), int(seeds))])
    per = -(-int(seeds) // len(used))
    return Plan(backend=backend, devices=used, batching=batching, per_device=per)


#: Placement of an array with a leading axis over the seeds: split over the devices.
SEEDS = PartitionSpec("seeds")
#: Placement of an array every seed uses: a copy on every device.
SHARED = PartitionSpec()


def seed_program(how: Plan, one_seed, n_shared: int):
    """``(mesh, fn)``: the jitted ``fn(per_seed, *shared)`` that runs
    ``one_seed(s, *shared)`` for every seed ``s`` of ``per_seed`` (a pytree with a
    leading axis over the padded seeds) on the plan's devices, each device its share
    (:func:`jax.shard_map`), one seed after another or batched as the plan says.  The
    ``n_shared`` other arguments are the same for every seed.  Outputs keep a leading
    axis over the seeds.  Arguments go in with :func:`put`, results come out with
    :func:`get`."""

    def share(per_seed, *shared):
        def f(s):
            return one_seed(s, *shared)

        if how.batching == "vmap":
            return jax.vmap(f)(per_seed)
        return jax.lax.map(f, per_seed)

    mesh = Mesh(np.asarray(how.devices), ("seeds",))
    fn = jax.jit(
        jax.shard_map(
            share,
            mesh=mesh,
            in_specs=(SEEDS, *[SHARED] * n_shared),
            out_specs=SEEDS,
            check_vma=False,
        )
    )
    return mesh, fn


def pad_seeds(arrays, how: Plan) -> list[np.ndarray]:
    """Each array's leading (seed) axis padded to ``how.padded`` with copies of its last
    seed, so that every device gets an equal share (:func:`get` drops them)."""
    out = []
    for a in arrays:
        pad = how.padded - np.shape(a)[0]
        out.append(np.concatenate([a, np.repeat(a[-1:], pad, axis=0)]) if pad else a)
    return out


def put(x, mesh: Mesh, spec: PartitionSpec):
    """A global array on ``mesh``: split over the seeds (``SEEDS``) or copied to every
    device (``SHARED``); on several hosts each host places its own devices' parts."""
    x = np.asarray(x)
    sharding = NamedSharding(mesh, spec)
    return jax.make_array_from_callback(x.shape, sharding, lambda idx: x[idx])


def get(x, seeds: int | None = None) -> np.ndarray:
    """A result back on the host, gathered from every host when there are several; with
    ``seeds``, only the first ``seeds`` rows (the padding of :func:`pad_seeds`
    dropped)."""
    if jax.process_count() > 1:
        from jax.experimental import multihost_utils

        x = np.asarray(multihost_utils.process_allgather(x, tiled=True))
    else:
        x = np.asarray(x)
    return x if seeds is None else x[:seeds]
