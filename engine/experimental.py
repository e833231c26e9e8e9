"""``tf.experimental``: the ragged-shape classes TF exposes there (``DynamicRaggedShape``, ``RowPartition``)."""
from .ops.ragged.dynamic_ragged_shape import DynamicRaggedShape
from .ops.ragged.row_partition import RowPartition

__all__ = ["DynamicRaggedShape", "RowPartition"]
