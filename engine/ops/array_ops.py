"""Array manipulation: shapes, reshaping, joining, splitting, padding, gathering, creating.

Arguments that describe shapes (``shape``, ``axis``, ``multiples``, ``perm``,
``paddings``, ``indices``) are int32 tensor *inputs*, as in TF, so they can be
computed at run time in a graph. Shape functions read them with
``ic.constant_value(i)`` when known and fall back to unknown dimensions otherwise.

Reading guide: every op below is one ``register_op`` call (kernel factory, shape
function, gradient) followed by the public function users call. Gradients are
written with the public functions of this package, so they are recorded like any
other op and can be differentiated again. Many come in pairs that are each
other's gradient: Pad/Slice, Gather/ScatterNd, Concat/Split, MirrorPad/MirrorPadGrad,
StridedSlice/StridedSliceGrad (in ``slicing.py``).

Note on names: this module defines ``range`` and ``slice`` (``tf.range``,
``tf.slice``), so Python's own are spelled ``builtins.range`` / ``builtins.slice``.
"""
import builtins
import numbers

import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError
from ..framework.graph import constant_value
from ..framework.indexed_slices import IndexedSlices
from ..framework.registry import register_op
from ..framework.tensor import (EagerTensor, Tensor, constant as _constant, convert_to_tensor,
                                converted_by_wrapper)
from ..framework.tensor_shape import Dimension, TensorShape
from . import _shapes
from . import _dispatch, math_ops, reduction_ops  # noqa: E402  (used at call time)
from ._dispatch import check_same_dtype, execute, int_tensor, to_tensor

__all__ = [
    "reshape", "shape", "size", "rank", "identity", "zeros_like", "ones_like", "zeros", "ones", "fill",
    "expand_dims", "squeeze", "stack", "unstack", "concat", "split", "tile", "one_hot", "broadcast_to",
    "pad", "reverse", "gather", "gather_nd", "scatter_nd", "boolean_mask", "where", "range", "linspace",
    "eye", "stop_gradient", "transpose", "invert_permutation", "strided_slice", "slice",
]

_INDEX_DTYPES = frozenset([dtypes.int16, dtypes.int32, dtypes.int64])
_fmt = _shapes.fmt


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------
def static_or_dynamic_shape(x):
    """``x``'s shape as a Python list when fully known, else as an int32 tensor (graph mode)."""
    s = x.shape
    if s.is_fully_defined():
        return s.as_list()
    return shape(x)


def _ints(a):
    """An index/shape input array as a tuple of Python ints (works for NumPy and CuPy)."""
    return tuple(int(v) for v in (a.ravel() if hasattr(a, "ravel") else np.ravel(a)).tolist())


def _host(a):
    """A small index array (paddings, ...) as NumPy, keeping its shape (CuPy arrays are copied to the host)."""
    if isinstance(a, (np.ndarray, np.generic)):
        return np.asarray(a)
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _scalar(v):
    """A rank-0 kernel input as a Python scalar (NumPy scalar or 0-d CuPy array), for ``xp.full``-style fills."""
    return v.item() if hasattr(v, "item") else v


def _iae(message):
    return InvalidArgumentError(None, None, message)


def kernel_outputs(values):
    """What the kernel of a list op (its output count an attr: ``Unpack``, ``Split`` ...) returns for ``values``:
    the list, or its one value bare, which is how every executor takes a single output."""
    return values[0] if len(values) == 1 else values


def output_list(result):
    """The outputs of an op with a *list* of outputs (``Unpack``, ``Split``, ``DynamicPartition`` ...) as a list.

    Eager ``execute`` already returns a list for such ops; a graph returns a lone tensor when the list
    has one entry and the ``Operation`` when it has none, so ``tf.unstack(p)`` of a ``[1, 3]``
    placeholder would be a tensor (and ``[0]`` a slice of it). TF returns a list either way.
    """
    if isinstance(result, list):
        return result
    return [result] if isinstance(result, Tensor) else []


def _const_ints(ic, i):
    """The value of input ``i`` as a list of ints when known at build time, else None."""
    value = ic.constant_value(i)
    return None if value is None else [int(v) for v in np.ravel(value)]


def _shape_from_input(ic, i):
    """The (partial) shape described by int vector input ``i``: TF's ``constant_value_as_shape``.

    Uses :func:`partial_input`, so ``reshape(g, tf.shape(x))`` keeps what is known of ``x``'s
    shape; negative or unknown entries are unknown dimensions.
    """
    dims = partial_input(ic, i)
    if dims is None:
        return TensorShape(None)
    return TensorShape([d if d is not None and d >= 0 else None for d in dims])


def partial_input(ic, i):
    """The entries of int vector input ``i`` of a shape function known while building: a list with ``None``
    for unknown entries, or ``None`` if even its length is unknown. See :func:`partial_value`."""
    value = ic.constant_value(i)
    if value is not None:
        return [int(v) for v in np.ravel(value)]
    return partial_value(ic.inputs[i])


def partial_value(t):
    """The entries of the int vector ``t`` known without running anything: a list (``None`` for an
    unknown entry), or ``None`` when even its length is unknown.

    A known value gives every entry; ``tf.shape(x)`` gives ``x``'s static dimensions; ``tf.stack``
    of scalars and ``tf.concat`` of vectors combine what is known of their parts.
    """
    value = known_value(t)
    if value is not None:
        return [int(v) for v in np.ravel(value)]
    op = getattr(t, "op", None) if not _is_eager(t) else None
    if op is not None:
        if op.type == "Shape":
            s = op.inputs[0].shape
            return None if s.rank is None else s.as_list()
        if op.type == "Pack" and op.attrs.get("axis", 0) == 0 and all(p.shape.rank == 0 for p in op.inputs):
            values = [known_value(p) for p in op.inputs]
            return [None if v is None else int(v) for v in values]
        if op.type == "ConcatV2" and known_value(op.inputs[-1]) is not None and int(known_value(op.inputs[-1])) == 0:
            parts = [partial_value(p) for p in op.inputs[:-1]]
            if all(p is not None for p in parts):
                return [v for p in parts for v in p]
    n = t.shape
    if n.rank == 1 and n[0] is not None:
        return [None] * n[0]
    return None


def _is_eager(t):
    return isinstance(t, EagerTensor)


def known_value(t):
    """``t``'s NumPy value when known without running anything (eager tensors, graph constants), else None.

    Gradient functions use it to read small int inputs (axes, paddings, perms) and
    build static shapes; when it returns None they fall back to dynamic shape ops.
    """
    if isinstance(t, EagerTensor):
        return t.numpy()
    try:
        return constant_value(t)
    except Exception:
        return None


def _convert_n(values):
    """Convert a list argument (``Pack``, ``ConcatV2``) the way TF's eager op wrappers do.

    The dtype comes from the first tensor in the list; if there is none, from the
    first value. Python values are converted to that dtype (so ``[1, 2.5]`` with a
    leading int fails like in TF); tensors of another dtype are left for the op's
    dtype check to report.
    """
    dtype = None
    for v in values:
        if isinstance(v, Tensor) or hasattr(v, "__tf_tensor__"):
            dtype = to_tensor(v).dtype
            break
    out = []
    for v in values:
        if isinstance(v, Tensor) or hasattr(v, "__tf_tensor__"):
            out.append(to_tensor(v))
        elif dtype is None:
            t = to_tensor(v)
            dtype = t.dtype
            out.append(t)
        else:
            out.append(convert_to_tensor(v, dtype=dtype))
    return out


def _check_index_dtype(op_name, t, attr="Tindices"):
    """Integer indices, or TF's error (a graph node whose row declares its indices checks them itself)."""
    if t.dtype not in _INDEX_DTYPES and not _dispatch._checked_at_creation(op_name):
        message = (f"Value for attr '{attr}' of {t.dtype.name} is not in the list of allowed values: int16, int32, "
                   f"int64; NodeDef: {{{{node {op_name}}}}}. Indices must be integers: cast them with tf.cast.")
        if ctx.graph is not None:
            raise TypeError(message)
        raise _iae(message + f" [Op:{op_name}]")


# --------------------------------------------------------------------------------------
# Reshape
# --------------------------------------------------------------------------------------
def _resolve_reshape(n_in, dims, in_dims=None):
    """TF's Reshape rule: fill in a ``-1`` and check the element count. Returns the dims or raises.

    As in TF, zero-sized dimensions are left out of the products used to infer the
    ``-1``, so ``[0, 3] -> [-1, 0]`` gives ``[3, 0]``. ``n_in=None`` (unknown input
    size) leaves the ``-1`` as an unknown dimension. Raises ``_ReshapeError``.
    """
    if n_in is not None:
        # Fast path for the usual request: positive sizes and at most one -1. Then the rules below
        # reduce to "the sizes multiply to n_in" (no -1) or "the -1 is n_in // product, which
        # must divide exactly" (the input's element count equals n_in, and with no 0 among the
        # requested sizes every input dim counts). Anything else (a 0, a second -1, a negative
        # size, a size that does not fit) falls through to the full rules and their errors.
        product, unknown = 1, -1
        for i, d in enumerate(dims):
            if d > 0:
                product *= d
            elif d == -1 and unknown < 0:
                unknown = i
            else:
                break
        else:
            if unknown < 0:
                if product == n_in:
                    return list(dims)
            elif n_in % product == 0:
                out = list(dims)
                out[unknown] = n_in // product
                return out
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1:
        raise _ReshapeError(f"Only one input size may be -1, not both {unknown[0]} and {unknown[1]}")
    for i, d in enumerate(dims):
        if d < -1:
            raise _ReshapeError(f"Size {i} must be non-negative, not {d}")
    has_zero = 0 in dims
    product = 1
    for d in dims:
        if d > 0:
            product *= d
    if not unknown:
        if n_in is not None and int(np.prod(dims, dtype=np.int64)) != n_in:
            raise _ReshapeError(f"Input to reshape is a tensor with {n_in} values, but the requested shape has "
                                f"{int(np.prod(dims, dtype=np.int64))}")
        return list(dims)
    if n_in is None:
        return [None if d == -1 else d for d in dims]
    count, in_has_zero = 1, False
    for d in (in_dims if in_dims is not None else [n_in]):
        if d > 0 or not has_zero:
            count *= d
        else:
            in_has_zero = True
    missing = count // product if product else 0
    if not in_has_zero and product * missing != count:
        raise _ReshapeError(f"Input to reshape is a tensor with {count} values, but the requested shape requires "
                            f"a multiple of {product}")
    out = [missing if d == -1 else d for d in dims]
    if int(np.prod(out, dtype=np.int64)) != n_in:
        raise _ReshapeError(f"Input to reshape is a tensor with {n_in} values, but the requested shape has "
                            f"{int(np.prod(out, dtype=np.int64))}")
    return out


class _ReshapeError(Exception):
    pass


def _shape_list(shape):
    """A 1-D integer NumPy shape input as a list of Python ints (``tolist`` gives exactly what
    :func:`_ints` gives, in one call); None for anything else (CuPy, other ranks or dtypes)."""
    if type(shape) is np.ndarray and shape.ndim == 1 and shape.dtype.kind in "iu":
        return shape.tolist()
    return None


def _reshape_kernel(xp):
    def k(x, shape):
        dims = _shape_list(shape)
        if dims is None:
            if np.ndim(shape) > 1:
                raise _iae(f"sizes input must be 1-D, not {_fmt(np.shape(shape))}")
            dims = _ints(shape)
        try:
            out = _resolve_reshape(int(x.size), dims, x.shape)
        except _ReshapeError as e:
            raise _iae(str(e)) from None      # TF's words exactly (the shapes are in the static error)
        # ``np.reshape(x, out)`` is ``x.reshape(out)`` behind a Python wrapper (for arrays and NumPy scalars)
        return x.reshape(out) if xp is np else xp.reshape(x, out)
    return k


def _reshape_infer(ic):
    x = ic.shape(0)
    dims = _const_ints(ic, 1)
    if dims is None:
        return [(ic.dtype(0), _shape_from_input(ic, 1))]
    try:
        out = _resolve_reshape(x.num_elements(), dims, x.as_list() if x.is_fully_defined() else None)
    except _ReshapeError as e:
        raise ValueError(f"Cannot reshape a tensor with {x.num_elements()} elements to shape {dims}: {e}; for "
                         f"'{{{{node Reshape}}}}' with input shapes: {_fmt(x)}, [{len(dims)}].") from None
    return [(ic.dtype(0), TensorShape(out))]


def _reshape_grad(op, grad):
    return reshape(grad, static_or_dynamic_shape(op.inputs[0])), None


_RESHAPE = register_op("Reshape", kernel=_reshape_kernel, infer=_reshape_infer, grad=_reshape_grad,
                       saves_inputs=False, saves_outputs=False, linear="linear")


def reshape(tensor, shape, name=None):
    """Same values, new shape. One dimension may be ``-1`` (inferred from the element count)."""
    x = to_tensor(tensor)
    return execute(_RESHAPE, (x, int_tensor(list(shape) if isinstance(shape, TensorShape) else shape)),
                   name=name)


