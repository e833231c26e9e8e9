"""``tf.nn``: activations, softmax and losses, bias, dropout, convolution and pooling.

Everything is defined in :mod:`engine.ops.nn_ops` (each op registered once, with
its kernel, shape function and gradient); this module is only the namespace.
"""
from .ops.nn_ops import *  # noqa: F401,F403
from .ops.clip_ops import l2_normalize  # noqa: F401,E402
