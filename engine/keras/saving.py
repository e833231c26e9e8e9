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

Configs
-------
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

Only the engine's built-in layers (``tf.keras.layers``) are known by name;
pass ``custom_objects={"MyLayer": MyLayer}`` for others.

Whole models: ``model.save("m.keras")`` / ``tf.keras.models.load_model``
-----------------------------------------------------------------------
A ``.keras`` file here is a zip holding ``config.json`` (``{"class_name",
"config", "compile_config"}``), ``metadata.json`` and ``model.weights.npz``
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


# --------------------------------------------------------------------------------------
# Serializing constructor arguments
# --------------------------------------------------------------------------------------
def _layer_class():
    from .layers.layer import Layer
    return Layer


def serialize_keras_object(obj):
    """A layer, initializer or regularizer as ``{"module", "class_name", "config"}``."""
    module = "keras.layers" if isinstance(obj, _layer_class()) else type(obj).__module__
    return {"module": module, "class_name": type(obj).__name__, "config": obj.get_config()}


def serialize_value(value):
    """A constructor argument as JSON-friendly data (see the module docstring)."""
    from ..framework import dtypes
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dtypes.DType):
        return value.name
    if isinstance(value, (list, tuple)):
        return type(value)(serialize_value(v) for v in value)
    if isinstance(value, dict):
        return {k: serialize_value(v) for k, v in value.items()}
    if hasattr(value, "get_config"):
        return serialize_keras_object(value)
    if callable(value):      # an activation function
        from . import activations
        return activations.serialize(value)
    raise TypeError(f"Cannot serialize {value!r} of type {type(value).__name__} in a layer config.")


_custom_objects = [{}]


def _lookup(class_name):
    from . import initializers, layers, models, regularizers
    custom = _custom_objects[-1]
    if class_name in custom:
        return custom[class_name]
    for module in (layers, models, initializers, regularizers):
        cls = getattr(module, class_name, None)
        if isinstance(cls, type):
            return cls
    return None


def deserialize_keras_object(config, custom_objects=None):
    """The object a ``{"class_name", "config"}`` dict describes (a layer, model, initializer, regularizer)."""
    if custom_objects:
        _custom_objects.append(dict(_custom_objects[-1], **custom_objects))
    try:
        cls = _lookup(config["class_name"])
        if cls is None:
            raise ValueError(f"Could not locate class '{config['class_name']}'. Make sure custom classes are "
                             f"decorated with `@keras.saving.register_keras_serializable()` or passed in "
                             f"`custom_objects`. Full object config: {config}")
        return cls.from_config(config.get("config", {}))
    finally:
        if custom_objects:
            _custom_objects.pop()


