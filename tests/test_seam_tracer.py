"""The ``tracer`` seam: ``tf.function`` on a small tracer written here, as a student writes it.

``TinyTracer`` keys a call by (dtype, shape) for tensors and by value for Python values, and traces by
making a placeholder per tensor argument in a ``FuncGraph``. Real programs (the seed example's Keras
training step, gradients, AutoGraph, variables) run on it inside ``engine.seams.using(tracer=...)``
with the reference's results; the tracing counts follow its keys; the reference comes back after.
"""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import engine as tf
from engine import seams
from engine.tracing.function import TRACER_PROTOCOL, ConcreteFunction, FunctionTracer
from engine.framework.func_graph import FuncGraph


def _is_tensor(x):
    return isinstance(x, (tf.Tensor, tf.TensorSpec, np.ndarray))


class TinyTracer:
    """A tf.function tracer, the small way: built once per tf.function."""

    keys = 0     # calls keyed, traces made (class-wide, for the tests)
    traces = 0

    def __init__(self, python_function):
        self.python_function = python_function

    def cache_key(self, args, kwargs):
        type(self).keys += 1
        structure = repr(tf.nest.map_structure(lambda _: 0, (args, kwargs)))
        return structure, tuple(self.leaf_key(x) for x in tf.nest.flatten((args, kwargs)))

    def leaf_key(self, x):
        if _is_tensor(x):                        # a tensor by its type: dtype and shape
            return "tensor", tf.as_dtype(x.dtype), tuple(tf.TensorShape(x.shape).as_list())
        if isinstance(x, (bool, int, float, str, type(None))):
            return "value", type(x), x           # a Python value by value: it is baked into the graph
        return "object", id(x)                   # anything else (a variable, a model) by identity

    def placeholder_shape(self, x):
        return x.shape

    def trace(self, args, kwargs):
        type(self).traces += 1
        graph = FuncGraph(getattr(self.python_function, "__name__", "function"))
        flat = [graph.add_input(x.dtype, self.placeholder_shape(x)) if _is_tensor(x) else x
                for x in tf.nest.flatten((args, kwargs))]
        call_args, call_kwargs = tf.nest.pack_sequence_as((args, kwargs), flat)
        with graph.as_default():
            graph.set_outputs(self.python_function(*call_args, **call_kwargs))
        return ConcreteFunction(graph)


class DtypeTracer(TinyTracer):
    """Keys tensors by dtype only, so its placeholders must accept any shape."""

    keys = 0
    traces = 0

    def leaf_key(self, x):
        return ("tensor", tf.as_dtype(x.dtype)) if _is_tensor(x) else super().leaf_key(x)

    def placeholder_shape(self, x):
        return None


@pytest.fixture(autouse=True)
def _counts():
    for cls in (TinyTracer, DtypeTracer):
        cls.keys = cls.traces = 0
    yield
    assert seams.current("tracer") is FunctionTracer   # no test leaves the seam replaced


def test_the_reference_fills_the_protocol():
    slot = seams.seam("tracer")
    assert slot.protocol == TRACER_PROTOCOL == ("cache_key", "trace")
    assert slot.reference is FunctionTracer and slot.check(FunctionTracer) is FunctionTracer
    assert not slot.replaced


def test_calls_are_keyed_and_traced_by_the_student_tracer_with_the_reference_results():
    def affine(x, scale, shift=1.0):
        return tf.nn.relu(x * scale + shift), tf.reduce_sum(x)

    x3 = tf.constant([-1.0, 2.0, 3.0])
    x4 = tf.constant([[1.0, -2.0], [3.0, 4.0]])
    expected = [tf.function(affine)(x, s) for x, s in [(x3, 2.0), (x4, 2.0), (x3, 3.0)]]
    f = tf.function(affine)
    with seams.using(tracer=TinyTracer):
        got = [f(x, s) for x, s in [(x3, 2.0), (x4, 2.0), (x3, 3.0), (x3, 2.0), (x3, 3.0)]]
        assert f(x=x3, scale=2.0, shift=1.0)[1].numpy() == 4.0   # the same call, canonicalized: no trace
    assert TinyTracer.keys == 6
    assert TinyTracer.traces == 3 == f.experimental_get_tracing_count()   # 2 shapes x (3,); scale 2.0, 3.0
    for (y, total), (ey, etotal) in zip(got, expected + expected[::2]):
        np.testing.assert_allclose(y.numpy(), ey.numpy(), rtol=1e-6)
        assert total.numpy() == etotal.numpy()


