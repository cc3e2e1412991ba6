"""Shared fixtures: the sandbox and its clients (plugins), a PostgreSQL database, a Prefect
test server."""

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest_plugins = [
    "launchops.sandbox.pytest_plugin",
    "tests.support.clients",
    "tests.support.xdist_groups",
]


# websockets' modules that draw from `random` (`grep -rl "^import random"` in its package).
WEBSOCKETS_DRAWING = (
    "asyncio.connection",
    "sync.connection",
    "client",
    "legacy.protocol",
    "legacy.client",
)


def pytest_configure(config: pytest.Config) -> None:
    """Each test process: fewer garbage collector passes, websockets' draws apart from
    Hypothesis's, a home of its own; the first (pytest-xdist's controller, or the only
    one) starts the session's fork server for the `launchops` commands the tests run and
    for pytest-xdist's processes (tests/support/forks.py)."""
    _collect_less_often()
    _websockets_draw_apart()
    _own_launchops_home(config)
    _kept_prefect_servers_short_lived()
    if not hasattr(config, "workerinput"):
        from tests.support import forks, prefect_db

        forks.start_shared()
        prefect_db.session_folder()
        _prefect_clients_skip_the_ca_bundle()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: list) -> None:
    """pytest-xdist's processes forked from the session's fork server (started above, in
    the controller) rather than started fresh: each begins with Prefect, launchops and
    the libraries the tests import already imported, as a forked command does."""
    from tests.support import forks

    python = forks.worker_python()
    for spec in specs:
        if python is not None and spec.popen and not spec.python:
            spec.python = python


GC_THRESHOLDS = (10_000, 20, 100)


def _collect_less_often() -> None:
    """The garbage collector's passes fewer, in each test process: with Python's
    thresholds (700, 10, 10) a full pass walked every object of Prefect, launchops,
    Hypothesis and schemathesis (0.25 s of CPU each, 8 to 18 a process), and its passes
    took 21 s of the suite's 585 s of CPU (`gc.callbacks` timed, 2026-12-06). With what
    collection imported frozen (`pytest_collection_finish`) and these thresholds, the
    simulation's and schemathesis' tests spend 4 % of their CPU in it instead of 9 %.
    Cyclic garbage still goes (a young pass each 10,000 allocations); only the full
    passes are rarer."""
    import gc

    gc.set_threshold(*GC_THRESHOLDS)


def _prefect_clients_skip_the_ca_bundle() -> None:
    """Every Prefect API client a process makes (a flow run makes eight: its engine, its
    events and logs, its result store) builds a TLS context from a CA bundle first, whether
    the API is https or not: certifi's 150 certificates, 17 ms of CPU each time, 4 % of
    the suite's CPU. The suite's Prefect servers are all plain http on loopback, where no
    certificate is ever checked, so the suite's processes (and, by inheritance, the
    commands they run) take one certificate of certifi's as their bundle instead
    (`PREFECT_API_SSL_CERT_FILE`, Prefect's own setting for it; docs/several-machines.md
    sets it for a real TLS proxy). A bundle set from outside is kept."""
    import os

    import certifi

    from tests.support import prefect_db

    if os.environ.get("PREFECT_API_SSL_CERT_FILE"):
        return
    begin, end = "-----BEGIN CERTIFICATE-----", "-----END CERTIFICATE-----"
    bundle = Path(certifi.where()).read_text()
    first = bundle[bundle.index(begin) : bundle.index(end) + len(end)]
    path = prefect_db.session_folder() / "prefect-clients-ca.pem"
    path.write_text(first + "\n")
    os.environ["PREFECT_API_SSL_CERT_FILE"] = str(path)


def _websockets_draw_apart() -> None:
    """websockets draws its keepalive pings' payloads (and its reconnect backoff) from the
    `random` module, on the background threads of the in-process sandboxes' PubSub and of
    Prefect's events client. Hypothesis seeds that module for every example and warns ("Do
    not use the `random` module inside strategies") when a ping moves it mid-draw: those
    draws get a generator of their own here."""
    import importlib
    import random
    import warnings

    own = random.Random()
    with warnings.catch_warnings():  # websockets.legacy is deprecated, still used by some
        warnings.simplefilter("ignore", DeprecationWarning)
        for name in WEBSOCKETS_DRAWING:
            importlib.import_module(f"websockets.{name}").random = own  # type: ignore[attr-defined]


