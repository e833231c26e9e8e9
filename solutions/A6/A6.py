# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] nbgrader={"grade": false, "grade_id": "intro", "locked": true, "schema_version": 3, "solution": false, "task": false}
# # A6: optimize a graph
#
# Before TensorFlow runs a graph (`Session.run`, a `tf.function`), it hands a copy of it to
# **Grappler**, a pipeline of rewriting passes (syllabus 1.2). You will write three of them, as
# the engine's graph optimizer runs them (`engine/framework/optimizer/`, lesson
# `course/lessons/30_graphs_and_session.py`), and plug them in through the **`graph_pass` seam**:
#
# ```python
# with engine.seams.using(graph_pass=Pruning):   # every graph compiled in the block runs your pass
#     f(x)
# ```
#
# A pass is a class with a string `name` and `run(self, program, report)`, which rewrites the
# IR `program` and returns it. A pass whose `name` is a reference pass's (`"model_pruning"`,
# `"constant_folding"`, `"common_subgraph_elimination"`) **replaces** that pass: it runs where and
# when that one would (in each of the optimizer's two rounds, behind the same
# `tf.config.optimizer` switch). A pass with another name is **added**: it runs once, after the
# rounds.
#
# Four independent tasks (when task 4 is graded, the grader uses reference versions of tasks 1–3,
# so a mistake in one task never costs points in another):
#
# | task | what | points |
# |---|---|---|
# | 1 | `Pruning`: bypass `Identity`-like nodes, remove dead nodes | 4 |
# | 2 | `ConstantFolding`: compute constant subgraphs once, at compile time | 6 |
# | 3 | `CSE`: compute each distinct expression once | 6 |
# | 4 | `Pipeline`: the three together, in rounds, on real `tf.function` programs | 4 |
#
# **The contract of every pass** (TF's and the engine's): the optimized program computes the
# same fetched values as the original, and **stateful nodes are never folded, merged or
# removed**: variables and their reads, assignments, random ops, prints (`node.stateful` says
# so: the registry row's `stateful` trait, which random ops have too; feed points count as
# stateful as well).
#
# Rules:
# * Use the IR (`ir` below; `help(ir)`): `program.nodes` (in execution order; assign a new
#   list to drop or reorder), `program.fetches` (values), `program.targets` (nodes),
#   `program.args` (the fed values' `_Arg` nodes, not in `nodes`); a node's `name`, `type`,
#   `inputs` (values: `.node`, `.index`, `.dtype`, `.shape`), `control_inputs`, `attrs`,
#   `outputs`, `device`, `stateful`, and `op_def`, its registry row: its kernel
#   (`op_def.kernel("numpy")`) and traits (`forwarding`, `commutative`, `shape_only`,
#   `overridden`, ...). Helpers: `ir.Rewriter`, `ir.Node`, `ir.const_value`,
#   `ir.static_nbytes`, `get_op("Const")`. NumPy is fine, and so are helper functions (inside
#   `run`, or in cells of your own).
# * **Absent while grading**: the engine's own pruning, constant folding and CSE. The optimizer
#   still calls them, but they return the program unchanged, and their helpers
#   (`constant_folding._fold`, `cse.signature`, ...) raise `NotImplementedError`. The other
#   passes (arithmetic simplification, fusion) are there.
# * The hidden tests build random programs as `tf.function`s and as TF1 graphs (arguments or
#   placeholders, constants, duplicate expressions, dead branches, variables read and
#   assigned, random ops), and run them with your pass and only the passes a task needs
#   switched on. For each one they check that (1) the program computes what the unoptimized
#   program computes (the fetched values, and the variables after two runs; a random value only
#   by its shape and dtype, and that it changes from one run to the next), (2) every stateful
#   node is still there (counted by type), and (3) your pass leaves **no more nodes than the
#   reference pass** leaves on the same program. (3) and (2) are checked on the program of the
#   *whole* graph, dead branches included, as Grappler receives a function's body: see
#   `whole_program` below.
#
# Run `python -m autograder check A6.ipynb` for a quick self-check on random programs.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false, "task": false}
import numpy as np
import engine as tf
from engine import seams
from engine.framework.executor import prune
from engine.framework.optimizer import Report, ir, optimize
from engine.framework.registry import get_op

