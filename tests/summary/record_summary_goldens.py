"""Record the TF 2.21 goldens of ``tests/summary`` (tf.summary and Keras's TensorBoard callback).

Run under a real TensorFlow and TensorBoard (never imported by the engine or by pytest: the name has no
``test_`` prefix):

    /tmp/tfvenv/bin/python tests/summary/record_summary_goldens.py

It writes summaries with TF into a scratch directory, reads TF's event files back with TensorBoard's
loader, and rewrites ``tests/summary/summary_goldens.json``: the raw bytes (hex) of some events, the
decoded values of the others (histogram buckets, image pixels, text), TF's return values and error
messages, the steps written by a ``tf.function``, the graph of a trace, and what Keras writes.
"""
import json
import os
import re
import tempfile

import numpy as np
import tensorflow as tf
from tensorboard.backend.event_processing import event_file_loader
from tensorboard.compat.proto import config_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
rs = np.random.RandomState(0)


def events_of(logdir):
    """[(raw record bytes, Event)] of the one event file in logdir."""
    (name,) = [f for f in os.listdir(logdir) if f.startswith("events.out.tfevents.")]
    path = os.path.join(logdir, name)
    raws = list(tf.compat.v1.io.tf_record_iterator(path))
    evs = list(event_file_loader.LegacyEventFileLoader(path).Load())
    return name, list(zip(raws, evs))


def by_tag(pairs):
    out = {}
    for raw, ev in pairs:
        for v in ev.summary.value:
            out.setdefault(v.tag, []).append((raw, ev, v))
    return out


def message(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e)]
    return None


golden = {}

# --- histogram cases: data, buckets -> TF's [k, 3] float64 ------------------------------------------
HIST = {
    "normal_default": (rs.normal(size=1000).tolist(), None, "float64"),
    "uniform_float32_b7": (rs.uniform(-3, 5, size=257).astype(np.float32).tolist(), 7, "float32"),
    "ints_b5": ([1, 2, 2, 3, 7, 7, 7, 0], 5, "int32"),
    "arange_edges_b3": (list(range(10)), 3, "float64"),
    "single_value": ([3.0, 3.0, 3.0, 3.0], None, "float64"),
    "single_value_b4": ([-2.5], 4, "float64"),
    "empty": ([], None, "float64"),
    "empty_b3": ([], 3, "float64"),
    "zero_buckets": ([1.0, 2.0], 0, "float64"),
    "one_bucket": ([1.0, 2.0, 5.0], 1, "float64"),
    "matrix": (rs.normal(size=(6, 5)).tolist(), 4, "float64"),
    "tiny_range": ([1.0, 1.0 + 1e-12, 1.0 + 3e-12], 3, "float64"),
}
tmp = tempfile.mkdtemp()
writer = tf.summary.create_file_writer(os.path.join(tmp, "hist"))
with writer.as_default():
    for i, (tag, (data, buckets, dtype)) in enumerate(HIST.items()):
        tf.summary.histogram(tag, tf.constant(np.array(data, dtype=dtype).reshape(np.shape(data)), dtype=dtype),
                             step=i, buckets=buckets)
writer.close()
_, pairs = events_of(os.path.join(tmp, "hist"))
tags = by_tag(pairs)
golden["histogram"] = {tag: {"data": data, "buckets": buckets, "dtype": dtype,
                             "result": tf.make_ndarray(tags[tag][0][2].tensor).tolist(),
                             "event_hex": tags[tag][0][0].hex()}
                       for tag, (data, buckets, dtype) in HIST.items()}

