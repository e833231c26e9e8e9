"""Host values of ``tf.string`` tensors, built the framework's way.

The framework owns the representation of string values (``engine/framework/tensor.py``:
``string_array``: a NumPy ``|S`` array, or an ``object`` array of NUL-keeping bytes scalars when a
value ends in ``b"\\x00"``, so binary records such as serialized protos survive intact). The readers
and parsing kernels build their outputs with it; ``to_bytes`` reads one element back.
"""
import numpy as np

try:
    from ..framework.tensor import string_array as _framework_string_array
except ImportError:   # pragma: no cover - an older framework: plain ``|S`` arrays
    _framework_string_array = None

__all__ = ["string_array", "to_bytes", "flat_strings"]


def string_array(values, shape=None):
    """A host ``tf.string`` value from a flat list of bytes: an array of ``shape`` (default 1-D), or for
    ``shape == ()`` the rank-0 scalar (a NumPy bytes scalar, as every rank-0 host value is a NumPy scalar)."""
    values = [bytes(v) for v in values]
    shape = (len(values),) if shape is None else tuple(shape)
    if _framework_string_array is not None:
        array = _framework_string_array(values, shape)
    else:
        array = (np.array(values, dtype=bytes) if values else np.zeros(0, dtype="S1")).reshape(shape)
    return array[()] if array.ndim == 0 else array


def to_bytes(value):
    """One string element (``bytes``, ``np.bytes_``, ``str`` or a 0-d array) as ``bytes``."""
    if isinstance(value, np.ndarray):
        value = value[()]
    if isinstance(value, str):
        return value.encode("utf-8")
    return bytes(value)


def flat_strings(value):
    """``(list of bytes, shape)`` of a string value a kernel receives (an array, or a rank-0 bytes scalar).

    Never ``np.asarray`` a bytes scalar: that makes an ``|S`` array, which drops trailing NUL bytes.
    """
    if isinstance(value, (bytes, str)):
        return [to_bytes(value)], ()
    if not isinstance(value, np.ndarray):
        value = np.asarray(value)
    return [to_bytes(v) for v in value.reshape(-1)], value.shape
