"""``tf.train.Example`` and its parts: the protocol buffers TFRecord files of training data usually hold.

An ``Example`` is a map from feature names to ``Feature`` s; a ``Feature`` holds exactly one list, of
bytes, of floats (float32) or of int64::

    example = tf.train.Example(features=tf.train.Features(feature={
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[3])),
        "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[png_bytes])),
        "weights": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, 0.25])),
    }))
    record = example.SerializeToString()            # protobuf wire bytes, what TFRecordWriter writes
    tf.train.Example.FromString(record).features.feature["label"].int64_list.value   # [3]

The messages are ``tensorflow/core/example/{example,feature}.proto``::

    message BytesList { repeated bytes value = 1; }
    message FloatList { repeated float value = 1 [packed = true]; }
    message Int64List { repeated int64 value = 1 [packed = true]; }
    message Feature { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; } }
    message Features { map<string, Feature> feature = 1; }
    message Example { Features features = 1; }

The classes here write and read those bytes by hand (``proto_wire.py``), with protobuf's Python API where
the course uses it: keyword constructors, ``SerializeToString``, ``FromString``/``ParseFromString``,
``WhichOneof("kind")``, ``HasField``, ``CopyFrom``, ``Clear``, ``==``, list-like ``value`` fields
(``append``, ``extend``), a ``feature`` map whose missing keys are created on access, and ``str()`` in
protobuf's text format.

Deliberate differences from TensorFlow's protobuf (upb) classes:

* a ``Features`` map is serialized (and printed) in sorted key order: what protobuf writes with
  ``SerializeToString(deterministic=True)``. upb's default order is its hash table's, which no one can
  rely on; for an Example with one feature (or sorted keys under ``deterministic=True``) the bytes are
  identical;
* ``features.feature["k"] = feature`` is allowed (upb refuses direct assignment of a message value);
* a floating value given to ``FloatList`` is rounded to float32 when it is stored, as protobuf does.
"""
import math

import numpy as np

from . import proto_wire as wire

__all__ = ["BytesList", "FloatList", "Int64List", "Feature", "Features", "Example"]

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


# --------------------------------------------------------------------------------------
# Repeated fields: lists that check what is put in them
# --------------------------------------------------------------------------------------
class _Repeated(list):
    """A repeated scalar field: a list whose ``append``/``extend``/``[i] = v`` check the value's type."""

    __slots__ = ("_check", "_touch")

    def __init__(self, check, values=(), touch=None):
        super().__init__()
        self._check = check
        self._touch = touch
        list.extend(self, [check(v) for v in values])

    def append(self, value):
        list.append(self, self._check(value))
        self._touched()

    def extend(self, values):
        list.extend(self, [self._check(v) for v in values])
        self._touched()

    def insert(self, index, value):
        list.insert(self, index, self._check(value))
        self._touched()

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            list.__setitem__(self, index, [self._check(v) for v in value])
        else:
            list.__setitem__(self, index, self._check(value))
        self._touched()

    def _touched(self):
        if self._touch is not None:
            self._touch()


def _type_error(value, expected):
    return TypeError(f"{value!r} has type {type(value).__name__}, but expected one of: {expected}")


def _check_bytes(value):
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value)
    raise TypeError(f"expected bytes, {type(value).__name__} found")


def _check_float(value):
    if not isinstance(value, (int, float, np.integer, np.floating)):   # (a bool is an int)
        raise _type_error(value, "int, float")
    with np.errstate(over="ignore"):
        return float(np.float32(value))


def _check_int64(value):
    if not isinstance(value, (int, np.integer)):
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
    value = int(value)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"Value out of range: {value}")
    return value


