"""The setup ledger (helpers.core.ledger): every experiment has rows, every authors'
value cites a file of the authors' repository, references into the book resolve, and
differences between the authors', the paper's and the book's values are detected."""

import tomllib
from pathlib import Path

import pytest

from helpers.core import ledger, paper

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = ROOT / "helpers" / "book" / "chapters"

#: Every file of CAandL-Lab/make-haste-slowly at commit b7d6e41 (git ls-tree -r HEAD).
AUTHORS_FILES = frozenset(
    [
        "3_context_diff/clean_dir.sh",
        "3_context_diff/closed.py",
        "3_context_diff/gdln.py",
        "3_context_diff/gdln_single.py",
        "3_context_diff/gen_data.py",
        "3_context_diff/race.py",
        "3_context_diff/relu.py",
        "3_context_diff/replot.py",
        "3_context_diff/run.sh",
        "README.txt",
        "depth/clean_dir.sh",
        "depth/gdln_off.py",
        "depth/gen_data.py",
        "depth/relu.py",
        "depth/replot.py",
        "depth/run.sh",
        "diff_context_num/clean_dir.sh",
        "diff_context_num/closed3.py",
        "diff_context_num/closed4.py",
        "diff_context_num/closed5.py",
        "diff_context_num/gdln3.py",
        "diff_context_num/gdln4.py",
        "diff_context_num/gdln5.py",
        "diff_context_num/gen_data.py",
        "diff_context_num/relu3.py",
        "diff_context_num/relu4.py",
        "diff_context_num/relu5.py",
        "diff_context_num/replot.py",
        "diff_context_num/run.sh",
        "requirements.txt",
    ]
)

EXPECTED = {
    "foundation",
    "xor",
    "contexts",
    "extra_contexts_C3",
    "extra_contexts_C4",
    "extra_contexts_C5",
    "depth",
    "gate_finding",
}


@pytest.fixture(scope="module")
def led():
    return ledger.load()


def test_every_experiment_has_rows(led):
    assert set(led) == EXPECTED and set(ledger.EXPERIMENTS) == EXPECTED
    for key, exp in led.items():
        assert exp.title and len(exp.rows) >= 5, key
        assert all(r.why for r in exp.rows), key


def test_every_authors_value_cites_a_file_of_their_repository(led):
    for exp in led.values():
        for r in exp.rows:
            if r.authors == "none":
                assert r.scripts == (), (exp.key, r.setting)
                continue
            assert r.scripts, (exp.key, r.setting)
            for path, lines in r.scripts:
                assert path in AUTHORS_FILES, (exp.key, r.setting, path)
                assert lines and all(
                    part.replace("-", "").isdigit() for part in lines.split(",")
                ), (exp.key, r.setting, lines)


def test_the_sections_without_a_script_say_so(led):
    for key in ("foundation", "xor", "gate_finding"):
        assert any(r.authors == "none" for r in led[key].rows)
    assert all(r.authors == "none" for r in led["xor"].rows)


def test_book_values_follow_the_paper_constants_and_the_parameter_cells(led):
    c = led["contexts"]
    assert c.row("relu_width").book == paper.CONTEXTS.relu_width
    assert c.row("reln_std_context").book == paper.CONTEXTS.reln_std_context
    assert led["depth"].row("coupling").book == paper.DEPTH.coupling
    assert led["extra_contexts_C4"].row("relu_width").book == 500
    cell = ledger.cell_defaults("contexts")
    assert c.row("seeds").book == cell["seeds"]
    assert "epochs" not in cell  # PAPER.epochs is not a literal: left out


def test_verdicts_name_registered_records(led):
    for exp in led.values():
        for r in exp.rows:
            for v in r.verdicts:
                chapter, _, record = v.partition(".")
                claims = tomllib.loads((CLAIMS / f"{chapter}.toml").read_text())
                assert record in claims, (exp.key, r.setting, v)


def test_same_compares_numbers_quotients_lists_and_words():
    assert ledger.same("0.005 / 700", 0.005 / 700)
    assert ledger.same("0.01 / 700", 2 * 0.005 / 700)
    assert not ledger.same("0.005 / 500", 0.005 / 700)
    assert ledger.same([500, 12000], (500, 12000))
    assert not ledger.same([500, 12000], [500, 10000])
    assert ledger.same("One-way ", "one-way")
    assert not ledger.same("one-way", "full")
    assert not ledger.same(8001, "8001 updates")
    assert not ledger.same(True, 1)


def test_differences_are_detected(led):
    c4 = led["extra_contexts_C4"]
    # Section 5 is judged under the authors' setup of each C: no difference left there
    assert not c4.row("reln_std_context").authors_differ
    assert not c4.row("context_input_value").authors_differ
    assert c4.row(
        "context_input_value"
    ).paper_differs  # 1.1 in the code, one-hot in text
    assert c4.row("seeds").authors_differ
    assert not c4.row("relu_width").authors_differ
    assert c4.row("relu_width").authors_paper_differ  # 500 in the code, 700 in App. H
    # Section 6 is judged under the authors' one-way coupling (depth/gdln_off.py)
    assert not led["depth"].row("coupling").authors_differ
    assert not led["contexts"].row("reln_std_context").authors_differ
    assert led["contexts"].row("reln_std_context").paper_differs
    # the GDLN's pathways are gated off before their switch-on, the scripts' are not
    assert "depth.gap_relu_gdln_stereotypes" in led["depth"].verdicts_off_authors
    assert not led["depth"].row("coupling").verdicts == ()
    assert all(r.authors_differ for r in ledger.differences("depth"))
    # never compared: no script, not stated, nothing to set
    assert not any(r.authors_differ for r in led["xor"].rows)