def test_a_tracer_keyed_by_dtype_traces_once_for_two_shapes():
    square = tf.function(lambda x: x * x)
    with seams.using(tracer=DtypeTracer):
        a = square(tf.constant([1.0, 2.0]))
        b = square(np.array([[3.0]], np.float32))      # a NumPy argument is a tensor argument
        c = square(tf.constant([1, 2, 3]))             # another dtype: another trace
    assert DtypeTracer.traces == 2 == square.experimental_get_tracing_count()
    assert a.numpy().tolist() == [1.0, 4.0] and b.numpy().tolist() == [[9.0]] and c.numpy().tolist() == [1, 4, 9]
    with seams.using(tracer=TinyTracer):                # keyed by shape as well: three traces
        for x in ([1.0, 2.0], [[3.0]], [1.0, 5.0]):
            square(tf.constant(x))
    assert TinyTracer.traces == 2 and square.experimental_get_tracing_count() == 4


def test_a_key_that_forgets_what_the_graph_needs_meets_tfs_shape_check():
    class Sloppy(TinyTracer):
        def leaf_key(self, x):                   # dtype only, but placeholders of the first call's shape
            return ("tensor", tf.as_dtype(x.dtype)) if _is_tensor(x) else super().leaf_key(x)

    double = tf.function(lambda x: x + x)
    with seams.using(tracer=Sloppy):
        double(tf.constant([1.0, 2.0]))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"input #0 must have shape \(2,\) but has "
                                                                 r"shape \(3,\)"):
            double(tf.constant([1.0, 2.0, 3.0]))


def test_existing_functions_use_the_tracer_inside_the_block_only():
    f = tf.function(lambda x: x * 2.0)
    x = tf.constant([1.0, 2.0])
    assert f(x).numpy().tolist() == [2.0, 4.0] and f.experimental_get_tracing_count() == 1
    with seams.using(tracer=TinyTracer):
        assert f(x).numpy().tolist() == [2.0, 4.0]     # traced again, by the student's tracer
        assert f(x).numpy().tolist() == [2.0, 4.0]
    assert TinyTracer.traces == 1 and f.experimental_get_tracing_count() == 2
    f(x)                                               # the reference's trace is reused
    assert f.experimental_get_tracing_count() == 2 and TinyTracer.keys == 2


def test_restored_on_exceptions_and_nesting_keeps_a_cache_per_tracer():
    f = tf.function(lambda x: x - 1.0)
    x = tf.constant(3.0)
    with pytest.raises(RuntimeError, match="boom"):
        with seams.using(tracer=TinyTracer):
            f(x)
            raise RuntimeError("boom")
    assert seams.current("tracer") is FunctionTracer
    with seams.using(tracer=TinyTracer):
        f(x)                                          # TinyTracer's trace from before, reused
        with seams.using(tracer=DtypeTracer):
            assert seams.current("tracer") is DtypeTracer
            f(x)
            f(tf.constant([1.0, 2.0]))
        f(x)
    assert (TinyTracer.traces, TinyTracer.keys) == (1, 3) and (DtypeTracer.traces, DtypeTracer.keys) == (1, 2)


def test_a_tracer_missing_part_of_the_protocol_is_refused_naming_it():
    class KeyOnly:
        def __init__(self, python_function):
            pass

        def cache_key(self, args, kwargs):
            return 0

    with pytest.raises(TypeError, match=r"KeyOnly cannot fill the 'tracer' seam: it has no trace \(the protocol "
                                        r"is: cache_key, trace\)"):
        with seams.using(tracer=KeyOnly):
            pass
    assert seams.current("tracer") is FunctionTracer


def test_gradients_autograph_and_variables_through_a_student_trace():
    w = tf.Variable([1.0, -1.0])
    other = tf.Variable([5.0, 5.0])

    def step(x, v, lr):
        if tf.reduce_sum(x) > 0:                        # AutoGraph: a tf.cond in the traced graph
            y = tf.reduce_sum(x * v)
        else:
            y = -tf.reduce_sum(x * v)
        v.assign_sub(lr * x)
        return y

    def run(tracer):
        w.assign([1.0, -1.0])
        other.assign([5.0, 5.0])
        f = tf.function(step)
        x = tf.constant([2.0, 1.0])
        with seams.using(tracer=tracer):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x, w, 0.5)
            grad = tape.gradient(y, x)
            neg = f(-x, other, 0.5)                     # another variable: by identity, another trace
        return y.numpy(), grad.numpy(), neg.numpy(), w.numpy(), other.numpy(), f.experimental_get_tracing_count()

    expected = run(None)
    got = run(TinyTracer)
    for e, g in zip(expected[:5], got[:5]):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    assert got[1].tolist() == [1.0, -1.0]              # d(x . w)/dx, with w read before the update
    assert got[3].tolist() == [0.0, -1.5] and got[4].tolist() == [6.0, 5.5]
    assert expected[5] == 1 and got[5] == 2 == TinyTracer.traces   # the reference keys variables by type


