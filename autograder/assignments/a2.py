"""Assignment A2 (run a graph: the executor behind ``Session.run``): hidden tests, expected values, comparison.

Everything here runs in the *grader* process, with the repository's pristine engine. The student's
code runs in the sandbox (``harness/a2.py``) on an engine copy without the reference executor
(``ABSENT``) and sends back outputs only: the names of the ops their pruning keeps, their order, the
values their executor fetched and how often each kind of kernel ran (counted through
``registry.override``). Expected values come from the engine's own ``Session.run`` and ``prune``.
"""
import ast
import collections
import json
import os

import numpy as np

from ..harness import a2 as worker
from ..harness.common import decode as _decode
from . import Task

NAME = "A2"
TITLE = "Run a graph: prune to what a fetch needs, order it, run its kernels, the executor behind Session.run"
HOURS = "3-5 h"
SEAM = "executor"
HARNESS = "a2"
TASKS = [
    Task("needed", "needed_ops", "test_needed_ops", 5, ("1.1",)),
    Task("order", "topological_order", "test_topological_order", 4, ("1.1",)),
    Task("execute", "execute", "test_execute", 4, ("1.1", "1.5")),
    Task("executor", "executor", "test_executor", 7, ("1.1", "1.5", "3.6")),
]
INJECT = {"execute": ["needed_ops", "topological_order"],
          "executor": ["needed_ops", "topological_order", "execute"]}

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ``tf.gradients`` orders the graph with ``prune``, which is cut out below (it *is* tasks 1-2). The
# sandbox's ``gradients`` gets the same walk inlined (the feed-free case of ``prune``, in the same order),
# as a local function nobody else can call.
_WALK = '''
def _needed_in_order(roots):
    """Every op ``roots`` depend on (data and control inputs), each after its inputs (``prune`` with no feeds)."""
    order, state = [], {}
    for root in roots:
        if root is None or id(root) in state:
            continue
        stack = [(root, False)]
        while stack:
            op, expanded = stack.pop()
            if expanded:
                state[id(op)] = 2
                order.append(op)
                continue
            if state.get(id(op)):
                continue
            state[id(op)] = 1
            stack.append((op, True))
            deps = list(op.control_inputs) + [t.op for t in op.inputs]
            for dep in reversed(deps):
                if not state.get(id(dep)):
                    stack.append((dep, False))
    return order
'''


def _gradients_without_prune():
    """The source of ``graph_gradients.gradients`` with its one ``prune(roots, set())`` call made local."""
    path = os.path.join(_REPO, "engine", "framework", "graph_gradients.py")
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "gradients")
    calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == "prune"]
    if len(calls) != 1 or len(calls[0].args) != 2:
        raise RuntimeError("A2's ABSENT: graph_gradients.gradients no longer calls prune(roots, set()) once; "
                           "update _gradients_without_prune")
    calls[0].func.id, calls[0].args = "_needed_in_order", calls[0].args[:1]
    docstring = isinstance(fn.body[0], ast.Expr) and isinstance(getattr(fn.body[0], "value", None), ast.Constant)
    fn.body.insert(1 if docstring else 0, ast.parse(_WALK).body[0])
    return ast.unparse(ast.fix_missing_locations(fn))


# The reference executor and every engine piece that prunes, orders or runs a graph for you. (So inside
# the sandbox tf.function, tf.data functions, graph-mode tf.cond/tf.while_loop, viz's pruned pictures,
# graph_util.extract_sub_graph/convert_variables_to_constants and SavedModel export do not work: A2's
# programs do not use them.)
ABSENT = {
    "engine/client/executor_seam.py": ["GraphExecutor"],
    "engine/framework/executor.py": ["prune", "compile_plan", "Plan", "_generate"],
    "engine/framework/optimizer/ir.py": ["from_operations"],
    "engine/compat/v1/graph_util.py": ["extract_sub_graph"],
    "engine/framework/graph_gradients.py": {"gradients": _gradients_without_prune()},
}


