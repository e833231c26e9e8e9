"""A catalog of sample invocations covering every registered op, for graph-vs-eager tests.

Each :class:`Case` calls one op through the public API (``tf.matmul``, ``x[1:]``,
``tf.nn.conv2d``...) on tensors built from NumPy arrays. ``test_graph_vs_eager.py``
runs every case twice, eagerly and as a graph fed through placeholders, and
checks that values, static shapes and gradients agree.

Every op in the registry must be accounted for in at least one of these ways:

* ``Case(op=...)``: a case whose forward graph contains a node of that type
  (checked by the tests, so a case cannot claim an op it does not build);
* :data:`INDIRECT`: ops built by gradients (``MaxPoolGradGrad``...; some, like
  ``ReluGrad``, also have a case of their own), by every graph (``Const``,
  ``Placeholder``) or by the graph optimizer (``_FusedMatMul``); the tests check
  that the named case really builds them;
* :data:`EXCLUDED` (and nothing else): ops whose values cannot be compared case
  by case: random ops (shapes, dtypes and seeded determinism are tested instead),
  variables and printing (dedicated tests compare graph and eager).

``test_every_registered_op_is_accounted_for`` fails when an op is registered
without being added here, so a new op cannot escape these tests.
"""
import numpy as np

import engine as tf
from engine.ops import array_ops, nn_ops

_rng = np.random.default_rng(20240531)


def normal(*shape):
    return _rng.standard_normal(shape)


def positive(*shape):
    return _rng.uniform(0.5, 2.0, shape)


def distinct(*shape):
    """Float64 values without ties (max/min/argmax gradients and pool winners are then unambiguous)."""
    n = int(np.prod(shape, dtype=np.int64))
    return (_rng.permutation(n) * 0.37 - n * 0.15).reshape(shape)


def ints(low, high, *shape, dtype=np.int32):
    return _rng.integers(low, high, shape).astype(dtype)


def bools(*shape):
    return _rng.random(shape) < 0.5


