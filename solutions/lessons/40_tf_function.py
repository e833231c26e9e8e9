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
# # 40. `tf.function`: tracing, caching and AutoGraph (syllabus 2.1–2.5)
#
# Eager execution (lesson 10) pays Python's price on every op. `tf.function` keeps the eager
# way of writing code and removes that price: the first call with a new kind of argument
# **traces** the Python function into a graph (a *ConcreteFunction*, 2.1); later calls of the
# same kind **reuse** that graph (2.2). **AutoGraph** rewrites `if`/`for`/`while` on tensors into
# graph control flow (2.3), so a whole training step becomes one graph (2.4). The catch: a new
# input shape means a new trace (2.5).

# %%
import logging
import time
import numpy as np
import matplotlib.pyplot as plt
import engine as tf
from engine import viz

logging.getLogger("tensorflow").addHandler(logging.NullHandler())   # retracing warnings: printed below instead


@tf.function
def f(x, y):
    print("Python print:", x, "| executing eagerly?", tf.executing_eagerly())
    tf.print("tf.print:", x)
    return x * y + 1.0

print(f(tf.constant(2.0), tf.constant(3.0)))
print(f(tf.constant(4.0), tf.constant(3.0)))
print("traces:", f.experimental_get_tracing_count())

# %% [markdown]
# ## The first call *traces*; it does not run eagerly (2.1, and an imprecision)
# The article says the first call "runs the function in eager mode and records the ops". Look at
# what the cell above printed:
#
# * Python's `print` ran **once**, and showed `Tensor("x:0", shape=(), dtype=float32)`: a
#   *symbolic* tensor with a name and a shape but **no value**. `tf.executing_eagerly()` was
#   `False`. The Python function ran inside a `FuncGraph`, where each op adds a node instead of
#   computing.
# * `tf.print` ran on **every** call (to stderr, as in TF). It is an op, `PrintV2`, *in* the graph.
#
# So tracing runs the Python code once, on placeholders, to build the graph. Then the first call
# runs that graph, like every later call. A symbolic tensor has no value you could read:

# %%
@tf.function
def peek(x):
    try:
        x.numpy()
    except AttributeError as e:
        print("during the trace:", e)
    return x

peek(tf.constant(1.0))

# %% [markdown]
# ## The ConcreteFunction: a graph plus its signature
# `get_concrete_function` traces (or finds) the graph for an input signature without running it.

# %%
concrete = f.get_concrete_function(tf.constant(2.0), tf.constant(3.0))
print(concrete)
print("inputs: ", concrete.inputs)
print("outputs:", concrete.outputs)
print("structured_input_signature:", concrete.structured_input_signature)
print("structured_outputs:", concrete.structured_outputs)
print("traces:", f.experimental_get_tracing_count(), "(found in the cache, not traced again)")
viz.draw_graph(concrete.graph)

# %% [markdown]
# The graph holds the placeholders `x` and `y`, the `PrintV2` op (`tf.print`), `Mul` and `AddV2`.
# No trace of Python's `print`: it ran once, at trace time, and left nothing behind.
#
# A ConcreteFunction is callable on its own, and checks what it is given:

# %%
print(concrete(tf.constant(5.0), tf.constant(2.0)))
try:
    concrete(tf.constant(5), tf.constant(2))
except tf.errors.InvalidArgumentError as e:
    print("InvalidArgumentError:", str(e)[:95])

# %% [markdown]
# ## The trace cache and its keys (2.2)
# Each call turns its arguments into a **key**: tensors (and NumPy arrays) by **dtype and
# shape**, Python scalars by **value**. A known key reuses its graph; a new one traces again.

# %%
@tf.function
def double(x):
    return x * 2

calls = [("tf.constant(1.0)", tf.constant(1.0)), ("tf.constant(2.0)", tf.constant(2.0)),
         ("tf.constant([1.0, 2.0])", tf.constant([1.0, 2.0])), ("tf.constant([3.0, 4.0])", tf.constant([3.0, 4.0])),
         ("tf.constant(1)", tf.constant(1)), ("1 (Python)", 1), ("2 (Python)", 2), ("1.0 (Python)", 1.0),
         ("2 (Python)", 2)]
