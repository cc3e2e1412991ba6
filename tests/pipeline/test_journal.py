"""The journal on SQLite and on PostgreSQL: recovery points, refused config changes,
every create attempt kept, leases that only one worker holds until they expire, writes
fenced by the lease, and the transition table kept by the journal itself."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from solders.signature import Signature

from launchops.errors import JournalError, LeaseLost
from launchops.journal.records import Created, Lease, Registered, Send
from launchops.journal.store import Journal
from launchops.states import BEFORE_SENDING, LaunchState, Outcome


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


async def hold(journal: Journal, key: str, owner: str = "worker", ttl: float = 30) -> Lease:
    """Take the launch's lease for `owner` and write under it from now on."""
    lease = await journal.acquire(key, owner, ttl=ttl)
    assert lease is not None
    journal.held[key] = lease
    return lease


async def test_states_and_outputs_are_recorded_in_order(journal):
    key = unique("lp")
    record = await journal.begin(
        key, config={"name": "A"}, config_hash="h1", network="solana-mainnet", source="a.yaml"
    )
    assert record.state == "validated" and record.attempt == 0
    await hold(journal, key)
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
    await journal.record_signed(key, 2, [b"\x03"], [Send(SIGNATURE)])
    landed = [Send(SIGNATURE, sent=True)]
    await journal.record_sends(key, 2, landed, state=LaunchState.SUBMITTING)
    await journal.record_sends(key, 2, landed, state=LaunchState.SUBMITTED)
    await journal.set_state(key, LaunchState.CONFIRMED, step="confirm", message="all")
    await journal.record_registered(key, Registered("l", "https://x", "t", None))
    record = await journal.get(key)
    assert record.state == "registered" and record.registered.launch_id == "l"
    steps = [step for _, step, _ in await journal.events(key)]
    again = ["create", "sign", "confirm", "register"]
    assert steps == ["validate", "create", "sign", "submit", *again]
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
    await hold(journal, key)
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
    first = await journal.acquire(key, "worker-a", ttl=0.5)
    assert first is not None
    assert await journal.acquire(key, "worker-a", ttl=0.5) == first  # ours: renewed
    assert await journal.acquire(key, "worker-b", ttl=0.5) is None
    await asyncio.sleep(0.6)
    taken = await journal.acquire(key, "worker-b", ttl=30)  # a dead worker's lease is taken
    assert taken is not None and taken.epoch == first.epoch + 1  # the fencing number grows
    assert await journal.acquire(key, "worker-a", ttl=30) is None
    assert not await journal.renew(first, ttl=30)
    await journal.release(taken)
    again = await journal.acquire(key, "worker-a", ttl=30)
    assert again is not None and again.epoch == taken.epoch + 1


async def test_concurrent_acquires_have_exactly_one_winner(journal):
    key = unique("race")
    await journal.begin(key, config={}, config_hash="h", network="n", source=None)
    results = await asyncio.gather(*(journal.acquire(key, f"w{i}", ttl=30) for i in range(8)))
    assert sum(r is not None for r in results) == 1


async def test_a_holder_whose_lease_was_taken_writes_nothing_more(journal):
    """A's lease lapses mid-step and B takes the launch: A's next write (its create's
    answer) is refused as a lost lease and changes nothing; B's writes hold."""
    key = unique("fenced")
    await journal.begin(key, config={}, config_hash="h", network="n", source=None)
    lapsing = await hold(journal, key, "worker-a", ttl=0.2)
    await asyncio.sleep(0.3)
    taken = await journal.acquire(key, "worker-b", ttl=30)
    assert taken is not None and taken.epoch > lapsing.epoch
    with pytest.raises(LeaseLost, match="taken over by another worker"):
        await journal.record_created(key, 1, CREATED)
    assert key not in journal.held  # nothing more is written under it
    with pytest.raises(LeaseLost):
        await journal.set_state(key, LaunchState.FAILED, step="create", message="x")
    record = await journal.get(key)
    assert record.state == "validated" and record.attempts == [] and record.last_error is None
    journal.held[key] = taken  # the taker resumes from what the journal holds
    await journal.record_created(key, 1, CREATED)
    record = await journal.get(key)
    assert record.state == "created" and [a.number for a in record.attempts] == [1]
    # The same owner name under an older fencing number is refused all the same.
    journal.held[key] = Lease(key, taken.owner, taken.epoch - 1)
    with pytest.raises(LeaseLost):
        await journal.record_signed(key, 1, [b"x"], [Send(SIGNATURE)])
    assert (await journal.get(key)).state == "created"


