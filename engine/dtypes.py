"""``tf.dtypes``."""
from .framework.dtypes import *  # noqa: F401,F403
from .framework.dtypes import DType, as_dtype  # noqa: F401
