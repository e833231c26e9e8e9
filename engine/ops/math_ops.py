"""Elementwise math: arithmetic, unary functions, comparisons, logic, cast.

Each op is one ``register_op`` call (through :func:`_binary` / :func:`_unary`):
kernel factory, shape function, gradient and traits (the NumPy ufunc it is,
whether it is commutative or linear). Its public function is a plain ``def``
naming the op it binds::

    def add(x, y, name=None):
        return binary_op("AddV2", x, y, name, convert=_add_inputs)

Gradients are written with the public functions of this package, so they are
ordinary recorded ops and can be differentiated again.

Dtypes: each op accepts exactly the dtypes TensorFlow's op definition accepts
(``Mul`` refuses ``bool``, ``Pow`` refuses unsigned integers, ``SquaredDifference``
takes only floats, int32 and int64, ...). Asking for another dtype raises TF's
``InvalidArgumentError`` ("Value for attr 'T' of ... is not in the list of allowed
values"). Two tensors of different dtypes are never promoted: cast one of them.

Broadcasting gradients: if ``x`` of shape (3, 1) was broadcast against (3, 4),
the gradient arriving for the result has shape (3, 4) and must be summed back
to (3, 1). :func:`unbroadcast` does that for every broadcasting op.

Every call goes through the one door (``binary_op`` / ``unary_op``, then
``engine.eager.execute.execute``): ``tf.add(a, b)`` on two eager tensors of the
same, allowed dtype only skips argument conversion; anything else applies every
conversion rule and error first.

Where the engine deliberately differs from TF 2.21:

* Subnormal floats: TF's CPU kernels flush them to zero (``exp(-100.)`` is 0 in
  float32); NumPy keeps them (``3.8e-44``).
* ``tf.add(2, x)`` with a Python value on the *left*: ``tf.math.add`` converts
  ``x`` first in TF, so ``2`` becomes int32 and a float ``x`` is refused. Here the
  Python value adopts ``x``'s dtype, as for every other binary op (and as
  ``2 + x`` does in TF).
* Out-of-range float-to-int casts are implementation-defined in TF (C++); the
  engine gives NumPy's results, equal to TF's on x86 except ``inf`` to unsigned.
"""
import math

import numpy as np

from ..framework.backprop import TapeTensor
from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError, NotFoundError
from ..framework.floating_point import quiet
from ..framework.registry import register_op
from ..framework.tensor import EagerTensor, Tensor, convert_to_tensor, converted_by_wrapper
from ..framework.tensor_shape import TensorShape
from . import _shapes
from ._dispatch import FLOAT, INTEGER, NUMERIC, binary_inputs, binary_op, check_dtype, execute, to_tensor, unary_op

# The names TensorFlow exports at the top level (``tf.add``); ``engine/__init__`` star-imports
# them. Functions that live only in ``tf.math`` (``tf.math.log``) or ``tf.bitwise`` are defined
# here too and exported by ``engine/math.py``.
__all__ = [
    "add", "subtract", "multiply", "divide", "truediv", "realdiv", "pow", "negative", "abs", "sign", "exp",
    "sqrt", "square", "sin", "cos", "tanh", "sigmoid", "maximum", "minimum", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_not", "cast",
    "clip_by_value", "round", "floor", "add_n", "scalar_mul", "truncatediv", "truncatemod",
]

_BOOL = frozenset([dtypes.bool])
_STRING = frozenset([dtypes.string])
_UNSIGNED = frozenset([dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64])
_SIGNED = NUMERIC - _UNSIGNED
_SIGNED_INT = INTEGER - _UNSIGNED
_NO_ATTRS = {}


# --------------------------------------------------------------------------------------
# Gradient helper: undo broadcasting
# --------------------------------------------------------------------------------------
def unbroadcast(grad, x):
    """Sum ``grad`` over the dimensions along which ``x`` was broadcast, giving ``x``'s shape.

    ``x`` may be a tensor or a shape-only record from the tape. Static shapes are
    handled without any extra op; unknown shapes (graph mode) use
    ``BroadcastGradientArgs`` to find the axes at run time.
    """
    # ``_raw_shape(x)`` and ``_raw_shape(grad)``, inline (this runs for every input of every broadcasting
    # op in a backward walk): an eager tensor's or a shape record's shape tuple, else None.
    kind = type(x)
    xd = x._value.shape if kind is EagerTensor else x[0] if kind is TapeTensor else None
    gd = grad._value.shape if type(grad) is EagerTensor else None
    if type(xd) is not tuple or type(gd) is not tuple:
        xd, gd = None, None
    if xd is None:   # not both eager: work with TensorShapes (maybe partly unknown)
        xs, gs = x.shape, grad.shape
        if xs == gs and xs.is_fully_defined():
            return grad
        if not (xs.is_fully_defined() and gs.is_fully_defined()):
            x_shape = array_ops.shape(x)
            rx, _ = array_ops.broadcast_gradient_args(x_shape, array_ops.shape(grad))
            return array_ops.reshape(reduction_ops.reduce_sum(grad, rx), x_shape)
        xd, gd = tuple(xs.as_list()), tuple(gs.as_list())
    if xd == gd:
        return grad   # the common case (no broadcasting happened): nothing to do
    lead = len(gd) - len(xd)
    axes = list(range(lead))
    if 1 in xd:   # (only a dimension of size 1 can have been stretched)
        axes += [lead + i for i, d in enumerate(xd) if d == 1 and gd[lead + i] != 1]
    if axes:
        grad = reduction_ops.sum_over(grad, axes)
    if _raw_shape(grad) != xd and grad.shape != TensorShape(xd):
        grad = array_ops.reshape(grad, list(xd))
    return grad


