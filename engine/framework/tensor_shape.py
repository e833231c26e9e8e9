"""``tf.TensorShape``: a shape whose rank or dimensions may be unknown.

Eager tensors always have fully known shapes. Symbolic tensors (graph mode,
``tf.function`` tracing) may not: ``TensorShape([None, 784])`` is "any batch size,
784 features", and ``TensorShape(None)`` is "unknown rank". Shape inference in
the op registry works on these partial shapes.
"""

__all__ = ["TensorShape", "Dimension", "as_shape", "unknown_shape"]


def _as_dim(d):
    if d is None:
        return None
    if isinstance(d, Dimension):
        return d.value
    if hasattr(d, "__index__"):
        v = d.__index__()
        if v < 0:
            raise ValueError(f"Dimension {v} must be >= 0")
        return v
    raise TypeError(f"Dimension value must be integer or None, got {d!r} of type {type(d).__name__}")


class Dimension:
    """A single, possibly unknown, dimension (kept for TF1 compatibility)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = _as_dim(value)

    def __eq__(self, other):
        other = other.value if isinstance(other, Dimension) else other
        if self.value is None or other is None:
            return None
        return self.value == other

    def __int__(self):
        return self.value

    __index__ = __int__

    def __repr__(self):
        return f"Dimension({self.value})"


class TensorShape:
    """The static shape of a tensor: a list of ints and ``None`` s, or unknown rank."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if type(dims) is tuple and all([type(d) is int and d >= 0 for d in dims]):
            self._dims = dims  # the common case: a NumPy shape
        elif dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (int, Dimension)) or hasattr(dims, "__index__") and not hasattr(dims, "__len__"):
            self._dims = (_as_dim(dims),)
        else:
            self._dims = tuple(_as_dim(d) for d in dims)

    # --- rank ---------------------------------------------------------------
    @property
    def rank(self):
        """Number of dimensions, or ``None`` if unknown."""
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def as_list(self):
        """The dims as a Python list (``None`` for unknown ones). Fails for unknown rank."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def num_elements(self):
        """Total element count, or ``None`` if any dimension is unknown."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_fully_defined(self):
        return self._dims is not None and None not in self._dims

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    # --- compatibility ----------------------------------------------------------
    def is_compatible_with(self, other):
        """True if some concrete shape could satisfy both (``None`` matches anything)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def is_subtype_of(self, other):
        """True if every shape ``self`` allows, ``other`` allows too: ``[3, 2]`` is a subtype of ``[None, 2]``."""
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other):
        """The most specific shape compatible with both; ``ValueError`` if there is none."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def most_specific_compatible_shape(self, other):
        """The most specific shape that both shapes are compatible with (used to relax traces)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    __add__ = concatenate

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def assert_has_rank(self, rank):
        """``ValueError`` unless the rank is unknown or ``rank``."""
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other):
        """``ValueError`` if both ranks are known and differ."""
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def with_rank(self, rank):
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank):
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    # --- identity -------------------------------------------------------------------
    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __reduce__(self):
        return (TensorShape, (self.dims,))


def as_shape(shape):
    """Convert a list/tuple/TensorShape into a :class:`TensorShape`."""
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)


def unknown_shape(rank=None):
    return TensorShape(None if rank is None else [None] * rank)
