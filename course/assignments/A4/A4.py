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

# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "0d0b2559e5b3f4ce087fc75310ae55a4", "grade": false, "grade_id": "intro", "locked": true, "schema_version": 3, "solution": false, "task": false}
# # A4: build your own AutoGraph
#
# Inside `tf.function`, `x > 0` is a *symbolic* tensor: it has no value while the graph is built,
# so Python's `if x > 0:` cannot choose a branch. **AutoGraph** (syllabus 2.3) makes such code work
# in two halves, and you build both:
#
# * a **source transformation** (Python's `ast`) that rewrites every `if`, `while` and
#   `for ... in range(...)` into a *call* of a runtime operator, with the statement's variables made
#   explicit: the branches and the loop body become local functions, and two more functions,
#   `get_state()` and `set_state(values)`, read and write the variables the statement changes;
# * **runtime operators** that look at the condition when the code runs (that is, while
#   `tf.function` traces): a symbolic tensor builds graph control flow (`tf.cond`, one `If` op;
#   `tf.while_loop`, one `While` op), anything else (a Python bool, an eager tensor) runs plain
#   Python.
#
# `break` and `continue` are lowered first, into boolean flags and guarded code. This is how
# TensorFlow's own AutoGraph works (`tf.autograph.to_code(f)` shows its output); the engine's
# version is `engine/autograph/` (which is **absent** while you are graded, see the rules).
#
# | task | what | points |
# |---|---|---|
# | 1 | `if_stmt`: the runtime `if` (`tf.cond` for a tensor, Python's `if` otherwise) | 4 |
# | 2 | `while_stmt`, `for_range`: the runtime loops (`tf.while_loop` for tensors) | 5 |
# | 3 | `state_functions`, `convert_if`: the source transformation of `if` | 4 |
# | 4 | `convert_while`, `convert_for`: the source transformation of `while` and `for i in range(...)` | 4 |
# | 5 | `lower_jumps`: `break` and `continue` into flags | 3 |
#
# Each task is graded on its own: while task *k* is graded, the grader uses the reference versions
# of the *other* tasks' cells, so a mistake in one task never costs points in another.
#
# **How it is graded.** The hidden tests generate small random programs (a function
# `prog(x, n, k)` with nested `if`/`while`/`for i in range(...)`, `break` and `continue`, whose
# conditions read the float `x`, the int `n`, the Python int `k` and the program's own variables)
# and run each in several ways: traced by `tf.function` with some arguments tensors and the others
# Python values, and called eagerly. Each run must give
# (a) the outputs the engine's own AutoGraph gives (the same values and dtypes, or the same error
# class, e.g. `ValueError` for a variable that a tensor `if` defines in one branch only),
# (b) a graph with `If`/`While` ops exactly where a tensor decides: the number of `If`/`StatelessIf`
# and of `While`/`StatelessWhile` ops in the ConcreteFunction's graph, counted inside
# branches and loop bodies too, must equal the engine's (task 5 checks the `While` count exactly, and
# that `If` ops appear exactly when the engine has some: flags may be tested in different ways),
# (c) called eagerly, the outputs of the original Python function.
# Tasks 1-2 run the programs converted by the reference converter on your operators; tasks 3-5 run
# your converter (through the engine's `autograph` seam) on the reference operators.
#
# Rules:
# * Use the helpers of the setup cell (`parse_function`, `compile_function` through
#   `MyAutoGraph`, `assigned`, `annotate_liveness`, `is_symbolic`, `new_name`, `make_function`,
#   `declare_nonlocal`, `define_missing`, `has_jump`, `convert_block`), Python's `ast`, and engine
#   ops (`tf.cond`, `tf.while_loop`, `tf.logical_and`, ...). Extra helper functions and cells are
#   fine.
# * While you are graded, the engine's own converter (`engine/autograph/converter.py`'s passes,
#   `AutoGraph.convert`) and its runtime operators (`if_stmt`, `while_stmt`, `for_stmt` of
#   `engine/autograph/operators.py`) are **absent**: calling them raises `NotImplementedError`.
#   So in the grading sandbox `tf.function` works only through your converter
#   (`with engine.seams.using(autograph=MyAutoGraph):`) or with `autograph=False`, and
#   `tf.autograph.to_code` only inside that block.
# * Not graded (leave them out): `return` inside control flow, loops with an `else:` clause,
#   `for` over anything but `range(...)` (`convert_for` leaves other `for` loops to Python),
#   reading a loop's index after the loop, a loop variable first defined in the loop.
#
# Run `python -m autograder check A4.ipynb` for a quick self-check on random programs.

# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "7a8ff6956e5541d6bc3571ac09323158", "grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false, "task": false}
import ast
import itertools

import engine as tf
from engine import seams
from engine.autograph.api import compile_function, parse_function
from engine.autograph.operators import Undefined
from engine.autograph.static_analysis import annotate_liveness, assigned
from engine.framework.graph import SymbolicTensor


def is_symbolic(value):
    """True for a tensor whose value is known only when the graph runs (inside tf.function)."""
    return isinstance(value, SymbolicTensor)


def not_(x):
    """`not x` that also works on tensors (tf.logical_not)."""
    return tf.logical_not(x) if isinstance(x, tf.Tensor) else not x


def and_(a, b):
    """`a and b` that also works on tensors (tf.logical_and). Both sides are evaluated."""
    if isinstance(a, tf.Tensor) or isinstance(b, tf.Tensor):
        return tf.logical_and(a, b)
    return a and b


class Operators:
    """What `ag__` means in converted code: the given helpers, and your operators (tasks 1-2)."""
    Undefined = Undefined            # ag__.Undefined('y'): the value of a variable not defined yet
    not_ = staticmethod(not_)
    and_ = staticmethod(and_)

    @staticmethod
    def defined(scope, names):
        """The values of `names` in `scope` (a `locals()`), and `Undefined(name)` for those without one."""
        return tuple(scope[name] if name in scope else Undefined(name) for name in names)

    def if_stmt(self, *args):        # your functions, looked up when converted code runs
        return if_stmt(*args)

    def while_stmt(self, *args):
        return while_stmt(*args)

    def for_range(self, *args):
        return for_range(*args)


ag = Operators()
_numbers = itertools.count(1)


def new_name(base):
    """A fresh name for a generated function or flag: new_name('if_body') -> 'if_body_7'."""
    return f"{base}_{next(_numbers)}"


def make_function(name, params, body):
    """`def name(params): body` as an ast.FunctionDef (an empty body becomes `pass`)."""
    node = ast.parse(f"def {name}({', '.join(params)}):\n    pass").body[0]
    node.body = list(body)
    if all(isinstance(s, ast.Nonlocal) for s in node.body):
        node.body.append(ast.Pass())
    return node


def declare_nonlocal(names):
    """`[nonlocal a, b]` (sorted), or `[]` for no names."""
    return [ast.Nonlocal(names=sorted(names))] if names else []


def define_missing(names):
    """`[(a, b, ) = ag__.defined(locals(), ('a', 'b'))]`: the names without a value get `ag__.Undefined(name)`."""
    names = sorted(names)
    if not names:
        return []
    targets = "".join(f"{name}, " for name in names)
    return ast.parse(f"({targets}) = ag__.defined(locals(), {tuple(names)!r})").body


def has_jump(stmts, kind):
    """Does `stmts` hold a `kind` statement (ast.Break or ast.Continue), looking inside `if`s but not loops?"""
    todo = list(stmts)
    while todo:
        s = todo.pop()
        if isinstance(s, kind):
            return True
        if isinstance(s, ast.If):
            todo += s.body + s.orelse
    return False


def convert_block(stmts):
    """Convert a list of statements: each if/while/for becomes the statements your converters return."""
    out = []
    for s in stmts:
        if isinstance(s, ast.If):
            out += convert_if(s)
        elif isinstance(s, ast.While):
            out += convert_while(s)
        elif isinstance(s, ast.For):
            out += convert_for(s)
        else:
            out.append(s)
    return out


