"""The page ``book/performance.md``: the benchmark of the training engine
(:mod:`.benchmark`), the book's execution times (:mod:`.book_times`), the page's
tables, figures and records (:mod:`.report`); ``python -m
helpers.chapters.performance`` runs the full benchmark (:mod:`.__main__`)."""

from .benchmark import AGREEMENT_RTOL, load_benchmark, run_benchmark
from .book_times import book_chapter_seconds, chapter_times
from .report import (
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

__all__ = ["AGREEMENT_RTOL", "load_benchmark", "run_benchmark", "chapter_times"]
__all__ += ["book_chapter_seconds", "book_table", "flops_table", "glue_depth_paper"]
__all__ += ["glue_live", "glue_stored", "paper_table", "plot_book", "plot_rates"]
__all__ += ["rate_table", "ratio_table", "report", "kept_runs", "kept_table"]
