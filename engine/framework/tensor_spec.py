"""``tf.TensorSpec``: the type of a tensor (shape and dtype), without a value.

``tf.function`` keys its trace cache on specs: two calls with tensors of the
same dtype and shape reuse one traced graph. ``None`` dimensions match any size.
"""
from . import dtypes as _dtypes
from .tensor_shape import as_shape

__all__ = ["TensorSpec"]


class TensorSpec:
    """Describes a tensor: ``TensorSpec(shape=(None, 3), dtype=tf.float32)``."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=_dtypes.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, other):
        """True if ``other`` (a spec or a tensor) has this dtype and a compatible shape."""
        return self._dtype == other.dtype and self._shape.is_compatible_with(other.shape)

    def most_specific_common_supertype(self, others):
        shape = self._shape
        for o in others:
            if o.dtype != self._dtype:
                return None
            shape = shape.most_specific_compatible_shape(o.shape)
        return TensorSpec(shape, self._dtype, self._name)

    def _key(self):
        return (self._shape, self._dtype)

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and self._key() == other._key() and self._name == other._name

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"


