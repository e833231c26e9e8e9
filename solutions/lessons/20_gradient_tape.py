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
del tape                                          # a persistent tape keeps its records until it is deleted
gc.collect();

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
# ## What one backward step computes: a vector-Jacobian product (3.3)
# The walk never builds a Jacobian matrix. Each recorded op's gradient function receives the
# gradient arriving at the op's **output** (`upstream`, shaped like that output) and returns one
# gradient per **input**, each shaped like its input: `upstream · J`, a *vector-Jacobian product*.
# Chaining them, newest op first, is the chain rule. `tape.gradient(..., output_gradients=upstream)`
# starts the walk from your own `upstream` instead of ones. Two rules are enough for what follows:
# * elementwise ops multiply: for `z = tf.exp(u)`, the gradient of `u` is `upstream * z`; for
#   `z = x * b`, `x` gets `upstream * b` and `b` gets `upstream * x`;
# * an input that was **broadcast** gets the **sum** over the axes it was repeated along: in
#   `x + b` with `x.shape == (2, 3)` and `b.shape == (3,)`, `b` was repeated along axis 0, so its
#   gradient is `upstream` summed over axis 0.

# %%
xs = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
bs = tf.constant([1.0, 10.0, 100.0])
up = tf.constant([[1.0, 2.0, 0.0], [0.0, 3.0, 1.0]])     # a seed other than ones
with tf.GradientTape() as tape:
    tape.watch([xs, bs])
    z = xs + bs
gx, gb = tape.gradient(z, [xs, bs], output_gradients=up)
print("x gets upstream itself:", gx.numpy().tolist())
print("b gets upstream summed over axis 0:", gb.numpy().tolist(), "=", tf.reduce_sum(up, axis=0).numpy().tolist())

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
    ### BEGIN SOLUTION
    x = tf.Variable(x0)
    with tf.GradientTape() as tape:
        y = f(x)
    return float(tape.gradient(y, x))
    ### END SOLUTION


def central_difference(f, x0, h=1e-3):
    ### BEGIN SOLUTION
    return float((f(x0 + h) - f(x0 - h)) / (2 * h))
    ### END SOLUTION


# %% [markdown]
# 2. `watched_gradient(f, c, k)`: `c` and `k` are constant tensors. Compute `y = f(c, k)` under a
#    tape that watches `c` and nothing else, and return `(dy/dc, ops)`, where `ops` is the list of
#    the op types the tape recorded (`[e.type for e in tape._entries]`, as above), in order. Only
#    the ops that touch a watched value are recorded (3.2). Careful: a non-persistent tape drops its
#    records when `gradient` runs; read them first (or make the tape persistent).

# %% nbgrader={"grade": false, "grade_id": "ex20_watch", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["3.2", "3.4"]
def watched_gradient(f, c, k):
    ### BEGIN SOLUTION
    with tf.GradientTape() as tape:
        tape.watch(c)
        y = f(c, k)
    ops = [e.type for e in tape._entries]
    return tape.gradient(y, c), ops
    ### END SOLUTION


# %% [markdown]
# 3. `second_derivative(f, x0)`: f''(x0) with two nested tapes (the inner one's `gradient` must run
#    while the outer one records), as a Python float.

# %% nbgrader={"grade": false, "grade_id": "ex20_nested", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["3.4"]
def second_derivative(f, x0):
    ### BEGIN SOLUTION
    x = tf.Variable(x0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = f(x)
        dy = inner.gradient(y, x)
    return float(outer.gradient(dy, x))
    ### END SOLUTION


# %% [markdown]
# 4. `exp_mul_vjp(x, b, upstream)`: for `y = tf.exp(x * b)` with `x` of shape `(n, m)` and `b` of
#    shape `(m,)`, return `(grad_x, grad_b)`, what
#    `tape.gradient(y, [x, b], output_gradients=upstream)` gives, but **by hand, without a tape**:
#    walk the two ops newest first (`Exp`, then `Mul`) with the rules above. Engine ops or NumPy.

# %% nbgrader={"grade": false, "grade_id": "ex20_vjp", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["3.3"]
def exp_mul_vjp(x, b, upstream):
    ### BEGIN SOLUTION
    y = tf.exp(x * b)
    g = upstream * y                                  # Exp: through its output
    return g * b, tf.reduce_sum(g * x, axis=0)        # Mul; b was broadcast along axis 0
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "check20", "locked": true, "schema_version": 3, "solution": false, "task": false}
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


run_checks({"1. derivative and central_difference (3.1, 3.3, 3.5)": _check_derivative,
            "2. watched_gradient (3.2, 3.4)": _check_watch,
            "3. second_derivative (3.4)": _check_nested,
            "4. exp_mul_vjp (3.3)": _check_vjp})

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
