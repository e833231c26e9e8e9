# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 10. Tensors and eager execution (syllabus 1.6, 1.7)
#
# In TensorFlow 2 an op **runs immediately** and returns a concrete value: no graph, no
# `Session.run()`. That is *eager execution*. We use the course's engine (`import engine as tf`),
# which follows TF's semantics op for op.
#
# This lesson is about the values ops take and return, and about what happens between your
# `a + b` and the arithmetic:
#
# 1. what a tensor is: a value, a dtype, a shape, a device;
# 2. eager execution: the value exists at once;
# 3. dtypes, and TensorFlow's refusal to promote them;
# 4. broadcasting;
# 5. dispatch: how `a + b` finds its kernel in the op registry, through one door;
# 6. what that costs per op, measured here.

# %%
import inspect
import time
import traceback
from types import SimpleNamespace

import numpy as np
import matplotlib
import matplotlib.pyplot as plt
import engine as tf
from engine import viz
from engine.framework import registry

a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
b = a @ a + 1.0          # runs now
print(b)                 # a concrete value, not a symbolic node
print(tf.executing_eagerly())

# %% [markdown]
# ## 1. What a tensor is
# A tensor is an **immutable value**: a buffer of elements that all have one **dtype**, arranged in a
# **shape**, held by a **device**. In TF 2.21 an eager tensor is an `EagerTensor` that wraps a C++
# tensor handle; the engine's `EagerTensor` holds a NumPy array (`_value`) and a device (`_device`).
# Each tensor also carries an integer `_id` (TF's eager tensors have one too): the gradient tape of
# lesson 20 uses it to tell tensors apart.

# %%
t = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print("dtype: ", t.dtype)
print("shape: ", t.shape, "rank", t.shape.rank, "elements", t.shape.num_elements())
print("device:", t.device)
print("value: ", t.numpy().tolist())
print(f"inside the engine: {type(t).__name__} holding a {type(t._value).__name__}, id {t._id}")
try:
    t[0, 0] = 10.0
except TypeError as e:
    print("TypeError:", e)

# %% [markdown]
# A tensor cannot be changed in place (TF 2.21 raises the same `TypeError`); an op makes a new one.
# The mutable thing in TensorFlow is the `tf.Variable` (lesson 20).
#
# ## 2. "Runs immediately" means Python control flow and debuggers just work
# The value exists at once, so a plain `if` on it works, and `pdb` can inspect it.

# %%
x = tf.constant(3.0)
if x > 2.0:               # a real Python bool from a real value
    y = x * 2.0
else:
    y = x
print(float(y))

# %% [markdown]
# ### NumPy interop
# `.numpy()` gives a NumPy array; NumPy arrays become tensors when passed to ops.

# %%
arr = np.arange(6, dtype=np.float32).reshape(2, 3)
t = tf.constant(arr)
print(t.numpy() is not arr, np.asarray(tf.reduce_sum(t)), (t * 2).numpy())

# %% [markdown]
# ## 3. Dtypes: TensorFlow never promotes
# A tensor's dtype comes from what built it: a Python `int` gives `int32`, a Python `float`
# gives `float32` (not NumPy's `float64`), an int too big for 32 bits gives `int64`, a NumPy value
# keeps its own dtype.

# %%
for value in [1, 1.0, 2 ** 40, [1, 2.5], True, np.float64(1.0), np.arange(3)]:
    print(f"tf.constant({value!r}) has dtype {tf.constant(value).dtype.name}")

# %% [markdown]
# The rule that surprises NumPy users: **an op never converts one tensor's dtype to match the
# other's**. `tf.constant(1) + tf.constant(1.0)` is an `int32` plus a `float32`, and TensorFlow
# refuses it with `InvalidArgumentError` (TF 2.21 says `cannot compute AddV2 as input
# #1(zero-based) was expected to be a int32 tensor but is a float tensor [Op:AddV2]`; the engine
# says the same and adds a hint). A **Python number** is not a tensor yet: it *adopts* the
# tensor's dtype (`float32_tensor + 2` is `float32`), and so does a NumPy scalar. When it cannot
# (`2.5` is no `int32`), it becomes a tensor of its own dtype, and the op refuses the pair.
# `tf.cast` converts, explicitly.

