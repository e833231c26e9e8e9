"""What Dense and the convolutions share: the kernel/bias options and how the two weights are made."""
from .. import activations, initializers, regularizers


class KernelBiasLayer:
    """Mixin for layers computing ``activation(op(inputs, kernel) + bias)``."""

    def _weight_options(self, activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                        bias_regularizer, kernel_constraint, bias_constraint):
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint

    def _add_kernel_and_bias(self, kernel_shape, units):
        """``self.kernel`` of ``kernel_shape`` and, with ``use_bias``, ``self.bias`` of ``(units,)`` (else None)."""
        self.kernel = self.add_weight(name="kernel", shape=tuple(kernel_shape), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=(units,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        else:
            self.bias = None
