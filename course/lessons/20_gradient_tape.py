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

# %% [markdown]
# # 20. Reverse-mode autodiff with GradientTape (syllabus 3.1–3.5)
#
# `GradientTape` is reverse-mode automatic differentiation made explicit: during the forward
# pass the tape **records** each differentiable op with its inputs and outputs (3.2);
# `tape.gradient(target, sources)` then **walks the records backwards**, applying each op's
# chain rule (3.3).
#
# What this lesson takes apart, in order (assignment A1 has you build each piece):
#
# 1. the chain rule as a chain of vector-Jacobian products;
# 2. what the tape records;
# 3. how the tape hooks into dispatch;
# 4. the order of the backward walk, and what goes wrong without it;
# 5. broadcasting, undone: "unbroadcast";
# 6. watching, persistent and nested tapes, `stop_gradient`;
# 7. why a non-persistent tape frees memory;
# 8. checking gradients with finite differences;
# 9. what recording costs.

# %%
import gc
import inspect
import time
import weakref

import numpy as np
import matplotlib.pyplot as plt
import engine as tf
from engine import seams, viz
from engine.eager import tape as tape_module
from engine.framework import registry

x = tf.Variable(2.0)
with tf.GradientTape(persistent=True) as tape:
    y = x ** 3 + 2.0 * x
viz.draw_tape(tape)            # the ops the tape recorded, in order

# %% [markdown]
# ## The backward walk, step by step
# Step 0 seeds `y` with ones; each step runs one op's gradient, newest op first.

# %%
viz.draw_tape(tape, target=y, step=0)

# %%
viz.draw_tape(tape, target=y, step=2)

# %% [markdown]
# Each recorded op says which op it was as `type`, as TF's `Operation.type` does (`"Mul"`, `"AddV2"`).
# The tape you build in assignment A1 keeps the same fact in its `Entry` objects as `op_type`.

# %%
print([e.type for e in tape._entries])                 # what was recorded
print([e.type for e in reversed(tape._entries)])       # the order of the walk
print(tape.gradient(y, x))                             # 3x² + 2 = 14

# %% [markdown]
# ### The seed's example (3.5): `x**3` at 2 gives 12.0

# %%
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    y = x ** 3
print(tape.gradient(y, x))

# %% [markdown]
# ## 1. The chain rule as vector-Jacobian products (3.3)
# Take `y = f(x)` with `x` holding n numbers and `y` holding m. Its Jacobian `J` is the m×n matrix
# of partial derivatives ∂y_i/∂x_j. Suppose some scalar loss L is computed from `y`, and we already
# know `v = ∂L/∂y` (one number per element of `y`: the gradient *arriving* at `y`). The chain rule
# gives the gradient of `x` as `v · J`, one number per element of `x`. For a chain
# `x → u = g(x) → y = f(u)` it is `(v · J_f) · J_g`: reverse mode multiplies **from the left**, so
# every step is a vector times a Jacobian, a **vector-Jacobian product** (VJP), and the result is a
# vector again. That is why one backward walk gives the gradient of a scalar loss with respect to
# every input at once.
#
# The walk never builds a Jacobian. Each op's gradient function receives the gradient arriving at
# the op's **output** (`upstream`, shaped like that output) and returns one gradient per **input**,
# each shaped like its input: `upstream · J`, computed directly. For an elementwise op `J` is
# diagonal, and the VJP is an elementwise product:
#
# * for `z = tf.exp(u)`, the gradient of `u` is `upstream * z`;
# * for `z = x * b`, `x` gets `upstream * b` and `b` gets `upstream * x`.
#
# `tape.gradient(..., output_gradients=v)` starts the walk from your own `v` instead of ones. Here
# `tape.jacobian` builds `J`, to compare (the engine runs one backward walk per row of `J`; TF 2.21
# vectorizes those walks with `pfor` by default, `experimental_use_pfor=True`):

# %%
xv = tf.constant([0.5, -0.5, 1.0])
v = tf.constant([1.0, 2.0, 3.0])                       # a gradient arriving at y
with tf.GradientTape(persistent=True) as tape:
    tape.watch(xv)
    yv = tf.exp(xv) * xv                                # elementwise: J is diagonal
J = tape.jacobian(yv, xv)
vjp = tape.gradient(yv, xv, output_gradients=v)
print("J =\n", np.round(J.numpy(), 3))
print("v @ J          =", np.round(v.numpy() @ J.numpy(), 4))
print("tape.gradient  =", np.round(vjp.numpy(), 4), "(one walk, no matrix)")
print("v * (1 + x) e^x =", np.round((v.numpy() * (1 + xv.numpy()) * np.exp(xv.numpy())), 4))

# %% [markdown]
# How much the matrix costs, measured: for n inputs the engine's Jacobian takes n backward walks
# and n² numbers; the VJP one walk and n numbers.

