"""A1's tape (the reference solution on the given plumbing) runs under tf.function calls and custom gradients.

The plumbing implements the engine's whole tape protocol (``record_operation``, ``record_custom``,
``variable_accessed``), so a student's finished tape differentiates programs that call a ``tf.function``
or a ``tf.custom_gradient`` function, as TF's tape does.
"""
import pathlib

import numpy as np

import engine as tf
from engine.eager.tape import TAPE_PROTOCOL

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _solution():
    env = {"__name__": "a1_solution"}
    exec(compile((ROOT / "solutions" / "A1" / "A1.py").read_text(), "A1.py", "exec"), env)   # noqa: S102
    return env


def test_the_plumbing_fills_the_tape_protocol():
    ns = _solution()
    tape = ns["GradientTape"]()
    for method in ("record_operation", "record_custom", "variable_accessed", "watch", "gradient"):
        assert callable(getattr(tape, method)), method
    assert set(TAPE_PROTOCOL) <= set(dir(tape))


def test_a_tf_function_call_under_the_students_tape():
    ns = _solution()
    w = tf.Variable([[1.0, -2.0], [0.5, 3.0]])

    @tf.function
    def layer(x):
        return tf.nn.relu(tf.matmul(x, w))

    x = tf.constant([[1.0, 2.0]])
    with ns["GradientTape"]() as tape:
        y = tf.reduce_sum(layer(x) * 3.0)
    got = tape.gradient(y, w)
    with tf.GradientTape() as ref:
        want_y = tf.reduce_sum(layer(x) * 3.0)
    np.testing.assert_allclose(float(y), float(want_y))
    np.testing.assert_allclose(got.numpy(), ref.gradient(want_y, w).numpy(), rtol=1e-6)


def test_a_custom_gradient_under_the_students_tape():
    ns = _solution()

    @tf.custom_gradient
    def clipped_square(x):
        def grad(dy):
            return dy * tf.clip_by_value(2.0 * x, -1.0, 1.0)   # a gradient the registry would not give
        return x * x, grad

    x = tf.constant([0.25, 3.0])
    with ns["GradientTape"]() as tape:
        tape.watch(x)
        y = tf.reduce_sum(clipped_square(x) + x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.5 + 1.0, 1.0 + 1.0])
