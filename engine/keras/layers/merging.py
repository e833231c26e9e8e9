"""Merge layers: combine a list of inputs into one tensor (residual connections, multi-branch models).

``Add``, ``Subtract``, ``Multiply``, ``Average`` work elementwise (shapes must
broadcast); ``Concatenate`` joins along ``axis``. Each has a functional twin
(``add``, ``subtract``, ``multiply``, ``average``, ``concatenate``) that makes
the layer and calls it at once: ``x = layers.add([a, b])``.
"""
from ...framework.tensor import convert_to_tensor
from ...ops import array_ops, math_ops
from .layer import Layer

__all__ = ["Add", "Subtract", "Multiply", "Average", "Concatenate", "add", "subtract", "multiply", "average",
           "concatenate"]


class _Merge(Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.built = True

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(f"A merge layer should be called on a list of at least 2 inputs. Got {inputs!r}")
        return self._merge(list(inputs))


class Add(_Merge):
    """``Add()([a, b, ...])`` returns ``a + b + ...`` (shapes must broadcast)."""

    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = math_ops.add(out, x)
        return out


class Subtract(_Merge):
    """``Subtract()([a, b])`` returns ``a - b`` (exactly two inputs)."""

    def _merge(self, inputs):
        if len(inputs) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: inputs={inputs}")
        return math_ops.subtract(inputs[0], inputs[1])


class Multiply(_Merge):
    """``Multiply()([a, b, ...])`` returns ``a * b * ...``."""

    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = math_ops.multiply(out, x)
        return out


class Average(_Merge):
    """``Average()([a, b, ...])`` returns ``(a + b + ...) / n``."""

    def _merge(self, inputs):
        out = Add._merge(self, inputs)
        return math_ops.divide(out, convert_to_tensor(float(len(inputs)), dtype=out.dtype))


class Concatenate(_Merge):
    """``Concatenate(axis=-1)([a, b, ...])`` joins the inputs along ``axis`` (other dims must match)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def _merge(self, inputs):
        return array_ops.concat(inputs, axis=self.axis)

    def get_config(self):
        return dict(super().get_config(), axis=self.axis)


def add(inputs, **kwargs):
    """Functional interface to :class:`Add`."""
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    """Functional interface to :class:`Subtract`."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    """Functional interface to :class:`Multiply`."""
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    """Functional interface to :class:`Average`."""
    return Average(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """Functional interface to :class:`Concatenate`."""
    return Concatenate(axis=axis, **kwargs)(inputs)
