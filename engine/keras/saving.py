"""``model.save_weights`` / ``model.load_weights``: every weight in one NumPy ``.npz`` file.

Keras 3 writes HDF5 (``*.weights.h5``) keyed by layer paths. The engine keeps
the file name convention (``*.weights.h5`` is accepted, as is
``*.weights.npz``) but writes a NumPy ``npz`` archive (no HDF5 dependency),
whatever the suffix. Its entries:

* ``__format__``: ``"engine.keras.weights/1"``;
* ``0000:dense/kernel``, ``0001:dense/bias``, ...: one array per weight, in
  ``model.weights`` order (the number gives the order, the name is informative).

Loading assigns the arrays in order to a model of the same architecture, checking
the count and every shape (``skip_mismatch=True`` skips mismatching shapes).
"""
import os
import warnings

import numpy as np

__all__ = ["save_weights", "load_weights"]

FORMAT = "engine.keras.weights/1"
_SUFFIXES = (".weights.h5", ".weights.npz")


def _check_path(filepath):
    filepath = os.fspath(filepath)
    if not filepath.endswith(_SUFFIXES):
        raise ValueError(f"The filename must end in `.weights.h5` (or `.weights.npz`). Received: filepath={filepath}")
    return filepath


def save_weights(model, filepath, overwrite=True):
    filepath = _check_path(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} exists and overwrite=False.")
    arrays = {"__format__": np.array(FORMAT)}
    for i, weight in enumerate(model.weights):
        arrays[f"{i:04d}:{weight.name.split(':')[0]}"] = np.asarray(weight.numpy())
    with open(filepath, "wb") as f:   # a file object: np.savez would append ".npz" to a name
        np.savez(f, **arrays)


def load_weights(model, filepath, skip_mismatch=False):
    filepath = _check_path(filepath)
    with np.load(filepath, allow_pickle=False) as data:
        if "__format__" not in data.files or str(data["__format__"]) != FORMAT:
            raise ValueError(f"{filepath} was not written by save_weights (expected the {FORMAT!r} npz format).")
        keys = sorted(k for k in data.files if k != "__format__")
        saved = [data[k] for k in keys]
    weights = model.weights
    if len(saved) != len(weights):
        raise ValueError(f"Weight count mismatch for model '{model.name}': the file has {len(saved)} weights, the "
                         f"model has {len(weights)}. load_weights needs a model of the same architecture.")
    for key, value, variable in zip(keys, saved, weights):
        expected = tuple(variable.shape.as_list())
        if value.shape != expected:
            if skip_mismatch:
                warnings.warn(f"Skipping loading weights for '{variable.name}' due to mismatch in shape: expected "
                              f"{expected}, file has {value.shape} ({key}).")
                continue
            raise ValueError(f"Shape mismatch in weight '{variable.name}': expected {expected}, the file has "
                             f"{value.shape} ({key}).")
        variable.assign(value.astype(variable.dtype.as_numpy_dtype, copy=False))
