"""Shape functions of the array and slicing ops on partial shapes (graph mode and tracing reuse them).

``infer(op, inputs...)`` runs an op's registered shape function directly, with
inputs that have a (possibly partial) shape, a dtype and optionally a value known
at build time, exactly as graph construction calls it.
"""
import numpy as np
import pytest

import engine as tf
from engine.framework.registry import InferenceContext, get_op
from engine.framework.tensor_shape import TensorShape


class _Input:
    def __init__(self, shape, dtype=tf.float32, value=None):
        self.shape = TensorShape(shape)
        self.dtype = dtype
        self.value = None if value is None else np.asarray(value)


def const(value, dtype=tf.int32):
    value = np.asarray(value)
    return _Input(value.shape, dtype, value)


def ints(shape):
    """An int32 input of known shape but unknown value."""
    return _Input(shape, tf.int32)


def infer(op_name, *inputs, **attrs):
    ic = InferenceContext(op_name, list(inputs), attrs, lambda t: t.value)
    return [(d, s.as_list() if s.rank is not None else None) for d, s in get_op(op_name).infer(ic)]


def shapes(op_name, *inputs, **attrs):
    return [s for _, s in infer(op_name, *inputs, **attrs)]


F = tf.float32


def test_reshape_infer():
    assert shapes("Reshape", _Input([None, 4]), const([-1, 2])) == [[None, 2]]
    assert shapes("Reshape", _Input([3, 4]), const([-1, 2])) == [[6, 2]]
    assert shapes("Reshape", _Input([3, 4]), ints([3])) == [[None, None, None]]
    assert shapes("Reshape", _Input(None), ints([None])) == [None]
    with pytest.raises(ValueError, match="Reshape"):
        infer("Reshape", _Input([3, 4]), const([5, -1]))


def test_fill_expand_squeeze_infer():
    assert infer("Fill", ints([2]), _Input([], tf.int64)) == [(tf.int64, [None, None])]
    assert shapes("Fill", const([2, 3]), _Input([])) == [[2, 3]]
    assert shapes("ExpandDims", _Input([None, 3]), const(-1)) == [[None, 3, 1]]
    assert shapes("ExpandDims", _Input([None, 3]), ints([])) == [[None, None, None]]
    with pytest.raises(ValueError, match="Tried to expand dim index 3"):
        infer("ExpandDims", _Input([None, 3]), const(3))
    assert shapes("Squeeze", _Input([None, 1]), squeeze_dims=(1,)) == [[None]]
    with pytest.raises(ValueError, match=r"Can not squeeze dim\[0\]"):
        infer("Squeeze", _Input([3, 1]), squeeze_dims=(0,))


def test_pack_unpack_infer():
    assert shapes("Pack", _Input([None, 3]), _Input([2, None]), axis=1, N=2) == [[2, 2, 3]]
    with pytest.raises(ValueError, match="Pack"):
        infer("Pack", _Input([2, 3]), _Input([3, 3]), axis=0, N=2)
    assert shapes("Unpack", _Input([None, 3]), num=3, axis=1) == [[None]] * 3
    with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
        infer("Unpack", _Input([None, 3]), num=2, axis=1)


def test_concat_infer():
    assert shapes("ConcatV2", _Input([None, 3]), _Input([2, None]), const(0), N=2) == [[None, 3]]
    assert shapes("ConcatV2", _Input([None, 3]), _Input([2, None]), const(1), N=2) == [[2, None]]
    assert shapes("ConcatV2", _Input([2, 3]), _Input([2, 4]), const(-1), N=2) == [[2, 7]]
    assert shapes("ConcatV2", _Input([2, 3]), _Input(None), const(0), N=2) == [[None, 3]]
    assert shapes("ConcatV2", _Input([2, 3]), _Input([2, 4]), ints([]), N=2) == [[None, None]]
    assert shapes("ConcatV2", _Input(None), _Input(None), const(0), N=2) == [None]
    with pytest.raises(ValueError, match="Dimension 1 in both shapes must be equal"):
        infer("ConcatV2", _Input([2, 3]), _Input([2, 4]), const(0), N=2)
    with pytest.raises(ValueError, match="Shape must be rank"):
        infer("ConcatV2", _Input([2, 3]), _Input([2]), const(0), N=2)


