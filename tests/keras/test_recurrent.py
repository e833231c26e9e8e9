"""SimpleRNN, LSTM, GRU and Bidirectional against values recorded from TF 2.21 / Keras 3.15
(keras_extras_golden.py): weights set with set_weights in Keras' layout give Keras' outputs and gradients,
eagerly and inside fit's traced train step."""
import numpy as np
import pytest

from keras_extras_golden import KERAS_EXTRAS as G, r
from kerastest import assert_close, keras, tf

L = keras.layers
RXS = r((2, 4, 3), 20)          # batch 2, 4 timesteps, 3 features
U = 2
TOL = 2e-5


def rnn_weights(kind, reset_after=True):
    """The recorder's weights: kernel (3, k*U), recurrent_kernel (U, k*U), bias."""
    k = {"simple": 1, "lstm": 4, "gru": 3}[kind]
    w = [r((3, k * U), 21) * 0.5, r((U, k * U), 22) * 0.5]
    w.append(r((2, k * U), 23) * 0.1 if kind == "gru" and reset_after else r((k * U,), 23) * 0.1)
    return w


def run(layer, kind, reset_after=True):
    layer.build((None, 4, 3))
    layer.set_weights(rnn_weights(kind, reset_after))
    return layer(RXS)


def close_all(got, want):
    got = got if isinstance(got, (list, tuple)) else [got]
    want = want if isinstance(want[0][0], list) and isinstance(got, list) and len(got) > 1 else [want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_close(g, w, TOL)


def test_weights_are_rebuilt_like_the_recorder():
    for kind in ("simple", "lstm", "gru"):
        for got, want in zip(rnn_weights(kind), G["rnn_weights"][kind]):
            assert_close(got, want, 1e-6)


@pytest.mark.parametrize("name, make, kind", [
    ("simple_last", lambda: L.SimpleRNN(U), "simple"),
    ("simple_relu_back", lambda: L.SimpleRNN(U, activation="relu", go_backwards=True, return_sequences=True),
     "simple"),
    ("lstm_last", lambda: L.LSTM(U), "lstm"),
    ("gru_last", lambda: L.GRU(U), "gru"),
    ("gru_back", lambda: L.GRU(U, go_backwards=True), "gru"),
])
def test_outputs_match_tf(name, make, kind):
    assert_close(run(make(), kind), G[name], TOL)


@pytest.mark.parametrize("name, make, kind", [
    ("simple_seq_state", lambda: L.SimpleRNN(U, return_sequences=True, return_state=True), "simple"),
    ("lstm_seq_state", lambda: L.LSTM(U, return_sequences=True, return_state=True), "lstm"),
    ("lstm_back_hard", lambda: L.LSTM(U, recurrent_activation="hard_sigmoid", go_backwards=True,
                                      return_state=True), "lstm"),
    ("gru_seq_state", lambda: L.GRU(U, return_sequences=True, return_state=True), "gru"),
])
def test_return_state_matches_tf(name, make, kind):
    out = run(make(), kind)
    assert isinstance(out, list) and len(out) == len(G[name])
    for got, want in zip(out, G[name]):
        assert_close(got, want, TOL)


def test_gru_reset_before_matches_tf():
    layer = L.GRU(U, reset_after=False, return_sequences=True)
    layer.build((None, 4, 3))
    assert tuple(layer.weights[2].shape.as_list()) == (3 * U,)
    layer.set_weights(rnn_weights("gru", reset_after=False))
    assert_close(layer(RXS), G["gru_reset_before"], TOL)


def test_initial_state_matches_tf():
    layer = L.LSTM(U, return_sequences=True)
    layer.build((None, 4, 3))
    layer.set_weights(rnn_weights("lstm"))
    assert_close(layer(RXS, initial_state=[r((2, U), 24), r((2, U), 25)]), G["lstm_initial_state"], TOL)
    with pytest.raises(ValueError, match="expects 2 state"):
        layer(RXS, initial_state=[r((2, U), 24)])


def test_weight_layout_and_defaults():
    lstm, gru, simple = L.LSTM(3), L.GRU(3), L.SimpleRNN(3)
    for layer in (lstm, gru, simple):
        layer.build((None, 5, 2))
    assert [tuple(w.shape.as_list()) for w in lstm.weights] == [(2, 12), (3, 12), (12,)]
    assert [tuple(w.shape.as_list()) for w in gru.weights] == [(2, 9), (3, 9), (2, 9)]    # reset_after=True
    assert [tuple(w.shape.as_list()) for w in simple.weights] == [(2, 3), (3, 3), (3,)]
    assert [w.name for w in lstm.weights] == ["kernel", "recurrent_kernel", "bias"]
    assert lstm.weights[2].numpy().tolist() == [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0]    # unit_forget_bias
    rec = gru.weights[1].numpy()                                        # orthogonal recurrent_initializer:
    assert_close(rec @ rec.T, np.eye(3), 1e-5)                          # (3, 9) has orthonormal rows
    assert lstm.units == 3 and lstm.activation is keras.activations.tanh


def test_gradients_match_tf():
    weights = r((2, 4, U), 26)
    for kind, layer in [("lstm", L.LSTM(U, return_sequences=True)), ("gru", L.GRU(U, return_sequences=True)),
                        ("simple", L.SimpleRNN(U, return_sequences=True))]:
        layer.build((None, 4, 3))
        layer.set_weights(rnn_weights(kind))
        x = tf.constant(RXS)
        with tf.GradientTape() as tape:
            tape.watch(x)
            s = tf.reduce_sum(layer(x) * weights)
        grads = tape.gradient(s, [x] + layer.trainable_weights)
        assert len(grads) == len(G[f"{kind}_grads"])
        for got, want in zip(grads, G[f"{kind}_grads"]):
            assert_close(got, want, TOL)


def test_fit_matches_tf_and_traces_once():
    model = keras.Sequential([keras.Input((4, 3)), L.LSTM(U), L.Dense(1)])
    model.set_weights(rnn_weights("lstm") + [r((U, 1), 28), np.zeros(1, "float32")])
    model.compile(optimizer=keras.optimizers.SGD(0.5), loss="mse")
    history = model.fit(RXS, r((2, 1), 27), epochs=3, batch_size=2, verbose=0, shuffle=False).history
    assert_close(history["loss"], G["lstm_fit_loss"], 1e-4)
    assert model.train_function.experimental_get_tracing_count() == 1
    assert model.predict(np.concatenate([RXS] * 3), batch_size=4, verbose=0).shape == (6, 1)


def test_bidirectional_matches_tf():
    bi = L.Bidirectional(L.LSTM(U, return_sequences=True))
    bi.build((None, 4, 3))
    assert len(bi.weights) == 6
    bi.set_weights(rnn_weights("lstm") + [w[::-1].copy() * 0.7 for w in rnn_weights("lstm")])
    assert_close(bi(RXS), G["bi_lstm_seq"], TOL)
    assert bi.forward_layer.name.startswith("forward_") and bi.backward_layer.go_backwards
    bi = L.Bidirectional(L.GRU(U), merge_mode="sum")
    bi.build((None, 4, 3))
    bi.set_weights(rnn_weights("gru") + [w * 0.5 for w in rnn_weights("gru")])
    assert_close(bi(RXS), G["bi_gru_sum"], TOL)
    with pytest.raises(ValueError, match="Invalid merge mode"):
        L.Bidirectional(L.GRU(U), merge_mode="max")


def test_functional_model_with_states_and_regularizers():
    inp = keras.Input((4, 3))
    seq, h, c = L.LSTM(U, return_sequences=True, return_state=True,
                       recurrent_regularizer=keras.regularizers.L2(0.5))(inp)
    assert seq.shape == (None, 4, U) and h.shape == (None, U) and c.shape == (None, U)
    model = keras.Model(inp, [seq, h, c])
    model.layers[1].set_weights(rnn_weights("lstm"))
    outs = model(RXS)
    for got, want in zip(outs, G["lstm_seq_state"]):
        assert_close(got, want, TOL)
    assert_close([float(v) for v in model.losses], [0.5 * float(np.sum(rnn_weights("lstm")[1] ** 2))], 1e-5)


def test_unknown_time_dimension_and_unsupported_arguments():
    layer = L.SimpleRNN(U)
    layer.build((None, None, 3))

    @tf.function(input_signature=[tf.TensorSpec([None, None, 3], tf.float32)])
    def f(x):
        return layer(x)
    # an unknown time dimension runs a tf.while_loop (see test_rnn_dynamic_time.py for values)
    assert f.get_concrete_function().structured_outputs.shape.as_list() == [None, U]
    with pytest.raises(NotImplementedError, match="dropout"):
        L.LSTM(U, dropout=0.2)
    with pytest.raises(ValueError, match="rank 3"):
        L.GRU(U)(np.zeros((2, 3), "float32"))


def test_generic_rnn_with_a_cell_or_a_custom_cell():
    layer = L.RNN(L.LSTMCell(U), return_sequences=True)
    layer.build((None, 4, 3))
    layer.set_weights(rnn_weights("lstm"))
    assert_close(layer(RXS), G["lstm_seq_state"][0], TOL)

    class Accumulate(keras.layers.Layer):        # a cell of one's own: state_size and call(x, states)
        state_size = 3

        def call(self, x, states):
            total = states[0] + x
            return total, [total]
    out = L.RNN(Accumulate(), return_sequences=True)(RXS)
    assert_close(out, np.cumsum(RXS, axis=1), 1e-6)
