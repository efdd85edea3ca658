"""Families of context ReLNs and the census by contexts on (Section 5; [conv-census],
[rulebook-best]), for book/extra_contexts.md and book/more_contexts.md."""

from __future__ import annotations

from math import comb

import numpy as np

from .datasets import Dataset, contextual_task
from .engine import relu_network, train
from .measures import (
    context_patterns,
    gating_census,
    snap_to_contexts,
    unit_weight,
)
from .paper import COMMON_WIDTHS, WIDTH_RULES


def family_name(ks, C: int) -> str:
    """The family member's name ([rulebook-best]): ``'4-of-5'``, ``'4+3-of-5'``."""
    return "+".join(str(k) for k in sorted(set(ks), reverse=True)) + f"-of-{C}"


def family_sets(C: int, by_k, extra=()) -> dict:
    """``{name: ks}`` of the family ([rulebook-best]): every k-of-C, the mix of the
    two ``k < C`` with most weight in ``by_k`` ``(C + 1,)``, and ``extra``."""
    by_k = np.asarray(by_k, float)
    if by_k.shape != (C + 1,):
        raise ValueError(f"by_k must hold C + 1 = {C + 1} shares, got {by_k.shape}")
    out = {family_name([k], C): (k,) for k in range(1, C + 1)}
    if C > 2:
        top = sorted(range(1, C), key=lambda k: -by_k[k])[:2]
        out[family_name(top, C)] = tuple(sorted(top, reverse=True))
    for ks in extra:
        out[family_name(ks, C)] = tuple(sorted(set(ks), reverse=True))
    return out


def pathway_count(ks, C: int) -> int:
    """``1 + sum_k C choose k``."""
    return 1 + sum(comb(C, int(k)) for k in set(ks))


def member_width(ks, C: int, total: int, per_pathway: int, rule: str = "total") -> int:
    """Units per pathway of member ``ks`` under ``rule``
    (:data:`helpers.core.paper.WIDTH_RULES`): ``total / pathways`` rounded half up
    (at least 1), or ``per_pathway``."""
    if rule not in WIDTH_RULES:
        raise ValueError(f"width rule must be one of {WIDTH_RULES}, got {rule!r}")
    if rule == "per_pathway":
        return int(per_pathway)
    return max(1, int(np.floor(total / pathway_count(ks, C) + 0.5)))


def member_widths(
    ks, C: int, total: int, per_pathway: int, rule: str = "total", common="equal"
) -> tuple[int, int]:
    """``(common units, units per context pathway)`` of member ``ks``; ``common``
    (:data:`helpers.core.paper.COMMON_WIDTHS`) ``"fixed"`` under ``"total"`` gives
    the common ``per_pathway`` and shares the rest.  Defined for the page
    book/more_contexts.md (its ``width`` variant of ``best_reln``)."""
    if common not in COMMON_WIDTHS:
        raise ValueError(f"common must be one of {COMMON_WIDTHS}, got {common!r}")
    w = member_width(ks, C, total, per_pathway, rule)
    if rule == "per_pathway" or common == "equal":
        return w, w
    rest = (total - per_pathway) / (pathway_count(ks, C) - 1)
    if rest <= 0:
        raise ValueError(f"{total} units leave none beside a {per_pathway}-unit common")
    return int(per_pathway), max(1, int(np.floor(rest + 0.5)))


def class_share(net, W1, W2, names) -> float:
    """Share of a ReLN's unit weight ([conv-census]) in the pathways ``names``."""
    w = unit_weight(np.asarray(W1, float), np.asarray(W2, float))
    keep = sum(w[net.pathway_slice(n)].sum() for n in names if n in net.pathway_names())
    return float(keep / w.sum())


def census_by_contexts_on(
    gates, W1, W2, contexts, n_contexts: int, threshold: float = 0.5
) -> np.ndarray:
    """The weight census binned by number of contexts on, ``(C + 1,)``."""
    w = unit_weight(W1, W2)
    if w.sum() <= 0:
        raise ValueError("census_by_contexts_on: every unit has zero weight")
    pats, _ = context_patterns(gates, contexts, n_contexts, threshold)
    k = np.array([p.count("1") for p in pats])
    return np.bincount(k, weights=w, minlength=n_contexts + 1) / w.sum()


