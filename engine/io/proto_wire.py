"""The protocol buffer wire format, by hand: enough to write and read ``tf.train.Example`` (and the base of
TensorBoard's event records, ``summary/wire.py``).

A serialized message is a sequence of *fields*, each a key followed by a value. The key is the varint
``(field_number << 3) | wire_type``; the wire types used here are

* ``0`` varint: an integer in base 128, low 7 bits first, the top bit of each byte saying "more follows";
  a negative ``int64`` is written as its 64-bit two's complement (always 10 bytes);
* ``2`` length-delimited: a varint length, then that many bytes (strings, bytes, nested messages and
  *packed* repeated numbers, which put all the values of a repeated field in one such record);
* ``5`` fixed32: four little-endian bytes (``float``); ``1`` fixed64: eight (``double``).

A reader skips the fields it does not know, and accepts a repeated number both packed and one per field,
as protobuf's own parsers do. This module knows nothing of particular messages (``example.py`` does).
"""
import struct

__all__ = ["encode_varint", "encode_key", "encode_bytes_field", "encode_packed_varints", "encode_packed_floats",
           "decode_varint", "iter_fields", "unpack_varints", "unpack_floats", "as_int64", "DecodeError"]

VARINT, FIXED64, LENGTH_DELIMITED, FIXED32 = 0, 1, 2, 5


class DecodeError(Exception):
    """Bytes that are not a valid serialized message (protobuf's ``google.protobuf.message.DecodeError``)."""


def encode_varint(value):
    """The varint bytes of a non-negative int, or of a negative int64 (as its two's complement)."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode_key(field_number, wire_type):
    return encode_varint((field_number << 3) | wire_type)


def encode_bytes_field(field_number, data):
    """A length-delimited field: key, length, bytes (``data``: the bytes of a string or a nested message)."""
    return encode_key(field_number, LENGTH_DELIMITED) + encode_varint(len(data)) + data


def encode_packed_varints(field_number, values):
    """A packed repeated varint field (nothing at all when ``values`` is empty, as protobuf writes it)."""
    if not values:
        return b""
    return encode_bytes_field(field_number, b"".join(encode_varint(v) for v in values))


def encode_packed_floats(field_number, values):
    """A packed repeated ``float`` field (fixed32, little-endian)."""
    if not values:
        return b""
    return encode_bytes_field(field_number, struct.pack(f"<{len(values)}f", *values))


def decode_varint(data, pos):
    """``(value, next_pos)``: the varint at ``data[pos:]`` (an unsigned 64-bit value)."""
    result = shift = 0
    while True:
        if pos >= len(data):
            raise DecodeError("Truncated message.")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result & 0xFFFFFFFFFFFFFFFF, pos
        shift += 7
        if shift >= 70:
            raise DecodeError("Too many bytes when decoding varint.")


def as_int64(value):
    """An unsigned 64-bit varint value read back as a signed ``int64``."""
    return value - (1 << 64) if value >= 1 << 63 else value


def iter_fields(data):
    """Yield ``(field_number, wire_type, value)`` for every field of a serialized message.

    ``value`` is an int for varints, bytes for length-delimited fields and fixed32/fixed64 fields.
    Malformed input raises ``DecodeError`` (protobuf's ``google.protobuf.message.DecodeError``).
    """
    data = bytes(data)
    pos, end = 0, len(data)
    while pos < end:
        key, pos = decode_varint(data, pos)
        field_number, wire_type = key >> 3, key & 7
        if field_number == 0:
            raise DecodeError("Field number 0 is illegal.")
        if wire_type == VARINT:
            value, pos = decode_varint(data, pos)
        elif wire_type == LENGTH_DELIMITED:
            length, pos = decode_varint(data, pos)
            if pos + length > end:
                raise DecodeError("Truncated message.")
            value, pos = data[pos:pos + length], pos + length
        elif wire_type in (FIXED32, FIXED64):
            size = 4 if wire_type == FIXED32 else 8
            if pos + size > end:
                raise DecodeError("Truncated message.")
            value, pos = data[pos:pos + size], pos + size
        else:
            raise DecodeError(f"Unsupported wire type {wire_type}.")
        yield field_number, wire_type, value


def unpack_varints(wire_type, value):
    """The int64 values of one field of a repeated varint field (packed or not)."""
    if wire_type == VARINT:
        return [as_int64(value)]
    if wire_type != LENGTH_DELIMITED:
        raise DecodeError("Wrong wire type for a repeated int64 field.")
    out, pos = [], 0
    while pos < len(value):
        v, pos = decode_varint(value, pos)
        out.append(as_int64(v))
    return out


def unpack_floats(wire_type, value):
    """The float values of one field of a repeated ``float`` field (packed or not)."""
    if wire_type == FIXED32:
        return list(struct.unpack("<f", value))
    if wire_type != LENGTH_DELIMITED or len(value) % 4:
        raise DecodeError("Wrong wire type for a repeated float field.")
    return list(struct.unpack(f"<{len(value) // 4}f", value))
