"""Assignment A1 (build your own GradientTape): hidden tests, expected values, comparison.

Everything here runs in the *grader* process, with the repository's pristine engine.
The student's code runs elsewhere (``sandbox.py`` + ``worker.py`` + ``harness/a1.py``) and
only sends back outputs on the inputs generated here from a per-student seed.
"""
import numpy as np

from ..harness import a1 as worker
from ..harness.common import decode as _decode
from . import Task, student_seed  # noqa: F401 - student_seed: the historical import path

NAME = "A1"
TITLE = "Build your own GradientTape: record, order, walk backward, unbroadcast, gradients, the tape"
HOURS = "4-6 h"
SEAM = "tape"
HARNESS = "a1"
# The sandbox's engine has no autodiff: no backward walk (the tape's and tf.gradients'), no forward mode, and
# no registered gradient function (every one, not only the eight of task 5, is replaced when the engine is
# imported; ReadVariableOp's stays: it is given in the notebook). A submission cannot call what is not there.
_NO_GRADIENTS = """
def _absent_gradient(*args, **kwargs):
    raise NotImplementedError('The registered gradient functions are absent from this engine: assignment A1 asks '
                              'you to write them, so the grader runs an engine without them.')
from .framework import registry as _absent_registry
for _absent_row in _absent_registry.op_rows().values():
    if _absent_row.grad is not None and _absent_row.name != 'ReadVariableOp':
        _absent_row.grad = _absent_gradient
"""
ABSENT = {
    "engine/framework/backprop.py": ["backprop"],
    "engine/eager/tape.py": ["imperative_grad", "RecordedOp.input_grads"],
    "engine/autodiff/forwardprop.py": ["ForwardAccumulator"],
    "engine/__init__.py": {"__end__": _NO_GRADIENTS},
}
TASKS = [
    Task("record", "record", "test_record", 2, ("3.1", "3.2")),
    Task("backward_order", "backward_order", "test_backward_order", 2, ("3.3",)),
    Task("backprop", "backprop", "test_backprop", 2, ("3.3",)),
    Task("unbroadcast", "unbroadcast", "test_unbroadcast", 2, ("3.3",)),
    Task("grads", "grads", "test_grads", 8, ("3.3",)),
    Task("tape", "tape", "test_tape", 4, ("3.1", "3.4", "3.5")),
]
GRAD_OPS = ("AddV2", "Sub", "Mul", "MatMul", "Exp", "Sum", "Relu", "Neg")
TAPE_SCENARIOS = ("seed_cubic", "watch_constant", "unwatched_constant", "persistent_twice",
                  "nonpersistent_twice", "list_sources", "unconnected", "no_auto_watch", "seam_training", "program",
                  "program")
# Reference pieces supplied when a *later* task is graded (task -> solution cells to inject before it).
INJECT = {"grads": ["unbroadcast"], "tape": ["record", "backward_order", "backprop", "grads"]}


# --- random programs ----------------------------------------------------------------------------
def _bshape(rng, shape):
    """A shape that broadcasts to ``shape``: leading dims dropped, some dims set to 1."""
    shape = list(shape)
    drop = int(rng.integers(0, len(shape) + 1)) if shape else 0
    out = shape[drop:]
    return [1 if rng.random() < 0.35 else n for n in out]