# --------------------------------------------------------------------------------------
# Shape, Size, Rank
# --------------------------------------------------------------------------------------
def _shape_kernel(xp):
    return lambda x, out_type=dtypes.int32: xp.asarray(x.shape, dtype=out_type._np)


_SHAPE = register_op("Shape", kernel=_shape_kernel,
                     infer=lambda ic: [(ic.attrs.get("out_type", dtypes.int32), TensorShape([ic.shape(0).rank]))],
                     shape_only="shape")
_SIZE = register_op("Size", kernel=lambda xp: (lambda x, out_type=dtypes.int32: out_type._np.type(x.size)),
                    infer=lambda ic: [(ic.attrs.get("out_type", dtypes.int32), TensorShape([]))], shape_only="shape")
_RANK = register_op("Rank", kernel=lambda xp: (lambda x: np.int32(x.ndim)),
                    infer=lambda ic: [(dtypes.int32, TensorShape([]))], shape_only="rank")


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
# Identity, stop_gradient, zeros/ones, Fill
# --------------------------------------------------------------------------------------
_IDENTITY = register_op("Identity", kernel=lambda xp: (lambda x: x), infer=_shapes.same_as_input,
                        grad=lambda op, g: g, saves_inputs=False, saves_outputs=False, forwarding=True,
                        linear="identity")
_STOP_GRADIENT = register_op("StopGradient", kernel=lambda xp: (lambda x: x), infer=_shapes.same_as_input,
                             grad=None, forwarding=True,
                             doc="Identity forward; blocks gradients (the tape does not record it).")
def _zeros_like_kernel(xp):
    def k(x):
        if type(x) is np.ndarray and x.dtype == object and x.size and isinstance(x.flat[0], bytes):
            return np.zeros_like(x, dtype="S1")[()]   # a string value held as bytes objects: empty strings
        return xp.zeros_like(x)[()]
    return k


_ZEROS_LIKE = register_op("ZerosLike", kernel=_zeros_like_kernel, infer=_shapes.same_as_input)
_ONES_LIKE = register_op("OnesLike", kernel=lambda xp: (lambda x: xp.ones_like(x)[()]),
                         infer=_shapes.same_as_input)


def identity(input, name=None):  # noqa: A002
    """Return a tensor with the same value (a new node in a graph; gradient passes through)."""
    return execute(_IDENTITY, (to_tensor(input),), name=name)


def stop_gradient(input, name=None):  # noqa: A002
    """Identity, but gradients do not flow through it."""
    return execute(_STOP_GRADIENT, (to_tensor(input),), name=name)


def zeros_like(input, dtype=None, name=None):  # noqa: A002
    """Zeros with the shape (and by default the dtype) of ``input``. Not differentiable (constant)."""
    x = to_tensor(input) if not hasattr(input, "_is_variable") else input._read_untracked()
    out = execute(_ZEROS_LIKE, (x,), name=name)
    if dtype is not None and dtypes.as_dtype(dtype) != out.dtype:
        cast = math_ops.cast
        out = cast(out, dtype)
    return out


def ones_like(input, dtype=None, name=None):  # noqa: A002
    """Ones with the shape (and by default the dtype) of ``input``."""
    x = to_tensor(input) if not hasattr(input, "_is_variable") else input._read_untracked()
    out = execute(_ONES_LIKE, (x,), name=name)
    if dtype is not None and dtypes.as_dtype(dtype) != out.dtype:
        cast = math_ops.cast
        out = cast(out, dtype)
    return out


def _fill_kernel(xp):
    def k(dims, value):
        d = _ints(dims)
        if np.ndim(value) != 0:
            raise _iae(f"value must represent a scalar, got shape {_fmt(np.shape(value))}")
        for v in d:
            if v < 0:
                raise _iae(f"Dimension {v} must be >= 0")
        return xp.full(d, _scalar(value), dtype=value.dtype)[()]
    return k


def _fill_infer(ic):
    return [(ic.dtype(1), _shape_from_input(ic, 0))]


def _fill_grad(op, grad):
    reduce_sum = reduction_ops.reduce_sum
    return None, reduce_sum(grad)


_FILL = register_op("Fill", kernel=_fill_kernel, infer=_fill_infer, grad=_fill_grad, saves_inputs=False,
                    saves_outputs=False)


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with the scalar ``value`` (dtype inferred from ``value``)."""
    return execute(_FILL, (int_tensor(dims), to_tensor(value)), name=name)


def _shape_arg(shape_value):
    if isinstance(shape_value, TensorShape):
        return shape_value.as_list()
    if isinstance(shape_value, (int, np.integer)):
        return [int(shape_value)]
    return shape_value


def _converted_shape(shape_value):
    """``tf.zeros``/``tf.ones``' shape, converted first, as TF's functions do before their Fill."""
    shape_value = _shape_arg(shape_value)
    if ctx.graph is None and isinstance(shape_value, (list, tuple)):   # (it matters only to eager errors)
        return converted_by_wrapper(int_tensor(shape_value))
    return shape_value


def _typed_scalar(value, dtype):
    if dtype is dtypes.string and value == 0:
        return convert_to_tensor(b"", dtype=dtype)  # tf.zeros of strings holds empty strings
    if dtype is dtypes.bool:
        return convert_to_tensor(bool(value))
    return convert_to_tensor(value, dtype=dtype)


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros (default float32; ``False`` for bool)."""
    return fill(_converted_shape(shape), _typed_scalar(0, dtypes.as_dtype(dtype)), name=name or "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones (default float32; ``True`` for bool)."""
    return fill(_converted_shape(shape), _typed_scalar(1, dtypes.as_dtype(dtype)), name=name or "ones")


# --------------------------------------------------------------------------------------
# ExpandDims, Squeeze
# --------------------------------------------------------------------------------------
def _expand_dims_kernel(xp):
    def k(x, dim):
        kind = type(dim)
        axes = (int(dim),) if kind is np.int32 or kind is np.int64 else _ints(dim)  # (a scalar axis: the usual)
        if len(axes) != 1:
            raise _iae("'dim' must be a tensor with a single value")
        (axis,) = axes
        r = x.ndim
        if not -r - 1 <= axis <= r:
            raise _iae(f"Tried to expand dim index {axis} for tensor with {r} dimensions. "
                       f"The axis must be in [{-r - 1}, {r}].")
        if xp is np:
            # What ``np.expand_dims`` does after its argument checks (done above already):
            # a reshape with a 1 inserted at the (normalized) axis. The same view of the same values.
            a = axis % (r + 1)
            shape = x.shape
            return x.reshape(shape[:a] + (1,) + shape[a:])
        return xp.expand_dims(x, axis)
    return k


def _expand_dims_infer(ic):
    x = ic.shape(0)
    axis = _const_ints(ic, 1)
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None))]
    if axis is None:
        return [(ic.dtype(0), TensorShape([None] * (x.rank + 1)))]
    if len(axis) != 1:
        raise ValueError(f"'dim' input must be a tensor with a single value for '{{{{node ExpandDims}}}}' with "
                         f"input shapes: {_fmt(x)}, [{len(axis)}].")
    a, r = axis[0], x.rank
    if not -r - 1 <= a <= r:
        raise ValueError(f"Tried to expand dim index {a} for tensor with {r} dimensions. for "
                         f"'{{{{node ExpandDims}}}}' with input shapes: {_fmt(x)}, [].")
    a %= r + 1
    dims = x.as_list()
    return [(ic.dtype(0), TensorShape(dims[:a] + [1] + dims[a:]))]


_EXPAND_DIMS = register_op("ExpandDims", kernel=_expand_dims_kernel, infer=_expand_dims_infer,
                           grad=_reshape_grad, saves_inputs=False, saves_outputs=False, linear="linear")


def expand_dims(input, axis, name=None):  # noqa: A002
    """Insert a dimension of size 1 at ``axis`` (negative counts from the end of the *result*)."""
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
                             f"'{{{{node {op_name}}}}}' with input shapes: {_fmt(shape_dims)}.")
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
                       saves_inputs=False, saves_outputs=False, linear="linear")


def squeeze(input, axis=None, name=None):  # noqa: A002
    """Remove dimensions of size 1 (all of them, or only those in ``axis``)."""
    if axis is None:
        axis = []
    elif isinstance(axis, (numbers.Integral, np.integer)):
        axis = [axis]
    return execute(_SQUEEZE, (to_tensor(input),), {"squeeze_dims": tuple(int(a) for a in axis)}, name=name)


# --------------------------------------------------------------------------------------
# Pack (stack) and Unpack (unstack)
# --------------------------------------------------------------------------------------
def _pack_kernel(xp):
    def k(*values, axis=0, N=None):  # noqa: N803 (TF attr name)
        return xp.stack(values, axis=axis)
    return k


def _merge_same_shapes(ic, op_name):
    """Merge the (partial) shapes of all inputs, which must agree; ValueError naming both if not."""
    merged = ic.shape(0)
    for i in builtins.range(1, len(ic.inputs)):
        s = ic.shape(i)
        if not merged.is_compatible_with(s):
            if merged.rank != s.rank:
                raise ValueError(f"Shapes must be equal rank, but are {merged.rank} and {s.rank}; From merging "
                                 f"shape 0 with other shapes. for '{{{{node {op_name}}}}}' with input shapes: "
                                 f"{', '.join(_fmt(t.shape) for t in ic.inputs)}.")
            raise ValueError(f"Dimension mismatch in {op_name}: input 0 has shape {_fmt(ic.shape(0))} but input {i} "
                             f"has shape {_fmt(s)}; all inputs must have the same shape.")
        merged = merged.merge_with(s)
    return merged


def _pack_infer(ic):
    merged = _merge_same_shapes(ic, "Pack")
    if merged.rank is None:
        return [(ic.dtype(0), TensorShape(None))]
    axis, r = ic.attrs.get("axis", 0), merged.rank
    if not -r - 1 <= axis <= r:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-r - 1}, {r + 1})")
    axis %= r + 1
    dims = merged.as_list()
    return [(ic.dtype(0), TensorShape(dims[:axis] + [len(ic.inputs)] + dims[axis:]))]


_PACK = register_op("Pack", eager_error_name='stack', kernel=_pack_kernel, infer=_pack_infer,
                    grad=lambda op, g: unstack(g, num=len(op.inputs), axis=op.attrs.get("axis", 0)),
                    saves_inputs=False, saves_outputs=False, linear="linear", inputs="values: N * T")


def stack(values, axis=0, name="stack"):
    """Stack same-shaped tensors along a new ``axis`` (rank grows by one).

    As in TF, a list of plain Python/NumPy values stacked along axis 0 is simply
    converted to one constant (``tf.stack([1, 2.5])`` is a float32 vector).
    """
    if axis == 0 and not any(isinstance(v, Tensor) or hasattr(v, "__tf_tensor__") for v in values):
        try:
            return convert_to_tensor(values)
        except (TypeError, ValueError):
            pass  # ragged or mixed: let Pack report it
    tensors = _convert_n(values)
    if not tensors:
        raise ValueError("stack() needs at least one tensor")
    check_same_dtype("Pack", *tensors)
    first = tensors[0].shape
    if first.rank is not None:
        r = first.rank
        if not -r - 1 <= axis <= r:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-r - 1}, {r + 1})")
    if ctx.graph is None:
        for i, t in enumerate(tensors[1:], start=1):
            if t.shape != first:
                raise InvalidArgumentError(
                    None, None, f"Shapes of all inputs must match: values[0].shape = {_fmt(first)} != "
                                f"values[{i}].shape = {_fmt(t.shape)} [Op:Pack] name: {name}")
    return execute(_PACK, tuple(tensors), {"axis": int(axis), "N": len(tensors)}, name=name)


def _unpack_kernel(xp):
    def k(value, num, axis=0):
        if value.shape[axis] != num:
            raise _iae(f"Input shape axis {axis} must equal {num}, got shape {_fmt(value.shape)}")
        moved = xp.moveaxis(value, axis, 0) if axis else value
        return kernel_outputs([moved[i] for i in builtins.range(num)])
    return k


def _unpack_infer(ic):
    x = ic.shape(0)
    axis = ic.attrs.get("axis", 0)
    num = ic.attrs["num"]
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None))] * num
    dims = x.as_list()
    axis %= len(dims)
    if dims[axis] is not None and dims[axis] != num:
        raise ValueError(f"Dimension must be {num} but is {dims[axis]} for '{{{{node Unpack}}}}' with input "
                         f"shapes: {_fmt(x)}.")
    return [(ic.dtype(0), TensorShape(dims[:axis] + dims[axis + 1:]))] * num


_UNPACK = register_op("Unpack", eager_error_name='unstack', kernel=_unpack_kernel, infer=_unpack_infer,
                      grad=lambda op, *grads: stack(list(grads), axis=op.attrs.get("axis", 0)),
                      num_outputs=lambda attrs: attrs["num"], saves_inputs=False, saves_outputs=False,
                      linear="linear")


