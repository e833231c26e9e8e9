"""``tf.io.parse_example`` / ``parse_single_example``: serialized ``tf.train.Example`` s to tensors.

A *feature spec* says what to take from each Example::

    spec = {"label": tf.io.FixedLenFeature([], tf.int64),
            "weights": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0]),
            "name": tf.io.FixedLenFeature([], tf.string, default_value="")}
    ds = tf.data.TFRecordDataset(files).map(lambda r: tf.io.parse_single_example(r, spec))

``FixedLenSequenceFeature(shape, dtype, allow_missing=True)``: rows of ``shape``, as many as each
Example has, padded to the longest. ``FixedLenFeature(shape, dtype, default_value)``: exactly ``prod(shape)`` values of ``dtype`` (float32,
int64 or string, the three lists an Example holds), reshaped to ``shape``; a missing feature takes
``default_value``, or is an error when there is none. ``parse_example`` takes a vector of serialized
Examples and gives each feature a leading batch dimension; ``parse_single_example`` takes a scalar.
Both run as one op, ``ParseExampleV2`` (a registry row; not differentiable), eagerly or inside a
``tf.function`` / ``Dataset.map``. Errors are TF's ``InvalidArgumentError`` with TF's messages.

``VarLenFeature(dtype)``: any number of values per Example, returned as a ``tf.SparseTensor`` (indices
``[example, position]``, ``dense_shape`` ``[batch, longest list]``; for ``parse_single_example`` rank 1).
"""
import collections

import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor import constant, convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..ops._dispatch import execute
from ..ops.array_ops import kernel_outputs, output_list
from . import proto_wire as wire
from ._strings import flat_strings, string_array, to_bytes

try:   # SparseTensor may not exist yet: VarLenFeature needs it
    from ..framework.sparse_tensor import SparseTensor
except ImportError:   # pragma: no cover - depends on the engine's state
    SparseTensor = None

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "parse_example", "parse_single_example"]

_PARSE_DTYPES = (dtypes.float32, dtypes.int64, dtypes.string)
_KIND_DTYPE = {1: dtypes.string, 2: dtypes.float32, 3: dtypes.int64}       # Feature's oneof field -> dtype
_RUNTIME = {dtypes.float32: "float", dtypes.int64: "int64", dtypes.string: "string"}
_COUNT_NAME = {dtypes.float32: "float", dtypes.int64: "int64", dtypes.string: "bytes"}
_LIST_NAME = {dtypes.float32: "float_list", dtypes.int64: "int64_list", dtypes.string: "bytes_list"}


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """``tf.io.FixedLenFeature(shape, dtype, default_value=None)``: a dense feature of a fixed shape."""

    __slots__ = ()

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtypes.as_dtype(dtype), default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """``tf.io.FixedLenSequenceFeature(shape, dtype, allow_missing=False, default_value=None)``: any number of
    values per Example, cut into rows of ``shape``; parsed into ``[batch, rows] + shape``, the shorter Examples
    padded with ``default_value`` (0 or ``b""``). ``parse_example`` needs ``allow_missing=True``, as in TF."""

    __slots__ = ()

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtypes.as_dtype(dtype), allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """``tf.io.VarLenFeature(dtype)``: any number of values per Example, parsed into a ``SparseTensor``."""

    __slots__ = ()

    def __new__(cls, dtype):
        return super().__new__(cls, dtypes.as_dtype(dtype))


def _iae(message):
    return InvalidArgumentError(None, None, message)


# --------------------------------------------------------------------------------------
# Reading one serialized Example: {key: (dtype or None, values)}
# --------------------------------------------------------------------------------------
def _decode_list(kind, data):
    values = []
    for number, wire_type, value in wire.iter_fields(data):
        if number != 1:
            continue
        if kind == 1:
            values.append(bytes(value))
        elif kind == 2:
            values.extend(wire.unpack_floats(wire_type, value))
        else:
            values.extend(wire.unpack_varints(wire_type, value))
    return values


