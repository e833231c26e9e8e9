"""``tf.random``: seeded random tensors, with TF's global/op seed rules.

Defined in :mod:`engine.ops.random_ops`, whose docstring explains the seed rules
and where the random streams live (``random_ops.STATE``).
"""
from .ops.random_ops import *  # noqa: F401,F403
