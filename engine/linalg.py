"""``tf.linalg``: matrix products and friends."""
from .ops.linalg_ops import adjoint, diag_part, einsum, matmul, matrix_transpose, tensordot, trace  # noqa: F401
from .ops.clip_ops import norm, global_norm  # noqa: F401,E402
