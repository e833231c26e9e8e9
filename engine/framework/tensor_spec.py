"""``tf.TensorSpec``: the type of a tensor (shape and dtype), without a value.

``tf.function`` keys its trace cache on specs: two calls with tensors of the
same dtype and shape reuse one traced graph. ``None`` dimensions match any size.
"""
from . import dtypes as _dtypes
from .tensor_shape import as_shape
from .tensor import EagerTensor, Tensor
from . import type_spec as _type_spec
from .type_spec import TypeSpec

__all__ = ["TensorSpec"]


class TensorSpec(TypeSpec):
    """Describes a tensor: ``TensorSpec(shape=(None, 3), dtype=tf.float32)``.

    The leaf ``tf.TypeSpec``: its one component is the tensor itself.
    """

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=_dtypes.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of a tensor. A symbolic (graph) tensor lends its op's name when ``name`` is None."""
        if not isinstance(tensor, Tensor):
            raise ValueError(f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")
        if name is None and not isinstance(tensor, EagerTensor) and getattr(tensor, "op", None) is not None:
            name = tensor.op.name
        return cls(tensor.shape, tensor.dtype, name)

    @classmethod
    def from_spec(cls, spec, name=None):
        """A copy of ``spec`` (shape and dtype), renamed to ``name`` if given."""
        return cls(spec.shape, spec.dtype, name or spec.name)

    @property
    def value_type(self):
        """The Python type of the values this spec describes: ``tf.Tensor``."""
        return Tensor

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, spec_or_tensor):
        """True if ``spec_or_tensor`` (a TensorSpec or a tf.Tensor) has this dtype and a compatible shape.

        As TF, anything else (a NumPy array, a list, a tf.Variable) is not compatible: ``False``.
        """
        return (isinstance(spec_or_tensor, (TensorSpec, Tensor)) and self._dtype == spec_or_tensor.dtype
                and self._shape.is_compatible_with(spec_or_tensor.shape))

    def is_subtype_of(self, other):
        """True if every tensor this spec describes also fits ``other`` (same dtype, a more general shape)."""
        return (isinstance(other, TensorSpec) and self._dtype == other.dtype
                and self._shape.is_subtype_of(other.shape))

    def most_specific_common_supertype(self, others):
        shape = self._shape
        for o in others:
            if o.dtype != self._dtype:
                return None
            shape = shape.most_specific_compatible_shape(o.shape)
        return TensorSpec(shape, self._dtype, self._name)

    # ---- TypeSpec hooks: a tensor is its own (single) component ----------------------------
    @property
    def _component_specs(self):
        return self

    def _to_components(self, value):
        return value

    def _from_components(self, components):
        return components

    @property
    def _flat_tensor_specs(self):
        return [self]

    def _serialize(self):
        return (self._shape, self._dtype, self._name)

    def _key(self):
        return (self._shape, self._dtype)

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and self._key() == other._key() and self._name == other._name

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"




_type_spec._TENSOR_SPEC[0] = TensorSpec.from_tensor
