"""``tf.TypeSpec``: the type of a value that may be made of several tensors.

A ``tf.Tensor`` has a :class:`~engine.framework.tensor_spec.TensorSpec` (shape and dtype).
A *composite* value, a ``tf.RaggedTensor`` or (later) a ``tf.SparseTensor``, is made of
several tensors, its *components*; its ``TypeSpec`` says how to take it apart and put it
back together, and what "the same type" means for it::

    spec = rt._type_spec                       # RaggedTensorSpec(TensorShape([5, None]), tf.int32, 1, tf.int64)
    parts = spec._to_components(rt)            # [flat_values, row_splits]: plain tensors
    rt2 = spec._from_components(parts)         # the same RaggedTensor again
    spec._component_specs                      # [TensorSpec([None]), TensorSpec([None], tf.int64)]

That is all the rest of the engine needs to handle composites without knowing them:

* ``tf.nest.flatten(x, expand_composites=True)`` lists a composite's components
  (recursively: a component may itself be a composite) and ``pack_sequence_as`` rebuilds it;
* ``tf.function`` keys its trace cache on the spec, feeds the components to the graph as
  placeholders and rebuilds the composite inside;
* ``tf.data`` stores a dataset's element specs and batches components.

A subclass provides ``value_type``, ``_component_specs``, ``_to_components``,
``_from_components`` and ``_serialize`` (a tuple of the spec's own facts: two specs are
equal exactly when their classes and ``_serialize()`` are); :meth:`is_compatible_with`,
:meth:`most_specific_common_supertype`, equality and hashing follow from those. As in TF,
a ``TensorSpec`` is itself the leaf ``TypeSpec``: its one component is the tensor.
"""
from ..util import nest as _nest
from .tensor import Tensor
from .tensor_shape import TensorShape

__all__ = ["TypeSpec", "type_spec_from_value"]


class TypeSpec:
    """The base class of every value type: ``tf.TensorSpec``, ``tf.RaggedTensorSpec``, ...

    Subclasses implement the five hooks below. Specs are immutable values: compare them
    with ``==``, use them as dict keys (``tf.function``'s trace cache does).
    """

    __slots__ = ()
    _is_type_spec = True   # (read by ``engine.util.nest``, which sits below this layer)

    # ---- the hooks a subclass provides -------------------------------------------------
    @property
    def value_type(self):
        """The Python type of the values this spec describes (``tf.RaggedTensor``)."""
        raise NotImplementedError

    @property
    def _component_specs(self):
        """A nested structure of ``TypeSpec`` s, one per component."""
        raise NotImplementedError

    def _to_components(self, value):
        """``value`` taken apart: a structure matching :attr:`_component_specs`."""
        raise NotImplementedError

    def _from_components(self, components):
        """A value of this type rebuilt from its components (the inverse of :meth:`_to_components`)."""
        raise NotImplementedError

    def _serialize(self):
        """The spec's facts as a tuple (shapes, dtypes, Python values): its identity."""
        raise NotImplementedError

    # ---- derived -----------------------------------------------------------------------
    @property
    def _flat_tensor_specs(self):
        """The ``TensorSpec`` s of every tensor the value is made of, flattened (composites expanded)."""
        return _nest.flatten(self._component_specs, expand_composites=True)

    def _to_tensor_list(self, value):
        """Every tensor of ``value``, in :attr:`_flat_tensor_specs` order."""
        return _nest.flatten(self._to_components(value), expand_composites=True)

    def _from_tensor_list(self, tensors):
        """A value rebuilt from the flat list :meth:`_to_tensor_list` gives."""
        components = _nest.pack_sequence_as(self._component_specs, list(tensors), expand_composites=True)
        return self._from_components(components)

    @classmethod
    def _deserialize(cls, serialization):
        return cls(*serialization)

    def is_compatible_with(self, spec_or_value):
        """True if ``spec_or_value`` (a spec, or a value whose ``_type_spec`` is one) is of this type,
        allowing ``None`` dimensions to match any size."""
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) else type_spec_from_value(spec_or_value)
        if other is None or type(other) is not type(self):
            return False
        return _compatible(self._serialize(), other._serialize())

    def is_subtype_of(self, other):
        """True if every value of this type is also of type ``other`` (``other`` is as or more general)."""
        if type(other) is not type(self):
            return False
        return _subtype(self._serialize(), other._serialize())

    def most_specific_common_supertype(self, others):
        """The most specific spec every one of ``self`` and ``others`` is a subtype of, or None."""
        mine = self._serialize()
        for o in others:
            if type(o) is not type(self):
                return None
            mine = _supertype(mine, o._serialize())
            if mine is _NONE:
                return None
        return self._deserialize(mine)

    def most_specific_compatible_type(self, other):
        """The TF1 name of :meth:`most_specific_common_supertype` for one other spec; ValueError if none."""
        result = self.most_specific_common_supertype([other])
        if result is None:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return result

    def __eq__(self, other):
        return type(other) is type(self) and self._serialize() == other._serialize()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self).__name__, self._serialize()))

    def __repr__(self):
        return f"{type(self).__name__}{self._serialize()!r}"


_NONE = object()


def _compatible(a, b):
    if isinstance(a, TensorShape) or isinstance(b, TensorShape):
        return isinstance(a, TensorShape) and isinstance(b, TensorShape) and a.is_compatible_with(b)
    if isinstance(a, TypeSpec) or isinstance(b, TypeSpec):
        return isinstance(a, TypeSpec) and a.is_compatible_with(b)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_compatible(x, y) for x, y in zip(a, b))
    return a == b


def _subtype(a, b):
    if isinstance(a, TensorShape) or isinstance(b, TensorShape):
        return isinstance(a, TensorShape) and isinstance(b, TensorShape) and a.is_subtype_of(b)
    if isinstance(a, TypeSpec) or isinstance(b, TypeSpec):
        return isinstance(a, TypeSpec) and a.is_subtype_of(b)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_subtype(x, y) for x, y in zip(a, b))
    return a == b


def _supertype(a, b):
    if isinstance(a, TensorShape) and isinstance(b, TensorShape):
        if a.rank != b.rank:
            return TensorShape(None)
        return a.most_specific_compatible_shape(b)
    if isinstance(a, TypeSpec) and isinstance(b, TypeSpec):
        s = a.most_specific_common_supertype([b])
        return _NONE if s is None else s
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        parts = tuple(_supertype(x, y) for x, y in zip(a, b))
        return _NONE if any(p is _NONE for p in parts) else parts
    return a if a == b else _NONE


def type_spec_from_value(value):
    """The ``TypeSpec`` of a tensor or composite tensor (None for anything else)."""
    spec = getattr(value, "_type_spec", None)
    if isinstance(spec, TypeSpec):
        return spec
    if isinstance(value, Tensor) and _TENSOR_SPEC[0] is not None:
        return _TENSOR_SPEC[0](value)
    return None


_TENSOR_SPEC = [None]   # ``TensorSpec.from_tensor``, installed by tensor_spec.py (which imports this module)
