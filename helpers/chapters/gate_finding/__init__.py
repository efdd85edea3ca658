"""What only the chapter *Finding the gates* (``book/gate_finding.md``) needs;
Algorithm 1 itself is :mod:`helpers.core.algorithm1` (real-data runs it too)."""

from . import plots, tables  # noqa: F401
from .clusterings import (  # noqa: F401
    EXPECTED4,
    check_seeds,
    cluster_layers,
    clustering_sensitivity,
    context_level,
    context_strings,
    item_dependent,
    kmeans_optima,
    sampled_gates,
    unit_clusters,
)
from .gdlns import (  # noqa: F401
    CONSTRUCTIONS,
    build_constructions,
    check_construction,
    compare_starts,
    construction_points,
    elbow_restarts,
    elbow_ties,
    errors_by_seed,
    paper_gdln,
    paper_points,
    read_elbow,
    runner_up,
    xor_algorithm1,
)
from .report import Params, Runs, construction_words, report  # noqa: F401
