"""The ReLU network's gating ([conv-census]): the census over training by weight and
through the function, strict counts, ablations and which units produce which output
block.  Defined for the page book/contexts.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ...book.kit import med
from ...book.rulebook import PHASE_SNAP
from ...core.checks import check_positive_int
from ...core.measures import (
    census_over_training,
    context_patterns,
    functional_census,
    gating_census,
    snap_to_contexts,
    unit_weight,
)
from ...core.relns import pathway_pattern


def unit_groups(
    gates, contexts, n_contexts: int, threshold: float = 0.5
) -> dict[str, np.ndarray]:
    """Hidden units by context pattern (``{'110': unit indices, ...}``)."""
    pats = context_patterns(gates, contexts, n_contexts, threshold)[0]
    return {p: np.flatnonzero(np.array(pats) == p) for p in sorted(set(pats))}


def group_maps(W1, W2, groups: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The map ``W2[:, G] W1[G, :]`` of each group of hidden units (``W1`` ``(..., H,
    d)``, ``W2`` ``(..., p, H)``, leading axes broadcast)."""
    W1, W2 = np.asarray(W1, float), np.asarray(W2, float)
    if W1.shape[-2] != W2.shape[-1]:
        raise ValueError(f"W1 has {W1.shape[-2]} hidden units, W2 {W2.shape[-1]}")
    return {g: W2[..., :, idx] @ W1[..., idx, :] for g, idx in groups.items()}


def output_division(
    W2, H, groups: Mapping[str, np.ndarray | slice], Y, block_rows: Sequence[slice]
) -> dict:
    """Per group ``G`` and block ``b``, ``<W2[b, G] H[G], Y[b]> / ||Y[b]||^2``: the
    group's share of the target block (the groups' shares sum to the network's fit)."""
    W2, H, Y = (np.asarray(a, float) for a in (W2, H, Y))
    if (W2.shape[1], W2.shape[0], H.shape[1]) != (H.shape[0], Y.shape[0], Y.shape[1]):
        raise ValueError(
            f"shapes do not chain: W2 {W2.shape}, H {H.shape}, Y {Y.shape}"
        )
    norms = [max(np.sum(Y[b] ** 2), 1e-300) for b in block_rows]
    out = {}
    for g, idx in groups.items():
        Yg = W2[:, idx] @ H[idx]
        out[g] = np.array([np.sum(Yg[b] * Y[b]) / n for b, n in zip(block_rows, norms)])
    return out


def class_output_share(W2, H, pathways: Mapping, classes: Mapping, name: str) -> float:
    """Share of a ReLN's output produced by the class ``name`` of pathways (norm of its
    summed contribution over the sum of the classes' norms, as
    :func:`helpers.core.measures.functional_census` reads the ReLU network), median
    over seeds; ``W2`` ``(S, p, H)``, ``H`` ``(S, H, P)``, ``pathways`` name -> slice,
    ``classes`` class -> pathway names."""
    if name not in classes:
        raise ValueError(f"no class {name!r}; have {list(classes)}")

    def part(s, names):
        return np.linalg.norm(
            sum(W2[s][:, pathways[n]] @ H[s][pathways[n]] for n in names)
        )

    shares = [
        part(s, classes[name]) / sum(part(s, v) for v in classes.values())
        for s in range(len(W2))
    ]
    return med(shares)


def strict_context_census(gates, W1, W2, contexts, n_contexts: int) -> dict:
    """The census counted strictly at one record (``gates`` ``H x P``), as weight
    shares: ``context_level`` (units all-or-none in every context and on somewhere),
    ``one_context_only`` (active, for any item, in exactly one context)."""
    G, contexts = np.asarray(gates, bool), np.asarray(contexts)
    w = unit_weight(W1, W2)
    total = w.sum()
    if total <= 0:
        raise ValueError("strict_context_census: every unit has zero weight")
    per = [G[:, contexts == c] for c in range(n_contexts)]
    any_on = np.stack([g.any(axis=1) for g in per], axis=1)
    all_or_none = np.all([g.all(axis=1) | ~g.any(axis=1) for g in per], axis=0)
    level = all_or_none & any_on.any(axis=1)
    one = any_on.sum(axis=1) == 1
    return {
        "context_level": float(w[level].sum() / total),
        "one_context_only": float(w[one].sum() / total),
    }


def _snapped_classes(W1, X, contexts, n_contexts: int, *names):
    """``W1 X`` and each unit's class of the functional census ([conv-census])."""
    pre = W1 @ X
    G = snap_to_contexts(pre > 0, contexts, n_contexts)
    on = np.stack(
        [G[:, np.asarray(contexts) == c].max(axis=1) for c in range(n_contexts)], axis=1
    )
    k = on.sum(axis=1)
    masks = {"common": k == n_contexts, "mixed": k == n_contexts - 1, "single": k == 1}
    for what, c in names:
        if c not in masks:
            raise ValueError(f"{what} must be one of {list(masks)}, got {c!r}")
    return pre, masks


