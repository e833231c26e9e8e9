"""``tf.io``'s string codecs: ``decode_raw`` (bytes reinterpreted as numbers), ``encode_base64`` and
``decode_base64`` (web-safe base64). One registry row per TF op, none differentiable.
"""
import base64
import binascii
import re

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor import convert_to_tensor, string_list
from ..framework.tensor_shape import TensorShape
from ._dispatch import execute
from .string_ops import _elementwise, _shape, _string_input

__all__ = ["decode_raw", "encode_base64", "decode_base64"]

_STRING = frozenset([dtypes.string])


# --------------------------------------------------------------------------------------
# tf.io: decode_raw, encode_base64, decode_base64
# --------------------------------------------------------------------------------------
_RAW_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint16, dtypes.uint8,
              dtypes.int16, dtypes.int8, dtypes.int64, dtypes.complex64, dtypes.complex128, dtypes.bool)


def _raw_dtype(out_type, little_endian):
    np_dtype = np.dtype(out_type.as_numpy_dtype)
    return np_dtype.newbyteorder("<" if little_endian else ">") if np_dtype.itemsize > 1 else np_dtype


def _decode_raw_kernel(xp):
    def k(bytes, out_type=dtypes.uint8, little_endian=True):  # noqa: A002
        strings = string_list(bytes)
        np_dtype = _raw_dtype(out_type, little_endian)
        size = np_dtype.itemsize
        shape = _shape(bytes)
        if not strings:
            return np.zeros(shape + (0,), dtype=out_type.as_numpy_dtype)
        first = len(strings[0])
        for i, s in enumerate(strings):
            if len(s) != first:   # (TF's message names the first size, then this element's)
                raise InvalidArgumentError(None, None, f"DecodeRaw requires input strings to all be the same size, "
                                                       f"but element {i} has size {first} != {len(s)}")
        if first % size:
            raise InvalidArgumentError(None, None, f"Input to DecodeRaw has length {first} that is not a multiple of "
                                                   f"{size}, the size of {out_type.runtime_name}")
        out = np.frombuffer(b"".join(strings), dtype=np_dtype).astype(out_type.as_numpy_dtype)
        return out.reshape(shape + (first // size,))
    return k


def _decode_raw_infer(ic):
    shape = ic.shape(0)
    out = TensorShape(None) if shape.rank is None else TensorShape(shape.as_list() + [None])
    return [(ic.attrs.get("out_type", dtypes.uint8), out)]


_DECODE_RAW = register_op("DecodeRaw", kernel=_decode_raw_kernel, infer=_decode_raw_infer, grad=None,
                          dtypes=_STRING, inputs="bytes: string",
                          doc="The bytes of each string reinterpreted as numbers of out_type.")


def _decode_padded_raw_kernel(xp):
    def k(input_bytes, fixed_length, out_type=dtypes.uint8, little_endian=True):
        length = int(np.asarray(fixed_length))
        np_dtype = _raw_dtype(out_type, little_endian)
        if length % np_dtype.itemsize:
            raise InvalidArgumentError(None, None, f"fixed_length ({length}) must be a multiple of the size of "
                                                   f"out_type ({np_dtype.itemsize})")
        strings = [s[:length].ljust(length, b"\x00") for s in string_list(input_bytes)]
        out = np.frombuffer(b"".join(strings), dtype=np_dtype).astype(out_type.as_numpy_dtype)
        return out.reshape(_shape(input_bytes) + (length // np_dtype.itemsize,))
    return k


_DECODE_PADDED_RAW = register_op("DecodePaddedRaw", kernel=_decode_padded_raw_kernel, infer=_decode_raw_infer,
                                 grad=None, inputs="input_bytes: string, fixed_length: int32",
                                 doc="DecodeRaw of each string cut or zero-padded to fixed_length bytes.")


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """``tf.io.decode_raw``: each string's bytes reinterpreted as numbers of ``out_type``, in a new last
    dimension: ``decode_raw("Duck", tf.uint8) == [68, 117, 99, 107]``.

    The strings must all have one length (else ``InvalidArgumentError``), unless ``fixed_length`` cuts
    or zero-pads each to that many bytes. ``little_endian=False`` reads big-endian numbers.
    """
    out_type = dtypes.as_dtype(out_type)
    if out_type not in _RAW_TYPES:
        raise TypeError(f"Value passed to parameter 'out_type' has DataType {out_type.name} not in list of allowed "
                        f"values: float16, float32, float64, int32, uint16, uint8, int16, int8, int64, complex64, "
                        f"complex128, bool")
    x = _string_input(input_bytes, "DecodeRaw")
    attrs = {"out_type": out_type, "little_endian": bool(little_endian)}
    if fixed_length is not None:
        return execute(_DECODE_PADDED_RAW, (x, convert_to_tensor(fixed_length, dtype=dtypes.int32)), attrs,
                       name=name)
    return execute(_DECODE_RAW, (x,), attrs, name=name)


def _b64_encode(s, pad=False):
    out = base64.urlsafe_b64encode(s)
    return out if pad else out.rstrip(b"=")


def _b64_decode(s):
    text = s.rstrip(b"=")
    if len(text) % 4 == 1:
        raise InvalidArgumentError(None, None, "Base64 string length cannot be 1 modulo 4.")
    if re.search(rb"[^A-Za-z0-9_\-]", text):
        raise InvalidArgumentError(None, None, "Invalid character found in base64.")
    try:
        return base64.urlsafe_b64decode(text + b"=" * (-len(text) % 4))
    except binascii.Error:
        raise InvalidArgumentError(None, None, "Invalid character found in base64.") from None


_ENCODE_BASE64 = _elementwise("EncodeBase64", _b64_encode, doc="Web-safe base64 of each string.")
_DECODE_BASE64 = _elementwise("DecodeBase64", _b64_decode, doc="Each web-safe base64 string decoded.")


def encode_base64(input, pad=False, name=None):  # noqa: A002
    """``tf.io.encode_base64``: each string in web-safe base64 (``-`` and ``_`` for ``+`` and ``/``), without
    ``=`` padding unless ``pad=True``."""
    return execute(_ENCODE_BASE64, (_string_input(input, "EncodeBase64"),), {"pad": bool(pad)}, name=name)


def decode_base64(input, name=None):  # noqa: A002
    """``tf.io.decode_base64``: each web-safe base64 string decoded (padding optional)."""
    return execute(_DECODE_BASE64, (_string_input(input, "DecodeBase64"),), name=name)
