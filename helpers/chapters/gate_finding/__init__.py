"""What only the chapter *Finding the gates* (``book/gate_finding.md``) needs.

Algorithm 1 itself (sampling the gates, k-means, the centroid GDLN, the elbow) is in
:mod:`helpers.core.algorithm1`, since the real-data chapter runs it too; the page calls
it as ``ch.cluster_gates`` and so on.  How the centroid GDLN starts ([conv-init]) is
:func:`helpers.core.relns.start`, which :func:`~helpers.core.algorithm1.elbow` calls
with its ``init`` (``experiment = "gate_finding"``: our transfer of the Section 4
values, the ``[authors_init.gate_finding]`` table of ``paper.toml``).  Here: what the
page reads off the clusterings, the GDLNs built as the paper builds its ReLN, and
Algorithm 1 on the XoR networks; the figures (:mod:`.plots`), tables
(:mod:`.tables`) and records (:func:`report`).
"""

from __future__ import annotations

import numpy as np

from ...core.algorithm1 import (  # the page calls Algorithm 1 as the chapter's (ch.)
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
from ...core.datasets import Dataset

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
    "check_seeds",
    "context_strings",
    "context_level",
    "item_dependent",
    "errors_by_seed",
    "kmeans_optima",
    "elbow_restarts",
    "init_rows",
    "paper_gdln",
    "clustering_sensitivity",
    "xor_algorithm1",
    "report",
    "results",
    "plots",
    "tables",
]


def check_seeds(elbow_seeds: int, trainings: int) -> None:
    """Each GDLN seed is compared with the ReLU training of the same seed: at most
    ``trainings`` GDLN seeds (ValueError otherwise)."""
    if elbow_seeds > trainings:
        raise ValueError(
            f"elbow_seeds = {elbow_seeds} must be at most trainings = {trainings}: "
            "each GDLN seed is compared with the ReLU training of the same seed"
        )


def context_strings(cl: Clustering, ds: Dataset) -> list[str]:
    """A clustering's binarised centroids as context-level on/off strings ('110')."""
    return pattern_strings(cl.binary, ds.contexts, ds.n_contexts)


def context_level(pattern: str, ds: Dataset) -> np.ndarray:
    """The gate over datapoints that is on in the contexts a string such as '110'
    names."""
    on = [c for c in range(ds.n_contexts) if pattern[c] == "1"]
    return np.isin(ds.contexts, on)


def item_dependent(cl: Clustering, ds: Dataset) -> int:
    """How many binarised centroids are not constant within some context."""
    from ...core.measures import context_patterns

    _, dep = context_patterns(cl.binary, ds.contexts, ds.n_contexts)
    return int(dep.sum())


def errors_by_seed(samples: GateSamples, by_k: dict, Ks, n_seeds: int) -> np.ndarray:
    """Eq. gate_finding-error of each GDLN seed against the ReLU training of the same
    seed, ``(K, seed)``."""
    out = samples.run.records["outputs"]
    return np.array(
        [
            [np.mean((out[r] - by_k[K].outputs[r]) ** 2) for r in range(n_seeds)]
            for K in Ks
        ]
    )


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


def elbow_restarts(samples, X, Y, by_k: dict, n_init: int, random_state: int, **gd):
    """Fig. 9's elbow again with every ``K`` clustered from ``n_init`` k-means restarts
    (Defined for the page book/gate_finding.md: the ``restarts`` variant of
    ``best_k``).

    Args:
        samples: the sampled gates (:func:`sample_gates`).
        X, Y: the task's input and target.
        by_k: ``{K: ElbowPoint}`` of the page's own elbow (its restarts).
        n_init: k-means restarts, at least 1.
        random_state: k-means' seed.
        **gd: the arguments of :func:`elbow` that build and train the GDLNs.

    Returns:
        ``{"errors": [...], "best_k": K*, "retrained": [K, ...], "k3": Clustering}``:
        the seed-averaged output error per ``K`` (a GDLN is trained again only where
        the binarised centroids differ from the page's; the others keep its error),
        the bend rule's elbow, the ``K`` retrained, and the ``K = 3`` clustering.
    """
    if isinstance(n_init, bool) or not isinstance(n_init, (int, np.integer)):
        raise ValueError(f"n_init must be an integer >= 1, got {n_init!r}")
    if n_init < 1:
        raise ValueError(f"n_init must be an integer >= 1, got {n_init!r}")
    Ks = sorted(by_k)
    errors, retrained, k3 = [], [], None
    for K in Ks:
        cl = cluster_gates(samples, K, random_state=random_state, n_init=int(n_init))
        k3 = cl if K == 3 else k3
        if np.array_equal(cl.binary, by_k[K].clustering.binary):
            errors.append(float(by_k[K].output_mse))
            continue
        pt = elbow(samples, X, Y, [K], clusterings={K: cl}, **gd)[0]
        errors.append(float(pt.output_mse))
        retrained.append(int(K))
    return {
        "errors": errors,
        "best_k": elbow_k(Ks, errors),
        "retrained": retrained,
        "k3": k3,
    }