# --- programs ------------------------------------------------------------------------------------------
def _vals(rng, n):
    return [float(v) for v in np.round(rng.uniform(-1, 1, n), 3)]


class _Gen:
    """A random graph program (``harness/a2.py`` documents the format), tracking shapes and kinds."""

    def __init__(self, rng, c):
        self.rng, self.c = rng, c
        self.ins, self.shape, self.kind, self.anc = [], [], [], []
        self.ops = []            # per op: ("assign", counter) or ("group",)
        self.ctrl_sources = set()   # ts indices whose op is a control input of something

    def add(self, instr, shapes, kind, parents=()):
        self.ins.append(instr)
        anc = set().union(*[self.anc[p] | {p} for p in parents]) if parents else set()
        for s in shapes:
            self.shape.append(tuple(s))
            self.kind.append(kind)
            self.anc.append(set(anc))
        return len(self.shape) - len(shapes)

    def pool(self):
        return [i for i, k in enumerate(self.kind) if k in ("ph", "var", "const", "t")]

    def computed(self):
        return [i for i, k in enumerate(self.kind) if k == "t"]

    def pick(self, cands):
        if self.rng.random() < 0.5:
            return int(cands[-1])
        return int(self.rng.choice(cands))


def gen_program(rng, n_ops=8, grads=True):
    """A random program and a description: ``(prog, gen)``."""
    c = int(rng.integers(2, 5))
    g = _Gen(rng, c)
    for _ in range(int(rng.integers(1, 3))):
        g.add(["ph"], [(2, c)], "ph")
    for _ in range(int(rng.integers(0, 3))):
        g.add(["var", _vals(rng, 2 * c)], [(2, c)], "var")
    rows = int(rng.integers(1, 3))
    g.add(["const", rows, _vals(rng, rows * c)], [(rows, c)], "const")
    counters = []
    if rng.random() < 0.6:
        counters.append(g.add(["counter", _vals(rng, 2 * c)], [(2, c)], "counter"))
    for _ in range(n_ops):
        pool = g.pool()
        i = g.pick(pool)
        r = rng.random()
        if r < 0.33:
            j = int(rng.choice(pool))
            op = str(rng.choice(["Add", "Sub", "Mul"]))
            a, b = (i, j) if rng.random() < 0.5 else (j, i)
            s = tuple(max(x, y) for x, y in zip(g.shape[a], g.shape[b]))
            g.add(["bin", op, a, b], [s], "t", (a, b))
        elif r < 0.53:
            g.add(["un", str(rng.choice(["Neg", "Relu", "Tanh", "Sigmoid", "Square"])), i], [g.shape[i]], "t", (i,))
        elif r < 0.61 and g.shape[i][1] == c:
            kind = "var" if rng.random() < 0.5 else "const"
            g.add(["matmul", i, kind, _vals(rng, c * c)], [(g.shape[i][0], c)], "t", (i,))
        elif r < 0.67:
            g.add(["sum", i], [(g.shape[i][0], 1)], "t", (i,))
        elif r < 0.75 and g.shape[i][0] == 2:
            g.add(["split", i], [(1, g.shape[i][1])] * 2, "t", (i,))
        elif r < 0.83 and counters:
            g.ins.append(["assign", counters[0], i])
            g.ops.append(("assign",))
            if rng.random() < 0.4:
                g.ins.append(["group", [len(g.ops) - 1]])
                g.ops.append(("group",))
        elif r < 0.91 and (g.ops or g.computed()):
            if g.ops and rng.random() < 0.6:
                g.add(["ctrl", i, "op", len(g.ops) - 1], [g.shape[i]], "t", (i,))
            elif g.computed():
                k = int(rng.choice(g.computed()))
                g.ctrl_sources.add(k)
                g.add(["ctrl", i, "t", k], [g.shape[i]], "t", (i,))   # (k: a control edge, no gradient path)
        elif grads and r < 0.97 and g.computed():
            i = g.pick(g.computed())
            srcs = sorted(j for j in g.anc[i] if g.kind[j] in ("ph", "var", "t"))
            if srcs:
                pick = sorted({int(s) for s in rng.choice(srcs, size=min(len(srcs), int(rng.integers(1, 3))),
                                                           replace=False)})
                g.add(["grad", i, pick], [g.shape[j] for j in pick], "grad")
        else:
            g.add(["un", "Tanh", i], [g.shape[i]], "t", (i,))
    for k in counters:
        g.add(["read", k], [g.shape[k]], "read")
    return {"c": c, "ins": g.ins}, g


