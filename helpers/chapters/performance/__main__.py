"""``python -m helpers.chapters.performance``: the benchmark (see the package)."""

from . import main

main()
