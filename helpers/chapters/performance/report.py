"""The Performance page's tables, glue, figures and records, from what the page
measured and read. Defined for the page ``book/performance.md``."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown
from tabulate import tabulate

from ... import figures
from ...book.notebook import glue
from . import (
    AGREEMENT_RTOL,
    AUTHORS_HIDDEN_EVERY,
    METHOD_LABELS,
    METHODS,
    NETWORKS,
    TARGETS,
    depth_paper_training,
    flops_per_epoch,
    records,
)

__all__ = [
    "flops_table",
    "rate_table",
    "glue_live",
    "glue_stored",
    "ratio_table",
    "paper_table",
    "glue_depth_paper",
    "book_table",
    "plot_rates",
    "plot_book",
    "report",
]

#: The colour of each method in the rates figure.
METHOD_COLORS = {
    "engine": "reln",
    "engine_one_device": "mixed",
    "engine_vmap": "single",
    "authors_loop": "relu",
    "loop_async": "common",
}


def _md(rows, headers) -> Markdown:
    return Markdown(tabulate(rows, headers, tablefmt="github", disable_numparse=True))


def flops_table() -> tuple[dict, Markdown]:
    """Operations per seed-epoch of each benchmark network (glued for the prose)."""
    flops = {}
    for name, bn in NETWORKS.items():
        _, X, _ = bn.build()
        flops[name] = flops_per_epoch(bn.sizes, X.shape[1])
    glue("perf_flops_s4", flops["section4"]["total"] / 1e6)
    glue("perf_flops_depth", flops["depth"]["total"] / 1e6)
    glue("perf_hidden_every", AUTHORS_HIDDEN_EVERY)
    rows = [
        [NETWORKS[n].label]
        + [f"{f[k] / 1e6:.2f} M" for k in ("forward", "backward", "total")]
        for n, f in flops.items()
    ]
    return flops, _md(rows, ["network", "forward", "backward", "total per seed-epoch"])


def rate_table(bench: dict) -> Markdown:
    """Every configuration of a benchmark: rate, compile time, fraction of the floor."""
    rows = [
        [
            NETWORKS[r["network"]].label,
            r["seeds"],
            METHOD_LABELS[r["method"]],
            r["epochs_measured"],
            f"{r['seed_epochs_per_s']:,.0f}",
            f"{r['compile_seconds']:.2f}",
            f"{r['fraction_of_floor']:.2f}",
        ]
        for r in bench["rows"]
    ]
    headers = ["network", "seeds", "method", "epochs per seed", "seed-epochs / s"]
    return _md(rows, headers + ["compile (s)", "fraction of the floor"])


def glue_live(live: dict) -> float:
    """The live run's numbers for the prose; returns the largest loss difference of
    any method from the engine."""
    diff = max(r["max_rel_loss_diff_vs_engine"] for r in live["rows"])
    glue("perf_live_diff", diff)
    glue("perf_agree_tol", AGREEMENT_RTOL)
    glue("perf_live_matmul", live["matmul"]["flops_per_s"] / 1e9)
    glue("perf_live_load", live["machine"]["load_average_before"][0])
    glue("perf_live_when", live["started_utc"])
    glue("perf_live_devices", live["machine"]["devices"])
    return diff


def glue_stored(bench: dict, source: str) -> None:
    """The stored (or live) benchmark's provenance and machine, for the prose."""
    m = bench["machine"]
    glue("perf_source", source)
    glue("perf_when", bench["started_utc"])
    glue("perf_cmd", bench.get("command", "python -m helpers.chapters.performance"))
    glue("perf_load_before", m["load_average_before"][0])
    glue("perf_load_after", m["load_average_after"][0])
    glue("perf_cpus", m["cpus"])
    glue("perf_devices", m.get("devices", 1))
    glue("perf_platform", f"{m['platform']}, JAX {m['jax']} on {m['backend']}")
    glue("perf_matmul", bench["matmul"]["flops_per_s"] / 1e9)
    glue("perf_wall", bench["wall_seconds"] / 60)
    d = bench["derived"]
    for key, short in [
        ("fraction_of_floor", "floor"),
        ("batching_efficiency", "eff"),
        ("speedup_vs_authors_loop", "auth"),
        ("speedup_vs_one_device", "dev"),
        ("speedup_vs_vmap", "vmap"),
    ]:
        for n, tag in [("section4", "s4"), ("depth", "depth")]:
            glue(f"perf_{short}_{tag}_8", d[key].get(n, {}).get("8", float("nan")))


