"""tf.keras optimizers: update trajectories over 4 steps against TF 2.21, slots, schedules, tf.function."""
import numpy as np
import pytest

import keras_golden as G
from kerastest import assert_close, f32, keras, tf

V0, W0 = f32(G.OPT_INPUTS["V0"]), f32(G.OPT_INPUTS["W0"])
GRADS = [(f32(a), f32(b)) for a, b in G.OPT_INPUTS["GRADS"]]
opt, schedules = keras.optimizers, keras.optimizers.schedules

OPTIMIZERS = {
    "sgd": lambda: opt.SGD(learning_rate=0.1),
    "sgd_momentum": lambda: opt.SGD(learning_rate=0.1, momentum=0.9),
    "sgd_nesterov": lambda: opt.SGD(learning_rate=0.1, momentum=0.9, nesterov=True),
    "adam": lambda: opt.Adam(learning_rate=0.01),
    "adam_amsgrad": lambda: opt.Adam(learning_rate=0.01, amsgrad=True),
    "adamw": lambda: opt.AdamW(learning_rate=0.01, weight_decay=0.1),
    "rmsprop": lambda: opt.RMSprop(learning_rate=0.01),
    "rmsprop_momentum_centered": lambda: opt.RMSprop(learning_rate=0.01, momentum=0.5, centered=True),
    "sgd_expdecay": lambda: opt.SGD(learning_rate=schedules.ExponentialDecay(0.1, 2, 0.5)),
    "sgd_expdecay_stair": lambda: opt.SGD(learning_rate=schedules.ExponentialDecay(0.1, 2, 0.5, staircase=True)),
    "adam_piecewise": lambda: opt.Adam(learning_rate=schedules.PiecewiseConstantDecay([1, 2], [0.1, 0.01, 0.001])),
    "sgd_clipnorm": lambda: opt.SGD(learning_rate=0.1, clipnorm=0.2),
    "sgd_clipvalue": lambda: opt.SGD(learning_rate=0.1, clipvalue=0.15),
    "sgd_global_clipnorm": lambda: opt.SGD(learning_rate=0.1, global_clipnorm=0.3),
}


def run(optimizer, step=None):
    v, w = tf.Variable(V0), tf.Variable(W0)
    trajectory = []
    for g1, g2 in GRADS:
        if step is None:
            optimizer.apply_gradients(zip([tf.constant(g1), tf.constant(g2)], [v, w]))
        else:
            step(optimizer, v, w, tf.constant(g1), tf.constant(g2))
        trajectory.append([v.numpy(), w.numpy()])
    return trajectory


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_update_trajectory_matches_tf(name):
    optimizer = OPTIMIZERS[name]()
    want = G.OPTIMIZERS[name]
    for step, (v, w) in enumerate(run(optimizer)):
        assert_close(v, want["traj"][step][0], 1e-6)
        assert_close(w, want["traj"][step][1], 1e-6)
    assert int(optimizer.iterations.numpy()) == want["iterations"] == 4
    assert len(optimizer.variables) == want["n_vars"]   # iteration, learning rate (unless a schedule), slots


def test_slots_are_created_on_first_use_with_keras_names():
    keras.backend.clear_session()
    adam = opt.Adam()
    assert [v.name for v in adam.variables] == ["adam/iteration:0", "adam/learning_rate:0"]
    assert adam.iterations.dtype == tf.int64 and not adam.built
    kernel = tf.Variable(np.zeros((2, 2), np.float32), name="dense/kernel")
    adam.apply_gradients([(tf.ones((2, 2)), kernel)])
    assert adam.built
    assert [v.name for v in adam.variables][2:] == ["adam/dense_kernel_momentum:0", "adam/dense_kernel_velocity:0"]
    assert opt.SGD().variables[0].name.startswith("sgd")
    assert len(opt.SGD(momentum=0.0).variables) == 2


def test_optimizer_under_tf_function_creates_slots_on_the_first_trace_only():
    def body(optimizer, v, w, g1, g2):
        optimizer.apply_gradients(zip([g1, g2], [v, w]))

    adam = opt.Adam(learning_rate=0.01)
    v, w = tf.Variable(V0), tf.Variable(W0)
    step = tf.function(lambda g1, g2: body(adam, v, w, g1, g2))
    for g1, g2 in GRADS:
        step(tf.constant(g1), tf.constant(g2))
    assert_close(v, G.ADAM_TF_FUNCTION[0], 1e-6)
    assert_close(w, G.ADAM_TF_FUNCTION[1], 1e-6)
    # TF 2.21 traces twice here: the first trace created the slot variables, so it traces again
    assert step.experimental_get_tracing_count() == 2
    assert len(adam.variables) == 6
    # a second trace (new input shape) must not create variables: the optimizer is already built
    step(tf.constant(np.ones((2, 2), np.float32)), tf.constant(np.ones(2, np.float64).astype(np.float32)))
    assert len(adam.variables) == 6

    fresh = opt.Adam()
    u = tf.Variable(np.ones(3, np.float32))

    @tf.function
    def late(g):
        fresh.apply_gradients([(g, u)])
    late(tf.constant(np.ones(3, np.float32)))
    assert len(fresh.variables) == 4


def test_minimize_with_callable_and_with_tape():
    x = tf.Variable(3.0)
    sgd = opt.SGD(learning_rate=0.1)
    sgd.minimize(lambda: (x - 1.0) ** 2, [x])
    assert_close(x, 3.0 - 0.1 * 4.0)
    with tf.GradientTape() as tape:
        loss = (x - 1.0) ** 2
    sgd.minimize(loss, [x], tape=tape)
    assert_close(x, 2.6 - 0.1 * 3.2)
    with pytest.raises(ValueError, match="`tape` is required when a `Tensor` loss is passed"):
        sgd.minimize(loss, [x])


def test_schedules_match_tf():
    exp = schedules.ExponentialDecay(0.1, 3, 0.5)
    piecewise = schedules.PiecewiseConstantDecay([2, 5], [1.0, 0.5, 0.1])
    assert_close([float(exp(s)) for s in range(7)], G.SCHEDULES["exp"])
    assert_close([float(piecewise(s)) for s in range(7)], G.SCHEDULES["piecewise"])


def test_learning_rate_is_a_variable_and_settable():
    sgd = opt.SGD(learning_rate=0.5)
    v = tf.Variable(1.0)
    sgd.learning_rate = 0.25
    assert_close(sgd.learning_rate, 0.25)
    sgd.apply_gradients([(tf.constant(1.0), v)])
    assert_close(v, 0.75)
    scheduled = opt.SGD(learning_rate=schedules.ExponentialDecay(0.1, 1, 0.5))
    with pytest.raises(TypeError, match="its learning rate is not settable"):
        scheduled.learning_rate = 0.3


def test_none_gradients_are_skipped_with_a_warning_and_errors():
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    sgd = opt.SGD(learning_rate=1.0)
    with pytest.warns(UserWarning, match="Gradients do not exist for variables"):
        sgd.apply_gradients([(tf.constant(1.0), a), (None, b)])
    assert_close(a, 0.0)
    assert_close(b, 2.0)
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.SGD().apply_gradients([(None, a)])
    with pytest.raises(ValueError, match="Argument `learning_rate` should be float"):
        opt.Adam(learning_rate=1)
    with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set"):
        opt.SGD(clipnorm=1.0, clipvalue=1.0)
    with pytest.raises(ValueError, match="Unknown variable"):
        sgd.apply_gradients([(tf.constant(1.0), tf.Variable(0.0))])
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier"):
        opt.get("adagradx")
    assert isinstance(opt.get("RMSprop"), opt.RMSprop)
