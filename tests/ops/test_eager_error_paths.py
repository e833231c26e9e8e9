"""How an eager op's error ends depends on how its inputs came, as in TF 2.21.

TF's generated op wrappers take a fast path in C++ that converts Python numbers and NumPy arrays
itself; given a Python list, tuple or string for an input, they fall back to a slow Python path.
The errors of the two paths end differently: ``... [Op:GatherV2] name: `` (fast) and
``... [Op:GatherV2]`` (slow). Public functions that convert their arguments before the op
(``tf.add``, ``tf.matmul``, ``x / y``, reflected operators, ``tf.zeros``, ``tf.split``...) hand
their op tensors. (See "TF's two eager paths" in ``engine/framework/tensor.py``.)

Each case: a call and how TF 2.21's error ends ("OK": it raises nothing), recorded from TF 2.21
(``tensorflow-cpu`` in a scratch venv, each expression evaluated with the names below).
"""
import numpy as np
import pytest

import engine as tf

x = tf.constant([0.0, 1.0])
y = tf.constant([1.0, 2.0, 3.0])
i = tf.constant([1, 2])
L3 = [1.0, 2.0, 3.0]

# (expression, TF 2.21's error class and the end of its message from "[Op:")
TF_2_21 = [
    ('tf.add(x, L3)', 'InvalidArgumentError [Op:AddV2] name: '),
    ('x + L3', 'InvalidArgumentError [Op:AddV2] name: '),
    ('L3 + x', 'InvalidArgumentError [Op:AddV2] name: '),
    ('tf.subtract(x, L3)', 'InvalidArgumentError [Op:Sub]'),
    ('x - L3', 'InvalidArgumentError [Op:Sub]'),
    ('L3 - x', 'InvalidArgumentError [Op:Sub] name: '),
    ('tf.multiply(x, L3)', 'InvalidArgumentError [Op:Mul]'),
    ('x * L3', 'InvalidArgumentError [Op:Mul]'),
    ('L3 * x', 'InvalidArgumentError [Op:Mul] name: '),
    ('tf.divide(x, L3)', 'InvalidArgumentError [Op:RealDiv] name: '),
    ('x / L3', 'InvalidArgumentError [Op:RealDiv] name: '),
    ('L3 / x', 'InvalidArgumentError [Op:RealDiv] name: '),
    ('tf.math.floordiv(x, L3)', 'InvalidArgumentError [Op:FloorDiv]'),
    ('x // L3', 'InvalidArgumentError [Op:FloorDiv]'),
    ('x % L3', 'InvalidArgumentError [Op:FloorMod]'),
    ('tf.maximum(x, L3)', 'InvalidArgumentError [Op:Maximum]'),
    ('tf.minimum(L3, x)', 'InvalidArgumentError [Op:Minimum]'),
    ('tf.pow(x, L3)', 'InvalidArgumentError [Op:Pow]'),
    ('x ** L3', 'InvalidArgumentError [Op:Pow]'),
    ('x < L3', 'InvalidArgumentError [Op:Less]'),
    ('tf.less(x, L3)', 'InvalidArgumentError [Op:Less]'),
    ('tf.equal(x, L3)', 'InvalidArgumentError [Op:Equal]'),
    ('tf.not_equal(x, L3)', 'InvalidArgumentError [Op:NotEqual]'),
    ('tf.math.squared_difference(x, L3)', 'InvalidArgumentError [Op:SquaredDifference]'),
    ('tf.matmul(x, [[1.0]])', 'InvalidArgumentError [Op:MatMul] name: '),
    ('tf.matmul([[1.0]], [[1.0, 2.0]], transpose_b=True)', 'InvalidArgumentError [Op:MatMul] name: '),
    ('x @ [[1.0]]', 'InvalidArgumentError [Op:MatMul] name: '),
    ('tf.gather(x, [5])', 'InvalidArgumentError [Op:GatherV2]'),
    ('tf.gather(x, tf.constant([5]))', 'InvalidArgumentError [Op:GatherV2] name: '),
    ('tf.gather([0.0], tf.constant([1]))', 'InvalidArgumentError [Op:GatherV2]'),
    ('tf.gather(x, 5)', 'InvalidArgumentError [Op:GatherV2] name: '),
    ('tf.reshape(x, [3])', 'InvalidArgumentError [Op:Reshape]'),
    ('tf.reshape(x, tf.constant([3]))', 'InvalidArgumentError [Op:Reshape] name: '),
    ('tf.reshape([1.0, 2.0], [3])', 'InvalidArgumentError [Op:Reshape]'),
    ('tf.reshape([1.0, 2.0], tf.constant([3]))', 'InvalidArgumentError [Op:Reshape]'),
    ('tf.transpose(x, [1, 0])', 'InvalidArgumentError [Op:Transpose]'),
    ('tf.transpose(x, tf.constant([1, 0]))', 'InvalidArgumentError [Op:Transpose] name: '),
    ('tf.tile(x, [1, 2])', 'InvalidArgumentError [Op:Tile]'),
    ('tf.tile(x, tf.constant([1, 2]))', 'InvalidArgumentError [Op:Tile] name: '),
    ('tf.fill([2, -1], 1.0)', 'InvalidArgumentError [Op:Fill]'),
    ('tf.fill(tf.constant([2, -1]), 1.0)', 'InvalidArgumentError [Op:Fill] name: '),
    ('tf.broadcast_to(x, [3])', 'InvalidArgumentError [Op:BroadcastTo]'),
    ('tf.broadcast_to(x, tf.constant([3]))', 'InvalidArgumentError [Op:BroadcastTo] name: '),
    ('tf.pad(x, [[1, 1], [1, 1]])', 'InvalidArgumentError [Op:Pad]'),
    ('tf.pad(x, tf.constant([[1, 1], [1, 1]]))', 'InvalidArgumentError [Op:Pad] name: '),
    ('tf.slice(x, [0], [5])', 'InvalidArgumentError [Op:Slice]'),
    ('tf.slice(x, tf.constant([0]), tf.constant([5]))', 'InvalidArgumentError [Op:Slice] name: '),
    ('tf.reverse(x, [3])', 'InvalidArgumentError [Op:ReverseV2]'),
    ('tf.reverse(x, tf.constant([3]))', 'InvalidArgumentError [Op:ReverseV2] name: '),
    ('tf.one_hot([1], -5)', 'InvalidArgumentError [Op:OneHot]'),
    ('tf.one_hot(tf.constant([1]), -5)', 'InvalidArgumentError [Op:OneHot] name: '),
    ('tf.where([True], x, y)', 'InvalidArgumentError [Op:SelectV2]'),
    ('tf.where(tf.constant([True]), x, y)', 'InvalidArgumentError [Op:SelectV2] name: '),
    ('tf.scatter_nd([[5]], [1.0], [2])', 'InvalidArgumentError [Op:ScatterNd]'),
    ('tf.scatter_nd(tf.constant([[5]]), tf.constant([1.0]), tf.constant([2]))', 'InvalidArgumentError [Op:ScatterNd] name: '),
    ('tf.tensor_scatter_nd_update(x, [[5]], [1.0])', 'InvalidArgumentError [Op:TensorScatterUpdate]'),
    ('tf.tensor_scatter_nd_update(x, tf.constant([[5]]), tf.constant([1.0]))', 'InvalidArgumentError [Op:TensorScatterUpdate] name: '),
    ('tf.reduce_sum(x, axis=[3])', 'InvalidArgumentError [Op:Sum]'),
    ('tf.reduce_sum(x, axis=3)', 'InvalidArgumentError [Op:Sum] name: '),
    ('tf.reduce_max(x, [3])', 'InvalidArgumentError [Op:Max]'),
    ('tf.reduce_mean(x, [3])', 'InvalidArgumentError [Op:Mean]'),
    ('tf.reduce_sum([1.0, 2.0], axis=3)', 'InvalidArgumentError [Op:Sum]'),
    ('tf.math.segment_sum(x, [1, 0])', 'InvalidArgumentError [Op:SegmentSum]'),
    ('tf.math.segment_sum(x, tf.constant([1, 0]))', 'InvalidArgumentError [Op:SegmentSum] name: '),
    ('tf.math.unsorted_segment_sum(x, [0, 5], 2)', 'InvalidArgumentError [Op:UnsortedSegmentSum]'),
    ('tf.concat([x, tf.constant([[1.0]])], 0)', 'InvalidArgumentError [Op:ConcatV2] name: concat'),
    ('tf.concat([[1.0], [[1.0]]], 0)', 'InvalidArgumentError [Op:ConcatV2]'),
    ('tf.stack([x, y])', 'InvalidArgumentError [Op:Pack] name: stack'),
    ('tf.split(x, 3)', 'InvalidArgumentError [Op:Split] name: split'),
    ('tf.squeeze(x, [3])', 'InvalidArgumentError [Op:Squeeze] name: '),
    ('tf.expand_dims(x, 5)', 'InvalidArgumentError [Op:ExpandDims] name: '),
    ('tf.expand_dims([1.0], 5)', 'InvalidArgumentError [Op:ExpandDims]'),
    ('tf.gather_nd(x, [[5]])', 'InvalidArgumentError [Op:GatherNd]'),
    ('tf.gather_nd(x, tf.constant([[5]]))', 'InvalidArgumentError [Op:GatherNd] name: '),
    ('tf.math.exp([1, 2])', 'InvalidArgumentError [Op:Exp]'),
    ('tf.math.exp(tf.constant([1, 2]))', 'InvalidArgumentError [Op:Exp] name: '),
    ("tf.nn.relu(tf.constant(['a']))", 'InvalidArgumentError [Op:Relu] name: '),
    ("tf.nn.relu(['a'])", 'InvalidArgumentError [Op:Relu]'),
    ("tf.abs(['a'])", 'InvalidArgumentError [Op:Abs] name: '),
    ('tf.math.log(i)', 'InvalidArgumentError [Op:Log] name: '),
    ('tf.math.log([1, 2])', 'InvalidArgumentError [Op:Log]'),
    ('tf.cast(x, tf.int32) // tf.constant([0, 0])', 'InvalidArgumentError [Op:FloorDiv] name: '),
    ('tf.range(0, 5, 0)', 'InvalidArgumentError [Op:Range] name: '),
    ('tf.argmax(x, 3)', 'InvalidArgumentError [Op:ArgMax] name: '),
    ('tf.cumsum(x, 4)', 'InvalidArgumentError [Op:Cumsum] name: '),
    ('tf.cumsum([1.0], 4)', 'InvalidArgumentError [Op:Cumsum] name: '),
    ("tf.strings.to_number('abc')", 'InvalidArgumentError [Op:StringToNumber]'),
    ("tf.strings.to_number(tf.constant('abc'))", 'InvalidArgumentError [Op:StringToNumber] name: '),
    ("tf.strings.to_number(['abc'])", 'InvalidArgumentError [Op:StringToNumber]'),
    ('tf.logical_and([True], [True, False, True])', 'OK'),
    ('tf.logical_and(tf.constant([True]), tf.constant([True, False, True]))', 'OK'),
    ('tf.math.logical_or([True, False], [True, False, True])', 'InvalidArgumentError [Op:LogicalOr]'),
    ('tf.nn.softmax([1, 2])', 'InvalidArgumentError [Op:Softmax] name: '),
    ('tf.nn.bias_add(x, [1.0, 2.0, 3.0])', 'InvalidArgumentError [Op:BiasAdd]'),
    ('tf.math.cumprod(x, 4)', 'InvalidArgumentError [Op:Cumprod] name: '),
    ('tf.math.bincount([-1])', 'InvalidArgumentError [Op:DenseBincount] name: '),
    ('tf.size(x, out_type=tf.float32)', 'OK'),
    ('tf.zeros([-1])', 'InvalidArgumentError [Op:Fill] name: '),
    ('tf.ones([2, -1])', 'InvalidArgumentError [Op:Fill] name: '),
    ('tf.random.uniform([-1])', 'InvalidArgumentError [Op:RandomUniform] name: '),
    ('tf.sort([[1.0]], axis=5)', 'InvalidArgumentError [Op:StridedSlice] name: strided_slice/'),
    ('tf.math.top_k([1.0], 5)', 'InvalidArgumentError [Op:TopKV2]'),
    ('tf.math.top_k(tf.constant([1.0]), 5)', 'InvalidArgumentError [Op:TopKV2] name: '),
    ('tf.clip_by_value(x, [1.0, 2.0, 3.0], 5.0)', 'InvalidArgumentError [Op:Maximum]'),
    ('tf.math.reduce_prod(x, [3])', 'InvalidArgumentError [Op:Prod]'),
    ('tf.math.reduce_all([True], [3])', 'InvalidArgumentError [Op:All]'),
]


