"""Tensors: the values ops consume and produce.

``Tensor`` is the common base. ``EagerTensor`` holds a concrete array (NumPy on
CPU, CuPy on GPU) plus the device it lives on; graph mode adds symbolic tensors
that have a dtype and a partial shape but no value. Arithmetic operators are not
defined here: ``engine/ops/overloads.py`` attaches them once the ops exist, the
same way TensorFlow's ``math_ops`` overrides ``Tensor.__add__``.

Every EagerTensor gets a unique integer ``_id``. Gradient tapes identify tensors
by this id (not by Python ``id()``, which is reused after garbage collection).
"""
import itertools

import numpy as np

from . import dtypes as _dtypes
from .backend import NUMPY, to_numpy
from .context import ctx
from .dtypes import _BY_NP
from .device import default_device, lookup_device
from .registry import get_op
from .tensor_shape import TensorShape

__all__ = ["Tensor", "EagerTensor", "constant", "convert_to_tensor", "is_tensor",
           "register_tensor_conversion_function", "host_strings", "string_array", "string_list",
           "is_string_value"]

_next_id = itertools.count(1).__next__


class Tensor:
    """The base class of every tensor. ``isinstance(x, tf.Tensor)`` is true for eager and symbolic ones."""

    __slots__ = ()
    # NumPy defers to our reflected operators (np_array + tensor -> Tensor.__radd__).
    __array_priority__ = 100

    OVERLOADABLE_OPERATORS = frozenset()  # filled in by ops/overloads.py

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return self.shape.rank

    def ref(self):
        """A hashable reference to this tensor, for use as a dict key (tensors are unhashable)."""
        return _Reference(self)

    experimental_ref = ref

    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")


class _Reference:
    __slots__ = ("_obj",)

    def __init__(self, obj):
        self._obj = obj

    def deref(self):
        return self._obj

    def __hash__(self):
        return id(self._obj)

    def __eq__(self, other):
        return isinstance(other, _Reference) and other._obj is self._obj

    def __repr__(self):
        return f"<Reference wrapping {self._obj!r}>"