def deserialize_value(value):
    """The inverse of :func:`serialize_value` (lists stay lists: constructors accept them)."""
    if isinstance(value, dict):
        if "class_name" in value and "config" in value and value["class_name"] != "__keras_tensor__":
            return deserialize_keras_object(value)
        return {k: deserialize_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [deserialize_value(v) for v in value]
    return value


# --------------------------------------------------------------------------------------
# Model configs
# --------------------------------------------------------------------------------------
def sequential_config(model):
    layers = []
    if model._input_layer is not None:
        layers.append(serialize_keras_object(model._input_layer))
    layers.extend(serialize_keras_object(layer) for layer in model.layers)
    return {"name": model.name, "trainable": model.trainable, "layers": layers}


def sequential_from_config(cls, config, custom_objects=None):
    layers = [deserialize_keras_object(c, custom_objects) for c in config["layers"]]
    return cls(layers=layers, name=config.get("name"), trainable=config.get("trainable", True))


def _model_nodes(model):
    """Each layer's nodes that belong to this model, in the layer's call order."""
    nodes = {id(n) for depth in model._nodes_by_depth.values() for n in depth}
    return {layer: [n for n in layer._inbound_nodes if id(n) in nodes] for layer in model.layers}


def functional_config(model):
    from .keras_tensor import KerasTensor
    from ..util import nest
    per_layer = _model_nodes(model)
    node_index = {id(n): i for nodes in per_layer.values() for i, n in enumerate(nodes)}

    def ref(t):
        layer, index, tensor_index = t._keras_history
        return [layer.name, node_index[id(layer._inbound_nodes[index])], tensor_index]

    def encode(x):
        if isinstance(x, KerasTensor):
            return {"class_name": "__keras_tensor__", "config": {"shape": list(x.shape), "dtype": x.dtype.name,
                                                                 "keras_history": ref(x)}}
        return serialize_value(x)
    layers = []
    for layer in model.layers:
        entry = serialize_keras_object(layer)
        entry["name"] = layer.name
        entry["inbound_nodes"] = []
        for node in per_layer[layer]:
            if node.is_input:
                continue
            args, kwargs = node.arguments
            entry["inbound_nodes"].append({"args": [nest.map_structure(encode, a) for a in args],
                                           "kwargs": {k: nest.map_structure(encode, v) for k, v in kwargs.items()}})
        layers.append(entry)

    def refs(struct):
        return nest.map_structure(ref, struct) if not isinstance(struct, (list, tuple)) else [ref(t) for t in
                                                                                            nest.flatten(struct)]
    return {"name": model.name, "trainable": model.trainable, "layers": layers,
            "input_layers": refs(model._inputs_struct), "output_layers": refs(model._outputs_struct)}


def functional_from_config(cls, config, custom_objects=None):
    """Re-create the layers, then replay their calls as soon as their inputs exist (Keras' algorithm)."""
    from ..util import nest
    from .models.functional import Functional
    created, tensors, pending = {}, {}, []
    for entry in config["layers"]:
        layer = deserialize_keras_object({"class_name": entry["class_name"], "config": entry["config"]},
                                         custom_objects)
        created[entry["name"]] = layer
        if not entry["inbound_nodes"]:     # an InputLayer: node 0 already made its tensor
            tensors[(entry["name"], 0, 0)] = layer.output
        pending.append([entry["name"], list(entry["inbound_nodes"]), 0 if entry["inbound_nodes"] else 1])

    def is_ref(x):
        return isinstance(x, dict) and x.get("class_name") == "__keras_tensor__"

    def ready(node):
        return all(tuple(r) in tensors for r in _refs_in(node))

    def decode(x):
        if is_ref(x):
            return tensors[tuple(x["config"]["keras_history"])]
        if isinstance(x, dict):
            return {k: decode(v) for k, v in x.items()}
        if isinstance(x, list):
            return [decode(v) for v in x]
        return deserialize_value(x)
    progress = True
    while progress and any(p[1] for p in pending):
        progress = False
        for item in pending:
            name, nodes, next_index = item
            while nodes and ready(nodes[0]):
                node = nodes.pop(0)
                args = [decode(a) for a in node["args"]]
                kwargs = {k: decode(v) for k, v in node["kwargs"].items()}
                outputs = created[name](*args, **kwargs)
                for i, t in enumerate(nest.flatten(outputs)):
                    tensors[(name, next_index, i)] = t
                item[2] = next_index = next_index + 1
                progress = True
    if any(p[1] for p in pending):
        raise ValueError("Cannot rebuild the functional model: some layer calls have inputs that no other layer "
                         "produces (is the config complete?).")

    def lookup(refs):
        if refs and isinstance(refs[0], str):
            return tensors[tuple(refs)]
        return [tensors[tuple(r)] for r in refs]
    inputs, outputs = lookup(config["input_layers"]), lookup(config["output_layers"])
    if isinstance(inputs, list) and len(inputs) == 1:
        inputs = inputs[0]
    if isinstance(outputs, list) and len(outputs) == 1:
        outputs = outputs[0]
    model = Functional(inputs, outputs, name=config.get("name"))
    model.trainable = config.get("trainable", True)
    return model


def _refs_in(value):
    if isinstance(value, dict):
        if value.get("class_name") == "__keras_tensor__":
            return [value["config"]["keras_history"]]
        return [r for v in value.values() for r in _refs_in(v)]
    if isinstance(value, list):
        return [r for v in value for r in _refs_in(v)]
    return []


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
    from . import optimizers
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
    config = {"module": "keras.models" if type(model).__name__ in ("Sequential", "Functional") else
              type(model).__module__, "class_name": type(model).__name__, "config": model.get_config(),
              "compile_config": _compile_config(model)}
    weights = io.BytesIO()
    arrays = {"__format__": np.array(FORMAT)}
    for i, weight in enumerate(model.weights):
        arrays[f"{i:04d}:{weight.name.split(':')[0]}"] = np.asarray(weight.numpy())
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
    model = deserialize_keras_object(config, custom_objects)
    if not model.built:
        raise ValueError(f"The loaded model '{model.name}' is not built (it has no input shape), so its weights "
                         f"cannot be restored.")
    _assign(model, keys, saved, filepath)
    if compile and config.get("compile_config"):
        _recompile(model, config["compile_config"])
    return model


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
