"""Everything the pipeline knows about a chapter, from ``chapters/<chapter>.toml``
beside this module (sections in ``chapters/README.md``; every table not in
:data:`SECTIONS` is a claim, keyed by its record's name); the chapters are those of
``_toc.yml``.  It imports nothing from the rest of the pipeline.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

from ..core import paper

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
DATA = Path(__file__).with_name("chapters")
#: The sections of a data file that are not claims.
SECTIONS = ("parameters", "profiles", "execution", "figures", "in_short", "prose")


@lru_cache(maxsize=None)
def data(chapter: str) -> dict:
    """The chapter's data file, as read (``{}`` where the chapter has none)."""
    path = DATA / f"{chapter}.toml"
    return tomllib.loads(path.read_text()) if path.exists() else {}


@lru_cache(maxsize=1)
def chapters() -> tuple[str, ...]:
    """The chapters in execution order (``_toc.yml``'s, and ``[execution] after``)."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [Path(c["file"]) for p in toc["parts"] for c in p.get("chapters", [])]
    order = [f.stem for f in files if f.parent == Path("book") and f.suffix == ".ipynb"]
    for name in list(order):
        after = data(name).get("execution", {}).get("after", [])
        unknown = sorted(set(after) - set(order))
        if unknown:
            raise ValueError(f"{name}: [execution] after names no chapter: {unknown}")
        if after:
            order.remove(name)
            order.insert(max(order.index(c) for c in after) + 1, name)
    return tuple(order)


def chapters_present() -> list[str]:
    """:func:`chapters` whose page ``book/<name>.md`` exists."""
    return [c for c in chapters() if (BOOK / f"{c}.md").exists()]


def _resolve(rule: dict) -> dict:
    choices = rule.get("choices")
    if isinstance(choices, str):  # the name of a tuple of helpers.core.paper
        choices = getattr(paper, choices)
    return {**rule, "choices": tuple(choices)} if choices is not None else dict(rule)


def rules(chapter: str) -> dict[str, dict]:
    """``{parameter: {"min": m} or {"choices": (...)}}``: the chapter's rules."""
    return {k: _resolve(r) for k, r in data(chapter).get("parameters", {}).items()}


def profiles() -> dict[str, dict[str, dict]]:
    """``{profile: {chapter: values}}``; ``default`` sets nothing."""
    out: dict[str, dict[str, dict]] = {"default": {}}
    for name in chapters():
        for prof, values in data(name).get("profiles", {}).items():
            out.setdefault(prof, {})[name] = dict(values)
    return out


def profile(name: str, chapter: str) -> dict:
    """The values profile ``name`` sets for ``chapter`` (``{}``: none)."""
    return dict(data(chapter).get("profiles", {}).get(name, {}))


def claims(chapter: str) -> dict[str, dict]:
    """``{record: entry}``: the chapter's registered claims."""
    return {k: v for k, v in data(chapter).items() if k not in SECTIONS}