# %%
i32, f32, f64 = tf.constant(1), tf.constant(1.0), tf.constant(1.0, dtype=tf.float64)


def attempt(text):
    """Evaluate ``text``; print the result's dtype and value, or the error TensorFlow raises."""
    try:
        r = eval(text)
        print(f"{text:<30} -> {r.dtype.name} {r.numpy()}")
    except (tf.errors.InvalidArgumentError, TypeError) as e:
        print(f"{text:<30} -> {type(e).__name__}: {str(e).split('. ')[0]}")


for text in ["i32 + f32", "f32 + f64", "f32 + 2", "i32 * 3", "f64 + 1.5", "f32 + np.float64(2.0)",
             "i32 + 2.5", "tf.cast(i32, tf.float32) + f32", "i32 / i32"]:
    attempt(text)
print("NumPy instead promotes: int32 + float32 is", (np.int32(1) + np.float32(1)).dtype,
      "and float32 + float64 is", (np.float32(1) + np.float64(1)).dtype)

# %% [markdown]
# Two more things the lines above show. True division of integers (`i32 / i32`) gives `float64`,
# as in TF (Python's `/` means "real division"; `//` keeps `int32`). And NumPy's own promotion is
# not always what you would guess (`int32 + float32` is `float64`), which is one reason TF asks
# you to say what you mean. (TF 2.21 has an opt-in NumPy-style mode,
# `tf.experimental.numpy.experimental_enable_numpy_behavior`; without it, the default, TF refuses,
# and the engine has no such mode.)
#
# ## 4. Broadcasting
# Elementwise ops (`+`, `*`, `tf.maximum`...) accept inputs of different shapes when they
# **broadcast**, with NumPy's rules:
#
# * line the shapes up **from the right**; a missing leading dimension counts as 1;
# * in each position the two sizes must be **equal, or one of them 1**; the result has the larger;
# * a size-1 (or missing) dimension is **repeated** to match.
#
# So `x + b` with `x` of shape `(4, 3)` and `b` of shape `(3,)` adds `b` to every row of `x`.

# %%
pairs = [((4, 3), (3,)), ((4, 1), (3,)), ((2, 1, 4), (3, 1)), ((), (2, 2)), ((4, 3), (4, 1)), ((4, 3), (4,))]
for sa, sb in pairs:
    try:
        out = (tf.zeros(sa) + tf.zeros(sb)).shape
        print(f"{str(sa):>10} + {str(sb):<7} -> {out}")
    except tf.errors.InvalidArgumentError as e:
        print(f"{str(sa):>10} + {str(sb):<7} -> InvalidArgumentError: {str(e).split('. Dimensions')[0]}")

xs = tf.reshape(tf.range(12.0), [4, 3])
bs = tf.constant([100.0, 200.0, 300.0])
print((xs + bs).numpy())
print("the same as adding the explicit copy:", bool(tf.reduce_all(xs + bs == xs + tf.broadcast_to(bs, [4, 3]))))
print("NumPy repeats b without copying it: its broadcast view has strides",
      np.broadcast_to(bs.numpy(), (4, 3)).strides, "(0 bytes from one row to the next)")

# %% [markdown]
# The last pair fails: `(4, 3)` and `(4,)` line up as `3` against `4`. TF 2.21 raises the same
# `InvalidArgumentError: Incompatible shapes: [4,3] vs. [4]`. (To add a length-4 vector to each
# column, give it shape `(4, 1)`, the pair before it.) `tf.broadcast_static_shape` applies the
# rules to shapes alone, without computing anything.
#
# Broadcasting matters again in lesson 20: `b` was used once per row, so its gradient is the
# **sum** of the four rows' gradients. Undoing broadcasting that way is part of assignment A1.
#
# ## 5. Dispatch: how `a + b` finds its kernel
# Every op of the engine is **one row** in one table, the op registry
# (`engine/framework/registry.py`), keyed by TensorFlow's op type name. `a + b` is the op `AddV2`.
# Here is its row, read from the registry in this run:

