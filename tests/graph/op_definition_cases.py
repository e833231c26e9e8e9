"""Cases of graph construction's op-definition rules, shared by the recorder and the test.

Each case is ``name: (inputs, fn)``: ``inputs`` a list of ``(dtype name, shape, value)``, ``fn(tf, *tensors)``
the call. ``record_op_definition_goldens.py`` runs each under TF 2.21 three ways (eagerly, built in a
``tf.Graph`` from placeholders and run by a ``Session``, inside a ``tf.function``) and keeps the error
class, the stage it came at and the message; ``test_op_definitions.py`` checks the engine against them.
Nothing here imports TensorFlow or the engine.
"""
import re

F2 = ("float32", [2], [1.0, 2.0])
I2 = ("int32", [2], [1, 0])
B2 = ("bool", [2], [True, False])
M23 = ("float32", [2, 3], [[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]])

CASES = {
    # --- inputs that share a type attribute, fixed-type inputs, allowed dtypes: TypeError at build ---
    "add_float_int": ([F2, I2], lambda tf, x, y: tf.add(x, y)),
    "operator_sub_int_float": ([I2, F2], lambda tf, x, y: x - y),
    "maximum_float32_float64": ([F2, ("float64", [2], [1.0, 0.0])], lambda tf, x, y: tf.maximum(x, y)),
    "less_float_int": ([F2, I2], lambda tf, x, y: tf.less(x, y)),
    "logical_or_int": ([B2, I2], lambda tf, x, y: tf.logical_or(x, y)),
    "logical_and_int": ([B2, I2], lambda tf, x, y: tf.logical_and(x, y)),
    "logical_not_int": ([I2], lambda tf, x: tf.logical_not(x)),
    "operator_and_bool_int": ([B2, I2], lambda tf, x, y: x & y),
    "reduce_any_float": ([F2], lambda tf, x: tf.reduce_any(x)),
    "where_float_int": ([B2, F2, I2], lambda tf, c, x, y: tf.where(c, x, y)),
    "matmul_float_int": ([("float32", [2, 2], [[1.0, 2.0], [3.0, 4.0]]), ("int32", [2, 2], [[1, 0], [0, 1]])],
                         lambda tf, a, b: tf.matmul(a, b)),
    "concat_float_int": ([F2, I2], lambda tf, x, y: tf.concat([x, y], 0)),
    "stack_float_int": ([F2, I2], lambda tf, x, y: tf.stack([x, y])),
    "add_n_float_int": ([F2, I2], lambda tf, x, y: tf.add_n([x, y])),
    "one_hot_float_indices": ([F2], lambda tf, x: tf.one_hot(x, 3)),
    "one_hot_bool_indices": ([B2], lambda tf, x: tf.one_hot(x, 3)),
    "gather_float_indices": ([("float32", [3], [1.0, 2.0, 3.0]), F2], lambda tf, x, i: tf.gather(x, i)),
    "segment_sum_float_ids": ([("float32", [3], [1.0, 2.0, 3.0]), ("float32", [3], [0.0, 0.0, 1.0])],
                              lambda tf, x, i: tf.math.segment_sum(x, i)),
    "sqrt_int": ([I2], lambda tf, x: tf.sqrt(x)),
    "softmax_int": ([I2], lambda tf, x: tf.nn.softmax(x)),
    "relu_bool": ([B2], lambda tf, x: tf.nn.relu(x)),
    "add_bool_number": ([B2], lambda tf, x: x + 1),
    # --- a Python number beside a bool tensor ---
    "operator_and_bool_minus_one": ([B2], lambda tf, x: x & -1),
    "operator_or_bool_zero": ([B2], lambda tf, x: x | 0),
    "operator_and_bool_true": ([B2], lambda tf, x: x & True),
    "logical_and_bool_one": ([B2], lambda tf, x: tf.logical_and(x, 1)),
    "equal_bool_one": ([B2], lambda tf, x: tf.equal(x, 1)),
    "operator_mul_bool_one": ([B2], lambda tf, x: x * 1),
    "operator_and_int_minus_one": ([I2], lambda tf, x: x & -1),
    # --- static axis errors: ValueError where TF's shape function checks, else the kernel's error when run ---
    "sort_axis_5": ([M23], lambda tf, x: tf.sort(x, axis=5)),
    "sort_axis_minus_3": ([M23], lambda tf, x: tf.sort(x, axis=-3)),
    "argsort_axis_2": ([M23], lambda tf, x: tf.argsort(x, axis=2)),
    "argmax_scalar_axis_0": ([("float32", [], 1.0)], lambda tf, x: tf.argmax(x, axis=0)),
    "argmin_scalar_axis_0": ([("float32", [], 1.0)], lambda tf, x: tf.argmin(x, axis=0)),
    "argmax_vector_axis_3": ([F2], lambda tf, x: tf.argmax(x, axis=3)),
    "argmax_matrix_axis_3": ([M23], lambda tf, x: tf.argmax(x, axis=3)),
    "cumsum_axis_2": ([M23], lambda tf, x: tf.cumsum(x, axis=2)),
    "cumsum_axis_minus_3": ([M23], lambda tf, x: tf.cumsum(x, axis=-3)),
    "cumprod_axis_2": ([M23], lambda tf, x: tf.math.cumprod(x, axis=2)),
    "reduce_sum_axis_2": ([M23], lambda tf, x: tf.reduce_sum(x, axis=2)),
    "reverse_scalar": ([("float32", [], 1.5)], lambda tf, x: tf.reverse(x, [0])),
    # --- an op definition that allows a dtype no kernel implements ---
    "reciprocal_int": ([I2], lambda tf, x: tf.math.reciprocal(x)),
    "pow_int_minus_one": ([("int32", [2], [2, 3])], lambda tf, x: tf.pow(x, -1)),
    "pow_int_minus_two": ([("int32", [2], [2, 3])], lambda tf, x: tf.pow(x, -2)),
    "pow_int_negative_tensor": ([("int32", [2], [2, 3]), ("int32", [2], [-1, 2])], lambda tf, x, y: tf.pow(x, y)),
    # --- values that are fine ---
    "bias_add_partly_known": ([M23, ("float32", [3], [1.0, 2.0, 3.0])], lambda tf, x, b: tf.nn.bias_add(x, b)),
}

