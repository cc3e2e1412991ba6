"""Landing on a busy cluster: a profile's `landing:` section against the sandbox's busy
chain (`congestion`), block engine and sniper. Bundle mode lands through congestion in a
slot or two with one create each, its tip journaled and paid once; with a sniper, bundle
mode's first buys all get the opening price and plain mode names each sniped launch."""

from __future__ import annotations

import statistics
from pathlib import Path

from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

import launchops.web as web
from launchops.genesis.pdas import find_bucket_v2
from launchops.library.results import LaunchResult
from launchops.pipeline.batch import run_batch
from launchops.pipeline.bundling import BundleSubmission
from launchops.pipeline.rows import spent as spent_in
from launchops.pipeline.runner import run_launch, run_step, validate
from launchops.sandbox import bonding
from launchops.sandbox.genesis_create import plan
from launchops.states import Step
from tests.support.pipeline import (
    RECIPIENT,
    context_for,
    dump_yaml,
    future,
    launch_document,
    set_faults,
    stats,
    write_launch,
)

BUNDLE = {"mode": "bundle", "tip_lamports": 10_000, "max_tip_lamports": 40_000}


def curve_with_first_buy(folder: Path, key: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key}.yaml"
    document = {
        "id": key,
        "name": "Sniped Token",
        "symbol": "SNIP",
        "image": "https://gateway.irys.xyz/snip",
        "bondingCurve": {"firstBuyAmount": "1"},
    }
    path.write_text(dump_yaml(document))
    return path


async def test_bundles_land_every_launch_through_congestion_in_a_slot_or_two(
    sandbox_factory, tmp_path
):
    sandbox = sandbox_factory(slot_ms=100, seed=28)
    set_faults(sandbox, congestion=0.9)
    paths = [write_launch(tmp_path / "files", f"l{n}.yaml", key=f"busy-{n}") for n in range(20)]
    async with context_for(sandbox, tmp_path, landing=BUNDLE, concurrency=10) as ctx:
        before = await ctx.rpc.balance(ctx.wallet)
        rows = await run_batch(ctx, paths)
        left = before - await ctx.rpc.balance(ctx.wallet)
        records = [await ctx.journal.get(row.key) for row in rows]
    assert [row.state for row in rows] == ["registered"] * 20, [r.error for r in rows]
    assert all(record.attempt == 1 for record in records)  # one create each
    spent = [record.current.spent for record in records]
    assert all(s.mode == "bundle" and s.tip_paid and s.tip_lamports == 10_000 for s in spent)
    assert all(s.fee_lamports == 5000 * 5 for s in spent)  # 4 signatures to create, 1 to tip
    # What left the creator, from the chain: fees, tip and the rent of what each launch made.
    assert all(row.lamports_spent > 25_000 + 10_000 and row.tip_lamports == 10_000 for row in rows)
    assert spent_in(rows) == {"lamportsSpent": left, "tipLamports": 20 * 10_000}
    served = stats(sandbox)
    slots = served["bundles"]["slotsToLand"]  # from the bundle's first arrival, as it landed
    assert len(slots) == 20 and statistics.median(slots) <= 2, slots
    assert all(s.slots_to_land is not None for s in spent)  # as launchops saw it, journaled
    assert served["rpc"].get("sendTransaction", 0) == 0  # never outside the bundle
    assert served["bundles"]["landed"] == 20


