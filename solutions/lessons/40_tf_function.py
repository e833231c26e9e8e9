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
# The graph holds the placeholders `x` and `y`, the `PrintV2` op (`tf.print`), `Mul` and `AddV2`,
# then the output's `Identity` and a `NoOp`. `PrintV2` has no output, so no data edge leads from it
# to the result; TF's *automatic control dependencies* make the `NoOp` wait for it (a control
# edge) and the output wait for the `NoOp`: whoever asks for the result also runs the print.
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
# feeds the nested `StatelessIf` (the converted `if`), and `steps + 1` sits beside it. (AutoGraph
# knows the Python names of the loop variables, and the engine names the placeholders after them;
# TF names them `Placeholder`, `Placeholder_1`, in the same order.)

# %%
while_op = next(op for op in tensor_graph.get_operations() if op.type.endswith("While"))
print("the body's placeholders:", [op.name for op in while_op.attrs["body"].graph.get_operations()
                                   if op.type == "Placeholder"])
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

dispatch = {name: ts["eager"] / ts["tf.function, no optimizer"] for name, ts in times.items()}
optimizer = {name: ts["tf.function, no optimizer"] / ts["tf.function"] for name, ts in times.items()}
for name in times:
    print(f"{name:<15} removing dispatch: {dispatch[name]:4.2f}x   the optimizer on top: {optimizer[name]:4.2f}x")
print("in this run, removing dispatch gained most on:", max(dispatch, key=dispatch.get),
      "| the optimizer gained most on:", max(optimizer, key=optimizer.get))
slower = [name for name, g in dispatch.items() if g < 1.0]
if slower:
    print("traced without the optimizer was slower than eager in this run for:", ", ".join(slower),
          "(for one big op that is measurement noise: the same BLAS call runs either way; for many tiny ops,"
          " an unfused plan still pays one kernel call per op)")

# %% [markdown]
# Where the gain comes from, and where it does not (the lines printed above give this run's figures):
#
# * **No per-op Python dispatch.** Eagerly, every op goes through Python: look up a kernel, wrap
#   the result, offer it to the tapes. The traced call runs a compiled plan: one Python call for
#   the whole graph, though an unoptimized plan still calls one kernel per op. That is the step from
#   "eager" to "traced, no optimizer"; it can only matter where there are many small ops (the chain,
#   the train step), and how much it gives depends on the machine.
# * **The graph optimizer.** With the whole graph in hand it can fuse ops, fold constants and drop
#   dead ops. That is the step from "no optimizer" to "traced". For the chain it fuses the elementwise
#   ops into a few generated kernels (below); for the train step the time goes into matmuls and many
#   small updates. Eager code never gets this: it sees one op at a time.
# * **Not for big arithmetic.** One 512×512 matmul is one op either way: the time is spent in
#   the BLAS kernel, and the graph changes nothing: whatever its ratios show in one run is noise.

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

# %% [markdown]
# ## Exercises (self-checked)
# Fill in each function in the cells below (replace `raise NotImplementedError()`), then run the
# self-check cell after them: it says, exercise by exercise, what is right and what is not yet.
#
# 1. **Measure, then predict, the trace cache (2.1, 2.2).**
#    `tracing_counts(fn, calls)`: call the `tf.function` `fn` once on each argument tuple of the list
#    `calls` (`fn(*args)`), and return the list of `fn.experimental_get_tracing_count()` read
#    *after* each call. Then `predicted_counts()`: **without running anything**, return the list
#    you expect `tracing_counts(tf.function(scale), [args for _, args in ex_calls])` to give for the
#    calls listed below (write the numbers by hand; the check measures them).
# 2. **An `if` on a tensor becomes an `If` op (2.1, 2.3).**
#    `clip_to_unit(x)`: a `tf.function` that returns `x / tf.norm(x)` when `tf.norm(x) > 1`, and `x`
#    unchanged otherwise, written with a Python `if` (AutoGraph converts it; no `tf.where`).
#    `count_ops(fn, args, kind)`: trace the `tf.function` `fn` for the tuple `args` **without
#    running it** (`get_concrete_function`), and return how many ops of that ConcreteFunction's
#    graph have a type ending in `kind` (`"If"` counts both `If` and `StatelessIf`).
# 3. **The seed's `train_step` as one graph (2.4).**
#    `make_train_step(model, loss_fn, optimizer)`: return a `tf.function` `train_step(x, y)` that
#    computes the loss under a `GradientTape`, applies the gradients with `optimizer.apply_gradients`
#    and returns the loss (computed *before* the update). The check trains a fresh model for
#    40 steps with it. It builds the optimizer first (`optimizer.build(...)`, which creates Adam's slot
#    variables), so no variable is created inside the trace and **one** trace must serve every step.
# 4. **Stop a retrace storm (2.5).** `fix_storm(fn)`: return a `tf.function` of the lesson's
#    `step(x, lr)` that traces **once** for the calls `f(batches[i], 0.1 * 0.9 ** i)`: every batch
#    size of the storm section, and a new Python float `lr` on every call. (Which of the two
#    fixes above also copes with the changing Python float?)