# %%
def median_ms(f, rounds=5):
    """Milliseconds per call of ``f``: the median of ``rounds`` calls, and the spread (min, max)."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        f()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2], times[0], times[-1]


n = 200
xn = tf.constant(np.linspace(-1.0, 1.0, n).astype(np.float32))
with tf.GradientTape(persistent=True) as tape:
    tape.watch(xn)
    yn = tf.exp(xn) * xn
(t_vjp, lo_v, hi_v), (t_jac, lo_j, hi_j) = median_ms(lambda: tape.gradient(yn, xn)), \
    median_ms(lambda: tape.jacobian(yn, xn))
print(f"n = {n}: one VJP walk {t_vjp:.2f} ms (spread {lo_v:.2f}-{hi_v:.2f}), the Jacobian {t_jac:.1f} ms "
      f"(spread {lo_j:.1f}-{hi_j:.1f}): {t_jac / t_vjp:.0f}x the time, and {n * n * 4:,} bytes against "
      f"{n * 4:,}")

# %% [markdown]
# ## 2. What the tape records (3.2)
# One record per op that ran on a watched value: the **op** (its registry row, lesson 10), its
# **inputs** and **outputs** (with the integer ids that tell tensors apart) and its **attrs**
# (MatMul's `transpose_a`, Sum's `keep_dims`...). A record keeps a value only if the op's gradient
# reads it: the row says so (`saves_inputs`, `saves_outputs`). The others are kept as shape and dtype
# alone, which is all that a gradient such as AddV2's needs. (`tape._entries` is the engine's
# internal list of records, shown here to teach; TF has no public equivalent.)

# %%
w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
xin = tf.constant([[1.0, -1.0]])
with tf.GradientTape(persistent=True) as tape:
    h = tf.matmul(xin, w)
    act = tf.exp(h)
    loss = tf.reduce_sum(act * act, axis=1)


def kept(t):
    """What a record holds for one input or output."""
    return "the variable" if hasattr(t, "_is_variable") else "value" if isinstance(t, tf.Tensor) else "shape only"


for i, e in enumerate(tape._entries):
    ins = ", ".join(f"#{tid} {kept(t)}" for tid, t in zip(e.input_ids, e.inputs))
    outs = ", ".join(f"#{tid} {kept(t)}" for tid, t in zip(e.output_ids, e.outputs))
    print(f"{i + 1}. {e.type:<14} in: {ins:<30} out: {outs:<16} attrs: {e.attrs}")
viz.draw_tape(tape)

# %% [markdown]
# Reading the variable is an op too (`ReadVariableOp`, its input the `Variable` itself). Exp keeps its
# output (its gradient is `upstream * output`), Mul and MatMul keep their inputs, Sum keeps only its
# `axis` (dashed ovals in the picture: values the tape did not keep).
#
# TF's tape (C++, `tensorflow/c/eager/tape.h`) keeps the same facts. Each record (`OpTapeEntry`)
# holds the op type, the shapes and dtypes of the outputs, the ids of the inputs, and a backward
# function that holds the attrs and the input and output values the gradient reads (TF drops the
# others with generated tables, `OpGradientUnusedInputIndices` and `OpGradientUnusedOutputIndices`).
# A second map says which record produced each tensor id.
#
# ## 3. How the tape hooks into dispatch: the tape seam
# Lesson 10 ended at the last step of the one door: after the kernel ran, the engine **offers the op
# to every active tape** by calling `tape.record_operation(op_def, inputs, attrs, outputs)`. Every
# op is offered; the tape decides what to keep (an input it watches, and a gradient function).
# That call, and two more, are the **tape protocol**: the methods anything standing in for the tape
# must have. In the engine the tape is a *seam*: `engine.seams.using(tape=MyTape)` makes every
# `tf.GradientTape()` the engine builds a `MyTape`, Keras and optimizers included.

# %%
print(seams.seam("tape"))
print("protocol:", tape_module.TAPE_PROTOCOL)


class LoggingTape(tf.GradientTape):
    """The engine's tape, printing each op the engine offers it."""

    def record_operation(self, op_def, inputs, attrs, outputs):
        before = len(self._entries)
        super().record_operation(op_def, inputs, attrs, outputs)
        verdict = "recorded" if len(self._entries) > before else "dropped"
        print(f"  offered {op_def.name:<8} inputs {[t._id for t in inputs]} -> {verdict}")


c, k = tf.constant(3.0), tf.constant(2.0)
with seams.using(tape=LoggingTape):
    with tf.GradientTape() as lt:                      # a LoggingTape: the seam chose it
        lt.watch(c)
        y = c * k + k * k
    print(type(lt).__name__, "says dy/dc =", float(lt.gradient(y, c)))

# %% [markdown]
# `k * k` was offered and dropped: neither input is watched. In TF 2.21 the hook is in C++: the eager
# fast path that runs the kernel (`TFE_Py_FastPathExecute`, lesson 10) records the op on the active
# tapes; from Python, `_execute.record_gradient(op_name, inputs, attrs, outputs)` does the same
# (the slow path of each generated op calls it), and `record.record_operation(op_type, outputs,
# inputs, backward_function)` records an op with its own backward function (`tf.custom_gradient`).
# A1's given class `RecordingTape` is such a protocol object: it passes every offered op to your
# `record`.
#
# ## 4. The order of the backward walk (3.3)
# A gradient function may run only when the gradient of its output is **complete**: when every op
# that used the output has delivered its part. Here is a program where that matters: `u` reaches
# `y` twice, directly and through `v = exp(u)`.

# %%
x = tf.constant(0.5)
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    u = x * 3.0
    v = tf.exp(u)
    y = u * v                 # dy/dx = 3 e^(3x) (1 + 3x)
right = float(tape.gradient(y, x))
print(f"tape.gradient: {right:.5f}, the formula: {3 * np.exp(1.5) * 2.5:.5f}")
viz.draw_tape(tape, target=y)

# %% [markdown]
# A natural first try is recursive: deliver a gradient to a tensor, then at once run the op that
# made the tensor, and so on down. Below it runs on the tape's own records (`e.input_grads([g])` calls
# a record's registered gradient function), in three variants of "at once":

# %%
entries = tape._entries
producer = {tid: e for e in entries for tid in e.output_ids}


def naive(target, source, mode):
    """The recursive walk. Returns (gradient of source, how many gradient functions ran)."""
    grads, ran, calls = {}, set(), [0]

    def deliver(tid, g):
        grads[tid] = grads[tid] + g if tid in grads else g
        e = producer.get(tid)
        if e is None or (mode == "once" and id(e) in ran):
            return
        ran.add(id(e))
        calls[0] += 1
        upstream = grads[tid] if mode == "total" else g     # "total": all that tid received so far
        for i, gi in zip(e.input_ids, e.input_grads([upstream])):
            if gi is not None:
                deliver(i, gi)

    deliver(target._id, tf.ones_like(target))
    return float(grads[source._id]), calls[0]


