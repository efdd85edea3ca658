"""A chapter's working copy that reads like its page in JupyterLab
(``python -m helpers.book notebook <chapter>``): the MyST the site renders, in the
Markdown cells and in what code cells print, as plain notebook Markdown.  Glued values
are filled in from the notebook's outputs; dropdowns become ``<details>``, admonitions
quotes, ``{math}`` blocks ``$$``, a ``{verdict}`` the records' verdict line;
cross-references keep their text, citations read ``[key]``, badges bold; labels and
MyST comments go.
"""

from __future__ import annotations

import ast
import itertools
import re

_PREFIX = "application/papermill.record/"
_ROLE = re.compile(r"\{([a-z]+(?::[a-z]*)?|bdg-[a-z-]+)\}`([^`]*)`")
_FENCE = re.compile(r"^(?P<fence>:{3,}|`{3,})\{(?P<name>[a-z:-]+)\}\s*(?P<arg>.*)$")
_ADMONITIONS = ("note", "tip", "warning", "important", "caution", "seealso", "hint")


def glued(nb: dict) -> dict:
    """``{key: {mime: data}}`` of every value the notebook glued."""
    out = {}
    for cell in nb.get("cells", []):
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                out[name] = {
                    k.removeprefix(_PREFIX): v for k, v in o.get("data", {}).items()
                }
    return out


def _joined(text) -> str:
    return "".join(text) if isinstance(text, list) else text


def _text(data: dict, fmt: str = "") -> str:
    """A glued value as text, formatted by ``fmt`` where it is a number."""
    if "text/markdown" in data:
        return _joined(data["text/markdown"])
    raw = _joined(data.get("text/plain", ""))
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return raw
    if fmt and isinstance(value, (int, float)):
        try:
            return format(value, fmt)
        except ValueError:
            pass
    return str(value)


def _role(m: re.Match, glue: dict) -> str:
    role, body = m.group(1), m.group(2)
    if role.startswith("glue"):
        key, _, fmt = body.partition(":")
        data = glue.get(key.strip())
        return _text(data, fmt) if data is not None else body
    if role in ("ref", "numref", "doc", "eq", "term"):
        label = re.match(r"^(.*?)\s*<([^>]*)>$", body)
        text = label.group(1) if label else body.replace("-", " ")
        return f"({text})" if role == "eq" else text
    if role.startswith("cite"):
        return f"[{body}]"
    if role.startswith("bdg-"):
        return f"**{body}**"
    if role == "math":
        return f"${body}$"
    return body


def _roles(text: str, glue: dict) -> str:
    return _ROLE.sub(lambda m: _role(m, glue), text)


def convert(text: str, glue: dict | None = None, verdict=None) -> str:
    """MyST Markdown as plain notebook Markdown.

    Args:
        text: a Markdown cell's (or a printed output's) MyST source.
        glue: the notebook's glued values (:func:`glued`).
        verdict: ``verdict(record name) -> str``, the line a ``{verdict}`` becomes.
    """
    glue, lines, out = glue or {}, iter(text.splitlines()), []
    for line in lines:
        if re.match(r"^\([A-Za-z0-9_.:-]+\)=\s*$", line) or line.startswith("%"):
            continue
        m = _FENCE.match(line.strip())
        if not m:
            out.append(line)
            continue
        fence, name, arg = m.group("fence"), m.group("name"), m.group("arg").strip()
        # the body, up to and without its closing fence
        body = list(itertools.takewhile(lambda x: x.strip() != fence, lines))
        while body and re.match(r"^:[a-z-]+:", body[0].strip()):  # options
            body.pop(0)
        inner = convert("\n".join(body), glue, verdict)
        if name.startswith("glue"):
            data = glue.get(arg)
            shown = _text(data) if data is not None else arg
            out += convert(shown, glue, verdict).splitlines()
        elif name == "dropdown":
            summary = f"<summary>{_roles(arg, glue)}</summary>"
            out += [f"<details>{summary}", "", inner, "", "</details>"]
        elif name == "admonition" or name in _ADMONITIONS:
            title = _roles(arg, glue) if name == "admonition" else name.capitalize()
            quoted = [f"> {x}" if x else ">" for x in inner.splitlines()]
            out += [f"> **{title}**", ">", *quoted]
        elif name == "math":
            if "&" in inner or "\\\\" in inner:
                inner = "\n".join(["\\begin{aligned}", inner, "\\end{aligned}"])
            out += ["$$", inner, "$$"]
        elif name == "verdict":
            out.append(_roles(verdict(arg), glue) if verdict else arg)
        elif name in ("code-cell", "code"):
            out += [f"{fence[:3]}python", *body, fence[:3]]
        else:
            out += [inner]
    return _roles("\n".join(out), glue)  # a role may wrap over lines


def readable(nb: dict, verdict=None) -> dict:
    """``nb`` with its Markdown, cells and printed, in plain notebook Markdown
    (:func:`convert`); changed in place and returned."""
    glue = glued(nb)
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            cell["source"] = convert(_joined(cell["source"]), glue, verdict)
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            if "text/markdown" in data and "scrapbook" not in o.get("metadata", {}):
                md = _joined(data["text/markdown"])
                data["text/markdown"] = convert(md, glue, verdict)
    return nb
