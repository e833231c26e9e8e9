"""``tf.math``: elementwise math, reductions and related functions."""
from .ops.math_ops import *  # noqa: F401,F403
from .ops.reduction_ops import *  # noqa: F401,F403
from .ops.linalg_ops import matmul  # noqa: F401
