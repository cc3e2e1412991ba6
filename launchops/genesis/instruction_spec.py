"""How a Genesis instruction is described, built and read: its discriminator (the data's
first byte), its data's fields, and its accounts in order, each with its role (the JS
client's name), whether it is writable and whether it signs, and the default the JS
builder resolves when it is not given (a PDA, an associated token account, a program id,
the payer or the identity).

As in the JS builder, an optional account with no default that is not given is taken by
the program id (neither writable nor signer); a decoded instruction names it None. An
account that may sign or not (`PublicKey | Pda | Signer` in the client) signs when the
builder is told so (`signers`); one that is a `Signer` in the client always signs.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

import launchops.genesis.pdas as pdas
from launchops.genesis.codec import U8, Field, LayoutError, Struct

SIGNS, MAY_SIGN = "signs", "may sign"


@dataclass(frozen=True)
class Context:
    """The umi context's `payer`, or its `identity` (the payer unless told otherwise)."""

    name: str


@dataclass(frozen=True)
class Ata:
    """The associated token account of `mint` (a role) for `owner` (a role or a key);
    when `fallback` is named, the owner is that role whenever `owner` is not there."""

    mint: str
    owner: str | Pubkey
    fallback: str | None = None


@dataclass(frozen=True)
class Pda:
    """A Genesis PDA: "genesis" (baseMint, arg genesisIndex), "bucket" (`kind`;
    genesisAccount, arg bucketIndex), "deposit" (`kind`; bucket, `owner` or else
    `fallback`), "metadata" (baseMint) or "bucketSigner" (bucket)."""

    what: str
    kind: str = ""
    owner: str = ""
    fallback: str = ""


Default = Pubkey | Context | Ata | Pda


@dataclass(frozen=True)
class Account:
    """One account of an instruction, in its place."""

    name: str
    writable: bool = False
    signer: str = ""  # SIGNS, MAY_SIGN or ""
    optional: bool = False
    default: Default | None = None


def acc(name: str, flags: str = "", default: Default | None = None) -> Account:
    """An account from flags: "w" writable, "s" signs, "m" may sign, "?" optional."""
    signer = SIGNS if "s" in flags else MAY_SIGN if "m" in flags else ""
    return Account(name, "w" in flags, signer, "?" in flags, default)


class InstructionSpec:
    """An instruction: `name` as the JS client names it, its `discriminator`, its data
    (`data`, a Struct whose first field is the discriminator), its `accounts`, and the
    arg (`remaining`) that lists the read-only accounts after them, if it has one."""

    def __init__(
        self,
        name: str,
        discriminator: int,
        fields: Sequence[Field],
        accounts: Sequence[Account],
        remaining: str | None = None,
    ) -> None:
        self.name, self.discriminator, self.remaining = name, discriminator, remaining
        self.data = Struct(name, [Field("discriminator", U8, discriminator), *fields])
        self.accounts = tuple(accounts)
        self.roles = {a.name: a for a in self.accounts}

    def encode(self, args: Mapping[str, Any]) -> bytes:
        """The data for `args` (the discriminator is always this instruction's)."""
        values = {k: v for k, v in args.items() if k != self.remaining}
        return self.data.encode({**values, "discriminator": self.discriminator})

    def decode(self, data: bytes) -> dict[str, Any]:
        """The args `data` holds, the discriminator left out; every byte must be read."""
        args = self.data.decode(data)
        if args.pop("discriminator") != self.discriminator:
            raise LayoutError(f"{self.name}: discriminator {data[0]}, not {self.discriminator}")
        return args


