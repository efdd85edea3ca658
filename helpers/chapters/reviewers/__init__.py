"""The reviewers' questions, answered by experiment (OpenReview discussion of the
paper).

What the chapter needs beyond the core (the engine, the ReLNs, the race predictor, the
measures):

* :func:`relu_starts`, :func:`reln_starts`, :func:`train_settings`: many settings that
  share a network shape (init scales, the ReLN's matched init per width, [conv-init])
  trained in one engine call; :func:`match_summary`: the match of every setting
  (:func:`helpers.core.measures.match`, [conv-measures]); :func:`width_row`: the
  width sweep's rows; :func:`rank_needed`;
* :func:`adam_step_rule`: Adam's step from a gradient-descent run, for the mini-batch
  trainer :func:`helpers.core.minibatch.minibatch_train` (re-exported here with
  :func:`~helpers.core.minibatch.batch_orders` and
  :func:`~helpers.core.minibatch.stack_params`: the engine trains by full-batch
  gradient descent only);
* :func:`strategy` and :func:`census_over_training`: the functional census
  (:func:`helpers.core.measures.functional_census`, [conv-census]) read as "which
  strategy": the share of the non-common output that 2-of-3 units produce;
* :func:`plateau_share`, :func:`gate_change`: where the rich regime ends (init sweep);
* :func:`correlated_task`, :func:`noisy_task`: the Section 4 task with dense correlated
  item codes or noisy labels;
* :func:`mode_table`: every mode of every pathway of a contextual ReLN, with its
  effective singular value, input variance and predicted learning time (Eq. 7,
  [conv-linear]), :func:`mode_half_times` to read the same times off a simulation or a
  race, :func:`rank_agreement` to compare two orders;
* :func:`separation` and :func:`delayed_reln`: how much the context pathways have
  learned when the common pathway finishes, and the race with separated phases
  ([conv-context-reln]); :func:`prediction_shares`: a race's functional shares;
* :func:`primed_relu_weights`: a ReLU network's initial weights with blocks of units
  that start gated to one context (the intervention of the last section).

The page's own pieces are in submodules, re-exported here: ``sweeps`` (the rows of
each sweep, :func:`check_parameters`, :func:`score_sentence`), ``plots`` (one function
per figure) and ``report`` (:func:`report`: the records, the glue and the tables).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from ...core import relns
from ...core.checks import check_epochs, check_positive, check_positive_int
from ...core.datasets import Dataset, effective_dataset
from ...core.engine import GatedNetwork, Pathway, gdln, init_params, relu_network, train
from ...core.linear import learning_time
from ...core.measures import (
    functional_census,
    level_times,
    match,
    seed_spread,
    seed_spread_interval,
)
from ...core.minibatch import (  # the page calls them as the chapter's (ch.)
    OPTIMISERS,
    MinibatchRun,
    batch_orders,
    minibatch_train,
    stack_params,
)
from ...core.race import race_pathways
from ...core.relns import common_fit

__all__ = [
    "relu_starts",
    "reln_starts",
    "train_settings",
    "match_summary",
    "nearer_than_half",
    "match_fields",
    "width_row",
    "rank_needed",
    "OPTIMISERS",
    "MinibatchRun",
    "minibatch_train",
    "batch_orders",
    "ADAM_RULES",
    "adam_step_rule",
    "strategy",
    "census_over_training",
    "STRATEGY_CLASSES",
    "plateau_share",
    "gate_change",
    "correlated_task",
    "noisy_task",
    "ModeRow",
    "mode_table",
    "mode_half_times",
    "rank_agreement",
    "separation",
    "delayed_reln",
    "pathway_top_singular_values",
    "prediction_shares",
    "primed_relu_weights",
    "stack_params",
]

# --------------------------------------------------------------------------------------
# Settings trained together: one engine call per network shape


def relu_starts(
    ds: Dataset, width: int, stds: Sequence[float], seeds
) -> tuple[GatedNetwork, list]:
    """A ``(d, width, p)`` ReLU network and its initial weights for every (std, seed),
    stacked setting by setting (``len(stds) * len(seeds)`` starts): the draw of
    :func:`helpers.core.engine.init_params` for each seed, at each std."""
    nets = [relu_network((ds.X.shape[0], width, ds.Y.shape[0]), s) for s in stds]
    starts = [init_params(n, s) for n in nets for s in seeds]
    return nets[0], stack_params(starts)


def reln_starts(
    ds: Dataset, kind: str, stds: Sequence[float], seeds, *, width: int, relu_width: int
) -> tuple[GatedNetwork, list]:
    """The contextual ReLN ``kind`` (one-way coupled, ``width`` units per pathway,
    [conv-context-reln]) with the ``"matched"`` initialisation ([conv-init],
    :func:`helpers.core.relns.start`) for each ReLU std in ``stds``: every weight at
    that std; initial weights stacked setting by setting, seed by seed."""
    reln = relns.context_reln(ds, kind, "one-way", width=width)
    nets = []
    for std in stds:
        relu = relu_network((ds.X.shape[0], relu_width, ds.Y.shape[0]), std)
        net, _ = relns.start(reln, "matched", seeds, relu_net=relu)
        nets += [net] * len(seeds)
    labels = list(seeds) * len(stds)
    return nets[0], relns.initial_weights(nets, labels)


def train_settings(net: GatedNetwork, X, Y, params0, n_settings: int, **kw):
    """:func:`helpers.core.engine.train` of stacked starts (``n_settings`` settings
    times
    the seeds), in one call; returns the run and its loss as ``(settings, seeds, T)``.
    The seed labels are 0, 1, ...: the starts are given, so they only name the runs."""
    n = np.shape(params0[0])[0]
    if n % n_settings:
        raise ValueError(f"{n} starts do not split into {n_settings} settings")
    run = train(net, X, Y, seeds=list(range(n)), params0=params0, **kw)
    return run, run.loss.reshape(n_settings, n // n_settings, -1)


def match_summary(relu_loss, reln_loss, single_loss, multiple: float) -> dict:
    """The match ([conv-measures], :func:`helpers.core.measures.match`): ReLU seeds
    against the ReLN of the same seeds, calibrated by the ReLU seeds' spread (and the
    ReLN's, noise on both sides), with the single-context ReLN as the alternative (one
    curve per seed: it starts from random weights too).

    ``matches``: the gap is within ``multiple`` times the spread (the rulebook's
    ``seed_noise``); ``levels``: how many of :data:`helpers.core.measures.LEVELS` every
    ReLU seed reaches within the run (the gap is measured on fewer levels when it is
    < 4); ``spread_interval``: the spread's 90 % bootstrap interval over seeds
    ([rulebook-noise]); ``undecided``: ``matches`` would flip somewhere within it (the
    value lies between ``multiple`` times its two ends); ``match``: the
    :class:`~helpers.core.measures.Match` itself, for a record.

    ``nearer``: the rulebook's "clearly nearer than the alternative" (the gap below
    half the alternative's), read with the noise of both comparisons
    (:func:`nearer_than_half`): ``nearer_verdict`` is ``'below'``, ``'not below'`` or
    ``'undecided'``, and ``nearer`` is True only for ``'below'``;
    ``alternative_spread`` and ``alternative_spread_interval``: the two-sample spread
    of the ReLU seeds against the alternative's own seeds."""
    m = match(relu_loss, reln_loss, alternative=single_loss)
    reached = min(
        int(np.sum(np.isfinite(level_times(L)))) for L in np.atleast_2d(relu_loss)
    )
    lo, hi = m.spread_interval
    out = {
        "value": m.value,
        "spread": m.spread,
        "spread_interval": (float(lo), float(hi)),
        "alternative": m.alternative,
        "matches": bool(m.value <= multiple * m.spread),
        "undecided": bool(multiple * lo < m.value <= multiple * hi),
        "levels": reached,
        "per_seed": list(m.per_seed),
        "match": m,
    }
    if single_loss is None:
        out.update(nearer=False, nearer_verdict="no alternative")
        return out
    a = match(relu_loss, single_loss)
    verdict = nearer_than_half(
        m.value,
        m.alternative,
        (m.spread, *m.spread_interval),
        (a.spread, *a.spread_interval),
        multiple,
    )
    out.update(
        nearer=verdict == "below",
        nearer_verdict=verdict,
        alternative_spread=float(a.spread),
        alternative_spread_interval=tuple(float(v) for v in a.spread_interval),
    )
    return out


