"""Linear algebra: ``matmul`` (plain and batched), ``tensordot``, ``einsum``, trace and friends.

``tf.matmul`` picks the op the way TF does: two rank-2 inputs use ``MatMul``
(attrs ``transpose_a``/``transpose_b``); higher ranks use ``BatchMatMulV2``
(attrs ``adj_x``/``adj_y``), whose batch dimensions broadcast.

``tensordot`` is *composed* from ``Transpose``, ``Reshape`` and ``MatMul``, as
TF composes it, so its gradient comes for free from theirs.

``einsum`` is one registered op, ``Einsum``, whose kernel is ``xp.einsum`` and
whose gradient is again einsums: the gradient for operand ``i`` contracts the
output gradient with all the *other* operands, producing ``i``'s subscripts.
Two corrections make that rule complete: labels that appear only in operand
``i`` (summed away in the forward pass, as in ``'ij->i'``) are broadcast back,
and labels repeated within operand ``i`` (``'ii->'``, a trace) put the gradient
on the diagonal by contracting with an identity matrix. Because the gradient is
made of ``Einsum`` ops, second derivatives work too. (TF's ``Einsum`` kernel
takes one or two operands and ``tf.einsum`` splits longer equations into pairs;
the engine's kernel takes any number, so ``'bi,ij,bj->b'`` is a single op.)

Other deliberate differences from TF 2.21: ``tensordot`` also accepts ``axes``
given as an eager tensor, and in a graph its result's static shape may be less
precise than TF's when the inputs have unknown dimensions (the values are the
same); ``diag_part`` supports only the main diagonal (``k=0``).
"""
import string

import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError, NotFoundError
from ..framework.registry import register_op
from ..framework.tensor import EagerTensor, Tensor, constant, convert_to_tensor, converted_by_wrapper
from ..framework.tensor_shape import TensorShape
from . import _shapes
from . import _dispatch, array_ops, math_ops, reduction_ops  # noqa: E402  (used at call time)
from ._dispatch import FLOAT, binary_inputs, check_dtype, check_same_dtype, execute, to_tensor
from ..framework.graph import constant_value

# Top-level TF names; ``engine/linalg.py`` exports the ``tf.linalg`` ones.
__all__ = ["matmul", "tensordot", "einsum"]

_MATMUL_TYPES = FLOAT | frozenset([dtypes.int32, dtypes.int64])
_BATCH_MATMUL_TYPES = _MATMUL_TYPES | frozenset([dtypes.int16])
_UNSIGNED = frozenset([dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64])
_EINSUM_TYPES = _MATMUL_TYPES


def _dims(t):
    """A tensor's shape as a list (``None`` for unknown dims); cheap for eager tensors."""
    if type(t) is EagerTensor:
        return list(t._value.shape)
    s = t.shape
    return None if s.rank is None else s.as_list()


# --------------------------------------------------------------------------------------
# MatMul and BatchMatMulV2
# --------------------------------------------------------------------------------------
def _matmul_kernel(xp):
    def k(a, b, transpose_a=False, transpose_b=False):
        return xp.matmul(a.T if transpose_a else a, b.T if transpose_b else b)
    return k


def _swap_last(xp, x):
    return xp.swapaxes(x, -1, -2)


def _batch_matmul_kernel(xp):
    def k(x, y, adj_x=False, adj_y=False):
        return xp.matmul(_swap_last(xp, x) if adj_x else x, _swap_last(xp, y) if adj_y else y)
    return k


def _inner_dims(a, b, ta, tb):
    """(rows of result, inner of a, inner of b, cols of result) from the last two dims."""
    m, ka = (a[-1], a[-2]) if ta else (a[-2], a[-1])
    kb, n = (b[-1], b[-2]) if tb else (b[-2], b[-1])
    return m, ka, kb, n


