"""A small Sphinx extension that keeps the built site offline and its console clean.

* drops sphinx-thebe's scripts (Thebe loads its code from a CDN, which this book never
  does; the launch buttons cover running the notebooks) and any script added twice;
* gives the theme an explicit default colour mode (pydata-sphinx-theme logs a console
  error when none is set).
"""

from __future__ import annotations


def _clean_page(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if scripts is not None:
        seen, keep = set(), []
        for js in scripts:
            filename = getattr(js, "filename", None) or str(js)
            body = (getattr(js, "attributes", None) or {}).get("body", "") or ""
            if "THEBE" in body or "thebe" in filename:
                continue
            key = (filename, body)
            if key in seen:
                continue
            seen.add(key)
            keep.append(js)
        scripts[:] = keep
    if not context.get("default_mode"):
        context["default_mode"] = "light"


def setup(app):
    app.connect("html-page-context", _clean_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
