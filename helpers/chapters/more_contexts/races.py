"""The race reduction (:mod:`helpers.core.race`, paper Eqs. 5-6) of the ReLNs of
the page book/more_contexts.md: its census by class, the family of ReLNs held against
the ReLU network ([rulebook-best]) and what the race's form moves."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...book import progress
from ...book.rulebook import NOISE_MULTIPLE
from ...core import race, relns
from ...core.engine import train
from ...core.families import family_name, member_width, member_widths
from ...core.measures import Match, match, time_gap
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


def reln(ds, ks, relu, width: int, common_width: int | None = None, seeds=(0,)):
    """The ReLN of the common pathway and every k-of-C pathway for ``k`` in ``ks``,
    ``width`` units per pathway (the common one ``common_width`` where given), every
    pathway started at the ReLU network's std (``"matched"``, as the authors' scripts
    for C = 4, 5 start theirs), one start per seed of ``seeds``: ``(net, params0)``."""
    net = relns.k_of_c_reln(ds, ks, width=width, common_width=common_width)
    net, params0 = relns.start(net, "matched", list(seeds), relu_net=relu)
    return net, params0


def form_move(net, ds, shares, *, lr: float, epochs: int, form: str, loss=None) -> dict:
    """What the race's form moves at one C: the time gap between the all-pathway
    race's losses in ``form`` (``loss``, where the page has it already) and the other
    form, and the largest change of a class share (``shares``:
    :func:`race_class_shares` in ``form``)."""
    other = {"factors": "matrix", "matrix": "factors"}[form]
    if loss is None:
        loss, _ = race_loss(net, ds, lr=lr, epochs=epochs, form=form)
    L2, p2 = race_loss(net, ds, lr=lr, epochs=epochs, form=other, record=True)
    return {
        "C": ds.n_contexts,
        "time gap": time_gap(loss, L2),
        "largest class share change": float(
            np.abs(race_class_shares(p2, ds.n_contexts) - shares).max()
        ),
    }


def other_rule(rule: str, rules=WIDTH_RULES) -> str:
    """The rule of ``rules`` (:data:`helpers.core.paper.WIDTH_RULES` or
    :data:`helpers.core.paper.COMMON_WIDTHS`) that is not ``rule`` (the page's
    variant)."""
    if rule not in rules:
        raise ValueError(f"the rule must be one of {rules}, got {rule!r}")
    return [w for w in rules if w != rule][0]


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
        ``(shares, loss, net)``: the ``(C + 1,)`` shares by number of contexts on,
        the race's loss at every epoch and the ReLN it integrated.
    """
    C = ds.n_contexts
    ks = range(1, C)
    w = member_width(ks, C, hidden, per_pathway, rule)
    progress.report(f"C = {C}: the race of every pathway, {w} units per pathway")
    net, _ = reln(ds, ks, relu, w)
    loss, pred = race_loss(net, ds, lr=lr, epochs=epochs, form=form, record=True)
    return race_class_shares(pred, C), loss, net


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


def tied_with_best(gaps: dict, spreads: dict) -> list[str]:
    """The members of a fitted family the seed noise cannot tell from the nearest
    ([rulebook-best]): those whose gap is at most the nearest one's plus
    :data:`helpers.book.rulebook.NOISE_MULTIPLE` x the yardstick of the two (the
    larger of their ``spreads``, each the larger of the ReLU network's seed spread and
    the member's own where it was trained per seed), nearest first.

    Defined for the page book/more_contexts.md.

    Args:
        gaps: ``{name: time gap to the ReLU network}``.
        spreads: ``{name: seed spread of that comparison}``.

    Returns:
        the tied names, the nearest first.
    """
    best = min(gaps, key=gaps.get)
    return sorted(
        (
            n
            for n, g in gaps.items()
            if g - gaps[best] <= NOISE_MULTIPLE * max(spreads[n], spreads[best])
        ),
        key=gaps.get,
    )


