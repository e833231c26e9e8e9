"""tf.cond, tf.while_loop, tf.case, tf.switch_case: values, graph ops, errors and gradients.

Golden values and messages recorded from TensorFlow 2.21.
"""
import numpy as np
import pytest

import engine as tf



def op_types(f, *args):
    return sorted({op.type for op in f.get_concrete_function(*args).graph.get_operations()})


def power(x, n):
    """x ** n with a while loop (i, y) -> (i + 1, y * x)."""
    return tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * x), (0, tf.ones_like(x)))[1]


def grad(f, *args, wrt=0):
    args = [tf.constant(a) for a in args]
    with tf.GradientTape() as tape:
        tape.watch(args[wrt])
        y = f(*args)
    return y, tape.gradient(y, args[wrt])


def finite_difference(f, *args, wrt=0, eps=1e-6):
    args = [np.float64(a) for a in args]
    hi, lo = list(args), list(args)
    hi[wrt] += eps
    lo[wrt] -= eps
    return (float(f(*[tf.constant(a) for a in hi])) - float(f(*[tf.constant(a) for a in lo]))) / (2 * eps)


# --------------------------------------------------------------------------------------
# cond
# --------------------------------------------------------------------------------------
def test_cond_eager_runs_one_branch_and_returns_python_values_as_is():
    assert tf.cond(tf.constant(True), lambda: 1, lambda: 2) == 1      # TF: 1 (not converted)
    assert tf.cond(True, lambda: 1, lambda: 2) == 1
    calls = []
    tf.cond(tf.constant(False), lambda: calls.append("t"), lambda: calls.append("f"))
    assert calls == ["f"]


def test_cond_in_a_function_builds_stateless_if():
    f = tf.function(lambda x: tf.cond(x > 0, lambda: x * 2.0, lambda: -x))
    assert float(f(tf.constant(3.0))) == 6.0 and float(f(tf.constant(-2.0))) == 2.0
    assert op_types(f, tf.constant(1.0)) == ["Const", "Greater", "Identity", "Placeholder", "StatelessIf"]  # as TF
    assert f.experimental_get_tracing_count() == 1


def test_cond_with_side_effects_is_a_stateful_if_that_always_runs():
    v = tf.Variable(0.0)

    @tf.function
    def f(x):
        tf.cond(x > 0, lambda: v.assign_add(x), lambda: v.assign_sub(1.0))
        return v.read_value()

    assert float(f(tf.constant(2.0))) == 2.0
    assert float(f(tf.constant(-5.0))) == 1.0
    assert "If" in op_types(f, tf.constant(1.0))                                         # TF: If


def test_cond_nested_structures_and_none():
    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: {"a": x, "b": (x + 1, None)}, lambda: {"a": -x, "b": (x - 1, None)})

    out = f(tf.constant(2.0))
    assert float(out["a"]) == 2.0 and float(out["b"][0]) == 3.0 and out["b"][1] is None
    assert tf.function(lambda x: tf.cond(x > 0, lambda: None, lambda: None))(tf.constant(1.0)) is None  # TF: None


