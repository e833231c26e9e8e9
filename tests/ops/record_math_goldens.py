"""Record the TF 2.21 goldens of ``test_kink_gradients.py`` and ``test_missing_math_fns.py``.

Run under a real TensorFlow (never imported by the engine or by pytest: the name has no ``test_`` prefix):

    /tmp/tfvenv/bin/python tests/ops/record_math_goldens.py

It rewrites ``tests/ops/kink_gradients_golden.json`` and ``tests/ops/missing_math_fns_golden.json``.
NaN and inf are written as JSON's ``NaN`` / ``Infinity`` (Python's ``json`` reads them back); a gradient
TF gives as ``None`` is written as ``null``.
"""
import json
import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))

# --- the sweep: every differentiable elementwise unary function of tf.math / tf.nn that the engine exports ---
UNARY = [
    "math.abs", "math.acos", "math.acosh", "math.asin", "math.asinh", "math.atan", "math.atanh",
    "math.bessel_i0e", "math.bessel_i1e", "math.ceil", "math.cos", "math.cosh", "math.digamma", "math.erf",
    "math.erfc", "math.erfinv", "math.exp", "math.expm1", "math.floor", "math.lgamma", "math.log", "math.log1p",
    "math.log_sigmoid", "math.ndtri", "math.negative", "math.reciprocal", "math.reciprocal_no_nan", "math.rint",
    "math.round", "math.rsqrt", "math.sigmoid", "math.sign", "math.sin", "math.sinh", "math.softplus",
    "math.softsign", "math.sqrt", "math.square", "math.tan", "math.tanh",
    "nn.elu", "nn.gelu", "nn.leaky_relu", "nn.relu", "nn.relu6", "nn.selu", "nn.sigmoid", "nn.silu",
    "nn.softplus", "nn.softsign", "nn.swish", "nn.tanh",
]
# Compositions the issue names (keys are looked up by the test in the same table).
COMPOSED = {
    "sqrt(softsign)": lambda x: tf.sqrt(tf.nn.softsign(x)),
    "gelu_approximate": lambda x: tf.nn.gelu(x, approximate=True),
    "relu6_at_6": None,   # recorded at other points below
}
POINTS = [-1.0, 0.0, 1.0]
RELU6_POINTS = [6.0, 5.0, 7.0]

BINARY = ["math.maximum", "math.minimum", "math.pow", "math.divide_no_nan", "math.squared_difference",
          "math.atan2", "math.xdivy", "math.xlogy", "math.xlog1py", "math.multiply", "math.divide",
          "math.subtract", "math.add", "math.floormod"]
PAIRS = [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0), (-1.0, 2.0), (2.0, -1.0), (0.0, 2.0), (0.0, -1.0)]


def lookup(path):
    obj = tf
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def as_json(t):
    return None if t is None else np.asarray(t).astype(np.float64).tolist()


def unary_grads(f, points, dtype=tf.float32):
    x = tf.constant(points, dtype)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
    try:
        gg = as_json(outer.gradient(g, x)) if g is not None else None
    except LookupError as e:   # TF has no second-order rule (e.g. SoftsignGrad): the engine's may exist
        gg = "LookupError: " + str(e)
    return {"x": points, "y": as_json(y), "grad": as_json(g), "grad2": gg}


def binary_grads(f, pairs):
    x = tf.constant([p[0] for p in pairs], tf.float32)
    y = tf.constant([p[1] for p in pairs], tf.float32)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = f(x, y)
    gx, gy = tape.gradient(z, [x, y])
    return {"x": [p[0] for p in pairs], "y": [p[1] for p in pairs], "z": as_json(z), "grad_x": as_json(gx),
            "grad_y": as_json(gy)}