class MyAutoGraph:
    """The `autograph` seam: `with seams.using(autograph=MyAutoGraph): tf.function(f)(...)` traces f converted."""

    def convert(self, function):
        node = parse_function(function)                  # its ast.FunctionDef
        if any(isinstance(n, (ast.Break, ast.Continue)) for n in ast.walk(node)):
            node.body = lower_jumps(node.body)            # task 5
        annotate_liveness(node.body)                      # sets .ag_live_out (and .ag_live_at_head on loops)
        node.body = convert_block(node.body)              # tasks 3 and 4
        converted = compile_function(function, node)      # same globals and closure as `function`
        code = converted.__code__
        if "ag__" in code.co_freevars:                    # ag__ is this notebook's `ag`
            converted.__closure__[code.co_freevars.index("ag__")].cell_contents = ag
        return converted


def count_control_flow(f, *args):
    """{'If': ..., 'While': ...} in the graph of tf.function `f` for `args`, inside branches and bodies too."""
    def walk(graph, counts):
        for op in graph.get_operations():
            if op.type in ("If", "StatelessIf"):
                counts["If"] += 1
                walk(op.attrs["then_branch"].graph, counts)
                walk(op.attrs["else_branch"].graph, counts)
            elif op.type in ("While", "StatelessWhile"):
                counts["While"] += 1
                walk(op.attrs["cond"].graph, counts)
                walk(op.attrs["body"].graph, counts)
        return counts
    return walk(f.get_concrete_function(*args).graph, {"If": 0, "While": 0})


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "6d30e9bd626384e0042849e95c51f85b", "grade": false, "grade_id": "task1_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 1: the runtime `if` (4 points)
#
# The converter (task 3) turns
#
# ```python
# if x > 0.0:                      (y, ) = ag__.defined(locals(), ('y',))   # Undefined('y') if y has no value
#     y = x * x                    def get_state():
# else:                                return (y,)
#     y = -x                       def set_state(values):
#                                      nonlocal y
#                                      (y,) = values
#                        ==>       def if_body():
#                                      nonlocal y
#                                      y = x * x
#                                  def else_body():
#                                      nonlocal y
#                                      y = -x
#                                  ag__.if_stmt(x > 0.0, if_body, else_body, get_state, set_state, ('y',))
# ```
#
# Write `if_stmt(cond, body, orelse, get_state, set_state, symbol_names)`. `symbol_names` names the
# statement's *outputs* (the variables a branch assigns that are read after the `if`);
# `get_state()` returns their current values as a tuple, in that order, and `set_state(values)`
# assigns them.
# * `cond` not symbolic (`is_symbolic`; a Python bool, an eager tensor): run `body()` if it is true,
#   else `orelse()`. Nothing else: no op is created.
# * `cond` symbolic: one `tf.cond(cond, true_fn, false_fn)`. `tf.cond` traces **both** functions,
#   one after the other, so each must first `set_state` the values from before the `if` (else
#   the second branch starts from what the first one computed), run its branch, and return
#   `get_state()`. If an output is then still an `Undefined` (a variable that only the other branch
#   defines), raise TF's error: `ValueError("'y' must also be initialized in the else branch")`
#   (`main branch` for the `if` part). Finally `set_state` the outputs of the `tf.cond`.
#
# (TF's `ag__.if_stmt` has one more argument, `nouts`, since its state may hold more than the
# outputs.)

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "ab9f0e944a720032df3c15f65ebdb8df", "grade": false, "grade_id": "if_stmt", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.3"]
def if_stmt(cond, body, orelse, get_state, set_state, symbol_names):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "5570de9a80a1656c01b2ef764a680e6c", "grade": true, "grade_id": "test_if_stmt", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
def _square_or_negate(x):            # what the converter makes of `if x > 0: y = x * x else: y = -x`
    y = Undefined('y')

    def get_state():
        return (y,)

    def set_state(values):
        nonlocal y
        (y,) = values

    def if_body():
        nonlocal y
        y = x * x

    def else_body():
        nonlocal y
        y = -x
    if_stmt(x > 0.0, if_body, else_body, get_state, set_state, ('y',))
    return y