def gen_program(rng, n_ops=6, ops=("AddV2", "Sub", "Mul", "MatMul", "Exp", "Sum", "Relu", "Neg")):
    prog, shapes, values = [], [], []

    def new(kind, shape):
        prog.append([kind, [int(n) for n in shape]])
        shapes.append(tuple(int(n) for n in shape))
        values.append(np.round(rng.uniform(-1, 1, size=tuple(shape)), 3).ravel().tolist())
        return len(prog) - 1

    base = (int(rng.integers(1, 4)), int(rng.integers(2, 4)))
    new("src", base)
    new("src", _bshape(rng, base))
    n_exp = 0
    for _ in range(n_ops):
        op = str(rng.choice(ops))
        i = len(prog) - 1 if rng.random() < 0.6 else int(rng.integers(0, len(prog)))
        if op == "Exp" and n_exp >= 2:
            op = "Mul"
        if op == "MatMul" and len(shapes[i]) != 2:
            op = "AddV2"
        if op == "Sum" and len(shapes[i]) == 0:
            op = "Neg"
        if op in ("AddV2", "Sub", "Mul"):
            cands = [j for j in range(len(prog)) if _compatible(shapes[i], shapes[j])]
            if rng.random() < 0.5 and cands:
                j = int(rng.choice(cands))
            else:
                j = new("src" if rng.random() < 0.6 else "const", _bshape(rng, shapes[i]))
            a, b = (i, j) if rng.random() < 0.5 else (j, i)
            prog.append([op, a, b])
            shapes.append(tuple(np.broadcast_shapes(shapes[a], shapes[b])))
        elif op == "MatMul":
            j = new("src", (shapes[i][1], int(rng.integers(1, 4))))
            prog.append([op, i, j])
            shapes.append((shapes[i][0], shapes[j][1]))
        elif op == "Sum":
            r = len(shapes[i])
            axis = int(rng.integers(-r, r))
            prog.append([op, i, axis])
            shapes.append(tuple(n for k, n in enumerate(shapes[i]) if k != axis % r))
        else:
            n_exp += op == "Exp"
            prog.append([op, i])
            shapes.append(shapes[i])
        values.append(None)
    return prog, [v for v in values if v is not None], shapes


def _compatible(a, b):
    try:
        return tuple(np.broadcast_shapes(a, b)) == tuple(a)
    except ValueError:
        return False


# --- plans: inputs per task ----------------------------------------------------------------------
# The fixed core: programs every student gets, whatever the seed. Each one catches a mistake that the
# visible tests catch, so no student's random draw can miss it. (Shapes are fixed, values random.)
CORE_RECORD = [  # an op on unwatched inputs only (const * const, Neg(const)); an op with one watched input
    [["src", [2, 3]], ["const", [2, 3]], ["const", [3]], ["Mul", 1, 2], ["AddV2", 0, 3], ["Exp", 4], ["Neg", 1],
     ["Sub", 5, 6]],
]
CORE_ORDER = [  # a diamond (Mul reads Exp directly and through Relu) and a branch the target does not need (Neg)
    [["src", [2]], ["Exp", 0], ["Neg", 0], ["Relu", 1], ["Mul", 1, 3]],
]
CORE_BACKPROP = [  # x used by two different ops, a dead branch from a source, a value used twice
    [["src", [2, 2]], ["src", [2]], ["Mul", 0, 1], ["Exp", 2], ["Neg", 1], ["AddV2", 2, 3], ["Sum", 5, 0],
     ["Mul", 6, 6]],
]
CORE_UNBROADCAST = [  # size-1 axes, dropped leading axes, both, a scalar
    ([2, 3], [1, 3]), ([2, 3], [2, 1]), ([2, 3], [3]), ([2, 3], []), ([2, 1, 3], [1, 1, 3]), ([3, 2], [1])]
CORE_GRADS = {  # broadcasting with size-1 axes both ways, a non-square MatMul, Sum over a negative axis of rank 3
    "AddV2": [[[2, 3], [1, 3]]], "Sub": [[[2, 1], [3]]], "Mul": [[[3], [2, 3]]],
    "MatMul": [[[2, 3], [3, 4]]], "Sum": [[[2, 3, 2], -2]], "Exp": [[[2, 3]]], "Relu": [[[3, 2]]],
    "Neg": [[[2, 2]]]}


def _values(rng, prog):
    return [np.round(rng.uniform(-1, 1, size=tuple(ins[1])), 3).ravel().tolist()
            for ins in prog if ins[0] in ("src", "const")]


def _order_case(rng, case, perm=None):
    rec = _engine_records(case)
    ents = [[e.type, list(e.input_ids), list(e.output_ids)] for e in rec["entries"]]
    target = rec["ts"][-1]._id
    perm = rng.permutation(len(ents)).tolist() if perm is None else perm
    return {"entries": [ents[p] for p in perm], "target": int(target)}


