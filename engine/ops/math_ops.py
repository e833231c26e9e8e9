"""Elementwise math: arithmetic, unary functions, comparisons, logic, cast.

Each op is one ``register_op`` call: kernel factory, shape function, gradient.
Gradients are written with the public functions of this package, so they are
ordinary recorded ops and can be differentiated again.

Broadcasting gradients: if ``x`` of shape (3, 1) was broadcast against (3, 4),
the gradient arriving for the result has shape (3, 4) and must be summed back
to (3, 1). :func:`unbroadcast` does that for every broadcasting op.
"""
import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor import Tensor
from . import _shapes
from ._dispatch import FLOAT, INTEGER, NUMERIC, binary_inputs, check_dtype, execute, to_tensor

__all__ = [
    "add", "subtract", "multiply", "divide", "truediv", "realdiv", "floordiv", "floormod", "mod", "pow",
    "negative", "abs", "sign", "exp", "log", "log1p", "sqrt", "rsqrt", "square", "sin", "cos", "tanh",
    "sigmoid", "reciprocal", "maximum", "minimum", "squared_difference", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_not", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "cast", "clip_by_value", "round", "floor", "ceil",
    "add_n", "divide_no_nan", "is_nan", "is_finite", "is_inf", "scalar_mul",
]

_BOOL = frozenset([dtypes.bool])
_SIGNED = NUMERIC - frozenset([dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64])


# --------------------------------------------------------------------------------------
# Gradient helper: undo broadcasting
# --------------------------------------------------------------------------------------
def unbroadcast(grad, x):
    """Sum ``grad`` over the dimensions along which ``x`` was broadcast, giving ``x``'s shape.

    ``x`` may be a tensor or a shape-only record from the tape. Static shapes are
    handled without any extra op; unknown shapes (graph mode) use
    ``BroadcastGradientArgs`` to find the axes at run time.
    """
    from . import array_ops, reduction_ops
    xs, gs = x.shape, grad.shape
    if xs == gs and xs.is_fully_defined():
        return grad
    if xs.is_fully_defined() and gs.is_fully_defined():
        xd, gd = xs.as_list(), gs.as_list()
        lead = len(gd) - len(xd)
        axes = list(range(lead)) + [lead + i for i, d in enumerate(xd) if d == 1 and gd[lead + i] != 1]
        if axes:
            grad = reduction_ops.reduce_sum(grad, axes)
        if grad.shape != xs:
            grad = array_ops.reshape(grad, xd)
        return grad
    x_shape = array_ops.shape(x)
    rx, _ = array_ops.broadcast_gradient_args(x_shape, array_ops.shape(grad))
    return array_ops.reshape(reduction_ops.reduce_sum(grad, rx), x_shape)


# --------------------------------------------------------------------------------------
# Registration helpers
# --------------------------------------------------------------------------------------
def _unary(op_name, make_kernel, grad, allowed, saves_inputs=True, saves_outputs=False, doc=""):
    op = register_op(op_name, kernel=make_kernel, infer=_shapes.same_as_input, grad=grad,
                     saves_inputs=saves_inputs, saves_outputs=saves_outputs, doc=doc)

    def public(x, name=None):
        x = to_tensor(x)
        check_dtype(op_name, x, allowed)
        return execute(op, (x,), name=name)
    public.__name__ = op_name.lower()
    public.__doc__ = doc or f"Elementwise ``{op_name}``."
    return op, public


def _binary(op_name, make_kernel, grad, allowed, out_dtype=None, saves_inputs=True, saves_outputs=False,
            doc=""):
    op = register_op(op_name, kernel=make_kernel, infer=_shapes.broadcast_infer(out_dtype), grad=grad,
                     saves_inputs=saves_inputs, saves_outputs=saves_outputs, doc=doc)

    def public(x, y, name=None):
        x, y = binary_inputs(op_name, x, y)
        check_dtype(op_name, x, allowed)
        return execute(op, (x, y), name=name)
    public.__name__ = op_name.lower()
    public.__doc__ = doc or f"Elementwise ``{op_name}`` with broadcasting."
    return op, public


