"""The sandbox's launch endpoints and the rest of its /v1 API through the launchops client
over real HTTP: the spec's statuses, envelopes, headers and limits, and on-chain effects
read over JSON-RPC (the agents' endpoints: test_api_agents.py)."""

from __future__ import annotations

import copy
from base64 import b64decode

import pytest
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

import launchops.web as web
from launchops.api import errors as e
from launchops.api import programs as p
from launchops.api.models import AgentRecord
from launchops.genesis.metadata import decode_metadata, unpuff
from launchops.genesis.pdas import find_genesis_account_v2, find_metadata
from launchops.sandbox.genesis_create import plan
from tests.api import examples as ex
from tests.support.solana import funded_keypair, launch_for, send_all

# ── launches ────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("kind", ["launchpool", "presale"])
async def test_a_full_launch_makes_real_state_and_registers_once(client, rpc, kind):
    creator = await funded_keypair(rpc)
    config = launch_for(creator, kind)
    created = await client.create_launch(creator.pubkey(), config)
    first, *rest = [VersionedTransaction.from_bytes(t) for t in created.transactions]
    assert first.message.header.num_required_signatures == 2  # creator, mint (genesis: a PDA)
    assert all(t.message.header.num_required_signatures == 1 for t in rest)  # creator only
    await send_all(rpc, created.transactions, creator)
    registered = await client.register_launch(created.genesis_account, config)
    assert registered.existing is None and registered.token.mint_address == created.mint_address
    again = await client.register_launch(created.genesis_account, config)
    assert again.existing is True and again.launch.id == registered.launch.id
    held = (await rpc.get_account_info(created.mint_address)).value
    assert held.owner == p.TOKEN_PROGRAM
    mint = p.read_mint(bytes(held.data))
    assert (mint.decimals, mint.supply) == (config.decimals, config.supply * 10**config.decimals)
    assert mint.mint_authority is None and mint.freeze_authority is None
    assert created.genesis_account == find_genesis_account_v2(created.mint_address)[0]
    found = (await rpc.get_account_info(find_metadata(created.mint_address)[0])).value
    metadata = decode_metadata(bytes(found.data))
    assert metadata["mint"] == created.mint_address
    assert metadata["updateAuthority"] == creator.pubkey()
    shown = tuple(unpuff(metadata[field]) for field in ("name", "symbol", "uri"))
    assert shown == (config.name, config.symbol, config.image)
    token = await client.get_token(created.mint_address, network=config.network)
    assert len(token.launches) == 1 and token.launches[0].genesis_address == created.genesis_account
    assert token.base_token.symbol == config.symbol
    assert web.get(registered.launch.link).status_code == 200


async def test_answers_keep_their_nulls_and_leave_out_what_was_never_set(client, rpc, sandbox):
    creator = await funded_keypair(rpc)
    config = launch_for(creator, externalLinks=None)
    created = await client.create_launch(creator.pubkey(), config)
    await send_all(rpc, created.transactions, creator)
    body = {"genesisAccount": str(created.genesis_account), "launch": config.to_wire()}
    registered = web.post(f"{sandbox.base_url}/launches/register", json=body).json()
    assert list(registered) == ["success", "launch", "token"]  # no `existing` the first time
    data = web.get(f"{sandbox.base_url}/tokens/{created.mint_address}").json()["data"]
    assert data["website"] is None and data["socials"] == {}
    launch = data["launches"][0]
    assert launch["heroUrl"] is None and launch["graduatedAt"] is None
    agents = web.get(f"{sandbox.base_url}/agents", params={"pageSize": 100}).json()["data"]
    fields = {f.alias for f in AgentRecord.model_fields.values()}
    assert all(fields <= set(agent) for agent in agents["agents"])  # "or null": never absent
    assert any(agent["verifiedAt"] is None for agent in agents["agents"])


async def test_register_before_sending_is_genesis_not_found(client, rpc):
    creator = await funded_keypair(rpc)
    config = launch_for(creator)
    created = await client.create_launch(creator.pubkey(), config)
    with pytest.raises(e.BadRequestError) as caught:
        await client.register_launch(created.genesis_account, config)
    assert caught.value.error == "Genesis account not found on-chain"


async def test_register_rejects_a_partial_launch_naming_the_buckets(client, rpc):
    creator = await funded_keypair(rpc)
    config = launch_for(creator)
    created = await client.create_launch(creator.pubkey(), config)
    await send_all(rpc, created.transactions[:1], creator)
    launch = plan(config, creator.pubkey(), created.mint_address)
    held = [(await rpc.get_account_info(b.address)).value for b in launch.buckets]
    missing = {f"allocations.{b.name}" for b, a in zip(launch.buckets, held, strict=True) if not a}
    assert missing and len(missing) < len(launch.buckets)  # the first transaction: some of them
    with pytest.raises(e.BadRequestError) as caught:
        await client.register_launch(created.genesis_account, config)
    assert caught.value.error == "On-chain state does not match the launch"
    paths = [".".join(d["path"]) for d in caught.value.details]
    assert {path for path in paths if path.startswith("allocations.")} == missing
    assert "launch.finalize" in paths  # and its authorities not yet revoked
    assert {"mint.mintAuthority", "mint.freezeAuthority"} <= set(paths)


