"""Keras 3 masking: ``Embedding(mask_zero=True)`` and ``Masking`` make a mask, the mask travels on the tensors
(``backend.get_keras_mask``, Keras' ``_keras_mask``) through Sequential / functional models, the RNNs skip masked
steps (unrolled and ``tf.while_loop`` paths), ``Bidirectional`` and ``GlobalAveragePooling1D`` use it, and compiled
losses / metrics are weighted by it. Golden values: masking_golden.py, recorded from TF 2.21 / Keras 3.15 by
record_masking_golden.py."""
import warnings

import numpy as np
import pytest

from kerastest import assert_close, keras, tf
from masking_golden import G
from engine.keras.keras_tensor import KerasTensor

L = keras.layers
get_mask = keras.backend.get_keras_mask
TOK = np.array([[3, 1, 4, 0, 0], [2, 7, 0, 8, 2], [5, 9, 6, 1, 0]], "int32")
Y = np.array([[1, 2, 0, 0, 0], [0, 1, 2, 2, 1], [2, 2, 1, 0, 1]], "int32")
TOL = 2e-5
RNNS = {"simple": L.SimpleRNN, "lstm": L.LSTM, "gru": L.GRU}
OPTS = [{}, {"return_sequences": True}, {"go_backwards": True, "return_sequences": True},
        {"return_sequences": True, "zero_output_for_mask": True}, {"return_state": True}]
DYNAMIC = tf.TensorSpec([None, None], tf.int32)


def r(shape, seed):
    return np.round(np.random.default_rng(seed).normal(size=shape), 2).astype("float32")


def fix(model):
    model.set_weights([r(w.shape, 100 + i) * 0.5 for i, w in enumerate(model.get_weights())])
    return model


def _key(kind, opts):
    return kind + "_" + "_".join(sorted(opts))


def _has_while(f):
    graph = f.get_concrete_function().graph
    return any(op.type in ("While", "StatelessWhile") for op in graph.get_operations())


# --- making masks --------------------------------------------------------------------------------
def test_embedding_compute_mask():
    mask = L.Embedding(10, 3, mask_zero=True).compute_mask(TOK)
    assert mask.dtype == tf.bool and mask.numpy().tolist() == G["emb_mask"]
    assert L.Embedding(10, 3).compute_mask(TOK) is None
    out = L.Embedding(10, 3, mask_zero=True)(TOK)
    assert get_mask(out).numpy().tolist() == G["emb_mask"]
    assert get_mask(L.Embedding(10, 3)(TOK)) is None


def test_masking_layer():
    x = r((2, 4, 3), 2)
    x[0, 2] = 0.0
    x[1, 0] = 0.0
    x[1, 3] = 0.0
    layer = L.Masking(0.0)
    y = layer(x)
    assert_close(y, G["masking_out"], 1e-6)
    assert get_mask(y).numpy().tolist() == G["masking_mask"]
    assert layer.compute_mask(tf.constant(x)).numpy().tolist() == G["masking_compute_mask"]
    x2 = x.copy()
    x2[0, 1] = -1.0
    assert get_mask(L.Masking(-1.0)(x2)).numpy().tolist() == G["masking_m1_mask"]
    assert L.Masking(-1.0).get_config()["mask_value"] == -1.0


def test_masking_through_sequential():
    x = r((2, 4, 3), 2)
    x[0, 2] = 0.0
    x[1, 0] = 0.0
    x[1, 3] = 0.0
    model = fix(keras.Sequential([keras.Input((4, 3)), L.Masking(), L.SimpleRNN(2, return_sequences=True),
                                  L.Dense(2)]))
    y = model(x)
    assert_close(y, G["masking_seq"], TOL)
    assert G["dense_keeps_mask"] and get_mask(y).numpy().tolist() == G["masking_seq_mask"]


def test_functional_keras_tensors_carry_masks():
    inp = keras.Input((5,), dtype="int32")
    e = L.Embedding(10, 3, mask_zero=True)(inp)
    assert isinstance(e._keras_mask, KerasTensor) and e._keras_mask.shape == (None, 5)
    assert e._keras_mask.dtype == tf.bool
    seq = L.LSTM(2, return_sequences=True)(e)
    assert seq._keras_mask is not None
    assert L.LSTM(2)(e)._keras_mask is None                  # the last output has no mask
    assert L.GlobalAveragePooling1D()(e)._keras_mask is None
    assert inp._keras_mask is None