def match_fields(m: dict) -> dict:
    """The fields of a :func:`match_summary` that every sweep's record stores
    (``book/reviewers.md``): the gap, its spread with the spread's 90 % interval, the
    alternative's gap with its own spread, and :func:`nearer_than_half`'s answer."""
    return {
        "match_value": m["value"],
        "match_spread": m["spread"],
        "match_spread_interval": tuple(m["spread_interval"]),
        "match_alternative": m["alternative"],
        "match_alternative_spread": m.get("alternative_spread"),
        "match_nearer": m.get("nearer_verdict"),
    }


def nearer_than_half(
    value: float, alternative: float, spreads, alt_spreads, multiple: float
) -> str:
    """Is the gap ``value`` below half the alternative's gap, beyond the noise?
    (``book/reviewers.md``; the rulebook's ``CLEARLY`` = 1/2 and ``NOISE_MULTIPLE``.)

    The noise of the comparison is the larger of the two matches' spreads (the ReLU
    seeds against the candidate's and against the alternative's: noise on both sides,
    [rulebook-noise]); ``spreads`` and ``alt_spreads`` are ``(spread, low, high)``
    with the 90 % bootstrap interval.  At each of the three (spread, interval ends)
    the answer is ``'below'`` when ``alternative / 2 - value`` exceeds ``multiple``
    times the noise, ``'not below'`` when ``value - alternative / 2`` does, and
    within the noise otherwise; ``'undecided'`` unless all three give the same
    answer beyond the noise (the chapter's seeds cannot decide it)."""
    margin = 0.5 * float(alternative) - float(value)
    answers = set()
    for s, t in zip(spreads, alt_spreads):
        noise = multiple * max(float(s), float(t))
        answers.add(
            "below" if margin > noise else "not below" if -margin > noise else "noise"
        )
    return (
        answers.pop() if len(answers) == 1 and "noise" not in answers else ("undecided")
    )