for label, arg in calls:
    before = double.experimental_get_tracing_count()
    double(arg)
    traced = double.experimental_get_tracing_count() > before
    print(f"double({label:<24}) {'TRACED' if traced else 'reused'}   traces so far: "
          f"{double.experimental_get_tracing_count()}")

# %% [markdown]
# Tensors of one dtype and shape share a graph, whatever their values. Python numbers are
# baked into the graph as constants, so each new *value* is a new graph (`1` and `1.0` are equal,
# so they share one). One graph per distinct key:

# %%
for c in double._cache.values():
    print(c)

# %% [markdown]
# ## A retrace storm, and its fixes (2.5)
# Two classic storms: a Python float that changes every step (a decaying learning rate), and
# batches whose size varies (the last batch of an epoch, variable-length data). Each new value or
# shape traces again, and tracing costs milliseconds where a call costs microseconds.

# %%
w = tf.constant(np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32))

def step(x, lr):
    return tf.reduce_mean(tf.nn.relu(x @ w)) * lr

rng = np.random.default_rng(1)
batch_sizes = [int(b) for b in rng.choice([8, 16, 24, 32, 40, 48, 56, 64], size=40)]
batches = [tf.constant(rng.normal(size=(b, 8)).astype(np.float32)) for b in batch_sizes]
fixed = batches[0][:8]  # one batch shape

variants = {
    "Python float lr": (tf.function(step), lambda i: (fixed, 0.1 * 0.9 ** i)),
    "tensor lr": (tf.function(step), lambda i: (fixed, tf.constant(0.1 * 0.9 ** i))),
    "varying batch": (tf.function(step), lambda i: (batches[i], tf.constant(0.1))),
    "varying batch, input_signature": (
        tf.function(step, input_signature=[tf.TensorSpec([None, 8], tf.float32), tf.TensorSpec([], tf.float32)]),
        lambda i: (batches[i], tf.constant(0.1))),
    "varying batch, reduce_retracing": (tf.function(step, reduce_retracing=True),
                                        lambda i: (batches[i], tf.constant(0.1))),
}
counts, seconds = {}, {}
for name, (fn, args) in variants.items():
    counts[name] = []
    t0 = time.perf_counter()
    for i in range(len(batches)):
        fn(*args(i))
        counts[name].append(fn.experimental_get_tracing_count())
    seconds[name] = time.perf_counter() - t0
    print(f"{name:<33} {counts[name][-1]:>3} traces, {seconds[name] / len(batches) * 1e3:6.2f} ms per call")
print("distinct batch sizes:", len(set(batch_sizes)))

fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 3.2))
for (name, c), style in zip(counts.items(), ["-", "--", "-", ":", "-."]):
    ax.plot(range(1, len(c) + 1), c, style, drawstyle="steps-post", label=name, linewidth=2)
ax.set_xlabel("call"); ax.set_ylabel("traces so far"); ax.set_title("Tracing count"); ax.legend(fontsize=8)
bx.barh(list(seconds), [s / len(batches) * 1e3 for s in seconds.values()])
bx.invert_yaxis(); bx.set_xlabel("ms per call (tracing included)"); bx.set_title("What the storm costs")
plt.tight_layout(); plt.show()

# %% [markdown]
# Reading the plots: the Python float traces on every call (40 traces); the same value as a
# **tensor** traces once. Varying batch sizes trace once per *distinct* size (8 here). Two fixes:
#
# * `input_signature=[tf.TensorSpec([None, 8], ...)]`: you declare the shapes once; `None` means
#   "any size"; exactly one trace, and calls that do not fit are refused with a `TypeError`;
# * `reduce_retracing=True`: the first retrace generalizes the differing dimensions to `None`,
#   so it settles after 2 traces.
#
# (Or keep the batch size fixed, as the article advises: `drop_remainder=True` in `tf.data`.) The
# generalized graph is visible in the signature:

