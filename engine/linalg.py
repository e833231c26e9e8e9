"""``tf.linalg``: matrix products and friends."""
from .ops.linalg_ops import *  # noqa: F401,F403
from .ops.linalg_ops import matrix_transpose as matrix_transpose  # noqa: F401
