"""``tf.linalg``: matrix products, decompositions, solves and diagonal surgery."""
from .ops.linalg_ops import adjoint, einsum, matmul, matrix_transpose, tensordot, trace  # noqa: F401
from .ops.clip_ops import norm, global_norm  # noqa: F401,E402
from .ops.clip_ops import l2_normalize  # noqa: F401,E402
from .ops.linalg_extras import (  # noqa: F401,E402
    band_part, cholesky, det, diag, diag_part, eigh, eigvalsh, eye, inv, logdet, matvec, qr, set_diag, slogdet, solve,
    svd, triangular_solve,
)
