"""``tf.bitwise``: elementwise bit operations on integer tensors.

``bitwise_and``/``or``/``xor``/``invert`` are the ops behind ``&``, ``|``, ``^``, ``~``
on integer tensors (``engine/ops/math_ops.py``); the shifts live in
``engine/ops/bitwise_ops.py``.
"""
from .ops.math_ops import bitwise_and, bitwise_or, bitwise_xor, invert  # noqa: F401
from .ops.bitwise_ops import left_shift, right_shift  # noqa: F401