async def test_register_rejects_a_launch_unlike_the_created_one(client, rpc):
    creator = await funded_keypair(rpc)
    config = launch_for(creator)
    created = await client.create_launch(creator.pubkey(), config)
    await send_all(rpc, created.transactions, creator)
    other = config.model_copy(update={"name": "Another Name"})
    with pytest.raises(e.BadRequestError) as caught:
        await client.register_launch(created.genesis_account, other)
    assert caught.value.details == [
        {"path": ["launch", "name"], "message": "differs from what was sent to create"}
    ]


async def test_create_400_with_details(sandbox):
    body = ex.create_body()
    body["launch"]["symbol"] = "WAYTOOLONGSYMBOL"
    body["launch"]["allocations"][0]["supply"] = -1
    answer = web.post(f"{sandbox.base_url}/launches/create", json=body)
    assert answer.status_code == 400
    paths = [d["path"] for d in answer.json()["details"]]
    assert ["launch", "symbol"] in paths and ["launch", "allocations", 0, "supply"] in paths


OUT_OF_RANGE = [
    (["allocations", 0, "supply"], 10**400, "must be at most 10^18 (got 10^400)"),
    (["allocations", 0, "supply"], 1e300, "must be at most 10^18 (got 1e+300)"),
    (["allocations", 2, "supply"], 10**19 + 1, "must be at most 10^18 (got 10000000000000000001)"),
    (["decimals"], 40, "must be 1 to 9 (got 40)"),
    (["decimals"], 0, "must be 1 to 9 (got 0)"),
    (["supply"], 10**30, "must be 1 to 10^18 (got 10^30)"),
    (
        ["allocations", 0, "launchpoolV2", "minimumQuoteTokenThreshold"],
        10**11,
        "must be at most 10^10 (got 10^11)",
    ),
    (
        ["allocations", 0, "launchpoolV2", "fundFlows", 1, "lpLockSchedule", "duration"],
        2**70,
        "must be 0 to 3155760000 seconds, 100 years (got 1.18059E+21)",
    ),
    (
        ["allocations", 1, "lockedV2", "vesting", "durationValue"],
        10**12,
        "must be 1 to 3155760000 (got 10^12)",
    ),
]


@pytest.mark.parametrize(
    ("path", "value", "message"), OUT_OF_RANGE, ids=[".".join(map(str, c[0])) for c in OUT_OF_RANGE]
)
def test_create_400_for_any_out_of_range_number_never_500(sandbox, path, value, message):
    body = ex.create_body()
    node = body["launch"]
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    answer = web.post(f"{sandbox.base_url}/launches/create", json=body)
    assert answer.status_code == 400, answer.text[:300]
    assert answer.json()["success"] is False and answer.json()["error"] == "Invalid input data"
    assert {"path": ["launch", *path], "message": message} in answer.json()["details"]


def test_register_400_for_a_time_that_leaves_the_calendar_in_utc(sandbox):
    # Found by schemathesis (150 examples, seed 1): astimezone(UTC) raised OverflowError, a 500.
    launch = ex.launchpool_launch()
    condition = launch["allocations"][0]["launchpoolV2"]["depositStartCondition"]
    condition["timestamp"] = "0001-01-01T00:00:00+01:00"
    body = {"genesisAccount": ex.GENESIS, "network": "solana-mainnet", "launch": launch}
    answer = web.post(f"{sandbox.base_url}/launches/register", json=body)
    assert answer.status_code == 400, answer.text[:300]
    path = ["launch", "allocations", 0, "launchpoolV2", "depositStartCondition", "timestamp"]
    assert [d["path"] for d in answer.json()["details"]] == [path]


def test_create_400_for_more_buckets_than_a_launch_holds(sandbox):
    # 257 allocations of one type overflowed the bucket PDA's u8 index: a 500.
    body = ex.create_body()
    unlocked = body["launch"]["allocations"][2]
    body["launch"]["allocations"] += [
        {**copy.deepcopy(unlocked), "name": f"Airdrop {i}", "supply": 1} for i in range(300)
    ]
    unlocked["supply"] -= 300  # the whole supply, still
    answer = web.post(f"{sandbox.base_url}/launches/create", json=body)
    assert answer.status_code == 400, answer.text[:300]
    assert answer.json()["details"] == [
        {
            "path": ["launch"],
            "message": "a launch holds at most 100 buckets (allocations and liquidity-pool "
            "flows); this one has 304",
        }
    ]


