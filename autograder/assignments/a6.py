"""Assignment A6 (optimize a graph: pruning, constant folding, CSE, a pipeline): hidden tests, expected values.

Everything here runs in the *grader* process, with the repository's pristine engine. The student's
passes run in the sandbox (``harness/a6.py``), plugged into the engine's graph optimizer through the
``graph_pass`` seam, in an engine copy whose reference pruning, constant folding and CSE are no-ops
(``ABSENT``). For each generated program the grader compares:

* the values (and the variables after two runs) with the *unoptimized* program's;
* the stateful nodes left in the whole-graph program, by type, with the original program's (a pass
  never folds, merges or removes them);
* the number of nodes the pipeline leaves with the number the reference pass leaves on the same
  program under the same options (at most as many);
* that folding made no constant larger than the 10 MiB limit.
"""
import numpy as np

from ..harness import a6 as worker
from ..harness.common import decode as _decode
from . import Task

NAME = "A6"
TITLE = "Optimize a graph: dead-node pruning, constant folding, common-subexpression elimination, a pipeline"
HOURS = "4-5 h"
SEAM = "graph_pass"
HARNESS = "a6"

_NOOP = "def run(program, report):\n    return program"
# The reference passes the student rebuilds: the pipeline still calls each one's ``run`` (so it becomes
# a no-op that returns the program unchanged), and the helpers that do their work are cut out.
ABSENT = {
    "engine/framework/optimizer/pruning.py": {"run": _NOOP, "_bypass_forwarding": None, "_forwards": None,
                                              "_remove_dead": None},
    "engine/framework/optimizer/constant_folding.py": {"run": _NOOP, "_fold": None, "_materializes": None,
                                                       "_stand_in": None, "_inherited_controls": None},
    "engine/framework/optimizer/cse.py": {"run": _NOOP, "signature": None, "_freeze": None},
}
TASKS = [
    Task("pruning", "pruning", "test_pruning", 4, ("1.1", "1.2")),
    Task("constant_folding", "constant_folding", "test_constant_folding", 6, ("1.2",)),
    Task("cse", "cse", "test_cse", 6, ("1.2",)),
    Task("pipeline", "pipeline", "test_pipeline", 4, ("1.2", "2.1")),
]
INJECT = {"pipeline": ["pruning", "constant_folding", "cse"]}

SHAPES = ([], [1], [3], [1, 3], [2, 3])
ARGS = ([2, 3], [3])
TOLERANCE = 1e-6
# What is counted against the reference: all nodes, or (constant folding, which replaces a node by a
# Const and leaves the dead inputs to pruning, switched off there) the nodes that compute at run time.
COUNTED = {"pruning": "nodes", "constant_folding": "computed", "cse": "nodes", "pipeline": "nodes"}


# --- programs -------------------------------------------------------------------------------------
def _values(rng, shape):
    return np.round(rng.uniform(-2, 2, size=tuple(shape)), 2).ravel().tolist()


def _case(prog, fetch, mode="function", variables=(), args=ARGS, rng=None, dynamic=False, label=""):
    """A case: the program, what it fetches, its arguments' and variables' values, which fetches are random."""
    rng = rng if rng is not None else np.random.default_rng(len(prog))
    tainted, sample = [], []
    for ins in prog:   # which values depend on a random op: compared only by shape and dtype
        op = ins[0]
        deps = [ins[k] for k in _operands(ins)]
        tainted.append(op == "random" or any(tainted[d] for d in deps))
        # ... and which surely change from one run to the next (a random op, r1 - r2, r + x, -r): for those
        # "it changes" is checked too (a folded or merged random op does not)
        sure = op == "random"
        if op == "bin" and ins[1] in ("add", "sub"):
            a, b = ins[2], ins[3]
            sure = (sample[a] and not tainted[b]) or (sample[b] and not tainted[a]) or \
                (ins[1] == "sub" and a != b and prog[a][0] == "random" and prog[b][0] == "random")
        elif op in ("un", "ctrl"):
            src = ins[2] if op == "un" else ins[1]
            sure = sample[src] and (op == "ctrl" or ins[1] in ("neg", "identity", "stop_gradient"))
        sample.append(bool(sure))
    kinds = ["sample" if sample[i] else "tainted" if tainted[i] else None for i in fetch]
    return {"label": label, "mode": mode, "dynamic": dynamic, "prog": [list(i) for i in prog],
            "fetch": list(fetch), "random": kinds,
            "args": [[list(s), _values(rng, s)] for s in args],
            "vars": [[list(s), _values(rng, s)] for s in variables]}


