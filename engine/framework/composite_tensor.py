"""``CompositeTensor``: a value made of several tensors, described by a ``tf.TypeSpec``.

A ``tf.RaggedTensor`` is ``flat_values`` plus one ``row_splits`` vector per ragged
dimension; a ``tf.SparseTensor`` is ``indices``, ``values`` and ``dense_shape``. Neither is
a ``tf.Tensor``: ops do not take them directly. What makes them work everywhere a tensor
does is their ``_type_spec`` (see ``type_spec.py``), which takes them apart into plain
tensors and rebuilds them. ``tf.nest`` (with ``expand_composites=True``), ``tf.function``
and ``tf.data`` only ever talk to that spec.

Gradients need nothing special: every op on a composite is an op on its component tensors,
so ``GradientTape`` records those ops as usual.
"""
__all__ = ["CompositeTensor", "is_composite_tensor"]


class CompositeTensor:
    """The base class of values made of tensors: subclasses define ``_type_spec``."""

    __slots__ = ()
    _is_composite_tensor = True   # (read by ``engine.util.nest``, which sits below this layer)

    @property
    def _type_spec(self):
        """The :class:`~engine.framework.type_spec.TypeSpec` describing this value."""
        raise NotImplementedError

    def _consumers(self):
        return []

    def _convert_to_components(self):
        """This value's components (``self._type_spec._to_components(self)``)."""
        return self._type_spec._to_components(self)


def is_composite_tensor(value):
    """True for a ``RaggedTensor``, ``SparseTensor`` or other ``CompositeTensor``."""
    return isinstance(value, CompositeTensor)
