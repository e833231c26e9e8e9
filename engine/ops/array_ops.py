"""Array manipulation: shapes, reshaping, stacking, tiling, selecting, creating.

Arguments that describe shapes (``shape``, ``axis``, ``multiples``, ``perm``)
are int32 tensor *inputs*, as in TF, so they can be computed at run time in a
graph. Shape functions read them with ``ic.constant_value(i)`` when known.
"""
import builtins

import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor import EagerTensor, Tensor, convert_to_tensor
from ..framework.tensor_shape import TensorShape, as_shape
from . import _shapes
from ._dispatch import check_same_dtype, execute, int_tensor, to_tensor

__all__ = [
    "reshape", "shape", "size", "rank", "identity", "zeros_like", "ones_like", "zeros", "ones", "fill",
    "expand_dims", "squeeze", "stack", "unstack", "tile", "one_hot", "broadcast_to",
    "where", "range", "stop_gradient", "transpose", "invert_permutation",
]


def static_or_dynamic_shape(x):
    """``x``'s shape as a Python list when fully known, else as an int32 tensor (graph mode)."""
    s = x.shape
    if s.is_fully_defined():
        return s.as_list()
    return shape(x)


def _ints(a):
    """An index/shape input array as a tuple of Python ints (works for NumPy and CuPy)."""
    return tuple(int(v) for v in np.ravel(a.tolist() if hasattr(a, "tolist") else a))


# --------------------------------------------------------------------------------------
# Reshape
# --------------------------------------------------------------------------------------
def _reshape_kernel(xp):
    def k(x, shape):
        dims = _ints(shape)
        n_in = int(np.prod(x.shape, dtype=np.int64))
        unknown = [i for i, d in enumerate(dims) if d == -1]
        known = int(np.prod([d for d in dims if d != -1], dtype=np.int64))
        if len(unknown) > 1:
            raise InvalidArgumentError(None, None, f"Reshape: only one input size may be -1, not both "
                                                   f"{unknown[0]} and {unknown[1]}")
        if (unknown and (known == 0 or n_in % known)) or (not unknown and known != n_in):
            raise InvalidArgumentError(
                None, None, f"Input to reshape is a tensor with {n_in} values, but the requested shape "
                            f"{'requires a multiple of' if unknown else 'has'} {known}. Input shape "
                            f"{list(x.shape)}, requested shape {list(dims)}.")
        return xp.reshape(x, dims)
    return k


