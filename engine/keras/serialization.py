"""Layer and model configs as JSON-friendly data: ``serialize_value`` / ``deserialize_value``.

``layer.get_config()`` is a dict of constructor arguments (``Layer.get_config``);
:func:`serialize_value` turns initializers, regularizers and nested layers into
``{"module", "class_name", "config"}`` dicts (activations into their names),
and :func:`deserialize_value` rebuilds them, finding classes by name in
``custom_objects`` and then in the built-in modules (``BUILTIN_MODULES``).

This module sits below the layers (``Layer`` uses it), so it imports none of
them: ``keras/__init__.py`` registers the modules to search. The model configs
are in ``models/sequential.py`` and ``models/functional.py``; files (weights,
``.keras``) in ``saving.py``.
"""
import numpy as np

from ..framework import dtypes
from . import activations

__all__ = ["serialize_value", "deserialize_value", "serialize_keras_object", "deserialize_keras_object"]


def serialize_keras_object(obj):
    """A layer, initializer or regularizer as ``{"module", "class_name", "config"}``.

    ``module`` is ``"keras.layers"`` for every layer (``Layer._serialized_module``), else the class's module.
    """
    module = getattr(type(obj), "_serialized_module", None) or type(obj).__module__
    return {"module": module, "class_name": type(obj).__name__, "config": obj.get_config()}


def serialize_value(value):
    """A constructor argument as JSON-friendly data (see the module docstring)."""
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
        return activations.serialize(value)
    raise TypeError(f"Cannot serialize {value!r} of type {type(value).__name__} in a layer config.")


_custom_objects = [{}]

BUILTIN_MODULES = []
"""The modules whose classes ``deserialize_keras_object`` finds by name, in search order. ``keras/__init__.py``
fills it with ``layers``, ``models``, ``initializers`` and ``regularizers``: the layers and models import this
module (``Layer.get_config``/``from_config`` use it), so it cannot import them."""


def _lookup(class_name):
    custom = _custom_objects[-1]
    if class_name in custom:
        return custom[class_name]
    for module in BUILTIN_MODULES:
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
