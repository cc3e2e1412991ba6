"""xdist's groups must hold: `--dist loadgroup` sends a group's tests (a module sharing a
Prefect server and its workers) to one process by the `@group` its worker adds to each
test's id. A pytest that ignores that edit (9.2 with pytest-xdist 3.8, pytest-xdist#1386)
spreads the group silently, and the costly fixture starts in every process that drew one
of its tests; then every grouped test fails at setup, saying why."""

from __future__ import annotations

import pytest

_UNGROUPED = pytest.StashKey[str]()


@pytest.hookimpl(trylast=True)  # after xdist's, which names each test's group in its id
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not getattr(config.option, "loadgroup", False):
        return  # not an xdist worker of a loadgroup run
    grouped = [item for item in items if item.get_closest_marker("xdist_group") is not None]
    if any("@" not in item.nodeid for item in grouped):
        import importlib.metadata as meta

        why = (
            f"--dist loadgroup does not hold on pytest {meta.version('pytest')} with "
            f"pytest-xdist {meta.version('pytest-xdist')} (pytest-xdist#1386): its group's "
            "costly fixture would start in every process; install pyproject.toml's dev pins"
        )
        for item in grouped:
            item.stash[_UNGROUPED] = why


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if _UNGROUPED in item.stash:
        pytest.fail(item.stash[_UNGROUPED], pytrace=False)