def _read_example(serialized, wanted):
    """The features of one serialized Example that are in ``wanted``: ``{key: (dtype | None, values)}``.

    A ``Feature`` with no list set counts as missing, as in TF.
    """
    found = {}
    try:
        for number, wire_type, features in wire.iter_fields(serialized):
            if number != 1 or wire_type != wire.LENGTH_DELIMITED:
                continue
            for n, w, entry in wire.iter_fields(features):
                if n != 1 or w != wire.LENGTH_DELIMITED:
                    continue
                key, feature = b"", b""
                for en, ew, ev in wire.iter_fields(entry):
                    if en == 1 and ew == wire.LENGTH_DELIMITED:
                        key = ev
                    elif en == 2 and ew == wire.LENGTH_DELIMITED:
                        feature = ev
                key = key.decode("utf-8", "replace")
                if key not in wanted:
                    continue
                kind, values = None, []
                for fn, fw, fv in wire.iter_fields(feature):
                    if fn in _KIND_DTYPE and fw == wire.LENGTH_DELIMITED:
                        kind, values = fn, _decode_list(fn, fv)
                found[key] = (None if kind is None else _KIND_DTYPE[kind], values)
    except wire.DecodeError:
        raise _iae("Could not parse example input, value: '" + _show(serialized) + "'") from None
    return {k: v for k, v in found.items() if v[0] is not None}


def _show(data):
    return bytes(data[:40]).decode("utf-8", "replace")


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


# --------------------------------------------------------------------------------------
# The op
# --------------------------------------------------------------------------------------
def _parse_kernel(xp):
    def k(serialized, *dense_defaults, dense_keys=(), Tdense=(), dense_shapes=(), sparse_keys=(),  # noqa: N803
          sparse_types=(), single=False, dense_variable=()):
        records, batch_shape = flat_strings(serialized)
        wanted = set(dense_keys) | set(sparse_keys)
        examples = [_read_example(r, wanted) for r in records]
        prefix = "" if single else "Name: <unknown>, "
        dense_out = []
        variable = dense_variable or (False,) * len(dense_keys)
        for key, dtype, shape, default, var in zip(dense_keys, Tdense, dense_shapes, dense_defaults, variable):
            if var:
                dense_out.append(_sequence_feature(examples, key, dtype, shape, default, single, batch_shape))
                continue
            size = int(np.prod(shape, dtype=np.int64)) if shape else 1
            rows = []
            for i, ex in enumerate(examples):
                if key not in ex:
                    if np.size(default) == 0:
                        raise _iae(f"{prefix}Feature: {key} (data type: {_RUNTIME[dtype]}) is required but could "
                                   f"not be found.")
                    rows.append(list(np.asarray(default).reshape(-1)))
                    continue
                got, values = ex[key]
                if got != dtype:
                    where = f"Key: {key}." if single else f"{prefix}Key: {key}, Index: {i}."
                    raise _iae(f"{where}  Data types don't match. Data type: {_RUNTIME[got]} but expected type: "
                               f"{_RUNTIME[dtype]}")
                if len(values) != size:
                    if single:
                        raise _iae(f"Key: {key}.  Can't parse serialized Example: Some {_LIST_NAME[got]} slice was "
                                   f"not parsed.")
                    raise _iae(f"{prefix}Key: {key}, Index: {i}.  Number of {_COUNT_NAME[dtype]} values != expected.  "
                               f"Values size: {len(values)} but output shape: {_shape_text(shape)}")
                rows.append(values)
            out_shape = tuple(batch_shape) + tuple(shape)
            flat = [v for row in rows for v in row]
            if dtype == dtypes.string:
                dense_out.append(string_array([to_bytes(v) for v in flat], out_shape))
            else:
                dense_out.append(np.array(flat, dtype=dtype.as_numpy_dtype).reshape(out_shape))
        indices, values, shapes = [], [], []
        for key, dtype in zip(sparse_keys, sparse_types):
            idx, vals, longest = [], [], 0
            for i, ex in enumerate(examples):
                got, items = ex.get(key, (dtype, []))
                if got != dtype:
                    where = f"Key: {key}." if single else f"{prefix}Key: {key}, Index: {i}."
                    raise _iae(f"{where}  Data types don't match. Data type: {_RUNTIME[got]} but expected type: "
                               f"{_RUNTIME[dtype]}")
                longest = max(longest, len(items))
                idx.extend([[i, j] for j in range(len(items))] if batch_shape else [[j] for j in range(len(items))])
                vals.extend(items)
            width = 2 if batch_shape else 1
            indices.append(np.array(idx, dtype=np.int64).reshape(-1, width))
            values.append(string_array(vals) if dtype == dtypes.string else np.array(vals, dtype=dtype.as_numpy_dtype))
            shapes.append(np.array(([len(examples)] if batch_shape else []) + [longest], dtype=np.int64))
        return kernel_outputs(indices + values + shapes + dense_out)
    return k


