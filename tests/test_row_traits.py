"""Facts about ops live on their registry rows (traits), and the passes, forward mode and the executor read them.

The optimizer, ``ForwardAccumulator`` and the executor used to keep their own lists of op names
(``COMMUTATIVE``, ``FORWARDING``, ``LINEAR_OPS``, ``_RANDOM_OPS`` ...). Those lists are written out
here, as they were, and every one must be reproduced by the traits. Then: fusion and constant
folding are composed from the registered kernels, so ``registry.override`` reaches them.
"""
import numpy as np
import pytest

import engine as tf
from engine.compat import v1
from engine.framework.backend import NUMPY
from engine.framework.executor import _persistent
from engine.framework.optimizer import memory_plan
from engine.framework.optimizer.ir import Node
from engine.framework.registry import InferenceContext, get_op, override, registered_ops
from engine.framework.tensor_shape import TensorShape

# --- the former tables, verbatim ----------------------------------------------------------------------------
OLD_UFUNC = {  # fused_ops._UFUNC
    "AddV2": "add", "Sub": "subtract", "Mul": "multiply", "RealDiv": "true_divide", "Maximum": "maximum",
    "Minimum": "minimum", "Neg": "negative", "Abs": "absolute", "Sign": "sign", "Exp": "exp", "Log": "log",
    "Log1p": "log1p", "Sqrt": "sqrt", "Square": "square", "Sin": "sin", "Cos": "cos", "Tanh": "tanh",
    "Reciprocal": "reciprocal", "Floor": "floor", "Ceil": "ceil", "LogicalNot": "logical_not",
    "LogicalAnd": "logical_and", "LogicalOr": "logical_or", "Equal": "equal", "NotEqual": "not_equal",
    "Less": "less", "LessEqual": "less_equal", "Greater": "greater", "GreaterEqual": "greater_equal",
    "BitwiseAnd": "bitwise_and", "BitwiseOr": "bitwise_or", "BitwiseXor": "bitwise_xor", "Invert": "invert",
}
OLD_TWO_UFUNCS = {"Rsqrt": ("sqrt", "reciprocal"), "SquaredDifference": ("subtract", "square")}
OLD_KERNEL_CALL = {"Sigmoid", "Relu6", "Elu", "LeakyRelu", "Softplus", "Round", "Pow", "Cast", "IsNan",
                   "IsInf", "IsFinite", "DivNoNan", "FloorDiv", "FloorMod", "Erf", "Erfc"}
OLD_FUSIBLE = set(OLD_UFUNC) | set(OLD_TWO_UFUNCS) | OLD_KERNEL_CALL | {"Relu"}
# Elementwise rows the old FUSIBLE_ELEMENTWISE list did not name: fused now, each as a call of its kernel.
NEWLY_FUSIBLE = {"Acos", "Acosh", "Asin", "Asinh", "Atan", "Atan2", "Atanh", "BesselI0e", "BesselI1e", "Cosh",
                 "Digamma", "Erfinv", "Expm1", "LeftShift", "Lgamma", "Ndtri", "Polygamma", "RightShift", "Sinh",
                 "Tan", "TruncateDiv", "TruncateMod", "Xdivy", "Xlog1py", "Xlogy", "Zeta",
                 "Rint", "Selu", "Softsign"}   # rows added after the table (TF's ops for tf.math.rint, tf.nn.selu/softsign)
OLD_COMMUTATIVE = {"AddV2", "Mul", "Maximum", "Minimum", "Equal", "NotEqual", "LogicalAnd", "LogicalOr",
                   "BitwiseAnd", "BitwiseOr", "BitwiseXor", "SquaredDifference"}           # cse.COMMUTATIVE
OLD_FORWARDING = {"Identity", "StopGradient", "Snapshot", "PreventGradient"}            # pruning.FORWARDING
OLD_NOT_NEW = {"Const", "_Arg", "ReadVariableOp", "VarHandleOp", "Identity", "StopGradient", "Snapshot",
               "PlaceholderWithDefault"}                                                 # memory_plan._NOT_NEW
