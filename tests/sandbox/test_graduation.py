"""A bonding curve's graduation and its pool's creator fee, on the sandbox over HTTP and
JSON-RPC: the buy that sells the curve out is followed by the crank's
`graduateToRaydiumCpmmV2`, which makes the Raydium CPMM pool (the bucket's tokens and the
raise in its vaults, the pool in the bucket); a second graduation, or one before the
curve sold out, is refused with the program's error; a pool buy's creator fee accrues in
the Raydium bucket and is claimed with `claimRaydiumCreatorFeeV2`, once."""

from __future__ import annotations

import base64
import math
from typing import Any

from solana.rpc.async_api import AsyncClient
from solana.rpc.models import TxOpts
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

import launchops.genesis.accounts as ga
import launchops.web as web
from launchops.api import programs as p
from launchops.genesis.errors import BY_NAME
from launchops.genesis.instructions import build_instruction
from launchops.genesis.pdas import find_bucket_v2
from launchops.genesis.raydium import derive_raydium_pool
from tests.support.after import buy, curve_config, launched
from tests.support.solana import funded_keypair, send_all, wait_for


async def read(rpc: AsyncClient, key: Pubkey, kind: str) -> dict[str, Any]:
    found = (await rpc.get_account_info(key)).value
    assert found is not None, f"{key} is not on chain"
    return ga.decode_account_as(kind, bytes(found.data))


async def token_amount(rpc: AsyncClient, key: Pubkey) -> int:
    found = (await rpc.get_account_info(key)).value
    return p.read_token_account(bytes(found.data)).amount if found else 0


class Launch:
    """A curve launch's accounts, read back from its genesis account."""

    def __init__(self, genesis: str, account: dict[str, Any]) -> None:
        self.genesis = Pubkey.from_string(genesis)
        self.mint, self.quote = account["baseMint"], account["quoteMint"]
        self.curve = find_bucket_v2("BondingCurveBucketV2", self.genesis, 0)[0]
        self.pool_bucket = find_bucket_v2("RaydiumCpmmBucketV2", self.genesis, 0)[0]
        self.pool = derive_raydium_pool(self.mint, self.pool_bucket, creator_fee=True)


async def curve_launch(client: Any, rpc: AsyncClient) -> tuple[Keypair, Launch]:
    creator = await funded_keypair(rpc)
    genesis = await launched(client, rpc, creator, curve_config(creator.pubkey()))
    account = await read(rpc, Pubkey.from_string(genesis), "GenesisAccountV2")
    return creator, Launch(genesis, account)


async def graduate(rpc: AsyncClient, launch: Launch) -> Any:
    """Anyone's `graduateToRaydiumCpmmV2` (the crank is permissionless), sent; its error."""
    payer = await funded_keypair(rpc, sol=1)
    accounts = {
        **launch.pool,
        "genesisAccount": launch.genesis,
        "bucket": launch.pool_bucket,
        "baseMint": launch.mint,
        "payer": payer.pubkey(),
    }
    ix = build_instruction("graduateToRaydiumCpmmV2", {}, accounts, payer=payer.pubkey())
    blockhash = (await rpc.get_latest_blockhash()).value.blockhash
    tx = VersionedTransaction(MessageV0.try_compile(payer.pubkey(), [ix], [], blockhash), [payer])
    opts = TxOpts(skip_preflight=True, skip_confirmation=True)
    signature = (await rpc.send_raw_transaction(bytes(tx), opts=opts)).value
    return (await wait_for(rpc, signature)).err


def refused_with(err: Any, name: str) -> bool:
    return f"Custom({BY_NAME[name]})" in str(err) or f"'Custom': {BY_NAME[name]}" in str(err)


