"""``tf.debugging``: runtime assertions.

Eagerly an assertion checks at once and raises ``InvalidArgumentError`` with
TF's wording ("Condition x == y did not hold."). In a graph (a ``tf.function``
or TF1), it adds an ``Assert`` op, which fails when it *runs*; stateful ops run
in order inside functions, so the check happens where it was written.
"""
import numpy as np

from .framework import dtypes as _dtypes
from .framework.context import ctx
from .framework.errors import InvalidArgumentError
from .framework.graph import constant_value, control_dependencies
from .framework.name_scope import name_scope
from .framework.tensor import Tensor, convert_to_tensor
from .ops import array_ops, math_ops, reduction_ops
from .ops.control_flow_ops import Assert

__all__ = ["Assert", "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal", "assert_greater",
           "assert_greater_equal", "assert_positive", "assert_negative", "assert_non_negative", "assert_non_positive",
           "assert_near", "assert_rank", "assert_rank_at_least", "assert_rank_in", "assert_type", "assert_integer",
           "assert_scalar", "assert_proper_iterable", "assert_same_float_dtype", "assert_shapes", "check_numerics",
           "assert_all_finite", "set_log_device_placement"]

_log_device_placement = [False]


def set_log_device_placement(enabled):
    """``tf.debugging.set_log_device_placement``: accepted and recorded.

    Deliberate difference: TF then logs each op's device to stderr; the engine logs nothing (an op runs
    on the device of ``tf.device(...)``, or the default device: see ``framework/device.py``).
    """
    _log_device_placement[0] = bool(enabled)


# --------------------------------------------------------------------------------------
# Comparisons: x OP y elementwise (TF's check_ops._binary_assert)
# --------------------------------------------------------------------------------------
# Eagerly the check happens now; its message shows the values (and, for equal shapes, where they
# differ). In a graph the check is an ``Assert`` op whose data names the tensors, which fails when it
# runs; but when both sides are constants, TF already knows the answer while tracing and raises then.

def _pretty_print(item, summarize):
    """TF's ``_pretty_print``: a tensor as a list of its first ``summarize`` values (as strings)."""
    if hasattr(item, "numpy"):
        arr = item.numpy()
        if np.ndim(arr) == 0:
            return str(arr)
        flat = np.asarray(arr).reshape(-1)
        items = [str(v) for v in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
        return str(items)
    return str(item)


def _eager_message(symbol, x, y, summarize):
    """TF's ``_make_assert_msg_data``: the condition, where x and y differ (equal shapes), their first values."""
    data = [f"Condition x {symbol} y did not hold."]
    if summarize > 0:
        xs, ys = np.asarray(x.numpy()), np.asarray(y.numpy())
        if xs.shape == ys.shape and xs.ndim:
            held = np.asarray(_NUMPY_TESTS[symbol](xs, ys))
            indices = np.argwhere(~held)
            n = min(summarize, indices.shape[0])
            data += [f"Indices of first {n} different values:", str(indices[:n]), "Corresponding x values:",
                     str(xs[~held].reshape(-1)[:n]), "Corresponding y values:", str(ys[~held].reshape(-1)[:n])]
        fx, fy = xs.reshape(-1), ys.reshape(-1)
        data += [f"First {min(fx.size, summarize)} elements of x:", str(fx[:summarize]),
                 f"First {min(fy.size, summarize)} elements of y:", str(fy[:summarize])]
    return data


_NUMPY_TESTS = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
                ">=": np.greater_equal}


def _static_string(item):
    """A data item of an assertion whose value is known while tracing, as TF prints it then."""
    if isinstance(item, Tensor):
        value = constant_value(item)
        return item if value is None else str(value)
    return item


def _binary_assert(symbol, compare, opname, x, y, data, summarize, message, name):
    with name_scope(name or opname):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype_hint=x.dtype)
        if ctx.graph is None:
            if bool(np.all(compare(x, y).numpy())):
                return None
            summarize = 3 if summarize is None else (10 ** 9 if summarize < 0 else summarize)
            data = _eager_message(symbol, x, y, summarize) if data is None else list(data)
            if message is not None:
                data = [message] + data
            raise InvalidArgumentError(None, None, "\n".join(_pretty_print(d, summarize) for d in data))
        if data is None:
            data = [f"Condition x {symbol} y did not hold element-wise:", f"x ({x.name}) = ", x,
                    f"y ({y.name}) = ", y]
        if message is not None:
            data = [message] + list(data)
        x_static, y_static = constant_value(x), constant_value(y)
        if x_static is not None and y_static is not None and not np.all(_NUMPY_TESTS[symbol](x_static, y_static)):
            raise InvalidArgumentError(None, None, "\n".join(str(_static_string(d)) for d in data))
        return Assert(reduction_ops.reduce_all(compare(x, y)), data, summarize=summarize)