# %%
row = registry.get_op("AddV2")
print(f"{len(registry.registered_ops())} ops are registered. The row of {row.name}, as registered:\n")
print(inspect.getsource(row.make_kernel).strip(), "\n")
print("kernel     :", row.ufunc and f"NumPy's `{row.ufunc}` ufunc, built per backend by the kernel factory")
print("shape fn   :", row.infer.__qualname__)
print("gradient   :", row.grad.__name__, "\n" + inspect.getsource(row.grad))
print("dtypes     :", sorted(d.name for d in row.dtypes))
print("traits     :", {k: getattr(row, k) for k in ("elementwise", "linear", "commutative", "stateful",
                                                     "saves_inputs", "saves_outputs")})

# %% [markdown]
# A row holds:
#
# * the **kernel**: what computes the outputs from input arrays. It is built by a factory from an
#   array module (`xp`: NumPy on the CPU, CuPy on a GPU), so one definition serves every device.
# * the **shape function**: the output dtype and shape from the inputs' dtypes and (possibly
#   partly unknown) shapes, without computing anything. Graphs and `tf.function` (lessons 30, 40)
#   call it when they add a node; eager execution calls it only to explain a failure (the
#   "Incompatible shapes" message above came from it).
# * the **gradient**: the backward rule, written with engine ops (lesson 20).
# * **traits**: facts other parts of the engine read. `saves_inputs=False, saves_outputs=False`
#   tells the tape that AddV2's gradient needs no values, only shapes (lesson 20);
#   `commutative` lets the graph optimizer treat `a + b` and `b + a` as one (lessons 30, A6).
#
# TensorFlow keeps the same facts, in several places: `REGISTER_OP("AddV2")` in C++ declares the
# op's definition, which TF 2.21 shows in Python as inputs `x: T, y: T`, the allowed types of `T`,
# `is_commutative` and `is_aggregate`, with its shape function; kernels are registered per device
# and dtype in C++; the gradient is registered in Python, `@ops.RegisterGradient("AddV2")` (the
# function `_AddGrad` in `math_grad.py`). (TF's `AddV2` takes no strings: TF's `+` sends strings to
# the older `Add` op. The engine's row takes them, and has no bfloat16 or complex types.)
#
# Here is the shape function on its own, for an input whose first dimension is not known yet
# (`None`, as in a graph with a variable batch size):

# %%
known_later = SimpleNamespace(shape=tf.TensorShape([None, 1]), dtype=tf.float32)
vector = SimpleNamespace(shape=tf.TensorShape([3]), dtype=tf.float32)
print(row.infer(registry.InferenceContext("AddV2", [known_later, vector], {}, lambda t: None)))

# %% [markdown]
# ### One door
# All the ways to run an op end in one function, `execute` in `engine/eager/execute.py` (with two
# shortcuts beside it, `execute_binary` for `a + b` and `execute_read` for a variable read, that
# take the same steps with fewer checks). It chooses the device, takes the kernel from the op's
# row, calls it on the input arrays, wraps the result as a new `EagerTensor`, and **offers the op
# to every recording gradient tape** (lesson 20).
#
# To see the path, we swap kernels for spies with `registry.override(op_type, kernel=factory)`:
# inside the `with` block every path that runs the op calls the spy, which records the Python call
# stack and then computes as the real kernel. Four spellings, traced:

# %%
paths = {}


def spying(op_type, label):
    """A kernel factory for ``op_type``: the real kernel, after recording the call stack under ``label``."""
    real = registry.get_op(op_type).make_kernel

    def factory(xp):
        kernel = real(xp)

        def spy(*args, **attrs):
            frames = [f for f in traceback.extract_stack() if "/engine/" in f.filename]   # the engine's part
            paths.setdefault(label, []).append(
                [f"{f.name}\\n{f.filename.split('/engine/')[-1]}" for f in frames] + [f"{op_type} kernel"])
            return kernel(*args, **attrs)
        return spy
    return factory


# %%
v = tf.Variable([1.0, 2.0])
p, q = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
calls = {"p + q": lambda: p + q, "tf.add(p, q)": lambda: tf.add(p, q), "tf.exp(p)": lambda: tf.exp(p),
         "v + p": lambda: v + p}
for label, fn in calls.items():
    with registry.override("AddV2", kernel=spying("AddV2", label)), \
            registry.override("Exp", kernel=spying("Exp", label)), \
            registry.override("ReadVariableOp", kernel=spying("ReadVariableOp", label)):
        fn()