async def test_the_buy_that_sells_the_curve_out_graduates_it_to_its_pool(sandbox, client, rpc):
    _, launch = await curve_launch(client, rpc)
    buy(sandbox, str(launch.genesis), 10**9)
    before = await read(rpc, launch.pool_bucket, "RaydiumCpmmBucketV2")
    assert before["poolState"] == Pubkey.default() and before["graduatedBaseTokenAmount"] == 0
    allocation = before["bucket"]["baseTokenBalance"]
    sold_out = buy(sandbox, str(launch.genesis), 200 * 10**9)
    assert sold_out["graduated"] and sold_out["bucket"] == "bondingCurve"

    curve = await read(rpc, launch.curve, "BondingCurveBucketV2")
    pool = await read(rpc, launch.pool_bucket, "RaydiumCpmmBucketV2")
    raised = curve["quoteTokenDepositTotal"]
    assert pool["poolState"] == launch.pool["poolState"]
    assert pool["graduatedBaseTokenAmount"] == allocation > 0
    assert pool["bucket"]["baseTokenBalance"] == 0 and pool["quoteTokenInSigner"] == raised
    assert pool["lpTokenBalance"] == math.isqrt(allocation * raised) - 100
    assert pool["extensions"]["creatorFee"]["wallet"] == curve["extensions"]["creatorFee"]["wallet"]
    assert [b["processed"] for b in curve["endBehaviors"]] == [True]
    assert curve["bucket"]["quoteTokenBalance"] == 0
    assert await token_amount(rpc, launch.pool["baseVault"]) == allocation
    assert await token_amount(rpc, launch.pool["quoteVault"]) == raised
    vault = (await rpc.get_account_info(launch.pool["quoteVault"])).value
    assert p.read_token_account(bytes(vault.data)).owner == launch.pool["poolAuthority"]

    listing = web.get(f"{sandbox.base_url}/launches/{launch.genesis}").json()["data"]["launch"]
    assert listing["status"] == "graduated" and listing["graduatedAt"]


async def test_a_second_graduation_is_refused_as_already_graduated(sandbox, client, rpc):
    _, launch = await curve_launch(client, rpc)
    buy(sandbox, str(launch.genesis), 200 * 10**9)
    graduated = await read(rpc, launch.pool_bucket, "RaydiumCpmmBucketV2")
    err = await graduate(rpc, launch)
    assert refused_with(err, "BucketAlreadyGraduated"), err  # Custom(188)
    assert await read(rpc, launch.pool_bucket, "RaydiumCpmmBucketV2") == graduated


async def test_a_graduation_before_the_curve_sold_out_is_refused(sandbox, client, rpc):
    _, launch = await curve_launch(client, rpc)
    buy(sandbox, str(launch.genesis), 10**9)
    err = await graduate(rpc, launch)
    assert refused_with(err, "GraduationNotStarted"), err  # Custom(189)
    pool = await read(rpc, launch.pool_bucket, "RaydiumCpmmBucketV2")
    assert pool["poolState"] == Pubkey.default()
    listing = web.get(f"{sandbox.base_url}/launches/{launch.genesis}").json()["data"]["launch"]
    assert listing["status"] == "live"


async def test_a_pool_buys_creator_fee_is_claimed_from_the_raydium_bucket(sandbox, client, rpc):
    creator, launch = await curve_launch(client, rpc)
    buy(sandbox, str(launch.genesis), 200 * 10**9)
    vault = await token_amount(rpc, launch.pool["quoteVault"])
    trade = buy(sandbox, str(launch.genesis), 5 * 10**9)
    fee = 5 * 10**9 * 60 // 10_000
    assert trade["bucket"] == "raydium" and trade["creatorFee"] == fee
    assert await token_amount(rpc, launch.pool["quoteVault"]) == vault + 5 * 10**9 - fee
    pool = await read(rpc, launch.pool_bucket, "RaydiumCpmmBucketV2")
    assert (pool["creatorFeeAccrued"], pool["creatorFeeClaimed"]) == (fee, 0)

    body = {"wallet": str(creator.pubkey()), "network": "solana-mainnet"}
    answer = web.post(f"{sandbox.base_url}/creator-rewards/claim", json=body, timeout=30)
    transactions = [base64.b64decode(t) for t in answer.json()["data"]["transactions"]]
    programs = [
        [tx.message.account_keys[ix.program_id_index] for ix in tx.message.instructions]
        for tx in map(VersionedTransaction.from_bytes, transactions)
    ]
    assert programs == [[p.GENESIS_PROGRAM], [p.GENESIS_PROGRAM]]  # the curve's, the pool's
    assert [
        VersionedTransaction.from_bytes(t).message.instructions[0].data[0] for t in transactions
    ] == [105, 106]
    wrapped = p.token_account_address(creator.pubkey(), p.NATIVE_MINT)
    await send_all(rpc, transactions, creator)
    pool = await read(rpc, launch.pool_bucket, "RaydiumCpmmBucketV2")
    curve = await read(rpc, launch.curve, "BondingCurveBucketV2")
    assert pool["creatorFeeClaimed"] == fee
    assert await token_amount(rpc, wrapped) == fee + curve["creatorFeeClaimed"]
    again = web.post(f"{sandbox.base_url}/creator-rewards/claim", json=body, timeout=30)
    assert again.status_code == 400  # nothing left to claim