def _operands(ins):
    """Positions in ``ins`` that hold value indices."""
    op = ins[0]
    return {"bin": (2, 3), "un": (2,), "leaky": (1,), "cast2": (1,), "sum": (1,), "size": (1,), "ctrl": (1, 2),
            "assign_add": (2,), "split": (1,)}.get(op, ())


def gen_program(rng, flavour, n_ops=None):
    """A random program for one task's flavour: which instructions are likely, and how many duplicates."""
    mode = "function" if rng.random() < 0.6 else "graph"
    n_vars = int(rng.integers(1, 3))
    var_shapes = [[3] if rng.random() < 0.5 else [2, 3] for _ in range(n_vars)]
    prog = [["arg", 0], ["arg", 1]]
    shapes = [list(ARGS[0]), list(ARGS[1])]
    tainted = [False, False]
    n_ops = n_ops or int(rng.integers(8, 15))
    weights = {"const": 3, "bin": 5, "un": 3, "leaky": 1, "cast2": 1, "sum": 1, "size": 1, "ctrl": 1, "read": 1,
               "assign_add": 1, "random": 1, "dup": 2}
    weights.update({"pruning": {"un": 5, "dup": 1}, "constant_folding": {"const": 6, "size": 2, "dup": 1},
                    "cse": {"dup": 5, "leaky": 2, "cast2": 2}, "pipeline": {"const": 5, "dup": 4}}[flavour])
    kinds = list(weights)
    p = np.array([weights[k] for k in kinds], float)
    p /= p.sum()

    def pick(exclude_tainted=False):
        cands = [k for k in range(len(prog)) if shapes[k] is not None and not (exclude_tainted and tainted[k])]
        recent = cands[-4:]
        return int(rng.choice(recent if rng.random() < 0.6 else cands))

    def add(ins, shape, taint):
        prog.append(ins)
        shapes.append(shape)
        tainted.append(taint)

    for _ in range(n_ops):
        kind = str(rng.choice(kinds, p=p))
        if kind == "dup":
            done = [k for k, ins in enumerate(prog) if ins[0] in ("const", "bin", "un", "leaky", "cast2", "sum", "size")]
            if not done:
                kind = "const"
            else:
                k = int(rng.choice(done))
                ins = list(prog[k])
                if ins[0] == "bin" and ins[1] in ("add", "mul", "maximum", "minimum") and rng.random() < 0.5:
                    ins[2], ins[3] = ins[3], ins[2]
                add(ins, shapes[k], tainted[k])
                continue
        if kind == "const":
            s = list(SHAPES[int(rng.integers(0, len(SHAPES)))])
            add(["const", s, _values(rng, s)], s, False)
        elif kind == "bin":
            i, j = pick(), pick()
            op = str(rng.choice(list(worker.BINARY)))
            add(["bin", op, i, j], list(np.broadcast_shapes(tuple(shapes[i]), tuple(shapes[j]))),
                tainted[i] or tainted[j])
        elif kind == "un":
            i = pick()
            add(["un", str(rng.choice(worker.UNARY)), i], shapes[i], tainted[i])
        elif kind == "leaky":
            i = pick()
            add(["leaky", i, float(rng.choice([0.1, 0.2, 0.3]))], shapes[i], tainted[i])
        elif kind == "cast2":
            i = pick()
            add(["cast2", i, str(rng.choice(["float16", "float64"]))], shapes[i], tainted[i])
        elif kind == "sum":
            i = pick()
            if not shapes[i]:
                add(["un", "neg", i], shapes[i], tainted[i])
            else:
                keep = bool(rng.random() < 0.5)
                add(["sum", i, keep], ([1] + shapes[i][1:]) if keep else shapes[i][1:], tainted[i])
        elif kind == "size":
            i = pick()
            add(["size", i], [], False)
        elif kind == "ctrl":
            i, j = pick(), pick()
            add(["ctrl", i, j], shapes[i], tainted[i])
        elif kind == "read":
            v = int(rng.integers(0, n_vars))
            add(["read", v], var_shapes[v], False)
        elif kind == "assign_add":
            v = int(rng.integers(0, n_vars))
            cands = [k for k in range(len(prog)) if shapes[k] is not None and not tainted[k]
                     and _fits(shapes[k], var_shapes[v])]
            if cands:
                add(["assign_add", v, int(rng.choice(cands))], None, False)
        elif kind == "random":
            s = [2, 3] if rng.random() < 0.5 else [3]
            add(["random", s], s, True)
    values = [k for k in range(len(prog)) if shapes[k] is not None and k >= 2]
    n_fetch = int(rng.integers(1, min(3, len(values)) + 1)) if values else 0
    fetch = sorted(set(int(x) for x in rng.choice(values[-6:], size=n_fetch, replace=False))) if values else [0]
    return _case(prog, fetch, mode=mode, variables=var_shapes, rng=rng, dynamic=bool(rng.random() < 0.15),
                 label="random program")


