"""Where training runs ([conv-engine]): every device JAX sees (:func:`configure`, on
import of :mod:`helpers`; several hosts: ``jax.distributed.initialize()`` first), the
seeds in equal shares by :func:`jax.shard_map` (:func:`seed_program`), and within a
device one seed after another on a CPU (``vmap`` of small matrices is slower per seed
there; Performance page), ``vmap`` on a GPU.  On a CPU a seed's result does not depend
on the other seeds or the device count.
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
    """Ask JAX for one CPU device per core (or ``$HASTE_CPU_DEVICES``); the count, or
    None when JAX had already started."""
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
    """A training's ``devices``, ``per_device`` seeds after padding, ``batching``
    (``'map'``: in turn; ``'vmap'``: at once)."""

    backend: str
    devices: tuple
    batching: str
    per_device: int

    @property
    def padded(self) -> int:
        return len(self.devices) * self.per_device


def plan(seeds: int, devices: int | None = None, batching: str | None = None) -> Plan:
    """The plan for ``seeds`` seeds: every device (or the first ``devices``), at most
    one per seed; ``batching`` by backend unless given."""
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


#: An array with a leading seed axis: split over the devices.
SEEDS = PartitionSpec("seeds")
#: An array every seed uses: copied to every device.
SHARED = PartitionSpec()


def seed_program(how: Plan, one_seed, n_shared: int):
    """``(mesh, fn)``: jitted ``fn(per_seed, *shared)`` running ``one_seed(s,
    *shared)`` for each padded seed on the plan's devices; outputs keep the seed axis.
    In with :func:`put`, out with :func:`get`."""

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
    """Seed axes padded to ``how.padded`` with copies of the last seed."""
    out = []
    for a in arrays:
        pad = how.padded - np.shape(a)[0]
        out.append(np.concatenate([a, np.repeat(a[-1:], pad, axis=0)]) if pad else a)
    return out


def put(x, mesh: Mesh, spec: PartitionSpec):
    """A global array on ``mesh`` placed by ``spec`` (each host its own parts)."""
    x = np.asarray(x)
    sharding = NamedSharding(mesh, spec)
    return jax.make_array_from_callback(x.shape, sharding, lambda idx: x[idx])


def get(x, seeds: int | None = None) -> np.ndarray:
    """A result on the host, gathered from every host; first ``seeds`` rows if given."""
    if jax.process_count() > 1:
        from jax.experimental import multihost_utils

        x = np.asarray(multihost_utils.process_allgather(x, tiled=True))
    else:
        x = np.asarray(x)
    return x if seeds is None else x[:seeds]
