"""The page *For researchers* (``book/researchers.md``): the paper's figures with the
book's counterparts and the claims read off each (``paper_figures.toml`` beside this
module), the downloads and the citation.  A claim belongs to a paper figure when its
book figure is one of that figure's counterparts, or its ``where`` names the figure
with its panel (``Fig. 4a``; ``Figs. 4b, 5``; ``Fig. 2d-e``).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from . import rulebook, scorecard
from .chapter_data import ROOT
from .pdf import release

#: ``{paper figure: {"what", "counterparts"}}`` in the paper's order.
FIGURES = tomllib.loads((Path(__file__).parent / "paper_figures.toml").read_text())

_FIG = re.compile(r"Figs?\.\s*((?:\d+[a-e]?(?:-[a-e])?(?:,\s*)?)+)")


def figures_named(where: str) -> set[str]:
    """The paper figures a ``where`` names with their panel (``"Fig. 2d-e"``: 2d, 2e);
    a bare number only where the figure has no panels (``Fig. 5``, not ``Fig. 4``)."""
    out = set()
    for group in _FIG.findall(where or ""):
        for item in re.split(r",\s*", group.strip(", ")):
            m = re.fullmatch(r"(\d+)([a-e]?)(?:-([a-e]))?", item)
            if m:
                num, a, b = m.groups()
                letters = map(chr, range(ord(a), ord(b or a) + 1)) if a else [""]
                out.update(num + x for x in letters)
    return out & set(FIGURES)


def figure_claims(records: dict) -> dict[str, list[tuple[str, str, dict]]]:
    """``{paper figure: [(chapter, record name, record), ...]}``: the claims (as the
    scorecard counts them) read off each figure."""
    out = {f: [] for f in FIGURES}
    for ch, name, r, _ in scorecard.claims(records):
        entry = rulebook.claim(ch, name) or {}
        figs = figures_named(entry.get("where", ""))
        figs |= {
            f for f, e in FIGURES.items() if entry.get("figure") in e["counterparts"]
        }
        for f in sorted(figs, key=list(FIGURES).index):
            out[f].append((ch, name, r))
    return out


def figure_index(records: dict) -> str:
    """Markdown table, one row per paper figure: what it shows, the book's
    counterparts and the claims read off it, with verdict and who decides it."""
    by_fig = figure_claims(records)
    rows = [
        "| paper | what it shows | the book's counterpart | claims: verdict (decided "
        "by) |",
        "|---|---|---|---|",
    ]
    for fig, entry in FIGURES.items():
        book = ", ".join(f"{{numref}}`{lab}`" for lab in entry["counterparts"])
        claims = "; ".join(
            f"{r.get('short') or name}: **{r['verdict']}** ({rulebook.who(r)})"
            for _, name, r in by_fig[fig]
        )
        rows.append(f"| Fig. {fig} | {entry['what']} | {book} | {claims or '—'} |")
    return "\n".join(rows)


def downloads(records: dict) -> str:
    """Markdown list of each chapter's records as JSON to download."""
    return "\n".join(
        f"- {{download}}`{ch}.json <results/{ch}.json>`: "
        f"{sum(1 for r in recs.values() if r.get('kind') == 'paper')} claims of the "
        f"paper, {len(recs)} records in all"
        for ch, recs in records.items()
    )


#: ``{folder under book/: whose runs}``: loss curves measured once by a command.
STORED_RUNS = {
    "authors_runs": "the authors' scripts",
    "depth_runs": "the depth chapter's stored runs",
}


def stored_runs(root: Path | None = None) -> str:
    """Markdown list of the stored loss curves to download, one item per file: whose
    runs, their shapes (seeds x epochs) and the command that made them; ``root``: the
    repository (default: this one)."""
    root = Path(root or ROOT)
    rows = []
    for folder, whose in STORED_RUNS.items():
        manifest = json.loads((root / "book" / folder / "manifest.json").read_text())
        for name, run in manifest.get("experiments", manifest).items():
            shapes = run.get("shapes") or {
                k: v["shape"] for k, v in (run.get("scripts") or {}).items()
            }
            curves = {k: v for k, v in shapes.items() if len(v) == 2}
            seeds, epochs = next(iter(curves.values()))
            rows.append(
                f"- {{download}}`{run['file']} <{folder}/{run['file']}>`: "
                f"{run.get('title', name)}, {whose}; "
                f"{' and '.join(f'`{k}`' for k in curves)} loss per epoch, "
                f"{seeds} seeds x {epochs} epochs; made by `{run['command']}`"
            )
    return "\n".join(rows)


def citation(root: Path | None = None) -> str:
    """How to cite this release (``CITATION.cff``'s version and date), with BibTeX."""
    cff = release(Path(root or ROOT))
    version, date, title = cff["version"], cff["date-released"], cff["title"]
    return (
        f"This is release **{version}** of {date} (git tag `v{version}`; the "
        "CHANGELOG lists every release and its tag). `CITATION.cff` in the "
        "repository holds the same version and date, as do every page's footer and "
        "the PDF's title page. BibTeX:\n\n"
        "```bibtex\n"
        f"@software{{haste_book_{version.replace('.', '_')},\n"
        f"  title   = {{{{{title}}}}},\n"
        "  author  = {{The haste-book developers}},\n"
        f"  version = {{{version}}},\n"
        f"  year    = {{{date[:4]}}},\n"
        f"  date    = {{{date}}},\n"
        "  note    = {Companion to Jarvis, Klein, Rosman and Saxe, ICLR 2025}\n"
        "}\n```"
    )