def _kept_prefect_servers_short_lived() -> None:
    """The local Prefect servers the tests' commands keep (each test's home its own) stop
    15 s after their last command, not a user's 10 minutes: a suite leaves none running."""
    import os

    os.environ.setdefault("LAUNCHOPS_PREFECT_IDLE_SECONDS", "15")


def _own_launchops_home(config: pytest.Config) -> None:
    """This test process's own LAUNCHOPS_HOME, made here and removed at its end (each
    xdist process makes its own): whatever runs a command or the library without a home
    of its own (an in-process `agents card` and its card cache, the sandbox profile's
    key) writes there, never to the user's ~/.launchops."""
    import os
    import shutil
    import tempfile

    home = tempfile.mkdtemp(prefix="launchops-tests-home-")
    os.environ["LAUNCHOPS_HOME"] = home
    config.add_cleanup(lambda: shutil.rmtree(home, ignore_errors=True))


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh database on the machine's PostgreSQL for this session, dropped after it
    (the test skips, with the reason, where no PostgreSQL answers)."""
    from tests.support.postgres import database

    with database("launchops") as name:
        yield f"postgresql://postgres@127.0.0.1:5432/{name}"


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory) -> Iterator[None]:
    """One Prefect test server for this test process, with its own PREFECT_HOME: the
    server `prefect_test_harness` starts, forked on a migrated database
    (tests/support/session_server.py)."""
    import os

    from tests.support import session_server

    home = tmp_path_factory.mktemp("prefect-home")
    os.environ["PREFECT_HOME"] = str(home)
    os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    with session_server.running(home) as url, session_server.pointed_at(url):
        yield


@pytest.fixture(autouse=True)
def _prefect_server_awake_for_prefect_tests(request: pytest.FixtureRequest) -> None:
    """The process's Prefect server, once started, awake for each test that may call it
    (one asking for it, one marked `prefect` for its name) and asleep for the others
    (tests/support/session_server.py), the modules whose Prefect servers are their own
    among them (their waits are most of the suite's). Put to sleep at the next test's
    start, not at a test's end, so that a module's fixtures still reach it when they are
    torn down after its last test."""
    import sys

    session_server = sys.modules.get("tests.support.session_server")
    server = None if session_server is None else session_server.current
    if server is None:
        return
    item = request.node
    if "prefect_server" in item.fixturenames or (
        item.get_closest_marker("prefect") is not None and not _in_prefect_module(item)
    ):
        server.resume()
    else:
        server.pause()


@pytest.fixture
def prefect_env(prefect_server) -> dict[str, str]:
    """Environment that points a child process at the session's Prefect server."""
    import os

    from prefect.settings import PREFECT_API_URL

    return {
        "PREFECT_API_URL": str(PREFECT_API_URL.value()),
        "PREFECT_HOME": os.environ["PREFECT_HOME"],
        "PREFECT_LOGGING_LEVEL": "WARNING",
    }


PREFECT_FIXTURES = {"prefect_server", "prefect_env"}
# Modules whose tests start Prefect without the fixtures (a server of their own; their
# commands' flows): `python bench/process_cpu.py --prefect-tests -- python -m pytest -m
# "not prefect"` lists any test that runs Prefect and is not marked.
PREFECT_MODULES = (
    "tests/workers/",
    "test_deploy",
    "test_serve_schedules",
    "test_fenced_workers",
    "test_alerts_outage",
)


# The order the processes take the tests in. Each process takes the next test as it ends
# one, and the run is bound by the two cores' CPU, so the order matters twice: a long test
# taken late ends the run alone (README's several machines ended it in two processes
# while the other two sat idle, 2026-11-27), and tests that mostly wait, taken together,
# leave the cores idle (vmstat, 2026-12-06: a quarter idle in the run's last minute, with
# the simulation's seeds at the end of the collection; a third 80 to 120 s in, with the
# long tests all handed out at the start). So: the modules kept in one process
# (`xdist_group`, the longest) first; the long ones (each test 20 s or more, most of it
# waiting: a lease lapsing, a slowed sandbox, a killed worker) spaced through the first
# half of the run; the modules of many tests that mostly wait (the simulation's 43 seeds
# spend 165 s of wall on 31 s of CPU) spaced through most of it, among the rest.
LONG = (
    "tests/test_readme_commands.py",
    "tests/chaos/test_crash_matrix.py",
    "tests/workers/",
    "tests/batch/test_serve_schedules.py",
    "tests/chaos/test_chaos_batch.py",
    "tests/batch/test_fenced_workers.py",
    "tests/chaos/test_alerts_outage.py",
    "tests/chaos/test_lagging_node.py",
    "tests/pipeline/test_kill.py",
    "tests/after/test_agent_crashes.py",
    "tests/cli/test_temporary_server.py",
    "tests/chaos/test_schemathesis.py",
)
LONG_SPAN = 0.5
# The modules of a few tests of 3 to 10 s each (a wheel built, the docs site, a nested
# Prefect server, a sub-session of pytest): spaced through the first part of the run, not
# left to its end, where the top folder's modules come in collection order and a process
# still in one of them ended the run alone (its last 10 s, with the other processes done,
# 2026-12-07).
SLOWER = (
    "tests/test_packaging.py",
    "tests/test_readme_python.py",
    "tests/test_session_server.py",
    "tests/test_docs.py",
    "tests/test_forks.py",
    "tests/test_layers.py",
    "tests/test_readme_landing.py",
    "tests/sandbox/test_cli.py",
)
SLOWER_SPAN = 0.7
WAITING = (
    "tests/sim/test_simulation.py",
    "tests/pipeline/test_profiles_keys.py",
    "tests/chaos/test_lying_chain.py",
)
# ... through all of it but its last part, where only the rest's short tests are left to
# share out evenly (a seed of the simulation through Prefect, 10 to 20 s, had been the
# collection's last but nine tests).
WAITING_SPAN = 0.85


def _ordered(items: list[pytest.Item]) -> list[pytest.Item]:
    """`items` in the order above, the order within each part kept: each test placed at
    its fraction of its part, over its part's span of the run."""
    parts: dict[str, list[pytest.Item]] = {}
    for item in items:
        module = item.nodeid.split("::")[0]
        if item.get_closest_marker("xdist_group") is not None:
            part = "grouped"
        elif module.startswith(LONG):
            part = "long"
        elif module.startswith(SLOWER):
            part = "slower"
        else:
            part = module if module in WAITING else "rest"
        parts.setdefault(part, []).append(item)
    placed = [
        (-1.0 if part == "grouped" else _span(part) * (k + 0.5) / len(tests), item)
        for part, tests in parts.items()
        for k, item in enumerate(tests)
    ]
    return [item for _, item in sorted(placed, key=lambda pair: pair[0])]


def _span(part: str) -> float:
    if part in WAITING:
        return WAITING_SPAN
    return {"long": LONG_SPAN, "slower": SLOWER_SPAN}.get(part, 1.0)


def _in_prefect_module(item: pytest.Item) -> bool:
    """In one of PREFECT_MODULES: its Prefect servers are its own."""
    where = item.nodeid.split("::")[0]
    return any(module in where for module in PREFECT_MODULES)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `prefect` every test that runs Prefect: one asking for the Prefect server, one
    named for Prefect (a case named `--no-prefect` is not), one of the modules of
    deployments and workers (`-m prefect`, which selects after this); and order them
    for the processes to take (above)."""
    items[:] = _ordered(items)
    for item in items:
        if (
            PREFECT_FIXTURES & set(getattr(item, "fixturenames", ()))
            or "prefect" in item.nodeid.lower().replace("no-prefect", "")
            or _in_prefect_module(item)
        ):
            item.add_marker(pytest.mark.prefect)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What the process has imported and collected kept out of its garbage collector's
    passes from here on (`gc.freeze`, as the fork server does before it forks): it is all
    kept to the session's end anyway (`_collect_less_often`)."""
    import gc

    gc.collect()
    gc.freeze()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With LAUNCHOPS_NO_SKIPS=1 (CI), a skipped test fails the run: CI installs everything
    every test needs, so a skip there hides a test that did not run."""
    import os

    if os.environ.get("LAUNCHOPS_NO_SKIPS") != "1" or exitstatus != 0:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if skipped:
        reporter.write_line(
            f"LAUNCHOPS_NO_SKIPS: {len(skipped)} test(s) skipped; every test must run here",
            red=True,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
