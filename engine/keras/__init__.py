"""``tf.keras``: models, layers, losses, optimizers, metrics and the training loop, on the engine.

Keras 3 semantics (the Keras that TensorFlow 2.21 ships as ``tf.keras``),
built from the engine's ops, ``GradientTape``, ``tf.Variable`` and
``tf.function``. Suggested reading order:

1. ``layers/layer.py``: the ``Layer`` base class (building, weight tracking,
   the training flag), then a simple layer: ``layers/core.py`` (``Dense``).
2. ``keras_tensor.py`` and ``models/``: the functional API, ``Sequential``,
   subclassed models.
3. ``losses.py``, ``metrics.py``, ``optimizers/`` (``optimizer.py`` first).
4. ``trainer.py``: ``compile``/``fit``/``evaluate``/``predict`` and the
   ``tf.function``-compiled train step; ``data_adapter.py``, ``callbacks.py``.

Deliberate differences from Keras are listed in each module's docstring
(weights files are NumPy ``npz`` archives, random values differ from TF's
while following the same seed rules, ...).
"""
from . import activations, backend, callbacks, datasets, initializers, layers, losses, metrics, models  # noqa: F401
from . import optimizers, preprocessing, regularizers, utils  # noqa: F401
from .layers import Input, Layer  # noqa: F401
from .models import Model, Sequential  # noqa: F401
from . import serialization as _serialization

# The classes a config names are found in these modules (serialization.py sits below them, so they are registered here).
_serialization.BUILTIN_MODULES.extend((layers, models, initializers, regularizers))

__all__ = ["Input", "Layer", "Model", "Sequential", "activations", "backend", "callbacks", "datasets",
           "initializers", "layers", "losses", "metrics", "models", "optimizers", "preprocessing", "regularizers",
           "utils"]