for mode, what in [("total", "pass on the total so far, each time"), ("once", "run each op once, at its "
                   "first gradient"), ("each", "pass on each contribution by itself")]:
    got, calls = naive(y, x, mode)
    verdict = "right" if abs(got - right) < 1e-4 * abs(right) else f"wrong by {got - right:+.4f}"
    print(f"{mode:<6} ({what}): {got:.5f} ({verdict}), {calls} gradient-function calls")
print(f"the tape: {right:.5f}, {len(entries)} gradient-function calls")

# %% [markdown]
# Passing on the total **double-counts**: op 1 (`u = 3x`) runs once with `u`'s first part, then again
# with the whole, so the first part reaches `x` twice. Running each op only once **misses**
# accumulation: op 1 runs before `v`'s part of `u`'s gradient arrived. Passing on each contribution
# separately is right (every gradient function here is linear in `upstream`), but it runs an op once
# per *path* from the target, and paths multiply. Stack the pattern `z = z * exp(z)` k times: each
# level doubles the paths.

# %%
for depth in (2, 4, 6, 8, 10):
    z0 = tf.constant(0.1)
    with tf.GradientTape(persistent=True) as deep:
        deep.watch(z0)
        z = z0
        for _ in range(depth):
            z = z * tf.exp(z)
    entries, producer = deep._entries, {tid: e for e in deep._entries for tid in e.output_ids}
    got, calls = naive(z, z0, "each")
    print(f"k = {depth:>2}: {len(entries):>2} ops on the tape; 'each' ran {calls:>5} gradient functions "
          f"({'the same gradient' if abs(got - float(deep.gradient(z, z0))) < 1e-4 * abs(got) else 'a different gradient'})")

# %% [markdown]
# The fix: run each op **once**, and only **after every op that used its outputs** has run. An order
# with that property is a *reverse topological order* of the recorded graph, and the tape already
# has one. An op is recorded when it has run, and it could run only once its inputs existed, so
# the order of recording puts every producer before its consumers (a topological order); reversed,
# every consumer comes before the producers of its inputs. The engine's walk is simply newest op
# first (the step pictures at the top), summing the gradients that arrive at each tensor.
#
# TF's C++ tape does not rely on the recording order: its records sit in a hash map (op id → record).
# It **counts** instead: before the walk (`PrepareBackprop`) it counts, for each tensor, how many of
# the ops the target needs use it, and an op joins the stack of ops ready to run when the counts of
# all its outputs have dropped to zero (Kahn's algorithm, backwards). A1's `backward_order` gets the
# records in any order too, so you will need an order computed from the graph itself.
#
# ## 5. Broadcasting, undone: "unbroadcast" (3.3)
# Lesson 10's `x + b` with `x` of shape `(4, 3)` and `b` of shape `(3,)` uses each element of `b`
# once per row: four times. A value used several times receives the **sum** of the gradients of
# its uses (the accumulation above), so `b`'s gradient is `upstream` **summed over the broadcast
# axis**, and has `b`'s shape.

# %%
xb = tf.reshape(tf.range(12.0), [4, 3])
bb = tf.constant([1.0, 2.0, 3.0])
up = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) % 3 - 1)     # a seed other than ones
with tf.GradientTape(persistent=True) as tape:
    tape.watch([xb, bb])
    z = xb + bb
gx, gb = tape.gradient(z, [xb, bb])
print("seed of ones:   x gets shape", gx.shape, "and b gets", gb.numpy(), "(4 rows, summed)")
gx, gb = tape.gradient(z, [xb, bb], output_gradients=up)
print("seed `up`:      b gets", gb.numpy(), "= up summed over axis 0:", tf.reduce_sum(up, axis=0).numpy())

col = tf.constant([[1.0], [2.0], [3.0], [4.0]])              # shape (4, 1): repeated along axis 1
with tf.GradientTape() as tape:
    tape.watch(col)
    z = xb * col
g = tape.gradient(z, col)
print("x * col, col (4, 1): col gets", g.numpy().ravel(), "with shape", g.shape,
      "= each row of x summed:", tf.reduce_sum(xb, axis=1).numpy())

# %% [markdown]
# The rule, for an input of shape `s` broadcast to the output's shape: line the shapes up from the
# right; sum the gradient over the leading axes `s` does not have, and over the axes where `s` has
# size 1 and the output does not (keeping them); then reshape to `s`. The gradient function of each
# broadcasting op applies this rule, called `unbroadcast`, to each input's gradient. AddV2's, from
# the registry row:

# %%
print(inspect.getsource(registry.get_op("AddV2").grad))

# %% [markdown]
# TF 2.21 does the same in `_AddGrad` (`math_grad.py`): `SmartBroadcastGradientArgs` finds the axes to
# sum (in a graph from the static shapes when it can; otherwise, and always when executing eagerly,
# with the op `BroadcastGradientArgs`, which for `[4, 3]` and `[3]` says `r0 = []`, `r1 = [0]`), then
# `reduce_sum(grad, axes, keepdims=True)` and `reshape` to the input's shape. Writing `unbroadcast`
# is task 4 of A1.
#
# ## 6. Watching, persistent and nested tapes, `stop_gradient` (3.4)
# Trainable variables are watched automatically; constants are not, until you `watch` them.

# %%
c = tf.constant(3.0)
with tf.GradientTape() as tape:
    y = c * c
print("unwatched:", tape.gradient(y, c))
with tf.GradientTape() as tape:
    tape.watch(c)
    y = c * c
print("watched:", tape.gradient(y, c))

# %% [markdown]
# A plain tape answers one `gradient` call; `persistent=True` answers several (section 7 says why).

# %%
with tf.GradientTape(persistent=True) as tape:
    tape.watch(c)
    y = c * c
    z = y * y
print(tape.gradient(y, c), tape.gradient(z, c))
del tape                                          # a persistent tape keeps its records until it is deleted
gc.collect();

# %% [markdown]
# ### Nested tapes: second derivatives
# Gradient functions are themselves engine ops, so an outer tape records the inner backward walk.

