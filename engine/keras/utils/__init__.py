"""``tf.keras.utils``: the progress bar, ``to_categorical``, ``set_random_seed``."""
import random

import numpy as np

from ...ops import random_ops
from .progbar import Progbar  # noqa: F401

__all__ = ["Progbar", "to_categorical", "set_random_seed"]


def to_categorical(x, num_classes=None):
    """Integer class ids -> one-hot rows (NumPy), as ``keras.utils.to_categorical``."""
    x = np.asarray(x, dtype="int64")
    shape = x.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    x = x.reshape(-1)
    num_classes = num_classes or int(x.max()) + 1
    out = np.zeros((x.shape[0], num_classes), dtype="float32")
    out[np.arange(x.shape[0]), x] = 1
    return out.reshape(shape + (num_classes,))


def set_random_seed(seed):
    """Seed Python's ``random``, NumPy's global generator and ``tf.random`` at once."""
    random.seed(seed)
    np.random.seed(seed)
    random_ops.set_seed(seed)
