"""Cases for the list-returning ops and the data-dependent output sizes (``test_list_ops_static_shapes.py``).

Each case is ``name: (inputs, fn)``: ``inputs`` is a list of ``(dtype name, placeholder shape, feed)`` (the
placeholder shape may hold ``None`` dims or be ``None``: unknown rank; ``feed`` is a nested list, or
``None`` for a case checked only while building), and ``fn(tf, *tensors)`` builds the outputs with the module
``tf`` it is given: the engine in the tests, TensorFlow 2.21 in ``record_list_op_goldens.py``, which
records TF's answers into ``list_op_goldens.json``. Plain data and plain functions only, so that both
sides run exactly the same code.
"""

F, I, B = "float32", "int32", "bool"
M23 = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
M13 = [[0.0, 1.0, 2.0]]
M46 = [[float(6 * i + j) for j in range(6)] for i in range(4)]
M43 = [[float(3 * i + j) for j in range(3)] for i in range(4)]

CASES = {
    # --- unstack: the number of outputs, their rank and shape; [i] picks a tensor -----------------
    "unstack_1x3": ([(F, [1, 3], M13)], lambda tf, x: tf.unstack(x)),
    "unstack_1x3_idx": ([(F, [1, 3], M13)], lambda tf, x: tf.unstack(x)[0]),
    "unstack_1x3_restack": ([(F, [1, 3], M13)], lambda tf, x: tf.stack(tf.unstack(x))),
    "unstack_1": ([(F, [1], [7.0])], lambda tf, x: tf.unstack(x)),
    "unstack_1_idx": ([(F, [1], [7.0])], lambda tf, x: tf.unstack(x)[0]),
    "unstack_1_num": ([(F, [None], [7.0])], lambda tf, x: tf.unstack(x, num=1)),
    "unstack_axis1_one": ([(F, [2, 1], [[1.0], [2.0]])], lambda tf, x: tf.unstack(x, axis=1)),
    "unstack_empty": ([(F, [0, 2], [])], lambda tf, x: tf.unstack(x)),
    "unstack_3xN": ([(F, [3, None], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])],
                    lambda tf, x: tf.unstack(x)),
    "unstack_3xN_stack": ([(F, [3, None], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])],
                          lambda tf, x: tf.stack([tf.unstack(x)[2], tf.unstack(x)[0]])),
    "unstack_axis_neg": ([(F, [None, 2, 4], [[[0.0] * 4] * 2])], lambda tf, x: tf.unstack(x, axis=-2)),
    "unstack_shape": ([(F, [None, 3], M23)], lambda tf, x: tf.unstack(tf.shape(x))),
    "unstack_num_unknown_rank": ([(F, None, M23)], lambda tf, x: tf.unstack(x, num=2)),
    "unstack_no_num_unknown_dim": ([(F, [None, 3], None)], lambda tf, x: tf.unstack(x)),
    "unstack_no_num_unknown_rank": ([(F, None, None)], lambda tf, x: tf.unstack(x)),
    "unstack_num_mismatch": ([(F, [3, 2], None)], lambda tf, x: tf.unstack(x, num=2)),
    "unstack_axis_out_of_range": ([(F, [None, 2, 4], None)], lambda tf, x: tf.unstack(x, axis=3)),
    # --- split: int and list (with -1), one piece, unknown dims, errors -----------------------------
    "split_int_one": ([(F, [2, 3], M23)], lambda tf, x: tf.split(x, 1)),
    "split_int_one_idx": ([(F, [2, 3], M23)], lambda tf, x: tf.split(x, 1)[0]),
    "split_list_one": ([(F, [2, 3], M23)], lambda tf, x: tf.split(x, [2])),
    "split_int_axis1": ([(F, [None, 6], M46)], lambda tf, x: tf.split(x, 3, axis=1)),
    "split_int_unknown_dim": ([(F, [None, 6], M46)], lambda tf, x: tf.split(x, 2, axis=0)),
    "split_int_unknown_rank": ([(F, None, M46)], lambda tf, x: tf.split(x, 2)),
    "split_list": ([(F, [None, 6], M46)], lambda tf, x: tf.split(x, [1, 2, 3], axis=1)),
    "split_list_neg": ([(F, [None, 6], M46)], lambda tf, x: tf.split(x, [1, -1, 3], axis=1)),
    "split_list_neg_unknown_dim": ([(F, [None, 6], M46)], lambda tf, x: tf.split(x, [1, -1, 2], axis=0)),
    "split_list_unknown_rank": ([(F, None, M46)], lambda tf, x: tf.split(x, [1, -1], axis=0)),
    "split_sizes_placeholder": ([(F, [None, 6], M46), (I, [3], [1, 2, 3])],
                                lambda tf, x, s: tf.split(x, s, axis=1)),
    "split_sizes_unknown_len": ([(F, [None, 6], None), (I, [None], None)],
                                lambda tf, x, s: tf.split(x, s, axis=1)),
    "split_sizes_unknown_len_num": ([(F, [None, 6], M46), (I, [None], [2, 4])],
                                    lambda tf, x, s: tf.split(x, s, axis=1, num=2)),
    "split_axis_placeholder": ([(F, [4, 6], M46), (I, [], 1)], lambda tf, x, a: tf.split(x, 2, axis=a)),
    "split_not_divisible": ([(F, [None, 7], None)], lambda tf, x: tf.split(x, 3, axis=1)),
    "split_zero": ([(F, [6], None)], lambda tf, x: tf.split(x, 0)),
    "split_scalar": ([(F, [], None)], lambda tf, x: tf.split(x, 1)),
    "split_list_scalar": ([(F, [], None)], lambda tf, x: tf.split(x, [1])),
    "split_axis_out_of_range": ([(F, [6], None)], lambda tf, x: tf.split(x, 2, axis=1)),
    "split_list_axis_out_of_range": ([(F, [6], None)], lambda tf, x: tf.split(x, [3, 3], axis=1)),
    "split_list_bad_sum": ([(F, [6], None)], lambda tf, x: tf.split(x, [1, 2])),
    "split_list_two_neg": ([(F, [6], None)], lambda tf, x: tf.split(x, [-1, -1])),
    "split_list_neg_too_big": ([(F, [6], None)], lambda tf, x: tf.split(x, [7, -1])),
    # --- other list ops ---------------------------------------------------------------------------
    "dynamic_partition_one": ([(F, [2, 3], M23)], lambda tf, x: tf.dynamic_partition(x, [0, 0], 1)),
    "dynamic_partition": ([(F, [None, 3], M23), (I, [None], [1, 0])],
                          lambda tf, x, p: tf.dynamic_partition(x, p, 3)),
    "dynamic_partition_2d": ([(F, [2, 3, 2], None), (I, [2, 3], None)],
                             lambda tf, x, p: tf.dynamic_partition(x, p, 2)),
    "dynamic_partition_unknown_rank": ([(F, None, None), (I, [None], None)],
                                       lambda tf, x, p: tf.dynamic_partition(x, p, 2)),
    "dynamic_partition_mismatch": ([(F, [3, 2], None), (I, [4], None)],
                                   lambda tf, x, p: tf.dynamic_partition(x, p, 2)),
    "shape_n_one": ([(F, [2, 3], M23)], lambda tf, x: tf.shape_n([x])),
    "identity_n_one": ([(F, [2, 3], M23)], lambda tf, x: tf.identity_n([x])),
    "meshgrid_one": ([(F, [3], [1.0, 2.0, 3.0])], lambda tf, x: tf.meshgrid(x)),
    "meshgrid_xy": ([(F, [None], [1.0, 2.0]), (F, [4], [1.0, 2.0, 3.0, 4.0])],
                    lambda tf, a, b: tf.meshgrid(a, b)),
    "meshgrid_ij": ([(F, [None], [1.0, 2.0]), (F, [4], [1.0, 2.0, 3.0, 4.0])],
                    lambda tf, a, b: tf.meshgrid(a, b, indexing="ij")),
    "meshgrid_3": ([(F, [2], None), (F, [3], None), (F, [None], None)], lambda tf, a, b, c: tf.meshgrid(a, b, c)),
    "unique": ([(I, [None], [3, 1, 3, 2])], lambda tf, x: tf.unique(x)),
    "unique_known": ([(I, [4], [3, 1, 3, 2])], lambda tf, x: tf.unique(x)),
    "unique_unknown_rank": ([(I, None, [3, 1, 3, 2])], lambda tf, x: tf.unique(x)),
    "unique_with_counts_unknown_rank": ([(I, None, [3, 1, 3, 2])], lambda tf, x: tf.unique_with_counts(x)),
    "unique_rank2": ([(I, [2, 2], None)], lambda tf, x: tf.unique(x)),
    "unique_squeeze": ([(I, [4], [1, 1, 1, 1])], lambda tf, x: tf.squeeze(tf.unique(x)[0])),
    "moments": ([(F, [None, 3], M23)], lambda tf, x: tf.nn.moments(x, [0])),
    "moments_keepdims": ([(F, [None, 3], M23)], lambda tf, x: tf.nn.moments(x, [0], keepdims=True)),
    "eigh": ([(F, [None, 2, 2], [[[2.0, 1.0], [1.0, 2.0]]])], lambda tf, x: tf.linalg.eigh(x)),
    "eigh_unknown": ([(F, [None, None], None)], lambda tf, x: tf.linalg.eigh(x)),
    "top_k": ([(F, [None, 5], [[1.0, 5.0, 2.0, 4.0, 3.0]])], lambda tf, x: tf.math.top_k(x, 2)),
    "top_k_k_placeholder": ([(F, [None, 5], [[1.0, 5.0, 2.0, 4.0, 3.0]]), (I, [], 2)],
                            lambda tf, x, k: tf.math.top_k(x, k)),
    "top_k_too_short": ([(F, [3, 1], None)], lambda tf, x: tf.math.top_k(x, 2)),
    # --- segment ops: the number of segments is a value ----------------------------------------------
    "segment_sum": ([(F, [None, 3], M43), (I, [None], [0, 0, 1, 1])], lambda tf, d, s: tf.math.segment_sum(d, s)),
    "segment_sum_const_ids": ([(F, [4, 3], M43)], lambda tf, d: tf.math.segment_sum(d, tf.constant([0, 0, 1, 1]))),
    "segment_mean_const_ids": ([(F, [4, 3], M43)], lambda tf, d: tf.math.segment_mean(d, [0, 0, 1, 1])),
    "segment_max_const_ids": ([(F, [4], [1.0, 2.0, 3.0, 4.0])], lambda tf, d: tf.math.segment_max(d, [0, 0, 1, 1])),
    "segment_min_const_ids": ([(F, [4], [1.0, 2.0, 3.0, 4.0])], lambda tf, d: tf.math.segment_min(d, [0, 0, 1, 1])),
    "segment_prod_const_ids": ([(F, [4], [1.0, 2.0, 3.0, 4.0])],
                               lambda tf, d: tf.math.segment_prod(d, [0, 0, 1, 1])),
    "segment_sum_squeeze": ([(F, [4], [1.0, 2.0, 3.0, 4.0])],
                            lambda tf, d: tf.squeeze(tf.math.segment_sum(d, [0, 0, 0, 0]))),
    "segment_sum_squeeze_axis0": ([(F, [2, 3], M23)],
                                  lambda tf, d: tf.squeeze(tf.math.segment_sum(d, [0, 0]), axis=0)),
    "segment_sum_length_mismatch": ([(F, [4, 3], None), (I, [3], None)], lambda tf, d, s: tf.math.segment_sum(d, s)),
    "segment_sum_scalar_data": ([(F, [], None), (I, [3], None)], lambda tf, d, s: tf.math.segment_sum(d, s)),
    "segment_sum_ids_rank2": ([(F, [4, 3], None)],
                              lambda tf, d: tf.math.segment_sum(d, tf.constant([[0, 0, 1]] * 4))),
    "segment_sum_unknown_rank": ([(F, None, None), (I, [4], None)], lambda tf, d, s: tf.math.segment_sum(d, s)),
    "unsorted_const_num": ([(F, [4, 3], M43)], lambda tf, d: tf.math.unsorted_segment_sum(d, [0, 0, 1, 1], 2)),
    "unsorted_placeholder_num": ([(F, [4, 3], M43), (I, [], 3)],
                                 lambda tf, d, n: tf.math.unsorted_segment_sum(d, [0, 0, 1, 1], n)),
    "unsorted_max_placeholder_num": ([(F, [4, 3], M43), (I, [], 3)],
                                     lambda tf, d, n: tf.math.unsorted_segment_max(d, [0, 0, 1, 1], n)),
    "unsorted_mean_placeholder_num": ([(F, [4, 3], M43), (I, [], 3)],
                                      lambda tf, d, n: tf.math.unsorted_segment_mean(d, [0, 0, 1, 1], n)),
    "unsorted_sqrt_n_placeholder_num": ([(F, [4, 3], M43), (I, [], 3)],
                                        lambda tf, d, n: tf.math.unsorted_segment_sqrt_n(d, [0, 0, 1, 1], n)),
    "unsorted_prefix_mismatch": ([(F, [4, 3], None), (I, [3], None)],
                                 lambda tf, d, s: tf.math.unsorted_segment_sum(d, s, 2)),
    "unsorted_ids_longer_rank": ([(F, [4], None), (I, [4, 3], None)],
                                 lambda tf, d, s: tf.math.unsorted_segment_sum(d, s, 2)),
    # --- other data-dependent sizes -------------------------------------------------------------------
    "where_const": ([(F, [4], None)], lambda tf, d: tf.where(tf.constant([True, False, True, True]))),
    "where_placeholder": ([(B, [4, 3], None)], lambda tf, c: tf.where(c)),
    "boolean_mask_const": ([(F, [4, 3], M43)], lambda tf, d: tf.boolean_mask(d, [True, False, True, True])),
    "boolean_mask_axis": ([(F, [4, 3, 2], None), (B, [3], None)], lambda tf, d, m: tf.boolean_mask(d, m, axis=1)),
    "gather_const": ([(F, [4, 3], M43)], lambda tf, d: tf.gather(d, [0, 2, 3])),
    "dynamic_stitch_const": ([(F, [2, 3], M23)], lambda tf, d: tf.dynamic_stitch([[0, 4]], [d])),
    "dynamic_stitch_placeholder": ([(I, [2], [1, 0]), (F, [2, 3], M23)],
                                   lambda tf, i, d: tf.dynamic_stitch([i], [d])),
    "repeat_vector_axis0": ([(F, [3, 2], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])],
                            lambda tf, x: tf.repeat(x, [1, 2, 0], axis=0)),
    "repeat_vector_axis1": ([(F, [3, 2], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])],
                            lambda tf, x: tf.repeat(x, [2, 3], axis=1)),
    "repeat_vector_unknown": ([(F, [None, 2], [[1.0, 2.0]])], lambda tf, x: tf.repeat(x, [2, 3], axis=1)),
    "repeat_scalar": ([(F, [3, 2], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])], lambda tf, x: tf.repeat(x, 2, axis=0)),
    "repeat_vector_placeholder": ([(F, [3, 2], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), (I, [3], [1, 0, 2])],
                                  lambda tf, x, r: tf.repeat(x, r, axis=0)),
}

