"""What a reader and a publisher of the book rely on: licence, citation, the publish
workflow, Binder and Colab set-up, one version, and a pinned environment."""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

import helpers
from tests.conftest import run_to_the_end

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


def test_the_workflow_fails_on_drift_before_publishing_anything():
    """The site is the committed book's (command 1); the tests (command 2) re-execute
    every chapter and fail on drift, before any upload or publishing."""
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())
    steps = wf["jobs"]["build"]["steps"]
    runs = [" ".join(s.get("run", "").split()) for s in steps]
    setup, test = _readme_commands()
    assert setup.endswith("helpers.book site") and test.endswith("-m pytest")
    tests = runs.index(test)
    assert runs.index(setup) < tests
    later = [s for s in steps[tests + 1 :] if "uses" in s]
    assert all(not s.get("if") or "always()" not in s["if"] for s in steps)
    assert [s for s in steps[:tests] if "upload" in s.get("uses", "")] == []
    assert later, "uploads come after the tests"
    assert "build" in wf["jobs"]["publish"]["needs"]


def test_the_workflow_publishes_the_notebooks_colab_opens():
    from helpers.book import build

    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())
    runs = [
        " ".join(s.get("run", "").split())
        for job in wf["jobs"].values()
        for s in job["steps"]
    ]
    assert any("helpers.book colab-notebooks" in r for r in runs)
    job = wf["jobs"]["colab-notebooks"]
    assert job["needs"] == "build" and job["permissions"] == {"contents": "write"}
    push = " ".join(s.get("run", "") for s in job["steps"])
    assert f"git push -f origin {build.COLAB_BRANCH}" in push
    assert wf["permissions"] == {"contents": "read"}  # write only in that job


def test_ci_runs_the_readme_test_command():
    ci = " ".join((ROOT / ".ci" / "run").read_text().split())
    assert _readme_commands()[1] in ci


def test_binder_environment_is_python_3_11_and_the_books_package():
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"
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
    for name in ("colab.py", "requirements.txt"):
        (repo / "binder" / name).write_text((ROOT / "binder" / name).read_text())
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "book"], check=True)
    return repo


def test_the_colab_cell_clones_and_sets_up_the_book_in_colab_only(
    origin, tmp_path, monkeypatch
):
    import types

    clone = tmp_path / "content" / "book"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setenv("PYTHONPATH", "")
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: calls.append(cmd))
    exec(_colab_cell(clone, origin.as_uri()), {})  # not in Colab: nothing happens
    assert not clone.exists() and not calls and Path.cwd() == tmp_path

    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    exec(_colab_cell(clone, origin.as_uri()), {})
    assert (clone / "binder" / "colab.py").exists()
    assert not calls, "this environment has every pin: nothing to install"
    assert Path.cwd() == clone / "book" and sys.path[0] == str(clone)
    assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == str(clone)


def _colab_setup() -> dict:
    """binder/colab.py's functions, without running its set-up."""
    import runpy

    return runpy.run_path(str(ROOT / "binder" / "colab.py"), run_name="colab_setup")


def test_colab_installs_only_what_it_lacks_and_keeps_what_its_kernel_loaded(
    monkeypatch,
):
    colab = _colab_setup()
    want = {"jax": "0.10.2", "numpy": "2.4.6", "myst-nb": "1.4.0", "scipy": "1.17.1"}
    have = {  # as Colab has them: an older jax and numpy, no myst-nb
        "jax": "0.5.3",
        "numpy": "2.0.2",
        "scipy": "1.17.1",
        "ipykernel": "6.17.1",
        "tornado": "6.4.2",
        "pyzmq": "24.0.1",
    }
    loaded = {"numpy": "2.0.2", "ipykernel": "6.17.1"}  # the kernel imported them
    install, keep, held = colab["plan"](want, have, loaded)
    assert install == ["jax==0.10.2", "myst-nb==1.4.0"]  # scipy: already at the pin
    assert keep == {"numpy": ("2.0.2", "2.4.6")}
    assert held == {
        "ipykernel": "6.17.1",
        "numpy": "2.0.2",
        "pyzmq": "24.0.1",
        "tornado": "6.4.2",
    }
    monkeypatch.delenv(colab["PIP_ARGS_VARIABLE"], raising=False)
    assert colab["command"](install, "/tmp/held.txt") == [
        sys.executable,
        "-m",
        "pip",
        "install",
        "-q",
        "jax==0.10.2",
        "myst-nb==1.4.0",
        "-c",
        "/tmp/held.txt",
    ]


