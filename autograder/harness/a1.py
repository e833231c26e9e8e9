"""A1's harness (sandbox side): run the student's tape pieces on generated programs, return outputs.

Runs inside the sandbox with the submission (see ``worker.py``); imports only NumPy and
the engine. The grader process runs the same program interpreter and scenarios with the
engine's own ``GradientTape`` to compute the expected values (``assignments/a1.py``).
"""
import types

import numpy as np

from .common import encode

# --------------------------------------------------------------------------------------------
# Programs: [["src", shape], ["const", shape], ["Mul", i, j], ["Sum", i, axis], ...]
# Tensor k is the output of instruction k. Values for src/const come in order.
# --------------------------------------------------------------------------------------------
BINARY = ("AddV2", "Sub", "Mul")
UNARY = ("Exp", "Relu", "Neg")


def run_program(tf, prog, values, watch):
    """Build the program's tensors; ``watch(t)`` is called for each source. Returns (tensors, sources)."""
    ts, srcs, k = [], [], 0
    for ins in prog:
        op = ins[0]
        if op in ("src", "const"):
            t = tf.constant(np.asarray(values[k], dtype=np.float64).reshape(ins[1]))
            k += 1
            if op == "src":
                watch(t)
                srcs.append(t)
        elif op == "AddV2":
            t = tf.add(ts[ins[1]], ts[ins[2]])
        elif op == "Sub":
            t = tf.subtract(ts[ins[1]], ts[ins[2]])
        elif op == "Mul":
            t = tf.multiply(ts[ins[1]], ts[ins[2]])
        elif op == "MatMul":
            t = tf.matmul(ts[ins[1]], ts[ins[2]])
        elif op == "Exp":
            t = tf.exp(ts[ins[1]])
        elif op == "Relu":
            t = tf.nn.relu(ts[ins[1]])
        elif op == "Neg":
            t = tf.negative(ts[ins[1]])
        elif op == "Sum":
            t = tf.reduce_sum(ts[ins[1]], axis=ins[2])
        else:
            raise ValueError(f"unknown instruction {op}")
        ts.append(t)
    return ts, srcs


class HarnessTape:
    """The harness's own recorder (used where a task needs a recording it does not grade)."""

    watch_accessed_variables = True

    def __init__(self, make_entry):
        self.records, self.watched, self.make_entry = [], set(), make_entry

    def record_operation(self, op_def, inputs, attrs, outputs):
        if op_def.grad is not None and any(t._id in self.watched for t in inputs):
            self.records.append((op_def, self.make_entry(op_def.name, list(inputs), list(outputs), dict(attrs))))
            self.watched.update(o._id for o in outputs)

    def variable_accessed(self, v):
        self.watched.add(v._id)


def record_with(tf, ctx, prog, values, make_entry):
    tape = HarnessTape(make_entry)
    ctx.tapes.append(tape)
    try:
        ts, srcs = run_program(tf, prog, values, lambda t: tape.watched.add(t._id))
    finally:
        ctx.tapes.remove(tape)
    return tape.records, ts, srcs


# --------------------------------------------------------------------------------------------
# Task 6 scenarios: the same code runs with the student's tape and with tf.GradientTape.
# --------------------------------------------------------------------------------------------
def _try(f):
    try:
        return f()
    except Exception as exc:  # the class name is the observable behaviour
        return "error:" + type(exc).__name__


def scenario(tf, Tape, name, case):
    c = lambda v: tf.constant(np.asarray(v, dtype=np.float64))  # noqa: E731
    if name == "seed_cubic":
        v = tf.Variable(np.float64(case["x"]))
        with Tape() as t:
            y = v * v * v
        return [t.gradient(y, v)]
    if name == "watch_constant":
        x = c(case["x"])
        with Tape() as t:
            t.watch(x)
            y = tf.exp(x) * x
        return [t.gradient(y, x)]
    if name == "unwatched_constant":
        x = c(case["x"])
        with Tape() as t:
            y = x * x
        return [t.gradient(y, x)]
    if name == "persistent_twice":
        x = c(case["x"])
        with Tape(persistent=True) as t:
            t.watch(x)
            y = x * x
            z = tf.exp(y)
        return [t.gradient(y, x), t.gradient(z, x)]
    if name == "nonpersistent_twice":
        x = c(case["x"])
        with Tape() as t:
            t.watch(x)
            y = x * x
        first = t.gradient(y, x)
        return [first, _try(lambda: t.gradient(y, x))]
    if name == "list_sources":
        a, b = c(case["x"]), c(case["y"])
        with Tape() as t:
            t.watch(a)
            t.watch(b)
            y = tf.reduce_sum(a * b + a, axis=0)
        return list(t.gradient(y, [a, b]))
    if name == "unconnected":
        a, b = c(case["x"]), c(case["y"])
        with Tape() as t:
            t.watch(a)
            t.watch(b)
            y = a * a
        return list(t.gradient(y, [a, b]))
    if name == "no_auto_watch":
        v = tf.Variable(np.float64(case["x"]))
        w = tf.Variable(np.float64(case["y"]))
        with Tape(watch_accessed_variables=False) as t:
            t.watch(w)
            y = v * w
        return list(t.gradient(y, [v, w]))
    if name == "seam_training":
        # Ordinary TF code (tf.GradientTape, Variables, assign_sub): with the student's tape plugged into the
        # engine through the tape seam, every tf.GradientTape() in the block is theirs.
        def train():
            x, y = c(case["xs"]), c(case["ys"])
            w, b = tf.Variable(np.zeros((3, 1))), tf.Variable(np.zeros((1,)))
            for _ in range(3):
                with tf.GradientTape() as tape:
                    err = tf.matmul(x, w) + b - y
                    loss = tf.reduce_sum(err * err)
                gw, gb = tape.gradient(loss, [w, b])
                w.assign_sub(0.05 * gw)
                b.assign_sub(0.05 * gb)
            return [w.numpy(), b.numpy()]
        if Tape is tf.GradientTape:
            return train()
        from engine import seams
        with seams.using(tape=Tape):
            return train()
    if name == "program":
        with Tape() as t:
            ts, srcs = run_program(tf, case["prog"], case["values"], t.watch)
        return list(t.gradient(ts[-1], srcs))
    raise ValueError(name)


