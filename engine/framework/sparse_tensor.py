"""``tf.SparseTensor``: a tensor stored as its non-default entries (COO format), and ``tf.SparseTensorSpec``.

Three dense tensors make one sparse tensor, as in TF:

* ``indices``: int64 ``[N, rank]``, the position of each stored entry (row-major order is what
  most sparse ops expect: ``tf.sparse.reorder`` sorts them);
* ``values``: ``[N]``, the entries, of any dtype;
* ``dense_shape``: int64 ``[rank]``, the shape of the dense tensor it stands for.

A ``SparseTensor`` is a :class:`CompositeTensor`: its ``SparseTensorSpec`` takes it apart into
those three tensors and puts it back, which is how ``tf.function``, ``tf.nest`` and
``tf.data`` handle it. The ops on it live in ``engine/ops/sparse_ops.py`` (``tf.sparse``).
Gradients need nothing special: they flow to ``values`` through those ops.
"""
import numpy as np

from . import dtypes
from .composite_tensor import CompositeTensor
from .graph import constant_value
from .tensor import EagerTensor, Tensor, convert_to_tensor
from .tensor_shape import TensorShape, as_shape
from .tensor_spec import TensorSpec
from .type_spec import TypeSpec

__all__ = ["SparseTensor", "SparseTensorSpec", "is_sparse"]


def is_sparse(x):
    """True for a ``tf.SparseTensor`` (TF's ``sparse_tensor.is_sparse`` also accepts TF1's value type)."""
    return isinstance(x, SparseTensor)


def _static_shape(dense_shape):
    """The static shape a ``dense_shape`` tensor stands for (its values, when known)."""
    if type(dense_shape) is EagerTensor:
        return TensorShape([int(d) for d in dense_shape.numpy().tolist()])
    rank = dense_shape.shape[0] if dense_shape.shape.rank == 1 else None
    value = constant_value(dense_shape)
    if value is not None:
        return TensorShape([int(d) if d >= 0 else None for d in np.asarray(value).reshape(-1).tolist()])
    return TensorShape(None if rank is None else [None] * rank)


class SparseTensor(CompositeTensor):
    """``tf.SparseTensor(indices, values, dense_shape)``: the entries ``values[i]`` at ``indices[i]`` of a
    tensor of shape ``dense_shape``; every other entry is zero (or the default a consumer chooses).

    ``indices`` and ``dense_shape`` become int64 tensors. As in TF, the constructor checks only
    static shapes (``indices`` of rank 2, ``values`` of rank 1, and that their lengths and the
    rank agree: ``ValueError``); order and bounds are checked by the ops that need them.
    """

    __slots__ = ("_indices", "_values", "_dense_shape")

    def __init__(self, indices, values, dense_shape):
        indices = _int64(indices, "indices")
        values = values if isinstance(values, Tensor) else convert_to_tensor(values)
        dense_shape = _int64(dense_shape, "dense_shape")
        indices.shape.with_rank(2)
        values.shape.with_rank(1)
        dense_shape.shape.with_rank(1)
        _same_dim(indices.shape[0], values.shape[0])        # (TF merges the dims: "Dimensions 1 and 2 are
        _same_dim(indices.shape[1], dense_shape.shape[0])   # not compatible")
        self._indices, self._values, self._dense_shape = indices, values, dense_shape

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """``SparseTensor.from_value``: a SparseTensor as it is, or one built from an object with
        ``indices``, ``values`` and ``dense_shape`` (TF1's ``SparseTensorValue``)."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return cls(sparse_tensor_value.indices, sparse_tensor_value.values, sparse_tensor_value.dense_shape)

    # ---- the three components ------------------------------------------------------------
    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self):
        """The static shape: ``dense_shape``'s values when they are known (eagerly, always)."""
        return _static_shape(self._dense_shape)

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return self.shape.rank

    @property
    def graph(self):
        return self._values.graph

    @property
    def op(self):
        return self._values.op

    def with_values(self, new_values):
        """The same indices and dense_shape over ``new_values`` (same length)."""
        new_values = new_values if isinstance(new_values, Tensor) else convert_to_tensor(new_values)
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def consumers(self):
        return []

    @property
    def _type_spec(self):
        return SparseTensorSpec(self.shape, self.dtype)

    # ---- printing (TF writes the three tensors' str) ---------------------------------------
    def __repr__(self):
        return (f"SparseTensor(indices={str(self._indices)}, values={str(self._values)}, "
                f"dense_shape={str(self._dense_shape)})")

    __str__ = __repr__

    def __bool__(self):
        raise TypeError("SparseTensor may not be used as a boolean.")

    __hash__ = None


def _same_dim(a, b):
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")


def _int64(value, what):
    if isinstance(value, Tensor) or hasattr(value, "__tf_tensor__"):
        t = convert_to_tensor(value)
        if t.dtype != dtypes.int64:
            raise TypeError(f"SparseTensor {what} must be int64, got a {t.dtype.name} tensor: cast it with "
                            f"tf.cast(..., tf.int64)")
        return t
    if isinstance(value, TensorShape):
        value = value.as_list()
    arr = np.asarray(value, dtype=np.int64)
    if what == "indices" and arr.size == 0 and arr.ndim < 2:
        arr = arr.reshape(0, 0)
    return convert_to_tensor(arr)


class SparseTensorSpec(TypeSpec):
    """``tf.SparseTensorSpec(shape=None, dtype=tf.float32)``: the type of a ``tf.SparseTensor``.

    Its components are ``indices`` ``TensorSpec([None, rank], tf.int64)``, ``values``
    ``TensorSpec([None], dtype)`` and ``dense_shape`` ``TensorSpec([rank], tf.int64)``.
    """

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    @property
    def value_type(self):
        return SparseTensor

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def _component_specs(self):
        rank = self._shape.rank
        return [TensorSpec([None, rank], dtypes.int64), TensorSpec([None], self._dtype),
                TensorSpec([rank], dtypes.int64)]

    def _to_components(self, value):
        return [value.indices, value.values, value.dense_shape]

    def _from_components(self, components):
        indices, values, dense_shape = components
        return SparseTensor(indices, values, dense_shape)

    def _serialize(self):
        return (self._shape, self._dtype)

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype)
