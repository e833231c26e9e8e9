"""Recorder (run with /work/tfref/bin/python, TF 2.21 / Keras 3.15; never imported by the tests): prints the
golden values of tests/keras/masking_golden.py (Keras masking: Embedding(mask_zero), Masking, masked RNNs,
Bidirectional, GlobalAveragePooling1D, mask-weighted losses/metrics in evaluate and fit)."""
import numpy as np, tensorflow as tf
keras = tf.keras
L = keras.layers


def r(shape, seed):
    return np.round(np.random.default_rng(seed).normal(size=shape), 2).astype("float32")


def fix(model):
    model.set_weights([r(w.shape, 100 + i) * 0.5 for i, w in enumerate(model.get_weights())])
    return model


def rnd(x, d=5):
    if isinstance(x, (list, tuple)):
        return [rnd(v, d) for v in x]
    return np.round(np.asarray(x), d).tolist()


TOK = np.array([[3, 1, 4, 0, 0], [2, 7, 0, 8, 2], [5, 9, 6, 1, 0]], "int32")
out = {}
emb = L.Embedding(10, 3, mask_zero=True)
out["emb_mask"] = emb.compute_mask(TOK).numpy().tolist()
out["emb_mask_none"] = L.Embedding(10, 3).compute_mask(TOK) is None

RNNS = {"simple": L.SimpleRNN, "lstm": L.LSTM, "gru": L.GRU}
for kind, cls in RNNS.items():
    for opts in ({}, {"return_sequences": True}, {"go_backwards": True, "return_sequences": True},
                 {"return_sequences": True, "zero_output_for_mask": True}, {"return_state": True}):
        key = kind + "_" + "_".join(f"{k}" for k in sorted(opts))
        for shape in ((5,), (None,)):
            inp = keras.Input(shape, dtype="int32")
            y = cls(4, **opts)(L.Embedding(10, 3, mask_zero=True)(inp))
            y = y if isinstance(y, (list, tuple)) else [y]
            m = fix(keras.Model(inp, list(y)))
            res = m(TOK)
            out[f"{key}|{shape[0]}"] = rnd(res if isinstance(res, (list, tuple)) else [res])

# explicit mask argument, eager, no Embedding
X = r((3, 5, 2), 1)
MASK = TOK != 0
for kind, cls in RNNS.items():
    layer = cls(3, return_sequences=True)
    layer.build((None, 5, 2))
    layer.set_weights([r(w.shape, 200 + i) * 0.5 for i, w in enumerate(layer.get_weights())])
    out[f"explicit_{kind}"] = rnd(layer(X, mask=MASK))

# Bidirectional
for opts in ({"return_sequences": True}, {}, {"return_sequences": True, "merge_mode": "sum"}):
    inp = keras.Input((5,), dtype="int32")
    rs = opts.get("return_sequences", False)
    bi = L.Bidirectional(L.LSTM(3, return_sequences=rs), merge_mode=opts.get("merge_mode", "concat"))
    m = fix(keras.Model(inp, bi(L.Embedding(10, 3, mask_zero=True)(inp))))
    out["bi_" + "_".join(f"{k}" for k in sorted(opts))] = rnd(m(TOK))
    if rs:
        out["bi_mask_" + "_".join(sorted(opts))] = m.layers[-1].output._keras_mask is not None

# GlobalAveragePooling1D
inp = keras.Input((5,), dtype="int32")
m = fix(keras.Model(inp, L.GlobalAveragePooling1D()(L.Embedding(10, 3, mask_zero=True)(inp))))
out["gap"] = rnd(m(TOK))

# Masking
XM = r((2, 4, 3), 2)
XM[0, 2] = 0.0
XM[1, 0] = 0.0
XM[1, 3] = 0.0
mk = L.Masking(0.0)
y = mk(XM)
out["masking_out"] = rnd(y)
out["masking_mask"] = y._keras_mask.numpy().tolist()
out["masking_compute_mask"] = mk.compute_mask(XM).numpy().tolist()
XM2 = XM.copy(); XM2[0, 1] = -1.0
out["masking_m1_mask"] = L.Masking(-1.0)(XM2)._keras_mask.numpy().tolist()
s = keras.Sequential([keras.Input((4, 3)), L.Masking(), L.SimpleRNN(2, return_sequences=True), L.Dense(2)])
fix(s)
y = s(XM)
out["masking_seq"] = rnd(y)
out["masking_seq_mask"] = y._keras_mask.numpy().tolist()
out["dense_keeps_mask"] = getattr(y, "_keras_mask", None) is not None

# Losses / metrics weighted by the mask, evaluate and fit
Y = np.array([[1, 2, 0, 0, 0], [0, 1, 2, 2, 1], [2, 2, 1, 0, 1]], "int32")


def seq_model(shape):
    inp = keras.Input(shape, dtype="int32")
    h = L.LSTM(4, return_sequences=True)(L.Embedding(10, 3, mask_zero=True)(inp))
    return fix(keras.Model(inp, L.Dense(3, activation="softmax")(h)))


for shape in ((5,), (None,)):
    m = seq_model(shape)
    m.compile(optimizer=keras.optimizers.SGD(0.5), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    k = shape[0]
    out[f"eval|{k}"] = rnd(m.evaluate(TOK, Y, verbose=0, batch_size=3), 6)
    pred = m(TOK)
    out[f"loss_direct|{k}"] = rnd(keras.losses.SparseCategoricalCrossentropy()(Y, pred), 6)
    h = m.fit(TOK, Y, epochs=3, batch_size=3, shuffle=False, verbose=0)
    out[f"fit|{k}"] = {kk: rnd(v, 6) for kk, v in h.history.items()}
    out[f"fit_pred|{k}"] = rnd(m.predict(TOK, verbose=0), 5)
# unmasked reference (mask_zero=False): the loss differs
inp = keras.Input((5,), dtype="int32")
h = L.LSTM(4, return_sequences=True)(L.Embedding(10, 3)(inp))
m = fix(keras.Model(inp, L.Dense(3, activation="softmax")(h)))
m.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
out["eval_nomask"] = rnd(m.evaluate(TOK, Y, verbose=0), 6)
# mse metric on a masked sequence output (MeanMetricWrapper applies the mask too)
m = seq_model((5,))
m.compile(optimizer="sgd", loss="mse", metrics=["mae"])
YF = r((3, 5, 3), 3)
out["eval_mse"] = rnd(m.evaluate(TOK, YF, verbose=0), 6)
# Sequential, last-output LSTM: no mask reaches the loss
s = fix(keras.Sequential([keras.Input((5,), dtype="int32"), L.Embedding(10, 3, mask_zero=True), L.LSTM(4),
                          L.Dense(1)]))
out["seq_last"] = rnd(s(TOK))
out["seq_last_has_mask"] = getattr(s(TOK), "_keras_mask", None) is not None
print("G =", out)
