"""The whole book as one PDF to print and keep, ``<site>/make-haste-slowly.pdf``:
Sphinx's single-page build rewritten for print (:func:`print_document`: a title page,
contents, a page per chapter and an outline of chapters and sections, links kept
inside the book, none of the site's chrome, tables fitted to the page) and printed by
Debian's Chromium (offline) through Playwright, page numbers in the footer, a run's
banner on its title page and footers.  ``tests/book/test_pdf.py`` checks all of this.
"""

from __future__ import annotations

import functools
import http.server
import logging
import re
import shutil
import subprocess
import threading
from html import escape
from pathlib import Path

from .progress import say as _progress
from .records import PRINT_OMIT

PDF_NAME = "make-haste-slowly.pdf"
PDF_PAGE = "whole-book.html"  # the single-page build, rewritten for print

#: Text of the site's interactive chrome; none of it may appear in the PDF.
UI_TEXT = (
    "Show code cell",
    "Hide code cell",
    "Skip to main content",
    "Back to top",
    "Ctrl+K",
    "Toggle navigation",
    "Color mode",
    "Fullscreen mode",
    "Launch Binder",
    "Download source file",
    "Copy to clipboard",
)

#: Removed before printing: the theme's navigation, buttons and toggles
#: (``details.hide``: a hidden cell's toggle and the code it hides).
CHROME = tuple(
    """
    script[src*='pydata-sphinx-theme'] .skip-link .bd-header .bd-header-article
    .header-article .bd-sidebar-primary .bd-sidebar-secondary .bd-sidebar
    .prev-next-area .prev-next-footer .bd-footer .bd-footer-article .bd-footer-content
    #pst-back-to-top #searchbox .search-button__wrapper #pst-search-dialog a.headerlink
    button .copybtn details.hide .pst-primary-sidebar-modal .pst-secondary-sidebar-modal
    dialog
    """.split()
)

PRINT_CSS = """
@page { size: A4; margin: 16mm 15mm 18mm 15mm; }
html, body { background: #fff !important; }
body { font-size: 9.5pt; }
.bd-page-width, .bd-main, .bd-content, .bd-article-container, .bd-article,
.bd-container, .bd-container__inner { max-width: none !important;
  width: auto !important; padding: 0 !important; margin: 0 !important;
  display: block !important; }
.pdf-title { break-after: page; text-align: center; padding-top: 55mm; }
.pdf-title h1.pdf-book-title { font-size: 24pt; margin-bottom: 8mm; }
.pdf-title p { font-size: 12pt; margin: 2mm 0; }
.pdf-title p.pdf-run { font-size: 11pt; margin: 10mm 12mm 0; padding: 3mm;
  border: 1px solid #a33; color: #a33; }
.pdf-contents { break-after: page; }
.pdf-contents ul { list-style: none; padding-left: 1.2em; }
section.pdf-chapter { break-before: page; }
.bd-main .bd-content .bd-article h1:first-of-type { display: block !important; }
h1, h2, h3, h4, h5 { break-after: avoid; }
.bd-main .bd-content table { break-inside: auto; }
pre, pre * { white-space: pre-wrap !important; overflow-wrap: anywhere !important;
  word-break: break-word; }
pre { overflow: visible !important; max-height: none !important; font-size: 8pt;
  break-inside: auto; }
div.highlight, div.cell_output, div.output, .pst-scrollable-table-container,
.table-wrapper, .docutils.container { overflow: visible !important;
  max-width: 100% !important; }
table { table-layout: auto !important; width: 100% !important; max-width: 100%;
  font-size: 8pt; }
th, td { white-space: normal !important; overflow-wrap: normal !important;
  word-break: normal !important; hyphens: manual; padding: 2px 4px !important; }
td code, th code { white-space: normal !important; overflow-wrap: normal !important; }
tr { break-inside: avoid; }
figure, div.figure, .cell_output img, div.output img, .sd-card { break-inside: avoid; }
.sd-dropdown { break-inside: auto !important; }  /* a long dropdown starts where
  the page has room, not on a page of its own (it breaks anyway) */
figcaption, .caption { break-before: avoid; }
img { max-width: 100% !important; height: auto !important; }
mjx-container[display="true"] { overflow: visible !important; max-width: 100%; }
mjx-container[display="true"] > svg { max-width: 100% !important; height: auto; }
details > summary { list-style: none; }
details > summary::-webkit-details-marker { display: none; }
a { color: inherit; text-decoration: none; }
a[href^="#"] { color: #1a4f8a; }
"""

