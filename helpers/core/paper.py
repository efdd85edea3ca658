"""The paper's networks and constants, stated once in ``paper.toml`` beside this module
(book page *Conventions*, [conv-constants]; paper Appendix H).

Every chapter's parameter cell takes its defaults from here, and the conventions page
renders :data:`TABLE` as its table of constants, so a value and where it comes from are
written in one place.  Each constant carries its source:

* ``"paper"``: stated in the paper's text (Appendix H or the section itself);
* ``"authors' code"``: a fact of the authors' public code that the paper does not state;
* ``"reconstruction"``: no source gives it; our choice, labelled wherever it is used.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

__all__ = [
    "Constant",
    "Section",
    "FOUNDATION",
    "XOR",
    "CONTEXTS",
    "EXTRA_CONTEXTS",
    "DEPTH",
    "GATE_FINDING",
    "SOURCES",
    "INITS",
    "TABLE",
]

SOURCES = ("paper", "authors' code", "reconstruction")
INITS = ("authors", "matched", "derived")


@dataclass(frozen=True)
class Constant:
    """One constant: its value, where it comes from, and a few words on why."""

    value: object
    source: str
    why: str = ""

    def __post_init__(self):
        if self.source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}, got {self.source!r}")


class Section:
    """The constants of one part of the paper: ``section.name`` is the plain value and
    ``section.constants[name]`` the :class:`Constant` with its source."""

    def __init__(self, title: str, **constants: Constant):
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "constants", MappingProxyType(dict(constants)))

    def __getattr__(self, name):
        try:
            return self.constants[name].value
        except KeyError:
            raise AttributeError(
                f"{self.title} has no constant {name!r}; "
                f"it has {sorted(self.constants)}"
            ) from None

    def __setattr__(self, name, value):
        raise AttributeError("the paper's constants are read-only")


_DATA = Path(__file__).with_name("paper.toml")


def _value(v, name):
    """A TOML value; the string ``"a / b"`` is the quotient, a list becomes a tuple."""
    if isinstance(v, list):
        return tuple(v)
    if isinstance(v, str) and "/" in v:
        a, b = (float(x) for x in v.split("/"))
        return a / b
    return v


def _load() -> dict[str, Section]:
    data = tomllib.loads(_DATA.read_text())
    out = {}
    for key, sec in data.items():
        title = sec.pop("title")
        out[key] = Section(
            title,
            **{
                n: Constant(_value(c["value"], n), c["source"], c["why"])
                for n, c in sec.items()
            },
        )
    return out


_SECTIONS = _load()
#: Appendix A.1, Fig. 7: the 4-16-7 linear network on the 4-item hierarchy.
FOUNDATION = _SECTIONS["foundation"]
#: Section 3: XoR with a margin, a 3-128-1 ReLU network.
XOR = _SECTIONS["xor"]
#: Section 4: the contextual task with C = 3 and blocks H, R, K.
CONTEXTS = _SECTIONS["contexts"]
#: Section 5: C = 3, 4, 5 contexts, every block the hierarchy.
EXTRA_CONTEXTS = _SECTIONS["extra_contexts"]
#: Section 6: the 11-420-420-60 ReLU network and its GDLN.
DEPTH = _SECTIONS["depth"]
#: Appendix B, Algorithm 1: finding the gates.
GATE_FINDING = _SECTIONS["gate_finding"]


def _table():
    rows = []
    for sec in _SECTIONS.values():
        for name, c in sec.constants.items():
            rows.append((sec.title, name, c.value, c.source, c.why))
    return tuple(rows)


#: ``(section, name, value, source, why)`` for every constant, in reading order.
TABLE = _table()
