"""``python -m helpers.book``: see :mod:`helpers.book.build`."""

from .build import main

main()
