"""``tf.keras.initializers``: how a new weight gets its first value.

An initializer is a callable ``init(shape, dtype)`` returning a tensor. Layers
take one by object (``Dense(3, kernel_initializer=tf.keras.initializers.HeNormal())``)
or by name (``"he_normal"``); :func:`get` turns either into an object.

**Seeds.** The random initializers draw from ``tf.random`` ops
(``engine.ops.random_ops``), so TensorFlow's seed rules apply:

* ``seed=None``: an op seed from the global seed, so after
  ``tf.random.set_seed(0)`` the whole sequence of initializations (every layer
  built in the same order) is reproducible;
* ``seed=<int>``: Keras 3 semantics: the initializer returns the *same* values on
  every call. The engine's random ops advance a stream on every call, so the
  initializer draws from a fresh stream each time (``random_ops.stream_owner``).

The values differ from TensorFlow's (its Philox bit layout differs, see
``engine/ops/random_ops.py``); the distributions and the seed behaviour match.

**Fans** (:func:`compute_fans`). Variance-scaling initializers (Glorot, He) scale
by the number of inputs (``fan_in``) and outputs (``fan_out``) of a unit: for a
``Dense`` kernel ``(in, out)`` those are ``in`` and ``out``; for a ``Conv2D``
kernel ``(kh, kw, in, out)`` both are multiplied by the receptive field ``kh * kw``.
"""
import math

import numpy as np

from ..framework import dtypes
from ..framework.tensor import convert_to_tensor
from ..ops import array_ops, random_ops
from . import backend

__all__ = ["Orthogonal", "Initializer", "Zeros", "Ones", "Constant", "RandomNormal", "RandomUniform", "TruncatedNormal",
           "VarianceScaling", "GlorotUniform", "GlorotNormal", "HeNormal", "HeUniform", "get", "serialize"]


def _dtype(dtype):
    return dtypes.as_dtype(dtype or backend.floatx())


class Initializer:
    """Base class: subclasses implement ``__call__(shape, dtype=None)``."""

    def __call__(self, shape, dtype=None):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class Zeros(Initializer):
    """All zeros."""

    def __call__(self, shape, dtype=None):
        return array_ops.zeros(shape, dtype=_dtype(dtype))


class Ones(Initializer):
    """All ones."""

    def __call__(self, shape, dtype=None):
        return array_ops.ones(shape, dtype=_dtype(dtype))


class Constant(Initializer):
    """Every element equal to ``value`` (a scalar)."""

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        return array_ops.fill(shape, np.asarray(self.value, dtype=_dtype(dtype).as_numpy_dtype)[()])

    def get_config(self):
        return {"value": self.value}


class _RandomInitializer(Initializer):
    """Shared seed handling (see the module docstring)."""

    def __init__(self, seed=None):
        if seed is not None and not isinstance(seed, int):
            raise ValueError(f"`seed` argument should be an instance of `keras.random.SeedGenerator()` or an "
                             f"integer, or None. Received: seed={seed}")
        self.seed = seed

    def _draw(self, fn, *args, **kwargs):
        if self.seed is None:
            return fn(*args, **kwargs)
        with random_ops.stream_owner(object()):   # a fresh stream: the same values on every call
            return fn(*args, seed=self.seed, **kwargs)

    def get_config(self):
        return {"seed": self.seed}


