"""Execute the book's chapters with papermill and build the site with Jupyter Book 1.x.

Commands, one a line (``python -m helpers.book <command> --help`` for each):

    python -m helpers.book site                           # the committed book's site
    python -m helpers.book execute xor                    # one chapter: a run
    python -m helpers.book build                          # every chapter, then the site
    python -m helpers.book execute xor -p seeds 8         # other values: a run
    python -m helpers.book execute --profile paper depth  # paper scale: a run
    python -m helpers.book execute --profile paper --record-times  # and its times
    python -m helpers.book site --from _build/runs/<run>  # the site of a run
    python -m helpers.book build --update-book            # maintainers: rewrite book/
    python -m helpers.book drift                          # records against committed
    python -m helpers.book execute --isa SSE4_2           # another CPU's bits: a run
    python -m helpers.book rounding measure RUN [RUN ...] # each record's rounding floor
    python -m helpers.book notebook xor                   # a copy to run in JupyterLab
    python -m helpers.book gpu-check OUT --limit 840      # a GPU machine, timed
    python -m helpers.book keep more_contexts             # maintainers: book/kept

The site build also prints the whole book to ``_build/html/make-haste-slowly.pdf``
(Chromium, offline) where Chromium is installed.

Each chapter is a MyST-markdown notebook ``book/<name>.md`` (jupytext).  Executing it
makes a *run* in ``_build/runs/<profile>[-<hash>]/`` (executed notebooks, records and a
manifest of the parameters, versions and times; with default parameters, the drift of
its records from the committed ones is printed), and nothing under ``book/`` changes.
Only the maintainers' ``--update-book`` with default parameters replaces
``book/<name>.ipynb`` and its records in ``book/results/``, and only once the chapter
has succeeded: papermill writes to a scratch folder first.  Parameters are
checked by name and value before any work starts (:mod:`helpers.book.parameters`).
The site build turns every Sphinx warning into an error, and MathJax is served from the
site itself (no network).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from importlib import metadata
from pathlib import Path

from ..core import store
from . import chapter_data, crosscheck, drift, gpucheck, kept, parameters, rounding
from . import pdf as pdf_module
from .chapter_data import chapters_present
from .progress import LOG_VARIABLE
from .records import RESULTS_VARIABLE

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
STATS = BOOK / "stats"
RUNS = ROOT / "_build" / "runs"
SCRATCH = ROOT / "_build" / "papermill"

# The chapters, in the order they execute, and the profiles (``--profile paper`` runs
# the paper-scale values): read from the chapters' data files and the table of contents
# (:mod:`helpers.book.chapter_data`).
CHAPTERS = list(chapter_data.chapters())
PROFILES = chapter_data.profiles()

#: The environment variable that names the repository (the publish workflow sets it);
#: otherwise ``repository.url`` of ``_config.yml``.  With neither, no launch buttons.
REPOSITORY_VARIABLE = "HASTE_REPOSITORY_URL"
#: The branch that the publish workflow writes the executed notebooks to, with the
#: repository in their Colab cell (:func:`colab_notebooks`); the site's Colab buttons
#: open those, not the committed notebooks, whose cell holds ``REPOSITORY = None``.
COLAB_BRANCH = "colab-notebooks"
_COLAB_LINK = re.compile(
    r"(https://colab\.research\.google\.com/github/[^/\"]+/[^/\"]+/blob/)[^/\"]+/"
)
_VOLATILE_CELL_KEYS = ("execution", "papermill")
_PACKAGES = (
    "jax",
    "jaxlib",
    "numpy",
    "scipy",
    "scikit-learn",
    "matplotlib",
    "papermill",
    "jupyter-book",
)


def _progress(msg: str) -> None:
    print(f"[book] {msg}", file=sys.stderr, flush=True)


def _tail(log: Path, name: str, stop: threading.Event) -> None:
    """Print the chapter's progress lines to the terminal while it executes."""
    pos = 0
    while True:
        done = stop.wait(1.0)
        text = log.read_text() if log.exists() else ""
        for line in text[pos:].splitlines():
            _progress(f"{name}: {line}")
        pos = len(text)
        if done:
            return