for label, stacks in paths.items():
    for stack in stacks:
        print(f"{label:<13}", " -> ".join(s.split("\\n")[0] for s in stack))

# %%
nodes = {label: {"kind": "source"} for label in paths}
edges = set()
for label, stacks in paths.items():
    for stack in stacks:
        chain = [label] + stack
        edges.update(zip(chain, chain[1:]))
for stacks in paths.values():
    for stack in stacks:
        nodes.setdefault(stack[-1], {"kind": "op"})                     # the kernels
        for frame in stack:
            if "eager/execute.py" in frame:
                nodes[frame] = {"kind": "fused"}                        # the door
viz.draw_graph(nodes, sorted(edges), title="every spelling reaches its kernel through engine/eager/execute.py "
                                           "(outlined)", rankdir="LR")

# %% [markdown]
# Every path ends in `execute.py`, and the kernel is whatever the registry's row holds at that
# moment: that is what makes `registry.override` reach every caller.
# `v + p` runs two ops: reading the variable is an op too (`ReadVariableOp`, through
# `execute_read`), then the add.
#
# TF 2.21 has the same shape. `a + b` calls `binary_op_wrapper`, then `math_ops._add_dispatch`, then
# the generated `gen_math_ops.add_v2`, whose eager branch is one call into C++,
# `TFE_Py_FastPathExecute(ctx, "AddV2", name, x, y)`: that finds the kernel registered for
# `AddV2` on the CPU for `T=float`, runs it and, when a tape is recording, records the op (under a
# tape, Python's profiler sees the very same Python calls: the record is made in C++). The slow
# path of `add_v2` makes the record explicit: `_execute.record_gradient("AddV2", inputs, attrs,
# result)`.
#
# ## 6. The price: per-op overhead, measured here (1.7)
# Each eager op goes through this Python dispatch. For tiny tensors that cost dominates; for big
# ones the arithmetic does. We time `a + b` at several sizes, engine vs NumPy.

