"""Browser tests of the built site in headless Chromium (Debian's package).

Every page: it loads, the console shows no error, every image has loaded with a
non-zero size, math is typeset by the locally served MathJax, and every link inside the
book resolves (file and anchor). Requests to any other host are blocked and counted: a
page must need nothing from the network. The tests skip only where the browser is
missing and CI is not running.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from tests.conftest import site_lock

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.browser


def _repository():
    from helpers.book.build import repository_url

    return repository_url()


_REPOSITORY = _repository()


def _site_is_stale() -> bool:
    index = HTML / "index.html"
    if not index.exists():
        return True
    built = index.stat().st_mtime
    sources = (
        list((ROOT / "book").rglob("*.ipynb"))
        + list((ROOT / "book").rglob("*.md"))
        + [ROOT / "_toc.yml", ROOT / "_config.yml"]
    )
    return any(p.stat().st_mtime > built for p in sources if p.exists())


def need_chromium(what: str) -> None:
    """Skip where Chromium is missing, except on CI, which must run ``what``."""
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail(f"chromium is not installed, and CI must {what}")
        pytest.skip("chromium is not installed (apt-get install chromium)")


@pytest.fixture(scope="module")
def site():
    need_chromium("run the browser tests")
    with site_lock():  # the PDF's tests may build it in the other lane
        if _site_is_stale():
            from helpers.book.build import site as build_site

            build_site()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser(site):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


def _toc_docs() -> list[str]:
    """Every document of the book, from ``_toc.yml`` (so the tests exist before a
    build)."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    docs = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                docs.append(node["file"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc.get("parts", toc.get("chapters", [])))
    return [d.rsplit(".", 1)[0] if d.endswith((".ipynb", ".md")) else d for d in docs]


def _book_pages():
    return [f"{d}.html" for d in _toc_docs()]