MAX_CONSTANT_BYTES = 10 * 1024 * 1024    # TF's kMaxConstantSize: larger results are not folded


def whole_program(fn, *specs):
    """The IR of a ``tf.function``'s whole graph: every op (dead branches too), fetches = its outputs, no targets."""
    graph = tf.function(fn, input_signature=list(specs)).get_concrete_function().graph
    fed = {t._id for t in graph.inputs}
    ops = prune(graph.get_operations(), fed)        # every op, each after its data and control inputs
    ops = [op for op in ops if not (op.outputs and all(t._id in fed for t in op.outputs))]
    return ir.from_operations(ops, graph.inputs, graph.outputs, [])


def run_pass(graph_pass, program):
    """Run one pass (a class or an object) on a copy of ``program``: returns (the new program, its report)."""
    graph_pass = graph_pass() if isinstance(graph_pass, type) else graph_pass
    program, report = program.copy(), Report({})
    result = graph_pass.run(program, report)
    result = program if result is None else result
    result.check()                       # every input is computed before it is read
    return result, report


def types(program):
    """The node types of ``program``, in order."""
    return [n.type for n in program.nodes]


# %% [markdown] nbgrader={"grade": false, "grade_id": "task1_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 1: dead-node pruning (4 points)
#
# `Pruning` (name `"model_pruning"`, Grappler's *model pruner*) does two clean-ups, in this order:
#
# 1. **Bypass forwarding nodes.** A node whose row has the `forwarding` trait (`Identity`,
#    `StopGradient`: the output *is* the input) with exactly one input, **no control inputs**
#    (a control input is how a graph says "this value, but only after those ops") and a row that
#    is not `overridden` (`registry.override` gave it a kernel that must run): every reader of
#    its output (and every fetch) reads its input instead, and the node goes. `ir.Rewriter` does
#    the bookkeeping: walk the nodes in order, `rw.visit(node)` then `rw.emit(node)`;
#    `rw.replace(old_value, new_value)` and `rw.replace_node(node)` for a bypassed node;
#    `rw.finish()` installs the result (fetches included) and returns the nodes it deleted.
# 2. **Remove dead nodes.** A node is *live* if a fetch, a target, a stateful node, or a live
#    node needs it, through a data input or a control input. Remove every other node (keep the
#    order of the rest).
#
# Graded: programs with dead chains (a node read only by a dead node is dead too), fetches
# through `Identity`/`StopGradient`, nodes needed only through a control dependency, and
# stateful nodes nobody reads (an `assign_add`, a variable read, a random op): they stay.

# %% nbgrader={"grade": false, "grade_id": "pruning", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.1", "1.2"]
class Pruning:
    name = "model_pruning"

    def run(self, program, report):
        ### BEGIN SOLUTION
        rw = ir.Rewriter(program)
        for node in program.nodes:
            rw.visit(node)
            rw.emit(node)
            row = node.op_def
            if row is not None and row.forwarding and not row.overridden and not node.control_inputs \
                    and len(node.inputs) == 1:
                rw.replace(node.outputs[0], node.inputs[0])
                rw.replace_node(node)
        for node in rw.finish():
            report.add(self.name, f"bypassed {node.type} {node.name!r}")
        live = set()
        stack = [v.node for v in program.fetches] + list(program.targets) + [n for n in program.nodes if n.stateful]
        while stack:
            node = stack.pop()
            if id(node) in live:
                continue
            live.add(id(node))
            stack.extend(v.node for v in node.inputs)
            stack.extend(node.control_inputs)
        dead = [n for n in program.nodes if id(n) not in live]
        program.nodes = [n for n in program.nodes if id(n) in live]
        for node in dead:
            report.add(self.name, f"removed dead node {node.name!r} ({node.type})")
        ### END SOLUTION
        return program


# %% nbgrader={"grade": true, "grade_id": "test_pruning", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
_v = tf.Variable([1.0, 2.0, 3.0])


def _f(x):
    _dead = tf.tanh(tf.exp(x)) * 2.0          # nobody reads it
    _v.assign_add(x)                          # nobody reads it either, but it is stateful
    return tf.identity(tf.stop_gradient(x)) + 1.0