def _feed(rng, g, i):
    return [i, list(g.shape[i]), _vals(rng, int(np.prod(g.shape[i])))]


def gen_requests(rng, g, with_runs=True):
    """A main request (and, for running tasks, the initializer first and the counters' values last)."""
    fetchable = [i for i, k in enumerate(g.kind) if k in ("t", "grad")] or g.pool()
    fetch = sorted({g.pick(fetchable) for _ in range(int(rng.integers(1, 3)))})
    feed = [_feed(rng, g, i) for i, k in enumerate(g.kind) if k == "ph"]
    inner = [i for i in g.computed() if i not in g.ctrl_sources]
    if inner and rng.random() < 0.35:
        feed.append(_feed(rng, g, int(rng.choice(inner))))
    main = {"fetch": fetch, "feed": feed}
    if g.ops and rng.random() < 0.5:
        main["targets"] = [int(rng.integers(0, len(g.ops)))]
    if not with_runs:
        return [main]
    main["repeat"] = 2
    reqs = [{"targets": ["init"]}] if any(k in ("var", "counter") for k in g.kind) or \
        any(ins[0] == "matmul" and ins[2] == "var" for ins in g.ins) else []
    reqs.append(main)
    reads = [i for i, k in enumerate(g.kind) if k == "read"]
    if reads:
        reqs.append({"fetch": reads})
    return reqs


# The fixed program of the edge cases (c = 3). ts indices: 0 p0, 1 p1, 2 var2, 3 const, 4 counter4,
# 5 p0*var2, 6 tanh(5), 7 sigmoid(5), 8 = 6 + 7 (a diamond over 5), 9 square(p1), 10 = 9 - const (a
# branch the fetches of 8 do not need), 11/12 split(8) (one op, two outputs), 13 = 11 * 12,
# op 0: counter4 += 6, 14 = identity(const) after op 0, op 1: group(op 0), 15 = identity(const) after p1,
# 16 = counter4's value, 17/18 = d sum(8) / d var2, d p0.
_R = np.random.default_rng(20240602)
EDGE = {"c": 3, "ins": [
    ["ph"], ["ph"], ["var", _vals(_R, 6)], ["const", 2, _vals(_R, 6)], ["counter", _vals(_R, 6)],
    ["bin", "Mul", 0, 2], ["un", "Tanh", 5], ["un", "Sigmoid", 5], ["bin", "Add", 6, 7],
    ["un", "Square", 1], ["bin", "Sub", 9, 3], ["split", 8], ["bin", "Mul", 11, 12],
    ["assign", 4, 6], ["ctrl", 3, "op", 0], ["group", [0]], ["ctrl", 3, "t", 1], ["read", 4],
    ["grad", 8, [2, 0]]]}
_SHAPES = {0: (2, 3), 1: (2, 3), 5: (2, 3), 11: (1, 3)}


def _f(i, seed=0):
    r = np.random.default_rng(1000 + 10 * i + seed)
    return [i, list(_SHAPES[i]), _vals(r, int(np.prod(_SHAPES[i])))]


P01 = [_f(0), _f(1)]
INIT = {"targets": ["init"]}

