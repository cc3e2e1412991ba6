"""The umi serializers the Genesis JS client is generated with, in Python: little-endian
integers, umi strings (a u32 length, then UTF-8), public keys, fixed byte strings and
arrays, umi options (a u8 tag), the fixed-size options whose None is a sentinel, structs,
scalar enums and data enums.

Each layout is a `Codec`: `encode(value) -> bytes`, `read(data, offset) -> (value, end)`
and `decode(data)`. Values are plain Python: ints, bools, str, bytes (for `bytes({size})`),
lists (for `array(...)`, padding included), `Pubkey`, `IntEnum` members, a dict for a
struct and `{"__kind": name, ...fields}` for a data enum's variant (the JS client's own
shape), None for an option that holds nothing. A struct's field may have a default, used
when the value leaves it out (padding is zeros, an option None).

Reading is strict where the JS client is lenient: a bool or an option tag other than 0 or
1 and a string that is not UTF-8 are refused (umi reads them as false, some and U+FFFD).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from solders.pubkey import Pubkey

KIND = "__kind"  # a data enum value's variant, as umi names it


class LayoutError(ValueError):
    """Bytes that do not read as the layout, or a value the layout cannot write."""


def _take(data: bytes, offset: int, size: int, what: str) -> bytes:
    if offset + size > len(data):
        raise LayoutError(f"{what}: needs {size} bytes at {offset}, {len(data)} in all")
    return data[offset : offset + size]


class Codec:
    """One layout: `size` is its length in bytes when fixed, else None."""

    name = "?"
    size: int | None = None

    def encode(self, value: Any) -> bytes:  # pragma: no cover - every codec has its own
        raise NotImplementedError

    def read(self, data: bytes, offset: int = 0) -> tuple[Any, int]:  # pragma: no cover
        raise NotImplementedError

    def decode(self, data: bytes, *, exact: bool = True) -> Any:
        """The value `data` holds; with `exact`, bytes left over are an error."""
        data = bytes(data)
        value, end = self.read(data, 0)
        if exact and end != len(data):
            raise LayoutError(f"{self.name}: {len(data) - end} bytes left over after {end}")
        return value


class Int(Codec):
    """A little-endian integer (`struct` format: B, H, I, Q, b, h, i or q)."""

    def __init__(self, name: str, fmt: str) -> None:
        self.name, self._format = name, struct.Struct("<" + fmt)
        self.size = self._format.size

    def encode(self, value: Any) -> bytes:
        if isinstance(value, bool) or not isinstance(value, int):
            raise LayoutError(f"{self.name}: {value!r} is not an integer")
        try:
            return self._format.pack(value)
        except struct.error:
            raise LayoutError(f"{self.name}: {value} is out of range") from None

    def read(self, data: bytes, offset: int = 0) -> tuple[int, int]:
        raw = _take(data, offset, self._format.size, self.name)
        return self._format.unpack(raw)[0], offset + self._format.size


U8, U16, U32, U64 = Int("u8", "B"), Int("u16", "H"), Int("u32", "I"), Int("u64", "Q")
I64 = Int("i64", "q")


class Bool(Codec):
    """umi `bool()`: one byte, 0 or 1."""

    name, size = "bool", 1

    def encode(self, value: Any) -> bytes:
        if not isinstance(value, bool):
            raise LayoutError(f"bool: {value!r} is not a bool")
        return bytes([value])

    def read(self, data: bytes, offset: int = 0) -> tuple[bool, int]:
        byte = _take(data, offset, 1, self.name)[0]
        if byte > 1:
            raise LayoutError(f"bool: byte {byte} at {offset}")
        return byte == 1, offset + 1


BOOL = Bool()


class Str(Codec):
    """umi `string()`: a u32 length, then that many bytes of UTF-8."""

    name = "string"

    def encode(self, value: Any) -> bytes:
        if not isinstance(value, str):
            raise LayoutError(f"string: {value!r} is not a str")
        raw = value.encode()
        return U32.encode(len(raw)) + raw

    def read(self, data: bytes, offset: int = 0) -> tuple[str, int]:
        length, offset = U32.read(data, offset)
        raw = _take(data, offset, length, self.name)
        try:
            return raw.decode(), offset + length
        except UnicodeDecodeError as error:
            raise LayoutError(f"string at {offset}: not UTF-8 ({error.reason})") from None


STRING = Str()


class PubkeyCodec(Codec):
    """umi `publicKey()`: 32 bytes; a `Pubkey` (or its base58 text) to write."""

    name, size = "publicKey", 32

    def encode(self, value: Any) -> bytes:
        if isinstance(value, str):
            value = Pubkey.from_string(value)
        if not isinstance(value, Pubkey):
            raise LayoutError(f"publicKey: {value!r} is not a Pubkey")
        return bytes(value)

    def read(self, data: bytes, offset: int = 0) -> tuple[Pubkey, int]:
        return Pubkey.from_bytes(_take(data, offset, 32, self.name)), offset + 32


PUBKEY = PubkeyCodec()


class FixedBytes(Codec):
    """umi `bytes({ size })`: that many bytes, as `bytes`."""

    def __init__(self, size: int) -> None:
        self.name, self.size = f"bytes[{size}]", size

    def encode(self, value: Any) -> bytes:
        raw = bytes(value)
        if len(raw) != self.size:
            raise LayoutError(f"{self.name}: {len(raw)} bytes")
        return raw

    def read(self, data: bytes, offset: int = 0) -> tuple[bytes, int]:
        assert self.size is not None
        return _take(data, offset, self.size, self.name), offset + self.size


class Array(Codec):
    """umi `array(item, { size })`: `count` items, or a u32 count first when None."""

    def __init__(self, item: Codec, count: int | None = None) -> None:
        self.item, self.count = item, count
        self.name = f"array<{item.name}>[{'' if count is None else count}]"
        if count is not None and item.size is not None:
            self.size = count * item.size

    def encode(self, value: Any) -> bytes:
        items = list(value)
        if self.count is not None and len(items) != self.count:
            raise LayoutError(f"{self.name}: {len(items)} items")
        head = b"" if self.count is not None else U32.encode(len(items))
        return head + b"".join(self.item.encode(item) for item in items)

    def read(self, data: bytes, offset: int = 0) -> tuple[list[Any], int]:
        count = self.count
        if count is None:
            count, offset = U32.read(data, offset)
        items = []
        for _ in range(count):
            item, offset = self.item.read(data, offset)
            items.append(item)
        return items, offset


class Option(Codec):
    """umi `option(item)`: a u8 tag (1: an item follows, 0: None). As umi reads it, the
    end of the data is None too (an account written before the field existed)."""

    def __init__(self, item: Codec) -> None:
        self.item, self.name = item, f"option<{item.name}>"

    def encode(self, value: Any) -> bytes:
        return b"\x00" if value is None else b"\x01" + self.item.encode(value)

    def read(self, data: bytes, offset: int = 0) -> tuple[Any, int]:
        if offset >= len(data):
            return None, offset
        tag, offset = U8.read(data, offset)
        if tag > 1:
            raise LayoutError(f"{self.name}: tag {tag} at {offset - 1}")
        return (None, offset) if tag == 0 else self.item.read(data, offset)


class FixedOption(Codec):
    """The generated code's fixed-size option: the item's own bytes when Some, the
    `sentinel` (as long as the item) when None; bytes equal to the sentinel read None."""

    def __init__(self, item: Codec, sentinel: bytes) -> None:
        if item.size != len(sentinel):
            raise ValueError(f"{item.name}: a {len(sentinel)}-byte sentinel for {item.size}")
        self.item, self.sentinel, self.size = item, sentinel, item.size
        self.name = f"fixedOption<{item.name}>"

    def encode(self, value: Any) -> bytes:
        return self.sentinel if value is None else self.item.encode(value)

    def read(self, data: bytes, offset: int = 0) -> tuple[Any, int]:
        if _take(data, offset, len(self.sentinel), self.name) == self.sentinel:
            return None, offset + len(self.sentinel)
        return self.item.read(data, offset)


class Enum(Codec):
    """umi `scalarEnum`: one byte, read as a member of `kind` (an `IntEnum`)."""

    size = 1

    def __init__(self, kind: type[IntEnum]) -> None:
        self.kind, self.name = kind, kind.__name__

    def encode(self, value: Any) -> bytes:
        try:
            member = self.kind[value] if isinstance(value, str) else self.kind(value)
        except (KeyError, ValueError):
            raise LayoutError(f"{self.name}: no variant {value!r}") from None
        return bytes([member])

    def read(self, data: bytes, offset: int = 0) -> tuple[IntEnum, int]:
        byte = _take(data, offset, 1, self.name)[0]
        try:
            return self.kind(byte), offset + 1
        except ValueError:
            raise LayoutError(f"{self.name}: no variant {byte} at {offset}") from None


REQUIRED: Any = object()


@dataclass(frozen=True)
class Field:
    """A struct's field; `default` is written when a value leaves the field out."""

    name: str
    codec: Codec
    default: Any = REQUIRED