_f = tf.function(_square_or_negate, autograph=False)   # already converted by hand
assert float(_f(tf.constant(3.0))) == 9.0 and float(_f(tf.constant(-2.0))) == 2.0
assert count_control_flow(_f, tf.constant(3.0)) == {"If": 1, "While": 0}      # a tensor decides: tf.cond
assert float(_f(-2.0)) == 2.0 and count_control_flow(_f, -2.0) == {"If": 0, "While": 0}   # Python decides
assert float(_square_or_negate(tf.constant(-2.0))) == 2.0                       # eagerly: plain Python


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "f8405d837be1b7a3cbdb8400a8490c20", "grade": false, "grade_id": "task2_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 2: the runtime loops (5 points)
#
# `while_stmt(test, body, get_state, set_state, symbol_names)`: `test()` returns the loop's
# condition, `body()` runs one iteration; the state is the *loop variables* (assigned in the loop,
# and read by the test, the next iteration or the code after the loop).
# * Call `test()` once to see what it is. Not symbolic: a plain Python loop (that first call
#   already counts as the first test). In a graph this traces the loop *unrolled*.
# * Symbolic: one `tf.while_loop(cond, body, loop_vars)` with `loop_vars = get_state()`. Its `cond`
#   and `body` receive the loop variables as arguments (placeholders of the loop's sub-graphs):
#   `set_state` them, then return `test()`, respectively run `body()` and return `get_state()`.
#   Finally `set_state` the result of the `tf.while_loop`. (The ops that the first `test()`
#   call left in the graph are harmless.)
#
# `for_range(start, stop, step, extra_test, body, get_state, set_state, symbol_names)` runs
# `for i in range(start, stop, step)`: `body(i)` runs one iteration with index `i`. `step` is
# positive in the hidden tests. `extra_test` is `None` or a function that must be true for the
# loop to go on (task 5 uses it for `break`): it is checked before each iteration, the first one
# included.
# * No symbolic `start`, `stop` or `step`: a Python `for` loop over `range(start, stop, step)`.
# * Otherwise one `tf.while_loop` whose loop variables are the index followed by the state:
#   the index starts at `start`, goes on while `index < stop` (and `extra_test()`: combine tensors
#   with `tf.logical_and`), and grows by `step` after each `body(index)`. After the loop,
#   `set_state` the state part of the result.
#
# (TF's `for_stmt` iterates anything; with a tensor `range` it does what `for_range` does.)

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "5462aa28a137a55e40def5fbceb9c965", "grade": false, "grade_id": "loops", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.3"]
def while_stmt(test, body, get_state, set_state, symbol_names):
    # YOUR CODE HERE
    raise NotImplementedError()


def for_range(start, stop, step, extra_test, body, get_state, set_state, symbol_names):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "6f83eb9853482f7ac362abb19a5d4c95", "grade": true, "grade_id": "test_loops", "locked": true, "points": 5, "schema_version": 3, "solution": false, "task": false}
def _halvings(x):                    # `n = 0; while x > 1.0: x = x / 2.0; n = n + 1`, converted by hand
    n = 0

    def get_state():
        return (n, x)

    def set_state(values):
        nonlocal n, x
        (n, x) = values

    def loop_body():
        nonlocal n, x
        x = x / 2.0
        n = n + 1

    def loop_test():
        return x > 1.0
    while_stmt(loop_test, loop_body, get_state, set_state, ('n', 'x'))
    return n, x


_f = tf.function(_halvings, autograph=False)
assert [float(v) for v in _f(tf.constant(10.0))] == [4.0, 0.625]                 # two loop variables
assert count_control_flow(_f, tf.constant(10.0)) == {"If": 0, "While": 1}
assert [float(v) for v in _f(10.0)] == [4.0, 0.625] and count_control_flow(_f, 10.0)["While"] == 0
assert [float(v) for v in _f(0.5)] == [0.0, 0.5]                                 # no iteration at all


