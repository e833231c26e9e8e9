"""Record TF 2.21's answers for the cases of ``list_op_cases.py`` into ``list_op_goldens.json``.

Run from the repository root with a Python that has tensorflow-cpu 2.21 (a scratch venv; TensorFlow is
never a dependency of the project):
    TF_PYTHON tests/graph/record_list_op_goldens.py
For every case it records:

* ``graph``: the outputs' kind (a tensor, a list or a tuple of N), dtypes and static shapes built in a TF1
  ``tf.Graph`` from placeholders of the case's (partly unknown) shapes, or the error class and message;
* ``function``: the same inside a ``tf.function`` traced for an ``input_signature`` of those shapes;
* ``eager``: the values computed eagerly on the case's feeds (cases that have them);
* ``gradient``: for ``GRADIENT_CASES``, the tape's gradient of ``sum_i (i + 1) * sum(outputs[i])`` with
  respect to the first input.
"""
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from list_op_cases import CASES, GRADIENT_CASES, error_head, feed_array, flat_outputs, weighted_sum  # noqa: E402

v1 = tf.compat.v1


def static(out):
    kind, tensors = flat_outputs(out)
    return {"kind": kind, "outputs": [[t.dtype.name, None if t.shape.rank is None else t.shape.as_list()]
                                      for t in tensors]}


def values(out):
    kind, tensors = flat_outputs(out)
    return {"kind": kind, "outputs": [[t.dtype.name, list(t.shape), np.asarray(t).tolist()] for t in tensors]}


def attempt(f):
    try:
        return f()
    except Exception as e:  # noqa: BLE001
        return {"error": error_head(e)}


def record(inputs, fn, with_gradient):
    entry = {}

    def graph():
        with tf.Graph().as_default():
            return static(fn(tf, *[v1.placeholder(dt, shape) for dt, shape, _ in inputs]))
    entry["graph"] = attempt(graph)

    def function():
        seen = []
        sig = [tf.TensorSpec(shape, dt) for dt, shape, _ in inputs]
        tf.function(lambda *xs: seen.append(static(fn(tf, *xs))), input_signature=sig).get_concrete_function()
        return seen[0]
    entry["function"] = attempt(function)
    if all(feed is not None for _, _, feed in inputs):
        feeds = [tf.constant(feed_array(dt, shape, feed)) for dt, shape, feed in inputs]
        entry["eager"] = attempt(lambda: values(fn(tf, *feeds)))
        if with_gradient:
            def gradient():
                with tf.GradientTape() as tape:
                    tape.watch(feeds[0])
                    y = weighted_sum(tf, fn(tf, *feeds))
                return tape.gradient(y, feeds[0]).numpy().tolist()
            entry["gradient"] = attempt(gradient)
    return entry


def main():
    table = {name: record(inputs, fn, name in GRADIENT_CASES) for name, (inputs, fn) in CASES.items()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "list_op_goldens.json")
    with open(path, "w") as f:
        json.dump({"tf_version": tf.__version__, "cases": table}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {len(table)} cases to {path}")


if __name__ == "__main__":
    main()
