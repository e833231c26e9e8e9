"""Saving: weights files, layer/model configs, and whole models in ``.keras`` files.

Weights
-------
``model.save_weights`` / ``model.load_weights``: every weight in one NumPy ``.npz`` file.

Keras 3 writes HDF5 (``*.weights.h5``) keyed by layer paths. The engine keeps
the file name convention (``*.weights.h5`` is accepted, as is
``*.weights.npz``) but writes a NumPy ``npz`` archive (no HDF5 dependency),
whatever the suffix. Its entries:

* ``__format__``: ``"engine.keras.weights/1"``;
* ``0000:dense/kernel``, ``0001:dense/bias``, ...: one array per weight, in
  ``model.weights`` order (the number gives the order, the name is informative).

Loading assigns the arrays in order to a model of the same architecture, checking
the count and every shape (``skip_mismatch=True`` skips mismatching shapes).

Configs (``serialization.py``, ``models/sequential.py``, ``models/functional.py``)
-------------------------------------------------------------------------------
``layer.get_config()`` is a JSON-friendly dict of constructor arguments
(``Layer.get_config``); :func:`serialize_value` turns initializers,
regularizers and nested layers into ``{"class_name": ..., "config": ...}``
dicts, and :func:`deserialize_value` rebuilds them. Models:

* ``Sequential.get_config()``: ``{"name", "trainable", "layers": [...]}``, the
  ``InputLayer`` first when the model has one (as Keras 3);
* ``Functional.get_config()``: Keras 3's layout: ``"layers"`` (each with
  ``name``, ``class_name``, ``config`` and its ``inbound_nodes``, whose
  arguments refer to tensors as ``{"class_name": "__keras_tensor__", "config":
  {"keras_history": [layer_name, node_index, tensor_index]}}``),
  ``"input_layers"`` and ``"output_layers"``. ``from_config`` re-creates the
  layers and replays the calls in dependency order.

Classes are found again by Keras 3's rules (``serialization.py``): a user's class must be
registered (``@keras.saving.register_keras_serializable()``) or passed as
``custom_objects={"MyLayer": MyLayer}``. As in TF 2.21, an unregistered class is not
found by its module, not even in ``__main__`` or an importable module (``TypeError``:
"Could not locate class ...").

Whole models: ``model.save("m.keras")`` / ``tf.keras.models.load_model``
-----------------------------------------------------------------------
A ``.keras`` file here is a zip holding ``config.json`` (``{"module", "class_name",
"config", "compile_config"}``, plus, as Keras 3 writes them, ``"registered_name"`` for
a user's class and ``"build_config"``, the input shape the model was built with, which
``load_model`` builds an unbuilt model with), ``metadata.json`` and ``model.weights.npz``
(the weights format above). **It is not byte-compatible with Keras's
``.keras`` files** (those hold HDF5 weights): the engine reads only its own.
The compile configuration is saved when it is made of names (``optimizer="adam"``,
``loss="mse"``, ``metrics=["accuracy"]``; an optimizer object is saved as its
class name and learning rate) and ``load_model(compile=True)`` recompiles with
it. **Optimizer state (slots, iterations) is not saved**: a loaded model
resumes training with fresh optimizer slots. ``.h5`` (legacy HDF5) is not
supported.
"""
import io
import json
import os
import warnings
import zipfile

import numpy as np

from . import optimizers
from .serialization import (deserialize_keras_object, deserialize_value, serialize_keras_object,  # noqa: F401
                            serialize_value)
from .serialization import SafeModeScope, is_builtin_class
from .serialization import (CustomObjectScope, custom_object_scope, get_custom_objects,  # noqa: F401
                            get_registered_name, get_registered_object, register_keras_serializable)

__all__ = ["save_weights", "load_weights", "serialize_value", "deserialize_value", "save_model", "load_model",
           "model_from_config", "serialize_keras_object", "deserialize_keras_object"]

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
        arrays[f"{i:04d}:{getattr(weight, 'path', None) or weight.name.split(':')[0]}"] = np.asarray(weight.numpy())
    # as Keras 3: the optimizer's state too (its step count, its slots), so training can resume exactly
    for i, variable in enumerate(_optimizer_variables(model)):
        arrays[f"{_OPTIMIZER}{i:04d}:{variable.name.split(':')[0]}"] = np.asarray(variable.numpy())
    with open(filepath, "wb") as f:   # a file object: np.savez would append ".npz" to a name
        np.savez(f, **arrays)