def _triangle(n, limit):             # `s = 0; for i in range(1, n): s = s + i`, stopping once s > limit
    s = 0

    def get_state():
        return (s,)

    def set_state(values):
        nonlocal s
        (s,) = values

    def loop_body(i):
        nonlocal s
        s = s + i
    for_range(1, n, 1, lambda: not_(s > limit), loop_body, get_state, set_state, ('s',))
    return s


_f = tf.function(_triangle, autograph=False)
assert int(_f(tf.constant(5), 100)) == 10 and count_control_flow(_f, tf.constant(5), 100)["While"] == 1
assert int(_f(5, 100)) == 10 and count_control_flow(_f, 5, 100)["While"] == 0      # Python range: unrolled
assert int(_f(tf.constant(9), 5)) == 6 and int(_f(9, 5)) == 6                     # extra_test stops the loop


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "74360f66e4a8ecfff46c7ca50038ddcc", "grade": false, "grade_id": "task3_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 3: converting `if` (4 points)
#
# `MyAutoGraph.convert` (setup cell) parses the function, runs `annotate_liveness` over its body,
# and gives each statement list to `convert_block`, which hands every `if` to your `convert_if`.
#
# `state_functions(names)` returns `(get_name, set_name, defs)`: two fresh names (`new_name`) and
# the `ast.FunctionDef`s of `def get_name(): return (a, b, )` and of
# `def set_name(values): nonlocal a, b; (a, b, ) = values` (for no names: `return ()` and `pass`).
#
# `convert_if(node)` gets an `ast.If` and returns the list of statements that replace it:
# * the **modified** names: `assigned(node.body + node.orelse)` (everything the branches bind,
#   nested statements included); the **outputs**: those in `node.ag_live_out` (read after the
#   `if`; set by `annotate_liveness`), sorted. A variable assigned only for use inside a branch is
#   not an output (TF works the same way);
# * `define_missing(modified)` first (so that `nonlocal` finds a binding, and a variable that only
#   one branch defines is an `Undefined` that `if_stmt` reports), then the state functions, then
#   `def <if_body>(): nonlocal <modified>; <the converted body>` and the same for the `else`
#   (use `declare_nonlocal`, `make_function`, and `convert_block(node.body)` for nested
#   statements), and last the call
#   `ag__.if_stmt(<node.test>, <if_body>, <else_body>, <get>, <set>, (<outputs as strings>,))`.
#
# Tip: building code from a string with `ast.parse(...)` and putting AST pieces into it is fine.
# `tf.autograph.to_code(f)` inside `seams.using(autograph=MyAutoGraph)` shows what your converter made.

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "e39166c7696b9fede6277ef6e907aa97", "grade": false, "grade_id": "convert_if", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.3"]
def state_functions(names):
    # YOUR CODE HERE
    raise NotImplementedError()


def convert_if(node):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "539afa4a93f0510e677a6990003a9164", "grade": true, "grade_id": "test_convert_if", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
def _branchy(x, k):
    a = x
    if x > 0.5:
        t = x * 2.0                  # used only inside the branch: not an output
        a = a + t
        if k > 1:                    # a Python condition: stays Python
            a = a + 1.0
    else:
        a = a - 1.0
    return a


with seams.using(autograph=MyAutoGraph):
    _f = tf.function(_branchy)
    assert float(_f(tf.constant(1.0), 2)) == 4.0 and float(_f(tf.constant(0.0), 2)) == -1.0
    assert count_control_flow(_f, tf.constant(1.0), 2) == {"If": 1, "While": 0}
    assert float(_f(1.0, 2)) == 4.0 and count_control_flow(_f, 1.0, 2) == {"If": 0, "While": 0}


def _one_branch(x):
    if x > 0.5:
        y = x * 2.0
    return y


