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

# %%
import gc
import numpy as np
import engine as tf
from engine import viz

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
# ## The seed's example (3.5): `x**3` at 2 gives 12.0

# %%
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    y = x ** 3
print(tape.gradient(y, x))

# %% [markdown]
# ## `watch` for tensors that are not Variables (3.4)
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
# ## Persistent tapes, and why non-persistent tapes free memory
# A plain tape drops its records after the first `gradient` call (a second call raises
# `RuntimeError`): the records keep the intermediate values the gradients need alive, and big
# models have many. `persistent=True` keeps them, for several gradients, until the tape goes away.

# %%
big = tf.constant(np.ones((500, 500)))
with tf.GradientTape() as tape:
    tape.watch(big)
    out = tf.reduce_sum(tf.exp(big))      # Exp keeps its 2 MB output for the gradient
print("records before:", len(tape._entries))
tape.gradient(out, big)
print("records after:", tape._entries)          # None: freed
try:
    tape.gradient(out, big)
except RuntimeError as e:
    print("RuntimeError:", e)

with tf.GradientTape(persistent=True) as tape:
    tape.watch(c)
    y = c * c
    z = y * y
print(tape.gradient(y, c), tape.gradient(z, c))
del tape; gc.collect()

# %% [markdown]
# ## Nested tapes: second derivatives
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
# ## `stop_gradient`: a wall for the backward walk

# %%
with tf.GradientTape() as tape:
    y = x * tf.stop_gradient(x)     # treated as x * const
print(tape.gradient(y, x))          # 2.0, not 4.0

# %% [markdown]
# ## Measured: what recording costs per op

# %%
import time
a = tf.constant(1.0)
def timed(n=2000, record=False):
    t0 = time.perf_counter()
    if record:
        with tf.GradientTape() as t:
            t.watch(a)
            for _ in range(n):
                a + a
    else:
        for _ in range(n):
            a + a
    return (time.perf_counter() - t0) / n * 1e6
print(f"per op: {timed():.2f} µs plain, {timed(record=True):.2f} µs under a recording tape")

# %% [markdown]
# ## Exercises (self-checked)
# 1. `g1`: the gradient of `sin`-free `f(w) = w**2 * exp(w)` at `w = 1.0` (use a tape).
# 2. `g2`: the second derivative of `w**4` at `w = 1.0` (nested tapes).

# %%
w = tf.Variable(1.0)
with tf.GradientTape() as t:
    f = w ** 2 * tf.exp(w)
g1 = t.gradient(f, w)
with tf.GradientTape() as t2:
    with tf.GradientTape() as t1:
        f = w ** 4
    d = t1.gradient(f, w)
g2 = t2.gradient(d, w)

# %%
assert abs(float(g1) - 3 * np.e) < 1e-5, g1
assert abs(float(g2) - 12.0) < 1e-5, g2
print("exercises OK")

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
# Open it under `course/assignments/`, and check your work with `python -m autograder check`.
