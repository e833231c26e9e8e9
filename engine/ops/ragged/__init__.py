"""Ragged tensors, as TF's ``tensorflow/python/ops/ragged/`` (one job per module).

* ``row_partition.py``: ``RowPartition``, the row structure of one ragged dimension.
* ``ragged_tensor.py``: ``RaggedTensor`` (a CompositeTensor) and ``RaggedTensorSpec``;
  ``to_tensor``, ``from_tensor``, ``to_sparse``, ``merge_dims``.
* ``ragged_factory_ops.py``: ``tf.ragged.constant``.
* ``ragged_gather_ops.py``: ``tf.ragged.range`` and gathering rows.
* ``ragged_getitem.py``: indexing (``rt[1]``, ``rt[:, :2]``).
* ``ragged_math_ops.py``: reductions (``tf.reduce_sum(rt, axis=1)``, ...).
* ``ragged_array_ops.py``: ``concat``, ``stack``, ``tile``, ``boolean_mask``, ``where``,
  ``reverse``, ``map_flat_values``, ``map_fn``.
* ``segment_id_ops.py``: ``segment_ids_to_row_splits``, ``row_splits_to_segment_ids``.
* ``dynamic_ragged_shape.py``: ``DynamicRaggedShape``, what ``tf.shape(rt)`` returns (minimal).
* ``ragged_dispatch.py``: how ``tf.*`` functions and Python operators accept RaggedTensors,
  and the registration hooks other modules (``tf.strings``) call.
"""
from . import (  # noqa: F401  (each module registers what it defines)
    dynamic_ragged_shape,
    ragged_array_ops,
    ragged_dispatch,
    ragged_factory_ops,
    ragged_gather_ops,
    ragged_getitem,
    ragged_math_ops,
    ragged_tensor,
    row_partition,
    segment_id_ops,
)
