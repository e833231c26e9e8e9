"""``tf.debugging``: runtime assertions.

Eagerly an assertion checks at once and raises ``InvalidArgumentError`` with
TF's wording ("Condition x == y did not hold."). In a graph (a ``tf.function``
or TF1), it adds an ``Assert`` op, which fails when it *runs*; stateful ops run
in order inside functions, so the check happens where it was written.
"""
import numpy as np

from .framework.context import ctx
from .framework.errors import InvalidArgumentError
from .framework.graph import control_dependencies
from .framework.tensor import convert_to_tensor
from .ops import array_ops, math_ops, reduction_ops
from .ops.control_flow_ops import Assert

__all__ = ["Assert", "assert_equal", "assert_less", "assert_less_equal", "assert_greater", "assert_greater_equal",
           "assert_near", "assert_rank", "check_numerics", "assert_all_finite", "set_log_device_placement"]

_log_device_placement = [False]


def set_log_device_placement(enabled):
    """``tf.debugging.set_log_device_placement``: accepted and recorded.

    Deliberate difference: TF then logs each op's device to stderr; the engine logs nothing (an op runs
    on the device of ``tf.device(...)``, or the default device: see ``framework/device.py``).
    """
    _log_device_placement[0] = bool(enabled)


def _pair(x, y):
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype_hint=x.dtype)
    return x, y


def _binary_assert(compare, symbol):
    def check(x, y, message=None, summarize=None, name=None):
        x, y = _pair(x, y)
        holds = compare(x, y)
        if ctx.graph is not None:
            return Assert(reduction_ops.reduce_all(holds), [x, y], summarize=summarize, name=name)
        if bool(np.all(holds.numpy())):
            return None
        xs, ys = np.asarray(x.numpy()), np.asarray(y.numpy())
        n = summarize or 3
        text = f"{message + chr(10) if message else ''}Condition x {symbol} y did not hold.\n" \
               f"First {min(xs.size, n)} elements of x:\n{xs.ravel()[:n]}\nFirst {min(ys.size, n)} elements of y:\n" \
               f"{ys.ravel()[:n]}"
        raise InvalidArgumentError(None, None, text)
    check.__doc__ = f"Assert ``x {symbol} y`` elementwise (with broadcasting)."
    return check


assert_equal = _binary_assert(math_ops.equal, "==")
assert_less = _binary_assert(math_ops.less, "<")
assert_less_equal = _binary_assert(math_ops.less_equal, "<=")
assert_greater = _binary_assert(math_ops.greater, ">")
assert_greater_equal = _binary_assert(math_ops.greater_equal, ">=")


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Assert ``|x - y| <= atol + rtol * |y|`` elementwise (default tolerances: 10 float32 eps, as in TF)."""
    x, y = _pair(x, y)
    eps = np.finfo(x.dtype.as_numpy_dtype).eps
    rtol = 10 * eps if rtol is None else rtol
    atol = 10 * eps if atol is None else atol
    close = math_ops.less_equal(math_ops.abs(math_ops.subtract(x, y)),
                                math_ops.add(math_ops.cast(atol, x.dtype),
                                             math_ops.multiply(math_ops.cast(rtol, x.dtype), math_ops.abs(y))))
    if ctx.graph is not None:
        return Assert(reduction_ops.reduce_all(close), [x, y], summarize=summarize, name=name)
    if bool(np.all(close.numpy())):
        return None
    raise InvalidArgumentError(None, None, f"{message + chr(10) if message else ''}x and y not equal to tolerance "
                                           f"rtol = {rtol}, atol = {atol}\nx = {x.numpy()}\ny = {y.numpy()}")


def assert_rank(x, rank, message=None, name=None):
    """Assert the static rank (``ValueError`` when it is known and wrong, as TF does)."""
    x = convert_to_tensor(x)
    if x.shape.rank is not None and x.shape.rank != rank:
        raise ValueError(f"{message + ' ' if message else ''}Tensor must have rank {rank}.  Received rank "
                         f"{x.shape.rank}, shape {x.shape}")


def check_numerics(tensor, message, name=None):
    """Return ``tensor``, or fail if it holds NaN or Inf ("<message> : Tensor had NaN values")."""
    x = convert_to_tensor(tensor)
    finite = reduction_ops.reduce_all(math_ops.is_finite(x))
    if ctx.graph is not None:
        check = Assert(finite, [x], name=name)
        with control_dependencies([check]):
            return array_ops.identity(x)
    if not bool(finite):
        values = x.numpy()
        what = "NaN" if np.isnan(values).any() else "Inf"
        raise InvalidArgumentError(None, None, f"{message} : Tensor had {what} values [Op:CheckNumerics]")
    return x


def assert_all_finite(t, msg, name=None, x=None, message=None):
    return check_numerics(t if t is not None else x, msg if msg is not None else message, name)
