"""``tf.dtypes``: the DType objects, ``as_dtype``, and ``tf.dtypes.cast`` (the very function ``tf.cast`` is)."""
from .framework.dtypes import *  # noqa: F401,F403
from .framework.dtypes import DType, as_dtype  # noqa: F401
from .ops.math_ops import cast  # noqa: F401,E402  (tf.dtypes.cast is tf.cast)
