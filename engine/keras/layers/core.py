"""``Dense`` and ``Embedding``: the layers that own a weight matrix.

``Dense(units)``: ``activation(inputs @ kernel + bias)``, with ``kernel`` of
shape ``(input_dim, units)`` (created in ``build`` from the input's last
dimension) and ``bias`` of shape ``(units,)``. Inputs of rank > 2 are multiplied
along their last axis (``tensordot``), as Keras does.

``Embedding(input_dim, output_dim)``: a lookup table; integer ids pick rows of
``embeddings`` (``tf.gather``), so only the rows used receive gradient. With
``mask_zero=True`` the id 0 is padding: ``compute_mask(ids)`` is ``ids != 0``,
and the output carries that mask to the next layers (an LSTM skips the padded
steps, a ``GlobalAveragePooling1D`` leaves them out of the mean).

``Masking(mask_value=0.0)``: the steps of ``(batch, steps, features)`` whose
features all equal ``mask_value`` are masked (and their outputs set to 0).
"""
from ...ops import array_ops, linalg_ops, math_ops, nn_ops, reduction_ops
from ...framework import dtypes
from ...framework.tensor import convert_to_tensor
from .. import activations, backend, initializers, regularizers
from .kernel_bias import KernelBiasLayer
from .layer import Layer

__all__ = ["Dense", "Embedding", "Masking"]


class Dense(KernelBiasLayer, Layer):
    """A densely connected layer: ``activation(dot(inputs, kernel) + bias)``. Passes an input mask on."""

    _masks_by_default = True

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError(f"Received an invalid value for `units`, expected a positive integer. "
                             f"Received: units={units}")
        self.units = units
        self._weight_options(activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                             bias_regularizer, kernel_constraint, bias_constraint)

    def build(self, input_shape):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(f"Layer '{self.name}': the last dimension of the inputs to a Dense layer should be "
                             f"defined. Found None. Full input shape received: {input_shape}")
        self._add_kernel_and_bias((input_dim, self.units), self.units)

    def call(self, inputs):
        if inputs.shape.rank == 2:
            x = linalg_ops.matmul(inputs, self.kernel)
        else:
            x = linalg_ops.tensordot(inputs, self.kernel, [[inputs.shape.rank - 1], [0]])
        if self.bias is not None:
            x = nn_ops.bias_add(x, self.bias)
        return self.activation(x)

    def get_config(self):
        return dict(super().get_config(), units=self.units, activation=activations.serialize(self.activation),
                    use_bias=self.use_bias)


class Embedding(Layer):
    """Maps integer ids in ``[0, input_dim)`` to dense vectors of size ``output_dim``."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, **kwargs):
        kwargs.pop("input_length", None)  # Keras 2 argument, ignored by Keras 3 too
        super().__init__(**kwargs)
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = embeddings_constraint
        self.mask_zero = mask_zero

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer, name="embeddings",
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)

    def call(self, inputs):
        if inputs.dtype not in (dtypes.int32, dtypes.int64):
            inputs = math_ops.cast(inputs, dtypes.int32)
        return array_ops.gather(self.embeddings, inputs)

    def compute_mask(self, inputs, mask=None):
        """``inputs != 0`` with ``mask_zero=True`` (the padding id), else ``None``."""
        if not self.mask_zero:
            return None
        return math_ops.not_equal(inputs, array_ops.zeros_like(inputs) if hasattr(inputs, "dtype") else 0)

    def get_config(self):
        return dict(super().get_config(), input_dim=self.input_dim, output_dim=self.output_dim)


class Masking(Layer):
    """Mask the time steps whose features all equal ``mask_value``; their outputs become 0.

    ``compute_mask(x)`` is ``reduce_any(x != mask_value, axis=-1)``; the output carries it.
    """

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.built = True

    def _keep(self, inputs, keepdims):
        value = math_ops.cast(convert_to_tensor(self.mask_value), inputs.dtype)
        return reduction_ops.reduce_any(math_ops.not_equal(inputs, value), axis=-1, keepdims=keepdims)

    def compute_mask(self, inputs, mask=None):
        return self._keep(inputs, keepdims=False)

    def call(self, inputs):
        keep = self._keep(inputs, keepdims=True)
        outputs = array_ops.where(keep, inputs, array_ops.zeros_like(inputs))
        backend.set_keras_mask(outputs, array_ops.squeeze(keep, [-1]))
        return outputs

    def get_config(self):
        return dict(super().get_config(), mask_value=self.mask_value)
