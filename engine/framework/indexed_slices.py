"""``tf.IndexedSlices``: a sparse representation of a tensor made of a few rows.

Why it exists: the gradient of ``tf.gather(params, ids)`` (and of
``tf.nn.embedding_lookup``) with respect to ``params`` is zero except on the rows
that were gathered. For an embedding table of a million rows, a dense gradient
would be mostly zeros; TF instead returns the rows that *are* touched:

    IndexedSlices(values, indices, dense_shape)
    dense[indices[i], ...] += values[i, ...]      (duplicates add up)

so ``values`` has shape ``[len(indices)] + dense_shape[1:]``.

What TF 2.21 lets you do with one (recorded in ``tests/test_indexed_slices.py``):

* read ``values``, ``indices``, ``dense_shape``, ``shape`` (a ``TensorShape``,
  unknown when ``dense_shape`` is ``None``), ``dtype``, ``device``;
* ``-s`` (an IndexedSlices again);
* convert it: ``tf.convert_to_tensor(s)`` scatter-adds the rows into a dense
  tensor (``ValueError`` without ``dense_shape``). Any op that converts its
  inputs therefore accepts one: ``tf.multiply(s, 2.0)``, ``tf.add_n([s, s])``,
  ``tf.reduce_sum(s)`` all return dense tensors;
* but NOT Python arithmetic: ``s * 2.0``, ``s + s``, ``s / 2`` raise
  ``TypeError``, and there is no ``numpy()`` nor ``len``.

The engine densifies with ``unsorted_segment_sum`` (as TF's
``_indexed_slices_to_tensor``), an engine op, so densifying is differentiable.

In a backward walk (tape or ``tf.gradients``), the gradient contributions a
tensor receives from its consumers are summed by :func:`aggregate`, which keeps
the sum sparse while every contribution is.
"""
from . import dtypes, tensor_shape
from .graph import constant_value
from .op_library import OPS

__all__ = ["IndexedSlices", "is_indexed_slices", "densify", "aggregate"]


class IndexedSlices:
    """``tf.IndexedSlices(values, indices, dense_shape=None)``.

    >>> s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([1]), tf.constant([3, 2]))
    >>> tf.convert_to_tensor(s)
    <tf.Tensor: shape=(3, 2), dtype=float32, numpy=
    array([[0., 0.],
           [1., 2.],
           [0., 0.]], dtype=float32)>

    ``repr`` is Python's default object repr, as TF's; ``str`` spells out the parts.
    """

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    # --- the three parts ---------------------------------------------------------------------
    @property
    def values(self):
        return self._values

    @property
    def indices(self):
        return self._indices

    @property
    def dense_shape(self):
        return self._dense_shape

    # --- what it forwards from its values ------------------------------------------------------
    @property
    def dtype(self):
        return self._values.dtype

    @property
    def device(self):
        return self._values.device

    @property
    def name(self):
        return getattr(self._values, "name", None)

    @property
    def shape(self):
        """The dense shape as a ``TensorShape`` (unknown if there is no ``dense_shape`` or it is not static)."""
        if self._dense_shape is None:
            return tensor_shape.TensorShape(None)
        value = constant_value(self._dense_shape)
        if value is None:
            rank = self._dense_shape.shape[0] if self._dense_shape.shape.rank == 1 else None
            return tensor_shape.TensorShape(None if rank is None else [None] * rank)
        return tensor_shape.TensorShape([int(d) for d in value])

    def __neg__(self):
        return IndexedSlices(OPS.math_ops.negative(self._values), self._indices, self._dense_shape)

    # --- conversion ---------------------------------------------------------------------------
    def __tf_tensor__(self, dtype=None, name=None):
        """``tf.convert_to_tensor(s)``: the dense tensor (``convert_to_tensor`` calls this hook)."""
        if self._dense_shape is None:
            raise ValueError(f"Tensor conversion requested for IndexedSlices for argument `value` without "
                             f"dense_shape: {self}")
        if dtype is not None and self.dtype != dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{self.dtype.name}: {self}")
        return densify(self)

    def __str__(self):
        parts = f"indices={self._indices!s}, values={self._values!s}"
        if self._dense_shape is not None:
            parts += f", dense_shape={self._dense_shape!s}"
        return f"IndexedSlices({parts})"


def is_indexed_slices(x):
    return isinstance(x, IndexedSlices)


def densify(s):
    """The dense tensor of ``s``: rows of ``values`` added into zeros of ``dense_shape`` at ``indices``."""
    array_ops, math_ops, segment_ops = OPS.array_ops, OPS.math_ops, OPS.segment_ops
    dense_shape = s.dense_shape
    static = s.shape
    rows = static[0] if static.rank is not None and static.rank > 0 else None
    if rows is None:
        rows = array_ops.gather(dense_shape, 0)
    indices = s.indices
    if indices.dtype.name not in ("int32", "int64"):
        indices = math_ops.cast(indices, dtypes.int32)
    return segment_ops.unsorted_segment_sum(s.values, indices, rows)


def aggregate(parts):
    """The sum of several gradient contributions to one tensor, by TF's rule.

    The rule is the same for ``tf.GradientTape`` and ``tf.gradients`` (TF:
    ``backprop_util.AggregateIndexedSlicesGradients``), and the backward walk both
    share (``engine/framework/backprop.py``) calls this for every tensor used twice:

    * all dense: ``add_n``;
    * all ``IndexedSlices``: their values and indices are concatenated, so the sum is
      sparse again (rows touched twice appear twice; densifying adds them up). Mixed
      ``int32``/``int64`` indices are widened to ``int64``;
    * dense and sparse mixed: the sum is dense (``add_n`` of the densified parts).
    """
    array_ops, math_ops = OPS.array_ops, OPS.math_ops
    if not any(isinstance(p, IndexedSlices) for p in parts):
        return math_ops.add_n(parts)
    if all(isinstance(p, IndexedSlices) for p in parts):
        index_dtypes = {p.indices.dtype for p in parts}
        indices = [p.indices for p in parts]
        if len(index_dtypes) > 1:   # int32 and int64 mixed: widen
            indices = [math_ops.cast(i, dtypes.int64) for i in indices]
        return IndexedSlices(array_ops.concat([p.values for p in parts], 0), array_ops.concat(indices, 0),
                             parts[0].dense_shape)
    return math_ops.add_n([densify(p) if isinstance(p, IndexedSlices) else p for p in parts])
