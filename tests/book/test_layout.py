"""The repository's structure, as the book's readers and maintainers rely on it: the
layers are folders, every chapter has its module, the pages cite only what the
repository holds, and the visible code fits the page."""

import re
from pathlib import Path

import numpy as np
import pytest

from helpers.book import parameters

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
HELPERS = ROOT / "helpers"
CELL = re.compile(
    r"```\{code-cell\} ipython3\n(---\n.*?\n---\n|:tags: \[[^\]]*\]\n\n?)?(.*?)\n```",
    re.S,
)
CHAPTER_SOURCES = sorted(BOOK.glob("*.md"))


def _code_cells(path):
    return [(m.group(1) or "", m.group(2)) for m in CELL.finditer(path.read_text())]


def test_helpers_top_level_holds_only_the_layers():
    top = sorted(p.name for p in HELPERS.iterdir() if p.name != "__pycache__")
    assert top == ["__init__.py", "book", "chapters", "core", "figures.py"]


def test_every_chapter_module_is_named_as_its_chapter():
    modules = {p.stem for p in (HELPERS / "chapters").glob("*.py")} - {"__init__"}
    modules |= {p.parent.name for p in (HELPERS / "chapters").glob("*/__init__.py")}
    for name in modules:
        assert (BOOK / f"{name}.md").exists(), (
            f"helpers/chapters/{name}.py has no chapter"
        )
    for src in CHAPTER_SOURCES:
        for _, code in _code_cells(src):
            for used in re.findall(r"from helpers\.chapters import (\w+) as ch", code):
                assert used == src.stem, (
                    f"{src.name} imports the module of chapter {used}"
                )


def test_one_import_idiom_in_every_chapter():
    for src in CHAPTER_SOURCES:
        code = "\n".join(c for _, c in _code_cells(src))
        imports = re.findall(
            r"^(?:from helpers[\w.]*|import helpers[\w.]*) .*$", code, re.M
        )
        allowed = {
            "import helpers as h",
            "from helpers import figures, glue",
            "from helpers import figures",  # the report module glues for the page
            f"from helpers.chapters import {src.stem} as ch",
        }
        params = re.findall(r"^from helpers\.core\.paper import .*$", code, re.M)
        other = [i for i in imports if i not in allowed and i not in params]
        assert not other, f"{src.name}: imports outside the book's idiom: {other}"


