"""The depth task of Section 6: a two-hidden-layer ReLU network and its GDLN
([conv-depth]).

* :func:`relu_depth`: the bias-free ReLU network 11-420-420-60, init std 0.0006, trained
  for 30000 updates (loss at epochs 0..30000) on the all-hierarchy task with C = 3.
* :func:`depth_gdln`: its GDLN, built with :func:`helpers.core.engine.deep_gdln`.  Layer
  1 is one always-on linear pathway of 420 units that sees items and contexts; layer 2
  holds a common pathway of 240 units (always on) and three groups of 60 units, each on
  in its two contexts (the 2-of-3 pathways).  Every pathway is switched on by a
  :class:`Schedule` through :attr:`helpers.core.engine.Pathway.on_epoch`: nothing learns
  before ``start``, the common pathway learns alone until ``context``.
* :func:`simulate`: many seeds trained in small batches (:func:`train_seeds`, through
  :func:`helpers.core.engine.train`) and each batch reduced at once
  (:func:`reduce_run`, one seed and record at a time by :func:`reduce_record`) to what
  the chapter needs (loss curves, outputs and a per-layer gating census on a coarse
  grid of epochs), so memory stays small at the paper's 99 seeds.
* how the GDLN starts ([conv-init]) is :func:`helpers.core.relns.start` with
  ``experiment="depth"``: the authors' hand-set scales (the ``[authors_init.depth]``
  table of ``paper.toml``, the values of :data:`GDLN_STDS`), the ReLU network's std
  (matched), or scales derived from the ReLU network's gates at epoch 0, per layer and
  per seed.
* :func:`layer_census`, :func:`layer2_functional`, :func:`plateaus`,
  :func:`drop_epochs`,
  :func:`appearance_epoch`, :func:`derive_schedule`: the measurements of the chapter
  (per-layer gating census by weight and by function, loss plateaus and the timing of
  each drop, and a switch-on schedule derived from the epochs at which the ReLU
  network's gating patterns appear); :func:`match_runs`, :func:`log_scatter_ratio`,
  :func:`plateau_outputs`: comparisons against the ReLU runs' own seed spread
  ([conv-measures]; outputs by :func:`helpers.core.measures.output_gap`);
  :func:`output_match` and :func:`scatter_bootstrap`: the same with noise on both sides
  and the spread's interval ([rulebook-noise]).
* :func:`network_snap_change`, :func:`training_phase`: where in training the paper's
  context-level description applies ([rulebook-phase]); :func:`non_nested_share`: the
  layer-2 weight outside Lemma 4.1's nested patterns; :func:`smaller_by_epoch`: the
  rulebook's ``smaller`` verdict of a gating claim at every recorded epoch;
  :func:`init_comparison`, :func:`compare_plateaus`: the comparisons per
  initialisation and per plateau.
* :mod:`.report` (:func:`report`, :class:`Results`): the chapter's records, glue and
  closing tables; :mod:`.tables` and :mod:`.plots`: the page's other tables and its
  figures.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import combinations, product
from typing import Callable, Sequence

import numpy as np

from ...book.chapter_data import profile
from ...core.checks import check_epochs, check_positive
from ...core.datasets import Dataset, context_gate, contextual_task
from ...core.engine import (
    GatedNetwork,
    Pathway,
    deep_gdln,
    relu_network,
    train,
)
from ...core.measures import (
    BOOTSTRAP,
    Match,
    bootstrap_interval,
    censored,
    functional_census,
    gating_census,
    snap_to_contexts,
    stereotype_index,
    time_gap,
    unit_weight,
)
from ...core.paper import DEPTH

__all__ = [
    "paper_profile_runs",
    "WIDTH",
    "COMMON_WIDTH",
    "GROUP_WIDTH",
    "RELU_STD",
    "GDLN_STDS",
    "LR",
    "EPOCHS",
    "Schedule",
    "HAND_SCHEDULE",
    "CLASSES",
    "depth_task",
    "relu_depth",
    "depth_gdln",
    "layer_census",
    "linearised_first_layer",
    "FUNCTIONAL",
    "layer2_functional",
    "network_snap_change",
    "non_nested_share",
    "training_phase",
    "epoch_ranges",
    "smaller_by_epoch",
    "verdicts_over_training",
    "match_runs",
    "log_scatter_ratio",
    "scatter_bootstrap",
    "subset_scatter_ratios",
    "output_match",
    "DepthRuns",
    "REDUCED",
    "record_grid",
    "train_seeds",
    "reduce_record",
    "reduce_run",
    "simulate",
    "plateaus",
    "plateau_levels",
    "drop_epochs",
    "drop_durations",
    "appearance_epoch",
    "derive_schedule",
    "plateau_record",
    "plateau_outputs",
    "init_comparison",
    "compare_plateaus",
    "window_mean",
    "context_weight_window",
    "drop_scatter",
    "rounding_floor",
    "pool_seeds",
    "same_start",
    "stored",
    "Results",
    "report",
    "plots",
    "tables",
]

# The authors' depth networks (facts of their code; :data:`helpers.core.paper.DEPTH`).
WIDTH = DEPTH.width
COMMON_WIDTH = DEPTH.common_width
GROUP_WIDTH = DEPTH.group_width
RELU_STD = DEPTH.relu_std
GDLN_STDS = {
    "layer1": DEPTH.gdln_std_layer1,
    "layer2": DEPTH.gdln_std_layer2,
    "readout_common": DEPTH.gdln_std_readout_common,
    "readout_context": DEPTH.gdln_std_readout_context,
}
LR = DEPTH.lr
EPOCHS = (
    DEPTH.epochs
)  # updates; the loss is kept at epochs 0..30000 (the authors' 30001)

# Census classes of :func:`helpers.core.measures.gating_census`.
CLASSES = ("common", "mixed", "single", "other")
# Entries of the functional census of layer 2 (:func:`layer2_functional`).
FUNCTIONAL = ("snap_change", "common", "mixed", "single", "other")


@dataclass(frozen=True)
class Schedule:
    """Switch-on epochs of the depth GDLN ([conv-depth]): every gate is 0 before
    ``start``; the
    context (2-of-3) pathways stay 0 until ``context``."""

    start: int
    context: int

    def __post_init__(self):
        for name in ("start", "context"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise ValueError(
                    f"Schedule.{name} must be an integer epoch >= 0, got {v!r}"
                )
        if self.context < self.start:
            raise ValueError(
                f"Schedule: the context pathways cannot switch on (epoch "
                f"{self.context}) before "
                f"the network does (start = {self.start})"
            )

    def as_list(self) -> list[int]:
        return [int(self.start), int(self.context)]


# The authors' hand-set schedule ([conv-depth]): nothing before 500, the common pathway
# alone until 12000.
HAND_SCHEDULE = Schedule(*DEPTH.hand_schedule)


def paper_profile_runs() -> dict[str, int]:
    """The depth chapter's training runs under the ``paper`` profile (Depth chapter,
    closing cost estimate; Performance page): ``"paper"``, the ReLU network and the main
    GDLN (the runs of the paper's Fig. 6b), and ``"ours"``, this book's additions (the
    two other initialisations, the derived schedule, the other coupling)."""
    p = profile("paper", "depth")  # the chapter's data file: read, not copied
    return {
        "paper": 2 * p["seeds"],
        "ours": 2 * p["init_seeds"] + p["derived_seeds"] + p["coupling_seeds"],
    }


def depth_task() -> Dataset:
    """The Section 6 task: C = 3 contexts, the hierarchy in every block ([conv-depth]);
    X 11 x 24."""
    return contextual_task(3)


def relu_depth(
    ds: Dataset | None = None, width: int = WIDTH, std: float = RELU_STD
) -> GatedNetwork:
    """The bias-free ReLU network ``d-width-width-p`` of Section 6 ([conv-depth]:
    11-420-420-60, std 0.0006)."""
    ds = depth_task() if ds is None else ds
    if int(width) <= 0:
        raise ValueError(f"width must be a positive number of units, got {width}")
    return relu_network(
        (ds.X.shape[0], int(width), int(width), ds.Y.shape[0]),
        check_positive(std, "std"),
    )


def depth_gdln(
    ds: Dataset | None = None,
    schedule: Schedule = HAND_SCHEDULE,
    coupling: str = DEPTH.coupling,
    common_width: int = COMMON_WIDTH,
    group_width: int = GROUP_WIDTH,
    stds: dict | None = None,
) -> GatedNetwork:
    """The GDLN of Section 6 ([conv-depth], Fig. 6a), via
    :func:`helpers.core.engine.deep_gdln`.

    Layer 1: one pathway ``'shared'`` of ``common_width + C * group_width`` units,
    always on, seeing items and contexts (a linear layer).  Layer 2: ``'common'``
    (always on, ``common_width`` units) and one group per pair of contexts (``'ctx12'``,
    ``'ctx13'``, ``'ctx23'``; ``group_width`` units each, on in those two contexts), all
    reading the whole of layer 1 and writing the whole output.  Init stds
    ([conv-constants]): layer 1 5.75e-4, layer 2 5.5e-4, readout 5.5e-4 (common) and
    4e-3 (context groups).  ``schedule`` sets the switch-on epochs; ``coupling`` is the
    engine's: 'one-way' (default, the authors' training in ``depth/gdln_off.py``, as
    for the one-layer ReLNs [conv-context-reln]: the common pathway on its own loss,
    the context pathways on its residual) or 'full' (one loss on the summed output).
    """
    ds = depth_task() if ds is None else ds
    if not isinstance(schedule, Schedule):
        raise ValueError(
            f"schedule must be a helpers.chapters.depth.Schedule, got {schedule!r}"
        )
    C = ds.n_contexts
    if C < 2:
        raise ValueError(f"the depth GDLN needs a task with >= 2 contexts, got {C}")
    s = dict(GDLN_STDS)
    if stds is not None:
        unknown = set(stds) - set(GDLN_STDS)
        if unknown:
            raise ValueError(
                f"unknown init stds {sorted(unknown)}; choose from {sorted(GDLN_STDS)}"
            )
        s.update(stds)
    width1 = int(common_width) + C * int(group_width)
    layer1 = [
        Pathway(
            "shared",
            width1,
            None,
            None,
            (s["layer1"], s["layer1"]),
            on_epoch=schedule.start,
        )
    ]
    layer2 = [
        Pathway(
            "common",
            int(common_width),
            None,
            None,
            (s["layer2"], s["readout_common"]),
            on_epoch=schedule.start,
            common=True,
        )
    ]
    for pair in combinations(range(C), C - 1):
        name = "ctx" + "".join(str(c + 1) for c in pair)
        layer2.append(
            Pathway(
                name,
                int(group_width),
                context_gate(ds, pair),
                None,
                (s["layer2"], s["readout_context"]),
                on_epoch=schedule.context,
            )
        )
    return deep_gdln(
        ds.X.shape[0], ds.Y.shape[0], ds.P, [layer1, layer2], coupling=coupling
    )


def _patterns(C: int) -> tuple[str, ...]:
    return tuple("".join(b) for b in product("01", repeat=C))


def layer_census(
    gates, W_in, W_out, contexts, n_contexts: int, threshold: float = 0.5
) -> dict:
    """Gating census of one hidden layer ([conv-census];
    :func:`helpers.core.measures.gating_census`).

    ``gates`` ``(H, P)``, ``W_in`` the layer's incoming weights ``(H, ·)``, ``W_out``
    the next weights ``(·, H)``.  Beside the shares of the classes common / mixed (C-1
    of C) / single / other and the item-dependent share, returns ``total`` (the layer's
    weight mass, sum of ``|W_out[:, j]| |W_in[j, :]|``), ``mass`` (weight per context
    pattern ``'000'..'111'``) and ``always_on`` (the share of weight in units active on
    *every* datapoint: the strict reading of "always on").
    """
    G = np.asarray(gates)
    if G.ndim != 2:
        raise ValueError(f"gates must be (units, datapoints), got shape {G.shape}")
    w = unit_weight(np.asarray(W_in, float), np.asarray(W_out, float))
    if w.shape[0] != G.shape[0]:
        raise ValueError(
            f"{G.shape[0]} units in the gates but {w.shape[0]} in the weights"
        )
    total = float(w.sum())
    pats = _patterns(n_contexts)
    if total <= 0:
        out = {c: 0.0 for c in CLASSES}
        out.update(
            item_dependent=0.0, always_on=0.0, total=0.0, mass={p: 0.0 for p in pats}
        )
        return out
    c = gating_census(G, W_in, W_out, contexts, n_contexts, threshold)
    out = {k: c[k] for k in CLASSES}
    out["item_dependent"] = c["item_dependent"]
    out["always_on"] = float(w[np.all(G > 0, axis=1)].sum() / total)
    out["total"] = total
    out["mass"] = {p: c["patterns"].get(p, 0.0) * total for p in pats}
    return out


def linearised_first_layer(params, X) -> tuple[np.ndarray, np.ndarray]:
    """Output of a bias-free ReLU network as trained, and with its first hidden layer
    made
    linear (gate 1 everywhere): how much the network uses layer 1 for gating (Section
    6).
    """
    Ws = [np.asarray(W, float) for W in params]
    if len(Ws) < 3:
        raise ValueError("linearised_first_layer needs at least two hidden layers")
    h_relu = np.maximum(Ws[0] @ X, 0.0)
    h_lin = Ws[0] @ X
    for W in Ws[1:-1]:
        h_relu = np.maximum(W @ h_relu, 0.0)
        h_lin = np.maximum(W @ h_lin, 0.0)
    return Ws[-1] @ h_relu, Ws[-1] @ h_lin


def layer2_functional(
    params, X, contexts, n_contexts: int, threshold: float = 0.5
) -> dict:
    """The functional census of the second hidden layer of ``W3 relu(W2 relu(W1 X))``
    ([conv-census]): every layer-2 unit is snapped to its nearest context-level gate
    (layer 1 keeps its own gates) and the output compared, through
    :func:`helpers.core.measures.functional_census` on the layer's input ``relu(W1 X)``.

    Returns ``snap_change`` (relative output change), the class shares of the snapped
    output (``common``, ``mixed`` = on in C-1 of C, ``single``, ``other``) and
    ``linear_change``: the relative output change when layer 2 is made linear (always
    on).
    """
    Ws = [np.asarray(W, float) for W in params]
    if len(Ws) != 3:
        raise ValueError(
            f"layer2_functional needs the three weight matrices of a two-hidden-layer "
            f"network, got {len(Ws)}"
        )
    X = np.asarray(X, float)
    h1 = np.maximum(Ws[0] @ X, 0.0)
    out = functional_census(Ws[1], Ws[2], h1, contexts, n_contexts, threshold)
    yhat = Ws[2] @ np.maximum(Ws[1] @ h1, 0.0)
    lin = Ws[2] @ (Ws[1] @ h1)
    nrm = np.linalg.norm(yhat)
    out["linear_change"] = (
        float(np.linalg.norm(lin - yhat) / nrm) if nrm > 0 else float("nan")
    )
    return out


def network_snap_change(params, X, contexts, n_contexts: int) -> float:
    """How much of a two-hidden-layer ReLU network's output its context-level
    description misses ([rulebook-phase], [conv-census]; Depth chapter, the phase of
    training): every unit of layer 1 is snapped to its nearest context-level gate
    (:func:`helpers.core.measures.snap_to_contexts`), then every unit of layer 2 on the
    snapped layer 1; returns ``||yhat_snapped - yhat|| / ||yhat||``."""
    W1, W2, W3 = (np.asarray(W, float) for W in params)
    X = np.asarray(X, float)
    pre1 = W1 @ X
    yhat = W3 @ np.maximum(W2 @ np.maximum(pre1, 0.0), 0.0)
    h1 = snap_to_contexts(pre1 > 0, contexts, n_contexts) * pre1
    pre2 = W2 @ h1
    snapped = W3 @ (snap_to_contexts(pre2 > 0, contexts, n_contexts) * pre2)
    nrm = np.linalg.norm(yhat)
    return float(np.linalg.norm(snapped - yhat) / nrm) if nrm > 0 else float("nan")


def non_nested_share(gates, W_in, W_out, items, contexts, n_contexts: int) -> float:
    """Share of a hidden layer's weight (``|W_out[:, j]| |W_in[j, :]|``) in units whose
    gating is *not nested* (Depth chapter, Lemma 4.1): for some two contexts, neither
    context's set of active items contains the other's.  A unit whose pre-activation is
    additive in item and context (``a_item + b_ctx``, any unit that sees a linear map of
    the one-hot inputs) can only gate nested (its active items in each context are
    those with ``a_item > -b_ctx``); the 2 x 2 pattern of Lemma 4.1 is the smallest
    non-nested one.  ``gates`` ``(H, P)``."""
    G = np.asarray(gates) > 0
    items, contexts = np.asarray(items), np.asarray(contexts)
    w = unit_weight(np.asarray(W_in, float), np.asarray(W_out, float))
    total = float(w.sum())
    if total <= 0:
        return 0.0
    ids = np.unique(items)
    # on[j, c, i]: unit j active for item i in context c
    on = np.zeros((G.shape[0], n_contexts, ids.size), bool)
    for c in range(n_contexts):
        for k, i in enumerate(ids):
            cols = (contexts == c) & (items == i)
            if cols.any():
                on[:, c, k] = G[:, cols].any(axis=1)
    bad = np.zeros(G.shape[0], bool)
    for a, b in combinations(range(n_contexts), 2):
        a_only = (on[:, a] & ~on[:, b]).any(axis=1)
        b_only = (on[:, b] & ~on[:, a]).any(axis=1)
        bad |= a_only & b_only
    return float(w[bad].sum() / total)


def training_phase(snap, grid, limit: float) -> tuple[int, int] | None:
    """The phase of training in which a context-level description applies
    ([rulebook-phase]; Depth chapter): the longest run of consecutive recorded epochs
    ``grid`` at which ``snap`` (the output change when every unit is snapped to its
    context-level gate, median over seeds) is at most ``limit``; ``(first, last)``
    epochs, or None when no record qualifies."""
    ok = np.asarray(snap, float) <= limit
    grid = np.asarray(grid)
    best, k = None, 0
    while k < ok.size:
        if ok[k]:
            j = k
            while j + 1 < ok.size and ok[j + 1]:
                j += 1
            if best is None or j - k > best[1] - best[0]:
                best = (k, j)
            k = j + 1
        else:
            k += 1
    return None if best is None else (int(grid[best[0]]), int(grid[best[1]]))


def epoch_ranges(grid, mask) -> str:
    """The recorded epochs ``grid`` where ``mask`` holds, as text: runs of consecutive
    records as ``first–last`` (Depth chapter: over which epochs a claim holds);
    ``"none"`` when it holds nowhere."""
    grid = np.asarray(grid)
    mask = np.asarray(mask, bool)
    if mask.shape != grid.shape:
        raise ValueError(f"mask {mask.shape} and grid {grid.shape} differ in shape")
    parts, k = [], 0
    while k < mask.size:
        if mask[k]:
            j = k
            while j + 1 < mask.size and mask[j + 1]:
                j += 1
            a, b = int(grid[k]), int(grid[j])
            parts.append(f"{a}" if a == b else f"{a}–{b}")
            k = j + 1
        else:
            k += 1
    return ", ".join(parts) or "none"


def match_runs(reference, candidate) -> Match:
    """:func:`helpers.core.measures.match` for fewer candidate runs than reference runs
    ([conv-measures], [rulebook-noise]; Depth chapter): candidate run ``s`` against
    reference run ``s`` (the first ``len(candidate)``); the spread is the median gap
    over every pair of reference runs or, when the candidate runs differ from each
    other (a GDLN from random weights), the larger of that and the candidate's own
    (``spread_candidate``), with the bootstrap interval of that spread over seeds."""
    R = np.atleast_2d(np.asarray(reference, float))
    Cd = np.atleast_2d(np.asarray(candidate, float))
    if Cd.shape[0] > R.shape[0]:
        raise ValueError(
            f"{Cd.shape[0]} candidate runs but only {R.shape[0]} reference runs"
        )
    if R.shape[0] < 2:
        raise ValueError("match_runs needs at least 2 reference runs")

    def gaps(A):
        D = np.zeros((len(A), len(A)))
        for i, j in combinations(range(len(A)), 2):
            D[i, j] = D[j, i] = time_gap(A[i], A[j])
        return D, float(np.median(D[np.triu_indices(len(A), 1)]))

    D_r, spread = gaps(R)
    mats, spread_c = [D_r], None
    if Cd.shape[0] >= 2 and not np.allclose(Cd, Cd[:1]):
        D_c, spread_c = gaps(Cd)
        mats.append(D_c)
        spread = max(spread, spread_c)
    per = [time_gap(r, c) for r, c in zip(R, Cd)]
    cens = any(censored(r, c) for r, c in zip(R, Cd))
    return Match(
        float(np.median(per)),
        spread,
        None,
        tuple(float(g) for g in per),
        cens,
        bootstrap_interval(*mats),
        spread_c,
        criterion="seed_noise",
        time_gap=True,
    )


#: Inner resamples of :func:`scatter_bootstrap` (the standard error of each outer
#: resample); fixed once, like :data:`helpers.core.measures.BOOTSTRAP`.
INNER_RESAMPLES = 200


def _log_sd_ratio(A, B):
    """ln(sd(A) / sd(B)) along the last axis (NaN where either sd is 0)."""
    sa, sb = A.std(axis=-1, ddof=1), B.std(axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log(sa / sb)
    r[~np.isfinite(r)] = np.nan
    return r


def scatter_bootstrap(a, b) -> tuple[float, tuple[float, float]]:
    """The seed noise of ``ln(sd(a) / sd(b))`` (:func:`log_scatter_ratio`) by
    bootstrap ([rulebook-noise]; Depth chapter, variance profiles): ``(se, (lo,
    hi))``, the standard deviation of the log ratio over resamples of the seeds of each
    side (with replacement), and the 90 % interval of that standard error when it is
    recomputed on resamples of the seeds (a bootstrap of the bootstrap,
    :data:`INNER_RESAMPLES` inner resamples).  Resamples in which one side has no
    scatter (every draw the same seed) are left out."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if a.size < 2 or b.size < 2:
        return float("nan"), (float("nan"), float("nan"))
    rng = np.random.default_rng(BOOTSTRAP["seed"])

    def se(x, y, n):
        # (m, ...) samples -> bootstrap se of the log ratio per leading index
        ix = rng.integers(0, x.shape[-1], x.shape[:-1] + (n, x.shape[-1]))
        iy = rng.integers(0, y.shape[-1], y.shape[:-1] + (n, y.shape[-1]))
        xs = np.take_along_axis(x[..., None, :].repeat(n, -2), ix, -1)
        ys = np.take_along_axis(y[..., None, :].repeat(n, -2), iy, -1)
        return np.nanstd(_log_sd_ratio(xs, ys), axis=-1, ddof=1)

    point = float(se(a, b, BOOTSTRAP["resamples"]))
    m = BOOTSTRAP["resamples"]
    outer_a = a[rng.integers(0, a.size, (m, a.size))]
    outer_b = b[rng.integers(0, b.size, (m, b.size))]
    keep = (outer_a.std(axis=1) > 0) & (outer_b.std(axis=1) > 0)
    draws = se(outer_a[keep], outer_b[keep], INNER_RESAMPLES)
    lo, hi = np.nanpercentile(draws, BOOTSTRAP["percentiles"])
    return point, (float(lo), float(hi))


