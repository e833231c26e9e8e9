# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "63dfa667ab74e49d99491e4f82263998", "grade": false, "grade_id": "intro", "locked": true, "schema_version": 3, "solution": false, "task": false}
# # A2: run a graph (the executor behind `Session.run`)
#
# In graph mode (TF1, syllabus 1.1) building a graph computes nothing: every op call adds a node
# and returns a symbolic tensor. All the work happens in `sess.run(fetches, feed_dict)`. TF's
# `DirectSession` splits that call in two:
#
# * **Bookkeeping**, which `Session.run` does before your code is involved. It flattens
#   `fetches` (a nest of tensors, operations, variables or names) into graph elements, checks
#   every fed value against its tensor's dtype and shape, and packs the results back into the
#   shape of `fetches`. A fetch that is not an element of the session's graph (a tensor of
#   another graph) fails here with `ValueError` ("Fetch argument ... cannot be interpreted as a
#   Tensor"), a fetch of `None` with `TypeError`, and a fed value of the wrong shape with
#   `ValueError`. Your executor never sees these cases.
# * **Execution.** TF prunes the graph to what the request needs, builds an *executor* for that
#   subgraph **once** per (fetches, feeds, targets) signature, caches it, and runs it on every
#   call with the same signature. This is the part you build.
#
# The engine has the same split, with a seam in between (`engine/client/executor_seam.py`):
#
# ```python
# class Executor:
#     def __init__(self, fetches, targets, feeds): ...   # once per request: what runs, in which order
#     def run(self, feed_values, runtime): ...           # every sess.run: the fetched values, in order
#
# with engine.seams.using(executor=Executor):          # every Session.run in the block uses yours
#     sess.run(loss, {x: batch})
# ```
#
# Four independent tasks. Each is graded on its own: when task *k* is graded, the grader uses
# reference versions of the other tasks' answer cells, so a mistake in one task never costs
# points in another.
#
# | task | what | points |
# |---|---|---|
# | 1 | `needed_ops`: prune to the ops a request needs (data and control inputs; feeds cut) | 5 |
# | 2 | `topological_order`: each op after the ops it depends on | 4 |
# | 3 | `execute`: run kernels in order, passing values along | 4 |
# | 4 | `Executor`: the seam, running real TF1 programs (variables, `tf.gradients`, training) | 7 |
#
# Rules:
# * Work with the graph's own objects: an `Operation` has `op.inputs` (tensors), `op.outputs`
#   (tensors), `op.control_inputs` (operations that must run first), `op.type` and `op.name`; a
#   tensor `t` has `t.op`, the operation that produces it. In the engine tensors and operations
#   can be set members and dict keys (TensorFlow 2's `tf.Tensor` refuses to be hashed unless TF1
#   behaviour is switched on; there you would key by `t.ref()`).
# * Run kernels only with the given helper `run_kernel(op, inputs, runtime)`. Python and NumPy
#   are fine for everything else.
# * While grading, the engine has **no executor of its own**: `GraphExecutor`, `prune`,
#   `compile_plan`, `Plan` (`engine/framework/executor.py`), the optimizer's `from_operations` and
#   `tf.compat.v1.graph_util.extract_sub_graph` are cut out of it, so a `Session.run` outside
#   `seams.using(executor=...)` fails there, and so do `tf.function`, `tf.data` functions and
#   graph-mode `tf.cond`/`tf.while_loop` (the graded programs do not use them). `tf.gradients` and
#   the optimizers' `minimize` work.
# * The grader counts kernel calls (through `engine.framework.registry.override`) per op type,
#   except `Const` and `NoOp` (you may run or skip those): an op that is not needed must never
#   run, and a needed op runs exactly once per `sess.run`.
# * Errors are TF's, checked by class: where the task says an error propagates, let it.
#
# Run `python -m autograder check A2.ipynb` for a quick self-check on random graphs.

# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "8318faf010e5ee52c0044c47f6b5bf13", "grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false, "task": false}
import random

import numpy as np

# run_kernel: the one helper (run one op's kernel); Runtime: a session's state (its variables);
# override: swaps a registry row for a block (the tests count kernel calls with it)
import engine as tf
from engine import seams
from engine.client.executor_seam import run_kernel
from engine.client.session import _Runtime as Runtime
from engine.framework.registry import override

v1 = tf.compat.v1


def names(ops):
    """The sorted names of some operations (for the tests)."""
    return sorted(op.name for op in ops)


