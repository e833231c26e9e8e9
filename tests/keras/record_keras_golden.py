"""Record golden values from real TF 2.21 / Keras 3 for tests/keras.

Run with a scratch venv that has tensorflow-cpu 2.21 (TensorFlow is never a project dependency):
    TF_PYTHON tests/keras/record_keras_golden.py   # writes golden.py next to this file; merge into keras_golden.py
"""
import os, io, contextlib, pprint
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf
keras = tf.keras
G = {}

def arr(x):
    return np.asarray(x).tolist()

rng = np.random.default_rng(42)
X24 = np.round(rng.normal(size=(2, 4)), 3).astype("float32")
K43 = np.round(rng.normal(size=(4, 3)), 3).astype("float32")
B3 = np.array([0.1, -0.2, 0.3], "float32")
G["inputs"] = {"X24": arr(X24), "K43": arr(K43), "B3": arr(B3)}

# ---- layers with set weights
d = keras.layers.Dense(3, activation="relu"); d.build((None, 4)); d.set_weights([K43, B3])
G["dense_relu"] = arr(d(X24))
d2 = keras.layers.Dense(3); d2.build((None, 4)); d2.set_weights([K43, B3])
X234 = np.round(rng.normal(size=(2, 3, 4)), 3).astype("float32"); G["inputs"]["X234"] = arr(X234)
G["dense_rank3"] = arr(d2(X234))
d3 = keras.layers.Dense(3, activation="softmax", use_bias=False); d3.build((None, 4)); d3.set_weights([K43])
G["dense_softmax_nobias"] = arr(d3(X24))

IMG = np.round(rng.normal(size=(2, 5, 5, 2)), 3).astype("float32"); G["inputs"]["IMG"] = arr(IMG)
CK = np.round(rng.normal(size=(3, 3, 2, 3)), 3).astype("float32"); G["inputs"]["CK"] = arr(CK)
CB = np.array([0.05, -0.1, 0.2], "float32"); G["inputs"]["CB"] = arr(CB)
c = keras.layers.Conv2D(3, 3, activation="relu"); c.build((None, 5, 5, 2)); c.set_weights([CK, CB])
G["conv_valid_relu"] = arr(c(IMG))
c2 = keras.layers.Conv2D(3, (3, 3), strides=2, padding="same"); c2.build((None, 5, 5, 2)); c2.set_weights([CK, CB])
G["conv_same_s2"] = arr(c2(IMG))
G["maxpool"] = arr(keras.layers.MaxPooling2D()(IMG))
G["maxpool_same_s1"] = arr(keras.layers.MaxPooling2D(pool_size=(2, 2), strides=1, padding="same")(IMG))
G["avgpool"] = arr(keras.layers.AveragePooling2D(pool_size=3, strides=2)(IMG))
G["flatten_shape"] = list(keras.layers.Flatten()(IMG).shape)

XR = np.array([[-3.0, -1.0, 0.0, 0.5, 2.0, 7.0]], "float32"); G["inputs"]["XR"] = arr(XR)
G["relu_layer"] = arr(keras.layers.ReLU(max_value=6.0, negative_slope=0.1, threshold=1.0)(XR))
G["relu_layer_slope"] = arr(keras.layers.ReLU(negative_slope=0.2)(XR))
G["relu_layer_max"] = arr(keras.layers.ReLU(max_value=1.5)(XR))
acts = {}
for name in ["relu", "sigmoid", "tanh", "softmax", "elu", "selu", "softplus", "softsign", "gelu", "silu", "linear", "exponential", "relu6", "leaky_relu", "log_softmax"]:
    acts[name] = arr(keras.layers.Activation(name)(XR))
G["activations"] = acts

BNX = np.round(rng.normal(loc=2.0, scale=3.0, size=(6, 3)), 3).astype("float32"); G["inputs"]["BNX"] = arr(BNX)
bn = keras.layers.BatchNormalization(momentum=0.9)
bn.build((None, 3))
bn.set_weights([np.array([1.0, 2.0, 0.5], "float32"), np.array([0.0, 0.1, -0.1], "float32"),
                np.zeros(3, "float32"), np.ones(3, "float32")])