def _strip_volatile(path: Path) -> None:
    """Drop per-cell timestamps and durations so that two runs write the same file."""
    nb = json.loads(path.read_text())
    for cell in nb.get("cells", []):
        for k in _VOLATILE_CELL_KEYS:
            cell.get("metadata", {}).pop(k, None)
    pm = nb.get("metadata", {}).get("papermill", {})
    for k in (
        "start_time",
        "end_time",
        "duration",
        "input_path",
        "output_path",
        "environment_variables",
    ):
        pm.pop(k, None)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n")


def repository_url() -> str | None:
    """The book's repository: the environment variable, else ``_config.yml``; or
    None."""
    url = os.environ.get(REPOSITORY_VARIABLE, "").strip()
    if url:
        return url.rstrip("/")
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    url = ((config.get("repository") or {}).get("url") or "").strip()
    return url.rstrip("/") or None


def _with_repository(cell_source: str, url: str) -> str:
    return cell_source.replace("REPOSITORY = None", f"REPOSITORY = {url!r}")


def colab_notebooks(dest: Path) -> list[Path]:
    """The book's notebooks, written to ``dest/book/`` with the repository in their
    Colab cell: what the publish workflow commits to :data:`COLAB_BRANCH`."""
    url = repository_url()
    if not url:
        raise SystemExit(
            f"no repository: set {REPOSITORY_VARIABLE} or repository.url in _config.yml"
        )
    out = []
    (dest / "book").mkdir(parents=True, exist_ok=True)
    for src in sorted(BOOK.glob("*.ipynb")):
        nb = json.loads(src.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                text = "".join(cell["source"])
                cell["source"] = _with_repository(text, url).splitlines(keepends=True)
        path = dest / "book" / src.name
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
        out.append(path)
    return out


#: Where ``python -m helpers.book notebook`` writes a chapter's working copy: beside
#: the interactive records, never in ``book/``.
NOTEBOOKS = ROOT / "_build" / "interactive" / "notebooks"


def notebook_copy(name: str, dest: Path | None = None) -> Path:
    """A working copy of the executed chapter ``name`` for JupyterLab (or any notebook
    editor), written to ``dest`` (default :data:`NOTEBOOKS`): the committed
    ``book/<name>.ipynb`` without its jupytext pairing, so that saving it (autosave
    included) writes that one file and never the committed ``.ipynb`` or ``.md``, and
    with its MyST in plain notebook Markdown, glued values filled in
    (:mod:`helpers.book.readable`), so that it reads like the page.  Its
    records go to ``_build/interactive/results`` as every interactive execution's do.

    Returns:
        the copy's path.
    """
    src = BOOK / f"{name}.ipynb"
    if not src.exists():
        raise SystemExit(
            f"no chapter {name!r}: book/{name}.ipynb does not exist "
            f"(chapters: {chapters_present()})"
        )
    nb = json.loads(src.read_text())
    nb.get("metadata", {}).pop("jupytext", None)  # unpaired: no .md beside it
    from . import readable, records, scorecard

    recs = {name: records.load_all(BOOK / "results").get(name, {})}
    readable.readable(nb, lambda rec: scorecard.verdict_line(name, rec, recs))
    dest = Path(dest or NOTEBOOKS)
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / src.name
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return path


def _point_colab_at_published_notebooks(html: Path) -> None:
    """Every page's Colab button opens the notebook on :data:`COLAB_BRANCH`."""
    for page in html.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        new = _COLAB_LINK.sub(rf"\g<1>{COLAB_BRANCH}/", text)
        if new != text:
            page.write_text(new, encoding="utf-8")


def run_key(profile: str, overrides: dict, update_book: bool = False) -> str | None:
    """Where a run goes: ``None`` only for the maintainer's default execution that
    updates the committed book (``--update-book``); else ``<profile>[-<hash>]``."""
    if profile == "default" and not overrides and update_book:
        return None
    if not overrides:
        return profile
    digest = hashlib.sha256(json.dumps(overrides, sort_keys=True).encode()).hexdigest()[
        :8
    ]
    return f"{profile}-{digest}"


def _unexecuted(name: str) -> Path:
    """The chapter as a notebook with stable cell ids and the repository named."""
    import jupytext

    nb = jupytext.read(BOOK / f"{name}.md")
    url = repository_url()
    for i, cell in enumerate(
        nb.cells
    ):  # stable ids: jupytext draws random ones each time
        cell["id"] = f"{name}-{i}"
        if cell.cell_type == "code" and url:
            cell.source = _with_repository(cell.source, url)
    SCRATCH.mkdir(parents=True, exist_ok=True)
    path = SCRATCH / f"{name}.ipynb"
    jupytext.write(nb, path)
    return path


def _kernel_manager():
    """The kernel manager papermill starts chapters with: the kernel talks over IPC
    sockets (files readable by this user only) rather than unencrypted local TCP, which
    ipykernel warns about on every start; TCP where IPC is not available (Windows).
    Each kernel's sockets get a name of their own in the temporary folder: by default
    they are ``kernel-ipc-1``, ``-2``, ... in the notebook's folder, and two kernels
    started there at once (the test lanes) took the same files and each other's
    messages ("Invalid Signature", "Kernel didn't respond")."""
    from jupyter_client.manager import AsyncKernelManager

    if os.name == "nt":
        return AsyncKernelManager
    from traitlets import CaselessStrEnum

    class IPCKernelManager(AsyncKernelManager):
        transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

        def _ip_default(self) -> str:
            name = f"haste-kernel-{uuid.uuid4().hex[:16]}-ipc"
            return os.path.join(tempfile.gettempdir(), name)

    return IPCKernelManager


def execute(
    name: str,
    parameters_: dict | None = None,
    run: Path | None = None,
    expected: float | None = None,
) -> float:
    """Execute chapter ``name``; seconds.

    Default (``run`` is None): the executed notebook and the chapter's records replace
    ``book/<name>.ipynb`` and ``book/results/<name>.json`` once the chapter succeeded.
    With ``run``, both go to that folder and ``book/`` is left as it is.
    """
    import papermill

    if not (BOOK / f"{name}.md").exists():
        raise SystemExit(
            f"no chapter {name!r}: book/{name}.md does not exist "
            f"(chapters: {chapters_present()})"
        )
    params = dict(parameters_ or {})
    try:
        parameters.check(name, params)
    except ValueError as exc:
        raise SystemExit(f"refused before any work: {exc}") from None
    unexecuted = _unexecuted(name)
    # the chapter writes its records to a scratch copy of the results (later chapters,
    # the scorecard, read the others there); one per chapter, so that two executions at
    # once do not share it
    results = run / "results" if run else SCRATCH / f"results-{name}"
    if run is None:
        shutil.rmtree(results, ignore_errors=True)
    if not results.exists():
        shutil.copytree(BOOK / "results", results)
    before = {p.name: p.read_bytes() for p in results.glob("*.json")}
    out = (run or SCRATCH) / f"{name}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    eta = f", about {expected:.0f} s" if expected else ""
    _progress(f"executing {name} with parameters {params}{eta}")
    log = SCRATCH / f"{name}.progress.log"
    log.write_text("")
    env_before = {
        k: os.environ.get(k) for k in (LOG_VARIABLE, RESULTS_VARIABLE, "PYTHONPATH")
    }
    os.environ[LOG_VARIABLE] = str(log)  # inherited by the kernel
    os.environ[RESULTS_VARIABLE] = str(results)
    # the kernel imports this checkout's helpers, whatever the installed one is
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [env_before["PYTHONPATH"]])]
    )
    stop = threading.Event()
    tail = threading.Thread(target=_tail, args=(log, name, stop), daemon=True)
    tail.start()
    t0 = time.perf_counter()
    try:
        papermill.execute_notebook(
            str(unexecuted),
            str(out),
            parameters=params,
            kernel_name="python3",
            kernel_manager_class=_kernel_manager(),
            cwd=str(BOOK),
            progress_bar=False,
            log_output=False,
        )
    except Exception as exc:
        raise SystemExit(
            f"chapter {name} failed; book/ is unchanged. The partly executed "
            f"notebook is {out}.\n{type(exc).__name__}: {exc}"
        ) from None
    finally:
        seconds = time.perf_counter() - t0
        stop.set()
        tail.join()
        for k, v in env_before.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    _strip_volatile(out)
    if run is None:  # success: only now does the committed book change
        os.replace(out, BOOK / f"{name}.ipynb")
        for p in results.glob("*.json"):
            if before.get(p.name) != p.read_bytes():
                shutil.copy2(p, BOOK / "results" / p.name)
    _progress(f"{name}: {seconds:.1f} s")
    return seconds