# %%
sig_fn = variants["varying batch, input_signature"][0]
print(sig_fn.get_concrete_function())
try:
    sig_fn(tf.constant([[1.0, 2.0]]), tf.constant(0.1))
except TypeError as e:
    print("TypeError:", str(e)[:110], "...")
print([str(c.inputs[0].shape) for c in variants["varying batch, reduce_retracing"][0]._cache.values()])

# %% [markdown]
# Like TF, the engine warns about storms: on the `tensorflow` logger, when 5 of the last 10 calls
# traced (we silenced it in the first cell; here it is, captured):

# %%
class Capture(logging.Handler):
    def emit(self, record):
        print("WARNING:", record.getMessage()[:150], "...")

handler = Capture()
logging.getLogger("tensorflow").addHandler(handler)
storm = tf.function(step)
for i in range(6):
    storm(fixed, 0.5 + i)
logging.getLogger("tensorflow").removeHandler(handler)

# %% [markdown]
# ## AutoGraph: Python control flow on tensors becomes graph control flow (2.3)
# While tracing, `x > 0` is a symbolic tensor: Python's `if` cannot ask it for `True` or
# `False`. Without AutoGraph, this fails:

# %%
def square_or_negate(x):
    if x > 0:
        y = x * x
    else:
        y = -x
    return y

try:
    tf.function(square_or_negate, autograph=False)(tf.constant(2.0))
except tf.errors.OperatorNotAllowedInGraphError as e:
    print(type(e).__name__, ":", str(e)[:120])

# %% [markdown]
# AutoGraph rewrites the function's **source code** before tracing. `tf.autograph.to_code` shows
# the result: each branch became a nested function, and the `if` a call to `ag__.if_stmt`, which
# at trace time looks at the condition. A tensor gets a `tf.cond`; a Python bool gets a plain `if`.

# %%
print(tf.autograph.to_code(square_or_negate))

# %%
ag_fn = tf.function(square_or_negate)
print(ag_fn(tf.constant(2.0)), ag_fn(tf.constant(-3.0)), "traces:", ag_fn.experimental_get_tracing_count())
cond_graph = ag_fn.get_concrete_function(tf.constant(2.0)).graph
print([op.type for op in cond_graph.get_operations()])
viz.draw_graph(cond_graph)

# %% [markdown]
# One graph serves both signs: the `StatelessIf` op (TF's `If`, what `tf.cond` builds) holds
# **both branches** as sub-graphs and picks one when it runs. The `then` branch:

# %%
if_op = next(op for op in cond_graph.get_operations() if op.type.endswith("If"))
viz.draw_graph(if_op.attrs["then_branch"].graph)

# %% [markdown]
# A `while` on a tensor becomes a `tf.while_loop`. The Collatz sequence cannot know its number of
# steps until it runs:

# %%
def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps

collatz_fn = tf.function(collatz)
print("tensor 27:", collatz_fn(tf.constant(27)), "| Python 27:", collatz_fn(27))
tensor_graph = collatz_fn.get_concrete_function(tf.constant(27)).graph
python_graph = collatz_fn.get_concrete_function(27).graph
print("tensor n ->", [op.type for op in tensor_graph.get_operations()])
print("Python n ->", [op.type for op in python_graph.get_operations()])
viz.draw_graph(tensor_graph)

# %% [markdown]
# The `while` became one `StatelessWhile` op (TF's `While`, what `tf.while_loop` builds). Its
# `body` is a sub-graph with the loop variables `n` and `steps` as placeholders: `n % 2 == 0`
# feeds the nested `StatelessIf` (the converted `if`), and `steps + 1` sits beside it.

# %%
while_op = next(op for op in tensor_graph.get_operations() if op.type.endswith("While"))
viz.draw_graph(while_op.attrs["body"].graph)