out1 = bn(BNX, training=True)
mm1, mv1 = arr(bn.moving_mean), arr(bn.moving_variance)
out2 = bn(BNX * 2, training=True)
G["bn"] = {"train_out1": arr(out1), "moving_mean1": mm1, "moving_var1": mv1, "train_out2": arr(out2),
           "moving_mean2": arr(bn.moving_mean), "moving_var2": arr(bn.moving_variance),
           "infer_out": arr(bn(BNX, training=False)), "infer_default": arr(bn(BNX)),
           "weights": [w.path.split("/")[-1] for w in bn.weights]}
bn4 = keras.layers.BatchNormalization(axis=1)
IMG4 = IMG.transpose(0, 3, 1, 2)
bn4.build(IMG4.shape)
G["bn_axis1_train"] = arr(bn4(IMG4, training=True)); G["bn_axis1_mm"] = arr(bn4.moving_mean)

EMB = np.round(rng.normal(size=(5, 2)), 3).astype("float32"); G["inputs"]["EMB"] = arr(EMB)
e = keras.layers.Embedding(5, 2); e.build(); e.set_weights([EMB])
G["embedding"] = arr(e(np.array([[0, 4], [2, 2]])))

# functional branching model with set weights
i = keras.Input(shape=(4,), name="a")
h1 = keras.layers.Dense(3, name="d1")(i)
h2 = keras.layers.Dense(3, activation="tanh", name="d2")(i)
o = keras.layers.Add(name="add")([h1, h2])
o = keras.layers.Dense(1, name="out")(o)
fm = keras.Model(i, o, name="branchy")
fw = [np.round(rng.normal(size=w.shape), 3).astype("float32") for w in fm.weights]
G["functional_weights"] = [arr(w) for w in fw]
fm.set_weights(fw)
G["functional_out"] = arr(fm(X24))
G["functional_weight_paths"] = [w.path for w in fm.weights]
buf = io.StringIO(); fm.summary(print_fn=lambda s, **k: buf.write(s)); G["functional_summary"] = buf.getvalue()

# ---- losses
yt = np.array([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]], "float32")
yp = np.array([[0.2, 0.7], [0.9, 0.4], [0.1, 0.3]], "float32")
sw = np.array([1.0, 0.5, 2.0], "float32")
yt_oh = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]], "float32")
yp_prob = np.array([[0.1, 0.8, 0.1], [0.5, 0.3, 0.2], [0.2, 0.2, 0.6]], "float32")
logits = np.array([[1.0, 2.0, -1.0], [0.5, 0.1, 0.3], [-1.0, 0.0, 2.5]], "float32")
ysparse = np.array([1, 0, 2], "int32")
G["loss_inputs"] = {"yt": arr(yt), "yp": arr(yp), "sw": arr(sw), "yt_oh": arr(yt_oh), "yp_prob": arr(yp_prob),
                    "logits": arr(logits), "ysparse": arr(ysparse)}
L = {}
for red in ["sum_over_batch_size", "sum", "none", "mean_with_sample_weight"]:
    L[("mse", red)] = arr(keras.losses.MeanSquaredError(reduction=red)(yt, yp))
    L[("mse_sw", red)] = arr(keras.losses.MeanSquaredError(reduction=red)(yt, yp, sample_weight=sw))
    L[("mae", red)] = arr(keras.losses.MeanAbsoluteError(reduction=red)(yt, yp))
    L[("bce", red)] = arr(keras.losses.BinaryCrossentropy(reduction=red)(yt, yp))
    L[("bce_logits", red)] = arr(keras.losses.BinaryCrossentropy(from_logits=True, reduction=red)(yt, yp * 4 - 2))
    L[("bce_sw", red)] = arr(keras.losses.BinaryCrossentropy(reduction=red)(yt, yp, sample_weight=sw))
    L[("cce", red)] = arr(keras.losses.CategoricalCrossentropy(reduction=red)(yt_oh, yp_prob))
    L[("cce_logits", red)] = arr(keras.losses.CategoricalCrossentropy(from_logits=True, reduction=red)(yt_oh, logits))
    L[("cce_sw", red)] = arr(keras.losses.CategoricalCrossentropy(reduction=red)(yt_oh, yp_prob, sample_weight=sw))
    L[("scce", red)] = arr(keras.losses.SparseCategoricalCrossentropy(reduction=red)(ysparse, yp_prob))
    L[("scce_logits", red)] = arr(keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=red)(ysparse, logits))
    L[("scce_col", red)] = arr(keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=red)(ysparse[:, None], logits))
    L[("scce_sw", red)] = arr(keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=red)(ysparse, logits, sample_weight=sw))