def _fits(shape, target):
    return list(shape) == list(target)   # assign_add does not broadcast


# --- the fixed core: every student gets these ---------------------------------------------------
C = lambda *values: ["const", [len(values)] if len(values) != 1 else [], list(values)]  # noqa: E731
X, Y = ["arg", 0], ["arg", 1]


def core(task):
    """The edge cases of one task (each catches a mistake the task text names)."""
    rng = np.random.default_rng(["pruning", "constant_folding", "cse", "pipeline"].index(task) + 100)
    cases = []
    if task == "pruning":
        # a dead branch (a chain: each node read only by the next), fetching through Identity/StopGradient
        # (longer than the three times the optimizer runs pruning: a pass that removes one layer per call fails)
        cases.append(_case([X, Y, ["un", "exp", 0], ["un", "tanh", 2], ["un", "sin", 3], ["un", "abs", 4],
                            ["bin", "mul", 5, 1], ["un", "identity", 1], ["un", "stop_gradient", 7],
                            ["bin", "add", 8, 0], ["un", "identity", 9]], [10], rng=rng,
                           label="a dead chain exp -> tanh -> sin -> abs -> mul, and Identity/StopGradient to bypass"))
        # stateful ops nobody reads: an assignment, a variable read, a random op (graph mode: no control chain)
        cases.append(_case([X, Y, ["read", 0], ["assign_add", 0, 1], ["random", [3]], ["bin", "add", 0, 1],
                            ["read", 0]], [5], mode="graph", variables=[[3]], rng=rng,
                           label="an unread variable read, assign_add and random op (graph mode)"))
        cases.append(_case([X, Y, ["assign_add", 0, 1], ["un", "neg", 1], ["bin", "sub", 0, 3], ["un", "exp", 4],
                            ["un", "abs", 3]], [3], variables=[[3]], rng=rng,
                           label="tf.function with an assign_add and dead branches"))
        # a node needed only through a control edge
        cases.append(_case([X, Y, ["un", "exp", 1], ["ctrl", 1, 2], ["bin", "mul", 3, 0]], [4], rng=rng,
                           label="a node needed only through a control dependency"))
        cases.append(_case([X, Y, ["un", "exp", 1], ["ctrl", 1, 2], ["bin", "mul", 3, 0], ["un", "sin", 4]], [4],
                           mode="graph", rng=rng, label="a control dependency, graph mode"))
    elif task == "constant_folding":
        cases.append(_case([X, Y, C(2.0), C(3.0), ["bin", "mul", 2, 3], C(1.5), ["bin", "add", 4, 5],
                            ["un", "exp", 6], ["un", "neg", 7], ["bin", "mul", 8, 0]], [9], rng=rng,
                           label="a chain of constants: -exp(2 * 3 + 1.5) * x"))
        cases.append(_case([X, Y, ["random", [3]], ["bin", "add", 1, 2], ["random", [2, 3]], ["bin", "mul", 4, 0]],
                           [3, 5], rng=rng, label="random ops fed by constants (their shapes)"))
        cases.append(_case([X, Y, ["random", [3]], ["random", [3]], ["bin", "sub", 2, 3]], [4], mode="graph",
                           rng=rng, label="random ops fed by constants, graph mode"))
        cases.append(_case([X, Y, ["read", 0], C(2.0), ["bin", "mul", 2, 3], ["assign_add", 0, 4], ["read", 0],
                            ["bin", "add", 4, 6], ["size", 0], ["bin", "add", 7, 8]], [9], variables=[[3]], rng=rng,
                           label="variable reads and assign_add next to constants; tf.size of an argument"))
        cases.append(_case([X, Y, ["size", 0], ["size", 1], ["bin", "mul", 2, 3], ["bin", "mul", 4, 1]], [5],
                           mode="graph", rng=rng, label="tf.size of placeholders of known shape"))
        cases.append(_case([X, Y, ["zeros", [1700, 1700]], C(1.0), ["bin", "add", 2, 3], ["sum", 4, False],
                            ["sum", 5, False], ["bin", "mul", 6, 1]], [7], rng=rng,
                           label="tf.zeros([1700, 1700]) + 1.0 (11.6 MB: over the size limit)"))
        cases.append(_case([X, Y, C(1.0, 2.0, 3.0, 4.0), ["split", 2], ["sum", 3, False], ["bin", "add", 4, 0]], [5],
                           rng=rng, label="tf.split of a constant (an op with two outputs)"))
        cases.append(_case([X, Y, ["intdiv0"], ["bin", "add", 2, 1]], [3], rng=rng,
                           label="7 // 0 on int32 constants (the kernel fails)"))
    elif task == "cse":
        cases.append(_case([X, Y, ["bin", "add", 0, 1], ["bin", "add", 1, 0], ["bin", "mul", 2, 3],
                            ["bin", "maximum", 0, 1], ["bin", "maximum", 1, 0], ["bin", "sub", 5, 6],
                            ["bin", "add", 4, 7]], [8], rng=rng, label="x + y and y + x, maximum(x, y) and maximum(y, x)"))
        cases.append(_case([X, Y, ["bin", "sub", 0, 1], ["bin", "sub", 1, 0], ["bin", "mul", 2, 3]], [4], rng=rng,
                           label="x - y and y - x (not the same)"))
        cases.append(_case([X, Y, ["leaky", 0, 0.1], ["leaky", 0, 0.3], ["bin", "sub", 2, 3], ["cast2", 1, "float16"],
                            ["cast2", 1, "float64"], ["bin", "sub", 5, 6], ["bin", "add", 4, 7]], [8], rng=rng,
                           label="leaky_relu with alpha 0.1 and 0.3; casts through float16 and float64"))
        cases.append(_case([X, Y, ["random", [3]], ["random", [3]], ["bin", "sub", 2, 3], ["read", 0], ["read", 0],
                            ["bin", "add", 5, 6]], [4, 7], mode="graph", variables=[[3]], rng=rng,
                           label="two identical random ops, two reads of one variable (graph mode)"))
        big_a = np.round(rng.uniform(-1, 1, 2000), 2)
        big_b = big_a.copy()
        big_b[1000] += 0.5
        cases.append(_case([X, Y, ["const", [2000], big_a.tolist()], ["const", [2000], big_b.tolist()],
                            ["bin", "sub", 2, 3], ["sum", 4, False], ["bin", "mul", 5, 1]], [6], rng=rng,
                           label="two 2000-element constants that differ in one element"))
        cases.append(_case([X, Y, C(2.0), ["bin", "mul", 0, 2], ["un", "exp", 3], ["un", "tanh", 4], C(2.0),
                            ["bin", "mul", 0, 6], ["un", "exp", 7], ["un", "tanh", 8], ["bin", "add", 5, 9]], [10],
                           rng=rng, label="tanh(exp(x * 2)) twice, with two equal constants 2.0"))
    elif task == "pipeline":
        cases.append(_case([X, Y, C(2.0), C(3.0), ["bin", "mul", 2, 3], ["un", "exp", 4], ["bin", "mul", 0, 5],
                            C(2.0), C(3.0), ["bin", "mul", 7, 8], ["un", "exp", 9], ["bin", "mul", 0, 10],
                            ["bin", "add", 6, 11]], [12], rng=rng,
                           label="x * exp(2 * 3) written twice"))
        cases.append(_case([X, Y, C(6.0), ["bin", "add", 0, 2], C(2.0), C(3.0), ["bin", "mul", 4, 5],
                            ["bin", "add", 0, 6], ["bin", "sub", 3, 7], ["un", "abs", 8]], [9], rng=rng,
                           label="x + 6 and x + 2 * 3"))
        cases.append(_case([X, Y, ["assign_add", 0, 1], C(1.0), C(2.0), ["bin", "add", 3, 4], ["random", [3]],
                            ["bin", "mul", 1, 5], ["read", 0], ["bin", "add", 7, 8], ["un", "exp", 9]], [9],
                           variables=[[3]], rng=rng, label="assign_add, a random op and a read next to constants"))
        cases.append(_case([X, Y, C(2.0), ["size", 0], ["bin", "mul", 2, 3], ["bin", "mul", 0, 4], C(12.0),
                            ["bin", "mul", 0, 6], ["bin", "sub", 5, 7], ["random", [3]], ["random", [3]],
                            ["bin", "sub", 9, 10]], [8, 11], mode="graph", rng=rng,
                           label="x * (2 * tf.size(x)) and x * 12, two random ops (graph mode)"))
    return cases