# %%
def per_op(f, n=200, rounds=7):
    """Microseconds per call of ``f``: the median of ``rounds`` rounds of ``n`` calls, and the spread (min, max)."""
    f()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        times.append((time.perf_counter() - t0) / n * 1e6)
    times.sort()
    return times[len(times) // 2], times[0], times[-1]

sizes = [1, 100, 10_000, 100_000]
eng, npy, eng_spread, npy_spread = [], [], [], []
for s in sizes:
    xa, xb = np.ones(s, np.float32), np.ones(s, np.float32)
    ta, tb = tf.constant(xa), tf.constant(xb)
    (e, e_lo, e_hi), (n, n_lo, n_hi) = per_op(lambda: ta + tb), per_op(lambda: xa + xb)
    eng.append(e); npy.append(n)
    eng_spread.append((e - e_lo, e_hi - e)); npy_spread.append((n - n_lo, n_hi - n))
for s, e, n in zip(sizes, eng, npy):
    print(f"{s:>7} elements: engine {e:7.2f} µs, NumPy {n:7.2f} µs, ratio {e / n:5.1f}x")

fig, ax = plt.subplots(figsize=(5, 3))
ax.errorbar(sizes, eng, yerr=np.array(eng_spread).T, fmt="o-", capsize=3, label="engine (eager)")
ax.errorbar(sizes, npy, yerr=np.array(npy_spread).T, fmt="s-", capsize=3, label="NumPy")
ax.set_xscale("log"); ax.set_yscale("log")
ax.set_xlabel("elements"); ax.set_ylabel("µs per add (median of 7 rounds)"); ax.legend(); ax.set_title("Per-op cost")
plt.show()
small, large = eng[0] / npy[0], eng[-1] / npy[-1]
print(f"at {sizes[0]} element the engine costs {small:.1f}x NumPy (dispatch); at {sizes[-1]:,} elements "
      f"{large:.1f}x ({'the arithmetic dominates' if large < small / 2 else 'dispatch still shows'})")

# %% [markdown]
# Reading the plot: at 1 element the engine's cost is all dispatch; toward 100k elements the two
# lines come together, because the arithmetic dominates (the line printed above says how close they
# came in this run; the bars show the spread of the 7 rounds, wide on a busy 2-core machine).
# TF 2.21's eager dispatch (Python wrappers, then C++) also costs microseconds per op, far more than
# the arithmetic of a tiny add; that is why `tf.function` (lesson 40) exists.
#
# A picture of what ran: the tape (lesson 20) records eagerly executed ops as they happen.

# %%
w = tf.Variable(2.0)
with tf.GradientTape(persistent=True) as tape:
    z = w * 3.0 + 1.0
viz.draw_tape(tape)

# %% [markdown]
# ## Exercises (self-checked)
# Fill in each function in the cells below (replace `raise NotImplementedError()`), then run the
# self-check cell after them: it says, exercise by exercise, what is right and what is not yet.
#
# 1. `float64_sum(t)`: the sum of all elements of the float32 tensor `t`, as a **float64** scalar
#    tensor. TF will not add float32 to float64 for you (section 3): convert first (`tf.cast`).

# %% nbgrader={"grade": false, "grade_id": "ex10_cast", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.6"]
def float64_sum(t):
    ### BEGIN SOLUTION
    return tf.reduce_sum(tf.cast(t, tf.float64))
    ### END SOLUTION


# %% [markdown]
# 2. `broadcast_shape(a, b)`: the shape (a tuple) that an elementwise op on inputs of shapes `a`
#    and `b` (tuples of ints) returns, by the rules of section 4, with plain Python (no engine
#    ops). Raise `ValueError` when the shapes do not broadcast. The self-check compares you with
#    the engine's ops on many pairs, `()` and sizes 0 and 1 included (0 against 1 gives 0).

# %% nbgrader={"grade": false, "grade_id": "ex10_broadcast", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.6"]
def broadcast_shape(a, b):
    ### BEGIN SOLUTION
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise ValueError(f"Incompatible shapes: {a} vs. {b}")
        out.append(y if x == 1 else x)
    return tuple(out)
    ### END SOLUTION


# %% [markdown]
# 3. `kernel_calls(fn, op_type)`: call `fn()` (no arguments) once and return how many times the
#    kernel of the op `op_type` ran during the call. Swap the kernel for a counting one with
#    `registry.override` (section 5), and let it compute what the real kernel computes: the
#    self-check looks at `fn`'s results too. Whatever the spelling, the count is the number of
#    times the op went through the one door.

# %% nbgrader={"grade": false, "grade_id": "ex10_dispatch", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.6", "1.7"]
def kernel_calls(fn, op_type):
    ### BEGIN SOLUTION
    real = registry.get_op(op_type).make_kernel
    count = [0]

    def counting(xp):
        kernel = real(xp)

        def k(*args, **attrs):
            count[0] += 1
            return kernel(*args, **attrs)
        return k
    with registry.override(op_type, kernel=counting):
        fn()
    return count[0]
    ### END SOLUTION


# %% [markdown]
# 4. `crossover(sizes, engine_us, numpy_us)`: the first size at which the engine's add costs at most
#    twice NumPy's, from the timings measured above (`None` if there is none). At that size the
#    arithmetic, not the dispatch, dominates (1.7).

# %% nbgrader={"grade": false, "grade_id": "ex10_crossover", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.7"]
def crossover(sizes, engine_us, numpy_us):
    ### BEGIN SOLUTION
    return next((s for s, e, n in zip(sizes, engine_us, numpy_us) if e <= 2 * n), None)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "check10", "locked": true, "schema_version": 3, "solution": false, "task": false}
from autograder.selfcheck import check, run_checks


def _check_sum():
    got = float64_sum(tf.constant([[1.0, 2.0], [3.0, 4.5]]))
    check(isinstance(got, tf.Tensor), f"return a tensor, not {type(got).__name__}")
    check(got.dtype == tf.float64, f"the sum should be float64, it is {got.dtype.name}")
    check(got.shape == (), f"the sum should be a scalar, its shape is {got.shape}")
    check(float(got) == 10.5, f"expected 10.5, got {float(got)}")


def _engine_shape(a, b):
    """What the engine's AddV2 returns for inputs of shapes a and b (None: it refuses them)."""
    try:
        return tuple((tf.zeros(a) + tf.zeros(b)).shape.as_list())
    except tf.errors.InvalidArgumentError:
        return None