def unstack(value, num=None, axis=0, name="unstack"):
    """Split ``value`` along ``axis`` into a list of ``num`` tensors of rank one less."""
    x = to_tensor(value)
    r = x.shape.rank
    if r is None:
        if num is None:
            raise ValueError("Cannot infer argument `num` from shape <unknown>")
        return output_list(execute(_UNPACK, (x,), {"num": int(num), "axis": int(axis)}, name=name))  # rank unknown
    if not -r <= axis < r:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-r}, {r})")
    axis %= r
    if num is None:
        num = x.shape[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
    return output_list(execute(_UNPACK, (x,), {"num": int(num), "axis": int(axis)}, name=name))


# --------------------------------------------------------------------------------------
# ConcatV2
# --------------------------------------------------------------------------------------
def _concat_kernel(xp):
    def k(*args, N=None):  # noqa: N803
        values, axis = args[:-1], int(args[-1])
        shapes = [v.shape for v in values]
        r = len(shapes[0])
        if r == 0:
            raise _iae("ConcatOp : Can't concatenate scalars (use tf.stack instead)")
        if not -r <= axis < r:
            raise _iae(f"ConcatOp : Expected concatenating dimensions in the range [{-r}, {r}), but got {axis}")
        a = axis % r
        for i, s in enumerate(shapes[1:], start=1):
            if len(s) != r:
                raise _iae(f"ConcatOp : Ranks of all input tensors should match: shape[0] = {_fmt(shapes[0])} vs. "
                           f"shape[{i}] = {_fmt(s)}")
            for d in builtins.range(r):
                if d != a and s[d] != shapes[0][d]:
                    raise _iae(f"ConcatOp : Dimension {d} in both shapes must be equal: shape[0] = "
                               f"{_fmt(shapes[0])} vs. shape[{i}] = {_fmt(s)}")
        return xp.concatenate(values, axis=a)
    return k


def _concat_infer(ic):
    n = len(ic.inputs) - 1
    shapes = [ic.shape(i) for i in builtins.range(n)]
    dtype = ic.dtype(0)
    ranks = {s.rank for s in shapes if s.rank is not None}
    if not ranks:
        return [(dtype, TensorShape(None))]
    if len(ranks) > 1:
        raise ValueError(f"Shape must be rank {min(ranks)} but is rank {max(ranks)} for '{{{{node ConcatV2}}}}' "
                         f"with input shapes: {', '.join(_fmt(s) for s in shapes)}, [].")
    r = ranks.pop()
    if r == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead) for '{{node ConcatV2}}' with input shapes: "
                         + ", ".join(_fmt(s) for s in shapes) + ", [].")
    axis = _const_ints(ic, n)
    if axis is None:
        return [(dtype, TensorShape([None] * r))]
    axis = axis[0]
    if not -r <= axis < r:
        raise ValueError(f"ConcatOp : Expected concatenating dimensions in the range [{-r}, {r}), but got {axis}")
    a = axis % r
    out = []
    for d in builtins.range(r):
        column = [s[d] for s in shapes if s.rank is not None]
        if d == a:
            out.append(None if any(c is None for c in column) or len(column) < n else sum(column))
            continue
        known = {c for c in column if c is not None}
        if len(known) > 1:
            first, other = sorted(known)[:2]
            raise ValueError(f"Dimension {d} in both shapes must be equal, but are {first} and {other}. Shapes are "
                             f"{', '.join(_fmt(s) for s in shapes)}. for '{{{{node ConcatV2}}}}'.")
        out.append(known.pop() if known else None)
    return [(dtype, TensorShape(out))]


def _concat_grad(op, grad):
    """Split the incoming gradient back into pieces the sizes of the inputs (along the concat axis)."""
    values, axis_t = op.inputs[:-1], op.inputs[-1]
    r = grad.shape.rank
    axis = known_value(axis_t)
    axis = None if axis is None else int(axis)
    if axis is not None and r is not None and all(v.shape[axis % r] is not None for v in values):
        a = axis % r
        parts = split(grad, [v.shape[a] for v in values], axis=a)
    else:
        floormod = math_ops.floormod
        a = floormod(axis_t, rank(grad))
        sizes = stack([gather(shape(v), a) for v in values])
        parts = execute(_SPLITV, (grad, sizes, axis_t), {"num_split": len(values)})
    return list(parts) + [None]


_CONCAT = register_op("ConcatV2", eager_error_name='concat', kernel=_concat_kernel, infer=_concat_infer, grad=_concat_grad,
                      saves_inputs=(-1,), saves_outputs=False, linear="linear",
                      inputs="values: N * T, axis: Tidx", type_attrs={"Tidx": [dtypes.int32, dtypes.int64]},
                      doc="Join tensors along an existing axis. The gradient needs only the axis value (the last "
                          "input) and the shapes of the others.")


def concat(values, axis, name="concat"):
    """Join tensors along an existing ``axis``; all other dimensions must match."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if not values:
        raise InvalidArgumentError(None, None, "ConcatOp : Expected a non-empty list of tensors to concatenate "
                                               "[Op:ConcatV2]")
    axis_t = int_tensor(axis)
    if len(values) == 1:  # as TF: a degenerate concat is an identity
        if axis_t.shape.rank not in (None, 0):
            raise ValueError(f"Shape {axis_t.shape} must have rank 0")
        return identity(values[0], name=name)
    tensors = _convert_n(values)
    check_same_dtype("ConcatV2", *tensors)
    return execute(_CONCAT, tuple(tensors) + (axis_t,), {"N": len(tensors)}, name=name)


# --------------------------------------------------------------------------------------
# Split and SplitV
# --------------------------------------------------------------------------------------
def _split_axis(d, r):
    if not -r <= d < r:
        raise _iae(f"-input rank(-{r}) <= split_dim < input rank ({r}), but got {d}")
    return d % r


def _split_kernel(xp):
    def k(split_dim, value, num_split):
        d = _split_axis(int(split_dim), value.ndim)
        n = value.shape[d]
        if n % num_split:
            raise _iae(f"Number of ways to split should evenly divide the split dimension, but got split_dim {d} "
                       f"(size = {n}) and num_split {num_split}")
        return kernel_outputs(xp.split(value, num_split, axis=d))
    return k


def _split_dim_error(op_name, value, r, shapes):
    """TF's ``MakeDimForScalarInputWithNegativeIndexing`` error for a split axis out of range."""
    return ValueError(f"Dimension size, given by scalar input {value} must be in range [-{r}, {r}) for "
                      f"'{{{{node {op_name}}}}}' with input shapes: {shapes}.")


def _split_infer(ic):
    x = ic.shape(1)
    num = ic.attrs["num_split"]
    dtype = ic.dtype(1)
    if x.rank is None:
        return [(dtype, TensorShape(None))] * num
    axis = _const_ints(ic, 0)
    if axis is None:
        return [(dtype, TensorShape([None] * x.rank))] * num
    r = x.rank
    if not -r <= axis[0] < r:
        raise _split_dim_error("Split", axis[0], r, f"[], {_fmt(x)}")
    d = axis[0] % r
    dims = x.as_list()
    if dims[d] is not None:
        if dims[d] % num:
            raise ValueError(f"Dimension size must be evenly divisible by {num} but is {dims[d]}\n\tNumber of ways "
                             f"to split should evenly divide the split dimension for '{{{{node Split}}}}' with "
                             f"input shapes: [], {_fmt(x)}.")
        dims[d] //= num
    return [(dtype, TensorShape(dims))] * num


_SPLIT = register_op("Split", eager_error_name='split', kernel=_split_kernel, infer=_split_infer,
                     grad=lambda op, *grads: (None, concat(list(grads), op.inputs[0])),
                     num_outputs=lambda attrs: attrs["num_split"], saves_inputs=(0,), saves_outputs=False,
                     linear="linear")


def _resolve_split_sizes(sizes, n):
    """Fill in a ``-1`` entry of SplitV's sizes and check they add up to ``n``. Raises ``_ReshapeError``."""
    neg = [i for i, s in enumerate(sizes) if s == -1]
    if len(neg) > 1:
        raise _ReshapeError("There can only be one -1 in the input.")
    for i, s in enumerate(sizes):
        if s < -1:
            raise _ReshapeError(f"Split size at index {i} must be >= 0. Got: {s}")
    known = sum(s for s in sizes if s != -1)
    if n is None:
        return [None if s == -1 else s for s in sizes]
    if (neg and known > n) or (not neg and known != n):
        raise _ReshapeError("Determined shape must either match input shape along split_dim exactly if fully "
                            "specified, or be less than the size of the input along split_dim if not fully "
                            f"specified.  Got: {known}")
    return [n - known if s == -1 else s for s in sizes]


def _splitv_kernel(xp):
    def k(value, size_splits, split_dim, num_split):
        d = _split_axis(int(split_dim), value.ndim)
        sizes = list(_ints(size_splits))
        if len(sizes) != num_split:
            raise _iae(f"SplitV: size_splits has {len(sizes)} entries but num_split is {num_split}")
        try:
            sizes = _resolve_split_sizes(sizes, value.shape[d])
        except _ReshapeError as e:
            raise _iae(str(e)) from None
        out, start = [], 0
        lead = (builtins.slice(None),) * d
        for s in sizes:
            out.append(value[lead + (builtins.slice(start, start + s),)])
            start += s
        return kernel_outputs(out)
    return k


def _splitv_infer(ic):
    x = ic.shape(0)
    num = ic.attrs["num_split"]
    dtype = ic.dtype(0)
    if x.rank is None:
        return [(dtype, TensorShape(None))] * num
    axis = _const_ints(ic, 2)
    if axis is None:
        return [(dtype, TensorShape([None] * x.rank))] * num
    r = x.rank
    shapes = f"{_fmt(x)}, {_fmt(ic.shape(1))}, []"
    if r == 0:
        raise ValueError(f"Can't split scalars for '{{{{node SplitV}}}}' with input shapes: {shapes}.")
    if not -r <= axis[0] < r:
        raise _split_dim_error("SplitV", axis[0], r, shapes)
    d = axis[0] % r
    sizes = _const_ints(ic, 1)
    dims = x.as_list()
    if sizes is None:
        return [(dtype, TensorShape(dims[:d] + [None] + dims[d + 1:]))] * num
    # TF's SplitV shape function, step by step (its messages differ from the kernel's)
    n = dims[d]
    if sizes.count(-1) > 1:
        raise ValueError(f"size_splits can only have one -1 for '{{{{node SplitV}}}}' with input shapes: {shapes}.")
    total = sum(v for v in sizes if v != -1)
    out = []
    for i, v in enumerate(sizes):
        if v == -1 and n is not None:
            v = n - total
        if v < -1 or (v == -1 and n is not None):
            raise ValueError(f"Split size at index {i} must be >= 0. Got: {v} for '{{{{node SplitV}}}}' with input "
                             f"shapes: {shapes}.")
        out.append(None if v == -1 else v)
    if n is not None and (total > n if -1 in sizes else total != n):
        raise ValueError(f"can't split axis of size {n} into pieces of size [{','.join(map(str, sizes))}] for "
                         f"'{{{{node SplitV}}}}' with input shapes: {shapes}.")
    return [(dtype, TensorShape(dims[:d] + [v] + dims[d + 1:])) for v in out]