def _record_times(times: dict[str, float], profile: str = "default") -> None:
    """Times per chapter of a profile, in ``book/stats/execution.json`` (the default
    build's as it goes; another profile's only when asked, after every chapter ran)."""
    STATS.mkdir(parents=True, exist_ok=True)
    path = STATS / "execution.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data.setdefault("profiles", {}).setdefault(profile, {}).update(
        {k: round(v, 1) for k, v in times.items()}
    )
    data.setdefault("machines", {})[profile] = _machine()
    if profile == "default":
        data["machine"] = _machine()
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def _machine() -> dict:
    return {
        "cpus": os.cpu_count(),
        "cpu": rounding.cpu_model(),
        "platform": platform.platform(),
        "python": platform.python_version(),
    }


def _expected_seconds(name: str, profile: str) -> float | None:
    path = STATS / "execution.json"
    if not path.exists():
        return None
    times = json.loads(path.read_text()).get("profiles", {})
    return (times.get(profile) or {}).get(name) or (times.get("default") or {}).get(
        name
    )


def write_manifest(run: Path, profile: str, overrides: dict, times: dict) -> None:
    versions = {}
    for pkg in _PACKAGES:
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    commit = (
        subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        or None
    )
    data = {
        "profile": profile,
        "parameters": overrides,
        "chapters": times,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
        "commit": commit,
        "machine": _machine(),
        "xla_flags": os.environ.get(rounding.ISA_VARIABLE),
        "command": " ".join(sys.argv[1:]) if sys.argv[1:] else None,
        "versions": versions,
    }
    (run / "manifest.json").write_text(
        json.dumps(data, indent=2, sort_keys=True) + "\n"
    )


