"""``MaxPooling2D`` and ``AveragePooling2D``: downsample NHWC images window by window (no weights)."""
from ...ops import nn_ops
from .convolutional import _data_format, _padding, _pair
from .layer import Layer

__all__ = ["MaxPooling2D", "AveragePooling2D"]


class _Pooling2D(Layer):
    _op = None

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.pool_size = _pair(pool_size, "pool_size")
        self.strides = self.pool_size if strides is None else _pair(strides, "strides")
        self.padding = _padding(padding)
        self.data_format = _data_format(data_format, type(self).__name__)
        self.built = True   # no weights: built at construction, as in Keras 3

    def call(self, inputs):
        return type(self)._op(inputs, ksize=list(self.pool_size), strides=list(self.strides),
                              padding=self.padding.upper())

    def get_config(self):
        return dict(super().get_config(), pool_size=self.pool_size, strides=self.strides, padding=self.padding)


class MaxPooling2D(_Pooling2D):
    """The maximum of each ``pool_size`` window (default 2x2, stride = pool size)."""

    _op = staticmethod(nn_ops.max_pool2d)


class AveragePooling2D(_Pooling2D):
    """The mean of each ``pool_size`` window (``pool_size`` is required; stride = pool size by default)."""

    _op = staticmethod(nn_ops.avg_pool2d)

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides=strides, padding=padding, data_format=data_format, **kwargs)