with seams.using(autograph=MyAutoGraph):
    try:
        tf.function(_one_branch)(tf.constant(1.0))
        raise AssertionError("y is defined in one branch only: a tensor if must raise ValueError")
    except ValueError:
        pass
    assert float(tf.function(_one_branch)(1.0)) == 2.0         # a Python condition: plain Python


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "e66c0229d9aa7372cdec09b35a6d3fad", "grade": false, "grade_id": "task4_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 4: converting `while` and `for i in range(...)` (4 points)
#
# `convert_while(node)` gets an `ast.While` and returns the statements that replace it:
# `define_missing(modified)`, the state functions of the **loop variables**, then
# `def <loop_body>(): nonlocal <modified>; <the converted body>`, `def <loop_test>(): return <node.test>`
# and the call `ag__.while_stmt(<loop_test>, <loop_body>, <get>, <set>, (<loop variables>,))`.
# The modified names are `assigned(node.body)`; the loop variables are those in
# `node.ag_live_at_head` (read at the top of an iteration, by the test or the body, or after the
# loop), sorted. A temporary that each iteration assigns before reading it is not a loop variable.
#
# `convert_for(node)` gets an `ast.For`. When it is `for <name> in range(<1 to 3 arguments>)`,
# return the statements of `ag__.for_range(<start>, <stop>, <step>, <extra_test>, <loop_body>, <get>,
# <set>, (<loop variables>,))`: `range(stop)` means `start = 0` and `step = 1`,
# `range(start, stop)` means `step = 1`. The modified names are `assigned([node])` (the target
# too); the loop variables are again those in `node.ag_live_at_head`. The body function takes one
# parameter (a fresh name) and starts, after its `nonlocal`, with `<target> = <parameter>`.
# `<extra_test>` is `None`, unless task 5 set `node.ag_extra_test` (an expression): then it is a
# fresh function `def <extra_test>(): return <node.ag_extra_test>`. Any other `for` loop stays
# a Python loop: convert its body (`convert_block`) and return `[node]`.

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "2b11b731daa70994987fa2873bb416b8", "grade": false, "grade_id": "convert_loops", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.3"]
def convert_while(node):
    # YOUR CODE HERE
    raise NotImplementedError()


def convert_for(node):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "1821c2d1a6f6d36f538fc5af2d37c3fe", "grade": true, "grade_id": "test_convert_loops", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false}
def _collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:               # a tensor if inside a tensor while
            n = n // 2
        else:
            n = 3 * n + 1
        steps = steps + 1
    return steps


def _sums(x, n):
    s = x
    for i in range(n):
        t = s * 0.5                  # a temporary: not a loop variable
        s = t + 1.0
    c = 0
    for i in range(1, n, 2):
        c = c + i
    return s, c


with seams.using(autograph=MyAutoGraph):
    _f = tf.function(_collatz)
    assert int(_f(tf.constant(27))) == 111 and count_control_flow(_f, tf.constant(27)) == {"If": 1, "While": 1}
    assert int(_f(6)) == 8 and count_control_flow(_f, 6) == {"If": 0, "While": 0}
    _g = tf.function(_sums)
    assert [float(v) for v in _g(tf.constant(0.0), tf.constant(3))] == [1.75, 1.0]
    assert count_control_flow(_g, tf.constant(0.0), tf.constant(3)) == {"If": 0, "While": 2}
    assert [float(v) for v in _g(0.0, 6)] == [1.96875, 9.0] and count_control_flow(_g, 0.0, 6)["While"] == 0


# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "3ed3f22118e7e195fb4675c2d87dc278", "grade": false, "grade_id": "task5_md", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## Task 5: `break` and `continue` (3 points)
#
# Graph loops cannot jump, so the converter first rewrites jumps into flags (as TF's does):
#
# ```python
# while j < n:                     break_2 = False
#     j = j + 1                    while ag__.and_(ag__.not_(break_2), j < n):
#     if j % 2 == 0:                   continue_1 = False
#         continue                     j = j + 1
#     if s > 9.0:          ==>         if j % 2 == 0:
#         break                            continue_1 = True
#     s = s + x                        if ag__.not_(continue_1):
#                                          if s > 9.0:
#                                              break_2 = True
#                                          if ag__.not_(break_2):
#                                              s = s + x
# ```
#
# `lower_jumps(stmts)` returns the new statement list; `MyAutoGraph.convert` calls it on the
# function body (before `annotate_liveness`) when the function has a `break` or `continue`.
# * Recurse: into the branches of each `if`, and into each loop's body first (inner loops own
#   their jumps). A loop's jumps are those in its body and in `if`s in it, not in nested loops
#   (`has_jump`).
# * Replacing the jumps of one kind in a statement list, with a flag: a `continue`/`break`
#   becomes `flag = True`, and the statements after it in its block are dropped (they never run).
#   After a statement that may have jumped (an `if` holding one, at any depth), the rest of the
#   block goes into **one** `if ag__.not_(flag):` (in which the same replacement goes on). One guard,
#   not one per statement: a temporary that the rest assigns and then reads must stay inside one
#   branch, or it would look live at the loop head and become a loop variable without a value.
# * `continue` (done first): a fresh flag (`new_name("continue_")`) set to `False` as the first
#   statement of the body.
# * `break`: a fresh flag (`new_name("break_")`) set to `False` just before the loop; a `while`
#   test becomes `ag__.and_(ag__.not_(flag), <test>)`, and a `for` gets `loop.ag_extra_test =
#   ag__.not_(flag)` (an expression, read by `convert_for` and by `annotate_liveness`).
# Flags are Python bools: `not_`, `and_` and `if_stmt` turn them into tensors only where a tensor
# decides. (TF's `and_` is lazy, with `tf.cond`; the given one evaluates both sides.)

# %% deletable=false nbgrader={"cell_type": "code", "checksum": "95a655ef1d6e0ff8524f93ce2e47723c", "grade": false, "grade_id": "lower_jumps", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.3"]
def lower_jumps(stmts):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% deletable=false editable=false nbgrader={"cell_type": "code", "checksum": "17950d1774e60f6e8411e85111ca5a71", "grade": true, "grade_id": "test_lower_jumps", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
def _jumpy(x, n):
    s = 0.0
    j = 0
    while j < n:
        j = j + 1
        if j % 2 == 0:
            continue
        if s > 4.0:
            break
        s = s + x
    return s, j


with seams.using(autograph=MyAutoGraph):
    _f = tf.function(_jumpy)
    assert [float(v) for v in _f(tf.constant(3.0), tf.constant(9))] == [6.0, 5.0]
    assert count_control_flow(_f, tf.constant(3.0), tf.constant(9))["While"] == 1
    assert [float(v) for v in _f(3.0, 9)] == [6.0, 5.0]
    assert count_control_flow(_f, 3.0, 9) == {"If": 0, "While": 0}               # all Python: no ops


def _first_multiple(n, k):
    c = 0
    for i in range(1, n):
        if i % k == 0:
            break
        c = c + i
    return c


with seams.using(autograph=MyAutoGraph):
    _f = tf.function(_first_multiple)
    assert int(_f(tf.constant(10), 4)) == 6 and count_control_flow(_f, tf.constant(10), 4)["While"] == 1
    assert int(_f(10, 4)) == 6 and count_control_flow(_f, 10, 4) == {"If": 0, "While": 0}

# %% [markdown] deletable=false editable=false nbgrader={"cell_type": "markdown", "checksum": "e6483080a337a4f55c2cb4e27c9c0a68", "grade": false, "grade_id": "outro", "locked": true, "schema_version": 3, "solution": false, "task": false}
# ## All together
#
# `with seams.using(autograph=MyAutoGraph): print(tf.autograph.to_code(f))` shows what your converter
# makes of a function `f` of yours; outside the block, the same call shows the engine's converter (the one
# lesson `40_tf_function` uses), which also rewrites `and`/`or`/`not`, calls and `return`s, and finds
# statically which variables need an `Undefined`.