OLD_SHAPE_OPS = {"Shape", "Size", "Rank"}                                              # constant_folding._SHAPE_OPS
OLD_LINEAR = {"AddN", "AddV2", "BiasAdd", "BroadcastTo", "ConcatV2", "Cumsum", "ExpandDims", "GatherNd",
              "GatherV2", "MatrixDiagPart", "Mean", "MirrorPad", "Neg", "Pack", "Pad", "PadV2", "Reshape",
              "ReverseV2", "ScatterNd", "Slice", "Split", "SplitV", "Squeeze", "StridedSlice", "Sub", "Sum", "Tile",
              "Transpose", "Unpack"}                                                     # forwardprop.LINEAR_OPS
OLD_MULTILINEAR = {"BatchMatMulV2", "Conv2D", "Einsum", "MatMul", "Mul"}
OLD_IDENTITY = {"Identity", "ReadVariableOp", "PlaceholderWithDefault"}
OLD_RANDOM = {"RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt", "RandomShuffle"}
OLD_PERSISTENT = {"Const", "_Arg", "ReadVariableOp"}                                   # executor._PERSISTENT


def rows_with(predicate):
    return {name for name, op in registered_ops().items() if predicate(op)}


def node_of(op_type):
    """An IR node of one op type, as the passes see it (``_Arg`` has no row)."""
    return Node(op_type, op_type, None if op_type == "_Arg" else get_op(op_type), [], {}, [])


# --- every table is reproduced by the traits ------------------------------------------------------------------
def test_ufunc_traits_are_the_fused_kernel_tables():
    named = {n: op.ufunc for n, op in registered_ops().items() if op.ufunc is not None}
    assert named == {**OLD_UFUNC, **OLD_TWO_UFUNCS, "Relu": "maximum"}
    assert get_op("Relu").ufunc_args == (0,) and all(get_op(n).ufunc_args == () for n in named if n != "Relu")
    assert all(get_op(n).ufunc is None for n in OLD_KERNEL_CALL | NEWLY_FUSIBLE)    # called as kernels


def test_the_elementwise_trait_is_what_fusion_fuses():
    assert rows_with(lambda op: op.elementwise) == OLD_FUSIBLE | NEWLY_FUSIBLE
    assert not OLD_FUSIBLE & NEWLY_FUSIBLE


def test_commutative_forwarding_and_shape_traits_are_the_pass_tables():
    assert rows_with(lambda op: op.commutative) == OLD_COMMUTATIVE
    # Snapshot and PreventGradient were named but are not registered ops: no row to carry the trait.
    assert rows_with(lambda op: op.forwarding) == OLD_FORWARDING & set(registered_ops())
    assert rows_with(lambda op: op.shape_only) == OLD_SHAPE_OPS
    assert {n: get_op(n).shape_only for n in OLD_SHAPE_OPS} == {"Shape": "shape", "Size": "shape", "Rank": "rank"}


def test_the_memory_plan_and_the_executor_read_what_allocates_and_what_persists():
    types = set(registered_ops()) | {"_Arg"}
    assert {t for t in types if not memory_plan.allocates(node_of(t))} == OLD_NOT_NEW & types
    # VarHandleOp joins: its handle outlives the run too (a copy of a handle is the handle).
    assert {t for t in types if _persistent(node_of(t))} == OLD_PERSISTENT | {"VarHandleOp"}


def test_linear_traits_are_the_forward_mode_rule_tables():
    assert rows_with(lambda op: op.linear == "linear") == OLD_LINEAR
    assert rows_with(lambda op: op.linear == "multilinear") == OLD_MULTILINEAR
    assert rows_with(lambda op: op.linear == "identity") == OLD_IDENTITY


def test_random_trait_is_the_executor_table_and_multinomial():
    # Multinomial draws from the same per-(owner, seeds) streams; it now gets one per graph node, as in TF.
    assert rows_with(lambda op: op.random) == OLD_RANDOM | {"Multinomial"}
    assert all(get_op(n).stateful for n in OLD_RANDOM | {"Multinomial"})


# --- what makes fusing every elementwise row exact ---------------------------------------------------------------
class _Spec:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = TensorShape(shape), dtype


