"""``tf.keras.optimizers``: SGD, Adam, AdamW, RMSprop, and learning-rate ``schedules``.

Read ``optimizer.py`` first (what every optimizer does around the update), then
one algorithm (``sgd.py``, ``adam.py``, ``rmsprop.py``): each is a ``build``
that creates slot variables and an ``update_step`` of a few lines.
"""
from . import schedules  # noqa: F401
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "schedules", "get"]

_BY_NAME = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop}


def get(identifier):
    """An optimizer from a name (``"adam"``, case-insensitive), an instance, or a class."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str):
        key = identifier.lower()
        if key not in _BY_NAME:
            raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
        return _BY_NAME[key]()
    if isinstance(identifier, type) and issubclass(identifier, Optimizer):
        return identifier()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