_prog = whole_program(_f, tf.TensorSpec([3], tf.float32))
_out, _report = run_pass(Pruning, _prog)
# The function's output Identity waits for a NoOp that waits for the assign_add (TF's automatic
# control dependencies): a control input, so it stays; the Identity and StopGradient inside go.
assert sorted(types(_out)) == sorted(["VarHandleOp", "AssignAddVariableOp", "Const", "AddV2",
                                      "Identity", "NoOp"]), types(_out)
_fetched = _out.fetches[0].node
assert _fetched.type == "Identity" and [c.type for c in _fetched.control_inputs] == ["NoOp"], _fetched
assert _fetched.inputs[0].node.type == "AddV2" and _fetched.inputs[0].node.inputs[0].node.type == "_Arg"
assert _report.changes("model_pruning")
with seams.using(graph_pass=Pruning):         # in the real engine: every plan compiled here runs it
    assert tf.function(_f)(tf.constant([1.0, 1.0, 1.0])).numpy().tolist() == [2.0, 2.0, 2.0]
assert _v.numpy().tolist() == [2.0, 3.0, 4.0]
### BEGIN HIDDEN TESTS
# hidden: random tf.function and TF1 programs, run with only pruning switched on: the same values and
# variables as unoptimized, every stateful node kept, no more nodes than the engine's pruning leaves
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "task2_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 2: constant folding (6 points)
#
# If every input of a node is a constant, so is its output: compute it now, with the op's own
# registered kernel (`node.op_def.kernel("numpy")(*input_arrays, **node.attrs)`), and replace
# the node by `Const` nodes holding the results. Walking in execution order folds whole subtrees
# in one pass (`exp(2 * 3 + 1.5)` becomes one constant), because a folded node's readers see a
# `Const` when their turn comes (`rw.visit`).
#
# Fold a node when:
# * it is not a `Const` and not stateful (a random op fed by constants, its shape, is still
#   random on every run; a variable read is not a constant);
# * all its inputs and outputs have NumPy dtypes (`value.dtype._np is not None`: not strings,
#   not resources);
# * every input is a constant (`ir.const_value(value)` is its array, or `None`), **or** the
#   node's row has the `shape_only` trait (`Shape`, `Size`: `"shape"`; `Rank`: `"rank"`) and the
#   static shape of input 0 is fully known (for `"rank"`: its rank is known): then the kernel
#   runs on a stand-in array of that shape and dtype (Grappler's *shape materialization*);
# * no output is larger than `MAX_CONSTANT_BYTES` (its static size, `ir.static_nbytes(value)`,
#   when known; and the result's `nbytes`): `tf.zeros([1700, 1700]) + 1.0` is cheaper to
#   compute than to keep;
# * the kernel succeeds (`7 // 0` on integers raises: leave the node, so the error comes at run
#   time, as without optimization) and returns, for each output, a NumPy array of the output's
#   dtype and a shape compatible with its static shape (`shape.is_compatible_with`).
#
# Each output `i` becomes one `Const` node:
# `ir.Node(name, "Const", get_op("Const"), [], {"value": array, "dtype": out.dtype},
# [(out.dtype, tf.TensorShape(array.shape))], control_inputs, node.device)`, emitted where the
# node was, with the node's control inputs and those of the constants it read (ordering
# guarantees survive). `rw.replace(out, const.outputs[0])` for each output, then
# `rw.replace_node(node, first_const)`. Make each folded array read-only
# (`array.flags.writeable = False`): a constant is shared by every run.
#
# Graded (with pruning switched off, so folding is the only pass in the rounds): the number of
# nodes *that compute something* (not `Const`) is at most what the engine's folding leaves; random
# ops, variable reads and assignments stay; no constant over the limit; programs with chains of
# constants, `tf.size` of arguments of known shape, `tf.split` of a constant (two outputs), a
# failing kernel.