@pytest.mark.parametrize("name", sorted(OLD_FUSIBLE | NEWLY_FUSIBLE))
def test_an_elementwise_kernel_returns_the_dtype_and_broadcast_shape_its_row_declares(name):
    """Fusion decides buffer reuse from static dtypes and shapes: the kernels must agree with them."""
    op = get_op(name)
    rng = np.random.default_rng(0)
    checked = 0
    for dtype in sorted(op.dtypes or [tf.float32], key=lambda d: d.name):
        if dtype._np is None or dtype.is_complex:
            continue
        for shapes in ([(2, 3)], [(2, 3), (3,)], [(2, 3), (3,), (2, 1)]):
            specs = [_Spec(s, dtype) for s in shapes]
            try:
                ((out_dtype, out_shape),) = op.infer(InferenceContext(name, specs, {"DstT": dtype}, lambda t: None))
            except (ValueError, TypeError, KeyError, IndexError):
                continue   # not this many inputs
            arrays = [(rng.integers(1, 4, s) if not dtype.is_floating else rng.uniform(0.1, 0.9, s)).astype(dtype._np)
                      for s in shapes]
            value = op.kernel(NUMPY)(*arrays, **({"DstT": dtype} if name == "Cast" else {}))
            assert np.asarray(value).dtype == out_dtype._np and np.shape(value) == tuple(out_shape.as_list())
            checked += 1
            break
    assert checked


def get_op_type(sess, name):
    return sess.graph.get_operation_by_name(name).type


def test_newly_fused_ops_compute_and_fail_exactly_as_unfused():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [4])
        k = v1.placeholder(tf.int32, [4])
        y = tf.math.xlogy(tf.tan(x) * 0.5, tf.math.atan2(x, x + 1.0)) + tf.math.expm1(x)
        z = tf.bitwise.left_shift(tf.math.truncatediv(k * 3, k), 2) + 1
    xv, kv = np.array([0.1, 0.5, -0.3, 2.0], np.float32), np.array([1, 2, 3, 4], np.int32)
    with v1.Session(graph=g) as sess:
        on = sess.run([y, z], {x: xv, k: kv})
        fused = [op for op in sess.last_plan.ops if op.type == "_FusedElementwise"]
        assert {"Xlogy", "Tan", "Atan2", "Expm1"} <= {get_op_type(sess, n) for op in fused for n in op.fused_from}
        with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
            sess.run(z, {k: np.array([1, 0, 3, 4], np.int32)})
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
    try:
        with v1.Session(graph=g) as sess:
            off = sess.run([y, z], {x: xv, k: kv})
            assert "_FusedElementwise" not in [op.type for op in sess.last_plan.ops]
            with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
                sess.run(z, {k: np.array([1, 0, 3, 4], np.int32)})
    finally:
        tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": False})
    for a, b in zip(on, off):
        np.testing.assert_array_equal(a, b)


# --- registry.override reaches fused kernels, folding and _FusedMatMul ---------------------------------------------
def _counting(ufunc, shift, calls):
    """A kernel factory computing ``ufunc(*inputs) + shift`` and recording each call (attrs: the defaults)."""
    def make(xp):
        def k(*inputs, **attrs):
            calls.append(len(inputs))
            return getattr(xp, ufunc)(*inputs) + inputs[0].dtype.type(shift)
        return k
    return make


def test_an_overridden_exp_runs_inside_the_fused_kernel_of_a_tf_function():
    @tf.function
    def f(x):
        return tf.sin(tf.exp(x) * 2.0) + 1.0

    x = tf.constant([0.5, -1.0, 2.0])
    plain = f(x).numpy()
    concrete = f.get_concrete_function(x)
    calls = []
    with override("Exp", kernel=_counting("exp", 1.0, calls)):
        inside = f(x).numpy()
        (fused,) = [op for op in concrete._plan.ops if op.type == "_FusedElementwise"]
        source = fused.attrs["program"].source
        assert len(fused.fused_from) == 4 and "exp(" not in source and "t0 = k0(i0)" in source   # its kernel
    assert calls == [1]
    np.testing.assert_allclose(inside, np.sin((np.exp(x.numpy()) + 1.0) * 2.0) + 1.0, rtol=1e-6)
    np.testing.assert_array_equal(f(x).numpy(), plain)            # after the block: the registered kernel again
    (fused,) = [op for op in concrete._plan.ops if op.type == "_FusedElementwise"]
    assert calls == [1] and "t0 = exp(i0)" in fused.attrs["program"].source


