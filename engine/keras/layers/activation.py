"""``Activation`` and ``ReLU``: layers that only apply an elementwise function (no weights)."""
from .. import activations
from .layer import Layer

__all__ = ["Activation", "ReLU"]


class Activation(Layer):
    """Applies ``activation`` (a name such as ``"relu"``, or a callable) to its input."""

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)
        self.built = True   # no weights: built at construction, as in Keras 3

    def call(self, inputs):
        return self.activation(inputs)


class ReLU(Layer):
    """``max(x, 0)``, generalized: ``negative_slope * (x - threshold)`` below ``threshold``, capped at ``max_value``."""

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: {max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be a negative value. Received: "
                             f"{negative_slope}")
        if threshold is None or threshold < 0.0:
            raise ValueError(f"threshold of a ReLU layer cannot be a negative value. Received: {threshold}")
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold
        self.built = True

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope, max_value=self.max_value,
                                threshold=self.threshold)