def _loss_keeping(W2, pre, Y, keep) -> float:
    """The summed loss of ``W2 relu(pre)`` with only the units ``keep``."""
    return 0.5 * float(np.sum((Y - W2[:, keep] @ np.maximum(pre[keep], 0)) ** 2))


def ablate_class(W1, W2, X, Y, contexts, n_contexts: int, cls: str = "single") -> dict:
    """The summed ``loss`` of ``W2 relu(W1 X)``, the loss ``ablated`` without the units
    of the functional census's class ``cls`` (``common``, ``mixed`` or ``single``) and
    the ``share_units`` so removed (``W1`` ``(H, d)``, ``W2`` ``(p, H)``, ``X`` ``(d,
    P)``, ``Y`` ``(p, P)``)."""
    W1, W2, X, Y = (np.asarray(a, float) for a in (W1, W2, X, Y))
    pre, masks = _snapped_classes(W1, X, contexts, n_contexts, ("cls", cls))
    keep = ~masks[cls]
    return {
        "loss": _loss_keeping(W2, pre, Y, np.ones_like(keep)),
        "ablated": _loss_keeping(W2, pre, Y, keep),
        "share_units": float(1 - keep.mean()),
    }


def ablation_control(
    W1, W2, X, Y, contexts, n_contexts: int, *, draws: int, seed: int,
    cls: str = "single", pool: str = "mixed",
) -> dict:  # fmt: skip
    """The control of :func:`ablate_class`: each of ``draws`` draws (seeded) removes
    the units of the class ``pool``, in random order, up to the summed weight
    ``|W2[:, j]| |W1[j, :]|`` nearest that of ``cls``.

    Returns:
        ``ablated`` (the loss without them), ``ablated_draws`` ``(draws,)``,
        ``weight_ratio`` (removed weight over ``cls``'s), ``share_units`` (medians over
        draws) and ``enough`` (whether ``pool`` weighs at least as much as ``cls``).
    """
    draws = check_positive_int(draws, "draws")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if cls == pool:
        raise ValueError(f"pool must differ from cls, both are {cls!r}")
    W1, W2, X, Y = (np.asarray(a, float) for a in (W1, W2, X, Y))
    pre, masks = _snapped_classes(
        W1, X, contexts, n_contexts, ("cls", cls), ("pool", pool)
    )
    w = unit_weight(W1, W2)
    target = float(w[masks[cls]].sum())
    if target <= 0:
        raise ValueError(f"ablation_control: the class {cls!r} has no weight")
    units = np.flatnonzero(masks[pool])
    rng = np.random.default_rng(int(seed))
    losses, ratios, shares = [], [], []
    for _ in range(draws):
        order = rng.permutation(units)
        total = np.concatenate([[0.0], np.cumsum(w[order])])
        n = int(np.argmin(np.abs(total - target)))
        keep = np.ones(w.shape[0], bool)
        keep[order[:n]] = False
        losses.append(_loss_keeping(W2, pre, Y, keep))
        ratios.append(total[n] / target)
        shares.append(n / w.shape[0])
    return {
        "ablated": med(losses),
        "ablated_draws": np.array(losses),
        "weight_ratio": med(ratios),
        "share_units": med(shares),
        "enough": bool(w[units].sum() >= target),
    }


def division_by_class(shares: Mapping, n_contexts: int) -> dict:
    """:func:`output_division` shares per pattern (such as ``'110'``) summed per class:
    ``common``, ``2-of-3`` (on in C-1 of C), ``single`` or ``other``."""
    classes = {1: "single", n_contexts - 1: "2-of-3", n_contexts: "common"}
    out = dict.fromkeys(("common", "2-of-3", "single", "other"), 0.0)
    for pat, v in shares.items():
        out[classes.get(pat.count("1"), "other")] += v
    return out


def division_of_labour(relu, reln, ds, blocks) -> dict:
    """Which units produce which output block at the last record, per class, median
    over seeds: the ReLU network's units grouped by final context pattern against the
    ReLN's pathways, ``{"ReLU" | "ReLN": {class: (blocks,)}}``."""
    C, G = ds.n_contexts, relu.records["gates"][0]
    pw = {pathway_pattern(n, C): sl for n, sl in reln.net.layers[0].pathways}
    out = {}
    for name, run in (("ReLU", relu), ("ReLN", reln)):
        W2, H = run.records["weights"][1][:, -1], run.records["hidden"][0][:, -1]
        divs = []
        for s in range(len(W2)):
            groups = unit_groups(G[s, -1], ds.contexts, C) if run is relu else pw
            shares = output_division(W2[s], H[s], groups, ds.Y, blocks)
            divs.append(division_by_class(shares, C))
        out[name] = {k: np.median([d[k] for d in divs], axis=0) for k in divs[0]}
    return out