def test_cond_errors():
    with pytest.raises(TypeError, match="true_fn and false_fn arguments to tf.cond must have the same number, type, "
                                        "and overall structure of return values"):
        tf.function(lambda x: tf.cond(x > 0, lambda: x, lambda: 1))(tf.constant(1.0))
    with pytest.raises(TypeError, match="have different types"):
        tf.function(lambda x: tf.cond(x > 0, lambda: x, lambda: 1))(tf.constant(1.0))
    with pytest.raises(TypeError, match="must have the same number"):
        tf.function(lambda x: tf.cond(x > 0, lambda: (x, x), lambda: x))(tf.constant(1.0))
    with pytest.raises(TypeError, match="cond\\(\\): 'false_fn' argument required"):                # TF's text
        tf.cond(tf.constant(True), lambda: 1)
    with pytest.raises(TypeError, match="pred must not be a Python bool"):
        tf.function(lambda x: tf.cond(True, lambda: x, lambda: -x))(tf.constant(1.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"The second input must be a scalar, but it has "
                                                             r"shape \[2\]"):
        tf.function(lambda x: tf.cond(x > 0, lambda: x, lambda: x))(tf.constant([1.0, 2.0]))


def test_cond_gradients_eager_and_in_a_function_match_finite_differences():
    def f(x):
        return tf.cond(x > 1.0, lambda: x * x, lambda: 2.0 * x - 1.0) * 3.0

    for x0, (value, slope) in [(3.0, (27.0, 18.0)), (0.5, (0.0, 6.0))]:     # TF 2.21 golden values
        for fn in (f, tf.function(f)):
            y, g = grad(fn, x0)
            assert (float(y), float(g)) == (value, slope)
        assert float(grad(tf.function(f), x0)[1]) == pytest.approx(finite_difference(f, x0), rel=1e-6)


def test_cond_gradient_reaches_captured_variables():
    v = tf.Variable(2.0)
    f = tf.function(lambda x: tf.cond(x > 0, lambda: x * v, lambda: v * v))
    for x0, expected in [(3.0, (6.0, 3.0)), (-3.0, (4.0, 4.0))]:                # TF 2.21: (y, dy/dv)
        with tf.GradientTape() as tape:
            y = f(tf.constant(x0))
        assert (float(y), float(tape.gradient(y, v))) == expected


def test_cond_gradient_through_graph_mode_gradients():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [])
        w = tf.Variable(2.0)
        z = tf.cond(x > 0, lambda: x * w, lambda: w * w)
        dz = tf.gradients(z, [x, w])
        init = tf.compat.v1.global_variables_initializer()
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        assert [float(v) for v in sess.run(dz, {x: 3.0})] == [2.0, 3.0]
        assert [float(v) for v in sess.run(dz, {x: -3.0})] == [0.0, 4.0]
    # The gradient is itself a cond (over the branches' gradient graphs); the forward cond now also outputs
    # the forward values the backward branches read (here x and w, read inside the branches).
    conds = [op for op in g.get_operations() if op.type in ("If", "StatelessIf")]
    assert len(conds) == 2 and conds[1].name.endswith("cond_grad")
    assert len(conds[0].outputs) > 1


def test_nested_cond_gradients():
    def f(x):
        return tf.cond(x > 0, lambda: tf.cond(x > 1, lambda: x * x * x, lambda: x * x), lambda: -x)

    for x0, slope in [(2.0, 12.0), (0.5, 1.0), (-1.0, -1.0)]:
        assert float(grad(tf.function(f), x0)[1]) == slope
        assert float(grad(f, x0)[1]) == slope


def test_case_and_switch_case():
    assert int(tf.case([(tf.constant(False), lambda: tf.constant(1)), (tf.constant(True), lambda: tf.constant(2))],
                       default=lambda: tf.constant(3))) == 2                                    # TF: 2
    f = tf.function(lambda x: tf.switch_case(x, [lambda: tf.constant(10), lambda: tf.constant(20)]))
    assert int(f(tf.constant(0))) == 10 and int(f(tf.constant(5))) == 20        # TF: out of range -> last branch
    g = tf.function(lambda x: tf.case([(x > 0, lambda: tf.constant(1)), (x > 1, lambda: tf.constant(2))]))
    assert int(g(tf.constant(5.0))) == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="assertion failed: \\[Input error: None of conditions "
                                                             "evaluated as True"):
        g(tf.constant(-1.0))


# --------------------------------------------------------------------------------------
# while_loop
# --------------------------------------------------------------------------------------
def test_while_loop_eager_is_a_python_loop():
    out = tf.while_loop(lambda i: i < 3, lambda i: (i + 1,), (0,))
    assert isinstance(out, tuple) and int(out[0]) == 3                                  # TF: (<tf.Tensor 3>,)
    assert int(tf.while_loop(lambda i: i < 30, lambda i: (i + 1,), (0,), maximum_iterations=5)[0]) == 5


