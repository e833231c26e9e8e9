"""``tf.types``: the types of TF values, for annotations and for extending ``tf.function``.

``tf.types.experimental.TraceType`` is the base of the trace types that decide when ``tf.function``
reuses a trace (``framework/trace_type.py``); ``TensorLike`` is what converts to a tensor.
"""
from .framework.tensor import Tensor
from .framework.trace_type import TraceType

__all__ = ["experimental"]


class experimental:  # noqa: N801  (a namespace, as in TF)
    TraceType = TraceType
    TensorLike = (Tensor, int, float, bool, str, bytes, complex, tuple, list)