NEEDED_CORE = [
    ("an unused branch and a diamond", {"fetch": [8], "feed": P01}),
    ("a fed intermediate tensor (its producer must not run)", {"fetch": [8], "feed": [_f(0), _f(5)]}),
    ("a control dependency that must run", {"fetch": [14], "feed": [_f(0)]}),
    ("a fetch that is itself fed", {"fetch": [0, 6, 5], "feed": [_f(0), _f(5)]}),
    ("a placeholder that is needed and not fed", {"fetch": [8]}),
    ("a target operation with no outputs", {"targets": [1], "feed": [_f(0)]}),
    ("one output of a two-output op fed, the other needed", {"fetch": [13], "feed": [_f(0), _f(11)]}),
    ("a control input on a fed placeholder", {"fetch": [15], "feed": [_f(1)]}),
    ("the initializer", {"targets": ["init"]}),
]
EXECUTE_CORE = [
    ("a diamond and both outputs of a split", [INIT, {"fetch": [8, 13], "feed": [_f(0)]}]),
    ("one output of a split fed (it keeps the fed value) and fetched", [INIT, {"fetch": [13, 11],
                                                                        "feed": [_f(0), _f(11)]}]),
    ("a target with no outputs, twice, then the variable", [INIT, {"targets": [1], "feed": [_f(0)], "repeat": 2},
                                                           {"fetch": [16]}]),
    ("a control dependency that must run", [INIT, {"fetch": [14], "feed": [_f(0)]}, {"fetch": [16]}]),
    ("a placeholder that is needed and not fed", [INIT, {"fetch": [8]}]),
    ("a fed intermediate, without initializing the variables", [{"fetch": [8, 6], "feed": [_f(5)]}]),
    ("tf.gradients", [INIT, {"fetch": [17, 18], "feed": P01}]),
]
TRAIN = {"c": 3, "ins": [["ph"], ["ph"], ["var", _vals(_R, 6)],
                         ["matmul", 0, "var", _vals(_R, 9)], ["bin", "Add", 3, 2], ["bin", "Sub", 4, 1],
                         ["train", 5, 0.1]]}
EXECUTOR_CORE = [
    ("an unused branch and a diamond", EDGE, [INIT, {"fetch": [8], "feed": P01, "repeat": 2}]),
    ("a fed intermediate tensor, no initializer needed", EDGE, [{"fetch": [8, 6], "feed": [_f(0), _f(5)]}]),
    ("a control dependency that must run", EDGE, [INIT, {"fetch": [14], "feed": [_f(0)], "repeat": 2},
                                                  {"fetch": [16]}]),
    ("a fetch that is itself fed", EDGE, [INIT, {"fetch": [0, 8, 5], "feed": [_f(0), _f(5)]}]),
    ("a placeholder that is needed and not fed, then a good run", EDGE,
     [INIT, {"fetch": [8]}, {"fetch": [8], "feed": [_f(0, 1)]}]),
    ("a target with no outputs", EDGE, [INIT, {"targets": [1], "feed": [_f(0)]}, {"fetch": [16]}]),
    ("the same tensor fetched twice, and a split", EDGE, [INIT, {"fetch": [13, 8, 13], "feed": [_f(0)]}]),
    ("tf.gradients", EDGE, [INIT, {"fetch": [17, 18, 8], "feed": P01}]),
    ("two sessions keep their own variables", EDGE,
     [INIT, {"targets": ["init"], "session": 1}, {"targets": [1], "feed": [_f(0)], "repeat": 3},
      {"fetch": [16]}, {"fetch": [16], "session": 1}]),
    ("a training loop (GradientDescentOptimizer.minimize)", TRAIN,
     [INIT, {"fetch": [6], "targets": [0], "feed": [[0, [2, 3], _vals(_R, 6)], [1, [2, 3], _vals(_R, 6)]],
             "repeat": 12}, {"fetch": [2]}]),
]


