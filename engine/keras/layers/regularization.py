"""``Dropout``: randomly zero inputs while training, to regularize.

With ``training=True`` each element is kept with probability ``1 - rate`` and
scaled by ``1 / (1 - rate)`` (so the expected value is unchanged); otherwise the
layer is the identity. The mask comes from ``tf.nn.dropout``, hence from
``tf.random``: reproducible after ``tf.random.set_seed``, and with ``seed=`` the
layer's masks form one reproducible sequence.
"""
from ...ops import nn_ops
from .layer import Layer

__all__ = ["Dropout"]


class Dropout(Layer):
    """Zero a fraction ``rate`` of the inputs while training; the identity at inference."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                             f"Received: rate={rate}")
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self.built = True   # no weights: built at construction, as in Keras 3

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            return nn_ops.dropout(inputs, self.rate, noise_shape=self.noise_shape, seed=self.seed)
        return inputs

    def get_config(self):
        return dict(super().get_config(), rate=self.rate, seed=self.seed)


Dropout._masks_by_default = True   # passes an input mask on unchanged (Keras: ``supports_masking = True``)
