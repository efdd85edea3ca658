"""The ReLNs of Fig. 4a against the ReLU network: training, the family of strategies,
time gaps, output gaps and the pathways' singular values ([conv-measures],
[conv-output-gap]).  Defined for the page book/contexts.md."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Callable, Mapping, Sequence

import numpy as np

from ...book.kit import med
from ...book.rulebook import verdict
from ...core.engine import train
from ...core.measures import (
    Evidence,
    bootstrap_interval,
    level_times,
    match,
    output_gap,
    time_gap,
)
from ...core.race import predict
from ...core.relns import pathway_pattern

#: What each ReLN of Fig. 4a records beside its loss.
RELN_RECORDS = {
    "both/one-way": ("weights", "hidden", "outputs"),
    "both/full": ("weights", "hidden"),
    "mixed/one-way": ("weights",),
    "single/one-way": ("weights", "hidden", "outputs"),
}


def train_relns(
    start: Callable, init: str, X, Y, *, lr, epochs, seeds, record_epochs, progress=None
) -> tuple[dict, dict]:
    """The four ReLNs of Fig. 4a (keys ``kind/coupling``), each started by
    ``start(kind, coupling, init)`` -> ``(net, params0)``, trained, and the race
    prediction of each ([conv-init], [conv-race]).  Returns ``(runs, preds)``."""
    runs, preds = {}, {}
    for key, what in RELN_RECORDS.items():
        if progress is not None:
            progress(f"contexts: ReLN {key}")
        net, p0 = start(*key.split("/"), init)
        kw = dict(lr=lr, epochs=epochs, record_epochs=record_epochs)
        runs[key] = train(net, X, Y, seeds=seeds, record=what, params0=p0, **kw)
        preds[key] = predict(net, X, Y, **kw)
    return runs, preds


#: The family of candidate ReLNs of Section 4 ([rulebook-best]) by the kind of
#: :func:`helpers.core.relns.context_reln` ("common": the common pathway alone, k = 3;
#: "both": the ReLN the census points to and the authors ran, 3_context_diff/gdln.py).
STRATEGIES = {
    "both": "7 pathways (Fig. 4a)",
    "mixed": "common + 2-of-3",
    "single": "common + single-context",
    "common": "common alone (k = 3)",
}

#: One strategy (the 7-pathway ReLN's single-context pathways stay idle, Prop. 4.2).
SAME_STRATEGY = {"both": "mixed", "mixed": "both"}


def family_match(reference, curves: Mapping, kind: str):
    """:func:`helpers.core.measures.match` of the ReLN ``kind`` to the ``reference``
    losses, every other strategy of ``curves`` (``{kind: (seeds, T)}``) a competitor."""
    if kind not in curves:
        raise ValueError(f"no curves for {kind!r}; have {list(curves)}")
    rivals = {
        STRATEGIES[k]: v
        for k, v in curves.items()
        if k not in (kind, SAME_STRATEGY.get(kind))
    }
    single = STRATEGIES["single"]  # the paper's alternative, where it is a rival
    alt = single if single in rivals else None
    kw = dict(competitors=rivals, name=STRATEGIES[kind], paper_alternative=alt)
    return match(reference, curves[kind], **kw)


def median_gap(A, B) -> float:
    """Median over seeds ``s`` of the time gap of ``A[s]`` to ``B[s]`` (``B`` may be one
    curve for every seed; [conv-measures])."""
    B = np.broadcast_to(B, np.shape(A))
    return med([time_gap(a, b) for a, b in zip(A, B)])


def pairwise_gap(curves) -> float:
    """Median time gap between every pair of runs (the seed spread of one network)."""
    return med([time_gap(a, b) for a, b in combinations(curves, 2)])


def level_log_ratio(La, Lb) -> np.ndarray:
    """``ln(t_b / t_a)`` at each loss level of :data:`helpers.core.measures.LEVELS`,
    median over seeds: where in time curve ``b`` lags curve ``a``."""
    return np.median(
        [np.log(level_times(b) / level_times(a)) for a, b in zip(La, Lb)], axis=0
    )


def output_gaps_at(reference, candidates: Mapping, epochs: Sequence[int]) -> dict:
    """Output gaps ([conv-output-gap]) at each of ``epochs``: ``{"seed": {e: gaps}}``
    between the reference's own seeds and ``{name: {e: gaps}}`` against each candidate
    run (runs recording ``outputs`` ``(S, R, p, P)``)."""

    def at(run, e):
        return list(run.records["outputs"][:, run.index(e)])

    out = {"seed": {e: output_gap(at(reference, e)) for e in epochs}}
    for name, run in candidates.items():
        out[name] = {e: output_gap(at(reference, e), at(run, e)) for e in epochs}
    return out


def _output_gap_spread(runs: Sequence, epochs: Sequence[int]) -> dict:
    """The two-sample yardstick of the output gap ([rulebook-noise]), mean over
    ``epochs``: ``sides`` (each run's median over seed pairs), ``spread`` (the larger)
    and its bootstrap ``interval``."""
    mats = []
    for run in runs:
        outs = run.records["outputs"]
        gaps = [output_gap(list(outs[:, run.index(e)])) for e in epochs]
        D = np.zeros((outs.shape[0],) * 2)
        D[np.triu_indices(len(D), 1)] = np.mean(gaps, axis=0)
        mats.append(D + D.T)
    sides = [med(D[np.triu_indices(len(D), 1)]) for D in mats]
    return {"spread": max(sides), "interval": bootstrap_interval(*mats), "sides": sides}


def learned_in_order(sv, epochs, frac: float = 0.1) -> bool:
    """Whether the singular values above ``frac`` times the largest (``sv`` ``(R, k)``,
    sorted by final size) reach half their final value in order of final size."""
    final = sv[-1]
    keep = final > frac * final.max()
    t_half = np.array(
        [epochs[np.argmax(sv[:, a] >= 0.5 * final[a])] for a in np.flatnonzero(keep)]
    )
    return bool(np.all(np.diff(t_half) >= 0))


def pathway_norm_ratio(
    maps: Mapping[str, np.ndarray], numerator: Sequence[str], denominator: Sequence[str]
) -> np.ndarray:
    """``sqrt(sum_num ||W_p||_F^2) / sqrt(sum_den ||W_q||_F^2)`` over the last two axes
    (leading axes kept): e.g. single-context over 2-of-3 pathways."""
    missing = [n for n in (*numerator, *denominator) if n not in maps]
    if missing or not numerator or not denominator:
        raise ValueError(f"no maps for {missing} (or an empty side); have {list(maps)}")

    def norm(names):
        return np.sqrt(
            sum(np.sum(np.asarray(maps[n], float) ** 2, axis=(-2, -1)) for n in names)
        )

    return norm(numerator) / norm(denominator)


def pathway_energy_share(W2, H, Yhat, pathways: Mapping, names) -> float:
    """Share of the output's energy in the summed contribution of the pathways
    ``names``, median over seeds (``Yhat`` ``(S, p, P)``, the network's output)."""
    shares = []
    for s in range(len(W2)):
        out = sum(W2[s][:, pathways[n]] @ H[s][pathways[n]] for n in names)
        shares.append(np.sum(out**2) / np.sum(Yhat[s] ** 2))
    return med(shares)


@dataclass(frozen=True)
class Losses:
    """The loss comparisons of Fig. 4a: the ReLNs against the ReLU network."""

    m_reln: Evidence  # the 7-pathway ReLN in its family (competitors k = 1, k = 3)
    m_mixed: Evidence  # the common + 2-of-3 ReLN in its place
    m_full: Evidence  # the fully coupled 7-pathway ReLN in its place
    m_single: Evidence  # the common + single-context ReLN alone
    gaps: dict  # time gaps of each ReLN to its neighbour and to its race prediction
    level_ratio: np.ndarray  # ln(t_ReLN / t_ReLU) at each loss level
    sens: dict  # {init: {kind: family_match, "curves": {kind: (S, T)}}}
    init_rows: dict  # per init: each strategy's gap, the spread and the verdicts


def compare_losses(relu, relns: Mapping, preds: Mapping, curves: Mapping, init: str):
    """The ReLU network's run ``relu`` against :func:`train_relns`'s ``relns`` and
    ``preds`` and the family of strategies ``curves`` (``{init: {kind: (S, T)}}``, in
    [conv-init]'s order; the figures use ``init``).  Defined for book/contexts.md."""
    family, reln = curves[init], relns["both/one-way"]
    full, mixed, single = (
        relns[k].loss for k in ("both/full", "mixed/one-way", "single/one-way")
    )
    gaps = {
        "ow_full": median_gap(reln.loss, full),
        "pred": median_gap(reln.loss, preds["both/one-way"].loss),
        "pred_full": median_gap(full, preds["both/full"].loss),
        "pred_mixed": median_gap(mixed, preds["mixed/one-way"].loss),
        "pred_single": median_gap(single, preds["single/one-way"].loss),
    }
    sens = {
        choice: {**{kind: family_match(relu.loss, L, kind) for kind in L}, "curves": L}
        for choice, L in curves.items()
    }
    init_rows = {
        choice: {
            "gap_7_pathways": d["both"].value,
            "gap_2_of_3": d["mixed"].value,
            "gap_single_context": d["single"].value,
            "gap_common_alone": d["common"].value,
            "spread": d["both"].spread,
            "verdict_7_pathways": verdict(d["both"]),
            "verdict_2_of_3": verdict(d["mixed"]),
            "verdict_single_context": verdict(
                match(relu.loss, d["curves"]["single"]), criterion="beyond_noise"
            ),
        }
        for choice, d in sens.items()
    }
    return Losses(
        m_reln=family_match(relu.loss, family, "both"),
        m_mixed=family_match(relu.loss, family, "mixed"),
        m_full=family_match(relu.loss, {**family, "both": full}, "both"),
        m_single=match(relu.loss, single),
        gaps=gaps,
        level_ratio=level_log_ratio(relu.loss, reln.loss),
        sens=sens,
        init_rows=init_rows,
    )


@dataclass(frozen=True)
class Outputs:
    """The output gaps of Fig. 4a ([conv-output-gap])."""

    gaps: dict  # output_gaps_at: {"seed" | "reln" | "single": {epoch: gaps}}
    spread: dict  # the two-sample yardstick over the epochs shown
    match: Evidence  # "excellent agreement": each epoch alone as a variant


def compare_outputs(relu, reln, single, show_epochs) -> Outputs:
    """Output gaps of the ReLU network to the 7-pathway ReLN ``reln``, to its own seeds
    and to the single-context ReLN ``single`` at ``show_epochs``, and their evidence
    (the median gap, mean over the epochs and each epoch alone, against the two-sample
    spread; the single-context ReLN the alternative).  Defined for book/contexts.md."""
    gaps = output_gaps_at(relu, {"reln": reln, "single": single}, show_epochs)

    def evidence(epochs):
        s = _output_gap_spread([relu, reln], epochs)
        reln_, single_ = (
            float(np.mean([med(gaps[n][e]) for e in epochs]))
            for n in ("reln", "single")
        )
        kw = dict(spread_interval=s["interval"], spread_candidate=s["sides"][1])
        return s, Evidence(reln_, s["spread"], single_, criterion="seed_noise", **kw)

    spread, ev = evidence(show_epochs)
    ev = ev.but(per_seed=(ev.value,))
    alone = {f"epoch {e} alone": evidence([e])[1] for e in show_epochs}
    return Outputs(gaps, spread, ev.varied("window", alone))


@dataclass(frozen=True)
class PathwayValues:
    """The top singular values of each pathway's map over training (Fig. 4b)."""

    sim: dict  # {name: (S, R, k)}
    pred: dict  # {name: (R, k)}
    rel_err: dict  # {name: (S,)}
    main_names: list  # pathways on in C - 1 or C contexts
    mixed_names: list  # on in C - 1
    single_names: list  # on in one
    order_ok: list  # learned_in_order per main pathway and seed


def pathway_values(reln, pred, t_rec, C: int, k: int = 8) -> PathwayValues:
    """The top ``k`` singular values of each pathway's map over training, simulated
    (``reln``) and predicted, their largest difference relative to the simulated
    largest value, and whether the modes are learned in order of their final size.
    Defined for the page book/contexts.md."""
    S, names = reln.loss.shape[0], pred.names
    maps = [reln.pathway_maps(s) for s in range(S)]
    sim = {
        n: np.stack([np.linalg.svd(m[n], compute_uv=False)[:, :k] for m in maps])
        for n in names
    }
    pr = {n: pred.singular_values(n)[:, :k] for n in names}
    err = {
        n: np.array([np.abs(x - pr[n]).max() / x.max() for x in sim[n]]) for n in names
    }
    on = {n: pathway_pattern(n, C).count("1") for n in names}
    main = [n for n in names if on[n] >= C - 1]
    mixed = [n for n in names if on[n] == C - 1]
    single = [n for n in names if on[n] == 1]
    order_ok = [learned_in_order(sim[n][s], t_rec) for n in main for s in range(S)]
    return PathwayValues(sim, pr, err, main, mixed, single, order_ok)


@dataclass(frozen=True)
class Race:
    """The race among the 7-pathway ReLN's context pathways (Proposition 4.2)."""

    maps_sim: list  # per seed, {name: (R, p, d)} pathway maps
    ratio_final: np.ndarray  # single-context over 2-of-3 map norm, last epoch, (S,)
    ratio_pred: np.ndarray  # the same in the race prediction, (R,)
    single_norm: list  # the single-context maps' norm at the start and the end
    out_single_share: float  # their energy share of the output at the end
    resid: dict  # {"2-of-3" | "single": (S, T)} context pathways trained on R*


def race_norms(reln, pred, values: PathwayValues, resid: Mapping) -> Race:
    """How far the 7-pathway ReLN's single-context pathways grow beside its 2-of-3
    pathways, simulated and predicted (``resid``: the losses of the context pathways
    trained on the residual alone, kept beside).  Defined for book/contexts.md."""
    single, mixed = values.single_names, values.mixed_names
    maps_sim = [reln.pathway_maps(s) for s in range(len(reln.loss))]
    ratio_final = np.array([pathway_norm_ratio(m, single, mixed)[-1] for m in maps_sim])

    def norm(m, r):
        return np.sqrt(sum(np.sum(m[n][r] ** 2) for n in single))

    norms = [med([norm(m, r) for m in maps_sim]) for r in (0, -1)]
    W2, H = reln.records["weights"][1][:, -1], reln.records["hidden"][0][:, -1]
    share = pathway_energy_share(
        W2, H, reln.records["outputs"][:, -1], dict(reln.net.layers[0].pathways), single
    )
    ratio_pred = pathway_norm_ratio(pred.maps, single, mixed)
    return Race(maps_sim, ratio_final, ratio_pred, norms, share, dict(resid))