def check_order(order, ops):
    """Assert that ``order`` holds every op of ``ops`` once, each after the ops of ``ops`` it depends on."""
    ops = list(ops)
    assert sorted(map(id, order)) == sorted(map(id, ops)), f"not the same ops: {names(order)} vs {names(ops)}"
    seen = set()
    for op in order:
        for dep in [t.op for t in op.inputs] + list(op.control_inputs):
            assert dep not in ops or dep in seen, f"{op.name} comes before {dep.name}, which it depends on"
        seen.add(op)


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "efec2c3bdbbf7c3d3e0778766f37c8fd", "grade": false, "grade_id": "task1_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 1: which ops does a request need? (5 points)
#
# `needed_ops(fetches, targets, feeds)` returns the **set** of operations that must run for one
# `sess.run` (a list without duplicates is fine too). `fetches` is a list of graph tensors to
# compute, `targets` a list of operations to run for their effects (`sess.run(train_op)`, an
# initializer), `feeds` a list of the tensors whose values are fed. An op is needed when:
#
# * it produces a fetch that is **not fed** (a fed fetch's value is simply the fed value), or it
#   is a target;
# * a needed op reads one of its outputs through a data input that is **not fed**: a fed tensor
#   replaces its producer, so the walk stops there. Any tensor can be fed, not only placeholders;
# * a needed op has it as a **control input** (`op.control_inputs`: `tf.control_dependencies`,
#   `tf.group`, the initializers), unless **every** output of it is fed: such an op has been
#   replaced by its feeds, so waiting for it is free. (TensorFlow does this for a fed
#   placeholder; the engine for any op whose outputs are all fed.) An op with no outputs is never
#   "fed".
#
# A placeholder that is needed and not fed **is** needed: it stays in the set, and running its
# kernel is what raises TF's `InvalidArgumentError` ("You must feed a value for placeholder
# tensor ..."), in task 3. Ops that nothing requested depends on, such as a branch of the graph
# nobody fetches, are not needed. In TF this pruning is `DirectSession`'s call to
# `subgraph::RewriteGraphForExecution`.

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "291fef7dddde87a7c0abb8881e8cf987", "grade": false, "grade_id": "needed_ops", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.1"]
def needed_ops(fetches, targets, feeds):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "9cad5b04fc61748365adbfc8c9f8ee2d", "grade": true, "grade_id": "test_needed_ops", "locked": true, "points": 5, "schema_version": 3, "solution": false, "task": false}
_g = tf.Graph()
with _g.as_default():
    _x = v1.placeholder(tf.float32, [None, 2], name="x")
    _w = tf.Variable([[1.0], [2.0]], name="w")
    _h = tf.matmul(_x, _w, name="h")
    _y = tf.nn.relu(_h, name="y")
    _side = tf.exp(_x, name="side")                       # nobody fetches it
    _step = tf.Variable(0.0, name="step")
    _bump = _step.assign_add(1.0, read_value=False)
    with tf.control_dependencies([_bump]):
        _z = tf.identity(_y, name="z")                     # _bump must run first
assert names(needed_ops([_y], [], [_x])) == ["ReadVariableOp", "h", "w", "y"], names(needed_ops([_y], [], [_x]))
assert names(needed_ops([_y], [], [_h])) == ["y"]          # feeding h cuts x and w away
assert names(needed_ops([_y], [], [])) == ["ReadVariableOp", "h", "w", "x", "y"]   # x unfed: still needed
assert names(needed_ops([_x], [], [_x])) == []             # a fetch that is fed
assert names(needed_ops([_z], [], [_x])) == ["AssignAdd", "Const_2", "ReadVariableOp", "h", "step", "w", "y",
                                             "z"]          # the control input and what it needs
assert names(needed_ops([], [_bump], [])) == ["AssignAdd", "Const_2", "step"]   # a target with no outputs


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "229f6338deabf92628fbcd2adce66142", "grade": false, "grade_id": "task2_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 2: an order to run them in (4 points)
#
# `topological_order(ops)` gets the needed ops **in any order** (a set or a list) and returns a
# **list** of the same ops, each exactly once, in which every op comes **after** the ops of `ops`
# it depends on: the producers of its inputs (`t.op for t in op.inputs`) and its control inputs.
# A dependency on an op that is not in `ops` (the producer of a fed tensor, say) is ignored.
# When several orders are valid, **any valid order is accepted**: the grader checks the order, it
# does not compare it with one answer.
#
# The hidden tests hand over the ops in random order, and some of them are look-alike objects with
# only `name`, `type`, `inputs`, `outputs` and `control_inputs` (tensors with `op`, `name` and
# `value_index`): so do not rely on the order in which the graph created its ops. (TensorFlow's
# executor does not sort at all: it keeps a count of pending inputs per node and runs a node,
# possibly in parallel with others, as soon as its count reaches zero. That is Kahn's algorithm,
# run as the values arrive.)

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "9b02cc7ae9d74345117129d4b6504303", "grade": false, "grade_id": "topological_order", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.1"]
def topological_order(ops):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "2c05ae0daae2f3c301a4d0efaaf84e49", "grade": true, "grade_id": "test_topological_order", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
_ops = list(needed_ops([_z], [], [_x]))
random.Random(0).shuffle(_ops)
check_order(topological_order(_ops), _ops)
_ops = list(needed_ops([_y], [], [_h]))                  # h is fed: its producer is not in the list
assert names(topological_order(_ops)) == ["y"]