def test_create_400_for_an_image_url_longer_than_metadata_holds(sandbox):
    # A 500 kB image URL made instruction data past u16::MAX: solders panicked, a 500.
    body = ex.create_body()
    body["launch"]["image"] = "https://gateway.irys.xyz/" + "a" * 500_000
    answer = web.post(f"{sandbox.base_url}/launches/create", json=body)
    assert answer.status_code == 400, answer.text[:300]
    assert answer.json()["details"] == [
        {"path": ["launch", "image"], "message": "must be at most 200 characters (got 500025)"}
    ]


async def test_create_refuses_a_finalized_launch_that_does_not_allocate_its_supply(client, rpc):
    creator = await funded_keypair(rpc)
    launch = launch_for(creator).to_wire()
    launch["allocations"][2]["supply"] = 1000
    with pytest.raises(e.BadRequestError) as caught:
        await client.create_launch(
            creator.pubkey(), type(launch_for(creator)).model_validate(launch)
        )
    assert "must allocate its whole supply" in caught.value.details[0]["message"]


def test_create_accepts_the_js_clients_extra_fields(sandbox_factory):
    sandbox = sandbox_factory()
    seeded = web.post(f"{sandbox.url}/_sandbox/seed", params={"agents": 1, "owner": ex.WALLET})
    [owned] = seeded.json()["agents"]
    body = ex.create_body()
    body["agent"] = {"mint": owned, "setToken": True}
    body["creatorWallet"] = ex.WALLET  # a field create does not know: ignored
    answer = web.post(f"{sandbox.base_url}/launches/create", json=body)
    assert answer.status_code == 200
    created = answer.json()
    mint = Pubkey.from_string(created["mintAddress"])
    assert created["genesisAccount"] == str(find_genesis_account_v2(mint)[0])
    messages = [
        VersionedTransaction.from_bytes(b64decode(t)).message for t in created["transactions"]
    ]
    assert messages and all(str(m.account_keys[0]) == ex.WALLET for m in messages)
    programs = {m.account_keys[i.program_id_index] for m in messages for i in m.instructions}
    assert programs == {p.MPL_CORE_PROGRAM}  # each of the agent's: an Execute
    body["agent"]["mint"] = ex.AGENT  # an agent the wallet does not own: as the service says
    refused = web.post(f"{sandbox.base_url}/launches/create", json=body)
    assert refused.status_code == 403
    assert refused.json() == {
        "success": False,
        "error": "Agent is not owned by the connected wallet",
    }


async def test_token_lookup_404_is_the_read_error_shape(client, sandbox):
    answer = web.get(f"{sandbox.base_url}/tokens/{Keypair().pubkey()}")
    assert answer.status_code == 404 and answer.json() == {"error": {"message": "Token not found"}}
    with pytest.raises(e.NotFoundError):
        await client.get_token(Keypair().pubkey())


def test_unknown_route_is_404_in_the_envelope(sandbox):
    answer = web.get(f"{sandbox.base_url}/nothing-here")
    assert answer.status_code == 404 and answer.json() == {"success": False, "error": "Not found"}


def test_openapi_is_served(sandbox):
    spec = web.get(f"{sandbox.base_url}/openapi.json").json()
    assert "/v1/launches/create" in spec["paths"] and "/v1/agents" in spec["paths"]


@pytest.mark.parametrize(
    ("endpoint", "path", "body", "text"),
    [
        (
            "POST /v1/agents/{address}/fund",
            "agents/{agent}/fund",
            {"sender": ex.WALLET, "amount": 1, "memo": "m"},
            "Failed to prepare fund transaction",
        ),
        (
            "POST /v1/agents/{address}/withdraw",
            "agents/{agent}/withdraw",
            {"sender": ex.WALLET, "amount": 1},
            "Failed to prepare withdraw transaction",
        ),
        ("POST /v1/launches/create", "launches/create", ex.create_body(), "Internal server error"),
        ("POST /v1/launches/register", "launches/register", {}, "Internal server error"),
    ],
)
def test_section_7_server_errors_carry_the_specs_text(sandbox_factory, endpoint, path, body, text):
    sandbox = sandbox_factory(seed_agents=1)
    agent = web.get(f"{sandbox.base_url}/agents").json()["data"]["agents"][0]["mintAddress"]
    web.put(f"{sandbox.url}/_sandbox/faults", json={"fail_next": {endpoint: 1}})
    answer = web.post(f"{sandbox.base_url}/{path.format(agent=agent)}", json=body)
    assert answer.status_code == 500
    assert answer.json() == {"success": False, "error": text}
