"""Assignment A3 (trace a function: the core of tf.function): hidden tests, expected values, comparison.

Everything here runs in the *grader* process, with the repository's pristine engine; the student's
code runs in the sandbox (``harness/a3.py``), on an engine whose reference tracer is absent.
Arguments are JSON descriptions (see ``harness/a3.py``); the expected values come from the
engine's own keys (``_leaf_key``, ``_trace_key``), tracer (``FunctionTracer``), rules and
``tf.function``, translated to the course's key form where a task returns keys.
"""
import copy

import numpy as np

from ..harness import a3 as worker
from . import Task

NAME = "A3"
TITLE = "Trace a function: the trace key, tracing into a FuncGraph, the retracing rules, the tf.function tracer"
HOURS = "3-5 h"
SEAM = "tracer"
HARNESS = "a3"
ABSENT = {"engine/tracing/function.py": ["FunctionTracer", "_trace_key", "_leaf_key", "_structure_signature",
                                         "_skeleton", "_compatible", "_accepts", "_relax", "_specs_from"]}
TASKS = [
    Task("leaf_key", "leaf_key", "test_leaf_key", 4, ("2.2",)),
    Task("trace_key", "trace_key", "test_trace_key", 4, ("2.2",)),
    Task("trace", "trace", "test_trace", 5, ("2.1",)),
    Task("rules", "rules", "test_rules", 4, ("2.5",)),
    Task("tracer", "tracer", "test_tracer", 3, ("2.1", "2.2", "2.5")),
]
INJECT = {"trace_key": ["leaf_key"], "rules": ["leaf_key", "trace_key"],
          "tracer": ["leaf_key", "trace_key", "trace", "rules"]}

VARS = {"a": ("float32", [2]), "b": ("float32", [2]), "c": ("float32", [3]), "d": ("int32", [2])}
VALUES = [0, 1, 2, 0.5, 2.5, True, False, "a", "bc", None]
DTYPES = ["float32", "int32", "float64"]


# --- argument descriptions --------------------------------------------------------------------------
def T(shape, dtype="float32", offset=0):
    return ["T", dtype, list(shape), offset]


def N(shape, dtype="float32", offset=0):
    return ["N", dtype, list(shape), offset]


def S(shape, dtype="float32"):
    return ["S", dtype, None if shape is None else list(shape)]


def V(name):
    return ["V", name, VARS[name][0], VARS[name][1]]


def P(value):
    return ["P", value]


def Obj(name):
    return ["O", name]


def L(*items):
    return ["L", list(items)]


def U(*items):
    return ["U", list(items)]


def D(*pairs):
    return ["D", [[k, v] for k, v in pairs]]


def call(*args, **kwargs):
    return {"args": list(args), "kwargs": [[k, v] for k, v in kwargs.items()]}


def _shape(rng, rank=None):
    rank = int(rng.integers(0, 3)) if rank is None else rank
    return [int(rng.integers(1, 4)) for _ in range(rank)]


def rand_leaf(rng, kinds="TTTNPPVO"):
    kind = str(rng.choice(list(kinds)))
    if kind in "TN":
        return [kind, str(rng.choice(DTYPES)), _shape(rng), int(rng.integers(0, 5))]
    if kind == "S":
        shape = _shape(rng)
        return S([None if rng.random() < 0.4 else d for d in shape], str(rng.choice(DTYPES)))
    if kind == "P":
        return P(VALUES[int(rng.integers(0, len(VALUES)))])
    if kind == "V":
        return V(str(rng.choice(list(VARS))))
    return Obj(str(rng.choice(["x", "y"])))


def rand_nest(rng, kinds, depth=0):
    r = rng.random()
    if depth < 2 and r < 0.15:
        return L(*[rand_nest(rng, kinds, depth + 1) for _ in range(int(rng.integers(1, 3)))])
    if depth < 2 and r < 0.25:
        return U(*[rand_nest(rng, kinds, depth + 1) for _ in range(int(rng.integers(1, 3)))])
    if depth < 2 and r < 0.35:
        keys = list(rng.permutation(["p", "q", "r"])[:int(rng.integers(1, 3))])
        return D(*[(str(k), rand_nest(rng, kinds, depth + 1)) for k in keys])
    return rand_leaf(rng, kinds)


