"""The paper's networks and constants, stated once in ``paper.toml`` (page
*Conventions*, [conv-constants]; Appendix H); chapters' defaults come from here.
Each constant's source: ``"paper"`` (its text), ``"authors' code"`` (with its
``script`` lines) or ``"reconstruction"`` (our choice, labelled where used).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

SOURCES = ("paper", "authors' code", "reconstruction")

#: How a ReLN or GDLN starts ([conv-init]; :func:`helpers.core.relns.start`).
INITS = ("authors", "matched", "derived")

#: Family members' widths ([rulebook-best]): ``"total"``, the ReLU network's units
#: shared over the pathways (Appendix F, the authors' scripts), or 100 ``per_pathway``.
WIDTH_RULES = ("total", "per_pathway")

#: A member's common width under ``"total"`` ([rulebook-best]): ``"equal"`` share
#: (Appendix F literally) or ``"fixed"`` at 100 units, the rest shared.
COMMON_WIDTHS = ("equal", "fixed")


@dataclass(frozen=True)
class Constant:
    """One constant: its value, where it comes from, and a few words on why."""

    value: object
    source: str
    why: str = ""
    #: ``"path:lines"`` (``"a:1; b:2"``) in the authors' repository, or empty.
    script: str = ""

    def __post_init__(self):
        if self.source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}, got {self.source!r}")


class Section:
    """``section.name``: a value; ``section.constants[name]``: its :class:`Constant`."""

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


_AUTHORS_INIT = "authors_init"  # the block of tables that is not a section


def _load() -> dict[str, Section]:
    data = tomllib.loads(_DATA.read_text())
    out = {}
    for key, sec in data.items():
        if key == _AUTHORS_INIT:
            continue
        title = sec.pop("title")
        out[key] = Section(
            title,
            **{
                n: Constant(
                    _value(c["value"], n), c["source"], c["why"], c.get("script", "")
                )
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


# The authors' initialisation per experiment ([conv-init]): [authors_init.*] tables
_RAW_INITS = MappingProxyType(tomllib.loads(_DATA.read_text()).get(_AUTHORS_INIT, {}))
#: The experiments that have an ``"authors"`` initialisation (:func:`authors_init`).
INIT_EXPERIMENTS = tuple(_RAW_INITS)
_PATHWAY_CLASSES = ("common", "context", "all")
_RULE_KEYS = {"layer", "pathways", "factor", "std", "readout", "readout_factor"}


def _std(v, where):
    """A std of the table: a number, ``"a / b"`` or ``"section.name"`` of a constant."""
    if isinstance(v, str) and "/" not in v:
        sec, _, name = v.partition(".")
        if sec not in _SECTIONS or name not in _SECTIONS[sec].constants:
            raise ValueError(f"{where}: {v!r} names no constant of paper.toml")
        v = _SECTIONS[sec].constants[name].value
    v = _value(v, where)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
        raise ValueError(f"{where}: a std must be a positive number, got {v!r}")
    return float(v)


def _rule(r: dict, where: str) -> dict:
    unknown = set(r) - _RULE_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
    if r.get("pathways") not in _PATHWAY_CLASSES:
        raise ValueError(
            f"{where}: pathways must be one of {_PATHWAY_CLASSES}, "
            f"got {r.get('pathways')!r}"
        )
    layer = r.get("layer")
    if layer is not None and (
        isinstance(layer, bool) or not isinstance(layer, int) or layer < 1
    ):
        raise ValueError(f"{where}: layer counts hidden layers from 1, got {layer!r}")
    out = {"layer": layer, "pathways": r["pathways"]}
    for std, factor in (("std", "factor"), ("readout", "readout_factor")):
        if std in r and factor in r:
            raise ValueError(f"{where}: give {std} or {factor}, not both")
        out[std] = _std(r[std], f"{where}, {std}") if std in r else None
        out[factor] = _std(r[factor], f"{where}, {factor}") if factor in r else None
    if out["std"] is None and out["factor"] is None:
        raise ValueError(f"{where}: give std or factor")
    return MappingProxyType(out)


def authors_init(experiment: str):
    """``experiment``'s ``[authors_init.*]`` table ([conv-init]), read-only:
    ``source``, ``script``, ``why``, ``rules`` (``layer`` from 1, None: last;
    ``pathways``; ``std`` or ``factor`` x ReLU std; ``readout`` or
    ``readout_factor``, both None: as incoming)."""
    if experiment not in _RAW_INITS:
        raise ValueError(
            f"experiment must be one of {INIT_EXPERIMENTS} (the [authors_init.*] "
            f"tables of paper.toml), got {experiment!r}"
        )
    t = _RAW_INITS[experiment]
    where = f"[authors_init.{experiment}]"
    missing = {"source", "script", "why", "rules"} - set(t)
    if missing:
        raise ValueError(f"{where} lacks {sorted(missing)}")
    Constant(None, t["source"])  # a known source
    if not t["rules"]:
        raise ValueError(f"{where}: no rules")
    return MappingProxyType(
        {
            "experiment": experiment,
            "source": t["source"],
            "script": t["script"],
            "why": t["why"],
            "rules": tuple(
                _rule(r, f"{where} rule {i + 1}") for i, r in enumerate(t["rules"])
            ),
        }
    )
