"""One door: every path that runs an op goes through its registry row, so ``registry.override`` reaches it.

The probe swaps the kernel of ``Exp`` or ``AddV2`` for one that counts its calls and computes something
recognisably different (``exp(x) + 100``, ``x + y + 1000``), then runs the op every way a user can. Each
test asserts both that the swapped kernel ran and that the result is its result; after the block the
original kernel is back.
"""
import inspect

import numpy as np
import pytest

import engine as tf
from engine.framework import registry
from engine.framework.registry import override

tf1 = tf.compat.v1


class Counting:
    """A kernel factory whose kernels compute ``base(*args) + shift`` and count their calls."""

    def __init__(self, ufunc, shift):
        self.ufunc, self.shift, self.calls = ufunc, shift, 0

    def __call__(self, xp):
        def kernel(*arrays, **attrs):
            self.calls += 1
            return (getattr(xp, self.ufunc)(*arrays) + np.asarray(self.shift, dtype=arrays[0].dtype))[()]
        return kernel


@pytest.fixture
def exp_probe():
    probe = Counting("exp", 100.0)
    with override("Exp", kernel=probe):
        yield probe


@pytest.fixture
def add_probe():
    probe = Counting("add", 1000.0)
    with override("AddV2", kernel=probe):
        yield probe


X = np.array([0.0, 1.0], np.float32)
EXP_SWAPPED = np.exp(X) + 100.0


# --- eager ---------------------------------------------------------------------------------------
def test_eager_public_function(exp_probe):
    np.testing.assert_allclose(tf.exp(tf.constant(X)).numpy(), EXP_SWAPPED, rtol=1e-6)
    assert exp_probe.calls == 1


def test_eager_math_namespace(exp_probe):
    np.testing.assert_allclose(tf.math.exp(X).numpy(), EXP_SWAPPED, rtol=1e-6)
    assert exp_probe.calls == 1


def test_eager_operator(add_probe):
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    np.testing.assert_allclose((a + b).numpy(), [1004.0, 1006.0])
    np.testing.assert_allclose((1.0 + a).numpy(), [1002.0, 1003.0])   # reflected, Python value adopted
    assert add_probe.calls == 2


def test_eager_tf_add(add_probe):
    np.testing.assert_allclose(tf.add(tf.constant([1, 2]), tf.constant([3, 4])).numpy(), [1004, 1006])
    assert add_probe.calls == 1


def test_variable_plus_variable(add_probe):
    v, w = tf.Variable([1.0, 2.0]), tf.Variable([3.0, 4.0])
    np.testing.assert_allclose((v + w).numpy(), [1004.0, 1006.0])
    np.testing.assert_allclose(tf.add(v, w).numpy(), [1004.0, 1006.0])
    assert add_probe.calls == 2


def test_variable_read_goes_through_read_variable_op():
    probe = {"reads": 0}

    def counting_read(xp):
        saved_factory = counting_read.original

        def kernel(handle, **attrs):
            probe["reads"] += 1
            return saved_factory(xp)(handle, **attrs)
        return kernel
    counting_read.original = registry.get_op("ReadVariableOp").make_kernel
    v = tf.Variable([1.0, 2.0])
    with override("ReadVariableOp", kernel=counting_read):
        v.read_value()
        v + 1.0
        with tf.GradientTape() as tape:
            y = v * v
        tape.gradient(y, v)
    assert probe["reads"] >= 3


def test_eager_assign_goes_through_its_op():
    calls = []
    original = registry.get_op("AssignSubVariableOp").make_kernel

    def counting(xp):
        kernel = original(xp)

        def k(handle, value, **attrs):
            calls.append(np.array(value))
            return kernel(handle, value, **attrs)
        return k
    v = tf.Variable([5.0, 6.0])
    with override("AssignSubVariableOp", kernel=counting):
        v.assign_sub([1.0, 1.0])
        tf.keras.optimizers.SGD(learning_rate=1.0).apply_gradients([(tf.constant([1.0, 2.0]), v)])
    np.testing.assert_allclose(v.numpy(), [3.0, 3.0])
    assert len(calls) == 2