def test_while_loop_in_a_function_builds_one_op_and_traces_once():
    f = tf.function(power)
    assert float(f(tf.constant(1.5), tf.constant(4))) == 5.0625
    assert float(f(tf.constant(2.0), tf.constant(10))) == 1024.0
    assert f.experimental_get_tracing_count() == 1
    assert op_types(f, tf.constant(1.5), tf.constant(4)) == ["Const", "Identity", "OnesLike", "Placeholder",
                                                              "StatelessWhile"]
    g = tf.function(lambda: tf.while_loop(lambda i: i < 30, lambda i: i + 1, [0], maximum_iterations=5))
    assert [int(t) for t in g()] == [5]                                                   # TF: [5]


def test_while_loop_collatz_with_a_nested_cond():
    @tf.function
    def collatz(n):
        def body(n, steps):
            return tf.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1), steps + 1
        return tf.while_loop(lambda n, steps: n != 1, body, (n, 0))[1]

    assert [int(collatz(tf.constant(n))) for n in (27, 6, 1)] == [111, 8, 0]        # TF 2.21: 111, 8, 0
    assert collatz.experimental_get_tracing_count() == 1


def test_while_loop_shape_invariants_let_a_loop_variable_grow():
    @tf.function
    def grow(n):
        x = tf.ones([1])
        return tf.while_loop(lambda i, x: i < n, lambda i, x: (i + 1, tf.concat([x, x * 2.0], 0)), (0, x),
                             shape_invariants=(tf.TensorShape([]), tf.TensorShape([None])))[1]

    assert grow(tf.constant(3)).numpy().tolist() == [1.0, 2.0, 2.0, 4.0, 2.0, 4.0, 4.0, 8.0]


def test_while_loop_errors():
    with pytest.raises(ValueError, match=r"Input tensor `.*` enters the loop with shape \(1,\), but has shape \(2,\) "
                                         r"after one iteration. To allow the shape to vary across iterations, use "
                                         r"the `shape_invariants` argument of tf.while_loop"):
        tf.function(lambda: tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.concat([x, x], 0)),
                                          (0, tf.zeros([1]))))()
    with pytest.raises(TypeError, match=r"Loop var .* enters the loop with type <dtype: 'float32'> but has type "
                                        r"<dtype: 'int32'> after 1 iteration"):
        tf.function(lambda: tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.cast(x, tf.int32)),
                                          (0, tf.zeros([1]))))()
    with pytest.raises(ValueError, match="The two structures don't have the same nested structure"):
        tf.function(lambda: tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1,), (0, tf.zeros([1]))))()
    with pytest.raises(TypeError, match="'cond' must be callable."):
        tf.while_loop(1, lambda i: i + 1, [0])
    with pytest.raises(TypeError, match="'body' must be callable."):
        tf.while_loop(lambda i: i < 3, 1, [0])
    with pytest.raises(ValueError, match="'loop_vars' must be provided."):
        tf.while_loop(lambda: True, lambda: (), [])


def test_while_gradient_matches_unrolled_loop_and_finite_differences():
    y, g = grad(tf.function(power), 1.5, 4)
    assert (float(y), float(g)) == (5.0625, 13.5)                                      # TF 2.21: 13.5
    y_eager, g_eager = grad(power, 1.5, 4)
    assert float(g_eager) == 13.5

    def unrolled(x):
        return x * x * x * x
    assert float(grad(unrolled, 1.5)[1]) == 13.5
    x64 = np.float64(0.7)
    assert float(grad(tf.function(power), x64, 5)[1]) == pytest.approx(
        finite_difference(lambda x: power(x, 5), x64), rel=1e-7)