# %%
def scale(x, k):
    return x * k


ex_calls = [
    ("tf.constant([1.0, 2.0]), 2.0", (tf.constant([1.0, 2.0]), 2.0)),
    ("tf.constant([3.0, 4.0]), 2.0", (tf.constant([3.0, 4.0]), 2.0)),
    ("tf.constant([1.0, 2.0, 3.0]), 2.0", (tf.constant([1.0, 2.0, 3.0]), 2.0)),
    ("np.array([5.0, 6.0], np.float32), 2.0", (np.array([5.0, 6.0], np.float32), 2.0)),
    ("tf.constant([1.0, 2.0]), 3.0", (tf.constant([1.0, 2.0]), 3.0)),
    ("tf.constant([1, 2]), 2", (tf.constant([1, 2]), 2)),
    ("tf.constant([7.0, 8.0]), 3.0", (tf.constant([7.0, 8.0]), 3.0)),
    ("tf.constant([5.0, 6.0]), tf.constant(3.0)", (tf.constant([5.0, 6.0]), tf.constant(3.0))),
    ("tf.constant([5.0, 6.0]), tf.constant(4.0)", (tf.constant([5.0, 6.0]), tf.constant(4.0))),
]

# %% nbgrader={"grade": false, "grade_id": "ex40_cache", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.1", "2.2"]
def tracing_counts(fn, calls):
    ### BEGIN SOLUTION
    counts = []
    for args in calls:
        fn(*args)
        counts.append(fn.experimental_get_tracing_count())
    return counts
    ### END SOLUTION


def predicted_counts():
    ### BEGIN SOLUTION
    return [1, 1, 2, 2, 3, 4, 4, 5, 5]
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "ex40_autograph", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.1", "2.3"]
@tf.function
def clip_to_unit(x):
    ### BEGIN SOLUTION
    if tf.norm(x) > 1.0:
        x = x / tf.norm(x)
    return x
    ### END SOLUTION


def count_ops(fn, args, kind):
    ### BEGIN SOLUTION
    graph = fn.get_concrete_function(*args).graph
    return sum(op.type.endswith(kind) for op in graph.get_operations())
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "ex40_train_step", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.4"]
def make_train_step(model, loss_fn, optimizer):
    ### BEGIN SOLUTION
    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return train_step
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "ex40_storm", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["2.5"]
def fix_storm(fn):
    ### BEGIN SOLUTION
    return tf.function(fn, input_signature=[tf.TensorSpec([None, 8], tf.float32), tf.TensorSpec([], tf.float32)])
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "check40", "locked": true, "schema_version": 3, "solution": false, "task": false}
from autograder.selfcheck import check, run_checks


def _has_tracing(fn, what):
    check(hasattr(fn, "get_concrete_function") and hasattr(fn, "experimental_get_tracing_count"),
          f"{what} should be a tf.function (decorate it, or wrap it with tf.function(...)), "
          f"it is a {type(fn).__name__}")


