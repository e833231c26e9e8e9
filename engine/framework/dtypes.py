"""``tf.DType``: the element types a tensor can hold.

A DType is a small immutable descriptor wrapped around a NumPy dtype. TensorFlow's
rules that matter for the course:

* **Inference from Python values**: a Python ``float`` becomes ``float32`` and a
  Python ``int`` becomes ``int32`` (``int64`` if it does not fit); NumPy arrays
  keep their dtype. See :func:`infer_dtype`.
* **No implicit promotion between tensors**: ``int32 + float32`` is an error,
  never a silent upcast. That check lives in the op dispatcher.
"""
import builtins

import numpy as np

__all__ = [
    "DType", "as_dtype",
    "float16", "half", "float32", "float64", "double",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "complex64", "complex128", "bool", "string", "resource", "variant",
]


class DType:
    """One element type, e.g. ``tf.float32``.

    Compare DTypes with ``==``; a DType also equals its name (``"float32"``) and
    the matching NumPy dtype, which makes tests and interop pleasant.
    """

    __slots__ = ("name", "_np", "_enum")

    def __init__(self, name, np_dtype, enum):
        self.name = name
        self._np = np.dtype(np_dtype) if np_dtype is not None else None
        self._enum = enum

    # --- descriptors -------------------------------------------------------------
    @property
    def as_numpy_dtype(self):
        """The NumPy scalar type, e.g. ``numpy.float32``."""
        return self._np.type if self._np is not None else object

    @property
    def runtime_name(self):
        """The name TF's C++ runtime uses in error messages ("float" for float32, "double", "half"...)."""
        return _RUNTIME_NAMES.get(self.name, self.name)

    @property
    def as_datatype_enum(self):
        return self._enum

    @property
    def base_dtype(self):
        return self

    @property
    def real_dtype(self):
        """``float32`` for ``complex64``, ``float64`` for ``complex128``; the dtype itself otherwise."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def is_floating(self):
        return self._np is not None and self._np.kind == "f"

    @property
    def is_integer(self):
        return self._np is not None and self._np.kind in "iu"

    @property
    def is_unsigned(self):
        return self._np is not None and self._np.kind == "u"

    @property
    def is_bool(self):
        return self._np is not None and self._np.kind == "b"

    @property
    def is_complex(self):
        return self._np is not None and self._np.kind == "c"

    @property
    def is_quantized(self):
        return False

    @property
    def is_numpy_compatible(self):
        return True

    @property
    def size(self):
        """Bytes per element."""
        return self._np.itemsize if self._np is not None else 1

    @property
    def min(self):
        if self.is_floating:
            return float(np.finfo(self._np).min)
        if self.is_integer:
            return int(np.iinfo(self._np).min)
        raise TypeError(f"Cannot find minimum value of {self!r}.")

    @property
    def max(self):
        if self.is_floating:
            return float(np.finfo(self._np).max)
        if self.is_integer:
            return int(np.iinfo(self._np).max)
        raise TypeError(f"Cannot find maximum value of {self!r}.")

    @property
    def limits(self):
        return (self.min, self.max)

    def is_compatible_with(self, other):
        return self == as_dtype(other)

    # --- identity -------------------------------------------------------------
    def __eq__(self, other):
        if other is self:
            return True
        if other is None:
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    # Identity hash: DTypes are singletons, and a C-level hash keeps ``dtype in {...}`` checks fast.
    __hash__ = object.__hash__

    def __repr__(self):
        return f"tf.{self.name}"

    def __str__(self):
        return f"<dtype: '{self.name}'>"

    def __reduce__(self):
        return (as_dtype, (self.name,))


float16 = half = DType("float16", np.float16, 19)
float32 = DType("float32", np.float32, 1)
float64 = double = DType("float64", np.float64, 2)
int8 = DType("int8", np.int8, 6)
int16 = DType("int16", np.int16, 5)
int32 = DType("int32", np.int32, 3)
int64 = DType("int64", np.int64, 9)
uint8 = DType("uint8", np.uint8, 4)
uint16 = DType("uint16", np.uint16, 17)
uint32 = DType("uint32", np.uint32, 22)
uint64 = DType("uint64", np.uint64, 23)
complex64 = DType("complex64", np.complex64, 8)    # storage and printing only: few ops accept complex
complex128 = DType("complex128", np.complex128, 18)
bool = DType("bool", np.bool_, 10)  # noqa: A001  (TF spells it tf.bool)
string = DType("string", None, 7)
resource = DType("resource", None, 20)  # a handle to state (a variable), as in TF's resource variables
variant = DType("variant", None, 21)    # an opaque Python value (e.g. a while loop's per-iteration record)

_RUNTIME_NAMES = {"float32": "float", "float64": "double", "float16": "half"}

_ALL = [float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, complex64, complex128,
        bool, string, resource, variant]
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"half": float16, "double": float64, "float": float32})
_BY_NP = {d._np: d for d in _ALL if d._np is not None}

# Python types as TF 2.21's tf.as_dtype maps them: float -> float32; int is refused.
_BY_PYTYPE = {float: float32, builtins.bool: bool, str: string, bytes: string}


def as_dtype(type_value):
    """Convert a DType, name, NumPy dtype or Python type into a :class:`DType`.

    Raises ``TypeError`` for anything else, as ``tf.as_dtype`` does.
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        try:
            return _BY_NAME[type_value]
        except KeyError:
            raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.") \
                from None
    if type_value is int:
        raise TypeError("Cannot convert the argument `type_value`: <class 'int'> to a TensorFlow DType.")
    if type_value in _BY_PYTYPE:
        return _BY_PYTYPE[type_value]
    try:
        npd = np.dtype(type_value)
    except Exception:
        raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.") from None
    if npd.kind in "USO":   # as TF: NumPy text, bytes and object arrays hold strings
        return string
    try:
        return _BY_NP[npd]
    except KeyError:
        raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.") from None


