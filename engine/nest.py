"""``tf.nest``: structures of lists, tuples, namedtuples and dicts."""
from .util.nest import *  # noqa: F401,F403
