"""``Activation``, ``ReLU``, ``LeakyReLU`` and ``Softmax``: layers that only apply an elementwise function (no weights)."""
from ...ops import nn_ops
from .. import activations
from .layer import Layer

__all__ = ["Activation", "ReLU", "LeakyReLU", "Softmax"]


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


class LeakyReLU(Layer):
    """``x`` for ``x >= 0``, ``negative_slope * x`` below (Keras 3's default slope is 0.3)."""

    def __init__(self, negative_slope=0.3, **kwargs):
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"The negative_slope value of a Leaky ReLU layer cannot be None or negative value. "
                             f"Expected a float. Received: negative_slope={negative_slope}")
        self.negative_slope = negative_slope
        self.built = True

    def call(self, inputs):
        return nn_ops.leaky_relu(inputs, alpha=self.negative_slope)

    def get_config(self):
        return dict(super().get_config(), negative_slope=self.negative_slope)


class Softmax(Layer):
    """``softmax`` along ``axis`` (default the last)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.built = True

    def call(self, inputs):
        return activations.softmax(inputs, axis=self.axis)


# These layers pass an input mask on unchanged (Keras: ``supports_masking = True``).
for _cls in (Activation, ReLU, LeakyReLU):
    _cls._masks_by_default = True
