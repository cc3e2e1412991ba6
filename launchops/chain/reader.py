"""What the creator signs for a launch, read against its file before anything is signed.

The service builds a launch's transactions; the creator's key (and a first buyer's)
signs them, unattended. So each is decoded, through its address lookup tables, and held
against what a create of the file sends; anything else is refused, nothing signed:

- the fee payer is the creator (an agent's launch: its owner), and the only signatures
  asked for are the creator's, a first buyer's and the fresh mint's;
- a Genesis instruction is one a create sends (`initializeV2`, an add-bucket form, the
  extensions and end behaviors that complete a bucket, `finalizeV2`, `revokeV2`, the
  first buy's swap), on this launch's genesis account and mint, with the creator as payer
  and authority; `initializeV2` carries the file's name, symbol, image, decimals and
  supply, a bucket is the PDA the program derives, the swap is the file's first buy;
- an agent's launch wraps each Genesis instruction in an mpl-core `Execute` of the file's
  agent by its owner, and is read inside it with the agent's wallet as the creator;
- of the programs that move money, only the first buy's own steps: its wrapped SOL and
  token accounts made (idempotently) and paid by the buyer, the buy's SOL moved into its
  own wrapped SOL account, that account synced; Compute Budget and Memo pass. Any other
  program, and any other System or token instruction (a transfer, an authority handed
  over, a delegate approved, an account closed), is refused.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from solders.instruction import AccountMeta, CompiledInstruction
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.chain.checks import MEMO_PROGRAMS, Tables, account_keys
from launchops.chain.signing import required_signers
from launchops.errors import TransactionRefused
from launchops.genesis.codec import LayoutError
from launchops.genesis.instructions import ADDS_BUCKET, decode_instruction
from launchops.genesis.pdas import FEE_WALLET, GENESIS_PROGRAM, find_bucket_v2

LAMPORTS_PER_SOL = 1_000_000_000
COMPLETING = frozenset(
    {
        "addLaunchPoolBucketV2Extensions",
        "addPresaleBucketV2Extensions",
        "addUnlockedBucketV2Extensions",
        "addRaydiumCpmmBucketV2Extensions",
        "addBondingCurveBucketV2Extensions",
        "setLaunchPoolBucketV2Behaviors",
        "setPresaleBucketV2Behaviors",
        "setBondingCurveBucketV2Behaviors",
        "finalizeV2",
        "revokeV2",
    }
)
CREATE_NAMES = COMPLETING | set(ADDS_BUCKET) | {"initializeV2", "swapBondingCurveV2"}
ATA_CREATES = (b"", b"\x00", b"\x01")
SYNC_NATIVE = 17
TOKEN_INSTRUCTIONS = {  # by the token program's discriminator: what a refusal names
    3: "Transfer",
    4: "Approve",
    5: "Revoke",
    6: "SetAuthority",
    7: "MintTo",
    8: "Burn",
    9: "CloseAccount",
    10: "FreezeAccount",
    12: "TransferChecked",
    13: "ApproveChecked",
    14: "MintToChecked",
    15: "BurnChecked",
}


@dataclass(frozen=True)
class Expected:
    """What a create of the file is: who pays and signs, its mint and genesis account, the
    token as the file names it, and its first buy (buyer, lamports), if any."""

    fee_payer: Pubkey
    creator: Pubkey  # payer and authority of its Genesis instructions
    mint: Pubkey
    genesis: Pubkey
    name: str
    symbol: str
    uri: str
    decimals: int
    total: int  # the supply in base units
    first_buy: tuple[Pubkey, int] | None = None
    agent: Pubkey | None = None  # the agent's asset, for an agent's launch
    # Every bucket's base tokens, as the file allocates them (sorted, none of 0), and
    # every key the file names (a bucket pays no one else); empty: not held against.
    allocations: tuple[int, ...] = ()
    named: frozenset[Pubkey] = frozenset()
    quote_mint: Pubkey = p.NATIVE_MINT  # what the launch raises: the file's quote mint

    @property
    def signers(self) -> frozenset[Pubkey]:
        buyer = {self.first_buy[0]} if self.first_buy else set()
        return frozenset({self.fee_payer, self.mint, *buyer})


def read_launch(raw: bytes, number: int, expected: Expected, tables: Tables | None) -> None:
    """Refuse (`TransactionRefused`, naming the transaction and instruction) transaction
    `number` (from 1) of a create when it does anything the file does not ask for."""
    tx = VersionedTransaction.from_bytes(raw)
    where = f"transaction {number}"
    payer = tx.message.account_keys[0]
    if payer != expected.fee_payer:
        raise TransactionRefused(
            f"{where}: its fee payer is {payer}, not the creator {expected.fee_payer}: "
            "nothing signed"
        )
    strangers = [k for k in required_signers(tx) if k not in expected.signers]
    if strangers:
        raise TransactionRefused(
            f"{where}: it asks for the signature of {strangers[0]}, whom the file does not "
            "name: nothing signed"
        )
    keys = account_keys(tx, tables)
    for index, ix in enumerate(tx.message.instructions):
        _Instruction(keys, ix, f"{where}, instruction {index + 1}", expected).read()


class _Instruction:
    def __init__(self, keys: list[Pubkey], ix: CompiledInstruction, where: str, expected: Expected):
        indexes = list(ix.accounts)
        if ix.program_id_index >= len(keys) or any(i >= len(keys) for i in indexes):
            raise TransactionRefused(f"{where}: names an account it does not have: nothing signed")
        self.program = keys[ix.program_id_index]
        self.data = bytes(ix.data)
        self.accounts = [keys[i] for i in indexes]
        self.where = where
        self.expected = expected

    def refuse(self, what: str) -> TransactionRefused:
        return TransactionRefused(
            f"{self.where}: {what}, which the file does not ask for: nothing signed"
        )

    def read(self) -> None:
        program, expected = self.program, self.expected
        if program == p.COMPUTE_BUDGET_PROGRAM or program in MEMO_PROGRAMS:
            return
        if program == GENESIS_PROGRAM and expected.agent is None:
            _genesis(self, self.data, self.accounts, expected.creator)
        elif program == p.MPL_CORE_PROGRAM and expected.agent is not None:
            self._execute()
        elif program == p.SYSTEM_PROGRAM:
            self._system()
        elif program == p.TOKEN_PROGRAM:
            self._token()
        elif program == p.ASSOCIATED_TOKEN_PROGRAM:
            self._associated_token()
        else:
            raise self.refuse(f"an instruction of program {program}, which a launch does not use")

    def _execute(self) -> None:
        """An agent's Execute: of the file's agent, by its owner, wrapping Genesis."""
        expected = self.expected
        assert expected.agent is not None
        data = self.data
        if len(data) < 5 or data[0] != p.EXECUTE_DISCRIMINATOR or len(self.accounts) < 7:
            raise self.refuse("an mpl-core instruction that is not an Execute")
        asset, _, wallet, _, authority, _, inner_program = self.accounts[:7]
        if asset != expected.agent or authority != expected.fee_payer:
            raise self.refuse(f"an Execute of asset {asset} by {authority}")
        if inner_program != GENESIS_PROGRAM:
            raise self.refuse(f"an Execute of program {inner_program}")
        [size] = struct.unpack_from("<I", data, 1)
        _genesis(self, data[5 : 5 + size], self.accounts[7:], wallet)

    def _system(self) -> None:
        kind = struct.unpack_from("<I", self.data)[0] if len(self.data) >= 4 else None
        if kind == p.SYSTEM_TRANSFER and len(self.data) == 12 and len(self.accounts) >= 2:
            [lamports] = struct.unpack_from("<Q", self.data, 4)
            source, target = self.accounts[:2]
            buy = self.expected.first_buy
            wrap = buy and source == buy[0] and target == _wrapped(buy[0]) and lamports == buy[1]
            if not wrap:
                sol = lamports / LAMPORTS_PER_SOL
                raise self.refuse(f"a System transfer of {sol:g} SOL from {source} to {target}")
            return
        raise self.refuse(f"a System instruction ({kind})")

    def _token(self) -> None:
        buy = self.expected.first_buy
        if self.data == bytes([SYNC_NATIVE]) and buy and self.accounts[:1] == [_wrapped(buy[0])]:
            return
        kind = self.data[0] if self.data else None
        name = TOKEN_INSTRUCTIONS.get(kind, f"instruction ({kind})") if kind is not None else "?"
        on = f" on {self.accounts[0]}" if self.accounts else ""
        raise self.refuse(f"a token program {name}{on}")

    def _associated_token(self) -> None:
        buy = self.expected.first_buy
        if self.data in ATA_CREATES and buy and len(self.accounts) >= 4:
            payer, _, owner, mint = self.accounts[:4]
            if payer == owner == buy[0] and mint in (p.NATIVE_MINT, self.expected.mint):
                return
        owner = self.accounts[2] if len(self.accounts) > 2 else "nobody named"
        raise self.refuse(f"an associated token account made for {owner}")


def _wrapped(owner: Pubkey) -> Pubkey:
    return p.token_account_address(owner, p.NATIVE_MINT)


def _genesis(at: _Instruction, data: bytes, accounts: Sequence[Pubkey], creator: Pubkey) -> None:
    """A Genesis instruction of this create, on its accounts, as the file says."""
    expected = at.expected
    try:
        name, args, roles = decode_instruction(
            GENESIS_PROGRAM, data, [AccountMeta(a, False, False) for a in accounts]
        )
    except LayoutError as exc:
        raise at.refuse(f"a Genesis instruction that does not read ({exc})") from None
    if name not in CREATE_NAMES:
        raise at.refuse(f"the Genesis instruction {name}")
    fee_account = p.token_account_address(FEE_WALLET, expected.quote_mint)
    for role, want in (
        ("genesisAccount", expected.genesis),
        ("baseMint", expected.mint),
        ("quoteMint", expected.quote_mint),
        ("feeWallet", FEE_WALLET),  # fees only to the accounts the program's docs name
        ("feeQuoteTokenAccount", fee_account),
    ):
        if roles.get(role) not in (None, want):
            raise at.refuse(f"{name} on the {role} {roles[role]}, not this launch's {want}")
    if name == "swapBondingCurveV2":
        _first_buy(at, args, roles)
        return
    for role in ("payer", "authority"):
        if roles.get(role) not in (None, creator):
            raise at.refuse(f"{name} with {roles[role]} as its {role}, not the creator")
    if name == "initializeV2":
        _initialize(at, args)
    elif name in ADDS_BUCKET:
        _bucket(at, name, args, roles)


def _bucket(at: _Instruction, name: str, args: dict, roles: dict) -> None:  # type: ignore[type-arg]
    """An add-bucket instruction's bucket is the PDA the program derives for it, and it
    pays only someone the file names."""
    expected = at.expected
    bucket = find_bucket_v2(ADDS_BUCKET[name], expected.genesis, args["bucketIndex"])[0]
    if roles.get("bucket") != bucket:
        raise at.refuse(f"{name} of a bucket {roles.get('bucket')} the program would not make")
    recipient = roles.get("recipient")
    known = expected.named | {expected.creator, expected.fee_payer}
    if expected.named and recipient is not None and recipient not in known:
        raise at.refuse(f"{name} of a bucket paying {recipient}, whom the file does not name")


def read_allocations(
    transactions: Sequence[bytes], expected: Expected, tables: Tables | None
) -> None:
    """Refuse a create whose buckets, all transactions together, allocate other amounts
    of the token than the file's allocations (each instruction is read on its own by
    `read_launch`)."""
    if not expected.allocations:
        return
    made = sorted(
        args["baseTokenAllocation"]
        for raw in transactions
        for name, args in _genesis_calls(raw, expected, tables)
        if name in ADDS_BUCKET and args.get("baseTokenAllocation")
    )
    if tuple(made) != expected.allocations:
        raise TransactionRefused(
            f"the create's buckets allocate {made} base units of the token where the file "
            f"allocates {list(expected.allocations)}: nothing signed"
        )


def _genesis_calls(
    raw: bytes, expected: Expected, tables: Tables | None
) -> Iterator[tuple[str, dict]]:  # type: ignore[type-arg]
    """The Genesis instructions of a transaction (an agent's, inside its Executes) that
    decode: their names and arguments."""
    tx = VersionedTransaction.from_bytes(raw)
    keys = account_keys(tx, tables)
    for ix in tx.message.instructions:
        indexes = [ix.program_id_index, *ix.accounts]
        if any(i >= len(keys) for i in indexes):
            continue  # read_launch refuses it
        program, data = keys[ix.program_id_index], bytes(ix.data)
        accounts = [keys[i] for i in ix.accounts]
        wrapped = program == p.MPL_CORE_PROGRAM and expected.agent is not None
        if wrapped and len(data) >= 5 and len(accounts) > 6:  # an Execute: what it wraps
            [size] = struct.unpack_from("<I", data, 1)
            program, data, accounts = accounts[6], data[5 : 5 + size], accounts[7:]
        if program != GENESIS_PROGRAM:
            continue
        try:
            name, args, _ = decode_instruction(
                GENESIS_PROGRAM, data, [AccountMeta(a, False, False) for a in accounts]
            )
        except LayoutError:
            continue  # read_launch refuses it
        yield name, args


def _initialize(at: _Instruction, args: dict) -> None:  # type: ignore[type-arg]
    expected = at.expected
    said = {
        "name": expected.name,
        "symbol": expected.symbol,
        "uri": expected.uri,
        "decimals": expected.decimals,
        "totalSupplyBaseToken": expected.total,
    }
    for field, want in said.items():
        if args.get(field) != want:
            raise at.refuse(f"initializeV2 with {field} {args.get(field)!r} (the file: {want!r})")


def _first_buy(at: _Instruction, args: dict, roles: dict) -> None:  # type: ignore[type-arg]
    buy = at.expected.first_buy
    buyer = roles.get("quoteTokenOwner") or roles.get("payer")
    if buy is None or buyer != buy[0] or args.get("amount") != buy[1]:
        raise at.refuse(f"a swap of {args.get('amount')} lamports by {buyer}")
    if args.get("swapDirection") != 0:
        raise at.refuse("a sell on the curve")


__all__ = ["Expected", "read_allocations", "read_launch"]