# --- graphs ------------------------------------------------------------------------------------------
def test_session_run(exp_probe):
    g = tf.Graph()
    with g.as_default():
        p = tf1.placeholder(tf.float32, [2])
        y = tf.exp(p)
    with tf1.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(y, {p: X}), EXP_SWAPPED, rtol=1e-6)
    assert exp_probe.calls == 1


def test_session_plan_cached_before_the_block_follows_the_override():
    g = tf.Graph()
    with g.as_default():
        p = tf1.placeholder(tf.float32, [2])
        y = tf.exp(p)
    with tf1.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(y, {p: X}), np.exp(X), rtol=1e-6)   # plan compiled and cached
        probe = Counting("exp", 100.0)
        with override("Exp", kernel=probe):
            np.testing.assert_allclose(sess.run(y, {p: X}), EXP_SWAPPED, rtol=1e-6)
        np.testing.assert_allclose(sess.run(y, {p: X}), np.exp(X), rtol=1e-6)   # and back after the block
    assert probe.calls == 1


def test_constant_folding_uses_the_row(exp_probe):
    g = tf.Graph()
    with g.as_default():
        y = tf.exp(tf.constant(X))     # a constant subgraph: folded at compile time
    with tf1.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(y), EXP_SWAPPED, rtol=1e-6)
    assert exp_probe.calls >= 1


def test_tf_function_unoptimized(exp_probe):
    saved = tf.config.optimizer.get_experimental_options()
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
    try:
        f = tf.function(lambda x: tf.exp(x))
        np.testing.assert_allclose(f(tf.constant(X)).numpy(), EXP_SWAPPED, rtol=1e-6)
    finally:
        tf.config.optimizer.set_experimental_options(saved)
    assert exp_probe.calls == 1


def test_tf_function_fused_elementwise_chain(exp_probe):
    @tf.function
    def chain(x):
        return tf.exp(x * 2.0) * 3.0 - 1.0     # a chain the optimizer fuses into one kernel

    got = chain(tf.constant(X)).numpy()
    np.testing.assert_allclose(got, (np.exp(X * 2.0) + 100.0) * 3.0 - 1.0, rtol=1e-6)
    assert exp_probe.calls >= 1


