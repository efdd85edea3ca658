"""The networks of the page book/extra_contexts.md: the ReLU network, the ReLNs under
every initialisation ([conv-init]) and the family of ReLNs ([rulebook-best]), trained
one C at a time."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...book import progress
from ...core import relns, store
from ...core.datasets import Dataset
from ...core.engine import relu_network, train
from ...core.families import (
    census_over_training,
    class_share,
    family_sets,
    member_width,
)
from ...core.relns import INITS, context_reln
from .closed_form import mode_strengths


def check_parameters(init, contexts, relu_hidden, seeds, context_values) -> None:
    """The page's own parameter checks, beyond the registry's."""
    if init not in INITS:
        raise ValueError(f"init must be one of {list(INITS)}, got {init!r}")
    if len(contexts) != len(relu_hidden):
        raise ValueError(
            f"relu_hidden must give one width per number of contexts: {len(contexts)} "
            f"contexts, {len(relu_hidden)} widths"
        )
    if seeds < 2:
        raise ValueError(
            f"seeds must be >= 2: the seed spread needs two runs, got {seeds}"
        )
    if len(context_values) != len(contexts) or min(context_values) <= 0:
        raise ValueError(
            f"context_values must give one positive value per number of contexts: "
            f"{len(contexts)} contexts, got {context_values}"
        )


def _start_kw(ds: Dataset, relu) -> dict:
    """Keyword arguments of :func:`helpers.core.relns.start` for this page's ReLNs."""
    return {
        "experiment": f"extra_contexts_C{ds.n_contexts}",
        "relu_net": relu,
        "X": ds.X,
        "contexts": ds.contexts,
    }


def start_stds(ds: Dataset, hidden: int, seeds, *, relu_std: float, width: int):
    """``{init: [stds per seed]}`` of the common + (C-1)-of-C ReLN ([conv-init])."""
    relu = relu_network((ds.X.shape[0], hidden, ds.Y.shape[0]), relu_std / hidden)
    reln = context_reln(ds, "mixed", width=width)
    return {
        choice: relns.start(reln, choice, list(seeds), **_start_kw(ds, relu)).stds()
        for choice in INITS
    }


def train_networks(
    ds: Dataset,
    hidden: int,
    seeds,
    init: str,
    *,
    relu_std: float,
    width: int,
    lr: float,
    epochs: int,
    record_epochs,
) -> dict:
    """The runs of one C (Section 5, Fig. 5), ``{"relu": run, (kind, choice): run}``:
    the ReLU network, the (C-1)-of-C ReLN under every init ([conv-init]) and the
    single-context ReLN under ``init``, one-way coupled."""
    C, seeds = ds.n_contexts, list(seeds)
    relu = relu_network((ds.X.shape[0], hidden, ds.Y.shape[0]), relu_std / hidden)
    progress.report(f"C = {C}: the ReLU network ({len(seeds)} seeds)")
    runs = {
        "relu": train(
            relu,
            ds.X,
            ds.Y,
            lr=lr,
            epochs=epochs,
            seeds=seeds,
            record_epochs=record_epochs,
            record=("outputs", "weights", "gates"),
        )
    }
    start_kw = _start_kw(ds, relu)
    for kind, inits in (("mixed", INITS), ("single", [init])):
        net0 = context_reln(ds, kind, coupling="one-way", width=width)
        for choice in inits:
            progress.report(f"C = {C}: the {kind} ReLN, {choice} initialisation")
            runs[kind, choice], _ = relns.start_and_train(
                net0,
                choice,
                seeds,
                ds.X,
                ds.Y,
                lr=lr,
                epochs=epochs,
                start_kw=start_kw,
                record_epochs=record_epochs,
                record=("outputs", "weights"),
            )
    return runs


def relu_census(run, ds: Dataset, threshold: float) -> dict:
    """:func:`census_over_training` of a ReLU run, with ``"final"`` weights and
    ``"final_gates"``."""
    W1s, W2s = run.records["weights"]
    out = census_over_training(run.records["gates"][0], W1s, W2s, ds, threshold)
    out["final"] = [np.array(W[:, -1]) for W in (W1s, W2s)]  # copies, not views
    out["final_gates"] = np.array(run.records["gates"][0][:, -1])
    return out


def pathway_svals(run, C: int) -> tuple:
    """``(name, sv, sv_common)``: seed 0's singular values over training of the
    pathway off in context 1 and of the common pathway."""
    maps = run.pathway_maps(0)
    off1 = [n for n in maps if n != "common" and "1" not in n[len("ctx") :]][0]
    return (
        off1,
        *(np.linalg.svd(maps[n], compute_uv=False) for n in (off1, "common")),
    )