FOOTER = (
    '<div style="font-size:8px;width:100%;text-align:center;color:#444;'
    'font-family:sans-serif">{note}<span class="pageNumber"></span> / '
    '<span class="totalPages"></span></div>'
)
#: A run's banner above the page number.
FOOTER_NOTE = '<div style="font-size:6.5px;color:#a33;margin:0 12mm 1px">{}</div>'


def footer(note: str | None = None) -> str:
    """The page footer: the page number, under a run's banner where ``note`` is one."""
    return FOOTER.format(note=FOOTER_NOTE.format(escape(note)) if note else "")


def release(root: Path) -> dict[str, str]:
    """``version``, ``date-released`` and ``title`` of ``CITATION.cff``."""
    cff = (Path(root) / "CITATION.cff").read_text()
    out = {}
    for name in ("version", "date-released", "title"):
        m = re.search(rf'^{name}:\s*"?([^"\n]+)"?', cff, re.M)
        if not m:
            raise ValueError(f"CITATION.cff has no {name}")
        out[name] = m.group(1).strip()
    return out


def edition(root: Path) -> tuple[str, str, str]:
    """``(helpers.__version__, the short commit of root or "unknown", the release
    date of CITATION.cff)``: the title page's and every page's footer."""
    from helpers import __version__

    git = ["git", "-C", str(root), "log", "-1", "--format=%h"]
    out = subprocess.run(git, capture_output=True, text=True).stdout.split()
    return __version__, out[0] if out else "unknown", release(root)["date-released"]


