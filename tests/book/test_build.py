"""Local runs never touch the committed book: bad parameters are refused by name before
any work, and runs with other parameters go to a folder of their own."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.book import build, parameters

ROOT = Path(__file__).resolve().parents[2]


def _book(*args):
    return subprocess.run(
        [sys.executable, "-m", "helpers.book", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**__import__("os").environ, "JAX_PLATFORMS": "cpu"},
    )


def _book_state():
    out = subprocess.run(
        ["git", "status", "--porcelain", "--", "book"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    files = sorted((ROOT / "book").rglob("*.*"))
    return out, {p: p.stat().st_mtime_ns for p in files}


def write_manifest(run, profile: str, parameters: dict, finished: str) -> None:
    """A run's manifest as ``execute_all`` writes it (chapter xor, a fixed commit)."""
    (run / "manifest.json").write_text(
        json.dumps(
            {
                "profile": profile,
                "parameters": parameters,
                "chapters": {"xor": 1.0},
                "commit": "0123456789abcdef",
                "finished": finished,
            }
        )
    )


@pytest.mark.parametrize(
    "args,message",
    [
        (["-p", "seeds", "-1"], "seeds must be an integer >= 2, got -1"),
        (["-p", "sedes", "3"], "no chapter among ['xor'] has a parameter 'sedes'"),
        (["-p", "lr", "0"], "lr must be a positive number, got 0"),
        (["--update-book", "-p", "seeds", "3"], "--update-book writes the committed"),
        (["--update-book", "--isa", "SSE4_2"], "--update-book writes the committed"),
    ],
)
def test_bad_parameters_are_refused_before_any_work(args, message):
    before = _book_state()
    res = _book("execute", "xor", *args)
    assert res.returncode != 0 and message in res.stderr, res.stderr[-2000:]
    assert "executing" not in res.stderr
    assert _book_state() == before


