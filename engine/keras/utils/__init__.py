"""``tf.keras.utils``: the progress bar, ``get_file``, ``to_categorical``, ``set_random_seed``."""
import random

import numpy as np

from ...ops import random_ops
from .file_utils import get_file, validate_file  # noqa: F401
from .progbar import Progbar  # noqa: F401
from ..serialization import (CustomObjectScope, custom_object_scope, deserialize_keras_object,  # noqa: F401
                             get_custom_objects, get_registered_name, get_registered_object,
                             register_keras_serializable, serialize_keras_object)

# (TF 2.21's ``tf.keras.utils`` has the registration functions; its ``tf.keras`` has no ``saving`` module.)
__all__ = ["Progbar", "get_file", "validate_file", "to_categorical", "set_random_seed", "register_keras_serializable", "get_registered_name",
           "get_registered_object", "get_custom_objects", "custom_object_scope", "CustomObjectScope",
           "serialize_keras_object", "deserialize_keras_object"]


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