def rand_call(rng, kinds="TTTNPPVO", kwargs=True):
    args = [rand_nest(rng, kinds) for _ in range(int(rng.integers(1, 4)))]
    kw = {"mode": rand_leaf(rng, "PT")} if kwargs and rng.random() < 0.3 else {}
    return call(*args, **kw)


def _slots(desc, container, index, out):
    """Every leaf of a description, as (container, index) so that it can be replaced."""
    if desc[0] in ("L", "U"):
        for j, d in enumerate(desc[1]):
            _slots(d, desc[1], j, out)
    elif desc[0] == "D":
        for pair in desc[1]:
            _slots(pair[1], pair, 1, out)
    else:
        out.append((container, index))
    return out


def mutate(rng, c, kinds="TTTNPPVO", shapes_only=False):
    """A variant of call ``c``: one leaf changed (new values, shape, dtype, value, variable...)."""
    c = copy.deepcopy(c)
    slots = []
    for i, d in enumerate(c["args"]):
        _slots(d, c["args"], i, slots)
    for pair in c.get("kwargs", []):
        _slots(pair[1], pair, 1, slots)
    container, index = slots[int(rng.integers(0, len(slots)))]
    leaf = container[index]
    if leaf[0] in "TN":
        how = rng.random()
        new = copy.deepcopy(leaf)
        if how < 0.3 and not shapes_only:
            new[3] = int(rng.integers(0, 5))                      # other values: the same key
        elif how < 0.75 or shapes_only:
            if new[2] and rng.random() < 0.8:
                k = int(rng.integers(0, len(new[2])))
                new[2][k] = int(rng.integers(1, 6))
            else:
                new[2] = _shape(rng)
        else:
            new[1] = str(rng.choice(DTYPES))
    elif leaf[0] == "V" and not shapes_only:
        new = V(str(rng.choice(list(VARS))))
    elif shapes_only:
        new = leaf
    else:
        new = rand_leaf(rng, kinds)
    container[index] = new
    return c


def rand_sequence(rng, length, kinds="TTTNPPVO", shapes_only=False, kwargs=True):
    base = rand_call(rng, kinds, kwargs)
    variants = [base]
    for _ in range(3):
        variants.append(mutate(rng, variants[int(rng.integers(0, len(variants)))], kinds, shapes_only))
    return [variants[int(rng.integers(0, len(variants)))] for _ in range(length)]


