"""The book's pipeline: execute the chapters (:mod:`.build`, ``python -m
helpers.book``), check their parameters (:mod:`.parameters`) and records
(:mod:`.records`, :mod:`.drift`, :mod:`.rounding`), decide the verdicts
(:mod:`.rulebook`, :mod:`.scorecard`, :mod:`.glance`) and build the site
(:mod:`.sphinx_ext`, :mod:`.pdf`).  Importing it is cheap: papermill and Jupyter Book
load only when needed.
"""

from . import (  # noqa: F401
    chapter_data,
    glance,
    parameters,
    researchers,
    rounding,
    rulebook,
    scorecard,
)
from .chapter_data import chapters_present  # noqa: F401


def __getattr__(name):
    """``CHAPTERS``: the chapters in the order they execute (read on first use)."""
    if name == "CHAPTERS":
        return list(chapter_data.chapters())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
