"""``tf.keras.regularizers``: penalties on weights (or activations) added to the training loss.

A regularizer is a callable ``penalty(x) -> scalar tensor``:

* ``L1(l1=0.01)``: ``l1 * sum(|x|)``;
* ``L2(l2=0.01)``: ``l2 * sum(x ** 2)`` (no factor 1/2, as in Keras);
* ``L1L2(l1=0.0, l2=0.0)``: both (note the defaults: 0, unlike ``L1``/``L2``).

Layers take them as ``kernel_regularizer=``, ``bias_regularizer=``
(``Dense``, ``Conv2D``, recurrent layers), ``embeddings_regularizer=``
(``Embedding``) and ``activity_regularizer=`` (every layer: a penalty on the
layer's *output*, divided by the batch size). ``layer.losses`` lists the
penalties (recomputed from the current weights each time it is read) and
``fit``/``train_on_batch``/``evaluate`` add them to the compiled loss, so the
reported ``loss`` includes them (see ``trainer.py``).

``get`` accepts an instance, a callable, a class, a config dict, or one of
Keras 3's names: ``"l1"``, ``"l2"``, ``"l1l2"`` (and the class names ``"L1"``,
``"L2"``, ``"L1L2"``). Note: ``"l1_l2"`` is *not* accepted by Keras 3.15's
``get`` (its name table has ``"l1l2"``), so it is refused here too; the
function-style aliases ``regularizers.l1``, ``l2``, ``l1_l2`` are the classes.
"""
import math

from ..framework import dtypes
from ..framework.tensor import convert_to_tensor
from ..ops import math_ops, reduction_ops

__all__ = ["Regularizer", "L1", "L2", "L1L2", "l1", "l2", "l1_l2", "get", "serialize", "deserialize"]


def _validate_float_arg(value, name):
    """A non-negative finite float, or Keras' ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"Invalid value for argument {name}: expected a non-negative float.Received: "
                         f"{name}={value}")
    return float(value)


def _factor(value, x):
    return convert_to_tensor(value, dtype=x.dtype)


def _as_tensor(x):
    """A tensor or a variable (ops read variables themselves, so the tape records the read)."""
    if not hasattr(x, "_is_variable"):
        x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        x = math_ops.cast(x, dtypes.float32)
    return x


class Regularizer:
    """Base class: ``__call__(x)`` returns the penalty (a scalar tensor). Subclass and override it."""

    def __call__(self, x):
        return 0.0

    def get_config(self):
        raise NotImplementedError(f"{self} does not implement get_config()")

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        try:
            args = ", ".join(f"{k}={v}" for k, v in self.get_config().items())
        except NotImplementedError:
            args = ""
        return f"<{type(self).__name__}({args})>"


class L1(Regularizer):
    """``l1 * reduce_sum(abs(x))``."""

    def __init__(self, l1=0.01):
        l1 = 0.01 if l1 is None else l1
        # Keras keeps the factor as a float32 tensor, so its config shows 0.009999999776482582.
        self.l1 = float(dtypes.float32.as_numpy_dtype(_validate_float_arg(l1, "l1")))

    def __call__(self, x):
        x = _as_tensor(x)
        return math_ops.multiply(_factor(self.l1, x), reduction_ops.reduce_sum(math_ops.abs(x)))

    def get_config(self):
        return {"l1": self.l1}


class L2(Regularizer):
    """``l2 * reduce_sum(square(x))``."""

    def __init__(self, l2=0.01):
        l2 = 0.01 if l2 is None else l2
        self.l2 = _validate_float_arg(l2, "l2")

    def __call__(self, x):
        x = _as_tensor(x)
        return math_ops.multiply(_factor(self.l2, x), reduction_ops.reduce_sum(math_ops.square(x)))

    def get_config(self):
        return {"l2": self.l2}


class L1L2(Regularizer):
    """``l1 * reduce_sum(abs(x)) + l2 * reduce_sum(square(x))`` (both factors default to 0)."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = _validate_float_arg(0.0 if l1 is None else l1, "l1")
        self.l2 = _validate_float_arg(0.0 if l2 is None else l2, "l2")

    def __call__(self, x):
        x = _as_tensor(x)
        total = convert_to_tensor(0.0, dtype=x.dtype)
        if self.l1:
            total = math_ops.add(total, math_ops.multiply(_factor(self.l1, x),
                                                          reduction_ops.reduce_sum(math_ops.abs(x))))
        if self.l2:
            total = math_ops.add(total, math_ops.multiply(_factor(self.l2, x),
                                                          reduction_ops.reduce_sum(math_ops.square(x))))
        return total

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


# Keras' function-style aliases are the classes themselves.
l1 = L1
l2 = L2
l1_l2 = L1L2

_BY_NAME = {"Regularizer": Regularizer, "L1": L1, "L2": L2, "L1L2": L1L2,
            "regularizer": Regularizer, "l1": L1, "l2": L2, "l1l2": L1L2}


def serialize(regularizer):
    return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}


def deserialize(config, custom_objects=None):
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or _BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"Could not interpret regularizer identifier: {config}")
    return cls.from_config(config.get("config", {}))


def get(identifier):
    """A regularizer from ``None``, an instance, a callable, a class, a config dict or a name (see above)."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = _BY_NAME.get(identifier)
    else:
        obj = identifier
    if callable(obj):
        return obj() if isinstance(obj, type) else obj
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