def width_row(st: dict, L, m: dict, fit_level: float, strategy_share: float) -> dict:
    """One row of the width sweep (``book/reviewers.md``, section 1): the functional
    shares of :func:`strategy` ``st`` and the final loss of curves ``L`` (medians over
    seeds), the match ``m`` of :func:`match_summary`, and ``strategy``: the network
    learned the task (loss below ``fit_level`` of its start) and its 2-of-3 units make
    at least ``strategy_share`` of the non-common snapped output."""
    L = np.atleast_2d(np.asarray(L, float))
    med = lambda v: float(np.nanmedian(v))  # noqa: E731
    loss_share = med(L[:, -1] / L[:, 0])
    keys = (*STRATEGY_CLASSES, "snap_change", "mixed_of_context")
    row = {c: med(st[c]) for c in keys}
    row.update(
        final_loss_share=loss_share,
        strategy=bool(
            loss_share <= fit_level and row["mixed_of_context"] >= strategy_share
        ),
        **match_fields(m),
        match_matches=m["matches"],
        seeds=int(L.shape[0]),
    )
    share = np.asarray(st["mixed_of_context"], float)
    share = share[np.isfinite(share)]
    if share.size >= 2:  # its seed spread, for the strategy's threshold
        row["mixed_of_context_spread"] = seed_spread(share)
        row["mixed_of_context_spread_interval"] = seed_spread_interval(share)
    return row


def rank_needed(ds: Dataset) -> dict:
    """Hidden units the common + C-1-of-C ReLN needs ([conv-contextual]; Section 4: "a
    pathway needs at least as many hidden nodes as the rank of its effective dataset"):
    the rank of ``Sigma_yx`` for the common pathway, and of each context pathway's
    effective dataset on the common pathway's residual."""
    _, R = common_fit(ds)
    net = relns.context_reln(ds, "mixed", "one-way")
    out = {}
    for pw in race_pathways(net, 1.0):
        T = ds.Y if pw.common else R
        _, _, s, _, _ = _pathway_svd(ds.X, T, pw)
        out[pw.name] = int(s.size)
    out["total"] = int(sum(out.values()))
    return out