# %% [markdown]
# Same function, same answer, two very different graphs. With a **tensor** `n` the loop is a
# `StatelessWhile` op: it runs when the graph runs. With a **Python** `n` the loop ran in Python,
# all 111 steps, **at trace time**: the graph is just the constant 111 (and each Python `n` is a
# new trace, see above).
#
# ## Python loops over Python values are unrolled
# The same holds for `for`: `range(n)` with a Python `n` runs the body `n` times while tracing,
# copying its ops into the graph `n` times; `tf.range(n)` with a tensor `n` becomes one `While`
# op, whatever `n` is.

# %%
def python_loop(x, n):
    for i in range(n):
        x = x * 2.0 + 1.0
    return x

def tensor_loop(x, n):
    for i in tf.range(n):
        x = x * 2.0 + 1.0
    return x

unrolled_fn, looped_fn = tf.function(python_loop), tf.function(tensor_loop)
ns = [1, 2, 4, 8, 16, 32]
unrolled_ops = [len(unrolled_fn.get_concrete_function(tf.constant(1.0), n).graph.get_operations()) for n in ns]
looped_ops = [len(looped_fn.get_concrete_function(tf.constant(1.0), tf.constant(n)).graph.get_operations())
              for n in ns]
print("same result:", float(unrolled_fn(tf.constant(0.5), 5)), float(looped_fn(tf.constant(0.5), tf.constant(5))))
print("ops, Python range:", unrolled_ops, f"({unrolled_fn.experimental_get_tracing_count()} traces)")
print("ops, tf.range:    ", looped_ops, f"({looped_fn.experimental_get_tracing_count()} trace)")

fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(ns, unrolled_ops, "o-", label="for i in range(n)  (unrolled)")
ax.plot(ns, looped_ops, "s-", label="for i in tf.range(n)  (While op)")
ax.set_xlabel("n"); ax.set_ylabel("ops in the graph"); ax.set_title("Unrolled vs graph loop"); ax.legend()
plt.show()

# %% [markdown]
# Unrolling is not a bug: a Python loop over layers (`for layer in self.layers`) *should* be
# unrolled. It becomes a problem when `n` is large or changes (a graph per `n`).
#
# ## Variables: created on the first trace only
# A `tf.function` may create a `tf.Variable` only on its first trace; the usual pattern creates it
# once, guarded by `if self.v is None` (a Python test, decided at trace time):