def pad(name: str, count: int) -> Field:
    """Padding: `array(u8(), { size: count })`, zeros unless given."""
    return Field(name, Array(U8, count), [0] * count)


def zeros(name: str, count: int) -> Field:
    """Reserved bytes: `bytes({ size: count })`, zeros unless given."""
    return Field(name, FixedBytes(count), bytes(count))


def none(name: str, codec: Codec) -> Field:
    """An option field, None unless given."""
    return Field(name, codec, None)


class Struct(Codec):
    """umi `struct`: its fields one after another; a dict of them."""

    def __init__(self, name: str, fields: Sequence[Field]) -> None:
        self.name, self.fields = name, tuple(fields)
        sizes = [f.codec.size for f in self.fields]
        self.size = None if None in sizes else sum(s for s in sizes if s is not None)

    def encode(self, value: Any) -> bytes:
        if not isinstance(value, Mapping):
            raise LayoutError(f"{self.name}: {value!r} is not a mapping")
        out = []
        for f in self.fields:
            item = value.get(f.name, f.default)
            if item is REQUIRED:
                raise LayoutError(f"{self.name}.{f.name}: missing")
            try:
                out.append(f.codec.encode(item))
            except LayoutError as error:
                raise LayoutError(f"{self.name}.{f.name}: {error}") from None
        return b"".join(out)

    def read(self, data: bytes, offset: int = 0) -> tuple[dict[str, Any], int]:
        value: dict[str, Any] = {}
        for f in self.fields:
            try:
                value[f.name], offset = f.codec.read(data, offset)
            except LayoutError as error:
                raise LayoutError(f"{self.name}.{f.name}: {error}") from None
        return value, offset