def make_plan(seed, n=4):
    rng = np.random.default_rng(seed)
    tasks = []
    for task in ("pruning", "constant_folding", "cse", "pipeline"):
        cases = core(task) + [gen_program(rng, task) for _ in range(n)]
        tasks.append({"name": task, "cases": cases})
    return {"tasks": tasks}


# --- expected values (pristine engine, grader process) --------------------------------------------
def expected(task):
    import engine as tf
    name, out = task["name"], []
    passes = [worker.ReferencePipeline] if name == "pipeline" else []
    for case in task["cases"]:
        plain = worker.run_case(tf, case, [], worker.OPTIONS["off"], with_structure=False)
        reference = worker.run_case(tf, case, passes, worker.OPTIONS[name])
        stateful, nodes = worker.reference_original(tf, case)
        out.append({"values": plain["values"], "variables": plain["variables"], "stateful": stateful,
                    "nodes_before": nodes, "structure": reference["structure"]})
    return out


# --- comparison --------------------------------------------------------------------------------------
def _close(e, g):
    e, g = _decode(e), _decode(g)
    if not isinstance(e, np.ndarray) or not isinstance(g, np.ndarray) or e.shape != g.shape:
        return False
    same_nan = np.isnan(e) == np.isnan(g)
    ok = np.isclose(e, g, rtol=TOLERANCE, atol=1e-9, equal_nan=True)
    return bool(np.all(same_nan) and np.all(ok))


