"""What only the chapter *Finding the gates* (``book/gate_finding.md``) needs.

Algorithm 1 itself (sampling the gates, k-means, the centroid GDLN, the elbow) is in
:mod:`helpers.core.algorithm1`, since the real-data chapter runs it too; it is
re-exported here so that the chapter reads ``ch.cluster_gates`` and so on.  This module
adds how the centroid GDLN starts ([conv-init]): :func:`centroid_start`, and the elbow
and its error with a GDLN so started (:func:`elbow_started`, :func:`started_error`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..core.algorithm1 import (  # re-exported: the chapter reads ch.cluster_gates
    SAMPLE_EVERY,
    Clustering,
    ElbowPoint,
    GateSamples,
    centroid_gdln,
    cluster_gates,
    elbow,
    elbow_k,
    gdln_error,
    pathway_widths,
    pattern_strings,
    sample_epochs,
    sample_gates,
    samples_from_run,
)
from ..core.engine import GatedNetwork, forward, init_params, train
from ..core.measures import context_patterns, curve_distance
from ..core.relns import (
    INITS,
    STD_COMMON,
    STD_CONTEXT,
    derived_stds,
    initial_weights,
    with_stds,
)

__all__ = [
    "SAMPLE_EVERY",
    "GateSamples",
    "Clustering",
    "ElbowPoint",
    "sample_epochs",
    "sample_gates",
    "samples_from_run",
    "cluster_gates",
    "pattern_strings",
    "pathway_widths",
    "centroid_gdln",
    "gdln_error",
    "elbow",
    "elbow_k",
] + [
    "AUTHORS_CONTEXT_FACTOR",
    "centroid_start",
    "started_error",
    "elbow_started",
]

#: The authors' ReLN of Section 4 starts its context pathways at this multiple of the
#: common pathway's (= the ReLU network's) std (facts of their code, [conv-init]).
AUTHORS_CONTEXT_FACTOR = STD_CONTEXT / STD_COMMON


def centroid_start(
    net: GatedNetwork | None,
    init: str,
    seeds: Sequence[int],
    relu_net: GatedNetwork,
    X,
    relu_std: float,
    layer: int = -1,
    contexts=None,
):
    """``(net, params0)``: a centroid GDLN (one hidden layer of gated pathways, as built
    by :func:`helpers.core.algorithm1.centroid_gdln`) started by ``init`` ([conv-init]).

    ``"matched"``: every weight at the ReLU network's ``relu_std`` (as built);
    ``"authors"``: the authors' ReLN convention carried over (our transfer): a common
    pathway at ``relu_std``, every other pathway at :data:`AUTHORS_CONTEXT_FACTOR` times
    it; common means on in every context at the level of contexts
    (:func:`helpers.core.measures.context_patterns`) when ``contexts`` (the context of
    each datapoint) is given, else on for every datapoint; ``"derived"``: per seed, each
    pathway's std from the ReLU network ``relu_net`` of the same seed
    (:func:`helpers.core.relns.derived_stds` on its gates at epoch 0, at the level of
    datapoints since the centroids' gates are), stacked as ``params0``.  ``params0`` is
    None unless ``init`` is ``"derived"``; ``net=None`` (no pathway) passes through.
    """
    if init not in INITS:
        raise ValueError(f"init must be one of {INITS}, got {init!r}")
    if net is None:
        return None, None
    names = net.pathway_names(layer)
    L = net.layers[layer]
    gates = {n: L.gating[net.pathway_slice(n, layer)][0] for n in names}
    if init == "matched":
        return with_stds(net, {n: relu_std for n in names}, layer=layer), None
    if init == "authors":
        if contexts is None:
            common = {n: bool(np.all(g > 0)) for n, g in gates.items()}
        else:
            C = int(np.max(contexts)) + 1
            pats, _ = context_patterns(np.stack([gates[n] for n in names]), contexts, C)
            common = {n: p == "1" * C for n, p in zip(names, pats)}
        stds = {
            n: relu_std * (1.0 if common[n] else AUTHORS_CONTEXT_FACTOR) for n in names
        }
        return with_stds(net, stds, layer=layer), None
    widths = {
        n: net.pathway_slice(n, layer).stop - net.pathway_slice(n, layer).start
        for n in names
    }
    nets = []
    for s in seeds:
        _, _, gates0 = forward(relu_net, init_params(relu_net, int(s)), X)
        nets.append(
            with_stds(
                net, derived_stds(gates0[layer], gates, widths, relu_std), layer=layer
            )
        )
    return nets[0], initial_weights(nets, [int(s) for s in seeds])


def started_error(
    net: GatedNetwork | None,
    init: str,
    X,
    Y,
    relu_run,
    relu_net: GatedNetwork,
    *,
    lr: float,
    epochs: int,
    n_seeds: int,
    relu_std: float,
    contexts=None,
):
    """:func:`helpers.core.algorithm1.gdln_error` for a centroid GDLN started by
    ``init``
    (:func:`centroid_start`): trained from the first ``n_seeds`` seeds of the ReLU run,
    seed ``s`` against ReLU training ``s``.  Returns ``(output_mse, curve_distance,
    loss, outputs)`` as :func:`~helpers.core.algorithm1.gdln_error` does; ``contexts``
    as in
    :func:`centroid_start`."""
    if init == "matched" or net is None:
        net_s, _ = centroid_start(
            net, "matched", (), relu_net, X, relu_std, contexts=contexts
        )
        return gdln_error(net_s, X, Y, relu_run, lr=lr, epochs=epochs, n_seeds=n_seeds)
    seeds = [int(s) for s in relu_run.seeds[:n_seeds]]
    net_s, params0 = centroid_start(
        net, init, seeds, relu_net, X, relu_std, contexts=contexts
    )
    rec = relu_run.record_epochs
    run = train(
        net_s,
        X,
        Y,
        lr=lr,
        epochs=epochs,
        seeds=seeds,
        record_epochs=rec,
        record=("outputs",),
        params0=params0,
    )
    O_relu = relu_run.records["outputs"][:n_seeds]
    mse = float(np.mean((O_relu - run.records["outputs"]) ** 2))
    cd = float(
        np.mean(
            [curve_distance(a, b) for a, b in zip(relu_run.loss[:n_seeds], run.loss)]
        )
    )
    return mse, cd, run.loss, run.records["outputs"]


def elbow_started(
    samples,
    X,
    Y,
    Ks: Sequence[int],
    *,
    init: str,
    relu_net: GatedNetwork,
    lr: float,
    epochs: int,
    relu_std: float,
    random_state: int = 0,
    n_init: int = 10,
    n_seeds: int = 1,
    clusterings: dict | None = None,
    contexts=None,
) -> list:
    """:func:`helpers.core.algorithm1.elbow` with the centroid GDLNs started by ``init``
    (:func:`centroid_start`); ``clusterings`` (``{K: Clustering}``) reuses clusterings
    already made; ``contexts`` as in :func:`centroid_start`.  For ``init = "matched"``
    it
    is :func:`~helpers.core.algorithm1.elbow`."""
    X = np.asarray(X, float)
    Y = np.asarray(Y, float)
    out = []
    for K in Ks:
        cl = (clusterings or {}).get(K) or cluster_gates(
            samples, K, random_state=random_state, n_init=n_init
        )
        net = centroid_gdln(
            cl, X.shape[0], Y.shape[0], width=samples.width, init_std=relu_std
        )
        mse, cd, loss, outputs = started_error(
            net,
            init,
            X,
            Y,
            samples.run,
            relu_net,
            lr=lr,
            epochs=epochs,
            n_seeds=n_seeds,
            relu_std=relu_std,
            contexts=contexts,
        )
        out.append(
            ElbowPoint(
                K=int(K),
                clustering=cl,
                net=net,
                output_mse=mse,
                curve_distance=cd,
                loss=loss,
                outputs=outputs,
            )
        )
    return out