def make_plan(seed, n=4):
    """The generated inputs for every task: the fixed core, then ``n`` random cases per task (per op for ``grads``)."""
    rng = np.random.default_rng(seed)
    tasks = []
    core = [{"prog": p, "values": _values(rng, p)} for p in CORE_RECORD]
    tasks.append({"name": "record", "cases": core + [_prog_case(rng) for _ in range(n)]})
    orders = []
    for p in CORE_ORDER:  # in recording order (producers first) and reversed: neither is an answer as it is
        case = {"prog": p, "values": _values(rng, p)}
        k = len(_engine_records(case)["entries"])
        orders += [_order_case(rng, case, list(range(k))), _order_case(rng, case, list(range(k))[::-1])]
    orders += [_order_case(rng, _prog_case(rng)) for _ in range(n)]
    tasks.append({"name": "backward_order", "cases": orders})
    core = [{"prog": p, "values": _values(rng, p)} for p in CORE_BACKPROP]
    cases = core + [_prog_case(rng, reuse=True) for _ in range(n)]
    for case in cases:  # the sandbox has no gradients: the walk's vector-Jacobian products come as data
        case["jacobians"] = _jacobians(case)
    tasks.append({"name": "backprop", "cases": cases})
    ub = [(g, s) for g, s in CORE_UNBROADCAST]
    for _ in range(n):
        rank = int(rng.integers(0, 4))
        gshape = [int(rng.integers(1, 4)) for _ in range(rank)]
        ub.append((gshape, _bshape(rng, gshape)))
    tasks.append({"name": "unbroadcast", "cases": [
        {"gshape": g, "shape": s, "grad": np.round(rng.uniform(-1, 1, size=g), 3).ravel().tolist()} for g, s in ub]})
    grads = []
    for op in GRAD_OPS:
        grads += [_op_case(rng, op, fixed) for fixed in CORE_GRADS[op]]
        grads += [_op_case(rng, op) for _ in range(max(2, n // 2))]
    tasks.append({"name": "grads", "cases": grads})
    scen = []
    for name in TAPE_SCENARIOS:
        c = {"name": name, "x": float(np.round(rng.uniform(0.5, 2), 3)), "y": float(np.round(rng.uniform(0.5, 2), 3))}
        if name in ("list_sources",):
            c["x"] = np.round(rng.uniform(-1, 1, size=(2, 3)), 3).tolist()
            c["y"] = np.round(rng.uniform(-1, 1, size=(3,)), 3).tolist()
        if name == "seam_training":
            c["xs"] = np.round(rng.uniform(-1, 1, size=(4, 3)), 3).tolist()
            c["ys"] = np.round(rng.uniform(-1, 1, size=(4, 1)), 3).tolist()
        if name == "program":
            c.update(_prog_case(rng))
        scen.append(c)
    tasks.append({"name": "tape", "cases": scen})
    return {"tasks": tasks}


def _prog_case(rng, reuse=False):
    prog, values, _ = gen_program(rng, n_ops=int(rng.integers(4, 8)))
    if reuse:  # make sure a value is used twice
        last = len(prog) - 1
        prog.append(["Mul", last, last])
    return {"prog": prog, "values": values}


def _op_case(rng, op, fixed=None):
    """One op on random shapes and values; ``fixed``: the core's shapes (and Sum's axis) instead."""
    if op in ("AddV2", "Sub", "Mul"):
        if fixed:
            a, b = fixed
        else:
            a = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
            b = _bshape(rng, a)
            if rng.random() < 0.5:
                a, b = b, a
        prog = [["src", a], ["src", b], [op, 0, 1]]
        out = tuple(np.broadcast_shapes(tuple(a), tuple(b)))
    elif op == "MatMul":
        if fixed:
            (m, k), (_, n) = fixed
        else:
            m, k, n = (int(rng.integers(1, 4)) for _ in range(3))
        prog = [["src", [m, k]], ["src", [k, n]], [op, 0, 1]]
        out = (m, n)
    elif op == "Sum":
        if fixed:
            a, axis = fixed
        else:
            a = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(1, 4)))]
            axis = int(rng.integers(-len(a), len(a)))
        prog = [["src", a], [op, 0, axis]]
        out = tuple(n for i, n in enumerate(a) if i != axis % len(a))
    else:
        a = fixed[0] if fixed else [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
        prog = [["src", a], [op, 0]]
        out = tuple(a)
    values = [np.round(rng.uniform(-1, 1, size=tuple(ins[1])), 3).ravel().tolist() for ins in prog if ins[0] == "src"]
    return {"op": op, "prog": prog, "values": values, "dyshape": list(out),
            "dy": np.round(rng.uniform(-1, 1, size=out), 3).ravel().tolist()}


def _jacobians(case):
    """For each op the harness records on ``case``'s program: the Jacobian of its output with respect to
    each input (None for an input without a gradient, such as Sum's axis), at the case's values."""
    import types
    import engine as tf
    from engine.eager.tape import RecordedOp
    from engine.framework.context import ctx

    def make(op_type, inputs, outputs, attrs):
        return types.SimpleNamespace(op_type=op_type, inputs=inputs, outputs=outputs, attrs=attrs,
                                     input_ids=[t._id for t in inputs], output_ids=[t._id for t in outputs])
    records, _, _ = worker.record_with(tf, ctx, case["prog"], case["values"], make)
    out = []
    for op_def, e in records:
        y = e.outputs[0]
        size = int(np.prod(y.shape.as_list()))
        rows = [[] for _ in e.inputs]
        for j in range(size):
            dy = np.zeros(size)
            dy[j] = 1.0
            dy = tf.constant(dy.reshape(y.shape.as_list()), dtype=y.dtype)
            op = RecordedOp(op_def, e.op_type, e.inputs, e.outputs, e.attrs, e.input_ids, e.output_ids)
            for i, g in enumerate(op.input_grads([dy])):
                rows[i].append(None if g is None else np.asarray(g.numpy(), dtype=np.float64).ravel())
        inputs = []
        for r in rows:
            if not r or r[0] is None:
                inputs.append(None)
            else:
                j = np.stack(r)
                inputs.append({"shape": list(j.shape), "data": [float(v) for v in j.ravel()]})
        out.append({"op": op_def.name, "inputs": inputs})
    return out


# --- expected values (pristine engine, grader process) ----------------------------------------------
def _engine_records(case):
    import engine as tf
    with tf.GradientTape(persistent=True) as tape:
        ts, srcs = worker.run_program(tf, case["prog"], case["values"], tape.watch)
    return {"entries": list(tape._entries), "ts": ts, "srcs": srcs, "tape": tape}


def expected(task):
    import engine as tf
    name, out = task["name"], []
    for case in task["cases"]:
        if name == "record":
            rec = _engine_records(case)
            ids = {t._id: i for i, t in enumerate(rec["ts"])}
            out.append([[e.type, [ids.get(i, -1) for i in e.input_ids], [ids.get(i, -1) for i in e.output_ids]]
                        for e in rec["entries"]])
        elif name == "backward_order":
            out.append(None)  # checked structurally
        elif name == "backprop":
            rec = _engine_records(case)
            out.append([worker.encode(g) for g in rec["tape"].gradient(rec["ts"][-1], rec["srcs"])])
        elif name == "unbroadcast":
            g = np.asarray(case["grad"], dtype=np.float64).reshape(case["gshape"])
            shape = tuple(case["shape"])
            lead = g.ndim - len(shape)
            g = g.sum(axis=tuple(range(lead))) if lead else g
            g = g.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1), keepdims=True) if shape else g
            out.append(worker.encode(g.reshape(shape)))
        elif name == "grads":
            rec = _engine_records(case)
            dy = tf.constant(np.asarray(case["dy"], dtype=np.float64).reshape(case["dyshape"]))
            gs = rec["tape"].gradient(rec["ts"][-1], rec["srcs"], output_gradients=dy)
            out.append([worker.encode(g) for g in gs])
        elif name == "tape":
            out.append([worker.encode(r) for r in worker.scenario(tf, tf.GradientTape, case["name"], case)])
    return out


