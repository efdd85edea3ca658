"""The contextual task of Section 5 for more contexts, C = 2..8 (page *More contexts
than five*, ``book/more_contexts.md``): how the authors' settings extend beyond the C
they ran, the ReLU network's census by pathway class, and what the race reduction
(:mod:`helpers.core.race`, paper Eqs. 5-6) predicts for it without training a ReLU
network.
"""

from __future__ import annotations

import numpy as np

from ...book import progress
from ...core import race, relns
from ...core.engine import relu_network, train
from ...core.measures import functional_census, match, seed_spread, time_gap
from ...core.paper import EXTRA_CONTEXTS, WIDTH_RULES
from ...core.relns import pathway_pattern
from ..extra_contexts import (
    census_over_training,
    family_name,
    member_width,
    node_reuse_index,
    onehot_census,
)

__all__ = [
    "nearest_authors",
    "race_loss",
    "race_class_shares",
    "family_for",
    "tied_with_best",
    "snap_changes",
    "class_curve_table",
    "fit_table",
    "reading",
    "check_parameters",
    "settings_table",
    "train_relu",
    "reln",
    "form_move",
    "other_rule",
    "race_census",
    "family_fit",
    "plots",
    "Results",
    "report",
    # shared with Section 5 (helpers.chapters.extra_contexts)
    "census_over_training",
    "family_name",
    "node_reuse_index",
    "member_width",
    "onehot_census",
]


def nearest_authors(C: int, values=None, contexts=None):
    """The authors' setting for ``C`` contexts, extended beyond the C they ran by the
    nearest C they ran (``values``: one per C of ``contexts``; default the context
    input value of ``diff_context_num/gen_data.py``, 1 / 1.1 / 1.35 for C = 3, 4, 5):
    C = 2 takes C = 3's, C >= 6 takes C = 5's.  The authors' values follow no rule
    they state, so the page holds the last one rather than extrapolate."""
    contexts = list(EXTRA_CONTEXTS.contexts if contexts is None else contexts)
    values = list(EXTRA_CONTEXTS.context_value if values is None else values)
    if len(values) != len(contexts):
        raise ValueError("one value per number of contexts")
    k = int(np.argmin([abs(int(C) - c) for c in contexts]))
    return values[k]


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


def class_curve_table(relu: dict, race: dict) -> str:
    """Markdown table, per C: the ReLU network's final census share by the fraction
    k/C of the contexts a unit is on in (median over seeds, with the range over seeds)
    and the race reduction's prediction where it was integrated."""
    rows = [
        "| C | k/C | ReLU census (median; range over seeds) | race reduction |",
        "|---|---|---|---|",
    ]
    for C, shares in relu.items():
        shares = np.asarray(shares)  # (seeds, C + 1)
        for k in range(1, C + 1):
            med = np.median(shares[:, k])
            if med < 0.005 and (C not in race or race[C][k] < 0.005):
                continue
            r = f"{race[C][k]:.3f}" if C in race else "—"
            rows.append(
                f"| {C} | {k}/{C} = {k / C:.2f} | {med:.3f} "
                f"({shares[:, k].min():.3f}-{shares[:, k].max():.3f}) | {r} |"
            )
    return "\n".join(rows)


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


def snap_changes(W1s, W2s, ds, threshold: float) -> np.ndarray:
    """How much of each ReLU network's output its context-level description misses
    (:func:`helpers.core.measures.functional_census`, ``snap_change``), per seed and
    record: ``(S, R)``; the census by class describes the network only where it is
    small ([rulebook-phase])."""
    S, R = np.shape(W1s)[:2]
    return np.array(
        [
            [
                functional_census(
                    W1s[s, r], W2s[s, r], ds.X, ds.contexts, ds.n_contexts, threshold
                )["snap_change"]
                for r in range(R)
            ]
            for s in range(S)
        ]
    )


def fit_table(fits: dict, ties: dict) -> str:
    """Markdown table of the family fits, one row per C: every candidate's time gap
    to the ReLU network (the paper's (C-1)-of-C in bold), the nearest, the members
    within the ReLU seed spread of it, and that spread."""
    rows = [
        "| C | time gap of each ReLN (common + ...) | nearest | tied within spread "
        "| seed spread |",
        "|---|---|---|---|---|",
    ]
    for C, m in fits.items():
        paper = family_name([C - 1], C)
        cells = ", ".join(
            (f"**{n}** {g:.3f}" if n == paper else f"{n} {g:.3f}")
            for n, g in sorted(m.candidates.items(), key=lambda x: x[1])
        )
        rows.append(
            f"| {C} | {cells} | {m.best} | {', '.join(ties[C])} | {m.spread:.3f} |"
        )
    return "\n".join(rows)