# --------------------------------------------------------------------------------------
# Text format (what str() of a message prints)
# --------------------------------------------------------------------------------------
def _escape(data, utf8=False):
    """protobuf's C-style escaping in text format: non-printable bytes as 3-digit octal; a ``string`` field
    (``utf8``) keeps its UTF-8 bytes as they are, a ``bytes`` field escapes every byte >= 0x80."""
    out = []
    for byte in data:
        ch = chr(byte)
        if ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch in "\"'\\":
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        elif utf8 and byte >= 0x80:
            out.append(None)              # a UTF-8 byte: decoded with its neighbours below
            out[-1] = byte
        else:
            out.append(f"\\{byte:03o}")
    text, run = [], bytearray()
    for piece in out:
        if isinstance(piece, int):
            run.append(piece)
            continue
        if run:
            text.append(run.decode("utf-8", "backslashreplace"))
            run = bytearray()
        text.append(piece)
    if run:
        text.append(run.decode("utf-8", "backslashreplace"))
    return "".join(text)


def _short_float(value):
    """A float32 as protobuf's (upb's) text format prints it: ``%.6g``, or ``%.9g`` when that does not read
    back as the same float32 (``0.1``, ``1``, ``123456792``)."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    target = np.float32(value)
    text = f"{value:.6g}"
    if np.float32(float(text)) != target:
        text = f"{value:.9g}"
    return text


def _check_serialized(data):
    """protobuf's (upb's) check of what ``ParseFromString``/``MergeFromString`` are given, with its message:
    the type is named with its module unless it is a builtin (``numpy.ndarray``, ``str``)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        kind = type(data)
        name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
        raise TypeError(f"expected bytes, {name} found")


class _Message:
    """What every message here shares: equality, text format, ``FromString``, ``CopyFrom``, ``Clear``."""

    def SerializeToString(self, deterministic=None):  # noqa: N802  (protobuf's names)
        """The protobuf wire bytes of the message (map entries in sorted key order, see the module doc)."""
        return self._serialize()

    def SerializePartialToString(self, deterministic=None):  # noqa: N802
        return self._serialize()

    def ByteSize(self):  # noqa: N802
        return len(self._serialize())

    @classmethod
    def FromString(cls, data):  # noqa: N802
        """A new message parsed from its wire bytes."""
        message = cls()
        message.ParseFromString(data)
        return message

    def ParseFromString(self, data):  # noqa: N802
        """Replace this message's contents by those parsed from ``data``; returns the number of bytes read.

        ``data`` must be ``bytes`` (``bytearray``, ``memoryview``, ``np.bytes_`` too); anything else, a NumPy
        array or scalar, a ``str``, a tensor, is protobuf's ``TypeError: expected bytes, numpy.int32 found``."""
        _check_serialized(data)
        self.Clear()
        self.MergeFromString(data)
        return len(data)

    def MergeFromString(self, data):  # noqa: N802
        _check_serialized(data)
        for number, wire_type, value in wire.iter_fields(bytes(data)):
            self._merge_field(number, wire_type, value)
        return len(data)

    def CopyFrom(self, other):  # noqa: N802
        if not isinstance(other, type(self)):
            raise TypeError(f"Parameter to CopyFrom() must be instance of same class: expected "
                            f"{type(self).__name__} got {type(other).__name__}.")
        if other is not self:
            self.ParseFromString(other._serialize())

    def MergeFrom(self, other):  # noqa: N802
        self.MergeFromString(other._serialize())

    def __eq__(self, other):
        return type(self) is type(other) and self._serialize() == other._serialize()

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __str__(self):
        return "".join(self._text(0))

    __repr__ = __str__

    def _nested(self, name, message, indent):
        pad = " " * indent
        return [f"{pad}{name} {{\n", *message._text(indent + 2), f"{pad}}}\n"]


# --------------------------------------------------------------------------------------
# The three lists
# --------------------------------------------------------------------------------------
class _ListMessage(_Message):
    _check = None
    _field = "value"

    def __init__(self, value=None):
        self._touch = None
        self._value = _Repeated(type(self)._check, value or (), touch=self._touched)

    def _touched(self):
        if self._touch is not None:
            self._touch()

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, values):
        raise AttributeError("Assignment not allowed to repeated field \"value\" in protocol message object.")

    def Clear(self):  # noqa: N802
        del self._value[:]

    def _text_value(self, v):
        raise NotImplementedError

    def _text(self, indent):
        pad = " " * indent
        return [f"{pad}value: {self._text_value(v)}\n" for v in self._value]


