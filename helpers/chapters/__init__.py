"""A package per chapter with code of its own, named as its page ``book/<name>.md``."""

import importlib


def __getattr__(name):
    """``h.chapters.depth`` loads on first use: a page reads another chapter's data."""
    try:
        return importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as err:
        msg = f"no chapter module {name!r} in helpers.chapters"
        raise AttributeError(msg) from err
