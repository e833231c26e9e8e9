"""``Add``: the elementwise sum of several inputs (residual connections in functional models)."""
from ...ops import math_ops
from .layer import Layer

__all__ = ["Add"]


class Add(Layer):
    """``Add()([a, b, ...])`` returns ``a + b + ...`` (shapes must broadcast)."""

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(f"A merge layer should be called on a list of at least 2 inputs. Got {inputs!r}")
        out = inputs[0]
        for x in inputs[1:]:
            out = math_ops.add(out, x)
        return out
