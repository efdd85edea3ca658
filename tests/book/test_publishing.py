"""What a reader and a publisher of the book rely on: licence, citation, the publish
workflow, Binder and Colab set-up, one version, and a pinned environment."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

import helpers

ROOT = Path(__file__).resolve().parents[2]


def _readme_commands():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)\n```", text, re.S)
    return [" ".join(b.split()) for b in blocks[:2]]


def _schema_check(schema, path):
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            schema,
            str(path),
        ],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stdout + res.stderr


def test_licences_exist_and_the_footer_states_them():
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    assert "CC BY 4.0" in (ROOT / "LICENSE-CONTENT.md").read_text()
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    footer = config["html"]["extra_footer"]
    assert "MIT" in footer and "CC BY 4.0" in footer


def test_citation_file_is_valid_and_cites_the_paper():
    _schema_check("vendor.citation-file-format", ROOT / "CITATION.cff")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["version"] == helpers.__version__
    ref = cff["references"][0]
    assert "Make Haste Slowly" in ref["title"]
    assert [a["family-names"] for a in ref["authors"]] == [
        "Jarvis",
        "Klein",
        "Rosman",
        "Saxe",
    ]


def test_one_version_everywhere():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["version"] == helpers.__version__
    assert f"## {helpers.__version__}" in (ROOT / "CHANGELOG.md").read_text()


def test_publish_workflow_is_valid_and_runs_the_readme_commands():
    path = ROOT / ".github" / "workflows" / "book.yml"
    _schema_check("vendor.github-workflows", path)
    wf = yaml.safe_load(path.read_text())
    runs = [
        " ".join(s["run"].split())
        for job in wf["jobs"].values()
        for s in job.get("steps", [])
        if "run" in s
    ]
    setup, test = _readme_commands()
    assert setup in runs and test in runs
    uses = [
        s.get("uses", "") for job in wf["jobs"].values() for s in job.get("steps", [])
    ]
    assert any(u.startswith("actions/deploy-pages") for u in uses)
    assert any(u.startswith("actions/upload-artifact") for u in uses)
    assert "HASTE_REPOSITORY_URL" in wf["jobs"]["build"]["env"]


def test_ci_runs_the_readme_test_command():
    ci = " ".join((ROOT / ".ci" / "run").read_text().split())
    assert _readme_commands()[1] in ci


def test_binder_environment_agrees_with_the_requirements():
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"
    req = (ROOT / "binder" / "requirements.txt").read_text()
    assert "-r ../requirements.txt" in req and "-c ../constraints.txt" in req
    assert "pip install --no-deps -e ." in (ROOT / "binder" / "postBuild").read_text()


def test_constraints_pin_every_requirement():
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.lower().replace("_", "-")] = version
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            assert pins.get(name.lower().replace("_", "-")) == version, name


#: Every page's first code cell: in Colab only, clone the book, then its set-up
#: (``binder/colab.py``) installs the package; ``helpers.book.build`` writes the
#: repository into the ``REPOSITORY = None`` line when it executes the page.
COLAB_CELL = """:tags: [remove-cell]

# Colab only (not shown on the site): clone the book; binder/colab.py installs it.
import os, runpy, subprocess, sys

REPOSITORY = None  # the book's repository, written here when the book is executed
if "google.colab" in sys.modules and not os.path.isdir("/content/book/helpers"):
    assert REPOSITORY, "no repository: set repository.url in _config.yml"
    subprocess.check_call(f"git clone -q --depth 1 {REPOSITORY} /content/book".split())
if "google.colab" in sys.modules:
    runpy.run_path("/content/book/binder/colab.py")"""


@pytest.mark.parametrize(
    "src", sorted((ROOT / "book").glob("*.md")), ids=lambda p: p.name
)
def test_every_chapter_installs_itself_in_colab(src):
    text = src.read_text()
    first = re.search(r"```\{code-cell\} ipython3\n(.*?)\n```", text, re.S).group(1)
    assert first == COLAB_CELL, (
        f"{src.name}: the first code cell must be the short Colab cell"
    )


def test_the_build_writes_the_repository_into_the_colab_cell(monkeypatch, tmp_path):
    from helpers.book import build

    monkeypatch.setenv(build.REPOSITORY_VARIABLE, "https://example.org/book")
    monkeypatch.setattr(build, "SCRATCH", tmp_path)
    text = build._unexecuted("environment").read_text()
    assert "REPOSITORY = 'https://example.org/book'" in text
    assert "REPOSITORY = None" not in text


def _colab_cell(clone: Path, repository) -> str:
    """The page's cell (code only), with the clone at ``clone`` and ``repository``."""
    code = COLAB_CELL.split("\n", 2)[2].replace("/content/book", str(clone))
    return code.replace("REPOSITORY = None", f"REPOSITORY = {repository!r}")


@pytest.fixture
def origin(tmp_path):
    """A repository with the Colab set-up, a package folder and a book folder."""
    repo = tmp_path / "origin"
    (repo / "binder").mkdir(parents=True)
    (repo / "helpers").mkdir()
    (repo / "book").mkdir()
    (repo / "helpers" / "__init__.py").write_text("")
    (repo / "book" / "xor.md").write_text("# XoR\n")
    (repo / "binder" / "colab.py").write_text(
        (ROOT / "binder" / "colab.py").read_text()
    )
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "book"], check=True)
    return repo


def test_the_colab_cell_clones_and_installs_the_book_in_colab_only(
    origin, tmp_path, monkeypatch
):
    import types
    from importlib import metadata

    clone = tmp_path / "content" / "book"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: calls.append(cmd))
    exec(_colab_cell(clone, origin.as_uri()), {})  # not in Colab: nothing happens
    assert not clone.exists() and not calls and Path.cwd() == tmp_path

    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    exec(_colab_cell(clone, origin.as_uri()), {})
    assert (clone / "binder" / "colab.py").exists()
    pip = [sys.executable, "-m", "pip", "install", "-q"]
    assert calls == [
        [*pip, "-r", f"{clone}/requirements.txt", "-c", f"{clone}/constraints.txt"],
        [*pip, "--no-deps", "-e", str(clone)],
    ]
    assert Path.cwd() == clone / "book" and sys.path[0] == str(clone)


def test_the_colab_cell_names_a_missing_repository(tmp_path, monkeypatch):
    import types

    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    with pytest.raises(AssertionError, match="no repository: set repository.url"):
        exec(_colab_cell(tmp_path / "book", None), {})


def test_the_colab_set_up_is_plain_python():
    import ast

    tree = ast.parse((ROOT / "binder" / "colab.py").read_text())
    imports = {
        a.name.split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import)
        for a in n.names
    }
    imports |= {
        n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
    }
    assert imports <= {"os", "subprocess", "sys", "importlib"}, imports
