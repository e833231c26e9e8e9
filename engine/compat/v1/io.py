"""``tf.compat.v1.io``: TF 2's ``tf.io`` plus the TF 1 spelling ``tf_record_iterator``."""
from ... import io as _io
from ...io import *  # noqa: F401,F403
from ...io import __all__ as _io_all
from ...io import gfile  # noqa: F401
from ...io.tf_record import tf_record_iterator  # noqa: F401

__all__ = list(_io_all) + ["tf_record_iterator"]


def __getattr__(name):
    # every other name is tf.io's
    try:
        return getattr(_io, name)
    except AttributeError:
        raise AttributeError(f"module 'engine.compat.v1.io' has no attribute '{name}'") from None
