"""File and tensor (de)serialization ops: ``tf.io.read_file``, ``write_file``, ``matching_files``,
``serialize_tensor``, ``parse_tensor``.

Each is a registry row, so it runs eagerly, in a ``tf.function`` and in ``Dataset.map`` (the TF guide's
``list_ds.map(lambda path: (tf.io.read_file(path), label))``). The file ops are ``stateful``: the files
may change between runs, so a graph never folds or merges them.

``serialize_tensor`` writes a ``TensorProto`` (``dtype = 1``, ``tensor_shape = 2`` with one ``dim { size }``
per dimension, then the values: ``tensor_content = 4``, the raw little-endian bytes, or one ``string_val
= 8`` per string), byte for byte what TF writes; ``parse_tensor`` reads it back (also the
``*_val`` fields TF writes for small constants).
"""
import glob as _glob
import os
import struct

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..ops._dispatch import execute
from . import proto_wire as wire
from ._strings import flat_strings, string_array, to_bytes
from .file_io import os_error, read_file_bytes

__all__ = ["read_file", "write_file", "matching_files", "serialize_tensor", "parse_tensor"]

_SCALAR = TensorShape([])


def _string_input(value, what):
    t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=dtypes.string)
    if t.dtype != dtypes.string:
        raise TypeError(f"Input '{what}' of the op has type {t.dtype.name} that does not match expected type of "
                        f"string.")
    return t


# --- ReadFile / WriteFile / MatchingFiles ----------------------------------------------
def _read_file_kernel(xp):
    return lambda filename: string_array([read_file_bytes(to_bytes(filename))], ())


_READ_FILE = register_op("ReadFile", kernel=_read_file_kernel, infer=lambda ic: [(dtypes.string, _SCALAR)],
                         stateful=True, saves_inputs=False, saves_outputs=False,
                         doc="The whole contents of a file, as one string.")


def read_file(filename, name=None):
    """``tf.io.read_file(filename)``: the contents of the file, a scalar string (``NotFoundError`` if missing)."""
    return execute(_READ_FILE, (_string_input(filename, "filename"),), name=name)


def _write_file_kernel(xp):
    def k(filename, contents):
        path = os.fsdecode(to_bytes(filename))
        try:
            directory = os.path.dirname(path)
            if directory:
                os.makedirs(directory, exist_ok=True)   # TF creates the missing directories too
            with open(path, "wb") as f:
                f.write(to_bytes(contents))
        except OSError as e:
            raise os_error(e, path) from None
        return []
    return k


_WRITE_FILE = register_op("WriteFile", kernel=_write_file_kernel, infer=lambda ic: [], num_outputs=0,
                          stateful=True, saves_inputs=False, saves_outputs=False,
                          doc="Write a string to a file (creating its directory).")


def write_file(filename, contents, name=None):
    """``tf.io.write_file(filename, contents)``: write the string ``contents`` to the file (an op, no value)."""
    return execute(_WRITE_FILE, (_string_input(filename, "filename"), _string_input(contents, "contents")),
                   name=name)


def _matching_files_kernel(xp):
    def k(pattern):
        patterns = flat_strings(pattern)[0]
        found = sorted(os.fsencode(m) for p in patterns for m in _glob.glob(os.fsdecode(p)))
        return string_array(found)
    return k


_MATCHING_FILES = register_op("MatchingFiles", kernel=_matching_files_kernel,
                              infer=lambda ic: [(dtypes.string, TensorShape([None]))], stateful=True,
                              saves_inputs=False, saves_outputs=False,
                              doc="The sorted file names matching one or more glob patterns.")


def matching_files(pattern, name=None):
    """``tf.io.matching_files(pattern)``: the files matching a glob pattern (or a vector of them), sorted."""
    return execute(_MATCHING_FILES, (_string_input(pattern, "pattern"),), name=name)


# --- SerializeTensor / ParseTensor -------------------------------------------------------
_FIELD_CONTENT, _FIELD_STRING_VAL = 4, 8
_VAL_FIELDS = {5: "float_val", 6: "double_val", 7: "int_val", 10: "int64_val", 11: "bool_val", 13: "half_val"}
_BY_ENUM = {d.as_datatype_enum: d for d in (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16,
                                           dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.uint32,
                                           dtypes.uint64, dtypes.bool, dtypes.string, dtypes.complex64,
                                           dtypes.complex128)}


