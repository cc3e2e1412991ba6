"""The journal on SQLite and on PostgreSQL: recovery points, refused config changes,
every create attempt kept, leases that only one worker holds until they expire."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from solders.signature import Signature

from launchops.errors import JournalError
from launchops.journal.records import Created, Registered, Send
from launchops.journal.store import Journal
from launchops.states import LaunchState, Outcome


@pytest.fixture(params=["sqlite", "postgres"])
async def journal(request, tmp_path):
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'journal.db'}"
    else:
        url = request.getfixturevalue("postgres_url")
    opened = await Journal.open(url)
    yield opened
    await opened.close()


def unique(prefix: str) -> str:
    import uuid

    return f"{prefix}-{uuid.uuid4().hex[:8]}"


CREATED = Created.from_json(
    {
        "transactions": ["AQID"],
        "blockhash": "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N",
        "lastValidBlockHeight": 150,
        "mintAddress": "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
        "genesisAccount": "7nE9GvcwsqzYcPUYfm5gxzCKfmPqi7MdoxvGyb7z6EQN",
    }
)
SIGNATURE = Signature.new_unique()


async def test_states_and_outputs_are_recorded_in_order(journal):
    key = unique("lp")
    record = await journal.begin(
        key, config={"name": "A"}, config_hash="h1", network="solana-mainnet", source="a.yaml"
    )
    assert record.state == "validated" and record.attempt == 0
    await journal.record_created(key, 1, CREATED)
    await journal.record_signed(key, 1, [b"\x01\x02"], [Send(SIGNATURE)])
    record = await journal.get(key)
    assert record.state == "signed" and record.mint == str(CREATED.mint)
    assert record.current.signed == (b"\x01\x02",) and record.current.sends == (Send(SIGNATURE),)
    await journal.record_outcome(
        key, 1, Outcome.EXPIRED, state=LaunchState.EXPIRED, error="blockhash expired"
    )
    await journal.record_created(key, 2, replace(CREATED, mint=None))
    record = await journal.get(key)
    assert [a.number for a in record.attempts] == [1, 2]
    assert (
        record.attempts[0].outcome == "expired"
        and record.current.number == 2
        and record.last_error is None
    )
    await journal.record_registered(key, Registered("l", "https://x", "t", None))
    record = await journal.get(key)
    assert record.state == "registered" and record.registered.launch_id == "l"
    steps = [step for _, step, _ in await journal.events(key)]
    assert steps == ["validate", "create", "sign", "submit", "create", "register"]
    assert key in {r.key for r in await journal.all(states={"registered"})}


async def test_a_changed_config_under_a_key_is_refused(journal):
    key = unique("lp")
    await journal.begin(key, config={"name": "A"}, config_hash="h1", network="n", source="a.yaml")
    again = await journal.begin(
        key, config={"name": "A"}, config_hash="h1", network="n", source="a.yaml"
    )
    assert again.state == "validated"
    with pytest.raises(JournalError, match="different configuration"):
        await journal.begin(
            key, config={"name": "B"}, config_hash="h2", network="n", source="a.yaml"
        )
    replaced = await journal.begin(
        key, config={"name": "B"}, config_hash="h2", network="n", source="a.yaml", replace=True
    )
    assert replaced.config == {"name": "B"}
    await journal.record_created(key, 1, CREATED)
    await journal.record_signed(key, 1, [b"x"], [Send(SIGNATURE)])
    await journal.record_sends(key, 1, [Send(SIGNATURE, sent=True)], state=LaunchState.SUBMITTING)
    with pytest.raises(JournalError):
        await journal.begin(
            key, config={"name": "C"}, config_hash="h3", network="n", source="a.yaml", replace=True
        )


async def test_a_lease_has_one_holder_until_it_expires(journal):
    key = unique("lease")
    await journal.begin(key, config={}, config_hash="h", network="n", source=None)
    assert await journal.acquire(key, "worker-a", ttl=0.5)
    assert await journal.acquire(key, "worker-a", ttl=0.5)  # ours: renewed
    assert not await journal.acquire(key, "worker-b", ttl=0.5)
    await asyncio.sleep(0.6)
    assert await journal.acquire(key, "worker-b", ttl=30)  # a dead worker's lease is taken over
    assert not await journal.acquire(key, "worker-a", ttl=30)
    await journal.release(key, "worker-b")
    assert await journal.acquire(key, "worker-a", ttl=30)


async def test_concurrent_acquires_have_exactly_one_winner(journal):
    key = unique("race")
    await journal.begin(key, config={}, config_hash="h", network="n", source=None)
    results = await asyncio.gather(*(journal.acquire(key, f"w{i}", ttl=30) for i in range(8)))
    assert sum(results) == 1