def _make_binary(symbol, compare, opname):
    def check(x, y, data=None, summarize=None, message=None, name=None):
        return _binary_assert(symbol, compare, opname, x, y, data, summarize, message, name)
    check.__name__ = opname
    check.__qualname__ = opname
    check.__doc__ = (f"Assert ``x {symbol} y`` elementwise (broadcasting): ``InvalidArgumentError`` with TF's "
                     f"message if not; in a graph, the ``Assert`` op (None eagerly).")
    return check


_assert_equal = _make_binary("==", math_ops.equal, "assert_equal")


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Assert ``x == y`` elementwise (broadcasting): ``InvalidArgumentError`` with TF's message if not; in a
    graph, the ``Assert`` op (None eagerly)."""
    if ctx.graph is not None and name is None:
        # As TF, whose assert_equal enters its name scope twice: its tensors are under "assert_equal_1/"
        with name_scope("assert_equal"):
            pass
    return _assert_equal(x, y, data, summarize, message, name)
assert_none_equal = _make_binary("!=", math_ops.not_equal, "assert_none_equal")
assert_less = _make_binary("<", math_ops.less, "assert_less")
assert_less_equal = _make_binary("<=", math_ops.less_equal, "assert_less_equal")
assert_greater = _make_binary(">", math_ops.greater, "assert_greater")
assert_greater_equal = _make_binary(">=", math_ops.greater_equal, "assert_greater_equal")


# --------------------------------------------------------------------------------------
# Signs: x OP 0 elementwise (TF writes each as a comparison with zero)
# --------------------------------------------------------------------------------------
def _make_sign(symbol, opname, zero_first, compare):
    def check(x, data=None, summarize=None, message=None, name=None):
        prefix = f"{message}.  " if message else ""
        with name_scope(name or opname):
            x = convert_to_tensor(x, name="x")
            if data is None:
                where = f"shape={tuple(x.shape.as_list()) if x.shape.rank is not None else None} " \
                        f"dtype={x.dtype.name}" if ctx.graph is None else x.name
                # (TF's own list lacks a comma after assert_non_positive's condition: two lines run together)
                condition = f"Condition x {symbol} 0 did not hold element-wise:"
                data = [prefix, condition + f"x ({where}) = ", x] if opname == "assert_non_positive" else \
                    [prefix, condition, f"x ({where}) = ", x]
            zero = convert_to_tensor(0, dtype=x.dtype)
            a, b = (zero, x) if zero_first else (x, zero)      # assert_positive(x) is assert_less(0, x)...
            compared, inner = ("<", "assert_less") if compare is math_ops.less else ("<=", "assert_less_equal")
            return _binary_assert(compared, compare, inner, a, b, data, summarize, None, None)
    check.__name__ = opname
    check.__qualname__ = opname
    check.__doc__ = f"Assert ``x {symbol} 0`` elementwise (TF's message; the ``Assert`` op in a graph)."
    return check


assert_positive = _make_sign(">", "assert_positive", True, math_ops.less)
assert_negative = _make_sign("<", "assert_negative", False, math_ops.less)
assert_non_negative = _make_sign(">=", "assert_non_negative", True, math_ops.less_equal)
assert_non_positive = _make_sign("<=", "assert_non_positive", False, math_ops.less_equal)


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Assert ``|x - y| <= atol + rtol * |y|`` elementwise (default tolerances: 10 float32 eps, as in TF).

    Deliberate difference: the message is the engine's (TF's eager one prints its own condition
    tensor's repr; its graph one the tolerances' tensor names).
    """
    with name_scope(name or "assert_near"):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype_hint=x.dtype)
        eps = np.finfo(x.dtype.as_numpy_dtype).eps
        rtol = 10 * eps if rtol is None else rtol
        atol = 10 * eps if atol is None else atol
        close = math_ops.less_equal(math_ops.abs(math_ops.subtract(x, y)),
                                    math_ops.add(math_ops.cast(atol, x.dtype),
                                                 math_ops.multiply(math_ops.cast(rtol, x.dtype), math_ops.abs(y))))
        if ctx.graph is not None:
            return Assert(reduction_ops.reduce_all(close), [message or "", f"x and y not equal to tolerance rtol = "
                                                            f"{rtol}, atol = {atol}", f"x ({x.name}) = ", x,
                                                            f"y ({y.name}) = ", y], summarize=summarize)
    if bool(np.all(close.numpy())):
        return None
    raise InvalidArgumentError(None, None, f"{message + chr(10) if message else ''}x and y not equal to tolerance "
                                           f"rtol = {rtol}, atol = {atol}\nx = {x.numpy()}\ny = {y.numpy()}")


# --------------------------------------------------------------------------------------
# Static checks: ranks, dtypes, shapes (raised while the code runs or traces, never by an op)
# --------------------------------------------------------------------------------------
def _label(x):
    """How TF names a tensor in these messages: its graph name, or nothing (eager tensors have none)."""
    return x.name if ctx.graph is not None else ""