class EagerTensor(Tensor):
    """A tensor with a value, produced by running an op immediately."""

    __slots__ = ("_value", "_device", "_id", "__weakref__")

    def __init__(self, value, device):
        self._value = value      # numpy/cupy array, or a NumPy scalar for rank 0
        self._device = device    # a framework.device.Device
        self._id = _next_id()

    # --- metadata ---------------------------------------------------------------
    @property
    def dtype(self):
        try:
            return _BY_NP[self._value.dtype]   # what dtypes.from_numpy does first, without the call
        except KeyError:
            return _dtypes.from_numpy(self._value.dtype)

    @property
    def shape(self):
        return TensorShape(self._value.shape)

    @property
    def ndim(self):
        return len(self._value.shape)

    @property
    def device(self):
        """The full TF name of the device holding the value."""
        return self._device.name

    backing_device = device

    @property
    def name(self):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    def set_shape(self, shape):
        """Eager tensors have a known shape: this only checks compatibility, as TF does."""
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied shape {TensorShape(shape)}.")

    # --- values -------------------------------------------------------------------
    def numpy(self):
        """The value as NumPy (a NumPy scalar for rank-0 tensors, like TF). May share memory.

        A string tensor gives what TF gives: an ``object`` array of Python ``bytes``
        (``array([b'ab', b'c'], dtype=object)``), and a scalar one a ``bytes`` (``b'ab'``). (The
        array's elements are a subclass of ``bytes`` that is also a NumPy scalar: see ``host_strings``.)
        """
        if self._device.backend == NUMPY:
            v = self._value
            cls = v.dtype.__class__
            return v if cls is not _BYTES_DTYPE and cls is not _OBJECT_DTYPE else host_strings(v)
        return to_numpy(self._value)

    def __array__(self, dtype=None, copy=None):
        arr = np.asarray(self.numpy())
        if dtype is not None:
            arr = arr.astype(dtype, copy=False)
        return arr.copy() if copy else arr

    def __bool__(self):
        return bool(self.numpy())

    def __float__(self):
        return float(self.numpy())

    def __format__(self, format_spec):
        """``f"{loss:.2f}"`` formats the value, as TF does (NumPy's rules: a spec needs a scalar)."""
        if not format_spec:
            return str(self.numpy()) if self._value.shape else format(self.numpy())
        return format(self.numpy(), format_spec)

    def eval(self, feed_dict=None, session=None):
        raise NotImplementedError("eval is not supported when eager execution is enabled, is .numpy() what you're "
                                  "looking for?")

    def __int__(self):
        return int(self.numpy())

    def __index__(self):
        if not self.dtype.is_integer or self._value.shape != ():
            raise TypeError(f"Only integer scalar tensors can be used as an index, got {self!r}")
        return int(self.numpy())

    def __complex__(self):
        return complex(self.numpy())

    def __len__(self):
        if not self._value.shape:
            raise TypeError("Scalar tensor has no `len()`")
        return self._value.shape[0]

    def __iter__(self):
        if not self._value.shape:
            raise TypeError("Cannot iterate over a scalar tensor.")
        for i in range(self._value.shape[0]):
            yield self[i]

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return EagerTensor(self._value.copy(), self._device)

    def __reduce__(self):
        return (constant, (np.asarray(self.numpy()),))

    def cpu(self):
        return _copy_to(self, lookup_device("CPU:0"))

    def gpu(self, gpu_index=0):
        return _copy_to(self, lookup_device(f"GPU:{gpu_index}"))

    # --- printing ---------------------------------------------------------------
    def _numpy_text(self, is_repr):
        return numpy_text(self.numpy(), is_repr)

    def __repr__(self):
        return (f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
                f"numpy={self._numpy_text(True)}>")

    def __str__(self):
        return f"tf.Tensor({self._numpy_text(False)}, shape={self.shape}, dtype={self.dtype.name})"


_BYTES_DTYPE = np.dtype("S1").__class__
_OBJECT_DTYPE = np.dtype(object).__class__


class _Bytes(np.bytes_):
    """An ``np.bytes_`` that keeps trailing NUL bytes, the element type of ``object`` string values.

    It acts as a NumPy scalar as kernels expect (``.dtype``, ``.shape``, ``x[()]`` is itself).
    """

    __slots__ = ()

    def __getitem__(self, key):
        if key == () or key is Ellipsis:
            return self
        return np.bytes_.__getitem__(self, key)

    def __repr__(self):   # b'ab', as the bytes TF's arrays hold (NumPy 2 would write np.bytes_(b'ab'))
        return bytes.__repr__(self)

    __str__ = __repr__

    def __reduce__(self):   # (NumPy's scalar pickling would drop trailing NULs)
        return (_Bytes, (bytes(self),))


def string_array(flat, shape=None):
    """Python ``bytes`` (a flat list) as a string tensor's stored array, of ``shape`` (default: 1-D).

    Inside the engine a string tensor's value is a NumPy fixed-width bytes array (``|S``), which,
    like every value the kernels pass around, has a ``.dtype`` and ``.shape`` even at rank 0
    (``np.bytes_``). NumPy's ``|S`` arrays drop trailing NUL bytes, so a value holding a string that
    ends in ``b"\\x00"`` (UTF-16 text, raw binary data) is instead an ``object`` array of
    :class:`_Bytes` scalars, which keep every byte. Kernels accept both; :func:`host_strings`
    turns either into TF's view. For rank 0 the array is 0-d: ``[()]`` gives the ``np.bytes_`` scalar
    a kernel returns.

    A deliberate difference from TF: the generic array kernels that build a new array out of string
    *scalars* (``tf.stack`` of scalars, ``tf.fill``) let NumPy choose ``|S``, so there a trailing NUL
    byte is lost; the string ops, conversion, slicing, gathering and concatenation keep it.
    """
    shape = (len(flat),) if shape is None else tuple(shape)
    if any(x[-1:] == b"\x00" for x in flat):
        out = np.empty(len(flat), dtype=object)
        out[:] = [_Bytes(x) for x in flat]
        return out.reshape(shape)
    return np.array(flat, dtype=np.bytes_ if flat else "S1").reshape(shape)