# --- scalars, text, the first record, file name, return values, errors --------------------------------
logdir = os.path.join(tmp, "basic")
writer = tf.summary.create_file_writer(logdir)
returns = {"no_writer": bool(tf.summary.scalar("x", 1.0, step=0).numpy())}
with writer.as_default():
    returns["written"] = bool(tf.summary.scalar("loss", 0.5, step=3).numpy())
    with tf.name_scope("train"):
        tf.summary.scalar("acc", 2, step=1, description="an *int* scalar")
    tf.summary.scalar("neg_step", -1.25, step=-4)
    tf.summary.scalar("big_step", 3.0e38, step=2 ** 40 + 7)
    tf.summary.text("greeting", "hello", step=1)
    tf.summary.text("table", [["a", "b"], ["c", "d"]], step=2)
    tf.summary.text("unicode", "h\u00e9llo \u2603", step=3, description="snow")
    tf.summary.experimental.set_step(9)
    tf.summary.scalar("default_step", 1.5)
    tf.summary.experimental.set_step(None)
    with tf.summary.record_if(False):
        returns["record_if_false"] = bool(tf.summary.scalar("skipped", 1.0, step=0).numpy())
        returns["should_record_false"] = bool(tf.summary.should_record_summaries().numpy())
    returns["should_record_true"] = bool(tf.summary.should_record_summaries().numpy())
    with tf.summary.record_if(lambda: tf.constant(True)):
        returns["record_if_callable"] = bool(tf.summary.scalar("recorded", 2.0, step=0).numpy())
    tf.summary.write("raw", tf.constant([1, 2, 3], tf.int64), step=5)
    returns["write_no_metadata"] = True
    errors = {
        "no_step": message(lambda: tf.summary.scalar("x", 1.0)),
        "scalar_not_scalar": message(lambda: tf.summary.scalar("x", [1.0, 2.0], step=0)),
        "text_not_string": message(lambda: tf.summary.text("x", 1.0, step=0)),
        "graph_bad_argument": message(lambda: tf.summary.graph(3)),
        "trace_export_without_trace_on": message(lambda: tf.summary.trace_export("x", step=0)),
    }
returns["should_record_no_writer"] = bool(tf.summary.should_record_summaries().numpy())
noop = tf.summary.create_noop_writer()
with noop.as_default():
    returns["noop_writer"] = bool(tf.summary.scalar("x", 1.0, step=0).numpy())
writer.close()
errors["closed_writer_as_default"] = message(lambda: writer.as_default())
errors["closed_writer_as_default"][1] = re.sub(r"<.*>", "<writer>", errors["closed_writer_as_default"][1])
name, pairs = events_of(logdir)
golden["file_name_pattern"] = re.sub(r"\d{10}", "<time>", name.replace(str(os.getpid()), "<pid>"))
golden["first_record_hex"] = pairs[0][0].hex()
golden["first_record_wall_time"] = pairs[0][1].wall_time
golden["returns"] = returns
golden["errors"] = errors
golden["events"] = {}
for raw, ev in pairs[1:]:
    v = ev.summary.value[0]
    golden["events"][v.tag] = {"hex": raw.hex(), "wall_time": ev.wall_time, "step": ev.step,
                               "value": tf.make_ndarray(v.tensor).tolist() if v.tensor.dtype != 7 else
                               [s.decode("utf-8") for s in tf.make_ndarray(v.tensor).reshape(-1).tolist()],
                               "shape": list(tf.make_ndarray(v.tensor).shape),
                               "plugin": v.metadata.plugin_data.plugin_name,
                               "description": v.metadata.summary_description}

# --- images: TF's PNGs decoded --------------------------------------------------------------------------
IMAGES = {
    "float_rgb": (np.array([[[[0.0, 0.5, 1.0], [1.2, -0.1, 0.25]], [[0.999, 0.001, 0.75], [0.1, 0.2, 0.3]]]]),
                  "float32", 3),
    "uint8_gray": (rs.randint(0, 256, size=(2, 3, 4, 1)), "uint8", 3),
    "uint8_rgba_max2": (rs.randint(0, 256, size=(3, 2, 2, 4)), "uint8", 2),
    "float64_gray_max1": (rs.uniform(0, 1, size=(2, 5, 3, 1)), "float64", 1),
}
logdir = os.path.join(tmp, "images")
writer = tf.summary.create_file_writer(logdir)
with writer.as_default():
    for i, (tag, (data, dtype, max_outputs)) in enumerate(IMAGES.items()):
        tf.summary.image(tag, tf.constant(data.astype(dtype)), step=i, max_outputs=max_outputs)
    errors["image_rank3"] = message(lambda: tf.summary.image("x", tf.zeros([2, 2, 3]), step=0))