L[("bce_smooth", "sum_over_batch_size")] = arr(keras.losses.BinaryCrossentropy(label_smoothing=0.2)(yt, yp))
L[("cce_smooth", "sum_over_batch_size")] = arr(keras.losses.CategoricalCrossentropy(label_smoothing=0.1)(yt_oh, yp_prob))
y1 = np.array([1.0, 2.0, 3.0], "float32"); p1 = np.array([[1.5], [1.0], [3.5]], "float32")
L[("mse_rank_mismatch", "sum_over_batch_size")] = arr(keras.losses.MeanSquaredError()(y1, p1))
G["losses"] = {f"{k[0]}|{k[1]}": v for k, v in L.items()}
G["loss_functions"] = {
    "mse": arr(keras.losses.mse(yt, yp)),
    "scce": arr(keras.losses.sparse_categorical_crossentropy(ysparse, logits, from_logits=True)),
    "cce": arr(keras.losses.categorical_crossentropy(yt_oh, yp_prob)),
    "bce": arr(keras.losses.binary_crossentropy(yt, yp)),
}
G["loss_names"] = {n: arr(keras.losses.get(n)(yt_oh if "categorical" in n else yt, yp_prob if "categorical" in n else yp))
                   for n in ["mse", "mae", "binary_crossentropy", "categorical_crossentropy"]}

# ---- optimizers: two variables, fixed gradient sequence
V0 = np.array([[0.5, -1.0], [2.0, 0.3]], "float32"); W0 = np.array([0.1, -0.2], "float32")
GRADS = [(np.array([[0.1, -0.2], [0.3, 0.05]], "float32") * (k + 1) * (-1) ** k,
          np.array([0.5, -0.25], "float32") / (k + 1)) for k in range(4)]
G["opt_inputs"] = {"V0": arr(V0), "W0": arr(W0), "GRADS": [[arr(a), arr(b)] for a, b in GRADS]}

def run_opt(opt):
    v, w = tf.Variable(V0), tf.Variable(W0)
    traj = []
    for g1, g2 in GRADS:
        opt.apply_gradients(zip([tf.constant(g1), tf.constant(g2)], [v, w]))
        traj.append([arr(v), arr(w)])
    return {"traj": traj, "iterations": int(opt.iterations.numpy()), "n_vars": len(opt.variables),
            "var_names": [x.path for x in opt.variables]}

O = {}
O["sgd"] = run_opt(keras.optimizers.SGD(learning_rate=0.1))
O["sgd_momentum"] = run_opt(keras.optimizers.SGD(learning_rate=0.1, momentum=0.9))
O["sgd_nesterov"] = run_opt(keras.optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True))
O["adam"] = run_opt(keras.optimizers.Adam(learning_rate=0.01))
O["adam_amsgrad"] = run_opt(keras.optimizers.Adam(learning_rate=0.01, amsgrad=True))
O["adamw"] = run_opt(keras.optimizers.AdamW(learning_rate=0.01, weight_decay=0.1))
O["rmsprop"] = run_opt(keras.optimizers.RMSprop(learning_rate=0.01))
O["rmsprop_momentum_centered"] = run_opt(keras.optimizers.RMSprop(learning_rate=0.01, momentum=0.5, centered=True))
O["sgd_expdecay"] = run_opt(keras.optimizers.SGD(learning_rate=keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)))
O["sgd_expdecay_stair"] = run_opt(keras.optimizers.SGD(learning_rate=keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5, staircase=True)))
O["adam_piecewise"] = run_opt(keras.optimizers.Adam(learning_rate=keras.optimizers.schedules.PiecewiseConstantDecay([1, 2], [0.1, 0.01, 0.001])))
O["sgd_clipnorm"] = run_opt(keras.optimizers.SGD(learning_rate=0.1, clipnorm=0.2))
O["sgd_clipvalue"] = run_opt(keras.optimizers.SGD(learning_rate=0.1, clipvalue=0.15))
O["sgd_global_clipnorm"] = run_opt(keras.optimizers.SGD(learning_rate=0.1, global_clipnorm=0.3))
G["optimizers"] = O
ed = keras.optimizers.schedules.ExponentialDecay(0.1, 3, 0.5)
pc = keras.optimizers.schedules.PiecewiseConstantDecay([2, 5], [1.0, 0.5, 0.1])
G["schedules"] = {"exp": [float(ed(s)) for s in range(7)], "piecewise": [float(pc(s)) for s in range(7)]}

