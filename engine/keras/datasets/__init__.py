"""``tf.keras.datasets``: small datasets shipped with the engine (no network needed).

``tf.keras.datasets.digits.load_data()`` returns the 8x8 handwritten digits
(see ``digits.py`` for the source and license).
"""
from . import digits  # noqa: F401
