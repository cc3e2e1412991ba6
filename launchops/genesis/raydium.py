"""The Raydium CPMM (CP-Swap) accounts of a Genesis graduation, derived as the JS client's
`deriveRaydiumPDAsV2` derives them (`@metaplex-foundation/genesis` 0.35.0, `raydium.js`):
the pool state a Genesis PDA of the Raydium bucket ("raydium_pool_state"), then the
Raydium program's PDAs of that pool (authority, LP mint, vaults, observation) and the
permission of the Genesis Raydium signer; the AMM config and the create-pool fee
receiver by network (mainnet unless devnet), the creator-fee config when asked.
"""

from __future__ import annotations

from solders.pubkey import Pubkey

from launchops.genesis.pdas import GENESIS_PROGRAM, NATIVE_MINT, find_raydium_signer

CP_SWAP_MAINNET = Pubkey.from_string("CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C")
CP_SWAP_DEVNET = Pubkey.from_string("DRaycpLY18LhpbydsBWbVJtxpNv9oXPgjRSfpF2bWpYb")
CREATE_POOL_FEE_MAINNET = Pubkey.from_string("DNXgeM9EiiaAbaWvwjHj9fQQLAX5ZsfHyvmYUNRAdNC8")
CREATE_POOL_FEE_DEVNET = Pubkey.from_string("3oE58BKVt8KuYkGxx8zBojugnymWmBiyafWgMrnb6eYy")
AMM_CONFIG = {
    ("mainnet", False): Pubkey.from_string("Bq9YmSkZ6f13L4rPsx9MxSXuyPfKCBbvrbvarKti1LdG"),
    ("devnet", False): Pubkey.from_string("G7YfJJp1TX1VtzN4V2yhPNSU23AKPSy1U2miRdwAByK5"),
    ("mainnet", True): Pubkey.from_string("CRRS5ieQmBrZjWhcj99JuGrT5tyuWDaGAXLXLFjbAtjQ"),
    ("devnet", True): Pubkey.from_string("5MxLgy9oPdTC3YgkiePHqr3EoCRD9uLVYRQS2ANAs7wy"),
}
CP_SWAP_PROGRAMS = (CP_SWAP_MAINNET, CP_SWAP_DEVNET)
LP_DECIMALS = 9  # a CP-Swap LP mint's
LOCKED_LP = 100  # LP tokens a CP-Swap pool keeps back at its creation


def _pda(program: Pubkey, *seeds: bytes) -> Pubkey:
    return Pubkey.find_program_address(list(seeds), program)[0]


def find_genesis_pool_state(raydium_bucket: Pubkey) -> Pubkey:
    """`findGenesisPoolStatePda`: "raydium_pool_state", the Raydium bucket (Genesis)."""
    return _pda(GENESIS_PROGRAM, b"raydium_pool_state", bytes(raydium_bucket))


def derive_raydium_pool(
    base_mint: Pubkey,
    raydium_bucket: Pubkey,
    quote_mint: Pubkey = NATIVE_MINT,
    env: str = "mainnet",
    creator_fee: bool = False,
) -> dict[str, Pubkey]:
    """`deriveRaydiumPDAsV2(umi, baseMint, raydiumBucket, {quoteMint, env, creatorFee})`:
    each account by the role `graduateToRaydiumCpmmV2` gives it."""
    devnet = env == "devnet"
    program = CP_SWAP_DEVNET if devnet else CP_SWAP_MAINNET
    pool = find_genesis_pool_state(raydium_bucket)
    signer = find_raydium_signer()[0]
    return {
        "poolState": pool,
        "ammConfig": AMM_CONFIG[("devnet" if devnet else "mainnet", creator_fee)],
        "poolAuthority": _pda(program, b"vault_and_lp_mint_auth_seed"),
        "lpMint": _pda(program, b"pool_lp_mint", bytes(pool)),
        "baseVault": _pda(program, b"pool_vault", bytes(pool), bytes(base_mint)),
        "quoteVault": _pda(program, b"pool_vault", bytes(pool), bytes(quote_mint)),
        "createPoolFee": CREATE_POOL_FEE_DEVNET if devnet else CREATE_POOL_FEE_MAINNET,
        "observationState": _pda(program, b"observation", bytes(pool)),
        "raydiumProgram": program,
        "raydiumSigner": signer,
        "permission": _pda(program, b"permission", bytes(signer)),
    }


__all__ = [
    "AMM_CONFIG",
    "CP_SWAP_PROGRAMS",
    "derive_raydium_pool",
    "find_genesis_pool_state",
]