def subset_scatter_ratios(a, b, k: int, draws: int = 1000, seed: int = 0):
    """``(draws, 2)``: :func:`log_scatter_ratio` (log ratio, normal-theory error) of
    random subsets of ``k`` runs of each side (without replacement; Depth chapter: how
    often a verdict on ``k + k`` seeds comes out one way)."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if min(a.size, b.size) < k or k < 2:
        raise ValueError(f"need at least k = {k} >= 2 finite values on each side")
    rng = np.random.default_rng(seed)
    out = [
        log_scatter_ratio(
            rng.choice(a, k, replace=False), rng.choice(b, k, replace=False)
        )
        for _ in range(int(draws))
    ]
    return np.asarray(out, float)


def output_match(reference, candidate) -> Match:
    """Relative output gaps (:func:`helpers.core.measures.output_gap`) of candidate
    runs to reference runs, as a :class:`helpers.core.measures.Match` with noise on
    both sides ([rulebook-noise]; Depth chapter, outputs at the plateaus): ``value``
    the median gap over every pair of a reference and a candidate run; ``spread`` the
    larger of the two sides' own median gaps over pairs of runs
    (``spread_candidate``: the candidate's); ``spread_interval`` their bootstrap
    interval over seeds.  ``None`` entries (runs without a record there) are
    skipped."""
    from ...core.measures import output_gap

    R = [np.asarray(o, float) for o in reference if o is not None]
    Cd = [np.asarray(o, float) for o in candidate if o is not None]
    if len(R) < 2 or len(Cd) < 2:
        raise ValueError("output_match needs at least 2 runs on each side")

    def mat(A):
        D = np.zeros((len(A), len(A)))
        for i, j in combinations(range(len(A)), 2):
            D[i, j] = D[j, i] = output_gap([A[i]], [A[j]])[0]
        return D

    cross = output_gap(R, Cd)
    s_r = float(np.median(output_gap(R)))
    s_c = float(np.median(output_gap(Cd)))
    return Match(
        float(np.median(cross)),
        max(s_r, s_c),
        None,
        tuple(float(g) for g in cross),
        False,
        bootstrap_interval(mat(R), mat(Cd)),
        s_c,
        criterion="seed_noise",
    )


def log_scatter_ratio(a, b) -> tuple[float, float]:
    """``(ln(sd(a) / sd(b)), its standard error)`` for two samples of event epochs (one
    per run, NaN = never): how much more one network's drop scatters over seeds than the
    other's.  The error is the normal-theory one of a log standard deviation,
    ``sqrt(1 / (2 (n_a - 1)) + 1 / (2 (n_b - 1)))``."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if a.size < 2 or b.size < 2:
        return float("nan"), float("nan")
    sa, sb = a.std(ddof=1), b.std(ddof=1)
    if sa <= 0 or sb <= 0:
        return float("nan"), float("nan")
    return float(np.log(sa / sb)), float(
        np.sqrt(0.5 / (a.size - 1) + 0.5 / (b.size - 1))
    )


@dataclass
class DepthRuns:
    """Many seeds of one depth network, reduced (see :func:`simulate`).

    ``loss`` ``(S, epochs + 1)``; ``grid`` the recorded epochs ``(R,)``; ``outputs``
    ``(S, R, p, P)``; ``mass[l]`` ``(S, R, 2^C)`` weight per context pattern (order
    ``patterns``) of hidden layer ``l`` (0-based); ``classes[l]`` ``(S, R, 4)`` weight
    per census class (order :data:`CLASSES`); ``total``, ``always_on``,
    ``item_dependent`` ``(S, R, L)``; ``final_shares[thr]`` ``(S, L, 4)`` the class
    shares at the last record for each census threshold; ``linear_l1_change`` ``(S, R)``
    the relative output change when layer 1 is made linear (ReLU nets; NaN otherwise);
    ``linear_l1_loss`` the loss of that linearised network; ``linear_l2_change`` the
    same for layer 2; ``functional2`` ``(S, R, 5)`` the functional census of layer 2
    (:func:`layer2_functional`, order :data:`FUNCTIONAL`; ReLU nets, NaN otherwise);
    ``snap_all`` ``(S, R)`` the output change when both layers are snapped to
    context-level gates (:func:`network_snap_change`) and ``non_nested`` ``(S, R, L)``
    each layer's weight share in non-nested units (:func:`non_nested_share`; ReLU nets,
    NaN otherwise).
    """

    name: str
    net: GatedNetwork
    seeds: tuple[int, ...]
    loss: np.ndarray
    grid: np.ndarray
    outputs: np.ndarray
    patterns: tuple[str, ...]
    mass: list
    classes: list
    total: np.ndarray
    always_on: np.ndarray
    item_dependent: np.ndarray
    final_shares: dict
    linear_l1_change: np.ndarray
    linear_l1_loss: np.ndarray
    linear_l2_change: np.ndarray = None
    functional2: np.ndarray = None
    snap_all: np.ndarray = None
    non_nested: np.ndarray = None
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def n_contexts(self) -> int:
        return len(self.patterns[0])

    def class_mass(self, layer: int, cls: str) -> np.ndarray:
        """Weight mass ``(S, R)`` of layer ``layer``'s units in census class ``cls``."""
        if cls not in CLASSES:
            raise ValueError(f"class must be one of {CLASSES}, got {cls!r}")
        return self.classes[layer][:, :, CLASSES.index(cls)]

    def share(self, layer: int, cls: str) -> np.ndarray:
        """Census share ``(S, R)`` of class ``cls`` in layer ``layer`` (0 where the
        layer has no weight)."""
        tot = self.total[:, :, layer]
        m = self.class_mass(layer, cls)
        return np.divide(m, tot, out=np.zeros_like(m), where=tot > 0)

    def stereotype(self) -> int:
        """Index of the run closest to the mean loss curve
        (:func:`helpers.core.measures.stereotype_index`)."""
        return stereotype_index(self.loss)

    def functional(self, key: str) -> np.ndarray:
        """``(S, R)``: one entry of layer 2's functional census (:data:`FUNCTIONAL`)."""
        if key not in FUNCTIONAL:
            raise ValueError(f"key must be one of {FUNCTIONAL}, got {key!r}")
        return self.functional2[:, :, FUNCTIONAL.index(key)]


#: The per-record measures of :func:`reduce_record`, in the fields of
#: :class:`DepthRuns` they fill.
REDUCED = (
    "mass",
    "classes",
    "total",
    "always_on",
    "item_dependent",
    "linear_l1_change",
    "linear_l1_loss",
    "linear_l2_change",
    "functional2",
    "snap_all",
    "non_nested",
)


def record_grid(epochs: int = EPOCHS, every: int = 500) -> np.ndarray:
    """The epochs at which :func:`simulate` records gates, weights and outputs: every
    ``every`` epochs from 0, and the last epoch."""
    if int(every) <= 0:
        raise ValueError(f"every must be positive, got every={every}")
    grid = np.arange(0, int(epochs) + 1, int(every))
    return grid if grid[-1] == epochs else np.append(grid, epochs)


def train_seeds(net, ds, seeds, grid, *, epochs=EPOCHS, lr=LR, params0=None):
    """One batch of seeds of ``net`` trained on ``ds`` by
    :func:`helpers.core.engine.train`, its gates, weights and outputs recorded at the
    epochs ``grid`` (the training half of :func:`simulate`)."""
    return train(
        net,
        ds.X,
        ds.Y,
        lr=lr,
        epochs=epochs,
        seeds=list(seeds),
        record_epochs=grid,
        record=("gates", "weights", "outputs"),
        params0=params0,
    )


def _masked(net: GatedNetwork, weights) -> list:
    Ws = list(weights)
    if net.layers[0].in_mask is not None:
        Ws[0] = Ws[0] * net.layers[0].in_mask
    return Ws


def reduce_record(net: GatedNetwork, ds: Dataset, gates, weights) -> dict:
    """The chapter's measures of one seed at one record ([conv-census]): ``gates`` one
    ``(H, P)`` array per hidden layer, ``weights`` the weight matrices.

    Returns :data:`REDUCED`: per hidden layer the census by weight
    (:func:`layer_census`, threshold 0.5; ``mass`` ``(L, 2^C)``, ``classes`` ``(L,
    4)`` the weight of each class of :data:`CLASSES`, ``total``, ``always_on``,
    ``item_dependent`` ``(L,)``); for a ReLU network the output change and the loss when
    layer 1 is made linear, layer 2's functional census (:func:`layer2_functional`,
    ``functional2`` in the order of :data:`FUNCTIONAL`, and ``linear_l2_change``), the
    change when both layers are snapped (:func:`network_snap_change`) and each layer's
    non-nested share (:func:`non_nested_share`); NaN where they do not apply."""
    C, L = ds.n_contexts, net.depth
    relu = net.kind == "relu"
    Ws = _masked(net, weights)
    cs = [layer_census(gates[l], Ws[l], Ws[l + 1], ds.contexts, C) for l in range(L)]
    pats = _patterns(C)
    nan = float("nan")
    out = {
        "mass": np.array([[c["mass"][p] for p in pats] for c in cs]),
        "classes": np.array([[c[k] * c["total"] for k in CLASSES] for c in cs]),
        "total": np.array([c["total"] for c in cs]),
        "always_on": np.array([c["always_on"] for c in cs]),
        "item_dependent": np.array([c["item_dependent"] for c in cs]),
        "linear_l1_change": nan,
        "linear_l1_loss": nan,
        "linear_l2_change": nan,
        "functional2": np.full(len(FUNCTIONAL), nan),
        "snap_all": nan,
        "non_nested": np.full(L, nan),
    }
    if relu and L >= 2:
        y, y_lin = linearised_first_layer(Ws, ds.X)
        nrm = np.linalg.norm(y)
        out["linear_l1_change"] = np.linalg.norm(y - y_lin) / nrm if nrm > 0 else 0.0
        out["linear_l1_loss"] = 0.5 * np.sum((ds.Y - y_lin) ** 2)
    if relu and L == 2:
        f = layer2_functional(Ws, ds.X, ds.contexts, C)
        out["functional2"] = np.array([f[k] for k in FUNCTIONAL])
        out["linear_l2_change"] = f["linear_change"]
        out["snap_all"] = network_snap_change(Ws, ds.X, ds.contexts, C)
    if relu:
        out["non_nested"] = np.array(
            [
                non_nested_share(gates[l], Ws[l], Ws[l + 1], ds.items, ds.contexts, C)
                for l in range(L)
            ]
        )
    return out


def reduce_run(net: GatedNetwork, ds: Dataset, run, thresholds=(0.25, 0.5, 0.75)):
    """A trained batch of seeds (:func:`train_seeds`) reduced to what the chapter
    keeps (the reduction half of :func:`simulate`): ``loss`` ``(B, epochs + 1)``,
    ``outputs`` ``(B, R, p, P)`` (float32), every measure of :func:`reduce_record`
    stacked to ``(B, R, ...)``, and ``final_shares`` ``{threshold: (B, L, 4)}``, the
    census shares at the last record for each census threshold."""
    gates, weights = run.records["gates"], run.records["weights"]
    B, R = np.shape(run.records["outputs"])[:2]
    per = [
        [
            reduce_record(net, ds, [G[j, r] for G in gates], [W[j, r] for W in weights])
            for r in range(R)
        ]
        for j in range(B)
    ]
    out = {k: np.array([[x[k] for x in row] for row in per], float) for k in REDUCED}
    out["loss"] = np.asarray(run.loss, float)
    out["outputs"] = np.asarray(run.records["outputs"], np.float32)
    last = [
        (
            [G[j, R - 1] for G in gates],
            _masked(net, [W[j, R - 1] for W in weights]),
        )
        for j in range(B)
    ]
    out["final_shares"] = {
        float(t): np.array(
            [
                [
                    [
                        layer_census(
                            g[l], Ws[l], Ws[l + 1], ds.contexts, ds.n_contexts, t
                        )[k]
                        for k in CLASSES
                    ]
                    for l in range(net.depth)
                ]
                for g, Ws in last
            ],
            float,
        )
        for t in thresholds
    }
    return out


def simulate(
    net: GatedNetwork,
    ds: Dataset,
    seeds: Sequence[int],
    *,
    name: str = "",
    epochs: int = EPOCHS,
    lr: float = LR,
    every: int = 500,
    batch: int = 2,
    thresholds: Sequence[float] = (0.25, 0.5, 0.75),
    params0: Sequence[np.ndarray] | None = None,
    progress: Callable[[str], None] | None = None,
) -> DepthRuns:
    """Train ``net`` from each seed (:func:`train_seeds`) and reduce the runs
    (:func:`reduce_run`), ``batch`` seeds at a time.

    After each batch the weights and gates recorded every ``every`` epochs are reduced
    to the per-layer census and, for a ReLU network, the functional census of layer 2
    and the output changes when layer 1 or layer 2 is made linear, then dropped, so
    memory does not grow with the number of seeds beyond the loss curves and outputs.
    The census shares at the last record are also kept for every threshold in
    ``thresholds`` (sensitivity).  ``params0``: initial weights stacked over ``seeds``
    (:func:`helpers.core.relns.initial_weights`), e.g. from
    :func:`helpers.core.relns.start`; by default the engine draws them from each seed.
    """
    epochs = check_epochs(epochs)
    lr = check_positive(lr, "lr")
    seeds = tuple(int(s) for s in seeds)
    if not seeds:
        raise ValueError("simulate needs at least one seed")
    if int(every) <= 0 or int(batch) <= 0:
        raise ValueError(
            f"every and batch must be positive, got every={every}, batch={batch}"
        )
    grid = record_grid(epochs, every)
    S = len(seeds)
    if params0 is not None:
        params0 = [np.asarray(W, float) for W in params0]
        if any(W.shape[0] != S for W in params0):
            raise ValueError(
                f"params0 must be stacked over the {S} seeds (leading axis)"
            )
    t0, c0 = time.perf_counter(), time.process_time()
    parts = []
    for b0 in range(0, S, int(batch)):
        chunk = seeds[b0 : b0 + int(batch)]
        if progress is not None:
            spent = time.perf_counter() - t0
            left = f", about {spent / b0 * (S - b0):.0f} s left" if b0 else ""
            progress(
                f"{name or net.kind}: seeds {chunk[0]}..{chunk[-1]} of {S} "
                f"({spent:.0f} s so far{left})"
            )
        p0 = None if params0 is None else [W[b0 : b0 + len(chunk)] for W in params0]
        run = train_seeds(net, ds, chunk, grid, epochs=epochs, lr=lr, params0=p0)
        parts.append(reduce_run(net, ds, run, thresholds))
        del run
    cat = {
        k: np.concatenate([p[k] for p in parts])
        for k in parts[0]
        if k != "final_shares"
    }
    per_layer = lambda a: [np.ascontiguousarray(a[:, :, l]) for l in range(net.depth)]  # noqa: E731
    return DepthRuns(
        name=name or net.kind,
        net=net,
        seeds=seeds,
        loss=cat["loss"],
        grid=grid,
        outputs=cat["outputs"],
        patterns=_patterns(ds.n_contexts),
        mass=per_layer(cat["mass"]),
        classes=per_layer(cat["classes"]),
        total=cat["total"],
        always_on=cat["always_on"],
        item_dependent=cat["item_dependent"],
        final_shares={
            t: np.concatenate([p["final_shares"][t] for p in parts])
            for t in parts[0]["final_shares"]
        },
        linear_l1_change=cat["linear_l1_change"],
        linear_l1_loss=cat["linear_l1_loss"],
        linear_l2_change=cat["linear_l2_change"],
        functional2=cat["functional2"],
        snap_all=cat["snap_all"],
        non_nested=cat["non_nested"],
        seconds=time.perf_counter() - t0,
        cpu_seconds=time.process_time() - c0,
    )


def plateaus(
    L, window: int = 500, tol: float = 2e-3, min_len: int = 1000
) -> list[tuple[int, int, float]]:
    """The plateaus of one loss curve: maximal stretches of at least ``min_len`` epochs
    over
    which the loss moves by less than ``tol * L(0)`` within any ``window`` epochs.

    Returns ``(first epoch, last epoch, median loss)`` per plateau, in order.
    """
    L = np.asarray(L, float)
    if L.ndim != 1 or L.size <= window:
        raise ValueError(
            f"plateaus needs a 1-D loss curve longer than window={window}, got shape "
            f"{L.shape}"
        )
    if not L[0] > 0:
        raise ValueError(f"plateaus: L(0) must be positive, got {L[0]}")
    flat = np.abs(L[window:] - L[:-window]) < tol * L[0]
    out = []
    edges = np.flatnonzero(np.diff(np.r_[0, flat.astype(int), 0]))
    for a, b in zip(
        edges[::2], edges[1::2]
    ):  # flat on [a, b): stretch [a, b - 1 + window]
        stop = b - 1 + window
        if stop - a + 1 >= min_len:
            out.append((int(a), int(stop), float(np.median(L[a : stop + 1]))))
    return out


def plateau_levels(
    curves, merge: float = 0.05, min_share: float = 0.5, **kw
) -> np.ndarray:
    """Loss levels at which the runs plateau, pooled over runs (descending).

    Plateau medians (:func:`plateaus`) closer than ``merge * L(0)`` are merged; a level
    is kept when at least ``min_share`` of the runs show it.
    """
    curves = np.atleast_2d(np.asarray(curves, float))
    found = []
    for k, L in enumerate(curves):
        for _, _, lev in plateaus(L, **kw):
            found.append((lev, k))
    if not found:
        return np.zeros(0)
    found.sort(key=lambda x: -x[0])
    tol = merge * curves[0, 0]
    groups = [[found[0]]]
    for lev, k in found[1:]:
        if groups[-1][-1][0] - lev <= tol:
            groups[-1].append((lev, k))
        else:
            groups.append([(lev, k)])
    levels = [
        np.median([g[0] for g in grp])
        for grp in groups
        if len({g[1] for g in grp}) >= min_share * len(curves)
    ]
    return np.asarray(levels, float)


def drop_epochs(curves, levels) -> np.ndarray:
    """Epoch of each drop in loss, per run: the first epoch at which the loss falls
    below the
    midpoint of two consecutive ``levels`` (descending; append 0 for the final descent).
    ``(runs, len(levels) - 1)``; NaN where a run never gets there."""
    curves = np.atleast_2d(np.asarray(curves, float))
    levels = np.asarray(levels, float)
    if levels.ndim != 1 or levels.size < 2 or np.any(np.diff(levels) >= 0):
        raise ValueError(
            f"levels must be a strictly decreasing sequence of >= 2 loss values, got "
            f"{levels}"
        )
    mids = 0.5 * (levels[:-1] + levels[1:])
    out = np.full((curves.shape[0], mids.size), np.nan)
    for i, L in enumerate(curves):
        for k, m in enumerate(mids):
            hit = np.flatnonzero(L <= m)
            if hit.size:
                out[i, k] = hit[0]
    return out


def drop_durations(curves, levels, lo: float = 0.1, hi: float = 0.9) -> np.ndarray:
    """How long each drop takes: epochs from ``hi`` to ``lo`` of the way between two
    consecutive ``levels`` (e.g. 90 % to 10 % of the step).  ``(runs, drops)``; NaN if
    never completed."""
    levels = np.asarray(levels, float)
    if not 0 <= lo < hi <= 1:
        raise ValueError(f"need 0 <= lo < hi <= 1, got lo={lo}, hi={hi}")
    curves = np.atleast_2d(np.asarray(curves, float))
    out = np.full((curves.shape[0], levels.size - 1), np.nan)
    for k in range(levels.size - 1):
        a, b = levels[k], levels[k + 1]
        upper = b + hi * (a - b)
        lower = b + lo * (a - b)
        for i, L in enumerate(curves):
            h1 = np.flatnonzero(L <= upper)
            h2 = np.flatnonzero(L <= lower)
            if h1.size and h2.size:
                out[i, k] = h2[0] - h1[0]
    return out


def appearance_epoch(mass, grid, threshold: float = 0.3) -> float:
    """Epoch at which a class of units appears: the first epoch at which its weight mass
    (sum of ``|W_out[:, j]| |W_in[j, :]|`` over its units, :func:`layer_census`) reaches
    ``threshold``, linearly interpolated between the recorded epochs ``grid``.  NaN if
    it never does.

    The mass is in the units of the network's map: small random weights give a class
    about 1e-2, a class that carries part of the task's O(1) outputs has O(1) to O(10).
    """
    m = np.asarray(mass, float)
    g = np.asarray(grid, float)
    if m.shape != g.shape or m.ndim != 1:
        raise ValueError(
            f"mass and grid must be 1-D of equal length, got {m.shape} and {g.shape}"
        )
    if not (np.isfinite(threshold) and threshold > 0):
        raise ValueError(f"threshold must be a positive weight mass, got {threshold}")
    hit = m >= threshold
    if not hit.any():
        return float("nan")
    k = int(np.argmax(hit))
    if k == 0:
        return float(g[0])
    f = (threshold - m[k - 1]) / (m[k] - m[k - 1])
    return float(g[k - 1] + f * (g[k] - g[k - 1]))


def derive_schedule(
    relu: DepthRuns,
    gdln: DepthRuns,
    reference: Schedule,
    threshold: float = 0.3,
    layer: int = 1,
    resolution: int = 100,
) -> tuple[Schedule, dict]:
    """A switch-on schedule for the depth GDLN derived from the ReLU runs' gates.

    In layer ``layer`` (0-based; the second hidden layer by default) the ReLU network's
    common units (on in all contexts) and 2-of-3 units *appear* at the median over seeds
    of :func:`appearance_epoch` (weight mass ``threshold``).  A GDLN pathway switched on
    at epoch ``t_on`` appears a lag later; the lag is measured, by the same census, on
    GDLN runs trained with the ``reference`` schedule (lag = appearance - switch-on).
    The derived switch-on epochs are the ReLU appearance epochs minus these lags,
    rounded to ``resolution`` epochs: ``start`` from the common class, ``context`` from
    the 2-of-3 class.  Returns the schedule and the intermediate numbers.
    """

    def med(runs, cls):
        m = runs.class_mass(layer, cls)
        t = np.array(
            [appearance_epoch(m[s], runs.grid, threshold) for s in range(m.shape[0])]
        )
        return float(np.nanmedian(t)), t

    relu_common, relu_common_all = med(relu, "common")
    relu_mixed, relu_mixed_all = med(relu, "mixed")
    gdln_common, _ = med(gdln, "common")
    gdln_mixed, _ = med(gdln, "mixed")
    lag_common = gdln_common - reference.start
    lag_context = gdln_mixed - reference.context
    if not np.all(np.isfinite([relu_common, relu_mixed, lag_common, lag_context])):
        raise ValueError(
            "derive_schedule: a class never appears in the ReLU or GDLN runs"
        )

    def rnd(t):
        return int(max(0, resolution * round(t / resolution)))

    start = rnd(relu_common - lag_common)
    context = max(start, rnd(relu_mixed - lag_context))
    info = {
        "relu_appear_common": relu_common,
        "relu_appear_mixed": relu_mixed,
        "relu_appear_common_seeds": relu_common_all,
        "relu_appear_mixed_seeds": relu_mixed_all,
        "gdln_appear_common": gdln_common,
        "gdln_appear_mixed": gdln_mixed,
        "lag_common": lag_common,
        "lag_context": lag_context,
        "threshold": threshold,
    }
    return Schedule(start, context), info


def plateau_record(runs: DepthRuns, level: float, tol: float = 0.02) -> np.ndarray:
    """For each run, the index into ``runs.grid`` of the recorded epoch in the middle of
    the run's stay at loss ``level`` (within ``tol * L(0)``); -1 if no record falls
    there.
    """
    out = np.full(runs.loss.shape[0], -1)
    for s, L in enumerate(runs.loss):
        at = np.abs(L[runs.grid] - level) <= tol * L[0]
        idx = np.flatnonzero(at)
        if idx.size:
            out[s] = idx[idx.size // 2]
    return out


def plateau_outputs(loss, grid, outputs, level: float, tol: float = 0.02) -> list:
    """Each run's recorded output in the middle of its stay at loss ``level``
    (:func:`plateau_record`), or None for a run with no record there.  ``loss``
    ``(S, T)``, ``grid`` the recorded epochs, ``outputs`` ``(S, len(grid), p, P)``."""
    loss = np.atleast_2d(np.asarray(loss, float))
    grid = np.asarray(grid)
    if np.shape(outputs)[:2] != (loss.shape[0], grid.size):
        raise ValueError(
            f"outputs must be (runs, records, ...) = ({loss.shape[0]}, {grid.size}, "
            f"...), "
            f"got {np.shape(outputs)}"
        )
    view = DepthRuns.__new__(DepthRuns)
    view.loss, view.grid = loss, grid
    idx = plateau_record(view, level, tol)
    return [np.asarray(outputs[s, k]) if k >= 0 else None for s, k in enumerate(idx)]


def smaller_by_epoch(values, compared, grid) -> dict:
    """The rulebook's ``smaller`` verdict on a gating claim at every recorded epoch
    ([rulebook-phase]; Depth chapter: ``layer1_linear``, ``layer2_mixed``): the median
    over seeds of ``values[:, k]`` against that of ``compared[:, k]`` (arrays ``(seeds,
    records)``), with the ratio's bootstrap interval over seeds
    (:func:`helpers.core.measures.ratio_interval`, [rulebook-noise]).  Returns
    ``{epoch: verdict}``; ``"nothing to compare"`` where the compared side is 0 in most
    resamples (no unit of that kind yet)."""
    from ...book import rulebook
    from ...core.measures import Evidence, ratio_interval

    V, C = np.asarray(values, float), np.asarray(compared, float)
    out = {}
    for k, e in enumerate(np.asarray(grid)):
        ok = np.isfinite(V[:, k]) & np.isfinite(C[:, k])
        v, c = V[ok, k], C[ok, k]
        if ok.sum() < 2 or np.median(c) == 0:
            out[int(e)] = "nothing to compare"
            continue
        try:
            iv = ratio_interval(v, c)
        except ValueError:
            out[int(e)] = "nothing to compare"
            continue
        out[int(e)] = rulebook.verdict(
            Evidence(
                float(np.median(v)),
                compared=float(np.median(c)),
                criterion="smaller",
                ratio_interval=iv,
            )
        )
    return out


def verdicts_over_training(by_epoch: dict, grid) -> str:
    """``{epoch: verdict}`` of :func:`smaller_by_epoch` in words (Depth chapter): the
    epochs where the claim holds, fails, is undecided, or has nothing to compare."""
    grid = np.asarray(grid)

    def at(v):
        return epoch_ranges(grid, [by_epoch[int(e)] == v for e in grid])

    text = f"holds at epochs {at('reproduced')}, fails at {at('not reproduced')}"
    if "undecided" in by_epoch.values():
        text += f", and the seeds cannot decide it at {at('undecided')}"
    if "nothing to compare" in by_epoch.values():
        text += f"; at {at('nothing to compare')} there is nothing to compare with"
    return text


def init_comparison(relu_loss, init_loss: dict, reference: int) -> tuple[dict, dict]:
    """The ReLU-GDLN comparison under each initialisation of the GDLN ([conv-init];
    Depth chapter, "The initialisation decides whether the GDLN makes the last drop").

    Args:
        relu_loss: the ReLU runs' loss curves ``(S, T)``.
        init_loss: ``{init: loss curves}`` of the GDLN under each initialisation.
        reference: the index of the ReLU stereotype.

    Returns:
        ``(rows, evidence)``: per initialisation the row of the page's table (the
        record ``init_sensitivity``: time gaps of the stereotypes and of seed ``s``
        against seed ``s``, the final loss, the runs reaching 10 % of the initial loss,
        whether a gap is a lower bound, the rulebook's verdict on the median gap), and
        the evidence on the stereotypes' gap under that initialisation
        (:func:`match_runs`'s spread and interval, the stereotypes' gap as the value).
    """
    from ...book import rulebook
    from ...core.measures import level_times

    R = np.asarray(relu_loss, float)
    t_relu = np.array([level_times(x) for x in R])
    rows, evidence = {}, {}
    for choice, L in init_loss.items():
        m_i = match_runs(R, L)
        k = stereotype_index(L)
        stereo_i = time_gap(R[reference], L[k])
        t_c = np.array([level_times(x) for x in L])
        bound = np.isfinite(t_relu[: len(L)]) & np.isnan(t_c)
        rows[choice] = {
            "seeds": len(L),
            "gap_stereotypes": stereo_i,
            "gap_runs": m_i.value,
            "final_loss": float(np.nanmedian(L[:, -1])),
            "reach_10pc": f"{int(np.isfinite(t_c[:, 1]).sum())} of {len(L)}",
            # a level the ReLU partner reaches and the GDLN run does not: the gap is
            # a lower bound (the level counts at the run's end)
            "gap_is_lower_bound": bool(bound.any()),
            "verdict_runs": rulebook.verdict(m_i),
        }
        evidence[choice] = m_i.but(
            value=stereo_i,
            per_seed=(stereo_i,),
            censored=censored(R[reference], L[k]),
        )
    return rows, evidence


def compare_plateaus(relu: DepthRuns, gdln: DepthRuns, levels, shared, i_r, i_g):
    """The outputs of the ReLU and GDLN runs in the middle of each plateau (Depth
    chapter, "Outputs at the plateaus"; :func:`plateau_outputs`).

    Args:
        relu, gdln: the runs of both networks (recorded on the same grid).
        levels: the plateau levels compared; ``shared``: per level, whether the GDLN
            runs stop there too.
        i_r, i_g: the indices of the ReLU and GDLN stereotypes.

    Returns:
        ``(gaps, matches, steps, shown)``: per level ``(level, shared, ReLU-GDLN,
        ReLU-ReLU, GDLN-GDLN)`` (medians over pairs of
        :func:`helpers.core.measures.output_gap`);
        ``{level: Match}`` of :func:`output_match` (noise on both sides) on the shared
        plateaus where both networks have two runs; and per level the ReLU
        stereotype's output change since the previous plateau (NaN for the first);
        per level ``(level, ReLU stereotype's output, GDLN stereotype's output)``.
    """
    from ...core.measures import output_gap

    med = lambda v: float(np.nanmedian(v))  # noqa: E731
    gaps, matches, steps, shown, prev = [], {}, [], [], None
    for lv, sh in zip(levels, shared):
        Or = plateau_outputs(relu.loss, relu.grid, relu.outputs, lv)
        Og = plateau_outputs(gdln.loss, gdln.grid, gdln.outputs, lv)
        cross, within = output_gap(Or, Og), output_gap(Or)
        within_g = output_gap(Og)
        step = output_gap([Or[i_r]], [prev])
        gaps.append((lv, sh, med(cross), med(within), med(within_g)))
        if sh and min(sum(o is not None for o in O_) for O_ in (Or, Og)) >= 2:
            matches[lv] = output_match(Or, Og)  # noise on both sides
        steps.append(med(step) if step.size else float("nan"))
        shown.append((lv, Or[i_r], Og[i_g]))
        prev = Or[i_r]
    return gaps, matches, steps, shown


def window_mean(values, window) -> np.ndarray:
    """Per seed, the mean of ``values`` ``(seeds, records)`` over the records where
    ``window`` (same shape, boolean) holds; NaN for a seed with no record there
    (Depth chapter: a gating claim read where its structure exists,
    [rulebook-structure],
    and in its other windows).

    Args:
        values: ``(seeds, records)``.
        window: boolean ``(seeds, records)``, or ``(records,)`` for every seed.

    Returns:
        ``(seeds,)`` means.
    """
    V = np.asarray(values, float)
    W = np.broadcast_to(np.asarray(window, bool), V.shape)
    n = W.sum(axis=1)
    tot = np.where(W, V, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, tot / np.maximum(n, 1), np.nan)


def context_weight_window(runs: "DepthRuns") -> np.ndarray:
    """``(seeds, records)``: where the weight of layer 2's context classes (every unit
    not on in all contexts: 2-of-3, single-context, other) is above its value at
    initialisation (Depth chapter: the window variant "the context classes' weight
    above its initial value", [rulebook-structure])."""
    m = sum(runs.class_mass(1, c) for c in ("mixed", "single", "other"))
    return m > m[:, :1]


def drop_scatter(relu_loss, gdln_loss, levels_all) -> dict:
    """The variance profile of two sets of runs (Depth chapter, "The timing of each
    drop"; :func:`drop_epochs`, :func:`log_scatter_ratio`, :func:`scatter_bootstrap`).

    Args:
        relu_loss, gdln_loss: loss curves ``(seeds, epochs + 1)`` of each network.
        levels_all: the plateau levels and 0 (the drops between consecutive levels).

    Returns:
        ``{"drops": {"relu", "hand"}: (seeds, drops) epochs, "sd": the same sds,
        "scatter": [(ln ratio, normal-theory error)], "scatter_bs": [(bootstrap
        error, its interval)], "z": |ln ratio| / error per drop, "k": the worst
        drop}``.
    """
    levels_all = np.asarray(levels_all, float)
    drops = {
        "relu": drop_epochs(relu_loss, levels_all),
        "hand": drop_epochs(gdln_loss, levels_all),
    }
    n = levels_all.size - 1
    pairs = [(drops["relu"][:, k], drops["hand"][:, k]) for k in range(n)]
    scatter = [log_scatter_ratio(a, b) for a, b in pairs]
    scatter_bs = [scatter_bootstrap(a, b) for a, b in pairs]
    z = np.array([abs(v) / e for (v, _), (e, _) in zip(scatter, scatter_bs)])
    sd = {k: np.nanstd(v, axis=0, ddof=1) for k, v in drops.items()}
    return {
        "drops": drops,
        "sd": sd,
        "pairs": pairs,
        "scatter": scatter,
        "scatter_bs": scatter_bs,
        "z": z,
        "k": int(np.nanargmax(z)),
    }


def rounding_floor(curves: dict, levels_all) -> dict:
    """How far rounding alone moves each drop (Depth chapter, the rounding floor): the
    drop epochs (:func:`drop_epochs`) of runs from the same initial weights that differ
    only in the order and precision of their sums.

    Args:
        curves: ``{name: (seeds, epochs + 1)}``, the same seeds in every entry; the
            first entry is the reference (the engine's float32 runs).
        levels_all: the plateau levels and 0.

    Returns:
        ``{"drops": {name: (seeds, drops)}, "diff": {name: (seeds, drops)} epochs
        against the reference, "max": {name: per drop max |diff|}, "sd": per drop
        the standard deviation rounding alone adds to one run, the root mean square
        difference over every other entry and seed over sqrt 2}``.
    """
    names = list(curves)
    if len(names) < 2:
        raise ValueError("rounding_floor needs a reference and at least one other run")
    drops = {k: drop_epochs(v, levels_all) for k, v in curves.items()}
    ref = drops[names[0]]
    diff = {k: drops[k] - ref for k in names[1:]}
    allx = np.concatenate([diff[k] for k in names[1:]])
    with np.errstate(invalid="ignore"):
        sd = np.sqrt(np.nanmean(allx**2, axis=0) / 2)
    return {
        "drops": drops,
        "diff": diff,
        "max": {k: np.nanmax(np.abs(d), axis=0) for k, d in diff.items()},
        "sd": sd,
    }


def pool_seeds(seeds, curves, stored_seeds, stored_curves) -> dict:
    """This execution's runs pooled with a stored run's (Depth chapter, the variance
    profile on 24 + 24 seeds; :mod:`.stored`): the stored seeds this execution did not
    train are added, when their curves are as long as this execution's.

    Args:
        seeds: this execution's seeds; curves: ``{name: (seeds, T)}`` loss curves.
        stored_seeds: the stored run's seeds; stored_curves: ``{name: (n, T')}``.

    Returns:
        ``{"seeds": the pooled seeds, name: pooled curves, "added": the stored seeds
        added}``.
    """
    seeds = [int(x) for x in seeds]
    if set(curves) != set(stored_curves):
        raise ValueError(
            f"curves {sorted(curves)} and stored_curves {sorted(stored_curves)} differ"
        )
    T = {np.shape(v)[-1] for v in curves.values()}
    T_s = {np.shape(v)[-1] for v in stored_curves.values()}
    new = [k for k, x in enumerate(stored_seeds) if int(x) not in seeds]
    if T != T_s:
        new = []  # other epochs (a test run): this execution's seeds alone
    out = {
        k: np.concatenate([np.asarray(v, float), np.asarray(stored_curves[k])[new]])
        if new
        else np.asarray(v, float)
        for k, v in curves.items()
    }
    out["added"] = [int(stored_seeds[k]) for k in new]
    out["seeds"] = seeds + out["added"]
    return out


def same_start(engine_loss, seeds, stored: dict) -> dict:
    """The curves :func:`rounding_floor` compares (Depth chapter): the engine's runs of
    the stored rounding run's seeds (from this execution) and the stored float32 and
    float64 runs from the same initial weights, cut to the seeds and epochs both have.

    Args:
        engine_loss: this execution's ReLU curves ``(S, T)``; seeds: their seeds.
        stored: the stored run (:func:`.stored.load` ``("rounding")``).

    Returns:
        ``{"engine, float32": ..., "plain, float32": ..., "plain, float64": ...}``.
    """
    seeds = [int(x) for x in seeds]
    keep = [k for k, x in enumerate(stored["seeds"]) if int(x) in seeds]
    if len(keep) < 1:
        raise ValueError("no seed of the stored rounding run ran in this execution")
    rows = [seeds.index(int(stored["seeds"][k])) for k in keep]
    T = min(np.shape(engine_loss)[-1], stored["float32"].shape[-1])
    out = {"engine, float32": np.asarray(engine_loss, float)[rows, :T]}
    for k in ("float32", "float64"):
        out[f"plain, {k}"] = np.asarray(stored[k], float)[keep, :T]
    return out


from . import plots, stored, tables  # noqa: E402
from .report import Results, report  # noqa: E402