# --------------------------------------------------------------------------------------------
# The harnesses: one per task, each returns a list of outputs (one per case).
# --------------------------------------------------------------------------------------------
def _prog_ids(ts, extra=()):
    return {t._id: i for i, t in enumerate(ts)}


def h_record(tf, ctx, ns, case, state):
    tape = ns["RecordingTape"]()
    with tape:
        ts, _ = run_program(tf, case["prog"], case["values"], lambda t: tape.watched.add(t._id))
    ids = _prog_ids(ts)
    return [[e.op_type, [ids.get(i, -1) for i in e.input_ids], [ids.get(i, -1) for i in e.output_ids]]
            for e in tape.entries]


def h_backward_order(tf, ctx, ns, case, state):
    entries = [types.SimpleNamespace(op_type=op, input_ids=list(i), output_ids=list(o), inputs=[], outputs=[],
                                     attrs={}) for op, i, o in case["entries"]]
    index = {id(e): k for k, e in enumerate(entries)}
    order = ns["backward_order"](list(entries), case["target"])
    return [index.get(id(e), -1) for e in order]


def h_backprop(tf, ctx, ns, case, state):
    """The student's walk, with each op's vector-Jacobian product given.

    The sandbox's engine has no gradients (they are what task 5 asks for), so the products come
    from data: the grader sends, for each recorded op of this program, the Jacobian of its output
    with respect to each input at these values (``case["jacobians"]``), and ``vjp`` multiplies.
    """
    records, ts, srcs = record_with(tf, ctx, case["prog"], case["values"], ns["Entry"])
    index = {id(e): k for k, (_, e) in enumerate(records)}
    jacobians = case["jacobians"]
    if [d.name for d, _ in records] != [j["op"] for j in jacobians]:
        raise RuntimeError("the harness recorded other ops than the grader")   # (a grader bug, never a student's)

    def vjp(e, dy):
        grads = []
        for x, jac in zip(e.inputs, jacobians[index[id(e)]]["inputs"]):
            if jac is None:
                grads.append(None)
                continue
            j = np.asarray(jac["data"], dtype=np.float64).reshape(jac["shape"])      # (output size, input size)
            g = j.T @ np.asarray(dy.numpy(), dtype=np.float64).ravel()
            grads.append(tf.constant(g.reshape(tuple(x.shape.as_list()))))
        return grads

    order = [e for _, e in reversed(records)]
    target = ts[-1]
    grads = ns["backprop"](order, target._id, tf.ones_like(target), vjp)
    return [encode(grads.get(s._id)) for s in srcs]


def h_unbroadcast(tf, ctx, ns, case, state):
    g = tf.constant(np.asarray(case["grad"], dtype=np.float64).reshape(case["gshape"]))
    return encode(ns["unbroadcast"](g, tuple(case["shape"])))


def h_grads(tf, ctx, ns, case, state):
    records, ts, srcs = record_with(tf, ctx, case["prog"], case["values"], ns["Entry"])
    e = records[-1][1]
    dy = tf.constant(np.asarray(case["dy"], dtype=np.float64).reshape(case["dyshape"]))
    grads = ns["GRADS"][case["op"]](e, dy)
    return [encode(g) for g in list(grads)[:2]]


def h_tape(tf, ctx, ns, case, state):
    return [encode(r) for r in scenario(tf, ns["GradientTape"], case["name"], case)]


HARNESS = {"record": h_record, "backward_order": h_backward_order, "backprop": h_backprop,
           "unbroadcast": h_unbroadcast, "grads": h_grads, "tape": h_tape}