# --- fixed cores --------------------------------------------------------------------------------------
LEAF_CORE = [
    {"what": "tensors, arrays and specs", "leaves": [
        T([2]), T([2], offset=3), T([3]), T([2], "int32"), T([], "float64"), N([2]), S([2]), S([None, 3]),
        T([2, 3]), N([], "float64"), S(None)]},
    {"what": "Python values", "leaves": [P(1), P(1), P(2), P(1.0), P(True), P("a"), P("b"), P(None), P(0.5),
                                          P(False), P(0)]},
    {"what": "variables", "leaves": [V("a"), V("b"), V("c"), V("d"), V("a"), T([2])]},
    {"what": "objects", "leaves": [Obj("x"), Obj("x"), Obj("y"), P("x")]},
]
KEY_CORE = [
    {"what": "nests", "calls": [call(L(T([2]), P(1))), call(U(T([2]), P(1))), call(L(T([2], offset=2), P(1))),
                                call(L(L(T([2])), T([]))), call(L(L(T([2]), T([]))))]},
    {"what": "dicts and keyword arguments", "calls": [
        call(D(("a", T([2])), ("b", P(1)))), call(D(("b", P(1)), ("a", T([2])))), call(D(("a", T([2])), ("c", P(1)))),
        call(T([2]), mode=P("a")), call(T([2]), mode=P("b")), call(T([2])), call(T([2]), mode=P("a"))]},
    {"what": "the same variable twice", "calls": [call(V("a"), V("a")), call(V("a"), V("b")), call(V("b"), V("a")),
                                                  call(V("b"), V("b")), call(V("a"), V("c")), call(V("c"), V("a"))]},
    {"what": "positional arguments", "calls": [call(T([2])), call(T([2]), P(1)), call(T([2]), P(1.0)),
                                               call(T([2]), P(2)), call(P(1), T([2])), call(T([2]), P(1))]},
]
TRACE_CORE = [
    {"what": "Python values baked in", "trace": call(T([2]), P(3.0), P(True), P("ab")),
     "calls": [call(T([2]), P(3.0), P(True), P("ab")), call(T([2], offset=4), P(3.0), P(True), P("ab"))]},
    {"what": "tf.TensorSpec arguments", "trace": call(S([None, 2]), S([], "int32")),
     "calls": [call(T([3, 2]), T([], "int32", 2)), call(T([1, 2], offset=1), T([], "int32", 4))]},
    {"what": "a variable argument", "trace": call(V("a"), T([2])),
     "calls": [call(V("a"), T([2])), call(V("b"), T([2], offset=2)), call(V("b"), T([2]))]},
    {"what": "the same variable twice", "trace": call(V("a"), V("a"), V("b")),
     "calls": [call(V("a"), V("a"), V("b")), call(V("b"), V("b"), V("a"))]},
    {"what": "nests, NumPy arrays and keyword arguments",
     "trace": call(D(("x", N([2])), ("y", L(T([3], "int32"), P("abc")))), k=T([], "float64")),
     "calls": [call(D(("x", N([2], offset=1)), ("y", L(T([3], "int32", 2), P("abc")))), k=T([], "float64", 3))]},
    {"what": "objects and None", "trace": call(Obj("x"), P(None), T([])),
     "calls": [call(Obj("x"), P(None), T([], offset=2))]},
]
RULES_CORE = [
    (call(S([None, 3])), call(T([5, 3]))),
    (call(T([5, 3])), call(T([4, 3]))),
    (call(S([None])), call(T([2, 2]))),
    (call(S(None)), call(T([2, 2]))),
    (call(S([None])), call(T([2], "int32"))),
    (call(S([None]), P(1)), call(T([2]), P(2))),
    (call(T([2]), V("a")), call(T([3]), V("b"))),
    (call(T([2]), T([5])), call(T([3]), T([5]))),
    (call(L(T([2]))), call(U(T([2])))),
    (call(T([5, 3])), call(S([None, 3]))),
    (call(T([2, 3])), call(T([2, 3], offset=1))),
    (call(S([None, None])), call(T([3]))),
    (call(T([2]), Obj("x")), call(T([2]), Obj("y"))),
    (call(D(("a", S([None])), ("b", P("s")))), call(D(("b", P("s")), ("a", T([4]))))),
]
TRACER_CORE = [
    {"what": "shapes, dtypes and Python values", "calls": [
        call(T([2])), call(T([2], offset=2)), call(T([3])), call(T([2]), P(2)), call(T([2]), P(2)),
        call(T([2]), P(3)), call(T([2], "int32")), call(T([2], "float64")), call(T([2]))]},
    {"what": "nests", "calls": [
        call(D(("a", T([2])), ("b", L(T([]), P("x"))))), call(D(("a", T([2], offset=1)), ("b", L(T([]), P("x"))))),
        call(D(("a", T([2])), ("b", U(T([]), P("x"))))), call(D(("a", T([3])), ("b", L(T([]), P("x"))))),
        call(D(("b", L(T([]), P("x"))), ("a", T([2]))))]},
    {"what": "variable arguments", "calls": [
        call(V("a"), T([2])), call(V("b"), T([2], offset=1)), call(V("a"), T([2])), call(V("a"), V("a")),
        call(V("a"), V("b")), call(V("c"), T([2]))]},
    {"what": "input_signature", "signature": [S([None]), S([])], "calls": [
        call(T([2]), T([])), call(T([5], offset=1), T([], offset=2)), call(L(P(1.0), P(2.0)), P(3.0)),
        call(T([2, 2]), T([])), call(T([3]), T([]))]},
    {"what": "reduce_retracing", "reduce_retracing": True, "calls": [
        call(T([2])), call(T([3])), call(T([4])), call(T([2])), call(T([2, 3])), call(T([4, 5])),
        call(T([5], "int32")), call(T([9]))]},
    {"what": "reduce_retracing with Python values", "reduce_retracing": True, "calls": [
        call(T([2]), P(1)), call(T([3]), P(1)), call(T([4]), P(2)), call(T([5]), P(2)), call(T([6]), P(1))]},
    {"what": "keyword arguments", "calls": [
        call(T([2]), mode=P("a")), call(T([2]), mode=P("a")), call(T([2]), mode=P("b")),
        call(T([2]), mode=P("a"), scale=T([2])), call(T([2]))]},
]


