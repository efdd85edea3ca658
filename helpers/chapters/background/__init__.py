"""The Background chapter (``book/background.md``; paper Section 2 and Appendix A):
its science (:mod:`.linear`), records and glue (:mod:`.report`), figures
(:mod:`.plots`)."""

from . import plots
from .linear import effective_a0, effective_spectra, init_sweep
from .report import Results, report, spectra_table, sweep_table

__all__ = ["plots", "effective_a0", "effective_spectra", "init_sweep", "Results"]
__all__ += ["report", "spectra_table", "sweep_table"]