def test_colab_and_binder_pin_the_books_versions_and_no_jupyter_package():
    colab = _colab_setup()
    runtime = colab["pins"](str(ROOT / "binder" / "requirements.txt"))
    pinned = {}
    for name in ("requirements.txt", "constraints.txt"):
        pinned.update(colab["pins"](str(ROOT / name)))
    assert {"jax", "numpy", "myst-nb"} <= set(runtime)
    for name, version in runtime.items():
        assert pinned.get(name) == version, name
    assert not set(runtime) & set(colab["KERNEL"]) - {"ipykernel"}
    assert not set(runtime) & set(SERVER)


#: What Binder's image (repo2docker) and Colab bring: Jupyter's server and kernel.
SERVER = (
    "jupyterlab",
    "notebook",
    "nbclassic",
    "jupyter-server",
    "jupyterhub",
    "ipykernel",
    "ipython",
    "jupyter-client",
    "jupyter-core",
    "tornado",
    "pyzmq",
    "traitlets",
    "nbformat",
)


def test_binder_resolves_beside_the_jupyter_server_it_brings():
    """Offline, from the installed metadata: what binder/requirements.txt pulls in asks
    of Binder's own Jupyter packages only lower bounds, so any recent Binder image
    satisfies it (their own requirements are Binder's business, not walked)."""
    from importlib import metadata

    from packaging.requirements import Requirement

    colab = _colab_setup()
    todo = list(colab["pins"](str(ROOT / "binder" / "requirements.txt")))
    seen, bounds, reached = set(), [], set()
    while todo:
        name = todo.pop()
        if name in seen or name in SERVER:
            continue
        seen.add(name)
        for text in metadata.requires(name) or []:
            req = Requirement(text)
            if req.marker and not req.marker.evaluate({"extra": ""}):
                continue
            dep = colab["canonical"](req.name)
            if dep in SERVER:
                reached.add(dep)
                bounds += [(name, dep, s) for s in req.specifier]
            todo.append(dep)
    assert reached >= {"ipykernel", "nbformat"}  # myst-nb asks for them
    capped = [b for b in bounds if b[2].operator not in (">=", ">", "!=")]
    assert not capped, f"pins that could clash with Binder's Jupyter: {capped}"


def _colab_view(tmp_path: Path, lacking: tuple) -> Path:
    """Colab's packages, played by this environment's site-packages seen through a
    folder of links, less ``lacking`` and the book's own package."""
    from importlib import metadata

    site = Path(metadata.distribution("numpy").locate_file(""))
    view = tmp_path / "colab-site"
    view.mkdir()
    names = [n.replace("-", "_") for n in lacking]
    skip = re.compile(
        rf"^({'|'.join(names)}|haste_book_helpers|__editable__|_?pip\b|.*\.pth$)",
        re.I,
    )
    for entry in site.iterdir():
        if not skip.match(entry.name):
            (view / entry.name).symlink_to(entry)
    return view


def _wheel_of(name: str, folder: Path) -> Path:
    """A wheel of installed ``name`` made from its files (offline)."""
    import zipfile
    from importlib import metadata

    dist = metadata.distribution(name)
    whl = folder / f"{name.replace('-', '_')}-{dist.version}-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as z:
        for f in dist.files:
            path = Path(dist.locate_file(f))
            if f.parts[0] != ".." and "__pycache__" not in f.parts and path.is_file():
                z.write(path, str(f))
    return whl


def _origin_of_the_working_tree(tmp_path: Path) -> Path:
    """A repository holding the working tree's tracked files, as the book's remote."""
    repo = tmp_path / "origin"
    files = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    for f in filter(None, files):
        src = ROOT / f
        if src.is_file():
            (repo / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, repo / f)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "book"], check=True)
    return repo


RUN_IN_VENV = """
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, kernel_name="python3", timeout=600).execute()
nbformat.write(nb, sys.argv[2])
"""


