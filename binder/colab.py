"""The book's set-up in Google Colab, run by every page's first (hidden) cell once the
repository is cloned (``runpy.run_path("/content/book/binder/colab.py")``).

It installs the book's pinned requirements and its package (helpers/) from the clone,
unless the package is installed already, makes the package importable in the running
kernel, and works in ``book/`` as the pages expect.  Plain Python: no JAX, nothing
from the book's package (which it installs).
"""

import os
import subprocess
import sys
from importlib import metadata

CLONE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "haste-book-helpers"  # the name in pyproject.toml


def main() -> None:
    if "google.colab" not in sys.modules:
        raise SystemExit("binder/colab.py sets up the book in Google Colab only")
    try:
        metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        pip = [sys.executable, "-m", "pip", "install", "-q"]
        req, pins = f"{CLONE}/requirements.txt", f"{CLONE}/constraints.txt"
        subprocess.run([*pip, "-r", req, "-c", pins], check=True)
        subprocess.run([*pip, "--no-deps", "-e", CLONE], check=True)
    if CLONE not in sys.path:  # the running kernel does not read the new install
        sys.path.insert(0, CLONE)
    os.chdir(f"{CLONE}/book")


main()
