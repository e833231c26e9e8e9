"""``tf.errors``: the error classes ops raise."""
from .framework.errors import *  # noqa: F401,F403
