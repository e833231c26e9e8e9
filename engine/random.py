"""``tf.random``: seeded random tensors, with TF's global/op seed rules."""
from .ops.random_ops import *  # noqa: F401,F403
