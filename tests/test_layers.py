"""The house's layout, read from the code's imports (ast, nothing imported): no import
circle anywhere in launchops (flows/ and tasks/ included, as `launchops.flows` and
`launchops.tasks`), and no import from a lower floor to a higher one. Every import
counts, at the top of a module, inside a function or under `TYPE_CHECKING`; only the
package's face (`launchops/__init__.py`) names its exports for type checkers.

The floors, from the ground up: what a floor may import is on its floor or below.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

from tests.support.ast_apart import parsed

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {
    "launchops": ROOT / "launchops",
    "launchops.flows": ROOT / "flows",
    "launchops.tasks": ROOT / "tasks",
}
FLOORS = [
    # the ground: what everything names
    ("errors", "states", "lazy", "exposure", "version", "web", "urls", "locks"),
    ("retries",),  # who retries what, in numbers
    ("genesis",),  # the Genesis program's layouts, PDAs and errors, as its client has them
    ("api",),  # the service's contract and its client
    ("chain",),  # keys, signing, the RPC, watching signatures
    ("journal",),  # the persisted state of every launch
    ("config",),  # launch files, profiles, the network guard
    ("sandbox",),  # the service over a Solana VM
    ("pipeline", "readiness"),  # the steps, the runner, batches; `check`
    ("library",),  # the library's face: every run as a function, and its results
    ("tasks",),  # Prefect tasks, thin over the library
    ("flows",),  # Prefect flows
    ("cli",),  # the `launchops` command
]
FACE = "launchops"


def modules() -> dict[str, Path]:
    """Every module by its dotted name."""
    found = {}
    for package, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _type_checking_only(tree: ast.Module) -> set[int]:
    return {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for statement in block.body
        for node in ast.walk(statement)
    }


def imports(name: str, path: Path, known: dict[str, Path], tree: ast.Module) -> set[str]:
    """The modules of launchops that module `name` (at `path`, parsed: `tree`) imports."""
    skipped = _type_checking_only(tree) if name == FACE else set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped or not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:  # relative: from the module's package up
                package = name.split(".")
                if path.name != "__init__.py":
                    package.pop()
                package = package[: len(package) - (node.level - 1)]
                base = ".".join([*package, *([node.module] if node.module else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    trees = parsed(list(known.values()))
    return {name: imports(name, path, known, trees[path]) for name, path in known.items()}


def floor(name: str) -> int:
    """The floor of a module: that of the longest prefix named in FLOORS."""
    rest = name.removeprefix("launchops").lstrip(".")
    best = None
    for number, rooms in enumerate(FLOORS):
        for room in rooms:
            if rest == room or rest.startswith(room + "."):
                best = number
    if best is None and rest == "":
        return FLOORS.index(("library",))  # the face hands on the library's names
    assert best is not None, f"{name}: on no floor; add it to FLOORS"
    return best


def circle(edges: dict[str, set[str]]) -> list[str]:
    """An import circle, each module imported by the next and the last the first again
    (graphlib's `CycleError`), or [] when there is none."""
    try:
        graphlib.TopologicalSorter(edges).prepare()
    except graphlib.CycleError as error:
        return error.args[1]
    return []


def test_no_import_circle():
    assert circle(graph()) == []


def test_no_import_runs_back_up():
    up = [
        f"{name} (floor {floor(name)}) imports {other} (floor {floor(other)})"
        for name, targets in graph().items()
        for other in sorted(targets)
        if floor(other) > floor(name)
    ]
    assert up == []


def test_the_check_finds_a_circle_and_an_arrow_up():
    """The rules catch what they are for (a check that cannot fail proves nothing)."""
    found = circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()})
    assert sorted(found[:-1]) == ["a", "b", "c"] and found[0] == found[-1], found
    assert floor("launchops.cli.common") > floor("launchops.chain.rpc")
    edges = graph()
    assert "launchops.api.client.transport" in edges["launchops.api.client.agents"]
    assert "launchops.tasks.context" in edges["launchops.tasks.steps"]