# %% nbgrader={"grade": false, "grade_id": "constant_folding", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.2"]
class ConstantFolding:
    name = "constant_folding"

    def run(self, program, report):
        ### BEGIN SOLUTION
        def _stand_in(value, needs):
            """An array of ``value``'s static shape (for ``"rank"``: rank) and dtype, or None if that is not known."""
            shape = value.shape
            if shape.rank is None or (needs != "rank" and not shape.is_fully_defined()):
                return None
            return np.zeros([1] * shape.rank if needs == "rank" else shape.as_list(), dtype=value.dtype._np)

        def fold_values(node):
            """The output arrays of ``node`` if it can be folded, else None."""
            if node.type == "Const" or node.stateful:
                return None
            if any(v.dtype._np is None for v in list(node.inputs) + list(node.outputs)):
                return None
            arrays = [ir.const_value(v) for v in node.inputs]
            if node.op_def.shape_only and node.inputs and arrays[0] is None:
                arrays[0] = _stand_in(node.inputs[0], node.op_def.shape_only)
            if any(a is None for a in arrays):
                return None
            for out in node.outputs:
                size = ir.static_nbytes(out)
                if size is not None and size > MAX_CONSTANT_BYTES:
                    return None
            try:
                with np.errstate(all="ignore"):
                    result = node.op_def.kernel("numpy")(*arrays, **node.attrs)
            except Exception:
                return None
            results = [result] if len(node.outputs) == 1 else list(result)
            if len(results) != len(node.outputs):
                return None
            values = []
            for out, value in zip(node.outputs, results):
                if not isinstance(value, (np.ndarray, np.generic)) or value.dtype != out.dtype._np:
                    return None
                value = np.array(value)
                if value.nbytes > MAX_CONSTANT_BYTES or not out.shape.is_compatible_with(value.shape):
                    return None
                value.flags.writeable = False
                values.append(value)
            return values

        const_row = get_op("Const")
        rw = ir.Rewriter(program)
        for node in program.nodes:
            rw.visit(node)
            values = fold_values(node)
            if values is None:
                rw.emit(node)
                continue
            controls = list(node.control_inputs)
            for v in node.inputs:
                controls += [c for c in v.node.control_inputs if c not in controls]
            consts = []
            for i, (out, value) in enumerate(zip(node.outputs, values)):
                const = ir.Node(f"ConstantFolding/{node.name}" + (f"-{i}" if len(values) > 1 else ""), "Const",
                                const_row, [], {"value": value, "dtype": out.dtype},
                                [(out.dtype, tf.TensorShape(value.shape))], controls, node.device)
                rw.emit(const)
                rw.replace(out, const.outputs[0])
                consts.append(const)
            rw.replace_node(node, consts[0])
            report.add(self.name, f"folded {node.name!r} ({node.type}) into {len(consts)} Const")
        rw.finish()
        ### END SOLUTION
        return program


# %% nbgrader={"grade": true, "grade_id": "test_constant_folding", "locked": true, "points": 6, "schema_version": 3, "solution": false, "task": false}
def _f(x):
    _c = tf.exp(tf.constant(2.0) * tf.constant(3.0) + 1.5)      # a chain of constants
    _r = tf.random.uniform([3])                                  # fed by a constant (its shape): still random
    return x * _c * tf.cast(tf.size(x), tf.float32), _r          # tf.size(x): x's shape is known


_prog = whole_program(_f, tf.TensorSpec([3], tf.float32))
_out, _ = run_pass(ConstantFolding, _prog)
_computed = [t for t in types(_out) if t != "Const"]     # (a function returns its outputs through Identity nodes)
assert sorted(_computed) == ["Identity", "Identity", "Mul", "Mul", "RandomUniform"], _computed
_ff, _x = tf.function(_f), tf.constant([1.0, 2.0, 3.0])
with seams.using(graph_pass=ConstantFolding):
    (_a, _r1), (_, _r2) = _ff(_x), _ff(_x)