# --- RNNs ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(RNNS))
@pytest.mark.parametrize("opts", OPTS, ids=lambda o: "_".join(sorted(o)) or "last")
def test_rnn_masked_unrolled(kind, opts):
    inp = keras.Input((5,), dtype="int32")
    y = RNNS[kind](4, **opts)(L.Embedding(10, 3, mask_zero=True)(inp))
    model = fix(keras.Model(inp, list(y) if isinstance(y, (list, tuple)) else [y]))
    out = model(TOK)
    want = G[f"{_key(kind, opts)}|5"]
    assert len(out) == len(want)
    for got, w in zip(out, want):
        assert_close(got, w, TOL)
    # the output sequence keeps the mask; the last output and the states have none
    if opts.get("return_sequences"):
        assert get_mask(out[0]).numpy().tolist() == G["emb_mask"]
    else:
        assert get_mask(out[0]) is None


@pytest.mark.parametrize("kind", sorted(RNNS))
@pytest.mark.parametrize("opts", OPTS, ids=lambda o: "_".join(sorted(o)) or "last")
def test_rnn_masked_while_loop(kind, opts):
    inp = keras.Input((None,), dtype="int32")
    y = RNNS[kind](4, **opts)(L.Embedding(10, 3, mask_zero=True)(inp))
    model = fix(keras.Model(inp, list(y) if isinstance(y, (list, tuple)) else [y]))
    f = tf.function(lambda x: model(x), input_signature=[DYNAMIC])
    assert _has_while(f)
    out = f(tf.constant(TOK))
    want = G[f"{_key(kind, opts)}|None"]
    for got, w in zip(out, want):
        assert_close(got, w, TOL)


@pytest.mark.parametrize("kind", sorted(RNNS))
def test_rnn_explicit_mask_argument(kind):
    layer = RNNS[kind](3, return_sequences=True)
    layer.build((None, 5, 2))
    layer.set_weights([r(w.shape, 200 + i) * 0.5 for i, w in enumerate(layer.get_weights())])
    x, mask = r((3, 5, 2), 1), TOK != 0
    assert_close(layer(x, mask=mask), G[f"explicit_{kind}"], TOL)
    assert_close(layer(x, mask=tf.constant(mask.astype("float32"))), G[f"explicit_{kind}"], TOL)
    # masked steps really are skipped: changing the padded inputs changes nothing
    x2 = x.copy()
    x2[~mask] = 9.0
    assert_close(layer(x2, mask=mask), G[f"explicit_{kind}"], TOL)
    assert not np.allclose(layer(x2).numpy(), layer(x).numpy())


def test_masked_rnn_gradient_is_zero_for_padded_steps():
    emb = L.Embedding(10, 3, mask_zero=True)
    lstm = L.LSTM(4)
    x = tf.constant(r((3, 5, 3), 7))
    mask = tf.constant(TOK != 0)
    lstm.build((None, 5, 3))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(lstm(x, mask=mask))
    g = tape.gradient(y, x).numpy()
    assert np.all(g[TOK == 0] == 0) and np.all(np.abs(g[TOK != 0]).sum(-1) > 0)
    del emb


# --- Bidirectional, pooling ----------------------------------------------------------------------
@pytest.mark.parametrize("opts", [{"return_sequences": True}, {}, {"return_sequences": True, "merge_mode": "sum"}],
                         ids=["seq", "last", "seq_sum"])
def test_bidirectional_masked(opts):
    inp = keras.Input((5,), dtype="int32")
    rs = opts.get("return_sequences", False)
    bi = L.Bidirectional(L.LSTM(3, return_sequences=rs), merge_mode=opts.get("merge_mode", "concat"))
    out = bi(L.Embedding(10, 3, mask_zero=True)(inp))
    model = fix(keras.Model(inp, out))
    assert_close(model(TOK), G["bi_" + "_".join(sorted(opts))], TOL)
    if rs:
        assert (out._keras_mask is not None) == G["bi_mask_" + "_".join(sorted(opts))]
        assert get_mask(model(TOK)).numpy().tolist() == G["emb_mask"]
    else:
        assert out._keras_mask is None