# --------------------------------------------------------------------------------------
# Mini-batch SGD and Adam: the trainer is :mod:`helpers.core.minibatch`; the chapter's
# own piece is the rule for Adam's step


ADAM_RULES = ("mean", "largest")


def adam_step_rule(W_start, W_end, epochs: int, rule: str = "mean") -> float:
    """Adam's step from a gradient-descent run of ``epochs`` epochs (one update each).

    Adam moves each weight by about its step per update while the weight's gradient
    keeps its sign.  ``'mean'``: the distance that run moved its weights, per weight and
    per epoch, ``||theta_T - theta_0|| / (sqrt(n) T)``: Adam covers the same distance in
    the same time.  ``'largest'``: the largest distance any one weight moved, per epoch,
    ``max_i |theta_T - theta_0|_i / T``: the smallest step with which Adam can bring
    every weight from the run's start to its end within the run.  ``W_start``,
    ``W_end``:
    lists of weight arrays with a leading axis over seeds; the median over seeds."""
    if rule not in ADAM_RULES:
        raise ValueError(f"rule must be one of {ADAM_RULES}, got {rule!r}")
    epochs = check_epochs(epochs)
    a = np.concatenate([np.reshape(w, (np.shape(w)[0], -1)) for w in W_start], axis=1)
    b = np.concatenate([np.reshape(w, (np.shape(w)[0], -1)) for w in W_end], axis=1)
    if rule == "mean":
        per_seed = np.linalg.norm(b - a, axis=1) / np.sqrt(a.shape[1])
    else:
        per_seed = np.abs(b - a).max(axis=1)
    return float(np.median(per_seed) / epochs)


# --------------------------------------------------------------------------------------
# The strategy: the functional census read as the race's outcome

STRATEGY_CLASSES = ("common", "mixed", "single", "other")


def census_over_training(W1, W2, X, contexts, n_contexts: int) -> dict:
    """:func:`helpers.core.measures.functional_census` at every recorded epoch of every
    seed: ``W1 (S, R, H, d)``, ``W2 (S, R, p, H)``; returns ``{key: array (S, R)}`` for
    the four class shares and ``snap_change``.  An epoch at which the network's output
    is
    still zero gives NaN."""
    W1 = np.asarray(W1, float)
    W2 = np.asarray(W2, float)
    S, R = W1.shape[:2]
    keys = (*STRATEGY_CLASSES, "snap_change")
    out = {k: np.full((S, R), np.nan) for k in keys}
    for s in range(S):
        for r in range(R):
            c = functional_census(W1[s, r], W2[s, r], X, contexts, n_contexts)
            for k in keys:
                out[k][s, r] = c[k]
    return out


def strategy(census: dict, index: int = -1) -> dict:
    """The strategy at one recorded epoch (default: the last), per seed: the functional
    shares, ``mixed_of_context``, the 2-of-3 units' part of what the non-common units
    produce, ``mixed / (mixed + single + other)``, and ``winner``, the class among
    2-of-3 / single / other that produces most (the race's winner among the context
    classes)."""
    sh = {
        k: np.asarray(census[k])[:, index] for k in (*STRATEGY_CLASSES, "snap_change")
    }
    ctx = sh["mixed"] + sh["single"] + sh["other"]
    with np.errstate(invalid="ignore", divide="ignore"):
        sh["mixed_of_context"] = np.where(ctx > 0, sh["mixed"] / ctx, np.nan)
    stack = np.stack([sh["mixed"], sh["single"], sh["other"]])
    sh["winner"] = [
        ("mixed", "single", "other")[int(i)] for i in np.argmax(stack, axis=0)
    ]
    return sh


# --------------------------------------------------------------------------------------
# Rich and lazy regimes