writer.close()
_, pairs = events_of(logdir)
tags = by_tag(pairs)
golden["images"] = {}
for tag, (data, dtype, max_outputs) in IMAGES.items():
    v = tags[tag][0][2]
    strings = tf.make_ndarray(v.tensor).tolist()
    golden["images"][tag] = {"data": data.astype(dtype).tolist(), "dtype": dtype, "max_outputs": max_outputs,
                             "width": strings[0].decode(), "height": strings[1].decode(),
                             "pixels": [tf.io.decode_png(s).numpy().tolist() for s in strings[2:]],
                             "plugin": v.metadata.plugin_data.plugin_name}

# --- tf.function: the steps and values written by each call --------------------------------------------
logdir = os.path.join(tmp, "function")
writer = tf.summary.create_file_writer(logdir)
step = tf.Variable(0, dtype=tf.int64)


@tf.function
def train_step(x):
    tf.summary.scalar("var_step", tf.reduce_sum(x), step=step)
    tf.summary.scalar("python_step", tf.reduce_mean(x), step=7)
    with tf.summary.record_if(lambda: tf.equal(step % 2, 0)):
        tf.summary.scalar("even_steps", tf.reduce_max(x), step=step)
    return x * 2.0


with writer.as_default():
    for i in range(4):
        step.assign(10 + i)
        train_step(tf.constant([1.0, float(i)]))
writer.close()
_, pairs = events_of(logdir)
golden["function"] = {tag: [(ev.step, float(tf.make_ndarray(v.tensor))) for _, ev, v in items]
                      for tag, items in by_tag(pairs).items()}

# --- trace_on / trace_export ------------------------------------------------------------------------------
logdir = os.path.join(tmp, "trace")
writer = tf.summary.create_file_writer(logdir)


@tf.function
def traced(x):
    y = x * 2.0 + 1.0
    return tf.reduce_sum(y, name="total")


tf.summary.trace_on(graph=True, profiler=False)
traced(tf.constant([1.0, 2.0]))
with writer.as_default():
    tf.summary.trace_export("my_trace", step=3)
writer.close()
_, pairs = events_of(logdir)
(raw, ev, v), = by_tag(pairs)["my_trace"]
run_metadata = config_pb2.RunMetadata.FromString(v.tensor.string_val[0])
golden["trace"] = {"tag": v.tag, "step": ev.step, "plugin": v.metadata.plugin_data.plugin_name,
                   "content": v.metadata.plugin_data.content.decode(),
                   "function_graphs": [[[n.name, n.op, list(n.input)] for n in fg.pre_optimization_graph.node]
                                       for fg in run_metadata.function_graphs]}

# --- Keras 3's TensorBoard callback -----------------------------------------------------------------------
import keras  # noqa: E402

logdir = os.path.join(tmp, "keras")
x = rs.uniform(size=(8, 2)).astype("float32")
y = (x[:, 0] > 0.5).astype("float32")
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("sgd", "binary_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=2, batch_size=4, validation_data=(x, y), verbose=0,
          callbacks=[keras.callbacks.TensorBoard(logdir, histogram_freq=1)])
golden["keras"] = {}
for sub in ("train", "validation"):
    _, pairs = events_of(os.path.join(logdir, sub))
    golden["keras"][sub] = [[ev.step, v.tag, v.metadata.plugin_data.plugin_name] for _, ev in pairs
                            for v in ev.summary.value]

logdir = os.path.join(tmp, "keras_batch")
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("sgd", "binary_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=2, batch_size=4, validation_data=(x, y), verbose=0,
          callbacks=[keras.callbacks.TensorBoard(logdir, write_graph=False, update_freq="batch")])
_, pairs = events_of(os.path.join(logdir, "train"))
golden["keras_update_freq_batch"] = [[ev.step, v.tag, v.metadata.plugin_data.plugin_name] for _, ev in pairs
                                     for v in ev.summary.value]

with open(os.path.join(HERE, "summary_goldens.json"), "w") as f:
    json.dump(golden, f, indent=1)
    f.write("\n")
print("wrote", os.path.join(HERE, "summary_goldens.json"))