def string_list(value):
    """A string tensor's stored value (``|S`` or ``object`` array, or a scalar) as a flat list of ``bytes``."""
    if isinstance(value, bytes):
        return [bytes(value)]
    return [bytes(x) for x in np.asarray(value).reshape(-1).tolist()]


def is_string_value(value):
    """Whether an array is a string tensor's stored value (``|S``, or ``object`` holding bytes)."""
    cls = value.dtype.__class__
    return cls is _BYTES_DTYPE or cls is _OBJECT_DTYPE


def host_strings(value):
    """A string tensor's stored value as TF hands it out: an object array of ``bytes`` (a ``bytes`` for rank 0).

    The array's elements are :class:`_Bytes`, a subclass of ``bytes`` that prints as ``bytes`` and
    is also a NumPy scalar, so arrays taken from ``.numpy()`` can be fed back to kernels (tf.data
    slices them). (An ``object`` value that does not hold bytes, such as a variant's wrapped
    Python value, is returned as it is.)
    """
    if value.ndim == 0:
        x = value[()] if isinstance(value, np.ndarray) else value
        return bytes(x) if isinstance(x, bytes) else value
    flat = value.reshape(-1).tolist()
    if value.dtype.__class__ is _OBJECT_DTYPE and not all(isinstance(x, bytes) for x in flat):
        return value
    out = np.empty(len(flat), dtype=object)
    out[:] = [x if type(x) is _Bytes else _Bytes(x) for x in flat]
    return out.reshape(value.shape)


def numpy_text(value, is_repr):
    """How TF prints a value: scalars as Python values in ``repr``, arrays as NumPy prints them.

    Multi-line text starts on a new line, as in ``<tf.Tensor: ..., numpy=\narray([[...]])>``.
    """
    if isinstance(value, bytes):   # a string scalar, as ``numpy()`` gives it
        text = repr(bytes(value))
    elif np.ndim(value) == 0:
        value = np.asarray(value)
        if value.dtype.kind in "SO" and not is_repr:
            text = repr(value.item())   # a string scalar prints as b'abc', as TF (str() of np.bytes_ is "b'abc'" too,
        else:                           # but NumPy 2 scalars' str would otherwise show np.bytes_(...) in arrays)
            text = repr(value.item()) if is_repr else str(value)
    else:
        text = np.array_repr(value) if is_repr else str(value)
    return "\n" + text if "\n" in text else text


def _copy_to(tensor, device):
    if tensor._device is device:
        return tensor
    return EagerTensor(device.put(tensor._value), device)


def is_tensor(x):
    """``tf.is_tensor``: true for tensors and for objects that act as tensors (variables)."""
    return isinstance(x, Tensor) or hasattr(x, "__tf_tensor__")


