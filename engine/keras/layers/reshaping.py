"""``Flatten``: keep the batch axis, merge all the others; ``Reshape``: give the non-batch axes a new shape."""
import math

from ...framework.tensor import constant
from ...ops import array_ops
from .layer import Layer

__all__ = ["Flatten", "Reshape"]


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


class Reshape(Layer):
    """``(batch, ...)`` -> ``(batch,) + target_shape`` (one entry of ``target_shape`` may be ``-1``)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)
        if sum(d == -1 for d in self.target_shape) > 1:
            raise ValueError(f"There must be at most one unknown dimension (-1) in target_shape. Received: "
                             f"target_shape={self.target_shape}")
        self.built = True

    def call(self, inputs):
        batch = inputs.shape[0]
        if batch is None:
            batch = array_ops.shape(inputs)[0]
            return array_ops.reshape(inputs, array_ops.concat(
                [array_ops.reshape(batch, [1]), constant(list(self.target_shape), dtype="int32")], 0))
        return array_ops.reshape(inputs, [batch] + list(self.target_shape))

    def get_config(self):
        return dict(super().get_config(), target_shape=self.target_shape)
