"""The depth task of Section 6 ([conv-depth]): a two-hidden-layer ReLU network and its
GDLN (defined for the page ``book/depth.md``).
"""

from . import census, compare, drops, gating, networks, plots, stored, tables  # noqa: F401
from .census import DepthRuns, simulate  # noqa: F401
from .networks import (  # noqa: F401
    Schedule,
    depth_gdln,
    depth_task,
    linear_losses,
    paper_profile_runs,
    relu_depth,
)
from .report import Params, Runs, report  # noqa: F401