_SPLITV = register_op("SplitV", eager_error_name='split', kernel=_splitv_kernel, infer=_splitv_infer,
                      grad=lambda op, *grads: (concat(list(grads), op.inputs[2]), None, None),
                      num_outputs=lambda attrs: attrs["num_split"], saves_inputs=(2,), saves_outputs=False,
                      linear="linear")


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Split ``value`` along ``axis``: into ``n`` equal pieces (an int) or pieces of the given sizes (a list).

    One size may be ``-1`` (the rest). Returns a list of tensors.
    """
    x = to_tensor(value)
    axis_t = int_tensor(axis)
    if isinstance(num_or_size_splits, (numbers.Integral, Dimension)) and not isinstance(num_or_size_splits, bool):
        n = int(num_or_size_splits.value if isinstance(num_or_size_splits, Dimension) else num_or_size_splits)
        if n < 1:
            if ctx.graph is not None:
                raise ValueError(f"Attr 'num_split' of 'Split' Op passed {n} less than minimum 1.")
            raise InvalidArgumentError(None, None, f"Value for attr 'num_split' of {n} must be at least minimum 1 "
                                                   f"[Op:Split] name: {name}")
        return output_list(execute(_SPLIT, (axis_t, x), {"num_split": n}, name=name))
    sizes = converted_by_wrapper(int_tensor(num_or_size_splits))   # (TF's tf.split converts them first)
    if sizes.shape.rank == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument to split. Argument "
                         f"provided: {num_or_size_splits}")
    if num is None:
        num = sizes.shape[0] if sizes.shape.rank is not None else None
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    return output_list(execute(_SPLITV, (x, sizes, axis_t), {"num_split": int(num)}, name=name))


# --------------------------------------------------------------------------------------
# Tile and BroadcastTo
# --------------------------------------------------------------------------------------
def _tile_kernel(xp):
    def k(x, multiples):
        m = _ints(multiples)
        if len(m) != x.ndim:
            raise _iae(f"Expected multiples argument to be a vector of length {x.ndim} but got length {len(m)}")
        for i, v in enumerate(m):
            if v < 0:
                raise _iae(f"Expected multiples[{i}] >= 0, but got {v}")
        return xp.tile(x, m)[()] if m else x
    return k


def _tile_infer(ic):
    x = ic.shape(0)
    m = _const_ints(ic, 1)
    if x.rank is None:
        n = ic.shape(1)
        return [(ic.dtype(0), TensorShape([None] * n[0]) if n.rank == 1 and n[0] is not None else TensorShape(None))]
    if m is None:
        return [(ic.dtype(0), TensorShape([None] * x.rank))]
    if len(m) != x.rank:
        raise ValueError(f"Shape must be rank {x.rank} but multiples has length {len(m)} for '{{{{node Tile}}}}' "
                         f"with input shapes: {_fmt(x)}, [{len(m)}].")
    return [(ic.dtype(0), TensorShape([None if d is None else d * k for d, k in zip(x.as_list(), m)]))]


def _tile_grad(op, grad):
    """Reshape the gradient to interleaved ``[m0, d0, m1, d1, ...]`` and sum over the ``m`` axes."""
    reduce_sum = reduction_ops.reduce_sum
    x, multiples = op.inputs
    m = known_value(multiples)
    if x.shape.is_fully_defined() and m is not None:
        dims = x.shape.as_list()
        m = _ints(m)
        split_shape = [v for pair in zip(m, dims) for v in pair]
        return reduce_sum(reshape(grad, split_shape), list(builtins.range(0, 2 * len(dims), 2))), None
    split_shape = reshape(transpose(stack([multiples, shape(x, out_type=multiples.dtype)])), [-1])
    r = x.shape.rank
    axes = range(0, size(split_shape), 2) if r is None else list(builtins.range(0, 2 * r, 2))
    g = reduce_sum(reshape(grad, split_shape), axes)
    if r is not None:
        g.set_shape(x.shape)  # TF's _TileGrad: the gradient has the input's static shape
    return g, None


_TILE = register_op("Tile", kernel=_tile_kernel, infer=_tile_infer, grad=_tile_grad, saves_inputs=(1,),
                    saves_outputs=False, linear="linear")


def tile(input, multiples, name=None):  # noqa: A002
    """Repeat ``input`` ``multiples[i]`` times along each axis ``i``."""
    return execute(_TILE, (to_tensor(input), int_tensor(multiples)), name=name)


def _check_broadcast_to(in_dims, target):
    """TF's checks for BroadcastTo; returns an error message or None. Unknown dims (None) pass."""
    if len(in_dims) > len(target):
        return f"Rank of input ({len(in_dims)}) must be no greater than rank of output shape ({len(target)})."
    lead = len(target) - len(in_dims)
    compatible, exact = True, True
    for a, t in zip(in_dims, target[lead:]):
        if a is None or t is None or a == t or a == 1:
            continue
        exact = False
        if t != 1:
            compatible = False
    if not compatible:
        return f"Incompatible shapes: {_fmt(in_dims)} vs. {_fmt(target)}"
    if not exact:
        return f"Unable to broadcast tensor of shape {_fmt(in_dims)} to tensor of shape {_fmt(target)}"
    return None


def _broadcast_to_kernel(xp):
    def k(x, shape):
        dims = _shape_list(shape)
        target = tuple(dims) if dims is not None else _ints(shape)
        if x.shape != target:   # (a tensor of the target shape passes every check below)
            for d in target:
                if d < 0:
                    raise _iae(f"Dimension {d} must be >= 0")
            problem = _check_broadcast_to(list(x.shape), list(target))
            if problem:
                raise _iae(problem)
        if xp is np:
            # The same new C-ordered array as ``np.broadcast_to(x, target).copy()``, filled by an
            # assignment (which broadcasts ``x``) without building the strided view in Python first.
            out = np.empty(target, dtype=x.dtype)
            out[...] = x
            return out[()]
        return xp.broadcast_to(x, target).copy()[()]  # a real array, not a read-only strided view
    return k


def _broadcast_to_infer(ic):
    out = _shape_from_input(ic, 1)
    x = ic.shape(0)
    if out.rank is not None and x.rank is not None:
        problem = _check_broadcast_to(x.as_list(), out.as_list())
        if problem:
            raise ValueError(f"{problem} for '{{{{node BroadcastTo}}}}' with input shapes: {_fmt(x)}, "
                             f"[{out.rank}].")
    return [(ic.dtype(0), out)]


def _broadcast_to_grad(op, grad):
    unbroadcast = math_ops.unbroadcast
    return unbroadcast(grad, op.inputs[0]), None


_BROADCAST_TO = register_op("BroadcastTo", kernel=_broadcast_to_kernel, infer=_broadcast_to_infer,
                            grad=_broadcast_to_grad, saves_inputs=False, saves_outputs=False, linear="linear")


def broadcast_to(input, shape, name=None):  # noqa: A002
    """Broadcast ``input`` to ``shape`` (NumPy rules: align right, size-1 dims stretch)."""
    return execute(_BROADCAST_TO, (to_tensor(input), int_tensor(_shape_arg(shape))), name=name)


def _bga_kernel(xp):
    def k(s0, s1):
        a, b = list(_ints(s0)), list(_ints(s1))
        if a == b:  # TF's fast path: identical shapes need no reduction at all
            return xp.zeros((0,), dtype=s0.dtype), xp.zeros((0,), dtype=s0.dtype)
        n = max(len(a), len(b))
        a = [1] * (n - len(a)) + a
        b = [1] * (n - len(b)) + b
        for x, y in zip(a, b):
            if x != y and x != 1 and y != 1:
                raise _iae(f"Incompatible shapes: {_fmt(_ints(s0))} vs. {_fmt(_ints(s1))}")
        r0 = [i for i in builtins.range(n) if a[i] == 1]
        r1 = [i for i in builtins.range(n) if b[i] == 1]
        return xp.asarray(r0, dtype=s0.dtype), xp.asarray(r1, dtype=s0.dtype)
    return k


_BGA = register_op("BroadcastGradientArgs", kernel=_bga_kernel,
                   infer=lambda ic: [(ic.dtype(0), TensorShape([None]))] * 2, num_outputs=2,
                   doc="The axes each input was broadcast along, for reducing gradients at run time.")


def broadcast_gradient_args(s0, s1, name=None):
    """``(r0, r1)``: the axes to sum a broadcast result's gradient over, for inputs of shapes s0 and s1."""
    return execute(_BGA, (int_tensor(s0), int_tensor(s1)), name=name)


# --------------------------------------------------------------------------------------
# Pad, PadV2, MirrorPad (+ MirrorPadGrad)
# --------------------------------------------------------------------------------------
def _paddings(x, paddings):
    """Validate a ``[rank, 2]`` paddings array against ``x``; returns a list of (before, after) pairs."""
    p = _host(paddings)
    if p.ndim != 2 or p.shape[1] != 2:
        raise _iae(f"paddings must be a matrix with 2 columns: {_fmt(p.shape)}")
    if p.shape[0] != x.ndim:
        raise _iae(f"The first dimension of paddings must be the rank of inputs{_fmt(p.shape)} {_fmt(x.shape)}")
    pairs = [(int(a), int(b)) for a, b in p]
    for a, b in pairs:
        if a < 0 or b < 0:
            raise _iae(f"Paddings must be non-negative: {a} {b}")
    return pairs


def _pad_kernel(xp):
    def k(x, paddings, constant_values=None):
        pairs = _paddings(x, paddings)
        if constant_values is None:
            fill_value = 0
        else:
            if np.ndim(constant_values) != 0:
                raise _iae(f"constant_values must be a scalar. Shape of constant_values is "
                           f"{_fmt(np.shape(constant_values))}")
            fill_value = _scalar(constant_values)
        out_shape = tuple(d + a + b for d, (a, b) in zip(x.shape, pairs))
        out = xp.full(out_shape, fill_value, dtype=x.dtype)
        out[tuple(builtins.slice(a, a + d) for d, (a, _) in zip(x.shape, pairs))] = x
        return out[()]
    return k


def _pad_infer(ic):
    x = ic.shape(0)
    p = ic.constant_value(1)
    if p is None:
        ps = ic.shape(1)
        r = x.rank if x.rank is not None else (ps[0] if ps.rank == 2 else None)
        return [(ic.dtype(0), TensorShape(None if r is None else [None] * r))]
    p = np.asarray(p)
    if p.ndim != 2 or p.shape[1] != 2 or (x.rank is not None and p.shape[0] != x.rank):
        raise ValueError(f"Paddings must be a [rank, 2] matrix, got shape {_fmt(p.shape)} for "
                         f"'{{{{node {ic.op_name}}}}}' with input shapes: {_fmt(x)}, {_fmt(p.shape)}.")
    dims = x.as_list() if x.rank is not None else [None] * p.shape[0]
    return [(ic.dtype(0), TensorShape([None if d is None else d + int(a) + int(b) for d, (a, b) in zip(dims, p)]))]


def _pad_grad(op, grad):
    """Cut the padding off again: a Slice of the gradient starting at the ``before`` paddings."""
    x, paddings = op.inputs[0], op.inputs[1]
    p = known_value(paddings)
    if p is not None and x.shape.is_fully_defined():
        begin = [int(a) for a, _ in np.asarray(p).reshape(-1, 2)]
        g = slice(grad, begin, x.shape.as_list())
    else:
        begin = reshape(slice(paddings, [0, 0], [-1, 1]), [-1])
        g = slice(grad, begin, shape(x, out_type=paddings.dtype))
    return (g,) + (None,) * (len(op.inputs) - 1)


_PAD = register_op("Pad", kernel=_pad_kernel, infer=_pad_infer, grad=_pad_grad, saves_inputs=(1,),
                   saves_outputs=False, linear="linear")
_PADV2 = register_op("PadV2", kernel=_pad_kernel, infer=_pad_infer, grad=_pad_grad, saves_inputs=(1,),
                     saves_outputs=False, linear="linear", doc="Pad with a given constant; no gradient for the constant (as TF).")


def _mirror_pairs(x, paddings, mode):
    pairs = _paddings(x, paddings)
    for d, (a, b) in zip(x.shape, pairs):
        if mode == "REFLECT" and (a >= d or b >= d):
            raise _iae(f"paddings must be less than the dimension size: {a}, {b} not less than {d}")
        if mode == "SYMMETRIC" and (a > d or b > d):
            raise _iae(f"paddings must be no greater than the dimension size: {a}, {b} greater than {d}")
    return pairs


def _mirror_pad_kernel(xp):
    def k(x, paddings, mode="REFLECT"):
        pairs = _mirror_pairs(x, paddings, mode)
        if not pairs:
            return x
        return xp.pad(x, pairs, mode=mode.lower())
    return k


def _mirror_pad_grad_kernel(xp):
    """Fold a padded gradient back: each mirrored cell adds its gradient to the cell it copied."""
    def k(grad, paddings, mode="REFLECT"):
        p = _host(paddings).reshape(-1, 2)
        out = grad
        edge = 1 if mode == "REFLECT" else 0   # REFLECT does not repeat the border element
        for axis, (a, b) in enumerate(p.tolist()):
            g = xp.moveaxis(out, axis, 0)
            n = g.shape[0] - a - b
            core = g[a:a + n].copy()
            if a:
                core[edge:edge + a] += g[:a][::-1]
            if b:
                core[n - edge - b:n - edge] += g[a + n:][::-1]
            out = xp.moveaxis(core, 0, axis)
        return xp.ascontiguousarray(out)[()]
    return k


def _mirror_pad_grad_infer(ic):
    x = ic.shape(0)
    p = ic.constant_value(1)
    if x.rank is None or p is None:
        return [(ic.dtype(0), TensorShape(None if x.rank is None else [None] * x.rank))]
    p = np.asarray(p).reshape(-1, 2)
    return [(ic.dtype(0), TensorShape([None if d is None else d - int(a) - int(b) for d, (a, b) in zip(x, p)]))]


_MIRROR_PAD = register_op(
    "MirrorPad", kernel=_mirror_pad_kernel, infer=_pad_infer,
    grad=lambda op, g: (execute(_MIRROR_PAD_GRAD, (g, op.inputs[1]), {"mode": op.attrs["mode"]}), None),
    saves_inputs=(1,), saves_outputs=False, linear="linear")