def _refuse_options(
    profile: str, overrides: dict, record_times: bool, isa, update_book: bool
) -> str:
    """Refuses (SystemExit) what :func:`execute_all` cannot do before any work: an
    unknown instruction set, ``update_book`` or ``record_times`` with parameters
    they do not take.

    Returns:
        The XLA flags of ``isa`` (:func:`helpers.book.rounding.isa_flags`).
    """
    try:
        flags = rounding.isa_flags(isa)
    except ValueError as exc:
        raise SystemExit(f"refused before any work: {exc}") from None
    if update_book and (overrides or profile != "default" or isa or record_times):
        raise SystemExit(
            "refused before any work: --update-book writes the committed book and "
            "takes the default profile and parameters alone (no -p, --profile, --isa "
            "or --record-times)"
        )
    if record_times and (overrides or profile == "default" or isa):
        raise SystemExit(
            "refused before any work: --record-times stores a profile's times "
            "and takes a --profile other than default and no -p "
            "parameters"
        )
    return flags


def _plan(names: list[str], profile: str, overrides: dict) -> dict:
    """Each chapter's parameters (the profile's, then the ``overrides`` it declares),
    checked; unknown chapters or parameters are refused before any chapter starts.

    Returns:
        ``{chapter: parameters}``.
    """
    unknown = [n for n in names if n not in CHAPTERS]
    if unknown:
        raise SystemExit(f"unknown chapters {unknown}; choose from {CHAPTERS}")
    declared = {n: parameters.declared(n) for n in names}
    for key in overrides:
        if not any(key in d for d in declared.values()):
            raise SystemExit(
                f"refused before any work: no chapter among {names} has a "
                f"parameter {key!r}"
            )
    plan = {}
    for n in names:
        params = {
            **PROFILES[profile].get(n, {}),
            **{k: v for k, v in overrides.items() if k in declared[n]},
        }
        try:
            parameters.check(n, params)
        except ValueError as exc:
            raise SystemExit(f"refused before any work: {exc}") from None
        plan[n] = params
    return plan