def _check_kind(got, dtype, key, i, single):
    if got != dtype:
        where = f"Key: {key}." if single else f"Name: <unknown>, Key: {key}, Index: {i}."
        raise _iae(f"{where}  Data types don't match. Data type: {_RUNTIME[got]} but expected type: {_RUNTIME[dtype]}")


def _sequence_feature(examples, key, dtype, shape, default, single, batch_shape):
    """A ``FixedLenSequenceFeature``: each Example's values cut into rows of ``shape``, padded with ``default``
    to the longest Example's row count (a missing feature is zero rows)."""
    stride = int(np.prod(shape, dtype=np.int64)) if shape else 1
    rows = []
    for i, ex in enumerate(examples):
        got, values = ex.get(key, (dtype, []))
        _check_kind(got, dtype, key, i, single)
        if len(values) % stride:
            if single:
                raise _iae(f"Error while parsing feature with key {key}: number of elements should be divisible by "
                           f"{stride}, found {len(values)} instead")
            raise _iae(f"Name: <unknown>, Key: {key}, Index: {i}.  Number of {_COUNT_NAME[dtype]} values is not a "
                       f"multiple of stride length. Saw {len(values)} values but output shape is: "
                       f"[?{''.join(',' + str(d) for d in shape)}]")
        rows.append(values)
    longest = max((len(r) // stride for r in rows), default=0)
    pad = to_bytes(np.asarray(default).reshape(-1)[0]) if dtype == dtypes.string else np.asarray(default).reshape(-1)[0]
    flat = [v for r in rows for v in r + [pad] * (longest * stride - len(r))]
    out_shape = tuple(batch_shape) + (longest,) + tuple(shape)
    if dtype == dtypes.string:
        return string_array([to_bytes(v) for v in flat], out_shape)
    return np.array(flat, dtype=dtype.as_numpy_dtype).reshape(out_shape)


def _infer(ic):
    batch = ic.shape(0)
    out = []
    n_sparse = len(ic.attrs["sparse_keys"])
    width = 1 if batch.rank == 0 else (None if batch.rank is None else 2)
    out += [(dtypes.int64, TensorShape([None, width]))] * n_sparse
    out += [(d, TensorShape([None])) for d in ic.attrs["sparse_types"]]
    out += [(dtypes.int64, TensorShape([None if batch.rank is None else batch.rank + 1]))] * n_sparse
    variable = ic.attrs.get("dense_variable") or (False,) * len(ic.attrs["Tdense"])
    for dtype, shape, var in zip(ic.attrs["Tdense"], ic.attrs["dense_shapes"], variable):
        out.append((dtype, batch.concatenate(TensorShape(([None] if var else []) + list(shape)))))
    return out


_PARSE = register_op("ParseExampleV2", kernel=_parse_kernel, infer=_infer,
                     num_outputs=lambda attrs: 3 * len(attrs["sparse_keys"]) + len(attrs["dense_keys"]),
                     saves_inputs=False, saves_outputs=False,
                     doc="Parse serialized tf.train.Example protos into dense (and sparse) tensors.")


def _dense_default(key, feature):
    shape = [int(d) for d in TensorShape(feature.shape).as_list()]
    if feature.default_value is None:
        return np.zeros([0]), shape
    if feature.dtype == dtypes.string:     # (host values: the spec is known when the op is built)
        default = np.array([to_bytes(v) for v in np.asarray(feature.default_value, dtype=object).reshape(-1)],
                           dtype=object)
    else:
        default = np.asarray(feature.default_value, dtype=feature.dtype.as_numpy_dtype)
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if default.size != size:
        raise _iae(f"Input to reshape is a tensor with {default.size} values, but the requested shape has {size} "
                   f"[Op:Reshape]")
    return default.reshape(shape), shape


def _string_input(serialized):
    """``serialized`` as a string tensor, checked as TF checks it: converted first with its own dtype (a
    Python int is int32, a NumPy int64 array int64), then, a tensor of another dtype than string is eagerly
    ``ValueError: Tensor conversion requested dtype string for Tensor with dtype int64: <tf.Tensor: ...>``
    and, in a graph (``tf.function``, ``Dataset.map``), the op's input check, ``TypeError: Input
    'serialized' of 'ParseExampleV2' Op has type int64 that does not match expected type of string.``"""
    serialized = convert_to_tensor(serialized)
    if serialized.dtype != dtypes.string:
        if ctx.graph is not None:
            raise TypeError(f"Input 'serialized' of 'ParseExampleV2' Op has type {serialized.dtype.name} that does "
                            f"not match expected type of string.")
        convert_to_tensor(serialized, dtype=dtypes.string)    # raises TF's ValueError, with the tensor's repr
    return serialized


def _parse(serialized, features, single, name):
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    serialized = _string_input(serialized)
    dense_keys, dense_types, dense_shapes, defaults, sparse_keys, sparse_types = [], [], [], [], [], []
    variable = []
    for key in sorted(features):
        feature = features[key]
        if feature.dtype not in _PARSE_DTYPES:
            attr = "Tdense" if isinstance(feature, FixedLenFeature) else "sparse_types"
            message = (f"Value for attr '{attr}' of {feature.dtype.name} is not in the list of allowed values: "
                       f"float, int64, string")
            if ctx.graph is not None:
                raise TypeError(message)
            raise _iae(message + " [Op:ParseExampleV2]")
        if isinstance(feature, FixedLenFeature):
            default, shape = _dense_default(key, feature)
            dense_keys.append(key)
            dense_types.append(feature.dtype)
            dense_shapes.append(tuple(shape))
            defaults.append(constant(default.tolist() if default.size else [], dtype=feature.dtype))
            variable.append(False)
        elif isinstance(feature, FixedLenSequenceFeature):
            if not feature.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
            pad = feature.default_value
            if pad is None:
                pad = "" if feature.dtype == dtypes.string else 0
            dense_keys.append(key)
            dense_types.append(feature.dtype)
            dense_shapes.append(tuple(int(d) for d in TensorShape(feature.shape).as_list()))
            defaults.append(constant(pad, dtype=feature.dtype))
            variable.append(True)
        elif isinstance(feature, VarLenFeature):
            if SparseTensor is None:
                raise NotImplementedError("VarLenFeature needs tf.SparseTensor, which the engine does not have yet.")
            sparse_keys.append(key)
            sparse_types.append(feature.dtype)
        else:
            raise ValueError(f"Unsupported feature type: {type(feature).__name__} (the engine parses "
                             f"FixedLenFeature and VarLenFeature).")
    attrs = {"dense_keys": tuple(dense_keys), "Tdense": tuple(dense_types), "dense_shapes": tuple(dense_shapes),
             "sparse_keys": tuple(sparse_keys), "sparse_types": tuple(sparse_types), "single": single,
             "dense_variable": tuple(variable)}
    outputs = output_list(execute(_PARSE, (serialized, *defaults), attrs, name=name))
    n = len(sparse_keys)
    result = {}
    for j, key in enumerate(sparse_keys):
        result[key] = SparseTensor(outputs[j], outputs[n + j], outputs[2 * n + j])
    for j, key in enumerate(dense_keys):
        result[key] = outputs[3 * n + j]
    return {key: result[key] for key in features}


def parse_example(serialized, features, example_names=None, name=None):
    """``tf.io.parse_example(serialized, features)``: a vector of serialized Examples -> ``{key: tensor}``.

    Each ``FixedLenFeature(shape, ...)`` becomes a tensor of shape ``[batch] + shape``.
    """
    return _parse(serialized, features, False, name)


def parse_single_example(serialized, features, example_names=None, name=None):
    """``tf.io.parse_single_example(serialized, features)``: one serialized Example (a scalar) -> ``{key: tensor}``."""
    serialized = convert_to_tensor(serialized)
    if serialized.shape.rank not in (None, 0):
        raise ValueError("Input serialized must be a scalar")
    return _parse(serialized, features, True, name)