def _check_cache():
    trace_log = []

    def probe_body(x, k):
        trace_log.append(k)                 # Python: runs only while tracing
        return x * k

    probe_calls = [(tf.constant([1.0]), 2.0), (tf.constant([2.0]), 2.0), (tf.constant([1.0, 2.0]), 2.0),
                   (tf.constant([1.0]), 3.0), (tf.constant([4.0]), 3.0)]
    expected = []
    reference = tf.function(probe_body)
    for args in probe_calls:
        reference(*args)
        expected.append(len(trace_log))
    del trace_log[:]
    got = tracing_counts(tf.function(probe_body), probe_calls)
    check(isinstance(got, (list, tuple)) and len(got) == len(probe_calls),
          f"tracing_counts should return a list with one count per call ({len(probe_calls)}), got {got!r}")
    got = [int(c) for c in got]
    check(len(trace_log) == expected[-1],
          f"the function should have traced {expected[-1]} times over these calls, it traced {len(trace_log)}: "
          f"call fn(*args) exactly once per call, on a fresh function")
    check(got == expected, f"on a test function whose trace count after each call was {expected}, tracing_counts gave {got}: "
                           f"read fn.experimental_get_tracing_count() right after each call")
    predicted = list(predicted_counts())
    measured = []
    fn = tf.function(scale)
    for _, args in ex_calls:
        fn(*args)
        measured.append(fn.experimental_get_tracing_count())
    check(len(predicted) == len(ex_calls), f"predict one count per call: {len(ex_calls)} numbers, not {len(predicted)}")
    for i, ((label, _), p, m) in enumerate(zip(ex_calls, predicted, measured)):
        check(p == m, f"after call {i + 1}, scale({label}), you predicted {p} traces so far; measured: {m}. "
                      f"Tensors and NumPy arrays are keyed by dtype and shape, Python numbers by value")


def _check_autograph():
    _has_tracing(clip_to_unit, "clip_to_unit")
    r = np.random.default_rng(4)
    big = (r.random(5) * 3 + 1).astype(np.float32)        # norm > 1
    small = (r.random(5) * 0.1).astype(np.float32)        # norm < 1
    before = clip_to_unit.experimental_get_tracing_count()
    got_big, got_small = clip_to_unit(tf.constant(big)), clip_to_unit(tf.constant(small))
    traces = clip_to_unit.experimental_get_tracing_count() - before
    check(np.allclose(got_big.numpy(), big / np.linalg.norm(big), rtol=1e-5),
          f"for x with norm {np.linalg.norm(big):.2f} expected x / norm = {big / np.linalg.norm(big)}, got {got_big.numpy()}")
    check(np.allclose(got_small.numpy(), small, rtol=1e-6),
          f"for x with norm {np.linalg.norm(small):.3f} (<= 1) expected x unchanged, got {got_small.numpy()}")
    check(traces <= 1, f"two float32 [5] tensors of different norms traced {traces} graphs: one graph must serve both")
    n_if = sum(op.type.endswith("If") for op in
               clip_to_unit.get_concrete_function(tf.constant(big)).graph.get_operations())
    check(n_if == 1, f"clip_to_unit's graph holds {n_if} If ops, expected 1: write a Python `if` on the tensor "
                     f"condition tf.norm(x) > 1 and let AutoGraph turn it into tf.cond (tf.where computes the "
                     f"values without an If op)")
    v = tf.Variable(0.0)

    @tf.function
    def probe(x, n):
        v.assign_add(1.0)                   # would show if count_ops ran the function
        if x > 0:
            x = -x
        if x < -1:
            x = x / 2
        while n > 0:
            n -= 1
        return x

    args = (tf.constant(2.0), tf.constant(3))
    graph_ops = [op.type for op in probe.get_concrete_function(*args).graph.get_operations()]
    for kind in ("If", "While", "AssignAddVariableOp"):
        want = sum(t.endswith(kind) for t in graph_ops)
        got = count_ops(probe, args, kind)
        check(got == want, f"count_ops(probe, args, {kind!r}) gave {got!r}, expected {want} "
                           f"(the op types of probe's graph: {graph_ops})")
    check(float(v) == 0.0, f"count_ops ran the function ({float(v):.0f} times): get its ConcreteFunction with "
                           f"fn.get_concrete_function(*args), which traces without running")
    check(count_ops(clip_to_unit, (tf.constant(big),), "If") == 1, "count_ops(clip_to_unit, ..., 'If') should be 1")


