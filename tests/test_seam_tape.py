"""The tape seam: a second, micrograd-sized tape runs real programs through ``tf.GradientTape``.

``SmallTape`` below is all a tape has to be (``engine.eager.tape.TAPE_PROTOCOL``): it
hears about every op through ``record_operation``/``record_custom``/``variable_accessed``,
keeps the ones on a path from a watched tensor, and walks them backwards calling the
registered gradient functions, ``op_def.grad(op, *output_grads)``. Inside
``engine.seams.using(tape=SmallTape)`` every ``tf.GradientTape()`` in the engine is a
SmallTape: the seed examples, a Keras model trained by a ``tf.function`` step, a
``tf.custom_gradient`` function. Their gradients must equal the reference tape's.
"""
import pathlib
import runpy

import numpy as np
import pytest

import engine as tf
from engine import seams
from engine.eager.tape import GradientTape, pop_tape, push_tape

SEED_EXAMPLES = pathlib.Path(__file__).resolve().parent.parent.parent / "shared" / "seed_examples"


# --- the small tape --------------------------------------------------------------------------------------
class SmallOp:
    """What a gradient function receives as ``op``: TF's Operation interface, the values kept as they are."""

    def __init__(self, op_type, inputs, outputs, attrs):
        self.type = self.name = op_type
        self.inputs, self.outputs, self.attrs = tuple(inputs), tuple(outputs), attrs

    def get_attr(self, name):
        return self.attrs[name] if name in self.attrs else self.inputs[0].dtype   # ("T", the input dtype)


class SmallTape:
    record_calls = 0   # how many ops were offered to a SmallTape (proof that the engine used it)

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self.watch_accessed_variables = watch_accessed_variables
        self.watched, self.entries = set(), []   # ids of watched tensors; (op, gradient function) in order

    def __enter__(self):
        push_tape(self)
        return self

    def __exit__(self, *exc):
        pop_tape(self)

    def watch(self, tensor):
        self.watched.update(t._id for t in tf.nest.flatten(tensor))

    def variable_accessed(self, variable):
        if self.watch_accessed_variables and variable.trainable:
            self.watched.add(variable._id)

    def record_operation(self, op_def, inputs, attrs, outputs):
        SmallTape.record_calls += 1
        if op_def.grad is not None:
            self._record(SmallOp(op_def.name, inputs, outputs, attrs), op_def.grad)

    def record_custom(self, op_type, inputs, outputs, backward):
        self._record(SmallOp(op_type, inputs, outputs, {}), lambda op, *grads: backward(*grads))

    def _record(self, op, grad_fn):
        if any(t._id in self.watched for t in op.inputs):
            self.watched.update(t._id for t in op.outputs)
            self.entries.append((op, grad_fn))

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=None):
        targets = tf.nest.flatten(target)
        seeds = tf.nest.flatten(output_gradients) if output_gradients is not None else [None] * len(targets)
        grads = {t._id: tf.ones_like(t) if s is None else s for t, s in zip(targets, seeds)}
        for op, grad_fn in reversed(self.entries):   # newest first: a tensor's consumers come before it
            out = [grads.get(t._id) for t in op.outputs]
            if all(g is None for g in out):
                continue
            out = [tf.zeros_like(t) if g is None else g for t, g in zip(op.outputs, out)]
            in_grads = grad_fn(op, *out)
            in_grads = in_grads if isinstance(in_grads, (list, tuple)) else [in_grads]
            for x, g in zip(op.inputs, in_grads):
                if g is not None and x.dtype.is_floating:
                    grads[x._id] = g if x._id not in grads else tf.add_n([grads[x._id], g])
        return tf.nest.pack_sequence_as(sources, [grads.get(s._id) for s in tf.nest.flatten(sources)])


# --- helpers ------------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _reference_tape_outside():
    assert seams.current("tape") is GradientTape
    yield
    assert seams.current("tape") is GradientTape   # no test leaves the seam replaced


def on_both(program):
    """``program()`` on the reference tape, then inside ``using(tape=SmallTape)``: both results."""
    reference = program()
    calls = SmallTape.record_calls
    with seams.using(tape=SmallTape):
        small = program()
    assert SmallTape.record_calls > calls, "the program never reached the SmallTape"
    return reference, small


def assert_same(reference, small):
    reference, small = tf.nest.flatten(reference), tf.nest.flatten(small)
    assert len(reference) == len(small)
    for r, s in zip(reference, small):
        assert (r is None) == (s is None)
        if r is not None:
            np.testing.assert_allclose(np.asarray(tf.convert_to_tensor(s)), np.asarray(tf.convert_to_tensor(r)),
                                       rtol=1e-6, atol=1e-7)


def run_example(name):
    return runpy.run_path(str(SEED_EXAMPLES / name), run_name="__main__")