#: Run in every page at each width, after the page's height is taken with every dropdown
#: open (a closed ``<details>`` hides its tables and text from layout):
#: - ``sideways``: how far the page itself scrolls sideways (a table or an equation
#:   wider than the column may scroll only inside its own box);
#: - ``tables``: tables that reach past the column outside a box that scrolls;
#: - ``cells``: cells narrower than their longest word, and words (or numbers) broken
#:   across lines inside a cell (a line may break at a space, after a dash, a slash or
#:   an underscore, or after a hyphen or a dot before a letter);
#: - ``equations``: display equations that reach past the column, and ``wide``: those
#:   wider than the column (they scroll inside it);
#: - ``leaks``: a role, directive or substitution left as raw text anywhere outside
#:   code (``{glue:text}``, ``{numref}``, ```{math}``, ``:::{note}``, ``{{ name }}``).
_LAYOUT = """() => {
  const doc = document.documentElement;
  const height = doc.scrollHeight;
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const art = document.querySelector('article.bd-article');
  const right = art.getBoundingClientRect().right;
  const shown = e => e.getClientRects().length > 0;
  const label = e => (e.innerText || e.textContent).replace(/\\s+/g, ' ').trim()
    .slice(0, 40);
  const scrolls = (e) => {
    for (let a = e.parentElement; a && a !== art; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if ((o === 'auto' || o === 'scroll') && a.getBoundingClientRect().right
          <= right + 1) return true;
    }
    return false;
  };
  const tables = [...art.querySelectorAll('table')].filter(shown)
    .filter(t => t.getBoundingClientRect().right > right + 1 && !scrolls(t))
    .map(t => Math.round(t.getBoundingClientRect().right - right));
  const cells = [];
  // a word may break after a dash, a slash or an underscore, or after a hyphen or a
  // dot before a letter (helpers.book.sphinx_ext marks those in long names); nowhere
  // else: never inside 7.1e-06
  const token = new RegExp('(?:[^\\\\s/_\u2013\u2014.-]|[.-](?![A-Za-z]))+'
    + '(?:[/_\u2013\u2014]|[.-](?=[A-Za-z]))*', 'g');
  for (const c of art.querySelectorAll('td, th')) {
    if (!shown(c)) continue;
    if (c.scrollWidth > c.clientWidth + 1) {
      cells.push('too narrow: ' + label(c));
      continue;
    }
    const walk = document.createTreeWalker(c, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      for (const m of n.data.matchAll(token)) {
        const r = document.createRange();
        r.setStart(n, m.index);
        r.setEnd(n, m.index + m[0].length);
        const lines = new Set([...r.getClientRects()]
          .filter(q => q.width > 0).map(q => Math.round(q.top)));
        if (lines.size > 1) cells.push('broken: ' + m[0]);
      }
    }
  }
  const maths = [...art.querySelectorAll('div.math, mjx-container[display="true"]')]
    .filter(shown);
  const equations = maths
    .map(e => Math.round(e.getBoundingClientRect().right - right)).filter(x => x > 1);
  const wide = [...art.querySelectorAll('mjx-container[display="true"]')].filter(shown)
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => (e.closest('div.math') || e).id + ' ' + e.scrollWidth + ' px in '
      + e.clientWidth);
  const copy = art.cloneNode(true);
  copy.querySelectorAll('pre, script, style, .math, mjx-container, div.highlight')
    .forEach(e => e.remove());
  // inline code may show braces (a dict, a format string), never a role
  const spans = [...copy.querySelectorAll('code')].map(e => e.textContent);
  copy.querySelectorAll('code').forEach(e => e.remove());
  const leaks = [
    ...(copy.textContent.match(
      /\\{[a-z][\\w-]*(:[\\w-]+)?\\}|```\\{|:::+\\{|\\{\\{ *[\\w.]+ *\\}\\}/g)
      || []),
    ...spans.flatMap(t => t.match(/\\{[a-z][\\w-]*:[\\w-]*\\}|\\{[a-z][\\w-]*\\}`/g)
      || [])];
  return {height, sideways: doc.scrollWidth - doc.clientWidth, tables,
          cells: cells.slice(0, 8), n_cells: cells.length, equations,
          wide, leaks: leaks.slice(0, 8)};
}"""
#: Widths a reader uses: a laptop and a phone.
WIDTHS = {"laptop": (1280, 800), "phone": (390, 844)}


_LAYOUTS: dict = {}


def _layout(browser, site, page, width):
    """The page's layout (:data:`_LAYOUT`) at a width, measured once a session."""
    if (page, width) not in _LAYOUTS:
        _LAYOUTS[page, width] = _measure(browser, site, page, width)
    return _LAYOUTS[page, width]


def _measure(browser, site, page, width):
    w, h = WIDTHS[width]
    pg = browser.new_page(viewport={"width": w, "height": h})
    pg.goto(f"{site}/{page}", wait_until="load")
    if pg.evaluate("document.querySelectorAll('.math').length"):
        pg.wait_for_function(
            "window.MathJax && MathJax.startup && MathJax.startup.promise",
            timeout=20000,
        )
        pg.evaluate("MathJax.startup.promise")
    out = pg.evaluate(_LAYOUT)
    pg.close()
    return out, h


def test_site_has_every_chapter(site):
    docs = _toc_docs()
    assert len(docs) >= 12
    for doc in docs:
        assert (HTML / f"{doc}.html").exists(), (
            f"{doc} is in _toc.yml but was not built"
        )


