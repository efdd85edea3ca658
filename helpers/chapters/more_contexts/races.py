"""The race reduction (:mod:`helpers.core.race`, paper Eqs. 5-6) of the ReLNs of
the page book/more_contexts.md: its census by class, the family of ReLNs held against
the ReLU network ([rulebook-best]) and what the race's form moves."""

from __future__ import annotations

import numpy as np

from ...book import progress
from ...core import race, relns
from ...core.engine import train
from ...core.families import family_name, member_width
from ...core.measures import match, time_gap
from ...core.paper import WIDTH_RULES
from ...core.relns import pathway_pattern


def race_loss(
    net, ds, *, lr: float, epochs: int, form: str = "factors", record: bool = False
):
    """The race reduction (:func:`helpers.core.race.predict`) of ``net`` on ``ds`` in
    the given ``form``: the loss at every epoch ``0..epochs`` and the prediction,
    recorded at its end when ``record``.  The page *More contexts than five* takes the
    factor form (no singular value decomposition: the C = 8 race has 254 pathways) and
    measures what it moves against the matrix form the rest of the book integrates."""
    pred = race.predict(
        net,
        ds.X,
        ds.Y,
        lr=lr,
        epochs=int(epochs),
        form=form,
        record_epochs=[int(epochs)] if record else (),
    )
    return pred.loss, pred


def race_class_shares(prediction, C: int) -> np.ndarray:
    """Share of a race prediction's final output carried by each class of pathway,
    ``k = 0..C`` contexts on (the common pathway counts as ``k = C``): the norm of
    each pathway's last recorded map, summed by class, over the total, the race's
    counterpart of the ReLU network's census by weight
    (:func:`helpers.chapters.extra_contexts.census_by_contexts_on`)."""
    out = np.zeros(C + 1)
    for name in prediction.names:
        k = C if name == "common" else pathway_pattern(name, C).count("1")
        out[k] += np.linalg.norm(prediction.maps[name][-1])
    if out.sum() <= 0:
        raise ValueError("race_class_shares: every pathway's map is zero")
    return out / out.sum()


def reln(ds, ks, relu, width: int):
    """The ReLN of the common pathway and every k-of-C pathway for ``k`` in ``ks``,
    every pathway started at the ReLU network's std (``"matched"``, seed 0, as the
    authors' scripts for C = 4, 5 start theirs): ``(net, params0)``."""
    net, params0 = relns.start(
        relns.k_of_c_reln(ds, ks, width=width), "matched", [0], relu_net=relu
    )
    return net, params0


def form_move(net, ds, shares, *, lr: float, epochs: int, form: str) -> dict:
    """What the race's form moves at one C: the time gap between the all-pathway
    race's losses in ``form`` and the other form, and the largest change of a class
    share (``shares``: :func:`race_class_shares` in ``form``)."""
    other = {"factors": "matrix", "matrix": "factors"}[form]
    L1, _ = race_loss(net, ds, lr=lr, epochs=epochs, form=form)
    L2, p2 = race_loss(net, ds, lr=lr, epochs=epochs, form=other, record=True)
    return {
        "C": ds.n_contexts,
        "time gap": time_gap(L1, L2),
        "largest class share change": float(
            np.abs(race_class_shares(p2, ds.n_contexts) - shares).max()
        ),
    }


def other_rule(rule: str) -> str:
    """The width rule of :data:`helpers.core.paper.WIDTH_RULES` that is not ``rule``
    (the page's variant)."""
    if rule not in WIDTH_RULES:
        raise ValueError(f"width_rule must be one of {WIDTH_RULES}, got {rule!r}")
    return [w for w in WIDTH_RULES if w != rule][0]


