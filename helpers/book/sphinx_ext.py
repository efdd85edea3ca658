"""A small Sphinx extension that keeps the built site offline and its pages readable.

* drops sphinx-thebe's scripts (loaded from a CDN) and any script added twice, and
  sets the theme's default colour mode (pydata-sphinx-theme logs an error without);
* lets a long identifier (``extra_contexts.gap_reln_closed_form_C3``) break only after
  ``_``, ``/`` or a dot before a letter (an HTML ``<wbr>``), and keeps a word with a
  minus before a digit (``7.1e-06``) on one line (``haste-nowrap``), since
  ``book/_static/haste.css`` never breaks words elsewhere;
* folds consecutive code cells that show only a toggle under one, "Show 8 code cells"
  (:class:`GroupHiddenCells`);
* adds the directive ``verdict``: a claim's verdict line under a figure, read from the
  records of the site being built (``{verdict} gap_relu_reln``).
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList
from myst_nb.sphinx_ import HideCodeCellNode
from sphinx.transforms.post_transforms import SphinxPostTransform

from . import scorecard

#: A long word (it may break where it has a ``_``, ``/`` or a dot between letters).
_LONG = re.compile(r"[A-Za-z0-9_./-]{14,}")
#: Where such a word may break: after ``_`` or ``/``, or after a dot before a letter.
_BREAK = re.compile(r"(?<=[_/])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9]\.)(?=[A-Za-z])")
#: Nodes whose text is left alone (titles feed the contents and the PDF's outline).
_KEEP = tuple(
    getattr(nodes, n) for n in "literal_block math math_block raw title comment".split()
)


def _split(text: str) -> list[str]:
    """``text`` cut where a long word may break."""
    cuts = sorted(
        m.start() + c.start()
        for m in _LONG.finditer(text)
        if re.search(r"[_/]|[A-Za-z]\.[A-Za-z]", m.group())
        for c in _BREAK.finditer(m.group())
    )
    cuts = [c for c in cuts if 0 < c < len(text)]
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]


#: A word that must not break after its hyphen: a hyphen or minus before a digit.
_NUMBER = re.compile(r"-\d")
_SPACE = re.compile(r"(\s+)")
_DASH = re.compile(r"(?<=[\u2013\u2014])")


def _pieces(text: str) -> list[nodes.Node] | None:
    """``text`` as nodes, numbers whole and long names with breaks; None: unchanged."""
    items: list = []  # text (str) and nodes
    for word in _SPACE.split(text):
        # a range (1.2e-05–1.6e-05) may break after its dash; a long word with a
        # hyphen (a platform's name) breaks as any word does
        for part in _DASH.split(word) if _NUMBER.search(word) else [word]:
            if _NUMBER.search(part) and len(part) <= 24:
                items.append(nodes.inline(part, part, classes=["haste-nowrap"]))
                continue
            for i, piece in enumerate(_split(part)):
                items += (
                    [nodes.raw("", "<wbr>", format="html"), piece] if i else [piece]
                )
    if all(isinstance(x, str) for x in items):
        return None
    runs = itertools.groupby(items, key=lambda x: isinstance(x, str))
    return [n for text, g in runs for n in ([nodes.Text("".join(g))] if text else g)]


def _break_long_words(app, doctree, docname):
    if app.builder.format != "html":
        return
    for text in list(doctree.findall(nodes.Text)):
        parent = text.parent
        if parent is None or any(isinstance(a, _KEEP) for a in _ancestors(parent)):
            continue
        new = _pieces(str(text))
        if new is not None:
            parent.replace(text, [n for n in new if not isinstance(n, nodes.Text) or n])


def _ancestors(node):
    while node is not None:
        yield node
        node = node.parent


def _clean_page(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if scripts is not None:
        seen, keep = set(), []
        for js in scripts:
            filename = getattr(js, "filename", None) or str(js)
            body = (getattr(js, "attributes", None) or {}).get("body", "") or ""
            if "THEBE" in body or "thebe" in filename or (filename, body) in seen:
                continue
            seen.add((filename, body))
            keep.append(js)
        scripts[:] = keep
    if not context.get("default_mode"):
        context["default_mode"] = "light"


class VerdictDirective(Directive):
    """``{verdict} <record>``: :func:`helpers.book.scorecard.verdict_line`."""

    required_arguments = 1
    has_content = False

    def run(self):
        env = self.state.document.settings.env
        chapter = Path(env.docname).name
        path = Path(env.srcdir) / "book" / "results" / f"{chapter}.json"
        env.note_dependency(str(path))
        records = {chapter: json.loads(path.read_text())} if path.exists() else {}
        try:
            line = scorecard.verdict_line(chapter, self.arguments[0], records)
        except KeyError as err:
            raise self.error(str(err.args[0])) from None
        box = nodes.container(classes=["haste-verdict"])
        self.state.nested_parse(StringList([line]), self.content_offset, box)
        return [box]


def _quiet(node) -> bool:
    """A code cell that shows only a toggle: hidden code and no visible output."""
    if not isinstance(node, nodes.container) or node.get("nb_element") != "cell_code":
        return False
    mode = node.get("hide_mode")
    has_output = any(c.get("nb_element") == "cell_code_output" for c in node.children)
    return mode == "all" or (mode == "input" and not has_output)


class GroupHiddenCells(SphinxPostTransform):
    """Consecutive quiet cells (:func:`_quiet`) under one toggle; runs before
    myst-nb's own ``HideInputCells`` (priority 199), which then leaves them alone."""

    default_priority = 190
    formats = ("html",)

    def run(self, **kwargs):
        for parent in list(self.document.findall(nodes.Element)):
            for quiet, cells in itertools.groupby(list(parent.children), key=_quiet):
                cells = list(cells)
                if not quiet or len(cells) < 2:
                    continue
                group = HideCodeCellNode(
                    prompt_show=f"Show {len(cells)} code cells",
                    prompt_hide=f"Hide {len(cells)} code cells",
                )
                group["classes"].append("above-input")
                parent.replace(cells[0], group)
                for cell in cells:
                    if cell is not cells[0]:
                        parent.remove(cell)
                    cell["hide_mode"] = None
                    group.append(cell)


def setup(app):
    app.add_directive("verdict", VerdictDirective)
    app.add_post_transform(GroupHiddenCells)
    app.connect("html-page-context", _clean_page, priority=900)
    app.connect("doctree-resolved", _break_long_words)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