def _raw_shape(t):
    """The shape tuple of an eager value or of a tape's shape record, else None.

    Eager shapes are always fully known, so comparing these plain tuples is all
    :func:`unbroadcast` needs, and costs a fraction of building ``TensorShape`` objects.
    """
    kind = type(t)
    shape = t._value.shape if kind is EagerTensor else t[0] if kind is TapeTensor else None
    return shape if type(shape) is tuple else None   # (values of other kinds, e.g. TensorLists: None)


# --------------------------------------------------------------------------------------
# Registration helpers
# --------------------------------------------------------------------------------------
def _np_dtypes(allowed):
    """The NumPy dtypes of a set of DTypes (string tensors have none)."""
    return frozenset(d._np for d in allowed if d._np is not None and d is not dtypes.string)


def _op_definition(allowed, n_inputs, op_def_dtypes=None):
    """TF's op definition of an elementwise op: ``x: T`` (and ``y: T``) with T in ``allowed``, or
    ``x: bool`` (and ``y: bool``) for the logical ops (see ``framework/op_def_library.py``).

    ``op_def_dtypes``: what TF's op definition allows where it is more than the kernels
    (``Reciprocal`` lists integers but has no CPU kernel for them): such a node builds,
    and fails when run, as in TF.
    """
    names = ["x", "y"][:n_inputs]
    if allowed == _BOOL:
        return {"inputs": ", ".join(f"{n}: bool" for n in names)}
    return {"inputs": ", ".join(f"{n}: T" for n in names), "type_attrs": {"T": op_def_dtypes or allowed}}


def _unary(op_name, make_kernel, grad, allowed, saves_inputs=True, saves_outputs=False, infer=None, quiet_fp=True,
           op_def_dtypes=None, **traits):
    """Register an elementwise unary op: one row with its kernel, shape function, gradient and traits.

    ``allowed``: the dtypes TF's op definition accepts (and the engine has kernels for;
    ``op_def_dtypes``: see :func:`_op_definition`). ``quiet_fp``: the kernel runs
    without NumPy's floating-point warnings (see :class:`quiet`). ``traits``: the
    row's other facts (``ufunc=``, ``linear=``...; see ``registry.OpDef``).
    """
    return register_op(op_name, kernel=make_kernel, quiet_fp=quiet_fp,
                       infer=infer or _shapes.same_as_input, grad=grad, saves_inputs=saves_inputs,
                       saves_outputs=saves_outputs, dtypes=allowed, elementwise=True,
                       **_op_definition(allowed, 1, op_def_dtypes), **traits)


def _binary(op_name, make_kernel, grad, allowed, out_dtype=None, saves_inputs=True, saves_outputs=False,
            quiet_fp=True, **traits):
    """Register a broadcasting binary op (see :func:`_unary`); ``out_dtype``: bool for comparisons."""
    return register_op(op_name, kernel=make_kernel, quiet_fp=quiet_fp,
                       infer=_shapes.broadcast_infer(out_dtype), grad=grad, saves_inputs=saves_inputs,
                       saves_outputs=saves_outputs, dtypes=allowed, elementwise=True,
                       **_op_definition(allowed, 2), **traits)


def _add_inputs(op_name, x, y):
    """``tf.add``/``x + y``'s conversion. As in TF, a Python value that cannot take ``x``'s dtype
    (``int_tensor + 1.5``) is converted on its own, and AddV2 then refuses the mix eagerly
    (InvalidArgumentError, not the TypeError other binary ops raise)."""
    try:
        return converted_by_wrapper(*binary_inputs(op_name, x, y))   # (TF's tf.add converts first, then runs AddV2)
    except TypeError:
        if ctx.graph is None and not isinstance(y, Tensor):
            x, y = to_tensor(x), to_tensor(y)
            raise _dispatch.dtype_error(op_name, 1, x.dtype, y.dtype) from None
        raise


def _check_int_divisor(xp, x, y):
    """Integer division by zero is an error, but only where a zero divisor is used: an empty
    result (``x`` or ``y`` empty) divides nothing, as in TF (graph gradients meet ``floormod([], 0)``)."""
    if y.dtype.kind in "iu" and x.size and y.size and not xp.all(y):
        raise InvalidArgumentError(None, None, "Integer division by zero")


def _no_kernel(op_name, tensor, kernels):
    """TF's error for a dtype its op definition allows but no CPU kernel implements."""
    raise NotFoundError(
        None, None, f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}[T=DT_"
                    f"{tensor.dtype.name.upper()}]\nAll kernels registered for op {op_name}: T in "
                    f"[{', '.join(sorted(d.name for d in kernels))}]; cast the input to a float dtype. "
                    f"[Op:{op_name}]")


# --------------------------------------------------------------------------------------
# Arithmetic
# --------------------------------------------------------------------------------------
def _add_grad(op, grad):
    x, y = op.inputs
    return unbroadcast(grad, x), unbroadcast(grad, y)


def _sub_grad(op, grad):
    x, y = op.inputs
    return unbroadcast(grad, x), unbroadcast(negative(grad), y)


def _mul_grad(op, grad):
    x, y = op.inputs
    return unbroadcast(multiply(grad, y), x), unbroadcast(multiply(x, grad), y)


def _realdiv_grad(op, grad):
    x, y = op.inputs
    return (unbroadcast(realdiv(grad, y), x),
            unbroadcast(multiply(grad, realdiv(realdiv(negative(x), y), y)), y))


def _div_no_nan_grad(op, grad):
    x, y = op.inputs
    return (unbroadcast(_div_no_nan_op(grad, y), x),
            unbroadcast(multiply(grad, _div_no_nan_op(_div_no_nan_op(negative(x), y), y)), y))


