"""Graph-vs-eager cases for sorting, segments, scatter, array helpers and stateless random ops.

Loaded by ``op_catalog.py`` (see its bottom). Only the public ``tf`` API is used, because
``record_tf_static_shapes.py`` runs these cases under real TensorFlow too.
"""
import numpy as np

import engine as tf
from op_catalog import Case, distinct, ints, normal, positive

C = Case
_NO_RANK = ("batch", "dims")          # the engine's sort/repeat need a known rank (so does TF's repeat)
_RANK_ONLY = ("batch", "dims")        # data-dependent output sizes: only the rank is static (as in TF)
_sorted_rows = np.sort(normal(2, 5), axis=-1)

CASES = [
    # ----------------------------------------------------------------- sorting
    C("TopKV2", lambda x: tf.math.top_k(x, 2), distinct(3, 4)),
    C("TopKV2", lambda x: tf.nn.top_k(x, k=3, sorted=True), distinct(2, 2, 3), name="rank3"),
    C("TopKV2", lambda x: tf.sort(x, axis=0), distinct(3, 4), name="sort_axis0", partial=_NO_RANK),
    C("TopKV2", lambda x: tf.sort(x, direction="DESCENDING"), distinct(2, 5), name="sort_descending",
      partial=_NO_RANK),
    C("TopKV2", lambda x: tf.argsort(x, axis=-1), distinct(2, 5), name="argsort", partial=_NO_RANK),
    C("TopKV2", lambda x: tf.sort(x), ints(-9, 9, 2, 5), name="sort_int32", partial=_NO_RANK),
    C("Unique", tf.unique, ints(0, 4, 8), static=_RANK_ONLY),
    C("UniqueWithCounts", lambda x: tf.unique_with_counts(x, out_idx=tf.int64), ints(0, 4, 8),
      static=_RANK_ONLY),
    C("LowerBound", tf.searchsorted, _sorted_rows, normal(2, 3)),
    C("UpperBound", lambda s, v: tf.searchsorted(s, v, side="right", out_type=tf.int64), _sorted_rows,
      normal(2, 3)),
    # ----------------------------------------------------------------- segments
    C("UnsortedSegmentSum", lambda d, i: tf.math.unsorted_segment_sum(d, i, 4), normal(5, 3),
      np.array([0, 2, -1, 2, 3], np.int32)),
    C("UnsortedSegmentSum", lambda d: tf.math.unsorted_segment_sum(d, [[0, 1, 0], [2, 1, 1]], 3), normal(2, 3, 2),
      name="2d_ids"),
    C("UnsortedSegmentSum", lambda d: tf.math.unsorted_segment_mean(d, [0, 2, 0, 2, 1], 4), normal(5, 3),
      name="mean"),
    C("UnsortedSegmentSum", lambda d: tf.math.unsorted_segment_sqrt_n(d, [0, 2, 0, 2, 1], 3), normal(5, 3),
      name="sqrt_n"),
    C("UnsortedSegmentMax", lambda d: tf.math.unsorted_segment_max(d, [0, 2, 0, 2, 1], 3), distinct(5, 3)),
    C("UnsortedSegmentMin", lambda d: tf.math.unsorted_segment_min(d, [0, 2, -1, 2, 1], 3), distinct(5, 3)),
    C("UnsortedSegmentProd", lambda d: tf.math.unsorted_segment_prod(d, [0, 1, 0, -1, 1], 3), normal(5, 2)),
    C("UnsortedSegmentProd", lambda d: tf.math.unsorted_segment_prod(d, [0, 0, 1, 1, 1], 2),
      np.array([[1.5, 0.0], [2.0, -1.0], [0.0, 3.0], [0.5, 0.0], [2.5, 0.0]]), name="zeros"),
    C("SegmentSum", lambda d: tf.math.segment_sum(d, [0, 0, 1, 3, 3]), normal(5, 2), static=_RANK_ONLY),
    C("SegmentMean", lambda d: tf.math.segment_mean(d, [0, 0, 1, 3, 3]), normal(5, 2), static=_RANK_ONLY),
    C("SegmentMax", lambda d: tf.math.segment_max(d, [0, 0, 1, 1, 1]), distinct(5, 2), static=_RANK_ONLY),
    C("SegmentMin", lambda d: tf.math.segment_min(d, [0, 0, 1, 1, 2]), distinct(5, 2), static=_RANK_ONLY),
    C("SegmentProd", lambda d: tf.math.segment_prod(d, [0, 0, 1, 1, 1]), normal(5, 2), static=_RANK_ONLY),
    C("DenseBincount", tf.math.bincount, ints(0, 5, 6), static=_RANK_ONLY),
    C("DenseBincount", lambda a, w: tf.math.bincount(a, weights=w, minlength=7), ints(0, 5, 6), normal(6),
      name="weights", static=_RANK_ONLY),
    C("DenseBincount", lambda a: tf.math.bincount(a, axis=-1, maxlength=3), ints(0, 5, 2, 4), name="axis_last",
      static=_RANK_ONLY),
    C("DynamicPartition", lambda d: tf.dynamic_partition(d, [0, 2, 1, 0], 3), normal(4, 2), static=_RANK_ONLY),
    C("DynamicPartition", lambda d, p: tf.dynamic_partition(d, p, 2), normal(2, 3), ints(0, 2, 2, 3),
      name="fed_partitions", partial=(), static=()),
    C("DynamicStitch", lambda a, b: tf.dynamic_stitch([[0, 2], [1, 3]], [a, b]), normal(2, 3), normal(2, 3)),
    C("DynamicStitch", lambda a, b: tf.nn.embedding_lookup([a, b], [3, 0, 2, 2]), normal(2, 2), normal(2, 2),
      name="embedding_lookup_sharded", partial=()),
    # ----------------------------------------------------------------- scatter
    C("TensorScatterUpdate", lambda t, u: tf.tensor_scatter_nd_update(t, [[0], [2]], u), normal(3, 2), normal(2, 2)),
    C("TensorScatterAdd", lambda t, u: tf.tensor_scatter_nd_add(t, [[0, 1], [0, 1], [2, 0]], u), normal(3, 2),
      normal(3)),
    C("TensorScatterSub", lambda t, u: tf.tensor_scatter_nd_sub(t, [[1]], u), normal(3, 2), normal(1, 2)),
    C("TensorScatterMin", lambda t, u: tf.tensor_scatter_nd_min(t, [[0, 1], [2, 0], [1, 1]], u), distinct(3, 2),
      distinct(3)),
    C("TensorScatterMax", lambda t, u: tf.tensor_scatter_nd_max(t, [[0, 1], [2, 0], [1, 1]], u), distinct(3, 2),
      distinct(3)),
    # ----------------------------------------------------------------- array helpers
    C("Roll", lambda x: tf.roll(x, [1, -1], [0, 1]), normal(3, 4)),
    C("Roll", lambda x: tf.roll(x, 2, -1), normal(2, 5), name="scalar_shift"),
    C("EnsureShape", lambda x: tf.ensure_shape(x, [None, 4]), normal(3, 4)),
    C("IdentityN", lambda a, b: tf.identity_n([a, b]), normal(2, 3), normal(3)),
    C("ShapeN", lambda a, b: tf.shape_n([a, b]), normal(2, 3), normal(3)),
    C("HistogramFixedWidth", lambda v: tf.histogram_fixed_width(v, [-1.0, 1.0], nbins=5), normal(10)),
    C("Tile", lambda x: tf.repeat(x, 2, axis=1), normal(2, 3), name="repeat_scalar", partial=_NO_RANK),
    C("GatherV2", lambda x: tf.repeat(x, [1, 0, 2], axis=1), normal(2, 3), name="repeat_vector", partial=_NO_RANK),
    C("Mul", lambda a, b: tf.meshgrid(a, b), normal(3), normal(2), name="meshgrid"),
    C("Mul", lambda a, b, c: tf.meshgrid(a, b, c, indexing="ij"), normal(3), normal(2), normal(2),
      name="meshgrid_ij"),
    C("Less", lambda n: tf.sequence_mask(n, 4), ints(0, 5, 3), name="sequence_mask"),
    C("GatherV2", lambda p: tf.nn.embedding_lookup(p, [[0, 2], [1, 1]]), normal(3, 2), name="embedding_lookup"),
    C("Rsqrt", lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3), normal(4, 3), normal(3),
      positive(3), normal(3), normal(3), name="batch_normalization"),
    # ----------------------------------------------------------------- stateless random (pure functions of the seed)
    C("StatelessRandomNormal", lambda s: tf.random.stateless_normal([2, 3], s, dtype=tf.float64),
      np.array([1, 2], np.int32), partial=("dims",)),
    C("StatelessRandomUniform", lambda s: tf.random.stateless_uniform([3], s, minval=-2.0, maxval=2.0),
      np.array([3, 4], np.int64), partial=("dims",), rtol=1e-6, atol=1e-7),
    C("StatelessRandomUniformInt", lambda s: tf.random.stateless_uniform([4], s, minval=3, maxval=9,
                                                                         dtype=tf.int64),
      np.array([5, 6], np.int32), partial=("dims",)),
    C("StatelessRandomUniformFullInt", lambda s: tf.random.stateless_uniform([4], s, minval=None, maxval=None,
                                                                             dtype=tf.int32),
      np.array([5, 6], np.int32), partial=("dims",)),
]

EXCLUDED = {
    "Multinomial": "random (stateful): shape/dtype and seeded determinism in tests/ops/test_random_extras.py",
}