# optimizer under tf.function: same trajectory as eager (adam)
opt = keras.optimizers.Adam(learning_rate=0.01)
v, w = tf.Variable(V0), tf.Variable(W0)
@tf.function
def step(g1, g2):
    opt.apply_gradients(zip([g1, g2], [v, w]))
for g1, g2 in GRADS:
    step(tf.constant(g1), tf.constant(g2))
G["adam_tf_function"] = [arr(v), arr(w)]
G["adam_tf_function_traces"] = step.experimental_get_tracing_count()

# minimize-like: a real loss
# ---- metrics
M = {}
m = keras.metrics.Mean(); m.update_state([1.0, 2.0, 3.0]); m.update_state(5.0); M["mean"] = float(m.result())
m.update_state([1.0, 3.0], sample_weight=[0.5, 2.0]); M["mean_weighted"] = float(m.result())
m.reset_state(); M["mean_reset"] = float(m.result())
a = keras.metrics.Accuracy(); a.update_state([1, 2, 3, 4], [1, 2, 0, 4]); M["accuracy"] = float(a.result())
a.update_state([[1], [2]], [[0], [2]]); M["accuracy2"] = float(a.result())
s = keras.metrics.SparseCategoricalAccuracy(); s.update_state(ysparse, logits); M["sparse_cat_acc"] = float(s.result())
s.update_state(np.array([[2], [1]]), np.array([[0.1, 0.2, 0.7], [0.9, 0.05, 0.05]])); M["sparse_cat_acc2"] = float(s.result())
s.update_state(ysparse, logits, sample_weight=[0.0, 1.0, 3.0]); M["sparse_cat_acc_w"] = float(s.result())
cm = keras.metrics.CategoricalAccuracy(); cm.update_state(yt_oh, yp_prob); M["cat_acc"] = float(cm.result())
cm.update_state(yt_oh, logits); M["cat_acc2"] = float(cm.result())
b = keras.metrics.BinaryAccuracy(); b.update_state(yt, yp); M["bin_acc"] = float(b.result())
M["mean_call"] = float(keras.metrics.Mean()(np.array([[1.0, 2.0], [3.0, 5.0]])))
mse = keras.metrics.MeanSquaredError(); mse.update_state(yt, yp); M["mse"] = float(mse.result())
mae = keras.metrics.MeanAbsoluteError(); mae.update_state(yt, yp); M["mae"] = float(mae.result())
G["metrics"] = M

# ---- EarlyStopping behaviour on fixed sequences
class FakeModel:
    def __init__(self):
        self.stop_training = False; self.metrics = []; self.w = 0
    def get_weights(self): return [self.w]
    def set_weights(self, ws): self.w = ws[0]

def run_es(values, monitor="val_loss", **kw):
    es = keras.callbacks.EarlyStopping(monitor=monitor, **kw)
    fm_ = FakeModel(); es.set_model(fm_)
    es.on_train_begin()
    stopped_at = None
    for epoch, v in enumerate(values):
        fm_.w = epoch
        es.on_epoch_end(epoch, {monitor: v})
        if fm_.stop_training:
            stopped_at = epoch; break
    es.on_train_end()
    return {"stopped_at": stopped_at, "stopped_epoch": es.stopped_epoch, "best": es.best, "wait": es.wait,
            "best_epoch": es.best_epoch, "weights": fm_.w}