# %%
x = tf.Variable(2.0)
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        y = x ** 3
    dy = inner.gradient(y, x)       # 3x² = 12
d2y = outer.gradient(dy, x)         # 6x = 12
print(float(dy), float(d2y))

# %% [markdown]
# ### `stop_gradient`: a wall for the backward walk

# %%
with tf.GradientTape() as tape:
    y = x * tf.stop_gradient(x)     # treated as x * const
print(tape.gradient(y, x))          # 2.0, not 4.0

# %% [markdown]
# ## 7. Why a non-persistent tape frees memory (3.4)
# The records hold the values the gradient functions will read (section 2), and in a real model
# those are the activations of every layer: often a large share of the memory a training step
# uses. A plain tape drops its records in its first `gradient` call; a second call raises
# `RuntimeError` (TF 2.21: "A non-persistent GradientTape can only be used to compute one set of
# gradients (or jacobians)"). `persistent=True` keeps them for more calls, until the tape goes away.
# What each op's record keeps, from the registry rows:

# %%
def say(keep):
    return "all" if keep is True else "none" if keep is False else f"#{list(keep)}"


for name in ["AddV2", "Sub", "Mul", "MatMul", "Exp", "Relu", "Tanh", "Sum", "Neg"]:
    r = registry.get_op(name)
    print(f"{name:<7} keeps inputs: {say(r.saves_inputs):<5} outputs: {say(r.saves_outputs)}")

# %% [markdown]
# Measured: a weak reference (which does not keep its object alive) to the output of an `Exp`,
# 2 MB that only the tape still holds, before and after `gradient`:

# %%
def exp_on_tape(persistent):
    big = tf.constant(np.ones((500, 500)))             # 2 MB of float64
    tape = tf.GradientTape(persistent=persistent)
    with tape:
        tape.watch(big)
        e = tf.exp(big)                                 # Exp's gradient reads its output: the tape keeps it
        out = tf.reduce_sum(e)
    return tape, big, out, weakref.ref(e._value)       # e itself is gone with this function's frame


for persistent in (False, True):
    tape, big, out, exp_value = exp_on_tape(persistent)
    alive = [exp_value() is not None]
    tape.gradient(out, big)
    gc.collect()
    alive.append(exp_value() is not None)
    try:
        tape.gradient(out, big)
        second = "a second gradient works"
    except RuntimeError as error:
        second = f"a second gradient raises RuntimeError: {error}"
    del tape
    gc.collect()
    alive.append(exp_value() is not None)
    print(f"persistent={persistent}: Exp's output alive before gradient {alive[0]}, after {alive[1]}, "
          f"after `del tape` {alive[2]}; {second}")

# %% [markdown]
# TF 2.21 does the same, and sooner: `gradient` on a non-persistent tape sets its `_tape` to `None`;
# before the walk the C++ tape erases the records the target does not need and deletes their
# backward functions (with the values they hold), and during the walk it deletes each remaining
# backward function as soon as it has run. (The engine lets go of its records when the walk ends.)
#
# ## 8. Checking gradients with finite differences
# A gradient rule can be wrong and still give plausible numbers. The check is old and simple, and
# it is the habit micrograd's walkthrough starts with: nudge the input by a small `h` and watch
# the output move. The central difference `(f(x + h) - f(x - h)) / 2h` has an error of order h²
# (the one-sided `(f(x + h) - f(x)) / h` only of order h), but rounding adds an error of order
# ε/h (ε: the dtype's precision), so `h` can be too small as well as too big. Measured for
# `f(x) = tanh(x) · e^x` at 0.7, against the tape's exact gradient in float64:

# %%
def f(t):
    return tf.tanh(t) * tf.exp(t)


x64 = tf.constant(0.7, tf.float64)
with tf.GradientTape() as tape:
    tape.watch(x64)
    fx = f(x64)
exact = float(tape.gradient(fx, x64))
hs = 10.0 ** -np.arange(1, 13)
fig, ax = plt.subplots(figsize=(5.5, 3.2))
for dtype, style in ((tf.float32, "o"), (tf.float64, "s")):
    xd = tf.constant(0.7, dtype)
    central = [abs(float((f(xd + h) - f(xd - h)) / (2 * h)) - exact) for h in hs]
    forward = [abs(float((f(xd + h) - f(xd)) / h) - exact) for h in hs]
    ax.loglog(hs, np.maximum(central, 1e-17), style + "-", label=f"central, {dtype.name}")
    ax.loglog(hs, np.maximum(forward, 1e-17), style + ":", label=f"one-sided, {dtype.name}", alpha=0.6)
    best = int(np.argmin(central))
    print(f"{dtype.name}: the best h is {hs[best]:.0e} (error {central[best]:.1e}); at h = {hs[-1]:.0e} "
          f"the error is {central[-1]:.1e}; machine epsilon {np.finfo(dtype.as_numpy_dtype).eps:.1e}")
ax.set_xlabel("h"); ax.set_ylabel("|estimate - exact|"); ax.legend(fontsize=7); ax.invert_xaxis()
ax.set_title("finite-difference error: truncation (left) vs rounding (right)")
plt.show()

# %% [markdown]
# So check in **float64**, with a moderate `h` (TF's `tf.test.compute_gradient` uses 1/1024 by
# default: a power of two, exactly representable, which avoids one rounding). It returns the
# Jacobian from the tape ("theoretical") and from central differences ("numerical") for each input;
# the engine has it too (its default `delta` differs, so we pass TF's):

# %%
theoretical, numerical = tf.test.compute_gradient(lambda t: tf.tanh(t) * t,
                                                   [tf.constant([0.5, -1.0, 2.0], tf.float64)], delta=1 / 1024)
print("largest difference between the two Jacobians:", f"{np.abs(theoretical[0] - numerical[0]).max():.1e}")

# %% [markdown]
# Exercise 9 has you write a checker of your own and run it on several ops, one of them with a
# gradient rule broken on purpose. In A1, check every gradient you write this way.
#
# ## 9. Measured: what recording costs per op
# Each op run under a tape pays for the offer and for the record. The median of 7 rounds of 2000
# scalar adds, with and without a recording tape (on a shared 2-core machine the spread is wide,
# and a difference smaller than it is noise):