# --- conversion -------------------------------------------------------------------------
_conversion_functions = []  # (type, fn(value, dtype, name) -> Tensor)


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Teach ``convert_to_tensor`` a new type, as ``tf.register_tensor_conversion_function`` does."""
    _conversion_functions.append((priority, base_type, conversion_func))
    _conversion_functions.sort(key=lambda item: item[0])


def _numpy_value(value, dtype):
    """Python/NumPy data -> a NumPy array of the right dtype, applying TF's inference and checks."""
    if dtype is None:
        try:
            dtype = _dtypes.infer_dtype(value)
        except (TypeError, ValueError) as error:
            if "inhomogeneous" in str(error):   # rows of different lengths ([[1], [2, 3]]), as TF words it
                raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
            raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                             f"({type(value)}) to a Tensor.") from None
        if dtype is _dtypes.string:
            return _bytes_array(value), dtype
        return np.array(value, dtype=dtype._np), dtype  # a copy: later edits of the source don't leak in
    if dtype is _dtypes.string:
        try:
            return _bytes_array(value), dtype
        except (TypeError, ValueError):   # numbers asked to be strings: TF's errors
            if isinstance(value, (np.ndarray, np.generic)):
                arr = np.asarray(value).reshape(-1)
                kind = type(arr[0].item()).__name__ if arr.size else arr.dtype.name
                raise ValueError(f"Failed to convert a NumPy array to a Tensor (Unsupported object type "
                                 f"{kind}).") from None
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype string") from None
    if isinstance(value, (np.ndarray, np.generic)):
        return np.array(value, dtype=dtype._np), dtype  # NumPy data is copied and cast, as TF does (1.5 -> 1)
    # Python values: refuse lossy conversions (1.5 -> int32, 1j -> float32) as TF does.
    arr = np.asarray(value)
    if dtype.is_integer and (arr.dtype.kind == "O" or arr.dtype.kind == "f" and _all_ints(value)):
        return _python_ints(value, dtype), dtype   # ints NumPy infers as object or float64 ([1, 2**63])
    if arr.dtype.kind == "O":
        raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                         f"({type(value).__name__}) to a Tensor.")
    if arr.size and _lossy(arr.dtype.kind, dtype):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    if arr.dtype.kind in "iub" and dtype.is_integer and arr.size:
        return _python_ints(value, dtype), dtype
    if arr.dtype.kind in "U" and dtype is not _dtypes.string:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    return arr.astype(dtype._np), dtype


def _all_ints(value):
    if isinstance(value, (list, tuple)):
        return all(_all_ints(v) for v in value)
    return isinstance(value, int)


def _lossy(kind, dtype):
    """Would converting Python data of NumPy kind ``kind`` to ``dtype`` lose information? (TF's TypeError)

    Floats go only to float and complex dtypes, complex numbers only to complex dtypes, and
    ``bool`` is neither a number nor a target for numbers (``True`` to complex64 is refused too).
    """
    if kind == "f":
        return not (dtype.is_floating or dtype.is_complex)
    if kind == "c":
        return not dtype.is_complex
    if kind in "iu":
        return dtype.is_bool
    if kind == "b":
        return dtype.is_complex
    return False


def _python_ints(value, dtype):
    """Python ints to an integer dtype, as TF 2.21 converts them: through int64 (uint64 for uint64), then a
    C-style cast that wraps around: ``tf.constant(-1, tf.uint8)`` is 255, ``tf.constant(300, tf.uint8)`` is 44.

    A value beyond int64 (beyond [0, 2**64) for uint64) raises ``ValueError``, as TF's conversion does.
    (For uint64 TF raises a SystemError there; the engine raises the ValueError it gives for other dtypes.)
    """
    wide = np.uint64 if dtype is _dtypes.uint64 else np.int64
    try:
        arr = np.array(value, dtype=wide)
    except OverflowError:
        raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.") from None
    except (TypeError, ValueError):
        raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                         f"({type(value).__name__}) to a Tensor.") from None
    return arr.astype(dtype._np)


def _bytes_array(value):
    """TF strings are byte strings: ``tf.constant("hi")`` holds ``b'hi'`` (UTF-8); see :func:`string_array`.

    Accepts ``str``/``bytes`` scalars, nested lists of them, and NumPy ``U``, ``S`` or ``object``
    arrays of them (``np.array([b'a', 'b'], dtype=object)``, what ``string_tensor.numpy()`` gives).
    """
    if isinstance(value, (bytes, str)):
        return string_array([value.encode("utf-8") if isinstance(value, str) else bytes(value)], ())
    arr = np.asarray(value) if not isinstance(value, (list, tuple)) else np.array(value, dtype=object)
    if arr.dtype.kind == "U":
        arr = np.char.encode(arr, "utf-8")
    if arr.dtype.kind not in "SO":
        raise _mixed_error(value)
    flat = []
    for x in arr.reshape(-1).tolist():
        if isinstance(x, str):
            x = x.encode("utf-8")
        elif not isinstance(x, bytes):
            raise _mixed_error(value)
        flat.append(bytes(x))
    return string_array(flat, arr.shape)


