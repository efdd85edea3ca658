"""What only the chapter *Finding the gates* (``book/gate_finding.md``) needs.

Algorithm 1 itself (sampling the gates, k-means, the centroid GDLN, the elbow) is in
:mod:`helpers.core.algorithm1`, since the real-data chapter runs it too; it is
re-exported here so that the chapter reads ``ch.cluster_gates`` and so on.  How the
centroid GDLN starts ([conv-init]) is :func:`helpers.core.relns.start`, which
:func:`~helpers.core.algorithm1.elbow` calls with its ``init`` (``experiment =
"gate_finding"``: our transfer of the Section 4 values, the ``[authors_init.
gate_finding]`` table of ``paper.toml``).
"""

from __future__ import annotations

from ..core.algorithm1 import (  # re-exported: the chapter reads ch.cluster_gates
    SAMPLE_EVERY,
    Clustering,
    ElbowPoint,
    GateSamples,
    centroid_gdln,
    cluster_gates,
    elbow,
    elbow_k,
    gdln_error,
    pathway_widths,
    pattern_strings,
    sample_epochs,
    sample_gates,
    samples_from_run,
)

__all__ = [
    "SAMPLE_EVERY",
    "GateSamples",
    "Clustering",
    "ElbowPoint",
    "sample_epochs",
    "sample_gates",
    "samples_from_run",
    "cluster_gates",
    "pattern_strings",
    "pathway_widths",
    "centroid_gdln",
    "gdln_error",
    "elbow",
    "elbow_k",
]