async def test_with_the_sniper_on_bundles_get_the_opening_price_and_plain_is_told(
    sandbox_factory, tmp_path
):
    sandbox = sandbox_factory(slot_ms=40, seed=5)
    set_faults(sandbox, sniper=0.5)
    async with context_for(sandbox, tmp_path / "bundle", landing=BUNDLE) as ctx:
        bundled = [
            await run_launch(
                ctx, (await validate(ctx, curve_with_first_buy(tmp_path, f"b{n}"))).key
            )
            for n in range(3)
        ]
        got = [await first_buy_tokens(ctx, record) for record in bundled]
    async with context_for(sandbox, tmp_path / "plain") as ctx:
        plain = [
            await run_launch(
                ctx, (await validate(ctx, curve_with_first_buy(tmp_path, f"p{n}"))).key
            )
            for n in range(2)
        ]
        got_plain = [await first_buy_tokens(ctx, record) for record in plain]
    assert all(r.state == "registered" for r in [*bundled, *plain]), [
        (r.state, r.last_error, r.error_details) for r in [*bundled, *plain]
    ]
    assert all(tokens == opening for tokens, opening in got)  # the opening price, each time
    assert all(not r.current.spent.sniped_by for r in bundled)
    sniped = set(web.get(f"{sandbox.url}/_sandbox/stats").json()["sniped"])
    assert {r.genesis for r in [*bundled, *plain]} <= sniped  # the sniper bought every curve
    for record, (tokens, opening) in zip(plain, got_plain, strict=True):
        assert len(record.current.spent.sniped_by) == 1 and tokens < opening
        result = LaunchResult.of(ctx.profile, record).to_json()
        assert result["snipedBy"] == list(record.sniped_by) and result["lamportsSpent"] > 0


async def first_buy_tokens(ctx, record) -> tuple[int, int]:
    """Tokens the first buy got, and what it would get at the curve's opening price."""
    creator = record.launch.public_key
    buy = bonding.first_buy(
        record.launch, plan(record.launch, creator, Pubkey.from_string(record.mint))
    )
    curve = find_bucket_v2("BondingCurveBucketV2", Pubkey.from_string(record.genesis), 0)[0]
    assert buy is not None and buy.bucket.address == curve
    held = (await ctx.rpc.client.get_token_account_balance(buy.account)).value
    return int(held.amount), buy.tokens


async def test_a_bundle_passed_over_for_its_tip_expires_and_the_next_create_tips_double(
    sandbox_factory, tmp_path
):
    sandbox = sandbox_factory(slot_ms=10, seed=3)
    set_faults(sandbox, tip_floor_lamports=15_000)  # 10,000 is passed over, 20,000 is not
    path = write_launch(tmp_path / "files", "floor.yaml", key="floor")
    async with context_for(sandbox, tmp_path, landing=BUNDLE, rebroadcast_seconds=0.2) as ctx:
        record = await run_launch(ctx, (await validate(ctx, path)).key)
    assert record.state == "registered", (record.last_error, record.error_details)
    first, second = record.attempts
    assert (first.outcome, first.spent.tip_lamports, first.spent.tip_paid) == (
        "expired",
        10_000,
        False,
    )
    assert (second.spent.tip_lamports, second.spent.tip_paid) == (20_000, True)
    # What left the creator, from the chain (the unpaid tip: nothing): fees, tip and rent.
    assert (
        record.lamports_spent == second.spent.creator_lamports > second.spent.fee_lamports + 20_000
    )
    assert first.spent.lamports == 0
    assert stats(sandbox)["rpc"].get("sendTransaction", 0) == 0


async def test_plain_sends_go_through_every_sender_too(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=20, seed=9)
    other = sandbox_factory(slot_ms=20)  # a sender that is not the profile's RPC
    path = write_launch(tmp_path / "files", "senders.yaml", key="senders")
    landing = {"senders": [other.rpc_url]}
    async with context_for(sandbox, tmp_path, landing=landing) as ctx:
        record = await run_launch(ctx, (await validate(ctx, path)).key)
    assert record.state == "registered"
    sent = stats(other)["rpc"].get("sendTransaction", 0)
    assert sent >= len(record.current.signed)  # each transaction went through it as well
    assert record.current.spent.mode == "plain" and not record.current.spent.tip_lamports