def _floormod_grad(op, grad):
    x, y = op.inputs
    return unbroadcast(grad, x), unbroadcast(multiply(grad, negative(floordiv(x, y))), y)


def _pow_grad(op, grad):
    """TF's rule: ``dx = g * y * x**(y-1)``; ``dy = g * z * log(x)`` with ``log(x)`` taken as 0 where x <= 0."""
    x, y = op.inputs
    z = op.outputs[0]
    gx = multiply(grad, multiply(y, pow(x, subtract(y, 1))))
    positive = greater(x, 0)
    safe_x = array_ops.where(positive, x, array_ops.ones_like(x))
    log_x = array_ops.where(positive, log(safe_x), array_ops.zeros_like(x))
    gy = multiply(grad, multiply(z, log_x))
    return unbroadcast(gx, x), unbroadcast(gy, y)


def _max_min_grad(select_x):
    def grad_fn(op, grad):
        x, y = op.inputs
        mask = select_x(x, y)
        zeros = array_ops.zeros_like(grad)
        return (unbroadcast(array_ops.where(mask, grad, zeros), x),
                unbroadcast(array_ops.where(mask, zeros, grad), y))
    return grad_fn


def _squared_difference_grad(op, grad):
    x, y = op.inputs
    d = multiply(multiply(grad, 2), subtract(x, y))
    return unbroadcast(d, x), unbroadcast(negative(d), y)


def _floordiv_kernel(xp):
    def k(x, y):
        _check_int_divisor(xp, x, y)
        return xp.floor_divide(x, y)
    return k


def _floormod_kernel(xp):
    def k(x, y):
        _check_int_divisor(xp, x, y)
        if x.dtype.kind == "f":
            # TF's rule: C's fmod (sign of x), moved into y's sign when they differ. The same values as
            # NumPy's remainder, but a zero result keeps x's sign: floormod(2., -1.) is 0., not -0.
            r = xp.fmod(x, y)
            return xp.where((r != 0) & ((y < 0) != (r < 0)), r + y, r)[()]
        return xp.remainder(x, y)
    return k


