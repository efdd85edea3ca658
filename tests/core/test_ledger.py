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
    assert "depth.gap_relu_gdln_stereotypes" not in led["depth"].verdicts_off_authors
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
