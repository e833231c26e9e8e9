"""Record golden values from real TF 2.21 / Keras 3.15 for the regularizer, recurrent and LayerNormalization
tests (tests/keras/test_regularizers.py, test_recurrent.py, test_layer_norm.py) and the tf.data extras
(tests/data/test_dataset_extras.py).

Run with the scratch venv that has tensorflow-cpu 2.21 (TensorFlow is never a project dependency):
    TF_CPP_MIN_LOG_LEVEL=3 /work/tfref/bin/python tests/keras/record_extras_golden.py > /tmp/extras_golden.py
and paste the printed literals into the tests. Inputs are rounded normals from a fixed NumPy seed and weights
are set with set_weights, so nothing depends on TF's random numbers.
"""
import os
import pprint
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf
keras = tf.keras
G = {}


def arr(x):
    return np.round(np.asarray(x, dtype=np.float64), 6).tolist()


def r(shape, seed):
    return np.round(np.random.default_rng(seed).normal(size=shape), 2).astype("float32")


# ---------------------------------------------------------------------------- regularizers
RX = np.array([[1.0, -2.0], [0.5, 3.0]], "float32")
G["reg_l1"] = float(keras.regularizers.L1(0.1)(RX))
G["reg_l2"] = float(keras.regularizers.L2(0.2)(RX))
G["reg_l1l2"] = float(keras.regularizers.L1L2(l1=0.1, l2=0.2)(RX))
G["reg_l1_config"] = keras.regularizers.get("l1").get_config()
G["reg_l2_config"] = keras.regularizers.get("l2").get_config()

X24, K43, B3 = r((2, 4), 1), r((4, 3), 2), np.array([0.1, -0.2, 0.3], "float32")
d = keras.layers.Dense(3, kernel_regularizer=keras.regularizers.L2(0.1), bias_regularizer=keras.regularizers.L1(0.2),
                       activity_regularizer=keras.regularizers.L2(0.05))
d.build((None, 4)); d.set_weights([K43, B3])
d(X24)
G["dense_losses"] = [float(v) for v in d.losses]
d(X24[:1])
G["dense_losses_batch1"] = [float(v) for v in d.losses]

IMG, CK = r((2, 4, 4, 2), 3), r((3, 3, 2, 2), 4)
c = keras.layers.Conv2D(2, 3, kernel_regularizer="l2", bias_regularizer="l1", activity_regularizer="l1")
c.build((None, 4, 4, 2)); c.set_weights([CK, np.array([0.5, -0.5], "float32")])
c(IMG)
G["conv_losses"] = [float(v) for v in c.losses]
e = keras.layers.Embedding(5, 2, embeddings_regularizer=keras.regularizers.L1(0.1))
e.build((None,)); e.set_weights([r((5, 2), 5)])
G["embedding_losses"] = [float(v) for v in e.losses]


def reg_model():
    m = keras.Sequential([keras.Input((4,)),
                          keras.layers.Dense(3, activation="tanh", kernel_regularizer=keras.regularizers.L2(0.1),
                                             activity_regularizer=keras.regularizers.L1(0.01)),
                          keras.layers.Dense(1, bias_regularizer=keras.regularizers.L2(0.5))])
    m.set_weights([K43, B3, r((3, 1), 6), np.array([0.7], "float32")])
    return m


XT, YT = r((6, 4), 7), r((6, 1), 8)
m = reg_model()
m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
G["reg_model_losses_before"] = [float(v) for v in m.losses]
G["reg_model_train_on_batch"] = [m.train_on_batch(XT, YT), m.train_on_batch(XT, YT)]
G["reg_model_weights_after"] = [arr(w) for w in m.get_weights()]
G["reg_model_evaluate"] = m.evaluate(XT, YT, verbose=0)
m = reg_model()
m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
G["reg_model_fit"] = m.fit(XT, YT, batch_size=4, epochs=2, shuffle=False, verbose=0).history["loss"]