RATIOS = [
    ("fraction of the floor", "fraction_of_floor"),
    ("batching efficiency (time per seed vs 1 seed)", "batching_efficiency"),
    ("speed-up over loop (a), the authors' way", "speedup_vs_authors_loop"),
    ("speed-up over loop (b)", "speedup_vs_loop_async"),
    ("speed-up over one device", "speedup_vs_one_device"),
    ("speed-up over vmap on one device", "speedup_vs_vmap"),
]


def ratio_table(bench: dict) -> Markdown:
    """The derived ratios of a benchmark at 1, 8 and 64 seeds, per network."""
    d = bench["derived"]
    rows = []
    for n in (n for n in NETWORKS if n in bench["flops_per_epoch"]):
        for label, key in RATIOS:
            by = d[key].get(n, {})
            cells = [f"{by[s]:.2f}" if s in by else "—" for s in ("1", "8", "64")]
            rows.append([NETWORKS[n].label, label, *cells])
    return _md(rows, ["network", "measure", "1 seed", "8 seeds", "64 seeds"])


def paper_table(paper: dict | None) -> tuple[dict | None, Markdown]:
    """The paper profile's time per chapter (as stored), with the total."""
    glue("perf_paper_cpus", (paper or {}).get("machine", {}).get("cpus", "?"))
    if paper is None:
        return None, Markdown(
            "The paper profile's times have not been stored: run "
            "`python -m helpers.book execute --profile paper --record-times`."
        )
    secs = paper["seconds"]
    rows = [[c, f"{v:.0f}", f"{v / 60:.1f}"] for c, v in secs.items()]
    tot = sum(secs.values())
    rows.append(["**total**", f"**{tot:.0f}**", f"**{tot / 60:.1f}**"])
    return secs, _md(rows, ["chapter", "seconds", "minutes"])


def glue_depth_paper(bench, runs, paper_secs) -> None:
    """How the depth chapter's paper-profile time splits (the paper's runs, the
    book's own, the rest), for the prose; nan where nothing is stored."""
    split = depth_paper_training(bench, runs) if bench else None
    total = (paper_secs or {}).get("depth")
    keys = ("total", "total_min", "runs_paper", "runs_ours", "updates", "us")
    keys += ("paper", "ours", "rest", "without", "runs_all", "floor")
    if split is None or total is None:
        for key in keys:
            glue(f"perf_dp_{key}", float("nan"))
        return
    n_all = sum(split["runs"].values())
    floor_rate = bench["floor_seed_epochs_per_s"]["depth"]
    values = (
        total,
        total / 60,
        split["runs"]["paper"],
        split["runs"]["ours"],
        split["updates"],
        1e6 / split["seed_epochs_per_s"],
        split["seconds"]["paper"],
        split["seconds"]["ours"],
        total - sum(split["seconds"].values()),
        (total - split["seconds"]["ours"]) / 60,
        n_all,
        n_all * split["updates"] / floor_rate,
    )
    for key, value in zip(keys, values):
        glue(f"perf_dp_{key}", value)


