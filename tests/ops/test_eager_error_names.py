"""How TF 2.21's eager op errors end: ``"... [Op:MatMul] name: "`` (the op wrapper's name argument).

Each case triggers one op's error eagerly; ``TF_ENDINGS`` is the text after ``[Op:...]`` that TF 2.21
printed for it (recorded with the same calls: ``""`` where TF adds no name, as for ``tf.reshape``).
The rule lives in each op's row (``OpDef.eager_error_name``), applied once, in ``framework/errors.py``.
"""
import pytest

import engine as tf


def _cases():
    o2, o3 = tf.ones([2]), tf.ones([3])
    m = tf.ones([2, 3])
    cases = {
     "AddV2": lambda: o2 + o3, "Sub": lambda: o2 - o3, "Mul": lambda: o2 * o3, "RealDiv": lambda: o2 / o3,
     "Maximum": lambda: tf.maximum(o2, o3), "Minimum": lambda: tf.minimum(o2, o3), "Pow": lambda: o2 ** o3,
     "SquaredDifference": lambda: tf.math.squared_difference(o2, o3), "FloorDiv": lambda: o2 // o3,
     "FloorMod": lambda: o2 % o3, "Equal": lambda: tf.equal(o2, o3), "Less": lambda: o2 < o3,
     "LogicalAnd": lambda: tf.logical_and([True, False], [True, False, True]),
     "MatMul": lambda: tf.matmul(m, m), "BatchMatMulV2": lambda: tf.matmul(tf.ones([2,2,3]), tf.ones([2,2,3])),
     "Cast": lambda: tf.cast(tf.constant("a"), tf.int32), "ConcatV2": lambda: tf.concat([o2, m], 0),
     "Pack": lambda: tf.stack([o2, o3]), "Reshape": lambda: tf.reshape(o2, [3]), "Transpose": lambda: tf.transpose(o2, [1, 0]),
     "Tile": lambda: tf.tile(o2, [1, 2]), "Slice": lambda: tf.slice(o2, [0], [5]),
     "StridedSlice": lambda: o2[5], "GatherV2": lambda: tf.gather(o2, 5), "Sum": lambda: tf.reduce_sum(o2, 3),
     "Mean": lambda: tf.reduce_mean(o2, 3), "Max": lambda: tf.reduce_max(o2, 3), "ArgMax": lambda: tf.argmax(o2, 3),
     "Softmax": lambda: tf.nn.softmax(tf.constant(1.0)), "BiasAdd": lambda: tf.nn.bias_add(m, o2),
     "Squeeze": lambda: tf.squeeze(m, 0), "ExpandDims": lambda: tf.expand_dims(o2, 5), "Fill": lambda: tf.fill([-1], 1.0),
     "OneHot": lambda: tf.one_hot([1], -2), "Range": lambda: tf.range(0, 10, 0), "Unpack": lambda: tf.unstack(m, num=5),
     "SplitV": lambda: tf.split(o3, [1, 1]), "Split": lambda: tf.split(o3, 2),
     "Relu": lambda: tf.nn.relu(tf.constant([True])), "Exp": lambda: tf.exp(tf.constant([1])),
     "Sqrt": lambda: tf.sqrt(tf.constant([1])), "Neg": lambda: -tf.constant(["a"]),
     "Abs": lambda: tf.abs(tf.constant(["a"])), "Log": lambda: tf.math.log(tf.constant([1])),
     "Tanh": lambda: tf.tanh(tf.constant([1])), "Sigmoid": lambda: tf.sigmoid(tf.constant([1])),
     "SparseSoftmaxCrossEntropyWithLogits": lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[5], logits=[[1.0, 2.0]]),
     "Select": lambda: tf.where([True, False], o3, o3), "Einsum": lambda: tf.einsum("ij,jk->ik", m, m),
     "Conv2D": lambda: tf.nn.conv2d(tf.ones([1,2,2,1]), tf.ones([3,3,2,1]), 1, "VALID"),
     "ResourceGather": lambda: tf.Variable([1.0]).sparse_read(5), "AssignAddVariableOp": lambda: tf.Variable([1.0]).assign_add([1.0, 2.0]),
     "ReadVariableOp": None, "Cumsum": lambda: tf.cumsum(o2, 3), "TopKV2": lambda: tf.math.top_k(o2, 5),
     "Diag": None, "IteratorGetNext": lambda: next(iter(tf.data.TextLineDataset("missing.csv"))),
     "ScatterNd": lambda: tf.scatter_nd([[5]], [1.0], [2]), "TensorScatterUpdate": lambda: tf.tensor_scatter_nd_update(o2, [[5]], [1.0]),
     "Pad": lambda: tf.pad(o2, [[1, 1], [1, 1]]), "Reverse": lambda: tf.reverse(o2, [3]),
     "MatrixInverse": lambda: tf.linalg.inv(m), "Cholesky": lambda: tf.linalg.cholesky(m),
     "DynamicStitch": None, "Where": None, "ClipByValue": lambda: tf.clip_by_value(o2, o3, 1.0),
     "BroadcastTo": lambda: tf.broadcast_to(o3, [2]), "StringToNumber": lambda: tf.strings.to_number("abc"),
    }
    return {k: f for k, f in cases.items() if f is not None}


