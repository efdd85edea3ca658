"""Why two implementations' ReLU seed spreads differ (page *Against the authors'
code*, section on the seed spreads): the scripts' stored runs on all their seeds, the
engine started from the very weights the scripts draw for those seeds, and the engine on
its own seeds, with a permutation test of the two spreads."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...book import crosscheck, kit, progress
from ...core.measures import bootstrap_interval
from .comparison import gap_matrix, pair_gaps, pair_spread, span
from .experiments import SpreadCheck, setup
from .run_for_run import train_from_script_draws

#: Random relabellings of the permutation test (fixed generator seed 0).
PERMUTATIONS = 2000
#: The number of runs per implementation the review of 2026-11-27 (Sections 3-5, item
#: c) measured the C = 4 spreads on; the page repeats its measurement on as many.
REVIEW_RUNS = 13


def permutation_p(A, B, n: int = PERMUTATIONS, seed: int = 0) -> tuple[float, float]:
    """How often two sets of curves relabelled at random differ in seed spread as much
    as ``A`` and ``B`` (``(seeds, epochs)``, at least 2 seeds each) do.

    Returns:
        ``(difference, p)``: the spread of ``B`` minus that of ``A`` and the fraction of
        ``n`` relabellings (keeping the two sizes) whose difference is at least as large
        in absolute value.
    """
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    if len(A) < 2 or len(B) < 2:
        raise ValueError("each set needs at least 2 curves")
    D = gap_matrix(np.vstack([A, B]))
    a, m = len(A), len(A) + len(B)
    obs = pair_spread(D, np.arange(a, m)) - pair_spread(D, np.arange(a))
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(int(n)):
        p = rng.permutation(m)
        d = pair_spread(D, p[a:]) - pair_spread(D, p[:a])
        hits += abs(d) >= abs(obs) - 1e-12
    return float(obs), hits / int(n)


@dataclass(frozen=True)
class ScriptSpread:
    """The ReLU seed spreads of one experiment on all the scripts' stored ``seeds``:
    of the scripts' runs (``theirs``), of the engine from the scripts' draws (``same``)
    and on its own seeds (``ours``), each with its 90 % bootstrap interval;
    ``same_gap``, the largest per-seed time gap of ``same`` to the scripts';
    :func:`permutation_p` of theirs against ours; ``first``: both spreads on the first
    :data:`REVIEW_RUNS` seeds."""

    seeds: list
    theirs: float
    theirs_interval: tuple
    same: float
    same_interval: tuple
    same_gap: float
    ours: float
    ours_interval: tuple
    ours_seeds: int
    difference: float
    p: float
    first: tuple


def script_spread(name: str, check: SpreadCheck, out=crosscheck.RUNS) -> ScriptSpread:
    """:class:`ScriptSpread` of experiment ``name``'s scripts' stored ReLU runs (in
    ``out``, default ``book/authors_runs``) against the engine's own runs ``check``."""
    runs = crosscheck.load(name, out)
    theirs = runs.curves["relu"]
    seeds = list(runs.meta["scripts"]["relu"].get("seeds", runs.seeds))
    progress.report(f"authors_code: {name}, the scripts' {len(seeds)} draws")
    same = train_from_script_draws(setup(name), seeds)
    D_t, D_s, D_o = gap_matrix(theirs), gap_matrix(same), gap_matrix(check.curves)
    t, s, o = ((pair_spread(D), bootstrap_interval(D)) for D in (D_t, D_s, D_o))
    first = tuple(
        pair_spread(D, np.arange(min(REVIEW_RUNS, len(D)))) for D in (D_t, D_o)
    )
    return ScriptSpread(
        seeds, *t, *s, float(np.max(pair_gaps(theirs, same))), *o, len(D_o),
        *permutation_p(theirs, check.curves), first,
    )  # fmt: skip


def script_spread_text(title: str, r: ScriptSpread) -> str:
    """The paragraph on where the two spreads part (:class:`ScriptSpread` ``r``)."""
    why = "within" if r.p >= 0.05 else "beyond"
    return kit.prose(
        "authors_code",
        "script_spread",
        title=title,
        r=r,
        n=len(r.seeds),
        runs=REVIEW_RUNS,
        ratio=r.first[1] / r.first[0],
        iv_t=span(r.theirs_interval),
        iv_s=span(r.same_interval),
        iv_o=span(r.ours_interval),
        times=r.ours / r.theirs,
        total=len(r.seeds) + r.ours_seeds,
        diff=abs(r.difference),
        pct=100 * r.p,
        perms=PERMUTATIONS,
        why=kit.prose("authors_code", f"spread_{why}_chance", runs=REVIEW_RUNS),
    )
