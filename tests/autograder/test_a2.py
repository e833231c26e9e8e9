"""A2 (run a graph): what is particular to this assignment.

* An honest submission written differently from the reference (recursion instead of a work list,
  a depth-first order instead of Kahn's, a self-contained executor) gets full marks.
* The graded programs never depend on which valid order an executor picks: the reference pieces
  with a *random* valid order give the engine's results and kernel counts, seed after seed.
* The sandbox's engine really has no executor (``Session.run`` outside the seam, ``prune``,
  ``compile_plan``, ``extract_sub_graph`` fail), while ``tf.gradients`` and optimizers still build,
  with the same gradients as the pristine engine; the walk inlined into its ``gradients`` is
  ``prune``'s, in the same order.
"""
import ast
import os
import random
import shutil
import subprocess
import sys

import assignment_kit as kit
import numpy as np
import pytest

from autograder import absence, assignments, grading
from autograder.assignments import a2
from autograder.harness import a2 as harness
from autograder.sandbox import REPO

NEEDED = '''
def needed_ops(fetches, targets, feeds):
    fed_ids = {id(t) for t in feeds}
    seen = {}

    def visit(op):
        if id(op) in seen:
            return
        seen[id(op)] = op
        for t in op.inputs:
            if id(t) not in fed_ids:
                visit(t.op)
        for c in op.control_inputs:
            replaced = len(c.outputs) > 0 and all(id(t) in fed_ids for t in c.outputs)
            if not replaced:
                visit(c)
    for t in fetches:
        if id(t) not in fed_ids:
            visit(t.op)
    for op in targets:
        visit(op)
    return list(seen.values())
'''

ORDER = '''
def topological_order(ops):
    """Depth-first post-order over the given ops only."""
    todo = list(ops)
    given = {id(op) for op in todo}
    placed, result = set(), []

    def place(op):
        if id(op) in placed:
            return
        placed.add(id(op))
        for dep in [t.op for t in op.inputs] + list(op.control_inputs):
            if id(dep) in given:
                place(dep)
        result.append(op)
    for op in todo:
        place(op)
    return result
'''

EXECUTE = '''
def execute(order, values, runtime):
    for op in order:
        args = []
        for t in op.inputs:
            args.append(values[t])
        results = run_kernel(op, args, runtime)
        for k, t in enumerate(op.outputs):
            values.setdefault(t, results[k])
    return values
'''

EXECUTOR = '''
class Executor:
    """Self-contained: its own pruning and order, a list of steps with input/output slots."""

    def __init__(self, fetches, targets, feeds):
        slot = {id(t): k for k, t in enumerate(feeds)}
        self.n_feeds = len(feeds)
        fed = set(slot)
        steps, seen = [], set()

        def visit(op):
            if id(op) in seen:
                return
            seen.add(id(op))
            for t in op.inputs:
                if id(t) not in fed:
                    visit(t.op)
            for c in op.control_inputs:
                if not (c.outputs and all(id(t) in fed for t in c.outputs)):
                    visit(c)
            steps.append(op)
        for t in fetches:
            if id(t) not in fed:
                visit(t.op)
        for op in targets:
            visit(op)
        self.steps = []
        for op in steps:
            ins = [slot[id(t)] for t in op.inputs]
            outs = []
            for t in op.outputs:
                if id(t) not in slot:
                    slot[id(t)] = len(slot)
                    outs.append(slot[id(t)])
                else:
                    outs.append(None)       # fed: keep the fed value
            self.steps.append((op, ins, outs))
        self.size = len(slot)
        self.fetch_slots = [slot[id(t)] for t in fetches]

    def run(self, feed_values, runtime):
        memory = list(feed_values) + [None] * (self.size - self.n_feeds)
        for op, ins, outs in self.steps:
            for k, value in zip(outs, run_kernel(op, [memory[i] for i in ins], runtime)):
                if k is not None:
                    memory[k] = value
        return [memory[k] for k in self.fetch_slots]
'''


def test_an_honest_variant_gets_full_marks(tmp_path):
    path = kit.submission("A2", str(tmp_path / "A2.ipynb"), replace={
        "needed_ops": NEEDED, "topological_order": ORDER, "execute": EXECUTE, "executor": EXECUTOR})
    with kit.pool("A2") as pool:
        res = kit.grade("A2", path, seed=11, pool=pool, n=3)
    assert kit.scores(res, "A2") == {t.name: t.points for t in a2.TASKS}, grading.report(res, "A2")


def _reference_namespace(shuffle_seed):
    """The solution's cells, with a topological order that picks a random ready op each time."""
    cells = grading.source_cells("A2")
    ns = {"__name__": "__main__"}
    for gid in ("setup", "needed_ops", "topological_order", "execute", "executor"):
        exec(compile(cells[gid], gid, "exec"), ns)  # noqa: S102 - the solution's own cells
    rng = random.Random(shuffle_seed)
    reference_order = ns["topological_order"]

    def random_order(ops):
        ops = list(ops)
        members = set(ops)
        order, placed = [], set()
        while len(order) < len(ops):
            ready = [op for op in ops if op not in placed and all(
                d in placed or d not in members for d in [t.op for t in op.inputs] + list(op.control_inputs))]
            op = rng.choice(ready)
            placed.add(op)
            order.append(op)
        assert len(order) == len(reference_order(ops))
        return order
    ns["topological_order"] = random_order
    return ns


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_any_valid_order_gives_the_engines_results_and_kernel_counts(seed):
    import engine as tf
    from engine.framework.context import ctx
    ns = _reference_namespace(seed)
    plan = a2.make_plan(seed, n=3)
    for task in plan["tasks"]:
        if task["name"] == "order":
            continue
        outputs = [harness.HARNESS[task["name"]](tf, ctx, ns, case, {}) for case in task["cases"]]
        expected = a2.expected(task)
        for case, e, g in zip(task["cases"], expected, outputs):
            assert a2.check_case(task["name"], case, e, g) is None, (task["name"], case["what"])