@pytest.mark.parametrize(
    "chapter, values, message",
    [
        ("contexts", {"show_epochs": [1000, 4001]}, "a multiple of record_every = 250"),
        ("contexts", {"show_epochs": [1000, 9000]}, "at most epochs = 8000 (each)"),
        ("contexts", {"epochs": 4000}, "show_epochs must be at most epochs = 4000"),
        ("lag", {"epochs": 4000}, "freeze_epochs must be at most epochs = 4000"),
        (
            "extra_contexts",
            {"record_every": 9000},
            "record_every must be at most epochs",
        ),
    ],
)
def test_parameters_bound_by_another_are_refused_by_name(chapter, values, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parameters.check(chapter, values)


def test_two_kernels_never_share_their_sockets():
    """Two chapters executed at once (the test lanes) each start a kernel; with the
    IPC sockets' default names, ``kernel-ipc-N`` in the notebook's folder, both took
    the same files and failed ("Invalid Signature")."""
    manager = build._kernel_manager()
    a, b = manager(), manager()
    if a.transport == "ipc":
        assert a.ip != b.ip and Path(a.ip).is_absolute()


def test_every_chapter_declares_valid_defaults():
    for name in build.chapters_present():
        parameters.check(name, parameters.declared(name))


@pytest.mark.slow
def test_a_run_with_other_parameters_leaves_the_book_alone_and_builds_a_site():
    before = _book_state()
    # (a shorter run than the default would stop before the losses reach the time gap's
    # levels: the chapter says "run longer")
    res = _book("execute", "background", "-p", "seeds", "2", "-p", "record_every", "20")
    assert res.returncode == 0, res.stderr[-3000:]
    assert _book_state() == before
    run = build.RUNS / build.run_key("default", {"seeds": 2, "record_every": 20})
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["parameters"] == {"seeds": 2, "record_every": 20}
    assert set(manifest["chapters"]) == {"background"} and manifest["versions"]["jax"]
    nb = json.loads((run / "background.ipynb").read_text())
    assert any("seeds = 2" in "".join(c["source"]) for c in nb["cells"])
    assert (run / "results" / "background.json").exists()
    res = _book("site", "--from", str(run))
    assert res.returncode == 0, res.stderr[-3000:]
    html = run / "site-src" / "_build" / "html"
    assert (html / "book" / "background.html").exists()
    # every page says it is a run, and the scorecard was made from the run's records
    for page in (html / "book").rglob("*.html"):
        assert "This site shows a run" in page.read_text(), page
    assert (run / "scorecard.ipynb").exists()
    from helpers.book import records, scorecard

    line = scorecard.bottom_line(records.load_all(run / "results"))
    intro = (html / "book" / "pages" / "intro.html").read_text()
    assert line in intro.replace("\u2019", "'")
    assert _book_state() == before


def test_every_page_of_a_runs_site_names_the_run(tmp_path):
    """A run's site: a banner on every page (profile, parameters, commit) and the
    intro's counts from the run's records; the committed site has neither banner nor
    other counts."""
    from helpers.book import records, scorecard

    run = tmp_path / "default-abc"
    (run / "site-src" / "book" / "results").mkdir(parents=True)
    recs = {"xor": {"c": {"kind": "paper", "verdict": "undecided"}}}
    (run / "site-src" / "book" / "results" / "xor.json").write_text(
        json.dumps(recs["xor"])
    )
    write_manifest(run, "default", {"seeds": 3}, "2026-11-24 12:00:00")
    config = {"html": {"use_issues_button": True}}
    build._page_furniture(config, run / "site-src", None)
    banner = config["html"]["announcement"]
    assert "a run" in banner and "default" in banner and "0123456789" in banner
    assert "seeds" in banner
    line = config["parse"]["myst_substitutions"]["bottom_line"]
    assert scorecard.bottom_line(recs) in line and "1 undecided" in line
    assert config["html"]["use_issues_button"] is False  # no repository known
    assert "Version" in config["html"]["extra_footer"]

    committed = {"html": {"use_issues_button": True}}
    build._page_furniture(committed, ROOT, "https://github.com/o/r")
    assert "announcement" not in committed["html"]
    assert committed["html"]["use_issues_button"] is True
    assert committed["parse"]["myst_substitutions"]["bottom_line"] == (
        scorecard.bottom_line(records.load_all(records.RESULTS_DIR))
    )


def _book_bytes(name):
    return {p: p.read_bytes() for p in build.BOOK.glob(f"{name}.*")}


@pytest.mark.slow
def test_a_notebook_run_and_saved_as_jupyterlab_does_leaves_the_book_alone(tmp_path):
    """The README's route: ``python -m helpers.book notebook <chapter>`` writes an
    unpaired copy; executing it in its own folder (as a JupyterLab kernel does) and
    saving it the way jupytext's contents manager saves (every paired format) writes
    that copy alone, never ``book/``."""
    import jupytext
    import nbformat
    from jupytext.paired_paths import paired_paths
    from nbclient import NotebookClient

    before = _book_bytes("background")
    path = build.notebook_copy("background", tmp_path)
    nb = nbformat.read(path, as_version=4)
    assert "jupytext" not in nb.metadata  # unpaired
    NotebookClient(
        nb, timeout=600, resources={"metadata": {"path": tmp_path}}
    ).execute()
    formats = nb.metadata.get("jupytext", {}).get("formats", "ipynb")
    for alt, fmt in paired_paths(str(path), "ipynb", formats):
        jupytext.write(nb, alt, fmt=fmt)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["background.ipynb"]
    assert _book_bytes("background") == before  # book/background.ipynb and .md


def test_the_notebook_command_refuses_an_unknown_chapter(tmp_path):
    with pytest.raises(SystemExit, match="no chapter 'xorr'"):
        build.notebook_copy("xorr", tmp_path)


def test_only_the_maintainers_flag_updates_the_book():
    """A plain execution is a run (``_build/runs/default``); ``--update-book`` with
    default parameters alone writes ``book/``; an instruction set is a run too."""
    assert build.run_key("default", {}) == "default"
    assert build.run_key("default", {}, update_book=True) is None
    assert build.run_key("default", {"seeds": 3}, update_book=True).startswith(
        "default-"
    )
    assert build.run_key("paper", {}, update_book=True) == "paper"