def _dag_core():
    """Look-alike DAGs for task 2 (names chosen so that neither the given order nor sorting by name is valid)."""
    def node(name, type_, outputs=1, inputs=(), control=()):
        return {"name": name, "type": type_, "outputs": outputs, "inputs": [list(i) for i in inputs],
                "control": list(control)}
    chain = [node("d", "Placeholder"), node("c", "Neg", inputs=[(0, 0)]), node("b", "Relu", inputs=[(1, 0)]),
             node("a", "Tanh", inputs=[(2, 0)])]
    control = [node("read", "ReadVariableOp"), node("assign", "AssignAddVariableOp", 0),
               node("z_out", "Identity", inputs=[(0, 0)], control=[1])]
    outside = [node("x", "Placeholder"), node("y_square", "Mul", inputs=[(0, 0), (0, 0)]),
               node("w_neg", "Neg", inputs=[(1, 0)]), node("v_add", "AddV2", inputs=[(2, 0), (0, 0)])]
    diamond = [node("s", "Placeholder"), node("r_exp", "Exp", inputs=[(0, 0)]),
               node("q_tanh", "Tanh", inputs=[(0, 0)]), node("p_add", "AddV2", inputs=[(1, 0), (2, 0)]),
               node("o_mul", "Mul", inputs=[(3, 0), (0, 0)])]
    split = [node("m", "Placeholder"), node("l_split", "Split", 2, inputs=[(0, 0)]),
             node("k_neg", "Neg", inputs=[(1, 1)]), node("j_relu", "Relu", inputs=[(1, 0)]),
             node("i_mul", "Mul", inputs=[(3, 0), (2, 0), (1, 1)]), node("h_noop", "NoOp", 0, control=[4, 2])]
    return [
        {"what": "a chain, handed over in reverse", "nodes": chain, "given": [3, 2, 1, 0]},
        {"what": "a control dependency and no data edge", "nodes": control, "given": [2, 1, 0]},
        {"what": "inputs produced outside the list, one read twice", "nodes": outside, "given": [3, 2, 1]},
        {"what": "a diamond", "nodes": diamond, "given": [4, 3, 1, 0, 2]},
        {"what": "a two-output op and a NoOp with control inputs", "nodes": split, "given": [5, 4, 2, 3, 1, 0]},
    ]


def gen_dag(rng, n):
    types = ["Mul", "AddV2", "Relu", "Split", "Identity", "NoOp", "MatMul", "Tanh", "AssignAddVariableOp"]
    outputs = {"Split": 2, "NoOp": 0, "AssignAddVariableOp": 0}
    perm = rng.permutation(n)
    nodes = []
    for i in range(n):
        t = str(rng.choice(types)) if i >= 2 else "Placeholder"
        producers = [j for j in range(i) if nodes[j]["outputs"] > 0]
        inputs = []
        if producers and t != "Placeholder":
            for _ in range(int(rng.integers(1, 4))):
                j = producers[-1] if rng.random() < 0.4 else int(rng.choice(producers))
                inputs.append([j, int(rng.integers(0, nodes[j]["outputs"]))])
        control = sorted({int(rng.integers(0, i)) for _ in range(2)}) if i and rng.random() < 0.3 else []
        nodes.append({"name": f"{t.lower()}_{perm[i]}", "type": t, "outputs": outputs.get(t, 1),
                      "inputs": inputs, "control": control})
    given = [i for i in range(n) if not (nodes[i]["type"] == "Placeholder" and rng.random() < 0.7)]
    return {"what": f"a random graph of {n} ops", "nodes": nodes, "given": [int(i) for i in rng.permutation(given)]}


# --- plans ----------------------------------------------------------------------------------------------
def make_plan(seed, n=4):
    rng = np.random.default_rng(seed)
    needed = [{"what": w, "prog": EDGE, "requests": [r]} for w, r in NEEDED_CORE]
    for _ in range(n):
        prog, g = gen_program(rng, int(rng.integers(6, 12)))
        needed.append({"what": "a random graph", "prog": prog, "requests": gen_requests(rng, g, with_runs=False)})
    order = _dag_core() + [gen_dag(rng, int(rng.integers(8, 20))) for _ in range(n)]
    execute = [{"what": w, "prog": EDGE, "requests": r} for w, r in EXECUTE_CORE]
    executor = [{"what": w, "prog": p, "requests": r} for w, p, r in EXECUTOR_CORE]
    for cases in (execute, executor):
        for _ in range(n):
            prog, g = gen_program(rng, int(rng.integers(6, 12)))
            cases.append({"what": "a random graph", "prog": prog, "requests": gen_requests(rng, g)})
    return {"tasks": [{"name": "needed", "cases": needed}, {"name": "order", "cases": order},
                      {"name": "execute", "cases": execute}, {"name": "executor", "cases": executor}]}


