"""The depth task of Section 6 ([conv-depth]): a two-hidden-layer ReLU network and its
GDLN (defined for the page ``book/depth.md``).

:mod:`.networks` the task and the two networks; :mod:`.census` the runs and their
gating census; :mod:`.drops` plateaus, drops and their scatter; :mod:`.compare` the
ReLU network against its GDLN; :mod:`.gating` where the gating claims are read and the
derived schedule; :mod:`.report` the records, glue and closing tables; :mod:`.tables`,
:mod:`.plots` the page's other tables and its figures; :mod:`.stored` the stored runs.
"""

# the face: the modules and what the page calls most
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