_MIRROR_PAD_GRAD = register_op(
    "MirrorPadGrad", kernel=_mirror_pad_grad_kernel, infer=_mirror_pad_grad_infer,
    grad=lambda op, g: (execute(_MIRROR_PAD, (g, op.inputs[1]), {"mode": op.attrs["mode"]}), None),
    saves_inputs=(1,), saves_outputs=False, doc="Gradient of MirrorPad; its own gradient is MirrorPad.")


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pad ``tensor`` by ``paddings[i] = [before, after]`` along each axis ``i``.

    ``mode``: ``"CONSTANT"`` (fill with ``constant_values``), ``"REFLECT"``
    (mirror without repeating the edge, ``paddings < dim``) or ``"SYMMETRIC"``
    (mirror repeating the edge, ``paddings <= dim``); case-insensitive.
    """
    x = to_tensor(tensor)
    p = int_tensor(paddings)
    mode = mode.upper()
    if mode == "CONSTANT":
        if not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 and constant_values == 0:
            return execute(_PAD, (x, p), name=name)
        cv = to_tensor(constant_values) if isinstance(constant_values, Tensor) else \
            convert_to_tensor(constant_values, dtype=x.dtype)
        check_same_dtype("PadV2", x, cv)
        return execute(_PADV2, (x, p, cv), name=name)
    if mode in ("REFLECT", "SYMMETRIC"):
        return execute(_MIRROR_PAD, (x, p), {"mode": mode}, name=name)
    raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                     f"Received `mode` = {mode}")


# --------------------------------------------------------------------------------------
# ReverseV2
# --------------------------------------------------------------------------------------
def _reverse_axes(axes, r, error):
    seen = []
    for i, a in enumerate(axes):
        if not -r <= a < r:
            raise error(f"'axis'[{i}] = {a} is out of valid range [0, {r - 1}]")
        a %= r
        if a in seen:
            raise error(f"axis {a} specified more than once.")
        seen.append(a)
    return tuple(seen)


def _reverse_kernel(xp):
    def k(tensor, axis):
        if tensor.ndim == 0:   # TF's kernel returns a scalar as it is, whatever the axes (its shape function
            return tensor      # refuses them while a graph is built)
        axes = _reverse_axes(_ints(axis), tensor.ndim, _iae)
        return xp.flip(tensor, axis=axes) if axes else tensor
    return k


def _reverse_infer(ic):
    x = ic.shape(0)
    axes = _const_ints(ic, 1)
    if x.rank is not None and axes is not None:
        _reverse_axes(axes, x.rank, ValueError)
    return [(ic.dtype(0), x)]


_REVERSE = register_op("ReverseV2", kernel=_reverse_kernel, infer=_reverse_infer,
                       grad=lambda op, g: (reverse(g, op.inputs[1]), None), saves_inputs=(1,), saves_outputs=False,
                       linear="linear")


def reverse(tensor, axis, name=None):
    """Reverse the order of elements along each axis in ``axis`` (a list)."""
    return execute(_REVERSE, (to_tensor(tensor), int_tensor(axis)), name=name)


# --------------------------------------------------------------------------------------
# GatherV2
# --------------------------------------------------------------------------------------
def _first_bad(xp, bad):
    """Coordinates of the first True in ``bad`` as TF prints them: ``[1,0]``, or ``''`` for a scalar."""
    coords = xp.argwhere(bad)[0].tolist() if bad.ndim else []
    return ",".join(str(c) for c in coords)


def _gather_kernel(xp):
    def k(params, indices, axis, batch_dims=0):
        r = params.ndim
        idx = xp.asarray(indices)
        a = int(axis)
        if a >= r:
            raise _iae(f"Shape must be at least rank {a + 1} but is rank {r}")
        if a < -r:
            raise _iae(f"Expected axis in the range [{-r}, {r}), but got {a}")
        a %= r
        b = batch_dims + idx.ndim if batch_dims < 0 else batch_dims
        if b > a:
            raise _iae(f"batch_dims ({batch_dims}) must be less than or equal to axis ({a}).")
        if b > idx.ndim:
            raise _iae(f"batch_dims ({batch_dims}) must be less than rank(indices) ({idx.ndim}).")
        for i in builtins.range(b):
            if params.shape[i] != idx.shape[i]:
                raise _iae(f"params.shape[{i}]: {params.shape[i]} should be equal to indices.shape[{i}]: "
                           f"{idx.shape[i]}")
        n = params.shape[a]
        bad = (idx < 0) | (idx >= n)
        if idx.size and bool(bad.any()):
            where_bad = _first_bad(xp, bad)
            value = int(idx[tuple(xp.argwhere(bad)[0].tolist())]) if idx.ndim else int(idx)
            label = f"indices[{where_bad}]" if idx.ndim else "indices"
            raise _iae(f"{label} = {value} is not in [0, {n})")
        if b == 0:
            return xp.take(params, idx, axis=a)[()]
        # batch_dims > 0: index the batch dimensions with broadcast aranges (advanced indexing).
        nj = idx.ndim - b
        index = []
        for i in builtins.range(b):
            s = [1] * (b + nj)
            s[i] = params.shape[i]
            index.append(xp.arange(params.shape[i]).reshape(s))
        index += [builtins.slice(None)] * (a - b) + [idx]
        out = params[tuple(index)]
        if a > b:  # NumPy put the advanced dims (batch + indices) before the sliced ones; move them back
            no = a - b
            perm = (list(builtins.range(b)) + list(builtins.range(b + nj, b + nj + no))
                    + list(builtins.range(b, b + nj)) + list(builtins.range(b + nj + no, out.ndim)))
            out = xp.transpose(out, perm)
        return out[()]
    return k


def _gather_infer(ic):
    p, i = ic.shape(0), ic.shape(1)
    b = ic.attrs.get("batch_dims", 0)
    dtype = ic.dtype(0)
    if p.rank is None or i.rank is None:
        return [(dtype, TensorShape(None))]
    if b < 0:
        b += i.rank
    axis = _const_ints(ic, 2)
    if axis is None:
        return [(dtype, TensorShape([None] * (p.rank - 1 + i.rank - b)))]
    a = axis[0]
    if not -p.rank <= a < p.rank:
        raise ValueError(f"Shape must be at least rank {a + 1} but is rank {p.rank} for '{{{{node GatherV2}}}}' "
                         f"with input shapes: {_fmt(p)}, {_fmt(i)}, [].")
    a %= p.rank
    pd, idims = p.as_list(), i.as_list()
    return [(dtype, TensorShape(pd[:a] + idims[b:] + pd[a + 1:]))]


def _batch_coordinates(batch, inner, dtype):
    """For batch dims ``B`` and index dims ``J``: one int tensor per batch dim, shaped ``B + J``, holding its index."""
    coords = []
    for k, n in enumerate(batch):
        s = [1] * (len(batch) + len(inner))
        s[k] = n
        coords.append(broadcast_to(reshape(range(n, dtype=dtype), s), list(batch) + list(inner)))
    return coords


def _gather_grad(op, grad):
    """Scatter-add the gradient rows back to the rows they were gathered from.

    Eagerly, for ``axis=0`` and ``batch_dims=0`` (what ``tf.gather(params, ids)`` and
    ``tf.nn.embedding_lookup`` do), the gradient is a ``tf.IndexedSlices`` as in TF:
    ``values`` = the incoming gradient reshaped to ``[len(ids)] + params.shape[1:]``,
    ``indices`` = the flattened ids, ``dense_shape`` = ``params``' shape (int32). Nothing
    is scattered until someone densifies it (see ``engine/framework/indexed_slices.py``).
    Otherwise (another axis, batch dims, or inside a graph / ``tf.function``, where the
    engine's graph gradients stay dense) the dense equivalent is built with ScatterNd.
    """
    cast = math_ops.cast
    params, indices, axis_t = op.inputs
    if indices.dtype == dtypes.int16:
        indices = cast(indices, dtypes.int32)
    p, idx_shape = params.shape, indices.shape
    r = p.rank
    axis = known_value(axis_t)
    b = op.attrs.get("batch_dims", 0)
    if ctx.graph is None and b == 0 and axis is not None and r and int(axis) % r == 0 and p.is_fully_defined():
        dims = p.as_list()
        values = reshape(grad, [-1] + dims[1:])
        return IndexedSlices(values, reshape(indices, [-1]), _constant(dims, dtype=dtypes.int32)), None, None
    if axis is None or r is None or idx_shape.rank is None:
        if b:
            raise NotImplementedError("The gradient of gather with batch_dims needs a known axis and known ranks.")
        return _gather_grad_dynamic(params, indices, axis_t, grad), None, None
    a = int(axis) % r
    if b < 0:
        b += idx_shape.rank
    nj = idx_shape.rank - b
    no, ni = a - b, r - a - 1
    # grad has shape B + O + J + I; bring it to B + J + O + I (scatter_nd's updates layout).
    perm1 = (list(builtins.range(b)) + list(builtins.range(b + no, b + no + nj)) + list(builtins.range(b, b + no))
             + list(builtins.range(b + no + nj, b + no + nj + ni)))
    g = transpose(grad, perm1) if perm1 != sorted(perm1) else grad
    if p.is_fully_defined() and idx_shape.is_fully_defined():
        dims = p.as_list()
        target = dims[:b] + [dims[a]] + dims[b:a] + dims[a + 1:]
        if b == 0:
            nd = expand_dims(indices, -1)
        else:
            nd = stack(_batch_coordinates(dims[:b], idx_shape.as_list()[b:], indices.dtype) + [indices], axis=-1)
    else:
        if b:
            raise NotImplementedError("The gradient of gather with batch_dims > 0 needs static shapes.")
        ps = shape(params, out_type=indices.dtype)
        target = gather(ps, [a] + list(builtins.range(a)) + list(builtins.range(a + 1, r)))
        nd = expand_dims(indices, -1)
    scattered = scatter_nd(nd, g, target)                      # B + [N] + O + I
    perm2 = list(builtins.range(b)) + list(builtins.range(b + 1, b + 1 + no)) + [b] + \
        list(builtins.range(b + 1 + no, r))
    return (transpose(scattered, perm2) if perm2 != sorted(perm2) else scattered), None, None


def _gather_grad_dynamic(params, indices, axis_t, grad):
    """The gradient of gather for an axis or ranks known only at run time (graph inputs), as TF computes it.

    ``grad`` has shape ``O + indices.shape + I`` (``O``/``I``: params dims before/after the axis).
    Flatten the indices dims to one of size ``N``, move it to the front, scatter-add the rows into
    ``[params.shape[axis]] + O + I`` and move that axis back into place.
    """
    cast, floormod = math_ops.cast, math_ops.floormod
    ps = shape(params, out_type=indices.dtype)
    r = rank(params)
    a = floormod(cast(reshape(axis_t, [1]), dtypes.int32), r)
    outer = slice(ps, [0], a)
    inner = slice(ps, a + 1, [-1])
    values = reshape(grad, concat([outer, reshape(size(indices, out_type=indices.dtype), [1]), inner], 0))
    perm = concat([a, range(a[0]), range(a[0] + 1, r)], 0)
    rows = scatter_nd(reshape(indices, [-1, 1]), transpose(values, perm), concat([slice(ps, a, [1]), outer, inner], 0))
    g = transpose(rows, invert_permutation(perm))
    g.set_shape(params.shape)
    return g


_GATHER = register_op("GatherV2", kernel=_gather_kernel, infer=_gather_infer, grad=_gather_grad,
                      saves_inputs=(1, 2), saves_outputs=False, linear="linear",
                      inputs="params: Tparams, indices: Tindices, axis: Taxis",
                      type_attrs={"Tindices": _INDEX_DTYPES, "Taxis": [dtypes.int32, dtypes.int64]})


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Pick slices of ``params`` along ``axis`` at ``indices``; result shape
    ``params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis+1:]``.

    ``batch_dims=b``: the first ``b`` dims of ``params`` and ``indices`` are batch
    dims, gathered pairwise. Like TF 2.21, an explicit ``axis=0`` ignores
    ``batch_dims`` (``axis=None`` means ``axis=batch_dims``).

    Out-of-range indices raise ``InvalidArgumentError`` (TF's CPU behaviour; TF on
    GPU silently writes zeros). Eagerly, the gradient for ``params`` (``axis=0``) is a
    ``tf.IndexedSlices``, as in TF; in graphs and ``tf.function`` it is the equivalent
    dense tensor.
    """
    p = to_tensor(params)
    idx = to_tensor(indices)
    _check_index_dtype("GatherV2", idx)
    if axis is None:
        axis = batch_dims
    axis_t = int_tensor(axis)
    axis_value = known_value(axis_t)   # eager values and graph constants alike, as TF's constant_value
    if axis_value is not None and int(axis_value) == 0:
        batch_dims = 0  # TF 2.21's tf.gather drops batch_dims when axis is 0 (it calls GatherV2 without it)
    return execute(_GATHER, (p, idx, axis_t), {"batch_dims": int(batch_dims)}, name=name)


# --------------------------------------------------------------------------------------
# GatherNd and ScatterNd
# --------------------------------------------------------------------------------------
def _gather_nd_kernel(xp):
    def k(params, indices):
        idx = xp.asarray(indices)
        if idx.ndim == 0:
            raise _iae(f"indices must be at least a vector, got shape {_fmt(idx.shape)}")
        depth = idx.shape[-1]
        if depth > params.ndim:
            raise _iae(f"index innermost dimension length must be <= params rank; saw: {depth} vs. {params.ndim}")
        flat = idx.reshape(int(np.prod(idx.shape[:-1], dtype=np.int64)), depth)
        limits = xp.asarray(params.shape[:depth], dtype=idx.dtype)
        bad = xp.any((flat < 0) | (flat >= limits), axis=1)
        if flat.size and bool(bad.any()):
            row = int(xp.argwhere(bad)[0][0])
            raise _iae(f"indices[{row}] = [{', '.join(str(v) for v in flat[row].tolist())}] does not index into "
                       f"param shape {_fmt(params.shape)}, node name: GatherNd")
        out_shape = idx.shape[:-1] + params.shape[depth:]
        if depth == 0:
            return xp.broadcast_to(params, out_shape).copy()[()]
        picked = params[tuple(flat[:, j] for j in builtins.range(depth))]
        return picked.reshape(out_shape)[()]
    return k


def _gather_nd_infer(ic):
    p, i = ic.shape(0), ic.shape(1)
    if i.rank is None or p.rank is None or i[-1] is None:
        return [(ic.dtype(0), TensorShape(None))]
    depth = i[-1]
    if depth > p.rank:
        raise ValueError(f"index innermost dimension length must be <= params rank; saw: {depth} vs. {p.rank} for "
                         f"'{{{{node GatherNd}}}}' with input shapes: {_fmt(p)}, {_fmt(i)}.")
    return [(ic.dtype(0), TensorShape(i.as_list()[:-1] + p.as_list()[depth:]))]


_GATHER_ND = register_op(
    "GatherNd", kernel=_gather_nd_kernel, infer=_gather_nd_infer,
    grad=lambda op, g: (scatter_nd(op.inputs[1], g, static_or_dynamic_shape(op.inputs[0])), None),
    saves_inputs=(1,), saves_outputs=False, linear="linear",
    inputs="params: Tparams, indices: Tindices", type_attrs={"Tindices": _INDEX_DTYPES})


def _scatter_add(xp, out, coords, values):
    if xp is np or hasattr(xp.add, "at"):
        xp.add.at(out, coords, values)
    else:  # older CuPy
        import cupyx
        cupyx.scatter_add(out, coords, values)


def _scatter_nd_kernel(xp):
    def k(indices, updates, shape):
        dims = _ints(shape)
        for d in dims:
            if d < 0:
                raise _iae(f"Dimension {d} must be >= 0")
        idx = xp.asarray(indices)
        upd = xp.asarray(updates)
        depth = idx.shape[-1] if idx.ndim else 0
        nb = max(idx.ndim - 1, 0)
        if idx.ndim == 0 or tuple(upd.shape[:nb]) != tuple(idx.shape[:nb]):
            raise _iae(f"Dimensions [0,{nb}) of indices[shape={_fmt(idx.shape)}] must match dimensions [0,{nb}) of "
                       f"updates[shape={_fmt(upd.shape)}]")
        if depth > len(dims) or tuple(upd.shape[nb:]) != tuple(dims[depth:]):
            raise _iae(f"Dimensions [{depth},{len(dims)}) of input[shape={_fmt(dims)}] must match dimensions "
                       f"[{nb},{upd.ndim}) of updates[shape={_fmt(upd.shape)}]")
        flat = idx.reshape(int(np.prod(idx.shape[:-1], dtype=np.int64)), depth)
        limits = xp.asarray(dims[:depth], dtype=idx.dtype)
        bad = xp.any((flat < 0) | (flat >= limits), axis=1)
        if flat.size and bool(bad.any()):
            row = int(xp.argwhere(bad)[0][0])
            raise _iae(f"indices[{row}] = [{', '.join(str(v) for v in flat[row].tolist())}] does not index into "
                       f"shape {_fmt(dims)}")
        out = xp.zeros(dims, dtype=upd.dtype)
        values = upd.reshape((flat.shape[0],) + tuple(dims[depth:]))
        if depth == 0:
            out += values.sum(axis=0, dtype=out.dtype) if out.dtype != np.bool_ else values.any(axis=0)
        else:
            _scatter_add(xp, out, tuple(flat[:, j] for j in builtins.range(depth)), values)
        return out[()]
    return k


def _scatter_nd_infer(ic):
    return [(ic.dtype(1), _shape_from_input(ic, 2))]


_SCATTER_ND = register_op(
    "ScatterNd", kernel=_scatter_nd_kernel, infer=_scatter_nd_infer,
    grad=lambda op, g: (None, gather_nd(g, op.inputs[0]), None), saves_inputs=(0,), saves_outputs=False,
    linear="linear", doc="Sum ``updates`` into a zero tensor of ``shape`` at ``indices``; duplicates add up.")


def gather_nd(params, indices, batch_dims=0, name=None):
    """Gather slices of ``params`` addressed by the last axis of ``indices`` (a multi-index).

    ``indices[..., :k]`` indexes the first ``k`` dims of ``params``; result shape
    ``indices.shape[:-1] + params.shape[k:]``. With ``batch_dims=b`` the first
    ``b`` dims of both are batch dims (built here from ``GatherNd``, as TF does).
    """
    p = to_tensor(params)
    idx = to_tensor(indices)
    _check_index_dtype("GatherNd", idx)
    if batch_dims:
        b = int(batch_dims)
        if not (p.shape.is_fully_defined() and idx.shape.is_fully_defined()):
            raise NotImplementedError("gather_nd with batch_dims > 0 needs static shapes in the engine.")
        ishape = idx.shape.as_list()
        coords = _batch_coordinates(p.shape.as_list()[:b], ishape[b:-1], idx.dtype)
        idx = concat([stack(coords, axis=-1), idx], axis=-1)
    return execute(_GATHER_ND, (p, idx), name=name)


def scatter_nd(indices, updates, shape, name=None):
    """A zero tensor of ``shape`` with ``updates`` added at ``indices`` (duplicate indices add up).

    The inverse of ``gather_nd``: ``indices.shape[:-1] + shape[k:] == updates.shape``.
    """
    idx = to_tensor(indices)
    _check_index_dtype("ScatterNd", idx)
    return execute(_SCATTER_ND, (idx, to_tensor(updates), int_tensor(_shape_arg(shape), dtype=idx.dtype)),
                   name=name)


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """Keep the entries of ``tensor`` where ``mask`` is true.

    ``mask`` covers dims ``axis .. axis + mask.ndim`` of ``tensor``; those dims are
    flattened into one of length ``count_nonzero(mask)``. Built, as in TF, from
    ``reshape``, ``where`` and ``gather``, so it is differentiable w.r.t. ``tensor``.
    """
    x = to_tensor(tensor)
    m = to_tensor(mask)
    if m.dtype is not dtypes.bool:
        raise TypeError(f"mask must be a bool tensor, got {m.dtype.name}")
    nm = m.shape.rank
    if nm == 0:
        raise ValueError("mask cannot be scalar.")
    if nm is None:
        raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.  E.g. "
                         "shape=[None] is ok, but shape=None is not.")
    axis = 0 if axis is None else int(axis)
    if axis < 0 and x.shape.rank is not None:
        axis += x.shape.rank
    x.shape[axis:axis + nm].assert_is_compatible_with(m.shape)
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is not None and None not in dims[:axis] + dims[axis + nm:]:
        x = reshape(x, dims[:axis] + [-1] + dims[axis + nm:])
    else:
        s = shape(x)
        x = reshape(x, concat([s[:axis], [-1], s[axis + nm:]], 0))
        if dims is not None:   # as TF: the static dimensions the dynamic reshape cannot know are set back
            masked = TensorShape(dims[axis:axis + nm]).num_elements()
            x.set_shape(dims[:axis] + [masked] + dims[axis + nm:])
    keep = squeeze(where(reshape(m, [-1])), [1])
    return gather(x, keep, axis=axis, name=name)


