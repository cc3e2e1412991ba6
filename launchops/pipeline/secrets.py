"""A launch's secrets when a step needs them: held in memory since its file was validated
in this process, else read again from that file (a resume in another process, the
registration retry). The file must give the very launch the journal holds."""

from __future__ import annotations

from pathlib import Path

from launchops.config.secrets import NO_SECRETS, LaunchSecrets
from launchops.errors import LaunchFileError, SecretUnavailable
from launchops.journal.records import LaunchRecord
from launchops.pipeline.context import LaunchContext


async def secrets_of(ctx: LaunchContext, record: LaunchRecord) -> LaunchSecrets:
    """The launch's secrets (none when its file gave none); SecretUnavailable when they
    are needed and its file cannot give them again."""
    needed = record.launch_order.secrets
    if not needed:
        return NO_SECRETS
    held = ctx.secrets.get(record.key)
    if held is not None:
        return held
    from launchops.config.launchfile import plan_launch

    names = " and ".join(needed)
    if not record.source:
        raise SecretUnavailable(f"launch {record.key} needs {names}, and has no file to read")
    try:
        plan = plan_launch(
            ctx.profile, ctx.wallet, Path(record.source), check_times=False, resolver=ctx.resolver
        )
    except LaunchFileError as exc:
        first = exc.file_problems[0] if exc.file_problems else exc
        raise SecretUnavailable(
            f"launch {record.key} needs {names} from its file {record.source}, which cannot "
            f"give it now ({first}); make it readable as it was, then resume"
        ) from None
    if plan.config_hash != record.config_hash or plan.secrets.names != needed:
        raise SecretUnavailable(
            f"launch {record.key} needs {names} from its file {record.source}, which has "
            "changed since the launch began; restore it, then resume"
        )
    ctx.secrets[record.key] = plan.secrets
    return plan.secrets


__all__ = ["secrets_of"]