# %%
a = tf.constant(1.0)


def per_op_us(record, n=2000, rounds=7):
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        if record:
            with tf.GradientTape() as t:
                t.watch(a)
                for _ in range(n):
                    a + a
        else:
            for _ in range(n):
                a + a
        times.append((time.perf_counter() - t0) / n * 1e6)
    times.sort()
    return times[rounds // 2], times[0], times[-1]


(plain, p_lo, p_hi), (recorded, r_lo, r_hi) = per_op_us(False), per_op_us(True)
print(f"per op: {plain:.2f} µs plain (spread {p_lo:.2f}-{p_hi:.2f}), {recorded:.2f} µs under a recording tape "
      f"(spread {r_lo:.2f}-{r_hi:.2f})")
extra = recorded - plain
print(f"recording adds {extra:.2f} µs per op ({extra / plain:+.0%})"
      + (": more than the spread of the rounds" if r_lo > p_hi else ": within the spread of the rounds, so not "
         "measured reliably in this run"))

# %% [markdown]
# ## Exercises (self-checked)
# Fill in each function in the cells below (replace `raise NotImplementedError()`), then run the
# self-check cell after them: it says, exercise by exercise, what is right and what is not yet.
# `f` is always a Python function of tensors made of engine ops, such as `lambda x: x ** 3`.
#
# 1. `derivative(f, x0)`: f'(x0) from one `GradientTape` (put the Python float `x0` in a
#    `tf.Variable`), as a Python float. `central_difference(f, x0, h)`: the finite-difference
#    estimate `(f(x0 + h) - f(x0 - h)) / (2 * h)`, with no tape, as a Python float. Reverse mode
#    gets the exact derivative from one backward walk (for every source at once); the finite
#    difference is approximate and costs two evaluations of `f` per input. The self-check compares
#    the two, and wants the seed's `derivative(lambda x: x ** 3, 2.0) == 12.0` (3.5).

# %% nbgrader={"grade": false, "grade_id": "ex20_derivative", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["3.1", "3.3", "3.5"]
def derivative(f, x0):
    # YOUR CODE HERE
    raise NotImplementedError()


def central_difference(f, x0, h=1e-3):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% [markdown]
# 2. `exp_mul_vjp(x, b, upstream)`: for `y = tf.exp(x * b)` with `x` of shape `(n, m)` and `b` of
#    shape `(m,)`, return `(grad_x, grad_b)`, what
#    `tape.gradient(y, [x, b], output_gradients=upstream)` gives, but **by hand, without a tape**:
#    walk the two ops newest first (`Exp`, then `Mul`) with the rules of sections 1 and 5. Engine
#    ops or NumPy.

# %% nbgrader={"grade": false, "grade_id": "ex20_vjp", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["3.3"]
def exp_mul_vjp(x, b, upstream):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% [markdown]
# 3. `watched_gradient(f, c, k)`: `c` and `k` are constant tensors. Compute `y = f(c, k)` under a
#    tape that watches `c` and nothing else, and return `(dy/dc, ops)`, where `ops` is the list of
#    the op types the tape recorded (`[e.type for e in tape._entries]`, as above), in order. Only
#    the ops that touch a watched value are recorded (3.2). Careful: a non-persistent tape drops its
#    records when `gradient` runs; read them first (or make the tape persistent).

# %% nbgrader={"grade": false, "grade_id": "ex20_watch", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["3.2", "3.4"]
def watched_gradient(f, c, k):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% [markdown]
# 4. `offered_ops(f, c, k)`: the same computation, but return `(ops, dy/dc)` where `ops` lists the
#    op types the engine **offered** to the tape (section 3), in order: every op that ran inside the
#    `with` block, recorded or not. Write a subclass of `tf.GradientTape` whose `record_operation`
#    notes each offer and then lets the real tape do its work (`super()`), and put it in the seam
#    with `seams.using(tape=...)`, so that a plain `tf.GradientTape()` builds it. Its gradient must
#    still be right.

# %% nbgrader={"grade": false, "grade_id": "ex20_seam", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["3.2"]
def offered_ops(f, c, k):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% [markdown]
# 5. `is_backward_order(order)`: `order` is a list of records (objects with `input_ids` and
#    `output_ids`, as `tape._entries` holds), each once. Return `True` if the walk may visit them
#    in that order: every record comes **before** every record that produced one of its inputs
#    (consumers first, section 4), else `False`.

# %% nbgrader={"grade": false, "grade_id": "ex20_order", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["3.3"]
def is_backward_order(order):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% [markdown]
# 6. `broadcast_add_grads(upstream)`: for `z = x + b + c` with `x` of shape `(2, 3, 4)`, `b` of shape
#    `(3, 1)` and `c` a scalar (shape `()`), `upstream` being the gradient arriving at `z` (shape
#    `(2, 3, 4)`), return `(grad_x, grad_b, grad_c)`, each with its input's shape, by hand
#    (section 5): `tf.reduce_sum` over the right axes, and `tf.reshape`.

# %% nbgrader={"grade": false, "grade_id": "ex20_unbroadcast", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["3.3"]
def broadcast_add_grads(upstream):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% [markdown]
# 7. `second_derivative(f, x0)`: f''(x0) with two nested tapes (the inner one's `gradient` must run
#    while the outer one records), as a Python float.

# %% nbgrader={"grade": false, "grade_id": "ex20_nested", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["3.4"]
def second_derivative(f, x0):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% [markdown]
# 8. `kept_bytes(tape)`: how many bytes of tensor values the tape's records keep alive (section 7):
#    the sum of `t.numpy().nbytes` over the **distinct** (by `_id`) inputs and outputs of
#    `tape._entries` that are tensors (`isinstance(t, tf.Tensor)`); shape-only records and variables
#    do not count. A tape whose records are gone (`tape._entries is None`) keeps 0 bytes.

# %% nbgrader={"grade": false, "grade_id": "ex20_memory", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["3.2", "3.4"]
def kept_bytes(tape):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% [markdown]
# 9. `grad_check(f, x, h=1e-6)`: `x` is a float64 tensor of any shape, `f` a function of one tensor
#    returning a tensor. Compute the gradient of `tf.reduce_sum(f(x))` with respect to `x` with a
#    tape, and again with central differences, one element of `x` at a time (nudge element `i` by
#    `+h` and `-h`: for instance on a NumPy copy, `x.numpy().copy()`). Return the largest absolute
#    difference between the two, as a Python float. The self-check uses it on several ops, and on
#    one whose gradient rule it breaks on purpose: your checker must catch that one.

# %% nbgrader={"grade": false, "grade_id": "ex20_gradcheck", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["3.1", "3.3"]
def grad_check(f, x, h=1e-6):
    # YOUR CODE HERE
    raise NotImplementedError()


# %% nbgrader={"grade": false, "grade_id": "check20", "locked": true, "schema_version": 3, "solution": false, "task": false}
import itertools
from autograder.selfcheck import check, run_checks


def _close(got, want, tol=1e-5):
    return abs(got - want) <= tol * max(1.0, abs(want))


def _call(fn, *args, hint):
    """``fn(*args)``; a TypeError about None (``float(None)``, iterating None) becomes the hint."""
    try:
        return fn(*args)
    except TypeError as error:
        if "NoneType" not in str(error):
            raise
        raise AssertionError(f"{error}: {hint}") from None


def _check_derivative():
    cube = lambda x: x ** 3
    unwatched = ("the gradient was None: the tape follows only what it watches; put x0 in a "
                 "tf.Variable (or tape.watch a constant)")
    got = _call(derivative, cube, 2.0, hint=unwatched)
    check(got is not None, f"derivative(x**3, 2.0) returned None; {unwatched}")
    check(isinstance(got, float), f"return a Python float (float(...)), not {type(got).__name__}")
    check(abs(got - 12.0) < 1e-6, f"derivative(lambda x: x ** 3, 2.0) should be the seed's 12.0 "
                                  f"(3 * 2**2), got {got}")
    g = lambda w: w ** 2 * tf.exp(w)
    for w in (-1.5, 0.3, 1.0):
        want = (2 * w + w ** 2) * np.exp(w)
        got = _call(derivative, g, w, hint=unwatched)
        check(_close(got, want), f"d/dw (w**2 * exp(w)) at {w} is (2w + w**2) e^w = {want:.6f}, got {got}")
    fd = central_difference(cube, 2.0, 0.1)
    check(isinstance(fd, float), f"central_difference: return a Python float, not {type(fd).__name__}")
    want = (2.1 ** 3 - 1.9 ** 3) / 0.2
    forward = (2.1 ** 3 - 2.0 ** 3) / 0.1
    check(not _close(fd, forward, 1e-4), f"central_difference(x**3, 2.0, h=0.1) = {fd:.4f} is the "
                                         f"one-sided (f(x+h) - f(x)) / h; use (f(x+h) - f(x-h)) / (2h)")
    check(_close(fd, want, 1e-4), f"central_difference(x**3, 2.0, h=0.1) should be "
                                  f"(f(2.1) - f(1.9)) / 0.2 = {want:.4f}, got {fd}")
    for w in (-1.5, 0.3, 1.0):
        d, fd = derivative(g, w), central_difference(g, w, 1e-3)
        check(_close(fd, d, 1e-3), f"at w = {w} the tape says {d:.6f} and the central difference "
                                   f"(h = 1e-3) {fd:.6f}: they should agree to about 1e-3")


def _check_vjp():
    rng = np.random.default_rng(20)
    x = tf.constant(rng.normal(size=(2, 3)).astype(np.float32))
    b = tf.constant(rng.normal(size=(3,)).astype(np.float32))
    upstream = tf.constant(rng.normal(size=(2, 3)).astype(np.float32))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, b])
        y = tf.exp(x * b)
    want_x, want_b = (g.numpy() for g in tape.gradient(y, [x, b], output_gradients=upstream))
    ones_x, ones_b = (g.numpy() for g in tape.gradient(y, [x, b]))
    got_x, got_b = (np.asarray(g) for g in exp_mul_vjp(x, b, upstream))
    check(got_x.shape == (2, 3), f"grad_x must have x's shape (2, 3), it has {got_x.shape}")
    check(got_b.shape == (3,), f"grad_b must have b's shape (3,): b was broadcast along axis 0, so sum "
                               f"over axis 0 (only); it has shape {got_b.shape}")
    _show = lambda a: np.round(np.asarray(a, dtype=np.float64), 4).tolist()
    close = lambda got, want: np.allclose(got, want, rtol=1e-4, atol=1e-6)
    check(not (close(got_x, ones_x) and close(got_b, ones_b)),
          "you return the gradients for a seed of ones: multiply by `upstream`, the gradient arriving at y")
    check(close(got_x, want_x), f"grad_x should be upstream * exp(x*b) * b = {_show(want_x)}, "
                                f"got {_show(got_x)}")
    check(close(got_b, want_b), f"grad_b should be sum over axis 0 of upstream * exp(x*b) * x = "
                                f"{_show(want_b)}, got {_show(got_b)}")