np.testing.assert_allclose(_a.numpy(), _x.numpy() * np.exp(7.5) * 3, rtol=1e-6)
assert not np.array_equal(_r1.numpy(), _r2.numpy())             # the random op was not folded
### BEGIN HIDDEN TESTS
# hidden: random programs with constant subtrees, tf.size, tf.split, random ops, variables, a too-large result
# and a failing kernel, run with only folding in the rounds; compared with the unoptimized program and the
# engine's folding
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "task3_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 3: common-subexpression elimination (6 points)
#
# Two nodes are the same expression when they have the same op type, the same inputs (the very
# same values, in the same order), the same attributes, the same control inputs and the same
# device. Then the second is redundant: its readers can read the first one's outputs.
#
# Give each node a hashable *signature* of all of the above, and keep a dictionary from
# signature to the first node that had it. Walking in execution order with `rw.visit` makes it
# transitive: once the two `x * 2` are one, the two `exp(x * 2)` have equal inputs and merge too.
# To merge: `rw.replace(old, new)` for each output, `rw.replace_node(node, kept)` (control edges
# to the merged node then wait for the kept one), `rw.finish()` at the end.
#
# * Inputs: a value is `(id(value.node), value.index)`. For a row with the `commutative` trait
#   (`AddV2`, `Mul`, `Maximum`, ...) the order does not matter: `x + y` and `y + x` are one
#   expression. For any other op it does: `x - y` is not `y - x`.
# * Attributes: `sorted(node.attrs.items())` made hashable. Arrays (a `Const`'s `"value"`)
#   by dtype, shape and bytes (`array.tobytes()`), never by `repr` (NumPy abbreviates long
#   arrays); lists, tuples and dicts element by element; other values as they are (they hash).
#   A node whose attributes cannot be hashed is left alone. Constants *are* merged when their
#   dtype, shape and bytes match.
# * Never merged: stateful nodes. Two `tf.random.uniform([3])` must give two different samples,
#   and two reads of a variable may be separated by an assignment.
#
# Graded (with constant folding and pruning switched off; CSE runs only while arithmetic
# simplification is on, which is Grappler's rule, so that reference pass runs too): `x + y` /
# `y + x`, `x - y` / `y - x`, `leaky_relu` with different `alpha`, casts to different dtypes, two
# identical random ops and variable reads (TF1 graphs, where no automatic control dependency
# tells them apart), long constants that differ in one element, chains of duplicates.

# %% nbgrader={"grade": false, "grade_id": "cse", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.2"]
class CSE:
    name = "common_subgraph_elimination"

    def run(self, program, report):
        ### BEGIN SOLUTION
        def hashable(value):
            """A hashable stand-in for an attribute value (arrays by dtype, shape and bytes)."""
            if isinstance(value, (np.ndarray, np.generic)):
                if value.dtype == object:
                    return ("array", value.shape, tuple(value.ravel().tolist()))
                return ("array", value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes())
            if isinstance(value, (list, tuple)):
                return tuple(hashable(v) for v in value)
            if isinstance(value, dict):
                return tuple(sorted((k, hashable(v)) for k, v in value.items()))
            hash(value)
            return (type(value).__name__, value)

        def signature(node):
            """What ``node`` computes, hashable; None if an attribute cannot be hashed."""
            inputs = [(id(v.node), v.index) for v in node.inputs]
            if node.op_def is not None and node.op_def.commutative:
                inputs.sort()
            try:
                attrs = tuple(sorted((k, hashable(v)) for k, v in node.attrs.items()))
            except TypeError:
                return None
            controls = tuple(sorted(id(c) for c in node.control_inputs))
            return (node.type, tuple(inputs), attrs, controls, node.device)

        rw = ir.Rewriter(program)
        first = {}
        for node in program.nodes:
            rw.visit(node)
            rw.emit(node)
            if node.stateful:
                continue
            key = signature(node)
            if key is None:
                continue
            kept = first.setdefault(key, node)
            if kept is node:
                continue
            for old, new in zip(node.outputs, kept.outputs):
                rw.replace(old, new)
            rw.replace_node(node, kept)
            report.add(self.name, f"{node.name!r} ({node.type}) is the same expression as {kept.name!r}")
        rw.finish()
        ### END SOLUTION
        return program


# %% nbgrader={"grade": true, "grade_id": "test_cse", "locked": true, "points": 6, "schema_version": 3, "solution": false, "task": false}
def _f(x, y):
    _same = tf.exp(x + y) * tf.exp(y + x)             # y + x is x + y: one AddV2, one Exp
    _diff = (x - y) * (y - x)                          # two different Subs
    _alphas = tf.nn.leaky_relu(x, 0.1) - tf.nn.leaky_relu(x, 0.3)
    return _same + _diff + _alphas