def ablation_summary(ablation, control) -> dict:
    """The record ``single_context_ablation`` from :func:`ablate_class`'s and
    :func:`ablation_control`'s dicts per seed (same seeds, same order): the median,
    least and largest over seeds of the loss without the single-context units, without
    the control's units and of their ``ratio``, and in how many seeds the first costs
    more than the control's median draw / every draw."""
    if len(ablation) != len(control) or not ablation:
        raise ValueError(
            f"ablation and control need one entry per seed each, got {len(ablation)} "
            f"and {len(control)}"
        )
    single = np.array([d["ablated"] for d in ablation], float)
    ctl = np.array([d["ablated"] for d in control], float)
    top = np.array([np.max(d["ablated_draws"]) for d in control], float)

    def stats(name, v):
        return {
            f"{name}_median": med(v),
            f"{name}_min": float(v.min()),
            f"{name}_max": float(v.max()),
        }

    return {
        "loss": med([d["loss"] for d in ablation]),
        **stats("ablated", single),
        "share_of_units": med([d["share_units"] for d in ablation]),
        **stats("control", ctl),
        "control_weight_ratio": med([d["weight_ratio"] for d in control]),
        "control_share_of_units": med([d["share_units"] for d in control]),
        **stats("ratio", single / ctl),
        "seeds_above_median": int(np.sum(single > ctl)),
        "seeds_above_every_draw": int(np.sum(single > top)),
        "draws": int(len(control[0]["ablated_draws"])),
        "seeds": int(len(single)),
    }


@dataclass(frozen=True)
class Gating:
    """The ReLU network's gating over training and at its end ([conv-census])."""

    census: dict  # the census by weight, {class: (S, R)}
    single_by_ctx: dict  # each single-context pattern's weight share at the end
    thr_sens: dict  # {threshold: (common + 2-of-3 share, single-context share)}
    peak_common: float  # the common pattern's largest share, median over seeds
    split_epoch: float  # when the common pattern falls under half, median
    fc: dict  # the functional census, {key: (S, R)}
    singles_alt: float  # the single-context ReLN's single-context share
    phase: list  # first and last epoch of the context-level phase
    r_last: int  # the record of its last epoch
    strict: list  # strict_context_census per seed, last epoch
    ablation: list  # ablate_class per seed
    control: list  # ablation_control per seed
    div: dict  # division_of_labour


def gating_summary(relu, reln, single_run, net_single, ds, *, t_rec, thresholds, draws):
    """What the page book/contexts.md measures of the gating of the ReLU network
    ``relu`` (recording gates, weights and hidden activity) on ``ds`` (four output
    blocks of 15 features), beside the 7-pathway ReLN ``reln`` and the single-context
    ReLN (``single_run`` of ``net_single``); ``thresholds``: the census's "on"
    thresholds, ``draws``: the control's random sets per seed."""
    C, X, Y, ctx = ds.n_contexts, ds.X, ds.Y, ds.contexts
    G, (W1, W2) = relu.records["gates"][0], relu.records["weights"]
    S, R = W1.shape[:2]
    census = [census_over_training(G[s], W1[s], W2[s], ctx, C) for s in range(S)]
    census = {k: np.stack([c[k] for c in census]) for k in census[0]}
    fc = [functional_census(W1[i], W2[i], X, ctx, C) for i in np.ndindex(S, R)]
    fc = {k: np.reshape([c[k] for c in fc], (S, R)) for k in fc[0]}
    final = [(G[s, -1], W1[s, -1], W2[s, -1]) for s in range(S)]
    at_end = [gating_census(*f, ctx, C)["patterns"] for f in final]
    thr_sens = {}
    for thr in thresholds:
        cens = [gating_census(*f, ctx, C, threshold=thr) for f in final]
        shares = [(c["common"] + c["mixed"], c["single"]) for c in cens]
        thr_sens[thr] = np.median(shares, axis=0)
    # the context-level phase: snapping changes the output by at most PHASE_SNAP
    snap = np.median(fc["snap_change"], axis=0)
    phase = [r for r in range(1, len(t_rec)) if snap[r] <= PHASE_SNAP]
    split = [int(np.argmax((c < 0.5) & (t_rec > 0))) for c in census["common"]]
    pw = dict(net_single.layers[0].pathways)
    classes = {"common": ["common"], "single": [n for n in pw if n != "common"]}
    W2_alt = single_run.records["weights"][1][:, -1]
    H_alt = single_run.records["hidden"][0][:, -1]
    return Gating(
        census=census,
        single_by_ctx={
            p: med([fp.get(p, 0.0) for fp in at_end]) for p in ("100", "010", "001")
        },
        thr_sens=thr_sens,
        peak_common=med(census["common"].max(axis=1)),
        split_epoch=med(t_rec[split]),
        fc=fc,
        singles_alt=class_output_share(W2_alt, H_alt, pw, classes, "single"),
        phase=[int(t_rec[phase[0]]), int(t_rec[phase[-1]])],
        r_last=phase[-1],
        strict=[strict_context_census(*f, ctx, C) for f in final],
        ablation=[ablate_class(*f[1:], X, Y, ctx, C) for f in final],
        control=[
            ablation_control(*f[1:], X, Y, ctx, C, draws=draws, seed=s)
            for s, f in enumerate(final)
        ],
        div=division_of_labour(
            relu, reln, ds, [slice(15 * b, 15 * (b + 1)) for b in range(C + 1)]
        ),
    )
