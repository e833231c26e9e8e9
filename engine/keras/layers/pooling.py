"""``MaxPooling2D`` and ``AveragePooling2D``: downsample NHWC images window by window (no weights).

``MaxPooling1D`` / ``AveragePooling1D`` pool sequences ``(batch, steps, c)``;
as in TF they are the 2-D poolings over ``(batch, 1, steps, c)``. With
``padding="same"`` the average counts only the real (unpadded) inputs.

The global poolings reduce every spatial position at once: ``(batch, h, w, c)``
-> ``(batch, c)`` (``GlobalMaxPooling2D``, ``GlobalAveragePooling2D``) and
``(batch, steps, c)`` -> ``(batch, c)`` (the ``1D`` ones); ``keepdims=True``
keeps the reduced axes with size 1.
"""
from ...ops import array_ops, math_ops, nn_ops, reduction_ops
from .convolutional import _data_format, _padding, _pair, _single
from .layer import Layer

__all__ = ["MaxPooling1D", "AveragePooling1D", "MaxPooling2D", "AveragePooling2D", "GlobalMaxPooling2D", "GlobalAveragePooling2D", "GlobalMaxPooling1D",
           "GlobalAveragePooling1D"]


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


class _Pooling1D(Layer):
    _op = None

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.pool_size = _single(pool_size, "pool_size")
        self.strides = self.pool_size if strides is None else _single(strides, "strides")
        self.padding = _padding(padding)
        self.data_format = _data_format(data_format, type(self).__name__)
        self.built = True

    def call(self, inputs):
        x = type(self)._op(array_ops.expand_dims(inputs, 1), ksize=[1, self.pool_size[0]],
                           strides=[1, self.strides[0]], padding=self.padding.upper())
        return array_ops.squeeze(x, [1])


class MaxPooling1D(_Pooling1D):
    """The maximum of each ``pool_size`` window of steps (default 2, stride = pool size)."""

    _op = staticmethod(nn_ops.max_pool2d)


class AveragePooling1D(_Pooling1D):
    """The mean of each ``pool_size`` window of steps (``pool_size`` is required, as in Keras 3)."""

    _op = staticmethod(nn_ops.avg_pool2d)

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides=strides, padding=padding, data_format=data_format, **kwargs)


class _GlobalPooling(Layer):
    _reduce = None
    _axes = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format, type(self).__name__)
        self.keepdims = keepdims
        self.built = True

    def call(self, inputs):
        return type(self)._reduce(inputs, axis=list(self._axes), keepdims=self.keepdims)

    def get_config(self):
        return dict(super().get_config(), data_format=self.data_format, keepdims=self.keepdims)


class GlobalMaxPooling2D(_GlobalPooling):
    """The maximum over height and width: ``(batch, h, w, c)`` -> ``(batch, c)``."""

    _reduce = staticmethod(reduction_ops.reduce_max)
    _axes = (1, 2)


class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over height and width: ``(batch, h, w, c)`` -> ``(batch, c)``."""

    _reduce = staticmethod(reduction_ops.reduce_mean)
    _axes = (1, 2)


class GlobalMaxPooling1D(_GlobalPooling):
    """The maximum over the steps: ``(batch, steps, c)`` -> ``(batch, c)``."""

    _reduce = staticmethod(reduction_ops.reduce_max)
    _axes = (1,)


class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over the steps: ``(batch, steps, c)`` -> ``(batch, c)``.

    With a mask (``Embedding(mask_zero=True)`` before it) only the unmasked steps
    are averaged: ``sum(where(mask, x, 0)) / sum(mask)``, as Keras 3. The output
    has no mask.
    """

    _reduce = staticmethod(reduction_ops.reduce_mean)
    _axes = (1,)

    def call(self, inputs, mask=None):
        if mask is None:
            return super().call(inputs)
        keep = array_ops.expand_dims(math_ops.cast(mask, "bool"), 2)
        inputs = array_ops.where(keep, inputs, array_ops.zeros_like(inputs))
        counts = reduction_ops.reduce_sum(math_ops.cast(keep, inputs.dtype), axis=[1], keepdims=self.keepdims)
        return reduction_ops.reduce_sum(inputs, axis=[1], keepdims=self.keepdims) / counts

    def compute_mask(self, inputs, mask=None):
        return None
