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


@pytest.mark.parametrize(
    "src", sorted((ROOT / "book").glob("*.md")), ids=lambda p: p.name
)
def test_every_chapter_installs_itself_in_colab(src):
    text = src.read_text()
    first = re.search(r"```\{code-cell\} ipython3\n(.*?)\n```", text, re.S).group(1)
    assert ":tags: [remove-cell]" in first and "google.colab" in first, (
        f"{src.name}: the first code cell must install the package in Colab"
    )
