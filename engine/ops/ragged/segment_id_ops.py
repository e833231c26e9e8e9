"""Converting between segment ids and row splits (TF: ``segment_id_ops.py``).

``tf.ragged.segment_ids_to_row_splits([0, 0, 2, 2, 3])`` is ``[0, 2, 2, 4, 5]``: the row splits of
the rows those sorted ids describe; ``row_splits_to_segment_ids`` goes back (it is
``RowPartition.value_rowids``).
"""
from ...framework import dtypes
from .row_partition import RowPartition, convert_row_partition

__all__ = ["segment_ids_to_row_splits", "row_splits_to_segment_ids"]


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """The row splits of the (sorted) ``segment_ids``: ``num_segments`` rows (default: last id + 1)."""
    rowids = convert_row_partition(segment_ids, "segment_ids", dtypes.as_dtype(out_type or dtypes.int64))
    return RowPartition.from_value_rowids(rowids, num_segments, validate=False).row_splits()


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row of each value, for rows given by ``splits``: ``[0, 2, 2, 5]`` -> ``[0, 0, 2, 2, 2]``."""
    partition = RowPartition.from_row_splits(splits, validate=False)
    if out_type is not None:
        partition = partition.with_dtype(dtypes.as_dtype(out_type))
    return partition.value_rowids()