def _execute_each(
    names: list[str], plan: dict, run: Path | None, profile: str, overrides: dict
) -> dict[str, float]:
    """Executes the chapters in turn with their ``plan``, saying how long is left,
    and stores their times (``book/stats`` without a ``run``, else its manifest).

    Returns:
        ``{chapter: seconds}``.
    """
    expected = {n: _expected_seconds(n, profile) for n in names}
    times = {}
    t0 = time.perf_counter()
    for i, n in enumerate(names):
        left = [expected[m] for m in names[i:] if expected[m]]
        if left and i:
            _progress(
                f"{i}/{len(names)} chapters in {time.perf_counter() - t0:.0f} s; "
                f"about {sum(left):.0f} s left"
            )
        times[n] = execute(n, plan[n], run=run, expected=expected[n])
        if run is None:
            _record_times({n: times[n]})  # written per chapter: later chapters read it
        else:
            write_manifest(run, profile, overrides, times)
    _progress(
        f"executed {len(times)} chapters in {sum(times.values()):.1f} s"
        + (f"; the run is in {run}" if run else "")
    )
    return times


def execute_all(
    names: list[str],
    profile: str = "default",
    overrides: dict | None = None,
    record_times: bool = False,
    isa: str | None = None,
    update_book: bool = False,
):
    """Execute ``names`` with ``profile`` and ``overrides``; the run folder or None.

    ``update_book``: the maintainer's default execution, which replaces the committed
    notebooks and records in ``book/`` (refused with any other parameters, profile or
    instruction set); without it every execution is a run of its own, and the drift of
    its records from the committed ones is printed.

    ``isa``: XLA generates the CPU code of that instruction set
    (:func:`helpers.book.rounding.isa_flags`): another machine's float32 rounding,
    always a run of its own (``<profile>-isa-<ISA>``), never ``book/``.

    ``record_times``: a profile's run (no overrides) also stores its chapters' times in
    ``book/stats/execution.json`` once every chapter has succeeded (the Performance page
    reports them); the run's notebooks and records stay in the run's folder."""
    overrides = dict(overrides or {})
    flags = _refuse_options(profile, overrides, record_times, isa, update_book)
    plan = _plan(names, profile, overrides)
    key = run_key(profile, overrides, update_book)
    if isa:
        key = f"{key or profile}-isa-{isa}"
        os.environ[rounding.ISA_VARIABLE] = " ".join(
            x for x in (os.environ.get(rounding.ISA_VARIABLE), flags) if x
        )  # inherited by each chapter's kernel
        # another CPU's rounding is measured on runs trained here, never kept ones
        os.environ[store.KEPT_VARIABLE] = "off"
    run = None
    if key is not None:
        run = RUNS / key
        shutil.rmtree(run, ignore_errors=True)
        run.mkdir(parents=True)
    times = _execute_each(names, plan, run, profile, overrides)
    if record_times:
        _record_times(times, profile)
        _progress(f"stored the {profile} profile's times in {STATS / 'execution.json'}")
    if run is not None and profile == "default" and not overrides:
        mine = drift.load(run / "results")
        moved = drift.compare(drift.load(BOOK / "results"), mine, chapters=list(times))
        _progress(
            f"against the committed records: {drift.report(moved)} (book/ is "
            "unchanged; `execute --update-book` is the maintainers' path)"
        )
    return run


def _install_mathjax(root: Path) -> None:
    """Copy MathJax 3 (SVG output, fonts inside) from its Python package into the
    site."""
    try:
        import mathjax  # provided by the django-static-mathjax distribution
    except ImportError as exc:  # pragma: no cover - named in requirements.txt
        raise SystemExit("MathJax is missing: pip install -r requirements.txt") from exc
    src = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"
    if not src.exists():
        raise SystemExit(f"MathJax file not found at {src}")
    dst = root / "_mathjax" / "mathjax"  # not _static: Jupyter Book would load it twice
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst / "tex-svg.js")