def _truncate_kernel(xp, mod):
    """C-style division and remainder (round toward zero), as ``TruncateDiv``/``TruncateMod``.

    ``fmod`` is C's remainder (sign of ``x``); the truncated quotient is then exact.
    """
    def k(x, y):
        _check_int_divisor(xp, x, y)
        r = xp.fmod(x, y)
        if mod:
            return r
        if x.dtype.kind == "f":
            return xp.trunc(x / y)
        return ((x - r) // y).astype(x.dtype)[()]
    return k


def _pow_kernel(xp):
    def k(x, y):
        if y.dtype.kind in "iu" and xp.any(y < 0):
            raise InvalidArgumentError(None, None, "Integers to negative integer powers are not allowed")
        return xp.power(x, y)
    return k


def _div_no_nan_kernel(xp):
    def k(x, y):
        return xp.where(y == 0, xp.zeros((), dtype=x.dtype), x / y)[()]
    return k


_FLOAT_NP = _np_dtypes(FLOAT)
_POW_TYPES = FLOAT | _SIGNED_INT
_SQDIFF_TYPES = FLOAT | frozenset([dtypes.int32, dtypes.int64])

# Strings too: ``+``/``tf.add`` on string tensors concatenate (np.add joins bytes). Deliberate difference: TF
# sends strings to its older op ``Add`` (its ``AddV2`` refuses them), so a string graph shows ``AddV2`` here.
_ADD = _binary("AddV2", lambda xp: xp.add, _add_grad, NUMERIC | _STRING, saves_inputs=False, ufunc="add",
               commutative=True, linear="linear")


def add(x, y, name=None):
    """``x + y`` with broadcasting (op ``AddV2``; strings concatenate, see the row above)."""
    return binary_op("AddV2", x, y, name, convert=_add_inputs)


_SUB = _binary("Sub", lambda xp: xp.subtract, _sub_grad, NUMERIC, saves_inputs=False, ufunc="subtract", linear="linear")


def subtract(x, y, name=None):
    """``x - y`` with broadcasting."""
    return binary_op("Sub", x, y, name)


_MUL = _binary("Mul", lambda xp: xp.multiply, _mul_grad, NUMERIC, ufunc="multiply", commutative=True,
               linear="multilinear")


def multiply(x, y, name=None):
    """``x * y`` with broadcasting. ``tf.multiply`` refuses bool (the ``*`` operator on bool tensors
    computes a logical AND, see :func:`_mul_operator`)."""
    return binary_op("Mul", x, y, name)


_REALDIV = _binary("RealDiv", lambda xp: xp.true_divide, _realdiv_grad, FLOAT, ufunc="true_divide")


def _realdiv(x, y, name=None):
    """``x / y`` for floating-point tensors."""
    return binary_op("RealDiv", x, y, name)


_FLOORDIV = _binary("FloorDiv", _floordiv_kernel, lambda op, g: (None, None), NUMERIC,
                              saves_inputs=False)


def floordiv(x, y, name=None):
    """``x // y``: floor division; no gradient."""
    return binary_op("FloorDiv", x, y, name)


_FLOORMOD = _binary("FloorMod", _floormod_kernel, _floormod_grad, NUMERIC)


def floormod(x, y, name=None):
    """``x % y`` with the sign of ``y`` (Python semantics)."""
    return binary_op("FloorMod", x, y, name)


mod = floormod
_TRUNCDIV = _binary("TruncateDiv", lambda xp: _truncate_kernel(xp, False), None, NUMERIC)


def truncatediv(x, y, name=None):
    """Division rounding toward zero (C semantics): ``-7 // 2 == -3``."""
    return binary_op("TruncateDiv", x, y, name)


_TRUNCMOD = _binary("TruncateMod", lambda xp: _truncate_kernel(xp, True), None,
                                 NUMERIC - frozenset([dtypes.float16]))


def truncatemod(x, y, name=None):
    """Remainder with the sign of ``x`` (C's ``fmod``)."""
    return binary_op("TruncateMod", x, y, name)


_POW = _binary("Pow", _pow_kernel, _pow_grad, _POW_TYPES, saves_outputs=True)


def pow(x, y, name=None):
    """``x ** y`` elementwise. Integer powers refuse negative exponents (``InvalidArgumentError``, when run).

    A deliberate difference from TF 2.21: inside a ``tf.function`` (and in some ``Session`` graphs)
    Grappler rewrites ``Pow(x, -1)`` with a constant ``-1`` as ``Reciprocal(x)``, which has no integer
    CPU kernel, so ``tf.pow(int_tensor, -1)`` there fails with ``NotFoundError`` ("No registered
    'Reciprocal' OpKernel"). The engine's optimizer makes no such rewrite: the Pow kernel's
    ``InvalidArgumentError`` is raised in graphs as it is eagerly (and as TF does for ``-2``).
    """
    return binary_op("Pow", x, y, name)


_MAXIMUM = _binary("Maximum", lambda xp: xp.maximum, _max_min_grad(lambda x, y: greater_equal(x, y)),
                            NUMERIC, quiet_fp=False, ufunc="maximum", commutative=True)


def maximum(x, y, name=None):
    """Elementwise max (NaN wins); on ties the gradient goes to ``x``."""
    return binary_op("Maximum", x, y, name)


_MINIMUM = _binary("Minimum", lambda xp: xp.minimum, _max_min_grad(lambda x, y: less_equal(x, y)),
                            NUMERIC, quiet_fp=False, ufunc="minimum", commutative=True)


def minimum(x, y, name=None):
    """Elementwise min (NaN wins); on ties the gradient goes to ``x``."""
    return binary_op("Minimum", x, y, name)


_SQDIFF = _binary("SquaredDifference", lambda xp: (lambda x, y: xp.square(x - y)),
                                      _squared_difference_grad, _SQDIFF_TYPES, ufunc=("subtract", "square"),
                                                                                      commutative=True)


def squared_difference(x, y, name=None):
    """``(x - y) ** 2``."""
    return binary_op("SquaredDifference", x, y, name)


_DIV_NO_NAN = _binary("DivNoNan", _div_no_nan_kernel, _div_no_nan_grad, FLOAT)


def _div_no_nan_op(x, y, name=None):
    """``x / y``, but 0 wherever ``y == 0`` (even if x is NaN)."""
    return binary_op("DivNoNan", x, y, name)


# TF's table for ``/``: integers become floats first; bool has no division at all.
_TRUEDIV_TARGET = {dtypes.uint8: dtypes.float32, dtypes.int8: dtypes.float32, dtypes.uint16: dtypes.float32,
                   dtypes.int16: dtypes.float32, dtypes.uint32: dtypes.float64, dtypes.int32: dtypes.float64,
                   dtypes.uint64: dtypes.float64, dtypes.int64: dtypes.float64,
                   dtypes.float16: None, dtypes.float32: None, dtypes.float64: None}


def _convert_pair(x, y):
    """``binary_inputs`` without the dtype check."""
    return _dispatch.convert_pair(x, y)


def _division_inputs(x, y, where):
    """Convert and check the operands of ``/`` and ``divide_no_nan``, cast integers to float.

    As in TF, mismatched dtypes and bool are ``TypeError`` (raised in Python, before any op).
    """
    x, y = converted_by_wrapper(*_convert_pair(x, y))   # (as TF's ``/``, before its op)
    if x.dtype != y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    if x.dtype not in _TRUEDIV_TARGET:
        raise TypeError(f"Invalid dtype {x.dtype!r} in {where}. Expected one of "
                        f"{{{', '.join(repr(d) for d in _TRUEDIV_TARGET)}}}.")
    target = _TRUEDIV_TARGET[x.dtype]
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return x, y


def truediv(x, y, name=None):
    """``x / y``. Integers are first cast to float (int8/16, uint8/16 -> float32; 32/64-bit -> float64).

    Python values adopt the tensor's dtype (``2 / x``); two tensors of different
    dtypes raise ``TypeError``, as in TF.
    """
    if type(x) is EagerTensor and type(y) is EagerTensor and x._value.dtype == y._value.dtype \
            and x._value.dtype in _FLOAT_NP:
        return _realdiv(x, y, name=name)   # the common case: already floats of one dtype
    x, y = _division_inputs(x, y, "__truediv__")
    return execute(_REALDIV, (x, y), name=name)


def divide(x, y, name=None):
    """``tf.divide`` / ``tf.math.divide``: same as ``x / y``."""
    return truediv(x, y, name=name)


def realdiv(x, y, name=None):
    """``RealDiv``: ``x / y`` for floats only (no integer-to-float conversion)."""
    if type(x) is EagerTensor and type(y) is EagerTensor and x._value.dtype in _FLOAT_NP:
        return _realdiv(x, y, name=name)
    x, y = binary_inputs("RealDiv", x, y)
    if x.dtype.is_integer:
        _no_kernel("RealDiv", x, FLOAT)
    return _realdiv(x, y, name=name)


def divide_no_nan(x, y, name=None):
    """``x / y``, but 0 wherever ``y == 0``. Integers are first cast to float, as for ``/``."""
    x, y = _division_inputs(x, y, "tf.math.divide_no_nan")
    return execute(_DIV_NO_NAN, (x, y), name=name)


def scalar_mul(scalar, x, name=None):
    """Multiply ``x`` by a 0-D ``scalar`` (converted to ``x``'s dtype)."""
    x = to_tensor(x)
    scalar = convert_to_tensor(scalar, dtype=x.dtype)
    if scalar.shape.rank != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {scalar.shape}.")
    return multiply(scalar, x, name=name)


_NP_BOOL = np.dtype(bool)


def _mul_operator(x, y, name=None):
    """The ``*`` operator. Like TF's, it also accepts bool tensors: both sides are cast to
    int32, multiplied and cast back to bool, i.e. a logical AND. (``tf.multiply`` refuses
    bool, as TF's ``Mul`` op does.) ``overloads.py`` can use this for ``__mul__``.
    """
    if type(x) is EagerTensor and type(y) is EagerTensor and x._value.dtype != _NP_BOOL \
            and y._value.dtype != _NP_BOOL:
        return multiply(x, y, name=name)
    # ``bool_tensor * 2``: the number is converted on its own (an int32), as TF's operator does, then
    # both sides are cast (only ``&``, ``|`` and the logical ops refuse a number beside a bool)
    if isinstance(x, Tensor) and x.dtype.is_bool and type(y) is int:
        y = to_tensor(y)
    elif isinstance(y, Tensor) and y.dtype.is_bool and type(x) is int:
        x = to_tensor(x)
    x, y = _convert_pair(x, y)
    if x.dtype.is_bool or y.dtype.is_bool:
        return cast(multiply(cast(x, dtypes.int32), cast(y, dtypes.int32)), dtypes.bool, name=name)
    return multiply(x, y, name=name)


# --------------------------------------------------------------------------------------
# Unary functions
# --------------------------------------------------------------------------------------
def _zeros_grad(op, grad):
    return array_ops.zeros_like(grad)


_NEG = _unary("Neg", lambda xp: xp.negative, lambda op, g: negative(g), _SIGNED, saves_inputs=False,
              ufunc="negative", linear="linear")


def negative(x, name=None):
    """``-x``."""
    return unary_op("Neg", x, name)


neg = negative
_ABS = _unary("Abs", lambda xp: xp.abs, lambda op, g: multiply(g, sign(op.inputs[0])), _SIGNED, ufunc="absolute")


def abs(x, name=None):
    """``|x|``; the gradient is ``sign(x)`` (0 at 0)."""
    if isinstance(x, (list, tuple, str, bytes)):
        x = converted_by_wrapper(to_tensor(x))   # (TF's tf.abs converts first)
    return unary_op("Abs", x, name)


_SIGN = _unary("Sign", lambda xp: xp.sign, _zeros_grad,
                     _SIGNED, saves_inputs=False, ufunc="sign")


def sign(x, name=None):
    """-1, 0 or 1 (NaN for NaN); the gradient is zero everywhere."""
    return unary_op("Sign", x, name)


_EXP = _unary("Exp", lambda xp: xp.exp, lambda op, g: multiply(g, op.outputs[0]), FLOAT,
                   saves_inputs=False, saves_outputs=True, ufunc="exp")


def exp(x, name=None):
    """``e**x``; the gradient reuses the output."""
    return unary_op("Exp", x, name)


_LOG = _unary("Log", lambda xp: xp.log, lambda op, g: multiply(g, reciprocal(op.inputs[0])),
                   FLOAT, ufunc="log")


def log(x, name=None):
    """Natural logarithm (``-inf`` at 0, NaN below)."""
    return unary_op("Log", x, name)


_LOG1P = _unary("Log1p", lambda xp: xp.log1p,
                       lambda op, g: multiply(g, reciprocal(add(op.inputs[0], 1))), FLOAT, ufunc="log1p")


def log1p(x, name=None):
    """``log(1 + x)``, accurate for small ``x``."""
    return unary_op("Log1p", x, name)


def _zero_where_no_grad(g, grad):
    """``grad``, but 0 wherever the incoming gradient ``g`` is 0, as TF's fused gradient kernels
    (``SqrtGrad``, ``RsqrtGrad``, ``ReciprocalGrad``) do, even where the local derivative is infinite.
    So ``tf.where(x > 0, tf.sqrt(x), 0.)`` has gradient 0 at ``x = 0``, not ``0 * inf = NaN``.
    (``Log``'s gradient has no such rule in TF either: there it stays NaN.)"""
    return array_ops.where(equal(g, array_ops.zeros_like(g)), array_ops.zeros_like(grad), grad)


_SQRT = _unary("Sqrt", lambda xp: xp.sqrt,
                     lambda op, g: _zero_where_no_grad(g, realdiv(multiply(g, 0.5), op.outputs[0])), FLOAT,
                     saves_inputs=False, saves_outputs=True, ufunc="sqrt")


def sqrt(x, name=None):
    """Square root; gradient ``0.5 / y`` (0 where the incoming gradient is 0)."""
    return unary_op("Sqrt", x, name)


_RSQRT = _unary("Rsqrt", lambda xp: (lambda x: xp.reciprocal(xp.sqrt(x))),
                       lambda op, g: _zero_where_no_grad(g, multiply(g, multiply(-0.5, pow(op.outputs[0], 3)))),
                       FLOAT, saves_inputs=False, saves_outputs=True, ufunc=("sqrt", "reciprocal"))


def rsqrt(x, name=None):
    """``1 / sqrt(x)``; gradient ``-y**3 / 2`` (0 where the incoming gradient is 0)."""
    return unary_op("Rsqrt", x, name)


_SQUARE = _unary("Square", lambda xp: xp.square,
                         lambda op, g: multiply(g, multiply(op.inputs[0], 2)), NUMERIC, ufunc="square")


def square(x, name=None):
    """``x * x``."""
    return unary_op("Square", x, name)


_SIN = _unary("Sin", lambda xp: xp.sin, lambda op, g: multiply(g, cos(op.inputs[0])), FLOAT, ufunc="sin")


def sin(x, name=None):
    """Sine."""
    return unary_op("Sin", x, name)


_COS = _unary("Cos", lambda xp: xp.cos,
                   lambda op, g: multiply(g, negative(sin(op.inputs[0]))), FLOAT, ufunc="cos")


def cos(x, name=None):
    """Cosine."""
    return unary_op("Cos", x, name)


_TANH = _unary("Tanh", lambda xp: xp.tanh,
                     lambda op, g: multiply(g, subtract(1, square(op.outputs[0]))), FLOAT,
                     saves_inputs=False, saves_outputs=True, ufunc="tanh")


def tanh(x, name=None):
    """Hyperbolic tangent; gradient ``1 - y**2``."""
    return unary_op("Tanh", x, name)



def _sigmoid_kernel(xp):
    def k(x):
        with quiet():
            # numerically stable in both tails
            e = xp.exp(-xp.abs(x))
            return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)[()]
    return k