def book_table(secs, present, own_seconds, times_file, after) -> Markdown:
    """The default book's time per chapter, its total against the target, glued."""
    total = None if secs is None or times_file is None else sum(secs.values())
    glue("perf_own", own_seconds)
    glue("perf_after", ", ".join(after) if after else "none")
    glue("perf_total_min", float("nan") if total is None else total / 60)
    glue("perf_book_target_min", f"{TARGETS['book_total_seconds'][1] / 60:g}")
    glue("perf_total_s", float("nan") if total is None else total)
    glue("perf_exec_cpus", (times_file or {}).get("machine", {}).get("cpus", "?"))
    if total is None:
        return Markdown(
            "`book/stats/execution.json` does not exist: no chapter has been executed "
            f"yet. This page alone took {own_seconds:.1f} s."
        )
    rows = [[c, f"{v:.1f}"] for c, v in secs.items()]
    rows.append(["**total**", f"**{total:.1f}**"])
    text = tabulate(rows, ["chapter", "seconds"], tablefmt="github")
    missing = [c for c in present if c not in secs]
    if missing:
        text += f"\n\nNo time recorded for: {', '.join(missing)} (not in the total)."
    return Markdown(text)


def plot_rates(bench: dict):
    """Training rate of each method against the number of seeds, per network, with
    the floor (page figure ``fig-performance-rates``)."""
    nets = [n for n in NETWORKS if n in bench["flops_per_epoch"]]
    fig, axes = plt.subplots(
        1, len(nets), figsize=(5.6 * len(nets), 3.8), squeeze=False
    )
    for ax, n in zip(axes[0], nets):
        for meth in METHODS:
            pts = sorted(
                (r["seeds"], r["seed_epochs_per_s"])
                for r in bench["rows"]
                if r["network"] == n and r["method"] == meth
            )
            if pts:
                color = figures.PALETTE[METHOD_COLORS[meth]]
                ax.plot(*zip(*pts), "o-", color=color, label=METHOD_LABELS[meth])
        floor = bench["floor_seed_epochs_per_s"][n]
        ax.axhline(floor, color="k", ls="--", lw=1, label="floor")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("seeds")
        ax.set_ylabel("seed-epochs per second")
        ax.set_title(NETWORKS[n].label, fontsize=10)
    axes[0][0].legend(fontsize=7)
    plt.tight_layout()
    return fig


def plot_book(secs):
    """Each chapter's execution time and the running total against the book's target
    (page figure ``fig-performance-book``)."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    if secs:
        names = list(secs)
        vals = np.array([secs[c] for c in names])
        ax.barh(names, vals, color=figures.PALETTE["reln"], label="chapter")
        ax.barh(
            names,
            np.cumsum(vals),
            color=figures.PALETTE["common"],
            alpha=0.25,
            label="cumulative",
        )
        target = TARGETS["book_total_seconds"][1]
        ax.axvline(target, color="k", ls="--", lw=1, label=f"target: {target} s")
        ax.invert_yaxis()
        ax.set_xlabel("seconds")
        ax.legend(fontsize=8, loc="lower right")
    else:
        ax.text(
            0.5,
            0.5,
            "no execution statistics",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
    ax.grid(axis="y", visible=False)
    plt.tight_layout()
    return fig


SUMMARY = [
    (
        "floor_target",
        "Engine's fraction of the floor, worst of 8 and 64 seeds, both networks",
        "fraction_of_floor",
    ),
    (
        "batching_target",
        "Time per seed at 8 seeds over 1 seed, worst network",
        "batching_efficiency",
    ),
    (
        "paper_depth_seconds",
        "Depth chapter under the paper profile (seconds)",
        "paper_depth_seconds",
    ),
    (
        "book_total_seconds",
        "Whole book, default parameters (seconds)",
        "book_total_seconds",
    ),
]


def report(bench, secs, present, paper_secs, source) -> tuple:
    """The page's records (:func:`records`), saved, and its summary table.

    Returns:
        ``(records, summary)``: the :class:`helpers.book.records.Records` and the
        closing table as Markdown.
    """
    from ...book.records import claims_table

    rec = records(bench, secs, present, paper_secs, source)
    rec.save()
    rows = [
        (what, "target: {} {:g}".format(*TARGETS[target]), rec.items[key])
        for key, what, target in SUMMARY
        if key in rec.items
    ]
    return rec, Markdown(claims_table(rows))