def _check_broadcast():
    cases = [((4, 3), (3,)), ((4, 1), (3,)), ((3,), (4, 1)), ((2, 1, 4), (3, 1)), ((), (2, 2)), ((2, 2), ()),
             ((), ()), ((5,), (5,)), ((1,), (7,)), ((4, 3), (4,)), ((2, 3), (3, 2)), ((0,), (1,)), ((0,), (3,)),
             ((1, 0), (4, 1)), ((2, 1, 3), (5, 1)), ((6, 1, 1), (1, 2, 1, 3))]
    for a, b in cases:
        want = _engine_shape(a, b)
        if want is None:
            try:
                got = broadcast_shape(a, b)
            except ValueError:
                continue
            raise AssertionError(f"{a} and {b} do not broadcast (the engine refuses them): raise ValueError, "
                                 f"you return {got!r}")
        got = broadcast_shape(a, b)
        check(isinstance(got, tuple), f"return a tuple, not {type(got).__name__}")
        check(tuple(got) == want, f"broadcast_shape({a}, {b}) is {want}, you return {got}")


def _check_dispatch():
    p, q = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    results = []
    n = kernel_calls(lambda: results.append(p + q), "AddV2")
    check(isinstance(n, int), f"return an int (a count), not {type(n).__name__}")
    check(n == 1, f"p + q runs AddV2's kernel once, you count {n}")
    check(results and np.allclose(np.asarray(results[0]), [4.0, 6.0]),
          "inside kernel_calls, p + q must still compute [4, 6]: let the counting kernel call the real one")
    n = kernel_calls(lambda: tf.add(p, q) + p + 1.0, "AddV2")
    check(n == 3, f"tf.add(p, q) + p + 1.0 is three AddV2 ops, you count {n}")
    n = kernel_calls(lambda: p * q, "AddV2")
    check(n == 0, f"p * q is a Mul, not an AddV2: you count {n} AddV2 kernel calls")
    n = kernel_calls(lambda: tf.reduce_sum(p * q * p), "Mul")
    check(n == 2, f"p * q * p is two Mul ops, you count {n}")
    v = tf.Variable([1.0, 1.0])
    n = kernel_calls(lambda: v + p, "ReadVariableOp")
    check(n == 1, f"v + p reads the variable once (ReadVariableOp), you count {n}")
    check(np.allclose((p + q).numpy(), [4.0, 6.0]), "after kernel_calls, AddV2 must compute again as before")
    check(kernel_calls(lambda: p + q, "AddV2") == 1, "a second kernel_calls must start counting from 0")


def _check_crossover():
    check(crossover([1, 10, 100], [9.0, 8.0, 9.0], [1.0, 3.0, 5.0]) == 100, "with these timings the answer is 100")
    check(crossover([1, 10], [9.0, 9.0], [1.0, 1.0]) is None, "no size within 2x: the answer is None")
    got = crossover(sizes, eng, npy)
    check(got is None or got in sizes, f"{got!r} is not one of the measured sizes")


run_checks({"1. float64_sum (1.6)": _check_sum, "2. broadcast_shape (1.6)": _check_broadcast,
            "3. kernel_calls (1.6, 1.7)": _check_dispatch, "4. crossover (1.7)": _check_crossover})

# %% [markdown]
# ## Interview question
# > *"Explain TensorFlow's two execution modes, Graph mode and Eager execution. How do they differ?"*
#
# Answer, runnable: eager ops return values at once (debuggable, Python control flow works), at a
# per-op dispatch cost; graph mode builds first and runs later, so the whole graph can be optimized.

# %%
g = tf.Graph()
with g.as_default():
    s = tf.constant(1.0) + tf.constant(2.0)
print("graph mode gives a symbolic tensor:", s)
print("eager gives a value:", tf.constant(1.0) + tf.constant(2.0))

# %% [markdown]
# ## Next
# Lesson 20 follows the last step of the one door, the offer to the tape: how `tf.GradientTape`
# records the ops that run and walks them backwards for gradients, broadcasting included. It
# prepares assignment A1, where you build that tape yourself.
