"""Graph mode and Session.run, checked against TensorFlow 2.21 behaviour."""
import collections

import numpy as np
import pytest

import engine as tf

v1 = tf.compat.v1


def test_ops_build_nodes_instead_of_running():
    g = tf.Graph()
    with g.as_default():
        assert tf.executing_eagerly() is False
        a = tf.constant(1.0)
        b = tf.constant(2.0)
        c = a + b
        d = a * b
    assert tf.executing_eagerly() is True
    assert [op.name for op in g.get_operations()] == ["Const", "Const_1", "add", "mul"]
    assert c.name == "add:0" and c.op.type == "AddV2" and c.graph is g
    assert repr(c) == "<tf.Tensor 'add:0' shape=() dtype=float32>"
    assert str(c) == 'Tensor("add:0", shape=(), dtype=float32)'
    assert d.op.inputs == (a, b)
    assert a.op.outputs == [a]


def test_symbolic_tensors_have_no_value():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0) + 1.0
        p = v1.placeholder(tf.float32, [None, 3])
    with pytest.raises(AttributeError, match="^'SymbolicTensor' object has no attribute 'numpy'$"):   # TF 2.21's
        c.numpy()
    with pytest.raises(TypeError, match="Python `bool` is not allowed"):
        bool(c)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        bool(c)
    with pytest.raises(TypeError, match="len is not well defined for a symbolic Tensor"):
        len(p)
    assert hash(c) == id(c) and (c == c) is True  # TF1 graph tensors compare by identity


def test_shape_inference_at_construction():
    g = tf.Graph()
    with g.as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
            tf.matmul(tf.ones([2, 3]), tf.ones([4, 5]))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.ones([2]) + tf.ones([3])
        with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float32 that does not match type int32"):
            tf.constant(1) + tf.constant(1.0)
        p = v1.placeholder(tf.float32, [None, 3])
        y = tf.matmul(p, tf.ones([3, 2]))
        assert y.shape.as_list() == [None, 2]
        z = tf.reduce_sum(y, axis=1)
        assert z.shape.as_list() == [None]


def test_unique_names_and_name_scopes():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0)
        with tf.name_scope("layer"):
            q = tf.add(a, a, name="q")
            r = a * 2
        with tf.name_scope("layer"):
            s = a * 3
        v = tf.Variable(1.0)
        w1 = tf.Variable(2.0, name="w")
        w2 = tf.Variable(2.0, name="w")
    assert (q.name, r.name, s.name) == ("layer/q:0", "layer/mul:0", "layer_1/mul:0")
    assert (v.name, w1.name, w2.name) == ("Variable:0", "w:0", "w_1:0")
    assert repr(v) == "<tf.Variable 'Variable:0' shape=() dtype=float32>"


def test_graph_lookups():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0) + tf.constant(2.0)
    assert g.get_tensor_by_name("add:0") is c
    assert g.get_operation_by_name("add") is c.op
    with pytest.raises(KeyError, match="The operation, 'nothere', does not exist in the graph"):
        g.get_tensor_by_name("nothere:0")
    with pytest.raises(ValueError, match="Tensor names must be of the form"):
        g.get_tensor_by_name("add")


def test_control_dependencies():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0)
        e = a * 2
        with tf.control_dependencies([e]):
            f = a + 1
        assert f.op.control_inputs == [e.op]


def test_session_run_fetch_structures():
    g = tf.Graph()
    Pair = collections.namedtuple("Pair", "x y")
    with g.as_default():
        a = tf.constant(1.0)
        c = a + 2.0
        init = v1.global_variables_initializer()
    with v1.Session(graph=g) as sess:
        out = sess.run({"a": [c, (a,)], "b": init, "p": Pair(c, a)})
        assert out["a"][0] == 3.0 and out["a"][1] == (1.0,) and out["b"] is None
        assert isinstance(out["p"], Pair) and out["p"].y == 1.0
        assert type(sess.run(c)) is np.float32
        assert sess.run("add:0") == 3.0
        with pytest.raises(TypeError):
            sess.run(None)
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session"):
        sess.run(c)