def test_a_malformed_ledger_is_refused(tmp_path):
    entry = (
        '{ authors = 1, script = "depth/relu.py:1", paper = 1, book = 2, '
        'verdict_uses = "{u}", why = "w" }'
    )
    good = entry.replace("{u}", "book")
    p = tmp_path / "l.toml"
    p.write_text(f'[ledger.x]\ntitle = "t"\ns = {good}\n')
    (row,) = ledger.load(p)["x"].rows
    assert row.authors_differ and row.paper_differs and not row.authors_paper_differ
    p.write_text(f'[ledger.x]\ntitle = "t"\ns = {entry.replace("{u}", "them")}\n')
    with pytest.raises(ValueError, match="verdict_uses must be one of"):
        ledger.load(p)
    p.write_text(
        f'[ledger.x]\ntitle = "t"\ns = {good.replace("book = 2", "book = 3")}'
        '\nt = { authors = "none", script = "a.py:1", paper = 1, book = 1, '
        'verdict_uses = "book", why = "w" }\n'
    )
    with pytest.raises(ValueError, match="needs its script"):
        ledger.load(p)
    p.write_text(
        '[ledger.x]\ntitle = "t"\ns = { authors = 1, script = "a.py:1", '
        'paper = 1, book = "=paper:NOPE.x", verdict_uses = "book", why = "w" }\n'
    )
    with pytest.raises(KeyError, match="no section 'NOPE'"):
        ledger.load(p)


def test_the_paper_constants_still_load():
    assert paper.CONTEXTS.relu_width == 700 and len(paper.TABLE) > 20


def test_every_row_that_differs_from_the_authors_names_its_verdicts(led):
    """A departure from the authors' scripts says which verdicts it moves, or that it
    moves none: never left unsaid."""
    for exp in led.values():
        for r in exp.authors_differ:
            assert r.verdicts or r.none_affected, (exp.key, r.setting)
            assert not (r.verdicts and r.none_affected), (exp.key, r.setting)


def test_none_affected_is_the_only_word_for_verdicts(tmp_path):
    entry = (
        '{ authors = 1, script = "depth/relu.py:1", paper = 1, book = 2, '
        'verdict_uses = "book", why = "w", verdicts = "VAL" }'
    )
    p = tmp_path / "l.toml"
    p.write_text(
        f'[ledger.x]\ntitle = "t"\ns = {entry.replace("VAL", "none affected")}\n'
    )
    (row,) = ledger.load(p)["x"].rows
    assert row.none_affected and row.verdicts == ()
    p.write_text(f'[ledger.x]\ntitle = "t"\ns = {entry.replace("VAL", "nothing")}\n')
    with pytest.raises(ValueError, match="none affected"):
        ledger.load(p)


def test_the_page_prose_is_rendered_from_the_rows(led):
    """The ledger page's text on differences is ``departures``: every differing row
    appears in it with both values and its verdicts, and no other row does."""
    for key, exp in led.items():
        text = ledger.departures(key)
        for r in exp.rows:
            named = f"**{r.setting}**" in text
            shown = r.authors_differ or (r.authors_paper_differ and r.paper_differs)
            assert named == shown, (key, r.setting)
            if r.authors_differ:
                line = next(x for x in text.split("\n") if f"**{r.setting}**" in x)
                assert ledger.show(r.authors) in line and ledger.show(r.book) in line
                for v in r.verdicts:
                    assert f"`{v}`" in line, (key, r.setting, v)
    page = (ROOT / "book" / "ledger.md").read_text()
    for key in led:
        assert f'h.ledger.departures("{key}")' in page, key
    # the prose between the tables types no value of the ledger: no glue of a value
    assert "value(key, setting, column)" not in page


def _scripts(s):
    return [part.strip().partition(":")[0] for part in s.split(";") if part.strip()]


def test_constants_from_the_authors_code_cite_a_script():
    """Every constant of paper.toml whose source is the authors' code names the file
    and lines of their repository that set it."""
    for sec in (
        paper.FOUNDATION,
        paper.XOR,
        paper.CONTEXTS,
        paper.EXTRA_CONTEXTS,
        paper.DEPTH,
        paper.GATE_FINDING,
    ):
        for name, c in sec.constants.items():
            if c.source != "authors' code":
                assert not c.script, (sec.title, name)
                continue
            assert c.script, (sec.title, name)
            for part in c.script.split(";"):
                path, _, lines = part.strip().partition(":")
                assert path in AUTHORS_FILES, (name, path)
                assert lines and all(
                    x.replace("-", "").isdigit() for x in lines.split(",")
                ), (name, lines)


def test_the_authors_column_agrees_with_the_constants_it_shares(led):
    """Where a row's book value reads a constant of paper.toml that comes from the
    authors' code, the row's authors value is that constant, and in the constant's own
    experiment cites one of the same scripts: the authors' value is stated once in
    substance."""
    checked = 0
    for exp in led.values():
        for r in exp.rows:
            src = r.book_source
            if not (isinstance(src, str) and src.startswith("=paper:")):
                continue
            owner, _, name = src[len("=paper:") :].partition(".")
            name, _, index = name.partition("[")
            c = getattr(paper, owner).constants[name]
            if c.source != "authors' code" or r.authors == "none":
                continue  # gate_finding borrows Section 4's values, no script
            value = c.value
            if index:
                value = value[int(index.rstrip("]"))]
            assert ledger.same(r.authors, value), (exp.key, r.setting, r.authors, value)
            if exp.key.startswith(owner.lower()):  # the constant's own experiment
                shared = set(_scripts(r.script)) & set(_scripts(c.script))
                assert shared, (exp.key, r.setting, r.script, c.script)
            checked += 1
    assert checked >= 12
