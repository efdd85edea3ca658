"""The PDF of the whole book (``_build/html/make-haste-slowly.pdf``), read back with
pypdf: a title page with the version and date, an outline of every chapter with its
sections, page numbers on every page, links that stay inside the document or go to a
real address (never to the temporary print server), and none of the site's interactive
chrome.  The PDF comes with the site build that the browser tests use (built once, when
the site is older than the book's sources); the rewriting for print is checked on a
small page without any build."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import helpers
from helpers.book import pdf as book_pdf
from tests.conftest import site_lock

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
PDF = HTML / book_pdf.PDF_NAME


def _chapter_titles() -> list[str]:
    """Each chapter's title, the first ``# `` heading of its page."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    titles = []
    for f in files:
        src = ROOT / (f.removesuffix(".ipynb") + ".md")
        heading = re.search(r"^# (.+)$", src.read_text(), re.M)
        titles.append(heading.group(1).strip())
    return titles


@pytest.fixture(scope="module")
def reader():
    from pypdf import PdfReader

    from tests.book.test_site import _site_is_stale, need_chromium

    need_chromium("build the PDF")
    with site_lock():  # the browser tests may build it in the other lane
        if _site_is_stale():  # the browser tests would build it: one build serves both
            from helpers.book.build import site

            site()
        elif (
            not PDF.exists()
            or PDF.stat().st_mtime < (HTML / "index.html").stat().st_mtime
        ):
            from helpers.book.build import pdf

            pdf()
    return PdfReader(str(PDF))


def _plain(text: str) -> str:
    """``text`` with Sphinx's typographic quotes and dashes made plain."""
    return text.translate(
        str.maketrans("\u2018\u2019\u201c\u201d\u2013\u2014", "''\"\"--")
    )


def _outline(reader):
    """``[(depth, title, page index)]`` in document order."""
    out = []

    def walk(items, depth):
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                out.append(
                    (depth, item.title, reader.get_destination_page_number(item))
                )

    walk(reader.outline, 0)
    return out


@pytest.fixture(scope="module")
def texts(reader):
    return [page.extract_text() or "" for page in reader.pages]


@pytest.mark.browser  # reads the PDF the site build prints
def test_the_title_page_names_the_book_its_version_and_date(texts):
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    first = " ".join(texts[0].split())
    assert config["title"] in first
    assert re.search(
        rf"Version {re.escape(helpers.__version__)}, \d{{4}}-\d\d-\d\d", first
    )