def make_plan(seed, n=4):
    rng = np.random.default_rng(seed)
    tasks = []
    leaves = [dict(c) for c in LEAF_CORE]
    for _ in range(n):
        leaves.append({"what": "random arguments", "leaves": [rand_leaf(rng, "TTNSPPVO") for _ in range(8)]})
    tasks.append({"name": "leaf_key", "cases": leaves})
    keys = [dict(c) for c in KEY_CORE]
    for _ in range(n):
        keys.append({"what": "random calls", "calls": rand_sequence(rng, 6)})
    tasks.append({"name": "trace_key", "cases": keys})
    traces = [dict(c) for c in TRACE_CORE]
    for _ in range(n):
        base = rand_call(rng, "TTNPPVO")
        others = [mutate(rng, base, shapes_only=False) for _ in range(2)]
        same = [c for c in others if _same_key(base, c)]
        traces.append({"what": "random arguments", "trace": base, "calls": [base] + same})
    tasks.append({"name": "trace", "cases": traces})
    rules = [{"what": "a pair of calls", "traced": a, "call": b} for a, b in RULES_CORE]
    for _ in range(n):
        base = rand_call(rng, "TTSPV", kwargs=False)
        rules.append({"what": "random pair", "traced": base, "call": mutate(rng, base, "TTSPV", rng.random() < 0.6)})
    tasks.append({"name": "rules", "cases": rules})
    seqs = [dict(c) for c in TRACER_CORE]
    for k in range(n):
        if k % 2 == 0:
            seqs.append({"what": "random calls, reduce_retracing", "reduce_retracing": True,
                         "calls": rand_sequence(rng, 7, "TTTP", shapes_only=True, kwargs=False)})
        else:
            seqs.append({"what": "random calls", "calls": rand_sequence(rng, 7)})
    tasks.append({"name": "tracer", "cases": seqs})
    return {"tasks": tasks}


def _same_key(a, b):
    """Do calls ``a`` and ``b`` have one trace key (so one trace serves both)?"""
    import engine as tf
    from engine.tracing import function as fn
    pool = {}
    return fn._trace_key(*worker.build_call(tf, a, pool)) == fn._trace_key(*worker.build_call(tf, b, pool))


# --- expected values (pristine engine, grader process) ------------------------------------------------
_KINDS = {"T": "tensor", "V": "variable", "P": "value", "O": "object"}


def course_key(key):
    """A reference leaf key, ``("T", dtype, shape)``..., in the course's form ``("tensor", dtype, shape)``..."""
    return (_KINDS[key[0]],) + tuple(key[1:])


def _objects(pool):
    return [(k[len("object:"):], v) for k, v in pool.items() if k.startswith("object:")]


def expected(task):
    import logging
    logger = logging.getLogger("tensorflow")
    level = logger.level
    logger.setLevel(logging.ERROR)   # the retracing warnings of the call sequences: expected here
    try:
        return _expected(task)
    finally:
        logger.setLevel(level)


def _expected(task):
    import engine as tf
    from engine.tracing import function as fn
    name, out = task["name"], []
    for case in task["cases"]:
        pool = {}
        if name == "leaf_key":
            keys = [course_key(fn._leaf_key(worker.build(tf, d, pool))) for d in case["leaves"]]
            out.append({"partition": worker.partition(keys),
                        "keys": [worker.describe_leaf(tf, k, _objects(pool)) for k in keys]})
        elif name == "trace_key":
            keys, leaves = [], []
            for c in case["calls"]:
                key = fn._trace_key(*worker.build_call(tf, c, pool))
                keys.append(key)
                leaves.append([worker.describe_leaf(tf, course_key(k), _objects(pool)) for k in key[1]])
            out.append({"partition": worker.partition(keys), "leaves": leaves})
        elif name == "trace":
            out.append(worker.trace_program(tf, lambda f, a, k: fn.FunctionTracer(f).trace(a, k), case))
        elif name == "rules":
            traced = fn._trace_key(*worker.build_call(tf, case["traced"], pool))
            key = fn._trace_key(*worker.build_call(tf, case["call"], pool))
            res = {"accepts": fn._skeleton(traced) == fn._skeleton(key) and fn._compatible(traced, key)}
            if fn._skeleton(traced) != fn._skeleton(key):
                res["relaxed"] = None
            else:
                shapes = fn._relax(traced, key)
                leaves = [course_key(k if s is None else (k[0], k[1], s)) for k, s in zip(key[1], shapes)]
                res["relaxed"] = [worker.describe_leaf(tf, k, _objects(pool)) for k in leaves]
                res["same_structure"] = True
            out.append(res)
        elif name == "tracer":
            out.append(worker.run_sequence(tf, case, None))
    return out


