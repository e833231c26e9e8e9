"""``tf.math``: elementwise math, reductions, scans and index reductions.

This namespace lists what TensorFlow's ``tf.math`` offers for the ops the
engine implements. Several names exist only here, not at the top level, exactly
as in TF: ``tf.math.log``, ``tf.math.floordiv``, ``tf.math.squared_difference``,
``tf.math.divide_no_nan``, ``tf.math.is_nan``, ``tf.math.cumprod``, ...
(``softplus`` and friends belong to ``tf.nn``; bitwise ops to ``tf.bitwise``.)
"""
from .ops.math_ops import (  # noqa: F401
    abs, add, add_n, ceil, cos, divide, divide_no_nan, equal, erf, erfc, exp, floor, floordiv, floormod, greater,
    greater_equal, is_finite, is_inf, is_nan, less, less_equal, log, log1p, logical_and, logical_not, logical_or,
    logical_xor, maximum, minimum, mod, multiply, negative, not_equal, pow, reciprocal, round, rsqrt, scalar_mul,
    sigmoid, sign, sin, sqrt, square, squared_difference, subtract, tanh, truediv,
)
from .ops.math_ops import log_sigmoid, reciprocal_no_nan, rint  # noqa: F401  (only in tf.math, as in TF)
from .ops.reduction_ops import (  # noqa: F401
    argmax, argmin, count_nonzero, cumprod, cumsum, reduce_all, reduce_any, reduce_euclidean_norm, reduce_logsumexp,
    reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_std, reduce_sum, reduce_variance,
)
from .ops.nn_ops import log_softmax, softmax, softplus, softsign  # noqa: F401,E402
from .ops.clip_ops import l2_normalize  # noqa: F401,E402
from .ops.trig_ops import acos, acosh, asin, asinh, atan, atan2, atanh, cosh, expm1, sinh, tan  # noqa: F401,E402
from .ops.segment_ops import (  # noqa: F401,E402
    bincount, segment_max, segment_mean, segment_min, segment_prod, segment_sum, unsorted_segment_max,
    unsorted_segment_mean, unsorted_segment_min, unsorted_segment_prod, unsorted_segment_sqrt_n, unsorted_segment_sum,
)
from .ops.sort_ops import top_k  # noqa: F401,E402
from .ops.special_ops import (  # noqa: F401,E402
    bessel_i0e, bessel_i1e, digamma, erfinv, lgamma, ndtri, polygamma, xdivy, xlog1py, xlogy, zeta,
)
from .ops.math_ops import truncatediv, truncatemod  # noqa: F401,E402
from .ops.bitwise_ops import saturate_cast  # noqa: F401,E402