def _round_kernel(xp):
    def k(x):
        return xp.rint(x) if x.dtype.kind == "f" else x   # integers are already round: same dtype
    return k


_SIGMOID = _unary("Sigmoid", _sigmoid_kernel,
                           lambda op, g: multiply(g, multiply(op.outputs[0], subtract(1, op.outputs[0]))),
                           FLOAT, saves_inputs=False, saves_outputs=True, quiet_fp=False)


def sigmoid(x, name=None):
    """``1 / (1 + exp(-x))``; gradient ``y * (1 - y)``."""
    return unary_op("Sigmoid", x, name)


_RECIPROCAL = _unary("Reciprocal", lambda xp: xp.reciprocal,
                                  lambda op, g: _zero_where_no_grad(g, multiply(g, negative(square(op.outputs[0])))),
                                  FLOAT, saves_inputs=False, saves_outputs=True, ufunc="reciprocal",
                                  op_def_dtypes=FLOAT | _SIGNED_INT)


def _reciprocal(x, name=None):
    """``1 / x``; gradient ``-y**2`` (0 where the incoming gradient is 0)."""
    return unary_op("Reciprocal", x, name)


_ROUND = _unary("Round", _round_kernel, lambda op, g: None, NUMERIC, saves_inputs=False,  # noqa: A001
                       quiet_fp=False)