@pytest.mark.parametrize(
    "path",
    [
        *HELPERS.rglob("*.py"),
        *BOOK.glob("*.md"),
        *(BOOK / "pages").glob("*.md"),
        ROOT / "README.md",
    ],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_nothing_cites_a_file_outside_the_repository(path):
    text = path.read_text()
    assert "SPEC" not in text and "shared/" not in text
    assert not re.search(r"\bissue \d", text, re.I), "an issue number is no reference"


def test_docstring_labels_exist_on_the_conventions_page():
    labels = set(
        re.findall(r"^\((conv-[\w-]+)\)=$", (BOOK / "conventions.md").read_text(), re.M)
    )
    cited = set()
    for p in [*HELPERS.rglob("*.py"), *BOOK.glob("*.md")]:
        cited |= set(re.findall(r"\[(conv-[\w-]+)\]", p.read_text()))
        cited |= set(re.findall(r"<(conv-[\w-]+)>`", p.read_text()))
    assert cited, "no page or docstring cites the conventions page"
    assert cited <= labels, f"cited but not defined: {sorted(cited - labels)}"


@pytest.mark.parametrize("src", CHAPTER_SOURCES, ids=lambda p: p.name)
def test_code_fits_the_page(src):
    wide = [
        line
        for _, code in _code_cells(src)
        for line in code.split("\n")
        if len(line) > 88
    ]
    assert not wide, (
        f"{src.name}: {len(wide)} code lines wider than 88 characters: {wide[:3]}"
    )


HIDDEN = re.compile(r"hide-input|hide-cell|remove-cell|remove-input|parameters")


def _visible_cells(path):
    """The code cells a reader sees as code (not hidden, removed or parameters)."""
    return [code for head, code in _code_cells(path) if not HIDDEN.search(head)]


@pytest.mark.parametrize("src", CHAPTER_SOURCES, ids=lambda p: p.name)
def test_bookkeeping_is_out_of_the_visible_code(src):
    for head, code in _code_cells(src):
        if "display=False" in code:
            pytest.fail(f"{src.name}: glue(..., display=False) is the default already")
    for code in _visible_cells(src):
        # indented too: a glue loop is bookkeeping as much as a glue line
        assert not re.search(r"^\s*(glue|h\.glue|rec\.add)\(", code, re.M), (
            f"{src.name}: a visible cell writes records or glue:\n{code[:200]}"
        )


@pytest.mark.parametrize("src", CHAPTER_SOURCES, ids=lambda p: p.name)
def test_no_visible_cell_builds_a_table(src):
    for code in _visible_cells(src):
        assert not re.search(r"\|-{3}|Markdown\(|claims_table\(", code), (
            f"{src.name}: a visible cell builds a table (put it in a hide-input "
            f"cell):\n{code[:200]}"
        )


def test_visible_code_cells_are_short():
    """The science shows, in short cells of one idea each (QuantEcon's lectures show a
    median of 8 lines): the median visible code cell across the book is at most 10
    non-blank lines."""
    lengths = [
        sum(1 for line in code.split("\n") if line.strip())
        for src in CHAPTER_SOURCES
        for code in _visible_cells(src)
    ]
    assert lengths
    median = float(np.median(lengths))
    assert median <= 10, f"median visible code cell: {median} non-blank lines"


#: The most page code the book holds (non-blank, non-comment lines of the code cells
#: of ``book/*.md``): records, glue and tables live in the chapters' report modules.
PAGE_CODE = 5000


def _page_code(path) -> int:
    return sum(
        1
        for _, code in _code_cells(path)
        for line in code.split("\n")
        if line.strip() and not line.strip().startswith("#")
    )


def test_the_pages_hold_science_not_bookkeeping():
    per_page = {src.name: _page_code(src) for src in CHAPTER_SOURCES}
    total = sum(per_page.values())
    assert total <= PAGE_CODE, (total, sorted(per_page.items(), key=lambda x: -x[1]))


def _calls(tree, names):
    import ast

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in names:
                yield node


@pytest.mark.parametrize(
    "src",
    [*CHAPTER_SOURCES, *sorted((HELPERS / "chapters").rglob("*.py"))],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_one_path_from_evidence_to_verdict(src):
    """[rulebook-evidence]: a record is added with its name, its evidence and at most
    a note, a verdict decided from a claim and its evidence: no call passes more."""
    import ast

    if src.suffix == ".md":
        code = "\n".join(
            "\n".join(
                line
                for line in c.split("\n")
                if not line.lstrip().startswith(("%", "!"))
            )
            for _, c in _code_cells(src)
        )
    else:
        code = src.read_text()
    tree = ast.parse(code)
    for call in _calls(tree, {"add", "decide"}):
        receiver = ast.unparse(call.func.value)
        if call.func.attr == "add" and not receiver.endswith("rec"):
            continue
        if (
            call.func.attr == "decide"
            and "rulebook" not in receiver
            and receiver != "rb"
        ):
            continue
        n = len(call.args) + len(call.keywords)
        assert n <= 3, f"{src.name}: {ast.unparse(call)[:160]}"
        if call.func.attr == "add":
            assert all(k.arg == "note" for k in call.keywords), ast.unparse(call)[:160]


def test_intro_and_notes_never_speak_of_a_copy_of_the_paper():
    """Readers have the paper: the book says which values the paper does not give, not
    what a copy of it lost."""
    for path in (
        BOOK / "pages" / "intro.md",
        BOOK / "rulebook.md",
        HELPERS / "book" / "chapters" / "README.md",
    ):
        text = path.read_text().lower()
        for words in ("our copy", "copy lost", "lost from", "lost its"):
            assert words not in text, f"{path.name} says {words!r}"


@pytest.mark.parametrize("src", CHAPTER_SOURCES, ids=lambda p: p.name)
def test_papermill_parses_every_line_of_the_parameters_cell(src):
    # papermill warns "Unable to parse line" on a line with more than one "=", on
    # every execution: a warning a reader would have to learn to ignore
    for meta, code in _code_cells(src):
        if re.search(r"tags: \[[^\]]*\bparameters\b", meta):
            bad = [
                line
                for line in code.split("\n")
                if line.count("=") > 1 and not line.strip().startswith("#")
            ]
            assert not bad, f"{src.name}: {bad}"


@pytest.mark.parametrize("src", CHAPTER_SOURCES, ids=lambda p: p.name)
def test_a_page_hands_its_parameters_by_name_not_its_namespace(src):
    # no page hands globals() to the library; a page with parameters checks every
    # one its parameters cell declares, each passed by name
    text = src.read_text()
    assert "globals()" not in text, src.name
    calls = re.findall(r"h\.book\.parameters\.page\((.*?)\)\n", text, re.S)
    if not calls:
        assert not parameters.declared(src.stem), f"{src.name} checks no parameters"
        return
    (call,) = calls
    passed = re.findall(r"(\w+)=(\w+)", call)
    assert all(a == b for a, b in passed), passed
    assert [a for a, _ in passed] == list(parameters.declared(src.stem)), src.name


@pytest.mark.parametrize(
    "nb", sorted(BOOK.glob("*.ipynb")), ids=lambda p: p.name.removesuffix(".ipynb")
)
def test_the_closing_section_shows_its_table(nb):
    # a "## Summary" whose code ends on an assignment would print nothing: the
    # page would close on a folded cell with no table under it
    import json

    cells = json.loads(nb.read_text())["cells"]
    start = next(
        (
            i
            for i, c in enumerate(cells)
            if c["cell_type"] == "markdown"
            and re.search(r"^## Summary", "".join(c["source"]), re.M)
        ),
        None,
    )
    if start is None:
        pytest.skip("no Summary section")
    shown = [c for c in cells[start:] if c["cell_type"] == "code" and c.get("outputs")]
    assert shown, f"{nb.name}: the Summary section shows no output"


def _visible_paragraphs(text: str) -> list[str]:
    """The paragraphs a reader sees without opening anything: outside code cells and
    outside dropdowns (colon fences nest: a note inside a dropdown stays hidden)."""
    text = re.sub(r"```\{code-cell\}.*?\n```", "", text, flags=re.S)
    out, stack, lines = [], [], []
    for line in text.split("\n"):
        opened = re.match(r"^:{3,}\{([\w-]+)\}", line)
        if opened:
            stack.append(opened.group(1))
            continue
        if stack and re.match(r"^:{3,}\s*$", line):
            stack.pop()
            continue
        if "dropdown" in stack:
            continue
        if line.strip():
            lines.append(line)
        elif lines:
            out.append("\n".join(lines))
            lines = []
    return out + (["\n".join(lines)] if lines else [])


@pytest.mark.parametrize("src", CHAPTER_SOURCES, ids=lambda p: p.name)
def test_no_visible_paragraph_carries_more_than_eight_values(src):
    """A reader follows the argument: a paragraph shows at most 8 measured values (glued
    numbers); the rest sit in a dropdown beside it."""
    crowded = [
        p[:80]
        for p in _visible_paragraphs(src.read_text())
        if len(re.findall(r"\{glue(?::text|:md)?\}`", p)) > 8
    ]
    assert not crowded, f"{src.name}: paragraphs with more than 8 values: {crowded}"