class DataEnum(Codec):
    """umi `dataEnum`: a u8 variant index, then that variant's struct; read as
    `{"__kind": variant, **fields}`."""

    def __init__(self, name: str, variants: Sequence[tuple[str, Sequence[Field]]]) -> None:
        self.name = name
        self.variants = [(kind, Struct(f"{name}.{kind}", fields)) for kind, fields in variants]
        self._index = {kind: i for i, (kind, _) in enumerate(self.variants)}
        sizes = {codec.size for _, codec in self.variants}
        only = sizes.pop() if len(sizes) == 1 else None
        self.size = None if only is None else 1 + only

    def encode(self, value: Any) -> bytes:
        kind = value.get(KIND) if isinstance(value, Mapping) else None
        if kind not in self._index:
            raise LayoutError(f"{self.name}: no variant {kind!r}")
        index = self._index[kind]
        return bytes([index]) + self.variants[index][1].encode(value)

    def read(self, data: bytes, offset: int = 0) -> tuple[dict[str, Any], int]:
        index = _take(data, offset, 1, self.name)[0]
        if index >= len(self.variants):
            raise LayoutError(f"{self.name}: no variant {index} at {offset}")
        kind, codec = self.variants[index]
        fields, end = codec.read(data, offset + 1)
        return {KIND: kind, **fields}, end


def variant(kind: str, **fields: Any) -> dict[str, Any]:
    """A data enum value: `variant("TimeAbsolute", time=...)`."""
    return {KIND: kind, **fields}