def round(x, name=None):
    """Round half to even (banker's rounding), as TF does. Integers are unchanged. No gradient."""
    return unary_op("Round", x, name)


_RINT_KERNELS = frozenset([dtypes.float32, dtypes.float64])   # TF's CPU kernels (its op definition adds half)
_RINT = _unary("Rint", lambda xp: xp.rint, lambda op, g: None, _RINT_KERNELS, saves_inputs=False, quiet_fp=False,
               doc="Round half to even; floats only.")


def rint(x, name=None):
    """``tf.math.rint``: the nearest integer, halves to even (``rint(2.5) == 2``, ``rint(-0.5) == -0.``).

    Op ``Rint``; no gradient (``None``, as TF's registered rule). TF's op definition allows
    float16 but its CPU has no kernel for it: ``NotFoundError``; integers and bool:
    ``InvalidArgumentError``, as in TF.
    """
    if type(x) is not EagerTensor:
        x = to_tensor(x)
    if x.dtype is dtypes.float16:
        raise NotFoundError(
            None, None, "Could not find device for node: {{node Rint}} = Rint[T=DT_HALF]\nAll kernels registered "
                        "for op Rint:\n  device='CPU'; T in [DT_DOUBLE]\n  device='CPU'; T in [DT_FLOAT]\n [Op:Rint]")
    return unary_op("Rint", x, name)


_FLOOR = _unary("Floor", lambda xp: xp.floor, lambda op, g: None, FLOAT, saves_inputs=False, quiet_fp=False,
                ufunc="floor")


def floor(x, name=None):
    """Largest integer not greater than x. No gradient."""
    return unary_op("Floor", x, name)


_CEIL = _unary("Ceil", lambda xp: xp.ceil, lambda op, g: None, FLOAT, saves_inputs=False, quiet_fp=False, ufunc="ceil")


def ceil(x, name=None):
    """Smallest integer not less than x. No gradient."""
    return unary_op("Ceil", x, name)



def _special_kernel(name):
    """``erf``/``erfc``: NumPy has no ufunc for them (and SciPy is not a dependency), so apply
    Python's exact ``math.erf`` elementwise (about 0.1 us per element); CuPy has real kernels."""
    def make(xp):
        if xp is np:
            scalar = np.frompyfunc(getattr(math, name), 1, 1)
            return lambda x: np.asarray(scalar(x), dtype=x.dtype)[()]
        import cupyx.scipy.special  # noqa: WPS433  (CuPy backend only)
        return getattr(cupyx.scipy.special, name)
    return make


def _erf_grad_factor(x):
    """``d erf(x) / dx = 2 / sqrt(pi) * exp(-x**2)``."""
    return multiply(1.1283791670955126, exp(negative(square(x))))


_ERF = _unary("Erf", _special_kernel("erf"), lambda op, g: multiply(g, _erf_grad_factor(op.inputs[0])),
                   FLOAT)