# Cases whose graph placeholders hide some dimensions (the rest use the values' full shapes).
PLACEHOLDER_SHAPES = {"bias_add_partly_known": [[None, None], [3]]}

# Where the engine's message is TF's, word for word (the test compares the others' class and stage only).
EXACT_MESSAGES = {
    "add_float_int", "operator_sub_int_float", "maximum_float32_float64", "less_float_int", "logical_or_int",
    "logical_and_int", "logical_not_int", "operator_and_bool_int", "reduce_any_float", "where_float_int",
    "matmul_float_int", "concat_float_int", "stack_float_int", "add_n_float_int", "one_hot_float_indices",
    "one_hot_bool_indices", "gather_float_indices", "operator_and_bool_minus_one", "operator_or_bool_zero",
    "logical_and_bool_one", "equal_bool_one", "argmax_matrix_axis_3",
}


def error_head(exc):
    """``[class name, message]`` with the parts that name TF's internals taken out.

    Inside ``tf.function`` TF prefixes "in user code:" and a traceback: the message is its last line.
    Eagerly it adds ``{{function_node ...}}`` before and `` name: ...`` after ``[Op:...]``. Graph-run
    errors keep only their first line. Node names and the NodeDef text after " for '{{node" differ by
    construction (TF's ``sort/strided_slice``, the engine's ``StridedSlice``) and are cut.
    """
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    message = lines[0] if lines else ""
    if message.startswith("in user code:"):
        message = lines[-1]
        message = re.sub(r"^\w+Error: ", "", message)
    message = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", message)
    message = re.sub(r"( \[Op:\w+\]).*$", r"\1", message)
    message = message.split(" for '{{node")[0]
    return [type(exc).__name__, message]


def feed_array(np, dtype, value):
    return np.array(value, dtype=dtype)


def run_case(tf, np, name):
    """The case three ways: ``{"eager": ..., "graph": ..., "function": ...}``, each
    ``{"ok": [dtype, static shape]}`` or ``{"error": [class, message], "stage": ...}``."""
    inputs, fn = CASES[name]
    out = {}
    arrays = [feed_array(np, dt, v) for dt, _, v in inputs]

    def describe(t):
        return [t.dtype.name, None if t.shape.rank is None else t.shape.as_list()]

    try:
        out["eager"] = {"ok": describe(fn(tf, *[tf.constant(a) for a in arrays]))}
    except Exception as e:  # noqa: BLE001
        out["eager"] = {"error": error_head(e)}
    v1 = tf.compat.v1
    shapes = PLACEHOLDER_SHAPES.get(name, [shape for _, shape, _ in inputs])
    g = tf.Graph()
    with g.as_default():
        try:
            phs = [v1.placeholder(getattr(tf, dt), shape) for (dt, _, _), shape in zip(inputs, shapes)]
            result = fn(tf, *phs)
        except Exception as e:  # noqa: BLE001
            out["graph"] = {"error": error_head(e), "stage": "build"}
        else:
            try:
                with v1.Session(graph=g) as sess:
                    sess.run(result, dict(zip(phs, arrays)))
                out["graph"] = {"ok": describe(result)}
            except Exception as e:  # noqa: BLE001
                out["graph"] = {"error": [type(e).__name__, ""], "stage": "run", "static": describe(result)}
    traced = []

    def body(*xs):
        r = fn(tf, *xs)
        traced.append(describe(r))
        return r
    try:
        tf.function(body)(*[tf.constant(a) for a in arrays])
        out["function"] = {"ok": traced[0]}
    except Exception as e:  # noqa: BLE001
        stage = "run" if traced else "trace"
        out["function"] = {"error": error_head(e) if stage == "trace" else [type(e).__name__, ""], "stage": stage}
    return out
