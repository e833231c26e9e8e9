"""``tf.nn``: activations, losses and layers' building blocks."""
from .ops.nn_ops import *  # noqa: F401,F403
