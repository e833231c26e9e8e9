"""Layer and model configs as JSON-friendly data: ``serialize_value`` / ``deserialize_value``.

``layer.get_config()`` is a dict of constructor arguments (``Layer.get_config``);
:func:`serialize_value` turns initializers, regularizers and nested layers into
``{"module", "class_name", "config"}`` dicts (activations into their names),
and :func:`deserialize_value` rebuilds them, finding classes by name in
``custom_objects`` and then in the built-in modules (``BUILTIN_MODULES``).

Registering (Keras 3's ``register_keras_serializable``, exported as ``tf.keras.utils.*`` as TF 2.21 does,
and as ``tf.keras.saving.*`` as ``keras.saving`` does): ``@register_keras_serializable(package="MyLayers")``
records a class or function under ``"MyLayers>Name"`` (:func:`get_registered_name`); a registered class's
config carries that ``registered_name``, and deserializing finds it there without ``custom_objects``.

Finding a class again (``deserialize_keras_object``; Keras 3's ``_retrieve_class_or_fn``, as TF 2.21 runs it):

1. the config's ``registered_name`` (default: its ``class_name``) among the ``custom_object_scope``
   objects, the registered objects, then ``custom_objects``;
2. a built-in: when ``module`` is ``"keras"`` or ``"keras.*"`` (or one of the engine's own modules), the
   class of that name among the built-in classes (``BUILTIN_MODULES``); a built-in with a
   ``registered_name`` other than its class name is a ``ValueError``, as in Keras;
3. for the other Keras packages (``keras_hub``, ``keras_cv``, ``keras_nlp``) only, the class ``class_name``
   of the module imported with ``importlib``;
4. otherwise ``TypeError`` ("Could not locate class ...").

So, as in TF 2.21, a custom class that is neither registered nor passed in ``custom_objects`` is **not**
found, wherever it is defined: not in ``__main__`` (whose classes are saved with ``"module": None``, as
Keras saves them), and not in an importable module of the user's either (Keras imports only Keras'
own packages). Deliberate difference: a config with no ``"module"`` key at all (not ``None``: absent, as
the engine's functional model configs pass their layers) still finds a built-in by its class name; Keras
raises ``TypeError`` for it.

This module sits below the layers (``Layer`` uses it), so it imports none of
them: ``keras/__init__.py`` registers the modules to search. The model configs
are in ``models/sequential.py`` and ``models/functional.py``; files (weights,
``.keras``) in ``saving.py``.
"""
import importlib

import numpy as np

from ..framework import dtypes
from . import activations

__all__ = ["serialize_value", "deserialize_value", "serialize_keras_object", "deserialize_keras_object",
           "register_keras_serializable", "get_registered_name", "get_registered_object", "get_custom_objects",
           "custom_object_scope", "CustomObjectScope"]

_GLOBAL_CUSTOM_OBJECTS = {}   # "package>name" -> class or function
_GLOBAL_CUSTOM_NAMES = {}     # class or function -> "package>name"


def register_keras_serializable(package="Custom", name=None):
    """Decorator: register a class or function with Keras serialization as ``"<package>><name>"``
    (``name`` defaults to its ``__name__``). A class must have a ``get_config`` method (``ValueError``)."""
    def decorator(arg):
        class_name = name if name is not None else arg.__name__
        registered_name = package + ">" + class_name
        if isinstance(arg, type) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        _GLOBAL_CUSTOM_OBJECTS[registered_name] = arg
        _GLOBAL_CUSTOM_NAMES[arg] = registered_name
        return arg
    return decorator


def get_registered_name(obj):
    """``"package>name"`` of a registered object, else its ``__name__`` (``"Dense"``)."""
    if obj in _GLOBAL_CUSTOM_NAMES:
        return _GLOBAL_CUSTOM_NAMES[obj]
    return obj.__name__


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The class or function registered (or given) under ``name``, or None: the scope's objects, the
    registered ones, ``custom_objects``, then ``module_objects``."""
    scope = _custom_objects[-1]
    if name in scope:
        return scope[name]
    if name in _GLOBAL_CUSTOM_OBJECTS:
        return _GLOBAL_CUSTOM_OBJECTS[name]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if module_objects and name in module_objects:
        return module_objects[name]
    return None


def get_custom_objects():
    """The registry itself (a dict, ``"package>name"`` -> object): adding to it registers."""
    return _GLOBAL_CUSTOM_OBJECTS


class CustomObjectScope:
    """``with custom_object_scope({"MyLayer": MyLayer}):``: deserializing inside finds these by name."""

    def __init__(self, custom_objects):
        self.custom_objects = dict(custom_objects or {})

    def __enter__(self):
        _custom_objects.append(dict(_custom_objects[-1], **self.custom_objects))
        return self

    def __exit__(self, *exc_info):
        _custom_objects.pop()


custom_object_scope = CustomObjectScope


def is_builtin_class(cls):
    """Is ``cls`` one of the engine's own (``tf.keras``'s built-in) classes, rather than a user's?"""
    return cls.__module__ == "engine" or cls.__module__.startswith("engine.")


def class_module(cls):
    """The ``"module"`` Keras 3 saves for a custom class: its ``__module__``, ``None`` for ``__main__``."""
    return None if cls.__module__ == "__main__" else cls.__module__


