"""Linear algebra: ``matmul`` (plain and batched), and friends.

``tf.matmul`` picks the op the way TF does: two rank-2 inputs use ``MatMul``
(attrs ``transpose_a``/``transpose_b``); higher ranks use ``BatchMatMulV2``
(attrs ``adj_x``/``adj_y``), whose batch dimensions broadcast.
"""
from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape
from . import _shapes
from ._dispatch import FLOAT, binary_inputs, check_dtype, execute

__all__ = ["matmul", "matrix_transpose"]

_MATMUL_TYPES = FLOAT | frozenset([dtypes.int32, dtypes.int64])


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
    batch = _shapes.broadcast_shapes(a[:-2], b[:-2], "BatchMatMulV2")
    return [(ic.dtype(0), batch.concatenate([m, n]))]


def _matmul_grad(op, grad):
    """TF's four cases; each uses only matmuls with transpose flags (no explicit transposes)."""
    a, b = op.inputs
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    if not ta and not tb:
        return matmul(grad, b, transpose_b=True), matmul(a, grad, transpose_a=True)
    if not ta and tb:
        return matmul(grad, b), matmul(grad, a, transpose_a=True)
    if ta and not tb:
        return matmul(b, grad, transpose_b=True), matmul(a, grad)
    return matmul(b, grad, transpose_a=True, transpose_b=True), matmul(grad, a, transpose_a=True, transpose_b=True)


def _batch_matmul_grad(op, grad):
    from .math_ops import unbroadcast
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
                      saves_outputs=False)
_BATCH_MATMUL = register_op("BatchMatMulV2", kernel=_batch_matmul_kernel, infer=_batch_matmul_infer,
                            grad=_batch_matmul_grad, saves_outputs=False)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False, grad_b=False, name=None):
    """Matrix product ``a @ b``; inputs of rank > 2 are batches of matrices (batch dims broadcast)."""
    a, b = binary_inputs("MatMul", a, b)
    check_dtype("MatMul", a, _MATMUL_TYPES, "a")
    ra, rb = a.shape.rank, b.shape.rank
    if ctx.graph is None and (ra < 2 or rb < 2):
        raise InvalidArgumentError(
            None, None, f"In[{0 if ra < 2 else 1}] and In[{1 if ra < 2 else 0}] has different ndims: "
                        f"{_shapes.fmt(a.shape)} vs. {_shapes.fmt(b.shape)}; tf.matmul needs inputs of rank >= 2 "
                        f"(use tf.tensordot or tf.reshape for vectors) [Op:MatMul]" if ra != rb else
                        f"In[0] ndims must be >= 2: {ra}; tf.matmul needs matrices (rank >= 2). Use "
                        f"tf.tensordot(a, b, 1) for vectors. [Op:MatMul]")
    ta, tb = transpose_a or adjoint_a, transpose_b or adjoint_b
    if ra == 2 and rb == 2:
        if ctx.graph is None:
            m, ka, kb, n = _inner_dims(a.shape.as_list(), b.shape.as_list(), ta, tb)
            if ka != kb:
                raise InvalidArgumentError(
                    None, None, f"Matrix size-incompatible: In[0]: {_shapes.fmt(a.shape)}, In[1]: "
                                f"{_shapes.fmt(b.shape)} (MatMul with transpose_a={ta}, transpose_b={tb}: inner "
                                f"dimensions {ka} and {kb} differ) [Op:MatMul]")
        return execute(_MATMUL, (a, b), {"transpose_a": bool(ta), "transpose_b": bool(tb)}, name=name)
    return execute(_BATCH_MATMUL, (a, b), {"adj_x": bool(ta), "adj_y": bool(tb)}, name=name)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swap the last two dimensions."""
    from . import array_ops
    from ._dispatch import to_tensor
    a = to_tensor(a)
    r = a.shape.rank
    if r is None or r < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {a} with shape: "
                         f"{a.shape}")
    perm = list(range(r - 2)) + [r - 1, r - 2]
    return array_ops.transpose(a, perm)
