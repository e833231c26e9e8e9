"""``Flatten``: keep the batch axis, merge all the others."""
import math

from ...ops import array_ops
from .layer import Layer

__all__ = ["Flatten"]


class Flatten(Layer):
    """``(batch, d1, d2, ...)`` -> ``(batch, d1 * d2 * ...)`` (a rank-1 input becomes ``(batch, 1)``)."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise NotImplementedError("Flatten: only data_format='channels_last' is implemented in the engine.")
        self.data_format = "channels_last"

    def call(self, inputs):
        non_batch = inputs.shape.as_list()[1:]
        if all(d is not None for d in non_batch):
            # the common case: the flattened size is known, the batch size may not be (-1)
            return array_ops.reshape(inputs, [-1, math.prod(non_batch)])
        batch = array_ops.shape(inputs)[0]
        return array_ops.reshape(inputs, array_ops.stack([batch, -1]))