def test_split_infer():
    assert shapes("Split", const(1), _Input([None, 4]), num_split=2) == [[None, 2]] * 2
    assert shapes("Split", ints([]), _Input([None, 4]), num_split=2) == [[None, None]] * 2
    with pytest.raises(ValueError, match="evenly divisible by 2 but is 5"):
        infer("Split", const(1), _Input([None, 5]), num_split=2)
    assert shapes("SplitV", _Input([None, 6]), const([1, -1, 2]), const(1), num_split=3) == [
        [None, 1], [None, 3], [None, 2]]
    assert shapes("SplitV", _Input([None, 6]), ints([2]), const(1), num_split=2) == [[None, None]] * 2
    assert shapes("SplitV", _Input([None, None]), const([1, -1]), const(1), num_split=2) == [[None, 1], [None, None]]
    with pytest.raises(ValueError, match=r"can't split axis of size 6 into pieces of size \[3,4\]"):  # TF 2.21
        infer("SplitV", _Input([None, 6]), const([3, 4]), const(1), num_split=2)


def test_tile_broadcast_pad_reverse_infer():
    assert shapes("Tile", _Input([None, 3]), const([2, 2])) == [[None, 6]]
    assert shapes("Tile", _Input([None, 3]), ints([2])) == [[None, None]]
    assert shapes("BroadcastTo", _Input([None, 1]), const([2, 5, 3])) == [[2, 5, 3]]
    assert shapes("BroadcastTo", _Input([3]), ints([2])) == [[None, None]]
    with pytest.raises(ValueError, match=r"Incompatible shapes: \[3\] vs. \[3,2\]"):
        infer("BroadcastTo", _Input([3]), const([3, 2]))
    assert shapes("Pad", _Input([None, 3]), const([[1, 1], [0, 2]])) == [[None, 5]]
    assert shapes("Pad", _Input([None, 3]), ints([2, 2])) == [[None, None]]
    assert shapes("PadV2", _Input(None), const([[1, 1]]), _Input([])) == [[None]]
    assert shapes("MirrorPad", _Input([None, 3]), const([[1, 1], [0, 2]]), mode="REFLECT") == [[None, 5]]
    assert shapes("MirrorPadGrad", _Input([None, 7]), const([[0, 0], [1, 2]]), mode="REFLECT") == [[None, 4]]
    assert shapes("ReverseV2", _Input([None, 3]), const([0])) == [[None, 3]]
    with pytest.raises(ValueError, match="out of valid range"):
        infer("ReverseV2", _Input([None, 3]), const([2]))


def test_gather_infer():
    assert shapes("GatherV2", _Input([None, 5]), _Input([None], tf.int32), const(1)) == [[None, None]]
    assert shapes("GatherV2", _Input([3, 5]), _Input([2, 7], tf.int32), const(0)) == [[2, 7, 5]]
    assert shapes("GatherV2", _Input([3, 5]), _Input([2, 7], tf.int32), ints([])) == [[None, None, None]]
    assert shapes("GatherV2", _Input([3, 5, 2]), _Input([3, 4], tf.int32), const(1), batch_dims=1) == [[3, 4, 2]]
    assert shapes("GatherNd", _Input([None, 4, 5]), _Input([None, 2], tf.int32)) == [[None, 5]]
    assert shapes("GatherNd", _Input([None, 4, 5]), _Input([3, None], tf.int32)) == [None]
    assert infer("ScatterNd", _Input([None, 1], tf.int32), _Input([None, 2], tf.float64), const([5, 2])) == [
        (tf.float64, [5, 2])]