# Recorded from TF 2.21 (CPU): what follows "]" at the end of the message (None: no [Op:...] in it).
TF_ENDINGS = {
    "Abs": " name: ",
    "AddV2": " name: ",
    "ArgMax": " name: ",
    "AssignAddVariableOp": " name: ",
    "BatchMatMulV2": " name: ",
    "BiasAdd": " name: ",
    "BroadcastTo": "",
    "Cast": " name: ",
    "Cholesky": " name: ",
    "ClipByValue": " name: ",
    "ConcatV2": " name: concat",
    "Conv2D": " name: ",
    "Cumsum": " name: ",
    "Einsum": " name: ",
    "Equal": " name: ",
    "Exp": " name: ",
    "ExpandDims": " name: ",
    "Fill": "",
    "FloorDiv": " name: ",
    "FloorMod": " name: ",
    "GatherV2": " name: ",
    "IteratorGetNext": " name: ",
    "Less": " name: ",
    "Log": " name: ",
    "LogicalAnd": "",
    "MatMul": " name: ",
    "MatrixInverse": " name: ",
    "Max": " name: ",
    "Maximum": " name: ",
    "Mean": " name: ",
    "Minimum": " name: ",
    "Mul": " name: ",
    "Neg": " name: ",
    "OneHot": "",
    "Pack": " name: stack",
    "Pad": "",
    "Pow": " name: ",
    "Range": " name: ",
    "RealDiv": " name: ",
    "Relu": " name: ",
    "Reshape": "",
    "ResourceGather": " name: ",
    "Reverse": "",
    "ScatterNd": "",
    "Select": "",
    "Sigmoid": " name: ",
    "Slice": "",
    "Softmax": " name: ",
    "SparseSoftmaxCrossEntropyWithLogits": " name: ",
    "Split": " name: split",
    "SplitV": " name: split",
    "Sqrt": " name: ",
    "SquaredDifference": " name: ",
    "Squeeze": " name: ",
    "StridedSlice": " name: strided_slice/",
    "StringToNumber": "",
    "Sub": " name: ",
    "Sum": " name: ",
    "Tanh": " name: ",
    "TensorScatterUpdate": "",
    "Tile": "",
    "TopKV2": " name: ",
    "Transpose": "",
    "Unpack": " name: unstack"
}


@pytest.mark.parametrize("op", sorted(TF_ENDINGS))
def test_eager_error_ends_as_tf(op):
    call = _cases()[op]
    with pytest.raises(Exception) as info:
        call()
    message = str(info.value)
    assert f"[Op:" in message, message
    assert message.rsplit("]", 1)[-1] == TF_ENDINGS[op], message


def test_graph_errors_and_function_calls_get_no_name():
    @tf.function
    def double(x):
        return x + x
    double.get_concrete_function(tf.TensorSpec([], tf.string))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        double.get_concrete_function(tf.TensorSpec([], tf.string))(tf.constant(1))
    assert str(info.value).endswith("]"), str(info.value)   # [Op:__inference_double_N], as TF
