"""Helpers every op module uses to turn Python arguments into op inputs.

The public functions (``tf.add``, ``tf.reshape``, ...) are thin: convert the
arguments to tensors following TF's rules, check dtypes, then hand the op to
:func:`engine.eager.execute.execute`, the one door through which every op runs.
The rules live here once. The elementwise functions are one line each::

    def add(x, y, name=None):
        return binary_op("AddV2", x, y, name)

:func:`binary_op` and :func:`unary_op` read what they check from the op's
registry row (``op_def.dtypes``), so a row is the only place an op's facts live.

These checks are the *eager* ones (TF's kernels: ``InvalidArgumentError``). While a graph
is built (``tf.Graph``, ``tf.function``), an op whose row declares its TF op definition
(``inputs=``, ``type_attrs=``) is checked where its node is made instead
(``Graph.create_op_from_def`` and ``framework/op_def_library.py``: TF's ``TypeError``), and
the checks here stand aside; for the few rows without one they raise the same ``TypeError``.
"""
import numpy as np

from ..eager.execute import eager_op_error, execute, execute_binary
from ..framework import dtypes
from ..framework.composite_tensor import CompositeTensor
from ..framework.context import ctx
from ..framework.device import default_device
from ..framework.errors import InvalidArgumentError
from ..framework import op_def_library
from ..framework.registry import op_rows
from ..framework.tensor import EagerTensor, Tensor, convert_to_tensor, noting_python_origin, scalar_like

__all__ = ["execute", "binary_op", "unary_op", "binary_inputs", "register_composite_elementwise", "check_same_dtype",
           "int_tensor", "to_tensor", "dtype_error", "check_dtype", "FLOAT", "NUMERIC", "INTEGER"]

FLOAT = frozenset([dtypes.float16, dtypes.float32, dtypes.float64])
INTEGER = frozenset([dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64,
                     dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64])
NUMERIC = FLOAT | INTEGER


BOOL = frozenset([dtypes.bool])
_NO_ATTRS = {}
_ROWS = op_rows()   # the registry's table itself (read-only here): ``_ROWS["AddV2"]`` is AddV2's row


# --------------------------------------------------------------------------------------
# Elementwise ops: convert, check against the row, execute
# --------------------------------------------------------------------------------------
def binary_op(op_type, x, y, name=None, convert=None):
    """Run the broadcasting binary op ``op_type`` on ``x`` and ``y`` (tensors, variables or Python values).

    TF's rules, in order: a Python value adopts the other operand's dtype (``x * 2.0``);
    two tensors of different dtypes are refused (TF never promotes); the dtype must be
    one the op's row accepts. ``convert(op_type, x, y)`` replaces the first two steps
    for the ops whose conversion differs (``tf.add``). ``name`` names the graph node.
    """
    op = _ROWS[op_type]
    if type(x) is EagerTensor:
        if type(y) is not EagerTensor:
            if type(y) is float and x._value.dtype.kind == "f":   # ``x * 0.5``: the float takes x's dtype
                y = scalar_like(y, x)
            elif getattr(y, "_is_variable", False):   # a layer's ``x + bias``: read the variable (ReadVariableOp)
                y = y._read()
    elif type(x) is float and type(y) is EagerTensor and y._value.dtype.kind == "f":   # ``0.5 * x``
        x = scalar_like(x, y)
    if type(x) is EagerTensor and type(y) is EagerTensor:   # the common case: nothing (more) to convert
        kind = x._value.dtype
        if kind == y._value.dtype and kind in op.np_dtypes:
            return execute_binary(op, x, y, name)
    if isinstance(x, CompositeTensor) or isinstance(y, CompositeTensor):   # (off the fast path above)
        return composite_elementwise(op_type, (x, y), name)
    if op.dtypes == BOOL and isinstance(x, Tensor) and isinstance(y, Tensor):
        pass   # typed-bool inputs: each is checked on its own below, not against the other
    else:
        x, y = (convert or binary_inputs)(op_type, x, y)
    check_inputs(op, (x, y))
    return execute(op, (x, y), _NO_ATTRS, name)


def unary_op(op_type, x, name=None):
    """Run the elementwise unary op ``op_type`` on ``x`` (see :func:`binary_op`)."""
    op = _ROWS[op_type]
    if type(x) is not EagerTensor or x._value.dtype not in op.np_dtypes:
        if isinstance(x, CompositeTensor):
            return composite_elementwise(op_type, (x,), name)
        x = to_tensor(x)
        check_inputs(op, (x,))
    return execute(op, (x,), _NO_ATTRS, name)


# Composite operands (a RaggedTensor; later a SparseTensor) of elementwise ops: each composite class
# registers how it runs an elementwise op (``ops/ragged/ragged_dispatch.py``: on its flat values).
_COMPOSITE_ELEMENTWISE = {}


def register_composite_elementwise(cls, handler):
    """``handler(op_type, inputs, name)`` runs elementwise ops whose operand is a ``cls`` (a CompositeTensor)."""
    _COMPOSITE_ELEMENTWISE[cls] = handler