def test_global_average_pooling_1d_masked_mean():
    inp = keras.Input((5,), dtype="int32")
    model = fix(keras.Model(inp, L.GlobalAveragePooling1D()(L.Embedding(10, 3, mask_zero=True)(inp))))
    y = model(TOK)
    assert_close(y, G["gap"], 1e-5)
    assert get_mask(y) is None
    x = r((3, 5, 3), 4)
    want = (x * (TOK != 0)[..., None]).sum(1) / (TOK != 0).sum(1, keepdims=True)
    assert_close(L.GlobalAveragePooling1D()(x, mask=TOK != 0), want, 1e-6)
    assert_close(L.GlobalAveragePooling1D()(x), x.mean(1), 1e-6)


def test_layer_without_mask_support_drops_mask_with_warning():
    e = L.Embedding(10, 3, mask_zero=True)(TOK)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = L.Flatten()(e)
    assert get_mask(y) is None
    assert any("does not support masking" in str(w.message) for w in caught)
    assert L.Dense(2).supports_masking and not L.Flatten().supports_masking
    layer = L.Flatten()
    layer.supports_masking = True
    assert layer.supports_masking


def test_sequential_last_output_has_no_mask():
    model = fix(keras.Sequential([keras.Input((5,), dtype="int32"), L.Embedding(10, 3, mask_zero=True), L.LSTM(4),
                                  L.Dense(1)]))
    y = model(TOK)
    assert_close(y, G["seq_last"], TOL)
    assert (get_mask(y) is not None) == G["seq_last_has_mask"]


# --- losses and metrics ---------------------------------------------------------------------------
def seq_model(shape):
    inp = keras.Input(shape, dtype="int32")
    h = L.LSTM(4, return_sequences=True)(L.Embedding(10, 3, mask_zero=True)(inp))
    return fix(keras.Model(inp, L.Dense(3, activation="softmax")(h)))


def test_loss_is_weighted_by_the_prediction_mask():
    pred = seq_model((5,))(TOK)
    assert get_mask(pred) is not None
    assert_close(keras.losses.SparseCategoricalCrossentropy()(Y, pred), G["loss_direct|5"], 1e-5)
    # the same as the mean over the real steps only
    per_step = keras.losses.sparse_categorical_crossentropy(Y, pred).numpy()
    assert_close(keras.losses.SparseCategoricalCrossentropy()(Y, pred), per_step[TOK != 0].mean(), 1e-6)
    total = keras.losses.SparseCategoricalCrossentropy(reduction="sum")(Y, pred)
    assert_close(total, per_step[TOK != 0].sum(), 1e-5)


@pytest.mark.parametrize("shape", [(5,), (None,)], ids=["known", "unknown"])
def test_evaluate_and_fit_weight_by_mask(shape):
    model = seq_model(shape)
    model.compile(optimizer=keras.optimizers.SGD(0.5), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    k = shape[0]
    assert_close(model.evaluate(TOK, Y, verbose=0, batch_size=3), G[f"eval|{k}"], 1e-5)
    history = model.fit(TOK, Y, epochs=3, batch_size=3, shuffle=False, verbose=0)
    for name, want in G[f"fit|{k}"].items():
        assert_close(history.history[name], want, 2e-5)
    assert_close(model.predict(TOK, verbose=0), G[f"fit_pred|{k}"], 5e-5)


def test_unmasked_and_mse_metrics():
    inp = keras.Input((5,), dtype="int32")
    h = L.LSTM(4, return_sequences=True)(L.Embedding(10, 3)(inp))
    model = fix(keras.Model(inp, L.Dense(3, activation="softmax")(h)))
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    assert_close(model.evaluate(TOK, Y, verbose=0), G["eval_nomask"], 1e-5)
    model = seq_model((5,))
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    assert_close(model.evaluate(TOK, r((3, 5, 3), 3), verbose=0), G["eval_mse"], 1e-5)