def from_numpy(np_dtype):
    """Fast map from a NumPy dtype (as found on arrays) to a DType."""
    try:
        return _BY_NP[np_dtype]
    except KeyError:
        return as_dtype(np_dtype)


_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1


def infer_dtype(value):
    """The dtype TensorFlow gives a Python or NumPy value when it becomes a tensor.

    ``1.0 -> float32``, ``1 -> int32`` (``int64`` if too large), ``True -> bool``, ``1j -> complex128``,
    a NumPy array keeps its own dtype, a nested list is inferred from its elements.
    """
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return from_numpy(value.dtype)
    if isinstance(value, builtins.bool):
        return bool
    if isinstance(value, int):
        return int32 if _INT32_MIN <= value <= _INT32_MAX else int64
    if isinstance(value, float):
        return float32
    if isinstance(value, complex):
        return complex128
    if isinstance(value, (str, bytes)):
        return string
    arr = np.asarray(value)
    if arr.dtype.kind == "f":
        # As TF: a list's float dtype is that of its FIRST element when that one is NumPy data
        # ([np.float64(1), 2.0] -> float64, [2.0, np.float64(1)] -> float32).
        first = _first_leaf(value)
        if isinstance(first, (np.ndarray, np.generic)) and first.dtype.kind == "f":
            return from_numpy(first.dtype)
        return float32
    if arr.dtype.kind in "iu":
        if arr.size and (arr.min() < _INT32_MIN or arr.max() > _INT32_MAX):
            return int64
        return int32
    if arr.dtype.kind == "O":   # (None, or a mix NumPy cannot type: not a tensor's value)
        raise TypeError(f"Cannot infer a TensorFlow DType for {value!r}.")
    return as_dtype(arr.dtype)


def _first_leaf(value):
    """The first element of a nested list/tuple (a NumPy array counts as one element)."""
    while isinstance(value, (list, tuple)) and len(value):
        value = value[0]
    return value