def erf(x, name=None):
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t**2) dt``."""
    return unary_op("Erf", x, name)


_ERFC = _unary("Erfc", _special_kernel("erfc"),
                     lambda op, g: negative(multiply(g, _erf_grad_factor(op.inputs[0]))), FLOAT)


def erfc(x, name=None):
    """``1 - erf(x)``, accurate where erf(x) is close to 1."""
    return unary_op("Erfc", x, name)



def _bool_infer(ic):
    return [(dtypes.bool, ic.shape(0))]


_ISNAN = _unary("IsNan", lambda xp: xp.isnan, None, FLOAT, infer=_bool_infer, quiet_fp=False)


def is_nan(x, name=None):
    """True where x is NaN."""
    return unary_op("IsNan", x, name)


_ISINF = _unary("IsInf", lambda xp: xp.isinf, None, FLOAT, infer=_bool_infer, quiet_fp=False)


def is_inf(x, name=None):
    """True where x is +-inf."""
    return unary_op("IsInf", x, name)


_ISFINITE = _unary("IsFinite", lambda xp: xp.isfinite, None, FLOAT, infer=_bool_infer, quiet_fp=False)


def is_finite(x, name=None):
    """True where x is neither inf nor NaN."""
    return unary_op("IsFinite", x, name)



def reciprocal(x, name=None):
    """``1 / x`` for floats.

    TF's op definition lists the signed integers but its CPU has no kernel for them: eagerly that is
    a ``NotFoundError``; a graph node of int32 builds, and running it is TF's ``InvalidArgumentError``
    ("No OpKernel was registered to support Op 'Reciprocal'"), checked when the plan is made.
    """
    if type(x) is not EagerTensor:
        x = to_tensor(x)
    if x.dtype in _SIGNED_INT and ctx.graph is None:
        _no_kernel("Reciprocal", x, FLOAT)
    return _reciprocal(x, name=name)


def reciprocal_no_nan(x, name=None):
    """``tf.math.reciprocal_no_nan``: ``1 / x``, but 0 where ``x == 0``.

    Composed as TF composes it: ``DivNoNan(1, x)`` (a constant one of x's dtype), so its
    gradient is DivNoNan's: ``-1 / x**2``, and 0 at ``x == 0``. Floats only (DivNoNan's
    dtypes: ``InvalidArgumentError`` for integers; bool cannot hold the 1: ``TypeError``).
    """
    x = to_tensor(x)
    one = convert_to_tensor(1, dtype=x.dtype)
    return binary_op("DivNoNan", one, x, name)


def log_sigmoid(x, name=None):
    """``tf.math.log_sigmoid``: ``log(1 / (1 + exp(-x)))``, composed as TF does: ``-softplus(-x)``.

    Stable in both tails (``log_sigmoid(-100.) == -100.``); the gradient is
    ``sigmoid(-x)``, from Neg and Softplus. Dtype errors are those of its ops: ``Neg``
    refuses unsigned integers and bool, ``Softplus`` the signed integers.
    """
    x = to_tensor(x)
    neg_x = negative(x)
    check_dtype("Softplus", neg_x, FLOAT, "features")
    return negative(execute(_dispatch._ROWS["Softplus"], (neg_x,)), name=name)


# --------------------------------------------------------------------------------------
# Comparisons and logic: boolean results, no gradient
# --------------------------------------------------------------------------------------
def _comparison(op_name, ufunc, allowed, **traits):
    return _binary(op_name, lambda xp: getattr(xp, ufunc), None, allowed, out_dtype=dtypes.bool, quiet_fp=False,
                   ufunc=ufunc, **traits)


_EQUAL = _comparison("Equal", "equal", NUMERIC | _BOOL | _STRING, commutative=True)


def equal(x, y, name=None):
    """``x == y`` elementwise, with broadcasting."""
    return binary_op("Equal", x, y, name)


_NOT_EQUAL = _comparison("NotEqual", "not_equal", NUMERIC | _BOOL | _STRING, commutative=True)


def not_equal(x, y, name=None):
    """``x != y`` elementwise, with broadcasting."""
    return binary_op("NotEqual", x, y, name)


_LESS = _comparison("Less", "less", NUMERIC)


def less(x, y, name=None):
    """``x < y`` elementwise."""
    return binary_op("Less", x, y, name)


_LESS_EQUAL = _comparison("LessEqual", "less_equal", NUMERIC)


def less_equal(x, y, name=None):
    """``x <= y`` elementwise."""
    return binary_op("LessEqual", x, y, name)


_GREATER = _comparison("Greater", "greater", NUMERIC)


def greater(x, y, name=None):
    """``x > y`` elementwise."""
    return binary_op("Greater", x, y, name)


_GREATER_EQUAL = _comparison("GreaterEqual", "greater_equal", NUMERIC)


def greater_equal(x, y, name=None):
    """``x >= y`` elementwise."""
    return binary_op("GreaterEqual", x, y, name)



def _bool_only(op_name, make_kernel, unary, **traits):
    """Logical ops take only bool (TF's op definition has no dtype attr: its inputs are typed bool)."""
    register = _unary if unary else _binary
    return register(op_name, make_kernel, None, _BOOL, quiet_fp=False, **traits)


_LOGICAL_AND = _bool_only("LogicalAnd", lambda xp: xp.logical_and, False, ufunc="logical_and", commutative=True)


def logical_and(x, y, name=None):
    """Boolean AND."""
    return binary_op("LogicalAnd", x, y, name)


_LOGICAL_OR = _bool_only("LogicalOr", lambda xp: xp.logical_or, False, ufunc="logical_or", commutative=True)


def logical_or(x, y, name=None):
    """Boolean OR."""
    return binary_op("LogicalOr", x, y, name)


_LOGICAL_NOT = _bool_only("LogicalNot", lambda xp: xp.logical_not, True, ufunc="logical_not")


def logical_not(x, name=None):
    """Boolean NOT."""
    return unary_op("LogicalNot", x, name)


_BITWISE_AND = _binary("BitwiseAnd", lambda xp: xp.bitwise_and, None, INTEGER, quiet_fp=False, ufunc="bitwise_and",
                       commutative=True)


def bitwise_and(x, y, name=None):
    """Bitwise AND."""
    return binary_op("BitwiseAnd", x, y, name)


_BITWISE_OR = _binary("BitwiseOr", lambda xp: xp.bitwise_or, None, INTEGER, quiet_fp=False, ufunc="bitwise_or",
                      commutative=True)


def bitwise_or(x, y, name=None):
    """Bitwise OR."""
    return binary_op("BitwiseOr", x, y, name)


_BITWISE_XOR = _binary("BitwiseXor", lambda xp: xp.bitwise_xor, None, INTEGER, quiet_fp=False, ufunc="bitwise_xor",
                       commutative=True)


def bitwise_xor(x, y, name=None):
    """Bitwise XOR."""
    return binary_op("BitwiseXor", x, y, name)


_INVERT = _unary("Invert", lambda xp: xp.invert, None, INTEGER, quiet_fp=False, ufunc="invert")


def invert(x, name=None):
    """Bitwise NOT."""
    return unary_op("Invert", x, name)



def logical_xor(x, y, name="LogicalXor"):
    """``(x | y) & ~(x & y)``, composed from the other logical ops as TF does."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)))


# --------------------------------------------------------------------------------------
# Cast, AddN, clip
# --------------------------------------------------------------------------------------
def _cast_kernel(xp):
    def k(x, DstT, SrcT=None, Truncate=False):  # noqa: N803 (TF attr names)
        with quiet():   # out-of-range float -> int is implementation-defined, as in C++
            return x.astype(DstT._np)
    return k


def _cast_grad(op, grad):
    src = op.inputs[0].dtype
    dst = op.outputs[0].dtype
    if src.is_floating and dst.is_floating:
        return cast(grad, src)
    return None


_CAST = register_op("Cast", kernel=_cast_kernel, infer=lambda ic: [(ic.attrs["DstT"], ic.shape(0))],
                    grad=_cast_grad, saves_inputs=False, saves_outputs=False, elementwise=True,
                    doc="Change dtype. Float to int truncates toward zero.")


def cast(x, dtype, name=None):
    """``tf.cast``: convert to ``dtype``; returns ``x`` itself if the dtype already matches.

    Float to integer truncates toward zero (``-1.7 -> -1``); any nonzero value,
    NaN included, becomes ``True``. Out-of-range float-to-int conversions are
    implementation-defined in TF (C++); the engine gives NumPy's results, which
    agree with TF on x86 except ``+inf`` to unsigned (0 here).
    """
    dtype = dtypes.as_dtype(dtype)
    x = to_tensor(x)
    if x.dtype == dtype:
        return x
    return execute(_CAST, (x,), {"DstT": dtype, "SrcT": x.dtype, "Truncate": False}, name=name)


def _add_n_kernel(xp):
    def k(*xs):
        out = xs[0]
        for x in xs[1:]:
            out = out + x
        return out
    return k


def _add_n_infer(ic):
    shape = ic.shape(0)
    for i in range(1, len(ic.inputs)):
        if not shape.is_compatible_with(ic.shape(i)):
            raise ValueError(f"Inputs to operation AddN must have the same size and shape. Input 0: "
                             f"{_shapes.fmt(ic.shape(0))} != input {i}: {_shapes.fmt(ic.shape(i))}")
        shape = shape.merge_with(ic.shape(i))
    return [(ic.dtype(0), shape)]


def _add_n_grad(op, grad):
    return [grad] * len(op.inputs)


_ADD_N = register_op("AddN", kernel=_add_n_kernel, infer=_add_n_infer, grad=_add_n_grad, saves_inputs=False,
                     saves_outputs=False, linear="linear", inputs="inputs: N * T", quiet_fp=True,
                     type_attrs={"T": NUMERIC | frozenset([dtypes.variant])},
                     doc="Sum of a list of same-shaped tensors (no broadcasting).")


def add_n(inputs, name=None):
    """Add a list of tensors of the same shape and dtype (no broadcasting)."""
    if not inputs:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype "
                         "and shape.")
    tensors = [to_tensor(t) for t in inputs]
    check_same_dtype = _dispatch.check_same_dtype
    check_same_dtype("AddN", *tensors)
    if tensors[0].dtype is not dtypes.variant:  # variants: TensorList gradients (tensor_array_ops) add up too
        check_dtype("AddN", tensors[0], NUMERIC, "inputs")
    if len(tensors) == 1:
        return tensors[0]
    if ctx.graph is None:
        first = tensors[0].shape
        for i, t in enumerate(tensors[1:], start=1):
            if t.shape != first:
                raise InvalidArgumentError(
                    None, None, f"Inputs to operation AddN of type AddN must have the same size and shape.  "
                                f"Input 0: {_shapes.fmt(first)} != input {i}: {_shapes.fmt(t.shape)} [Op:AddN]")
    return execute(_ADD_N, tuple(tensors), name=name)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clamp to ``[min, max]``: ``maximum(minimum(t, max), min)``, composed as TF composes it.

    The gradient passes through where ``min <= t <= max`` (boundaries included).
    Bounds may broadcast against ``t`` but must not make the result larger than
    ``t`` (``ValueError``, as in TF).
    """
    values = to_tensor(t)
    t_min = minimum(values, clip_value_max)
    values.shape.assert_is_compatible_with(t_min.shape)
    t_max = maximum(t_min, clip_value_min)
    values.shape.assert_is_compatible_with(t_max.shape)
    return t_max


# Imported last: these modules import this one (used only inside functions, at call time).
from . import _dispatch, array_ops, reduction_ops  # noqa: E402,F401
