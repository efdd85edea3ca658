"""The controls of book/digits.md: the task with one feature changed (affine targets,
whitened pixels, random context labels), the networks on each, and what the early and
late leads say (Defined for the page book/digits.md)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...book.kit import med, prose, table
from ...core.datasets import Dataset
from ...core.engine import relu_network, train
from ...core.measures import (
    LEVELS,
    functional_census,
    level_times,
    match,
    seed_spread_interval,
)
from ...core.relns import context_reln, item_rows, start_and_train
from .comparison import timing_levels
from .task import affine_floor


def _context_of_rows(ds: Dataset) -> np.ndarray:
    """The context of each output row (``c<k>.<block>.<label>``: k - 1; common: -1)."""
    on = [f.startswith("c") and "." in f for f in ds.features]
    return np.array(
        [int(f[1 : f.index(".")]) - 1 if c else -1 for f, c in zip(ds.features, on)]
    )


def affine_targets(ds: Dataset) -> Dataset:
    """The task with every output block replaced by its least-squares affine fit from
    the pixels (block ``k`` over context ``k``): a context-gated ReLN reaches zero."""
    A = np.vstack([ds.X[item_rows(ds)], np.ones(ds.P)])
    rows = _context_of_rows(ds)
    Y = np.zeros_like(ds.Y)
    for c in sorted(set(rows)):
        r = rows == c
        cols = np.ones(ds.P, bool) if c < 0 else ds.contexts == c
        W = np.linalg.lstsq(A[:, cols].T, ds.Y[r][:, cols].T, rcond=None)[0].T
        Y[r] = (W @ A) * cols
    return replace(ds, name=f"{ds.name}, affine targets", Y=Y)


def whitened_pixels(ds: Dataset, tol: float = 1e-9) -> Dataset:
    """The task with the pixels replaced by their PCA-whitened coordinates (centred,
    directions above ``tol`` x the largest variance, mean squared norm 1)."""
    Xi = ds.X[item_rows(ds)][:, : ds.P // ds.n_contexts]  # the images once
    mu = Xi.mean(axis=1, keepdims=True)
    U, s, _ = np.linalg.svd(Xi - mu, full_matrices=False)
    keep = s > tol * s[0]
    Z = (U[:, keep].T @ (Xi - mu)) / s[keep][:, None]
    Z *= 1.0 / np.sqrt(np.mean(np.sum(Z**2, axis=0)))
    ctx = [i for i, nm in enumerate(ds.inputs) if nm.startswith("ctx")]
    X = np.vstack([np.tile(Z, (1, ds.n_contexts)), ds.X[ctx]])
    names = tuple([f"px{i}" for i in range(Z.shape[0])] + [ds.inputs[i] for i in ctx])
    return replace(ds, name=f"{ds.name}, whitened pixels", X=X, inputs=names)


def random_attributes(ds: Dataset, seed: int) -> Dataset:
    """The task with each context's block replaced by a seeded random bit of the
    image (one-hot), independent of the class; the common block is kept."""
    C = ds.n_contexts
    bits = np.random.default_rng(int(seed)).integers(0, 2, size=(C, ds.P // C))
    common = _context_of_rows(ds) < 0
    blocks = [ds.Y[common]]
    features = [f for f, c in zip(ds.features, common) if c]
    for k in range(C):
        blk = np.zeros((2, ds.P))
        blk[:, ds.contexts == k] = np.eye(2)[bits[k]].T
        blocks.append(blk)
        features += [f"c{k + 1}.random.{v}" for v in ("0", "1")]
    name = f"{ds.name}, random attributes"
    return replace(ds, name=name, Y=np.vstack(blocks), features=tuple(features))


def control_run(
    ds: Dataset, seeds, *, relu_width: int, reln_width: int, relu_std: float,
    lr: float, epochs: int, levels=None, margin: float = 1.0,
) -> dict:  # fmt: skip
    """One control: the ReLU network and the common + 2-of-3 and common +
    single-context ReLNs (``reln_width`` units per pathway, matched init, one-way)
    trained on ``ds``, read by :func:`control_summary`."""
    seeds, X, Y, kw = list(seeds), ds.X, ds.Y, dict(lr=lr, epochs=epochs)
    relu_net = relu_network((X.shape[0], relu_width, Y.shape[0]), relu_std)
    rec = dict(record_epochs=[epochs], record=("weights",))
    relu = train(relu_net, X, Y, seeds=seeds, **rec, **kw)
    L = {"relu": relu.loss}
    start_kw = dict(relu_net=relu_net, relu_std=relu_std)
    for kind in ("mixed", "single"):
        reln = context_reln(ds, kind, "one-way", width=reln_width)
        run, _ = start_and_train(reln, "matched", seeds, X, Y, start_kw=start_kw, **kw)
        L[kind] = run.loss
    W1, W2 = (W[:, -1] for W in relu.records["weights"])
    census = [functional_census(*w, X, ds.contexts, ds.n_contexts) for w in zip(W1, W2)]
    snap = med([c["snap_change"] for c in census])
    return control_summary(L, ds, snap, levels, margin)


def control_summary(
    L: dict, ds: Dataset, snap_change: float, levels=None, margin: float = 1.0
) -> dict:
    """One row of the controls from the loss curves ``L`` (``relu``, ``mixed``,
    ``single``: ``(seeds, T)``) on ``ds`` and the ReLU network's final snap change.

    Returns:
        ``mixed``, ``single`` (time gaps over the ``levels`` at least ``margin`` x the
        floor, the other ReLN the alternative), ``levels``, ``t50``, ``final`` and
        ``final_per_seed`` (/ L0), ``floor`` (/ L0) and ``snap_change``.
    """
    L0 = 0.5 * float(np.sum(ds.Y**2))
    floor = affine_floor(ds) / L0
    above = timing_levels(LEVELS if levels is None else levels, floor, margin)
    return {
        "mixed": match(L["relu"], L["mixed"], L["single"], levels=above),
        "single": match(L["relu"], L["single"], L["mixed"], levels=above),
        "levels": above,
        "t50": {k: med([level_times(c, (0.5,))[0] for c in v]) for k, v in L.items()},
        "final": {k: med(v[:, -1]) / L0 for k, v in L.items()},
        "final_per_seed": {k: [float(x) / L0 for x in v[:, -1]] for k, v in L.items()},
        "floor": floor,
        "snap_change": float(snap_change),
    }


def controls_table(rows: dict) -> str:
    """The controls (:func:`control_summary` by name) as a Markdown table."""
    trio = ("relu", "mixed", "single")
    headers = ["task", "floor / L0", "final loss / L0: ReLU, 2-of-3, single"]
    headers += ["epoch of L0/2: ReLU, 2-of-3, single", "levels", "gap 2-of-3"]
    headers += ["gap single", "seed spread [90 %]", "snap change (ReLU, end)"]
    body = [
        [name, f"{r['floor']:.3f}", ", ".join(f"{r['final'][k]:.3f}" for k in trio),
         ", ".join(f"{r['t50'][k]:.0f}" for k in trio),
         ", ".join(f"{f:g}" for f in r["levels"]), f"{m.value:.3f}",
         f"{r['single'].value:.3f}",
         "{:.3f} [{:.3f}, {:.3f}]".format(m.spread, *m.spread_interval),
         f"{r['snap_change']:.2f}"]
        for name, r in rows.items()
        for m in [r["mixed"]]
    ]  # fmt: skip
    return table(body, headers)


def relu_ahead(row: dict, multiple: float) -> bool:
    """The early lead in a row of :func:`control_summary`: the ReLU network's loss
    halves first and its gap to the 2-of-3 ReLN exceeds ``multiple`` x the top of the
    spread's 90 % interval ([rulebook-noise])."""
    t, m = row["t50"], row["mixed"]
    first = t["relu"] < min(t["mixed"], t["single"])
    return bool(first and m.value > multiple * m.spread_interval[1])