# --- comparison -------------------------------------------------------------------------------------------
def _show_desc(d):
    kind = d[0]
    if kind == "T":
        return f"tf.constant(shape={tuple(d[2])}, {d[1]})"
    if kind == "N":
        return f"np.array(shape={tuple(d[2])}, {d[1]})"
    if kind == "S":
        return f"tf.TensorSpec({None if d[2] is None else tuple(d[2])}, {d[1]})"
    if kind == "V":
        return f"variable {d[1]} ({d[2]}, shape {tuple(d[3])})"
    if kind == "O":
        return f"object {d[1]}"
    if kind == "P":
        return repr(d[1])
    if kind == "L":
        return "[" + ", ".join(_show_desc(x) for x in d[1]) + "]"
    if kind == "U":
        return "(" + ", ".join(_show_desc(x) for x in d[1]) + (",)" if len(d[1]) == 1 else ")")
    if kind == "D":
        return "{" + ", ".join(f"{k!r}: {_show_desc(x)}" for k, x in d[1]) + "}"
    return repr(d)


def show_call(c):
    parts = [_show_desc(d) for d in c["args"]] + [f"{k}={_show_desc(d)}" for k, d in c.get("kwargs", [])]
    return "f(" + ", ".join(parts) + ")"


def _err(got):
    if isinstance(got, str) and got.startswith("error:"):
        return f"your code raised {got[6:]}"
    return None


def _same_value(e, g):
    if isinstance(e, str) or isinstance(g, str) or e is None or g is None:
        return e == g
    a, b = worker_decode(e), worker_decode(g)
    if not isinstance(a, np.ndarray) or not isinstance(b, np.ndarray) or a.shape != b.shape:
        return False
    return bool(np.all(np.abs(a - b) <= 1e-6 + 1e-6 * np.abs(a)))


def worker_decode(x):
    from ..harness.common import decode
    return decode(x)


def _describe_result(r):
    if isinstance(r, str):
        return r.replace("error:", "an error: ")
    a = worker_decode(r)
    return f"{a.ravel()[:4].tolist()}" if isinstance(a, np.ndarray) else repr(r)[:60]