def _short(a):
    a = _decode(a)
    if isinstance(a, np.ndarray):
        flat = np.array2string(a.ravel()[:4], precision=4, separator=", ")
        return f"shape {tuple(a.shape)} values {flat}{'...' if a.size > 4 else ''}"
    return repr(a)[:100]


def _error_class(value):
    return value[6:].split(":")[0] if isinstance(value, str) and value.startswith("error:") else None


def _types(counts):
    return ", ".join(f"{n} {t}" for t, n in sorted(counts.items())) or "none"


def check_case(name, case, exp, got):
    """None if right, else a message naming the program, what was checked and what differed."""
    what = f"{case['label']} ({case['mode']} mode)"
    if isinstance(got, str):
        return f"{what}: {got[6:] if got.startswith('error:') else got}"
    if not isinstance(got, dict):
        return f"{what}: malformed output"
    ev, gv = exp["values"], got.get("values")
    if isinstance(ev, str) or isinstance(gv, str):
        if _error_class(ev) != _error_class(gv):
            want = f"raises {_error_class(ev)}" if isinstance(ev, str) else "runs"
            return f"{what}: unoptimized, the program {want}; with your pass it " + \
                   (f"raised {str(gv)[6:]}" if isinstance(gv, str) else "ran")
    else:
        if not isinstance(gv, list) or len(gv) != len(ev):
            return f"{what}: expected {len(ev)} fetched values, got {_short(gv)}"
        for k, (e, g) in enumerate(zip(ev, gv)):
            if not isinstance(g, dict):
                return f"{what}: fetch {k}: malformed"
            if e.get("random"):
                if g.get("dtype") != e["dtype"] or g.get("shape") != e["shape"]:
                    return f"{what}: fetch {k} (random): expected {e['dtype']} {e['shape']}, got {g.get('dtype')} " \
                           f"{g.get('shape')}"
                if case["random"][k] == "sample" and g.get("changes") != e["changes"]:
                    return (f"{what}: fetch {k} depends on random numbers: unoptimized it changes from one run to the "
                            f"next, with your pass it is the same every run (was a random op folded, or two random ops "
                            f"merged into one?)")
                continue
            if g.get("dtype") != e["dtype"] or not _close(e, g):
                return (f"{what}: fetch {k}: unoptimized {e['dtype']} {_short(e)}, with your pass "
                        f"{g.get('dtype')} {_short(g)}")
    if got.get("variables") is not None:
        for k, (e, g) in enumerate(zip(exp["variables"], got["variables"])):
            if not _close(e, g):
                return f"{what}: variable {k} after two runs: unoptimized {_short(e)}, with your pass {_short(g)}"
    gs, es = got.get("structure"), exp["structure"]
    if isinstance(gs, str):
        return f"{what}: optimizing the whole program failed: {gs[6:]}"
    if not isinstance(gs, dict):
        return f"{what}: malformed structure"
    if gs.get("stateful") != exp["stateful"]:
        return (f"{what}: the program had stateful nodes {_types(exp['stateful'])}; after your pass "
                f"{_types(gs.get('stateful') or {})} (stateful nodes are never folded, merged or removed)")
    if gs.get("big_consts"):
        return (f"{what}: your pass made a constant larger than 10 MiB (the folding limit: a result that large is "
                f"cheaper to compute than to keep)")
    key = COUNTED[name]
    if not isinstance(gs.get(key), int) or gs[key] > es[key]:
        what_counts = "nodes" if key == "nodes" else "nodes that compute something (not constants)"
        return (f"{what}: the program had {exp['nodes_before']} nodes; the reference pass leaves {es[key]} "
                f"{what_counts} ({_types(es['types'])}), yours {gs.get(key)} ({_types(gs.get('types') or {})})")
    return None