class BytesList(_ListMessage):
    """``tf.train.BytesList(value=[b"..."])``: a list of byte strings (``str`` is refused, as by protobuf)."""

    _check = staticmethod(_check_bytes)

    def _serialize(self):
        return b"".join(wire.encode_bytes_field(1, v) for v in self._value)

    def _merge_field(self, number, wire_type, value):
        if number == 1 and wire_type == wire.LENGTH_DELIMITED:
            list.append(self._value, bytes(value))

    def _text_value(self, v):
        return f'"{_escape(v)}"'


class FloatList(_ListMessage):
    """``tf.train.FloatList(value=[...])``: a list of float32 values (packed on the wire)."""

    _check = staticmethod(_check_float)

    def _serialize(self):
        return wire.encode_packed_floats(1, list(self._value))

    def _merge_field(self, number, wire_type, value):
        if number == 1:
            list.extend(self._value, wire.unpack_floats(wire_type, value))

    def _text_value(self, v):
        return _short_float(v)


class Int64List(_ListMessage):
    """``tf.train.Int64List(value=[...])``: a list of int64 values (packed varints on the wire)."""

    _check = staticmethod(_check_int64)

    def _serialize(self):
        return wire.encode_packed_varints(1, list(self._value))

    def _merge_field(self, number, wire_type, value):
        if number == 1:
            list.extend(self._value, wire.unpack_varints(wire_type, value))

    def _text_value(self, v):
        return str(v)


# --------------------------------------------------------------------------------------
# Feature: one of the three lists
# --------------------------------------------------------------------------------------
_KINDS = (("bytes_list", 1, BytesList), ("float_list", 2, FloatList), ("int64_list", 3, Int64List))
_KIND_BY_NAME = {name: (number, cls) for name, number, cls in _KINDS}
_KIND_BY_NUMBER = {number: (name, cls) for name, number, cls in _KINDS}


class Feature(_Message):
    """``tf.train.Feature``: exactly one of ``bytes_list``, ``float_list``, ``int64_list`` (a oneof, ``kind``).

    Reading a list that is not set gives an empty one; filling it (``append``) selects it.
    """

    def __init__(self, bytes_list=None, float_list=None, int64_list=None):
        self._kind = None
        self._list = None
        for name, value in (("bytes_list", bytes_list), ("float_list", float_list), ("int64_list", int64_list)):
            if value is not None:
                cls = _KIND_BY_NAME[name][1]
                if not isinstance(value, cls):
                    raise TypeError(f"Parameter to initialize message field must be instance of {cls.__name__} "
                                    f"(got {type(value).__name__})")
                self._set(name, cls(value=list(value.value)))

    def _set(self, name, child):
        self._kind, self._list = name, child
        child._touch = None

    def _get(self, name):
        if self._kind == name:
            return self._list
        child = _KIND_BY_NAME[name][1]()
        child._touch = lambda: self._set(name, child)
        return child

    bytes_list = property(lambda self: self._get("bytes_list"))
    float_list = property(lambda self: self._get("float_list"))
    int64_list = property(lambda self: self._get("int64_list"))

    def WhichOneof(self, oneof_group):  # noqa: N802
        if oneof_group != "kind":
            raise ValueError(f'Protocol message has no oneof "{oneof_group}" field.')
        return self._kind

    def HasField(self, field_name):  # noqa: N802
        if field_name == "kind":
            return self._kind is not None
        if field_name not in _KIND_BY_NAME:
            raise ValueError(f'Protocol message Feature has no field {field_name}.')
        return self._kind == field_name

    def ClearField(self, field_name):  # noqa: N802
        if field_name in ("kind", self._kind):
            self._kind = self._list = None

    def Clear(self):  # noqa: N802
        self._kind = self._list = None

    def _serialize(self):
        if self._kind is None:
            return b""
        return wire.encode_bytes_field(_KIND_BY_NAME[self._kind][0], self._list._serialize())

    def _merge_field(self, number, wire_type, value):
        if number in _KIND_BY_NUMBER and wire_type == wire.LENGTH_DELIMITED:
            name, cls = _KIND_BY_NUMBER[number]
            if self._kind != name:
                self._set(name, cls())
            self._list.MergeFromString(value)

    def _text(self, indent):
        if self._kind is None:
            return []
        return self._nested(self._kind, self._list, indent)