def train_family(
    ds: Dataset,
    runs: dict,
    by_k,
    init: str,
    seeds,
    *,
    relu_std: float,
    width: int,
    lr: float,
    epochs: int,
    rule: str = "total",
    known: tuple | None = None,
) -> tuple[dict, dict, dict]:
    """The family of ReLNs of [rulebook-best] (at C = 3 also ``2+1-of-3``), each as
    wide as ``rule`` makes it (:func:`member_width`, Appendix F), trained from
    ``init``; members already in ``runs`` or ``known`` are reused.

    Defined for the page book/extra_contexts.md.

    Returns:
        ``({name: loss (seeds, T)}, {name: per-seed common + (C-1)-of-C weight
        share}, {name: units per pathway})``.
    """
    C, seeds = ds.n_contexts, list(seeds)
    relu = runs["relu"].net
    total = relu.layers[0].width
    sets = family_sets(C, by_k, [(2, 1)] if C == 3 else [])
    reuse = {(C - 1,): ("mixed", init), (1,): ("single", init)}
    losses, shares, widths = {}, {}, {}
    for name, ks in sets.items():
        w = widths[name] = member_width(ks, C, total, width, rule)
        if known and known[2].get(name) == w:
            losses[name], shares[name] = known[0][name], known[1][name]
            continue
        if ks in reuse and w == width:
            run = runs[reuse[ks]]
        else:
            progress.report(f"C = {C}: the ReLN {name}, {w} units per pathway")
            run, _ = relns.start_and_train(
                relns.k_of_c_reln(ds, ks, width=w),
                init,
                seeds,
                ds.X,
                ds.Y,
                lr=lr,
                epochs=epochs,
                start_kw=_start_kw(ds, relu),
                record_epochs=[epochs],
                record=("weights",),
            )
        losses[name] = run.loss
        W1f, W2f = (W[:, -1] for W in run.records["weights"])
        keep = [  # the pathways the paper's ReLN has: common and (C-1)-of-C
            n
            for n in run.net.pathway_names()
            if n == "common" or (n.startswith("ctx") and len(n) == 3 + C - 1)
        ]
        shares[name] = [
            class_share(run.net, W1f[s], W2f[s], keep) for s in range(len(seeds))
        ]
    return losses, shares, widths


def drop_records(runs: dict) -> None:
    """Free a C's recorded weights, gates and outputs once they have been read."""
    for run in runs.values():
        for name in ("weights", "gates", "outputs"):
            run.records.pop(name, None)


def same_start(runs: dict, init: str) -> list[str]:
    """The inits that start the (C-1)-of-C ReLN exactly as ``init`` does."""
    ref = runs["mixed", init].loss
    return [i for i in INITS if np.array_equal(runs["mixed", i].loss, ref)]


def paper_reln(C: int) -> str:
    """The ReLN whose loss Fig. 5 shows, as the authors ran it: 7 pathways at C = 3
    (``gdln3.py``), common + (C-1)-of-C at C = 4, 5 (``gdln4.py``, ``gdln5.py``)."""
    return "2+1-of-3" if C == 3 else f"{C - 1}-of-{C}"


class Trained(NamedTuple):
    """One C of the page's Fig. 5 section, trained and read (:func:`trained_and_read`);
    ``runs`` keep losses only."""

    runs: dict
    census: dict
    svals: tuple
    family: dict
    family_share: dict
    family_wide: dict
    modes: dict


def trained_and_read(
    ds: Dataset,
    hidden: int,
    seeds,
    init: str,
    *,
    census_threshold: float,
    record_epochs,
    relu_std: float,
    width: int,
    lr: float,
    epochs: int,
) -> Trained:
    """Train one C's networks and read what the page needs (:class:`Trained`), kept
    as a summary (:func:`helpers.core.store.derived`: a few MB, not hundreds).
    Defined for the page book/extra_contexts.md."""
    seeds = [int(s) for s in seeds]
    train_kw = dict(relu_std=relu_std, width=width, lr=lr, epochs=epochs)

    def make():
        runs = train_networks(
            ds, hidden, seeds, init, record_epochs=record_epochs, **train_kw
        )
        census = relu_census(runs["relu"], ds, census_threshold)
        svals = pathway_svals(runs["mixed", init], ds.n_contexts)
        by_k = np.median(census["by_k"][:, -1], axis=0)
        fam = train_family(ds, runs, by_k, init, seeds, **train_kw)
        wide = train_family(
            ds, runs, by_k, init, seeds, rule="per_pathway", known=fam, **train_kw
        )[0]
        modes = mode_strengths(runs, ds, init)
        drop_records(runs)
        return Trained(runs, census, svals, fam[0], fam[1], wide, modes)

    parts = (ds, int(hidden), seeds, init, float(census_threshold))
    parts += (np.asarray(record_epochs), sorted(train_kw.items()))
    what = f"extra_contexts: C = {ds.n_contexts}, trained and read"
    return store.derived(what, parts, make, "helpers.chapters.extra_contexts")
