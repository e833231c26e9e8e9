"""The protocol-buffer wire format, written by hand: enough to encode TensorBoard's event files.

A protobuf message is a sequence of *fields*, each a key followed by a value. The key is the
varint ``field_number << 3 | wire_type``; the wire types used here are

* 0, *varint*: an integer in base 128, 7 bits a byte, least significant group first, the high bit
  set on every byte but the last (``300`` is ``ac 02``); negative int64s take ten bytes;
* 1, *64-bit*: 8 bytes, little-endian (``double``, ``fixed64``);
* 2, *length-delimited*: a varint length, then that many bytes (strings, bytes, nested messages,
  packed repeated numbers);
* 5, *32-bit*: 4 bytes, little-endian (``float``).

Proto3 leaves out a scalar field that holds its default (0, "", false); a nested message that is
*set* is written even when empty (``tensor_shape {}`` of a scalar is ``12 00``). Fields are written
in field-number order, as TensorFlow's C++ serializer does, so the bytes are the same as TF's.

TensorFlow uses the ``protobuf`` library for this; the engine has no dependency on it. The varint
and the field key are the ones ``tf.train.Example`` uses (``io/proto_wire.py``).
"""
import struct

from ..io.proto_wire import FIXED32, FIXED64, LENGTH_DELIMITED, VARINT
from ..io.proto_wire import encode_key as key
from ..io.proto_wire import encode_varint as varint

__all__ = ["varint", "key", "uint", "sint", "double", "float32", "length_delimited", "message", "packed_varints"]

# (The varint and the key are ``tf.train.Example``'s, ``io/proto_wire.py``; this module adds proto3's
# rule of leaving defaults out, and the field kinds an Event uses.)


def uint(field, n, keep_default=False):
    """An integer field (int32, int64, uint64, bool, enum): left out when 0, as proto3 does."""
    n = int(n)
    if n == 0 and not keep_default:
        return b""
    return key(field, VARINT) + varint(n)


sint = uint  # int32/int64 are plain varints (only sint32/sint64 use zigzag, and TF's protos do not)


def double(field, x, keep_default=False):
    """A ``double`` field: 8 little-endian bytes (left out when exactly +0.0)."""
    x = float(x)
    if x == 0.0 and not keep_default and struct.pack("<d", x) == bytes(8):
        return b""
    return key(field, FIXED64) + struct.pack("<d", x)


def float32(field, x, keep_default=False):
    """A ``float`` field: 4 little-endian bytes (left out when exactly +0.0)."""
    x = float(x)
    if x == 0.0 and not keep_default and struct.pack("<f", x) == bytes(4):
        return b""
    return key(field, FIXED32) + struct.pack("<f", x)


def length_delimited(field, data, keep_default=False):
    """A ``string``/``bytes`` field (str is UTF-8 encoded): left out when empty."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    data = bytes(data)
    if not data and not keep_default:
        return b""
    return key(field, LENGTH_DELIMITED) + varint(len(data)) + data


def message(field, payload):
    """A nested message that is set: always written, even when ``payload`` is empty."""
    return length_delimited(field, payload, keep_default=True)


def packed_varints(field, values):
    """A packed repeated integer field (proto3's default for repeated scalars): left out when empty."""
    values = list(values)
    if not values:
        return b""
    return length_delimited(field, b"".join(varint(int(v)) for v in values))