def test_tf_function_traced_before_the_block_follows_the_override():
    @tf.function
    def f(x):
        return tf.exp(x) + 0.0

    np.testing.assert_allclose(f(tf.constant(X)).numpy(), np.exp(X), rtol=1e-6)
    probe = Counting("exp", 100.0)
    with override("Exp", kernel=probe):
        np.testing.assert_allclose(f(tf.constant(X)).numpy(), EXP_SWAPPED, rtol=1e-6)
    np.testing.assert_allclose(f(tf.constant(X)).numpy(), np.exp(X), rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1
    assert probe.calls == 1


# --- gradients ---------------------------------------------------------------------------------------
def _triple_grad(op, grad):
    return tf.multiply(grad, 3.0)


def test_gradient_tape_uses_the_overridden_gradient():
    x = tf.constant(X)
    with override("Exp", grad=_triple_grad):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.exp(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), [3.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.exp(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.exp(X), rtol=1e-6)


def test_tf_gradients_in_a_graph_uses_the_overridden_gradient():
    g = tf.Graph()
    with g.as_default(), override("Exp", grad=_triple_grad):
        p = tf1.placeholder(tf.float32, [2])
        (dy,) = tf.gradients(tf.exp(p), [p])
    with tf1.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(dy, {p: X}), [3.0, 3.0])


def test_tape_inside_tf_function_uses_the_overridden_gradient_and_kernel(exp_probe):
    @tf.function
    def grad_of_exp(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.exp(x)
        return y, tape.gradient(y, x)

    with override("Exp", grad=_triple_grad):
        y, dy = grad_of_exp(tf.constant(X))
    np.testing.assert_allclose(y.numpy(), EXP_SWAPPED, rtol=1e-6)
    np.testing.assert_allclose(dy.numpy(), [3.0, 3.0])


def test_gradient_computation_itself_runs_overridden_kernels(exp_probe):
    # Exp's registered gradient multiplies by the recorded output: the swapped forward kernel's output
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.exp(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), EXP_SWAPPED, rtol=1e-6)


# --- the context manager itself ----------------------------------------------------------------------
def test_override_restores_on_exception_and_nests():
    row = registry.get_op("Exp")
    before = (row.make_kernel, row.grad, row.ufunc, row.overridden)
    outer, inner = Counting("exp", 100.0), Counting("exp", 200.0)
    with pytest.raises(RuntimeError, match="boom"):
        with override("Exp", kernel=outer):
            with override("Exp", kernel=inner):
                np.testing.assert_allclose(tf.exp(tf.constant(0.0)).numpy(), 201.0)
            np.testing.assert_allclose(tf.exp(tf.constant(0.0)).numpy(), 101.0)
            raise RuntimeError("boom")
    assert (row.make_kernel, row.grad, row.ufunc, row.overridden) == before
    assert tf.exp(tf.constant(0.0)).numpy() == 1.0
    assert (outer.calls, inner.calls) == (1, 1)


def test_override_moves_the_generation_and_refuses_bad_arguments():
    start = registry.generation()
    with override("Exp", kernel=Counting("exp", 1.0)):
        assert registry.generation() != start
    with pytest.raises(TypeError, match="kernel factory"):
        with override("Exp", kernel=3):
            pass
    with pytest.raises(TypeError, match="grad"):
        with override("Exp", grad="not a function"):
            pass
    with pytest.raises(KeyError, match="NoSuchOp"):
        with override("NoSuchOp", kernel=Counting("exp", 1.0)):
            pass
    assert registry.get_op("Exp").overridden is False


def test_bad_input_still_gets_tf_errors_with_an_overridden_kernel(add_probe):
    with pytest.raises(tf.errors.InvalidArgumentError, match="AddV2"):
        tf.add(tf.constant([1.0]), tf.constant([1]))


# --- the public functions show the op they bind ------------------------------------------------------
@pytest.mark.parametrize("function, op_type", [
    (tf.add, "AddV2"), (tf.subtract, "Sub"), (tf.multiply, "Mul"), (tf.exp, "Exp"), (tf.math.log, "Log"),
    (tf.maximum, "Maximum"), (tf.equal, "Equal"), (tf.logical_and, "LogicalAnd"), (tf.sqrt, "Sqrt"),
    (tf.math.tan, "Tan"), (tf.math.lgamma, "Lgamma"), (tf.bitwise.left_shift, "LeftShift"),
])
def test_public_functions_are_plain_defs_naming_their_op(function, op_type):
    source = inspect.getsource(function)
    assert source.startswith(f"def {function.__name__}(")
    assert f'"{op_type}"' in source
    assert len(source.splitlines()) <= 6
    assert "<locals>" not in function.__qualname__


def test_tf_add_is_called_add():
    assert tf.add.__name__ == "add"
    assert tf.math.add.__name__ == "add"


def test_eager_scatter_goes_through_its_op():
    calls = []
    original = registry.get_op("ResourceScatterAdd").make_kernel

    def counting(xp):
        kernel = original(xp)

        def k(handle, indices, updates, **attrs):
            calls.append(np.array(indices))
            return kernel(handle, indices, updates, **attrs)
        return k
    v = tf.Variable([1.0, 2.0, 3.0])
    before = v.read_value()
    with override("ResourceScatterAdd", kernel=counting):
        v.scatter_add(tf.IndexedSlices(tf.constant([10.0, 20.0]), tf.constant([0, 0])))
    np.testing.assert_allclose(v.numpy(), [31.0, 2.0, 3.0])     # duplicate indices accumulate
    np.testing.assert_allclose(before.numpy(), [1.0, 2.0, 3.0])   # an earlier read keeps its value
    assert len(calls) == 1


def test_an_op_first_run_inside_an_override_block_runs_after_it():
    # A grad-only override leaves the kernel alone: the kernels built inside the block must still work after it.
    row = registry.get_op("Atan2")
    row._kernels.clear()
    row.cpu_kernel = row.door_kernel = None
    with override("Atan2", grad=lambda op, g: (g, g)):
        inside = tf.math.atan2(tf.constant([1.0]), tf.constant([1.0])).numpy()
    after = tf.math.atan2(tf.constant([1.0]), tf.constant([1.0])).numpy()
    np.testing.assert_allclose(inside, after)
    np.testing.assert_allclose(after, np.arctan2(1.0, 1.0), rtol=1e-6)