# --- expected values (pristine engine, grader process) ------------------------------------------------
def _label(built, req):
    fetches, targets, feeds, _ = worker.request_parts(built, req)
    parts = []
    if fetches:
        parts.append(f"fetches [{', '.join(t.name for t in fetches)}]")
    if targets:
        parts.append(f"targets [{', '.join(op.name for op in targets)}]")
    parts.append(f"feeds [{', '.join(t.name for t in feeds)}]" if feeds else "no feeds")
    return "sess.run(" + "; ".join(parts) + ")"


def _needed(built, req):
    from engine.framework.executor import prune
    fetches, targets, feeds, _ = worker.request_parts(built, req)
    fed = {t._id for t in feeds}
    return prune([t.op for t in fetches if t._id not in fed] + targets, fed)


_CACHE = {}   # the fixed cases are the same for every student: computed once per grading process


def expected(task):
    name, out = task["name"], []
    for case in task["cases"]:
        if name == "order":
            out.append(None)     # checked structurally
            continue
        key = (name, json.dumps(case, sort_keys=True))
        if key not in _CACHE:
            if len(_CACHE) > 2000:
                _CACHE.clear()
            _CACHE[key] = _expected_case(name, case)
        out.append(_CACHE[key])          # (read only)
    return out


def _expected_case(name, case):
    import engine as tf
    built = worker.build(tf, case["prog"])
    types = {op.name: op.type for op in built.graph.get_operations()}
    labels = [_label(built, r) for r in case["requests"]]
    if name == "needed":
        return {"needed": [sorted(op.name for op in _needed(built, r)) for r in case["requests"]],
                "types": types, "labels": labels}
    runs = worker.run_requests(tf, case, None, count=False)
    counts = []
    for req in case["requests"]:
        kinds = collections.Counter(op.type for op in _needed(built, req) if op.type not in worker.UNCOUNTED)
        counts.append({k: v * req.get("repeat", 1) for k, v in kinds.items()})
    return {"results": [r if isinstance(r, str) else r["runs"] for r in runs], "counts": counts,
            "types": types, "labels": labels,
            "fetch_names": [[t.name for t in worker.request_parts(built, r)[0]] for r in case["requests"]]}


# --- comparison -----------------------------------------------------------------------------------------
def _short(a):
    if isinstance(a, np.ndarray):
        flat = np.array2string(a.ravel()[:4], precision=4, separator=", ")
        return f"shape {tuple(a.shape)} values {flat}{'...' if a.size > 4 else ''}"
    return repr(a)[:80]


def _same(exp, got):
    e, g = _decode(exp), _decode(got)
    if not isinstance(e, np.ndarray) or not isinstance(g, np.ndarray) or e.shape != g.shape:
        return False
    return bool(np.all(np.isfinite(g)) and np.all(np.abs(e - g) <= 1e-5 + 1e-5 * np.abs(e)))


def _err(got):
    return got[6:].split(":")[0] if isinstance(got, str) and got.startswith("error:") else None


def check_case(name, case, exp, got):
    """None if right, else a message naming the request (its fetches, targets, feeds) and what differed."""
    what = case.get("what", "")
    if _err(got) is not None:
        return f"{what}: your code raised {got[6:]}"
    if name == "order":
        return _check_order(case, got)
    if not isinstance(got, list) or len(got) != len(exp["labels"]):
        return f"{what}: expected one result per sess.run ({len(exp['labels'])}), got {_short(got)}"
    if name == "needed":
        for label, e, g in zip(exp["labels"], exp["needed"], got):
            m = _check_needed(exp["types"], e, g)
            if m:
                return f"{what}: {label}: {m}"
        return None
    for k, (label, e, counts, g) in enumerate(zip(exp["labels"], exp["results"], exp["counts"], got)):
        m = _check_run(exp["fetch_names"][k], e, counts, g)
        if m:
            return f"{what}: {label}: {m}"
    return None


