"""``BatchNormalization``: normalize each channel with batch statistics while training.

For every channel (the ``axis``, by default the last one):

* **training** (``training=True``): use the batch's ``mean`` and (population)
  ``variance`` over all the other axes, and move the running statistics toward
  them: ``moving = moving * momentum + batch * (1 - momentum)``;
* **inference** (``training=False``, the default): use ``moving_mean`` and
  ``moving_variance``.

Then ``output = (x - mean) / sqrt(variance + epsilon) * gamma + beta``, computed
like ``tf.nn.batch_normalization``: ``inv = gamma * rsqrt(variance + epsilon)``,
``output = x * inv + (beta - mean * inv)``.

``gamma`` and ``beta`` are trainable; the moving statistics are non-trainable
weights (they appear in ``non_trainable_weights`` and in ``get_weights()``). A
frozen layer (``trainable = False``) always runs in inference mode, as in Keras 3.
"""
from ...framework import dtypes
from ...ops import array_ops, math_ops, nn_ops
from .. import initializers, regularizers
from .layer import Layer

__all__ = ["BatchNormalization", "LayerNormalization"]


class BatchNormalization(Layer):
    """Normalize activations per channel; see the module docstring."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 synchronized=False, **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.gamma = self.beta = None

    def build(self, input_shape):
        rank = len(input_shape)
        self.axis = self.axis % rank if -rank <= self.axis < rank else self.axis
        if not 0 <= self.axis < rank:
            raise ValueError(f"Invalid axis for BatchNormalization: {self.axis} (inputs of rank {rank}).")
        channels = input_shape[self.axis]
        if channels is None:
            raise ValueError(f"Axis {self.axis} of the input tensor should have a defined dimension, but the layer "
                             f"received an input with shape {input_shape}.")
        shape = (channels,)
        self._reduction_axes = [i for i in range(rank) if i != self.axis]
        self._broadcast_shape = [1] * rank
        self._broadcast_shape[self.axis] = channels
        if self.scale:
            self.gamma = self.add_weight(shape=shape, name="gamma", initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer)
        if self.center:
            self.beta = self.add_weight(shape=shape, name="beta", initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer)
        self.moving_mean = self.add_weight(shape=shape, name="moving_mean",
                                           initializer=self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight(shape=shape, name="moving_variance",
                                               initializer=self.moving_variance_initializer, trainable=False)

    def call(self, inputs, training=None):
        dtype = inputs.dtype
        if dtype == dtypes.float16:
            inputs = math_ops.cast(inputs, dtypes.float32)   # statistics in float32, as Keras does
        if training and self.trainable:
            mean, variance = nn_ops.moments(inputs, self._reduction_axes)
            momentum = self.momentum
            self.moving_mean.assign(self.moving_mean * momentum + mean * (1.0 - momentum))
            self.moving_variance.assign(self.moving_variance * momentum + variance * (1.0 - momentum))
        else:
            mean, variance = self.moving_mean.value(), self.moving_variance.value()
        outputs = self._normalize(inputs, mean, variance)
        return math_ops.cast(outputs, dtype) if outputs.dtype != dtype else outputs

    def _normalize(self, x, mean, variance):
        """``tf.nn.batch_normalization``: ``x * inv + (beta - mean * inv)``, ``inv = gamma * rsqrt(var + eps)``."""
        rank = x.shape.rank
        if self.axis != rank - 1:   # per-channel vectors broadcast along a middle axis: reshape them
            def expand(v):
                return None if v is None else array_ops.reshape(v, self._broadcast_shape)
            mean, variance = expand(mean), expand(variance)
            gamma, beta = expand(self.gamma), expand(self.beta)
        else:
            gamma, beta = self.gamma, self.beta
        inv = math_ops.rsqrt(variance + self.epsilon)
        if gamma is not None:
            inv = inv * gamma
        shift = beta - mean * inv if beta is not None else -(mean * inv)
        return x * inv + shift

    def get_config(self):
        return dict(super().get_config(), axis=self.axis, momentum=self.momentum, epsilon=self.epsilon,
                    center=self.center, scale=self.scale)


class LayerNormalization(Layer):
    """Normalize each sample over ``axis`` (by default the last axis), then scale and shift.

    Unlike ``BatchNormalization`` the statistics are those of *one sample* (the
    mean and population variance over ``axis``), so training and inference
    compute the same thing and there are no moving statistics::

        inv = gamma * rsqrt(variance + epsilon)
        output = x * inv + (beta - mean * inv)

    ``gamma`` (``scale=True``) and ``beta`` (``center=True``) have the shape of
    the normalized axes; they are the layer's only weights, in that order.
    ``axis`` may be a list (``axis=[1, 2]`` normalizes over both). float16
    inputs are normalized in float32, as Keras does.
    """

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, rms_scaling=False, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(f"Expected an int or a list/tuple of ints for the argument 'axis', but received: {axis}")
        if rms_scaling:
            raise NotImplementedError("LayerNormalization(rms_scaling=True) is not implemented in the engine.")
        self.epsilon = float(epsilon)
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.gamma = self.beta = None

    def build(self, input_shape):
        rank = len(input_shape)
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        for a in axes:
            if not -rank <= a < rank:
                raise ValueError(f"Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank (with "
                                 f"inputs.rank={rank}). Received: axis={self.axis}")
        self._axes = sorted(a % rank for a in axes)
        shape = tuple(input_shape[a] for a in self._axes)
        if any(d is None for d in shape):
            raise ValueError(f"LayerNormalization: the normalized axes {self._axes} of the input must be defined. "
                             f"Full input shape received: {input_shape}")
        self._broadcast_shape = [1] * rank
        for a in self._axes:
            self._broadcast_shape[a] = input_shape[a]
        self._needs_reshape = self._axes != list(range(rank - len(self._axes), rank))
        if self.scale:
            self.gamma = self.add_weight(name="gamma", shape=shape, initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer, constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight(name="beta", shape=shape, initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer, constraint=self.beta_constraint)

    def call(self, inputs):
        dtype = inputs.dtype
        if dtype == dtypes.float16:
            inputs = math_ops.cast(inputs, dtypes.float32)
        mean, variance = nn_ops.moments(inputs, self._axes, keepdims=True)

        def expand(v):
            if v is None:
                return None
            return array_ops.reshape(v, self._broadcast_shape) if self._needs_reshape else v
        gamma, beta = expand(self.gamma), expand(self.beta)
        inv = math_ops.rsqrt(variance + self.epsilon)
        if gamma is not None:
            inv = inv * math_ops.cast(gamma, inv.dtype)
        shift = -(mean * inv)
        if beta is not None:
            shift = shift + math_ops.cast(beta, inv.dtype)
        outputs = inputs * inv + shift
        return math_ops.cast(outputs, dtype) if outputs.dtype != dtype else outputs

    def get_config(self):
        return dict(super().get_config(), axis=self.axis, epsilon=self.epsilon, center=self.center,
                    scale=self.scale)


# These layers pass an input mask on unchanged (Keras: ``supports_masking = True``).
BatchNormalization._masks_by_default = True
LayerNormalization._masks_by_default = True