def record_kinks():
    out = {"unary": {}, "binary": {}}
    for path in UNARY:
        out["unary"][path] = unary_grads(lookup(path), POINTS)
    for key, f in COMPOSED.items():
        if f is not None:
            out["unary"][key] = unary_grads(f, POINTS)
    out["unary"]["nn.relu6@kinks"] = unary_grads(tf.nn.relu6, RELU6_POINTS)
    out["unary"]["nn.selu@float64"] = unary_grads(tf.nn.selu, POINTS, tf.float64)
    out["unary"]["nn.softsign@float64"] = unary_grads(tf.nn.softsign, POINTS, tf.float64)
    for path in BINARY:
        out["binary"][path] = binary_grads(lookup(path), PAIRS)
    # The values behind digamma's and lgamma's gradients at their poles: zeta(s, q) and polygamma(n, x).
    s_values, q_values = [1.0, 2.0, 3.0, 4.0, 2.5, 0.5], [-2.0, -1.0, 0.0, -0.5, -1.5, 1.0, 2.5]
    grid = [(a, b) for a in s_values for b in q_values]
    out["zeta"] = {"s": [a for a, _ in grid], "q": [b for _, b in grid],
                   "value": as_json(tf.math.zeta(tf.constant([a for a, _ in grid]), tf.constant([b for _, b in grid])))}
    n_values = [0.0, 1.0, 2.0, 3.0]
    grid = [(a, b) for a in n_values for b in q_values]
    out["polygamma"] = {"n": [a for a, _ in grid], "x": [b for _, b in grid],
                        "value": as_json(tf.math.polygamma(tf.constant([a for a, _ in grid]),
                                                           tf.constant([b for _, b in grid])))}
    return out


# --- the five functions -----------------------------------------------------------------------------------
def graph_ops(f, spec):
    g = tf.function(f).get_concrete_function(spec).graph
    return [o.type for o in g.get_operations() if o.type not in ("Placeholder", "Identity", "NoOp")]


def error_of(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001  (recording whatever TF raises)
        return {"error": type(e).__name__, "message": str(e).split("\n")[0]}
    return None


def value_of(t):
    a = np.asarray(t)
    return {"value": a.astype(np.float64).tolist(), "dtype": t.dtype.name, "shape": list(a.shape)}


DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "bool"]


def dtype_table(f, values):
    table = {}
    for name in DTYPES:
        dt = tf.as_dtype(name)
        try:
            x = tf.constant([bool(v) for v in values]) if name == "bool" else tf.constant(values, dt)
            r = f(x)
            table[name] = r.dtype.name
        except Exception as e:  # noqa: BLE001
            table[name] = type(e).__name__ + ": " + str(e).split("\n")[0][:160]
    return table


