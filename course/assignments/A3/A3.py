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

# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "dd1a0b75deb5668b2c473bd670dc19d1", "grade": false, "grade_id": "intro", "locked": true, "schema_version": 3, "solution": false, "task": false}
# # A3: trace a function (build the core of `tf.function`)
#
# `tf.function` (syllabus 2.1, 2.2, 2.5) turns every call into a **key** made from the
# arguments; a new key **traces** the Python function once, on symbolic placeholders, into a
# graph (a `ConcreteFunction`); a known key reuses that graph. You build the engine's
# *tracer*: the key, the trace, and the rules that decide when a trace is reused or
# generalized. It plugs into the real engine through the `tracer` seam: inside
# `engine.seams.using(tracer=Tracer)` every `tf.function` keys and traces its calls with your
# code (lesson 40 shows the reference at work).
#
# Five independent tasks (when task *k* is graded, the grader uses reference versions of the
# other pieces, so a mistake in one task never costs points in another):
#
# | task | what | points |
# |---|---|---|
# | 1 | `leaf_key`: the key of one argument (tensor, variable, Python value, object) | 4 |
# | 2 | `trace_key`: the key of a whole call (nests, keyword arguments, the same variable twice) | 4 |
# | 3 | `trace`: run the Python function once on placeholders inside a `FuncGraph` | 5 |
# | 4 | `accepts` and `relax_key`: the retracing rules (compatible shapes, `reduce_retracing`) | 4 |
# | 5 | `Tracer`: the seam's class, through `tf.function` with `input_signature` and `reduce_retracing` | 3 |
#
# Rules:
# * Use the helpers of the setup cell (`is_tensor`, `spec_of`, `FuncGraph`, `ConcreteFunction`,
#   `variable_input`), `tf.nest`, `tf.TensorShape`, `tf.TensorSpec` and plain Python. Helper
#   functions of your own and extra cells are fine.
# * While this assignment is graded, the engine's own tracer is **absent**: its class
#   `FunctionTracer` and its key and relaxation helpers are cut out of the engine the grader runs.
#   So there, `tf.function` works **only through your `Tracer`** (task 5); calling a
#   `tf.function` outside `seams.using(tracer=Tracer)` raises `NotImplementedError`. Here, in your
#   notebook, the reference is still there: compare with it as much as you like.
# * What stays the engine's: binding a call to the Python signature (`f(x, y=2)` and `f(x, 2)` are
#   one call), binding it to an `input_signature` (converting values to the signature's dtypes and
#   raising `TypeError` for a call that does not fit), the lookup loop that asks your rules, and
#   calling a `ConcreteFunction` (it feeds the call's tensors to the placeholders).
# * The hidden tests build arguments of every kind (tensors of several dtypes and shapes, NumPy
#   arrays, `tf.TensorSpec`s, Python ints, floats, bools, strings and `None`, objects, nested
#   lists, tuples and dicts, variables), call your pieces with per-student random ones, and
#   compare with the engine: which calls share a key, what the graph's placeholders are, the
#   results of calls, and, for `tf.function` call sequences, **how many times the Python body
#   ran** (each trace runs it once) after every call.
#
# Run `python -m autograder check A3.ipynb` for a quick self-check on random calls.

# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "45801e99412dbc2bad83c225642b2e4c", "grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false, "task": false}
import numpy as np
import engine as tf
from engine import seams
from engine.framework.func_graph import FuncGraph
from engine.tracing.function import ConcreteFunction, variable_input


def is_tensor(x):
    """Is ``x`` a tensor argument: a ``tf.Tensor``, a NumPy array or a ``tf.TensorSpec`` (not a variable)?"""
    return isinstance(x, (tf.Tensor, np.ndarray, tf.TensorSpec)) and not isinstance(x, tf.Variable)


