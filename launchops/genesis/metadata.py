"""A mint's Metaplex Token Metadata account (`Metadata`), as
`@metaplex-foundation/mpl-token-metadata` lays it out: key, update authority, mint, name,
symbol, uri, seller fee, creators, primary sale, mutability, then the optional fields
(edition nonce, token standard, collection, uses, collection details, programmable
config), each an umi option.

The program pads name, symbol and uri with NUL characters to 32, 10 and 200 bytes
(`puff_out`) and allocates `MAX_METADATA_LEN` bytes, zeros after the data. The JS client
reads strings with their NULs removed; `decode_metadata` keeps them (`unpuff` removes).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from launchops.genesis.codec import (
    BOOL,
    PUBKEY,
    STRING,
    U8,
    U16,
    U64,
    Array,
    DataEnum,
    Enum,
    Field,
    LayoutError,
    Option,
    Struct,
    none,
    pad,
)

MAX_NAME_LENGTH, MAX_SYMBOL_LENGTH, MAX_URI_LENGTH = 32, 10, 200
MAX_CREATOR_LIMIT, MAX_CREATOR_LEN = 5, 34
MAX_DATA_SIZE = 4 + MAX_NAME_LENGTH + 4 + MAX_SYMBOL_LENGTH + 4 + MAX_URI_LENGTH + 2 + 1 + 4
MAX_DATA_SIZE += MAX_CREATOR_LIMIT * MAX_CREATOR_LEN
MAX_METADATA_LEN = 1 + 32 + 32 + MAX_DATA_SIZE + 1 + 1 + 9 + 172  # 679


class MetadataKey(IntEnum):
    """Token Metadata's account keys (`types/key`)."""

    Uninitialized = 0
    EditionV1 = 1
    MasterEditionV1 = 2
    ReservationListV1 = 3
    MetadataV1 = 4
    ReservationListV2 = 5
    MasterEditionV2 = 6
    EditionMarker = 7
    UseAuthorityRecord = 8
    CollectionAuthorityRecord = 9
    TokenOwnedEscrow = 10
    TokenRecord = 11
    MetadataDelegate = 12
    EditionMarkerV2 = 13
    HolderDelegate = 14


class TokenStandard(IntEnum):
    """What kind of token a Metadata account describes (`Fungible` for a launch's)."""

    NonFungible = 0
    FungibleAsset = 1
    Fungible = 2
    NonFungibleEdition = 3
    ProgrammableNonFungible = 4
    ProgrammableNonFungibleEdition = 5


class UseMethod(IntEnum):
    """How a token's `uses` are spent."""

    Burn = 0
    Multiple = 1
    Single = 2


CREATOR = Struct(
    "Creator", [Field("address", PUBKEY), Field("verified", BOOL, False), Field("share", U8)]
)
COLLECTION = Struct("Collection", [Field("verified", BOOL, False), Field("key", PUBKEY)])
USES = Struct(
    "Uses", [Field("useMethod", Enum(UseMethod)), Field("remaining", U64), Field("total", U64)]
)
COLLECTION_DETAILS = DataEnum(
    "CollectionDetails", [("V1", [Field("size", U64)]), ("V2", [pad("padding", 8)])]
)
PROGRAMMABLE_CONFIG = DataEnum("ProgrammableConfig", [("V1", [none("ruleSet", Option(PUBKEY))])])
METADATA = Struct(
    "Metadata",
    [
        Field("key", Enum(MetadataKey), MetadataKey.MetadataV1),
        Field("updateAuthority", PUBKEY),
        Field("mint", PUBKEY),
        *(Field(name, STRING) for name in ("name", "symbol", "uri")),
        Field("sellerFeeBasisPoints", U16, 0),
        none("creators", Option(Array(CREATOR))),
        Field("primarySaleHappened", BOOL, False),
        Field("isMutable", BOOL, True),
        none("editionNonce", Option(U8)),
        none("tokenStandard", Option(Enum(TokenStandard))),
        none("collection", Option(COLLECTION)),
        none("uses", Option(USES)),
        none("collectionDetails", Option(COLLECTION_DETAILS)),
        none("programmableConfig", Option(PROGRAMMABLE_CONFIG)),
    ],
)


def _puff(text: str, size: int) -> str:
    raw = text.encode()
    if len(raw) > size:
        raise LayoutError(f"{text!r}: {len(raw)} bytes, more than {size}")
    return text + "\0" * (size - len(raw))


def puff_out(value: dict[str, Any]) -> dict[str, Any]:
    """`value` with name, symbol and uri padded with NULs as the program pads them."""
    sizes = {"name": MAX_NAME_LENGTH, "symbol": MAX_SYMBOL_LENGTH, "uri": MAX_URI_LENGTH}
    return {**value, **{k: _puff(value[k], size) for k, size in sizes.items()}}


def unpuff(text: str) -> str:
    """A padded string as the JS client reads it: its NULs removed."""
    return text.replace("\0", "")


def encode_metadata(value: dict[str, Any], *, space: int | None = MAX_METADATA_LEN) -> bytes:
    """The account data for `value` (strings as given: see `puff_out`), zeros after it
    up to `space` bytes (None: no more than the data)."""
    data = METADATA.encode(value)
    if space is None:
        return data
    if len(data) > space:
        raise LayoutError(f"Metadata: {len(data)} bytes, more than {space}")
    return data + bytes(space - len(data))


def decode_metadata(data: bytes) -> dict[str, Any]:
    """A Metadata account's fields (zeros after them ignored, as the JS client does)."""
    value = METADATA.decode(data, exact=False)
    if value["key"] != MetadataKey.MetadataV1:
        raise LayoutError(f"a Token Metadata {value['key'].name}, not a MetadataV1")
    return value