def composite_elementwise(op_type, inputs, name=None):
    """Hand an elementwise op with a composite operand to that composite's registered handler."""
    for x in inputs:
        for cls, handler in _COMPOSITE_ELEMENTWISE.items():
            if isinstance(x, cls):
                return handler(op_type, inputs, name)
    raise TypeError(f"No elementwise {op_type} for composite operands "
                    f"{', '.join(type(x).__name__ for x in inputs)}")


def _checked_at_creation(op_name):
    """True while a graph is being built and the op's row declares its TF op definition: then
    ``Graph.create_op_from_def`` checks the input dtypes (``op_def_library``), and the eager-style
    checks of this module stand aside."""
    if ctx.graph is None:
        return False
    row = _ROWS.get(op_name)
    return row is not None and row.signature is not None


def check_inputs(op, tensors):
    """Refuse input dtypes the op's row does not accept, with TF's error (eagerly: InvalidArgumentError)."""
    if op.dtypes is None or (ctx.graph is not None and op.signature is not None):
        return
    if op.dtypes == BOOL:   # logical ops: inputs typed bool (TF's op definition has no dtype attr)
        for i, t in enumerate(tensors):
            if not t.dtype.is_bool:
                raise InvalidArgumentError(
                    None, None, f"cannot compute {op.name} as input #{i}(zero-based) was expected to be a bool "
                                f"tensor but is a {t.dtype.name} tensor [Op:{op.name}]")
        return
    check_dtype(op.name, tensors[0], op.dtypes)


def to_tensor(x, dtype=None, name=None):
    """``convert_to_tensor`` with a fast path for tensors."""
    if isinstance(x, Tensor) and dtype is None:
        return x
    return convert_to_tensor(x, dtype=dtype)


def _adopt(value, like, op_name=None, arg="y"):
    """Convert a non-tensor ``value`` for a binary op whose other operand is ``like``.

    A Python number or list takes ``like``'s dtype where it can. It never becomes a bool, though,
    unless it is made of Python bools: TF refuses ``bool_tensor & 1`` with ``TypeError``
    ("Cannot convert 1 to EagerTensor of dtype bool" eagerly; in a graph, op_def_library's
    "Expected bool passed to parameter 'y' of op 'LogicalAnd', got 1 ..."). In a graph that is
    for an op that takes bool at all: op_def_library checks ``x``'s dtype first, so there
    ``bool_tensor + 1`` is AddV2's refusal of bool (the number is converted on its own).
    """
    if like.dtype.is_bool and _has_number(value) and (ctx.graph is None or _takes_bool(op_name)):
        if ctx.graph is not None and op_name is not None:
            raise op_def_library.conversion_error(op_name, arg, value, like.dtype)
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype bool")
    if isinstance(value, (int, float, bool)) and not isinstance(value, Tensor) and isinstance(like, EagerTensor):
        return scalar_like(value, like)
    return convert_to_tensor(value, dtype_hint=like.dtype) if _loose(value) else convert_to_tensor(value)


def _takes_bool(op_name):
    """Whether the op's definition lets its first typed input be a bool (unknown ops: assume so)."""
    row = _ROWS.get(op_name) if op_name is not None else None
    if row is None or row.signature is None:
        return True
    for arg in row.signature:
        if arg.type_attr is not None:
            allowed = row.type_attrs.get(arg.type_attr)
            return allowed is None or dtypes.bool in allowed
    return any(arg.dtype is dtypes.bool for arg in row.signature)