def _mixed_error(value):
    if isinstance(value, (list, tuple)):
        return ValueError("Can't convert Python sequence with mixed types to Tensor.")
    return TypeError(f"Failed to convert elements of {value!r} to Tensor. Consider casting elements to a "
                     f"supported type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for supported "
                     f"TF dtypes.")


def _place(array):
    """Put a fresh host array on the current device (scope, else default)."""
    device = ctx.device or default_device()
    if device.backend != NUMPY:
        array = device.put(array)
    return EagerTensor(array, device)


def constant(value, dtype=None, shape=None, name="Const"):
    """``tf.constant``: a tensor holding ``value``.

    ``dtype`` converts (refusing lossy Python conversions such as ``1.5`` to int);
    ``shape`` reshapes a value with the right element count or fills with a scalar.
    """
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
    if isinstance(value, EagerTensor) or hasattr(value, "__tf_tensor__"):
        t = convert_to_tensor(value)
        if dtype is not None and t.dtype != dtype:
            t = _cast_value(t, dtype)
        value = t.numpy()
        if shape is None:
            return t
    if isinstance(value, Tensor):
        if ctx.graph is not None:
            return value
    arr, dtype = _numpy_value(value, dtype)
    if shape is not None:
        shape = tuple(TensorShape(shape).as_list())
        n = int(np.prod(shape, dtype=np.int64))
        if arr.size == n:
            arr = arr.reshape(shape)
        elif arr.size == 1:
            arr = np.broadcast_to(arr.reshape(()), shape).copy()
        else:
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {value!r} "
                            f"has {arr.size} elements, but got `shape` {shape} with {n} elements).")
    if ctx.graph is not None:
        return ctx.graph.constant(arr, dtype, name)
    if arr.ndim == 0:
        arr = arr[()]  # NumPy scalar, as kernels produce for rank 0
    return _place(arr)


def _cast_value(t, dtype):
    """``t`` converted to ``dtype`` by the registry's ``Cast`` kernel (``tf.constant(t, dtype)``)."""
    device = t._device
    kernel = get_op("Cast").kernel(device.backend)
    with device.activate():
        return EagerTensor(kernel(t._value, DstT=dtype, SrcT=t.dtype), device)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """``tf.convert_to_tensor``: accept tensors, variables, NumPy and Python values.

    With ``dtype``, a tensor of another dtype raises ``ValueError``; Python values
    are converted to ``dtype``. ``dtype_hint`` is used only when it works.
    """
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtype:
            raise ValueError(f"Tensor conversion requested dtype {_dtypes.as_dtype(dtype).name} for Tensor "
                             f"with dtype {value.dtype.name}: {value!r}")
        return value
    hook = getattr(value, "__tf_tensor__", None)
    if hook is not None:
        return hook(dtype, name)
    for _, base_type, fn in _conversion_functions:
        if isinstance(value, base_type):
            return fn(value, dtype, name)
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        # TF's auto-packing: [x, 1.0] with a tensor inside becomes stack([x, 1.0]) (``Pack``, from ops)
        return _AUTO_PACK[0]([convert_to_tensor(v, dtype=dtype, dtype_hint=dtype_hint) for v in value])
    if dtype is None and dtype_hint is not None:
        try:
            return noting_python_origin(value, constant(value, dtype_hint, name=name or "Const"))
        except (TypeError, ValueError):
            pass
    return noting_python_origin(value, constant(value, dtype, name=name or "Const"))


def convert_to_tensor_v2_with_dispatch(value, dtype=None, dtype_hint=None, name=None):
    """``tf.convert_to_tensor``: :func:`convert_to_tensor`, called by the user.

    (TF's public function has this name too.) What the user converts is a tensor like any
    other: an op's error names no Python origin for it (see :func:`made_from_python_sequence`).
    """
    return converted_by_wrapper(convert_to_tensor(value, dtype=dtype, dtype_hint=dtype_hint, name=name))


