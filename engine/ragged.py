"""``tf.ragged``: building and transforming RaggedTensors (see ``engine/ops/ragged/``).

``tf.ragged.constant`` builds one from a nested list; ``map_flat_values`` applies an op to
the values keeping the row structure; ``range``, ``boolean_mask`` and ``stack`` are the ragged
versions of their dense namesakes; ``segment_ids_to_row_splits`` / ``row_splits_to_segment_ids``
convert between two row encodings. ``tf.RaggedTensor`` and ``tf.RaggedTensorSpec`` live at the
top level, as in TF; so does ragged dispatch: ``tf.concat``, ``tf.reduce_sum``, ``tf.gather``,
``tf.shape``, ``+``... accept RaggedTensors (``engine/ops/ragged/ragged_dispatch.py``).
"""
from .ops.ragged.ragged_array_ops import boolean_mask, map_flat_values, stack  # noqa: F401
from .ops.ragged.ragged_factory_ops import constant  # noqa: F401
from .ops.ragged.ragged_gather_ops import range  # noqa: F401,A004
from .ops.ragged.segment_id_ops import row_splits_to_segment_ids, segment_ids_to_row_splits  # noqa: F401
