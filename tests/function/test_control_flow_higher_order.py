"""Higher-order gradients through tf.functions that contain tf.cond / tf.while_loop.

Under nested tapes (or a ForwardAccumulator) a tf.function call is *replayed*: its
ops run eagerly, one by one, and control flow too (the chosen branch, each loop
iteration, a WhileGrad's backward body), so every tape records every op. Golden
values come from TensorFlow 2.21 (float64; TF's ForwardAccumulator fails on these
functions with a variant-dtype TypeError, so the JVPs are checked against TF's
first derivatives); every case is also checked against finite differences.
"""
import numpy as np
import pytest

import engine as tf
from gradcheck import check_second_order


def make_cases():
    cases = {}

    @tf.function
    def cond_pow(x):
        return tf.cond(x > 0, lambda: x ** 3, lambda: x)
    cases["cond_pow"] = cond_pow

    @tf.function
    def cond_neg(x):
        return tf.cond(x > 0, lambda: x ** 3, lambda: tf.sin(x) * x)
    cases["cond_neg"] = cond_neg

    @tf.function
    def while_pow(x):
        return tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, tf.ones_like(x)])[1]
    cases["while_pow"] = while_pow

    @tf.function
    def for_range(x):
        acc = x
        for i in tf.range(3):
            acc = tf.sin(acc) * x + tf.cast(i, x.dtype)
        return acc
    cases["for_range"] = for_range

    @tf.function
    def nested(x):                       # a cond inside a while body
        acc = x
        for i in tf.range(4):
            if acc > 1.5:
                acc = acc * 0.5 + tf.sin(x)
            else:
                acc = acc * acc * x
        return acc
    cases["nested"] = nested

    @tf.function
    def tensor_array(x):                 # a TensorArray written in a loop
        ta = tf.TensorArray(x.dtype, size=0, dynamic_size=True)
        for i in tf.range(3):
            ta = ta.write(i, x ** tf.cast(i + 1, x.dtype))
        return tf.reduce_sum(ta.stack() * tf.constant([1.0, 2.0, 3.0], x.dtype))
    cases["tensor_array"] = tensor_array
    return cases


CASES = make_cases()
# TF 2.21: (function, x, [y, dy/dx, d2y/dx2, d3y/dx3]) from three nested tapes, float64
GOLDEN = [
    ('cond_pow', 0.7, [0.3429999999999999, 1.4699999999999998, 4.199999999999999, 6.0]),
    ('cond_pow', 1.3, [2.1970000000000005, 5.07, 7.800000000000001, 6.0]),
    ('cond_neg', 0.7, [0.3429999999999999, 1.4699999999999998, 4.199999999999999, 6.0]),
    ('cond_neg', -0.4, [0.15576733692346023, -0.7578427399098047, 1.68635465108231, 1.5366794245271056]),
    ('cond_neg', 1.3, [2.1970000000000005, 5.07, 7.800000000000001, 6.0]),
    ('while_pow', 0.7, [0.3429999999999999, 1.4699999999999998, 4.199999999999999, 6.0]),
    ('while_pow', -0.4, [-0.06400000000000002, 0.4800000000000001, -2.4000000000000004, 6.0]),
    ('while_pow', 1.3, [2.1970000000000005, 5.07, 7.800000000000001, 6.0]),
    ('for_range', 0.7, [2.6754325193995117, 1.1816313806145329, 0.1175610540523527, -8.622492588329946]),
    ('for_range', -0.4, [1.6774623127578483, 0.6987943645788259, 1.107862598663218, -6.068227201572423]),
    ('for_range', 1.3, [3.0238289559920526, -0.4005543078372, -2.8023896052475568, 11.090137749384741]),
    ('nested', 0.7, [1.5777538203484554e-05, 0.0006987195490114587, 0.02994512352906252, 1.2405836890611615]),
    ('nested', -0.4, [-4.611686018427398e-13, 3.574056664281233e-11, -2.6805424982109253e-09, 1.9433933112029206e-07]),
    ('nested', 1.3, [1.9608518244800877, 1.101872950093028, -0.7112268244800876, 0.28187704990697215]),
    ('tensor_array', 0.7, [2.7089999999999996, 8.209999999999999, 16.6, 18.0]),
    ('tensor_array', -0.4, [-0.272, 0.8400000000000003, -3.2, 18.0]),
    ('tensor_array', 1.3, [11.271, 21.41, 27.400000000000002, 18.0]),
]