def _errstate(fn):
    """Silence NumPy's floating-point warnings inside a kernel: TF returns inf/nan quietly."""
    def kernel(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    return kernel


def _check_int_divisor(xp, y):
    if y.dtype.kind in "iu" and not xp.all(y):
        raise InvalidArgumentError(None, None, "Integer division by zero")


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


def _floormod_grad(op, grad):
    x, y = op.inputs
    return unbroadcast(grad, x), unbroadcast(multiply(grad, negative(floordiv(x, y))), y)


def _pow_grad(op, grad):
    x, y = op.inputs
    z = op.outputs[0]
    from . import array_ops
    gx = multiply(grad, multiply(y, pow(x, subtract(y, 1))))
    # d/dy x**y = z * log(x); define it as 0 where x <= 0 to avoid a false NaN.
    positive = greater(x, 0)
    safe_x = array_ops.where(positive, x, array_ops.ones_like(x))
    log_x = array_ops.where(positive, log(safe_x), array_ops.zeros_like(x))
    gy = multiply(grad, multiply(z, log_x))
    return unbroadcast(gx, x), unbroadcast(gy, y)


def _max_min_grad(select_x):
    def grad_fn(op, grad):
        from . import array_ops
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
        _check_int_divisor(xp, y)
        with np.errstate(all="ignore"):
            return xp.floor_divide(x, y)
    return k


def _floormod_kernel(xp):
    def k(x, y):
        _check_int_divisor(xp, y)
        with np.errstate(all="ignore"):
            return xp.remainder(x, y)
    return k


def _pow_kernel(xp):
    def k(x, y):
        if y.dtype.kind in "iu" and xp.any(y < 0):
            raise InvalidArgumentError(None, None, "Integers to negative integer powers are not allowed")
        with np.errstate(all="ignore"):
            return xp.power(x, y)
    return k


_ADD, add = _binary("AddV2", lambda xp: xp.add, _add_grad, NUMERIC, saves_inputs=False,
                    doc="``x + y`` with broadcasting.")
_SUB, subtract = _binary("Sub", lambda xp: xp.subtract, _sub_grad, NUMERIC, saves_inputs=False,
                         doc="``x - y`` with broadcasting.")
_MUL, multiply = _binary("Mul", lambda xp: xp.multiply, _mul_grad, NUMERIC | _BOOL,
                         doc="``x * y`` with broadcasting.")
_REALDIV, realdiv = _binary("RealDiv", lambda xp: _errstate(xp.true_divide), _realdiv_grad, FLOAT,
                            doc="``x / y`` for floating-point tensors.")
_FLOORDIV, floordiv = _binary("FloorDiv", _floordiv_kernel, lambda op, g: (None, None), NUMERIC,
                              saves_inputs=False, doc="``x // y``: floor division; no gradient.")
_FLOORMOD, floormod = _binary("FloorMod", _floormod_kernel, _floormod_grad, NUMERIC,
                              doc="``x % y`` with the sign of ``y`` (Python semantics).")
mod = floormod
_POW, pow = _binary("Pow", _pow_kernel, _pow_grad, NUMERIC, saves_outputs=True,  # noqa: A001
                    doc="``x ** y`` elementwise.")
_MAXIMUM, maximum = _binary("Maximum", lambda xp: xp.maximum, _max_min_grad(lambda x, y: greater_equal(x, y)),
                            NUMERIC, doc="Elementwise max; on ties the gradient goes to ``x``.")
_MINIMUM, minimum = _binary("Minimum", lambda xp: xp.minimum, _max_min_grad(lambda x, y: less_equal(x, y)),
                            NUMERIC, doc="Elementwise min; on ties the gradient goes to ``x``.")
_SQDIFF, squared_difference = _binary("SquaredDifference", lambda xp: (lambda x, y: xp.square(x - y)),
                                      _squared_difference_grad, NUMERIC, doc="``(x - y) ** 2``.")

_TRUEDIV_TARGET = {dtypes.int8: dtypes.float32, dtypes.int16: dtypes.float32, dtypes.uint8: dtypes.float32,
                   dtypes.uint16: dtypes.float32, dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64,
                   dtypes.uint32: dtypes.float64, dtypes.uint64: dtypes.float64}


def truediv(x, y, name=None):
    """``x / y``. Integer inputs are first cast to float (int32/int64 -> float64, smaller -> float32), as TF does."""
    x, y = binary_inputs("RealDiv", x, y)
    target = _TRUEDIV_TARGET.get(x.dtype)
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    check_dtype("RealDiv", x, FLOAT)
    return execute(_REALDIV, (x, y), name=name)


def divide(x, y, name=None):
    """``tf.divide`` / ``tf.math.divide``: same as ``x / y``."""
    return truediv(x, y, name=name)


def divide_no_nan(x, y, name=None):
    """``x / y``, but 0 wherever ``y == 0``."""
    from . import array_ops
    x, y = binary_inputs("DivNoNan", x, y)
    zero = equal(y, 0)
    safe_y = array_ops.where(zero, array_ops.ones_like(y), y)
    result = truediv(x, safe_y)
    return array_ops.where(zero, array_ops.zeros_like(result), result)


def scalar_mul(scalar, x, name=None):
    return multiply(scalar, x)


# --------------------------------------------------------------------------------------
# Unary functions
# --------------------------------------------------------------------------------------
def _zeros_grad(op, grad):
    from . import array_ops
    return array_ops.zeros_like(grad)


_NEG, negative = _unary("Neg", lambda xp: xp.negative, lambda op, g: negative(g), _SIGNED, saves_inputs=False,
                        doc="``-x``.")
_ABS, abs = _unary("Abs", lambda xp: xp.abs, lambda op, g: multiply(g, sign(op.inputs[0])), _SIGNED,  # noqa: A001
                   doc="``|x|``; the gradient is ``sign(x)`` (0 at 0).")
_SIGN, sign = _unary("Sign", lambda xp: xp.sign, _zeros_grad, _SIGNED, saves_inputs=False,
                     doc="-1, 0 or 1; the gradient is zero everywhere.")
_EXP, exp = _unary("Exp", lambda xp: _errstate(xp.exp), lambda op, g: multiply(g, op.outputs[0]), FLOAT,
                   saves_inputs=False, saves_outputs=True, doc="``e**x``; the gradient reuses the output.")
_LOG, log = _unary("Log", lambda xp: _errstate(xp.log), lambda op, g: multiply(g, reciprocal(op.inputs[0])),
                   FLOAT, doc="Natural logarithm.")
_LOG1P, log1p = _unary("Log1p", lambda xp: _errstate(xp.log1p),
                       lambda op, g: multiply(g, reciprocal(add(op.inputs[0], 1))), FLOAT,
                       doc="``log(1 + x)``, accurate for small ``x``.")
_SQRT, sqrt = _unary("Sqrt", lambda xp: _errstate(xp.sqrt),
                     lambda op, g: realdiv(multiply(g, 0.5), op.outputs[0]), FLOAT,
                     saves_inputs=False, saves_outputs=True, doc="Square root.")
_RSQRT, rsqrt = _unary("Rsqrt", lambda xp: _errstate(lambda x: xp.reciprocal(xp.sqrt(x))),
                       lambda op, g: multiply(g, multiply(-0.5, pow(op.outputs[0], 3))), FLOAT,
                       saves_inputs=False, saves_outputs=True, doc="``1 / sqrt(x)``.")
_SQUARE, square = _unary("Square", lambda xp: xp.square,
                         lambda op, g: multiply(g, multiply(op.inputs[0], 2)), NUMERIC, doc="``x * x``.")
_SIN, sin = _unary("Sin", lambda xp: xp.sin, lambda op, g: multiply(g, cos(op.inputs[0])), FLOAT, doc="Sine.")
_COS, cos = _unary("Cos", lambda xp: xp.cos, lambda op, g: multiply(g, negative(sin(op.inputs[0]))), FLOAT,
                   doc="Cosine.")
_TANH, tanh = _unary("Tanh", lambda xp: xp.tanh,
                     lambda op, g: multiply(g, subtract(1, square(op.outputs[0]))), FLOAT,
                     saves_inputs=False, saves_outputs=True, doc="Hyperbolic tangent; gradient ``1 - y**2``.")


def _sigmoid_kernel(xp):
    def k(x):
        with np.errstate(all="ignore"):
            # numerically stable in both tails
            e = xp.exp(-xp.abs(x))
            return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)[()]
    return k