def test_while_gradient_with_a_cond_inside_and_a_loop_inside_a_cond():
    def piecewise(x):
        def body(i, x):
            return i + 1, tf.cond(x > 2.0, lambda: x * 0.5, lambda: x * x + 1.0)
        return tf.while_loop(lambda i, x: i < 4, body, (0, x))[1]

    for x0, (value, slope) in [(0.3, (2.1969456672668457, 1.431017518043518)), (1.5, (1.8203125, 2.4375)),
                               (5.0, (1.28125, 0.3125))]:                                 # TF 2.21 golden values
        y, g = grad(tf.function(piecewise), x0)
        assert float(y) == pytest.approx(value, rel=1e-6) and float(g) == pytest.approx(slope, rel=1e-6)

    f = tf.function(lambda x: tf.cond(x > 0, lambda: power(x, 3) * x, lambda: x * 2.0))
    assert [float(v) for v in grad(f, 2.0)] == [16.0, 32.0]
    assert [float(v) for v in grad(f, -1.0)] == [-2.0, 2.0]


def test_nested_while_gradient_and_a_persistent_tape_asking_twice():
    @tf.function
    def series(x):                     # 1 + x + x^2 + x^3, the inner loop computes x^i
        def outer(i, acc):
            return i + 1, acc + power(x, i)
        return tf.while_loop(lambda i, acc: i < 4, outer, (0, tf.constant(0.0)))[1]

    x = tf.constant(1.5)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = series(x)
    assert float(y) == 8.125
    assert float(tape.gradient(y, x)) == 1 + 2 * 1.5 + 3 * 1.5 ** 2
    assert float(tape.gradient(y, x)) == 10.75


def test_while_gradient_for_captured_tensors_variables_and_zero_iterations():
    f = tf.function(lambda x, n: tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y + x * x),
                                               (0, tf.constant(1.0)))[1])
    assert float(grad(f, 3.0, 2)[1]) == 12.0
    y, g = grad(f, 3.0, 0)
    assert float(y) == 1.0 and float(g) == 0.0                  # the loop never ran: zero, not None
    v = tf.Variable(3.0)
    h = tf.function(lambda x: tf.while_loop(lambda i, p: i < 3, lambda i, p: (i + 1, p * v), (0, x))[1])
    with tf.GradientTape() as tape:
        y = h(tf.constant(2.0))
    assert (float(y), float(tape.gradient(y, v))) == (54.0, 54.0)


def test_while_gradient_with_a_tape_inside_the_function():
    v = tf.Variable(2.0)

    @tf.function
    def train_step(x):
        with tf.GradientTape() as tape:
            y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * v), (0, x))[1]
        return tape.gradient(y, v)

    assert float(train_step(tf.constant(1.5))) == 18.0                                    # TF 2.21: 18.0


def test_while_gradient_in_graph_mode_with_varying_shapes():
    g = tf.Graph()
    with g.as_default():
        w = tf.compat.v1.placeholder(tf.float32, [])
        x = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.concat([x, x * w], 0)), (0, tf.ones([1])),
                          shape_invariants=(tf.TensorShape([]), tf.TensorShape([None])))[1]
        y = tf.reduce_sum(x)
        dy = tf.gradients(y, w)[0]
    with tf.compat.v1.Session(graph=g) as sess:
        assert [float(v) for v in sess.run([y, dy], {w: 2.0})] == [27.0, 27.0]     # (1 + w)^3, 3 (1 + w)^2


def test_while_gradient_keeps_forward_values_instead_of_recomputing():
    """Each iteration multiplies by a fresh random number: recomputing the forward pass would draw new ones."""
    @tf.function
    def f(x):
        return tf.while_loop(lambda i, y: i < 5, lambda i, y: (i + 1, y * tf.random.uniform([], 1.0, 2.0)),
                             (0, x))[1]

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(float(tape.gradient(y, x)), float(y) / 3.0, rtol=1e-6)
    op = next(op for op in f.get_concrete_function(x).graph.get_operations() if op.type == "While")
    assert op.attrs["_record"] and op.outputs[-1].dtype.name == "variant"


def test_a_loop_without_gradients_keeps_no_record():
    f = tf.function(power)
    f(tf.constant(2.0), tf.constant(3))
    op = next(op for op in f.get_concrete_function(tf.constant(2.0), tf.constant(3)).graph.get_operations()
              if op.type == "StatelessWhile")
    assert not op.attrs["_record"] and len(op.outputs) == 2
