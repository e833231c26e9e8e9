"""A3's harness (sandbox side): run the student's tracer pieces on generated arguments, return outputs.

Arguments come as JSON descriptions (:func:`build`): ``["T", dtype, shape, offset]`` a tensor,
``["N", ...]`` a NumPy array, ``["S", dtype, shape]`` a ``tf.TensorSpec``, ``["V", name, dtype,
shape]`` a variable of the case's pool (the same name, the same variable), ``["O", name]`` a plain
object of the pool, ``["P", value]`` a Python value, ``["L", items]`` a list, ``["U", items]`` a
tuple, ``["D", [[key, item], ...]]`` a dict (in that insertion order). The traced functions are
:func:`make_generic`'s: they touch every leaf, so a wrong trace shows in the outputs, and count
their Python runs (a trace runs the body once). The grader process runs the same programs on the
pristine engine (``assignments/a3.py``).
"""
import numpy as np

from .common import encode


# --------------------------------------------------------------------------------------------
# Arguments from their descriptions
# --------------------------------------------------------------------------------------------
def _values(dtype, shape, offset):
    size = int(np.prod(shape)) if shape else 1
    a = ((np.arange(size) * 3 + offset) % 7 - 3).astype(np.float64).reshape(shape)
    a = a.astype(dtype) if dtype.startswith("int") else a.astype(dtype) * 0.5
    return np.asarray(a)   # (a 0-d array stays an array, not a NumPy scalar)


def build(tf, desc, pool):
    kind = desc[0]
    if kind == "T":
        return tf.constant(_values(desc[1], desc[2], desc[3]), dtype=desc[1])
    if kind == "N":
        return _values(desc[1], desc[2], desc[3])
    if kind == "S":
        return tf.TensorSpec(desc[2], getattr(tf, desc[1]))
    if kind == "V":
        if desc[1] not in pool:
            pool[desc[1]] = tf.Variable(_values(desc[2], desc[3], len(pool)), dtype=desc[2], name=desc[1])
        return pool[desc[1]]
    if kind == "O":
        return pool.setdefault("object:" + desc[1], _Opaque(desc[1]))
    if kind == "P":
        return desc[1]
    if kind == "L":
        return [build(tf, d, pool) for d in desc[1]]
    if kind == "U":
        return tuple(build(tf, d, pool) for d in desc[1])
    if kind == "D":
        return {k: build(tf, d, pool) for k, d in desc[1]}
    raise ValueError(f"unknown argument description {desc!r}")


def build_call(tf, call, pool):
    """``{"args": [...], "kwargs": [[name, desc], ...]}`` -> ``(args, kwargs)``."""
    return (tuple(build(tf, d, pool) for d in call["args"]),
            {k: build(tf, d, pool) for k, d in call.get("kwargs", [])})