def test_constant_folding_in_session_run_folds_with_an_overridden_addv2():
    g = tf.Graph()
    with g.as_default():
        y = tf.constant([1.0, 2.0]) + tf.constant([10.0, 20.0])
    calls = []
    with v1.Session(graph=g) as sess:
        assert sess.run(y).tolist() == [11.0, 22.0]
        with override("AddV2", kernel=_counting("add", 100.0, calls)):
            assert sess.run(y).tolist() == [111.0, 122.0]
            assert calls == [2] and [op.type for op in sess.last_plan.ops] == ["Const"]   # folded, by the override
            assert sess.run(y).tolist() == [111.0, 122.0] and calls == [2]              # once, at compile time
        assert sess.run(y).tolist() == [11.0, 22.0]


@pytest.mark.parametrize("swapped", ["MatMul", "AddV2"])
def test_the_remapper_does_not_fuse_an_overridden_op_into_fused_matmul(swapped):
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [2, 3])
        w = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
        y = tf.nn.relu(tf.matmul(x, w) + tf.constant([1.0, -30.0, 0.5, 2.0]))
    xv = np.ones((2, 3), np.float32)
    product, bias = xv @ w.op.get_attr("value"), np.array([1.0, -30.0, 0.5, 2.0], np.float32)
    calls = []
    with v1.Session(graph=g) as sess:
        before = sess.run(y, {x: xv})
        assert [op.type for op in sess.last_plan.ops].count("_FusedMatMul") == 1
        with override(swapped, kernel=_counting("matmul" if swapped == "MatMul" else "add", 1.0, calls)):
            inside = sess.run(y, {x: xv})
            assert "_FusedMatMul" not in [op.type for op in sess.last_plan.ops] and calls == [2]
        after = sess.run(y, {x: xv})
        assert [op.type for op in sess.last_plan.ops].count("_FusedMatMul") == 1
    np.testing.assert_array_equal(before, np.maximum(product + bias, 0))
    np.testing.assert_array_equal(inside, np.maximum(product + bias + 1.0, 0))
    np.testing.assert_array_equal(after, before)


def test_fused_matmul_is_built_from_the_registered_rows():
    """While nothing is overridden, the fused kernel computes exactly what MatMul, BiasAdd and the activation do."""
    a = np.random.default_rng(1).standard_normal((5, 7)).astype(np.float32)
    b = np.random.default_rng(2).standard_normal((4, 7)).astype(np.float32)
    bias = np.random.default_rng(3).standard_normal(4).astype(np.float32)
    fused = get_op("_FusedMatMul").kernel(NUMPY)
    product = get_op("MatMul").kernel(NUMPY)(a, b, transpose_b=True)
    biased = get_op("BiasAdd").kernel(NUMPY)(product, bias)
    for activation in ("Relu", "Relu6", "Elu"):
        want = get_op(activation).kernel(NUMPY)(biased)
        got = fused(a, b, bias, transpose_b=True, fused_ops=("BiasAdd", activation))
        np.testing.assert_array_equal(got, want)
    got = fused(a, b, bias, transpose_b=True, fused_ops=("BiasAdd", "LeakyRelu"), leakyrelu_alpha=0.3)
    np.testing.assert_array_equal(got, get_op("LeakyRelu").kernel(NUMPY)(biased, alpha=0.3))


def test_the_ops_that_run_sub_graphs_say_so():
    # (was control_flow_ops.CONTROL_FLOW_OPS: replaying a function op by op replays these ops' graphs)
    from engine.framework.registry import registered_ops
    assert {name for name, op in registered_ops().items() if op.subgraphs} == {
        "If", "StatelessIf", "While", "StatelessWhile", "WhileGrad"}
