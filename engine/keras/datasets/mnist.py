"""``tf.keras.datasets.mnist.load_data(path="mnist.npz")``: 70,000 28x28 handwritten digits.

Downloaded once with ``get_file`` (checked against Keras's SHA-256 of the file) as Keras does. Needs the
network the first time; the course uses ``digits`` instead, which ships with the engine.
"""
import numpy as np

from ..utils.file_utils import get_file

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"
SHA256 = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"


def load_data(path="mnist.npz"):
    """``(x_train, y_train), (x_test, y_test)``: uint8 images ``(60000, 28, 28)``/``(10000, 28, 28)``, labels."""
    local = get_file(fname=path, origin=ORIGIN, file_hash=SHA256)
    with np.load(local, allow_pickle=False) as f:
        return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])