class _Op:                                               # a look-alike, as the hidden tests use
    def __init__(self, name, inputs=(), control=()):
        self.name, self.type = name, "Op"
        self.inputs = [o.outputs[0] for o in inputs]
        self.control_inputs = list(control)
        self.outputs = [_T(self)]


class _T:
    def __init__(self, op):
        self.op, self.value_index, self.name = op, 0, op.name + ":0"


_a = _Op("a")
_b = _Op("b", [_a, _a])                                  # reads a's output twice
_c = _Op("c", control=[_b])                              # only a control dependency
assert [o.name for o in topological_order([_c, _b, _a])] == ["a", "b", "c"]


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "8d88665cc41208ebdc07d9a5a48f3d0a", "grade": false, "grade_id": "task3_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 3: run them (4 points)
#
# `execute(order, values, runtime)` runs the ops of `order` (as task 2 returns it) one after the
# other and returns `values`. `values` is a dict from graph tensors to their values; it starts
# with the fed tensors and their values (NumPy arrays). For each op:
#
# * its inputs are `[values[t] for t in op.inputs]`, in that order;
# * `run_kernel(op, inputs, runtime)` runs its kernel and returns a **list with one value per
#   output** (`op.outputs`): one for most ops, two for `tf.split(x, 2)`, **none** for ops that only
#   have an effect (`NoOp`, the variable assignments such as `AssignAddVariableOp`). Those must
#   run too: that is how a target changes a variable;
# * store each output's value under its tensor, except a tensor that is **already in `values`**:
#   it was fed, and a fed value wins over what its producer computes (the producer of a fed tensor
#   can still run, when another of its outputs is needed).
#
# Pass `runtime` to `run_kernel` unchanged: it is the session's state. Graph-mode variables live
# in it (`VarHandleOp` looks its variable up there), so two sessions on one graph have their own
# variables. Let errors propagate: an uninitialized variable raises `FailedPreconditionError`, a
# placeholder that is needed and was not fed raises `InvalidArgumentError` (its kernel does
# nothing else). Note where such an error surfaces: here, when the graph runs, far from the
# Python line that built the op. That is part of why graph mode is hard to debug (syllabus 1.5);
# TF adds the failing node's name to the message for that reason.

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "07799dd8265b4130f89289e40ff57beb", "grade": false, "grade_id": "execute", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.1", "1.5"]
def execute(order, values, runtime):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "915b02c8755652f31ac9540d2b7c8418", "grade": true, "grade_id": "test_execute", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
def _run(fetches, targets=(), feed=None, runtime=None):
    """A small Session.run of your own: fetches (tensors or variables) -> their values."""
    fetches = [_g.as_graph_element(f) for f in fetches]   # a variable -> the tensor of its value, as Session does
    feed = feed or {}
    order = topological_order(needed_ops(fetches, list(targets), list(feed)))
    values = execute(order, dict(feed), runtime)
    return [values[t] for t in fetches]


_rt = Runtime()
with _g.as_default():
    _init = v1.global_variables_initializer()
_run([], [_init], runtime=_rt)
_feed = {_x: np.array([[1.0, -3.0]], np.float32)}
np.testing.assert_allclose(_run([_h, _y], feed=_feed, runtime=_rt)[0], [[-5.0]])
assert _run([_z], feed=_feed, runtime=_rt)[0].tolist() == [[0.0]]
assert _run([_step], runtime=_rt)[0] == 1.0              # the control input ran once
_run([], [_bump], runtime=_rt)                           # an op with no outputs, as a target
assert _run([_step], runtime=_rt)[0] == 2.0
assert _run([_y], feed={_h: np.array([[4.0]], np.float32)})[0].tolist() == [[4.0]]   # no variable needed
try:
    _run([_y], runtime=_rt)
    raise AssertionError("a needed placeholder that is not fed must raise InvalidArgumentError")
