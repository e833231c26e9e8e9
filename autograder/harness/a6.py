"""A6's harness (sandbox side): run the student's graph passes on generated programs, return what came out.

A *case* is a small program in a list language (``build`` below), built as a real ``tf.function``
(``"mode": "function"``) or as a TF1 graph run by a ``Session`` (``"mode": "graph"``), with
arguments/placeholders, constants, eager variables it reads and assigns, random ops and dead
branches. For each case the harness, with the student's pass plugged in through the
``graph_pass`` seam and the optimizer options of the task in force:

1. runs the program twice through the engine (``tf.function`` call / ``Session.run``): the
   fetched values (random ones only summarized: shape, dtype, "did it change between the two
   runs") and the variables afterwards;
2. hands the optimizer the program of the *whole* graph (every op, the dead branches too, as
   Grappler receives a function's body; fetches = the outputs, no targets), and reports what the
   pipeline left: the number of nodes (and of nodes other than constants: what runs), the stateful
   nodes by type, and the constants larger than the folding limit it created.

The grader (``assignments/a6.py``) runs the same code on the pristine engine: the values with the
optimizer off, the structure with the reference passes.
"""
import numpy as np

from .common import encode

# Optimizer options per task: only the pass under test (and what it needs) runs in the rounds.
OPTIONS = {
    "pruning": {"constant_folding": False, "arithmetic_optimization": False, "remapping": False},
    "constant_folding": {"arithmetic_optimization": False, "remapping": False, "disable_model_pruning": True},
    # CSE runs only while arithmetic_optimization is on (Grappler's rule); arithmetic is the reference's.
    "cse": {"constant_folding": False, "disable_model_pruning": True, "remapping": False},
    "pipeline": {"disable_meta_optimizer": True},       # only the added pass runs
    "off": {"disable_meta_optimizer": True},
}
CLASSES = {"pruning": "Pruning", "constant_folding": "ConstantFolding", "cse": "CSE", "pipeline": "Pipeline"}
MAX_CONSTANT_BYTES = 10 * 1024 * 1024
BINARY = {"add": "add", "sub": "subtract", "mul": "multiply", "maximum": "maximum", "minimum": "minimum"}
UNARY = ("exp", "tanh", "neg", "abs", "square", "sin", "identity", "stop_gradient")