def check_case(name, case, exp, got):
    """None if right, else a message naming the arguments tried and what differed."""
    bad = _err(got)
    if bad:
        return f"{case.get('what', name)}: {bad}"
    if not isinstance(got, dict):
        return f"{case.get('what', name)}: malformed output"
    if name == "leaf_key":
        for i, (e, g) in enumerate(zip(exp["keys"], got.get("keys", []))):
            if e != g:
                return (f"leaf_key({_show_desc(case['leaves'][i])}): expected a key of the form {tuple(e)}, got "
                        f"{tuple(g) if isinstance(g, list) else g}")
        return _check_partition(exp["partition"], got.get("partition"),
                                [_show_desc(d) for d in case["leaves"]], "leaf_key")
    if name == "trace_key":
        for i, (e, g) in enumerate(zip(exp["leaves"], got.get("leaves", []))):
            if e != g:
                return (f"trace_key of {show_call(case['calls'][i])}: the leaves should be "
                        f"{[tuple(x) for x in e]}, got {g if isinstance(g, str) else [tuple(x) for x in g]}")
        return _check_partition(exp["partition"], got.get("partition"),
                                [show_call(c) for c in case["calls"]], "trace_key")
    if name == "trace":
        what = f"trace of {show_call(case['trace'])}"
        if got.get("runs") != exp["runs"]:
            return f"{what}: the Python function ran {_times(got.get('runs'))} while tracing, expected {exp['runs']}"
        if got.get("inputs") != exp["inputs"]:
            return f"{what}: the graph's inputs (dtype, shape) should be {exp['inputs']}, got {got.get('inputs')}"
        for i, (e, g) in enumerate(zip(exp["results"], got.get("results", []))):
            if not _same_value(e, g):
                return (f"{what}, then calling the ConcreteFunction with {show_call(case['calls'][i])}: expected "
                        f"{_describe_result(e)}, got {_describe_result(g)}")
        if len(got.get("results", [])) != len(exp["results"]):
            return f"{what}: malformed output"
        if got.get("runs_after_calls") != exp["runs_after_calls"]:
            return f"{what}: calling the ConcreteFunction ran the Python function again"
        for v, e in exp["variables"].items():
            if not _same_value(e, got.get("variables", {}).get(v)):
                return (f"{what}, then the calls {', '.join(show_call(c) for c in case['calls'])}: variable {v} "
                        f"should be {_describe_result(e)} afterwards, got "
                        f"{_describe_result(got.get('variables', {}).get(v))}")
        return None
    if name == "rules":
        what = f"traced {show_call(case['traced'])}, then called {show_call(case['call'])}"
        if got.get("accepts") != exp["accepts"]:
            return f"{what}: accepts should be {exp['accepts']}, got {got.get('accepts')}"
        if exp["relaxed"] is None or got.get("relaxed") is None:
            if exp["relaxed"] != got.get("relaxed"):
                return (f"{what}: relax_key should give "
                        f"{'None' if exp['relaxed'] is None else 'a relaxed key'}, got "
                        f"{'None' if got.get('relaxed') is None else 'a key'}")
            return None
        if got.get("relaxed") != exp["relaxed"]:
            return (f"{what}: relax_key's leaves should be {[tuple(x) for x in exp['relaxed']]}, got "
                    f"{got.get('relaxed')}")
        if not got.get("same_structure"):
            return f"{what}: relax_key should keep the key's structure"
        return None
    if name == "tracer":
        options = [o for o in ("reduce_retracing",) if case.get(o)]
        if case.get("signature"):
            options.append("input_signature=[" + ", ".join(_show_desc(d) for d in case["signature"]) + "]")
        what = f"tf.function({', '.join(['f'] + options)})"
        for i, (e, g) in enumerate(zip(exp["steps"], got.get("steps", []))):
            calls = ", ".join(show_call(c) for c in case["calls"][:i + 1])
            if not isinstance(g, list) or len(g) != 2:
                return f"{what}: malformed output"
            if isinstance(g[1], str) and g[1].startswith("error:") and g[1] != e[1]:
                return f"{what}, calls {calls}: the last call raised {g[1][6:]}"
            if e[0] != g[0]:
                return (f"{what}, calls {calls}: after the last call the function should have traced "
                        f"{_times(e[0])}, it traced {_times(g[0])}")
            if not _same_value(e[1], g[1]):
                return f"{what}, calls {calls}: the last call should give {_describe_result(e[1])}, got " \
                       f"{_describe_result(g[1])}"
        if len(got.get("steps", [])) != len(exp["steps"]):
            return f"{what}: malformed output"
        for v, e in exp["variables"].items():
            if not _same_value(e, got.get("variables", {}).get(v)):
                return f"{what}: variable {v} should be {_describe_result(e)} after the calls, got " \
                       f"{_describe_result(got.get('variables', {}).get(v))}"
        return None
    return "unknown task"


def _times(n):
    return f"{n} time{'' if n == 1 else 's'}"


def _check_partition(exp, got, labels, fn):
    if not isinstance(got, list) or len(got) != len(exp):
        return f"{fn}: malformed output"
    for i, (e, g) in enumerate(zip(exp, got)):
        if e != g:
            if e == i:
                return f"{fn}: {labels[i]} should get a key of its own, but it equals the key of {labels[g]}"
            return f"{fn}: {labels[i]} should get the same key as {labels[e]}, but its key differs"
    return None