def test_variables_created_on_the_first_call_are_traced_twice_as_tf():
    class Counter(tf.Module):
        def __init__(self):
            self.v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(0.0)
            self.v.assign_add(x)
            return self.v.read_value()

    with seams.using(tracer=TinyTracer):
        c = Counter()
        assert c(tf.constant(2.0)).numpy() == 2.0 and c(tf.constant(3.0)).numpy() == 5.0
    assert TinyTracer.traces == 2 == c.__call__.experimental_get_tracing_count()   # TF 2.21's rule


def test_input_signature_and_get_concrete_function_give_the_tracer_specs():
    seen = []

    class Recording(TinyTracer):
        def trace(self, args, kwargs):
            seen.append(args)
            return super().trace(args, kwargs)

    f = tf.function(lambda x: tf.reduce_max(x), input_signature=[tf.TensorSpec([None], tf.float32)])
    with seams.using(tracer=Recording):
        assert f(tf.constant([1.0, 4.0])).numpy() == 4.0
        assert f([3.0, 2.0, 1.0]).numpy() == 3.0           # converted to the signature's dtype
        concrete = f.get_concrete_function()
    assert len(seen) == 1 and seen[0] == (tf.TensorSpec([None], tf.float32),)
    assert isinstance(concrete, ConcreteFunction) and concrete.inputs[0].shape.as_list() == [None]
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
        with seams.using(tracer=Recording):
            f(tf.constant([[1.0]]))


def test_the_reference_tracer_through_the_seam_matches_the_reference():
    v = tf.Variable(2.0)
    f = tf.function(lambda x, var: x * var)
    with seams.using(tracer=FunctionTracer):
        assert f(tf.constant(3.0), v).numpy() == 6.0
        assert f(tf.constant(4.0), tf.Variable(0.5)).numpy() == 2.0   # one trace: variables by dtype/shape
    assert f.experimental_get_tracing_count() == 1


def test_keras_fit_and_a_dataset_map_run_on_the_student_tracer():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 4)).astype(np.float32)
    y = (x.sum(1) > 0).astype(np.int32)

    def train(tracer):
        tf.random.set_seed(0)
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8, activation="relu"),
                                     tf.keras.layers.Dense(2)])
        model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        with seams.using(tracer=tracer):
            history = model.fit(x, y, batch_size=32, epochs=2, verbose=0).history
            doubled = [b.numpy() for b in tf.data.Dataset.from_tensor_slices(x).map(lambda a: a * 2.0).batch(50)]
        return history["loss"], doubled, model.train_function.experimental_get_tracing_count()

    expected_loss, expected_doubled, reference_traces = train(None)
    loss, doubled, traces = train(TinyTracer)
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-6)
    np.testing.assert_array_equal(np.concatenate(doubled), x * 2.0)
    assert reference_traces == 1   # Keras traces once for a batch of unknown size; the reference serves all sizes
    assert traces == 3             # TinyTracer keys by exact shape: Keras' (None, 4) spec, batches of 32 and of 4


ROOT = pathlib.Path(__file__).resolve().parent.parent
SEED = ROOT / ".." / "shared" / "seed_examples" / "function_train_step.py"
_DRIVER = """
import json, runpy, sys
sys.path.insert(0, {tests!r})
from engine import seams
import test_seam_tracer as student
tracer = student.TinyTracer if sys.argv[1] == "student" else None
with seams.using(tracer=tracer):
    result = runpy.run_path({seed!r}, run_name="__main__")
print(json.dumps({{"losses": result["losses"], "traces": result["traces"], "student_traces": student.TinyTracer.traces,
                  "student_keys": student.TinyTracer.keys}}))
"""


def _run_seed(which):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    driver = _DRIVER.format(tests=str(ROOT / "tests"), seed=str(SEED))
    done = subprocess.run([sys.executable, "-c", driver, which], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, f"{which}:\n{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_seed_keras_train_step_trains_on_the_student_tracer():
    assert SEED.is_file(), f"{SEED.resolve()} is missing: ../shared must be checked out beside the project"
    reference, student = _run_seed("reference"), _run_seed("student")
    assert reference["student_traces"] == 0
    assert student["student_traces"] == 2 == student["traces"][-1] == reference["traces"][-1]   # creates Adam's slots
    assert student["student_keys"] == len(student["losses"]) == 160
    np.testing.assert_allclose(student["losses"], reference["losses"], rtol=1e-6)
    assert student["losses"][-1] < 0.6 * student["losses"][0]
