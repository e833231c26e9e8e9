"""``tf.keras.preprocessing``: Keras' legacy (Keras 1/2) input preprocessing, which Keras 3 still ships.

Only ``image`` is here: ``ImageDataGenerator`` (``flow``, ``flow_from_directory``), its iterators and
the image helpers (``load_img``, ``img_to_array``, ``array_to_img``, ``apply_affine_transform``...).
Keras marks all of it deprecated in favour of ``tf.data`` and the preprocessing layers; the
``tf.data`` guide still uses it to show ``Dataset.from_generator``.
"""
from . import image  # noqa: F401

__all__ = ["image"]