def relu_ends_lower(row: dict, multiple: float) -> bool:
    """The late lead in a row of :func:`control_summary`: the ReLU network ends below
    the lower ReLN by more than ``multiple`` x the top of the 90 % interval of the final
    losses' seed spread ([rulebook-noise])."""
    nearer, (_, hi) = _nearer_reln(row)
    return bool(row["final"][nearer] - row["final"]["relu"] > multiple * hi)


def _nearer_reln(row: dict):
    """The ReLN that ends lower, and the final losses' seed-spread interval."""
    f, per = row["final"], row["final_per_seed"]
    nearer = min(("mixed", "single"), key=lambda k: f[k])
    return nearer, seed_spread_interval(per["relu"], per[nearer])


CAUSES = {
    "affine targets": "targets that are not affine in the pixels",
    "whitened pixels": "correlated pixels with a common mean (whitening removes both; "
    "the controls do not separate them)",
    "random context labels": "context labels that are functions of the class",
}


def explain_controls(leads: dict, finals: dict | None = None) -> str:
    """What the controls show, in words: ``leads[name] = {"early": bool, "late":
    bool}`` (:func:`relu_ahead`, :func:`relu_ends_lower`) for ``'the task'`` and the
    keys of ``CAUSES``; ``finals[name]``: final losses / L0 of ``relu``, ``mixed`` and
    ``single``.  Each sentence says which lead stays without one cause."""
    task = leads.get("the task", {"early": True, "late": True})
    if not (task["early"] or task["late"]):
        return prose("digits", "controls_no_lead")
    tried = [k for k in CAUSES if k in leads]
    parts = []
    for k in tried:
        early = "control_early" if leads[k]["early"] else "control_gone"
        f = finals.get(k) if finals else None
        parts.append(
            prose(
                "digits", "control", cause=CAUSES[k], early=prose("digits", early),
                no="" if leads[k]["late"] else "no longer ",
                finals=" " + prose("digits", "control_finals", f=f) if f else "",
            )
        )  # fmt: skip
    gone = {e: [k for k in tried if not leads[k][e]] for e in ("early", "late")}
    said = {e: " and with ".join(ks) for e, ks in gone.items()}
    text = "; ".join(parts) + ". "
    text += prose("digits", "early_lost" if gone["early"] else "early_kept", **said)
    text += prose("digits", "late_lost" if gone["late"] else "late_kept", **said)
    if tried and not (gone["early"] or gone["late"]):
        text += " " + prose("digits", "controls_leave")
    return text


def controls_record(controls: dict, ahead: dict, late: dict | None = None) -> dict:
    """The controls as one record's value: per task, the numbers of
    :func:`control_summary`, the final losses' spread interval, ``relu_ahead`` and
    ``relu_ends_lower``."""
    out = {}
    for k, r in controls.items():
        m = r["mixed"]
        out[k] = {
            "gap_mixed": m.value,
            "gap_single": r["single"].value,
            "spread": m.spread,
            "spread_interval": [float(v) for v in m.spread_interval],
            "levels": [float(f) for f in r["levels"]],
            "t50": dict(r["t50"]),
            "final": dict(r["final"]),
            "floor": r["floor"],
            "snap_change": r["snap_change"],
            "relu_ahead": bool(ahead[k]),
        }
        if late is not None:
            out[k]["relu_ends_lower"] = bool(late[k])
        if r.get("final_per_seed"):
            interval = _nearer_reln(r)[1]
            out[k]["final_spread_interval"] = [float(v) for v in interval]
    return out