except tf.errors.InvalidArgumentError as _e:
    print("as TF says it:", _e)


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "08025099e259a00886c70ab2d438a29b", "grade": false, "grade_id": "task4_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 4: the executor behind `Session.run` (7 points)
#
# Put it together as a class that fills the `executor` seam:
#
# * `Executor(fetches, targets, feeds)` is built **once per request** (a session keeps it for that
#   signature): decide here which ops run and in which order. `fetches` and `feeds` are lists of
#   graph tensors, `targets` a list of operations. The same tensor can appear twice in `fetches`
#   (`sess.run([y, y])`), and a fetch can be one of the feeds.
# * `run(feed_values, runtime)` is called on **every** `sess.run` with this signature:
#   `feed_values` holds one value per tensor of `feeds`, in the same order, already checked and
#   converted by the session. Return a list with one value per fetch, in the order of `fetches`.
#   Targets give no value (the session puts `None` in their place itself).
#
# Inside `with seams.using(executor=Executor):` every `Session.run` (also `Tensor.eval`,
# `Operation.run` and `make_callable`) runs on your class. The graph-mode gradients of
# syllabus 3.6 are a good test: `tf.gradients(loss, [w])` *adds the backward pass to the graph* as
# ordinary ops, so your executor runs them like any others, with no tape anywhere. An optimizer's
# `minimize` is `tf.gradients` plus one update op per variable, and a training step is one
# `sess.run(train_op)`.
#
# What is yours and what is the session's: a missing feed is your executor's error
# (`InvalidArgumentError`, from the placeholder's kernel through `run_kernel`: nothing to add if
# you let it propagate); an unknown fetch, a tensor of another graph or a badly shaped feed never
# reach your executor (the session raises first, see the introduction).

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "69b777b1be557744168bc8a4698f1ab7", "grade": false, "grade_id": "executor", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.1", "1.5", "3.6"]
class Executor:
    def __init__(self, fetches, targets, feeds):
        # YOUR CODE HERE
        raise NotImplementedError()

    def run(self, feed_values, runtime):
        # YOUR CODE HERE
        raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "460c4c27d78662306eae7967a5a15361", "grade": true, "grade_id": "test_executor", "locked": true, "points": 7, "schema_version": 3, "solution": false, "task": false}
_rng = np.random.default_rng(0)
_xs = _rng.normal(size=(16, 2)).astype(np.float32)
_ys = _xs @ np.array([[2.0], [-1.0]], np.float32) + 0.5
_g = tf.Graph()
with _g.as_default():
    _x = v1.placeholder(tf.float32, [None, 2], name="x")
    _t = v1.placeholder(tf.float32, [None, 1], name="t")
    _w = tf.Variable(np.zeros((2, 1), np.float32), name="w")
    _b = tf.Variable(0.0, name="b")
    _loss = tf.reduce_mean(tf.square(tf.matmul(_x, _w) + _b - _t))
    _unused = tf.exp(_loss) * 2.0                             # nobody fetches it
    (_dw,) = tf.gradients(_loss, [_w])                        # symbolic gradients: more graph ops
    _train = v1.train.GradientDescentOptimizer(0.2).minimize(_loss)
    _init = v1.global_variables_initializer()


def _train_in(sess):
    sess.run(_init)
    first_dw = sess.run(_dw, {_x: _xs, _t: _ys})
    losses = [sess.run([_train, _loss], {_x: _xs, _t: _ys})[1] for _ in range(20)]
    return first_dw, losses, sess.run([_w, _b])


with v1.Session(graph=_g) as _sess:                           # the engine's own executor
    _expected = _train_in(_sess)
with tf.Graph().as_default():
    _elsewhere = tf.constant(1.0)
_exp_calls = []


def _counting_exp(xp):
    def kernel(x):
        _exp_calls.append(x.shape)
        return xp.exp(x)
    return kernel


with seams.using(executor=Executor), override("Exp", kernel=_counting_exp), v1.Session(graph=_g) as _sess:
    _got = _train_in(_sess)
    _l1, _l2 = _sess.run([_loss, _loss], {_x: _xs, _t: _ys})   # the same tensor fetched twice
    assert _l1 == _l2
    try:
        _sess.run(_loss, {_x: _xs})
        raise AssertionError("a needed placeholder that is not fed must raise InvalidArgumentError")
    except tf.errors.InvalidArgumentError:
        pass
    try:
        _sess.run(_elsewhere)                                 # a tensor of another graph: the session's error
        raise AssertionError("expected ValueError")
    except ValueError:
        pass
np.testing.assert_allclose(_got[0], _expected[0], rtol=1e-5)
np.testing.assert_allclose(_got[1], _expected[1], rtol=1e-5)
assert _got[1][-1] < 0.05 * _got[1][0]                        # it trained
np.testing.assert_allclose(_got[2][0], _expected[2][0], rtol=1e-5)
assert _exp_calls == [], "the unused branch ran"