_SIGMOID, sigmoid = _unary("Sigmoid", _sigmoid_kernel,
                           lambda op, g: multiply(g, multiply(op.outputs[0], subtract(1, op.outputs[0]))),
                           FLOAT, saves_inputs=False, saves_outputs=True,
                           doc="``1 / (1 + exp(-x))``; gradient ``y * (1 - y)``.")
_RECIPROCAL, reciprocal = _unary("Reciprocal", lambda xp: _errstate(xp.reciprocal),
                                 lambda op, g: multiply(g, negative(square(op.outputs[0]))), FLOAT,
                                 saves_inputs=False, saves_outputs=True, doc="``1 / x``.")
_ROUND, round = _unary("Round", lambda xp: xp.rint, lambda op, g: None, NUMERIC, saves_inputs=False,  # noqa: A001
                       doc="Round half to even (banker's rounding), as TF does. No gradient.")
_FLOOR, floor = _unary("Floor", lambda xp: xp.floor, lambda op, g: None, FLOAT, saves_inputs=False,
                       doc="Largest integer not greater than x. No gradient.")
_CEIL, ceil = _unary("Ceil", lambda xp: xp.ceil, lambda op, g: None, FLOAT, saves_inputs=False,
                     doc="Smallest integer not less than x. No gradient.")