@pytest.mark.browser  # reads the PDF the site build prints
def test_the_outline_has_every_chapter_with_its_sections(reader):
    # a numbered chapter's or section's title carries its number ("4.2. Loss")
    outline = [
        (depth, re.sub(r"^\d+(\.\d+)*\.\s+", "", title), page)
        for depth, title, page in _outline(reader)
    ]
    top = [_plain(title) for depth, title, _ in outline if depth == 0]
    for title in _chapter_titles():
        assert _plain(title) in top, f"chapter {title!r} is not in the PDF's outline"
    pages = [page for depth, _, page in outline if depth == 0]
    assert pages == sorted(pages), "the chapters' bookmarks are out of order"
    nested = [title for depth, title, _ in outline if depth == 1]
    assert len(nested) >= 2 * len(_chapter_titles()), "sections missing from outline"
    # titles are the headings' own (no words run together, no repeats)
    assert "Summary" in nested and not any(t == t[: len(t) // 2] * 2 for t in nested)
    squeezed = [re.sub(r"\s+", "", t) for _, t, _ in outline]
    repeated = [t for t in squeezed if len(t) >= 24 and t[:12] in t[12:]]
    assert not repeated, f"titles with a line repeated by the printer: {repeated}"


@pytest.mark.browser  # reads the PDF the site build prints
def test_the_pdf_is_under_250_pages_with_no_near_empty_page(reader, texts):
    """The every-record appendices and the scorecard's details print as a line each
    (they are on the site and in the records' JSON); no page inside a chapter is
    nearly empty (under 300 characters and no figure) except a chapter's last."""
    n = len(texts)
    assert n < 250, f"{n} pages"
    starts = {page for depth, _, page in _outline(reader) if depth == 0}
    empty = [
        i + 1
        for i, (page, text) in enumerate(zip(reader.pages, texts))
        if i + 1 < n
        and i + 1 not in starts
        and len(text.replace(f"{i + 1} / {n}", "").strip()) < 300
        and not page.images
    ]
    assert not empty, f"near-empty pages inside a chapter: {empty}"


@pytest.mark.browser  # reads the PDF the site build prints
def test_every_page_is_numbered(texts):
    n = len(texts)
    missing = [i + 1 for i, t in enumerate(texts) if f"{i + 1} / {n}" not in t]
    assert not missing, f"pages without their number: {missing[:10]}"


@pytest.mark.browser  # reads the PDF the site build prints
def test_links_stay_in_the_document_or_go_to_a_real_address(reader):
    names = set(reader.named_destinations)
    internal, broken, local = 0, [], []
    for i, page in enumerate(reader.pages):
        for annot in page.get("/Annots") or []:
            annot = annot.get_object()
            action = annot.get("/A")
            if action is not None and "/URI" in action:
                uri = str(action["/URI"])
                if re.match(r"^(https?://(127\.|localhost|0\.0\.0\.0)|file:)", uri):
                    local.append((i + 1, uri))
                continue
            dest = annot.get("/Dest")
            if dest is None and action is not None:
                dest = action.get("/D")
            if dest is None:
                continue
            internal += 1
            if isinstance(dest, str) and dest not in names:
                broken.append((i + 1, dest))
    assert not local, f"links to a local server: {local[:5]}"
    assert not broken, f"links to no destination: {broken[:5]}"
    assert internal >= 100, f"only {internal} links inside the book"


@pytest.mark.browser  # reads the PDF the site build prints
def test_no_page_shows_the_sites_chrome(texts):
    found = [
        (i + 1, ui) for i, t in enumerate(texts) for ui in book_pdf.UI_TEXT if ui in t
    ]
    assert not found, f"interactive text printed: {found[:10]}"


# --- the rewriting for print, on a small page (no build) ---------------------------

PAGE = """<html><head><title>t</title></head><body>
<div class="bd-header"><button>Search</button></div>
<div id="jb-print-docs-body"><h1>Book</h1><nav><p role="heading" aria-level="2"
 class="caption">Chapters</p><ul class="nav section-nav"><li>
 <a href="#document-book/xor">XoR</a></li></ul></nav></div>
<article class="bd-article">
<section id="intro"><h1>Intro<a class="headerlink" href="#intro">#</a></h1>
<p><a href="book/pages/intro.html#xor-sec">to XoR</a> <a href="search.html">search</a>
<a href="../../make-haste-slowly.pdf">pdf</a> <a href="https://example.org/x">out</a></p>
</section>
<span id="document-book/xor"></span><section id="xor-sec"><h3>XoR</h3>
<section id="task"><h4>The task</h4>
<details class="hide above-input"><summary>Show code cell source</summary>
<pre>code</pre></details>
<details class="sd-dropdown"><summary>Details</summary><p>inside</p></details>
<details class="sd-dropdown print-omit"><summary>Every record</summary><p>long</p>
</details>
</section></section></article></body></html>"""


def test_the_print_document_is_a_book():
    from bs4 import BeautifulSoup

    html = book_pdf.print_document(
        PAGE,
        "book/pages/intro.html",
        title="A book",
        author="Someone",
        version="1.2.3",
        date="2026-01-02",
        repository="https://example.org/repo",
    )
    soup = BeautifulSoup(html, "html.parser")
    text = soup.get_text(" ")
    assert "Show code cell" not in text and "Search" not in text
    assert "Version 1.2.3, 2026-01-02" in text and "A book" in text
    chapter = soup.select_one("section.pdf-chapter")
    assert chapter["id"] == "xor-sec" and chapter.h1.get_text() == "XoR"
    assert chapter.find("h2").get_text() == "The task"
    hrefs = [a["href"] for a in soup.find_all("a")]
    assert "#xor-sec" in hrefs and "https://example.org/x" in hrefs
    assert not any("search.html" in h or h.endswith(".pdf") for h in hrefs), hrefs
    assert soup.select_one("details.sd-dropdown").has_attr("open")
    assert "long" not in text  # a print-omit dropdown prints as a line naming it
    assert "Every record: on the site, and in the records' JSON" in text
    assert not soup.select("[role=heading]"), (
        "contents captions would enter the outline"
    )
    assert "@page" in soup.style.get_text()


def test_a_runs_print_document_names_the_run_on_its_title_page():
    from bs4 import BeautifulSoup

    kw = dict(title="A book", author="Someone", version="1.2.3", date="2026-01-02")
    plain = BeautifulSoup(
        book_pdf.print_document(PAGE, "book/pages/intro.html", **kw), "html.parser"
    )
    assert not plain.select(".pdf-run")
    soup = BeautifulSoup(
        book_pdf.print_document(
            PAGE, "book/pages/intro.html", run="This site shows a run: x", **kw
        ),
        "html.parser",
    )
    assert soup.select_one(".pdf-title .pdf-run").get_text() == (
        "This site shows a run: x"
    )


@pytest.mark.browser
def test_a_runs_pdf_says_so_on_its_title_page_and_every_footer(tmp_path):
    """A run's PDF (``site --from <run>``) carries the run's banner, the one its site
    shows (:func:`helpers.book.build.run_banner`), on the title page and in the footer
    of every page: printed here from a small page of several pages, through the same
    rewriting and printing as the book's PDF."""
    import shutil
    import unicodedata

    import mathjax
    from pypdf import PdfReader

    from helpers.book import build
    from tests.book.test_build import write_manifest
    from tests.book.test_site import CHROMIUM, need_chromium

    need_chromium("print a run's PDF")
    run = tmp_path / "run"
    (run / "site-src").mkdir(parents=True)
    write_manifest(run, "paper", {"seeds": 8}, "2026-01-02 03:04:05")
    banner = build.run_banner(run / "site-src")
    assert banner is not None and build.run_banner(build.ROOT) is None
    assert all(s in banner for s in ("profile paper", '"seeds": 8', "0123456789"))
    long_page = PAGE.replace("<p>inside</p>", "<p>A paragraph of the book.</p>" * 150)
    html = book_pdf.print_document(
        long_page,
        "book/pages/intro.html",
        title="A book",
        author="Someone",
        version="1.2.3",
        date="2026-01-02",
        run=banner,
    )
    site = tmp_path / "site"
    (site / "_static" / "mathjax").mkdir(parents=True)
    src = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"
    shutil.copy2(src, site / "_static" / "mathjax" / "tex-svg.js")
    (site / "page.html").write_text(html, encoding="utf-8")
    out = tmp_path / "run.pdf"
    book_pdf.print_pdf(site, "page.html", out, CHROMIUM, run=banner)
    texts = [  # NFKC: the printed title page sets "fi" as a ligature
        re.sub(r"\s+", "", unicodedata.normalize("NFKC", p.extract_text() or ""))
        for p in PdfReader(out).pages
    ]
    want = re.sub(r"\s+", "", banner)
    assert len(texts) >= 3
    assert texts[0].count(want) >= 2, "the title page does not name the run"
    unmarked = [i + 1 for i, t in enumerate(texts) if want not in t]
    assert not unmarked, f"pages whose footer does not name the run: {unmarked}"