class _Resolver:
    """The accounts of one build: those given, else their defaults, each once."""

    def __init__(
        self,
        spec: InstructionSpec,
        given: Mapping[str, Pubkey],
        args: Mapping[str, Any],
        context: Mapping[str, Pubkey | None],
    ) -> None:
        self.spec, self.given, self.args, self.context = spec, given, args, context
        self.done: dict[str, Pubkey | None] = {}

    def get(self, role: str) -> Pubkey | None:
        if role not in self.done:
            found = self.given.get(role)
            default = self.spec.roles[role].default
            self.done[role] = found if found is not None else self._default(role, default)
        return self.done[role]

    def owner(self, role: str, fallback: str) -> Pubkey:
        """`role` when it is there, else `fallback` (which must be)."""
        found = self.get(role)
        return found if found is not None else self.need(fallback)

    def need(self, role: str) -> Pubkey:
        found = self.get(role)
        if found is None:
            raise LayoutError(f"{self.spec.name}: needs the {role} account")
        return found

    def _default(self, role: str, default: Default | None) -> Pubkey | None:
        if default is None or isinstance(default, Pubkey):
            return default
        if isinstance(default, Context):
            found = self.context.get(default.name) or self.context.get("payer")
            if found is None:
                raise LayoutError(f"{self.spec.name}: {role} is the {default.name}: give one")
            return found
        if isinstance(default, Ata):
            owner = default.owner
            if isinstance(owner, str):
                owner = self.owner(owner, default.fallback or owner)
            return pdas.associated_token_address(owner, self.need(default.mint))
        return self._pda(default)

    def _pda(self, pda: Pda) -> Pubkey:
        if pda.what == "genesis":
            index = self.args.get("genesisIndex") or 0
            return pdas.find_genesis_account_v2(self.need("baseMint"), index)[0]
        if pda.what == "bucket":
            index = self.args.get("bucketIndex") or 0
            return pdas.find_bucket_v2(pda.kind, self.need("genesisAccount"), index)[0]
        if pda.what == "deposit":
            owner = self.owner(pda.owner, pda.fallback or pda.owner)
            return pdas.find_deposit_v2(pda.kind, self.need("bucket"), owner)[0]
        if pda.what == "metadata":
            return pdas.find_metadata(self.need("baseMint"))[0]
        assert pda.what == "bucketSigner", pda
        return pdas.find_raydium_bucket_signer(self.need("bucket"))[0]


def build(
    spec: InstructionSpec,
    args: Mapping[str, Any],
    accounts: Mapping[str, Pubkey],
    *,
    payer: Pubkey | None = None,
    identity: Pubkey | None = None,
    signers: Collection[str] = (),
) -> Instruction:
    """The instruction for `args` and the `accounts` given (by role), the others
    resolved as the JS builder resolves them; `signers` names the accounts that may
    sign and do."""
    unknown = sorted(set(accounts) - set(spec.roles)) + sorted(
        r for r in signers if r not in spec.roles or spec.roles[r].signer != MAY_SIGN
    )
    if unknown:
        raise LayoutError(f"{spec.name}: no such account, or not one that may sign: {unknown}")
    resolver = _Resolver(spec, accounts, args, {"payer": payer, "identity": identity})
    metas = []
    for account in spec.accounts:
        key = resolver.get(account.name)
        if key is None:
            if not account.optional:
                raise LayoutError(f"{spec.name}: needs the {account.name} account")
            metas.append(AccountMeta(pdas.GENESIS_PROGRAM, False, False))
            continue
        signs = account.signer == SIGNS or account.name in signers
        metas.append(AccountMeta(key, signs, account.writable))
    if spec.remaining:
        metas += [AccountMeta(key, False, False) for key in args.get(spec.remaining, ())]
    return Instruction(pdas.GENESIS_PROGRAM, spec.encode(args), metas)


def read_accounts(
    spec: InstructionSpec, keys: Sequence[Pubkey]
) -> tuple[dict[str, Pubkey | None], list[Pubkey]]:
    """The accounts by role (None for an optional one the program id stands in for),
    and those after them (only an instruction with a `remaining` arg has any)."""
    if len(keys) < len(spec.accounts):
        raise LayoutError(f"{spec.name}: {len(keys)} accounts, {len(spec.accounts)} needed")
    extra = list(keys[len(spec.accounts) :])
    if extra and not spec.remaining:
        raise LayoutError(f"{spec.name}: {len(extra)} accounts more than it takes")
    roles: dict[str, Pubkey | None] = {}
    for account, key in zip(spec.accounts, keys, strict=False):
        stand_in = account.optional and account.default is None and key == pdas.GENESIS_PROGRAM
        roles[account.name] = None if stand_in else key
    return roles, extra


def flag_problems(spec: InstructionSpec, metas: Sequence[AccountMeta]) -> list[str]:
    """What `metas` lack against the spec: a writable account not writable, an account
    that always signs not signing (stand-ins for absent optional accounts pass)."""
    problems = []
    for account, meta in zip(spec.accounts, metas, strict=False):
        if account.optional and account.default is None and meta.pubkey == pdas.GENESIS_PROGRAM:
            continue
        if account.writable and not meta.is_writable:
            problems.append(f"{spec.name}: {account.name} is not writable")
        if account.signer == SIGNS and not meta.is_signer:
            problems.append(f"{spec.name}: {account.name} does not sign")
    return problems
