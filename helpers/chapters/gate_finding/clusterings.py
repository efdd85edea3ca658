"""What the page *Finding the gates* reads off Algorithm 1's clusterings (Defined for
the page book/gate_finding.md)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core import store
from ...core.algorithm1 import (
    Clustering,
    GateSamples,
    cluster_gates,
    pattern_strings,
    sample_gates,
    samples_from_run,
)
from ...core.datasets import Dataset
from ...core.engine import GatedNetwork
from ...core.measures import context_patterns

#: The common and the three 2-of-3 pathways of Section 4, as context strings.
EXPECTED4 = ["111", "110", "101", "011"]


def check_seeds(elbow_seeds: int, trainings: int) -> None:
    """ValueError unless ``elbow_seeds <= trainings`` (seed faces seed)."""
    if elbow_seeds > trainings:
        raise ValueError(
            f"elbow_seeds = {elbow_seeds} must be at most trainings = {trainings}: "
            "each GDLN seed is compared with the ReLU training of the same seed"
        )


def sampled_gates(
    net: GatedNetwork, ds: Dataset, *, lr: float, epochs: int, seeds, every: int
) -> GateSamples:
    """Algorithm 1's samples of ``net`` on ``ds``, kept ``same_everywhere``: another
    CPU's float32 rounding could tip k-means among near-ties."""
    seeds = tuple(int(s) for s in np.atleast_1d(seeds))
    parts = (net, ds, lr, epochs, seeds, int(every))

    def make():
        return sample_gates(
            net, ds.X, ds.Y, lr=lr, epochs=epochs, seeds=seeds, every=every
        )

    return store.derived(
        f"gate_finding samples: {net.sizes}, {len(seeds)} trainings",
        parts,
        make,
        "helpers.chapters.gate_finding",
        same_everywhere=True,
    )


def context_strings(cl: Clustering, ds: Dataset) -> list[str]:
    """A clustering's binarised centroids as context-level on/off strings ('110')."""
    return pattern_strings(cl.binary, ds.contexts, ds.n_contexts)


def context_level(pattern: str, ds: Dataset) -> np.ndarray:
    """The gate over datapoints on in the contexts a string such as '110' names."""
    on = [c for c in range(ds.n_contexts) if pattern[c] == "1"]
    return np.isin(ds.contexts, on)


def item_dependent(cl: Clustering, ds: Dataset) -> int:
    """How many binarised centroids are not constant within some context."""
    _, dep = context_patterns(cl.binary, ds.contexts, ds.n_contexts)
    return int(dep.sum())


def unit_clusters(samples: GateSamples, cl4: Clustering):
    """Each sampled unit's K = 4 cluster ``(trainings, samples, H)`` and each
    cluster's share of the units per sample ``(4, samples)``."""
    lab = cl4.labels[samples.index]
    return lab, np.stack([(lab == k).mean(axis=(0, 2)) for k in range(4)])


def kmeans_optima(samples: GateSamples, K: int, random_states, ds: Dataset) -> dict:
    """Single-restart k-means from each ``random_state``: ``{centroids (context
    level, sorted): (lowest objective found, restarts reaching it)}``."""
    optima = {}
    for rs in random_states:
        cl = cluster_gates(samples, K, random_state=rs, n_init=1)
        key = ", ".join(sorted(context_strings(cl, ds), reverse=True))
        best = optima.get(key, (np.inf, 0))
        optima[key] = (min(best[0], cl.inertia), best[1] + 1)
    return optima


def clustering_sensitivity(samples, ds, subsets, seeds, seed, n_init, every):
    """The K = 4 clustering under other k-means seeds, epoch subsets and each training
    alone: rows ``(group, samples, random_state, strings, shares, as expected?)``."""
    expected = sorted(EXPECTED4)
    rows = []

    def row(group, label, smp, rs):
        cl = cluster_gates(smp, 4, random_state=rs, n_init=n_init)
        pats = context_strings(cl, ds)
        rows.append((group, label, rs, pats, list(cl.shares), sorted(pats) == expected))

    n = samples.run.loss.shape[0]
    for rs in seeds:
        row("seeds", f"all {n} trainings, every {every} epochs", samples, rs)
    for label, eps in subsets.items():
        row("subsets", label, samples_from_run(samples.run, 0, eps), seed)
    for s in range(n):
        one = samples_from_run(samples.run, 0, trainings=[s])
        row("alone", f"training {s} alone", one, seed)
    return rows


@dataclass
class Depth:
    """Algorithm 1 on the depth network: ``{K: Clustering}`` per layer."""

    ds: Dataset
    samples: GateSamples
    layer1: dict
    layer2: dict


def cluster_layers(samples2, samples1, ds, k_max: int, **kmeans) -> Depth:
    """Layer 2 clustered for K = 1..``k_max``, layer 1 for K = 1, 2, 3 (Defined for the
    page book/gate_finding.md)."""
    clus2 = {K: cluster_gates(samples2, K, **kmeans) for K in range(1, k_max + 1)}
    clus1 = {K: cluster_gates(samples1, K, **kmeans) for K in (1, 2, 3)}
    return Depth(ds, samples2, clus1, clus2)