@pytest.mark.parametrize("page", _book_pages())
def test_page(browser, site, page):
    ctx = browser.new_context()
    external = []

    def route(r):
        host = urlparse(r.request.url).hostname
        if host in ("127.0.0.1", "localhost"):
            return r.continue_()
        external.append(r.request.url)
        return r.abort()

    ctx.route("**/*", route)
    pg = ctx.new_page()
    errors = []
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: errors.append(str(e)))
    resp = pg.goto(f"{site}/{page}", wait_until="load")
    assert resp is not None and resp.ok, (
        f"{page}: HTTP {resp.status if resp else 'no response'}"
    )

    # math: every math node typeset by MathJax (served from _static, no network)
    n_math = pg.evaluate("document.querySelectorAll('.math').length")
    if n_math:
        pg.wait_for_function(
            "window.MathJax && MathJax.startup && MathJax.startup.promise",
            timeout=20000,
        )
        pg.evaluate("MathJax.startup.promise")
        typeset = pg.evaluate("document.querySelectorAll('mjx-container').length")
        assert typeset >= n_math, f"{page}: {typeset} typeset of {n_math} math nodes"
        errors_in_math = pg.evaluate(
            "document.querySelectorAll('mjx-merror, [data-mjx-error]').length"
        )
        assert errors_in_math == 0, f"{page}: {errors_in_math} math errors"

    # images: all loaded, non-zero size
    bad = pg.evaluate(
        "[...document.images].filter(i => !i.complete || i.naturalWidth === 0 || "
        "i.naturalHeight === 0)"
        ".map(i => i.src)"
    )
    assert not bad, f"{page}: images not loaded: {bad}"

    # links inside the book resolve (file and anchor)
    hrefs = pg.evaluate(
        "[...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))"
    )
    here = (HTML / page).parent
    missing = []
    for href in hrefs:
        u = urlparse(href)
        if u.scheme or href.startswith(("mailto:", "javascript:")):
            continue
        target = (
            (here / unquote(u.path)).resolve() if u.path else (HTML / page).resolve()
        )
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            missing.append(href)
            continue
        if u.fragment and target.suffix == ".html":
            html = target.read_text(errors="replace")
            if f'id="{u.fragment}"' not in html and f"id='{u.fragment}'" not in html:
                missing.append(href)
    assert not missing, f"{page}: broken links {sorted(set(missing))[:10]}"
    if _REPOSITORY is None:  # no repository configured: no button may point anywhere
        launch = [
            h
            for h in hrefs
            if any(k in h for k in ("github.com", "mybinder", "colab."))
        ]
        assert not launch, f"{page}: links to an unconfigured repository: {launch[:3]}"
    icons = pg.evaluate(
        "[...document.querySelectorAll('link[rel~=icon]')].map(l => l.href)"
    )
    assert icons, f"{page}: no favicon link (the browser would request /favicon.ico)"
    assert not external, f"{page}: requested other hosts: {sorted(set(external))[:5]}"
    assert not errors, f"{page}: console errors {errors[:5]}"
    ctx.close()


def test_pdf_of_the_whole_book(browser, site):
    """The site serves one PDF of the whole book, printed from the single-page build
    that holds every chapter; the intro page links to it."""
    pdf = HTML / "make-haste-slowly.pdf"
    assert pdf.exists(), "the site build printed no PDF"
    ctx = browser.new_context()
    resp = ctx.request.get(f"{site}/make-haste-slowly.pdf")
    assert resp.ok and resp.body()[:5] == b"%PDF-" and len(resp.body()) > 200_000
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf.read_bytes()))
    assert pages >= len(_toc_docs()), f"{pages} pages for {len(_toc_docs())} documents"
    single = (ROOT / "_build" / "singlehtml" / "whole-book.html").read_text()
    for doc in _toc_docs():
        title = re.search(
            r"<h1>(.*?)(?:<a |</h1>)", (HTML / f"{doc}.html").read_text(), re.S
        )
        assert title and title.group(1).strip() in single, f"{doc} is not in the PDF"
    pg = ctx.new_page()
    pg.goto(f"{site}/{_toc_docs()[0]}.html", wait_until="load")
    links = pg.evaluate(
        "[...document.querySelectorAll('a[href$=\".pdf\"]')].map(a => a.href)"
    )
    assert any(h.endswith("/make-haste-slowly.pdf") for h in links), links
    ctx.close()