# --- comparison -------------------------------------------------------------------------------------
def _short(a):
    if isinstance(a, np.ndarray):
        flat = np.array2string(a.ravel()[:4], precision=4, separator=", ")
        return f"shape {tuple(a.shape)} values {flat}{'...' if a.size > 4 else ''}"
    return repr(a)[:80]


def same(exp, got):
    exp, got = _decode(exp), _decode(got)
    if isinstance(exp, np.ndarray) or isinstance(got, np.ndarray):
        if not (isinstance(exp, np.ndarray) and isinstance(got, np.ndarray)) or exp.shape != got.shape:
            return False
        return bool(np.all(np.isfinite(got)) and np.all(np.abs(exp - got) <= 1e-9 + 1e-6 * np.abs(exp)))
    return exp == got


def _shapes_of(case):
    return [tuple(ins[1]) for ins in case["prog"] if ins[0] in ("src", "const")]


def check_case(name, case, exp, got):
    """None if right, else a message that names the op, the shapes, expected vs got."""
    if isinstance(got, str) and got.startswith("error:"):
        what = case.get("op") or case.get("name") or name
        return f"{what}: your code raised {got[6:]}"
    if name == "record":
        if not isinstance(got, list):
            return "expected a list of recorded entries"
        for k, e in enumerate(exp):
            if k >= len(got):
                return f"op #{k} ({e[0]}) was not recorded (expected {len(exp)} entries, got {len(got)})"
            if got[k] != e:
                g = got[k][0] if isinstance(got[k], list) and got[k] else got[k]
                return f"recorded op #{k}: expected {e[0]} here, got {g!r} (or different inputs/outputs)"
        if len(got) > len(exp):
            g = got[len(exp)][0] if isinstance(got[len(exp)], list) and got[len(exp)] else "?"
            return f"recorded {len(got)} ops, expected {len(exp)}: {g} has no watched input and must not be recorded"
        return None
    if name == "backward_order":
        return _check_order(case, got)
    if name in ("backprop", "grads", "tape"):
        if not isinstance(got, list) or len(got) != len(exp):
            return f"expected {len(exp)} results, got {_short(got)}"
        for k, (e, g) in enumerate(zip(exp, got)):
            if not same(e, g):
                if name == "grads":
                    shapes = [tuple(ins[1]) for ins in case["prog"] if ins[0] == "src"]
                    return (f"{case['op']} with inputs of shapes {shapes}: gradient of input {k}: "
                            f"expected {_short(_decode(e))}, got {_short(_decode(g))}")
                if name == "tape":
                    return f"scenario {case['name']!r}: result {k}: expected {_short(_decode(e))}, got {_short(_decode(g))}"
                return (f"a program of {len(case['prog'])} ops on shapes {_shapes_of(case)[:3]}...: gradient of "
                        f"source {k}: expected {_short(_decode(e))}, got {_short(_decode(g))}")
        return None
    if name == "unbroadcast":
        if not same(exp, got):
            return (f"unbroadcast from {tuple(case['gshape'])} to {tuple(case['shape'])}: expected "
                    f"{_short(_decode(exp))}, got {_short(_decode(got))}")
        return None
    return "unknown task"