def _softmax_rows(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class Case:
    """One sample invocation.

    ``fn(*tensors)`` builds the computation from one tensor per array in
    ``inputs`` (constants eagerly, placeholders of the same dtype in a graph) and
    returns a tensor or a list of tensors. ``op`` is the registered op type the
    case is about. ``grad``: indices of the inputs to differentiate (default:
    every floating-point input). ``partial``: the placeholder shapes tried besides
    the fully known one: ``"batch"`` (first dimension unknown), ``"dims"`` (every
    dimension unknown, rank known) and ``"rank"`` (unknown rank). ``second``: also
    compare second derivatives. ``static``: the placeholder shapes for which the
    graph's static shapes (of outputs and gradients) must be as precise as TF's:
    fully known for ``"known"``, of known rank for ``"batch"`` and ``"dims"``.
    Leave a mode out where TF knows no more either (``Where``'s row count,
    ``squeeze`` of an unknown dimension...).
    """

    def __init__(self, op, fn, *inputs, name="", grad=None, partial=("batch", "dims", "rank"), second=True,
                 static=("known", "batch", "dims"), rtol=1e-10, atol=1e-12):
        self.op = op
        self.fn = fn
        self.inputs = [np.asarray(a) for a in inputs]
        self.name = name
        if grad is None:
            grad = tuple(i for i, a in enumerate(self.inputs) if a.dtype.kind == "f")
        self.grad = tuple(grad)
        self.partial = tuple(partial)
        self.second = second
        self.static = tuple(static)
        self.rtol = rtol
        self.atol = atol

    @property
    def id(self):
        return f"{self.op}-{self.name}" if self.name else self.op

    def __repr__(self):
        return f"<Case {self.id}>"


C = Case
_x23, _y23 = normal(2, 3), normal(2, 3)
_x234 = normal(2, 3, 4)

CASES = [
    # ----------------------------------------------------------------- math: unary
    C("Abs", tf.abs, normal(2, 3)),
    C("Neg", tf.negative, normal(2, 3)),
    C("Neg", lambda x: -x, normal(3), name="operator"),
    C("Sign", tf.sign, normal(2, 3)),
    C("Exp", tf.exp, normal(2, 3)),
    C("Log", tf.math.log, positive(2, 3)),
    C("Log1p", tf.math.log1p, positive(2, 3)),
    C("Sqrt", tf.sqrt, positive(2, 3)),
    C("Rsqrt", tf.math.rsqrt, positive(2, 3)),
    C("Square", tf.square, normal(2, 3)),
    C("Square", tf.square, ints(-5, 5, 2, 3), name="int32"),
    C("Sin", tf.sin, normal(2, 3)),
    C("Cos", tf.cos, normal(2, 3)),
    C("Tanh", tf.tanh, normal(2, 3)),
    C("Sigmoid", tf.sigmoid, normal(2, 3)),
    C("Reciprocal", tf.math.reciprocal, positive(2, 3)),
    C("Round", tf.round, normal(2, 3) * 3),
    C("Floor", tf.floor, normal(2, 3) * 3),
    C("Ceil", tf.math.ceil, normal(2, 3) * 3),
    C("Erf", tf.math.erf, normal(2, 3)),
    C("Erfc", tf.math.erfc, normal(2, 3)),
    C("IsNan", tf.math.is_nan, np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, 2.0]])),
    C("IsInf", tf.math.is_inf, np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, 2.0]])),
    C("IsFinite", tf.math.is_finite, np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, 2.0]])),
    C("Invert", lambda a: ~a, ints(-8, 8, 2, 3)),
    C("LogicalNot", tf.logical_not, bools(2, 3)),
    C("Cast", lambda x: tf.cast(x, tf.float32), normal(2, 3), name="to_float32", rtol=1e-6, atol=1e-7),
    C("Cast", lambda x: tf.cast(x, tf.int32), normal(2, 3) * 3, name="to_int32"),
    C("Cast", lambda x: tf.cast(x, tf.float64), ints(-5, 5, 2, 3), name="from_int32"),
    # ----------------------------------------------------------------- math: binary (with broadcasting)
    C("AddV2", tf.add, normal(2, 3), normal(3)),
    C("AddV2", lambda x, y: x + y, normal(2, 1), normal(1, 3), name="both_broadcast"),
    C("AddV2", lambda x, y: x + y, normal(2, 3), normal(), name="scalar"),
    C("Sub", tf.subtract, normal(2, 3), normal(2, 1)),
    C("Mul", tf.multiply, normal(2, 3), normal(2, 3)),
    C("Mul", lambda x, y: x * y, normal(4, 1, 3), normal(2, 1), name="broadcast"),
    C("RealDiv", tf.divide, normal(2, 3), positive(3)),
    C("RealDiv", lambda x, y: x / y, normal(2, 3), positive(2, 1), name="operator"),
    C("DivNoNan", tf.math.divide_no_nan, normal(2, 3), np.array([1.5, 0.0, -2.0])),
    C("FloorDiv", tf.math.floordiv, normal(2, 3) * 4, positive(3)),
    C("FloorDiv", lambda x, y: x // y, ints(-9, 9, 2, 3), ints(1, 4, 3), name="int32"),
    C("FloorMod", tf.math.floormod, normal(2, 3) * 4, positive(3)),
    C("FloorMod", lambda x, y: x % y, ints(-9, 9, 2, 3), ints(1, 4, 3), name="int32"),
    C("FloorMod", lambda x, y: x % y, np.zeros((0, 3), np.int32), np.int32(0), name="empty_by_zero"),
    C("TruncateDiv", tf.truncatediv, ints(-9, 9, 2, 3), np.array([2, -3, 4], np.int32)),
    C("TruncateMod", tf.truncatemod, ints(-9, 9, 2, 3), np.array([2, -3, 4], np.int32)),
    C("Pow", tf.pow, positive(2, 3), normal(3)),
    C("Pow", lambda x, y: x ** y, normal(2, 3), np.array(2.0), name="square"),
    C("Maximum", tf.maximum, distinct(2, 3), distinct(3)),
    C("Minimum", tf.minimum, distinct(2, 3), distinct(2, 1)),
    C("SquaredDifference", tf.math.squared_difference, normal(2, 3), normal(3)),
    C("Equal", tf.equal, np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]), np.array([1.0, 2.0, 1.0])),
    C("NotEqual", tf.not_equal, np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]), np.array([1.0, 2.0, 1.0])),
    C("Less", tf.less, normal(2, 3), normal(3)),
    C("LessEqual", tf.less_equal, normal(2, 3), normal(3)),
    C("Greater", tf.greater, normal(2, 3), normal(3)),
    C("GreaterEqual", tf.greater_equal, normal(2, 3), normal(3)),
    C("LogicalAnd", tf.logical_and, bools(2, 3), bools(3)),
    C("LogicalOr", tf.logical_or, bools(2, 3), bools(3)),
    C("LogicalAnd", tf.math.logical_xor, bools(2, 3), bools(2, 3), name="xor"),
    C("BitwiseAnd", lambda a, b: a & b, ints(0, 16, 2, 3), ints(0, 16, 3)),
    C("BitwiseOr", lambda a, b: a | b, ints(0, 16, 2, 3), ints(0, 16, 3)),
    C("BitwiseXor", lambda a, b: a ^ b, ints(0, 16, 2, 3), ints(0, 16, 3)),
    C("AddN", lambda a, b, c: tf.add_n([a, b, c]), normal(2, 3), normal(2, 3), normal(2, 3)),
    C("Tanh", lambda x, y: tf.tanh(x * y + 1.0) * x, normal(2, 3), normal(3), name="elementwise_chain"),
    C("Maximum", lambda x: tf.clip_by_value(x, -0.5, 0.5), normal(2, 3), name="clip_by_value"),
    # ----------------------------------------------------------------- reductions and scans
    C("Sum", lambda x: tf.reduce_sum(x, axis=1), normal(2, 3, 4)),
    C("Sum", tf.reduce_sum, normal(2, 3, 4), name="all"),
    C("Sum", lambda x: tf.reduce_sum(x, axis=[0, 2], keepdims=True), normal(2, 3, 4), name="keepdims"),
    C("Sum", lambda x: tf.reduce_sum(x, axis=-1), ints(-5, 5, 2, 3), name="int32"),
    C("Mean", lambda x: tf.reduce_mean(x, axis=0), normal(2, 3, 4)),
    C("Mean", lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True), normal(2, 3, 4), name="keepdims"),
    C("Mean", tf.reduce_mean, normal(2, 3), name="all"),
    C("Max", lambda x: tf.reduce_max(x, axis=1), distinct(2, 3, 4)),
    C("Max", lambda x: tf.reduce_max(x, axis=1), np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]), name="ties"),
    C("Min", lambda x: tf.reduce_min(x, axis=[0, 2], keepdims=True), distinct(2, 3, 4)),
    C("Prod", lambda x: tf.reduce_prod(x, axis=1), normal(2, 3, 4)),
    C("Prod", lambda x: tf.reduce_prod(x, axis=[0, 2], keepdims=True), normal(2, 3, 4), name="keepdims"),
    C("Prod", tf.reduce_prod, np.array([[1.5, 0.0, 2.0], [0.5, -1.0, 3.0]]), name="all_with_zero"),
    C("Any", lambda b: tf.reduce_any(b, axis=1), bools(3, 4)),
    C("All", lambda b: tf.reduce_all(b, axis=0), bools(3, 4)),
    C("ArgMax", lambda x: tf.argmax(x, axis=1), distinct(3, 4)),
    C("ArgMin", lambda x: tf.argmin(x, axis=0, output_type=tf.int32), distinct(3, 4)),
    C("Cumsum", lambda x: tf.cumsum(x, axis=1), normal(2, 3)),
    C("Cumsum", lambda x: tf.cumsum(x, axis=0, exclusive=True, reverse=True), normal(3, 2), name="excl_rev"),
    C("Cumprod", lambda x: tf.math.cumprod(x, axis=1), positive(2, 3)),
    C("Cumprod", lambda x: tf.math.cumprod(x, axis=0, exclusive=True), positive(3, 2), name="exclusive"),
    C("Max", lambda x: tf.reduce_logsumexp(x, axis=1), normal(2, 3), name="logsumexp"),
    C("Mean", lambda x: tf.math.reduce_std(x, axis=0), normal(3, 2), name="reduce_std"),
    # ----------------------------------------------------------------- shapes and creation
    C("Reshape", lambda x: tf.reshape(x, [3, -1]), normal(2, 3, 2)),
    C("Reshape", lambda x, s: tf.reshape(x, s), normal(2, 3), np.array([3, 2], np.int32), name="fed_shape",
      static=(), partial=("batch", "dims")),
    C("Shape", tf.shape, normal(2, 3)),
    C("Size", tf.size, normal(2, 3)),
    C("Rank", tf.rank, normal(2, 3)),
    C("Identity", tf.identity, normal(2, 3)),
    C("StopGradient", lambda x: tf.stop_gradient(x) * x, normal(2, 3)),
    C("ZerosLike", lambda x: tf.zeros_like(x) + x, normal(2, 3)),
    C("OnesLike", lambda x: tf.ones_like(x) * x, normal(2, 3)),
    C("Fill", lambda v: tf.fill([2, 3], v), normal()),
    C("Fill", lambda x: tf.zeros(tf.shape(x)) + tf.ones([3]), np.zeros((2, 3), np.float32), name="dynamic",
      grad=()),
    C("ExpandDims", lambda x: tf.expand_dims(x, 1), normal(2, 3)),
    C("ExpandDims", lambda x: tf.expand_dims(x, -1), normal(2, 3), name="last"),
    C("Squeeze", lambda x: tf.squeeze(x, [1]), normal(2, 1, 3)),
    C("Squeeze", tf.squeeze, normal(2, 1, 3, 1), name="all", static=("known",)),  # TF: unknown rank too
    C("Pack", lambda a, b: tf.stack([a, b], axis=1), normal(2, 3), normal(2, 3)),
    C("Unpack", lambda x: tf.unstack(x, num=3, axis=1), normal(2, 3, 2)),
    C("ConcatV2", lambda a, b: tf.concat([a, b], axis=1), normal(2, 3), normal(2, 2)),
    C("ConcatV2", lambda a, b: tf.concat([a, b], axis=-1), normal(2, 3, 1), normal(2, 3, 2), name="negative_axis"),
    C("Split", lambda x: tf.split(x, 3, axis=1), normal(2, 6)),
    C("SplitV", lambda x: tf.split(x, [1, 3, -1], axis=1), normal(2, 6)),
    C("Tile", lambda x: tf.tile(x, [2, 3]), normal(2, 3)),
    C("BroadcastTo", lambda x: tf.broadcast_to(x, [2, 3]), normal(3)),
    C("BroadcastTo", lambda x: tf.broadcast_to(x, [4, 2, 3]), normal(2, 1), name="rank_up"),
    C("BroadcastGradientArgs", lambda a, b: array_ops.broadcast_gradient_args(a, b),
      np.array([2, 1, 3], np.int32), np.array([4, 3], np.int32), static=("batch", "dims")),
    C("Pad", lambda x: tf.pad(x, [[1, 0], [2, 1]]), normal(2, 3)),
    C("PadV2", lambda x: tf.pad(x, [[0, 1], [1, 1]], constant_values=1.5), normal(2, 3)),
    C("MirrorPad", lambda x: tf.pad(x, [[1, 1], [2, 1]], mode="REFLECT"), normal(3, 4)),
    C("MirrorPad", lambda x: tf.pad(x, [[2, 0], [1, 3]], mode="SYMMETRIC"), normal(3, 4), name="symmetric"),
    C("ReverseV2", lambda x: tf.reverse(x, [1]), normal(2, 3)),
    C("Transpose", lambda x: tf.transpose(x, [1, 0, 2]), normal(2, 3, 4)),
    C("Transpose", tf.transpose, normal(2, 3), name="default"),
    C("InvertPermutation", tf.invert_permutation, np.array([2, 0, 3, 1], np.int32)),
    C("Range", lambda n: tf.range(n), np.int32(5), static=("batch", "dims")),
    C("Range", lambda a, b: tf.range(a, b, 0.5), np.float64(1.0), np.float64(3.0), name="float",
      static=("batch", "dims")),
    C("LinSpace", lambda a, b: tf.linspace(a, b, 5), np.float64(-1.0), np.float64(2.0)),
    C("ConcatV2", lambda a, b: tf.linspace(a, b, 4, axis=1), normal(3), normal(3), name="linspace_nd",
      partial=("batch", "dims")),  # engine: needs known ranks
    C("OneHot", lambda i: tf.one_hot(i, 4), np.array([0, 3, 1, 5], np.int32)),
    C("OneHot", lambda i: tf.one_hot(i, 3, on_value=2.0, off_value=-1.0, axis=0), np.array([[0, 2], [1, 1]], np.int32),
      name="axis0"),
    C("Where", tf.where, np.array([[True, False, True], [False, False, True]]), static=("batch", "dims")),
    C("SelectV2", tf.where, bools(2, 3), normal(2, 3), normal(3)),
    C("GatherV2", lambda p, i: tf.gather(p, i), normal(4, 3), np.array([3, 0, 3], np.int32)),
    C("GatherV2", lambda p, i: tf.gather(p, i, axis=1), normal(2, 4, 3), np.array([[1, 0], [3, 3]], np.int32),
      name="axis1"),
    C("GatherV2", lambda p, i: tf.gather(p, i, axis=1, batch_dims=1), normal(2, 4, 3),
      np.array([[1, 0], [3, 3]], np.int32), name="batch_dims", partial=()),  # engine: its gradient needs static shapes
    C("GatherV2", lambda p, i: tf.gather(p, i, axis=0, batch_dims=1), normal(4, 3),
      np.array([[3, 0], [1, 1]], np.int32),
      name="axis0_ignores_batch_dims"),
    C("GatherV2", lambda x, m: tf.boolean_mask(x, m), normal(4, 2), np.array([True, False, True, True]),
      name="boolean_mask", static=("batch", "dims"), partial=("batch", "dims")),  # TF: the mask's rank must be known
    C("GatherNd", tf.gather_nd, normal(3, 4, 2), np.array([[0, 1], [2, 3], [0, 1]], np.int32),
      static=("known", "batch")),  # an unknown index depth: TF knows no rank either
    C("ScatterNd", lambda i, u: tf.scatter_nd(i, u, [4, 3]), np.array([[1], [3], [1]], np.int32), normal(3, 3),
      static=("known", "batch")),  # its gradient is a GatherNd
    C("StridedSlice", lambda x: x[1:, ::2], normal(3, 5)),
    C("StridedSlice", lambda x: x[..., 1], normal(2, 3, 4), name="shrink"),
    C("StridedSlice", lambda x: x[:, None, -1:0:-2], normal(2, 5), name="newaxis_negative_stride"),
    C("Slice", lambda x: tf.slice(x, [0, 1], [2, -1]), normal(3, 4)),
    C("PlaceholderWithDefault", lambda x: tf.compat.v1.placeholder_with_default(x, [None, 3]) * 2.0, normal(2, 3),
      static=("batch", "dims")),
    # ----------------------------------------------------------------- linear algebra
    C("MatMul", tf.matmul, normal(2, 3), normal(3, 4)),
    C("MatMul", lambda a, b: tf.matmul(a, b, transpose_a=True), normal(3, 2), normal(3, 4), name="transpose_a"),
    C("MatMul", lambda a, b: tf.matmul(a, b, transpose_b=True), normal(2, 3), normal(4, 3), name="transpose_b"),
    C("MatMul", lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True), normal(3, 2), normal(4, 3),
      name="transpose_both"),
    C("MatMul", lambda a, b: a @ b, ints(-3, 3, 2, 3), ints(-3, 3, 3, 2), name="int32"),
    C("BatchMatMulV2", tf.matmul, normal(2, 2, 3), normal(3, 4)),
    C("BatchMatMulV2", lambda a, b: tf.matmul(a, b, adjoint_a=True), normal(2, 1, 3, 2), normal(3, 3, 4),
      name="adjoint_broadcast"),
    C("MatMul", lambda a, b: tf.tensordot(a, b, 1), normal(2, 3), normal(3, 4, 2), name="tensordot",
      partial=("batch", "dims")),  # engine: needs known ranks
    C("Einsum", lambda a, b: tf.einsum("ij,jk->ik", a, b), normal(2, 3), normal(3, 4),
      partial=("batch", "dims")),  # engine: einsum needs known ranks
    C("Einsum", lambda a: tf.einsum("ii->i", a), normal(3, 3), name="diagonal", partial=("batch", "dims")),
    C("Einsum", lambda a, b: tf.einsum("bij,bjk->bik", a, b), normal(2, 2, 3), normal(2, 3, 2), name="batch",
      partial=("batch", "dims")),
    C("Einsum", lambda a: tf.einsum("ij->", a), normal(2, 3), name="sum_all", partial=("batch", "dims")),
    C("MatrixDiagPart", tf.linalg.diag_part, normal(2, 3, 4)),
    C("MatrixDiagPart", tf.linalg.trace, normal(4, 3), name="trace"),
    # ----------------------------------------------------------------- neural network
    C("Relu", tf.nn.relu, normal(2, 3)),
    C("Relu6", tf.nn.relu6, normal(2, 3) * 5),
    C("LeakyRelu", lambda x: tf.nn.leaky_relu(x, alpha=0.1), normal(2, 3)),
    C("Elu", tf.nn.elu, normal(2, 3)),
    C("Selu", tf.nn.selu, normal(2, 3)),   # its own op (and SeluGrad), as in TF
    C("Softplus", tf.nn.softplus, normal(2, 3)),
    C("Erfc", tf.nn.gelu, normal(2, 3), name="gelu"),
    C("Sigmoid", tf.nn.silu, normal(2, 3), name="silu"),
    C("ReluGrad", nn_ops.relu_grad, normal(2, 3), normal(2, 3)),
    C("Relu6Grad", nn_ops.relu6_grad, normal(2, 3), normal(2, 3) * 5),
    C("EluGrad", nn_ops.elu_grad, normal(2, 3), np.tanh(normal(2, 3))),
    C("Softmax", tf.nn.softmax, normal(2, 3)),
    C("Softmax", lambda x: tf.nn.softmax(x, axis=0), normal(3, 2), name="axis0",
      partial=("batch", "dims")),  # TF also needs the rank for an axis other than the last
    C("LogSoftmax", tf.nn.log_softmax, normal(2, 3)),
    C("SoftmaxCrossEntropyWithLogits", lambda y, x: tf.nn.softmax_cross_entropy_with_logits(y, x),
      _softmax_rows(normal(3, 4)), normal(3, 4)),
    C("SparseSoftmaxCrossEntropyWithLogits", lambda y, x: tf.nn.sparse_softmax_cross_entropy_with_logits(y, x),
      np.array([0, 3, 1], np.int32), normal(3, 4)),
    C("SparseSoftmaxCrossEntropyWithLogits", lambda y, x: tf.nn.sparse_softmax_cross_entropy_with_logits(y, x),
      np.array([[0, 3], [1, 2]], np.int32), normal(2, 2, 4), name="rank3"),
    C("L2Loss", tf.nn.l2_loss, normal(2, 3)),
    C("BiasAdd", tf.nn.bias_add, normal(2, 3), normal(3)),
    C("BiasAdd", tf.nn.bias_add, normal(2, 2, 2, 3), normal(3), name="rank4"),
    C("BiasAdd", lambda x, w, b: tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b)), normal(4, 3), normal(3, 2), normal(2),
      name="dense_relu"),
    C("Conv2D", lambda x, w: tf.nn.conv2d(x, w, 1, "SAME"), normal(2, 5, 5, 2), normal(3, 3, 2, 3)),
    C("Conv2D", lambda x, w: tf.nn.conv2d(x, w, 2, "VALID"), normal(1, 6, 5, 2), normal(2, 2, 2, 1),
      name="valid_stride2"),
    C("Conv2DBackpropInput", lambda y, w: tf.nn.conv2d_transpose(y, w, [2, 5, 5, 2], 2, "SAME"),
      normal(2, 3, 3, 3), normal(3, 3, 2, 3)),
    C("Conv2DBackpropFilter",
      lambda x, g: nn_ops.conv2d_backprop_filter(x, [3, 3, 2, 3], g, [1, 1, 1, 1], "SAME"),
      normal(2, 4, 4, 2), normal(2, 4, 4, 3)),
    C("MaxPool", lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"), distinct(2, 4, 4, 2)),
    C("MaxPool", lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"), distinct(1, 5, 5, 1), name="same"),
    C("AvgPool", lambda x: tf.nn.avg_pool2d(x, 2, 2, "VALID"), normal(2, 4, 4, 2)),
    C("AvgPool", lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"), normal(1, 5, 5, 1), name="same"),
    C("Log1p", lambda y, x: tf.nn.sigmoid_cross_entropy_with_logits(y, x), _rng.random((2, 3)), normal(2, 3),
      name="sigmoid_cross_entropy"),
    C("Mean", lambda x: tf.nn.moments(x, [0]), normal(4, 3), name="moments"),
]

def _fed(op, fn, *inputs, name, **options):
    """A case whose shape-like argument (axis, perm, paddings...) is an input too: fed at run time in the
    graph, so shape functions and gradients cannot read its value when the graph is built."""
    options.setdefault("static", ())
    options.setdefault("partial", ("batch", "dims"))
    return Case(op, fn, *inputs, name=name, **options)


def _i32(*values):
    return np.array(values, np.int32)


CASES += [
    _fed("Sum", lambda x, a: tf.reduce_sum(x, a), normal(2, 3, 4), _i32(0, 2), name="fed_axis"),
    _fed("Sum", lambda x, a: tf.reduce_sum(x, a, keepdims=True), normal(2, 3), np.int32(-1), name="fed_axis_keepdims"),
    _fed("Mean", lambda x, a: tf.reduce_mean(x, a), normal(2, 3, 4), _i32(1), name="fed_axis"),
    _fed("Max", lambda x, a: tf.reduce_max(x, a), distinct(2, 3, 4), _i32(2, 0), name="fed_axis"),
    _fed("Prod", lambda x, a: tf.reduce_prod(x, a), normal(2, 3, 4), _i32(-1, 0), name="fed_axis"),
    _fed("ArgMax", lambda x, a: tf.argmax(x, a), distinct(3, 4), np.int32(1), name="fed_axis"),
    _fed("Cumsum", lambda x, a: tf.cumsum(x, a, reverse=True), normal(2, 3), np.int32(1), name="fed_axis"),
    _fed("Cumprod", lambda x, a: tf.math.cumprod(x, a), positive(2, 3), np.int32(0), name="fed_axis"),
    _fed("ConcatV2", lambda a, b, ax: tf.concat([a, b], ax), normal(2, 3), normal(2, 2), np.int32(1), name="fed_axis"),
    _fed("Split", lambda x, ax: tf.split(x, 2, axis=ax), normal(2, 4), np.int32(1), name="fed_axis"),
    _fed("SplitV", lambda x, s: tf.split(x, s, axis=1, num=2), normal(2, 5), _i32(3, -1), name="fed_sizes"),
    _fed("ExpandDims", lambda x, a: tf.expand_dims(x, a), normal(2, 3), np.int32(-2), name="fed_axis"),
    _fed("ReverseV2", lambda x, a: tf.reverse(x, a), normal(2, 3, 2), _i32(0, 2), name="fed_axis"),
    _fed("Transpose", lambda x, p: tf.transpose(x, p), normal(2, 3, 4), _i32(2, 0, 1), name="fed_perm"),
    _fed("Tile", lambda x, m: tf.tile(x, m), normal(2, 3), _i32(2, 1), name="fed_multiples"),
    _fed("BroadcastTo", lambda x, s: tf.broadcast_to(x, s), normal(3, 1), _i32(2, 3, 4), name="fed_shape"),
    _fed("Fill", lambda d, v: tf.fill(d, v), _i32(2, 3), normal(), name="fed_dims"),
    _fed("Pad", lambda x, p: tf.pad(x, p), normal(2, 3), np.array([[1, 0], [0, 2]], np.int32), name="fed_paddings"),
    _fed("PadV2", lambda x, p: tf.pad(x, p, constant_values=-1.0), normal(2, 3), np.array([[0, 1], [2, 0]], np.int32),
         name="fed_paddings"),
    _fed("MirrorPad", lambda x, p: tf.pad(x, p, mode="SYMMETRIC"), normal(3, 4), np.array([[1, 2], [0, 1]], np.int32),
         name="fed_paddings"),
    _fed("Slice", lambda x, b: tf.slice(x, b, [2, -1]), normal(3, 4), _i32(1, 1), name="fed_begin"),
    _fed("Slice", lambda x, b, z: tf.slice(x, b, z), normal(3, 4), _i32(0, 1), _i32(2, 2), name="fed_begin_size"),
    _fed("StridedSlice", lambda x, b, e: tf.strided_slice(x, b, e, [1, 2]), normal(3, 5), _i32(1, 0), _i32(3, 5),
         name="fed_begin_end"),
    _fed("StridedSlice", lambda x, i: x[i, 1:], normal(3, 4), np.int32(2), name="fed_index"),
    _fed("GatherV2", lambda p, i, a: tf.gather(p, i, axis=a), normal(2, 4, 3), _i32(3, 0), np.int32(1),
         name="fed_axis"),
    _fed("ScatterNd", lambda i, u, s: tf.scatter_nd(i, u, s), np.array([[1], [3]], np.int32), normal(2, 3), _i32(4, 3),
         name="fed_shape"),
    _fed("OneHot", lambda i, d: tf.one_hot(i, d), _i32(0, 2, 1), np.int32(4), name="fed_depth"),
    _fed("LinSpace", lambda a, b, n: tf.linspace(a, b, n), np.float64(-1.0), np.float64(2.0), np.int32(5),
         name="fed_num"),
    _fed("ConcatV2", lambda a, b, n: tf.linspace(a, b, n, axis=-1), normal(2), normal(2), np.int32(4),
         name="linspace_nd_fed_num"),
    _fed("Range", lambda a, b, d: tf.range(a, b, d), np.int32(1), np.int32(9), np.int32(3), name="fed_all"),
]

# Ops built by gradients (some also have a case of their own) or by every graph: the case (by id) whose
# graph contains them, and where: "grad" (the first gradient), "grad2" (the second), "graph" (every graph),
# "plan" (the optimized program a Session runs for the forward graph).
# The gradient tests of that case then compare them between graph and eager mode.
INDIRECT = {
    "ReluGrad": ("Relu", "grad"),
    "Relu6Grad": ("Relu6", "grad"),
    "EluGrad": ("Elu", "grad"),
    "LeakyReluGrad": ("LeakyRelu", "grad"),
    "BiasAddGrad": ("BiasAdd", "grad"),
    "MaxPoolGrad": ("MaxPool", "grad"),
    "MaxPoolGradGrad": ("MaxPool", "grad2"),
    "AvgPoolGrad": ("AvgPool", "grad"),
    "StridedSliceGrad": ("StridedSlice", "grad"),
    "MirrorPadGrad": ("MirrorPad", "grad"),
    "Placeholder": ("AddV2", "graph"),
    "Const": ("Sum", "graph"),
    # Made by the graph optimizer when a Session compiles a graph (``plan.ops``), never by users: the
    # value and gradient tests of these cases run them.
    "_FusedMatMul": ("BiasAdd-dense_relu", "plan"),
    "_FusedElementwise": ("Tanh-elementwise_chain", "plan"),
}

# Ops whose graph and eager values cannot be compared case by case, and where they are tested instead.
EXCLUDED = {
    "ResizeBilinear": "tf.image: TF goldens, finite differences and tf.function in tests/ops/test_image_ops.py",
    "AdjustContrastv2": "tf.image.adjust_contrast: TF goldens, tf.function and the missing gradient in "
                        "tests/ops/test_adjust_contrast.py",
    "ResizeBilinearGrad": "tf.image: ResizeBilinear's gradient, checked in tests/ops/test_image_ops.py",
    "ResizeNearestNeighbor": "tf.image: TF goldens, finite differences in tests/ops/test_image_ops.py",
    "ResizeNearestNeighborGrad": "tf.image: ResizeNearestNeighbor's gradient, checked in tests/ops/test_image_ops.py",
    "MirroredAllReduce": "tf.distribute collective over all replicas' tensors (attrs hold the algorithm and "
                         "devices); tested in tests/distribute/",
    "If": "control flow: sub-graph attrs; tested in tests/function/test_control_flow.py",
    "StatelessIf": "control flow: sub-graph attrs; tested in tests/function/test_control_flow.py",
    "While": "control flow: sub-graph attrs; tested in tests/function/test_control_flow.py",
    "StatelessWhile": "control flow: sub-graph attrs; tested in tests/function/test_control_flow.py",
    "WhileGrad": "control flow: sub-graph attrs; tested in tests/function/test_control_flow.py",
    "Assert": "control flow: sub-graph attrs; tested in tests/function/test_control_flow.py",
    "ReduceDataset": "tf.data: attrs hold a Python dataset; tested in tests/data/test_dataset_in_function.py",
    "AnonymousIteratorV3": "tf.data: attrs hold a Python dataset; tested in tests/data/test_dataset_in_function.py",
    "DatasetCardinality": "tf.data: attrs hold a Python dataset; tested in tests/data/test_dataset_arguments.py",
    "IteratorGetNext": "tf.data iterator state; tested in tests/data/test_dataset_in_function.py",
    "RandomUniform": "random: shape/dtype and seeded determinism in test_random_ops_in_graphs",
    "RandomStandardNormal": "random: shape/dtype and seeded determinism in test_random_ops_in_graphs",
    "TruncatedNormal": "random: shape/dtype and seeded determinism in test_random_ops_in_graphs",
    "RandomUniformInt": "random: shape/dtype and seeded determinism in test_random_ops_in_graphs",
    "RandomShuffle": "random: shape/dtype and seeded determinism in test_random_ops_in_graphs",
    "VarHandleOp": "state: test_variables_graph_vs_eager",
    "ReadVariableOp": "state: test_variables_graph_vs_eager",
    "AssignVariableOp": "state: test_variables_graph_vs_eager",
    "AssignAddVariableOp": "state: test_variables_graph_vs_eager",
    "AssignSubVariableOp": "state: test_variables_graph_vs_eager",
    "NoOp": "no value: test_variables_graph_vs_eager runs the initializer group",
    **{f"ResourceScatter{nd}{kind}": "state (eager v.scatter_*): tests/test_variable_scatter.py checks values and "
                                     "TF's errors; in graphs the methods are built from ScatterNd and an assign"
       for nd in ("", "Nd") for kind in ("Update", "Add", "Sub", "Max", "Min")},
    "PrintV2": "no value, a side effect: test_print_graph_vs_eager compares the printed text",
    "WriteSummary": "a side effect (an event file; attrs hold the writer): tests/summary/test_summaries_in_function.py runs it "
                    "in tf.function and Session graphs",
    "SummaryHistogramBuckets": "tf.summary's histogram buckets: tests/summary/test_histogram.py checks TF's values "
                               "eagerly and in tf.function",
    "SummaryImageEncode": "tf.summary's PNG encoding: tests/summary/test_image.py checks TF's decoded pixels",
    **{op: "a string op (string values, no gradient): tests/strings/test_string_graph.py runs each in a "
           "tf.Graph with Session.run and in tf.function and compares with eager and TF's goldens"
       for op in ("AsString", "DecodeBase64", "DecodePaddedRaw", "DecodeRaw", "EncodeBase64", "ReduceJoin",
                  "RegexFullMatch", "RegexReplace", "StaticRegexFullMatch", "StaticRegexReplace", "StringFormat",
                  "StringJoin", "StringLength", "StringLower", "StringSplit", "StringSplitV2", "StringStrip",
                  "StringToHashBucketFast", "StringToNumber", "StringUpper", "Substr", "UnsortedSegmentJoin",
                  "UnicodeDecode",
                  "UnicodeDecodeWithOffsets", "UnicodeEncode", "UnicodeScript", "UnicodeTranscode")},
    **{op: "a tf.sparse op (SparseTensor components): tests/sparse/test_sparse_graph.py runs each in a tf.Graph "
           "with Session.run and in tf.function against TF's goldens; tests/sparse checks its gradients"
       for op in ("SparseAdd", "SparseAddGrad", "SparseReduceMax", "SparseReduceSum", "SparseReorder",
                  "SparseTensorDenseAdd",
                  "SparseTensorDenseMatMul", "SparseToDense")},
    **{op: "a tf.io op on files or serialized records (string values, no gradient): tests/data/test_readers_io.py "
           "compares with TF's bytes and values eagerly, in tf.function and in dataset maps"
       for op in ("DecodeCSV", "ParseExampleV2", "ParseTensor", "SerializeTensor")},
    **{op: "a file-system side effect or listing: tests/data/test_readers_io.py reads back what it wrote and "
           "compares with TF's goldens"
       for op in ("MatchingFiles", "ReadFile", "WriteFile")},
}


# --------------------------------------------------------------------------------------------
# Area catalogs: ``op_catalog_<area>.py`` beside this file may add ``CASES``, ``INDIRECT`` and
# ``EXCLUDED`` of their own (they import ``Case`` and the value helpers from here). Keeping each
# area in its own file keeps this one readable.
# --------------------------------------------------------------------------------------------
def _load_area_catalogs():
    import glob
    import importlib
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    for path in sorted(glob.glob(os.path.join(here, "op_catalog_*.py"))):
        module = importlib.import_module(os.path.basename(path)[:-3])
        CASES.extend(getattr(module, "CASES", []))
        INDIRECT.update(getattr(module, "INDIRECT", {}))
        EXCLUDED.update(getattr(module, "EXCLUDED", {}))


_load_area_catalogs()
