"""Records of a chapter's headline numbers, written to ``book/results/<chapter>.json``.

Each record maps a name to its value, the value it is compared with (``"paper"``,
whatever its provenance), the seed spread and the alternative where there are some, the
claim's registry fields, the verdict and its reason, and a note (``"timing": true``
marks a measured time, which re-execution need not reproduce); the scorecard page is
built from these files, never typed by hand.

Where the records go: ``book/results`` by default; the environment variable
``HASTE_RESULTS_DIR`` names another folder (``python -m helpers.book`` sets it for runs
with other parameters, and the test command for its re-execution), so that only a
successful default build changes the committed records.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np

__all__ = [
    "RESULTS_DIR",
    "RESULTS_VARIABLE",
    "results_dir",
    "Records",
    "load_all",
    "claims_table",
]

RESULTS_DIR = Path(__file__).resolve().parents[2] / "book" / "results"
RESULTS_VARIABLE = "HASTE_RESULTS_DIR"


def results_dir() -> Path:
    """The folder records are written to and read from now (see the module
    docstring)."""
    chosen = os.environ.get(RESULTS_VARIABLE)
    return Path(chosen) if chosen else RESULTS_DIR


def _plain(v):
    """JSON-ready copy of numbers, arrays and nested containers (floats to 6 significant
    digits)."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return _plain(v.tolist())
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if not math.isfinite(v):
            return str(v)
        return float(f"{v:.6g}")
    return v


class Records:
    """Collects one chapter's records; :meth:`save` writes them (sorted, stable)."""

    def __init__(self, chapter: str, directory: Path | str | None = None):
        self.chapter = chapter
        self.directory = Path(directory) if directory is not None else results_dir()
        self.items: dict[str, dict] = {}

    def add(
        self,
        name,
        value,
        paper=None,
        note="",
        figure=None,
        timing=False,
        criterion=None,
        spread=None,
        alternative=None,
        target=None,
        censored=False,
        spread_interval=None,
        epochs=None,
        phase=None,
    ):
        """Add a record.

        ``value`` is a number (or a table of numbers), or a
        :class:`helpers.core.measures.Match`: then the record's value is the match's,
        and its criterion (``seed_noise``), spread, alternative and censoring are the
        match's unless given here.

        A record is registered in the claims registry (:mod:`helpers.book.rulebook`): it
        gets its claim in words, provenance and kind from there, and its verdict and
        reason from :func:`helpers.book.rulebook.decide` by ``criterion`` (default:
        ``exact`` when a compared value ``paper`` is given).  ``spread`` is the same
        measure between seeds of the reference network (or the value's own seed
        spread), ``alternative`` the measure for the paper's alternative; ``censored``
        marks a time gap that is only a lower bound
        (:class:`helpers.core.measures.Match`); ``spread_interval`` is the spread's
        90 % bootstrap interval over seeds (a Match carries its own), which can make a
        verdict ``undecided`` ([rulebook-noise]).

        A claim about a network's gating (``gating = true`` in its registry entry)
        gives ``epochs``, ``{epoch: value}`` over training, and ``phase``, the epochs
        ``[first, last]`` over which the paper's description applies
        ([rulebook-phase]).

        Only a measured time (``timing=True``: seconds or ratios of seconds, which a
        re-execution need not reproduce) may go unregistered; the performance page's
        targets are such records, ``target=("<=", 600)`` giving ``target met`` or
        ``target missed``.
        """
        from . import rulebook

        family = {}
        if hasattr(value, "record") and hasattr(value, "per_seed"):
            # a Match (helpers.core.measures): its value and the rulebook's fields,
            # each of which the call may override
            fields = value.record()
            criterion = fields["criterion"] if criterion is None else criterion
            spread = fields["spread"] if spread is None else spread
            alternative = fields["alternative"] if alternative is None else alternative
            censored = censored or fields["censored"]
            if spread_interval is None:
                spread_interval = fields.get("spread_interval")
            family = {
                k: getattr(value, k)
                for k in ("spread_candidate", "candidates", "best")
                if getattr(value, k, None) is not None
            }
            value = value.value
        entry = rulebook.claim(self.chapter, name)
        item = {"value": _plain(value), "paper": _plain(paper)}
        if entry is not None:
            if target is not None:
                raise ValueError(
                    f"{self.chapter}.{name}: a registered claim has no target"
                )
            if criterion is None and paper is not None:
                criterion = "exact"
            v, reason = rulebook.decide(
                entry["kind"],
                entry["provenance"],
                criterion,
                item["value"],
                item["paper"],
                _plain(spread),
                _plain(alternative),
                bool(censored),
                _plain(spread_interval),
                entry.get("decided_by"),
            )
            item.update(
                {
                    k: entry.get(k, "")
                    for k in (
                        "claim",
                        "where",
                        "group",
                        "quote",
                        "measure",
                        "kind",
                        "provenance",
                    )
                }
            )
            for k in ("setup", "decided_by", "follows"):
                if entry.get(k):
                    item[k] = entry[k]
            if spread_interval is not None:
                item["spread_interval"] = _plain(spread_interval)
            item.update({k: _plain(v) for k, v in family.items()})
            if epochs is not None:
                item["epochs"] = _plain(epochs)
            if phase is not None:
                item["phase"] = _plain(phase)
            item.update(
                {
                    "criterion": criterion,
                    "spread": _plain(spread),
                    "alternative": _plain(alternative),
                    "reason": reason,
                }
            )
            if censored:
                item["censored"] = True
        else:
            if not timing:
                raise ValueError(
                    f"{self.chapter}.{name} is not registered: add it to "
                    f"helpers/book/chapters/{self.chapter}.toml"
                )
            v = "measured"
            if target is not None:
                op, bound = target
                if op not in ("<=", ">="):
                    raise ValueError(
                        f"target must be ('<=' or '>=', bound), got {target!r}"
                    )
                met = value <= bound if op == "<=" else value >= bound
                v = "target met" if met else "target missed"
                item["paper"] = _plain(bound)
                item["target"] = op
        item.update({"verdict": v, "note": note})
        self.items[name] = item
        if figure:
            self.items[name]["figure"] = figure
        if timing:
            self.items[name]["timing"] = True
        return self.items[name]

    def save(self) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{self.chapter}.json"
        path.write_text(json.dumps(self.items, indent=2, sort_keys=True) + "\n")
        return path

    def table(self):
        """The records as rows (name, value, compared value, verdict) for display."""
        return [
            (k, r["value"], r["paper"], r["verdict"]) for k, r in self.items.items()
        ]


