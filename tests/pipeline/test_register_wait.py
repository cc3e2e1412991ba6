"""Register right after confirmation, against a service that has not indexed the launch
yet (the sandbox's `register_unindexed_slots`): a 400 "not found" is asked again with
backoff for up to the profile's `register_index_seconds`, then `register_failed`; any
other 400 fails at once."""

from __future__ import annotations

from launchops.errors import BadRequestError
from launchops.pipeline.runner import run_launch, validate
from launchops.retries import not_indexed_yet
from launchops.sandbox.faults import Faults
from tests.support.pipeline import context_for, set_faults, stats, write_launch

REGISTER = "POST /v1/launches/register"


async def test_register_waits_until_the_service_has_indexed_the_launch(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=50, faults=Faults(register_unindexed_slots=25))
    async with context_for(sandbox, tmp_path) as ctx:
        key = (await validate(ctx, write_launch(tmp_path, key="indexed-later"))).key
        record = await run_launch(ctx, key)
    assert record.state == "registered", record.last_error
    assert stats(sandbox)["api"][REGISTER] >= 2  # refused while unindexed, then registered
    assert stats(sandbox)["launches"]["registered"] == 1
    assert record.registered is not None and not record.registered.existing


async def test_register_gives_up_after_the_profiles_wait(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=50, faults=Faults(register_unindexed_slots=100_000))
    async with context_for(sandbox, tmp_path, register_index_seconds=2.0) as ctx:
        key = (await validate(ctx, write_launch(tmp_path, key="never-indexed"))).key
        record = await run_launch(ctx, key)
    assert record.state == "register_failed"
    assert "Genesis account not found on-chain" in record.last_error
    assert "still so after 2 s" in record.last_error
    assert stats(sandbox)["api"][REGISTER] >= 2
    assert stats(sandbox)["launches"]["registered"] == 0


async def test_any_other_400_fails_at_once(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    set_faults(sandbox, fail_status=400, fail_next={REGISTER: 1})
    async with context_for(sandbox, tmp_path) as ctx:
        key = (await validate(ctx, write_launch(tmp_path, key="other-400"))).key
        record = await run_launch(ctx, key)
    assert record.state == "register_failed" and "Injected failure" in record.last_error
    assert stats(sandbox)["api"][REGISTER] == 1


def test_only_a_not_found_400_is_waited_for():
    assert not_indexed_yet(BadRequestError(400, "Genesis account not found on-chain"))
    assert not not_indexed_yet(BadRequestError(400, "On-chain state does not match the launch"))
    assert not not_indexed_yet(ValueError("not found"))
