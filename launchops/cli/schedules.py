"""`launchops deploy`: the schedules, served from this process or registered for workers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from launchops.cli.common import (
    ProfileOpt,
    ProfilesFile,
    console,
    quiet_prefect,
    refuse,
    settings_for,
    user_errors,
)


def install(app: typer.Typer) -> None:
    app.command()(deploy)


def deploy(
    batch: Annotated[
        list[Path] | None,
        typer.Option("--batch", help="A folder or file the scheduled batch runs; repeatable."),
    ] = None,
    batch_cron: Annotated[
        str, typer.Option("--batch-cron", help="When the batch runs (cron, UTC).")
    ] = "0 * * * *",
    retry_cron: Annotated[
        str, typer.Option("--retry-cron", help="When the registration retry runs (cron, UTC).")
    ] = "*/15 * * * *",
    launches: Annotated[
        list[Path] | None,
        typer.Option(
            "--launches", help="Launch files or folders; those with schedule: get a deployment."
        ),
    ] = None,
    pool: Annotated[
        str | None,
        typer.Option("--pool", help="Register on the Prefect server for workers of this pool."),
    ] = None,
    serve: Annotated[
        bool, typer.Option("--serve", help="Serve the deployments from this process until stopped.")
    ] = False,
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
) -> None:
    """Apply the schedules: the batch, the registration retry, and scheduled launch files."""
    from launchops.chain.keys import load_keypair
    from launchops.config.launchfile import launch_files
    from launchops.errors import KeypairError, LaunchFileError
    from launchops.pipeline.runner import plan_launch

    if serve == bool(pool):
        raise refuse("give exactly one of --serve or --pool NAME")
    with user_errors():
        settings = settings_for(profile, profiles)
        try:
            wallet = load_keypair(settings.keypair, state_dir=settings.profile_dir).pubkey()
        except KeypairError:
            wallet = None
        scheduled = []
        for file in (f for target in launches or [] for f in launch_files(target)):
            try:
                plan = plan_launch(settings, wallet, file, check_times=False)
            except LaunchFileError as exc:
                console(stderr=True).print(str(exc), markup=False)
                raise typer.Exit(1) from None
            if plan.schedule:
                scheduled.append((plan.key, file, plan.schedule))
        quiet_prefect()
        from flows.deployments import build

        deployments = build(
            profile=profile,
            batch_paths=[str(p) for p in batch or []],
            batch_cron=batch_cron if batch else None,
            retry_cron=retry_cron,
            scheduled=scheduled,
            from_source=pool is not None,
        )
        names = [d.name for d in deployments]
        if pool:
            from prefect import deploy as prefect_deploy

            prefect_deploy(
                *deployments,
                work_pool_name=pool,
                build=False,
                push=False,
                print_next_steps_message=False,
            )
            console().print(f"registered on pool {pool}: {', '.join(names)}")
            console().print(f"run workers: prefect worker start --pool {pool}")
            return
        from prefect import serve as prefect_serve

        console().print(f"serving {', '.join(names)} (Ctrl-C to stop)")
        prefect_serve(*deployments)
