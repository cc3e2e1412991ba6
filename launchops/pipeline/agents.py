"""Agents minted once: an agent file journaled by its id, then the steps of a mint
(build, sign, submit, confirm), each done once.

The service does not deduplicate (two calls, two agents), so the journal does: the key is
`agent-<id>` (the file's `id:`, else a hash of what it mints). A second run reports the
agent minted; a run after a crash continues where the journal stopped. Before a build
again after an expiry, the previous build's asset is looked for on chain
(`steps.previous_dead`, the launch's create-again rule): found, it is watched, not minted
again. An answer that was never journaled was never signed, so it can never land.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pydantic
from pydantic import BaseModel, ConfigDict, Field
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.api.after import AgentMetadata, MintAgentRequest
from launchops.chain.checks import _accounts, _transfer, account_keys
from launchops.config.files import parse_yaml, read_text
from launchops.errors import APIStatusError, LaunchFileError, Problem, TransactionRefused
from launchops.journal.records import LaunchRecord
from launchops.pipeline.context import LaunchContext
from launchops.pipeline.steps import (
    StepFunction,
    begin_order,
    config_digest,
    confirm,
    next_attempt,
    previous_dead,
    record_built,
    refused,
    sign_checked,
    submit,
)
from launchops.states import Kind, Step

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"


class AgentFile(BaseModel):
    """What an agent file holds (YAML; `configs/agent.yaml`)."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(None, pattern=ID_PATTERN, description="the agent's stable key")
    name: str = Field(min_length=1, max_length=32)
    uri: str = Field(description="where the agent's metadata is served (https)")
    network: str | None = Field(None, description="default: the profile's network")
    collection: str | None = Field(None, description="an mpl-core collection address")
    card: dict[str, Any] | None = Field(None, description="the A2A card (needs a name)")
    metadata: AgentMetadata


def read_agent_file(path: Path) -> AgentFile:
    """The agent file, checked; LaunchFileError with each problem otherwise."""
    data = parse_yaml(path, read_text(path))[1]
    if not isinstance(data, dict):
        raise LaunchFileError([Problem(str(path), None, "(file)", "must be a mapping")])
    try:
        return AgentFile.model_validate(data)
    except pydantic.ValidationError as exc:
        raise LaunchFileError(
            [
                Problem(str(path), None, ".".join(str(x) for x in e["loc"]) or "(file)", e["msg"])
                for e in exc.errors()
            ]
        ) from None


def mint_request(ctx: LaunchContext, file: AgentFile, path: Path) -> dict[str, Any]:
    """The mint as the service takes it (wire JSON), checked by its contract; on the
    profile's network only (its RPC is the chain the mint is sent to)."""
    network = str(ctx.profile.network)
    if file.network not in (None, network):
        why = f"is {file.network}, but profile {ctx.profile.name} is on {network}"
        raise LaunchFileError([Problem(str(path), None, "network", why)])
    body = {
        "wallet": str(ctx.wallet),
        "network": network,
        "name": file.name,
        "uri": file.uri,
        "agentMetadata": file.metadata.to_wire(),
        "collectionAddress": file.collection,
        "a2aCard": file.card,
    }
    try:
        return MintAgentRequest.model_validate(body).to_wire()
    except pydantic.ValidationError as exc:
        raise LaunchFileError(
            [
                Problem(str(path), None, ".".join(str(x) for x in e["loc"]), e["msg"])
                for e in exc.errors()
            ]
        ) from None


def agent_key(file: AgentFile, config: dict[str, Any]) -> str:
    return f"agent-{file.id or config_digest(config)[:16]}"


async def begin_agent(ctx: LaunchContext, path: Path) -> LaunchRecord:
    """Record the agent file in the journal (state `validated`), or find it there."""
    file = read_agent_file(path)
    config = mint_request(ctx, file, path)
    key = agent_key(file, config)
    note = f"{path} -> {key}"
    return await begin_order(
        ctx, key, Kind.AGENT, config, network=config["network"], source=str(path), note=note
    )


# ── the steps of a mint ─────────────────────────────────────────────────────


async def build(ctx: LaunchContext, record: LaunchRecord) -> None:
    """POST /agents/mint (again only once the previous build is provably dead), and keep
    what it answered: the transaction and the new asset's address."""
    if not await previous_dead(ctx, record):
        return
    number = await next_attempt(ctx, record)
    if number is None:
        return
    body = MintAgentRequest.model_validate(record.config)
    await ctx.check_lease(record.key)
    try:
        built = await ctx.client.mint_agent(
            ctx.wallet,
            name=body.name,
            uri=str(body.uri),
            agent_metadata=body.agent_metadata,
            network=str(body.network),
            collection_address=body.collection_address,
            a2a_card=body.a2a_card,
        )
    except APIStatusError as exc:
        await refused(ctx, record, exc)
        return
    # the asset proves the mint landed, as a launch's mint does
    await record_built(ctx, record, number, (built.tx,), built, built.asset_address)


def check_mint(ctx: LaunchContext, record: LaunchRecord, raw: bytes) -> None:
    """Refuse, unsigned, a mint that sends the wallet's SOL anywhere (System transfers) or
    funds an account other than the new asset (the wallet pays fees and its rent)."""
    tx = VersionedTransaction.from_bytes(raw)
    keys = account_keys(tx)  # a mint loads no lookup table: one that does is refused
    asset = record.current.created.mint if record.current else None
    for index, ix in enumerate(tx.message.instructions):
        if keys[ix.program_id_index] != p.SYSTEM_PROGRAM:
            continue
        data = bytes(ix.data)
        source, target = _accounts(keys, ix, index, 2)[:2]
        creates = len(data) >= 4 and int.from_bytes(data[:4], "little") == 0
        if source == ctx.wallet and (_transfer(data) is not None or (creates and target != asset)):
            raise TransactionRefused(
                f"mint instruction {index + 1} moves the wallet's SOL to {target}, "
                f"not into the new asset {asset}"
            )


async def sign(ctx: LaunchContext, record: LaunchRecord) -> None:
    """The wallet co-signs the mint (the asset's key signed it at the service), once
    the mint is checked."""
    await sign_checked(ctx, record, check_mint)


AGENT_STEPS: dict[Step, StepFunction] = {
    Step.CREATE: build,
    Step.SIGN: sign,
    Step.SUBMIT: submit,
    Step.CONFIRM: confirm,
}

__all__ = ["AGENT_STEPS", "AgentFile", "begin_agent", "read_agent_file"]