def reading(frac: dict, by_k: dict, ties: dict, race_shares: dict) -> str:
    """The page's answer, generated from its records: per C the fraction of contexts
    a ReLU unit serves (median and seed spread) against the pure (C-1)/C, the class
    with the most weight, and whether the paper's (C-1)-of-C ReLN is among the
    nearest ReLNs; then the direction of the fraction from the smallest to the largest
    C, judged against the seed spreads."""
    lines, meds, spreads = [], {}, {}
    for C, F in frac.items():
        final = np.asarray(F)[:, -1]
        meds[C], spreads[C] = float(np.median(final)), seed_spread(final)
        shares = np.median(np.asarray(by_k[C])[:, -1, 1:C], axis=0)
        peak = int(np.argmax(shares)) + 1
        paper = family_name([C - 1], C)
        tie = ties.get(C)
        fit = (
            ""
            if tie is None
            else "; the paper's ReLN is "
            + ("among the nearest" if paper in tie else "not among the nearest")
            + f" ({', '.join(tie)})"
        )
        race_peak = ""
        if C in race_shares:
            k_race = int(np.argmax(race_shares[C][1:C])) + 1
            race_peak = f"; the race's most weighted class: {k_race}-of-{C}"
        lines.append(
            f"- C = {C}: fraction {meds[C]:.3f} (seed spread {spreads[C]:.3f}; pure "
            f"(C-1)/C = {(C - 1) / C:.3f}); most weight in {peak}-of-{C} units"
            + race_peak
            + fit
            + "."
        )
    Cs = list(frac)
    lo, hi = Cs[0], Cs[-1]
    d = meds[hi] - meds[lo]
    noise = max(spreads[lo], spreads[hi])
    below = [C for C in Cs if (C - 1) / C - meds[C] > spreads[C]]
    trend = (
        "stays within the seed spread"
        if abs(d) <= noise
        else ("rises" if d > 0 else "falls")
        + f" by {abs(d):.3f} (more than the seed spread {noise:.3f})"
    )
    head = (
        f"From C = {lo} to C = {hi} the fraction of contexts a unit serves {trend}; it "
        f"lies below the pure (C-1)/C by more than the seed spread at C = "
        + (", ".join(str(C) for C in below) or "none")
        + "."
    )
    return head + "\n\n" + "\n".join(lines)


def check_parameters(seeds: int, family_min_share: float) -> None:
    """The page's own checks of its parameters (beyond the registry's)."""
    if seeds < 2:
        raise ValueError(f"seeds must be >= 2 for a spread, got {seeds}")
    if not 0 <= family_min_share < 1:
        raise ValueError(f"family_min_share must lie in [0, 1), got {family_min_share}")


def settings_table(CS, DS, HIDDEN, CVAL) -> str:
    """Markdown table of the task's settings per C: datapoints, ReLU width and the
    on context input."""
    return "| C | datapoints | ReLU width | context input |\n|---|---|---|---|\n" + (
        "\n".join(f"| {C} | {DS[C].P} | {HIDDEN[C]} | {CVAL[C]:g} |" for C in CS)
    )


def train_relu(
    ds,
    hidden: int,
    seeds,
    *,
    relu_std: float,
    lr: float,
    epochs: int,
    record_epochs,
    threshold: float,
):
    """The ReLU network of one C and its census over training: ``((net, loss),
    census, snap change)``, the census of
    :func:`helpers.chapters.extra_contexts.census_over_training` and the snap change
    of :func:`snap_changes`, both ``(seeds, records, ...)``."""
    C = ds.n_contexts
    progress.report(f"C = {C}: the ReLU network ({len(list(seeds))} seeds)")
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
    W1s, W2s = run.records["weights"]
    census = census_over_training(run.records["gates"][0], W1s, W2s, ds, threshold)
    return (net, run.loss), census, snap_changes(W1s, W2s, ds, threshold)


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


from . import plots  # noqa: E402
from .report import Results, report  # noqa: E402