def _matmul_infer(ic):
    a, b = ic.shape(0), ic.shape(1)
    ta, tb = ic.attrs.get("transpose_a", False), ic.attrs.get("transpose_b", False)
    if a.rank is not None and a.rank != 2 or b.rank is not None and b.rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {a.rank if a.rank != 2 else b.rank} for "
                         f"'{{{{node MatMul}}}} = MatMul[transpose_a={ta}, transpose_b={tb}]' with input shapes: "
                         f"{_shapes.fmt(a)}, {_shapes.fmt(b)}.")
    if a.rank is None or b.rank is None:
        return [(ic.dtype(0), TensorShape([None, None]))]
    m, ka, kb, n = _inner_dims(a.as_list(), b.as_list(), ta, tb)
    if ka is not None and kb is not None and ka != kb:
        raise ValueError(f"Dimensions must be equal, but are {ka} and {kb} for '{{{{node MatMul}}}} = "
                         f"MatMul[transpose_a={ta}, transpose_b={tb}]' with input shapes: {_shapes.fmt(a)}, "
                         f"{_shapes.fmt(b)}. Matrix size-incompatible: In[0]: {_shapes.fmt(a)}, "
                         f"In[1]: {_shapes.fmt(b)}")
    return [(ic.dtype(0), TensorShape([m, n]))]


def _batch_matmul_infer(ic):
    a, b = ic.shape(0), ic.shape(1)
    ta, tb = ic.attrs.get("adj_x", False), ic.attrs.get("adj_y", False)
    if a.rank is None or b.rank is None:
        return [(ic.dtype(0), TensorShape(None))]
    if a.rank < 2 or b.rank < 2:
        raise ValueError(f"In[{0 if a.rank < 2 else 1}] ndims must be >= 2: {a.rank if a.rank < 2 else b.rank} "
                         f"for BatchMatMulV2 with input shapes: {_shapes.fmt(a)}, {_shapes.fmt(b)}.")
    m, ka, kb, n = _inner_dims(a.as_list(), b.as_list(), ta, tb)
    if ka is not None and kb is not None and ka != kb:
        raise ValueError(f"Matrix size-incompatible: In[0]: {_shapes.fmt(a)}, In[1]: {_shapes.fmt(b)}. "
                         f"Dimensions must be equal, but are {ka} and {kb} for '{{{{node BatchMatMulV2}}}}'.")
    try:
        batch = _shapes.broadcast_shapes(a[:-2], b[:-2], "BatchMatMulV2")
    except ValueError:
        raise ValueError(f"In[0] and In[1] must have compatible batch dimensions: {_shapes.fmt(a)} vs. "
                         f"{_shapes.fmt(b)}") from None
    return [(ic.dtype(0), batch.concatenate([m, n]))]


def _matmul_grad(op, grad):
    """TF's four cases; each uses only matmuls with transpose flags (no explicit transposes).

    Like TF, it skips the gradient of an input that needs none (``op.skip_input_indices``,
    e.g. the input batch of a layer): a third of the backward FLOPs of a dense layer.
    """
    a, b = op.inputs
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    skip = getattr(op, "skip_input_indices", ())
    mm = _grad_matmul
    if not ta and not tb:
        ga = lambda: mm(grad, b, False, True)  # noqa: E731
        gb = lambda: mm(a, grad, True, False)  # noqa: E731
    elif not ta and tb:
        ga = lambda: mm(grad, b, False, False)  # noqa: E731
        gb = lambda: mm(grad, a, True, False)  # noqa: E731
    elif ta and not tb:
        ga = lambda: mm(b, grad, False, True)  # noqa: E731
        gb = lambda: mm(a, grad, False, False)  # noqa: E731
    else:
        ga = lambda: mm(b, grad, True, True)  # noqa: E731
        gb = lambda: mm(grad, a, True, True)  # noqa: E731
    return (None if 0 in skip else ga()), (None if 1 in skip else gb())


def _grad_matmul(x, y, tx, ty):
    """``matmul(x, y, transpose_a=tx, transpose_b=ty)`` for :func:`_matmul_grad` (see :func:`_eager_matmul`)."""
    out = _eager_matmul(x, y, tx, ty, None)
    return out if out is not None else matmul(x, y, transpose_a=tx, transpose_b=ty)


_MATMUL_NP_TYPES = frozenset(d._np for d in _MATMUL_TYPES)