class RandomNormal(_RandomInitializer):
    """Normal values with ``mean`` and ``stddev`` (defaults 0.0 and 0.05)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=None):
        return self._draw(random_ops.normal, shape, mean=self.mean, stddev=self.stddev, dtype=_dtype(dtype))

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(_RandomInitializer):
    """Uniform values in ``[minval, maxval)`` (defaults -0.05 and 0.05)."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape, dtype=None):
        return self._draw(random_ops.uniform, shape, minval=self.minval, maxval=self.maxval, dtype=_dtype(dtype))

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class TruncatedNormal(_RandomInitializer):
    """Normal values redrawn until within two standard deviations of the mean."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=None):
        return self._draw(random_ops.truncated_normal, shape, mean=self.mean, stddev=self.stddev,
                          dtype=_dtype(dtype))

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


def compute_fans(shape):
    """``(fan_in, fan_out)`` of a weight shape (see the module docstring)."""
    shape = tuple(shape)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive_field = math.prod(shape[:-2])
    return shape[-2] * receptive_field, shape[-1] * receptive_field


class VarianceScaling(_RandomInitializer):
    """Random values with variance ``scale / n``, where ``n`` is fan_in, fan_out or their average.

    ``distribution``: ``"truncated_normal"`` (stddev corrected for the truncation,
    divided by 0.8796...), ``"untruncated_normal"`` or ``"uniform"`` (limit
    ``sqrt(3 * scale / n)``).
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        super().__init__(seed)
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: scale={scale}")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(f"Invalid `mode` argument: expected one of {{'fan_in', 'fan_out', 'fan_avg'}}. "
                             f"Received: mode={mode}")
        if distribution not in {"uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(f"Invalid `distribution` argument: expected one of {{'uniform', "
                             f"'truncated_normal', 'untruncated_normal'}}. Received: distribution={distribution}")
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def __call__(self, shape, dtype=None):
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        dtype = _dtype(dtype)
        if self.distribution == "truncated_normal":
            stddev = math.sqrt(scale) / 0.87962566103423978
            return self._draw(random_ops.truncated_normal, shape, mean=0.0, stddev=stddev, dtype=dtype)
        if self.distribution == "untruncated_normal":
            return self._draw(random_ops.normal, shape, mean=0.0, stddev=math.sqrt(scale), dtype=dtype)
        limit = math.sqrt(3.0 * scale)
        return self._draw(random_ops.uniform, shape, minval=-limit, maxval=limit, dtype=dtype)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed}


class Orthogonal(_RandomInitializer):
    """A random orthogonal matrix (times ``gain``): the default ``recurrent_initializer`` of LSTM/GRU/SimpleRNN.

    As Keras: draw a normal ``(prod(shape[:-1]), shape[-1])`` matrix (transposed if it
    has fewer rows than columns), take ``Q`` of its QR decomposition with the signs
    of ``diag(R)`` folded in, and reshape. The QR step runs in NumPy: initial values
    are never differentiated.
    """

    def __init__(self, gain=1.0, seed=None):
        super().__init__(seed)
        self.gain = float(gain)

    def __call__(self, shape, dtype=None):
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError(f"The tensor to initialize must be at least two-dimensional. Received: shape={shape} "
                             f"of rank {len(shape)}.")
        dtype = _dtype(dtype)
        rows, cols = math.prod(shape[:-1]), shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        a = np.asarray(self._draw(random_ops.normal, flat, dtype=dtypes.float32).numpy(), dtype=np.float64)
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return convert_to_tensor((self.gain * q).reshape(shape).astype(dtype.as_numpy_dtype))

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


class GlorotUniform(VarianceScaling):
    """Uniform in ``[-limit, limit]``, ``limit = sqrt(6 / (fan_in + fan_out))``: the default kernel initializer."""

    def __init__(self, seed=None):
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed)

    def get_config(self):
        return {"seed": self.seed}


class GlorotNormal(VarianceScaling):
    """Truncated normal with ``stddev = sqrt(2 / (fan_in + fan_out))``."""

    def __init__(self, seed=None):
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal", seed=seed)

    def get_config(self):
        return {"seed": self.seed}


class HeNormal(VarianceScaling):
    """Truncated normal with ``stddev = sqrt(2 / fan_in)``: suited to ReLU layers."""

    def __init__(self, seed=None):
        super().__init__(scale=2.0, mode="fan_in", distribution="truncated_normal", seed=seed)

    def get_config(self):
        return {"seed": self.seed}


class HeUniform(VarianceScaling):
    """Uniform in ``[-limit, limit]``, ``limit = sqrt(6 / fan_in)``."""

    def __init__(self, seed=None):
        super().__init__(scale=2.0, mode="fan_in", distribution="uniform", seed=seed)

    def get_config(self):
        return {"seed": self.seed}


_BY_NAME = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
    "random_uniform": RandomUniform, "uniform": RandomUniform, "normal": RandomNormal,
    "truncated_normal": TruncatedNormal, "variance_scaling": VarianceScaling, "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal, "he_normal": HeNormal, "he_uniform": HeUniform,
    "orthogonal": Orthogonal,
}


def get(identifier):
    """An initializer from a name (``"he_normal"``, ``"HeNormal"``), an object, a class or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        key = identifier if identifier in _BY_NAME else backend.to_snake_case(identifier)
        if key not in _BY_NAME:
            raise ValueError(f"Could not interpret initializer identifier: {identifier!r}. Known names: "
                             f"{sorted(_BY_NAME)}")
        return _BY_NAME[key]()
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier!r}")


def serialize(initializer):
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}
