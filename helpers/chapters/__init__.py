"""One module per chapter, named exactly as the chapter's file ``book/<name>.md``; each
holds what only that chapter needs (the core is in :mod:`helpers.core`)."""
