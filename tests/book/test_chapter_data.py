"""Everything the pipeline knows about a chapter is in its one data file
(``helpers/book/chapters/<chapter>.toml``), and the chapters are the table of
contents': the rules, profiles and claims there name parameters the pages have."""

import ast
import re
from pathlib import Path

import pytest
import yaml

from helpers.book import build, chapter_data, parameters, rulebook
from helpers.core import paper

ROOT = Path(__file__).resolve().parents[2]
DATA_FILES = sorted(chapter_data.DATA.glob("*.toml"))


def test_the_chapters_are_the_table_of_contents():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    listed = [Path(f).stem for f in files if re.fullmatch(r"book/\w+\.ipynb", f)]
    assert sorted(chapter_data.chapters()) == sorted(listed)
    assert build.CHAPTERS == list(chapter_data.chapters())
    assert chapter_data.chapters_present() == list(chapter_data.chapters())


def test_a_chapter_executes_after_the_chapters_it_reads():
    order = chapter_data.chapters()
    for name in order:
        for before in chapter_data.data(name).get("execution", {}).get("after", []):
            assert order.index(before) < order.index(name), (name, before)
    # the scorecard reads every record, the Performance page's included
    assert order.index("performance") < order.index("scorecard")


@pytest.mark.parametrize("path", DATA_FILES, ids=lambda p: p.name)
def test_every_data_file_is_a_chapter_with_known_sections(path):
    assert path.stem in chapter_data.chapters()
    data = chapter_data.data(path.stem)
    for key, section in data.items():
        if key in chapter_data.SECTIONS:
            continue
        assert "kind" in section and "provenance" in section, (path.name, key)
    assert set(data.get("execution", {})) <= {"after"}


@pytest.mark.parametrize("profile", sorted(build.PROFILES))
def test_profile_parameters_are_accepted(profile):
    assert set(build.PROFILES) == {"default", "paper"}
    for chapter, values in build.PROFILES[profile].items():
        assert chapter in build.CHAPTERS, f"{profile}: unknown chapter {chapter!r}"
        parameters.check(chapter, values)


@pytest.mark.parametrize("chapter", chapter_data.chapters())
def test_every_parameter_has_a_rule_and_its_default_keeps_it(chapter):
    """Each name the parameters cell assigns has a rule in the chapter's data file
    (and no rule names a parameter the page lacks); the defaults and every profile's
    values pass them."""
    rules = chapter_data.rules(chapter)
    declared = parameters.declared(chapter)
    assert sorted(set(declared) - set(rules)) == [], "parameters without a rule"
    assert sorted(set(rules) - set(declared)) == [], "rules of no parameter"
    for name, rule in rules.items():
        assert rule and set(rule) <= set(parameters.RULE_KEYS), (name, rule)
        for key in ("at_most", "at_least", "contains"):
            assert rule.get(key) is None or rule[key] in declared, (name, rule)
        step = rule.get("multiple_of")
        assert step is None or isinstance(step, int) or step in declared, (name, step)
        if "choices" in rule:
            assert declared[name] in rule["choices"], (name, declared[name])
    parameters.check(chapter, {})


@pytest.mark.parametrize(
    "chapter, values, message",
    [
        ("xor", {"width": 3}, "width must be an integer >= 4, got 3"),
        ("xor", {"width": 130}, "width must be a multiple of 4"),
        ("xor", {"epochs": 1}, "epochs must be an integer >= 1250, got 1"),
        ("xor", {"lr": 0.5}, "lr must be at most 0.1"),
        ("reviewers", {"batch_sizes": [5]}, "batch_sizes must be a divisor of 24"),
        ("reviewers", {"relu_width": 350}, "widths must be a list that contains"),
        (
            "digits",
            {"seeds": 2},
            "trainings must be at most seeds = 2, but its default",
        ),
        ("performance", {"stored": "nope.json"}, "stored must be a file under book/"),
        ("gate_finding", {"fig8_ks": []}, "fig8_ks must be a non-empty list"),
        ("xor", {"eps_grid": [0.5, 0.6]}, "eps_grid must be a list of at least 3"),
        ("depth", {"hand_schedule": [9, 99, 999]}, "must be a list of exactly 2"),
        (
            "contexts",
            {"authors_a0_context": [1e-5, 1e-4, 1e-3]},
            "authors_a0_context must be a list of exactly 2 items",
        ),
    ],
)
def test_a_value_outside_its_rule_is_named_with_what_is_allowed(
    chapter, values, message
):
    with pytest.raises(ValueError, match=re.escape(message)):
        parameters.check(chapter, values)


def test_the_init_choices_are_written_once():
    inits = {
        c: chapter_data.rules(c)["init"]
        for c in chapter_data.chapters()
        if "init" in chapter_data.rules(c)
    }
    assert set(inits) == {"contexts", "extra_contexts", "depth", "gate_finding"}
    for rule in inits.values():
        assert rule == {"choices": paper.INITS}
    with pytest.raises(ValueError, match=r"init must be one of \['authors'"):
        parameters.check("depth", {"init": "random"})


def test_the_paper_profile_is_the_data_files():
    assert build.PROFILES["paper"]["depth"] == chapter_data.profile("paper", "depth")
    assert chapter_data.profile("paper", "xor") == {"seeds": 60}
    assert build.PROFILES["paper"]["reviewers"]["init_stds"][0] == 0.005 / 700


def test_the_claims_are_the_data_files_other_tables():
    assert set(rulebook.registry()) == {
        p.stem for p in DATA_FILES if chapter_data.claims(p.stem)
    }
    for chapter, entries in rulebook.registry().items():
        assert not set(entries) & set(chapter_data.SECTIONS), chapter


def _imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            yield "." * node.level + (node.module or "")
            for alias in node.names:
                yield "." * node.level + (node.module or "") + "." + alias.name
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)


def test_no_chapter_module_imports_the_build():
    for path in (ROOT / "helpers" / "chapters").glob("*.py"):
        bad = [m for m in _imports(path) if m.endswith("build") and "book" in m]
        assert not bad, (path.name, bad)
    reads = set(_imports(ROOT / "helpers" / "book" / "chapter_data.py"))
    assert not any("build" in m or "parameters" in m for m in reads), reads