def test_one_hot_where_range_infer():
    assert infer("OneHot", _Input([None], tf.int32), const(5), _Input([], tf.float64), _Input([], tf.float64)) == [
        (tf.float64, [None, 5])]
    assert shapes("OneHot", _Input([None], tf.int32), const(5), _Input([]), _Input([]), axis=0) == [[5, None]]
    assert shapes("SelectV2", _Input([None, 1], tf.bool), _Input([3]), _Input([])) == [[None, 3]]
    assert infer("Where", _Input([None, 3], tf.bool)) == [(tf.int64, [None, 2])]
    assert shapes("Range", const(0), const(10), const(3)) == [[4]]
    assert shapes("Range", const(0.0, F), const(1.0, F), const(0.1, F)) == [[10]]
    assert shapes("Range", ints([]), const(10), const(3)) == [[None]]
    assert shapes("LinSpace", _Input([]), _Input([]), const(5)) == [[5]]
    assert shapes("LinSpace", _Input([]), _Input([]), ints([])) == [[None]]


def test_transpose_infer():
    assert shapes("Transpose", _Input([None, 3, 4]), const([2, 0, 1])) == [[4, None, 3]]
    assert shapes("Transpose", _Input([None, 3, 4]), const([-1, 0, 1])) == [[4, None, 3]]
    assert shapes("Transpose", _Input([None, 3, 4]), ints([3])) == [[None, None, None]]
    assert shapes("Transpose", _Input(None), const([1, 0])) == [[None, None]]
    with pytest.raises(ValueError, match="is missing from"):
        infer("Transpose", _Input([None, 3, 4]), const([0, 0, 1]))


def _ss(x, begin, end, strides, **masks):
    attrs = {m: masks.get(m, 0) for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                         "shrink_axis_mask")}
    return shapes("StridedSlice", x, begin, end, strides, **attrs)


def test_strided_slice_infer_partial_shapes():
    x = _Input([None, 4])
    assert _ss(x, const([1, 0]), const([0, 0]), const([1, 2]), end_mask=3) == [[None, 2]]
    assert _ss(x, const([0]), const([1]), const([1]), shrink_axis_mask=1) == [[4]]                # x[0]
    assert _ss(x, const([0, 0, 1]), const([0, 0, 2]), const([1, 1, 1]), ellipsis_mask=1, new_axis_mask=2,
               shrink_axis_mask=4) == [[None, 1]]                                                # x[..., None, 1]
    assert _ss(_Input([5, 4]), const([-2]), const([0]), const([-1]), end_mask=1) == [[4, 4]]     # x[-2::-1]
    # values unknown, length known: the masks still give the rank
    assert _ss(x, ints([3]), ints([3]), ints([3]), new_axis_mask=1, shrink_axis_mask=2) == [[1, None]]
    assert _ss(_Input(None), const([0]), const([1]), const([1])) == [None]
    with pytest.raises(ValueError, match="slice index 4 of dimension 1 out of bounds"):
        _ss(x, const([0, 4]), const([0, 5]), const([1, 1]), shrink_axis_mask=2)
    with pytest.raises(ValueError, match="Index out of range using input dim 2"):
        _ss(x, const([0, 0, 0]), const([1, 1, 1]), const([1, 1, 1]))


def test_strided_slice_grad_and_slice_infer():
    assert infer("StridedSliceGrad", const([3, 4]), const([0]), const([1]), const([1]), _Input([4], tf.float64),
                 begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=1) == [
        (tf.float64, [3, 4])]
    assert shapes("StridedSliceGrad", ints([2]), const([0]), const([1]), const([1]), _Input([4])) == [[None, None]]
    assert shapes("Slice", _Input([None, 4]), const([0, 1]), const([-1, 2])) == [[None, 2]]
    assert shapes("Slice", _Input([5, 4]), const([1, 1]), const([-1, -1])) == [[4, 3]]
    assert shapes("Slice", _Input([None, 4]), ints([2]), const([2, 2])) == [[2, 2]]
    assert shapes("Slice", _Input([None, 4]), const([0, 0]), ints([2])) == [[None, None]]