def spec_of(x):
    """The ``tf.TensorSpec`` (dtype and shape) of a tensor argument; a spec is its own."""
    if isinstance(x, tf.TensorSpec):
        return x
    if isinstance(x, np.ndarray):
        return tf.TensorSpec(x.shape, tf.as_dtype(x.dtype))
    return tf.TensorSpec(x.shape, x.dtype)


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "1288c35cf3306ce50182846ede4f8c76", "grade": false, "grade_id": "task1_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 1: the key of one argument (4 points)
#
# `leaf_key(x)` returns a hashable tuple that says what the graph has to know about the argument
# `x`. Two arguments get equal keys exactly when one trace can serve both:
#
# * a **tensor argument** (`is_tensor(x)`: a `tf.Tensor`, a NumPy array, a `tf.TensorSpec`):
#   `("tensor", dtype, shape)`, with `dtype` a `tf.DType` and `shape` a `tf.TensorShape`
#   (`spec_of(x)` has both). Its *values* do not count: the graph gets a placeholder. A spec's
#   name does not count either;
# * a **`tf.Variable`**: `("variable", dtype, shape)`, by dtype and shape, not by identity: as in
#   TF 2.21, the graph reads it through an input, so any variable of that dtype and shape can be
#   passed;
# * a **Python value** `None`, `bool`, `int`, `float`, `str` (and `bytes`, NumPy scalars):
#   `("value", x)`. Python values are baked into the graph as constants, so each new *value*
#   needs a new trace. Keys compare by equality, as TF's do, so `1`, `1.0` and `True` get one key;
# * **anything else** (a model, a plain object): `("object", id(x))`, by identity.
#
# Task 4 reads these tuples, so keep exactly this form.

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "d4f4bcde53769583b27c36c93fdcadd1", "grade": false, "grade_id": "leaf_key", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.2"]
def leaf_key(x):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "8baaa4e8a9b74fa43bab3bd6025037f7", "grade": true, "grade_id": "test_leaf_key", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
_a, _b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
assert leaf_key(_a) == leaf_key(_b) == ("tensor", tf.float32, tf.TensorShape([2]))   # values do not count
assert leaf_key(_a) != leaf_key(tf.constant([1.0, 2.0, 3.0]))                         # a new shape
assert leaf_key(_a) != leaf_key(tf.constant([1, 2]))                                  # a new dtype
assert leaf_key(np.array([5.0, 6.0], np.float32)) == leaf_key(_a) == leaf_key(tf.TensorSpec([2], tf.float32))
assert leaf_key(2) != leaf_key(3) and leaf_key(2) == leaf_key(2) == leaf_key(2.0)     # Python values by value
_v, _w = tf.Variable([1.0, 2.0]), tf.Variable([5.0, 6.0])
assert leaf_key(_v) == leaf_key(_w) == ("variable", tf.float32, tf.TensorShape([2]))
_o = object()
assert leaf_key(_o) == ("object", id(_o)) != leaf_key(object())
hash(leaf_key(_a)); hash(leaf_key(_v)); hash(leaf_key("a"))


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "ea8708990ef2df2835b8607582f18cca", "grade": false, "grade_id": "task2_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 2: the key of a call (4 points)
#
# `trace_key(args, kwargs)` gets a call's positional arguments (a tuple) and keyword arguments
# (a dict), already bound to the Python signature, and returns the hashable pair
# `(structure, leaves)`:
#
# * `leaves`: a **tuple** with one key per leaf of `tf.nest.flatten((args, kwargs))`, in that
#   order, each `leaf_key(leaf)`; except that a variable's key gets a fourth element, the position
#   (in that flat order) where **the same variable first appears**: `f(v, v)` and `f(v, w)` need
#   different graphs (one variable input, or two), while `f(v, w)` and `f(w, v)` share one. So with
#   `v`, `w` two variables of one dtype and shape, `f(v, v)` has leaves
#   `(("variable", dt, sh, 0), ("variable", dt, sh, 0))` and `f(v, w)` has
#   `(("variable", dt, sh, 0), ("variable", dt, sh, 1))`.
# * `structure`: any hashable description of the nesting, equal for two calls exactly when they
#   nest the same way: a list and a tuple differ, `[[x], y]` and `[[x, y]]` differ (same leaves!),
#   dicts count by their keys in any order (`{"a": x, "b": y}` and `{"b": y, "a": x}` are one
#   structure, as `tf.nest` sorts dict keys), and keyword arguments count by their names.
#   Make it from the nesting itself (`type(x)`, `sorted(d)`), not from `repr`.

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "1b9b9db26a1dedd78d0333ba3afab878", "grade": false, "grade_id": "trace_key", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.2"]
def trace_key(args, kwargs):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "fb5e65caeac537d8d327be0ccf23ef7f", "grade": true, "grade_id": "test_trace_key", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
_x, _y = tf.constant([1.0, 2.0]), tf.constant(3.0)
assert trace_key((_x, 2), {}) == trace_key((tf.constant([5.0, 6.0]), 2), {})
assert trace_key((_x, 2), {}) != trace_key((_x, 3), {})
assert trace_key(([_x, 2],), {}) != trace_key(((_x, 2),), {})                 # a list is not a tuple
assert trace_key(([[_x], _y],), {}) != trace_key(([[_x, _y]],), {})           # same leaves, other nesting
assert trace_key(({"a": _x, "b": _y},), {}) == trace_key(({"b": _y, "a": _x},), {})
assert trace_key((_x,), {"mode": "a"}) != trace_key((_x,), {"mode": "b"})     # keyword arguments count
_v, _w = tf.Variable([1.0, 2.0]), tf.Variable([5.0, 6.0])
assert trace_key((_v, _w), {}) == trace_key((_w, _v), {}) != trace_key((_v, _v), {})
assert trace_key((_v, _v), {})[1] == (("variable", tf.float32, tf.TensorShape([2]), 0),) * 2
hash(trace_key(([_x, {"k": _v}],), {"z": None}))


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "6a541161145d0b6328049a80718edebc", "grade": false, "grade_id": "task3_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 3: tracing (5 points)
#
# `trace(python_function, args, kwargs)` runs `python_function` **once**, on symbolic
# placeholders, inside a new `FuncGraph`, and returns `ConcreteFunction(graph)`:
#
# 1. `graph = FuncGraph(name)` (the function's `__name__`, say).
# 2. Go through the leaves of `tf.nest.flatten((args, kwargs))` in order and make what the Python
#    function gets in their place:
#    * a tensor argument (`is_tensor`): `graph.add_input(dtype, shape)`, a placeholder with its
#      dtype and shape (a `tf.TensorSpec`'s own shape, which may have `None` dimensions: the graph
#      then serves any size there);
#    * a `tf.Variable`: the variable itself, after `variable_input(graph, variable)` gave the graph
#      a resource input for it (once per distinct variable; calling it again for the same variable
#      is harmless). The function's reads and writes of the variable then go through that input,
#      so a later call may pass another variable of the same dtype and shape;
#    * anything else (Python values, objects): the leaf as it is: baked into the graph.
# 3. Rebuild the call with `tf.nest.pack_sequence_as((args, kwargs), new_leaves)` and call the
#    Python function inside `with graph.as_default():` (ops then add nodes instead of running);
#    `graph.set_outputs(result)` turns what it returned into the graph's outputs.
#
# A `ConcreteFunction` call (given) feeds the graph's inputs in order: the call's tensor leaves
# (NumPy arrays converted) and each distinct variable once, in flat order. So make the inputs
# in flat order too. Python side effects (`print`, appending to a list) happen while tracing only.

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "6d9c237d56fa6ab63292d953c1e1399e", "grade": false, "grade_id": "trace", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.1"]
def trace(python_function, args, kwargs):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "84e397dd0fb2a86b252c36d25cd9db6e", "grade": true, "grade_id": "test_trace", "locked": true, "points": 5, "schema_version": 3, "solution": false, "task": false}
_runs = []

