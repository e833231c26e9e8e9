"""The ``executor`` seam: ``Session.run`` on a small executor written here, as a student writes it for A2.

``TinyExecutor`` is the whole assignment: prune from the fetches (stopping at fed tensors), order the
needed ops so each comes after what it depends on, run each op's kernel (``run_kernel``). Real TF1
programs (placeholders, variables, an initializer, an optimizer's ``minimize``, control dependencies,
``tf.cond``) run on it inside ``engine.seams.using(executor=TinyExecutor)`` and give the reference's
results; the reference comes back on leaving the block.
"""
import numpy as np
import pytest

import engine as tf
from engine import seams
from engine.client.executor_seam import EXECUTOR_PROTOCOL, GraphExecutor, run_kernel
from engine.framework.executor import Plan

v1 = tf.compat.v1


class TinyExecutor:
    """A2's executor, the small way: built once per request, run on every ``sess.run``."""

    built = 0   # requests compiled (class-wide, for the tests)
    runs = 0

    def __init__(self, fetches, targets, feeds):
        type(self).built += 1
        self.fetches, self.feeds = list(fetches), list(feeds)
        fed = set(self.feeds)
        self.order, seen = [], set()

        def visit(op):   # depth first: an op goes after everything it depends on
            if op in seen:
                return
            seen.add(op)
            for t in op.inputs:
                if t not in fed:          # a fed tensor replaces its producer
                    visit(t.op)
            for c in op.control_inputs:
                visit(c)
            self.order.append(op)
        for t in self.fetches:
            if t not in fed:
                visit(t.op)
        for op in targets:
            visit(op)

    def run(self, feed_values, runtime):
        type(self).runs += 1
        values = dict(zip(self.feeds, feed_values))
        for op in self.order:
            outputs = run_kernel(op, [values[t] for t in op.inputs], runtime)
            values.update(zip(op.outputs, outputs))
        return [values[t] for t in self.fetches]


class OtherExecutor(TinyExecutor):
    """A second implementation, to check that the innermost ``using`` wins."""

    built = 0
    runs = 0


@pytest.fixture(autouse=True)
def _counts():
    for cls in (TinyExecutor, OtherExecutor):
        cls.built = cls.runs = 0
    yield
    assert seams.current("executor") is GraphExecutor   # no test leaves the seam replaced


def _mlp_graph():
    g = tf.Graph()
    rng = np.random.default_rng(0)
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 4], name="x")
        w = tf.constant(rng.normal(size=(4, 3)).astype(np.float32))
        b = tf.constant(rng.normal(size=(3,)).astype(np.float32))
        hidden = tf.nn.relu(tf.matmul(x, w) + b)
        y = tf.reduce_sum(tf.nn.softmax(hidden), axis=1)
    return g, x, hidden, y


def test_the_reference_fills_the_protocol_and_is_what_sessions_run():
    slot = seams.seam("executor")
    assert slot.protocol == EXECUTOR_PROTOCOL == ("run",)
    assert slot.reference is GraphExecutor and slot.check(GraphExecutor) is GraphExecutor
    g, x, hidden, y = _mlp_graph()
    with v1.Session(graph=g) as sess:
        sess.run(y, {x: np.ones((2, 4), np.float32)})
        assert isinstance(sess.last_plan, GraphExecutor) and isinstance(sess.last_plan, Plan)
        assert "def plan(feeds, runtime):" in sess.last_plan.source   # still the generated plan
    assert TinyExecutor.built == 0


def test_a_placeholder_program_runs_on_the_student_executor_with_the_reference_results():
    g, x, hidden, y = _mlp_graph()
    feed = np.random.default_rng(1).normal(size=(5, 4)).astype(np.float32)
    with v1.Session(graph=g) as sess:
        expected_y, expected_hidden = sess.run([y, hidden], {x: feed})
        with seams.using(executor=TinyExecutor):
            assert seams.current("executor") is TinyExecutor
            got_y, got_hidden = sess.run([y, hidden], {x: feed})
            again = sess.run([y, hidden], {x: feed * 2})
            assert isinstance(sess.last_plan, TinyExecutor)
        assert (TinyExecutor.built, TinyExecutor.runs) == (1, 2)   # built once per request, run per call
        np.testing.assert_allclose(got_y, expected_y, rtol=1e-6)
        np.testing.assert_allclose(got_hidden, expected_hidden, rtol=1e-6)
        np.testing.assert_allclose(again[1], sess.run(hidden, {x: feed * 2}), rtol=1e-6)
    assert TinyExecutor.runs == 2   # the last run was the reference's again


def test_tf1_training_with_variables_initializer_and_minimize():
    """Linear regression, TF1 style: two sessions on one graph, one on each executor, train alike."""
    rng = np.random.default_rng(0)
    features = rng.normal(size=(32, 3)).astype(np.float32)
    targets = features @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.25
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        t = v1.placeholder(tf.float32, [None, 1], name="t")
        w = tf.Variable(np.zeros((3, 1), np.float32), name="w")
        b = tf.Variable(0.0, name="b")
        step = tf.Variable(0, name="step")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - t))
        train = v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        init = v1.global_variables_initializer()

    def train_in(sess):
        assert sess.run(init) is None
        losses = [sess.run([train, loss], {x: features, t: targets})[1] for _ in range(30)]
        return losses, sess.run([w, b, step])

    with v1.Session(graph=g) as reference:
        expected_losses, expected_values = train_in(reference)
    with v1.Session(graph=g) as sess:
        with seams.using(executor=TinyExecutor):
            losses, values = train_in(sess)
    assert TinyExecutor.runs == 32 and TinyExecutor.built == 3   # init, [train, loss], [w, b, step]
    np.testing.assert_allclose(losses, expected_losses, rtol=1e-5)
    assert losses[-1] < 0.05 * losses[0]
    np.testing.assert_allclose(values[0], expected_values[0], rtol=1e-5)
    np.testing.assert_allclose(values[1], expected_values[1], rtol=1e-5)
    assert values[2] == expected_values[2] == 30