def test_graph_mode_static_shapes():
    """Building ops on a placeholder of shape [None, 4] gives the partial shapes the shape functions compute."""
    v1 = pytest.importorskip("engine.compat.v1")
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, shape=[None, 4])
        assert x[1:, ::2].shape.as_list() == [None, 2]
        assert x[:, 0].shape.as_list() == [None]
        assert tf.concat([x, x], 1).shape.as_list() == [None, 8]
        assert tf.gather(x, [0, 2], axis=1).shape.as_list() == [None, 2]
        assert tf.pad(x, [[1, 1], [0, 2]]).shape.as_list() == [None, 6]
        assert [s.shape.as_list() for s in tf.split(x, 2, axis=1)] == [[None, 2], [None, 2]]
        assert tf.reshape(x, [-1, 2]).shape.as_list() == [None, 2]
        assert tf.slice(x, [0, 1], [-1, 2]).shape.as_list() == [None, 2]


_BUILDERS = {
    "reshape": lambda x: tf.reshape(x, [-1]),
    "tile": lambda x: tf.tile(x, [2, 1]),
    "concat": lambda x: tf.concat([x, tf.ones([2, 4])], 0),
    "split": lambda x: tf.split(x, [1, 3], axis=1)[1],
    "pad": lambda x: tf.pad(x, [[1, 1], [0, 2]]),
    "mirror_pad": lambda x: tf.pad(x, [[1, 1], [0, 2]], mode="REFLECT"),
    "slice": lambda x: tf.slice(x, [1, 1], [-1, 2]),
    "strided_slice": lambda x: x[1:, ::-2],
    "gather": lambda x: tf.gather(x, [0, 2, 2], axis=0),
    "gather_axis1": lambda x: tf.gather(x, [0, 3, 3], axis=1),
    "gather_nd": lambda x: tf.gather_nd(x, [[0, 1], [0, 1]]),
    "squeeze": lambda x: tf.squeeze(tf.expand_dims(x, 0), [0]),
    "transpose": lambda x: tf.transpose(x),
    "reverse": lambda x: tf.reverse(x, [0]),
    "broadcast_to": lambda x: tf.broadcast_to(x, [2, 3, 4]),
}


@pytest.mark.parametrize("name", sorted(_BUILDERS))
def test_graph_mode_gradients_with_unknown_dims(name):
    """The gradient functions' dynamic-shape fallbacks (input shape [None, 4]) give the eager gradients."""
    v1 = pytest.importorskip("engine.compat.v1")
    build = _BUILDERS[name]
    value = np.arange(12.0, dtype=np.float32).reshape(3, 4) / 7.0
    x_eager = tf.constant(value)
    with tf.GradientTape() as tape:
        tape.watch(x_eager)
        y_eager = build(x_eager)
    seed = np.random.default_rng(5).normal(size=y_eager.shape).astype(np.float32)
    expected = tf.convert_to_tensor(tape.gradient(y_eager, x_eager, output_gradients=tf.constant(seed))).numpy()
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, shape=[None, 4])
        y = build(x)
        dy = v1.placeholder(tf.float32, shape=y.shape)
        grads = [dy]
        while y.op is not None and y.op.inputs and y.op.inputs[0] is not x:   # walk the chain back to x
            op = y.op
            grads = [op.op_def.grad(op, *grads) if len(op.outputs) == 1 else
                     op.op_def.grad(op, *[grads[0] if o is y else tf.zeros_like(o) for o in op.outputs])]
            grads = [g[0] if isinstance(g, (list, tuple)) else g for g in grads]
            y = op.inputs[0]
        op = y.op
        g = op.op_def.grad(op, *([grads[0]] if len(op.outputs) == 1 else
                                 [grads[0] if o is y else tf.zeros_like(o) for o in op.outputs]))
        g = g[0] if isinstance(g, (list, tuple)) else g
        assert not x.shape.is_fully_defined()
        with v1.Session() as sess:
            got = sess.run(g, {x: value, dy: seed})
    np.testing.assert_allclose(got, expected, rtol=1e-6)
