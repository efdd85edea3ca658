"""The tables the page *Finding the gates* (``book/gate_finding.md``) shows where its
computations are, as Markdown (each from what the page computed)."""

from __future__ import annotations

import numpy as np

from ...book import kit
from ...core.algorithm1 import elbow_k
from ...core.measures import match
from .clusterings import Depth, context_strings, item_dependent
from .gdlns import Constructions

XOR_RELNS = {"0110,1001": "linear ReLN", "0001,0010,0100,1000": "XoR ReLN"}
EPS_STAR = float(np.sqrt(2 / 3))


def joined(values, fmt: str = "") -> str:
    """``values``, each formatted with ``fmt``, comma-separated."""
    return ", ".join(format(v, fmt) for v in values)


def patterns(cl, ds) -> str:
    """A clustering's context-level strings, comma-separated."""
    return joined(context_strings(cl, ds))


def _clustering(cl, ds) -> tuple[str, str]:
    """A clustering's context-level strings and its shares."""
    return patterns(cl, ds), joined(cl.shares, ".2f")


def _losses(curve) -> str:
    """A loss curve at epoch 3000 and at its end."""
    return f"{curve[3000]:.3g} / {curve[-1]:.3g}"


def clusterings(by_k, ds) -> str:
    """Each K's binarised centroids, shares and k-means objective."""
    rows = [
        (K, *_clustering(p.clustering, ds), f"{p.clustering.inertia:.4g}")
        for K, p in by_k.items()
    ]
    headers = "K | binarised centroids (context level) | shares | k-means objective"
    return kit.table(rows, headers)


def elbow(Ks, errors, gaps, by_k, relu_curve, other=None) -> str:
    """Fig. 9 in numbers: output error, time gap and loss of each K's GDLN;
    ``other``: ``(name, errors)`` of another construction, a column beside."""
    rows = [
        (K, f"{errors[i]:.3g}", f"{gaps[K].value:.3f}", _losses(by_k[K].loss[0]))
        + ((f"{other[1][i]:.3g}",) if other else ())
        for i, K in enumerate(Ks)
    ]
    relu = (
        "ReLU",
        "",
        f"{gaps[Ks[0]].spread:.3f} (two trainings)",
        _losses(relu_curve),
    )
    headers = (
        "K | output MSE {eq}`gate_finding-error` (mean over seeds) | time gap to the "
        "ReLU network (median) | GDLN loss at 3000 / end (seed 0)"
    ) + (f" | output MSE, {other[0]}" if other else "")
    return kit.table([*rows, relu + (("",) if other else ())], headers)


def optima(found: dict, n: int) -> str:
    """The K = 3 optima of single-restart k-means (``ch.kmeans_optima``)."""
    rows = [
        (key, f"{inert:.6g}", f"{k} of {n}")
        for key, (inert, k) in sorted(found.items(), key=lambda kv: kv[1][0])
    ]
    headers = (
        "K = 3 centroids (context level) | lowest objective found | "
        "single restarts reaching it"
    )
    return kit.table(rows, headers)


def restarts(by_restarts: dict, n_init: int, best_k: int, errors, Ks, cl3, ds) -> str:
    """The elbow under each k-means restart count (``ch.elbow_restarts``), beside the
    page's own (``n_init`` restarts, ``best_k``, ``errors``, K = 3 clustering
    ``cl3``)."""
    Ks = list(Ks)

    def row(n, k, e, retrained, cl):
        lo = int(np.argmin(e))
        cents = joined(sorted(context_strings(cl, ds), reverse=True))
        return (
            f"{n}", cents, f"{e[Ks.index(3)]:.3g}", f"{e[Ks.index(4)]:.3g}",
            f"{Ks[lo]} ({e[lo]:.3g})", retrained, f"{k}",
        )  # fmt: skip

    rows = [row(n_init, best_k, list(errors), "(the page's elbow)", cl3)]
    rows += [
        row(n, r["best_k"], r["errors"], joined(r["retrained"]) or "none", r["k3"])
        for n, r in sorted(by_restarts.items())
        if n != n_init
    ]
    headers = (
        "k-means restarts | K = 3 centroids | error K = 3 | error K = 4 | "
        "lowest error at K | K retrained | elbow K*"
    )
    return kit.table(rows, headers)


