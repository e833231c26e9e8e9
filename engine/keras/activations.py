"""``tf.keras.activations``: elementwise non-linearities, by name or as functions.

``Dense(16, activation="relu")`` looks the name up with :func:`get`; a callable
is used as is, and ``None`` means ``linear`` (the identity). Each activation is a
thin wrapper over an engine op (``tf.nn.relu``, ``tf.math.sigmoid`` ...), so its
gradient is the op's registered gradient.
"""
from ..ops import math_ops, nn_ops
from ..ops._dispatch import to_tensor

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "softplus", "softsign", "sigmoid", "tanh", "softmax",
           "log_softmax", "gelu", "silu", "swish", "exponential", "linear", "hard_sigmoid", "get", "serialize"]


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """``max(x, 0)``; with ``negative_slope``/``max_value``/``threshold``, Keras' generalized ReLU."""
    x = to_tensor(x)
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return nn_ops.relu(x)
    dtype = x.dtype
    if threshold != 0.0:
        # f(x) = x for x > threshold, negative_slope * (x - threshold) otherwise
        above = math_ops.greater(x, to_tensor(threshold, dtype=dtype))
        below = math_ops.multiply(to_tensor(negative_slope, dtype=dtype),
                                  math_ops.subtract(x, to_tensor(threshold, dtype=dtype)))
        out = math_ops.multiply(x, math_ops.cast(above, dtype))
        out = math_ops.add(out, math_ops.multiply(below, math_ops.cast(math_ops.logical_not(above), dtype)))
    elif negative_slope != 0.0:
        out = nn_ops.leaky_relu(x, alpha=negative_slope)
    else:
        out = nn_ops.relu(x)
    if max_value is not None:
        out = math_ops.minimum(out, to_tensor(max_value, dtype=dtype))
    return out


def relu6(x):
    return nn_ops.relu6(x)


def leaky_relu(x, negative_slope=0.2):
    return nn_ops.leaky_relu(x, alpha=negative_slope)


def elu(x, alpha=1.0):
    out = nn_ops.elu(x)
    if alpha == 1.0:
        return out
    x = to_tensor(x)
    return math_ops.multiply(out, math_ops.cast(math_ops.less(x, to_tensor(0, dtype=x.dtype)), x.dtype) *
                             (alpha - 1.0) + 1.0)


def selu(x):
    return nn_ops.selu(x)


def softplus(x):
    return nn_ops.softplus(x)


def softsign(x):
    return nn_ops.softsign(x)


def sigmoid(x):
    return math_ops.sigmoid(x)


def tanh(x):
    return math_ops.tanh(x)


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` along ``axis``: turns logits into a probability distribution."""
    return nn_ops.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    return nn_ops.log_softmax(x, axis=axis)


def gelu(x, approximate=False):
    return nn_ops.gelu(x, approximate=approximate)


def silu(x):
    return nn_ops.silu(x)


swish = silu


def hard_sigmoid(x):
    """A piecewise-linear sigmoid: ``clip(x / 6 + 0.5, 0, 1)`` (Keras 3's definition)."""
    x = to_tensor(x)
    one = to_tensor(1.0, dtype=x.dtype)
    zero = to_tensor(0.0, dtype=x.dtype)
    return math_ops.maximum(math_ops.minimum(x / to_tensor(6.0, dtype=x.dtype) + to_tensor(0.5, dtype=x.dtype), one),
                            zero)


def exponential(x):
    return math_ops.exp(x)


def linear(x):
    """The identity: what ``activation=None`` means."""
    return x


_BY_NAME = {f.__name__: f for f in (relu, relu6, leaky_relu, elu, selu, softplus, softsign, sigmoid, tanh,
                                     softmax, log_softmax, gelu, silu, exponential, linear, hard_sigmoid)}
_BY_NAME["swish"] = silu


def get(identifier):
    """An activation function from a name, a callable, or None (``linear``)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Could not interpret activation function identifier: {identifier!r}. Known names: "
                             f"{sorted(_BY_NAME)}")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier!r}")


def serialize(activation):
    return getattr(activation, "__name__", type(activation).__name__)