def _check_train_step():
    tf.random.set_seed(1)
    fresh = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(16, activation="relu"),
                                 tf.keras.layers.Dense(2)])
    fresh_loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    fresh_opt = tf.keras.optimizers.Adam(learning_rate=0.01)
    fresh_opt.build(fresh.trainable_variables)            # Adam's slots exist before the trace
    step_fn = make_train_step(fresh, fresh_loss, fresh_opt)
    _has_tracing(step_fn, "make_train_step(...)")
    x0, y0 = tf.constant(x_all[:32]), tf.constant(y_all[:32])
    eager_loss = float(fresh_loss(y0, fresh(x0)))
    w0 = [w.numpy().copy() for w in fresh.trainable_variables]
    got = []
    for s in range(40):
        i = (s % 8) * 32
        got.append(float(step_fn(tf.constant(x_all[i:i + 32]), tf.constant(y_all[i:i + 32]))))
    check(abs(got[0] - eager_loss) < 1e-4 * max(1.0, eager_loss),
          f"the first step returned {got[0]:.5f}, but the loss of the untrained model on that batch is "
          f"{eager_loss:.5f}: return loss_fn(y, model(x)), computed before the update")
    moved = sum(not np.array_equal(a, w.numpy()) for a, w in zip(w0, fresh.trainable_variables))
    check(moved == len(w0), f"only {moved} of the {len(w0)} trainable variables changed in 40 steps: "
                            f"optimizer.apply_gradients(zip(grads, model.trainable_variables)) inside the step")
    first, last = np.mean(got[:8]), np.mean(got[-8:])
    check(last < 0.9 * first, f"the loss did not go down: mean {first:.4f} over the first 8 steps, {last:.4f} over "
                              f"the last 8")
    n = step_fn.experimental_get_tracing_count()
    check(n == 1, f"40 steps on float32 [32, 8] batches traced {n} times, expected one graph for all of them")
    ops = [op.type for op in step_fn.get_concrete_function(x0, y0).graph.get_operations()]
    check(any(t.endswith("Grad") for t in ops), "the graph holds no gradient op (ReluGrad, BiasAddGrad): "
                                                "take tape.gradient inside the tf.function")
    check(any("Assign" in t or t.startswith("ResourceApply") for t in ops),
          "the graph holds no variable update: apply the gradients inside the tf.function")


def _check_storm():
    calls = [(b, 0.1 * 0.9 ** i) for i, b in enumerate(batches)]
    storm_fn = tf.function(step)
    for x, lr in calls[:10]:
        storm_fn(x, lr)
    storm = storm_fn.experimental_get_tracing_count()
    fixed_fn = fix_storm(step)
    _has_tracing(fixed_fn, "fix_storm(step)")
    for x, lr in calls:
        got, want = fixed_fn(x, lr), step(x, lr)
        check(np.allclose(np.asarray(got), want.numpy(), rtol=1e-5),
              f"on a batch of {x.shape[0]} with lr={lr:.4f} expected {float(want):.6f}, got {got}")
    n = fixed_fn.experimental_get_tracing_count()
    check(n == 1, f"{len(calls)} calls ({len(set(batch_sizes))} batch sizes, a new Python lr each time) traced {n} "
                  f"times, expected 1 (a plain tf.function traced {storm} times on the first 10). A Python "
                  f"float is keyed by value: declare every argument in an input_signature, batch size as None")


run_checks({"1. tracing_counts, predicted_counts (2.1, 2.2)": _check_cache,
            "2. clip_to_unit, count_ops (2.1, 2.3)": _check_autograph,
            "3. make_train_step (2.4)": _check_train_step,
            "4. fix_storm (2.5)": _check_storm})


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
# Fetch it from the *Assignment List* (Nbgrader menu): it lands in a folder of its name in the course
# root. Work there, and check your work with `python -m autograder check <name>.ipynb` in that folder.
