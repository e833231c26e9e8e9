"""``tf.keras.models``: ``Model`` (subclassed or functional) and ``Sequential``."""
from .functional import Functional  # noqa: F401
from .model import Model  # noqa: F401
from .sequential import Sequential  # noqa: F401

__all__ = ["Model", "Functional", "Sequential"]
