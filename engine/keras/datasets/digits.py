"""The handwritten digits dataset: 1,797 images of 8x8 pixels, digits 0-9.

``(x_train, y_train), (x_test, y_test) = tf.keras.datasets.digits.load_data()``

* ``x_*``: ``uint8`` arrays of shape ``(n, 8, 8)``, pixel values 0..16
  (divide by 16.0 to get floats in [0, 1]);
* ``y_*``: ``uint8`` labels 0..9;
* a fixed split: 1,437 training images and 360 test images (the 360 test
  indices were drawn once with ``np.random.RandomState(0).permutation``; every
  class has 135-154 training images). The split is stored in the file, so it is
  the same everywhere.

It is the course's stand-in for MNIST: same kind of task, small enough that a
model trains in seconds on two CPU cores, and shipped in the repository
(``digits.npz``, about 47 KB), so nothing is downloaded at run time.

**Source and license.** This is the copy of the UCI ML "Optical Recognition of
Handwritten Digits" dataset (optdigits, the test part: 1,797 instances, by
E. Alpaydin and C. Kaynak, 1998, https://archive.ics.uci.edu/dataset/80) that
scikit-learn bundles as ``sklearn.datasets.load_digits``, exported from
scikit-learn 1.9 (BSD-3-Clause license) by ``_export_digits.py`` in this
folder. The UCI dataset itself is licensed CC BY 4.0.
"""
import os

import numpy as np

__all__ = ["load_data"]

_PATH = os.path.join(os.path.dirname(__file__), "digits.npz")


def load_data(path=None):
    """``((x_train, y_train), (x_test, y_test))`` as NumPy arrays (see the module docstring)."""
    with np.load(path or _PATH) as data:
        return (data["x_train"], data["y_train"]), (data["x_test"], data["y_test"])
