"""The race reduction (:mod:`helpers.core.race`, paper Eqs. 5-6) of the ReLNs of
the page book/more_contexts.md, and the family held against the ReLU network
([rulebook-best])."""

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
    """``(loss at epochs 0..epochs, prediction)`` of the race reduction of ``net`` in
    ``form`` (the factor form avoids an SVD: the C = 8 race has 254 pathways)."""
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
    """``(C + 1,)``: share of the race's final map norm per class ``k`` contexts on
    (common as ``k = C``), the counterpart of the ReLU census by weight."""
    out = np.zeros(C + 1)
    for name in prediction.names:
        k = C if name == "common" else pathway_pattern(name, C).count("1")
        out[k] += np.linalg.norm(prediction.maps[name][-1])
    if out.sum() <= 0:
        raise ValueError("race_class_shares: every pathway's map is zero")
    return out / out.sum()


def reln(ds, ks, relu, width: int, common_width: int | None = None, seeds=(0,)):
    """``(net, params0)``: common + k-of-C ReLN for ``k`` in ``ks``, started
    ``"matched"`` (as the authors' C = 4, 5 scripts) per seed."""
    net = relns.k_of_c_reln(ds, ks, width=width, common_width=common_width)
    net, params0 = relns.start(net, "matched", list(seeds), relu_net=relu)
    return net, params0


def form_move(net, ds, shares, *, lr: float, epochs: int, form: str, loss=None) -> dict:
    """What the race's form moves at one C: the time gap to the other form and the
    largest change of a class share."""
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
    """The rule of ``rules`` that is not ``rule``."""
    if rule not in rules:
        raise ValueError(f"the rule must be one of {rules}, got {rule!r}")
    return [w for w in rules if w != rule][0]


def race_census(
    ds, relu, hidden: int, per_pathway: int, rule: str, *, lr, epochs, form
) -> np.ndarray:
    """The race's census (:func:`race_class_shares`) of the ReLN with every context
    pathway, as wide as ``rule`` makes them: ``(shares (C + 1,), loss, net)``.
    Defined for the page book/more_contexts.md."""
    C = ds.n_contexts
    ks = range(1, C)
    w = member_width(ks, C, hidden, per_pathway, rule)
    progress.report(f"C = {C}: the race of every pathway, {w} units per pathway")
    net, _ = reln(ds, ks, relu, w)
    loss, pred = race_loss(net, ds, lr=lr, epochs=epochs, form=form, record=True)
    return race_class_shares(pred, C), loss, net


def family_for(C: int, by_k, min_share: float) -> dict:
    """``{name: ks}``: common + k-of-C for every ``k`` with ``by_k[k] >= min_share``,
    always ``k = 1, C - 1, C``, and the mixture of the two heaviest context classes
    ([rulebook-best])."""
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
    """Names whose gap is within ``NOISE_MULTIPLE`` x the larger spread of the
    nearest's ([rulebook-best]), nearest first. Defined for book/more_contexts.md."""
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
    """A family of ReLNs held against the ReLU network at one C (:func:`family_fit`):
    ``match`` (trained curves where trained, else races), ``race`` gaps, ``trained``
    members, ``spreads``, ``ties``, ``follows`` (trained vs race), ``relu_spread``."""

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
    """The ReLU loss (``relu_run``: ``(net, loss (S, T))``) held against every ReLN of
    ``family`` ([rulebook-best]) by race; with ``seeds``, the paper's (C-1)-of-C and
    the two nearest by race are trained per seed and replace their races.
    ``race_kw``: ``lr``, ``epochs``, ``form`` of :func:`race_loss`. Defined for the
    page book/more_contexts.md."""
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