def _three_nested_tapes(f, x0):
    x = tf.constant(x0, tf.float64)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = f(x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    return [y, d1, d2, d3]


@pytest.mark.parametrize("name, x0, expected", GOLDEN, ids=[f"{n}-{x}" for n, x, _ in GOLDEN])
def test_up_to_third_order_matches_tf(name, x0, expected):
    got = _three_nested_tapes(CASES[name], x0)
    assert all(g is not None for g in got), got
    np.testing.assert_allclose([float(g) for g in got], expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_order_matches_finite_differences(name):
    for x0 in (0.7, -0.4, 1.3):
        if name == "cond_pow" and x0 < 0:
            continue                       # identity branch: the second derivative is structurally zero (below)
        check_second_order(CASES[name], x0)


def test_the_reported_example():
    x = tf.Variable(2.0)

    @tf.function
    def g(x):
        return tf.cond(x > 0, lambda: x ** 3, lambda: x)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = g(x)
        d1 = t1.gradient(y, x)
    d2 = t2.gradient(d1, x)
    assert (d1.dtype, float(d1), float(d2)) == (tf.float32, 12.0, 12.0)      # TF: 12.0 12.0


def test_structurally_zero_second_derivative():
    """The identity branch: TF's traced cond gives 0.0; the engine gives None (TF eager's answer)."""
    x = tf.constant(-0.4, tf.float64)
    with tf.GradientTape(persistent=True) as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = CASES["cond_pow"](x)
        d1 = t1.gradient(y, x)
    assert float(d1) == 1.0
    assert t2.gradient(d1, x) is None
    assert float(t2.gradient(d1, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)) == 0.0


def test_captured_variable_in_a_loop():
    w = tf.Variable(0.8, dtype=tf.float64)

    @tf.function
    def f(x):
        acc = x
        for i in tf.range(3):
            acc = acc * w + tf.sin(x * w)
        return acc
    x = tf.constant(0.6, tf.float64)
    with tf.GradientTape(persistent=True) as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = f(x)
        dx, dw = t1.gradient(y, [x, w])
    got = [y, dx, dw] + t2.gradient(dw, [x, w]) + [t2.gradient(dx, x)]
    # TF 2.21: y, dy/dx, dy/dw, d2y/dwdx, d2y/dw2, d2y/dx2
    np.testing.assert_allclose([float(g) for g in got],
                               [1.4339411883212183, 2.243414089265163, 3.6511864233567275, 5.388381280568181,
                                6.165355682358694, -0.7211143605255799], rtol=1e-12)


def test_side_effects_run_once_per_call_when_replayed():
    count = tf.Variable(0)

    @tf.function
    def f(x):
        if x > 0:
            count.assign_add(1)
            y = x * x
        else:
            y = x
        return y
    x = tf.constant(3.0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = f(x)
        d1 = t1.gradient(y, x)
    assert (float(d1), float(t2.gradient(d1, x)), int(count.numpy())) == (6.0, 2.0, 1)


@pytest.mark.parametrize("name, x0, expected", [g for g in GOLDEN if g[1] == 0.7], ids=lambda v: str(v)[:12])
def test_forward_accumulator(name, x0, expected):
    """JVP (tangent 1) is the first derivative; forward-over-backward gives the second (TF fails on both)."""
    x = tf.constant(x0, tf.float64)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0, tf.float64)) as acc:
        y = CASES[name](x)
    np.testing.assert_allclose(float(acc.jvp(y)), expected[1], rtol=1e-9)
    if name == "tensor_array":
        return                             # variants carry no tangents: the one-op path (JVP by probing) is used
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0, tf.float64)) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = CASES[name](x)
        d1 = tape.gradient(y, x)
    np.testing.assert_allclose(float(acc.jvp(d1)), expected[2], rtol=1e-9)