_ISNAN, is_nan = _unary("IsNan", lambda xp: xp.isnan, None, FLOAT, doc="True where x is NaN.")
_ISINF, is_inf = _unary("IsInf", lambda xp: xp.isinf, None, FLOAT, doc="True where x is +-inf.")
_ISFINITE, is_finite = _unary("IsFinite", lambda xp: xp.isfinite, None, FLOAT, doc="True where x is finite.")
for _op in (_ISNAN, _ISINF, _ISFINITE):
    _op.infer = lambda ic: [(dtypes.bool, ic.shape(0))]


# --------------------------------------------------------------------------------------
# Comparisons and logic: boolean results, no gradient
# --------------------------------------------------------------------------------------
def _comparison(op_name, ufunc, doc):
    op, public = _binary(op_name, lambda xp: getattr(xp, ufunc), None, NUMERIC | _BOOL, out_dtype=dtypes.bool,
                         doc=doc)
    return op, public


_EQUAL, _equal = _comparison("Equal", "equal", "``x == y`` elementwise.")
_NOT_EQUAL, _not_equal = _comparison("NotEqual", "not_equal", "``x != y`` elementwise.")
_LESS, less = _comparison("Less", "less", "``x < y`` elementwise.")
_LESS_EQUAL, less_equal = _comparison("LessEqual", "less_equal", "``x <= y`` elementwise.")
_GREATER, greater = _comparison("Greater", "greater", "``x > y`` elementwise.")
_GREATER_EQUAL, greater_equal = _comparison("GreaterEqual", "greater_equal", "``x >= y`` elementwise.")


def equal(x, y, name=None):
    """``x == y`` elementwise, with broadcasting."""
    return _equal(x, y, name=name)


def not_equal(x, y, name=None):
    """``x != y`` elementwise, with broadcasting."""
    return _not_equal(x, y, name=name)


_LOGICAL_AND, logical_and = _binary("LogicalAnd", lambda xp: xp.logical_and, None, _BOOL, doc="Boolean AND.")
_LOGICAL_OR, logical_or = _binary("LogicalOr", lambda xp: xp.logical_or, None, _BOOL, doc="Boolean OR.")
_LOGICAL_NOT, logical_not = _unary("LogicalNot", lambda xp: xp.logical_not, None, _BOOL, doc="Boolean NOT.")
_BITWISE_AND, bitwise_and = _binary("BitwiseAnd", lambda xp: xp.bitwise_and, None, INTEGER, doc="Bitwise AND.")
_BITWISE_OR, bitwise_or = _binary("BitwiseOr", lambda xp: xp.bitwise_or, None, INTEGER, doc="Bitwise OR.")
_BITWISE_XOR, bitwise_xor = _binary("BitwiseXor", lambda xp: xp.bitwise_xor, None, INTEGER, doc="Bitwise XOR.")
_INVERT, invert = _unary("Invert", lambda xp: xp.invert, None, INTEGER, doc="Bitwise NOT.")


def logical_xor(x, y, name="LogicalXor"):
    """``(x | y) & ~(x & y)``, composed from the other logical ops as TF does."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)))


# --------------------------------------------------------------------------------------
# Cast, AddN, clip
# --------------------------------------------------------------------------------------
def _cast_kernel(xp):
    def k(x, DstT, SrcT=None, Truncate=False):  # noqa: N803 (TF attr names)
        return x.astype(DstT._np)
    return k


def _cast_grad(op, grad):
    src = op.inputs[0].dtype
    dst = op.outputs[0].dtype
    if src.is_floating and dst.is_floating:
        return cast(grad, src)
    return None


_CAST = register_op("Cast", kernel=_cast_kernel, infer=lambda ic: [(ic.attrs["DstT"], ic.shape(0))],
                    grad=_cast_grad, saves_inputs=False, saves_outputs=False,
                    doc="Change dtype. Float to int truncates toward zero.")


def cast(x, dtype, name=None):
    """``tf.cast``: convert to ``dtype``; a no-op if the dtype already matches."""
    dtype = dtypes.as_dtype(dtype)
    x = to_tensor(x) if isinstance(x, Tensor) or hasattr(x, "__tf_tensor__") else to_tensor(x)
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
                     saves_outputs=False, doc="Sum of a list of same-shaped tensors (no broadcasting).")


def add_n(inputs, name=None):
    """Add a list of tensors of the same shape and dtype."""
    if not inputs:
        raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the same dtype "
                         "and shape")
    tensors = [to_tensor(t) for t in inputs]
    from ._dispatch import check_same_dtype
    check_same_dtype("AddN", *tensors)
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
    """
    t = to_tensor(t)
    return maximum(minimum(t, clip_value_max), clip_value_min)