def _affine(x, scale, shift=1.0):
    _runs.append(x)                      # a Python side effect: runs while tracing only
    return x * scale + shift

_c = trace(_affine, (tf.constant([1.0, 2.0]), 3.0), {"shift": 0.5})
assert len(_runs) == 1 and _runs[0] is _c.inputs[0]          # ran once, on the graph's placeholder
assert [(p.dtype, p.shape.as_list()) for p in _c.inputs] == [(tf.float32, [2])]   # 3.0 and 0.5 are baked in
assert _c(tf.constant([10.0, 20.0]), 3.0, shift=0.5).numpy().tolist() == [30.5, 60.5] and len(_runs) == 1
_c = trace(lambda x: tf.reduce_sum(x), (tf.TensorSpec([None], tf.float32),), {})
assert _c.inputs[0].shape.as_list() == [None] and _c(tf.constant([1.0, 2.0, 3.0])).numpy() == 6.0
_v, _w = tf.Variable([1.0, 2.0]), tf.Variable([5.0, 6.0])
_c = trace(lambda v, d: v.assign_add(d), (_v, tf.constant([1.0, 1.0])), {})
_c(_w, tf.constant([1.0, 1.0]))                  # another variable of the same dtype and shape
assert _v.numpy().tolist() == [1.0, 2.0] and _w.numpy().tolist() == [6.0, 7.0]


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "26e1f2f689aad776d2bb5e09f35204e6", "grade": false, "grade_id": "task4_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 4: the retracing rules (4 points)
#
# Equal keys share a trace. Two more rules decide what happens when a key is new (both work on
# keys of tasks 1 and 2: `(structure, leaves)`):
#
# * `accepts(traced_key, key)`: may a call with `key` reuse the graph traced for `traced_key`?
#   Yes when the structures are equal, the leaves are equal one by one, except tensor leaves,
#   which need the same dtype and a traced shape that **accepts** the call's shape: a traced shape
#   of unknown rank (`shape.rank is None`) accepts every shape; otherwise the ranks must be equal
#   and each traced dimension `None` or equal to the call's. (A graph traced for `(None, 3)`
#   serves `(5, 3)`; one traced for `(5, 3)` does not serve `(None, 3)` nor `(4, 3)`.) Such traced
#   keys come from `tf.TensorSpec`s: an `input_signature`'s, or task 5's relaxed arguments.
# * `relax_key(traced_key, key)`, for `reduce_retracing=True`: the key of one **generalized**
#   trace that serves both calls, or `None` when no such trace exists because the keys differ in
#   more than tensor shapes (another structure, a dtype, a Python value, a variable). The result is
#   `key` with the shape of each tensor leaf replaced by the most specific shape compatible with
#   both: if the ranks differ (or either is unknown), `tf.TensorShape(None)`; else each dimension
#   kept where the two are equal, `None` where they differ (or either is `None`). Other leaves
#   and the structure stay as they are.
#
# So with `reduce_retracing=True`, a call of shape `(2,)` traces `(2,)`; a call of `(3,)` traces
# once more, generalized, as `(None,)` (TF 2.21); then `(4,)`, `(7,)`... reuse it.
# (`tf.TensorShape` has `rank`, `as_list()`, `is_compatible_with`, and builds from a list:
# `tf.TensorShape([None, 3])`.)

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "4432b1b50c99d2112f969c6ea735860d", "grade": false, "grade_id": "rules", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.5"]
def shape_accepts(traced, shape):
    # YOUR CODE HERE
    raise NotImplementedError()


