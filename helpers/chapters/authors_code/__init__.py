"""The page *Against the authors' code* (``book/authors_code.md``): the scripts'
stored curves against the engine's (:mod:`.experiments`, :mod:`.comparison`), run for
run from the scripts' own weights (:mod:`.run_for_run`), Fig. 4a's race against the
authors' ``race.py`` (:mod:`.race`), its records and tables (:mod:`.report`) and
figures (:mod:`.plots`)."""

from .experiments import (  # noqa: F401
    EXPERIMENTS,
    Run,
    SpreadCheck,
    check_parameters,
    run,
    setup,
    spread_check,
    stored,
)
from .plots import plot_losses, plot_race, plot_same_start  # noqa: F401
from .race import RaceCheck, race_check, race_text  # noqa: F401
from .report import Results, report, spread_text  # noqa: F401
from .run_for_run import (  # noqa: F401
    CONTROL_STEP,
    SAME_START_TOL,
    same_start,
    same_start_seeds,
    scripts_relu_init,
    steepest_drop,
)
from .spreads import ScriptSpread, script_spread, script_spread_text  # noqa: F401