# --- real programs under the small tape -----------------------------------------------------------------------
def test_gradient_tape_builds_a_small_tape_inside_using():
    with seams.using(tape=SmallTape):
        assert type(tf.GradientTape()) is SmallTape
        assert type(tf.GradientTape(persistent=True, watch_accessed_variables=False)) is SmallTape
    assert type(tf.GradientTape()) is GradientTape


def test_seed_example_tape_cubic(capsys):
    reference, small = on_both(lambda: run_example("tape_cubic.py")["dy_dx"])
    assert float(small) == float(reference) == 12.0
    assert "12.0" in capsys.readouterr().out


def test_seed_example_function_train_step():
    """A Keras model trained by a tf.function step: the tape inside the trace is a SmallTape, recording
    symbolic ops; its gradients become graph ops, so every later step runs them."""
    reference, small = on_both(lambda: run_example("function_train_step.py")["losses"])
    assert small[-1] < 0.6 * small[0]
    np.testing.assert_allclose(small, reference, rtol=1e-5)


def test_eager_network_with_gather_broadcasting_and_a_multi_output_op():
    w, b = tf.Variable([[0.5, -1.0], [2.0, 0.25], [1.5, 1.0]]), tf.Variable([0.1, -0.2])
    table = tf.Variable([[1., 2.], [3., 4.], [5., 6.]])

    def program():
        with tf.GradientTape() as tape:
            x = tf.gather(table, [2, 0, 2])          # a sparse gradient for the table (IndexedSlices)
            h = tf.nn.relu(tf.matmul(x, w[:2]) + b)  # broadcasting add, slicing a variable
            low, high = tf.split(h, 2, axis=1)        # a multi-output op, one output used twice
            loss = tf.reduce_sum(low * high + low) + tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=[0, 1, 1], logits=h))
        return tape.gradient(loss, [w, b, table])

    assert_same(*on_both(program))


def test_custom_gradient_under_the_small_tape():
    @tf.custom_gradient
    def clip_grad(x):
        return tf.identity(x), lambda g: tf.clip_by_value(g, -0.5, 0.5)

    def program():
        x = tf.constant([1., -2., 3.])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(clip_grad(x * x) * 3.0)
        return tape.gradient(y, x)

    reference, small = on_both(program)
    assert_same(reference, small)
    np.testing.assert_array_equal(small.numpy(), [1., -2., 3.])   # 2x * clip(3): the custom gradient ran


def test_tf_function_call_under_the_small_tape():
    v = tf.Variable([1., 2.])

    @tf.function
    def f(x):
        return tf.reduce_sum(tf.sin(x) * v ** 2)

    def program():
        x = tf.constant([0.5, -1.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x) * 2.0
        return tape.gradient(y, [x, v])

    reference, small = on_both(program)
    assert_same(reference, small)


def test_output_gradients_seed_the_walk():
    def program():
        x = tf.constant([1., 2.])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.gradient(y, x, output_gradients=tf.constant([3., -1.]))

    reference, small = on_both(program)
    assert_same(reference, small)


# --- the seam itself ------------------------------------------------------------------------------------
def test_restored_on_exit_and_on_exceptions():
    with seams.using(tape=SmallTape):
        assert seams.current("tape") is SmallTape
    assert seams.current("tape") is GradientTape
    with pytest.raises(ZeroDivisionError):
        with seams.using(tape=SmallTape):
            with tf.GradientTape():
                1 / 0
    assert seams.current("tape") is GradientTape
    assert type(tf.GradientTape()) is GradientTape
    from engine.framework.context import ctx
    assert not any(isinstance(t, SmallTape) for t in ctx.tapes)   # the tape left the active list too


def test_nesting_innermost_wins():
    class OtherTape(SmallTape):
        pass

    with seams.using(tape=SmallTape):
        with seams.using(tape=OtherTape):
            assert type(tf.GradientTape()) is OtherTape
        assert type(tf.GradientTape()) is SmallTape
        with seams.using(tape=None):   # None leaves the slot as it is
            assert type(tf.GradientTape()) is SmallTape
    assert type(tf.GradientTape()) is GradientTape


def test_small_and_reference_tapes_record_side_by_side():
    """A SmallTape nested in a reference tape: both hear every op, each computes its own gradient."""
    x = tf.Variable(3.0)
    with GradientTape() as outer:
        with seams.using(tape=SmallTape):
            with tf.GradientTape() as inner:
                y = x * x * x
    assert type(inner) is SmallTape
    assert float(inner.gradient(y, x)) == float(outer.gradient(y, x)) == 27.0


def test_an_implementation_missing_a_protocol_method_is_refused():
    class NoCustom(SmallTape):
        record_custom = None

    class NoWatch:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    with pytest.raises(TypeError, match="NoCustom cannot fill the 'tape' seam: it has no record_custom"):
        with seams.using(tape=NoCustom):
            pass
    with pytest.raises(TypeError, match="no record_operation, record_custom, variable_accessed, watch, gradient "):
        with seams.using(tape=NoWatch):
            pass
    assert seams.current("tape") is GradientTape
