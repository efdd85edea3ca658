"""The book's set-up in Google Colab, run by every page's first (hidden) cell once the
repository is cloned (``runpy.run_path("/content/book/binder/colab.py")``).

Colab's kernel is already running with its own NumPy, IPython, ipykernel, tornado and
pyzmq loaded; replacing any of them under it needs a restart and can crash the runtime.
So this installs only what the pages need and Colab lacks: the pins of
``binder/requirements.txt`` (the numerical core and myst-nb, as in
``requirements.txt``) that are missing or at another version, and never one whose module
the kernel has loaded, which stays at Colab's version and is named.  pip gets a
constraints file that holds every loaded distribution and the kernel's own packages at
the versions Colab has, so nothing the kernel uses changes (should a pin need a newer
version of a loaded package, it is installed with only the kernel's own packages held,
and the reader is asked to restart the session).  The book's package is not
installed: the clone goes on ``sys.path`` (and ``PYTHONPATH``), and the pages work in
``book/`` as they expect.  Plain Python: nothing from the book's package.

``HASTE_COLAB_PIP_ARGS`` adds arguments to pip's command (the test installs offline
with ``--no-index --find-links <wheels>``).
"""

import os
import re
import shlex
import subprocess
import sys
import tempfile
from importlib import metadata

CLONE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNTIME = os.path.join(CLONE, "binder", "requirements.txt")
#: Colab's kernel and server: never installed over, whatever the pages pin.
KERNEL = (
    "ipykernel",
    "ipython",
    "jupyter-client",
    "jupyter-core",
    "jupyter-server",
    "notebook",
    "pyzmq",
    "tornado",
    "traitlets",
    "google-colab",
)
PIP_ARGS_VARIABLE = "HASTE_COLAB_PIP_ARGS"


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path: str = RUNTIME) -> dict:
    """``{distribution: version}`` of a requirements file of ``name==version`` lines."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if line:
                name, version = line.split("==")
                out[canonical(name)] = version.strip()
    return out


def installed() -> dict:
    """``{distribution: version}`` of what this Python has."""
    return {canonical(d.metadata["Name"]): d.version for d in metadata.distributions()}


def loaded(have: dict) -> dict:
    """``{distribution: version}`` of the distributions whose modules are imported."""
    owners = metadata.packages_distributions()
    names = {m.split(".")[0] for m in list(sys.modules)}
    out = {}
    for top in names:
        for dist in owners.get(top, ()):
            if canonical(dist) in have:
                out[canonical(dist)] = have[canonical(dist)]
    return out


def plan(want: dict, have: dict, in_use: dict) -> tuple[list, dict, dict]:
    """What to install (``name==version``), what to keep though the book pins another
    version (``{name: (Colab's, the pin)}``), and the constraints that hold the loaded
    distributions and the kernel's packages where they are."""
    install, keep = [], {}
    for name, version in want.items():
        if have.get(name) == version:
            continue
        if name in in_use or name in KERNEL:
            keep[name] = (have.get(name), version)
        else:
            install.append(f"{name}=={version}")
    held = {**{n: have[n] for n in KERNEL if n in have}, **in_use}
    return install, keep, dict(sorted(held.items()))


def command(install: list, constraints: str) -> list:
    """pip's command for ``install`` under the ``constraints`` file."""
    extra = shlex.split(os.environ.get(PIP_ARGS_VARIABLE, ""))
    return [
        sys.executable,
        "-m",
        "pip",
        "install",
        "-q",
        *install,
        "-c",
        constraints,
        *extra,
    ]


def _pip(install: list, held: dict, check: bool = False) -> int:
    """Run pip for ``install`` with ``held`` as constraints; its exit status."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("".join(f"{n}=={v}\n" for n, v in held.items()))
    return subprocess.run(command(install, f.name), check=check).returncode


def main() -> None:
    if "google.colab" not in sys.modules:
        raise SystemExit("binder/colab.py sets up the book in Google Colab only")
    have = installed()
    install, keep, held = plan(pins(), have, loaded(have))
    for name, (theirs, ours) in sorted(keep.items()):
        print(
            f"[book] keeping Colab's {name} {theirs} (the running kernel uses it; "
            f"the book pins {ours}): a number may differ in its last digits"
        )
    if install:
        print("[book] installing " + " ".join(install), flush=True)
        if _pip(install, held):
            # a pin needs a newer version of a loaded package: install it all, the
            # kernel's own packages still held, and have the runtime restarted
            _pip(install, {n: v for n, v in held.items() if n in KERNEL}, check=True)
            raise SystemExit(
                "[book] installed, but a package the running kernel had loaded "
                "changed: restart the session (Runtime > Restart session) and run "
                "this cell again"
            )
        import importlib

        importlib.invalidate_caches()
    else:
        print("[book] Colab has every package the pages need")
    if CLONE not in sys.path:  # the pages import the book's package from the clone
        sys.path.insert(0, CLONE)
    path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = CLONE + (os.pathsep + path if path else "")
    os.chdir(os.path.join(CLONE, "book"))


if __name__ in ("__main__", "<run_path>"):  # the page's runpy.run_path, not a test
    main()
