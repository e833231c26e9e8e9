"""A6 (optimize a graph): what is specific to it.

* An honest submission written differently from the reference (no ``ir.Rewriter`` in pruning and
  folding, a fixpoint sweep for dead nodes, other signatures in CSE, a pipeline that watches the
  node count) gets full marks.
* The sandbox's engine copy lacks the reference pruning, folding and CSE: their ``run`` returns the
  program unchanged, their helpers raise ``NotImplementedError``, and the engine still compiles and
  runs programs (unoptimized by them).
* The fixed core holds what the issue names: a random op fed by constants, two identical random ops,
  variable reads and assignments, a + b vs b + a, a - b vs b - a, different attrs, a dead branch next
  to a stateful op nobody reads, a chain of constants.
"""
import os
import shutil
import subprocess
import sys

import numpy as np

from autograder import absence, grading
from autograder.assignments import a6
from autograder.sandbox import REPO

import assignment_kit as kit

PRUNING = '''
class Pruning:
    name = "model_pruning"

    def run(self, program, report):
        # 1. forwarding nodes: a map from each bypassed output to what it forwards
        forward = {}

        def real(value):
            while id(value) in forward:
                value = forward[id(value)]
            return value

        kept = []
        for node in program.nodes:
            node.inputs = [real(v) for v in node.inputs]
            row = node.op_def
            if row is not None and row.forwarding and not row.overridden and len(node.inputs) == 1 \\
                    and not node.control_inputs and id(node) not in {id(t) for t in program.targets} \\
                    and not any(node in n.control_inputs for n in program.nodes):
                forward[id(node.outputs[0])] = node.inputs[0]
                report.add(self.name, "bypassed " + node.name)
            else:
                kept.append(node)
        program.nodes = kept
        program.fetches = [real(v) for v in program.fetches]
        # 2. dead nodes: sweep until nothing more goes
        while True:
            needed = {id(v.node) for v in program.fetches} | {id(t) for t in program.targets}
            for n in program.nodes:
                needed |= {id(v.node) for v in n.inputs} | {id(c) for c in n.control_inputs}
            survivors = [n for n in program.nodes if n.stateful or id(n) in needed]
            if len(survivors) == len(program.nodes):
                return program
            report.add(self.name, f"removed {len(program.nodes) - len(survivors)} dead nodes")
            program.nodes = survivors
'''

FOLDING = '''
class ConstantFolding:
    name = "constant_folding"

    def run(self, program, report):
        swap = {}                                     # id(old value) -> the Const value replacing it
        order = []
        const_row = get_op("Const")
        for node in program.nodes:
            node.inputs = [swap.get(id(v), v) for v in node.inputs]
            arrays = self._arrays(node)
            results = self._compute(node, arrays) if arrays is not None else None
            if results is None:
                order.append(node)
                continue
            waits = list(node.control_inputs)
            for v in node.inputs:
                waits.extend(c for c in v.node.control_inputs if c not in waits)
            for k, (out, value) in enumerate(zip(node.outputs, results)):
                const = ir.Node(node.name + "/folded" + str(k), "Const", const_row, [],
                                {"value": value, "dtype": out.dtype}, [(out.dtype, tf.TensorShape(value.shape))],
                                waits, node.device)
                order.append(const)
                swap[id(out)] = const.outputs[0]
            report.add(self.name, "folded " + node.name)
        program.nodes = order
        program.fetches = [swap.get(id(v), v) for v in program.fetches]
        gone = {id(n) for n in program.nodes}
        for n in program.nodes:                        # control edges to a folded node wait for its Const
            n.control_inputs = [c if id(c) in gone else self._const_for(c, swap) for c in n.control_inputs]
        return program

    @staticmethod
    def _const_for(node, swap):
        return swap[id(node.outputs[0])].node

    @staticmethod
    def _arrays(node):
        if node.stateful or node.type == "Const" or node.op_def is None:
            return None
        if not all(v.dtype._np is not None for v in node.inputs + node.outputs):
            return None
        arrays = []
        for k, v in enumerate(node.inputs):
            a = ir.const_value(v)
            if a is None and k == 0 and node.op_def.shape_only:
                if node.op_def.shape_only == "rank" and v.shape.rank is not None:
                    a = np.ones([1] * v.shape.rank, v.dtype._np)
                elif v.shape.is_fully_defined():
                    a = np.ones(v.shape.as_list(), v.dtype._np)
            if a is None:
                return None
            arrays.append(a)
        for out in node.outputs:
            if (ir.static_nbytes(out) or 0) > MAX_CONSTANT_BYTES:
                return None
        return arrays

    @staticmethod
    def _compute(node, arrays):
        try:
            with np.errstate(all="ignore"):
                got = node.op_def.kernel("numpy")(*arrays, **node.attrs)
        except Exception:
            return None
        got = list(got) if len(node.outputs) > 1 else [got]
        if len(got) != len(node.outputs):
            return None
        ok = []
        for out, value in zip(node.outputs, got):
            if not isinstance(value, (np.ndarray, np.generic)) or value.dtype != out.dtype._np \\
                    or value.nbytes > MAX_CONSTANT_BYTES or not out.shape.is_compatible_with(np.shape(value)):
                return None
            ok.append(np.asarray(value))
        return ok
'''