def _reshape_infer(ic):
    value = ic.constant_value(1)
    x = ic.shape(0)
    if value is None:
        n = ic.shape(1)
        return [(ic.dtype(0), TensorShape(None) if n.rank is None or n[0] is None else TensorShape([None] * n[0]))]
    dims = [int(d) for d in np.ravel(value)]
    n_in = x.num_elements()
    if -1 in dims:
        known = int(np.prod([d for d in dims if d != -1], dtype=np.int64))
        if n_in is not None:
            if known == 0 or n_in % known:
                raise ValueError(f"Cannot reshape a tensor with {n_in} elements to shape {dims} "
                                 f"({known} elements) for '{{{{node Reshape}}}}' with input shapes: "
                                 f"{_shapes.fmt(x)}, [{len(dims)}].")
            dims = [n_in // known if d == -1 else d for d in dims]
        else:
            dims = [None if d == -1 else d for d in dims]
    elif n_in is not None and int(np.prod(dims, dtype=np.int64)) != n_in:
        raise ValueError(f"Cannot reshape a tensor with {n_in} elements to shape {dims} "
                         f"({int(np.prod(dims, dtype=np.int64))} elements) for '{{{{node Reshape}}}}' with input "
                         f"shapes: {_shapes.fmt(x)}, [{len(dims)}].")
    return [(ic.dtype(0), TensorShape(dims))]


def _reshape_grad(op, grad):
    return reshape(grad, static_or_dynamic_shape(op.inputs[0])), None


_RESHAPE = register_op("Reshape", kernel=_reshape_kernel, infer=_reshape_infer, grad=_reshape_grad,
                       saves_inputs=False, saves_outputs=False)


def reshape(tensor, shape, name=None):
    """Same values, new shape. One dimension may be ``-1`` (inferred)."""
    x = to_tensor(tensor)
    return execute(_RESHAPE, (x, int_tensor(list(shape) if isinstance(shape, TensorShape) else shape)),
                   name=name)


# --------------------------------------------------------------------------------------
# Shape, Size, Rank
# --------------------------------------------------------------------------------------
def _shape_kernel(xp):
    return lambda x, out_type=dtypes.int32: xp.asarray(x.shape, dtype=out_type._np)


_SHAPE = register_op("Shape", kernel=_shape_kernel,
                     infer=lambda ic: [(ic.attrs.get("out_type", dtypes.int32), TensorShape([ic.shape(0).rank]))])
_SIZE = register_op("Size", kernel=lambda xp: (lambda x, out_type=dtypes.int32: out_type._np.type(x.size)),
                    infer=lambda ic: [(ic.attrs.get("out_type", dtypes.int32), TensorShape([]))])
_RANK = register_op("Rank", kernel=lambda xp: (lambda x: np.int32(x.ndim)),
                    infer=lambda ic: [(dtypes.int32, TensorShape([]))])


def shape(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The shape of ``input`` as a 1-D int tensor (its *dynamic* shape)."""
    x = to_tensor(input)
    return execute(_SHAPE, (x,), {"out_type": dtypes.as_dtype(out_type)}, name=name)


def size(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The number of elements, as a scalar tensor."""
    return execute(_SIZE, (to_tensor(input),), {"out_type": dtypes.as_dtype(out_type)}, name=name)


def rank(input, name=None):  # noqa: A002
    """The number of dimensions, as a scalar int32 tensor."""
    return execute(_RANK, (to_tensor(input),), name=name)


# --------------------------------------------------------------------------------------
# Identity, stop_gradient, zeros/ones
# --------------------------------------------------------------------------------------
_IDENTITY = register_op("Identity", kernel=lambda xp: (lambda x: x), infer=_shapes.same_as_input,
                        grad=lambda op, g: g, saves_inputs=False, saves_outputs=False)
_STOP_GRADIENT = register_op("StopGradient", kernel=lambda xp: (lambda x: x), infer=_shapes.same_as_input,
                             grad=None, doc="Identity forward; blocks gradients (the tape does not record it).")
_ZEROS_LIKE = register_op("ZerosLike", kernel=lambda xp: (lambda x: xp.zeros_like(x)[()]),
                          infer=_shapes.same_as_input)
_ONES_LIKE = register_op("OnesLike", kernel=lambda xp: (lambda x: xp.ones_like(x)[()]),
                         infer=_shapes.same_as_input)


def identity(input, name=None):  # noqa: A002
    """Return a tensor with the same value (a new node in a graph; gradient passes through)."""
    return execute(_IDENTITY, (to_tensor(input),), name=name)


def stop_gradient(input, name=None):  # noqa: A002
    """Identity, but gradients do not flow through it."""
    return execute(_STOP_GRADIENT, (to_tensor(input),), name=name)


def zeros_like(input, dtype=None, name=None):  # noqa: A002
    x = to_tensor(input) if not hasattr(input, "_is_variable") else input._read_untracked()
    out = execute(_ZEROS_LIKE, (x,), name=name)
    if dtype is not None and dtypes.as_dtype(dtype) != out.dtype:
        from .math_ops import cast
        out = cast(out, dtype)
    return out


def ones_like(input, dtype=None, name=None):  # noqa: A002
    x = to_tensor(input) if not hasattr(input, "_is_variable") else input._read_untracked()
    out = execute(_ONES_LIKE, (x,), name=name)
    if dtype is not None and dtypes.as_dtype(dtype) != out.dtype:
        from .math_ops import cast
        out = cast(out, dtype)
    return out


def _fill_kernel(xp):
    def k(dims, value):
        d = _ints(dims)
        if any(v < 0 for v in d):
            raise InvalidArgumentError(None, None, f"Fill: dims must be non-negative, got {list(d)}")
        return xp.full(d, value, dtype=value.dtype)[()]
    return k


def _fill_infer(ic):
    dims = ic.constant_value(0)
    if dims is None:
        n = ic.shape(0)
        return [(ic.dtype(1), TensorShape(None) if n.rank is None or n[0] is None else TensorShape([None] * n[0]))]
    return [(ic.dtype(1), TensorShape([int(d) for d in np.ravel(dims)]))]


def _fill_grad(op, grad):
    from .reduction_ops import reduce_sum
    return None, reduce_sum(grad)


_FILL = register_op("Fill", kernel=_fill_kernel, infer=_fill_infer, grad=_fill_grad, saves_inputs=False,
                    saves_outputs=False)


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with ``value`` (dtype inferred from ``value``)."""
    return execute(_FILL, (int_tensor(dims), to_tensor(value)), name=name)


def _shape_arg(shape_value):
    if isinstance(shape_value, TensorShape):
        return shape_value.as_list()
    if isinstance(shape_value, (int, np.integer)):
        return [int(shape_value)]
    return shape_value


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros (default float32)."""
    dtype = dtypes.as_dtype(dtype)
    return fill(_shape_arg(shape), convert_to_tensor(0, dtype=dtype) if dtype is not dtypes.bool else
                convert_to_tensor(False), name=name)


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones (default float32)."""
    dtype = dtypes.as_dtype(dtype)
    return fill(_shape_arg(shape), convert_to_tensor(1, dtype=dtype) if dtype is not dtypes.bool else
                convert_to_tensor(True), name=name)


# --------------------------------------------------------------------------------------
# ExpandDims, Squeeze
# --------------------------------------------------------------------------------------
def _expand_dims_kernel(xp):
    def k(x, dim):
        (axis,) = _ints(dim) or (0,)
        r = x.ndim
        if not -r - 1 <= axis <= r:
            raise InvalidArgumentError(None, None, f"ExpandDims: tried to expand dim index {axis} for tensor "
                                                   f"with {r} dimensions; axis must be in [{-r - 1}, {r}].")
        return xp.expand_dims(x, axis)
    return k


def _expand_dims_infer(ic):
    x = ic.shape(0)
    axis = ic.constant_value(1)
    if x.rank is None or axis is None:
        return [(ic.dtype(0), TensorShape(None) if x.rank is None else TensorShape([None] * (x.rank + 1)))]
    a = int(np.ravel(axis)[0])
    r = x.rank
    if not -r - 1 <= a <= r:
        raise ValueError(f"ExpandDims: axis {a} out of range [{-r - 1}, {r}] for input with shape {_shapes.fmt(x)}")
    a = a % (r + 1)
    dims = x.as_list()
    return [(ic.dtype(0), TensorShape(dims[:a] + [1] + dims[a:]))]


_EXPAND_DIMS = register_op("ExpandDims", kernel=_expand_dims_kernel, infer=_expand_dims_infer,
                           grad=_reshape_grad, saves_inputs=False, saves_outputs=False)


def expand_dims(input, axis, name=None):  # noqa: A002
    """Insert a dimension of size 1 at ``axis``."""
    return execute(_EXPAND_DIMS, (to_tensor(input), int_tensor(axis)), name=name)


def _squeeze_axes(shape_dims, squeeze_dims, op_name="Squeeze"):
    rank = len(shape_dims)
    if not squeeze_dims:
        return [i for i, d in enumerate(shape_dims) if d == 1]
    out = []
    for a in squeeze_dims:
        if not -rank <= a < rank:
            raise ValueError(f"Tried to squeeze dim index {a} for tensor with {rank} dimensions.")
        a %= rank
        if shape_dims[a] is not None and shape_dims[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, got {shape_dims[a]} for "
                             f"'{{{{node {op_name}}}}}' with input shapes: {_shapes.fmt(shape_dims)}.")
        out.append(a)
    return sorted(set(out))


def _squeeze_kernel(xp):
    def k(x, squeeze_dims=()):
        axes = _squeeze_axes(list(x.shape), list(squeeze_dims))
        return xp.squeeze(x, axis=tuple(axes)) if axes else x
    return k


def _squeeze_infer(ic):
    x = ic.shape(0)
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None))]
    dims = x.as_list()
    squeeze_dims = list(ic.attrs.get("squeeze_dims", ()))
    if not squeeze_dims and None in dims:
        return [(ic.dtype(0), TensorShape(None))]
    axes = _squeeze_axes(dims, squeeze_dims)
    return [(ic.dtype(0), TensorShape([d for i, d in enumerate(dims) if i not in axes]))]


_SQUEEZE = register_op("Squeeze", kernel=_squeeze_kernel, infer=_squeeze_infer,
                       grad=lambda op, g: reshape(g, static_or_dynamic_shape(op.inputs[0])),
                       saves_inputs=False, saves_outputs=False)


def squeeze(input, axis=None, name=None):  # noqa: A002
    """Remove dimensions of size 1 (all of them, or only those in ``axis``)."""
    if axis is None:
        axis = []
    elif isinstance(axis, int):
        axis = [axis]
    return execute(_SQUEEZE, (to_tensor(input),), {"squeeze_dims": tuple(int(a) for a in axis)}, name=name)


# --------------------------------------------------------------------------------------
# Pack (stack) and Unpack (unstack)
# --------------------------------------------------------------------------------------
def _pack_kernel(xp):
    def k(*values, axis=0):
        return xp.stack(values, axis=axis)
    return k


def _pack_infer(ic):
    shape = ic.shape(0)
    for i in range(1, len(ic.inputs)):
        if not shape.is_compatible_with(ic.shape(i)):
            raise ValueError(f"Shapes must be equal rank, but are {ic.shape(0).rank} and {ic.shape(i).rank}; "
                             f"From merging shape 0 with other shapes. for '{{{{node Pack}}}}' with input "
                             f"shapes: {', '.join(_shapes.fmt(t.shape) for t in ic.inputs)}."
                             if shape.rank != ic.shape(i).rank else
                             f"Dimension mismatch in Pack: input 0 has shape {_shapes.fmt(ic.shape(0))} but "
                             f"input {i} has shape {_shapes.fmt(ic.shape(i))}; all inputs must have the same shape.")
        shape = shape.merge_with(ic.shape(i))
    if shape.rank is None:
        return [(ic.dtype(0), TensorShape(None))]
    axis = ic.attrs.get("axis", 0)
    r = shape.rank
    if not -r - 1 <= axis <= r:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-r - 1}, {r + 1})")
    axis %= r + 1
    dims = shape.as_list()
    return [(ic.dtype(0), TensorShape(dims[:axis] + [len(ic.inputs)] + dims[axis:]))]


_PACK = register_op("Pack", kernel=_pack_kernel, infer=_pack_infer,
                    grad=lambda op, g: unstack(g, num=len(op.inputs), axis=op.attrs.get("axis", 0)),
                    saves_inputs=False, saves_outputs=False)


def stack(values, axis=0, name="stack"):
    """Stack same-shaped tensors along a new ``axis``."""
    tensors = [to_tensor(v) for v in values]
    if not tensors:
        raise ValueError("stack() needs at least one tensor")
    check_same_dtype("Pack", *tensors)
    if ctx.graph is None:
        first = tensors[0].shape
        for i, t in enumerate(tensors[1:], start=1):
            if t.shape != first:
                raise InvalidArgumentError(
                    None, None, f"Shapes of all inputs must match: values[0].shape = {first} != values[{i}].shape "
                                f"= {t.shape} [Op:Pack] name: {name}")
        r = first.rank
        if not -r - 1 <= axis <= r:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-r - 1}, {r + 1})")
    return execute(_PACK, tuple(tensors), {"axis": int(axis), "N": len(tensors)}, name=name)


def _unpack_kernel(xp):
    def k(value, num, axis=0):
        return [xp.take(value, i, axis=axis) for i in range(num)]
    return k


def _unpack_infer(ic):
    x = ic.shape(0)
    axis = ic.attrs.get("axis", 0)
    num = ic.attrs["num"]
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None))] * num
    dims = x.as_list()
    axis %= len(dims)
    out = TensorShape(dims[:axis] + dims[axis + 1:])
    return [(ic.dtype(0), out)] * num


_UNPACK = register_op("Unpack", kernel=_unpack_kernel, infer=_unpack_infer,
                      grad=lambda op, *grads: stack(list(grads), axis=op.attrs.get("axis", 0)),
                      num_outputs=lambda attrs: attrs["num"], saves_inputs=False, saves_outputs=False)


def unstack(value, num=None, axis=0, name="unstack"):
    """Split ``value`` along ``axis`` into a list of tensors of rank one less."""
    x = to_tensor(value)
    if x.shape.rank is None:
        raise ValueError("Cannot infer argument `num` from shape <unknown>")
    r = x.shape.rank
    if not -r <= axis < r:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-r}, {r})")
    axis %= r
    if num is None:
        num = x.shape[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
    return execute(_UNPACK, (x,), {"num": int(num), "axis": int(axis)}, name=name)


# --------------------------------------------------------------------------------------
# Tile and BroadcastTo
# --------------------------------------------------------------------------------------
def _tile_kernel(xp):
    def k(x, multiples):
        m = _ints(multiples)
        if len(m) != x.ndim:
            raise InvalidArgumentError(None, None, f"Expected multiples argument to be a vector of length "
                                                   f"{x.ndim} but got length {len(m)}")
        return xp.tile(x, m)[()] if m else x
    return k


def _tile_infer(ic):
    x = ic.shape(0)
    m = ic.constant_value(1)
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None))]
    if m is None:
        return [(ic.dtype(0), TensorShape([None] * x.rank))]
    m = [int(v) for v in np.ravel(m)]
    if len(m) != x.rank:
        raise ValueError(f"Shape must be rank {x.rank} ... multiples has length {len(m)} for '{{{{node Tile}}}}' "
                         f"with input shapes: {_shapes.fmt(x)}, [{len(m)}].")
    return [(ic.dtype(0), TensorShape([None if d is None else d * k for d, k in zip(x.as_list(), m)]))]


def _tile_grad(op, grad):
    from .reduction_ops import reduce_sum
    x, multiples = op.inputs
    if x.shape.is_fully_defined() and isinstance(multiples, EagerTensor):
        dims = x.shape.as_list()
        m = [int(v) for v in np.ravel(multiples.numpy())]
        split = [v for pair in zip(m, dims) for v in pair]
        return reduce_sum(reshape(grad, split), list(builtins.range(0, 2 * len(dims), 2))), None
    split = reshape(transpose(stack([multiples, shape(x)])), [-1])
    axes = range(0, size(split), 2)
    return reduce_sum(reshape(grad, split), axes), None


_TILE = register_op("Tile", kernel=_tile_kernel, infer=_tile_infer, grad=_tile_grad, saves_inputs=(1,),
                    saves_outputs=False)


def tile(input, multiples, name=None):  # noqa: A002
    """Repeat ``input`` ``multiples[i]`` times along each axis ``i``."""
    return execute(_TILE, (to_tensor(input), int_tensor(multiples)), name=name)


def _broadcast_to_kernel(xp):
    def k(x, shape):
        target = _ints(shape)
        try:
            return xp.broadcast_to(x, target)[()] if target else xp.asarray(x)[()]
        except ValueError:
            raise InvalidArgumentError(None, None, f"Unable to broadcast tensor of shape {list(x.shape)} to "
                                                   f"tensor of shape {list(target)}") from None
    return k


def _broadcast_to_infer(ic):
    target = ic.constant_value(1)
    if target is None:
        n = ic.shape(1)
        return [(ic.dtype(0), TensorShape(None) if n.rank is None or n[0] is None else TensorShape([None] * n[0]))]
    target = [int(v) for v in np.ravel(target)]
    _shapes.broadcast_shapes(ic.shape(0), target, "BroadcastTo")
    return [(ic.dtype(0), TensorShape(target))]


def _broadcast_to_grad(op, grad):
    from .math_ops import unbroadcast
    return unbroadcast(grad, op.inputs[0]), None


_BROADCAST_TO = register_op("BroadcastTo", kernel=_broadcast_to_kernel, infer=_broadcast_to_infer,
                            grad=_broadcast_to_grad, saves_inputs=False, saves_outputs=False)


def broadcast_to(input, shape, name=None):  # noqa: A002
    """Broadcast ``input`` to ``shape`` (NumPy rules)."""
    return execute(_BROADCAST_TO, (to_tensor(input), int_tensor(_shape_arg(shape))), name=name)


def _bga_kernel(xp):
    def k(s0, s1):
        a, b = list(_ints(s0)), list(_ints(s1))
        n = max(len(a), len(b))
        a = [1] * (n - len(a)) + a
        b = [1] * (n - len(b)) + b
        r0 = [i for i in builtins.range(n) if a[i] == 1 and b[i] != 1 or (a[i] == 1 and b[i] == 1)]
        r1 = [i for i in builtins.range(n) if b[i] == 1 and a[i] != 1 or (a[i] == 1 and b[i] == 1)]
        for x, y in zip(a, b):
            if x != y and x != 1 and y != 1:
                raise InvalidArgumentError(None, None, f"Incompatible shapes: {a} vs. {b}")
        return np.asarray(r0, dtype=s0.dtype), np.asarray(r1, dtype=s0.dtype)
    return k


_BGA = register_op("BroadcastGradientArgs", kernel=_bga_kernel,
                   infer=lambda ic: [(ic.dtype(0), TensorShape([None]))] * 2, num_outputs=2,
                   doc="The axes each input was broadcast along, for reducing gradients at run time.")


def broadcast_gradient_args(s0, s1, name=None):
    return execute(_BGA, (int_tensor(s0), int_tensor(s1)), name=name)


# --------------------------------------------------------------------------------------
# OneHot
# --------------------------------------------------------------------------------------
def _one_hot_kernel(xp):
    def k(indices, depth, on_value, off_value, axis=-1):
        d = int(depth)
        idx = xp.asarray(indices)
        hot = xp.expand_dims(idx, -1) == xp.arange(d, dtype=idx.dtype)
        out = xp.where(hot, on_value, off_value).astype(on_value.dtype)
        if axis != -1 and axis != idx.ndim:
            out = xp.moveaxis(out, -1, axis)
        return out[()]
    return k


def _one_hot_infer(ic):
    x = ic.shape(0)
    depth = ic.constant_value(1)
    d = None if depth is None else int(depth)
    if x.rank is None:
        return [(ic.dtype(2), TensorShape(None))]
    dims = x.as_list()
    axis = ic.attrs.get("axis", -1)
    axis = len(dims) if axis == -1 else axis
    return [(ic.dtype(2), TensorShape(dims[:axis] + [d] + dims[axis:]))]


_ONE_HOT = register_op("OneHot", kernel=_one_hot_kernel, infer=_one_hot_infer)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot encode integer ``indices`` into a new axis of size ``depth`` (default float32)."""
    idx = to_tensor(indices)
    if dtype is None:
        if on_value is not None:
            dtype = to_tensor(on_value).dtype
        elif off_value is not None:
            dtype = to_tensor(off_value).dtype
        else:
            dtype = dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    on = convert_to_tensor(1 if on_value is None else on_value, dtype=dtype)
    off = convert_to_tensor(0 if off_value is None else off_value, dtype=dtype)
    if not idx.dtype.is_integer:
        raise TypeError(f"Value passed to parameter 'indices' has DataType {idx.dtype.name} not in list of "
                        f"allowed values: uint8, int8, int32, int64")
    return execute(_ONE_HOT, (idx, int_tensor(depth), on, off), {"axis": -1 if axis is None else int(axis)},
                   name=name)


# --------------------------------------------------------------------------------------
# where (SelectV2)
# --------------------------------------------------------------------------------------
def _select_grad(op, grad):
    from .math_ops import unbroadcast
    c, x, y = op.inputs
    zeros = zeros_like(grad)
    return None, unbroadcast(where(c, grad, zeros), x), unbroadcast(where(c, zeros, grad), y)


def _select_infer(ic):
    s = _shapes.broadcast_shapes(ic.shape(0), ic.shape(1), "SelectV2")
    return [(ic.dtype(1), _shapes.broadcast_shapes(s, ic.shape(2), "SelectV2"))]


_SELECT = register_op("SelectV2", kernel=lambda xp: (lambda c, x, y: xp.where(c, x, y)[()]), infer=_select_infer,
                      grad=_select_grad, saves_inputs=(0,), saves_outputs=False)


def where(condition, x=None, y=None, name=None):
    """``where(c, x, y)``: pick from ``x`` where ``c`` is true, else ``y`` (broadcasting).

    With only ``condition``, returns the int64 coordinates of true elements.
    """
    c = to_tensor(condition)
    if c.dtype is not dtypes.bool:
        from .math_ops import cast
        c = cast(c, dtypes.bool)
    if x is None and y is None:
        return _where_indices(c, name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    from ._dispatch import binary_inputs
    x, y = binary_inputs("SelectV2", x, y)
    return execute(_SELECT, (c, x, y), name=name)


_WHERE = register_op("Where", kernel=lambda xp: (lambda c: xp.stack(xp.nonzero(c), axis=-1).astype(np.int64)
                                                 if c.ndim else xp.zeros((int(bool(c)), 0), dtype=np.int64)),
                     infer=lambda ic: [(dtypes.int64, TensorShape([None, ic.shape(0).rank]))])


def _where_indices(c, name):
    return execute(_WHERE, (c,), name=name)


# --------------------------------------------------------------------------------------
# Range
# --------------------------------------------------------------------------------------
def _range_kernel(xp):
    def k(start, limit, delta):
        if delta == 0:
            raise InvalidArgumentError(None, None, "Requires delta != 0: 0")
        if (delta > 0 and start > limit) or (delta < 0 and start < limit):
            raise InvalidArgumentError(None, None, f"Requires start <= limit when delta > 0: {start}/{limit}"
                                       if delta > 0 else f"Requires start >= limit when delta < 0: {start}/{limit}")
        return xp.arange(start, limit, delta, dtype=start.dtype)
    return k


def _range_infer(ic):
    s, l, d = (ic.constant_value(i) for i in builtins.range(3))
    if s is None or l is None or d is None:
        return [(ic.dtype(0), TensorShape([None]))]
    n = max(0, int(np.ceil((float(l) - float(s)) / float(d))))
    return [(ic.dtype(0), TensorShape([n]))]


_RANGE = register_op("Range", kernel=_range_kernel, infer=_range_infer)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """``tf.range``: like Python's ``range``; int32 for ints, float32 for floats."""
    if limit is None:
        start, limit = 0, start
    args = [start, limit, delta]
    if dtype is None:
        inferred = [to_tensor(a).dtype if isinstance(a, Tensor) else dtypes.infer_dtype(a) for a in args]
        order = [dtypes.int32, dtypes.int64, dtypes.float16, dtypes.float32, dtypes.float64]
        dtype = max(inferred, key=lambda d: order.index(d) if d in order else 0)
    dtype = dtypes.as_dtype(dtype)
    from .math_ops import cast
    tensors = [cast(a, dtype) if isinstance(a, Tensor) else convert_to_tensor(a, dtype=dtype) for a in args]
    return execute(_RANGE, tuple(tensors), name=name)


# --------------------------------------------------------------------------------------
# Transpose
# --------------------------------------------------------------------------------------
def _transpose_kernel(xp):
    def k(x, perm):
        p = _ints(perm)
        if sorted(p) != list(builtins.range(x.ndim)):
            raise InvalidArgumentError(None, None, f"transpose expects a vector of size {x.ndim}. But input(1) "
                                                   f"is a vector of size {len(p)}" if len(p) != x.ndim else
                                       f"{list(p)} is not a valid permutation of {x.ndim} dimensions")
        return xp.transpose(x, p)
    return k


def _transpose_infer(ic):
    x = ic.shape(0)
    perm = ic.constant_value(1)
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None) if perm is None else TensorShape([None] * len(np.ravel(perm))))]
    if perm is None:
        return [(ic.dtype(0), TensorShape([None] * x.rank))]
    p = [int(v) for v in np.ravel(perm)]
    if sorted(p) != list(builtins.range(x.rank)):
        raise ValueError(f"Dimension must be {x.rank} but is {len(p)} for '{{{{node Transpose}}}}' with input "
                         f"shapes: {_shapes.fmt(x)}, [{len(p)}]." if len(p) != x.rank else
                         f"{p} is not a valid permutation for a tensor of rank {x.rank}")
    dims = x.as_list()
    return [(ic.dtype(0), TensorShape([dims[i] for i in p]))]


def _transpose_grad(op, grad):
    perm = op.inputs[1]
    if isinstance(perm, EagerTensor):
        return transpose(grad, list(np.argsort(perm.numpy()))), None
    return transpose(grad, invert_permutation(perm)), None


_TRANSPOSE = register_op("Transpose", kernel=_transpose_kernel, infer=_transpose_infer, grad=_transpose_grad,
                         saves_inputs=(1,), saves_outputs=False)
_INVERT_PERMUTATION = register_op("InvertPermutation", kernel=lambda xp: (lambda p: xp.argsort(p).astype(p.dtype)),
                                  infer=lambda ic: [(ic.dtype(0), ic.shape(0))])


def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permute dimensions; the default reverses them."""
    x = to_tensor(a)
    if perm is None:
        if x.shape.rank is not None:
            perm = list(builtins.range(x.shape.rank))[::-1]
        else:
            from .math_ops import subtract
            perm = subtract(subtract(rank(x), 1), range(rank(x)))
    return execute(_TRANSPOSE, (x, int_tensor(perm)), name=name)


def invert_permutation(x, name=None):
    return execute(_INVERT_PERMUTATION, (int_tensor(x),), name=name)