def load_weights(model, filepath, skip_mismatch=False):
    filepath = _check_path(filepath)
    with np.load(filepath, allow_pickle=False) as data:
        if "__format__" not in data.files or str(data["__format__"]) != FORMAT:
            raise ValueError(f"{filepath} was not written by save_weights (expected the {FORMAT!r} npz format).")
        keys = sorted(k for k in data.files if k != "__format__" and not k.startswith(_OPTIMIZER))
        saved = [data[k] for k in keys]
        optimizer_keys = sorted(k for k in data.files if k.startswith(_OPTIMIZER))
        optimizer_saved = [data[k] for k in optimizer_keys]
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
    _load_optimizer_variables(model, optimizer_saved)


_OPTIMIZER = "optimizer/"


def _optimizer_variables(model):
    optimizer = getattr(model, "optimizer", None)
    return list(optimizer.variables) if optimizer is not None and getattr(optimizer, "built", False) else []


def _load_optimizer_variables(model, saved):
    """The saved optimizer state into the model's optimizer, when it has the same variables (Keras 3's rule:
    otherwise a warning, and the optimizer keeps its own state)."""
    optimizer = getattr(model, "optimizer", None)
    if not saved or optimizer is None:
        return
    variables = _optimizer_variables(model)
    if len(variables) != len(saved) or any(tuple(v.shape.as_list()) != a.shape for v, a in zip(variables, saved)):
        warnings.warn(f"Skipping variable loading for optimizer '{getattr(optimizer, 'name', 'optimizer')}', "
                      f"because it has {len(variables)} variables whereas the saved optimizer has {len(saved)} "
                      f"variables.")
        return
    for variable, value in zip(variables, saved):
        variable.assign(value.astype(variable.dtype.as_numpy_dtype, copy=False))


# --------------------------------------------------------------------------------------
# Models from configs (the configs themselves: serialization.py, models/sequential.py and models/functional.py)
# --------------------------------------------------------------------------------------
def model_from_config(config, custom_objects=None):
    """``tf.keras.models.model_from_config``: a model (or layer) from ``{"class_name", "config"}``."""
    return deserialize_keras_object(config, custom_objects)


# --------------------------------------------------------------------------------------
# .keras files
# --------------------------------------------------------------------------------------
KERAS_FORMAT = "engine.keras.model/1"


def _compile_config(model):
    if not getattr(model, "compiled", False) and getattr(model, "optimizer", None) is None:
        return None
    args = getattr(model, "_compile_args", None)
    if not args:
        return None
    out = {}
    for key, value in args.items():
        if key == "optimizer" and value is not None and not isinstance(value, str):
            lr = getattr(value, "learning_rate", None)
            value = {"class_name": type(value).__name__,
                     "learning_rate": float(np.asarray(lr.numpy() if hasattr(lr, "numpy") else lr))
                     if lr is not None and not callable(getattr(value, "_learning_rate", None)) else None}
        try:
            json.dumps(value)
        except TypeError:
            continue      # a loss/metric object: not saved (recompile after loading)
        out[key] = value
    return out


def _recompile(model, compile_config):
    kwargs = dict(compile_config)
    opt = kwargs.get("optimizer")
    if isinstance(opt, dict):
        cls = getattr(optimizers, opt["class_name"])
        kwargs["optimizer"] = cls(learning_rate=opt["learning_rate"]) if opt.get("learning_rate") is not None \
            else cls()
    model.compile(**kwargs)