async def test_a_write_without_a_lease_is_refused(journal):
    key = unique("unleased")
    await journal.begin(key, config={}, config_hash="h", network="n", source=None)
    with pytest.raises(LeaseLost):
        await journal.record_created(key, 1, CREATED)
    assert (await journal.get(key)).attempts == []


async def test_the_journal_refuses_a_state_the_table_does_not_allow(journal):
    key = unique("table")
    await journal.begin(key, config={}, config_hash="h", network="n", source=None)
    await hold(journal, key)
    with pytest.raises(JournalError, match="from validated to registered; the transition table"):
        await journal.set_state(key, LaunchState.REGISTERED, step="register", message="no")
    record = await journal.get(key)
    assert record.state == "validated" and record.attempt == 0
    await journal.record_created(key, 1, CREATED)
    with pytest.raises(JournalError, match="from created to submitted"):  # nothing signed
        await journal.record_sends(key, 1, [Send(SIGNATURE)], state=LaunchState.SUBMITTED)
    assert (await journal.get(key)).current.sends is None  # the whole write was refused
    with pytest.raises(JournalError) as refused:  # a second create attempt 1: a sentence
        await journal.record_created(key, 1, CREATED)
    text = str(refused.value)
    assert "attempt 1 is already in the journal" in text
    assert not any(word in text for word in ("duplicate key", "INSERT", "psycopg", "sqlite3"))
    assert (await journal.get(key)).state == "created"


async def test_a_replaced_config_fences_out_its_holder(journal):
    key = unique("replaced")
    await journal.begin(key, config={"a": 1}, config_hash="h1", network="n", source=None)
    await hold(journal, key)
    await journal.begin(
        key, config={"a": 2}, config_hash="h2", network="n", source=None, replace=True
    )
    with pytest.raises(LeaseLost):  # its create's answer was for the old config
        await journal.record_created(key, 1, CREATED)
    assert (await journal.get(key)).attempts == []


async def test_the_worker_who_took_a_lease_is_kept_on_its_launch(journal):
    key, other = unique("worked"), unique("unworked")
    for each in (key, other):
        await journal.begin(each, config={}, config_hash="h", network="n", source=None)
    lease = await journal.acquire(key, "owner-a", ttl=0.2, worker="host-a (pid 1)")
    assert await journal.workers([key, other]) == {key: "host-a (pid 1)"}
    await asyncio.sleep(0.3)
    await journal.take_over(key, lease.owner, "owner-b", ttl=30, worker="host-b")
    assert await journal.workers([key]) == {key: "host-b"}


async def test_a_journal_made_before_workers_were_named_opens_and_names_them(tmp_path):
    import sqlite3

    path = tmp_path / "old.db"
    journal = await Journal.open(f"sqlite:///{path}")
    await journal.close()
    with sqlite3.connect(path) as old:  # as a journal made before leases were fenced
        old.execute("alter table launches drop column worker")
        old.execute("alter table launches drop column lease_epoch")
    journal = await Journal.open(f"sqlite:///{path}")
    try:
        key = unique("old")
        await journal.begin(key, config={}, config_hash="h", network="n", source=None)
        assert await journal.acquire(key, "owner", ttl=30, worker="host-a")
        assert await journal.workers([key]) == {key: "host-a"}
    finally:
        await journal.close()


def test_the_states_before_sending_are_those_the_table_reaches_before_submit():
    S = LaunchState
    # failed is where a run stops (a re-run asks whether anything landed), not before sending
    assert {S.VALIDATED, S.CREATED, S.SIGNED} == BEFORE_SENDING
