"""Algorithm 1 (Appendix B, [conv-gate-finding]) on the digits network: the GDLN of K
binarised centroids, the K rule over GDLN seeds and the reading of the elbow (Defined
for the page book/digits.md)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...core.algorithm1 import centroid_gdln, cluster_gates, elbow_k, pattern_strings
from ...core.datasets import Dataset
from ...core.engine import Pathway, gdln, train
from .gates import cluster_classes, gate_sources
from .task import DigitsTask, answers, final_outputs, held_out_columns


@dataclass
class CentroidFit:
    """One ``K`` of the elbow: the clustering, the GDLN of its binarised centroids (None
    when every centroid is off), its run and the output MSE against the ReLU network
    at the sampled epochs (overall and per seed)."""

    K: int
    clustering: object
    net: object
    run: object
    output_mse: float
    output_mse_per_seed: tuple = ()


def centroid_fit(
    samples, ds: Dataset, K: int, *, lr: float, epochs: int, init_std: float,
    random_state: int = 0, n_init: int = 10, n_seeds: int = 1,
    gdln_width: int | None = None,
) -> CentroidFit:  # fmt: skip
    """Algorithm 1 for one ``K``: k-means of the sampled gates, the GDLN of the
    binarised centroids (``gdln_width`` units) trained from the ReLU run's first
    ``n_seeds`` seeds, and its outputs' mean squared difference from the ReLU
    network's.  Spare units stay one pathway at zero weights (one shape per ``K``)."""
    relu, n = samples.run, int(n_seeds)
    if not 1 <= n <= len(relu.seeds):
        raise ValueError(f"n_seeds must lie in 1..{len(relu.seeds)}, got {n_seeds!r}")
    idx = [relu.index(int(e)) for e in samples.epochs]
    O_relu = relu.records["outputs"][:n][:, idx]
    cl = cluster_gates(samples, K, random_state=random_state, n_init=n_init)
    width = samples.width if gdln_width is None else int(gdln_width)
    if not 1 <= width <= samples.width:
        raise ValueError(f"gdln_width must lie in 1..{samples.width}, got {width}")
    n_in, n_out = ds.X.shape[0], ds.Y.shape[0]
    net = centroid_gdln(cl, n_in, n_out, width=width, init_std=init_std)
    if net is None:
        per = tuple(float(np.mean(o**2)) for o in O_relu)
        return CentroidFit(int(K), cl, None, None, float(np.mean(O_relu**2)), per)
    spare = samples.width - net.sizes[1]
    if spare:  # a block at zero weights gets no gradient: it adds and learns nothing
        L, std = net.layers[0], (init_std, init_std)
        pws = [
            Pathway(name, sl.stop - sl.start, L.gating[sl][0], None, std)
            for name, sl in L.pathways
        ]
        pws.append(Pathway("inert", spare, None, None, (0.0, 0.0)))
        net = gdln(n_in, n_out, ds.P, pws)
    rec = dict(record_epochs=relu.record_epochs, record=("outputs", "weights"))
    run = train(net, ds.X, ds.Y, lr=lr, epochs=epochs, seeds=relu.seeds[:n], **rec)
    diff2 = (O_relu - run.records["outputs"][:, idx]) ** 2
    per = tuple(float(np.mean(d)) for d in diff2)
    return CentroidFit(int(K), cl, net, run, float(np.mean(diff2)), per)


def live_samples(samples, tol: float = 0.0):
    """Algorithm 1's samples without the rows on for at most a share ``tol`` of the
    datapoints: ``(samples, live share of the rows)``."""
    if not 0 <= tol < 1:
        raise ValueError(f"tol must lie in [0, 1), got {tol}")
    live = samples.patterns.mean(axis=1) > tol
    share = float(samples.counts[live].sum() / samples.counts.sum())
    patterns, counts = samples.patterns[live], samples.counts[live]
    return replace(samples, patterns=patterns, counts=counts, index=None), share


def k_rule(ks, errors_per_seed, rule: str = "bend") -> dict:
    """The elbow of ``errors_per_seed`` ``(K, seeds)``: ``k`` (``elbow_k`` of the
    median over seeds), ``per_seed`` and their ``interval``."""
    E, ks = np.asarray(errors_per_seed, float), list(ks)
    k = elbow_k(ks, np.median(E, axis=1), rule)
    per = [int(elbow_k(ks, E[:, j], rule)) for j in range(E.shape[1])]
    return {"k": int(k), "per_seed": per, "interval": (min(per), max(per))}


@dataclass(frozen=True)
class Elbow:
    """The elbow of the fits of K = 1..k_max: ``errors`` (median output MSE per K),
    ``k_bend`` and ``k_check`` (:func:`k_rule`), ``best`` (the fit at the bend) and
    its context-level ``best_patterns``, ``sources`` (:func:`gate_sources` per K),
    ``err_gdln`` (test errors per K), ``best_classes`` (also ``_shuffled``)."""

    fits: list
    errors: np.ndarray
    k_bend: dict
    k_check: dict
    best: CentroidFit
    best_patterns: list
    sources: list
    err_gdln: dict
    best_classes: dict
    best_classes_shuffled: dict

    best_k = property(lambda self: self.k_bend["k"])
    k_within = property(lambda self: self.k_check["k"])
    kinds_all = property(lambda self: [src["kind"] for src in self.sources])
    best_src = property(lambda self: self.sources[self.best_k - 1])


def read_elbow(fits, task: DigitsTask, tol: float, shuffled) -> Elbow:
    """The :class:`Elbow` of ``fits`` (K = 1, 2, ...) on ``task``, gates read to
    ``tol``, clusters also read with the ``shuffled`` contexts."""
    ds, C = task.train, task.n_contexts
    errors_seed = np.array([f.output_mse_per_seed for f in fits])  # K x GDLN seeds
    ks = [f.K for f in fits]
    k_bend = k_rule(ks, errors_seed)
    best = fits[k_bend["k"] - 1]
    cols_test = held_out_columns(task)
    return Elbow(
        fits=list(fits),
        errors=np.median(errors_seed, axis=1),
        k_bend=k_bend,
        k_check=k_rule(ks, errors_seed, "within"),
        best=best,
        best_patterns=pattern_strings(best.clustering.binary, ds.contexts, C),
        sources=[
            gate_sources(f.clustering.binary, ds, task.labels_train, tol) for f in fits
        ],
        err_gdln={
            f.K: answers(final_outputs(f.run, task.test.X, cols_test), task, "test")
            for f in fits
            if f.run is not None
        },
        best_classes=cluster_classes(best.clustering, ds.contexts, C),
        best_classes_shuffled=cluster_classes(best.clustering, shuffled, C),
    )
