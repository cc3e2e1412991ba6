"""Program ids and the addresses the Genesis client derives: the V2 genesis account, every
V2 bucket and deposit (`accounts/*.js`, `find...Pda`), the Raydium signers, a mint's Token
Metadata account and classic associated token accounts. Each `find_...` returns the
address and its bump, as the JS client's `find...Pda` does.
"""

from __future__ import annotations

from solders.pubkey import Pubkey

GENESIS_PROGRAM = Pubkey.from_string("GNS1S5J5AspKXgpjz6SvKL66kPaKWAhaGRhCqPRxii2B")
TOKEN_METADATA_PROGRAM = Pubkey.from_string("metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s")
TOKEN_PROGRAM = Pubkey.from_string("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
ASSOCIATED_TOKEN_PROGRAM = Pubkey.from_string("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")
SYSTEM_PROGRAM = Pubkey.from_string("11111111111111111111111111111111")
RENT_SYSVAR = Pubkey.from_string("SysvarRent111111111111111111111111111111111")
NATIVE_MINT = Pubkey.from_string("So11111111111111111111111111111111111111112")  # wrapped SOL
FEE_WALLET = Pubkey.from_string("9kFjQsxtpBsaw8s7aUyiY3wazYDNgFP4Lj5rsBVVF8tb")  # the default

# A V2 bucket's seeds: its prefix, the genesis account, its index among its type's (u8).
BUCKET_PREFIXES = {
    "LaunchPoolBucketV2": b"launch_pool_v2",
    "PresaleBucketV2": b"presale_v2",
    "UnlockedBucketV2": b"unlocked_v2",
    "RaydiumCpmmBucketV2": b"raydium_cpmm_v2",
    "BondingCurveBucketV2": b"bonding_curve_v2",
    "StreamflowBucketV2": b"streamflow_v2",
    "VaultBucketV2": b"vault_v2",
}
# A V2 deposit's seeds: its prefix, the bucket, the recipient.
DEPOSIT_PREFIXES = {
    "LaunchPoolDepositV2": b"launch_pool_deposit_v2",
    "PresaleDepositV2": b"presale_deposit_v2",
    "VaultDepositV2": b"vault_deposit_v2",
}


def find_genesis_account_v2(base_mint: Pubkey, genesis_index: int = 0) -> tuple[Pubkey, int]:
    """`findGenesisAccountV2Pda`: "genesis_v2", the base mint, the index (u16 LE)."""
    seeds = [b"genesis_v2", bytes(base_mint), genesis_index.to_bytes(2, "little")]
    return Pubkey.find_program_address(seeds, GENESIS_PROGRAM)


def find_bucket_v2(kind: str, genesis_account: Pubkey, bucket_index: int) -> tuple[Pubkey, int]:
    """A V2 bucket of `kind` (a key of `BUCKET_PREFIXES`, e.g. "LaunchPoolBucketV2")."""
    seeds = [BUCKET_PREFIXES[kind], bytes(genesis_account), bytes([bucket_index])]
    return Pubkey.find_program_address(seeds, GENESIS_PROGRAM)


def find_deposit_v2(kind: str, bucket: Pubkey, recipient: Pubkey) -> tuple[Pubkey, int]:
    """A V2 deposit of `kind` (a key of `DEPOSIT_PREFIXES`) in `bucket`, for `recipient`."""
    seeds = [DEPOSIT_PREFIXES[kind], bytes(bucket), bytes(recipient)]
    return Pubkey.find_program_address(seeds, GENESIS_PROGRAM)


def find_raydium_bucket_signer(bucket: Pubkey) -> tuple[Pubkey, int]:
    """`findRaydiumBucketSignerPda`: "bucket_signer", the Raydium CPMM bucket."""
    return Pubkey.find_program_address([b"bucket_signer", bytes(bucket)], GENESIS_PROGRAM)


def find_raydium_signer() -> tuple[Pubkey, int]:
    """`findRaydiumSignerPda`: "raydium_signer", one for the program."""
    return Pubkey.find_program_address([b"raydium_signer"], GENESIS_PROGRAM)


def find_metadata(mint: Pubkey) -> tuple[Pubkey, int]:
    """A mint's Token Metadata account: "metadata", the program, the mint."""
    seeds = [b"metadata", bytes(TOKEN_METADATA_PROGRAM), bytes(mint)]
    return Pubkey.find_program_address(seeds, TOKEN_METADATA_PROGRAM)


def associated_token_address(
    owner: Pubkey, mint: Pubkey, token_program: Pubkey = TOKEN_PROGRAM
) -> Pubkey:
    """`owner`'s associated token account of `mint` (classic SPL Token unless told)."""
    seeds = [bytes(owner), bytes(token_program), bytes(mint)]
    return Pubkey.find_program_address(seeds, ASSOCIATED_TOKEN_PROGRAM)[0]
