"""``Conv2D`` and ``Conv1D``.

``Conv2D``: a 2-D convolution over NHWC images (``channels_last``), with a bias and an activation.

The kernel has shape ``kernel_size + (in_channels, filters)`` (TF's HWIO);
``padding="valid"`` keeps only full windows, ``"same"`` pads so that
``output = ceil(input / stride)``. The work is ``tf.nn.conv2d`` (im2col plus a
matrix multiply, see ``engine/ops/nn_ops.py``).

``Conv1D``: a convolution over sequences ``(batch, steps, channels)`` with a
kernel ``(kernel_size, in_channels, filters)``. It is computed as TF does
(``tf.nn.conv1d``): a ``Conv2D`` over ``(batch, 1, steps, channels)``.
``padding="causal"`` pads ``dilation * (kernel_size - 1)`` zeros on the left
only, so output ``t`` sees inputs ``<= t`` (WaveNet-style), then convolves with
``"valid"``.
"""
from ...ops import array_ops, nn_ops
from .kernel_bias import KernelBiasLayer
from .layer import Layer

__all__ = ["Conv1D", "Conv2D", "Conv2DTranspose"]


def _pair(value, name):
    if isinstance(value, int):
        return (value, value)
    value = tuple(value)
    if len(value) != 2 or not all(isinstance(v, int) for v in value):
        raise ValueError(f"The `{name}` argument must be a tuple of 2 integers. Received: {name}={value}")
    return value


def _padding(padding):
    padding = padding.lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: padding={padding}")
    return padding


def _data_format(data_format, layer):
    if data_format not in (None, "channels_last"):
        raise NotImplementedError(f"{layer}: only data_format='channels_last' (NHWC) is implemented in the "
                                  f"engine, as TF's CPU kernels.")
    return "channels_last"


class _Conv(KernelBiasLayer, Layer):
    """What Conv1D and Conv2D share: a kernel of shape ``kernel_size + (input channels, filters)``
    plus an optional bias."""

    def build(self, input_shape):
        channels = input_shape[-1]
        if channels is None:
            raise ValueError(f"Layer '{self.name}': the channel dimension of the inputs should be defined. "
                             f"Found None. Full input shape received: {input_shape}")
        self._add_kernel_and_bias(self.kernel_size + (channels, self.filters), self.filters)


class Conv2D(_Conv):
    """2-D convolution layer: ``activation(conv2d(inputs, kernel) + bias)``."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if groups != 1:
            raise NotImplementedError("Conv2D: grouped convolution (groups > 1) is not implemented in the engine.")
        self.filters = filters
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.padding = _padding(padding)
        self.data_format = _data_format(data_format, "Conv2D")
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        self._weight_options(activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                             bias_regularizer, kernel_constraint, bias_constraint)

    def call(self, inputs):
        x = nn_ops.conv2d(inputs, self.kernel, strides=list(self.strides), padding=self.padding.upper(),
                          dilations=list(self.dilation_rate))
        if self.bias is not None:
            x = nn_ops.bias_add(x, self.bias)
        return self.activation(x)

    def get_config(self):
        return dict(super().get_config(), filters=self.filters, kernel_size=self.kernel_size,
                    strides=self.strides, padding=self.padding)


def _deconv_length(length, kernel, stride, padding):
    """The output length of a transposed convolution (``None`` stays ``None``)."""
    if length is None:
        return None
    return length * stride if padding == "same" else (length - 1) * stride + kernel


class Conv2DTranspose(Conv2D):
    """The transpose of ``Conv2D`` (upsampling: a stride of 2 doubles height and width with ``"same"``).

    The kernel has shape ``kernel_size + (filters, in_channels)``, as in Keras;
    the work is ``tf.nn.conv2d_transpose``. ``output_padding`` is not implemented.
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", output_padding=None, **kwargs):
        if output_padding is not None:
            raise NotImplementedError("Conv2DTranspose: output_padding is not implemented in the engine.")
        super().__init__(filters, kernel_size, strides=strides, padding=padding, **kwargs)
        if self.dilation_rate != (1, 1):
            raise NotImplementedError("Conv2DTranspose: dilation_rate > 1 is not implemented in the engine.")

    def build(self, input_shape):
        channels = input_shape[-1]
        if channels is None:
            raise ValueError(f"Layer '{self.name}': the channel dimension of the inputs should be defined. "
                             f"Found None. Full input shape received: {input_shape}")
        self.kernel = self.add_weight(name="kernel", shape=self.kernel_size + (self.filters, channels),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        else:
            self.bias = None

    def call(self, inputs):
        static = inputs.shape.as_list()
        dynamic = array_ops.shape(inputs)
        dims = [static[0] if static[0] is not None else dynamic[0]]
        for i in (1, 2):
            length = static[i] if static[i] is not None else dynamic[i]
            if static[i] is None:
                k, st = self.kernel_size[i - 1], self.strides[i - 1]
                length = length * st if self.padding == "same" else (length - 1) * st + k
            else:
                length = _deconv_length(length, self.kernel_size[i - 1], self.strides[i - 1], self.padding)
            dims.append(length)
        dims.append(self.filters)
        output_shape = dims if all(isinstance(d, int) for d in dims) else array_ops.stack(dims)
        x = nn_ops.conv2d_transpose(inputs, self.kernel, output_shape, strides=list(self.strides),
                                    padding=self.padding.upper())
        if self.bias is not None:
            x = nn_ops.bias_add(x, self.bias)
        return self.activation(x)


def _single(value, name):
    if isinstance(value, int):
        return (value,)
    value = tuple(value)
    if len(value) != 1 or not isinstance(value[0], int):
        raise ValueError(f"The `{name}` argument must be a tuple of 1 integers. Received: {name}={value}")
    return value


class Conv1D(_Conv):
    """1-D convolution layer over ``(batch, steps, channels)``: ``activation(conv1d(inputs, kernel) + bias)``."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if groups != 1:
            raise NotImplementedError("Conv1D: grouped convolution (groups > 1) is not implemented in the engine.")
        self.filters = filters
        self.kernel_size = _single(kernel_size, "kernel_size")
        self.strides = _single(strides, "strides")
        self.dilation_rate = _single(dilation_rate, "dilation_rate")
        padding = padding.lower()
        if padding not in ("valid", "same", "causal"):
            raise ValueError(f"The `padding` argument must be a list/tuple or one of `valid`, `same`, or `causal` "
                             f"(case-insensitive). Received: {padding}")
        self.padding = padding
        if self.strides[0] > 1 and self.dilation_rate[0] > 1:
            raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                             f"strides={self.strides} and dilation_rate={self.dilation_rate}")
        self.data_format = _data_format(data_format, "Conv1D")
        self._weight_options(activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                             bias_regularizer, kernel_constraint, bias_constraint)

    def call(self, inputs):
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            inputs = array_ops.pad(inputs, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        x = array_ops.expand_dims(inputs, 1)                         # (batch, 1, steps, channels)
        kernel = array_ops.expand_dims(self.kernel, 0)               # (1, k, in, out)
        x = nn_ops.conv2d(x, kernel, strides=[1, self.strides[0]], padding=padding.upper(),
                          dilations=[1, self.dilation_rate[0]])
        x = array_ops.squeeze(x, [1])
        if self.bias is not None:
            x = nn_ops.bias_add(x, self.bias)
        return self.activation(x)