@pytest.mark.slow
def test_a_chapter_runs_in_a_colab_like_kernel(tmp_path):
    """The first cell as Colab runs it: a fresh virtual environment whose packages
    stand in for Colab's (myst-nb missing), a kernel that has imported NumPy and
    ipykernel and has a ``google.colab`` module, the repository a local one.  The cell
    clones it, installs myst-nb for real (pip offline: ``--no-index`` and a wheel made
    from the installed files), changes nothing the kernel loaded, and then the
    Conventions chapter executes."""
    import json
    import venv

    import jupytext
    import nbformat

    env = tmp_path / "colab"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    site = subprocess.run(
        [
            str(python),
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "colab-packages.pth").write_text(
        str(_colab_view(tmp_path, ("myst_nb", "myst-nb"))) + "\n"
    )
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel_of("myst-nb", wheels)
    origin = _origin_of_the_working_tree(tmp_path)
    clone = tmp_path / "content" / "book"

    chapter = jupytext.read(ROOT / "book" / "conventions.md")
    code = [c for c in chapter.cells if c.cell_type == "code"]
    assert "REPOSITORY = None" in code[0].source  # the page's Colab cell, left out
    nb = nbformat.v4.new_notebook(metadata=chapter.metadata)
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import sys, types, numpy, ipykernel\n"
            "colab = sys.modules['google.colab'] = types.ModuleType('google.colab')\n"
            "colab.output = sys.modules['google.colab.output'] = types.ModuleType(\n"
            "    'google.colab.output')  # JAX imports it in Colab\n"
            "BEFORE = (numpy.__version__, numpy.__file__, ipykernel.__version__)"
        ),
        nbformat.v4.new_code_cell(_colab_cell(clone, origin.as_uri())),
        *[c for c in chapter.cells if c is not code[0]],
        nbformat.v4.new_code_cell(
            "import json, os, importlib, helpers, myst_nb\n"
            "after = (numpy.__version__, numpy.__file__, ipykernel.__version__)\n"
            "print(json.dumps({'same': after == BEFORE, 'prefix': sys.prefix,\n"
            "  'helpers': helpers.__file__, 'myst_nb': myst_nb.__file__,\n"
            "  'cwd': os.getcwd()}))"
        ),
    ]
    src, out = tmp_path / "colab.ipynb", tmp_path / "colab.out.ipynb"
    nbformat.write(nb, src)
    run_env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "JUPYTER_PATH")
    }
    run_env.update(
        HASTE_COLAB_PIP_ARGS=f"--no-index --find-links {wheels}",
        HASTE_RESULTS_DIR=str(tmp_path / "results"),
        JUPYTER_DATA_DIR=str(tmp_path / "jupyter"),
        JAX_PLATFORMS="cpu",
    )
    cmd = [str(python), "-c", RUN_IN_VENV, str(src), str(out)]
    run_to_the_end(cmd, env=run_env, cwd=tmp_path)
    done = nbformat.read(out, as_version=4)
    setup = "".join(o.get("text", "") for o in done.cells[1].outputs)
    assert "installing myst-nb==1.4.0" in setup, setup
    last = json.loads(done.cells[-1].outputs[-1]["text"].strip().splitlines()[-1])
    assert last["same"], "the set-up changed a package the kernel had loaded"
    assert last["prefix"] == str(env)
    assert last["helpers"].startswith(str(clone))
    assert last["myst_nb"].startswith(site)  # installed by the cell
    assert last["cwd"] == str(clone / "book")
    assert not (clone / "book" / "results" / "conventions.json").exists() or (
        (clone / "book" / "results" / "conventions.json").read_bytes()
        == (ROOT / "book" / "results" / "conventions.json").read_bytes()
    )


def test_the_site_opens_colab_on_the_published_notebooks(tmp_path):
    from helpers.book import build

    page = tmp_path / "xor.html"
    page.write_text(
        '<a href="https://colab.research.google.com/github/o/r/blob/main/book/'
        'xor.ipynb">Colab</a> <a href="https://github.com/o/r/blob/main/x">x</a>'
    )
    build._point_colab_at_published_notebooks(tmp_path)
    text = page.read_text()
    assert f"github/o/r/blob/{build.COLAB_BRANCH}/book/xor.ipynb" in text
    assert "github.com/o/r/blob/main/x" in text  # only the Colab link changes


def test_the_notebooks_for_colab_know_their_repository(monkeypatch, tmp_path):
    from helpers.book import build

    monkeypatch.setenv(build.REPOSITORY_VARIABLE, "https://example.org/book")
    written = build.colab_notebooks(tmp_path)
    assert {p.name for p in written} == {p.name for p in build.BOOK.glob("*.ipynb")}
    for path in written:
        text = path.read_text()
        assert "REPOSITORY = 'https://example.org/book'" in text, path.name
        assert "REPOSITORY = None" not in text, path.name


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
    allowed = {"os", "re", "shlex", "subprocess", "sys", "tempfile", "importlib"}
    assert imports <= allowed, imports
