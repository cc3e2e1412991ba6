"""`launchops check`: is a profile ready to launch? The service, the RPC's cluster, the
key's address and balance (never the key) and its file's mode, the journal, the Prefect
API: one line each, ok or what to fix. On the sandbox profile with no sandbox running,
it starts the embedded one for the check, as every other command does. A `prefect-secret:`
key behind a Prefect API that answers anyone from other machines is refused outright
(exit 2)."""

from __future__ import annotations

import typer

from launchops.cli.command import Call, shared
from launchops.cli.common import (
    console,
    exposed_by,
    guard_prefect_api,
    print_json,
    secret_block,
)


def install(app: typer.Typer) -> None:
    app.command()(check)


@shared(prefect_server=True)
def check(call: Call) -> None:
    """Check a profile before launching: service, cluster, key and balance, journal, and
    whether the Prefect API asks for auth."""
    from launchops.readiness import check_profile

    settings = call.settings
    exposure = guard_prefect_api(exposed_by(settings, deploying=False), call.insecure_server)
    # In the embedded sandbox where the profile wants one (not with --base-url), as `launch`.
    findings = call.run(lambda: check_profile(settings, secret_block, exposure=exposure))
    if call.as_json:
        print_json({"profile": settings.name, "checks": [f.as_dict() for f in findings]})
    else:
        out = console()
        out.print("profile ", end="")
        out.print(settings.name, end="", style="bold")
        if settings.service == "sandbox":  # nothing real: say so before anything else
            out.print(f" (a sandbox: a local chain, no real funds; as {settings.network})")
        else:
            out.print(f" ({settings.service} service, {settings.network})")
        for finding in findings:
            out.print(
                "ok  " if finding.ok else "FIX ", end="", style="green" if finding.ok else "red"
            )
            out.print(f" {finding.check:<8} {finding.detail}")
    if not all(f.ok for f in findings):
        raise typer.Exit(1)