CSE = '''
def _attr_key(value):
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return (str(value.dtype), tuple(np.shape(value)), np.asarray(value).tobytes())
    if isinstance(value, (list, tuple)):
        return ("seq",) + tuple(_attr_key(v) for v in value)
    return (type(value).__name__, str(value))


class CSE:
    name = "common_subgraph_elimination"

    def run(self, program, report):
        rw = ir.Rewriter(program)
        seen = {}
        for node in program.nodes:
            rw.visit(node)
            rw.emit(node)
            if node.stateful:
                continue
            ins = [v.node.name + ":" + str(v.index) for v in node.inputs]
            if node.op_def.commutative:
                ins = sorted(ins)
            key = (node.type, tuple(ins), tuple((k, _attr_key(node.attrs[k])) for k in sorted(node.attrs)),
                   frozenset(c.name for c in node.control_inputs), node.device)
            if key in seen:
                for a, b in zip(node.outputs, seen[key].outputs):
                    rw.replace(a, b)
                rw.replace_node(node, seen[key])
                report.add(self.name, "merged " + node.name)
            else:
                seen[key] = node
        rw.finish()
        return program
'''

PIPELINE = '''
class Pipeline:
    name = "fold_cse_prune"
    max_rounds = 10

    def run(self, program, report):
        rounds = 0
        while rounds < self.max_rounds:
            before = (len(program.nodes), len(report.entries))
            for step in (ConstantFolding, CSE, Pruning):
                program = step().run(program, report) or program
            rounds += 1
            if (len(program.nodes), len(report.entries)) == before:
                break
        return program
'''


def test_an_honest_variant_gets_full_marks(tmp_path):
    path = kit.submission("A6", str(tmp_path / "A6.ipynb"), replace={
        "pruning": PRUNING, "constant_folding": FOLDING, "cse": CSE, "pipeline": PIPELINE})
    with kit.pool("A6") as pool:
        res = kit.grade("A6", path, seed=11, pool=pool, n=4)
    assert kit.scores(res, "A6") == {t.name: t.points for t in a6.TASKS}, grading.report(res, "A6")


def test_the_reference_passes_are_absent_and_the_engine_still_runs(tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(os.path.join(REPO, "engine"), root / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    absence.apply(str(root / "engine"), a6.ABSENT, "A6")
    code = '''
import numpy as np
import engine as tf
from engine.framework.optimizer import constant_folding, cse, pruning
for module, helpers in ((pruning, ["_bypass_forwarding", "_remove_dead", "_forwards"]),
                        (constant_folding, ["_fold", "_materializes", "_stand_in", "_inherited_controls"]),
                        (cse, ["signature", "_freeze"])):
    assert module.run("program", None) == "program"
    for name in helpers:
        try:
            getattr(module, name)(None)
        except NotImplementedError as e:
            assert "absent" in str(e) and "A6" in str(e)
        else:
            raise AssertionError(name)
v = tf.Variable([1.0, 2.0])
@tf.function
def f(x):
    v.assign_add(x)
    return tf.identity(x * (tf.constant(2.0) * 3.0)) + tf.identity(x * (tf.constant(2.0) * 3.0))
assert f(tf.constant([1.0, 1.0])).numpy().tolist() == [12.0, 12.0] and v.numpy().tolist() == [2.0, 3.0]
types = [n.type for n in f.get_concrete_function(tf.TensorSpec([2], tf.float32))._plan.ops]
assert "Identity" in types, types              # nothing pruned, folded or merged: the passes are no-ops
print("OK")
'''
    env = {"PYTHONPATH": f"{root}{os.pathsep}{os.path.dirname(os.path.dirname(np.__file__))}", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-S", "-c", code], cwd=root, capture_output=True, text=True, timeout=120,
                         env=env)
    assert out.returncode == 0 and "OK" in out.stdout, out.stderr[-3000:]


def test_the_fixed_core_holds_the_named_edge_cases():
    labels = {task: [c["label"] for c in a6.core(task)] for task in ("pruning", "constant_folding", "cse", "pipeline")}
    text = " | ".join(label for ls in labels.values() for label in ls)
    for needle in ("random ops fed by constants", "two identical random ops", "x + y and y + x", "x - y and y - x",
                   "alpha 0.1 and 0.3", "a dead chain", "an unread variable read, assign_add and random op",
                   "a chain of constants", "over the size limit"):
        assert needle in text, needle
    plan = a6.make_plan(1, n=3)
    assert [len(t["cases"]) for t in plan["tasks"]] == [len(a6.core(t)) + 3 for t in labels]
    assert a6.make_plan(1, n=3) == plan                  # deterministic per seed
    assert a6.make_plan(2, n=3) != plan


def test_expected_values_come_from_the_unoptimized_program_and_the_reference_pass():
    (case,) = [c for c in a6.core("cse") if c["label"].startswith("x + y")]
    (exp,) = a6.expected({"name": "cse", "cases": [case]})
    assert exp["structure"]["nodes"] < exp["nodes_before"]        # the reference merged y + x into x + y
    merged = dict(exp, structure=dict(exp["structure"], nodes=exp["nodes_before"]))
    got = {"values": exp["values"], "variables": exp["variables"], "structure": merged["structure"]}
    got["structure"]["stateful"] = exp["stateful"]
    message = a6.check_case("cse", case, exp, got)
    assert message and "the reference pass leaves" in message