def plateau_share(L) -> np.ndarray:
    """``t(95 %) / t(50 %)``: the share of the time to halve the loss that is spent
    before it has fallen by 5 % (times from :func:`helpers.core.measures.level_times`,
    as fractions of each curve's own initial loss).  An exponential decay from the first
    epoch gives ``ln(1/0.95) / ln 2 = 0.074``; a learning curve that sits on a plateau
    before a sigmoidal drop gives values near 1.  ``L``: one curve or ``(seeds, T)``."""
    L = np.atleast_2d(np.asarray(L, float))
    out = []
    for c in L:
        t95, t50 = level_times(c, (0.95, 0.5))
        out.append(t95 / t50 if t50 > 0 else np.nan)
    return np.asarray(out)


def gate_change(gates0, gates1, W1, W2) -> float:
    """How far the ReLU gating moved: the share of (unit, datapoint) gates that differ
    between two epochs, each unit weighted by its contribution ``|W2[:, j]| |W1[j, :]|``
    at the later epoch ([conv-census]).  ``gates``: ``H x P`` booleans."""
    g0 = np.asarray(gates0, bool)
    g1 = np.asarray(gates1, bool)
    W1, W2 = np.asarray(W1, float), np.asarray(W2, float)
    w = np.linalg.norm(W2, axis=0) * np.linalg.norm(W1, axis=1)
    if w.sum() <= 0:
        raise ValueError("gate_change: every unit has zero weight")
    return float(np.sum((g0 != g1).mean(axis=1) * w) / w.sum())


# --------------------------------------------------------------------------------------
# Other inputs and targets


def correlated_task(ds: Dataset, rho: float, dims: int, seed: int) -> Dataset:
    """The task ``ds`` with each item's one-hot replaced by a dense correlated code.

    Item ``i``'s code is ``sqrt(1 - rho) z_i + sqrt(rho) z_0`` with ``z_0, ..., z_n``
    drawn i.i.d. from ``N(0, I_dims / dims)`` by ``np.random.default_rng(seed)`` (unit
    expected norm; two codes have expected cosine ``rho``).  The context one-hot rows
    and the targets are kept, so the context pathways still see the item rows only
    (:func:`helpers.core.relns.item_rows`).  ``rho = 0`` is a dense code with random,
    finite-sample correlations, not a whitened one.
    """
    if not 0 <= rho < 1:
        raise ValueError(f"rho must lie in [0, 1), got {rho}")
    dims = check_positive_int(dims, "dims")
    items = [i for i, n in enumerate(ds.inputs) if not n.startswith("ctx")]
    n_items = len(items)
    if dims < n_items:
        raise ValueError(
            f"dims must be >= the {n_items} items (codes linearly independent)"
        )
    rng = np.random.default_rng(int(seed))
    Z = rng.standard_normal((dims, n_items + 1)) / np.sqrt(dims)
    M = np.sqrt(1 - rho) * Z[:, 1:] + np.sqrt(rho) * Z[:, :1]  # dims x items
    onehot = ds.X[items]  # items x P
    X = np.vstack([M @ onehot, np.delete(ds.X, items, axis=0)])
    names = tuple(
        [f"code{k}" for k in range(dims)]
        + [n for n in ds.inputs if n.startswith("ctx")]
    )
    return replace(
        ds,
        name=f"{ds.name}, codes rho={rho:g}",
        X=X,
        inputs=names,
        reconstruction="dense correlated item codes (our construction)",
    )


def noisy_task(ds: Dataset, sigma: float, seed: int) -> Dataset:
    """The task ``ds`` with i.i.d. Gaussian label noise of std ``sigma`` added to every
    target entry (``np.random.default_rng(seed)``); inputs unchanged."""
    sigma = float(sigma)
    if not np.isfinite(sigma) or sigma < 0:
        raise ValueError(f"sigma must be a finite number >= 0, got {sigma}")
    rng = np.random.default_rng(int(seed))
    Y = ds.Y + sigma * rng.standard_normal(ds.Y.shape)
    return replace(
        ds,
        name=f"{ds.name}, label noise {sigma:g}",
        Y=Y,
        reconstruction="Gaussian label noise (our construction)",
    )