_specs = (tf.TensorSpec([3], tf.float32), tf.TensorSpec([3], tf.float32))
_out, _ = run_pass(CSE, whole_program(_f, *_specs))
assert types(_out).count("AddV2") == 3 and types(_out).count("Exp") == 1, types(_out)
assert types(_out).count("Sub") == 3 and types(_out).count("LeakyRelu") == 2, types(_out)
_g = tf.Graph()
with _g.as_default():                                  # TF1: no automatic control dependencies
    _r = tf.random.uniform([3]) - tf.random.uniform([3])
    _prog = ir.from_operations(_g.get_operations(), [], [_r], [])
assert types(run_pass(CSE, _prog)[0]).count("RandomUniform") == 2
_x, _y = tf.constant([1.0, -2.0, 3.0]), tf.constant([0.5, 0.5, -4.0])
with seams.using(graph_pass=CSE):
    np.testing.assert_allclose(tf.function(_f)(_x, _y).numpy(), _f(_x, _y).numpy(), rtol=1e-6)
### BEGIN HIDDEN TESTS
# hidden: random programs with duplicate expressions (swapped inputs of commutative ops too), different attrs,
# random ops, variable reads, long constants, run with CSE in the rounds; compared with the unoptimized program
# and the engine's CSE
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "grade_id": "task4_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 4: the pipeline (4 points)
#
# One pass enables another: folding turns `2 * 3` into a constant `6` that CSE can then merge
# with another `6`, so `x + 6` and `x + 2 * 3` become one node, and both leave dead nodes for
# pruning. Grappler therefore runs its passes in *rounds* (two by default).
#
# Write `Pipeline`, an **added** pass (name `"fold_cse_prune"`: not a reference pass's name) whose
# `run(program, report)` runs `ConstantFolding`, then `CSE`, then `Pruning` (your classes of
# tasks 1–3, by those names), and repeats that round until a round changes nothing (no pass added
# an entry to `report`), at most `max_rounds` times. A pass may return a new program: go on with
# what each one returns (or the same program, if it returns `None`).
#
# Graded on random `tf.function` and TF1 programs run inside
# `engine.seams.using(graph_pass=Pipeline)` with every reference pass switched off
# (`tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})`: an added
# pass still runs), so your pipeline is the whole optimizer: the values and variables as
# unoptimized, every stateful node kept, and no more nodes than the engine's own three passes
# leave when run the same way.

# %% nbgrader={"grade": false, "grade_id": "pipeline", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.2", "2.1"]
class Pipeline:
    name = "fold_cse_prune"
    max_rounds = 10

    def run(self, program, report):
        ### BEGIN SOLUTION
        for _ in range(self.max_rounds):
            seen = len(report.entries)
            for graph_pass in (ConstantFolding(), CSE(), Pruning()):
                result = graph_pass.run(program, report)
                program = program if result is None else result
            if len(report.entries) == seen:
                break
        ### END SOLUTION
        return program


# %% nbgrader={"grade": true, "grade_id": "test_pipeline", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
def _f(x):
    return tf.abs((x + tf.constant(6.0)) - (x + tf.constant(2.0) * tf.constant(3.0)))


_prog = whole_program(_f, tf.TensorSpec([2, 3], tf.float32))
_out, _report = run_pass(Pipeline, _prog)
print(f"{len(_prog.nodes)} nodes -> {len(_out.nodes)}: {types(_out)}")
assert sorted(types(_out)) == ["Abs", "AddV2", "Const", "Sub"], types(_out)
tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
try:
    _ff = tf.function(_f)
    with seams.using(graph_pass=Pipeline):           # the real engine, optimized by your pipeline only
        _y = _ff(tf.ones([2, 3]))
        _plan = _ff.get_concrete_function(tf.TensorSpec([2, 3], tf.float32))._plan
    assert _y.numpy().tolist() == [[0.0] * 3] * 2
    print(_plan.report)
    assert [n.type for n in _plan.ops].count("AddV2") == 1
finally:
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": None})
### BEGIN HIDDEN TESTS
# hidden: random tf.function and TF1 programs optimized by your Pipeline alone (with reference versions of
# tasks 1-3); compared with the unoptimized program and with the engine's three passes run in rounds
### END HIDDEN TESTS