def _eager_matmul(a, b, ta, tb, name):
    """Fast path of :func:`matmul`: run ``MatMul`` directly, or return None to take the general path.

    It applies to two eager tensors, outside graph building, that are matrices (rank 2) of one
    dtype that ``MatMul`` accepts, whose inner dimensions agree. For those, every check in
    :func:`matmul` passes (that is exactly what they check), so running the op directly gives the
    same op, attrs, result and tape record; it only skips converting and re-checking the inputs
    one property at a time. Anything else returns None, so the general path raises its errors.
    """
    if type(a) is EagerTensor and type(b) is EagerTensor:
        u, v = a._value, b._value
        if u.dtype == v.dtype and u.ndim == 2 and v.ndim == 2 and u.dtype in _MATMUL_NP_TYPES and \
                u.shape[0 if ta else 1] == v.shape[1 if tb else 0] and ctx.graph is None:
            return execute(_MATMUL, (a, b), {"transpose_a": ta, "transpose_b": tb}, name=name)
    return None


def _batch_matmul_grad(op, grad):
    """As for MatMul, then sum over the batch dimensions each input was broadcast along."""
    unbroadcast = math_ops.unbroadcast
    x, y = op.inputs
    ax, ay = op.get_attr("adj_x"), op.get_attr("adj_y")
    if not ax and not ay:
        gx, gy = matmul(grad, y, adjoint_b=True), matmul(x, grad, adjoint_a=True)
    elif not ax and ay:
        gx, gy = matmul(grad, y), matmul(grad, x, adjoint_a=True)
    elif ax and not ay:
        gx, gy = matmul(y, grad, adjoint_b=True), matmul(x, grad)
    else:
        gx, gy = matmul(y, grad, adjoint_a=True, adjoint_b=True), matmul(grad, x, adjoint_a=True, adjoint_b=True)
    return unbroadcast(gx, x), unbroadcast(gy, y)


_MATMUL = register_op("MatMul", kernel=_matmul_kernel, infer=_matmul_infer, grad=_matmul_grad,
                      saves_outputs=False, linear="multilinear", doc="Product of two matrices, optionally transposed.",
                      inputs="a: T, b: T", type_attrs={"T": _MATMUL_TYPES})
_BATCH_MATMUL = register_op("BatchMatMulV2", kernel=_batch_matmul_kernel, infer=_batch_matmul_infer,
                            grad=_batch_matmul_grad, saves_outputs=False, linear="multilinear",
                            inputs="x: T, y: T", type_attrs={"T": _BATCH_MATMUL_TYPES},
                            doc="Batched matrix product; the batch dimensions broadcast.")


