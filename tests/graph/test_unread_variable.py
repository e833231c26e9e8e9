"""``v.assign_add(...)`` in a graph returns TF's ``_UnreadVariable``: the value is read only where used.

Recorded from TF 2.21: a ``tf.function`` that assigns and ignores the result has no
``ReadVariableOp`` (``x``, the captured handle, ``AssignAddVariableOp``, ``mul/y``, ``mul``, ``Identity``,
``NoOp``); a result that is used is read after the assignment; ``control_dependencies`` on it waits
for the assignment op (its ``op``); in a ``tf.Graph``, ``sess.run`` of it runs the assignment, then reads.
"""
import engine as tf


def test_an_unused_result_is_never_read_in_a_function():
    v = tf.Variable(1)

    @tf.function
    def f(x):
        v.assign_add(x)
        return x * 2
    graph = f.get_concrete_function(tf.constant(1)).graph
    assert "ReadVariableOp" not in [op.type for op in graph.get_operations()]
    assert int(f(tf.constant(3))) == 6 and int(v.numpy()) == 4


def test_a_used_result_is_read_after_the_assignment():
    v = tf.Variable(1.0)

    @tf.function
    def f():
        return v.assign_add(2.0) * 10.0, v.assign(5.0).read_value()
    a, b = f()
    assert (float(a), float(b), float(v.numpy())) == (30.0, 5.0, 5.0)

    @tf.function
    def g():
        unread = v.assign_add(1.0)
        with tf.control_dependencies([unread]):
            return v.read_value()
    assert float(g()) == 6.0
    # TF 2.21's last two ops: the output's Identity, and the NoOp of the side effects it waits for
    assert [op.type for op in g.get_concrete_function().graph.get_operations()[-2:]] == ["Identity", "NoOp"]


def test_in_a_graph_session_run_of_the_result_assigns_then_reads():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0)
        inc = v.assign_add(1.0)
        assert inc.op.type == "AssignAddVariableOp"
        with tf.compat.v1.Session() as sess:
            sess.run(v.initializer)
            assert [float(sess.run(inc)) for _ in range(3)] == [2.0, 3.0, 4.0]
            sess.run(tf.compat.v1.group(v.assign(0.0)))
            assert float(sess.run(v)) == 0.0