def accepts(traced_key, key):
    # YOUR CODE HERE
    raise NotImplementedError()


def relax_shape(a, b):
    # YOUR CODE HERE
    raise NotImplementedError()


def relax_key(traced_key, key):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "fffb2b83c40f933b94a5f98ef703ce40", "grade": true, "grade_id": "test_rules", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
_k = lambda *args: trace_key(args, {})
_S = tf.TensorSpec
assert accepts(_k(_S([None, 3], tf.float32)), _k(tf.zeros([5, 3])))
assert not accepts(_k(tf.zeros([5, 3])), _k(tf.zeros([4, 3])))
assert not accepts(_k(_S([None], tf.float32)), _k(tf.zeros([2, 2])))            # another rank
assert accepts(_k(_S(None, tf.float32)), _k(tf.zeros([2, 2])))                  # unknown rank: any shape
assert not accepts(_k(_S([None], tf.float32)), _k(tf.zeros([2], tf.int32)))     # another dtype
assert not accepts(_k(_S([None], tf.float32), 1), _k(tf.zeros([2]), 2))         # another Python value
_r = relax_key(_k(tf.zeros([2, 3]), 1), _k(tf.zeros([4, 3]), 1))
assert _r == _k(_S([None, 3], tf.float32), 1), _r
assert relax_key(_k(tf.zeros([2])), _k(tf.zeros([2, 3])))[1][0][2].rank is None
assert relax_key(_k(tf.zeros([2]), 1), _k(tf.zeros([3]), 2)) is None
assert relax_key(_k(tf.zeros([2])), _k(tf.zeros([3], tf.int32))) is None


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "e9ff040c128c75d21a262c245e7d0fce", "grade": false, "grade_id": "task5_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 5: the tracer, through `tf.function` (3 points)
#
# The `tracer` seam (`engine.seams.seam("tracer").doc`) takes a class. `tf.function` builds one
# per decorated function, `Tracer(python_function)`, and asks it:
#
# * `cache_key(args, kwargs)`, on every call: the key (task 2); a known key reuses its trace;
# * `accepts(traced_key, key)`, for a new key, for each earlier trace, oldest first: the first that
#   accepts serves the call (task 4);
# * with `reduce_retracing=True`, if none accepts: `relax(traced_key, key, args, kwargs)` for each
#   earlier trace, newest first. Return `None` if `relax_key` finds no generalized key, else
#   `(args, kwargs)` to trace **instead** of the call's: each tensor leaf replaced by
#   `tf.TensorSpec(shape, dtype)` with the shape and dtype of the matching leaf of the relaxed key,
#   the other leaves as they are. `tf.function` traces them and keys that trace with
#   `cache_key(*relaxed)`, so later calls of other sizes are accepted;
# * `trace(args, kwargs)`, for a call nothing serves: the ConcreteFunction (task 3).
#
# With an `input_signature`, `tf.function` first checks the call against it (a call that does not
# fit raises `TypeError`), then hands your tracer the signature's `tf.TensorSpec`s in place of the
# tensors: one key, one trace of the signature's shapes, whatever batch size comes.

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "6c8e1868f672cfa75cdbca1f01bcf832", "grade": false, "grade_id": "tracer", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.1", "2.2", "2.5"]
class Tracer:
    def __init__(self, python_function):
        # YOUR CODE HERE
        raise NotImplementedError()

    def cache_key(self, args, kwargs):
        # YOUR CODE HERE
        raise NotImplementedError()

    def accepts(self, traced_key, key):
        # YOUR CODE HERE
        raise NotImplementedError()

    def relax(self, traced_key, key, args, kwargs):
        # YOUR CODE HERE
        raise NotImplementedError()

    def trace(self, args, kwargs):
        # YOUR CODE HERE
        raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "fe606e054792874f00b4ea06230a481c", "grade": true, "grade_id": "test_tracer", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