# The gradient of sum_i (i + 1) * sum(outputs[i]) with respect to the first input, recorded eagerly,
# on a tape inside a tf.function, and checked for these cases (their first input is float and differentiable).
GRADIENT_CASES = [
    "unstack_1x3", "unstack_1x3_idx", "unstack_1x3_restack", "unstack_1", "unstack_axis1_one", "unstack_3xN",
    "unstack_3xN_stack", "split_int_one", "split_int_one_idx", "split_list_one", "split_list_neg",
    "split_int_axis1", "dynamic_partition_one", "dynamic_partition", "identity_n_one", "meshgrid_xy",
    "segment_sum", "segment_sum_squeeze_axis0", "unsorted_placeholder_num", "repeat_vector_axis0",
]


def feed_array(dtype, shape, feed):
    """The NumPy value of a case's feed (an empty feed takes the placeholder's shape, e.g. ``[0, 2]``)."""
    import numpy as np
    value = np.array(feed, dtype=dtype)
    return value.reshape(shape) if value.size == 0 else value


def flat_outputs(out):
    """``(kind, [tensors])``: ``kind`` is ``"tensor"`` or ``"list:N"`` / ``"tuple:N"`` (namedtuples are tuples)."""
    if isinstance(out, list):
        return f"list:{len(out)}", list(out)
    if isinstance(out, tuple):
        return f"tuple:{len(out)}", list(out)
    return "tensor", [out]


def error_head(exc):
    """An error's class and its message up to TF's node description (`` for '{{node``), which the engine
    does not copy (TF lists the NodeDef and the computed input tensors; the engine the op's name)."""
    message = str(exc)
    if message.startswith("in user code:"):   # TF's tf.function: the trace, then "ValueError: <message>"
        tail = [line.strip() for line in message.splitlines() if line.strip().startswith(type(exc).__name__ + ": ")]
        message = tail[-1][len(type(exc).__name__) + 2:] if tail else message
    message = message.split(" for '{{node", 1)[0]
    message = message.split("\n", 1)[0].strip()
    if "}} " in message and message.startswith("{{function_node"):
        message = message.split("}} ", 1)[1]
    if " [Op:" in message:
        message = message.split(" [Op:", 1)[0]
    return [type(exc).__name__, message]


def weighted_sum(tf, out):
    _, tensors = flat_outputs(out)
    total = None
    for i, t in enumerate(tensors):
        term = tf.reduce_sum(tf.cast(t, tf.float32)) * float(i + 1)
        total = term if total is None else total + term
    return total
