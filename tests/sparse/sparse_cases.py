"""The tf.sparse cases both the TF recorder (``record_sparse_goldens.py``) and the tests evaluate.

Each case is an expression over ``tf``, ``np`` and ``ST`` (a fixed 3x4 SparseTensor), ``A``/``B``
(2x2 float ones); :func:`describe` turns the result (tensor, SparseTensor, spec, text) or the
error it raises into JSON. No TensorFlow is imported here.
"""

SETUP = '''
ST = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
A = tf.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
B = tf.SparseTensor([[0, 1], [1, 1]], [10.0, 20.0], [2, 2])
'''

CASES = {
    "repr": "repr(ST)",
    "str": "str(ST)",
    "shape": "repr(ST.shape)",
    "dtype": "repr(ST.dtype)",
    "spec": "repr(ST._type_spec)",
    "spec_ctor": "repr(tf.SparseTensorSpec([3, None], tf.int32))",
    "spec_components": "repr(tf.SparseTensorSpec([3, 4], tf.int32)._component_specs)",
    "indices_dtype": "ST.indices",
    "dense_shape": "ST.dense_shape",
    "to_dense": "tf.sparse.to_dense(ST)",
    "to_dense_default": "tf.sparse.to_dense(ST, default_value=-1)",
    "to_dense_strings": 'tf.sparse.to_dense(tf.SparseTensor([[1]], ["x"], [3]))',
    "to_dense_out_of_bounds": "tf.sparse.to_dense(tf.SparseTensor([[5, 0]], [1], [3, 3]))",
    "to_dense_out_of_order": "tf.sparse.to_dense(tf.SparseTensor([[1, 0], [0, 1]], [1, 2], [2, 2]))",
    "to_dense_repeated": "tf.sparse.to_dense(tf.SparseTensor([[1, 0], [1, 0]], [1, 2], [2, 2]))",
    "to_dense_3d": "tf.sparse.to_dense(tf.SparseTensor([[0, 1, 1], [1, 0, 2]], [1.5, 2.5], [2, 2, 3]))",
    "ctor_length_error": "tf.SparseTensor([[0, 0]], [1, 2], [3, 3])",
    "ctor_rank_error": "tf.SparseTensor([[0, 0]], [1], [3])",
    "from_dense": "tf.sparse.from_dense(tf.constant([[0, 3], [4, 0]]))",
    "from_dense_float": "tf.sparse.from_dense(tf.constant([[0.0, 0.5, 0.0], [0.0, 0.0, -2.0]]))",
    "reorder": "tf.sparse.reorder(tf.SparseTensor([[1, 0], [0, 1], [0, 0]], [1, 2, 3], [2, 2]))",
    "add_sparse": "tf.sparse.add(A, B)",
    "add_sparse_threshold": "tf.sparse.add(A, tf.SparseTensor([[0, 1]], [-0.5], [2, 2]), threshold=0.6)",
    "add_dense": "tf.sparse.add(A, tf.ones([2, 2]))",
    "add_dense_left": "tf.sparse.add(tf.ones([2, 2]), A)",
    "add_shape_error": "tf.sparse.add(A, tf.SparseTensor([[0, 1]], [1.0], [3, 2]))",
    "matmul": "tf.sparse.sparse_dense_matmul(A, tf.constant([[1.0, 2.0], [3.0, 4.0]]))",
    "matmul_adjoint_a": "tf.sparse.sparse_dense_matmul(A, tf.constant([[1.0, 2.0], [3.0, 4.0]]), adjoint_a=True)",
    "matmul_adjoint_b": "tf.sparse.sparse_dense_matmul(A, tf.constant([[1.0, 2.0], [3.0, 4.0]]), adjoint_b=True)",
    "matmul_rect": "tf.sparse.sparse_dense_matmul(tf.SparseTensor([[0, 2], [1, 0]], [2.0, 3.0], [2, 3]), tf.reshape(tf.range(6.0), [3, 2]))",
    "matmul_dense_sparse": "tf.sparse.sparse_dense_matmul(tf.constant([[1.0, 2.0], [3.0, 4.0]]), A)",
    "matmul_inner_error": "tf.sparse.sparse_dense_matmul(A, tf.ones([3, 2]))",
    "reduce_sum_all": "tf.sparse.reduce_sum(ST)",
    "reduce_sum_axis0": "tf.sparse.reduce_sum(ST, axis=0)",
    "reduce_sum_axis1_keepdims": "tf.sparse.reduce_sum(ST, axis=1, keepdims=True)",
    "reduce_sum_neg_axis": "tf.sparse.reduce_sum(ST, axis=-1)",
    "reduce_sum_sparse_out": "tf.sparse.reduce_sum(ST, axis=1, output_is_sparse=True)",
    "reduce_sum_axes_list": "tf.sparse.reduce_sum(tf.SparseTensor([[0, 1, 1], [1, 0, 2]], [1.5, 2.5], [2, 2, 3]), axis=[0, 2])",
    "reduce_max_axis1": "tf.sparse.reduce_max(tf.SparseTensor([[0, 0], [1, 2]], [1, -2], [3, 4]), axis=1)",
    "reduce_max_all": "tf.sparse.reduce_max(tf.SparseTensor([[0, 0], [1, 2]], [1, -2], [3, 4]))",
    "reduce_max_keepdims": "tf.sparse.reduce_max(tf.SparseTensor([[0, 0], [1, 2]], [1, -2], [3, 4]), axis=0, keepdims=True)",
    "reduce_max_negative_row": "tf.sparse.reduce_max(tf.SparseTensor([[0, 0]], [-1.5], [2, 2]), axis=1)",
    "reduce_max_sparse_out": "tf.sparse.reduce_max(ST, axis=1, output_is_sparse=True)",
    "reduce_max_no_gradient": "grad_of(lambda v: tf.reduce_sum(tf.sparse.reduce_max(tf.SparseTensor([[0, 0], [1, 2]], v, [3, 4]), axis=1)), [1.0, 2.0])",
    "slice": "tf.sparse.slice(tf.SparseTensor([[0, 0], [1, 2]], [1, -2], [3, 4]), [0, 1], [2, 3])",
    "slice_past_end": "tf.sparse.slice(ST, [1, 2], [5, 5])",
    "concat_axis1": "tf.sparse.concat(1, [ST, ST])",
    "concat_axis0": "tf.sparse.concat(0, [ST, ST])",
    "concat_expand": "tf.sparse.concat(1, [ST, tf.SparseTensor([[4, 0]], [9], [5, 1])], expand_nonconcat_dims=True)",
    "transpose": "tf.sparse.transpose(tf.SparseTensor([[0, 0], [1, 2]], [1, -2], [3, 4]))",
    "transpose_perm": "tf.sparse.transpose(tf.SparseTensor([[0, 1, 2], [1, 0, 0]], [1, 2], [2, 3, 4]), perm=[2, 0, 1])",
    "map_values_two": "tf.sparse.map_values(tf.math.multiply, ST, ST)",
    "map_values_ones": "tf.sparse.map_values(tf.ones_like, ST)",
    "map_values_scalar": "tf.sparse.map_values(tf.add, ST, 10)",
    "grad_slice": "grad_of(lambda v: tf.reduce_sum(tf.sparse.slice(tf.SparseTensor([[0, 0], [1, 2], [2, 3]], v, [3, 4]), [1, 0], [2, 4]).values * tf.constant([2.0, 3.0])), [1.0, 2.0, 3.0])",
    "grad_concat": "grad_of(lambda v: tf.reduce_sum(tf.sparse.to_dense(tf.sparse.concat(1, [tf.SparseTensor([[0, 0], [1, 1]], v, [2, 2]), A])) * tf.reshape(tf.range(8.0), [2, 4])), [1.0, 2.0])",
    "grad_transpose": "grad_of(lambda v: tf.reduce_sum(tf.sparse.to_dense(tf.sparse.transpose(tf.SparseTensor([[0, 1], [1, 0]], v, [2, 3]))) * tf.reshape(tf.range(6.0), [3, 2])), [1.0, 2.0])",
    "grad_to_dense": "grad_of(lambda v: tf.reduce_sum(tf.sparse.to_dense(tf.SparseTensor([[0, 0], [1, 2]], v, [3, 4])) * tf.reshape(tf.range(12.0), [3, 4])), [1.0, 2.0])",
    "grad_reduce_sum": "grad_of(lambda v: tf.reduce_sum(tf.sparse.reduce_sum(tf.SparseTensor([[0, 0], [1, 2], [2, 1]], v, [3, 4]), axis=1) * tf.constant([1.0, 2.0, 3.0])), [1.0, 2.0, 3.0])",
    "grad_matmul_values": "grad_of(lambda v: tf.reduce_sum(tf.sparse.sparse_dense_matmul(tf.SparseTensor([[0, 1], [1, 0]], v, [2, 2]), tf.constant([[1.0, 2.0], [3.0, 4.0]]))), [1.0, 2.0])",
    "grad_matmul_dense": "grad_of(lambda b: tf.reduce_sum(tf.sparse.sparse_dense_matmul(A, b) * tf.constant([[1.0, 2.0], [3.0, 4.0]])), [[1.0, 2.0], [3.0, 4.0]])",
    "grad_add_values": "grad_of(lambda v: tf.reduce_sum(tf.sparse.to_dense(tf.sparse.add(tf.SparseTensor([[0, 1], [1, 0]], v, [2, 2]), B)) * tf.constant([[1.0, 2.0], [3.0, 4.0]])), [1.0, 2.0])",
    "grad_reorder": "grad_of(lambda v: tf.reduce_sum(tf.sparse.reorder(tf.SparseTensor([[1, 0], [0, 1], [0, 0]], v, [2, 2])).values * tf.constant([1.0, 2.0, 3.0])), [1.0, 2.0, 3.0])",
    "grad_from_dense": "grad_of(lambda x: tf.reduce_sum(tf.sparse.from_dense(x).values * 3.0), [[0.0, 2.0], [5.0, 0.0]])",
    "function_to_dense": "tf.function(lambda s: tf.sparse.to_dense(s) * 2)(ST)",
    "function_returns_sparse": "tf.function(lambda s: tf.sparse.reorder(s))(tf.SparseTensor([[1, 0], [0, 1]], [1, 2], [2, 2]))",
}


def grad_of(f, x, tf):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def describe(thunk):
    try:
        result = thunk()
    except Exception as error:  # noqa: BLE001
        return {"error": type(error).__name__, "message": str(error)}
    return describe_value(result)


def describe_value(result):
    if result is None:
        return {"python": "None"}
    if isinstance(result, str):
        return {"python": result}
    if hasattr(result, "indices") and hasattr(result, "dense_shape"):
        return {"sparse": True, "dtype": result.dtype.name, "indices": repr(result.indices.numpy().tolist()),
                "values": repr(result.values.numpy().tolist()), "dense_shape": repr(result.dense_shape.numpy().tolist()),
                "indices_dtype": result.indices.dtype.name, "shape": repr(result.shape)}
    value = result.numpy()
    return {"dtype": result.dtype.name, "shape": list(result.shape),
            "value": repr(value.tolist() if hasattr(value, "tolist") else value), "str": str(result)}


def namespace(tf, np):
    ns = {"tf": tf, "np": np, "grad_of": lambda f, x: grad_of(f, x, tf)}
    exec(SETUP, ns)  # noqa: S102
    return ns