def _site_config(root: Path) -> Path:
    """``_config.yml`` with the repository and launch buttons when a URL is configured,
    written beside the build; without a URL, no button links anywhere."""
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    url = repository_url()
    html = config.setdefault("html", {})
    if url:
        config["repository"] = {
            **(config.get("repository") or {}),
            "url": url,
            "branch": os.environ.get("HASTE_REPOSITORY_BRANCH", "main"),
        }
        html["use_repository_button"] = True
        config["launch_buttons"] = {
            "notebook_interface": "classic",
            "binderhub_url": "https://mybinder.org",
            "colab_url": "https://colab.research.google.com",
        }
    else:
        config.pop("repository", None)
        html["use_repository_button"] = False
        config["launch_buttons"] = {
            "notebook_interface": "classic",
            "binderhub_url": "",
            "colab_url": "",
            "jupyterhub_url": "",
            "thebe": False,
        }
    _page_furniture(config, root, url)
    path = root / "_build" / "_config.site.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def _page_furniture(config: dict, root: Path, url: str | None) -> None:
    """What every page carries: the version and date in the footer, the issues button
    (readers dispute verdicts there) where the repository is known, the bottom line of
    the scorecard for the intro page (``{{ bottom_line }}``, from the records the site
    shows), and, on a run's site, a banner on every page naming the run."""
    from . import glance, records, scorecard

    html = config.setdefault("html", {})
    html["use_issues_button"] = bool(url) and bool(html.get("use_issues_button"))
    version, commit, date = pdf_module.edition(ROOT)
    html["extra_footer"] = (
        f"<p>Version {version}, commit {commit} of {date}.</p>"
        f"<p>{html.get('extra_footer') or ''}</p>"
    )
    recs = records.load_all(root / "book" / "results")
    subs = config.setdefault("parse", {}).setdefault("myst_substitutions", {})
    subs["bottom_line"] = scorecard.bottom_line(recs)
    subs["in_words"] = "\n\n".join(scorecard.in_words(recs))
    subs["glance"] = glance.html(recs)
    banner = run_banner(root)
    if banner:
        import html as html_

        html["announcement"] = html_.escape(banner)
        subs["bottom_line"] = f"In this run: {subs['bottom_line']}"


def run_banner(root: Path) -> str | None:
    """What a run's site and PDF say on every page (the site's banner, the PDF's title
    page and footers): the run's profile, parameters, chapters, commit and time, from
    the run's ``manifest.json`` beside ``root`` (``<run>/site-src``); None for the
    committed book."""
    manifest = root.parent / "manifest.json"
    if root == ROOT or not manifest.exists():
        return None
    m = json.loads(manifest.read_text())
    params = json.dumps(m.get("parameters") or {}, sort_keys=True)
    return (
        f"This site shows a run, not the committed book: profile "
        f"{m.get('profile')}, parameters {params}, chapters "
        f"{', '.join(m.get('chapters') or {})}, commit "
        f"{(m.get('commit') or 'unknown')[:10]}, finished {m.get('finished')}."
    )


def _tree_from_run(run: Path) -> Path:
    """A copy of the book's sources with the run's executed notebooks, to build from."""
    run = run if run.is_absolute() else ROOT / run
    if not (run / "manifest.json").exists():
        raise SystemExit(
            f"{run} is not a run (no manifest.json); runs: "
            f"{sorted(p.name for p in RUNS.glob('*'))}"
        )
    # the scorecard (and with it every count) from the run's records, whichever
    # chapters the run executed
    for page in ("scorecard", "records", "researchers"):
        if page in CHAPTERS:
            execute(page, {}, run=run)
    root = run / "site-src"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    for name in ("_config.yml", "_toc.yml", "CITATION.cff"):  # the footer's release
        shutil.copy2(ROOT / name, root / name)
    shutil.copytree(  # kernel-ipc-*: a live (or killed) kernel's sockets
        BOOK,
        root / "book",
        ignore=shutil.ignore_patterns("*.md", "results", "kernel-ipc-*"),
    )
    for p in BOOK.glob("pages/*"):
        shutil.copy2(p, root / "book" / "pages" / p.name)
    for nb in run.glob("*.ipynb"):
        shutil.copy2(nb, root / "book" / nb.name)
    shutil.copytree(run / "results", root / "book" / "results")
    return root


def _jupyter_book(root: Path, builder: str, config: Path) -> list[str]:
    """The Jupyter Book 1.x build command (warnings are errors) for the site and the
    PDF's single page."""
    return [
        sys.executable,
        "-c",
        "import sys; from jupyter_book.cli.main import main; sys.exit(main())",
        "build",
        str(root),
        "--builder",
        builder,
        "--config",
        str(config),
        "--warningiserror",
        "--keep-going",
    ]