# --------------------------------------------------------------------------------------
# The race with the task's own numbers (Eqs. 4-7)


@dataclass(frozen=True)
class ModeRow:
    """One mode of one pathway's effective dataset: singular value ``s``, input variance
    ``d``, final strength ``s / d``, initial strength ``a0`` and the predicted epoch at
    which the strength is halfway to ``s / d`` (Eq. 7 from ``a0``)."""

    pathway: str
    index: int
    s: float
    d: float
    a0: float
    t_half: float
    target: str

    @property
    def final(self) -> float:
        return self.s / self.d


def _pathway_svd(X, T, pw, tol=1e-9):
    idx = np.flatnonzero(pw.mask)
    syx, sx = effective_dataset(X, T, pw.gate, inputs=idx)
    U, s, Vt = np.linalg.svd(syx, full_matrices=False)
    keep = s > tol * max(s.max(initial=0.0), 1e-300)
    V = Vt[keep].T
    d = np.einsum("ia,ij,ja->a", V, sx, V)
    return idx, U[:, keep], s[keep], V, d


def mode_table(
    net: GatedNetwork, ds: Dataset, *, lr: float, a0=None, min_share: float = 0.0
) -> list[ModeRow]:
    """Every mode of every pathway of a contextual ReLN, the common pathway on ``(X,
    Y)``
    and each context pathway on the common pathway's converged residual (Appendix F,
    [conv-contextual]), with the learning time Eq. 7 predicts for it in isolation.

    ``a0``: initial strengths per pathway (default: from each pathway's width and init
    stds, :func:`helpers.core.linear.initial_mode_strength`).  Modes with ``s`` below
    ``min_share`` of their pathway's largest are left out.  The time is the epoch at
    which ``a`` reaches half of ``s/d`` (:func:`helpers.core.linear.learning_time`); it
    ignores the couplings between pathways and the head start that the context pathways
    get while the common pathway learns, which the matrix race
    (:mod:`helpers.core.race`) keeps.
    """
    lr = check_positive(lr, "lr")
    _, R = common_fit(ds)
    rows = []
    for pw in race_pathways(net, a0):
        T = ds.Y if pw.common else R
        _, _, s, _, d = _pathway_svd(ds.X, T, pw)
        for k, (sk, dk) in enumerate(zip(s, d)):
            if sk < min_share * s[0]:
                continue
            half = 0.5 * sk / dk
            t = float(learning_time(sk, dk, pw.a0, half, lr)) if pw.a0 < half else 0.0
            rows.append(
                ModeRow(
                    pw.name,
                    k,
                    float(sk),
                    float(dk),
                    float(pw.a0),
                    t,
                    "Y" if pw.common else "residual",
                )
            )
    return rows


def mode_half_times(
    maps, net: GatedNetwork, ds: Dataset, epochs, rows: Sequence[ModeRow]
) -> np.ndarray:
    """The epoch at which each mode of ``rows`` is halfway to its final strength in a
    simulated or predicted ReLN: ``a(t) = u^T W_p(t) v`` from the pathway maps ``{name:
    (R, p, d)}`` recorded at ``epochs`` (interpolated linearly; NaN if never reached).
    The final strength is the larger of ``s/d`` and the last recorded value's... no: it
    is
    ``s / d`` of the row, the value Eq. 7 converges to."""
    _, R = common_fit(ds)
    pws = {p.name: p for p in race_pathways(net)}
    cache = {}
    epochs = np.asarray(epochs, float)
    out = []
    for r in rows:
        if r.pathway not in cache:
            pw = pws[r.pathway]
            idx, U, s, V, d = _pathway_svd(ds.X, ds.Y if pw.common else R, pw)
            Wp = np.asarray(maps[r.pathway], float)[..., idx]
            cache[r.pathway] = np.einsum("oa,toi,ia->ta", U, Wp, V)
        a = cache[r.pathway][:, r.index]
        half = 0.5 * r.final
        hit = np.flatnonzero(a >= half)
        if not hit.size:
            out.append(np.nan)
            continue
        k = int(hit[0])
        if k == 0:
            out.append(float(epochs[0]))
            continue
        a0_, a1_ = a[k - 1], a[k]
        out.append(
            float(
                epochs[k - 1] + (half - a0_) / (a1_ - a0_) * (epochs[k] - epochs[k - 1])
            )
        )
    return np.asarray(out)


