"""Recurrent layers on inputs whose time dimension is unknown (``Input(shape=(None, features))``): the
``tf.while_loop`` + ``tf.TensorArray`` path gives the values and gradients recorded from TF 2.21 / Keras 3.15
(keras_extras_golden.py, the same recordings test_recurrent.py checks on the unrolled path)."""
import numpy as np
import pytest

from keras_extras_golden import KERAS_EXTRAS as G, r
from kerastest import assert_close, keras, tf
from test_recurrent import RXS, TOL, U, rnn_weights

L = keras.layers
DYNAMIC = tf.TensorSpec([None, None, 3], tf.float32)


def dynamic(layer, kind, **call_kwargs):
    layer.build((None, None, 3))
    layer.set_weights(rnn_weights(kind))
    f = tf.function(lambda x: layer(x, **call_kwargs), input_signature=[DYNAMIC])
    graph = f.get_concrete_function().graph
    assert any(op.type in ("While", "StatelessWhile") for op in graph.get_operations())   # not unrolled
    return f(tf.constant(RXS))


@pytest.mark.parametrize("name, make, kind", [
    ("simple_last", lambda: L.SimpleRNN(U), "simple"),
    ("simple_relu_back", lambda: L.SimpleRNN(U, activation="relu", go_backwards=True, return_sequences=True),
     "simple"),
    ("lstm_last", lambda: L.LSTM(U), "lstm"),
    ("gru_last", lambda: L.GRU(U), "gru"),
    ("gru_back", lambda: L.GRU(U, go_backwards=True), "gru"),
])
def test_while_loop_outputs_match_tf(name, make, kind):
    assert_close(dynamic(make(), kind), G[name], TOL)


@pytest.mark.parametrize("name, make, kind", [
    ("lstm_seq_state", lambda: L.LSTM(U, return_sequences=True, return_state=True), "lstm"),
    ("lstm_back_hard", lambda: L.LSTM(U, recurrent_activation="hard_sigmoid", go_backwards=True,
                                      return_state=True), "lstm"),
    ("gru_seq_state", lambda: L.GRU(U, return_sequences=True, return_state=True), "gru"),
])
def test_while_loop_states_match_tf(name, make, kind):
    out = dynamic(make(), kind)
    assert len(out) == len(G[name])
    for got, want in zip(out, G[name]):
        assert_close(got, want, TOL)


def test_while_loop_initial_state_matches_tf():
    layer = L.LSTM(U, return_sequences=True)
    h0, c0 = tf.constant(r((2, U), 24)), tf.constant(r((2, U), 25))
    assert_close(dynamic(layer, "lstm", initial_state=[h0, c0]), G["lstm_initial_state"], TOL)


def test_while_loop_gradients_equal_unrolled_gradients():
    weights = tf.constant(r((2, 4, U), 26))
    for kind, layer in [("lstm", L.LSTM(U, return_sequences=True)), ("gru", L.GRU(U, return_sequences=True)),
                        ("simple", L.SimpleRNN(U, return_sequences=True, go_backwards=True))]:
        layer.build((None, None, 3))
        layer.set_weights(rnn_weights(kind))

        def grads(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                s = tf.reduce_sum(layer(x) * weights)
            return tape.gradient(s, [x] + layer.trainable_weights)
        eager = grads(tf.constant(RXS))                     # known time: unrolled
        traced = tf.function(grads, input_signature=[DYNAMIC])(tf.constant(RXS))   # unknown: while loop
        for a, b in zip(traced, eager):
            assert_close(a, b.numpy(), 1e-5)


def test_functional_guide_model_with_unknown_length_trains():
    """The Functional API guide's Input(shape=(None,)) -> Embedding -> LSTM model: shapes as Keras, fit works."""
    inp = keras.Input(shape=(None,), name="title")
    h = L.Embedding(30, 8)(inp)
    seq = L.LSTM(6, return_sequences=True)(h)
    last = L.LSTM(4)(seq)
    out = L.Dense(1)(last)
    model = keras.Model(inp, out)
    assert seq.shape == (None, None, 6) and last.shape == (None, 4)      # Keras: (None, None, 6), (None, 4)
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).integers(0, 30, (16, 7))
    y = np.random.default_rng(1).normal(size=(16, 1)).astype("float32")
    history = model.fit(x, y, epochs=3, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    # the same weights on a different length: a tf.function over unknown lengths agrees with eager calls
    f = tf.function(lambda t: model(t), input_signature=[tf.TensorSpec([None, None], tf.int64)])
    for length in (3, 11):
        xs = np.random.default_rng(length).integers(0, 30, (2, length))
        assert_close(f(tf.constant(xs)), model(xs).numpy(), 1e-5)
