"""``Lambda``: a layer around a Python function (``Lambda(lambda x: x * 2)``), as Keras 3's.

``call(inputs)`` is ``function(inputs, **arguments)``, plus ``mask=``/``training=`` when the function
takes them. It has no weights: a ``tf.Variable`` the function uses is not tracked (Keras 3 warns the
same). The output shape comes from running the function on symbolic inputs (functional models,
``summary()``), unless ``output_shape`` is given.

Saving: ``get_config()["function"]`` is the function itself, serialized as Keras 3 does: a Python lambda
as ``{"class_name": "__lambda__", "config": {"code", "defaults", "closure"}}`` (its bytecode, ``marshal``
then base64), a named function as its registered name. Loading a lambda runs stored bytecode, so it is
refused unless ``safe_mode=False`` (``load_model(..., safe_mode=False)``): ``ValueError``, Keras' message.
Deliberate difference: the bytecode only loads in the Python version that wrote it (as in Keras), and a
loaded lambda sees this module's globals and ``custom_objects`` (not the names of the defining module).
"""
import base64
import inspect
import marshal
import types

from .. import serialization
from .layer import Layer

__all__ = ["Lambda"]

_UNSAFE_LAMBDA = ("Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. This "
                  "carries a potential risk of arbitrary code execution and thus it is disallowed by default. If you "
                  "trust the source of the artifact, you can override this error by passing `safe_mode=False` to "
                  "the loading function, or calling `keras.config.enable_unsafe_deserialization().")


class Lambda(Layer):
    """Wrap ``function`` as a layer. ``arguments``: extra keyword arguments passed on every call."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(f"Argument `function` must be a callable. Received: function={function}")
        self.function = function
        self.arguments = dict(arguments or {})
        self._output_shape_arg = output_shape
        self.mask = mask
        try:
            parameters = inspect.signature(function).parameters
        except (TypeError, ValueError):
            parameters = {}
        self._fn_expects_training = "training" in parameters
        self._fn_expects_mask = "mask" in parameters
        self.supports_masking = mask is not None or self._fn_expects_mask

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._fn_expects_mask:
            kwargs["mask"] = mask
        if self._fn_expects_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, previous_mask):
        if callable(self.mask):
            return self.mask(inputs, previous_mask)
        return self.mask if self.mask is not None else previous_mask

    def get_config(self):
        config = {"name": self.name, "trainable": self.trainable, "dtype": self.dtype,
                  "function": _serialize_function(self.function)}
        if self._output_shape_arg is not None:
            config["output_shape"] = self._output_shape_arg
        config["arguments"] = serialization.serialize_value(self.arguments)
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["function"] = _deserialize_function(config["function"])
        if config.get("output_shape") is not None and isinstance(config["output_shape"], list):
            config["output_shape"] = tuple(config["output_shape"])
        config["arguments"] = serialization.deserialize_value(config.get("arguments") or {})
        return cls(**config)


def _serialize_function(function):
    if isinstance(function, types.LambdaType) and function.__name__ == "<lambda>":
        code = base64.b64encode(marshal.dumps(function.__code__)).decode("ascii")
        closure = None if function.__closure__ is None else \
            [serialization.serialize_value(c.cell_contents) for c in function.__closure__]
        defaults = None if function.__defaults__ is None else \
            [serialization.serialize_value(d) for d in function.__defaults__]
        return {"class_name": "__lambda__", "config": {"code": code, "defaults": defaults, "closure": closure}}
    name = serialization.get_registered_name(function)
    return {"module": getattr(function, "__module__", None), "class_name": "function", "config": name,
            "registered_name": name}


def _deserialize_function(config):
    if not isinstance(config, dict):
        return config
    if config.get("class_name") == "__lambda__":
        if serialization.safe_mode():
            raise ValueError(_UNSAFE_LAMBDA)
        inner = config["config"]
        code = marshal.loads(base64.b64decode(inner["code"]))
        closure = None if inner.get("closure") is None else \
            tuple(types.CellType(serialization.deserialize_value(c)) for c in inner["closure"])
        defaults = None if inner.get("defaults") is None else \
            tuple(serialization.deserialize_value(d) for d in inner["defaults"])
        scope = dict(globals(), **serialization.current_custom_objects())
        return types.FunctionType(code, scope, code.co_name, defaults, closure)
    name = config.get("registered_name") or config.get("config")
    function = serialization.get_registered_object(name)
    if function is None:
        raise serialization.UnknownObjectError(f"Could not locate function '{name}'. Make sure custom classes and functions are decorated "
                        f"with `@keras.saving.register_keras_serializable()`. If they are already decorated, make "
                        f"sure they are all imported so that the decorator is run before trying to load them. Full "
                        f"object config: {config}")
    return function