def functional_by_contexts_on(
    W1, W2, X, contexts, n_contexts: int, threshold: float = 0.5
) -> np.ndarray:
    """Per ``k = 0..C``, the snapped output norm of units on in ``k`` contexts, as a
    share of the sum."""
    W1, W2, X = (np.asarray(a, float) for a in (W1, W2, X))
    contexts = np.asarray(contexts)
    pre = W1 @ X
    G = snap_to_contexts(pre > 0, contexts, n_contexts, threshold)
    on = np.stack([G[:, contexts == c].max(axis=1) for c in range(n_contexts)], axis=1)
    k = on.sum(axis=1).astype(int)
    parts = np.array(
        [
            np.linalg.norm(W2[:, k == j] @ (G[k == j] * pre[k == j]))
            for j in range(n_contexts + 1)
        ]
    )
    if parts.sum() <= 0:
        raise ValueError("functional_by_contexts_on: the snapped network has no output")
    return parts / parts.sum()


def node_reuse_index(shares_by_k) -> float:
    """Weighted mean fraction of contexts a unit is on in, ``sum_k share_k k / C``."""
    sh = np.asarray(shares_by_k, float)
    C = sh.shape[-1] - 1
    return float(np.sum(sh * np.arange(C + 1)) / C / np.sum(sh))


def contexts_per_unit(shares_by_k) -> float:
    """Weighted mean number of contexts a unit is on in, ``sum_k share_k k``."""
    sh = np.asarray(shares_by_k, float)
    return float(np.sum(sh * np.arange(sh.shape[-1])) / np.sum(sh))


def census_over_training(gates, W1s, W2s, ds: Dataset, threshold: float = 0.5) -> dict:
    """Census per seed and epoch ([conv-census]) of ``gates`` ``(S, R, H, P)``,
    ``W1s`` ``(S, R, H, d)``, ``W2s`` ``(S, R, p, H)``: ``"census"`` (``S x R``
    dicts), ``"by_k"`` and ``"functional_by_k"`` ``(S, R, C + 1)``."""
    C, (S, R) = ds.n_contexts, np.shape(W1s)[:2]

    def grid(f):
        return [[f(s, r) for r in range(R)] for s in range(S)]

    census = grid(
        lambda s, r: gating_census(
            gates[s, r], W1s[s, r], W2s[s, r], ds.contexts, C, threshold
        )
    )
    by_k = grid(
        lambda s, r: census_by_contexts_on(
            gates[s, r], W1s[s, r], W2s[s, r], ds.contexts, C, threshold
        )
    )
    func = grid(
        lambda s, r: functional_by_contexts_on(
            W1s[s, r], W2s[s, r], ds.X, ds.contexts, C, threshold
        )
    )
    return {"census": census, "by_k": np.array(by_k), "functional_by_k": np.array(func)}


def trained_relu(
    ds: Dataset,
    hidden: int,
    seeds,
    *,
    relu_std: float,
    lr: float,
    epochs: int,
    record_epochs,
):
    """``(net, run)``: the ReLU network (std ``relu_std / hidden``) trained with
    weights and gates recorded, as the census reads it."""
    net = relu_network((ds.X.shape[0], hidden, ds.Y.shape[0]), relu_std / hidden)
    run = train(
        net,
        ds.X,
        ds.Y,
        lr=lr,
        epochs=epochs,
        seeds=list(seeds),
        record_epochs=record_epochs,
        record=("weights", "gates"),
    )
    return net, run


def onehot_census(
    C: int, hidden: int, seeds, *, relu_std: float, lr: float, epochs: int, threshold
) -> dict:
    """Final census with a one-hot context input (as the paper states; the authors
    scale it to 1.1, 1.35 at C = 4, 5): ``share`` (common + mixed) and ``per_unit``
    ``(seeds,)``, ``by_k`` ``(seeds, C + 1)``."""
    ds = contextual_task(C, context_value=1.0)
    _, run = trained_relu(
        ds,
        hidden,
        seeds,
        relu_std=relu_std,
        lr=lr,
        epochs=epochs,
        record_epochs=[epochs],
    )
    (W1, W2), G = (W[:, -1] for W in run.records["weights"]), run.records["gates"][0]
    out = {"share": [], "per_unit": [], "by_k": []}
    for s in range(len(list(seeds))):
        c = gating_census(G[s, -1], W1[s], W2[s], ds.contexts, C, threshold)
        by_k = census_by_contexts_on(G[s, -1], W1[s], W2[s], ds.contexts, C, threshold)
        out["share"].append(c["common"] + c["mixed"])
        out["per_unit"].append(contexts_per_unit(by_k))
        out["by_k"].append(by_k)
    return {k: np.array(v) for k, v in out.items()}


def onehot_fraction(onehot: dict, C: int, primary) -> np.ndarray:
    """``onehot[C]["per_unit"] / C``, or ``primary`` where there is no one-hot run."""
    return onehot[C]["per_unit"] / C if C in onehot else primary
