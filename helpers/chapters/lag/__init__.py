"""Where the ReLN's lag behind the ReLU network comes from (``book/lag.md``)."""

from . import plots
from .measures import Runs, compare, gate_movement
from .networks import LADDER, check_parameters, random_gates, train_frozen, train_ladder
from .report import lag_table, report

__all__ = ["plots", "Runs", "compare", "gate_movement", "LADDER", "check_parameters"]
__all__ += ["random_gates", "train_frozen", "train_ladder", "lag_table", "report"]