def race_census(
    ds, relu, hidden: int, per_pathway: int, rule: str, *, lr, epochs, form
) -> np.ndarray:
    """The race reduction's census of the ReLN holding every context pathway (each
    set of k contexts, ``k = 1..C-1``), its pathways as wide as ``rule`` makes them
    (:func:`helpers.chapters.extra_contexts.member_width`: the ReLU network's
    ``hidden`` units shared out, or ``per_pathway`` each): the share of its final
    output maps by class, :func:`race_class_shares`.

    Defined for the page book/more_contexts.md.

    Returns:
        ``(C + 1,)`` shares by number of contexts on.
    """
    C = ds.n_contexts
    ks = range(1, C)
    w = member_width(ks, C, hidden, per_pathway, rule)
    progress.report(f"C = {C}: the race of every pathway, {w} units per pathway")
    net, _ = reln(ds, ks, relu, w)
    _, pred = race_loss(net, ds, lr=lr, epochs=epochs, form=form, record=True)
    return race_class_shares(pred, C)


def family_for(C: int, by_k, min_share: float) -> dict:
    """The ReLNs the ReLU network's loss is held against at ``C`` contexts (page *More
    contexts than five*): common + k-of-C for every class ``k`` holding at least
    ``min_share`` of the ReLU network's weight (``by_k``: its census share by number of
    contexts on, ``k = 0..C``), always with the paper's ``k = C - 1``, its alternative
    ``k = 1`` and ``k = C``, and the mixture of the two context classes ``k < C`` with
    the most weight ([rulebook-best]).  ``{name: ks}``."""
    by_k = np.asarray(by_k, float)
    if by_k.shape != (C + 1,):
        raise ValueError(f"by_k must hold C + 1 = {C + 1} shares, got {by_k.shape}")
    ks = {k for k in range(1, C + 1) if by_k[k] >= min_share} | {1, max(C - 1, 1), C}
    out = {family_name([k], C): (k,) for k in sorted(ks)}
    if C > 2:
        top = sorted(range(1, C), key=lambda k: -by_k[k])[:2]
        out[family_name(top, C)] = tuple(sorted(top, reverse=True))
    return out


def tied_with_best(match, spread: float) -> list[str]:
    """The candidates of a fitted family (:func:`helpers.core.measures.match` with
    ``competitors``) whose gap is within ``spread`` of the nearest one's: the members
    the ReLU network's seed noise cannot tell apart from the best, nearest first."""
    gaps = dict(match.candidates)
    best = min(gaps.values())
    return sorted((n for n, g in gaps.items() if g - best <= spread), key=gaps.get)


def family_fit(
    ds, family: dict, relu_run, hidden: int, per_pathway: int, rule: str, **race_kw
):
    """The ReLU network's loss (``relu_run``: ``(net, loss)``) held against the race
    reduction of every ReLN of ``family`` (``{name: ks}``, :func:`family_for`), each
    as wide as ``rule`` makes it ([rulebook-best]): a
    :class:`helpers.core.measures.Match` of the paper's (C-1)-of-C with the others
    as competitors.

    Defined for the page book/more_contexts.md.
    """
    C = ds.n_contexts
    relu, loss = relu_run
    losses = {
        name: race_loss(
            reln(ds, ks, relu, member_width(ks, C, hidden, per_pathway, rule))[0],
            ds,
            **race_kw,
        )[0]
        for name, ks in family.items()
    }
    paper = family_name([C - 1], C)
    return match(
        loss,
        losses[paper],
        name=paper,
        competitors={n: L for n, L in losses.items() if n != paper},
    )


def race_follows_reln(
    ds, relu, hidden: int, per_pathway: int, rule: str, *, lr, epochs, form
) -> float:
    """The time gap between the trained (C-1)-of-C ReLN (seed 0, matched start, as
    wide as ``rule`` makes it) and its race in ``form``: the race checked against
    training where no other page checks it."""
    C = ds.n_contexts
    w = member_width([C - 1], C, hidden, per_pathway, rule)
    net, p0 = reln(ds, [C - 1], relu, w)
    sim = train(net, ds.X, ds.Y, lr=lr, epochs=epochs, seeds=[0], params0=p0)
    predicted = race_loss(net, ds, lr=lr, epochs=epochs, form=form)[0]
    return time_gap(sim.loss[0], predicted)