class AddLoss(keras.layers.Layer):
    def call(self, x):
        self.add_loss(0.1 * tf.reduce_sum(tf.square(x)))
        return x


inp = keras.Input((4,))
out = keras.layers.Dense(1)(AddLoss()(inp))
m = keras.Model(inp, out)
m.layers[-1].set_weights([r((4, 1), 9), np.array([0.0], "float32")])
m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
G["add_loss_model_losses_before_call"] = len(m.losses)
G["add_loss_train_on_batch"] = m.train_on_batch(XT, YT)
m(XT[:2])
G["add_loss_after_call"] = [float(v) for v in m.losses]

# ---------------------------------------------------------------------------- sample / class weights
XC, YC = r((6, 3), 10), np.array([0, 1, 2, 1, 0, 2])
SW = np.array([1.0, 2.0, 0.5, 0.0, 1.0, 3.0], "float32")


def cls_model():
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(3)])
    m.set_weights([r((3, 3), 11), np.zeros(3, "float32")])
    m.compile(optimizer=keras.optimizers.SGD(0.1),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return m


m = cls_model()
G["fit_sample_weight"] = m.fit(XC, YC, sample_weight=SW, batch_size=4, epochs=2, shuffle=False, verbose=0).history
G["fit_sample_weight_kernel"] = arr(m.get_weights()[0])
m = cls_model()
G["fit_class_weight"] = m.fit(XC, YC, class_weight={0: 1.0, 1: 3.0, 2: 0.5}, batch_size=4, epochs=2, shuffle=False,
                              verbose=0).history
G["fit_class_weight_kernel"] = arr(m.get_weights()[0])
m = cls_model()
G["evaluate_sample_weight"] = m.evaluate(XC, YC, sample_weight=SW, batch_size=4, verbose=0)
m.compile(optimizer=keras.optimizers.SGD(0.1), loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
          metrics=["accuracy"], weighted_metrics=["accuracy"])
G["evaluate_weighted_metrics"] = m.evaluate(XC, YC, sample_weight=SW, batch_size=4, verbose=0, return_dict=True)
m = cls_model()
ds = tf.data.Dataset.from_tensor_slices((XC, YC)).batch(4)
G["fit_class_weight_dataset"] = m.fit(ds, class_weight={0: 1.0, 1: 3.0, 2: 0.5}, epochs=1, verbose=0).history

# ---------------------------------------------------------------------------- LayerNormalization
LX = r((2, 3, 4), 12)
ln = keras.layers.LayerNormalization()
ln.build((None, 3, 4))
ln.set_weights([np.array([1.0, 2.0, 0.5, -1.0], "float32"), np.array([0.0, 0.1, -0.1, 0.2], "float32")])
G["ln_last"] = arr(ln(LX))
ln2 = keras.layers.LayerNormalization(axis=[1, 2], epsilon=1e-5, center=False)
ln2.build((None, 3, 4)); ln2.set_weights([r((3, 4), 13)])
G["ln_axes12"] = arr(ln2(LX))
ln3 = keras.layers.LayerNormalization(axis=1, scale=False)
ln3.build((None, 3, 4)); ln3.set_weights([np.array([0.5, 0.0, -0.5], "float32")])
G["ln_axis1"] = arr(ln3(LX))
with tf.GradientTape() as tape:
    xv = tf.constant(LX)
    tape.watch(xv)
    y = ln(xv)
    s = tf.reduce_sum(y * tf.constant(r((2, 3, 4), 14)))
gx, gg, gb = tape.gradient(s, [xv, ln.gamma, ln.beta])
G["ln_grads"] = [arr(gx), arr(gg), arr(gb)]

# ---------------------------------------------------------------------------- recurrent layers
RXS = r((2, 4, 3), 20)   # batch 2, time 4, features 3
U = 2


def rnn_weights(kind, reset_after=True):
    k = {"simple": 1, "lstm": 4, "gru": 3}[kind]
    w = [r((3, k * U), 21) * 0.5, r((U, k * U), 22) * 0.5]
    if kind == "gru" and reset_after:
        w.append(r((2, k * U), 23) * 0.1)
    else:
        w.append(r((k * U,), 23) * 0.1)
    return w


def run(layer, kind, reset_after=True, x=RXS):
    layer.build((None,) + x.shape[1:])
    layer.set_weights(rnn_weights(kind, reset_after))
    out = layer(x)
    return [arr(o) for o in out] if isinstance(out, (list, tuple)) else arr(out)


G["rnn_weights"] = {k: [arr(w) for w in rnn_weights(k)] for k in ("simple", "lstm", "gru")}
G["gru_weights_reset_before"] = [arr(w) for w in rnn_weights("gru", False)]
G["simple_last"] = run(keras.layers.SimpleRNN(U), "simple")
G["simple_seq_state"] = run(keras.layers.SimpleRNN(U, return_sequences=True, return_state=True), "simple")
G["simple_relu_back"] = run(keras.layers.SimpleRNN(U, activation="relu", go_backwards=True, return_sequences=True),
                            "simple")
G["lstm_last"] = run(keras.layers.LSTM(U), "lstm")
G["lstm_seq_state"] = run(keras.layers.LSTM(U, return_sequences=True, return_state=True), "lstm")
G["lstm_back_hard"] = run(keras.layers.LSTM(U, recurrent_activation="hard_sigmoid", go_backwards=True,
                                            return_state=True), "lstm")
G["gru_last"] = run(keras.layers.GRU(U), "gru")
G["gru_seq_state"] = run(keras.layers.GRU(U, return_sequences=True, return_state=True), "gru")
G["gru_reset_before"] = run(keras.layers.GRU(U, reset_after=False, return_sequences=True), "gru", reset_after=False)
G["gru_back"] = run(keras.layers.GRU(U, go_backwards=True), "gru")
lstm_init = keras.layers.LSTM(U, return_sequences=True)
lstm_init.build((None, 4, 3)); lstm_init.set_weights(rnn_weights("lstm"))
H0, C0 = r((2, U), 24), r((2, U), 25)
G["lstm_initial_state"] = arr(lstm_init(RXS, initial_state=[H0, C0]))
bi = keras.layers.Bidirectional(keras.layers.LSTM(U, return_sequences=True))
bi.build((None, 4, 3)); bi.set_weights(rnn_weights("lstm") + [w[::-1].copy() * 0.7 for w in rnn_weights("lstm")])
G["bi_lstm_seq"] = arr(bi(RXS))
bi2 = keras.layers.Bidirectional(keras.layers.GRU(U), merge_mode="sum")
bi2.build((None, 4, 3)); bi2.set_weights(rnn_weights("gru") + [w * 0.5 for w in rnn_weights("gru")])
G["bi_gru_sum"] = arr(bi2(RXS))

# gradients of a weighted sum of the outputs with respect to inputs and weights
GW = r((2, 4, U), 26)
for kind, layer in [("lstm", keras.layers.LSTM(U, return_sequences=True)),
                    ("gru", keras.layers.GRU(U, return_sequences=True)),
                    ("simple", keras.layers.SimpleRNN(U, return_sequences=True))]:
    layer.build((None, 4, 3)); layer.set_weights(rnn_weights(kind))
    xv = tf.constant(RXS)
    with tf.GradientTape() as tape:
        tape.watch(xv)
        s = tf.reduce_sum(layer(xv) * GW)
    grads = tape.gradient(s, [xv] + layer.trainable_weights)
    G[f"{kind}_grads"] = [arr(g) for g in grads]

# training an LSTM model with fit (the traced train step)
YS = r((2, 1), 27)
m = keras.Sequential([keras.Input((4, 3)), keras.layers.LSTM(U), keras.layers.Dense(1)])
m.set_weights(rnn_weights("lstm") + [r((U, 1), 28), np.zeros(1, "float32")])
m.compile(optimizer=keras.optimizers.SGD(0.5), loss="mse")
G["lstm_fit_loss"] = m.fit(RXS, YS, epochs=3, batch_size=2, verbose=0, shuffle=False).history["loss"]

print("# recorded by tests/keras/record_extras_golden.py")
print("KERAS_EXTRAS = ", end="")
pprint.pprint(G, width=120, compact=True)

# ---------------------------------------------------------------------------- tf.data
D = {}
ds = tf.data.Dataset.range(1, 6).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2,
                                            block_length=2)
