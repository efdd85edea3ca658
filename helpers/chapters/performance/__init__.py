"""The page ``book/performance.md``: the benchmark of the training engine
(:mod:`.benchmark`), the book's execution times (:mod:`.book_times`), the page's
tables, figures and records (:mod:`.report`); ``python -m
helpers.chapters.performance`` runs the full benchmark (:mod:`.__main__`)."""

from .benchmark import AGREEMENT_RTOL, load_benchmark, run_benchmark  # noqa: F401
from .book_times import book_chapter_seconds, chapter_times  # noqa: F401
from .report import (  # noqa: F401
    book_table,
    flops_table,
    glue_depth_paper,
    glue_live,
    glue_stored,
    kept_runs,
    kept_table,
    paper_table,
    plot_book,
    plot_rates,
    rate_table,
    ratio_table,
    report,
)
