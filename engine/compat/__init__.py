"""``tf.compat``: the TF1 API kept for graph mode (``tf.compat.v1``)."""
from . import v1  # noqa: F401