# %%
class Counter(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = None

    @tf.function
    def __call__(self, x):
        if self.v is None:
            self.v = tf.Variable(0.0)
        self.v.assign_add(x)
        return self.v.read_value()

counter = Counter()
print(counter(tf.constant(1.0)), counter(tf.constant(2.0)), "traces:", counter.__call__.experimental_get_tracing_count())


@tf.function
def fresh_variable(x):
    print("tracing fresh_variable")
    v = tf.Variable(1.0)          # a new variable on every trace
    return x + v

try:
    fresh_variable(tf.constant(1.0))
except ValueError as e:
    print("ValueError:", e)
print("traces:", fresh_variable.experimental_get_tracing_count())

# %% [markdown]
# Look at the trace counts. `Counter` traced **twice** on its first call, and `fresh_variable`
# printed "tracing" twice before failing on its very *first* call. That is TF's rule: when the
# first trace creates variables, TF traces again at once (the variables exist by then) and keeps
# the second graph, which only reads them; if the second trace creates variables too, the function
# would need new variables on every call, which a graph cannot hold, and TF raises. (This double
# trace is why the seed's example allows "traces <= 2".)
#
# ## The seed's `train_step`: forward, gradients and update in one graph (2.4)

# %%
tf.random.set_seed(0)
data_rng = np.random.default_rng(0)
x_all = data_rng.normal(size=(256, 8)).astype(np.float32)
y_all = (x_all @ data_rng.normal(size=(8,)) > 0).astype(np.int32)

model = tf.keras.Sequential([
    tf.keras.Input(shape=(8,)),
    tf.keras.layers.Dense(16, activation="relu"),
    tf.keras.layers.Dense(2),
])
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = tf.keras.optimizers.Adam()


def train_step_eager(x, y):
    with tf.GradientTape() as tape:
        pred = model(x)
        loss = loss_fn(y, pred)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss

train_step = tf.function(train_step_eager)
xb, yb = tf.constant(x_all[:32]), tf.constant(y_all[:32])
t0 = time.perf_counter()
step_fn = train_step.get_concrete_function(xb, yb)
print(f"traced in {(time.perf_counter() - t0) * 1e3:.0f} ms: {len(step_fn.graph.get_operations())} ops")
viz.draw_graph(step_fn.graph)

# %% [markdown]
# Top: the forward pass (`sequential/`, the loss). Middle: the gradient ops the tape added
# *symbolically* (`ReluGrad`, `BiasAddGrad`, `MatMul`s of the backward pass: inside a trace the
# tape writes graph ops, it computes nothing). Bottom: Adam's update, folded into one box (its
# moments, bias corrections and `AssignSubVariableOp`s). Adam's slot variables were created during
# this first trace, which is allowed (and so the function will trace once more, on its first call).
# Counted by name scope:

# %%
def part(op):                    # by name scope
    scope = op.name.split("/")[0] if "/" in op.name else ""
    return {"sequential": "model forward", "sparse_categorical_crossentropy": "loss",
            "adam": "Adam update"}.get(scope, "inputs + gradients (the tape's backward ops)")

kinds = {}
for op in step_fn.graph.get_operations():
    kinds[part(op)] = kinds.get(part(op), 0) + 1
print(kinds)

# %% [markdown]
# Training runs the graph; fixed batches of 32 mean no retrace in 160 steps. The count is 2: the
# `get_concrete_function` above created Adam's slots, so TF's rule traced once more:

# %%
losses = []
for epoch in range(20):
    for i in range(0, 256, 32):
        losses.append(float(train_step(tf.constant(x_all[i:i + 32]), tf.constant(y_all[i:i + 32]))))
print("first loss", round(losses[0], 3), "last loss", round(losses[-1], 3),
      "traces:", train_step.experimental_get_tracing_count())
fig, ax = plt.subplots(figsize=(5, 2.6))
ax.plot(losses); ax.set_xlabel("step"); ax.set_ylabel("loss"); ax.set_title("The seed's train_step, no retrace")
plt.show()

# %% [markdown]
# Before the first run, the graph went through the graph optimizer (the engine's Grappler, lesson
# 30). The plan that actually runs is smaller: `MatMul + BiasAdd + Relu` became one `_FusedMatMul`,
# and chains of elementwise ops became one `_FusedElementwise` kernel each.

# %%
plan = step_fn._plan   # the compiled, optimized program (an engine detail; TF keeps it in C++)
print(f"graph: {len(step_fn.graph.get_operations())} ops -> plan: {len(plan.ops)} ops")
viz.draw_graph(step_fn.graph, before_after=plan)

# %% [markdown]
# ## Measured: eager vs `tf.function`
# Three workloads, each timed eagerly, traced, and traced with the graph optimizer switched off
# (`tf.config.optimizer`). The third timing separates the two sources of gain:
#
# 1. a **chain of 200 tiny elementwise ops** on 64 floats: all dispatch, no arithmetic;
# 2. the seed's **train step** (8-16-2 MLP, batch 32): ~200 small ops;
# 3. **one big matmul** (512×512): all arithmetic, one op.

# %%
def chain(x, a, b):
    y = x
    for _ in range(50):        # a Python loop: unrolled into 200 ops when traced
        y = y * a + b
        y = y - a * 0.5
    return y

vec_rng = np.random.default_rng(2)
cx, ca, cb = (tf.constant(vec_rng.random(64, dtype=np.float32)) for _ in range(3))
big = tf.constant(vec_rng.random((512, 512), dtype=np.float32))
chain_fn, matmul_fn = tf.function(chain), tf.function(lambda m: m @ m)
np.testing.assert_allclose(chain_fn(cx, ca, cb).numpy(), chain(cx, ca, cb).numpy(), rtol=1e-5)

workloads = {
    "200-op chain": (lambda: chain(cx, ca, cb), lambda: chain_fn(cx, ca, cb), 25),
    "train step": (lambda: train_step_eager(xb, yb), lambda: train_step(xb, yb), 25),
    "512x512 matmul": (lambda: big @ big, lambda: matmul_fn(big), 4),
}


def time_us(fn, n):
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n * 1e6


def set_graph_optimizer(on):
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": None if on else True})


times = {}
for name, (eager, traced, n) in workloads.items():
    runs = {"eager": [], "tf.function, no optimizer": [], "tf.function": []}
    for _ in range(4):                  # the contenders take turns, so they see the same machine
        runs["eager"].append(time_us(eager, n))
        set_graph_optimizer(False)
        traced()                        # options changed: the plan is recompiled (unoptimized), not timed
        runs["tf.function, no optimizer"].append(time_us(traced, n))
        set_graph_optimizer(True)
        traced()
        runs["tf.function"].append(time_us(traced, n))
    times[name] = {k: min(v) for k, v in runs.items()}   # best round: the least disturbed one
    e, u, t = times[name].values()
    print(f"{name:<15} eager {e:7.0f} µs | tf.function, optimizer off {u:7.0f} µs | tf.function {t:7.0f} µs"
          f" | speed-up {e / t:4.1f}x")

fig, axes = plt.subplots(1, 3, figsize=(11, 3))
for ax, (name, ts) in zip(axes, times.items()):
    ax.bar(range(3), list(ts.values()), color=["#d9822b", "#8fb3d9", "#2b6cb0"])
    ax.set_xticks(range(3)); ax.set_xticklabels(["eager", "traced,\nno optimizer", "traced"])
    ax.set_title(name); ax.set_ylabel("µs per call")
plt.tight_layout(); plt.show()

# %% [markdown]
# Where the gain comes from, and where it does not:
#
# * **No per-op Python dispatch.** Eagerly, every op goes through Python: look up a kernel, wrap
#   the result, offer it to the tapes. The traced call runs a compiled plan: one Python call for
#   the whole graph. That is the step from "eager" to "traced, no optimizer", and it is largest
#   where there are many small ops (the chain, the train step).
# * **The graph optimizer.** With the whole graph in hand it can fuse ops, fold constants and drop
#   dead ops. That is the step from "no optimizer" to "traced". It is large for the chain, whose
#   elementwise ops it fuses into a few generated kernels (below), and modest for the train step,
#   where the time goes into matmuls and many small updates. Eager code never gets this: it sees one
#   op at a time.
# * **Not for big arithmetic.** One 512×512 matmul is one op either way: the time is spent in
#   the BLAS kernel, and the graph changes nothing.

# %%
chain_plan = chain_fn.get_concrete_function(cx, ca, cb)._plan
print(f"chain: {len(chain_fn.get_concrete_function(cx, ca, cb).graph.get_operations())} graph ops -> "
      f"{len(chain_plan.ops)} plan ops: {sorted({op.type for op in chain_plan.ops})}")

# %% [markdown]
# The article also says the graph runs "in parallel on the GPU". Nothing above is parallel: the
# engine runs the plan's ops one after another, on the CPU (a single matmul may use several cores
# inside BLAS, eagerly or not). Whether graph ops run in parallel depends on the executor and on
# the dependencies between ops. That is a separate effect, with separate measurements (lesson 30).
# Here the whole gain is dispatch removed, plus optimization.
#
# ## Exercises (self-checked)
# 1. `normalize`: a `tf.function` that scales each row of a float32 `[batch, 8]` tensor to unit
#    sum, `x / tf.reduce_sum(x, axis=1, keepdims=True)`, and traces **once** for the batches
#    `ex_batches` below, whatever their sizes.
# 2. `count_positive`: a `tf.function` that counts the positive entries of a 1-D float tensor
#    with a `for` loop over the tensor and an `if` on each element (AutoGraph must turn them into
#    a `While` with an `If` inside). It must return an `int32` tensor.
# 3. `e3`: the number of traces after calling `count_positive` on `tf.constant([1.0, -2.0])`,
#    `tf.constant([3.0, 4.0])`, `tf.constant([5.0])` and `np.array([1.0], np.float32)`, in this
#    order (call it, then read its tracing count).

# %%
ex_rng = np.random.default_rng(3)
ex_batches = [tf.constant(ex_rng.random((b, 8), dtype=np.float32) + 0.1) for b in (32, 32, 7, 19)]


@tf.function(input_signature=[tf.TensorSpec([None, 8], tf.float32)])
def normalize(x):
    return x / tf.reduce_sum(x, axis=1, keepdims=True)


@tf.function
def count_positive(v):
    n = tf.constant(0)
    for e in v:
        if e > 0:
            n += 1
    return n


for batch in ex_batches:
    normalize(batch)
for arg in (tf.constant([1.0, -2.0]), tf.constant([3.0, 4.0]), tf.constant([5.0]), np.array([1.0], np.float32)):
    count_positive(arg)
e3 = count_positive.experimental_get_tracing_count()

# %%
assert normalize.experimental_get_tracing_count() == 1
np.testing.assert_allclose(tf.reduce_sum(normalize(ex_batches[2]), axis=1).numpy(), np.ones(7), rtol=1e-5)
cp = count_positive(tf.constant([1.0, -2.0, 3.0, 0.0, 5.0]))
assert cp.dtype == tf.int32 and int(cp) == 3, cp
_ops = [op.type for op in count_positive.get_concrete_function(tf.constant([1.0, 2.0])).graph.get_operations()]
assert any(t.endswith("While") for t in _ops), _ops
assert e3 == 2, e3
print("exercises OK")

# %% [markdown]
# ## Interview question
# > *"How does tf.function work? What does it do inside?"* (那 tf.function 是如何工作的？它内部做了什么？)
#
# Runnable answer. The first call with a new input signature **traces**: it runs the
# (AutoGraph-converted) Python function once on symbolic tensors in a FuncGraph, not eagerly. The
# result is a ConcreteFunction, whose graph is optimized and then run. Calls with the same
# signature (tensor dtypes and shapes, Python values) **reuse** it, with no per-op Python. AutoGraph
# turns `if`/`while` on tensors into `If`/`While` ops. A new shape or Python value means a new
# trace; `input_signature` or `reduce_retracing` prevent that.

# %%
@tf.function
def answer(x, n):
    print("tracing with", x)                    # Python: runs only while tracing
    total = tf.constant(0.0)
    while n > 0:                                # a tensor condition -> While op
        total += tf.reduce_sum(x)
        n -= 1
    return total

print(answer(tf.constant([1.0, 2.0]), tf.constant(3)))            # traces, then runs the graph
print(answer(tf.constant([3.0, 4.0]), tf.constant(2)))            # same signature: no trace
print(answer(tf.constant([1.0, 2.0, 3.0]), tf.constant(1)))       # new shape: traces again
print("traces:", answer.experimental_get_tracing_count())
graph = answer.get_concrete_function(tf.constant([0.0, 0.0]), tf.constant(0)).graph   # found in the cache
print("ops:", [op.type for op in graph.get_operations()])

# %% [markdown]
# ## Build it yourself
#
# **A3, trace a function** (20 points, 3–5 h): the trace key of a call, tracing into a
# `FuncGraph`, the retracing rules (`input_signature`, `reduce_retracing`), and the tracer behind
# `tf.function` through the `tracer` seam.
#
# **A4, build your own AutoGraph** (20 points, 4–6 h): the runtime
# `if_stmt`/`while_stmt`/`for_range` that choose `tf.cond`/`tf.while_loop` when a tensor decides
# and plain Python otherwise, then the `ast` transforms of `if`, `while`/`for … in range` and
# `break`/`continue`, plugged in through the `autograph` seam.
#
# Open it under `course/assignments/`, and check your work with `python -m autograder check`.
