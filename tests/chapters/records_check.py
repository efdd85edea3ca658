"""The check every page's report test makes of the records it wrote: each registered
claim has its record, with the verdict the rulebook decides from the record's own
evidence, the claim's figure, and, for a claim of the paper, a variant of every choice
the claim lists."""

from helpers.book import rulebook
from helpers.core.measures import Evidence


def check_records(chapter: str, records: dict) -> dict:
    """Assert that ``records`` are the chapter's registered claims, each written as the
    rulebook decides it.

    Args:
        chapter: the chapter's name (its table in the rulebook's registry).
        records: the records the report wrote, ``{name: record}`` (the stored JSON or
            :attr:`helpers.book.records.Records.items`).

    Returns:
        The chapter's registered claims, ``{name: claim}``.
    """
    registered = rulebook.registry()[chapter]
    assert set(records) == set(registered)
    for name, r in records.items():
        claim = registered[name]
        decided = rulebook.decide(claim, Evidence.from_record(r)).verdict
        assert r["verdict"] == decided, name
        assert r.get("figure") == claim.get("figure"), name
        if claim["kind"] == "paper":
            assert set(claim["choices"]) <= set(r["variants"]), name
            assert isinstance(r["depends_on"], list), name
    return registered