def test_figures_are_numbered_with_captions(browser, site):
    """Chapters' figures carry a number and a caption (mystnb figure metadata)."""
    pg = browser.new_page()
    pg.goto(f"{site}/book/background.html", wait_until="load")
    captions = pg.evaluate(
        "[...document.querySelectorAll('figure figcaption')].map(c => c.innerText)"
    )
    assert len(captions) >= 3
    assert all(c.strip().startswith("Fig.") for c in captions), captions
    pg.close()


@pytest.mark.parametrize("width", sorted(WIDTHS))
@pytest.mark.parametrize("page", _book_pages())
def test_page_fits_its_column_and_leaks_no_markup(browser, site, page, width):
    """With every dropdown open: the page does not scroll sideways (a wide table
    scrolls inside its own box); no cell is narrower than its longest word and no word
    or number is broken inside a cell; no display equation reaches past the column, and
    at 1280 px none is wider than it; no role, directive or substitution shows as raw
    text outside code."""
    out, _ = _layout(browser, site, page, width)
    assert not out["leaks"], f"{page}: raw markup on the page: {out['leaks']}"
    assert out["sideways"] <= 1, (
        f"{page} at {width}: the page scrolls sideways by {out['sideways']} px"
    )
    assert not out["tables"], (
        f"{page} at {width}: tables reach past the column by {out['tables']} px "
        "outside a box that scrolls"
    )
    assert not out["n_cells"], (
        f"{page} at {width}: {out['n_cells']} cells break or overflow a word, "
        f"e.g. {out['cells']}"
    )
    assert not out["equations"], (
        f"{page} at {width}: equations reach past the column by {out['equations']}"
    )
    if width == "laptop":
        assert not out["wide"], (
            f"{page} at {width}: equations wider than the column: {out['wide']}"
        )


#: The parts of ``_toc.yml`` that hold the chapters (the paper's, and beyond it).
CHAPTER_PARTS = ("Chapters", "Beyond the paper")


def _chapter_pages() -> list[str]:
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [
        f"{c['file']}.html".replace(".ipynb.html", ".html")
        for part in toc["parts"]
        if part["caption"] in CHAPTER_PARTS
        for c in part["chapters"]
    ]


@pytest.mark.parametrize("page", _chapter_pages())
def test_chapter_is_at_most_fifteen_screens(browser, site, page):
    """A chapter opens with its answer and follows the paper's figures; sweeps, tables
    and bookkeeping sit in dropdowns: at 1280 x 800 with every dropdown closed, no
    chapter is longer than 15 screens."""
    out, screen = _layout(browser, site, page, "laptop")
    assert out["height"] <= 15 * screen, f"{page}: {out['height'] / screen:.1f} screens"


def test_book_figures_are_numbered_per_chapter(site):
    """A book figure is "Fig. <chapter>.<n>", so that none reads as the paper's own
    (the paper's are named in each counterpart's caption)."""
    bare = {}
    for page in _book_pages():
        numbers = re.findall(
            r'caption-number">Fig\. ([\d.]+)', (HTML / page).read_text()
        )
        plain = [n for n in numbers if "." not in n.strip(".")]
        if plain:
            bare[page] = plain
    assert not bare, f"figures numbered without their chapter: {bare}"


def test_the_scorecard_is_under_twelve_screens(browser, site):
    out, screen = _layout(browser, site, "book/scorecard.html", "laptop")
    assert out["height"] < 12 * screen, (
        f"{out['height']} px: {out['height'] / screen:.1f}"
    )


def test_every_page_names_its_version_and_date(browser, site):
    import tomllib

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    for page in _book_pages():
        text = (HTML / page).read_text()
        assert re.search(
            rf"Version {re.escape(version)}, commit \w+ of [\d-]+", text
        ), page
    intro = (HTML / _book_pages()[0]).read_text()
    assert "inproceedings" in intro and "jarvis2025makehaste" in intro  # BibTeX