def record_missing():
    out = {"cast_is_tf_cast": tf.dtypes.cast is tf.cast}
    # reduce_euclidean_norm: values for every axis/keepdims form, int inputs, dtypes, errors, shapes, grads
    een = {"cases": [], "static_shapes": [], "grads": [], "errors": {}}
    inputs = {
        "f32": (np.array([[1.0, 2.0], [3.0, 4.0]]), tf.float32),
        "f64": (np.array([[1.0, -2.0, 2.0], [0.0, 3.0, 4.0]]), tf.float64),
        "f16": (np.array([[3.0, 4.0], [6.0, 8.0]]), tf.float16),
        "i32": (np.array([[3, 4], [5, 12]]), tf.int32),
        "i64": (np.array([[3, 4], [-5, 12]]), tf.int64),
        "i8": (np.array([[10, 10], [3, 4]]), tf.int8),
        "u8": (np.array([[1, 2], [2, 4]]), tf.uint8),
        "i32_3d": (np.arange(24).reshape(2, 3, 4) - 7, tf.int32),
        "f32_empty": (np.zeros((0, 3)), tf.float32),
    }
    axes = [None, 0, 1, -1, [0, 1], [1, 0], [], [-2]]
    for key, (arr, dt) in inputs.items():
        for axis in axes + ([2, [0, 2]] if arr.ndim == 3 else []):
            for keepdims in (False, True):
                r = tf.math.reduce_euclidean_norm(tf.constant(arr, dt), axis=axis, keepdims=keepdims)
                een["cases"].append({"input": key, "axis": axis, "keepdims": keepdims, **value_of(r)})
    een["inputs"] = {k: {"value": a.tolist(), "dtype": dt.name} for k, (a, dt) in inputs.items()}
    for spec_shape, axis, keepdims in [([None, 3], 1, False), ([None, 3], 1, True), ([None, 3], None, False),
                                       ([None, 3], None, True), ([None, 3], 0, False), ([2, None, 4], [0, 2], True),
                                       (None, 0, False), (None, None, False), (None, [0, 1], True)]:
        g = tf.function(lambda x: tf.math.reduce_euclidean_norm(x, axis=axis, keepdims=keepdims))
        c = g.get_concrete_function(tf.TensorSpec(spec_shape, tf.float32))
        shape = c.structured_outputs.shape
        een["static_shapes"].append({"input_shape": spec_shape, "axis": axis, "keepdims": keepdims,
                                     "shape": None if shape.rank is None else shape.as_list()})
    for values, axis, keepdims in [([[1.0, 2.0], [3.0, 4.0]], 1, False), ([[1.0, 2.0], [3.0, 4.0]], None, False),
                                   ([[1.0, 2.0], [3.0, 4.0]], 0, True), ([[0.0, 0.0], [3.0, 4.0]], 1, False),
                                   ([[-1.0, 0.0], [2.0, -2.0]], [0, 1], True)]:
        x = tf.constant(values)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.math.reduce_euclidean_norm(x, axis=axis, keepdims=keepdims)
        een["grads"].append({"x": values, "axis": axis, "keepdims": keepdims, "grad": as_json(tape.gradient(y, x))})
    een["errors"]["bool"] = error_of(lambda: tf.math.reduce_euclidean_norm(tf.constant([True, False])))
    een["errors"]["axis_out_of_range"] = error_of(
        lambda: tf.math.reduce_euclidean_norm(tf.constant([[1.0, 2.0]]), axis=2))
    een["errors"]["axis_duplicate"] = error_of(
        lambda: tf.math.reduce_euclidean_norm(tf.constant([[1.0, 2.0]]), axis=[0, -2]))
    een["errors"]["axis_float"] = error_of(lambda: tf.math.reduce_euclidean_norm(tf.constant([[1.0, 2.0]]), axis=0.5))
    een["dtypes"] = dtype_table(tf.math.reduce_euclidean_norm, [1, 2])
    een["graph_ops"] = graph_ops(lambda x: tf.math.reduce_euclidean_norm(x, axis=1), tf.TensorSpec([None, 3]))
    out["reduce_euclidean_norm"] = een

    special = [-2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 2.4, -2.7, 3.0]
    fns = {
        "reciprocal_no_nan": ([0.0, 2.0, -4.0, 0.5, float("inf"), float("-inf"), float("nan"), -0.0],
                              tf.math.reciprocal_no_nan),
        "log_sigmoid": ([-100.0, -20.0, -1.0, 0.0, 1.0, 20.0, 100.0, float("inf"), float("-inf")],
                        tf.math.log_sigmoid),
        "rint": (special + [float("inf"), float("nan"), -0.0], tf.math.rint),
    }
    for key, (points, f) in fns.items():
        entry = {"values": {}, "grads": {}, "dtypes": dtype_table(f, [1, 2])}
        for dt in ("float16", "float32", "float64"):
            try:
                entry["values"][dt] = {"x": points, **value_of(f(tf.constant(points, dt)))}
            except Exception as e:  # noqa: BLE001
                entry["values"][dt] = {"error": type(e).__name__, "message": str(e).split("\n")[0]}
        grad_points = [p for p in points if np.isfinite(p)]
        for dt in ("float32", "float64"):
            entry["grads"][dt] = unary_grads(f, grad_points, tf.as_dtype(dt))
        entry["graph_ops"] = graph_ops(f, tf.TensorSpec([None, 3]))
        entry["static_shape"] = tf.function(f).get_concrete_function(
            tf.TensorSpec([None, 3])).structured_outputs.shape.as_list()
        entry["python_list"] = value_of(f([1.0, 4.0]))
        out[key] = entry
    out["cast"] = {"value": value_of(tf.dtypes.cast([1.7, -1.7], tf.int32)),
                   "graph_ops": graph_ops(lambda x: tf.dtypes.cast(x, tf.int32), tf.TensorSpec([None, 3]))}
    out["selu_graph_ops"] = graph_ops(tf.nn.selu, tf.TensorSpec([None, 3]))
    out["softsign_graph_ops"] = graph_ops(tf.nn.softsign, tf.TensorSpec([None, 3]))
    out["selu_dtypes"] = dtype_table(tf.nn.selu, [1, 2])
    out["softsign_dtypes"] = dtype_table(tf.nn.softsign, [1, 2])
    return out


if __name__ == "__main__":
    for name, data in [("kink_gradients_golden.json", record_kinks()),
                       ("missing_math_fns_golden.json", record_missing())]:
        with open(os.path.join(HERE, name), "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
            f.write("\n")
        print("wrote", name)