class _Opaque:
    """An argument tf.function knows nothing about: keyed by identity."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<object {self.name}>"


def make_generic(tf, runs):
    """A fresh function to trace: adds up every leaf it is given (variables after adding 1 to them)."""
    def generic(*args, **kwargs):
        runs.append(1)
        total = tf.constant(0.0)
        for i, leaf in enumerate(tf.nest.flatten((args, kwargs))):
            weight = float(i + 1)
            if isinstance(leaf, tf.Variable):
                leaf.assign_add(tf.ones(leaf.shape, leaf.dtype))
                total = total + weight * tf.reduce_sum(tf.cast(leaf.read_value(), tf.float32))
            elif isinstance(leaf, (tf.Tensor, np.ndarray)):
                total = total + weight * tf.reduce_sum(tf.cast(leaf, tf.float32))
            elif isinstance(leaf, bool):
                total = total * (2.0 if leaf else -1.0)
            elif isinstance(leaf, (int, float)):
                total = total + weight * float(leaf)
            elif isinstance(leaf, str):
                total = total + weight * float(len(leaf))
        return total
    return generic


def _try(f):
    try:
        return f()
    except Exception as exc:  # the class name is the observable behaviour
        return "error:" + type(exc).__name__


def pool_values(pool):
    return {k: encode(v) for k, v in sorted(pool.items()) if not k.startswith("object:")}


# --------------------------------------------------------------------------------------------
# Keys as JSON: what a key says, in the course's format
# --------------------------------------------------------------------------------------------
def describe_leaf(tf, key, objects=()):
    """One leaf key, ``("tensor", dtype, shape)`` ... as JSON; a key of another form says so."""
    if not isinstance(key, tuple) or not key:
        return ["malformed", repr(key)[:60]]
    kind = key[0]
    if kind in ("tensor", "variable"):
        if len(key) < 3:
            return ["malformed", repr(key)[:60]]
        dtype = key[1].name if isinstance(key[1], tf.DType) else f"not a tf.DType: {key[1]!r}"[:60]
        shape = key[2]
        if isinstance(shape, tf.TensorShape):
            shape = None if shape.rank is None else shape.as_list()
        else:
            shape = f"not a tf.TensorShape: {shape!r}"[:60]
        out = [kind, dtype, shape]
        if kind == "variable" and len(key) > 3:
            out.append(key[3] if isinstance(key[3], int) else f"not an int: {key[3]!r}"[:60])
        return out
    if kind == "value" and len(key) == 2:
        return ["value", type(key[1]).__name__, repr(key[1])]
    if kind == "object" and len(key) == 2:
        names = [n for n, o in objects if id(o) == key[1]]
        return ["object", names[0] if names else "not the id of the argument"]
    return ["malformed", repr(key)[:60]]


def partition(keys):
    """For each key, the index of the first key equal to it (errors if a key is not hashable)."""
    first, out = {}, []
    for i, k in enumerate(keys):
        hash(k)
        out.append(first.setdefault(k, i))
    return out


def _objects(pool):
    return [(k[len("object:"):], v) for k, v in pool.items() if k.startswith("object:")]


# --------------------------------------------------------------------------------------------
# The harnesses
# --------------------------------------------------------------------------------------------
def h_leaf_key(tf, ctx, ns, case, state):
    pool = {}
    leaves = [build(tf, d, pool) for d in case["leaves"]]
    keys = [ns["leaf_key"](x) for x in leaves]
    return {"partition": partition(keys), "keys": [describe_leaf(tf, k, _objects(pool)) for k in keys]}


def h_trace_key(tf, ctx, ns, case, state):
    pool = {}
    keys, leaves = [], []
    for call in case["calls"]:
        args, kwargs = build_call(tf, call, pool)
        key = ns["trace_key"](args, kwargs)
        keys.append(key)
        ok = isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], tuple)
        leaves.append([describe_leaf(tf, k, _objects(pool)) for k in key[1]] if ok else "malformed")
    return {"partition": partition(keys), "leaves": leaves}


def trace_program(tf, trace, case):
    """Trace ``generic`` on the case's arguments with ``trace(fn, args, kwargs)``, then call the result."""
    pool, runs = {}, []
    fn = make_generic(tf, runs)
    args, kwargs = build_call(tf, case["trace"], pool)
    concrete = trace(fn, args, kwargs)
    out = {"runs": len(runs)}
    out["inputs"] = [[p.dtype.name, None if p.shape.rank is None else p.shape.as_list()] for p in concrete.inputs]
    results = []
    for call in case["calls"]:
        a, k = build_call(tf, call, pool)
        results.append(_try(lambda: encode(concrete(*a, **k))))
    out["results"] = results
    out["runs_after_calls"] = len(runs)
    out["variables"] = pool_values(pool)
    return out


def h_trace(tf, ctx, ns, case, state):
    return trace_program(tf, ns["trace"], case)


def h_rules(tf, ctx, ns, case, state):
    pool = {}
    traced = ns["trace_key"](*build_call(tf, case["traced"], pool))
    key = ns["trace_key"](*build_call(tf, case["call"], pool))
    accepted = ns["accepts"](traced, key)
    relaxed = ns["relax_key"](traced, key)
    out = {"accepts": accepted if isinstance(accepted, bool) else f"not a bool: {accepted!r}"[:60]}
    if relaxed is None:
        out["relaxed"] = None
    elif isinstance(relaxed, tuple) and len(relaxed) == 2 and isinstance(relaxed[1], tuple):
        out["relaxed"] = [describe_leaf(tf, k, _objects(pool)) for k in relaxed[1]]
        out["same_structure"] = relaxed[0] == key[0]
    else:
        out["relaxed"] = "malformed"
    return out


def run_sequence(tf, case, tracer=None):
    """Call one fresh tf.function with the case's calls (through ``tracer``, if given): per call, the
    traces so far (the body's Python runs) and the result; then the pool's variables."""
    from engine import seams
    pool, runs = {}, []
    options = {"autograph": False}
    if case.get("signature") is not None:
        options["input_signature"] = [build(tf, d, pool) for d in case["signature"]]
    if case.get("reduce_retracing"):
        options["reduce_retracing"] = True
    f = tf.function(make_generic(tf, runs), **options)
    steps = []
    with seams.using(tracer=tracer):
        for call in case["calls"]:
            args, kwargs = build_call(tf, call, pool)
            result = _try(lambda: encode(f(*args, **kwargs)))
            steps.append([len(runs), result])
    return {"steps": steps, "variables": pool_values(pool)}


def h_tracer(tf, ctx, ns, case, state):
    return run_sequence(tf, case, ns["Tracer"])


HARNESS = {"leaf_key": h_leaf_key, "trace_key": h_trace_key, "trace": h_trace, "rules": h_rules,
           "tracer": h_tracer}