def _matmul_checks(a, b, da, db, ta, tb):
    """Eager shape checks with TF's messages (the kernel would fail less clearly)."""
    ra, rb = len(da), len(db)
    if ra <= 2 and rb <= 2:   # MatMul
        if ra != rb:
            raise InvalidArgumentError(
                None, None, f"In[0] and In[1] has different ndims: {_shapes.fmt(da)} vs. {_shapes.fmt(db)}; "
                            f"tf.matmul needs matrices (rank >= 2): use tf.tensordot or tf.reshape for "
                            f"vectors [Op:MatMul]")
        if ra < 2:
            raise InvalidArgumentError(
                None, None, f"In[0] and In[1] ndims must be == 2: {ra}; tf.matmul needs matrices (rank >= 2): "
                            f"use tf.tensordot(a, b, 1) for vectors [Op:MatMul]")
        m, ka, kb, n = _inner_dims(da, db, ta, tb)
        if ka != kb:
            raise InvalidArgumentError(
                None, None, f"Matrix size-incompatible: In[0]: {_shapes.fmt(da)}, In[1]: {_shapes.fmt(db)} "
                            f"[Op:MatMul]")
        return
    if ra < 2 or rb < 2:
        raise InvalidArgumentError(
            None, None, f"In[{0 if ra < 2 else 1}] ndims must be >= 2: {ra if ra < 2 else rb} [Op:BatchMatMulV2]")
    m, ka, kb, n = _inner_dims(da, db, ta, tb)
    if ka != kb:
        raise InvalidArgumentError(
            None, None, f"Matrix size-incompatible: In[0]: {_shapes.fmt(da)}, In[1]: {_shapes.fmt(db)} "
                        f"{int(ta)} {int(tb)} [Op:BatchMatMulV2]")   # (TF prints adj_x and adj_y as 0/1)
    try:
        np.broadcast_shapes(tuple(da[:-2]), tuple(db[:-2]))
    except ValueError:
        raise InvalidArgumentError(
            None, None, f"In[0] and In[1] must have compatible batch dimensions: {_shapes.fmt(da)} vs. "
                        f"{_shapes.fmt(db)} [Op:BatchMatMulV2]") from None


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False, grad_b=False, name=None):
    """Matrix product ``a @ b``; inputs of rank > 2 are batches of matrices (batch dims broadcast).

    ``transpose_*``/``adjoint_*`` transpose the last two dimensions first (the
    same thing for real dtypes). Both inputs need rank >= 2 and one dtype.
    """
    if transpose_a and adjoint_a:
        raise ValueError(f"Only one of `transpose_a` and `adjoint_a` can be True. Received `transpose_a`="
                         f"{transpose_a}, `adjoint_a`={adjoint_a}.")
    if transpose_b and adjoint_b:
        raise ValueError(f"Only one of `transpose_b` and `adjoint_b` can be True. Received `transpose_b`="
                         f"{transpose_b}, `adjoint_b`={adjoint_b}.")
    if isinstance(a, Tensor) and not isinstance(b, Tensor) and hasattr(b, "__tf_tensor__"):
        # ``x @ variable`` (a dense layer): what ``binary_inputs`` does for this pair, without the
        # detours it takes for Python numbers and lists: read the variable as a tensor.
        b = convert_to_tensor(b)
    out = _eager_matmul(a, b, bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b), name)
    if out is not None:
        return out
    a, b = converted_by_wrapper(*binary_inputs("MatMul", a, b))   # (TF's tf.matmul converts first, too)
    ta, tb = bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b)
    da, db = _dims(a), _dims(b)
    batched = da is None or db is None or len(da) > 2 or len(db) > 2
    dtype = a.dtype
    if dtype not in (_BATCH_MATMUL_TYPES if batched else _MATMUL_TYPES):
        if dtype in _UNSIGNED:
            raise NotFoundError(
                None, None, f"Could not find device for node: {{{{node {'BatchMatMulV2' if batched else 'MatMul'}}}}}"
                            f" = MatMul[T=DT_{dtype.name.upper()}]: no kernel for {dtype.name}; cast to a float "
                            f"dtype [Op:{'BatchMatMulV2' if batched else 'MatMul'}]")
        check_dtype("BatchMatMulV2" if batched else "MatMul", a, _BATCH_MATMUL_TYPES if batched else _MATMUL_TYPES,
                    "a")
    if ctx.graph is None:
        _matmul_checks(a, b, da, db, ta, tb)
    if not batched:
        return execute(_MATMUL, (a, b), {"transpose_a": ta, "transpose_b": tb}, name=name)
    return execute(_BATCH_MATMUL, (a, b), {"adj_x": ta, "adj_y": tb}, name=name)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swap the last two dimensions (``tf.linalg.matrix_transpose``)."""
    a = to_tensor(a)
    r = a.shape.rank
    if r is None or r < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {a} with shape: "
                         f"{a.shape}")
    perm = list(range(r - 2)) + [r - 1, r - 2]
    return array_ops.transpose(a, perm)


def adjoint(matrix, name=None):
    """Conjugate transpose of the last two dimensions; for real dtypes, ``matrix_transpose``."""
    return matrix_transpose(matrix)


# --------------------------------------------------------------------------------------
# Diagonal and trace
# --------------------------------------------------------------------------------------
def _diag_part_kernel(xp):
    def k(x):
        if x.ndim < 2:
            raise InvalidArgumentError(None, None, f"input must be at least 2-dim, received shape: "
                                                   f"{_shapes.fmt(list(x.shape))}")
        return xp.ascontiguousarray(xp.diagonal(x, axis1=-2, axis2=-1))
    return k


def _diag_part_infer(ic):
    x = ic.shape(0)
    if x.rank is None:
        return [(ic.dtype(0), TensorShape(None))]
    if x.rank < 2:
        raise ValueError(f"input must be at least 2-dim, received shape: {_shapes.fmt(x)}")
    dims = x.as_list()
    m, n = dims[-2], dims[-1]
    k = None if m is None or n is None else min(m, n)
    return [(ic.dtype(0), TensorShape(dims[:-2] + [k]))]


def _diag_part_grad(op, grad):
    """Put ``grad`` back on the diagonal: broadcast it along rows or columns and mask with ``eye(m, n)``.

    With the matrix size unknown when the gradient is built (graph inputs), ``grad`` (``[..., min(m, n)]``)
    is padded with zeros to ``[..., m]`` and spread along the columns, all with run-time shapes.
    """
    x = op.inputs[0]
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is not None and dims[-2] is not None and dims[-1] is not None:
        m, n = dims[-2], dims[-1]
        eye = constant(np.eye(m, n, dtype=x.dtype.as_numpy_dtype))
        spread = array_ops.expand_dims(grad, -1 if m <= n else -2)
        return math_ops.multiply(spread, eye)
    x_shape = array_ops.shape(x)
    m, n = x_shape[-2], x_shape[-1]
    k = array_ops.shape(grad)[-1]
    paddings = array_ops.concat([array_ops.zeros(array_ops.stack([array_ops.rank(grad) - 1, 2]), dtypes.int32),
                                 array_ops.reshape(array_ops.stack([0, m - k]), [1, 2])], 0)
    eye = array_ops.eye(m, n, dtype=x.dtype)
    return math_ops.multiply(array_ops.expand_dims(array_ops.pad(grad, paddings), -1), eye)


_DIAG_PART = register_op("MatrixDiagPart", kernel=_diag_part_kernel, infer=_diag_part_infer, grad=_diag_part_grad,
                         saves_inputs=False, saves_outputs=False, linear="linear",
                         doc="The main diagonal of each matrix (the last two dimensions).")


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """The main diagonal of (a batch of) matrices: shape ``[..., min(M, N)]``.

    Only ``k=0`` (the main diagonal) is supported; TF's ``k`` offsets are not.
    """
    if k != 0:
        raise NotImplementedError("engine's diag_part supports only the main diagonal (k=0)")
    return execute(_DIAG_PART, (to_tensor(input),))


def trace(x, name=None):
    """Sum of the main diagonal of each matrix in the last two dimensions (dtype kept)."""
    reduce_sum = reduction_ops.reduce_sum
    return reduce_sum(diag_part(x), axis=-1)


# --------------------------------------------------------------------------------------
# tensordot: composed from transpose, reshape and matmul
# --------------------------------------------------------------------------------------
def _tensordot_axes(a, b, axes):
    ra, rb = a.shape.rank, b.shape.rank
    if isinstance(axes, Tensor):
        value = _static_value(axes)
        if value is None:
            raise NotImplementedError("tensordot needs `axes` known when the op is built (a Python value)")
        axes = value.tolist()
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {n}.")
        if n > ra:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {a}.  Received "
                             f"{n}, vs tensor dimensions {ra}.")
        if n > rb:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {b}.  Received "
                             f"{n}, vs tensor dimensions {rb}.")
        return list(range(ra - n, ra)), list(range(n))
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = axes
        a_axes = [int(a_axes)] if isinstance(a_axes, (int, np.integer)) else [int(i) for i in a_axes]
        b_axes = [int(b_axes)] if isinstance(b_axes, (int, np.integer)) else [int(i) for i in b_axes]
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}.")
        for which, ax_list, r in (("a", a_axes, ra), ("b", b_axes, rb)):
            for i in ax_list:
                if not -r <= i < r:
                    raise ValueError(f"tensordot: axis {i} is out of range for `{which}` of rank {r}.")
        return [i % ra for i in a_axes], [i % rb for i in b_axes]
    raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")


def _static_value(t):
    return constant_value(t)


def _tensordot_reshape(t, axes, flipped):
    """Transpose ``t`` so ``axes`` come last (first if ``flipped``) and flatten it to a matrix.

    Returns the matrix and the free dimensions: a list of ints when known, else an
    int32 tensor (a graph input with unknown dimensions), as TF does.
    """
    reduce_prod = reduction_ops.reduce_prod
    shape = t.shape.as_list()
    free = [i for i in range(len(shape)) if i not in axes]
    perm = axes + free if flipped else free + axes
    if perm != list(range(len(shape))):
        t = array_ops.transpose(t, perm)
    if None not in shape:
        free_dims = [shape[i] for i in free]
        prod_free = int(np.prod(free_dims, dtype=np.int64))
        prod_axes = int(np.prod([shape[i] for i in axes], dtype=np.int64))
        new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        if new_shape != [shape[i] for i in perm]:
            t = array_ops.reshape(t, new_shape)
        return t, free_dims
    dynamic = array_ops.shape(t)   # after the transpose
    n_first = len(axes) if flipped else len(free)
    first = reduce_prod(dynamic[:n_first]) if n_first else 1
    second = reduce_prod(dynamic[n_first:]) if len(shape) - n_first else 1
    t = array_ops.reshape(t, array_ops.stack([first, second]) if isinstance(first, Tensor) or isinstance(
        second, Tensor) else [first, second])
    free_dims = dynamic[len(axes):] if flipped else dynamic[:len(free)]
    if all(shape[i] is not None for i in free):
        free_dims = [shape[i] for i in free]
    return t, free_dims


def tensordot(a, b, axes, name=None):
    """Contract ``a`` and ``b`` over ``axes``, as TF does: transpose, reshape, one ``MatMul``, reshape.

    ``axes=n`` contracts the last ``n`` axes of ``a`` with the first ``n`` of ``b``;
    ``axes=[[a_axes], [b_axes]]`` names them. The result has ``a``'s free axes
    followed by ``b``'s. The ranks must be known; unknown dimensions (graph
    placeholders) are read at run time.
    """
    a, b = to_tensor(a), to_tensor(b)
    if a.shape.rank is None or b.shape.rank is None:
        raise NotImplementedError("engine's tensordot needs inputs of known rank")
    a_axes, b_axes = _tensordot_axes(a, b, axes)
    a_mat, a_free = _tensordot_reshape(a, a_axes, False)
    b_mat, b_free = _tensordot_reshape(b, b_axes, True)
    product = matmul(a_mat, b_mat)
    if isinstance(a_free, list) and isinstance(b_free, list):
        out_shape = a_free + b_free
        if product.shape.as_list() != out_shape:
            product = array_ops.reshape(product, out_shape)
        return product
    result = array_ops.reshape(product, array_ops.concat([_int_vector(a_free), _int_vector(b_free)], 0))
    # The reshape's target is computed at run time, so its static shape would be unknown; as TF does,
    # state what is known: the free dimensions of ``a`` then of ``b`` (``None`` where unknown).
    a_dims, b_dims = a.shape.as_list(), b.shape.as_list()
    static = [a_dims[i] for i in range(len(a_dims)) if i not in a_axes] + \
        [b_dims[i] for i in range(len(b_dims)) if i not in b_axes]
    if hasattr(result, "set_shape"):
        result.set_shape(static)
    return result


def _int_vector(dims):
    """Free dimensions as an int32 vector tensor (a list of ints, or already a tensor)."""
    int_tensor = _dispatch.int_tensor
    return int_tensor(dims) if isinstance(dims, list) else dims


# --------------------------------------------------------------------------------------
# Einsum: one op, gradients written as einsums
# --------------------------------------------------------------------------------------
def _split_equation(equation):
    inputs, output = equation.split("->")
    return inputs.split(","), output


def _einsum_kernel(xp):
    def k(*operands, equation, N=None):  # noqa: N803 (TF attr name)
        if xp is np:   # NumPy's contraction planner pays off (BLAS) for big or many operands only
            big = len(operands) > 2 or sum(int(o.size) for o in operands) > 4096
            out = np.einsum(equation, *operands, optimize="greedy" if big else False)
        else:
            out = xp.einsum(equation, *operands)
        return xp.asarray(out).astype(operands[0].dtype, copy=False)[()]
    return k


def _einsum_infer(ic):
    subs, out = _split_equation(ic.attrs["equation"])
    sizes = {}
    for i, s in enumerate(subs):
        shape = ic.shape(i)
        if shape.rank is None:
            continue
        if shape.rank != len(s):
            raise ValueError(f"Expected input {i} to have rank {len(s)} but got: {shape.rank}")
        for label, d in zip(s, shape.as_list()):
            known = sizes.get(label)
            if d is None or d == 1 and known is not None:
                continue
            if known not in (None, 1) and known != d:
                raise ValueError(f"Expected dimension {known} at axis {s.index(label)} of input {i} shaped "
                                 f"{_shapes.fmt(shape)} but got dimension {d}")
            sizes[label] = d
    return [(ic.dtype(0), TensorShape([sizes.get(label) for label in out]))]


def _einsum_grad(op, grad):
    reduce_sum = reduction_ops.reduce_sum
    subs, out = _split_equation(op.get_attr("equation"))
    inputs = op.inputs
    used = set("".join(subs) + out)
    fresh = [c for c in string.ascii_letters if c not in used]
    grads = []
    for i, s in enumerate(subs):
        x = inputs[i]
        if not x.dtype.is_floating:
            grads.append(None)
            continue
        x_dims = dict(zip(s, x.shape.as_list()))
        others = [j for j in range(len(subs)) if j != i]
        unique = "".join(dict.fromkeys(s))
        elsewhere = set(out).union(*[set(subs[j]) for j in others])
        keep = "".join(c for c in unique if c in elsewhere)
        # 1. contract the output gradient with the other operands onto i's surviving labels
        g = _einsum_op(",".join([out] + [subs[j] for j in others]) + "->" + keep,
                       [grad] + [inputs[j] for j in others])
        # 2. a label broadcast in the forward pass (size 1 here, larger elsewhere) is summed back
        g_dims = g.shape.as_list()
        summed = [k for k, c in enumerate(keep) if x_dims[c] == 1 and g_dims[k] != 1]
        if summed:
            g = reduce_sum(g, summed, keepdims=True)
        # 3. labels summed away only in this operand: broadcast the gradient along them
        if len(keep) < len(unique):
            for k, c in enumerate(unique):
                if c not in keep:
                    g = array_ops.expand_dims(g, k)
            target = [x_dims[c] for c in unique]
            if None in target:   # a graph input with unknown dimensions: read them at run time
                target = array_ops.gather(array_ops.shape(x), [s.index(c) for c in unique])
            g = array_ops.broadcast_to(g, target)
        # 4. labels repeated within the operand ('ii'): place the gradient on the diagonal
        if len(unique) < len(s):
            seen, target, eyes, pool = set(), "", [], iter(fresh)
            for c in s:
                if c in seen:
                    f = next(pool)
                    eyes.append(c + f)
                    target += f
                else:
                    seen.add(c)
                    target += c
            eye_tensors = []
            for pair in eyes:
                n = x_dims[pair[0]]
                eye_tensors.append(constant(np.eye(n, dtype=x.dtype.as_numpy_dtype)) if n is not None else
                                   array_ops.eye(array_ops.shape(x)[s.index(pair[0])], dtype=x.dtype))
            g = _einsum_op(",".join([unique] + eyes) + "->" + target, [g] + eye_tensors)
        grads.append(g)
    return grads


_EINSUM = register_op("Einsum", kernel=_einsum_kernel, infer=_einsum_infer, grad=_einsum_grad,
                      saves_inputs=True, saves_outputs=False, linear="multilinear",
                      doc="Einstein summation over explicit single-letter subscripts ('ij,jk->ik').")


def _einsum_op(equation, tensors):
    """Run the ``Einsum`` op on an already-canonical equation (explicit output, no ellipsis)."""
    return execute(_EINSUM, tuple(tensors), {"equation": equation, "N": len(tensors)})


def _canonical_equation(equation, shapes):
    """Validate ``equation`` against the operand shapes, TF's way, and make it explicit.

    Returns an equation with an explicit output and every ``...`` replaced by
    letters, e.g. ``'...ij,jk' -> 'Aij,jk->Aik'`` for operands of rank 3 and 2.
    """
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, out = eq.split("->", 1)
    else:
        lhs, out = eq, None
    subs = lhs.split(",")
    if len(subs) != len(shapes):
        raise ValueError(f'Got {len(shapes)} inputs for equation "{equation}", expecting {len(subs)}')
    for s in subs + ([out] if out is not None else []):
        bad = set(s.replace("...", "")) - set(string.ascii_letters)
        if bad or "." in s.replace("...", ""):
            raise ValueError(f"Subscripts must be letters or '...': invalid character(s) "
                             f"{sorted(bad) or ['.']} in equation '{equation}'")
    letters = set(lhs) | set(out or "")
    pool = [c for c in string.ascii_uppercase + string.ascii_lowercase if c not in letters]
    # ellipsis dims: right-aligned, broadcast like NumPy
    n_ell = []
    for i, (s, shape) in enumerate(zip(subs, shapes)):
        named = len(s.replace("...", ""))
        if "..." in s:
            if len(shape) < named:
                raise InvalidArgumentError(None, None, f"Expected input {i} to have rank at least {named} but "
                                                       f"got: {len(shape)} [Op:Einsum]")
            n_ell.append(len(shape) - named)
        else:
            if len(shape) != named:
                raise InvalidArgumentError(None, None, f"Expected input {i} to have rank {named} but got: "
                                                       f"{len(shape)} [Op:Einsum]")
            n_ell.append(0)
    most = max(n_ell) if n_ell else 0
    ell = "".join(pool[:most])
    subs = [s.replace("...", ell[most - n:] if n else "") for s, n in zip(subs, n_ell)]
    # each named label must have one size everywhere (ellipsis letters may broadcast from 1)
    sizes = {}
    for i, (s, shape) in enumerate(zip(subs, shapes)):
        for axis, (c, d) in enumerate(zip(s, shape)):
            known = sizes.get(c)
            if known is None:
                sizes[c] = d
            elif d is not None and known != d:
                if c in ell and 1 in (known, d):
                    sizes[c] = max(known, d)
                    continue
                raise InvalidArgumentError(
                    None, None, f"Expected dimension {known} at axis {axis} of the input shaped "
                                f"{_shapes.fmt(list(shape))} but got dimension {d} (label '{c}' in "
                                f"'{equation}') [Op:Einsum]")
    if out is None:
        counts = {}
        for c in "".join(subs):
            counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    else:
        if "..." in out:
            out = out.replace("...", ell)
        elif most and any(sizes.get(c) != 1 for c in ell):
            raise ValueError(f"Output subscripts of '{equation}' need an ellipsis ('...') when the inputs have "
                             f"one that stands for dimensions")
        for c in out:
            if c not in sizes:
                raise ValueError(f"Output subscripts contain the label {c} not present in the input subscripts.")
        if len(set(out)) != len(out):
            raise ValueError(f"Output subscripts contain a label appearing more than once: {eq}")
    return ",".join(subs) + "->" + out


def einsum(equation, *inputs, **kwargs):
    """Einstein summation: ``einsum('ij,jk->ik', a, b)`` is ``a @ b``.

    Supports explicit and implicit outputs, ``...`` for leading batch dimensions
    (which broadcast), repeated labels within an operand (``'ii->i'`` diagonal,
    ``'ii'`` trace) and any number of operands. Named labels must have equal
    sizes in every operand (no size-1 broadcasting, as in TF). All operands need
    one dtype: float16/32/64, int32 or int64.
    """
    if not inputs:
        raise ValueError("einsum needs at least one input tensor")
    tensors = [to_tensor(t) for t in inputs]
    check_same_dtype("Einsum", *tensors)
    check_dtype("Einsum", tensors[0], _EINSUM_TYPES, "inputs")
    shapes = [_dims(t) for t in tensors]
    if any(s is None for s in shapes):
        raise NotImplementedError("engine's einsum needs inputs of known rank")
    return _einsum_op(_canonical_equation(equation, shapes), tensors)
