"""``Flatten``: keep the batch axis, merge all the others; ``Reshape``: give the non-batch axes a new shape.

Spatial reshaping of NHWC images: ``UpSampling2D`` (repeat rows and columns:
``interpolation="nearest"``; ``"bilinear"`` uses ``tf.image.resize`` when the
engine has it), ``ZeroPadding2D`` (``tf.pad`` with zeros), ``Cropping2D``
(slicing). ``size``/``padding``/``cropping`` accept an int, a pair, or (for
padding and cropping) a pair of pairs ``((top, bottom), (left, right))``.
"""
import math

from ...framework.tensor import constant
from ...ops import array_ops, linalg_ops
from .layer import Layer

__all__ = ["Flatten", "Reshape", "UpSampling2D", "ZeroPadding2D", "Cropping2D"]


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
            out = array_ops.reshape(inputs, array_ops.concat(
                [array_ops.reshape(batch, [1]), constant(list(self.target_shape), dtype="int32")], 0))
            out.set_shape([None] + self._static_target(inputs.shape.as_list()[1:]))   # Keras' output shape
            return out
        return array_ops.reshape(inputs, [batch] + list(self.target_shape))

    def _static_target(self, non_batch):
        """``target_shape`` with its ``-1`` resolved when the input's non-batch size is known."""
        target = list(self.target_shape)
        if -1 in target:
            known = math.prod(d for d in target if d != -1)
            total = math.prod(non_batch) if all(d is not None for d in non_batch) else None
            target[target.index(-1)] = total // known if total is not None and known else None
        return target

    def get_config(self):
        return dict(super().get_config(), target_shape=self.target_shape)


def _pairs(value, name):
    """An int, a pair of ints, or a pair of pairs -> ``((top, bottom), (left, right))``."""
    if isinstance(value, int):
        return ((value, value), (value, value))
    value = tuple(value)
    if len(value) != 2:
        raise ValueError(f"`{name}` should have two elements. Received: {name}={value}.")
    out = []
    for v in value:
        if isinstance(v, int):
            out.append((v, v))
        else:
            v = tuple(v)
            if len(v) != 2 or not all(isinstance(i, int) for i in v):
                raise ValueError(f"`{name}` should be a tuple of 2 ints or of 2 tuples of 2 ints. Received: "
                                 f"{name}={value}.")
            out.append(v)
    return tuple(out)


def _check_nhwc(data_format, layer):
    if data_format not in (None, "channels_last"):
        raise NotImplementedError(f"{layer}: only data_format='channels_last' is implemented in the engine.")
    return "channels_last"


class UpSampling2D(Layer):
    """Repeat every row ``size[0]`` times and every column ``size[1]`` times (nearest neighbour)."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.size = (size, size) if isinstance(size, int) else tuple(size)
        self.data_format = _check_nhwc(data_format, "UpSampling2D")
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(f"`interpolation` argument should be one of: \"area\", \"bicubic\", \"bilinear\", "
                             f"\"lanczos3\", \"lanczos5\", \"nearest\". Received: \"{interpolation}\".")
        self.interpolation = interpolation
        self.built = True

    def call(self, inputs):
        if self.interpolation == "bilinear":
            return self._bilinear(inputs)
        x = array_ops.repeat(inputs, self.size[0], axis=1)
        return array_ops.repeat(x, self.size[1], axis=2)

    def _bilinear(self, inputs):
        """Bilinear resize with half-pixel centers (``tf.image.resize(method="bilinear")``, what Keras uses),
        as two matrix products with fixed interpolation matrices: ``A_h @ image @ A_w^T``."""
        h, w = inputs.shape[1], inputs.shape[2]
        if h is None or w is None:
            raise NotImplementedError("UpSampling2D(interpolation='bilinear') needs a known height and width in "
                                      "the engine.")
        a_h = constant(_interpolation_matrix(h, h * self.size[0]), dtype=inputs.dtype)
        a_w = constant(_interpolation_matrix(w, w * self.size[1]).T, dtype=inputs.dtype)
        x = array_ops.transpose(inputs, [0, 3, 1, 2])                  # (b, c, h, w)
        x = linalg_ops.matmul(linalg_ops.matmul(a_h, x), a_w)          # (b, c, H, W)
        return array_ops.transpose(x, [0, 2, 3, 1])


def _interpolation_matrix(n_in, n_out):
    """``(n_out, n_in)`` weights of 1-D linear interpolation with half-pixel centers (clamped at the edges)."""
    import numpy as np
    m = np.zeros((n_out, n_in), dtype=np.float64)
    scale = n_in / n_out
    for o in range(n_out):
        src = min(max((o + 0.5) * scale - 0.5, 0.0), n_in - 1)
        lo = int(np.floor(src))
        hi = min(lo + 1, n_in - 1)
        frac = src - lo
        m[o, lo] += 1 - frac
        m[o, hi] += frac
    return m


class ZeroPadding2D(Layer):
    """Add rows and columns of zeros around each image: ``padding=((top, bottom), (left, right))``."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, "padding")
        self.data_format = _check_nhwc(data_format, "ZeroPadding2D")
        self.built = True

    def call(self, inputs):
        return array_ops.pad(inputs, [[0, 0], list(self.padding[0]), list(self.padding[1]), [0, 0]])


class Cropping2D(Layer):
    """Remove rows and columns at the borders: ``cropping=((top, bottom), (left, right))``."""

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, "cropping")
        self.data_format = _check_nhwc(data_format, "Cropping2D")
        self.built = True

    def call(self, inputs):
        (top, bottom), (left, right) = self.cropping
        h, w = inputs.shape[1], inputs.shape[2]
        for size, (a, b), what in ((h, (top, bottom), "height"), (w, (left, right), "width")):
            if size is not None and a + b >= size:
                raise ValueError(f"Values in `cropping` argument should be smaller than the corresponding spatial "
                                 f"dimension of the input. Received: input_shape={tuple(inputs.shape.as_list())}, "
                                 f"cropping={self.cropping}")
        return inputs[:, top:(-bottom if bottom else None), left:(-right if right else None), :]
