"""``tf.keras.datasets``: a small dataset shipped with the engine, and Keras's downloaders.

``tf.keras.datasets.digits.load_data()`` returns the 8x8 handwritten digits
(see ``digits.py`` for the source and license); no network needed.
``mnist`` and ``fashion_mnist`` download their files once, as Keras does (``keras.utils.get_file``).
"""
from . import digits, fashion_mnist, mnist  # noqa: F401