def _traces_after(calls, **options):
    runs = []

    def body(x, k=1.0):
        runs.append(1)
        return tf.reduce_sum(x) * k
    f = tf.function(body, **options)
    counts = []
    with seams.using(tracer=Tracer):
        for args in calls:
            f(*args)
            counts.append(len(runs))
    return counts

_t = lambda *shape: tf.ones(shape)
assert _traces_after([(_t(2),), (_t(2),), (_t(3),), (_t(2), 2.0), (_t(2), 2.0)]) == [1, 1, 2, 3, 3]
assert _traces_after([(_t(2),), (_t(3),), (_t(4),), (_t(9),), (_t(2, 2),)], reduce_retracing=True) == [1, 2, 2, 2, 3]
assert _traces_after([(_t(2),), (_t(5),)], input_signature=[tf.TensorSpec([None], tf.float32)]) == [1, 1]
try:
    _traces_after([(_t(2, 2),)], input_signature=[tf.TensorSpec([None], tf.float32)])
    raise AssertionError("a call that does not fit the input_signature must raise TypeError")
except TypeError:
    pass
_v = tf.Variable([1.0, 2.0])
with seams.using(tracer=Tracer):
    _step = tf.function(lambda v, x: v.assign_add(x))
    _step(_v, tf.constant([1.0, 1.0])); _step(tf.Variable([0.0, 0.0]), tf.constant([2.0, 2.0]))
assert _step.experimental_get_tracing_count() == 1 and _v.numpy().tolist() == [2.0, 3.0]