def _ref_ops(f, c, k):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(c)
        f(c, k)
    return [e.type for e in tape._entries]


def _check_watch():
    c, k = tf.constant(3.0), tf.constant(2.0)
    cases = [(lambda c, k: c * k + k * k, "c * k + k * k", float(k), "k * k"),
             (lambda c, k: tf.exp(k) * tf.sin(c), "exp(k) * sin(c)", float(np.exp(2.0) * np.cos(3.0)), "exp(k)")]
    for f, text, want, unwatched in cases:
        grad, ops = _call(watched_gradient, f, c, k,
                          hint="after gradient(), a non-persistent tape's records are gone (tape._entries "
                               "is None); read them before, or use persistent=True")
        check(grad is not None, f"the gradient of {text} with respect to c is None: c is a constant, the "
                                f"tape follows it only after tape.watch(c), inside the with block")
        check(_close(float(grad), want), f"d({text})/dc should be {want:.6f}, got {float(grad)}")
        ops, ref = list(ops), _ref_ops(f, c, k)
        check(ops != [], f"for {text} your list of recorded ops is empty; the tape recorded {ref}")
        check(len(ops) <= len(ref), f"for {text} you list {ops}, but {unwatched} touches nothing "
                                    f"watched and is not recorded: watch c only; expected {ref}")
        check(ops == ref, f"for {text} the tape records {ref} (in that order), you list {ops}")