def test_feeds_are_checked():
    g = tf.Graph()
    with g.as_default():
        p = v1.placeholder(tf.float32, [2], name="p")
        q = v1.placeholder(tf.float32, [None, 3])
        y = p * 2
        unrelated = q + 1
    with v1.Session(graph=g) as sess:
        assert sess.run(y, {p: [1, 2]}).tolist() == [2.0, 4.0]
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\) for Tensor p:0, which has shape \(2,\)"):
            sess.run(y, {p: [1.0, 2.0, 3.0]})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="You must feed a value for placeholder tensor 'p' with dtype float32 and shape"):
            sess.run(y)
        # pruning: the unfed placeholder q is in an unrelated branch
        assert sess.run(y, {p: [0.0, 1.0]}).tolist() == [0.0, 2.0]
        del unrelated


def test_feeding_any_tensor_overrides_it():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0)
        c = a * 4.0
    with v1.Session(graph=g) as sess:
        assert sess.run(c, {a: 10.0}) == 40.0


def test_each_op_runs_once_per_run_and_plans_are_cached():
    g = tf.Graph()
    with g.as_default():
        p = v1.placeholder(tf.float32, [])
        shared = p * 2.0
        out = [shared + 1.0, shared + 2.0]
    with v1.Session(graph=g) as sess:
        assert sess.run(out, {p: 1.0}) == [3.0, 4.0]
        plan = next(iter(sess._plans.values()))
        assert sum(op.name.startswith("mul") for op in plan.ops) == 1
        sess.run(out, {p: 2.0})
        assert len(sess._plans) == 1
        assert "def plan(" in plan.source


def test_variables_initializers_and_persistence():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0)
        inc = v.assign_add(1.0, read_value=False)
        set5 = v.assign(5.0)
        init = v1.global_variables_initializer()
        with pytest.raises(NotImplementedError, match="numpy\\(\\) is only available when eager execution"):
            v.numpy()
    assert init.type == "NoOp" and init.name == "init"
    with v1.Session(graph=g) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="Could not find variable Variable"):
            sess.run(v)
        sess.run(init)
        assert sess.run(v) == 1.0
        assert sess.run(inc) is None
        sess.run(inc)
        assert sess.run(v) == 3.0
        assert sess.run(set5) == 5.0
    with v1.Session(graph=g) as other:  # a new session has its own variable values
        other.run(v.initializer)
        assert other.run(v) == 1.0


def test_trainable_variables_collection():
    g = tf.Graph()
    with g.as_default():
        a = tf.Variable(1.0)
        b = tf.Variable(1.0, trainable=False)
        assert v1.trainable_variables() == [a]
        assert v1.global_variables() == [a, b]


def test_gradient_descent_training_in_a_session():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(64, 3)).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        y = v1.placeholder(tf.float32, [None, 1])
        w = tf.Variable(tf.zeros([3, 1]))
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        train = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = v1.global_variables_initializer()
    with v1.Session(graph=g) as sess:
        sess.run(init)
        first = sess.run(loss, {x: xs, y: ys})
        for _ in range(200):
            sess.run(train, {x: xs, y: ys})
        assert sess.run(loss, {x: xs, y: ys}) < 1e-3 * first
        np.testing.assert_allclose(sess.run(w).ravel(), [1.0, -2.0, 0.5], atol=1e-2)


def test_symbolic_gradients_match_the_tape():
    xv = np.array([[0.5, -1.0, 2.0]], np.float64)
    wv = np.array([[1.0], [2.0], [-0.5]], np.float64)

    def f(x, w):
        return tf.reduce_sum(tf.tanh(tf.matmul(x, w)) * tf.exp(x[:, :1]))

    x_e, w_e = tf.constant(xv), tf.constant(wv)
    with tf.GradientTape() as tape:
        tape.watch([x_e, w_e])
        y = f(x_e, w_e)
    eager = tape.gradient(y, [x_e, w_e])

    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float64, [1, 3])
        w = v1.placeholder(tf.float64, [3, 1])
        grads = v1.gradients(f(x, w), [x, w])
    with v1.Session(graph=g) as sess:
        graph_grads = sess.run(grads, {x: xv, w: wv})
    for a, b in zip(eager, graph_grads):
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-12)