def rank_agreement(a, b) -> float:
    """Share of pairs ordered the same way by ``a`` and ``b`` (Kendall's concordance,
    ties and NaN pairs left out): 1 = the same order, 0.5 = unrelated, 0 = reversed."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    agree = total = 0
    for i in range(a.size):
        for j in range(i + 1, a.size):
            da, db = a[i] - a[j], b[i] - b[j]
            if not (np.isfinite(da) and np.isfinite(db)) or da == 0 or db == 0:
                continue
            total += 1
            agree += (da > 0) == (db > 0)
    return agree / total if total else float("nan")


# --------------------------------------------------------------------------------------
# Separation of the common and context phases


def separation(common_maps, context_maps: dict, epochs, done: float = 0.9) -> dict:
    """How separated the common and the context phases are in a ReLN's training.

    ``common_maps``: the common pathway's map ``(R, p, d)`` at ``epochs``;
    ``context_maps``: ``{name: (R, p, d)}``.  ``t_common``: the first recorded epoch at
    which the common map is within ``1 - done`` of its final map (relative Frobenius
    distance); ``context_at``: the context pathways' summed norm at that epoch over
    their final summed norm (0 = perfectly separated phases, as Appendix F assumes).
    """
    Wc = np.asarray(common_maps, float)
    epochs = np.asarray(epochs)
    rel = np.linalg.norm(Wc - Wc[-1], axis=(1, 2)) / max(np.linalg.norm(Wc[-1]), 1e-300)
    k = int(np.flatnonzero(rel <= 1 - done)[0])
    norm = sum(
        np.linalg.norm(np.asarray(m, float), axis=(1, 2)) for m in context_maps.values()
    )
    return {
        "t_common": int(epochs[k]),
        "context_at": float(norm[k] / max(norm[-1], 1e-300)),
        "index": k,
    }


def delayed_reln(
    ds: Dataset, kind: str, std: float, width: int, on_epoch: int
) -> GatedNetwork:
    """The one-way coupled contextual ReLN ``kind`` (``'mixed'``, ``'single'`` or
    ``'both'``) at init std ``std`` whose context pathways switch on at ``on_epoch``:
    the separated phases that Appendix F assumes (the common pathway first, the context
    pathways on its converged residual)."""
    C = ds.n_contexts
    on_sets = {"mixed": [C - 1], "single": [1], "both": [C - 1, 1]}
    if kind not in on_sets:
        raise ValueError(f"kind must be one of {sorted(on_sets)}, got {kind!r}")
    pws = [Pathway("common", width, None, None, (std, std), common=True)]
    for on in on_sets[kind]:
        pws += [
            replace(p, on_epoch=int(on_epoch))
            for p in relns.context_pathways(ds, on, width, std)
        ]
    return gdln(ds.X.shape[0], ds.Y.shape[0], ds.P, pws, coupling="one-way")


def pathway_top_singular_values(net: GatedNetwork, X, T) -> dict:
    """The largest singular value of each pathway's effective ``Sigma_yx(p)`` (Eq. 4) on
    the targets ``T``: what sets each pathway's speed at the start of the race."""
    return {
        pw.name: float(
            _pathway_svd(np.asarray(X, float), np.asarray(T, float), pw)[2][0]
        )
        for pw in race_pathways(net, 1.0)
    }


def _pathway_class(pw, n_contexts):
    if pw.common:
        return "common"
    on = int(round(pw.gate.sum() / (pw.gate.size / n_contexts)))
    if on == n_contexts - 1 and n_contexts > 2:
        return "mixed"
    return "single" if on == 1 else "other"