def _check_seam():
    c, k = tf.constant(3.0), tf.constant(2.0)
    cases = [(lambda c, k: c * k + k * k, "c * k + k * k", ["Mul", "Mul", "AddV2"], float(k)),
             (lambda c, k: tf.exp(k) * tf.sin(c), "exp(k) * sin(c)", ["Exp", "Sin", "Mul"],
              float(np.exp(2.0) * np.cos(3.0))),
             (lambda c, k: tf.cast(c > k, tf.float32) * c, "cast(c > k) * c", ["Greater", "Cast", "Mul"], 1.0)]
    for f, text, want, dc in cases:
        got = offered_ops(f, c, k)
        check(isinstance(got, tuple) and len(got) == 2, "return a pair (ops, gradient)")
        ops, grad = got
        ops = list(ops)
        recorded = _ref_ops(f, c, k)
        check(ops != recorded or ops == want, f"for {text} you list {ops}: what the tape recorded; list what "
                                              f"it was offered (record_operation is called for every op)")
        check(ops == want, f"for {text} the engine offers {want}, in that order; you list {ops}")
        check(grad is not None and _close(float(grad), dc),
              f"for {text} dy/dc is {dc:.6f}, your tape says {grad}: call super().record_operation(...) "
              f"so the real tape still records")
    check(not seams.seam("tape").replaced, "the tape seam is still replaced after offered_ops: use "
                                           "`with seams.using(tape=...)`, which restores it")


class _Rec:
    def __init__(self, name, inputs, outputs):
        self.name, self.input_ids, self.output_ids = name, tuple(inputs), tuple(outputs)

    def __repr__(self):
        return self.name


def _check_order():
    # the diamond of section 4: op1 u = x * 3, op2 v = exp(u), op3 y = u * v: only [op3, op2, op1]
    op1, op2, op3 = _Rec("op1", [1, 2], [3]), _Rec("op2", [3], [4]), _Rec("op3", [3, 4], [5])
    for order in itertools.permutations([op1, op2, op3]):
        want = list(order) == [op3, op2, op1]
        got = is_backward_order(list(order))
        check(got in (True, False), f"return True or False, not {got!r}")
        check(got == want, f"is_backward_order({list(order)}) should be {want}: op3 reads the outputs of op1 and "
                           f"op2, op2 reads op1's")
    # two branches E, F from tensor 1 into G: [G, E, F] and [G, F, E] are both right
    e, f_, g = _Rec("E", [1], [2]), _Rec("F", [1], [3]), _Rec("G", [2, 3], [4])
    for order in itertools.permutations([e, f_, g]):
        want = order[0] is g
        got = is_backward_order(list(order))
        check(got == want, f"is_backward_order({list(order)}) should be {want}: G reads E's and F's outputs, E "
                           f"and F do not depend on each other")
    x = tf.constant(0.3)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        u = tf.exp(x)
        y = u * x + tf.sin(u)
    entries = tape._entries
    check(is_backward_order(list(reversed(entries))), "the reversed order of recording is always a valid order")
    check(not is_backward_order(list(entries)), "the order of recording itself (producers first) is not")


def _check_unbroadcast():
    rng = np.random.default_rng(21)
    up = tf.constant(rng.normal(size=(2, 3, 4)).astype(np.float32))
    x = tf.constant(rng.normal(size=(2, 3, 4)).astype(np.float32))
    b = tf.constant(rng.normal(size=(3, 1)).astype(np.float32))
    c = tf.constant(0.5)
    with tf.GradientTape() as tape:
        tape.watch([x, b, c])
        z = x + b + c
    want = [g.numpy() for g in tape.gradient(z, [x, b, c], output_gradients=up)]
    got = broadcast_add_grads(up)
    check(isinstance(got, (tuple, list)) and len(got) == 3, "return three gradients (grad_x, grad_b, grad_c)")
    for name, shape, g, w in zip("xbc", [(2, 3, 4), (3, 1), ()], got, want):
        g = np.asarray(g)
        check(g.shape == shape, f"grad_{name} must have {name}'s shape {shape}, it has {g.shape}")
        check(np.allclose(g, w, rtol=1e-4, atol=1e-5), f"grad_{name} should be {np.round(w, 3).tolist()}, "
                                                         f"got {np.round(g, 3).tolist()}")


def _check_nested():
    cases = [(lambda w: w ** 4, "w**4", 1.0, lambda w: 4 * w ** 3, lambda w: 12 * w ** 2),
             (tf.sin, "sin(w)", 0.5, np.cos, lambda w: -np.sin(w)),
             (lambda w: w ** 2 * tf.exp(w), "w**2 * exp(w)", 1.0,
              lambda w: (2 * w + w ** 2) * np.exp(w), lambda w: (2 + 4 * w + w ** 2) * np.exp(w))]
    for f, text, w, d1, d2 in cases:
        nothing = ("the outer tape recorded nothing, so its gradient is None; call inner.gradient "
                   "inside the outer tape's with block")
        got = _call(second_derivative, f, w, hint=nothing)
        check(got is not None, f"second_derivative of {text} is None: {nothing}")
        check(isinstance(got, float), f"return a Python float (float(...)), not {type(got).__name__}")
        check(not _close(got, d1(w)), f"for {text} at {w} you return {got}, the first derivative; "
                                      f"differentiate it once more with the outer tape")
        check(_close(got, d2(w)), f"the second derivative of {text} at {w} is {d2(w):.6f}, got {got}")


