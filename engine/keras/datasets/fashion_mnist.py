"""``tf.keras.datasets.fashion_mnist.load_data()``: Zalando's 70,000 28x28 clothing images, 10 classes.

Downloaded once with ``get_file`` (into ``~/.keras/datasets/fashion-mnist``) as Keras does: the four
IDX files (labels after an 8-byte header, images after a 16-byte one, gzip-compressed). Needs the
network the first time; the course uses ``digits`` instead, which ships with the engine.
"""
import gzip
import os

import numpy as np

from ..utils.file_utils import get_file

BASE = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
FILES = ["train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
         "t10k-images-idx3-ubyte.gz"]


def _read(path, offset):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


def load_data():
    """``(x_train, y_train), (x_test, y_test)``: uint8 images ``(60000, 28, 28)``/``(10000, 28, 28)``, labels."""
    paths = [get_file(name, origin=BASE + name, cache_subdir=os.path.join("datasets", "fashion-mnist"))
             for name in FILES]
    y_train, y_test = _read(paths[0], 8), _read(paths[2], 8)
    x_train = _read(paths[1], 16).reshape(len(y_train), 28, 28)
    x_test = _read(paths[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