def _check_needed(types, exp, got):
    if _err(got) is not None:
        return f"your needed_ops raised {got[6:]}"
    if not isinstance(got, list):
        return f"expected a set of operations, got {_short(got)}"
    dups = sorted({n for n in got if got.count(n) > 1})
    if dups:
        return f"op {dups[0]!r} appears more than once"
    missing, extra = sorted(set(exp) - set(got)), sorted(set(got) - set(exp))
    if missing:
        return f"op {missing[0]!r} ({types.get(missing[0], '?')}) is needed but missing" + \
            (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
    if extra:
        return f"op {extra[0]!r} ({types.get(extra[0], '?')}) is not needed" + \
            (f" (and {len(extra) - 1} more)" if len(extra) > 1 else "")
    return None


def _check_run(fetch_names, exp, counts, got):
    e_err, g_err = _err(exp), _err(got)
    if e_err is not None:
        if g_err == e_err:
            return None
        return f"expected TF's {e_err}, " + (f"got {got[6:]}" if g_err else "but it ran")
    if g_err is not None:
        return f"raised {got[6:]}"
    if not isinstance(got, dict) or not isinstance(got.get("runs"), list):
        return f"malformed result {_short(got)}"
    runs = got["runs"]
    if len(runs) != len(exp):
        return f"expected {len(exp)} runs, got {len(runs)}"
    for r, (e_run, g_run) in enumerate(zip(exp, runs)):
        if not isinstance(g_run, list) or len(g_run) != len(e_run):
            return f"run {r + 1}: expected {len(e_run)} fetched values, got {_short(g_run)}"
        for k, (e, g) in enumerate(zip(e_run, g_run)):
            if not _same(e, g):
                return (f"run {r + 1}: fetch {k + 1} ({fetch_names[k]}): expected {_short(_decode(e))}, "
                        f"got {_short(_decode(g))}")
    got_counts = got.get("counts") or {}
    for kind in sorted(set(counts) | set(got_counts)):
        e, g = counts.get(kind, 0), got_counts.get(kind, 0)
        if e != g:
            runs_text = f" in {len(exp)} runs" if len(exp) > 1 else ""
            if e == 0:
                return f"{kind} kernels ran {g} times{runs_text}, but no needed op is a {kind}"
            return (f"{kind} kernels ran {g} times{runs_text}, expected {e} (each needed op runs once per run"
                    f"{'; a shared value is computed once' if g > e else ''})")
    return None


def _check_order(case, got):
    nodes, given = case["nodes"], case["given"]
    names = [nodes[i]["name"] for i in given]
    if not isinstance(got, list):
        return f"{case['what']}: expected a list of ops, got {_short(got)}"
    dups = sorted({n for n in got if got.count(n) > 1})
    if dups:
        return f"{case['what']}: op {dups[0]!r} appears more than once"
    if set(got) != set(names):
        extra, missing = sorted(set(got) - set(names)), sorted(set(names) - set(got))
        if extra:
            return f"{case['what']}: {extra[0]!r} is in your order but was not in the given ops"
        return f"{case['what']}: op {missing[0]!r} is missing from your order"
    pos = {n: k for k, n in enumerate(got)}
    for i in given:
        me = nodes[i]["name"]
        for j, _ in nodes[i]["inputs"]:
            dep = nodes[j]["name"]
            if dep in pos and pos[dep] > pos[me]:
                return f"{case['what']}: {me!r} comes before {dep!r}, which produces one of its inputs"
        for j in nodes[i]["control"]:
            dep = nodes[j]["name"]
            if dep in pos and pos[dep] > pos[me]:
                return f"{case['what']}: {me!r} comes before {dep!r}, one of its control inputs"
    return None