def _check_memory():
    n = 1000
    for persistent in (False, True):
        xm = tf.constant(np.linspace(0.0, 1.0, n).astype(np.float32))
        with tf.GradientTape(persistent=persistent) as tape:
            tape.watch(xm)
            ym = tf.exp(xm)           # keeps its output ym
            zm = ym + 1.0             # keeps nothing
            wm = zm * xm              # keeps its inputs zm and xm
        got = kept_bytes(tape)
        check(isinstance(got, (int, np.integer)), f"return an int (bytes), not {type(got).__name__}")
        want = 3 * 4 * n
        check(got != 4 * 4 * n, f"you count {got} bytes: count each tensor once (by _id), and shape-only records "
                                f"not at all")
        check(got == want, f"Exp keeps its output, Add nothing, Mul its two inputs: 3 float32 vectors of {n}, "
                           f"{want} bytes; you count {got}")
        tape.gradient(wm, xm)
        after = kept_bytes(tape)
        want_after = want if persistent else 0
        check(after == want_after, f"after gradient a {'persistent' if persistent else 'non-persistent'} tape "
                                   f"keeps {want_after} bytes; you count {after}")
    v = tf.Variable(np.ones(n, np.float32))
    with tf.GradientTape() as tape:
        s = v + 1.0               # ReadVariableOp holds the variable, Add keeps nothing
    check(kept_bytes(tape) == 0, f"a variable and shape-only records keep no tensor value: expected 0, "
                                 f"got {kept_bytes(tape)}")


def _wrong_sin_grad(op, grad):
    return grad * tf.sin(op.inputs[0])        # the right rule is grad * cos(x)


def _check_gradcheck():
    rng = np.random.default_rng(22)
    x = tf.constant(rng.normal(size=(3, 4)))
    w = tf.constant(rng.normal(size=(4, 2)))
    bias = tf.constant(rng.normal(size=(4,)))
    ops = {"exp": tf.exp, "tanh": tf.tanh, "x * x": lambda t: t * t, "matmul": lambda t: tf.matmul(t, w),
           "x + bias (broadcast)": lambda t: (t + bias) ** 2, "reduce_sum over axis 1": lambda t: tf.reduce_sum(t, 1) ** 2,
           "relu": tf.nn.relu}
    for name, fn in ops.items():
        err = grad_check(fn, x)
        check(isinstance(err, float), f"return a Python float, not {type(err).__name__}")
        check(err < 1e-5, f"for {name} the engine's gradient is right, but your check finds a difference of {err:.2e}")
    with registry.override("Sin", grad=_wrong_sin_grad):
        err = grad_check(tf.sin, x)
    check(err > 0.1, f"with Sin's gradient rule broken (sin instead of cos), your check says {err:.2e}: it "
                     f"should see a large difference")
    xs = tf.constant(rng.normal(size=(5,)))
    check(grad_check(tf.sin, xs) < 1e-5, "with the right rule back, tf.sin must pass")


run_checks({"1. derivative and central_difference (3.1, 3.3, 3.5)": _check_derivative,
            "2. exp_mul_vjp (3.3)": _check_vjp,
            "3. watched_gradient (3.2, 3.4)": _check_watch,
            "4. offered_ops (3.2)": _check_seam,
            "5. is_backward_order (3.3)": _check_order,
            "6. broadcast_add_grads (3.3)": _check_unbroadcast,
            "7. second_derivative (3.4)": _check_nested,
            "8. kept_bytes (3.2, 3.4)": _check_memory,
            "9. grad_check (3.1, 3.3)": _check_gradcheck})

# %% [markdown]
# Your checker at work (this cell prints its verdicts once exercise 9 is done): each gradient rule
# of the ops that A1's task 5 asks for, checked against central differences in float64, at random
# points drawn here.

# %%
rng = np.random.default_rng()
xc, wc, bc = (tf.constant(rng.normal(size=s)) for s in [(3, 4), (4, 2), (4,)])
to_check = {"AddV2 (broadcast)": lambda t: (t + bc) ** 2, "Sub": lambda t: (bc - t) ** 2, "Mul": lambda t: t * t,
            "MatMul": lambda t: tf.matmul(t, wc), "Exp": tf.exp, "Sum": lambda t: tf.reduce_sum(t, axis=1) ** 2,
            "Relu": tf.nn.relu, "Neg": lambda t: -t * t}
try:
    for name, fn in to_check.items():
        error = grad_check(fn, xc)
        print(f"{name:<18} largest difference {error:.1e}: {'passes' if error < 1e-5 else 'FAILS'}")
except NotImplementedError:
    print("grad_check is not written yet (exercise 9)")

# %% [markdown]
# ## Interview question
# > *"How does TensorFlow implement automatic differentiation? What is the principle of GradientTape?"*
#
# Runnable answer: record the forward ops, then walk them backwards with the chain rule; the
# tape is explicit: several tapes, nested tapes, `watch` for non-variables.

# %%
x = tf.Variable(2.0)
with tf.GradientTape(persistent=True) as tape:
    y = x ** 3
print("recorded:", [e.type for e in tape._entries])
print("dy/dx =", float(tape.gradient(y, x)), "= 3 * 2**2")

# %% [markdown]
# ## Build it yourself
#
# **A1, build your own GradientTape** (20 points, 4–6 h): the recorder, the order of the backward
# walk, the walk itself, un-broadcasting, the gradients of eight ops, and the tape, which then
# replaces TensorFlow's inside the engine (`engine.seams.using(tape=...)`).
#
# Fetch it from the *Assignment List* (Nbgrader menu): it lands in a folder of its name in the course
# root. Work there, and check your work with `python -m autograder check <name>.ipynb` in that folder.