def init_rows(matches: dict, points: dict) -> dict:
    """Per start of the elbow's GDLNs: the K = 4 and K = 3 time gaps, the K = 4
    output error and final loss, and the rulebook's verdict under that start."""
    from ...book.rulebook import verdict

    return {
        init: {
            "gap_k4": m.value,
            "gap_k3": m.alternative,
            "output_mse_k4": points[init][4].output_mse,
            "final_loss_k4": float(np.median(points[init][4].loss[:, -1])),
            "verdict": verdict(m),
        }
        for init, m in matches.items()
    }


def paper_gdln(cl, ds, gates, widths, ctx_std, items_only, init_std):
    """The GDLN of a clustering built as chosen: ``gates`` 'binarised' (the
    centroids) or 'context-level' (their context strings), ``widths`` per pathway,
    the context pathways at ``ctx_std`` and the all-on one at ``init_std``, the
    context pathways seeing the items only when ``items_only`` (the Section 4 ReLN:
    'context-level', 100 each, twice the std, items only)."""
    from ...core.engine import Pathway, gdln

    items = [i for i, n in enumerate(ds.inputs) if n.startswith("item")]
    pws = []
    for k, p in enumerate(context_strings(cl, ds)):
        common = p == "1" * ds.n_contexts
        g = cl.binary[k] if gates == "binarised" else context_level(p, ds)
        pws.append(
            Pathway(
                f"c{k + 1}",
                int(widths[k]),
                g.astype(float),
                None if (common or not items_only) else items,
                (init_std if common else ctx_std,) * 2,
            )
        )
    return gdln(ds.X.shape[0], ds.Y.shape[0], ds.P, pws)


def clustering_sensitivity(samples, ds, subsets, seeds, seed, n_init, every):
    """The K = 4 clustering under other k-means seeds, on subsets of the sampled
    epochs, and on each training alone: rows ``(group, samples used, random_state,
    context strings, shares, the four expected patterns?)``."""
    expected = sorted(["111", "110", "101", "011"])
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


def xor_algorithm1(eps, width, init_std, *, lr, epochs, trainings, every, ks, **km):
    """Algorithm 1 on the XoR ReLU network at margin ``eps``: the samples, the elbow
    points, errors, the elbow by both rules and the binarised centroids at it
    (per datapoint, ``'1001'``); ``km``: k-means' ``random_state`` and ``n_init``."""
    from ...core.datasets import xor
    from ...core.engine import relu_network

    d = xor(eps)
    net = relu_network((3, width, 1), init_std)
    smp = sample_gates(
        net, d.X, d.Y, lr=lr, epochs=epochs, seeds=range(trainings), every=every
    )
    pts = elbow(smp, d.X, d.Y, ks, lr=lr, epochs=epochs, init_std=init_std, **km)
    err = np.array([p.output_mse for p in pts])
    k = elbow_k(ks, err)
    return dict(
        samples=smp,
        points=pts,
        errors=err,
        k=k,
        k_within=elbow_k(ks, err, "within"),
        patterns=pattern_strings(pts[k - 1].clustering.binary),
    )


from . import plots, tables  # noqa: E402
from .report import report, results  # noqa: E402