# --------------------------------------------------------------------------------------
# TF's two eager paths, as its error messages show them
# --------------------------------------------------------------------------------------
# TF's generated op wrappers first try a fast path in C++ that converts Python numbers (and NumPy
# arrays) itself; an input given as a Python list, tuple or string sends the call down the slow
# Python path instead. Both run the same kernel, but their errors end differently:
# ``... [Op:GatherV2] name: `` from the fast path, ``... [Op:GatherV2]`` from the slow one
# (``tf.gather(x, [5])``). Some public functions convert their arguments themselves before
# calling the op (``tf.add``, ``tf.matmul``, ``x / y``, ``tf.zeros``): their op sees tensors.
# The engine converts in the op functions, so it remembers which tensors it made from such Python
# values (the most recent few: an error comes right after its conversions), and the error of an
# op that got one ends as TF's slow path's does (``eager/execute.py``).
_PYTHON_SEQUENCES = (list, tuple, str, bytes)
_FROM_PYTHON_SEQUENCE = {}   # tensor id -> None, oldest first
_REMEMBERED = 256


def noting_python_origin(value, tensor):
    """``tensor``, converted by an op function from ``value``: remembered if that was a Python sequence."""
    if isinstance(value, _PYTHON_SEQUENCES):
        made = _FROM_PYTHON_SEQUENCE
        made[tensor._id] = None
        if len(made) > _REMEMBERED:
            del made[next(iter(made))]
    return tensor


def made_from_python_sequence(tensors):
    """True if one of ``tensors`` was converted by an op function from a Python list, tuple or string."""
    made = _FROM_PYTHON_SEQUENCE
    return bool(made) and any(getattr(t, "_id", None) in made for t in tensors)


def converted_by_wrapper(*tensors):
    """Forget the Python origin of ``tensors``: the public function converted them, as TF's does.

    Returns its argument (one tensor), or the tuple of them.
    """
    if _FROM_PYTHON_SEQUENCE:   # (softmax and the losses pass every call through here)
        for t in tensors:
            _FROM_PYTHON_SEQUENCE.pop(getattr(t, "_id", None), None)
    return tensors[0] if len(tensors) == 1 else tensors


_AUTO_PACK = [None]   # ``tf.stack``: the op library installs it (``set_auto_packing``), being above this module


def set_auto_packing(stack):
    """Install the function that packs a list holding tensors into one tensor (TF's auto-packing).

    As in TF, where ``array_ops`` registers auto-packing with the conversion machinery: this
    module defines tensors, and the op that stacks them (``Pack``) belongs to the op library.
    """
    _AUTO_PACK[0] = stack


def _contains_tensor(value):
    for v in value:
        if isinstance(v, Tensor) or hasattr(v, "__tf_tensor__"):
            return True
        if isinstance(v, (list, tuple)) and _contains_tensor(v):
            return True
    return False


def scalar_like(value, tensor):
    """A Python number as a tensor with ``tensor``'s dtype and device (``x + 1`` adopts x's dtype)."""
    np_dtype = tensor._value.dtype
    if type(value) is float and np_dtype.kind == "f" and tensor._device.backend is NUMPY:
        return EagerTensor(np_dtype.type(value), tensor._device)   # ``x * 0.5``, the commonest case
    dtype = tensor.dtype
    if (isinstance(value, float) and not dtype.is_floating) or dtype._np is None or dtype._np.kind in "OSU":
        # (a number cannot take a string, resource or variant dtype either: the op then sees the mix)
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    try:
        arr = dtype._np.type(value)
    except OverflowError:  # an int beyond the dtype wraps around, as TF converts it (int8 1 + 300 is 45)
        arr = _python_ints(value, dtype)[()]
    device = tensor._device
    if device.backend != NUMPY:
        arr = device.put(np.asarray(arr))
    return EagerTensor(arr, device)
