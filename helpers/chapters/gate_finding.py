"""What only the chapter *Finding the gates* (``book/gate_finding.md``) needs.

Algorithm 1 itself (sampling the gates, k-means, the centroid GDLN, the elbow) is in
:mod:`helpers.core.algorithm1`, since the real-data chapter runs it too; it is
re-exported here so that the chapter reads ``ch.cluster_gates`` and so on.
"""
from __future__ import annotations

from ..core.algorithm1 import *  # noqa: F401,F403
from ..core.algorithm1 import __all__ as _algorithm1

__all__ = list(_algorithm1)