def test_second_order_symbolic_gradients():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [])
        y = x ** 3
        (dy,) = v1.gradients(y, [x])
        (d2y,) = v1.gradients(dy, [x])
    with v1.Session(graph=g) as sess:
        assert sess.run([dy, d2y], {x: 2.0}) == [12.0, 12.0]


def test_gradients_unconnected_and_seeds():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(2.0)
        b = tf.constant(3.0)
        y = a * a
        assert v1.gradients(y, [b]) == [None]
        (gz,) = v1.gradients(y, [b], unconnected_gradients="zero")
        (gs,) = v1.gradients(y, [a], grad_ys=[tf.constant(10.0)])
    with v1.Session(graph=g) as sess:
        assert sess.run([gz, gs]) == [0.0, 40.0]


def test_disable_eager_execution_round_trip():
    import subprocess
    import sys
    code = (
        "import engine as tf\n"
        "tf.compat.v1.disable_eager_execution()\n"
        "assert not tf.executing_eagerly()\n"
        "x = tf.compat.v1.placeholder(tf.float32, [2])\n"
        "y = x * 3\n"
        "with tf.compat.v1.Session() as s:\n"
        "    print(s.run(y, {x: [1, 2]}).tolist())\n"
        "tf.compat.v1.enable_eager_execution()\n"
        "print(tf.executing_eagerly(), float(tf.constant(2.0) * 2))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[3.0, 6.0]", "True 4.0"]


def test_placeholder_needs_graph_mode():
    with pytest.raises(RuntimeError, match="not compatible with eager execution"):
        v1.placeholder(tf.float32)


def test_eager_variable_used_in_a_graph_reads_its_current_value():
    v = tf.Variable(3.0)
    g = tf.Graph()
    with g.as_default():
        y = v * 2.0
    sess = v1.Session(graph=g)  # not entered: ops outside run eagerly
    assert sess.run(y) == 6.0
    v.assign(5.0)
    assert sess.run(y) == 10.0
    sess.close()


def test_symbolic_tensors_used_eagerly_get_a_clear_error():
    g = tf.Graph()
    with g.as_default():
        p = v1.placeholder(tf.float32, [2])
    with pytest.raises(TypeError, match="called eagerly on symbolic tensor"):
        tf.exp(p)
    with pytest.raises(TypeError, match="belong to a tf.Graph"):
        tf.constant(1.0) + p


def test_fetching_a_variable_reuses_one_read_and_one_plan():
    """TF fetches ``variable.value()``, made once: a loop that fetches a variable must not grow the graph."""
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0)
        inc = v.assign_add(1.0)
        init = tf.compat.v1.global_variables_initializer()
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        first = sess.run(v)
        ops = len(g.get_operations())
        values = []
        for _ in range(3):
            sess.run(inc)
            values.append(float(sess.run(v)))
        assert len(g.get_operations()) == ops
    assert float(first) == 1.0 and values == [2.0, 3.0, 4.0]


def test_run_time_shape_errors_name_the_node_the_real_shapes_and_the_fed_tensors():
    """A shape known only when fed fails in Session.run with TF's wording, not NumPy's."""
    g = tf.Graph()
    with g.as_default():
        a = tf.compat.v1.placeholder(tf.float32, [None, 3], name="u")
        b = tf.compat.v1.placeholder(tf.float32, [None, 4], name="w")
        c = tf.matmul(a, b)
    with tf.compat.v1.Session(graph=g) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(c, {a: [[1.0, 2.0, 3.0]], b: [[1.0, 2.0, 3.0, 4.0]]})
    message = str(info.value)
    assert "Matrix size-incompatible: In[0]: [1,3], In[1]: [1,4]" in message
    assert "node MatMul" in message and "u:0 (1, 3) float32" in message and "w:0 (1, 4) float32" in message
    assert "gufunc" not in message and "_arg_" not in message


def test_fetching_a_name_the_graph_lacks_is_a_value_error():
    # TF 2.21's session turns the graph lookup's KeyError into ValueError ("cannot be interpreted as a Tensor")
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="c")
    with tf.compat.v1.Session(graph=g) as sess:
        with pytest.raises(ValueError, match=r"cannot be interpreted as a Tensor.*nothere"):
            sess.run("nothere:0")
        with pytest.raises(TypeError):
            sess.run(None)
        assert sess.run("c:0") == 1.0
