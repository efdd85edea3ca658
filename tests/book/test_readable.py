"""The JupyterLab copy reads like the page (helpers.book.readable): no raw MyST role or
directive, glued values filled in."""

import json
import re

import pytest

from helpers.book import build, readable

RAW = re.compile(r"\{[a-z:-]+\}`[^`]*`|^:::+\{|^```\{|^\([A-Za-z0-9_.:-]+\)=\s*$", re.M)


def test_roles_directives_and_glue_in_plain_markdown():
    glue = {
        "x": {"text/plain": "0.123456"},
        "s": {"text/plain": "'holds'"},
        "ans": {"text/markdown": "- a: {bdg-success}`reproduced`"},
    }
    text = "\n".join(
        [
            "(sec-a)=",
            "% a comment",
            "The value {glue:text}`x:.2f` {glue:text}`s`; see {ref}`the rulebook",
            "<rulebook>` and {cite}`jarvis2025makehaste`.",
            ":::{dropdown} More",
            "Inside {numref}`fig-a`.",
            ":::",
            ":::{admonition} The answer",
            ":class: tip",
            "```{glue:md} ans",
            ":format: myst",
            "```",
            ":::",
        ]
    )
    out = readable.convert(text, glue)
    assert not RAW.search(out), out
    assert "The value 0.12 holds; see the rulebook" in out
    assert "[jarvis2025makehaste]" in out
    assert "<details><summary>More</summary>" in out and "Inside fig a." in out
    assert "> **The answer**" in out and "> - a: **reproduced**" in out


@pytest.mark.parametrize("chapter", build.CHAPTERS)
def test_every_chapters_copy_has_no_raw_myst(chapter, tmp_path):
    nb = json.loads(build.notebook_copy(chapter, tmp_path).read_text())
    texts = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            texts.append("".join(cell["source"]))
        for o in cell.get("outputs", []):
            md = o.get("data", {}).get("text/markdown")
            if md and "scrapbook" not in o.get("metadata", {}):
                texts.append("".join(md))
    raw = [m for t in texts for m in RAW.findall(t)]
    assert raw == [], raw[:5]
