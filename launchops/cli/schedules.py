"""`launchops deploy`: the schedules, served from this process or registered for workers."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from launchops.cli.command import Call, shared
from launchops.cli.common import (
    console,
    exposed_by,
    guard_prefect_api,
    prefect_answers,
    prefect_api_url,
    print_json,
    quiet_prefect,
    refuse,
    run,
    secret_block,
)

if TYPE_CHECKING:
    from solders.pubkey import Pubkey

    from launchops.config.profiles import Profile


def install(app: typer.Typer) -> None:
    app.command()(deploy)


# deploy's options: the schedules, the pool and what the server needs.
Batch = Annotated[
    list[Path] | None,
    typer.Option("--batch", help="A folder or file the scheduled batch runs; repeatable."),
]
BatchCron = Annotated[str, typer.Option("--batch-cron", help="When the batch runs (cron, UTC).")]
RetryCron = Annotated[
    str, typer.Option("--retry-cron", help="When the registration retry runs (cron, UTC).")
]
Launches = Annotated[
    list[Path] | None,
    typer.Option(
        "--launches", help="Launch files or folders; those with schedule: get a deployment."
    ),
]
ClaimWallets = Annotated[
    Path | None,
    typer.Option("--claim-wallets", help="A YAML list of wallets whose rewards are claimed."),
]
ClaimCron = Annotated[str, typer.Option("--claim-cron", help="When those claims run (cron, UTC).")]
WatchCron = Annotated[
    str | None,
    typer.Option("--watch-cron", help="When the launch watch looks (cron, UTC); off if unset."),
]
PoolName = Annotated[
    str | None,
    typer.Option("--pool", help="Register on the Prefect server for workers of this pool."),
]
Serve = Annotated[
    bool, typer.Option("--serve", help="Serve the deployments from this process until stopped.")
]
CrashAfter = Annotated[
    float,
    typer.Option(
        "--crash-after",
        min=31,
        help="With --pool: a flow run with no heartbeat this long is marked crashed "
        "(workers send one every PREFECT_FLOWS_HEARTBEAT_FREQUENCY seconds, >= 30).",
    ),
]
NotifyWebhook = Annotated[
    str | None,
    typer.Option("--notify-webhook", help="With --pool: POST here when a launch needs a person."),
]


@shared(prefect_server=True)
def deploy(
    call: Call,
    batch: Batch = None,
    batch_cron: BatchCron = "0 * * * *",
    retry_cron: RetryCron = "*/15 * * * *",
    launches: Launches = None,
    claim_wallets: ClaimWallets = None,
    claim_cron: ClaimCron = "0 6 * * *",
    watch_cron: WatchCron = None,
    pool: PoolName = None,
    serve: Serve = False,
    crash_after: CrashAfter = 90.0,
    notify_webhook: NotifyWebhook = None,
) -> None:
    """Apply the schedules: the batch, the registration retry, and scheduled launch files;
    with --pool, also make what the server needs for workers (pool, limits, automations).
    A public profile or a `prefect-secret:` key is refused on a Prefect API that answers
    anyone from other machines (--insecure-server to go on all the same)."""
    _refuse_early(serve, pool, claim_wallets, {"--batch": batch, "--launches": launches})
    settings = call.settings
    exposed = exposed_by(settings, deploying=True)
    if exposed:  # nothing to expose: no question to the server
        guard_prefect_api(exposed, call.insecure_server)
    scheduled = _scheduled(settings, launches or [], call.as_json)
    _answers(serve)
    quiet_prefect()
    if serve:
        from launchops.cli.scheduler import SCHEDULING

        for name, value in SCHEDULING.items():  # before Prefect reads its settings
            os.environ.setdefault(name, value)
    from launchops.flows.deployments import build

    deployments = build(
        profile=call.profile,
        batch_paths=[str(p) for p in batch or []],
        batch_cron=batch_cron if batch else None,
        retry_cron=retry_cron,
        scheduled=scheduled,
        from_source=pool is not None,
        claim_wallets=str(claim_wallets) if claim_wallets else None,
        claim_cron=claim_cron if claim_wallets else None,
        watch_cron=watch_cron,
        base_url=call.base_url,
    )
    one_offs = _one_offs(deployments, scheduled)
    if pool:
        _on_pool(pool, settings, deployments, crash_after, notify_webhook, call.as_json, one_offs)
    else:
        _serve(deployments, one_offs)


def _answers(serve: bool) -> None:
    """The Prefect API configured answers, or one line saying so (not Prefect's traceback)."""
    configured = prefect_api_url()
    if configured is None:  # a server of this command's own
        return
    instead = f"start it ({'--serve keeps' if serve else '--pool registers'} the deployments there)"
    if serve:
        instead += ", or unset PREFECT_API_URL for a server of this command's own"
    prefect_answers(configured, instead)


def _refuse_early(
    serve: bool, pool: str | None, claim_wallets: Path | None, paths: dict[str, list[Path] | None]
) -> None:
    """What deploy refuses before it reads the profile or asks Prefect anything."""
    if serve == bool(pool):
        raise refuse("give exactly one of --serve or --pool NAME")
    if pool and prefect_api_url() is None:
        raise refuse(
            f"deploy --pool {pool} registers deployments on the Prefect server your workers "
            "use, and no PREFECT_API_URL is set (it would go to a temporary server that "
            "ends with this command): set PREFECT_API_URL (and PREFECT_API_AUTH_STRING)"
        )
    for option, targets in paths.items():  # a typo in a cron's folder fails every run
        for target in targets or []:
            if not target.exists():  # refused as validate and launch refuse it: exit 2
                raise refuse(f"{option} {target}: no such launch file or folder")
    if claim_wallets is not None:
        _check_wallets(claim_wallets)


def _check_wallets(path: Path) -> None:
    """The claim-wallets file checked now, not at its first scheduled run: one line, exit 2."""
    from launchops.config.wallets import read_wallets
    from launchops.errors import LaunchFileError

    if not path.exists():
        raise refuse(f"--claim-wallets {path}: no such wallets list (a YAML file)")
    try:
        read_wallets(path)
    except LaunchFileError as exc:
        raise refuse("; ".join(str(p) for p in exc.file_problems)) from None


def _serve(deployments: list[Any], one_offs: dict[str, Any]) -> None:
    """Serve the deployments from this process until stopped (Ctrl-C); a one-off launch
    whose time passes before its deployment is served gets its run all the same."""
    from prefect import serve as prefect_serve

    from launchops.cli.scheduler import one_offs_kept, stops_within

    with _api_for_schedules():
        out = console()
        out.print(f"serving {', '.join(d.name for d in deployments)} (Ctrl-C to stop)")
        one_offs_kept(one_offs, out.print)
        with stops_within():
            prefect_serve(*deployments)


@contextmanager
def _api_for_schedules() -> Iterator[None]:
    """The Prefect API configured, else a server of this command's own with the scheduler
    (Prefect's temporary server has none: its schedules would never fire)."""
    if prefect_api_url() is not None:
        yield
        return
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from launchops.cli.scheduler import scheduling_server

    with scheduling_server() as url:
        os.environ["PREFECT_API_URL"] = url  # the flow runs' processes too
        with temporary_settings(updates={PREFECT_API_URL: url}):
            console().print(
                f"schedules kept by a Prefect server at {url} (stops with this command)"
            )
            yield


def _scheduled(
    settings: Profile, targets: list[Path], as_json: bool = False
) -> list[tuple[str, Path, str]]:
    """(key, file, schedule) of every launch file below `targets` that has a schedule, but
    a one-off whose launch the journal holds as finished (said, on stderr under --json)."""
    from launchops.config.launchfile import launch_files, plan_launch
    from launchops.config.schedule import Schedule, too_soon_to_deploy

    files = [f for target in targets for f in launch_files(target)]
    wallet = _wallet(settings) if files else None
    plans = [(file, plan_launch(settings, wallet, file, check_times=False)) for file in files]
    one_offs = [p.key for _, p in plans if p.schedule and Schedule.parse(p.schedule).at]
    finished = run(_finished(settings, one_offs)) if one_offs else {}
    found = []
    for file, plan in plans:
        if not plan.schedule:
            continue
        if plan.key in finished:  # its one time came and it launched: nothing to deploy
            console(stderr=as_json).print(
                f"skipped  {file}: launched already ({plan.key}, {finished[plan.key]}); "
                "its one-off schedule is done",
                markup=False,
                soft_wrap=True,
            )
            continue
        problem = too_soon_to_deploy(file, Schedule.parse(plan.schedule))
        if problem:
            raise refuse(problem)
        found.append((plan.key, file, plan.schedule))
    return found


async def _finished(settings: Profile, keys: list[str]) -> dict[str, str]:
    """key -> state of each of `keys` the profile's journal holds as finished for good."""
    from launchops.journal.store import Journal
    from launchops.states import done

    journal = await Journal.open(settings.journal)
    try:
        records = [await journal.get(key) for key in keys]
    finally:
        await journal.close()
    return {r.key: str(r.state) for r in records if r is not None and done(r.state, r.kind)}


def _one_offs(deployments: list[Any], scheduled: list[tuple[str, Path, str]]) -> dict[str, Any]:
    """ "flow/name" -> time of each one-off launch's deployment."""
    from launchops.config.schedule import Schedule

    times = {f"launch-{key}": Schedule.parse(when).at for key, _, when in scheduled}
    return {
        f"{d.flow_name}/{d.name}": times[d.name]
        for d in deployments
        if times.get(d.name) is not None
    }


def _wallet(settings: Profile) -> Pubkey | None:
    """The profile's public key, to validate launch files with (`wallet:` must be it):
    a `prefect-secret:` key is read from its Secret block on the Prefect API deploy talks
    to (the key itself is dropped at once); a key not on this machine is None."""
    from launchops.chain.keys import load_keypair
    from launchops.errors import KeypairError

    source = settings.keypair
    if not source.startswith("prefect-secret:"):
        try:
            return load_keypair(source, state_dir=settings.profile_dir).pubkey()
        except KeypairError:
            return None
    return load_keypair(source, state_dir=settings.profile_dir, resolver=secret_block).pubkey()


def _on_pool(
    pool: str,
    settings: Profile,
    deployments: list[Any],
    crash_after: float,
    notify_webhook: str | None,
    as_json: bool,
    one_offs: dict[str, Any],
) -> None:
    """Make what the server lacks (pool, limits, automations), register
    the deployments on the pool, make the run of a one-off launch whose time came while
    deploying, say what was done."""
    from prefect import deploy as prefect_deploy

    from launchops.flows.pool import catch_up, prepare

    prepared = run(prepare(pool, settings, crash_after=crash_after, notify_webhook=notify_webhook))
    with redirect_stdout(io.StringIO()):  # Prefect's advice for local pools; ours follows
        prefect_deploy(
            *deployments,
            work_pool_name=pool,
            build=False,
            push=False,
            print_next_steps_message=False,
        )
    late = run(catch_up(one_offs))
    names = [d.name for d in deployments]
    runs = [f"{d.flow_name}/{d.name}" for d in deployments]  # as `prefect deployment run` takes
    if as_json:
        found = {"made": prepared.made, "kept": prepared.kept, "deployments": names, "runs": runs}
        print_json(found | {"caughtUp": late})
        return
    out = console()
    for line in prepared.made:
        out.print(f"made     {line}")
    for line in prepared.kept:
        out.print(f"exists   {line}", style="dim")
    out.print(f"deployed {', '.join(runs)} on pool {pool}")
    for name in late:
        out.print(f"run made {name}: its time came while deploying (due now)")
    out.print(
        f"workers: PREFECT_FLOWS_HEARTBEAT_FREQUENCY=30 prefect worker start --pool {pool} "
        "--limit 1  (one a machine, with this checkout and the same journal_url)"
    )
    for name in (r for r in runs if r.startswith("batch/")):
        out.print(f"a run by hand: prefect deployment run {name} --watch")
