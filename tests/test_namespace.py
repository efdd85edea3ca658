"""The flat namespace ``import helpers as h`` is unambiguous: a name it offers means one
thing in the whole core (``h.closed_form_loss`` is the linear network's, and no other
core module defines another function of that name)."""

import importlib
import inspect
import pkgutil

import helpers as h
import helpers.core

CORE = [
    importlib.import_module(f"helpers.core.{m.name}")
    for m in pkgutil.iter_modules(helpers.core.__path__)
]


def _defined_here(module):
    return {
        name: obj
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and getattr(obj, "__module__", None) == module.__name__
    }


def test_no_flat_name_names_two_core_functions():
    flat = {
        name: obj
        for name, obj in vars(h).items()
        if inspect.isfunction(obj) or inspect.isclass(obj)
    }
    clashes = [
        f"h.{name} is {flat[name].__module__}.{name}, but {mod.__name__} defines "
        "another"
        for mod in CORE
        for name, obj in _defined_here(mod).items()
        if name in flat and obj is not flat[name]
    ]
    assert not clashes, clashes


def test_no_core_module_imports_a_private_name_from_another():
    import ast
    from pathlib import Path

    root = Path(helpers.__file__).parent
    bad = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                bad += [
                    f"{path.relative_to(root)}: {a.name}"
                    for a in node.names
                    if a.name.startswith("_") and a.name != "__version__"
                ]
    assert not bad, bad