def tensor_proto_bytes(array, dtype):
    """The serialized ``TensorProto`` of a host array of ``dtype``."""
    if dtype == dtypes.string:
        flat, dims = flat_strings(array)
    else:
        array = np.asarray(array)
        dims = array.shape
    shape = b"".join(wire.encode_bytes_field(2, wire.encode_key(1, wire.VARINT) + wire.encode_varint(d) if d else b"")
                     for d in dims)
    out = wire.encode_key(1, wire.VARINT) + wire.encode_varint(dtype.as_datatype_enum)
    out += wire.encode_bytes_field(2, shape)
    if dtype == dtypes.string:
        out += b"".join(wire.encode_bytes_field(_FIELD_STRING_VAL, v) for v in flat)
    elif array.size:
        out += wire.encode_bytes_field(_FIELD_CONTENT, np.ascontiguousarray(array, dtype=dtype._np.newbyteorder("<"))
                                       .tobytes())
    return out


def _serialize_kernel(xp):
    def k(tensor, T=None):  # noqa: N803
        return string_array([tensor_proto_bytes(tensor, T)], ())
    return k


_SERIALIZE = register_op("SerializeTensor", kernel=_serialize_kernel, infer=lambda ic: [(dtypes.string, _SCALAR)],
                         saves_inputs=False, saves_outputs=False,
                         doc="A tensor as the bytes of its TensorProto.")


def serialize_tensor(tensor, name=None):
    """``tf.io.serialize_tensor(tensor)``: a scalar string, the tensor's serialized ``TensorProto``."""
    t = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor)
    return execute(_SERIALIZE, (t,), {"T": t.dtype}, name=name)


def parse_tensor_proto(data):
    """``(dtype, array)`` from the bytes of a ``TensorProto``."""
    try:
        dtype, dims, content, strings, vals = None, [], None, [], []
        for number, wire_type, value in wire.iter_fields(data):
            if number == 1 and wire_type == wire.VARINT:
                dtype = _BY_ENUM.get(value)
                if dtype is None:
                    raise InvalidArgumentError(None, None, f"Unsupported dtype enum {value} in a TensorProto")
            elif number == 2 and wire_type == wire.LENGTH_DELIMITED:
                for n, w, dim in wire.iter_fields(value):
                    if n == 2 and w == wire.LENGTH_DELIMITED:
                        size = 0
                        for dn, dw, dv in wire.iter_fields(dim):
                            if dn == 1 and dw == wire.VARINT:
                                size = wire.as_int64(dv)
                        dims.append(size)
            elif number == _FIELD_CONTENT and wire_type == wire.LENGTH_DELIMITED:
                content = bytes(value)
            elif number == _FIELD_STRING_VAL and wire_type == wire.LENGTH_DELIMITED:
                strings.append(bytes(value))
            elif number in _VAL_FIELDS:
                if number in (5,):
                    vals.extend(wire.unpack_floats(wire_type, value))
                elif number == 6:
                    vals.extend(struct.unpack(f"<{len(value) // 8}d", value) if wire_type == wire.LENGTH_DELIMITED
                                else struct.unpack("<d", value))
                else:
                    vals.extend(wire.unpack_varints(wire_type, value))
    except wire.DecodeError:
        raise InvalidArgumentError(None, None, "Could not parse `serialized` as TensorProto") from None
    if dtype is None:
        raise InvalidArgumentError(None, None, "Could not parse `serialized` as TensorProto")
    size = int(np.prod(dims, dtype=np.int64)) if dims else 1
    if dtype == dtypes.string:
        values = strings + [b""] * (size - len(strings))
        return dtype, string_array(values[:size], dims)
    if content is not None:
        array = np.frombuffer(content, dtype=dtype._np.newbyteorder("<")).astype(dtype._np)
    elif vals:
        array = np.array(vals + [vals[-1]] * (size - len(vals)), dtype=dtype._np)[:size]
    else:
        array = np.zeros(size, dtype=dtype._np)
    return dtype, array.reshape(dims)


def _parse_tensor_kernel(xp):
    def k(serialized, out_type=None):
        got, array = parse_tensor_proto(to_bytes(serialized))
        if got != out_type:
            raise InvalidArgumentError(None, None, f"Type mismatch between parsed tensor ({got.name}) and dtype "
                                                   f"({out_type.runtime_name})")
        return array[()] if array.ndim == 0 and got != dtypes.string else array
    return k


_PARSE_TENSOR = register_op("ParseTensor", kernel=_parse_tensor_kernel,
                            infer=lambda ic: [(ic.attrs["out_type"], TensorShape(None))],
                            saves_inputs=False, saves_outputs=False,
                            doc="The tensor a serialized TensorProto holds.")


def parse_tensor(serialized, out_type, name=None):
    """``tf.io.parse_tensor(serialized, out_type)``: the tensor of a serialized ``TensorProto`` (the inverse of
    ``serialize_tensor``); a wrong ``out_type`` is ``InvalidArgumentError``."""
    return execute(_PARSE_TENSOR, (_string_input(serialized, "serialized"),),
                   {"out_type": dtypes.as_dtype(out_type)}, name=name)