seq = [1.0, 0.8, 0.85, 0.79, 0.9, 0.95, 0.7, 0.99, 1.0]
ES = {}
ES["p0"] = run_es(seq)
ES["p2"] = run_es(seq, patience=2)
ES["p2_delta"] = run_es(seq, patience=2, min_delta=0.05)
ES["p1_restore"] = run_es(seq, patience=1, restore_best_weights=True)
ES["p3_restore"] = run_es(seq, patience=3, restore_best_weights=True)
ES["baseline"] = run_es(seq, patience=2, baseline=0.75)
ES["start_from"] = run_es(seq, patience=1, start_from_epoch=3)
ES["max_mode"] = run_es([0.5, 0.6, 0.55, 0.58, 0.7, 0.65, 0.64], monitor="val_accuracy", patience=1, mode="max")
ES["max_mode_p2"] = run_es([0.5, 0.6, 0.55, 0.58, 0.7, 0.65, 0.64], monitor="val_accuracy", patience=2, mode="max", restore_best_weights=True)
G["early_stopping"] = ES

# ---- summary text & param counts
keras.backend.clear_session() if hasattr(keras.backend, "clear_session") else None
mm = keras.Sequential([keras.Input(shape=(8, 8, 1)), keras.layers.Conv2D(4, 3, activation="relu", name="conv"),
                       keras.layers.MaxPooling2D(name="pool"), keras.layers.Flatten(name="flat"),
                       keras.layers.BatchNormalization(name="bn"), keras.layers.Dropout(0.5, name="drop"),
                       keras.layers.Dense(10, name="logits")], name="cnn")
buf = io.StringIO(); mm.summary(print_fn=lambda s, **k: buf.write(s)); G["cnn_summary"] = buf.getvalue()
G["cnn_counts"] = [mm.count_params(), sum(int(np.prod(w.shape)) for w in mm.trainable_weights), sum(int(np.prod(w.shape)) for w in mm.non_trainable_weights)]
mm.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
mm.optimizer.build(mm.trainable_variables)
buf = io.StringIO(); mm.summary(print_fn=lambda s, **k: buf.write(s)); G["cnn_summary_opt"] = buf.getvalue()
G["cnn_weight_names"] = [w.path for w in mm.weights]

# ---- History keys & fit with known weights (deterministic: no shuffle, fixed weights)
hx = np.round(np.random.default_rng(1).normal(size=(40, 3)), 3).astype("float32")
hy = (hx[:, 0] + hx[:, 1] > 0).astype("int32")
hm = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(2)])
hw = [np.round(np.random.default_rng(2).normal(size=w.shape), 3).astype("float32") for w in hm.weights]
hm.set_weights(hw)
hm.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1, momentum=0.5),
           loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
h = hm.fit(hx, hy, batch_size=16, epochs=3, verbose=0, shuffle=False, validation_data=(hx[:10], hy[:10]))
G["fit"] = {"x": arr(hx), "y": arr(hy), "w0": [arr(w) for w in hw], "history": h.history, "keys": list(h.history.keys()),
            "weights_after": [arr(w) for w in hm.get_weights()], "params": h.params,
            "evaluate": hm.evaluate(hx, hy, verbose=0), "evaluate_dict": hm.evaluate(hx, hy, verbose=0, return_dict=True),
            "predict": arr(hm.predict(hx[:3], verbose=0))}
hm2 = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
hm2.set_weights([np.array([[0.2], [-0.1], [0.4]], "float32"), np.array([0.05], "float32")])
hm2.compile(optimizer=keras.optimizers.SGD(learning_rate=0.05), loss="mse", metrics=["mae"])
h2 = hm2.fit(hx, hx[:, :1] * 2.0, batch_size=8, epochs=2, verbose=0, shuffle=False, validation_split=0.25)
G["fit_mse"] = {"history": h2.history, "weights_after": [arr(w) for w in hm2.get_weights()],
                "evaluate": hm2.evaluate(hx, hx[:, :1] * 2.0, verbose=0)}
# verbose=2 line format (times vary): keep the first line structure
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    hm2.fit(hx, hx[:, :1] * 2.0, batch_size=8, epochs=2, verbose=2, shuffle=False)
G["verbose2_text"] = buf.getvalue()

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.py"), "w") as f:
    f.write('"""Golden values recorded from TensorFlow 2.21 / Keras 3 (tf.keras), see record_golden.py."""\n')
    for k, v in G.items():
        f.write(f"{k.upper()} = {pprint.pformat(v, width=118, compact=True)}\n\n")
print("ok", len(G))