# --------------------------------------------------------------------------------------
# Features: the map; Example: the message that holds it
# --------------------------------------------------------------------------------------
class _FeatureMap(dict):
    """``features.feature``: a ``{str: Feature}`` map; reading a missing key adds an empty ``Feature``."""

    def __missing__(self, key):
        value = self[_check_key(key)] = Feature()
        return value

    def __setitem__(self, key, value):
        if not isinstance(value, Feature):
            raise TypeError(f"Feature map values must be tf.train.Feature, not {type(value).__name__}.")
        dict.__setitem__(self, _check_key(key), value)

    def get_or_create(self, key):
        return self[key]


def _check_key(key):
    if isinstance(key, bytes):
        key = key.decode("utf-8")
    if not isinstance(key, str):
        raise _type_error(key, "str")
    return key


class Features(_Message):
    """``tf.train.Features(feature={name: Feature})``."""

    def __init__(self, feature=None):
        self._feature = _FeatureMap()
        for key, value in (feature or {}).items():
            if not isinstance(value, Feature):
                raise TypeError(f"Feature map values must be tf.train.Feature, not {type(value).__name__}.")
            self._feature[key] = Feature.FromString(value._serialize())

    @property
    def feature(self):
        return self._feature

    def Clear(self):  # noqa: N802
        self._feature.clear()

    def _serialize(self):
        out = []
        for key in sorted(self._feature):
            entry = wire.encode_bytes_field(1, key.encode("utf-8")) + \
                wire.encode_bytes_field(2, self._feature[key]._serialize())
            out.append(wire.encode_bytes_field(1, entry))
        return b"".join(out)

    def _merge_field(self, number, wire_type, value):
        if number != 1 or wire_type != wire.LENGTH_DELIMITED:
            return
        key, data = "", b""
        for n, w, v in wire.iter_fields(value):
            if n == 1 and w == wire.LENGTH_DELIMITED:
                key = bytes(v).decode("utf-8")
            elif n == 2 and w == wire.LENGTH_DELIMITED:
                data = v
        dict.__setitem__(self._feature, key, Feature.FromString(data))   # a later entry for a key wins

    def _text(self, indent):
        lines = []
        pad = " " * (indent + 2)
        for key in sorted(self._feature):
            lines.append(f"{' ' * indent}feature {{\n")
            lines.append(f'{pad}key: "{_escape(key.encode("utf-8"), utf8=True)}"\n')
            lines.extend(self._nested("value", self._feature[key], indent + 2))
            lines.append(f"{' ' * indent}}}\n")
        return lines


class Example(_Message):
    """``tf.train.Example(features=tf.train.Features(...))``: one record of a data set."""

    def __init__(self, features=None):
        self._features = None
        if features is not None:
            if not isinstance(features, Features):
                raise TypeError(f"Parameter to initialize message field must be instance of Features "
                                f"(got {type(features).__name__})")
            self._features = Features.FromString(features._serialize())

    @property
    def features(self):
        if self._features is None:
            self._features = Features()     # reading it sets it (a simplification of protobuf's lazy presence)
        return self._features

    def HasField(self, field_name):  # noqa: N802
        if field_name != "features":
            raise ValueError(f'Protocol message Example has no field {field_name}.')
        return self._features is not None

    def Clear(self):  # noqa: N802
        self._features = None

    def _serialize(self):
        if self._features is None:
            return b""
        return wire.encode_bytes_field(1, self._features._serialize())

    def _merge_field(self, number, wire_type, value):
        if number == 1 and wire_type == wire.LENGTH_DELIMITED:
            self.features.MergeFromString(value)

    def _text(self, indent):
        if self._features is None:
            return []
        return self._nested("features", self._features, indent)