def site(builder: str = "html", source: Path | None = None) -> Path:
    """Build the static site with warnings as errors; returns the HTML folder."""
    root = ROOT if source is None else _tree_from_run(Path(source))
    _install_mathjax(root)
    config = _site_config(root)
    cmd = _jupyter_book(root, builder, config)
    _progress("building the site: jupyter-book " + " ".join(cmd[3:]))
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
    }  # the Sphinx extension lives in helpers
    res = subprocess.run(cmd, cwd=root, env=env)
    if res.returncode:
        raise SystemExit(
            f"site build failed (exit {res.returncode}); warnings count as errors"
        )
    html = root / "_build" / "html"
    if builder == "html":
        _point_colab_at_published_notebooks(html)
        pdf(root)
    _progress(f"site: {html / 'index.html'}")
    return html


PDF_NAME = pdf_module.PDF_NAME


def pdf(root: Path | None = None) -> Path | None:
    """The whole book as one PDF, ``<site>/make-haste-slowly.pdf``: Sphinx's single-page
    build, rewritten for print and printed by Debian's Chromium (offline), by
    :mod:`helpers.book.pdf`.  Skipped, with a message, where Chromium is missing."""
    root = root or ROOT
    config = root / "_build" / "_config.site.yml"
    return pdf_module.build(
        root,
        _jupyter_book(root, "singlehtml", config),
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        repository=repository_url(),
        run=run_banner(root),
    )


def _parse_value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _add_execute_commands(sub) -> None:
    """The commands ``build`` and ``execute`` and their options."""
    helps = {
        "build": "execute every chapter (or those named), then build the site",
        "execute": "execute chapters (default parameters update book/; others: a run)",
    }
    for cmd in ("build", "execute"):
        p = sub.add_parser(cmd, help=helps[cmd])
        p.add_argument(
            "chapters", nargs="*", help=f"chapters to execute (default all): {CHAPTERS}"
        )
        p.add_argument("--profile", default="default", choices=sorted(PROFILES))
        p.add_argument(
            "-p",
            "--parameter",
            nargs=2,
            action="append",
            default=[],
            metavar=("NAME", "VALUE"),
            help="a chapter parameter (VALUE read as JSON)",
        )
        p.add_argument(
            "--update-book",
            action="store_true",
            help="maintainers: a default execution replaces book/<chapter>.ipynb and "
            "its records (otherwise every execution is a run)",
        )
        p.add_argument(
            "--isa",
            choices=rounding.ISAS,
            default=None,
            help="limit XLA's CPU code to this instruction set (another machine's "
            "rounding): a run of its own",
        )
        p.add_argument(
            "--record-times",
            action="store_true",
            help=("store a profile's chapter times in book/stats/execution.json"),
        )


def _add_site_commands(sub) -> None:
    """The commands ``site``, ``drift``, ``notebook`` and ``colab-notebooks``."""
    s = sub.add_parser("site", help="build the site (and its PDF) of the book or a run")
    s.add_argument(
        "--from", dest="source", default=None, help="a run folder (_build/runs/...)"
    )
    d = sub.add_parser("drift", help="compare records with the committed ones")
    d.add_argument("--results", default=str(BOOK / "results"), help="records to check")
    d.add_argument(
        "--against", default="HEAD", help="git revision of the committed records"
    )
    nb = sub.add_parser(
        "notebook",
        help="an unpaired working copy of a chapter for JupyterLab (never book/)",
    )
    nb.add_argument("chapter", help=f"the chapter: {CHAPTERS}")
    n = sub.add_parser("colab-notebooks", help="the notebooks for Colab (workflow)")
    n.add_argument("dest", help="folder to write book/<chapter>.ipynb into")