async def test_a_create_too_long_for_a_bundle_is_sent_plainly_or_refused(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=20)
    many = [
        {
            "name": f"Team {n}",
            "recipient": RECIPIENT,
            "tokenAmount": 1_000_000,
            "vestingStartTime": future(33),
            "vestingDuration": {"value": 1, "unit": "YEAR"},
            "unlockSchedule": "MONTH",
        }
        for n in range(14)
    ]
    files = tmp_path / "files"
    plain = write_launch(
        files,
        "long.yaml",
        key="long",
        launchpool={**launch_document()["launchpool"], "lockedAllocations": many},
    )
    refused = write_launch(
        files,
        "refused.yaml",
        key="refused",
        symbol="REF",
        launchpool={**launch_document()["launchpool"], "lockedAllocations": many},
    )
    async with context_for(sandbox, tmp_path / "a", landing=BUNDLE) as ctx:
        sent = await run_launch(ctx, (await validate(ctx, plain)).key)
    refuse = {**BUNDLE, "too_long": "refuse"}
    async with context_for(sandbox, tmp_path / "b", landing=refuse) as ctx:
        stopped = await run_launch(ctx, (await validate(ctx, refused)).key)
    assert len(sent.current.signed) > 4
    assert sent.state == "registered" and sent.current.spent.mode == "plain"
    assert stopped.state == "failed" and "landing.too_long: plain" in stopped.last_error
    assert not stopped.current.anything_sent


async def test_a_journal_made_before_spending_was_kept_gains_its_column(tmp_path):
    import sqlite3

    from launchops.journal.store import Journal

    url = f"sqlite:///{tmp_path / 'journal.db'}"
    journal = await Journal.open(url)
    await journal.close()
    with sqlite3.connect(tmp_path / "journal.db") as db:
        db.execute("alter table create_attempts drop column spent")
    journal = await Journal.open(url)
    await journal.close()
    with sqlite3.connect(tmp_path / "journal.db") as db:
        columns = [row[1] for row in db.execute("pragma table_info(create_attempts)")]
    assert "spent" in columns


async def test_the_fees_of_a_launch_stopped_halfway_are_journaled(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=20)
    set_faults(sandbox, fail_tail_next=1)  # its first transaction lands, the second fails
    path = write_launch(tmp_path / "files", "half.yaml", key="half")
    async with context_for(sandbox, tmp_path) as ctx:
        record = await run_launch(ctx, (await validate(ctx, path)).key)
    assert record.state == "needs_attention"
    first, failed, *after = record.current.sends
    assert first.landing is not None and failed.sent and failed.landing is None
    assert after and not any(send.sent for send in after)  # none sent after the failure
    paid = 5000 * sum(  # a failed transaction pays its fees too; one never sent, none
        VersionedTransaction.from_bytes(raw).message.header.num_required_signatures
        for raw, send in zip(record.current.signed, record.current.sends, strict=True)
        if send.sent
    )
    assert record.current.spent.fee_lamports == paid == record.lamports_spent


async def test_a_run_killed_after_its_bundle_left_sends_the_same_bundle_again(
    sandbox_factory, tmp_path
):
    sandbox = sandbox_factory(slot_ms=20)
    path = write_launch(tmp_path / "files", "killed.yaml", key="killed")
    async with context_for(sandbox, tmp_path, landing=BUNDLE) as ctx:
        key = (await validate(ctx, path)).key
        await run_step(Step.CREATE, ctx, key)
        await run_step(Step.SIGN, ctx, key)
        async with ctx.holding(key):  # the killed run: its tip journaled, one bundle sent
            first = BundleSubmission(ctx, await ctx.journal.get(key))
            await first.offer_tip()
            await first.engine.send_bundle([*first.signed, first.tip_raw])
    async with context_for(sandbox, tmp_path, landing=BUNDLE) as ctx:
        record = await run_launch(ctx, key)
        tip_account = Pubkey.from_string(record.current.spent.tip_account)
        held = await ctx.rpc.balance(tip_account)
        rent = (await ctx.rpc.client.get_minimum_balance_for_rent_exemption(0)).value
    assert record.state == "registered" and record.attempt == 1
    assert record.current.spent.tip_signature == first.tip.tip_signature
    assert held == rent + 10_000  # tipped once
