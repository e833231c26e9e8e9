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

# %%
import time
import numpy as np
import matplotlib
import matplotlib.pyplot as plt
import engine as tf
from engine import viz

a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
b = a @ a + 1.0          # runs now
print(b)                 # a concrete value, not a symbolic node
print(tf.executing_eagerly())

# %% [markdown]
# ## "Runs immediately" means Python control flow and debuggers just work
# The value exists at once, so a plain `if` on it works, and `pdb` can inspect it.

# %%
x = tf.constant(3.0)
if x > 2.0:               # a real Python bool from a real value
    y = x * 2.0
else:
    y = x
print(float(y))

# %% [markdown]
# ## NumPy interop
# `.numpy()` gives a NumPy array; NumPy arrays become tensors when passed to ops.

# %%
arr = np.arange(6, dtype=np.float32).reshape(2, 3)
t = tf.constant(arr)
print(t.numpy() is not arr, np.asarray(tf.reduce_sum(t)), (t * 2).numpy())

# %% [markdown]
# ## TF's dtype rules: no implicit promotion
# NumPy happily adds `float32 + float64`; TensorFlow refuses. Python scalars adopt the tensor's dtype.

# %%
print((tf.constant(1.0) + 2).dtype)                       # float32: the Python scalar adapts
try:
    tf.constant(1.0, dtype=tf.float32) + tf.constant(1.0, dtype=tf.float64)
except (tf.errors.InvalidArgumentError, TypeError) as e:
    print(type(e).__name__, str(e)[:90])
print((np.float32(1) + np.float64(1)).dtype)              # NumPy promotes silently

# %% [markdown]
# ## The price: per-op overhead, measured here (1.7)
# Each eager op goes through Python dispatch. For tiny tensors that cost dominates; for big
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
# came in this run; the bars show the spread of the 7 rounds). TF2's own eager dispatch is ~17 µs per op,
# which is why `tf.function` (lesson 40) exists.
#
# A picture of what ran: the tape (lesson 20) records eagerly executed ops as they happen.

# %%
v = tf.Variable(2.0)
with tf.GradientTape(persistent=True) as tape:
    z = v * 3.0 + 1.0
viz.draw_tape(tape)

# %% [markdown]
# ## Exercises (self-checked)
# Fill in each function in the cell below (replace `raise NotImplementedError()`), then run the
# self-check cell after it: it says, exercise by exercise, what is right and what is not yet.
#
# 1. `float64_sum(t)`: the sum of all elements of the float32 tensor `t`, as a **float64** scalar
#    tensor. TF will not add float32 to float64 for you (see above): convert first (`tf.cast`).
# 2. `crossover(sizes, engine_us, numpy_us)`: the first size at which the engine's add costs at most
#    twice NumPy's, from the timings measured above (`None` if there is none). At that size the
#    arithmetic, not the dispatch, dominates (1.7).

# %% nbgrader={"grade": false, "grade_id": "ex10", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.6", "1.7"]
def float64_sum(t):
    ### BEGIN SOLUTION
    return tf.reduce_sum(tf.cast(t, tf.float64))
    ### END SOLUTION


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


def _check_crossover():
    check(crossover([1, 10, 100], [9.0, 8.0, 9.0], [1.0, 3.0, 5.0]) == 100, "with these timings the answer is 100")
    check(crossover([1, 10], [9.0, 9.0], [1.0, 1.0]) is None, "no size within 2x: the answer is None")
    got = crossover(sizes, eng, npy)
    check(got is None or got in sizes, f"{got!r} is not one of the measured sizes")


run_checks({"1. float64_sum (1.6)": _check_sum, "2. crossover (1.7)": _check_crossover})

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