def _outcome(expression):
    try:
        eval(expression, {"tf": tf, "np": np, "x": x, "y": y, "i": i, "L3": L3})
    except Exception as exc:  # noqa: BLE001
        message = str(exc)
        at = message.rfind("[Op:")
        return type(exc).__name__ + " " + (message[at:] if at >= 0 else "<no [Op:]>")
    return "OK"


@pytest.mark.parametrize("expression, expected", TF_2_21, ids=[e for e, _ in TF_2_21])
def test_the_error_ends_as_tfs(expression, expected):
    assert _outcome(expression) == expected


def test_a_tensor_the_user_converted_is_a_tensor():
    """``tf.convert_to_tensor`` is the user's conversion: the op sees a tensor (TF: the fast path)."""
    indices = tf.convert_to_tensor([5])
    assert _outcome_of(lambda: tf.gather(x, indices)).endswith("[Op:GatherV2] name: ")
    assert _outcome_of(lambda: tf.gather(x, [5])).endswith("[Op:GatherV2]")


def test_a_shared_cached_shape_tensor_follows_each_call():
    """Shape and axis tensors made from lists are cached and shared: each call says how it came."""
    assert _outcome_of(lambda: tf.reshape(x, [3])).endswith("[Op:Reshape]")
    assert _outcome_of(lambda: tf.zeros([-1])).endswith("[Op:Fill] name: ")
    assert _outcome_of(lambda: tf.fill([-1], 1.0)).endswith("[Op:Fill]")
    assert _outcome_of(lambda: tf.reduce_sum(x, [3])).endswith("[Op:Sum]")
    assert _outcome_of(lambda: tf.reduce_sum(x, 3)).endswith("[Op:Sum] name: ")
    for _ in range(300):   # more conversions from Python lists than the engine remembers
        tf.reshape(x, [2])
    assert _outcome_of(lambda: tf.reshape(x, [3])).endswith("[Op:Reshape]")


def _outcome_of(call):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        call()
    return str(info.value)