def init(rows: dict, spread: float, relu_loss) -> str:
    """The elbow's K = 4 GDLN under each start (``ch.compare_starts(...).rows``)."""
    keys = ("gap_k4", "gap_k3", "output_mse_k4", "final_loss_k4", "verdict")
    out = [(c, *(r[k] for k in keys)) for c, r in rows.items()]
    out.append(
        ("*two ReLU trainings*", spread, "", "", np.median(relu_loss[:, -1]), "")
    )
    headers = (
        "K = 4 GDLN started by | time gap K = 4 | time gap K = 3 (alternative) | "
        "output MSE K = 4 | final loss K = 4 (median) | verdict"
    )
    return kit.table(out, headers, floatfmt=[None, ".3f", ".3f", ".3g", ".3g", None])


def constructions(cons: Constructions, matched, relu_loss, init_std) -> str:
    """The K = 4 GDLN under each construction, below the elbow's K = 4 point started
    ``matched``."""
    built = zip(["", "", "Section 4 ReLN"], cons.specs, cons.built, cons.gaps)
    rows = [
        ("K = 4 GDLN (matched)", "binarised", "by share", "1 x ReLU", "all inputs",
         f"{matched.output_mse:.3g}", f"{match(relu_loss, matched.loss).value:.3f}",
         _losses(matched.loss[0]))
    ] + [
        (name, g, w, f"{sv / init_std:.0f} x ReLU", "items" if io else "all inputs",
         f"{mse:.3g}", f"{gap:.3f}", _losses(L[0]))
        for name, (g, w, sv, io), (mse, _, L, _), gap in built
    ]  # fmt: skip
    headers = (
        " | gates | widths | context pathways' init | context pathways see | "
        "output MSE | time gap to the ReLU network | loss at 3000 / end (seed 0)"
    )
    return kit.table(rows, headers)


def sensitivity(rows) -> str:
    """The K = 4 clustering under other seeds and samples
    (``ch.clustering_sensitivity``)."""
    out = [(label, rs, joined(p), joined(s, ".2f")) for _, label, rs, p, s, _ in rows]
    headers = "samples used | random_state | K = 4 binarised centroids | shares"
    return kit.table(out, headers)


def xor(results: dict) -> str:
    """Algorithm 1's elbow and centroids on the XoR networks, per margin."""
    rows = [
        (eps, "below" if eps < EPS_STAR else "above", r["k"], r["k_within"],
         joined(r["patterns"]), XOR_RELNS.get(",".join(sorted(r["patterns"])), "mixed"))
        for eps, r in sorted(results.items())
    ]  # fmt: skip
    headers = (
        "eps | side of eps* | elbow K* (bend) | K (within x2) | "
        "binarised centroids at K* | reads as"
    )
    return kit.table(rows, headers)


def xor_init(small: dict, large: dict, std_small: float, std_large: float) -> str:
    """Algorithm 1 on the XoR networks from a small and a large init."""
    rows = []
    for eps in large:
        for r, std in ((small[eps], std_small), (large[eps], std_large)):
            G = r["samples"].run.records["gates"][0]  # units keeping their gating
            kept = np.mean(np.all(G[:, 0] == G[:, -1], axis=-1))
            rows.append((eps, std, r["k"], joined(r["patterns"]), kept))
    headers = (
        "eps | init std | elbow K* | binarised centroids at K* | "
        "units keeping their initial gating"
    )
    return kit.table(rows, headers, floatfmt=[None, ".1e", None, None, ".2f"])


def depth(d: Depth) -> str:
    """The depth network's clusterings, both layers."""
    rows = [
        (layer, K, *_clustering(cl, d.ds), item_dependent(cl, d.ds))
        for layer, clus in ((1, d.layer1), (2, d.layer2))
        for K, cl in clus.items()
    ]
    headers = (
        "layer | K | binarised centroids (context level) | shares | "
        "item-dependent centroids"
    )
    return kit.table(rows, headers)


def depth_elbow(points, k_max: int, ds, samples) -> str:
    """The depth elbow's sentence (``points``: its elbow points, or None when it was
    not run)."""
    if points is None:
        return kit.prose("gate_finding", "depth_elbow_off")
    e = [p.output_mse for p in points]
    k = elbow_k(range(1, k_max + 1), e)
    return kit.prose(
        "gate_finding",
        "depth_elbow",
        k_max=k_max,
        errors=joined(e, ".3g"),
        k=k,
        centroids=patterns(points[k - 1].clustering, ds),
        losses=joined((p.loss[0, -1] for p in points), ".3g"),
        relu=samples.run.loss[0, -1],
    )