# --------------------------------------------------------------------------------------------
# Programs. Instruction k produces value k (or None):
#   ["arg", a]                     argument / placeholder a
#   ["const", shape, values]       a float32 constant
#   ["bin", op, i, j]              add, sub, mul, maximum, minimum
#   ["un", op, i]                  exp, tanh, neg, abs, square, sin, identity, stop_gradient
#   ["leaky", i, alpha]            tf.nn.leaky_relu (alpha is an attr)
#   ["cast2", i, dtype]            tf.cast(tf.cast(x, dtype), tf.float32) (DstT/SrcT are attrs)
#   ["sum", i, keepdims]           tf.reduce_sum(x, axis=0, keepdims=...)
#   ["size", i]                    tf.cast(tf.size(x), tf.float32)  (Size: a shape_only op)
#   ["ctrl", i, j]                 tf.identity(x_i) under tf.control_dependencies([x_j.op])
#   ["read", v]                    variable v's value
#   ["assign_add", v, i]           v.assign_add(x_i): no value (in graph mode a target)
#   ["random", shape]              tf.random.uniform(shape) (unseeded)
#   ["zeros", shape]               tf.zeros(shape)
#   ["split", i]                   a, b = tf.split(x_i, 2); a * b
#   ["intdiv0"]                    tf.cast(tf.constant(7) // tf.constant(0), tf.float32)
# --------------------------------------------------------------------------------------------
def _emit(tf, ins, vals, variables):
    op = ins[0]
    if op == "const":
        return tf.constant(np.asarray(ins[2], np.float32).reshape(ins[1]))
    if op == "bin":
        return getattr(tf, BINARY[ins[1]])(vals[ins[2]], vals[ins[3]])
    if op == "un":
        name, x = ins[1], vals[ins[2]]
        fn = {"exp": tf.exp, "tanh": tf.tanh, "neg": tf.negative, "abs": tf.abs, "square": tf.square,
              "sin": tf.sin, "identity": tf.identity, "stop_gradient": tf.stop_gradient}[name]
        return fn(x)
    if op == "leaky":
        return tf.nn.leaky_relu(vals[ins[1]], alpha=float(ins[2]))
    if op == "cast2":
        return tf.cast(tf.cast(vals[ins[1]], getattr(tf, ins[2])), tf.float32)
    if op == "sum":
        return tf.reduce_sum(vals[ins[1]], axis=0, keepdims=bool(ins[2]))
    if op == "size":
        return tf.cast(tf.size(vals[ins[1]]), tf.float32)
    if op == "ctrl":
        with tf.control_dependencies([vals[ins[2]].op]):
            return tf.identity(vals[ins[1]])
    if op == "read":
        return variables[ins[1]].read_value()
    if op == "assign_add":
        return variables[ins[1]].assign_add(vals[ins[2]])
    if op == "random":
        return tf.random.uniform(list(ins[1]))
    if op == "zeros":
        return tf.zeros(list(ins[1]))
    if op == "split":
        a, b = tf.split(vals[ins[1]], 2)
        return a * b
    if op == "intdiv0":
        return tf.cast(tf.constant(7) // tf.constant(0), tf.float32)
    raise ValueError(f"unknown instruction {op}")


def _body(tf, case, args, variables):
    """Build the program's values; returns (fetched values, assign results)."""
    vals, assigns = [], []
    for ins in case["prog"]:
        if ins[0] == "arg":
            vals.append(args[ins[1]])
            continue
        t = _emit(tf, ins, vals, variables)
        if ins[0] == "assign_add":
            assigns.append(t)
            t = None
        vals.append(t)
    return [vals[i] for i in case["fetch"]], assigns


class Built:
    """One case, built: ``call()`` runs it once; ``program()`` is the IR of its whole graph."""

    def __init__(self, tf, case):
        self.tf, self.case = tf, case
        self.variables = [tf.Variable(np.asarray(v, np.float32).reshape(s)) for s, v in case["vars"]]
        self.arrays = [np.asarray(v, np.float32).reshape(s) for s, v in case["args"]]
        if case["mode"] == "function":
            specs = [tf.TensorSpec([None] * len(s) if case.get("dynamic") else s, tf.float32)
                     for s, _ in case["args"]]

            def fn(*args):
                fetched, _ = _body(tf, case, list(args), self.variables)
                return fetched
            self.function = tf.function(fn, input_signature=specs)
            self.graph = self.function.get_concrete_function().graph
            self.feeds, self.fetches = list(self.graph.inputs), list(self.graph.outputs)
        else:
            v1 = tf.compat.v1
            self.graph = tf.Graph()
            with self.graph.as_default():
                self.feeds = [v1.placeholder(tf.float32, [None] * len(s) if case.get("dynamic") else s)
                              for s, _ in case["args"]]
                self.fetches, self.assigns = _body(tf, case, self.feeds, self.variables)
            self.session = v1.Session(graph=self.graph)

    def call(self):
        tf = self.tf
        if self.case["mode"] == "function":
            out = self.function(*[tf.constant(a) for a in self.arrays])
            return [o.numpy() for o in out]
        out = self.session.run(self.fetches + self.assigns, dict(zip(self.feeds, self.arrays)))
        return list(out[:len(self.fetches)])

    def program(self):
        from engine.framework.executor import prune
        from engine.framework.optimizer import ir
        fed = {t._id for t in self.feeds}
        # every op, each after its data and control inputs (a function's outputs wait for its NoOp,
        # which the graph lists after them)
        ops = [op for op in prune(self.graph.get_operations(), fed)
               if not (op.outputs and all(t._id in fed for t in op.outputs))]
        return ir.from_operations(ops, self.feeds, self.fetches, [])


def _try(f):
    try:
        return f()
    except Exception as exc:  # the class name is the observable behaviour
        return "error:" + f"{type(exc).__name__}: {exc}"[:200]


def _summaries(case, first, second):
    """Per fetch: the value (encoded, with its dtype), or for a random value only what does not depend on the draw."""
    out = []
    for k, (a, b) in enumerate(zip(first, second)):
        a, b = np.asarray(a), np.asarray(b)
        if case["random"][k]:
            out.append({"random": True, "dtype": a.dtype.name, "shape": list(a.shape),
                        "changes": bool(a.shape != b.shape or np.any(a != b))})
        else:
            out.append(dict(encode(a), dtype=a.dtype.name))
    return out


def structure(program, options):
    """What the optimizer (under the passes in force) leaves of ``program``."""
    from engine.framework.optimizer import ir, optimize
    before = {id(n) for n in program.nodes}
    optimized, _ = optimize(program, dict(options))
    stateful = {}
    for n in optimized.nodes:
        if ir.is_stateful(n):
            stateful[n.type] = stateful.get(n.type, 0) + 1
    big = sum(1 for n in optimized.nodes if n.type == "Const" and id(n) not in before
              and np.asarray(n.attrs["value"]).nbytes > MAX_CONSTANT_BYTES)
    types = {}
    for n in optimized.nodes:
        types[n.type] = types.get(n.type, 0) + 1
    computed = sum(1 for n in optimized.nodes if n.type != "Const")
    return {"nodes": len(optimized.nodes), "computed": computed, "stateful": stateful, "big_consts": big,
            "types": types}


def run_case(tf, case, passes, options, with_structure=True):
    """Run ``case`` with ``passes`` plugged into the ``graph_pass`` seam and ``options`` in force."""
    import contextlib

    from engine import seams
    opts = tf.config.optimizer
    opts.set_experimental_options(dict(options))
    try:
        with contextlib.ExitStack() as stack:
            for p in passes:
                stack.enter_context(seams.using(graph_pass=p))
            built = Built(tf, case)
            first = _try(built.call)
            second = _try(built.call)
            if isinstance(first, str) or isinstance(second, str):
                values = first if isinstance(first, str) else second
            else:
                values = _summaries(case, first, second)
            variables = [encode(v.numpy()) for v in built.variables]
            shape = _try(lambda: structure(built.program(), options)) if with_structure else None
    finally:
        opts.set_experimental_options({k: None for k in options})
    return {"values": values, "variables": variables, "structure": shape}


def reference_original(tf, case):
    """The stateful nodes by type of the whole, unoptimized program (what every pass must keep)."""
    built = Built(tf, case)
    program = built.program()
    from engine.framework.optimizer import ir
    out = {}
    for n in program.nodes:
        if ir.is_stateful(n):
            out[n.type] = out.get(n.type, 0) + 1
    return out, len(program.nodes)


class ReferencePipeline:
    """Task 4's reference: the engine's own constant folding, CSE and pruning, in rounds until nothing changes."""

    name = "fold_cse_prune"

    def run(self, program, report):
        from engine.framework.optimizer import constant_folding, cse, pruning
        for _ in range(10):
            seen = len(report.entries)
            for module in (constant_folding, cse, pruning):
                module.run(program, report)
            if len(report.entries) == seen:
                break
        return program


def _harness(task):
    def h(tf, ctx, ns, case, state):
        return run_case(tf, case, [ns[CLASSES[task]]], OPTIONS[task])
    h.__name__ = f"h_{task}"
    return h


HARNESS = {task: _harness(task) for task in CLASSES}
