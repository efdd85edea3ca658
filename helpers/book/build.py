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

Executing a chapter (``book/<name>.md``, jupytext) makes a *run* in
``_build/runs/<profile>[-<hash>]/`` (notebooks, records, a manifest; with default
parameters, its records' drift from the committed ones is printed); only the
maintainers' ``--update-book`` with default parameters rewrites ``book/``, once the
chapter succeeded.  Parameters are checked before any work starts.  The site build
turns Sphinx warnings into errors, serves MathJax itself and prints the whole book to
``_build/html/make-haste-slowly.pdf`` where Chromium is installed.
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
from unittest import mock

from ..core import store
from . import chapter_data, crosscheck, drift, gpucheck, kept, parameters, rounding
from . import pdf as pdf_module
from .chapter_data import BOOK, ROOT, chapters_present
from .progress import LOG_VARIABLE
from .progress import say as _progress
from .records import RESULTS_VARIABLE

STATS = BOOK / "stats"
RUNS = ROOT / "_build" / "runs"
SCRATCH = ROOT / "_build" / "papermill"
#: Where ``python -m helpers.book notebook`` writes a chapter's working copy.
NOTEBOOKS = ROOT / "_build" / "interactive" / "notebooks"

#: The chapters in execution order, and the profiles (:mod:`.chapter_data`).
CHAPTERS = list(chapter_data.chapters())
PROFILES = chapter_data.profiles()

#: Names the repository (the publish workflow sets it); else ``_config.yml``'s.
REPOSITORY_VARIABLE = "HASTE_REPOSITORY_URL"
#: The branch the publish workflow writes the notebooks to, with the repository in
#: their Colab cell (:func:`colab_notebooks`): what the site's Colab buttons open.
COLAB_BRANCH = "colab-notebooks"
_COLAB_LINK = re.compile(
    r"(https://colab\.research\.google\.com/github/[^/\"]+/[^/\"]+/blob/)[^/\"]+/"
)
_PACKAGES = "jax jaxlib numpy scipy scikit-learn matplotlib papermill jupyter-book"
_REFUSED = "refused before any work: "


def _checked(check, *args):
    """``check(*args)``, a ValueError refused (SystemExit) before any work."""
    try:
        return check(*args)
    except ValueError as exc:
        raise SystemExit(f"{_REFUSED}{exc}") from None


def _no_chapter(name: str, suffix: str) -> SystemExit:
    return SystemExit(
        f"no chapter {name!r}: book/{name}{suffix} does not exist "
        f"(chapters: {chapters_present()})"
    )


def _write_json(path: Path, data, indent: int = 1, **kw) -> None:
    path.write_text(json.dumps(data, indent=indent, **kw) + "\n")


def _config() -> dict:
    import yaml

    return yaml.safe_load((ROOT / "_config.yml").read_text())


def repository_url() -> str | None:
    """The book's repository: the environment variable, else ``_config.yml``."""
    url = os.environ.get(REPOSITORY_VARIABLE, "").strip()
    if not url:
        url = ((_config().get("repository") or {}).get("url") or "").strip()
    return url.rstrip("/") or None


def _with_repository(cell_source: str, url: str) -> str:
    return cell_source.replace("REPOSITORY = None", f"REPOSITORY = {url!r}")


def colab_notebooks(dest: Path) -> list[Path]:
    """The book's notebooks in ``dest/book/`` with the repository in their Colab cell
    (what the publish workflow commits to :data:`COLAB_BRANCH`)."""
    url = repository_url()
    if not url:
        raise SystemExit(
            f"no repository: set {REPOSITORY_VARIABLE} or repository.url in _config.yml"
        )
    (dest / "book").mkdir(parents=True, exist_ok=True)
    out = []
    for src in sorted(BOOK.glob("*.ipynb")):
        nb = json.loads(src.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                text = _with_repository("".join(cell["source"]), url)
                cell["source"] = text.splitlines(keepends=True)
        out.append(dest / "book" / src.name)
        _write_json(out[-1], nb, ensure_ascii=False)
    return out


def notebook_copy(name: str, dest: Path | None = None) -> Path:
    """A working copy of the executed chapter ``name`` for JupyterLab, in ``dest``
    (default :data:`NOTEBOOKS`): unpaired from jupytext (saving it never writes
    ``book/``), its MyST in plain Markdown with glued values filled in
    (:mod:`helpers.book.readable`)."""
    from . import readable, records, scorecard

    src = BOOK / f"{name}.ipynb"
    if not src.exists():
        raise _no_chapter(name, ".ipynb")
    nb = json.loads(src.read_text())
    nb.get("metadata", {}).pop("jupytext", None)
    recs = {name: records.load_all(BOOK / "results").get(name, {})}
    readable.readable(nb, lambda rec: scorecard.verdict_line(name, rec, recs))
    dest = Path(dest or NOTEBOOKS)
    dest.mkdir(parents=True, exist_ok=True)
    _write_json(dest / src.name, nb, ensure_ascii=False)
    return dest / src.name


def _point_colab_at_published_notebooks(html: Path) -> None:
    """Every page's Colab button opens the notebook on :data:`COLAB_BRANCH`."""
    for page in html.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        new = _COLAB_LINK.sub(rf"\g<1>{COLAB_BRANCH}/", text)
        if new != text:
            page.write_text(new, encoding="utf-8")


def run_key(profile: str, overrides: dict, update_book: bool = False) -> str | None:
    """Where a run goes: ``<profile>[-<hash>]``, or ``None`` for the maintainers'
    default execution that updates the committed book."""
    if profile == "default" and not overrides and update_book:
        return None
    if not overrides:
        return profile
    digest = hashlib.sha256(json.dumps(overrides, sort_keys=True).encode()).hexdigest()
    return f"{profile}-{digest[:8]}"


def _unexecuted(name: str) -> Path:
    """The chapter as a notebook with stable cell ids and the repository named."""
    import jupytext

    nb = jupytext.read(BOOK / f"{name}.md")
    url = repository_url()
    for i, cell in enumerate(nb.cells):  # stable ids: jupytext draws random ones
        cell["id"] = f"{name}-{i}"
        if cell.cell_type == "code" and url:
            cell.source = _with_repository(cell.source, url)
    SCRATCH.mkdir(parents=True, exist_ok=True)
    jupytext.write(nb, SCRATCH / f"{name}.ipynb")
    return SCRATCH / f"{name}.ipynb"


def _results(name: str, run: Path | None) -> Path:
    """Where the chapter's records go: a copy of the results (later chapters read them
    there), one per chapter so that two executions at once do not share it."""
    results = run / "results" if run else SCRATCH / f"results-{name}"
    if run is None:
        shutil.rmtree(results, ignore_errors=True)
    if not results.exists():
        shutil.copytree(BOOK / "results", results)
    return results


def _kernel_manager():
    """Papermill's kernel manager: IPC sockets (not local TCP, which ipykernel warns
    about), each kernel's in a folder of its own (two kernels in one folder took each
    other's messages); TCP on Windows."""
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


def _tail(log: Path, name: str, stop: threading.Event) -> None:
    """Echo the chapter's progress lines while it executes."""
    pos, done = 0, False
    while not done:
        done = stop.wait(1.0)
        text = log.read_text() if log.exists() else ""
        for line in text[pos:].splitlines():
            _progress(f"{name}: {line}")
        pos = len(text)


def execute(
    name: str,
    parameters_: dict | None = None,
    run: Path | None = None,
    expected: float | None = None,
) -> float:
    """Execute chapter ``name``; seconds.  Without ``run``, the executed notebook and
    its records replace ``book/``'s once the chapter succeeded; with ``run``, both go
    to that folder."""
    import papermill

    if not (BOOK / f"{name}.md").exists():
        raise _no_chapter(name, ".md")
    params = dict(parameters_ or {})
    _checked(parameters.check, name, params)
    unexecuted, results = _unexecuted(name), _results(name, run)
    before = {p.name: p.read_bytes() for p in results.glob("*.json")}
    out = (run or SCRATCH) / f"{name}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    eta = f", about {expected:.0f} s" if expected else ""
    _progress(f"executing {name} with parameters {params}{eta}")
    log = SCRATCH / f"{name}.progress.log"
    log.write_text("")
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    # inherited by the kernel, which imports this checkout's helpers
    env = {LOG_VARIABLE: str(log), RESULTS_VARIABLE: str(results), "PYTHONPATH": path}
    stop = threading.Event()
    tailing = threading.Thread(target=_tail, args=(log, name, stop), daemon=True)
    tailing.start()
    t0 = time.perf_counter()
    try:
        with mock.patch.dict(os.environ, env):
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
        tailing.join()
    _without_stamps(out)
    if run is None:  # success: only now does the committed book change
        os.replace(out, BOOK / f"{name}.ipynb")
        for p in results.glob("*.json"):
            if before.get(p.name) != p.read_bytes():
                shutil.copy2(p, BOOK / "results" / p.name)
    _progress(f"{name}: {seconds:.1f} s")
    return seconds


def _without_stamps(path: Path) -> None:
    """The executed notebook without per-cell timestamps and durations, so that two
    runs write the same file."""
    nb = json.loads(path.read_text())
    for cell in nb.get("cells", []):
        for k in ("execution", "papermill"):
            cell.get("metadata", {}).pop(k, None)
    pm = nb.get("metadata", {}).get("papermill", {})
    for k in "start_time end_time duration input_path output_path".split():
        pm.pop(k, None)
    pm.pop("environment_variables", None)
    _write_json(path, nb, ensure_ascii=False, sort_keys=True)


def _machine() -> dict:
    return {
        "cpus": os.cpu_count(),
        "cpu": rounding.cpu_model(),
        "platform": platform.platform(),
        "python": platform.python_version(),
    }


def _record_times(times: dict[str, float], profile: str = "default") -> None:
    """Stores a profile's times per chapter in ``book/stats/execution.json``."""
    STATS.mkdir(parents=True, exist_ok=True)
    path = STATS / "execution.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    rounded = {k: round(v, 1) for k, v in times.items()}
    data.setdefault("profiles", {}).setdefault(profile, {}).update(rounded)
    data.setdefault("machines", {})[profile] = _machine()
    if profile == "default":
        data["machine"] = _machine()
    _write_json(path, data, indent=2, sort_keys=True)


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def write_manifest(run: Path, profile: str, overrides: dict, times: dict) -> None:
    """The run's ``manifest.json``: parameters, times, commit, machine, versions."""
    git = ["git", "-C", str(ROOT), "rev-parse", "HEAD"]
    commit = subprocess.run(git, capture_output=True, text=True).stdout.strip()
    data = {
        "profile": profile,
        "parameters": overrides,
        "chapters": times,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
        "commit": commit or None,
        "machine": _machine(),
        "xla_flags": os.environ.get(rounding.ISA_VARIABLE),
        "command": " ".join(sys.argv[1:]) or None,
        "versions": {pkg: _version(pkg) for pkg in _PACKAGES.split()},
    }
    _write_json(run / "manifest.json", data, indent=2, sort_keys=True)


def _plan(names: list[str], profile: str, overrides: dict) -> dict[str, dict]:
    """Each chapter's parameters, checked: its profile's, then the overrides it
    declares (SystemExit for an unknown chapter, or a parameter none declares)."""
    unknown = [n for n in names if n not in CHAPTERS]
    if unknown:
        raise SystemExit(f"unknown chapters {unknown}; choose from {CHAPTERS}")
    declared = {n: parameters.declared(n) for n in names}
    for key in overrides:
        if not any(key in d for d in declared.values()):
            raise SystemExit(
                f"{_REFUSED}no chapter among {names} has a parameter {key!r}"
            )
    plan = {}
    for n in names:
        mine = {k: v for k, v in overrides.items() if k in declared[n]}
        plan[n] = {**PROFILES[profile].get(n, {}), **mine}
        _checked(parameters.check, n, plan[n])
    return plan


def _alone(profile: str, overrides: dict, record_times: bool, isa, update_book) -> None:
    """SystemExit for ``--update-book`` or ``--record-times`` with what they exclude."""
    if update_book and (overrides or profile != "default" or isa or record_times):
        raise SystemExit(
            f"{_REFUSED}--update-book writes the committed book and takes the default "
            "profile and parameters alone (no -p, --profile, --isa or --record-times)"
        )
    if record_times and (overrides or profile == "default" or isa):
        raise SystemExit(
            f"{_REFUSED}--record-times stores a profile's times and takes a --profile "
            "other than default and no -p parameters"
        )


def _expected(names: list[str], profile: str) -> dict:
    """Each chapter's seconds when last executed with ``profile`` (else by default)."""
    stats = STATS / "execution.json"
    past = json.loads(stats.read_text()).get("profiles", {}) if stats.exists() else {}
    return {
        n: (past.get(profile) or {}).get(n) or (past.get("default") or {}).get(n)
        for n in names
    }


def execute_all(
    names: list[str],
    profile: str = "default",
    overrides: dict | None = None,
    record_times: bool = False,
    isa: str | None = None,
    update_book: bool = False,
):
    """Execute ``names`` with ``profile`` and ``overrides``; the run folder, or None
    for ``update_book`` (the maintainers' default execution, which rewrites
    ``book/``).  ``isa``: XLA's CPU code of that instruction set, a run of its own
    (:func:`helpers.book.rounding.isa_flags`); ``record_times``: a profile's times go
    to ``book/stats/execution.json``.  What cannot run is refused before any chapter
    starts."""
    overrides = dict(overrides or {})
    flags = _checked(rounding.isa_flags, isa)
    _alone(profile, overrides, record_times, isa, update_book)
    plan, expected = _plan(names, profile, overrides), _expected(names, profile)
    key = run_key(profile, overrides, update_book)
    if isa:
        key = f"{key or profile}-isa-{isa}"
        os.environ[rounding.ISA_VARIABLE] = " ".join(
            x for x in (os.environ.get(rounding.ISA_VARIABLE), flags) if x
        )  # inherited by each chapter's kernel
        # another CPU's rounding is measured on runs trained here, never kept ones
        os.environ[store.KEPT_VARIABLE] = "off"
    run = None if key is None else RUNS / key
    if run:
        shutil.rmtree(run, ignore_errors=True)
        run.mkdir(parents=True)
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


def _site_config(root: Path) -> Path:
    """``_config.yml`` for the build: launch buttons only where a URL is configured."""
    import yaml

    config, url = _config(), repository_url()
    html = config.setdefault("html", {})
    html["use_repository_button"] = bool(url)
    buttons = {"notebook_interface": "classic"}
    if url:
        branch = os.environ.get("HASTE_REPOSITORY_BRANCH", "main")
        old = config.get("repository") or {}
        config["repository"] = {**old, "url": url, "branch": branch}
        buttons["binderhub_url"] = "https://mybinder.org"
        buttons["colab_url"] = "https://colab.research.google.com"
    else:
        config.pop("repository", None)
        buttons.update(binderhub_url="", colab_url="", jupyterhub_url="", thebe=False)
    config["launch_buttons"] = buttons
    _page_furniture(config, root, url)
    path = root / "_build" / "_config.site.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def _page_furniture(config: dict, root: Path, url: str | None) -> None:
    """The footer, the issues button, the scorecard's substitutions, a run's banner."""
    import html as html_

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
        html["announcement"] = html_.escape(banner)
        subs["bottom_line"] = f"In this run: {subs['bottom_line']}"


def run_banner(root: Path) -> str | None:
    """What a run's site and PDF say on every page: the profile, parameters,
    chapters, commit and time of the ``manifest.json`` beside ``root``
    (``<run>/site-src``); None for the committed book."""
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
    # the scorecard (and every count) from the run's records, whichever chapters ran
    for page in ("scorecard", "records", "researchers"):
        if page in CHAPTERS:
            execute(page, {}, run=run)
    root = run / "site-src"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    for name in ("_config.yml", "_toc.yml", "CITATION.cff"):  # the footer's release
        shutil.copy2(ROOT / name, root / name)
    # kernel-ipc-*: a live (or killed) kernel's sockets
    skip = shutil.ignore_patterns("*.md", "results", "kernel-ipc-*")
    shutil.copytree(BOOK, root / "book", ignore=skip)
    for p in BOOK.glob("pages/*"):
        shutil.copy2(p, root / "book" / "pages" / p.name)
    for nb in run.glob("*.ipynb"):
        shutil.copy2(nb, root / "book" / nb.name)
    shutil.copytree(run / "results", root / "book" / "results")
    return root


def _jupyter_book(root: Path, builder: str, config: Path) -> list[str]:
    """The Jupyter Book 1.x build command (warnings are errors)."""
    main = "import sys; from jupyter_book.cli.main import main; sys.exit(main())"
    options = ["--builder", builder, "--config", str(config), "--warningiserror"]
    return [sys.executable, "-c", main, "build", str(root), *options, "--keep-going"]


def site(builder: str = "html", source: Path | None = None) -> Path:
    """Build the static site with warnings as errors; returns the HTML folder."""
    root = ROOT if source is None else _tree_from_run(Path(source))
    try:  # MathJax 3 (SVG output, fonts inside), from its Python package
        import mathjax  # provided by the django-static-mathjax distribution
    except ImportError as exc:  # pragma: no cover - named in requirements.txt
        raise SystemExit("MathJax is missing: pip install -r requirements.txt") from exc
    src = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"
    if not src.exists():
        raise SystemExit(f"MathJax file not found at {src}")
    dst = root / "_mathjax" / "mathjax"  # not _static: Jupyter Book would load it twice
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst / "tex-svg.js")
    cmd = _jupyter_book(root, builder, _site_config(root))
    _progress("building the site: jupyter-book " + " ".join(cmd[3:]))
    # the Sphinx extension lives in helpers
    res = subprocess.run(cmd, cwd=root, env={**os.environ, "PYTHONPATH": str(ROOT)})
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


def pdf(root: Path | None = None) -> Path | None:
    """The whole book as one PDF, ``<site>/make-haste-slowly.pdf``
    (:mod:`helpers.book.pdf`); skipped, with a message, where Chromium is missing."""
    root = root or ROOT
    cmd = _jupyter_book(root, "singlehtml", root / "_build" / "_config.site.yml")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return pdf_module.build(root, cmd, env, repository_url(), run_banner(root))


def _execution_arguments(add) -> None:
    """The arguments of ``build`` and ``execute`` (``add``: its ``add_argument``)."""
    add("chapters", nargs="*", help=f"chapters to execute (default all): {CHAPTERS}")
    add("--profile", default="default", choices=sorted(PROFILES))
    text = "a chapter parameter (VALUE read as JSON)"
    add(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        help=text,
        metavar=("NAME", "VALUE"),
    )
    add(
        "--update-book",
        action="store_true",
        help="maintainers: a default execution "
        "replaces book/<chapter>.ipynb and its records (otherwise every execution is "
        "a run)",
    )
    add(
        "--isa",
        choices=rounding.ISAS,
        help="limit XLA's CPU code to this "
        "instruction set (another machine's rounding): a run of its own",
    )
    text = "store a profile's chapter times in book/stats/execution.json"
    add("--record-times", action="store_true", help=text)


def _parser() -> argparse.ArgumentParser:
    """The command line of ``python -m helpers.book``."""
    ap = argparse.ArgumentParser(
        prog="python -m helpers.book",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="<command>")

    def command(name: str, text: str):
        return sub.add_parser(name, help=text).add_argument

    text = "execute every chapter (or those named), then build the site"
    _execution_arguments(command("build", text))
    text = "execute chapters (default parameters update book/; others: a run)"
    _execution_arguments(command("execute", text))
    add = command("site", "build the site (and its PDF) of the book or a run")
    add("--from", dest="source", help="a run folder (_build/runs/...)")
    add = command("drift", "compare records with the committed ones")
    add("--results", default=str(BOOK / "results"), help="records to check")
    add("--against", default="HEAD", help="git revision of the committed records")
    text = "an unpaired working copy of a chapter for JupyterLab (never book/)"
    command("notebook", text)("chapter", help=f"the chapter: {CHAPTERS}")
    add = command("colab-notebooks", "the notebooks for Colab (workflow)")
    add("dest", help="folder to write book/<chapter>.ipynb into")
    text = "store the rounding floor of every record from runs (book/rounding/)"
    add = command("rounding", text)
    add("action", choices=["measure"])
    add("runs", nargs="+", help="run folders (_build/runs/...)")
    text = "the git revision whose committed records join the executions"
    add("--committed", default="HEAD", help=text)
    text = "chapters whose committed records other code made (left out of them)"
    add("--stale", nargs="*", default=[], help=text)
    add(
        "--chapters",
        nargs="+",
        help="measure only these chapters again (their "
        "code changed), keeping every other chapter's stored executions",
    )
    add(
        "--add",
        action="store_true",
        help="with --chapters: the runs join the "
        "stored executions of those chapters (another machine of the same code), "
        "which keep their records",
    )
    text = "on a GPU machine: engine tests, benchmark, book and paper profile, timed"
    add = command("gpu-check", text)
    add("out", help="folder for gpu-check.json, the benchmark and logs")
    add("--limit", type=float, required=True, help="seconds in all")
    add("--reserve", type=float, default=30.0, help="seconds kept back")
    add("--chapters", nargs="*", help="default book's")
    add("--paper", nargs="*", help="paper profile's")
    text = "maintainers: execute chapters and keep their long runs (book/kept)"
    command("keep", text)("chapters", nargs="+", help=f"chapters: {CHAPTERS}")
    text = "run the authors' scripts from a local clone"
    crosscheck.add_arguments(sub.add_parser("crosscheck", help=text))
    return ap


def _json_or_text(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _rounding(args) -> str:
    """``rounding measure``: the floors of the runs' records, stored."""
    if args.add and not args.chapters:
        raise SystemExit("rounding measure --add needs --chapters")
    runs = {}
    for folder in args.runs:
        m = json.loads((Path(folder) / "manifest.json").read_text())
        plat = m.get("machine", {}).get("platform", "?")
        runs[rounding.machine_label(plat, m.get("xla_flags"))] = Path(folder)
    if args.chapters:
        return rounding.store_chapters(runs, tuple(args.chapters), add=args.add)
    return rounding.store(runs, args.committed, tuple(args.stale))


def main(argv=None) -> None:
    args = _parser().parse_args(argv)
    if args.cmd in ("build", "execute"):
        overrides = {k: _json_or_text(v) for k, v in args.parameter}
        run = execute_all(
            args.chapters or chapters_present(),
            args.profile,
            overrides,
            args.record_times,
            args.isa,
            args.update_book,
        )
        if args.cmd == "build":
            site(source=run)
    elif args.cmd == "site":
        site(source=args.source)
    elif args.cmd == "drift":
        drifts = drift.compare(drift.committed(args.against), drift.load(args.results))
        drifts += drift.authors_runs(args.against)
        print(drift.report(drifts))
        raise SystemExit(1 if drifts else 0)
    elif args.cmd == "notebook":
        path = notebook_copy(args.chapter)
        print(f"{path.relative_to(ROOT)}  (open it: .venv/bin/jupyter lab {path})")
    elif args.cmd == "colab-notebooks":
        for path in colab_notebooks(Path(args.dest)):
            _progress(f"for Colab: {path}")
    elif args.cmd == "rounding":
        print(_rounding(args))
    elif args.cmd == "gpu-check":
        rep = gpucheck.run(
            Path(args.out), args.limit, args.reserve, args.chapters, args.paper
        )
        raise SystemExit(any(s["status"] == "failed" for s in rep["steps"]))
    elif args.cmd == "keep":
        for name, m in kept.keep(args.chapters).items():
            mb = sum(r["bytes"] for r in m["runs"].values()) / 2**20
            _progress(f"kept {len(m['runs'])} runs of {name} ({mb:.1f} MiB)")
    else:
        raise SystemExit(crosscheck.main(args))


if __name__ == "__main__":
    main()
