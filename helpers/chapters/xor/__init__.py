"""What only the XoR chapter needs (``book/xor.md``; paper Section 3, Fig. 2d-e): its
runs (:mod:`.runs`), the measurements of the ReLU networks (:mod:`.measures`), its
records and glue (:mod:`.report`) and its figures (:mod:`.plots`).  The ReLNs and their
closed forms are in :mod:`helpers.core.xor_reln`."""

from . import plots
from .measures import (
    can_decide,
    follow_faster,
    inv_log,
    learning_times,
    mode_check,
    reln_separation,
    switch_crossings,
    switch_fit,
    switch_stats,
)
from .report import report
from .runs import sensitivity_sweep, train_margins

__all__ = ["plots", "can_decide", "follow_faster", "inv_log", "learning_times"]
__all__ += ["mode_check", "reln_separation", "switch_crossings", "switch_fit"]
__all__ += ["switch_stats", "report", "sensitivity_sweep", "train_margins"]