def prediction_shares(
    pred, net: GatedNetwork, X, n_contexts: int, index: int = -1
) -> dict:
    """The functional shares ([conv-census]) of a race prediction's pathways at one
    recorded epoch: each class's summed output ``sum_p g_p (W_p X_p)``, its Frobenius
    norm over the sum of the classes' norms (the definition of
    :func:`helpers.core.measures.functional_census`, with pathways for units)."""
    X = np.asarray(X, float)
    parts: dict = {}
    for pw in race_pathways(net, 1.0):
        out = (
            np.asarray(pred.maps[pw.name][index], float) @ (X * pw.mask[:, None])
        ) * pw.gate
        c = _pathway_class(pw, n_contexts)
        parts[c] = parts.get(c, 0.0) + out
    norms = {c: float(np.linalg.norm(v)) for c, v in parts.items()}
    total = sum(norms.values())
    return {c: norms.get(c, 0.0) / total for c in STRATEGY_CLASSES}


# --------------------------------------------------------------------------------------
# An intervention: units that start gated to one context


def primed_relu_weights(
    ds: Dataset,
    width: int,
    std: float,
    seed: int,
    *,
    primed: int,
    gain: float,
    off: float,
) -> list[np.ndarray]:
    """Initial weights of a ``(d, width, p)`` ReLU network in which ``primed`` units per
    context start gated to that context alone, with a larger initial scale.

    Every weight is drawn as by :func:`helpers.core.engine.init_params` (std ``std``,
    ``np.random.default_rng(seed)``).  Then, for each context ``c``, ``primed`` units
    get their item weights and readout multiplied by ``gain`` (a larger initial scale
    for a single-context "pathway", Eq. 7: ``a0`` grows as ``gain**2``), their weight
    from context ``c`` set to ``3 gain std`` (on for every item of ``c`` at the start)
    and their weights from the other contexts set to ``-off``.  A unit that is off
    receives no gradient through that input, so with ``off`` far above the item weights'
    final size the unit stays off outside ``c``: its gate is fixed, like a ReLN
    pathway's.
    """
    d, P = ds.X.shape
    p = ds.Y.shape[0]
    width = check_positive_int(width, "width")
    C = ds.n_contexts
    if primed < 0 or primed * C > width:
        raise ValueError(
            f"{primed} primed units per context need width >= {primed * C}, got {width}"
        )
    if not (gain > 0 and off >= 0):
        raise ValueError(f"gain must be > 0 and off >= 0, got {gain} and {off}")
    rng = np.random.default_rng(int(seed))
    W1 = rng.standard_normal((width, d)) * std
    W2 = rng.standard_normal((p, width)) * std
    ctx_rows = [i for i, n in enumerate(ds.inputs) if n.startswith("ctx")]
    for c in range(C):
        sl = slice(c * primed, (c + 1) * primed)
        W1[sl] *= gain
        W2[:, sl] *= gain
        for k, row in enumerate(ctx_rows):
            W1[sl, row] = 3.0 * gain * std if k == c else -off
    return [W1, W2]


# The page's rows, figures and records: after the science above, which they use.
from .plots import (  # noqa: E402
    COLORS,
    plot_init_sweep,
    plot_optimisers,
    plot_paper_settings,
    plot_separation,
)
from .report import (  # noqa: E402
    Results,
    data_markdown,
    init_table,
    intervention_table,
    mode_markdown,
    optimiser_table,
    report,
    sentence_table,
    width_table,
)
from .sweeps import (  # noqa: E402
    SHARES,
    assumption_distance,
    census,
    check_parameters,
    data_row,
    init_row,
    intervention_row,
    optimiser_row,
    score_sentence,
    strategy_settings,
    structure_by_setting,
    time_to_1pc,
)

__all__ += [
    "COLORS",
    "plot_init_sweep",
    "plot_optimisers",
    "plot_paper_settings",
    "plot_separation",
    "Results",
    "report",
    "width_table",
    "init_table",
    "optimiser_table",
    "data_markdown",
    "mode_markdown",
    "intervention_table",
    "sentence_table",
    "SHARES",
    "assumption_distance",
    "census",
    "check_parameters",
    "data_row",
    "init_row",
    "intervention_row",
    "optimiser_row",
    "score_sentence",
    "strategy_settings",
    "structure_by_setting",
    "time_to_1pc",
]