D["interleave_c2_b2"] = [int(v) for v in ds.as_numpy_iterator()]
ds = tf.data.Dataset.range(1, 6).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=3)
D["interleave_c3_b1"] = [int(v) for v in ds.as_numpy_iterator()]
ds = tf.data.Dataset.range(4).interleave(lambda x: tf.data.Dataset.range(10 * x, 10 * x + 3), cycle_length=2,
                                         block_length=1, num_parallel_calls=2, deterministic=True)
D["interleave_parallel"] = [int(v) for v in ds.as_numpy_iterator()]
ds = tf.data.Dataset.range(3).interleave(lambda x: tf.data.Dataset.range(x), cycle_length=1)
D["interleave_c1"] = [int(v) for v in ds.as_numpy_iterator()]
D["interleave_card"] = int(tf.data.Dataset.range(3).interleave(lambda x: tf.data.Dataset.range(x)).cardinality())
ds = tf.data.Dataset.range(1, 6).map(lambda x: tf.fill([x], x))
pb = ds.padded_batch(2)
D["padded_batch_default"] = [v.tolist() for v in pb.as_numpy_iterator()]
D["padded_batch_spec"] = str(pb.element_spec)
pb = ds.padded_batch(2, padded_shapes=[6], padding_values=tf.constant(-1, tf.int64), drop_remainder=True)
D["padded_batch_shape"] = [v.tolist() for v in pb.as_numpy_iterator()]
D["padded_batch_shape_spec"] = str(pb.element_spec)
D["padded_batch_card"] = int(pb.cardinality())
ds2 = tf.data.Dataset.range(1, 4).map(lambda x: (tf.fill([x, 2], tf.cast(x, tf.float32)), tf.strings.as_string(x), x))
pb = ds2.padded_batch(3, padded_shapes=([None, 3], [], []), padding_values=(0.5, "pad", tf.constant(7, tf.int64)))
D["padded_batch_tuple"] = [[np.asarray(c).tolist() for c in v] for v in pb.as_numpy_iterator()]
D["padded_batch_tuple_spec"] = str(pb.element_spec)
try:
    list(ds.padded_batch(2, padded_shapes=[2]))