def _has_number(value):
    """A Python int or float (not a bool), or a list/tuple holding one."""
    if isinstance(value, (list, tuple)):
        return any(_has_number(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _loose(value):
    return isinstance(value, (int, float, bool, list, tuple, np.ndarray, np.generic))


def convert_pair(x, y, op_name=None):
    """Convert ``x`` and ``y`` for a binary op: a Python value adopts the other side's dtype."""
    if not isinstance(x, Tensor):
        if isinstance(y, Tensor) or hasattr(y, "__tf_tensor__"):
            y = to_tensor(y)
            x = _adopt(x, y, op_name, "x")
        else:
            x = to_tensor(x)
            y = _adopt(y, x, op_name)
    elif not isinstance(y, Tensor):
        y = _adopt(y, x, op_name)
    return x, y


def binary_inputs(op_name, x, y):
    """``convert_pair``, then refuse two different dtypes (no implicit promotion), as in TF."""
    if type(x) is EagerTensor and type(y) is EagerTensor and x._value.dtype == y._value.dtype:
        return x, y   # the common case: nothing to convert, and equal NumPy dtypes mean equal DTypes
    x, y = convert_pair(x, y, op_name)
    check_same_dtype(op_name, x, y)
    return x, y


def check_same_dtype(op_name, *tensors):
    """Inputs of one dtype, or TF's error: eagerly ``InvalidArgumentError``; in a graph, the op's row
    checks at node creation (``op_def_library``), else ``TypeError`` here."""
    if _checked_at_creation(op_name):
        return
    first = tensors[0].dtype
    for i, t in enumerate(tensors[1:], start=1):
        if t.dtype != first:
            raise dtype_error(op_name, i, first, t.dtype)


def dtype_error(op_name, index, expected, got):
    """TF's error for mismatched input dtypes: InvalidArgumentError eagerly, TypeError in graphs
    (op_def_library's message, with the row's input names where it declares them)."""
    if ctx.graph is not None:
        row = _ROWS.get(op_name)
        names = [a.name for a in row.signature] if row is not None and row.signature else ["x", "y"]
        arg = names[index] if index < len(names) else f"#{index}"
        return op_def_library.mismatch_error(op_name, arg, got, expected, names[0])
    return InvalidArgumentError(
        None, None,
        f"cannot compute {op_name} as input #{index}(zero-based) was expected to be a {expected.runtime_name} "
        f"tensor but is a {got.runtime_name} tensor. TensorFlow does not promote dtypes: use tf.cast so both inputs "
        f"have the same dtype. [Op:{op_name}]")


def check_dtype(op_name, tensor, allowed, what="x"):
    """Refuse a dtype the op does not allow: eagerly TF's kernel error (InvalidArgumentError); in a graph
    the op's row checks at node creation (``op_def_library``), else TF's ``TypeError`` here."""
    if tensor.dtype not in allowed:
        if ctx.graph is not None:
            if _checked_at_creation(op_name):
                return
            raise op_def_library.not_allowed_error(what, tensor.dtype, allowed)
        names = ", ".join(sorted(d.name for d in allowed))
        message = (f"Value for attr 'T' of {tensor.dtype.name} is not in the list of allowed values: {names}; "
                   f"NodeDef: {{{{node {op_name}}}}}; input '{what}' has dtype {tensor.dtype.name}")
        raise eager_op_error(InvalidArgumentError, message + f" [Op:{op_name}]", (tensor,))


_INT_CACHE = {}
_INT_CACHE_MAX = 1024   # distinct shapes/axes kept; the cache is emptied when it grows past this
_INT_CACHE_LEN = 8      # longest list/tuple cached (shapes and axis lists are short)


def int_tensor(values, dtype=dtypes.int32, like=None):
    """A small integer tensor (shapes, axes, perms) built without dtype inference overhead.

    Eagerly, int32 tensors for a plain ``int`` or a short list/tuple of plain ``int`` s are
    cached by value: ``tf.reshape(x, [-1, 4])`` in a loop builds its shape tensor once (the
    same idea as ``reduction_ops._AXIS_CACHE``). Sharing is safe because nothing writes into
    a tensor's array; the cached arrays are marked read-only to make sure of it. The cached
    tensor is the one the slow path below built the first time, so values, dtype (int32) and
    errors (an out-of-range value raises before anything is cached) are the same. Graph mode,
    ``tf.device`` scopes and other dtypes always take the slow path.
    """
    kind = type(values)
    # Fast path: exact ``int`` / ``list`` / ``tuple`` types only (so no bools, NumPy integers or
    # tensors, whose cache keys could alias different values), with no graph or device scope.
    if (kind is int or kind is list or kind is tuple) and dtype is dtypes.int32:
        c = ctx
        if c.graph is None and c.device is None:
            if kind is int:
                key = values
            elif len(values) <= _INT_CACHE_LEN:
                key = tuple(values)
                for v in key:
                    if type(v) is not int:
                        key = None
                        break
            else:
                key = None
            if key is not None:
                device = default_device()
                cached = _INT_CACHE.get((key, device))
                if cached is not None:
                    return cached if kind is int else noting_python_origin(values, cached)
                t = _int_tensor(values, dtype)
                if isinstance(t._value, np.ndarray):
                    t._value.flags.writeable = False
                if len(_INT_CACHE) >= _INT_CACHE_MAX:
                    _INT_CACHE.clear()
                _INT_CACHE[(key, device)] = t
                return noting_python_origin(values, t)
    return noting_python_origin(values, _int_tensor(values, dtype))


def _int_tensor(values, dtype):
    """:func:`int_tensor` without the cache."""
    if isinstance(values, Tensor):
        return values
    kind = type(values)
    if kind is not int:   # a Python int (an axis) can be none of these
        if hasattr(values, "__tf_tensor__"):
            return convert_to_tensor(values)
        if isinstance(values, (list, tuple)) and _has_tensor(values):
            # ints and tensors: packed, as TF; the ints take the tensors' dtype (``[rt.nrows(), 1]``: int64)
            dtype = next((v.dtype for v in values if isinstance(v, Tensor) and v.dtype.is_integer), dtype)
            return array_ops.stack([int_tensor(v, dtype) for v in values])
    if ctx.graph is not None:
        return convert_to_tensor(np.asarray(values, dtype=dtype._np))
    arr = np.asarray(values, dtype=dtype._np)
    device = ctx.device or default_device()
    if device.backend != "numpy":
        arr = device.put(arr)
    return EagerTensor(arr[()] if arr.ndim == 0 else arr, device)


def _has_tensor(values):
    for v in values:
        if isinstance(v, Tensor):
            return True
    return False


from . import array_ops  # noqa: E402  (array_ops builds on this module: imported last)