def _rank_check(x, ok, wanted, message, name, opname):
    with name_scope(name or opname):
        x = convert_to_tensor(x, name="x")
    rank = x.shape.rank
    if rank is not None and not ok(rank):
        prefix = f"{message}.  " if message else ""
        raise ValueError(f"{prefix}Tensor {_label(x)} must have rank {wanted}.  Received rank {rank}, shape "
                         f"{x.shape}")
    return None


def assert_rank(x, rank, message=None, name=None):
    """Assert the static rank: ``ValueError`` when it is known and wrong (TF's message)."""
    return _rank_check(x, lambda r: r == rank, rank, message, name, "assert_rank")


def assert_rank_at_least(x, rank, message=None, name=None):
    """Assert the static rank is at least ``rank`` (``ValueError`` otherwise)."""
    return _rank_check(x, lambda r: r >= rank, f"at least {rank}", message, name, "assert_rank_at_least")


def assert_rank_in(x, ranks, message=None, name=None):
    """Assert the static rank is one of ``ranks`` (``ValueError`` otherwise)."""
    ranks = tuple(ranks)
    return _rank_check(x, lambda r: r in ranks, f"in {ranks}", message, name, "assert_rank_in")


def assert_type(tensor, tf_type, message=None, name=None):
    """``TypeError`` unless ``tensor`` has dtype ``tf_type`` (TF's message: ``... must be of type tf.float32``)."""
    tf_type = _dtypes.as_dtype(tf_type)
    tensor = convert_to_tensor(tensor)
    if tensor.dtype != tf_type:
        prefix = f"{message}.  " if message else ""
        raise TypeError(f"{prefix}{tensor.name if ctx.graph is not None else 'tensor'} must be of type "
                        f"tf.{tf_type.name}; got tf.{tensor.dtype.name}")
    return None


def assert_integer(x, message=None, name=None):
    """``TypeError`` unless ``x`` has an integer dtype."""
    x = convert_to_tensor(x)
    if not x.dtype.is_integer:
        prefix = f"{message}.  " if message else ""
        raise TypeError(f'{prefix}Expected "x" to be integer type.  Found: '
                        f"{x.name if ctx.graph is not None else 'tensor'} of dtype {x.dtype}")
    return None


def assert_scalar(tensor, message=None, name=None):
    """``ValueError`` unless ``tensor``'s static shape is ``()`` (None otherwise, as TF 2's ``assert_scalar``)."""
    tensor = convert_to_tensor(tensor)
    if tensor.shape.rank != 0:
        prefix = f"{message}.  " if message else ""
        where = f" for {tensor.name}" if ctx.graph is not None else ""
        raise ValueError(f"{prefix}Expected scalar shape{where}, saw shape: {tensor.shape}.")
    return None


def assert_proper_iterable(values):
    """``TypeError`` for a string, bytes, a tensor or a NumPy array where a list of values is expected."""
    if isinstance(values, (str, bytes, np.ndarray, Tensor)) or not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')


def assert_same_float_dtype(tensors=None, dtype=None):
    """The one floating dtype of ``tensors`` (and ``dtype``): ``ValueError`` if they differ or are not floats."""
    tensors = [convert_to_tensor(t) for t in (tensors or [])]
    describe = (lambda t: t.name) if ctx.graph is not None else str
    if tensors:
        first = tensors[0]
        for t in tensors[1:]:
            if t.dtype != first.dtype:
                raise ValueError(f"{describe(t)}, type={t.dtype}, must be of the same type ({first.dtype}) "
                                 f"as {describe(first)}.")
        dtype = dtype or first.dtype
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.float32
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Check that named dimensions agree: ``[(x, ("N", "D")), (y, ("N",))]`` (static shapes; ``ValueError``)."""
    sizes = {}
    prefix = f"{message}.  " if message else ""
    for tensor, spec in shapes:
        tensor = convert_to_tensor(tensor)
        label = tensor.name if ctx.graph is not None else \
            f"shape={tuple(tensor.shape.as_list())} dtype={tensor.dtype.name}"
        dims = tensor.shape.as_list() if tensor.shape.rank is not None else None
        if dims is None:
            continue
        if len(spec) != len(dims):
            raise ValueError(f"{prefix}Tensor {label} must have rank {len(spec)}.  Received rank {len(dims)}, "
                             f"shape {tensor.shape}")
        for axis, (symbol, size) in enumerate(zip(spec, dims)):
            if isinstance(symbol, int):
                if size is not None and size != symbol:
                    raise ValueError(f"{prefix}Tensor {label} dimension {axis} must have size {symbol}.  Received "
                                     f"size {size}, shape {tensor.shape}")
                continue
            known = sizes.get(symbol)
            if known is None:
                sizes[symbol] = (size, label, axis)
            elif size is not None and known[0] is not None and size != known[0]:
                raise ValueError(f"{prefix}Specified by tensor {known[1]} dimension {known[2]}.  Tensor {label} "
                                 f"dimension {axis} must have size {known[0]}.  Received size {size}, shape "
                                 f"{tensor.shape}")
    return None


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