def load_all(directory: Path | str | None = None) -> dict[str, dict]:
    """Every chapter's records, keyed by chapter name."""
    d = Path(directory) if directory is not None else results_dir()
    return {p.stem: json.loads(p.read_text()) for p in sorted(d.glob("*.json"))}


def _fmt(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_fmt(x)}" for k, x in v.items())
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


def claims_table(rows) -> str:
    """A closing table as Markdown: rows of ``(claim, paper's statement, record)``.

    ``record`` is an entry returned by :meth:`Records.add`; the table shows its value,
    spread, what it is compared with and where that comes from, and the verdict with its
    reason, so the table can only say what the code measured and the rulebook decided.
    """
    lines = [
        "| claim | paper | this book | compared with | verdict |",
        "|---|---|---|---|---|",
    ]
    for claim, paper, rec in rows:
        this = _fmt(rec["value"])
        if rec.get("spread") is not None:
            this += f" (seed spread {_fmt(rec['spread'])})"
        compared = "—"
        if rec.get("paper") is not None:
            compared = _fmt(rec["paper"])
        if rec.get("alternative") is not None:
            compared += f"; alternative {_fmt(rec['alternative'])}"
        if rec.get("provenance") and rec["provenance"] != "none":
            compared += f" ({rec['provenance']})"
        verdict_ = rec["verdict"]
        if rec.get("reason"):
            verdict_ += f": {rec['reason']}"
        cells = (claim, paper, this, compared, verdict_)
        lines.append(
            "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"
        )
    lines.append("")
    lines.append("Verdicts follow the book's {ref}`rulebook <rulebook>`.")
    return "\n".join(lines)