except Exception as ex:
    D["padded_batch_too_small"] = [type(ex).__name__, str(ex)[:200]]
dsd = tf.data.Dataset.range(1, 4).map(lambda x: {"a": tf.range(x), "b": x})
D["padded_batch_dict"] = [{k: v.tolist() for k, v in e.items()} for e in dsd.padded_batch(2).as_numpy_iterator()]


def gen(n, start):
    for i in range(int(n)):
        yield np.arange(i + 1) + int(start), float(i) / 2


fg = tf.data.Dataset.from_generator(gen, args=(3, 10), output_signature=(tf.TensorSpec([None], tf.int32),
                                                                         tf.TensorSpec([], tf.float32)))
D["from_generator"] = [[np.asarray(c).tolist() for c in e] for e in fg.as_numpy_iterator()]
D["from_generator_spec"] = str(fg.element_spec)
D["from_generator_dtypes"] = [str(c.dtype) for c in next(iter(fg))]
D["from_generator_card"] = int(fg.cardinality())
fg2 = tf.data.Dataset.from_generator(lambda: iter([[1, 2], [3, 4]]), output_types=tf.float32, output_shapes=[2])
D["from_generator_types"] = [v.tolist() for v in fg2.as_numpy_iterator()]
D["from_generator_types_spec"] = str(fg2.element_spec)
bad = tf.data.Dataset.from_generator(lambda: iter([[1, 2], [3, 4, 5]]), output_signature=tf.TensorSpec([2], tf.int32))
try:
    list(bad)