def _check_order(case, got):
    ents = case["entries"]
    if not isinstance(got, list) or not all(isinstance(i, int) and 0 <= i < len(ents) for i in got):
        return "return a list of the given entries"
    producer = {o: k for k, e in enumerate(ents) for o in e[2]}
    need, stack = set(), [case["target"]]
    while stack:
        t = stack.pop()
        if t in producer and producer[t] not in need:
            need.add(producer[t])
            stack.extend(ents[producer[t]][1])
    if len(set(got)) != len(got):
        return "an entry appears twice"
    if set(got) != need:
        extra = set(got) - need
        if extra:
            return f"{ents[min(extra)][0]} is in the order but the target does not depend on it"
        return f"{ents[min(need - set(got))][0]} is missing: the target depends on it"
    pos = {k: i for i, k in enumerate(got)}
    for k in got:
        for i in ents[k][1]:
            if i in producer and producer[i] in pos and pos[producer[i]] < pos[k]:
                return f"{ents[producer[i]][0]} comes before {ents[k][0]}, which consumes its output"
    return None


def score(name, cases, exp, outputs, points):
    """``grads`` gives the same share of its points to each op; the other tasks count right cases."""
    if name != "grads":
        import sys
        from . import default_score
        return default_score(sys.modules[__name__], name, cases, exp, outputs, points)
    per_op, msgs = {}, []
    for case, e, g in zip(cases, exp, outputs):
        m = check_case(name, case, e, g[:len(e)] if isinstance(g, list) else g)
        per_op.setdefault(case["op"], []).append(m)
        if m and len([x for x in per_op[case["op"]] if x]) == 1:
            msgs.append(m)
    unit = points / len(per_op)
    return sum(unit * sum(m is None for m in ms) / len(ms) for ms in per_op.values()), msgs
