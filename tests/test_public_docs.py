"""Every public name of the library's core has a docstring.

A public name is a module-level class or function (sync or async) whose name does not
start with `_`, in a module under launchops/, restricted to the module's `__all__` when
it defines one. The command line (launchops/cli/), the sandbox (launchops/sandbox/) and
the Prefect flows and tasks (launchops/flows/, launchops/tasks/) are left out: they are
not the library's face. The scan reads the source (ast), importing nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.ast_apart import parsed

PACKAGE = Path(__file__).resolve().parents[1] / "launchops"
LEFT_OUT = frozenset({"cli", "sandbox", "flows", "tasks"})
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def public_names(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    """The module's public classes and functions: not `_`-prefixed, and in `__all__`
    when the module defines one."""
    exported: set[str] | None = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            getattr(target, "id", None) == "__all__" for target in node.targets
        ):
            exported = set(ast.literal_eval(node.value))
    return [
        node
        for node in tree.body
        if isinstance(node, DEFINITIONS)
        and not node.name.startswith("_")
        and (exported is None or node.name in exported)
    ]


def modules(package: Path) -> list[Path]:
    """The modules of `package` the rule covers (every .py but those left out)."""
    return sorted(
        path
        for path in package.rglob("*.py")
        if not LEFT_OUT & set(path.relative_to(package).parts[:-1])
    )


def missing_docstrings(package: Path = PACKAGE) -> list[str]:
    """`path:line name` of each public name without a docstring, path from the package's
    parent."""
    missing = []
    paths = modules(package)
    trees = parsed(paths)
    for path in paths:
        tree = trees[path]
        where = path.relative_to(package.parent)
        missing += [
            f"{where}:{node.lineno} {node.name}"
            for node in public_names(tree)
            if not ast.get_docstring(node)
        ]
    return missing


def test_every_public_name_has_a_docstring():
    assert len(modules(PACKAGE)) > 20  # the scan sees the package, not an empty folder
    missing = missing_docstrings()
    assert not missing, f"{len(missing)} public names without a docstring:\n" + "\n".join(missing)


def test_the_scan_follows_the_rules(tmp_path):
    package = tmp_path / "launchops"
    (package / "cli").mkdir(parents=True)
    (package / "cli" / "main.py").write_text("def command():\n    pass\n")
    (package / "tasks").mkdir()
    (package / "tasks" / "run.py").write_text("def step():\n    pass\n")
    (package / "plain.py").write_text(
        "class Bare:\n    pass\n\n\nasync def bare():\n    pass\n\n\n"
        'def told():\n    """Told."""\n\n\ndef _private():\n    pass\n'
    )
    (package / "listed.py").write_text(
        '__all__ = ["shown"]\n\n\ndef shown():\n    pass\n\n\ndef unlisted():\n    pass\n'
    )
    assert missing_docstrings(package) == [
        "launchops/listed.py:4 shown",
        "launchops/plain.py:1 Bare",
        "launchops/plain.py:5 bare",
    ]