def print_document(
    html: str,
    page: str,
    *,
    title: str,
    author: str,
    version: str,
    date: str,
    repository: str | None = None,
    run: str | None = None,
) -> str:
    """The single-page build ``html`` (served as ``page``) rewritten for print;
    ``run``: a run's banner, printed on the title page."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for selector in CHROME:
        for tag in soup.select(selector):
            tag.decompose()
    for details in soup.select(f"details.{PRINT_OMIT}"):  # long appendices: a line
        summary = details.find("summary")
        note = soup.new_tag("p")
        note.string = (
            f"{summary.get_text(' ', strip=True) if summary else 'This appendix'}: "
            "on the site, and in the records' JSON (page For researchers)."
        )
        details.replace_with(note)
    for details in soup.find_all("details"):  # dropdowns print open
        details["open"] = ""
    _chapters(soup)
    _links(soup, page)
    # the title page and contents replace the theme's print-only title and contents
    old = soup.select_one("#jb-print-docs-body")
    nav = old.select_one("nav") if old else None
    run_line = f'<p class="pdf-run">{escape(run)}</p>' if run else ""
    front = BeautifulSoup(
        f'<div class="pdf-front"><div class="pdf-title">'
        f'<h1 class="pdf-book-title">{escape(title)}</h1>'
        f'<p class="pdf-author">{escape(author)}</p>'
        f'<p class="pdf-edition">Version {escape(version)}, {escape(date)}</p>'
        f'<p class="pdf-repository">{escape(repository or "")}</p>{run_line}</div>'
        '<div class="pdf-contents"><h1>Contents</h1></div></div>',
        "html.parser",
    )
    if nav is not None:
        drop = ("pst-show_toc_level", "nav", "section-nav")
        for ul in nav.select("ul"):
            ul["class"] = [c for c in ul.get("class", []) if c not in drop]
        for caption in nav.select("[role=heading]"):  # not headings of the outline
            del caption["role"], caption["aria-level"]
        front.select_one(".pdf-contents").append(nav.extract())
    article = soup.select_one("article.bd-article") or soup.body
    if old is not None:
        old.decompose()
    article.insert(0, front)
    style = soup.new_tag("style")
    style.string = PRINT_CSS
    soup.head.append(style)
    return str(soup)


def _chapters(soup) -> None:
    """Each document after the first starts a page, its title a top heading."""
    for anchor in soup.select('span[id^="document-"]'):
        section = anchor.find_next_sibling("section")
        heading = section.find(re.compile("^h[1-6]$")) if section else None
        if heading is None:
            continue
        section["class"] = [*section.get("class", []), "pdf-chapter"]
        shift = int(heading.name[1]) - 1
        for h in section.find_all(re.compile("^h[1-6]$")):
            level = max(2, min(6, int(h.name[1]) - shift))
            h.name = "h1" if h is heading else f"h{level}"


def _links(soup, page: str) -> None:
    """The links of ``soup`` (served as ``page``): inside the book, to its anchors; to
    pages not in the PDF, or to the local server, none."""
    here = page.rsplit("/", 1)[-1]
    for a in soup.find_all("a", href=True):
        href = a["href"]
        if href.startswith("#") or re.match(r"^[a-z][a-z0-9+.-]*:", href):
            if href.startswith(("http://127.", "http://localhost", "file:")):
                a.unwrap()
            continue
        path, _, frag = href.partition("#")
        if frag and (path == page or path.rsplit("/", 1)[-1] == here):
            a["href"] = f"#{frag}"
        else:
            a.unwrap()


#: The printed column in CSS pixels: A4's 210 mm less the margins of 15 mm, at 96 dpi.
PRINT_WIDTH = 680
#: A table wider than the column is set in a smaller type, step by step down to 5 pt,
#: and breaks lines at spaces only (and where a long name has a ``<wbr>``); one still
#: wider at 5 pt gets fixed column widths, each column's share growing with its text
#: and its longest word, and cells that break anywhere.  Returns how many of each.
FIT_TABLES_JS = """() => { const out = {smaller: 0, broken: 0};
for (const t of document.querySelectorAll('table')) {
  const fits = () => t.getBoundingClientRect().width
    <= t.parentElement.clientWidth + 1;
  if (fits()) continue;
  for (const pt of [7, 6.5, 6, 5.5, 5]) {
    t.style.fontSize = pt + 'pt';
    if (fits()) break;
  }
  if (fits()) { out.smaller++; continue; }
  out.broken++;
  const n = Math.max(...[...t.rows].map(r => r.cells.length));
  const text = Array(n).fill(0), word = Array(n).fill(1);
  for (const r of t.rows) [...r.cells].forEach((c, i) => {
    const s = c.innerText; text[i] += s.length;
    for (const w of s.split(/\\s+/))
      word[i] = Math.max(word[i], Math.min(w.length, 24));
  });
  const weight = text.map((x, i) => Math.max(Math.sqrt(x), word[i] / 2));
  const total = weight.reduce((a, b) => a + b, 0);
  t.querySelectorAll('colgroup').forEach(g => g.remove());
  const group = document.createElement('colgroup');
  for (const w of weight) {
    const col = document.createElement('col');
    col.style.width = Math.max(6, 100 * w / total).toFixed(1) + '%';
    group.appendChild(col);
  }
  t.prepend(group);
  t.style.tableLayout = 'fixed';
  t.querySelectorAll('td, th').forEach(c => {
    c.style.setProperty('overflow-wrap', 'anywhere', 'important'); });
}
return out; }"""
HEADINGS_JS = """() => [...document.querySelectorAll('h1,h2,h3,h4,h5,h6')]
  .filter(h => h.getClientRects().length)
  .map(h => h.innerText.replace(/\\s+/g, ' ').trim())"""


def fix_outline(path: Path, headings: list[str]) -> None:
    """Give the outline Chromium wrote the headings' own titles (Chromium joins a
    heading's lines without a space, repeats a line moved to the next page and drops
    math): entry i takes heading i where the counts agree, else the next heading
    (within a few) whose text it starts with, or that starts with it."""
    from pypdf import PdfWriter
    from pypdf.generic import NameObject, TextStringObject

    # Chromium's PDFs list fewer objects in their trailer than they hold, which pypdf
    # reports on reading and repairs: not a reader's concern
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    writer = PdfWriter(clone_from=str(path))
    outlines = writer.root_object.get("/Outlines")
    if outlines is None:
        return
    items = []

    def collect(item):
        while item is not None:
            item = item.get_object()
            items.append(item)
            if "/First" in item:
                collect(item["/First"])
            item = item.get("/Next")

    collect(outlines.get("/First"))
    if len(items) == len(headings):
        pairs = list(zip(items, headings))
    else:
        pairs, cursor = [], 0
        for item in items:
            title = re.sub(r"\s+", "", str(item.get("/Title", "")))
            for j in range(cursor, min(cursor + 8, len(headings))):
                head = re.sub(r"\s+", "", headings[j])
                if head and (title.startswith(head) or head.startswith(title)):
                    pairs.append((item, headings[j]))
                    cursor = j + 1
                    break
    for item, heading in pairs:
        item[NameObject("/Title")] = TextStringObject(heading)
    with open(path, "wb") as f:
        writer.write(f)


def print_pdf(
    folder: Path, page: str, out: Path, chromium: str, run: str | None = None
) -> None:
    """Print ``folder/page`` (served locally, MathJax typeset first) to ``out``;
    ``run``: a run's banner, printed in every page's footer."""
    from playwright.sync_api import sync_playwright

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as pw:
            flags = ["--headless", "--no-sandbox", "--disable-gpu"]
            browser = pw.chromium.launch(executable_path=chromium, args=flags)
            tab = browser.new_page()
            url = f"http://127.0.0.1:{server.server_address[1]}/{page}"
            tab.goto(url, wait_until="load", timeout=120_000)
            # Sphinx adds MathJax only to pages it sees math on, which the single page
            # is not: load the served copy, then wait until it has typeset everything
            if not tab.evaluate("() => !!(window.MathJax && MathJax.startup)"):
                tab.add_script_tag(url="/_static/mathjax/tex-svg.js")
            tab.wait_for_function(
                "() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                timeout=60_000,
            )
            tab.evaluate("() => MathJax.startup.promise")
            tab.emulate_media(media="print")
            tab.set_viewport_size({"width": PRINT_WIDTH, "height": 1000})
            fitted = tab.evaluate(FIT_TABLES_JS)
            if fitted["smaller"] or fitted["broken"]:
                _progress(
                    f"PDF: {fitted['smaller']} wide tables in a smaller type, "
                    f"{fitted['broken']} still too wide with words broken"
                )
            headings = tab.evaluate(HEADINGS_JS)
            tab.pdf(
                path=str(out),
                format="A4",
                print_background=True,
                prefer_css_page_size=True,
                outline=True,
                tagged=True,
                display_header_footer=True,
                header_template="<span></span>",
                footer_template=footer(run),
            )
            browser.close()
    finally:
        server.shutdown()
    fix_outline(out, headings)


def build(
    root: Path,
    command: list[str],
    env: dict,
    repository: str | None = None,
    run: str | None = None,
) -> Path | None:
    """Build the single page with ``command`` (Jupyter Book's ``singlehtml`` in
    ``root``) and print it to ``<root>/_build/html/make-haste-slowly.pdf``; ``run``: a
    run's banner.  Skipped, with a message, where Chromium is missing."""
    import yaml

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        _progress("PDF skipped: Chromium is not installed (apt-get install chromium)")
        return None
    res = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"single-page build for the PDF failed:\n{res.stdout[-3000:]}")
    single = root / "_build" / "singlehtml"
    config = yaml.safe_load((root / "_config.yml").read_text())
    root_doc = yaml.safe_load((root / "_toc.yml").read_text())["root"]
    version, _, date = edition(root)
    page = f"{root_doc}.html"
    text = print_document(
        (single / page).read_text(encoding="utf-8"),
        page,
        title=config.get("title", ""),
        author=config.get("author", ""),
        version=version,
        date=date,
        repository=repository,
        run=run,
    )
    # the single page is written under the root document's folder but links as if it
    # stood at the top (_static/, _images/): put the print document there
    (single / PDF_PAGE).write_text(text, encoding="utf-8")
    out = root / "_build" / "html" / PDF_NAME
    out.parent.mkdir(parents=True, exist_ok=True)
    print_pdf(single, PDF_PAGE, out, chromium, run=run)
    _progress(f"PDF: {out} ({out.stat().st_size / 1e6:.1f} MB)")
    return out