def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    """``model.save(filepath)``: the engine's ``.keras`` zip (config + weights; see the module docstring)."""
    filepath = os.fspath(filepath)
    if filepath.endswith(".h5"):
        raise NotImplementedError("The engine does not write the legacy HDF5 (.h5) model format; save to a "
                                  "`.keras` file.")
    if not filepath.endswith(".keras"):
        raise ValueError(f"Invalid filepath extension for saving. Please add either a `.keras` extension for the "
                         f"native Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` if "
                         f"you want to export a SavedModel for use with TFLite/TFServing/etc. Received: "
                         f"filepath={filepath}.")
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} exists and overwrite=False.")
    config = serialize_keras_object(model)      # module, class_name, config (and registered_name: a user's class)
    if is_builtin_class(type(model)):
        config["module"] = "keras.models"
    build_config = model.get_build_config()
    if build_config is not None:
        config["build_config"] = build_config
    config["compile_config"] = _compile_config(model)
    weights = io.BytesIO()
    arrays = {"__format__": np.array(FORMAT)}
    for i, weight in enumerate(model.weights):
        arrays[f"{i:04d}:{getattr(weight, 'path', None) or weight.name.split(':')[0]}"] = np.asarray(weight.numpy())
    np.savez(weights, **arrays)
    metadata = {"format": KERAS_FORMAT, "keras_version": "3.15.0 (engine)"}
    with zipfile.ZipFile(filepath, "w") as z:
        z.writestr("metadata.json", json.dumps(metadata))
        z.writestr("config.json", json.dumps(config))
        z.writestr("model.weights.npz", weights.getvalue())


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002 (Keras' name)
    """``tf.keras.models.load_model``: a model saved by ``model.save("x.keras")`` (the engine's format)."""
    filepath = os.fspath(filepath)
    if not filepath.endswith(".keras"):
        raise ValueError(f"File format not supported: filepath={filepath}. The engine's load_model reads only "
                         f"`.keras` files written by the engine's model.save().")
    if not os.path.exists(filepath):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible `.keras` "
                         f"zip file.")
    with zipfile.ZipFile(filepath) as z:
        names = z.namelist()
        if "metadata.json" not in names or json.loads(z.read("metadata.json")).get("format") != KERAS_FORMAT:
            raise ValueError(f"{filepath} was not written by the engine's model.save() (Keras's own .keras files, "
                             f"with HDF5 weights, are not readable by the engine).")
        config = json.loads(z.read("config.json"))
        weights = np.load(io.BytesIO(z.read("model.weights.npz")), allow_pickle=False)
        keys = sorted(k for k in weights.files if k != "__format__")
        saved = [weights[k] for k in keys]
    with SafeModeScope(safe_mode):    # safe_mode=True: a Lambda's Python lambda is not loaded (Keras 3)
        model = deserialize_keras_object(config, custom_objects)
    if not model.built and config.get("build_config"):
        _build_from_config(model, config["build_config"])
    if not model.built:
        raise ValueError(f"The loaded model '{model.name}' is not built (it has no input shape), so its weights "
                         f"cannot be restored.")
    _assign(model, keys, saved, filepath)
    if compile and config.get("compile_config"):
        _recompile(model, config["compile_config"])
    return model


def _build_from_config(model, build_config):
    """Build a loaded model from its saved input shape, as Keras 3's ``Model.build_from_config`` does: a model
    that cannot be built that way (its ``call`` fails on a symbolic input) gets Keras' warning, and is marked
    built all the same (its layers build at its first call)."""
    try:
        model.build_from_config(build_config)
    except Exception:  # noqa: BLE001 (Keras 3 catches everything here, and warns)
        warnings.warn(f"Model '{model.name}' had a build config, but the model cannot be built automatically in "
                      f"`build_from_config(config)`. You should implement `def build_from_config(self, config)`, "
                      f"and you might also want to implement the method  that generates the config at saving "
                      f"time, `def get_build_config(self)`. The method `build_from_config()` is meant to create "
                      f"the state of the model (i.e. its variables) upon deserialization.", stacklevel=3)
    model.built = True


def _assign(model, keys, saved, filepath):
    weights = model.weights
    if len(saved) != len(weights):
        raise ValueError(f"Weight count mismatch for model '{model.name}' loaded from {filepath}: the file has "
                         f"{len(saved)} weights, the rebuilt model has {len(weights)}.")
    for key, value, variable in zip(keys, saved, weights):
        if tuple(value.shape) != tuple(variable.shape.as_list()):
            raise ValueError(f"Shape mismatch in weight '{variable.name}': expected {variable.shape}, the file has "
                             f"{value.shape} ({key}).")
        variable.assign(value.astype(variable.dtype.as_numpy_dtype, copy=False))
