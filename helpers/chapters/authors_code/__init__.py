"""The page *Against the authors' code* (``book/authors_code.md``): the scripts'
stored curves against the engine's (:mod:`.experiments`, :mod:`.comparison`), run for
run from the scripts' own weights (:mod:`.run_for_run`), Fig. 4a's race against the
authors' ``race.py`` (:mod:`.race`), its records and tables (:mod:`.report`) and
figures (:mod:`.plots`)."""

from .experiments import (
    EXPERIMENTS,
    Run,
    SpreadCheck,
    check_parameters,
    run,
    setup,
    spread_check,
    stored,
)
from .plots import plot_losses, plot_race, plot_same_start
from .race import RaceCheck, race_check, race_text
from .report import Results, report, spread_text
from .run_for_run import (
    CONTROL_STEP,
    SAME_START_TOL,
    same_start,
    same_start_seeds,
    scripts_relu_init,
    steepest_drop,
)
from .spreads import ScriptSpread, script_spread, script_spread_text

__all__ = ["EXPERIMENTS", "Run", "SpreadCheck", "check_parameters"]
__all__ += ["run", "setup", "spread_check", "stored", "plot_losses", "Results"]
__all__ += ["plot_same_start", "report", "spread_text", "SAME_START_TOL"]
__all__ += ["same_start", "same_start_seeds", "scripts_relu_init", "CONTROL_STEP"]
__all__ += ["steepest_drop", "plot_race", "RaceCheck", "race_check", "race_text"]
__all__ += ["ScriptSpread", "script_spread", "script_spread_text"]