def test_uninitialized_variables_and_session_state_as_tf():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(3.0, name="v")
        bump = v.assign_add(1.0)
        init = v1.global_variables_initializer()
    with seams.using(executor=TinyExecutor):
        with v1.Session(graph=g) as first, v1.Session(graph=g) as second:
            with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"):
                first.run(v)
            first.run(init)
            second.run(init)
            first.run(bump)
            assert first.run(v) == 4.0 and second.run(v) == 3.0   # each session has its own variables


def test_feeds_and_errors_are_tfs_on_both_executors():
    g, x, hidden, y = _mlp_graph()
    hidden_value = np.abs(np.random.default_rng(2).normal(size=(2, 3))).astype(np.float32)
    for executor in (None, TinyExecutor):
        with seams.using(executor=executor), v1.Session(graph=g) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="You must feed a value for placeholder tensor 'x' with dtype float32 and "
                                     r"shape \[\?,4\]"):
                sess.run(y)
            # feeding a tensor that is not a placeholder is fine: its producers do not run, x is not needed
            from_hidden = sess.run(y, {hidden: hidden_value})
            expected = (np.exp(hidden_value) / np.exp(hidden_value).sum(1, keepdims=True)).sum(1)
            np.testing.assert_allclose(from_hidden, expected, rtol=1e-6)
            fed_back = sess.run(x, {x: np.full((1, 4), 7.0, np.float32)})   # a fetch that is fed: its value
            np.testing.assert_array_equal(fed_back, np.full((1, 4), 7.0, np.float32))
            with pytest.raises(ValueError, match=r"Cannot feed value of shape \(2,\) for Tensor x:0"):
                sess.run(y, {x: np.ones(2, np.float32)})   # the Session's check, before any executor
    assert TinyExecutor.built == 3


def test_control_dependencies_cond_and_the_other_session_entry_points():
    g = tf.Graph()
    with g.as_default():
        p = v1.placeholder(tf.float32, [], name="p")
        counter = tf.Variable(0.0, name="counter")
        bump = counter.assign_add(1.0)
        with tf.control_dependencies([bump]):
            doubled = tf.identity(p * 2.0)
        branch = tf.cond(p > 0, lambda: p * 10.0, lambda: -p)
        init = v1.global_variables_initializer()
    with seams.using(executor=TinyExecutor):
        sess = v1.InteractiveSession(graph=g)
        try:
            init.run()                                      # Operation.run: the default session
            assert sess.run(doubled, {p: 3.0}) == 6.0 and sess.run(counter) == 1.0   # the control edge ran
            assert branch.eval({p: 2.0}) == 20.0 and branch.eval({p: -4.0}) == 4.0   # Tensor.eval
            call = sess.make_callable(doubled, [p])
            assert call(5.0) == 10.0 and sess.run(counter) == 2.0
        finally:
            sess.close()
    assert TinyExecutor.runs == 7


def test_the_reference_is_restored_on_exit_and_on_exceptions():
    g, x, hidden, y = _mlp_graph()
    feed = np.ones((1, 4), np.float32)
    with v1.Session(graph=g) as sess:
        with pytest.raises(ZeroDivisionError):
            with seams.using(executor=TinyExecutor):
                sess.run(y, {x: feed})
                1 / 0
        assert seams.current("executor") is GraphExecutor
        sess.run(y, {x: feed})
        assert isinstance(sess.last_plan, GraphExecutor) and TinyExecutor.runs == 1
        with pytest.raises(tf.errors.InvalidArgumentError):
            with seams.using(executor=TinyExecutor):
                sess.run(y)                                  # the student executor raised TF's error
        assert seams.current("executor") is GraphExecutor


def test_nesting_the_innermost_executor_wins():
    g, x, hidden, y = _mlp_graph()
    feed = np.ones((1, 4), np.float32)
    with v1.Session(graph=g) as sess:
        with seams.using(executor=TinyExecutor):
            sess.run(y, {x: feed})
            with seams.using(executor=OtherExecutor):
                sess.run(y, {x: feed})
                with seams.using(executor=None):             # None leaves the slot as it is
                    sess.run(y, {x: feed})
            sess.run(y, {x: feed})
    assert (TinyExecutor.runs, OtherExecutor.runs) == (2, 2)
    assert (TinyExecutor.built, OtherExecutor.built) == (1, 1)   # each executor class keeps its own


def test_an_executor_missing_part_of_the_protocol_is_refused_naming_it():
    class NoRun:
        def __init__(self, fetches, targets, feeds):
            pass

        def execute(self, feed_values, runtime):
            return []

    with pytest.raises(TypeError, match=r"NoRun cannot fill the 'executor' seam: it has no run \(the protocol "
                                        r"is: run\)"):
        with seams.using(executor=NoRun):
            pass
    assert seams.current("executor") is GraphExecutor


def test_run_kernel_gives_one_value_per_output():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        parts = tf.split(a, 2, axis=1)
        noop = tf.no_op()
    assert [np.asarray(v).tolist() for v in run_kernel(parts[0].op, [np.int32(1), a.op.attrs["value"]])] == \
        [[[1.0], [3.0]], [[2.0], [4.0]]]
    assert run_kernel(noop, []) == []
    np.testing.assert_array_equal(run_kernel(a.op, [])[0], [[1.0, 2.0], [3.0, 4.0]])
