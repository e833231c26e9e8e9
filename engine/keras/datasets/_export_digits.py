"""One-off export of scikit-learn's bundled digits (UCI optdigits test set) to digits.npz.

Run from the repository root with scikit-learn installed (it is not a project dependency):
``python engine/keras/datasets/_export_digits.py``. See README.md in this folder.
"""
import numpy as np
from sklearn.datasets import load_digits
d = load_digits()
images = d.images.astype(np.uint8)          # (1797, 8, 8), values 0..16
labels = d.target.astype(np.uint8)
perm = np.random.RandomState(0).permutation(len(labels))
n_test = 360
test, train = perm[:n_test], perm[n_test:]
np.savez_compressed("engine/keras/datasets/digits.npz", x_train=images[train], y_train=labels[train],
                    x_test=images[test], y_test=labels[test])
print(images.shape, images.max(), np.bincount(labels[train]), np.bincount(labels[test]))