# --------------------------------------------------------------------------------------
# OneHot
# --------------------------------------------------------------------------------------
_ONE_HOT_INDICES = frozenset([dtypes.uint8, dtypes.int8, dtypes.int32, dtypes.int64])


def _one_hot_kernel(xp):
    def k(indices, depth, on_value, off_value, axis=-1):
        d = int(depth)
        if d < 0:
            raise _iae(f"depth must be non-negative, got: {d}")
        idx = xp.asarray(indices)
        r = idx.ndim + 1
        if not (axis == -1 or 0 <= axis < r):
            raise _iae(f"Expected axis to be -1 or between [0, {r}).  But received: {axis}")
        hot = xp.expand_dims(idx.astype(np.int64), -1) == xp.arange(d, dtype=np.int64)
        out = xp.where(hot, on_value, off_value).astype(xp.asarray(on_value).dtype)
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
    if not (axis == -1 or 0 <= axis <= len(dims)):
        raise ValueError(f"Expected axis to be -1 or between [0, {len(dims) + 1}).  But received: {axis}")
    axis = len(dims) if axis == -1 else axis
    return [(ic.dtype(2), TensorShape(dims[:axis] + [d] + dims[axis:]))]


_ONE_HOT = register_op("OneHot", kernel=_one_hot_kernel, infer=_one_hot_infer,
                       inputs="indices: TI, depth: int32, on_value: T, off_value: T",
                       type_attrs={"TI": _ONE_HOT_INDICES})


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot encode integer ``indices`` into a new axis of size ``depth`` (default float32).

    Indices outside ``[0, depth)`` give an all-``off_value`` row. Not differentiable.
    """
    idx = to_tensor(indices)
    if idx.dtype not in _ONE_HOT_INDICES and ctx.graph is None:   # (a graph node checks it: the row's TI)
        raise InvalidArgumentError(None, None, f"Value for attr 'TI' of {idx.dtype.name} is not in the list of "
                                               f"allowed values: uint8, int8, int32, int64 [Op:OneHot]")
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    on = None if on_value is None else convert_to_tensor(on_value, dtype_hint=dtype)
    off = None if off_value is None else convert_to_tensor(off_value, dtype_hint=dtype)
    if on is not None or off is not None:
        if dtype is not None:
            for label, v in (("on_value", on), ("off_value", off)):
                if v is not None and v.dtype != dtype:
                    raise TypeError(f"dtype {v.dtype} of {label} does not match dtype parameter {dtype}")
        else:
            dtype = on.dtype if on is not None else off.dtype
        if on is not None and off is not None and on.dtype != off.dtype:
            raise TypeError(f"dtype {on.dtype} of on_value does not match dtype {off.dtype} of off_value")
    else:
        dtype = dtype or dtypes.float32
    on = _typed_scalar(1, dtype) if on is None else on
    off = _typed_scalar(0, dtype) if off is None else off
    return execute(_ONE_HOT, (idx, int_tensor(depth), on, off), {"axis": -1 if axis is None else int(axis)},
                   name=name)


# --------------------------------------------------------------------------------------
# where: SelectV2 (three arguments) and Where (one argument)
# --------------------------------------------------------------------------------------
def _select_kernel(xp):
    def k(c, x, y):
        try:
            np.broadcast_shapes(np.shape(c), np.shape(x), np.shape(y))
        except ValueError:
            raise _iae(f"condition {_fmt(np.shape(c))}, then {_fmt(np.shape(x))}, and else {_fmt(np.shape(y))} "
                       f"must be broadcastable") from None
        return xp.where(c, x, y)[()]
    return k


def _select_grad(op, grad):
    unbroadcast = math_ops.unbroadcast
    c, x, y = op.inputs
    zeros = zeros_like(grad)
    return None, unbroadcast(where(c, grad, zeros), x), unbroadcast(where(c, zeros, grad), y)


def _select_infer(ic):
    s = _shapes.broadcast_shapes(ic.shape(0), ic.shape(1), "SelectV2")
    return [(ic.dtype(1), _shapes.broadcast_shapes(s, ic.shape(2), "SelectV2"))]


_SELECT = register_op("SelectV2", kernel=_select_kernel, infer=_select_infer,
                      grad=_select_grad, saves_inputs=(0,), saves_outputs=False,
                      inputs="condition: bool, t: T, e: T")


def _where_kernel(xp):
    def k(c):
        if c.ndim == 0:
            raise _iae("WhereOp : Unhandled input dimensions: 0")
        return xp.argwhere(c).astype(np.int64)
    return k


_WHERE = register_op("Where", kernel=_where_kernel,
                     infer=lambda ic: [(dtypes.int64, TensorShape([None, ic.shape(0).rank]))],
                     doc="Coordinates of the true (non-zero) elements, one row each, in row-major order.")


def where(condition, x=None, y=None, name=None):
    """``where(c, x, y)``: pick from ``x`` where ``c`` is true, else ``y`` (all three broadcast).

    With only ``condition``, returns the int64 coordinates of its true (non-zero)
    elements, shape ``[num_true, rank]``. The three-argument form requires a bool
    condition, as TF does.
    """
    if x is None and y is None:
        return execute(_WHERE, (to_tensor(condition),), name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    if isinstance(condition, Tensor) or hasattr(condition, "__tf_tensor__"):
        c = convert_to_tensor(to_tensor(condition), dtype=dtypes.bool)
    else:
        c = to_tensor(condition)
        if c.dtype is not dtypes.bool:
            raise TypeError(f"Cannot convert {condition!r} to EagerTensor of dtype bool")
    binary_inputs = _dispatch.binary_inputs
    x, y = binary_inputs("SelectV2", x, y)
    return execute(_SELECT, (c, x, y), name=name)


# --------------------------------------------------------------------------------------
# Range, LinSpace, eye
# --------------------------------------------------------------------------------------
def _range_size(start, limit, delta):
    """TF's element count: integer ceil-division for ints; ceil(|(limit - start) / delta|) in the dtype for floats."""
    if start.dtype.kind in "iu":
        s, l, d = int(start), int(limit), int(delta)
        return (abs(l - s) + abs(d) - 1) // abs(d)
    return int(np.ceil(np.abs((limit - start) / delta)))


