"""The page For researchers (helpers.book.researchers): the paper-figure index, the
downloads and the citation."""

import json
import re
from pathlib import Path

import pytest

import helpers as h
from helpers.book import researchers

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "where, named",
    [
        ("Section 3, Fig. 2d-e", {"2d", "2e"}),
        ("Appendix A (Eq. 7); Figs. 4b, 5; OpenReview", {"4b", "5"}),
        ("Section 4, Fig. 4a (output panels)", {"4a"}),
        ("Appendix E, proof of Proposition 4.2, Fig. 4", set()),  # panels: by label
        ("Section 5, Fig. 5 (C = 4)", {"5"}),
        ("Lemma 4.1", set()),
    ],
)
def test_a_where_names_the_paper_figures_it_cites(where, named):
    assert researchers.figures_named(where) == named


def test_every_counterpart_is_a_figure_of_the_book():
    labels = set()
    for page in (ROOT / "book").glob("*.md"):
        labels |= set(re.findall(r"name: (fig-[\w-]+)", page.read_text()))
    for fig, entry in researchers.FIGURES.items():
        missing = set(entry["counterparts"]) - labels
        assert not missing, (fig, missing)


def test_the_index_has_a_row_per_paper_figure_and_every_claim_of_a_figure():
    records = h.records.load_all(ROOT / "book" / "results")
    table = researchers.figure_index(records)
    for fig in ("1", "2a", "2e", "4a", "4c", "5", "6b", "9"):
        assert f"| Fig. {fig} |" in table
    by_fig = researchers.figure_claims(records)
    assert any(name == "gap_relu_reln" for _, name, _ in by_fig["4a"])
    assert all(r["kind"] == "paper" for rows in by_fig.values() for *_, r in rows)


def test_every_chapter_s_records_can_be_downloaded():
    records = h.records.load_all(ROOT / "book" / "results")
    text = researchers.downloads(records)
    for ch in records:
        assert f"{{download}}`{ch}.json <results/{ch}.json>`" in text


def test_the_citation_gives_the_installed_version_and_the_cff_date():
    text = researchers.citation(ROOT)
    cff = (ROOT / "CITATION.cff").read_text()
    date = re.search(r'^date-released: "?([0-9-]+)', cff, re.M).group(1)
    assert f"release **{h.__version__}** of {date}" in text
    assert f"git tag `v{h.__version__}`" in text


def test_every_stored_run_can_be_downloaded_with_its_command():
    text = researchers.stored_runs()
    for folder in researchers.STORED_RUNS:
        for f in (ROOT / "book" / folder).glob("*.npz"):
            assert f"{{download}}`{f.name} <{folder}/{f.name}>`" in text
    rows = text.splitlines()
    assert all(
        "made by `python -m helpers." in r or "JAX_ENABLE_X64" in r for r in rows
    )
    assert all(re.search(r"\d+ seeds x \d+ epochs", r) for r in rows)


def _example_cells(text: str) -> list[str]:
    section = text.split("## Use the engine on your own task", 1)[1]
    section = section.split("\n## ", 1)[0]
    cells = re.findall(r"```\{code-cell\} ipython3\n(.*?)```", section, re.S)
    out = []
    for c in cells:
        body = re.sub(r"^---\n.*?\n---\n", "", c, flags=re.S)
        body = re.sub(r"^:tags:.*\n", "", body)
        out.append(body)
    return out


def test_the_reuse_example_runs_as_copied_and_prints_what_the_page_prints(capsys):
    """The section *Use the engine on your own task* run as a reader copies it, in a
    fresh namespace (no hidden cell before it): it prints the page's time gap."""
    import matplotlib

    matplotlib.use("Agg")
    root = Path(__file__).resolve().parents[2]
    cells = _example_cells((root / "book" / "researchers.md").read_text())
    assert cells[0].startswith("import numpy as np"), cells[0][:80]
    namespace: dict = {}
    for code in cells:
        exec(compile(code, "<researchers example>", "exec"), namespace)  # noqa: S102
    printed = capsys.readouterr().out
    nb = json.loads((root / "book" / "researchers.ipynb").read_text())
    shown = [
        "".join(o.get("text", ""))
        for c in nb["cells"]
        if c["cell_type"] == "code" and "time gap" in "".join(c["source"])
        for o in c.get("outputs", [])
        if o.get("name") == "stdout"
    ]
    assert shown and shown[0].strip() in printed, (shown, printed)