# --- gradients computed inside the function ------------------------------------------------------------
def test_differentiating_a_loop_gradient_computed_inside_the_function():
    v = tf.Variable(1.5, dtype=tf.float64)

    @tf.function
    def inner_grad(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, tf.sin(a) * v), [0, x])[1]
        return y, t.gradient(y, [x, v])
    x = tf.constant(0.7, tf.float64)
    with tf.GradientTape(persistent=True) as tape:      # one tape: the WhileGrad inside makes the call replay
        tape.watch(x)
        y, (dx, dv) = inner_grad(x)
    got = [y, dx, dv] + tape.gradient(y, [x, v]) + tape.gradient(dx, [x, v]) + tape.gradient(dv, [x, v])
    # TF 2.21
    np.testing.assert_allclose([float(g) for g in got],
                               [1.415829057375501, 0.4845224764646778, 1.623580427813947,
                                0.4845224764646778, 1.623580427813947, -2.5671835576838706, -1.3826856628525,
                                -1.3826856628524997, -1.6498362330392562], rtol=1e-12)


def test_differentiating_a_cond_gradient_computed_inside_the_function():
    @tf.function
    def inner(x):
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = tf.cond(x > 0, lambda: x ** 3, lambda: tf.sin(x))
        return t1.gradient(y, x)
    for x0, expected in ((2.0, [12.0, 12.0]), (-0.5, [0.8775825618903728, 0.479425538604203])):
        x = tf.constant(x0, tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(x)
            d = inner(x)
        np.testing.assert_allclose([float(d), float(tape.gradient(d, x))], expected, rtol=1e-12)


@pytest.mark.parametrize("kind", ["while", "cond"])
def test_nested_tapes_inside_a_function_raise_clearly(kind):
    """TF computes these (-2.5671835576838706 and 12.0); in-graph control-flow gradients are first order here."""
    @tf.function
    def second(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                if kind == "while":
                    y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, tf.sin(a) * 1.5), [0, x])[1]
                else:
                    y = tf.cond(x > 0, lambda: x ** 3, lambda: x)
            d = t1.gradient(y, x)
        return t2.gradient(d, x)
    what = r"tf.while_loop gradient \(WhileGrad\)" if kind == "while" else r"tf.cond gradient"
    with pytest.raises(NotImplementedError, match=f"The gradient of a {what}.* cannot be built into a graph"):
        second(tf.constant(0.7, tf.float64))


def test_graph_mode_second_order_raises_clearly():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float64, [])
        y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, tf.ones_like(x)])[1]
        d, = tf.gradients(y, x)
        with pytest.raises(NotImplementedError, match="WhileGrad"):
            tf.gradients(d, x)
        d, = tf.gradients(tf.cond(x > 0, lambda: x ** 3, lambda: x), x)
        with pytest.raises(NotImplementedError, match="tf.cond gradient"):
            tf.gradients(d, x)


def test_functions_that_cannot_be_replayed_raise_instead_of_returning_none():
    @tf.function
    def f(x):
        noise = tf.random.uniform([], dtype=tf.float64)          # needs the graph runtime: no replay
        return tf.cond(x > 0, lambda: x ** 3, lambda: x) + 0 * noise
    x = tf.constant(0.7, tf.float64)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = f(x)
        d1 = t1.gradient(y, x)
    np.testing.assert_allclose(float(d1), 1.47)                  # first order: exact
    with pytest.raises(NotImplementedError, match=r"higher-order gradient through the tf.function .*RandomUniform"):
        t2.gradient(d1, x)