def serialize_keras_object(obj):
    """A layer, initializer or regularizer as ``{"module", "class_name", "config"}``.

    Built-ins: ``module`` is ``"keras.layers"`` for every layer (``Layer._serialized_module``), else the
    class's module. A user's class, as Keras 3 writes it: ``module`` is its class's module (``None`` for a
    class of ``__main__``), plus ``registered_name``, the name it is registered under
    (:func:`get_registered_name`: its class name if it is not registered).
    """
    cls = type(obj)
    if is_builtin_class(cls) and cls not in _GLOBAL_CUSTOM_NAMES:
        module = getattr(cls, "_serialized_module", None) or cls.__module__
        return {"module": module, "class_name": cls.__name__, "config": obj.get_config()}
    return {"module": class_module(cls), "class_name": cls.__name__, "config": obj.get_config(),
            "registered_name": get_registered_name(cls)}


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


class UnknownObjectError(TypeError, ValueError):
    """A config names a class or function nobody registered or passed: TF 2.21 (Keras 3) raises ``TypeError``
    ("Could not locate class ..."). Deliberate difference: the engine's error is also a ``ValueError``
    (what the engine raised before), so code catching either keeps working."""


_custom_objects = [{}]
_safe_mode = [True]


def safe_mode():
    """Is deserialization in safe mode (the default: a ``Lambda``'s Python lambda is not loaded)?"""
    return _safe_mode[-1]


class SafeModeScope:
    """``with SafeModeScope(False):``: deserialize in (or out of) safe mode (``load_model(safe_mode=...)``)."""

    def __init__(self, safe_mode=True):
        self.safe_mode = True if safe_mode is None else bool(safe_mode)

    def __enter__(self):
        _safe_mode.append(self.safe_mode)
        return self

    def __exit__(self, *exc_info):
        _safe_mode.pop()


def current_custom_objects():
    """The custom objects in scope now (``custom_object_scope`` and the ``custom_objects`` being loaded with)."""
    return dict(_custom_objects[-1])

BUILTIN_MODULES = []
"""The modules whose classes ``deserialize_keras_object`` finds by name, in search order. ``keras/__init__.py``
fills it with ``layers``, ``models``, ``initializers`` and ``regularizers``: the layers and models import this
module (``Layer.get_config``/``from_config`` use it), so it cannot import them."""


_KERAS_PACKAGES = frozenset(["keras", "keras_hub", "keras_cv", "keras_nlp"])
_NO_MODULE = object()


def _is_builtin_module(module):
    return module in ("keras", "engine") or module.startswith(("keras.", "engine."))


def _builtin_class(class_name):
    for module in BUILTIN_MODULES:
        cls = getattr(module, class_name, None)
        if isinstance(cls, type):
            return cls
    return None


def _not_found(class_name, config):
    return UnknownObjectError(f"Could not locate class '{class_name}'. Make sure custom classes and functions are "
                              f"decorated with `@keras.saving.register_keras_serializable()`. If they are already "
                              f"decorated, make sure they are all imported so that the decorator is run before "
                              f"trying to load them. Full object config: {config}")


def _retrieve_class(config, custom_objects=None):
    """The class a config names, by Keras 3's rules (see the module docstring)."""
    class_name = config["class_name"]
    registered_name = config.get("registered_name", class_name)
    module = config.get("module", _NO_MODULE)
    found = get_registered_object(registered_name, custom_objects) if registered_name is not None else None
    if found is not None:
        return found
    if module is _NO_MODULE:            # the engine's leniency (module docstring): a built-in by its name
        cls = _builtin_class(class_name)
        if cls is not None:
            return cls
        raise _not_found(class_name, config)
    if module:
        if _is_builtin_module(module):
            cls = _builtin_class(class_name)
            if cls is not None:
                explicit = config.get("registered_name")
                if explicit and explicit != class_name:
                    raise ValueError(f"`registered_name={explicit!r}` was provided in the config, but "
                                     f"'{module}.{class_name}' resolved to a Keras built-in and does not use "
                                     f"registered names. Remove the `registered_name` field from the config. "
                                     f"Full object config: {config}")
                return cls
        package = module.split(".", maxsplit=1)[0]
        # Keras imports the module of only its own packages. The engine's ``keras`` is not importable as a
        # package (its classes are the built-ins above), so it imports only the other Keras packages.
        if package in _KERAS_PACKAGES and package != "keras":
            try:
                imported = importlib.import_module(module)
            except ModuleNotFoundError:
                raise UnknownObjectError(f"Could not deserialize class '{class_name}' because its parent module "
                                         f"{module} cannot be imported. Full object config: {config}") from None
            cls = vars(imported).get(class_name)
            if isinstance(cls, type) and hasattr(cls, "from_config"):
                return cls
            raise ValueError(f"Could not deserialize '{module}.{class_name}' because it is not a KerasSaveable "
                             f"subclass")
    raise _not_found(class_name, config)


def deserialize_keras_object(config, custom_objects=None):
    """The object a ``{"module", "class_name", "config"}`` dict describes (a layer, model, initializer,
    regularizer); the class is found by Keras 3's rules (module docstring)."""
    cls = _retrieve_class(config, custom_objects)   # the scope's objects, the registered ones, custom_objects...
    if custom_objects:     # ... and inside from_config, custom_objects are in scope (Keras 3's CustomObjectScope)
        _custom_objects.append(dict(_custom_objects[-1], **custom_objects))
    try:
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