def test_the_fixed_core_has_what_the_task_texts_promise():
    plan = a2.make_plan(5, n=0)
    what = {t["name"]: [c["what"] for c in t["cases"]] for t in plan["tasks"]}
    assert any("unused branch" in w for w in what["needed"]) and any("fed intermediate" in w for w in what["needed"])
    assert any("target" in w and "no outputs" in w for w in what["executor"])
    assert any("tf.gradients" in w for w in what["executor"]) and any("training" in w for w in what["executor"])
    assert any("not fed" in w for w in what["execute"]) and any("not fed" in w for w in what["executor"])
    # the fixed requests expect what the texts say: a missing feed is TF's InvalidArgumentError
    task = next(t for t in plan["tasks"] if t["name"] == "executor")
    missing = next(k for k, c in enumerate(task["cases"]) if "not fed" in c["what"])
    exp = a2.expected({"name": "executor", "cases": [task["cases"][missing]]})[0]
    assert exp["results"][1].startswith("error:InvalidArgumentError"), exp["results"]


def test_an_unneeded_op_that_runs_is_named_by_the_kernel_counts():
    """The pruning check is a count of kernel calls: one extra op costs the case, and the message names it."""
    case = {"what": "an unused branch", "prog": a2.EDGE, "requests": [a2.INIT, {"fetch": [8], "feed": a2.P01[:1]}]}
    exp = a2.expected({"name": "executor", "cases": [case]})[0]
    init = {"runs": exp["results"][0], "counts": exp["counts"][0]}

    def result(**counts):
        return [init, {"runs": exp["results"][1], "counts": dict(exp["counts"][1], **counts)}]
    assert exp["counts"][1] == {"VarHandleOp": 1, "ReadVariableOp": 1, "Mul": 1, "Tanh": 1, "Sigmoid": 1, "AddV2": 1}
    assert a2.check_case("executor", case, exp, result()) is None
    msg = a2.check_case("executor", case, exp, result(Square=1))
    assert "Square kernels ran 1 times" in msg and "no needed op" in msg, msg
    assert "a shared value is computed once" in a2.check_case("executor", case, exp, result(Mul=2))


def _inlined_walk():
    fn = ast.parse(a2.ABSENT["engine/framework/graph_gradients.py"]["gradients"]).body[0]
    walk = next(n for n in fn.body if isinstance(n, ast.FunctionDef) and n.name == "_needed_in_order")
    ns = {}
    exec(compile(ast.Module([walk], []), "<walk>", "exec"), ns)  # noqa: S102 - the spec's own source
    return ns["_needed_in_order"]


def test_the_walk_inlined_into_gradients_is_prunes():
    import engine as tf
    from engine.framework.executor import prune
    walk = _inlined_walk()
    rng = np.random.default_rng(0)
    progs = [a2.EDGE, a2.TRAIN] + [a2.gen_program(rng, 10)[0] for _ in range(5)]
    for prog in progs:
        built = harness.build(tf, prog)
        ops = built.graph.get_operations()
        roots = [ops[-1], ops[len(ops) // 2]]
        assert [op.name for op in walk(roots)] == [op.name for op in prune(roots, set())]


BUILD = r'''
import numpy as np
import engine as tf
v1 = tf.compat.v1
g = tf.Graph()
with g.as_default():
    x = v1.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0], [-2.0]], name="w")
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))
    grads = tf.gradients(loss, [w, x])
    train = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
    init = v1.global_variables_initializer()
print("OPS", [(op.name, op.type, [t.name for t in op.inputs]) for op in g.get_operations()])
'''

PROBE = BUILD + r'''
from engine.framework import executor
failed = []
for name, call in [("prune", lambda: executor.prune([], set())),
                   ("compile_plan", lambda: executor.compile_plan([], [], [])),
                   ("Plan", lambda: executor.Plan()), ("_generate", lambda: executor._generate(None, None))]:
    try:
        call()
        failed.append(name)
    except NotImplementedError:
        pass
try:
    v1.Session(graph=g).run(init)
    failed.append("Session.run")
except NotImplementedError as e:
    assert "absent" in str(e)
try:
    v1.graph_util.extract_sub_graph(g.as_graph_def(), ["w"])
    failed.append("extract_sub_graph")
except NotImplementedError:
    pass
print("FAILED", failed)
'''


def test_the_sandbox_engine_has_no_executor_but_builds_gradients(tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(os.path.join(REPO, "engine"), root / "engine", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    absence.apply(str(root / "engine"), a2.ABSENT, "A2")
    site = os.path.dirname(os.path.dirname(np.__file__))
    out = subprocess.run([sys.executable, "-S", "-c", PROBE], check=False, cwd=root, capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": f"{root}{os.pathsep}{site}", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert "FAILED []" in out.stdout, out.stdout
    # the pristine engine builds the very same graph (the same gradient ops, with the same inputs)
    pristine = subprocess.run([sys.executable, "-c", BUILD], check=False, cwd=REPO, capture_output=True, text=True, timeout=120)
    ops = [line for line in out.stdout.splitlines() if line.startswith("OPS")]
    assert pristine.returncode == 0 and ops == [pristine.stdout.strip().splitlines()[-1]]


def test_the_spec_is_registered():
    spec = assignments.get("A2")
    assert spec.SEAM == "executor" and spec.HARNESS == "a2"
    assert sum(t.points for t in spec.TASKS) == 20
