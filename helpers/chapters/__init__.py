"""One module per chapter, named exactly as the chapter's file ``book/<name>.md``; each
holds what only that chapter needs (the core is in :mod:`helpers.core`)."""

import importlib


def __getattr__(name):
    """``h.chapters.depth`` (any chapter's module) loads on first use, so that a page
    can read another chapter's data through the book's one import idiom."""
    try:
        return importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as err:
        msg = f"no chapter module {name!r} in helpers.chapters"
        raise AttributeError(msg) from err