except Exception as ex:
    D["from_generator_bad_shape"] = [type(ex).__name__, str(ex)[:300]]
bad = tf.data.Dataset.from_generator(lambda: iter(["x"]), output_signature=tf.TensorSpec([], tf.int32))
try:
    list(bad)
except Exception as ex:
    D["from_generator_bad_type"] = [type(ex).__name__, str(ex)[:300]]
bad = tf.data.Dataset.from_generator(lambda: iter([(1, 2)]), output_signature=(tf.TensorSpec([], tf.int32),))
try:
    list(bad)
except Exception as ex:
    D["from_generator_bad_structure"] = [type(ex).__name__, str(ex)[:300]]
for kw in [dict(), dict(output_types=tf.int32, output_signature=tf.TensorSpec([], tf.int32))]:
    try:
        tf.data.Dataset.from_generator(lambda: iter([1]), **kw)
    except Exception as ex:
        D.setdefault("from_generator_arg_errors", []).append([type(ex).__name__, str(ex)[:200]])
try:
    tf.data.Dataset.from_generator(5, output_types=tf.int32)
except Exception as ex:
    D["from_generator_not_callable"] = [type(ex).__name__, str(ex)[:200]]
ub = tf.data.Dataset.from_tensor_slices([[1, 2, 3], [4, 5, 6]]).unbatch()
D["unbatch"] = [int(v) for v in ub.as_numpy_iterator()]
D["range_float"] = [float(v) for v in tf.data.Dataset.range(0, 3, 1, output_type=tf.float32).as_numpy_iterator()]
D["range_int32_spec"] = str(tf.data.Dataset.range(2, output_type=tf.int32).element_spec)
gw = tf.data.Dataset.range(10).group_by_window(key_func=lambda x: x % 3, reduce_func=lambda k, w: w.batch(2),
                                               window_size=2)
D["group_by_window"] = [v.tolist() for v in gw.as_numpy_iterator()]
gw = tf.data.Dataset.range(10).group_by_window(key_func=lambda x: x % 2, reduce_func=lambda k, w: w.batch(10),
                                               window_size=3)
D["group_by_window_3"] = [v.tolist() for v in gw.as_numpy_iterator()]
seqs = [[1], [2, 2], [3, 3, 3], [4, 4, 4, 4], [5] * 5, [6] * 6, [7], [8, 8]]
bs = tf.data.Dataset.from_generator(lambda: iter(seqs), output_signature=tf.TensorSpec([None], tf.int32))
bk = bs.bucket_by_sequence_length(lambda x: tf.shape(x)[0], bucket_boundaries=[3, 5], bucket_batch_sizes=[2, 2, 2])
D["bucket"] = [v.tolist() for v in bk.as_numpy_iterator()]
short = tf.data.Dataset.from_generator(lambda: iter([s for s in seqs if len(s) < 5]),
                                      output_signature=tf.TensorSpec([None], tf.int32))
bk = short.bucket_by_sequence_length(lambda x: tf.shape(x)[0], bucket_boundaries=[3, 5], bucket_batch_sizes=[2, 2, 2],
                                     pad_to_bucket_boundary=True, padding_values=-1)
D["bucket_pad_boundary"] = [v.tolist() for v in bk.as_numpy_iterator()]
print("DATA_EXTRAS = ", end="")
pprint.pprint(D, width=120, compact=True)