def _range_kernel(xp):
    def k(start, limit, delta):
        if delta == 0:
            raise _iae(f"Requires delta != 0: {delta}")
        if delta > 0 and start > limit:
            raise _iae(f"Requires start <= limit when delta > 0: {start}/{limit}")
        if delta < 0 and start < limit:
            raise _iae(f"Requires start >= limit when delta < 0: {start}/{limit}")
        dtype = start.dtype
        with np.errstate(all="ignore"):
            n = _range_size(start, limit, delta)
        if dtype.kind in "iu":
            return xp.arange(int(start), int(start) + n * int(delta), int(delta), dtype=dtype)[:n]
        # Floats: element i is ``start + i * delta``, each operation rounded in the dtype (as TF computes it).
        return xp.arange(n, dtype=dtype) * delta + start
    return k


def _range_infer(ic):
    s, l, d = (ic.constant_value(i) for i in builtins.range(3))
    if s is None or l is None or d is None or d == 0:
        return [(ic.dtype(0), TensorShape([None]))]
    with np.errstate(all="ignore"):
        n = _range_size(s, l, d)
    return [(ic.dtype(0), TensorShape([max(n, 0)]))]


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
    cast = math_ops.cast
    tensors = [cast(a, dtype) if isinstance(a, Tensor) else convert_to_tensor(a, dtype=dtype) for a in args]
    return execute(_RANGE, tuple(tensors), name=name)


def _linspace_kernel(xp):
    def k(start, stop, num):
        n = int(num)
        if n < 0:
            raise _iae(f"Requires num >= 0: {n}")
        dtype = start.dtype
        if n <= 1:
            return xp.full((n,), _scalar(start), dtype=dtype)
        step = (stop - start) / dtype.type(n - 1)            # computed in the dtype, as TF does
        out = xp.arange(n, dtype=dtype) * step + start
        out[-1] = stop                                        # the last value is exactly ``stop``
        return out.astype(dtype)
    return k


def _linspace_infer(ic):
    n = ic.constant_value(2)
    return [(ic.dtype(0), TensorShape([None if n is None else max(int(n), 0)]))]


def _linspace_grad(op, grad):
    """Element ``i`` is ``start + (stop - start) * t_i`` with ``t_i = i / (num - 1)``."""
    cast, multiply, subtract = math_ops.cast, math_ops.multiply, math_ops.subtract
    reduce_sum = reduction_ops.reduce_sum
    n = known_value(op.inputs[2])
    if n is None:  # ``num`` known only at run time (a graph input)
        num = op.inputs[2]
        t = multiply(cast(range(num), grad.dtype),
                     math_ops.reciprocal(cast(math_ops.maximum(num - 1, 1), grad.dtype)))
    else:
        n = int(n)
        t = cast(range(n), grad.dtype)
        if n > 1:
            t = multiply(t, 1.0 / (n - 1))
    d_stop = reduce_sum(multiply(grad, t))
    return subtract(reduce_sum(grad), d_stop), d_stop, None


_LINSPACE = register_op("LinSpace", kernel=_linspace_kernel, infer=_linspace_infer, grad=_linspace_grad,
                        saves_inputs=(2,), saves_outputs=False)

