"""Shape-inference building blocks shared by the op modules.

All of them work on :class:`TensorShape` with unknown dimensions (``None``), so
the same functions serve eager error messages, graph construction and tracing.
"""
from ..framework.tensor_shape import TensorShape, as_shape

__all__ = ["same_as_input", "broadcast_shapes", "broadcast_infer", "fmt"]


def fmt(shape):
    shape = as_shape(shape)
    if shape.rank is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def same_as_input(ic):
    """Elementwise unary ops: output has the input's dtype and shape."""
    return [(ic.dtype(0), ic.shape(0))]


def broadcast_shapes(a, b, op_name="op"):
    """NumPy/TF broadcasting on partial shapes; ``ValueError`` naming both shapes if impossible."""
    a, b = as_shape(a), as_shape(b)
    if a.rank is None or b.rank is None:
        return TensorShape(None)
    da, db = a.as_list(), b.as_list()
    n = max(len(da), len(db))
    da = [1] * (n - len(da)) + da
    db = [1] * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        elif x == y:
            out.append(x)
        else:
            raise ValueError(f"Incompatible shapes: {fmt(a)} vs. {fmt(b)}. Dimensions must be equal, but are "
                             f"{x} and {y} for '{{{{node {op_name}}}}}' with input shapes: {fmt(a)}, {fmt(b)}.")
    return TensorShape(out)


def broadcast_infer(out_dtype=None):
    """Shape function factory for broadcasting binary ops."""
    def infer(ic):
        shape = broadcast_shapes(ic.shape(0), ic.shape(1), ic.op_name)
        return [(out_dtype or ic.dtype(0), shape)]
    return infer