@dataclass
class Fit:
    """A family of ReLNs held against the ReLU network at one C (:func:`family_fit`).

    Attributes:
        match: the ReLU network's loss against the paper's (C-1)-of-C, the others as
            competitors (:func:`helpers.core.measures.match`), each member's curves
            trained per seed where it was trained, else its race.
        race: ``{name: time gap}`` of every member's race reduction.
        trained: the members trained per seed: the paper's and the two nearest by
            race.
        spreads: ``{name: seed spread of its comparison}``.
        ties: the members within noise of the nearest (:func:`tied_with_best`).
        follows: ``{name: largest time gap over seeds}`` between each trained member
            and its race.
        relu_spread: the ReLU network's own seed spread.
    """

    match: Match
    race: dict
    trained: tuple
    spreads: dict
    ties: list
    follows: dict
    relu_spread: float

    @property
    def gaps(self) -> dict:
        """``{name: time gap}``, trained where trained."""
        return dict(self.match.candidates)

    @property
    def best(self) -> str:
        """The nearest member."""
        return self.match.best


def family_fit(
    ds,
    family: dict,
    relu_run,
    hidden: int,
    per_pathway: int,
    rule: str,
    common: str = "equal",
    seeds=(),
    **race_kw,
) -> Fit:
    """The ReLU network's loss (``relu_run``: ``(net, loss)``, ``(S, T)``) held
    against every ReLN of ``family`` (``{name: ks}``, :func:`family_for`), each as wide
    as ``rule`` and ``common`` make it
    (:func:`helpers.core.families.member_widths`), [rulebook-best]: every member's
    race reduction, then, with ``seeds`` (the ReLU network's, one matched start per
    seed), the paper's (C-1)-of-C and the two members nearest by race trained per
    seed in one engine call each, their curves replacing their races.

    Defined for the page book/more_contexts.md.

    Args:
        ds: the task; family: the members; relu_run: the ReLU network and its loss.
        hidden: the ReLU network's units; per_pathway: the paper's units per pathway.
        rule: one of :data:`helpers.core.paper.WIDTH_RULES`.
        common: one of :data:`helpers.core.paper.COMMON_WIDTHS`.
        seeds: the seeds to train on (empty: races only).
        race_kw: ``lr``, ``epochs``, ``form`` of :func:`race_loss`.

    Returns:
        :class:`Fit`.
    """
    C = ds.n_contexts
    relu, loss = relu_run
    paper = family_name([C - 1], C)
    nets, races = {}, {}
    for name, ks in family.items():
        wc, w = member_widths(ks, C, hidden, per_pathway, rule, common)
        nets[name] = (ks, w, wc)
        net = reln(ds, ks, relu, w, wc)[0]
        races[name] = race_loss(net, ds, **race_kw)[0]

    def fit(curves):
        return match(
            loss,
            curves[paper],
            name=paper,
            competitors={n: L for n, L in curves.items() if n != paper},
        )

    raced = fit(races)
    by_race = sorted(raced.candidates, key=raced.candidates.get)
    trained = tuple(dict.fromkeys([paper, *by_race[:2]])) if len(seeds) else ()
    curves, spreads, follows = dict(races), {}, {}
    for name in trained:
        ks, w, wc = nets[name]
        progress.report(f"C = {C}: the ReLN {name} ({len(seeds)} seeds, {w} units)")
        net, p0 = reln(ds, ks, relu, w, wc, seeds)
        run = train(
            net, ds.X, ds.Y, lr=race_kw["lr"], epochs=race_kw["epochs"],
            seeds=list(seeds), params0=p0,
        )  # fmt: skip
        curves[name] = run.loss
        spreads[name] = match(loss, run.loss).spread
        follows[name] = max(time_gap(L, races[name]) for L in run.loss)
    m = fit(curves)
    spreads = {n: spreads.get(n, raced.spread) for n in family}
    return Fit(
        m,
        dict(raced.candidates),
        trained,
        spreads,
        tied_with_best(dict(m.candidates), spreads),
        follows,
        raced.spread,
    )