_LINSPACE_TARGET = {dtypes.int8: dtypes.float32, dtypes.int16: dtypes.float32, dtypes.uint8: dtypes.float32,
                    dtypes.uint16: dtypes.float32, dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64}


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (``tf.linspace``).

    Integer endpoints give floats (int32 -> float64), as in TF. Scalar endpoints
    use the ``LinSpace`` op; tensor endpoints (broadcast against each other) are
    composed from other ops along ``axis`` exactly as TF's ``linspace_nd`` does.
    Both forms are differentiable w.r.t. ``start`` and ``stop``. A negative
    ``num`` raises ``InvalidArgumentError`` (TF's message comes from an inner
    Range op; the engine's names LinSpace). In a graph, ``num`` may be a tensor
    and tensor endpoints may have unknown dimensions (deviation: the engine needs
    their rank).
    """
    add, cast, multiply, subtract, truediv = math_ops.add, math_ops.cast, math_ops.multiply, math_ops.subtract, math_ops.truediv
    s = to_tensor(start)
    e = to_tensor(stop) if isinstance(stop, Tensor) else convert_to_tensor(stop, dtype=s.dtype)
    check_same_dtype("LinSpace", s, e)
    target = _LINSPACE_TARGET.get(s.dtype)
    if target is not None:
        s, e = cast(s, target), cast(e, target)
    if s.shape.rank == 0 and e.shape.rank == 0 and axis in (0, -1):
        return execute(_LINSPACE, (s, e, int_tensor(num)), name=name)
    n = num if isinstance(num, (numbers.Integral, np.integer)) else known_value(to_tensor(num))
    if n is None:   # a graph input: the number of values is known only at run time
        num = cast(to_tensor(num), dtypes.int32)
        n_steps, n_fill = math_ops.maximum(num - 1, 1), math_ops.maximum(num - 2, 0)
    else:
        num = int(n)
        if num < 0:
            raise InvalidArgumentError(None, None, f"Requires num >= 0: {num} [Op:LinSpace]")
        n_steps, n_fill = max(num - 1, 1), max(num - 2, 0)
    if s.shape.is_fully_defined() and e.shape.is_fully_defined():
        target = list(np.broadcast_shapes(tuple(s.shape.as_list()), tuple(e.shape.as_list())))
        s = s if s.shape.as_list() == target else broadcast_to(s, target)
        e = e if e.shape.as_list() == target else broadcast_to(e, target)
    else:  # graph inputs of unknown dimensions: broadcast at run time, as TF does
        s = add(s, zeros_like(e))
        e = add(e, zeros_like(s))
        if s.shape.rank is None:
            raise NotImplementedError("engine's linspace with tensor endpoints needs inputs of known rank")
        target = s.shape.as_list()
    r = len(target) + 1
    if not -r <= axis < r:
        raise ValueError(f"axis {axis} out of range [{-r}, {r}) for linspace of rank {r}")
    ax = axis % r
    s_e, e_e = expand_dims(s, ax), expand_dims(e, ax)
    delta = truediv(subtract(e_e, s_e), cast(n_steps, s.dtype) if isinstance(n_steps, Tensor) else
                    convert_to_tensor(n_steps, dtype=s.dtype))
    steps_shape = [1] * r
    steps_shape[ax] = n_fill
    steps = reshape(cast(range(1, n_steps), s.dtype), steps_shape)            # 1 .. num-2
    middle = add(s_e, multiply(delta, steps))
    full = concat([s_e, middle, e_e], axis=ax)                                 # start, middle, stop
    return slice(full, [0] * r, [-1] * ax + [num] + [-1] * (r - 1 - ax))      # trims to num (handles 0, 1)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """Identity matrix ``[num_rows, num_columns]`` (or a batch of them, ``batch_shape + [rows, cols]``)."""
    cast, equal = math_ops.cast, math_ops.equal
    dtype = dtypes.as_dtype(dtype)
    cols = num_rows if num_columns is None else num_columns
    diag = equal(expand_dims(range(num_rows), 1), expand_dims(range(cols), 0))
    out = diag if dtype is dtypes.bool else cast(diag, dtype)
    if batch_shape is not None:
        batch = list(batch_shape.as_list() if isinstance(batch_shape, TensorShape) else batch_shape)
        out = broadcast_to(out, batch + out.shape.as_list())
    return out


# --------------------------------------------------------------------------------------
# Transpose, InvertPermutation
# --------------------------------------------------------------------------------------
def _normalize_perm(p, r, error):
    """TF's checks for a permutation: length ``r``, entries in ``[-r, r)`` (negatives wrap), no repeats."""
    if len(p) != r:
        raise error(f"transpose expects a vector of size {r}. But input(1) is a vector of size {len(p)}")
    out = []
    for v in p:
        if not -r <= v < r:
            raise error(f"{v} is out of range [0 .. {r})")
        out.append(v % r)
    for i in builtins.range(r):
        if i not in out:
            raise error(f"{i} is missing from {{{','.join(str(v) for v in out)}}}.")
    return out


def _transpose_kernel(xp):
    def k(x, perm):
        return xp.transpose(x, _normalize_perm(_ints(perm), x.ndim, _iae))
    return k


def _transpose_infer(ic):
    x = ic.shape(0)
    perm = _const_ints(ic, 1)
    if x.rank is None:
        if perm is not None:
            return [(ic.dtype(0), TensorShape([None] * len(perm)))]
        n = ic.shape(1)
        return [(ic.dtype(0), TensorShape([None] * n[0]) if n.rank == 1 and n[0] is not None else TensorShape(None))]
    if perm is None:
        return [(ic.dtype(0), TensorShape([None] * x.rank))]
    p = _normalize_perm(perm, x.rank, ValueError)
    dims = x.as_list()
    return [(ic.dtype(0), TensorShape([dims[i] for i in p]))]


def _transpose_grad(op, grad):
    perm = op.inputs[1]
    p = known_value(perm)
    if p is not None:
        p = _ints(p)
        p = [v % len(p) for v in p]
        return transpose(grad, [int(i) for i in np.argsort(p)]), None
    return transpose(grad, invert_permutation(perm)), None


_TRANSPOSE = register_op("Transpose", kernel=_transpose_kernel, infer=_transpose_infer, grad=_transpose_grad,
                         saves_inputs=(1,), saves_outputs=False, linear="linear")


def _invert_permutation_kernel(xp):
    def k(p):
        values = _ints(p)
        n = len(values)
        seen = set()
        for v in values:
            if not 0 <= v < n:
                raise _iae(f"{v} is not between 0 and {n}")
            if v in seen:
                raise _iae(f"{v} is duplicated in the input.")
            seen.add(v)
        return xp.argsort(xp.asarray(p)).astype(p.dtype)
    return k


def _invert_permutation_infer(ic):
    x = ic.shape(0)
    if x.rank is not None and x.rank != 1:
        ic.error(f"Shape must be rank 1 but is rank {x.rank}")
    return [(ic.dtype(0), x if x.rank is not None else TensorShape([None]))]


_INVERT_PERMUTATION = register_op("InvertPermutation", kernel=_invert_permutation_kernel,
                                  infer=_invert_permutation_infer)


def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permute dimensions: result dim ``i`` is input dim ``perm[i]``; the default reverses them."""
    x = to_tensor(a)
    if perm is None:
        if x.shape.rank is not None:
            perm = list(builtins.range(x.shape.rank))[::-1]
        else:
            subtract = math_ops.subtract
            perm = subtract(subtract(rank(x), 1), range(rank(x)))
    return execute(_TRANSPOSE, (x, int_tensor(perm)), name=name)


def invert_permutation(x, name=None):
    """The inverse permutation: ``y[x[i]] = i``."""
    return execute(_INVERT_PERMUTATION, (int_tensor(x),), name=name)


# StridedSlice and Slice live in slicing.py (they are Tensor.__getitem__'s machinery); exported from here too.
from .slicing import slice, strided_slice  # noqa: E402,F401,A004


# ======================================================================================
# Array helpers: Roll, EnsureShape, IdentityN, ShapeN, HistogramFixedWidth, and the
# compositions repeat, meshgrid, sequence_mask
# ======================================================================================
__all__ += ["roll", "ensure_shape", "identity_n", "shape_n", "histogram_fixed_width", "repeat", "meshgrid",
            "sequence_mask"]

_SHIFT_DTYPES = frozenset([dtypes.int32, dtypes.int64])


def _roll_shifts(x_ndim, shift, axis, error):
    """TF's checks for Roll; returns ``(shifts, axes)`` as lists of Python ints (axes made non-negative)."""
    if x_ndim < 1:
        raise error("input must be 1-D or higher")
    if np.ndim(shift) > 1:
        raise error(f"shift must be a scalar or a 1-D vector. Found: {_fmt(np.shape(shift))}")
    if np.ndim(axis) > 1:
        raise error(f"axis must be a scalar or a 1-D vector. Found: {_fmt(np.shape(axis))}")
    shifts, axes = list(_ints(shift)), list(_ints(axis))
    if len(shifts) != len(axes):
        raise error("shift and axis must have the same size")
    out = []
    for a in axes:
        if not -x_ndim <= a < x_ndim:
            raise error(f"axis {a} is out of range")
        out.append(a % x_ndim)
    return shifts, out


def _roll_kernel(xp):
    def k(input, shift, axis, T=None, Tshift=None, Taxis=None):  # noqa: A002,N803
        shifts, axes = _roll_shifts(input.ndim, _host(shift), _host(axis), _iae)
        return xp.roll(input, shifts, axes) if axes else input
    return k


def _roll_infer(ic):
    x = ic.shape(0)
    for i, label in ((1, "shift"), (2, "axis")):
        s = ic.shape(i)
        if s.rank is not None and s.rank > 1:
            ic.error(f"Shape must be at most rank 1 but is rank {s.rank}")
    if x.rank == 0:
        ic.error("Shape must be at least rank 1 but is rank 0")
    shift, axis = _const_ints(ic, 1), _const_ints(ic, 2)
    if shift is not None and axis is not None and len(shift) != len(axis):
        ic.error("shift and axis must have the same size")
    return [(ic.dtype(0), x)]


_ROLL = register_op("Roll", kernel=_roll_kernel, infer=_roll_infer,
                    grad=lambda op, g: (roll(g, math_ops.negative(op.inputs[1]), op.inputs[2]), None, None),
                    saves_inputs=(1, 2), saves_outputs=False,
                    doc="Shift elements cyclically along axes; the gradient rolls back by -shift.")


def roll(input, shift, axis, name=None):  # noqa: A002
    """Shift the elements of ``input`` by ``shift`` places along ``axis``, wrapping around.

    ``shift`` and ``axis`` are scalars or equal-length vectors; an axis named twice
    is shifted by the sum of its shifts. Negative shifts move toward the start.
    """
    x = to_tensor(input)
    s, a = int_tensor(shift), int_tensor(axis)
    for what, t in (("Tshift", s), ("Taxis", a)):
        if t.dtype not in _SHIFT_DTYPES:
            message = (f"Value for attr '{what}' of {t.dtype.name} is not in the list of allowed values: int32, "
                       f"int64; NodeDef: {{{{node Roll}}}}")
            if ctx.graph is not None:
                raise TypeError(message)
            raise _iae(message + " [Op:Roll]")
    return execute(_ROLL, (x, s, a), name=name)


# --- EnsureShape ------------------------------------------------------------------
def _ensure_shape_kernel(xp):
    def k(input, shape, T=None):  # noqa: A002,N803
        if not TensorShape(list(input.shape)).is_compatible_with(shape):
            raise _iae(f"Shape of tensor input {_fmt(input.shape)} is not compatible with expected shape "
                       f"{_fmt(shape)}.")
        return input
    return k


def _ensure_shape_infer(ic):
    x, expected = ic.shape(0), ic.attrs["shape"]
    if not x.is_compatible_with(expected):
        if x.rank is not None and expected.rank is not None and x.rank != expected.rank:
            detail = f"Shape must be rank {expected.rank} but is rank {x.rank}"
        else:
            i = next(i for i, (a, b) in enumerate(zip(x, expected)) if a is not None and b is not None and a != b)
            detail = f"Dimension {i} in both shapes must be equal, but are {expected[i]} and {x[i]}"
        ic.error(f"{detail}. Shapes are {_fmt(expected)} and {_fmt(x)}.")
    return [(ic.dtype(0), x.merge_with(expected))]


_ENSURE_SHAPE = register_op("EnsureShape", kernel=_ensure_shape_kernel, infer=_ensure_shape_infer,
                            grad=lambda op, g: g, saves_inputs=False, saves_outputs=False,
                            doc="Identity that checks the value's shape against a (partial) shape at run time.")


def ensure_shape(x, shape, name=None):
    """Return ``x`` unchanged after checking its shape is compatible with ``shape`` (``None`` dims match anything).

    A mismatch raises ``InvalidArgumentError`` when the op runs, or ``ValueError`` while
    building a graph when the static shape already contradicts ``shape``. In a graph the
    result's static shape combines both. The gradient passes through.
    """
    if not isinstance(shape, TensorShape):
        shape = TensorShape(shape)
    return execute(_ENSURE_SHAPE, (to_tensor(x),), {"shape": shape}, name=name)


# --- IdentityN, ShapeN ------------------------------------------------------------
_IDENTITY_N = register_op("IdentityN", kernel=lambda xp: (lambda *xs, T=None: kernel_outputs(list(xs))),  # noqa: N803
                          infer=lambda ic: [(ic.dtype(i), ic.shape(i)) for i in builtins.range(len(ic.inputs))],
                          grad=lambda op, *grads: list(grads), num_outputs=lambda attrs: len(attrs["T"]),
                          saves_inputs=False, saves_outputs=False,
                          doc="Identity on a list of tensors, as one node (gradients pass through).")


def identity_n(input, name=None):  # noqa: A002
    """Return a list of tensors with the same values as the list ``input`` (one ``IdentityN`` node)."""
    tensors = [to_tensor(t) for t in input]
    return output_list(execute(_IDENTITY_N, tuple(tensors), {"T": tuple(t.dtype for t in tensors)}, name=name))


def _shape_n_kernel(xp):
    return lambda *xs, out_type=dtypes.int32, N=None, T=None: kernel_outputs([  # noqa: N803
        xp.asarray(x.shape, dtype=out_type._np) for x in xs])


_SHAPE_N = register_op("ShapeN", kernel=_shape_n_kernel,
                       infer=lambda ic: [(ic.attrs.get("out_type", dtypes.int32), TensorShape([ic.shape(i).rank]))
                                         for i in builtins.range(len(ic.inputs))],
                       num_outputs=lambda attrs: attrs["N"], doc="The shapes of several tensors, one node.")


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The shapes of the tensors in ``input`` (all of one dtype), as a list of 1-D int tensors."""
    tensors = [to_tensor(t) for t in input]
    if not tensors:
        raise ValueError("shape_n needs at least one tensor (attr N must be at least 1)")
    check_same_dtype("ShapeN", *tensors)
    out_type = dtypes.as_dtype(out_type)
    if out_type not in _SHIFT_DTYPES:
        message = f"Value for attr 'out_type' of {out_type.name} is not in the list of allowed values: int32, int64"
        if ctx.graph is not None:
            raise TypeError(message)
        raise _iae(message + " [Op:ShapeN]")
    return output_list(execute(_SHAPE_N, tuple(tensors), {"out_type": out_type, "N": len(tensors)}, name=name))


# --- HistogramFixedWidth ------------------------------------------------------------
_HISTOGRAM_DTYPES = frozenset([dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64])


def _histogram_kernel(xp):
    def k(values, value_range, nbins, dtype=dtypes.int32, T=None):  # noqa: N803
        n = int(nbins)
        if np.size(value_range) != 2 or np.ndim(value_range) != 1:
            raise _iae("value_range should be a vector of 2 elements.")
        lo, hi = value_range[0], value_range[1]
        if n <= 0:
            raise _iae(f"nbins should be a positive number, but got '{n}'")
        if not lo < hi:
            raise _iae(f"value_range should satisfy value_range[0] < value_range[1], but got "
                       f"'[{_scalar(lo):g}, {_scalar(hi):g}]'")
        v = xp.asarray(values).reshape(-1)
        if v.dtype.kind == "f" and bool(xp.isnan(v).any()):
            raise _iae("Histogram values must not contain NaN")
        # TF's kernel: (max(x, lo) - lo) in the values' dtype, then divided by step in double.
        step = (float(hi) - float(lo)) / n if v.dtype.kind == "f" else float(int(hi) - int(lo)) / n
        with np.errstate(all="ignore"):
            scaled = (xp.maximum(v, lo) - lo).astype(np.float64) / step
            bins = xp.minimum(scaled, n - 1).astype(np.int64)
        return xp.bincount(bins, minlength=n).astype(dtype._np)
    return k


def _histogram_infer(ic):
    n = ic.constant_value(2)
    r = ic.shape(1)
    if r.rank is not None and r.rank != 1:
        ic.error(f"Shape must be rank 1 but is rank {r.rank}")
    return [(ic.attrs.get("dtype", dtypes.int32), TensorShape([None if n is None else int(n)]))]


_HISTOGRAM = register_op("HistogramFixedWidth", kernel=_histogram_kernel, infer=_histogram_infer,
                         doc="Counts of values in nbins equal-width bins over value_range (outliers: end bins).")


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """Count ``values`` (any shape) into ``nbins`` equal bins spanning ``value_range = [lo, hi]``.

    Values below ``lo`` count in the first bin, values at or above ``hi`` in the
    last. NaN raises ``InvalidArgumentError``. ``dtype``: int32 or int64 counts.
    Not differentiable.
    """
    v = to_tensor(values)
    _dispatch.check_dtype("HistogramFixedWidth", v, _HISTOGRAM_DTYPES, "values")
    r = to_tensor(value_range) if isinstance(value_range, Tensor) else convert_to_tensor(value_range, dtype=v.dtype)
    check_same_dtype("HistogramFixedWidth", v, r)
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _SHIFT_DTYPES:
        message = f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: int32, int64"
        if ctx.graph is not None:
            raise TypeError(message)
        raise _iae(message + " [Op:HistogramFixedWidth]")
    return execute(_HISTOGRAM, (v, r, int_tensor(nbins)), {"dtype": dtype}, name=name)


# --- repeat, meshgrid, sequence_mask: compositions ----------------------------------------
def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Repeat each element (``axis=None``: of the flattened input) or each slice along ``axis``.

    ``repeats`` is a scalar (every slice the same number of times: ``Tile`` then
    ``Reshape``) or a vector with one count per slice along ``axis`` (the slice
    indices are expanded with ``sequence_mask``/``where`` and ``gather`` picks the
    slices), so the gradient is Tile's or Gather's. The engine needs the input's
    rank (TF too, for a vector ``repeats``).
    """
    x = to_tensor(input)
    r = repeats if isinstance(repeats, Tensor) else convert_to_tensor(repeats)
    if not r.dtype.is_integer:
        raise TypeError(f"Argument `tensor` (name: repeats) must be of type integer. Received `tensor` = "
                        f"{repeats} of dtype: {r.dtype!r}")
    if r.shape.rank is not None and r.shape.rank > 1:
        raise ValueError(f"Shape {r.shape} must have rank at most 1")
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    if x.shape.rank == 0:
        x = reshape(x, [1])
    rk = x.shape.rank
    if rk is None:
        raise NotImplementedError("engine's tf.repeat needs an input of known rank")
    if not -rk <= axis < rk:
        raise ValueError(f"axis={axis} out of bounds: expected {-rk}<=axis<{rk}")
    axis %= rk
    dims = x.shape.as_list()
    known = known_value(r)
    if r.shape.num_elements() == 1:
        r = reshape(r, [])
        multiples = [1] * (rk + 1)
        multiples[axis + 1] = r
        tiled = tile(expand_dims(x, axis + 1), multiples)
        if None in dims:
            s = shape(x)
            new_shape = concat([s[:axis], [-1], s[axis + 1:]], 0)
        else:
            new_shape = dims[:axis] + [-1] + dims[axis + 1:]
        out = reshape(tiled, new_shape)
        n = None if known is None or dims[axis] is None else dims[axis] * int(np.ravel(known)[0])
    else:
        if r.shape.rank == 1 and dims[axis] is not None and r.shape[0] is not None and r.shape[0] != dims[axis]:
            raise ValueError(f"Dimensions {dims[axis]} and {r.shape[0]} are not compatible")
        mask = sequence_mask(r, math_ops.maximum(reduction_ops.reduce_max(r), math_ops.cast(0, r.dtype)))
        picks = reshape(slice(where(mask), [0, 0], [-1, 1]), [-1])
        out = gather(x, picks, axis=axis)
        # TF: along axis 0 the result is boolean_mask's (rows unknown); along a later axis a Reshape to the sum
        # of the repeats, which TF's shape inference folds when they are constant
        n = int(np.maximum(known, 0).sum()) if known is not None and axis > 0 else (0 if dims[axis] == 0 else None)
    out.set_shape(TensorShape(dims[:axis] + [n] + dims[axis + 1:]))
    return out


def meshgrid(*args, **kwargs):
    """N-D coordinate grids from 1-D vectors, built as TF builds them (reshape, then multiply by ones).

    ``indexing="xy"`` (default, Cartesian): the first two output axes are swapped, so
    ``meshgrid(x, y)`` has shape ``[len(y), len(x)]``; ``"ij"`` (matrix): shape
    ``[len(x), len(y), ...]``. All inputs must share a dtype.
    """
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        key = list(kwargs)[0]
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    tensors = [to_tensor(a) for a in args]
    ndim = len(tensors)
    s0 = [1] * ndim
    output = [reshape(t, s0[:i] + [-1] + s0[i + 1:]) for i, t in enumerate(tensors)]
    sizes = [t.shape.num_elements() if t.shape.is_fully_defined() else size(t) for t in tensors]
    if not tensors:
        return []
    if indexing == "xy" and ndim > 1:
        output[0] = reshape(output[0], [1, -1] + [1] * (ndim - 2))
        output[1] = reshape(output[1], [-1, 1] + [1] * (ndim - 2))
        sizes[0], sizes[1] = sizes[1], sizes[0]
    mult = ones(sizes, tensors[0].dtype)
    return [math_ops.multiply(t, mult) for t in output]


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """``mask[i..., j] = j < lengths[i...]`` for ``j < maxlen`` (default ``max(lengths)``), as TF composes it.

    The result has shape ``lengths.shape + [maxlen]`` and dtype ``dtype`` (bool by
    default; other dtypes are cast from the bool mask).
    """
    lengths = to_tensor(lengths)
    if maxlen is None:
        maxlen = reduction_ops.reduce_max(lengths)
        maxlen = math_ops.maximum(math_ops.cast(0, maxlen.dtype), maxlen)
    else:
        maxlen = to_tensor(maxlen)
    if maxlen.shape.rank is not None and maxlen.shape.rank != 0:
        raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = {maxlen} with "
                         f"shape '{maxlen.shape}' instead")
    row_vector = range(math_ops.cast(0, maxlen.dtype), maxlen, math_ops.cast(1, maxlen.dtype))
    matrix = math_ops.cast(expand_dims(lengths, -1), maxlen.dtype)
    result = math_ops.less(row_vector, matrix)
    dtype = dtypes.as_dtype(dtype)
    return result if dtype is dtypes.bool else math_ops.cast(result, dtype)