def _add_maintainer_commands(sub) -> None:
    """The commands ``rounding``, ``gpu-check``, ``keep`` and ``crosscheck``."""
    r = sub.add_parser(
        "rounding",
        help="store the rounding floor of every record from runs (book/rounding/)",
    )
    r.add_argument("action", choices=["measure"])
    r.add_argument("runs", nargs="+", help="run folders (_build/runs/...)")
    r.add_argument(
        "--committed",
        default="HEAD",
        help="the git revision whose committed records join the executions",
    )
    r.add_argument(
        "--stale",
        nargs="*",
        default=[],
        help="chapters whose committed records other code made (left out of them)",
    )
    r.add_argument(
        "--chapters",
        nargs="+",
        default=None,
        help="measure only these chapters again (their code changed), keeping every "
        "other chapter's stored executions",
    )
    r.add_argument(
        "--add",
        action="store_true",
        help="with --chapters: the runs join the stored executions of those chapters "
        "(another machine of the same code), which keep their records",
    )
    g = sub.add_parser(
        "gpu-check",
        help="on a GPU machine: engine tests, benchmark, book and paper profile, timed",
    )
    g.add_argument("out", help="folder for gpu-check.json, the benchmark and logs")
    g.add_argument("--limit", type=float, required=True, help="seconds in all")
    g.add_argument("--reserve", type=float, default=30.0, help="seconds kept back")
    g.add_argument("--chapters", nargs="*", default=None, help="default book's")
    g.add_argument("--paper", nargs="*", default=None, help="paper profile's")
    k = sub.add_parser(
        "keep",
        help="maintainers: execute chapters and keep their long runs (book/kept)",
    )
    k.add_argument("chapters", nargs="+", help=f"chapters: {CHAPTERS}")
    crosscheck.add_arguments(
        sub.add_parser("crosscheck", help="run the authors' scripts from a local clone")
    )


def _parser() -> argparse.ArgumentParser:
    """The command line of ``python -m helpers.book``."""
    ap = argparse.ArgumentParser(
        prog="python -m helpers.book",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="<command>")
    _add_execute_commands(sub)
    _add_site_commands(sub)
    _add_maintainer_commands(sub)
    return ap


def _gpu_check(args) -> None:
    rep = gpucheck.run(
        Path(args.out), args.limit, args.reserve, args.chapters, args.paper
    )
    raise SystemExit(any(s["status"] == "failed" for s in rep["steps"]))


def _crosscheck(args) -> None:
    raise SystemExit(crosscheck.main(args))


def _keep(args) -> None:
    for name, m in kept.keep(args.chapters).items():
        mb = sum(r["bytes"] for r in m["runs"].values()) / 2**20
        _progress(f"kept {len(m['runs'])} runs of {name} ({mb:.1f} MiB)")


def _notebook(args) -> None:
    path = notebook_copy(args.chapter)
    print(f"{path.relative_to(ROOT)}  (open it: .venv/bin/jupyter lab {path})")


def _colab_notebooks(args) -> None:
    for path in colab_notebooks(Path(args.dest)):
        _progress(f"for Colab: {path}")


def _rounding(args) -> None:
    runs = {}
    for folder in args.runs:
        m = json.loads((Path(folder) / "manifest.json").read_text())
        plat = m.get("machine", {}).get("platform", "?")
        runs[rounding.machine_label(plat, m.get("xla_flags"))] = Path(folder)
    if args.add and not args.chapters:
        raise SystemExit("rounding measure --add needs --chapters")
    if args.chapters:
        print(rounding.store_chapters(runs, tuple(args.chapters), add=args.add))
    else:
        print(rounding.store(runs, args.committed, tuple(args.stale)))


def _drift(args) -> None:
    drifts = drift.compare(drift.committed(args.against), drift.load(args.results))
    drifts += drift.authors_runs(args.against)
    print(drift.report(drifts))
    raise SystemExit(1 if drifts else 0)


def _build_or_execute(args) -> None:
    overrides = {k: _parse_value(v) for k, v in args.parameter}
    run = execute_all(
        args.chapters or chapters_present(),
        args.profile,
        overrides,
        record_times=args.record_times,
        isa=args.isa,
        update_book=args.update_book,
    )
    if args.cmd == "build":
        site(source=run)


#: What each command of :func:`main` does with its arguments.
_COMMANDS = {
    "gpu-check": _gpu_check,
    "crosscheck": _crosscheck,
    "keep": _keep,
    "notebook": _notebook,
    "colab-notebooks": _colab_notebooks,
    "rounding": _rounding,
    "drift": _drift,
    "build": _build_or_execute,
    "execute": _build_or_execute,
    "site": lambda args: site(source=args.source),
}


def main(argv=None) -> None:
    args = _parser().parse_args(argv)
    _COMMANDS[args.cmd](args)


if __name__ == "__main__":
    main()
