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
# # 30. Graph mode and `Session.run` (syllabus 1.1–1.5, 3.6)
#
# TensorFlow 1 worked in two phases. First you **build** a graph: every op call adds a node to a
# `tf.Graph` and returns a *symbolic* tensor, a promise of a value. Then you **run** part of it
# with `Session.run(fetches, feed_dict)`. The split is what makes graphs optimizable, portable and
# deployable, and also what makes them awkward to debug. We build one, run it, look at what it
# compiles into, optimize it, measure it, ship it, and break it.
#
# The setup cell splits the one CPU into two *logical* CPUs (used in the placement section). That
# must happen before the first tensor exists, as in TensorFlow.

# %%
import atexit
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
import tracemalloc
import numpy as np
import matplotlib.pyplot as plt
import engine as tf
from engine import viz

cpu = tf.config.list_physical_devices("CPU")[0]
try:
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
except RuntimeError as e:              # the runtime already started (re-running this cell)
    print("keeping the devices we have:", e)
print(tf.config.list_logical_devices())
v1 = tf.compat.v1                      # TF1's graph-mode API lives here in TF2, and in the engine

# %% [markdown]
# ## Building a graph computes nothing (1.1)
# Inside `with g.as_default():` ops are *recorded*, not run. A placeholder is an input to be fed
# later; a `Variable` becomes a handle op plus an initializer; `name_scope` prefixes names, which is
# how TensorBoard (and our picture) groups them. Printing a tensor shows a name, a dtype and a
# static shape (`None`: the batch size is not known yet), and no value.

# %%
g = tf.Graph()
with g.as_default():
    x = v1.placeholder(tf.float32, shape=[None, 3], name="x")
    with tf.name_scope("dense"):
        w = tf.Variable([[1.0, -1.0], [2.0, 0.5], [-3.0, 1.0]], name="w")
        b = tf.Variable([0.5, -0.25], name="b")
        h = tf.nn.relu(tf.matmul(x, w) + b, name="h")
    loss = tf.reduce_mean(tf.square(h), name="loss")
    side = tf.reduce_sum(tf.exp(x), name="side")        # a branch `loss` does not need
    init = v1.global_variables_initializer()
    print("executing eagerly?", tf.executing_eagerly())
    print(h)
print(len(g.get_operations()), "ops:", [op.name for op in g.get_operations()])
viz.draw_graph(g)

# %% [markdown]
# ## Nothing runs until `Session.run` (1.1, 1.5)
# A `Session` owns the variables' values; `sess.run(init)` runs the initializers, then each
# `sess.run(fetches, feed_dict)` computes the fetches from the fed values. Fetches can be any nest
# (a list, a dict) of tensors, variables or ops.
#
# The Python that built the graph ran **once**. Below, `print` inside the graph-building code
# printed a symbolic tensor at build time, and it never prints again, however often the graph runs.

# %%
batch = np.array([[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]], np.float32)
sess = v1.Session(graph=g)
sess.run(init)
print(sess.run(h, feed_dict={x: batch}))
print(sess.run({"loss": loss, "h": h}, {x: batch}))

g2 = tf.Graph()
with g2.as_default():
    a = v1.placeholder(tf.float32, [], name="a")
    print("while building, a is", a)         # runs once, shows no number
    doubled = a * 2.0
with v1.Session(graph=g2) as s2:
    print([float(s2.run(doubled, {a: value})) for value in (1.0, 2.0, 3.0)])   # no print from above

# %% [markdown]
# ## `Session.run` executes only what the fetches need
# The session walks backwards from the fetches (through data and control edges) and keeps only
# the ops on the way: `side` and the initializers are not run for `loss`. The picture is drawn by
# the executor's own pruning function: red runs, green is fed, grey is pruned away.

# %%
viz.draw_graph(g, highlight=loss, feed_dict={x: batch})

# %%
sess.run(loss, {x: batch})
print(f"fetching loss ran {len(sess.last_plan.graph_ops)} of {len(g.get_operations())} graph ops")
sess.run(side, {x: batch})
print(f"fetching side ran {len(sess.last_plan.graph_ops)}:", [op.name for op in sess.last_plan.graph_ops])

# %% [markdown]
# **Any** tensor can be fed, not only placeholders, and feeding one cuts away everything above
# it. Feed `h` and the variables are not needed at all: a brand-new session that never ran
# `init` computes `loss` fine.

# %%
viz.draw_graph(g, highlight=loss, feed_dict={h: np.ones((2, 2), np.float32)})

# %%
with v1.Session(graph=g) as fresh:                    # no init!
    print(fresh.run(loss, {h: [[1.0, 2.0], [3.0, 4.0]]}))  # mean of squares: 7.5

# %% [markdown]
# ## What a graph compiles into
# For each distinct (fetches, feeds) request the engine prunes, orders, optimizes, and then
# *generates straight-line Python*: one line per node, calling that node's kernel. TF's executor
# is C++ rather than generated code, but the idea is the same: the plan is made once and cached,
# and each later `run` just executes it. `del` lines free each intermediate after its last
# reader (the memory plan). Constants have no line: their values are bound into the code.
# (`sess.last_plan` is an engine extra, for teaching; TF shows its executed graph through
# `RunMetadata` and TensorBoard.)

# %%
sess.run(loss, {x: batch})
print(sess.last_plan.source)

# %% [markdown]
# ## The graph optimizer (1.2)
# Before a plan is generated, the engine's Grappler rewrites a copy of the needed subgraph (the
# graph itself is never modified). This graph has something for each pass:
# a constant subexpression (`scale`), the same `exp` twice (CSE), a `* 1.0` (arithmetic
# simplification), `MatMul + BiasAdd + Relu` (fused into one `_FusedMatMul` kernel, as Grappler's
# *remapper* does), and a chain of elementwise ops (fused into one generated kernel that works in
# one buffer: in TensorFlow that kind of fusion is XLA's job, not Grappler's).

# %%
go = tf.Graph()
with go.as_default():
    xo = v1.placeholder(tf.float32, [8, 4], name="x")
    W = tf.constant(np.full((4, 3), 0.5, np.float32), name="W")
    bias = tf.constant(np.zeros(3, np.float32), name="bias")
    scale = tf.multiply(tf.constant(2.0), tf.constant(3.0), name="scale")   # constant folding
    ho = tf.nn.relu(tf.nn.bias_add(tf.matmul(xo, W), bias), name="h")        # MatMul+BiasAdd+Relu fusion
    e1, e2 = tf.exp(ho, name="e1"), tf.exp(ho, name="e2")                   # CSE: e2 is e1
    z = (e1 + e2) * 1.0                                                      # x * 1 -> x
    out = tf.tanh(z * scale - 1.0, name="out")                               # elementwise fusion
with v1.Session(graph=go) as so:
    so.run(out, {xo: np.ones((8, 4), np.float32)})
    opt_plan = so.last_plan
print(opt_plan.report)

# %%
viz.draw_graph(go, before_after=opt_plan)

# %% [markdown]
# The plan now has four lines of work, and the fused chain is itself generated code that allocates
# one buffer and computes in place: a ufunc's last argument is its output buffer (`add(t0, t1, t0)` is
# NumPy's `add(t0, t1, out=t0)`, which writes into `t0`):

# %%
print(opt_plan.source)
print(opt_plan.fused_kernels["out"])

# %% [markdown]
# ### Measured: what building a graph buys, and what optimizing it adds
# One computation, four ways: 120 tiny elementwise ops (`tanh(y * a + b)`, repeated) on 64 floats,
#
# 1. **eager**: each op dispatched from Python (lesson 10),
# 2. **graph, optimizer off** (`disable_meta_optimizer`): the same 120 kernels, called by the
#    compiled plan. This removes only the per-op dispatch,
# 3. **graph, optimizer on**: the chain fused into one kernel,
# 4. **NumPy** written by hand, a floor.
#
# `tf.config.optimizer.set_experimental_options` switches passes, as in TF; a session compiles a
# new plan when the options change.

# %%
N_OPS, SIZE = 120, 64
rng = np.random.default_rng(0)
consts = [np.float32(c) for c in rng.uniform(0.5, 1.5, N_OPS)]
xv = rng.uniform(-1, 1, SIZE).astype(np.float32)

def chain(y, ops):                      # works on tensors (tf ops) and on arrays (np functions)
    for i in range(0, N_OPS, 3):
        y = ops.tanh(y * consts[i] + consts[i + 1])
    return y

def best_us(f, number=40, rounds=5):
    f()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(number):
            f()
        times.append((time.perf_counter() - t0) / number)
    return min(times) * 1e6

gch = tf.Graph()
with gch.as_default():
    xc = v1.placeholder(tf.float32, [SIZE], name="x")
    yc = chain(xc, tf)
sc = v1.Session(graph=gch)
xe = tf.constant(xv)
t = {"eager": best_us(lambda: chain(xe, tf))}
tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
t["graph, optimizer off"] = best_us(lambda: sc.run(yc, {xc: xv}))
off_result, off_kernels = sc.run(yc, {xc: xv}), sum(op.type != "Const" for op in sc.last_plan.ops)
tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": None})     # back to the default
t["graph, optimizer on"] = best_us(lambda: sc.run(yc, {xc: xv}))
on_result, on_summary = sc.run(yc, {xc: xv}), sc.last_plan.report.summary()
on_kernels = sum(op.type != "Const" for op in sc.last_plan.ops)
t["NumPy"] = best_us(lambda: chain(xv, np))
assert np.allclose(off_result, on_result, atol=1e-6) and np.allclose(on_result, chain(xv, np), atol=1e-6)
print(on_summary, f"\nkernels called per run: {off_kernels} (optimizer off), {on_kernels} (on)")
for k, v in t.items():
    print(f"{k:>22}: {v:8.1f} µs per run, {v / N_OPS:6.2f} µs per op")

fig, ax = plt.subplots(figsize=(6, 2.6), layout="constrained")
ax.barh(list(t)[::-1], list(t.values())[::-1], color=["#999999", "#6aa84f", "#3d85c6", "#cc4125"])
ax.set_xlabel(f"µs per run of {N_OPS} elementwise ops"); ax.set_title("Eager vs graph vs optimized graph")
plt.show()

# %% [markdown]
# Reading it: eager → graph (optimizer off) is the *dispatch* saving: same kernels, no per-op
# Python machinery. Graph off → on is the *optimizer's* saving: 120 kernel calls become one.
#
# ### Measured: memory reuse
# A chain of 12 elementwise ops on a 1000×1000 float32 input (4 MB per intermediate), run three
# ways; for each, the peak bytes NumPy allocated during one run, measured with `tracemalloc`:
#
# * **eager**, the same chain op by op: Python frees each intermediate when its last reference
#   goes;
# * **graph, no optimization pass, values freed after their last reader**: what TF's executor does
#   even without Grappler (each reader holds a reference to the value's buffer until it has run;
#   the last one to drop it frees it). The engine's memory plan, with every other pass off, frees
#   at the same points, found from the graph's edges;
# * **graph, whole optimizer**: the same, plus fusion, which computes the chain in one buffer.
#
# (The plan's static estimate, printed beside each, also gives the figure for a graph that holds
# every value until the end of the run: no runtime does that, so it is no baseline.)

# %%
gm = tf.Graph()
with gm.as_default():
    xm = v1.placeholder(tf.float32, [1000, 1000], name="x")
    ym = xm
    for i in range(4):
        ym = tf.sin(ym) * 0.9 + 0.1
big = np.full((1000, 1000), 0.5, np.float32)
sm = v1.Session(graph=gm)


def eager_chain(x):
    y = x
    for i in range(4):
        y = tf.sin(y) * 0.9 + 0.1
    return y


def eager_peak_bytes(x):
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        result = eager_chain(x)
        peak = tracemalloc.get_traced_memory()[1] - base
        del result
    finally:
        tracemalloc.stop()
    return peak


big_eager = tf.constant(big)
eager_chain(big_eager)                               # warm up (kernel lookups)
peaks = {"eager": eager_peak_bytes(big_eager) / 2**20}
BUFFER_MIB = big.nbytes / 2**20                       # one intermediate: 3.8 MiB
print(f"{'eager':>30}: {peaks['eager']:5.1f} MiB = {peaks['eager'] / BUFFER_MIB:.1f} intermediates")
PASSES_OFF = {"constant_folding": False, "arithmetic_optimization": False, "remapping": False,
              "disable_model_pruning": True}         # every pass off except the memory plan
for label, options in [("graph, freed at last reader", PASSES_OFF),
                       ("graph, whole optimizer", {})]:
    tf.config.optimizer.set_experimental_options({**{k: None for k in PASSES_OFF}, **options})
    sm.run(ym, {xm: big})
    peaks[label] = sm.last_plan.measure_peak_bytes([big]) / 2**20
    print(f"{label:>30}: {peaks[label]:5.1f} MiB = {peaks[label] / BUFFER_MIB:.1f} intermediates   "
          f"({sm.last_plan.memory.describe()})")
tf.config.optimizer.set_experimental_options({k: None for k in PASSES_OFF})
low, high = min(peaks, key=peaks.get), max(peaks, key=peaks.get)
print(f"least: {low} ({peaks[low]:.1f} MiB), most: {high} ({peaks[high]:.1f} MiB), "
      f"{peaks[high] / peaks[low]:.1f}x as much")

fig, ax = plt.subplots(figsize=(6, 2.2), layout="constrained")
ax.barh(list(peaks)[::-1], list(peaks.values())[::-1], color="#3d85c6")
ax.set_xlabel("peak MiB allocated during one run"); ax.set_title("Memory reuse")
plt.show()

# %% [markdown]
# Reading it: eager execution is not wasteful either; each intermediate dies when its last Python
# reference goes. But `y = tf.sin(y) * 0.9 + 0.1` keeps the *previous* `y` alive until the whole
# line is done, so at the add three intermediates coexist (the old `y`, `sin`, the product); the
# graph executor knows that `sin` is the last
# reader of `y`, and frees it before the multiply. Fusion then removes the intermediates altogether.
#
# ## "Graph mode runs in parallel and avoids the interpreter": two different claims
# The article says a compiled graph "runs in parallel on the GPU, avoiding the Python interpreter
# on every call". These are two separate effects:
#
# * **Avoiding per-op dispatch** is real, and measured above: eager → graph (optimizer off).
# * **Parallelism** depends on the executor and on the dependencies between ops. TensorFlow's
#   executor hands ops whose inputs are ready to an inter-op thread pool, so independent branches
#   *can* overlap on a CPU. On one GPU, TF enqueues kernels on one compute stream by default, so
#   they execute in order; the speed there comes from each kernel being parallel *inside*, which
#   eager ops get too. A chain of dependent ops is sequential under any executor.
#
# The engine's executor is simpler still: the plan is straight-line code, **one op after the other
# in one thread**. Two independent branches, even placed on two devices, are not overlapped:

# %%
gp = tf.Graph()
with gp.as_default():
    p = v1.placeholder(tf.float32, [2_000_000], name="p")
    with tf.device("/CPU:0"):
        left = tf.reduce_sum(tf.exp(p), name="left")
    with tf.device("/CPU:1"):
        right = tf.reduce_sum(tf.sin(p), name="right")
pv = np.linspace(-1, 1, 2_000_000, dtype=np.float32)
sp = v1.Session(graph=gp)
runs = {"left alone": lambda: sp.run(left, {p: pv}), "right alone": lambda: sp.run(right, {p: pv}),
        "both, one run": lambda: sp.run([left, right], {p: pv})}
rounds = {k: [] for k in runs}
for _ in range(7):                     # the three alternate, so a busy moment of the machine hits all of them
    for k, f in runs.items():
        rounds[k].append(best_us(f, 2, 1) / 1e3)
tp = {k: float(np.median(v)) for k, v in rounds.items()}
print(sp.last_plan.source)
ratios = sorted(b / (l + r) for l, r, b in zip(*rounds.values()))
overlap, ideal = float(np.median(ratios)), max(tp["left alone"], tp["right alone"]) / (tp["left alone"] + tp["right alone"])
print({k: round(v, 2) for k, v in tp.items()}, "ms (medians of 7 rounds)")
print(f"both / (left + right) = {overlap:.2f}, from {ratios[0]:.2f} to {ratios[-1]:.2f} over the rounds "
      f"(1.0: one after the other; {ideal:.2f}: perfect overlap)")
print("conclusion from this run:", "one after the other, as the plan's code says" if overlap > (1 + ideal) / 2
      else "closer to overlap than to one after the other: on this machine the measurement is noisy (see the "
           "spread); the plan's code above still runs one op at a time")

fig, ax = plt.subplots(figsize=(6, 2.2), layout="constrained")
ax.barh(list(tp)[::-1], list(tp.values())[::-1], color="#6aa84f")
ax.axvline(tp["left alone"] + tp["right alone"], color="#cc4125", ls="--", label="left + right")
ax.axvline(max(tp["left alone"], tp["right alone"]), color="#999999", ls=":", label="ideal overlap")
ax.set_xlabel("ms per run"); ax.legend(fontsize=8); ax.set_title("Independent branches, engine executor")
plt.show()

# %% [markdown]
# ## Devices in the picture (1.4)
# `tf.device` stamps a device on each op created inside it, and the device is part of the graph:
# it shows in the picture, and it is written into the serialized graph. (Both logical CPUs compute
# with NumPy in this process; on a GPU machine the engine would run `/GPU:0` ops with CuPy.) The
# fusion pass respects placement: it only merges ops that sit on the same device.

# %%
viz.draw_graph(gp, color_by="device")

# %%
print([(op.name, op.device.split("device:")[-1]) for op in gp.get_operations() if op.device])
for line in gp.as_graph_def().to_json().splitlines():     # the serialized graph keeps the placement
    if '"device"' in line:
        print(line)

# %% [markdown]
# ## Symbolic gradients: differentiation built into the graph (3.6)
# In graph mode there is no tape to manage: `tf.gradients(ys, xs)` walks the graph backwards
# (lesson 20's algorithm, over graph nodes) and **adds the gradient ops to the graph**, under a
# `gradients/` scope. They are ordinary nodes: pruned, optimized and run like any other. The
# seed's example, `x**3` at 2:

# %%
gg = tf.Graph()
with gg.as_default():
    xv3 = tf.Variable(2.0, name="x")
    y3 = tf.pow(xv3, 3.0, name="y")
    (dy_dx,) = tf.gradients(y3, [xv3])
    print(dy_dx)                                   # a symbolic tensor: a node of the graph
with v1.Session(graph=gg) as s3:
    s3.run(xv3.initializer)
    dy_dx_value = s3.run(dy_dx)
    print("dy/dx =", dy_dx_value)
viz.draw_graph(gg, highlight=dy_dx)

# %% [markdown]
# `Pow`'s gradient function also built the gradient with respect to the exponent (`Log`, ...).
# Nobody fetches it, so `Session.run` prunes it away: the grey part.
#
# A TF1 training loop: `minimize` = `tf.gradients` + one update op per variable, all in the graph.
# In TF1, `GradientDescentOptimizer` adds one `ResourceApplyGradientDescent` per variable (a single
# kernel doing `var -= lr * grad`); the engine adds `lr * grad` and an `AssignSubVariableOp`, which
# computes the same update. One `sess.run(train_op)` runs forward, backward and update as one plan
# (and the optimizer fuses and prunes the backward ops like any others). We fit `y = 3x - 1`.

# %%
rng = np.random.default_rng(1)
x_train = rng.uniform(-1, 1, (64, 1)).astype(np.float32)
y_train = (3 * x_train - 1 + 0.05 * rng.standard_normal((64, 1))).astype(np.float32)

gt = tf.Graph()
with gt.as_default():
    xt = v1.placeholder(tf.float32, [None, 1], name="x")
    yt = v1.placeholder(tf.float32, [None, 1], name="y_true")
    with tf.name_scope("model"):
        wt = tf.Variable([[0.0]], name="w")
        bt = tf.Variable([0.0], name="b")
        pred = tf.nn.bias_add(tf.matmul(xt, wt), bt, name="pred")
    mse = tf.reduce_mean(tf.square(pred - yt), name="mse")
    train_op = v1.train.GradientDescentOptimizer(0.5).minimize(mse)
    init_t = v1.global_variables_initializer()
viz.draw_graph(gt, collapse_scopes=["gradients"], show_shapes=False)   # the backward pass: one folder

# %%
st = v1.Session(graph=gt)
st.run(init_t)
losses = [st.run([train_op, mse], {xt: x_train, yt: y_train})[1] for _ in range(60)]
print(st.last_plan.report.summary())
w_trained, b_trained = st.run([wt, bt])
print("w, b =", w_trained.ravel(), b_trained, " final mse", losses[-1])

fig, ax = plt.subplots(figsize=(5, 2.4), layout="constrained")
ax.semilogy(losses); ax.set_xlabel("sess.run(train_op)"); ax.set_ylabel("mse"); ax.set_title("Training in graph mode")
plt.show()

# %% [markdown]
# ## Serialize, then serve without the Python that built it (1.3, 1.4)
# A `GraphDef` is the graph written down as data: one node per op with its type, inputs, device
# and attributes (constants carry their arrays). It holds no variable *values*, so for serving we
# **freeze** the trained model: the same graph with the trained weights as constants (TF's
# `convert_variables_to_constants` does that rewrite automatically). `tf.io.write_graph` writes the
# engine's GraphDef: JSON, one node per line, with TF's field names (`docs/graph_format.md`).

# %%
serving = tf.Graph()
with serving.as_default():
    xs = v1.placeholder(tf.float32, [None, 1], name="x")
    ys = tf.nn.bias_add(tf.matmul(xs, tf.constant(w_trained, name="w")),
                        tf.constant(b_trained, name="b"), name="y")
export_dir = tempfile.mkdtemp(prefix="lesson30_")
atexit.register(shutil.rmtree, export_dir, ignore_errors=True)   # removed when the kernel stops
path = tf.io.write_graph(serving, export_dir, "model.json")
text = open(path, encoding="utf-8").read()
print(len(text), "bytes of text:\n")
print(text)

# %% [markdown]
# A new process that has never seen the code above loads the file, rebuilds the graph from its
# own op registry (`import_graph_def`) and serves it:

# %%
server = f"""
import engine as tf
g = tf.Graph()
with g.as_default():
    x, y = tf.compat.v1.import_graph_def(tf.io.read_graph({path!r}), return_elements=["x:0", "y:0"], name="")
with tf.compat.v1.Session(graph=g) as sess:
    print("served:", sess.run(y, {{x: [[0.0], [1.0], [2.0]]}}).ravel())
"""
print(subprocess.run([sys.executable, "-c", server], capture_output=True, text=True, check=True).stdout)

# %% [markdown]
# And the file is **language-neutral**: it is plain JSON, so any runtime that implements the same
# op types can run it. Here is one in a dozen lines that does not use the engine at all, only `json`,
# `base64` and NumPy. (TensorFlow's GraphDef is a protobuf; its C API imports it, and the C++, Java
# and Go bindings are built on that.)

# %%
KERNELS = {"MatMul": lambda a, b: a @ b, "BiasAdd": lambda a, b: a + b,
           "AddV2": lambda a, b: a + b, "Relu": lambda a: np.maximum(a, 0)}

def run_graph_file(file, feeds, fetch):
    values = {}
    for node in json.load(open(file, encoding="utf-8"))["node"]:   # writers use a valid order
        if node["op"] == "Placeholder":
            values[node["name"]] = np.asarray(feeds[node["name"]], np.float32)
        elif node["op"] == "Const":
            t = node["attr"]["value"]["tensor"]
            raw = base64.b64decode(t["tensor_content"])
            values[node["name"]] = np.frombuffer(raw, np.dtype(t["dtype"]).newbyteorder("<")).reshape(t["shape"])
        else:
            values[node["name"]] = KERNELS[node["op"]](*(values[i] for i in node["input"]))
    return values[fetch]

print("no engine:", run_graph_file(path, {"x": [[0.0], [1.0], [2.0]]}, "y").ravel())

# %% [markdown]
# ## The cost of graph mode (1.5)
# The two phases that make graphs fast make them harder to debug.
#
# * A Python `if` on a tensor cannot work: the value does not exist while the graph is built.
# * A mistake surfaces only at **run time**, far from the line that made it. Below, a matrix
#   product with unknown shapes builds fine; `Session.run` fails, the traceback goes from your
#   `sess.run` line into the session and the plan, never through the line that built `scores`, and
#   the only link to your code is the **node name** in the message: name your ops. (TensorFlow
#   also stores each op's creation stack, `op.traceback`, for its error messages.)
# * Forgetting a feed, or an initializer, is also a run-time error.

# %%
gb = tf.Graph()
with gb.as_default():
    u = v1.placeholder(tf.float32, None, name="u")
    v = v1.placeholder(tf.float32, None, name="v")
    prod = tf.matmul(u, v, name="scores")         # builds: shapes are unknown, so nothing to check
    total = tf.reduce_sum(prod, name="total")
    print("graph built without complaint:", [op.name for op in gb.get_operations()], "\n")
    try:
        if total > 0:
            pass
    except TypeError as e:
        print(type(e).__name__, ":", textwrap.fill(str(e), 100))
with v1.Session(graph=gb) as sb:
    try:
        sb.run(total, {u: np.ones((2, 3)), v: np.ones((4, 2))})
    except tf.errors.InvalidArgumentError as e:
        late_error = e
        print("\nonly now:", type(e).__name__)
        print(textwrap.fill(e.message, 100))
        print("traceback:", [f"{os.path.basename(f.filename)}:{f.name}" for f in traceback.extract_tb(e.__traceback__)])
    try:
        sb.run(total, {u: np.ones((2, 3))})
    except tf.errors.InvalidArgumentError as e:
        print("forgot a feed:", e.message.splitlines()[0])

# %% [markdown]
# ## Exercises (self-checked)
# Fill in each function in the cells below (replace `raise NotImplementedError()`), then run the
# self-check cell after them: it says, exercise by exercise, what is right and what is not yet.
#
# 1. `plan_sizes(sess, fetch, feed_dict)` (1.1, 1.2): run `fetch` and return three numbers:
#    how many **graph ops** that run needed (`sess.last_plan.graph_ops`, after pruning), and how many
#    **kernels** the compiled plan calls (ops of `sess.last_plan.ops` whose type is not `Const`),
#    first with the optimizer switched off (`disable_meta_optimizer`), then with it on. Leave the
#    optimizer on when you return (set the option back to `None`, as the measurement above does).
# 2. `graph_derivative(f, x0)` (3.6, 1.1): in a new `tf.Graph`, feed a float32 scalar placeholder
#    `s`, build `y = f(s)` and its symbolic gradient with `tf.gradients`, and return the value of
#    dy/ds at `s = x0` from `Session.run`. No tape.
# 3. `serve(path, feeds, fetch)` (1.3, 1.4): load the GraphDef file at `path` into a **fresh**
#    `tf.Graph` with `import_graph_def(..., name="")`, and return `(value, placement)`: the value
#    of the tensor named `fetch` (e.g. `"y:0"`) with `feeds` fed (a dict from tensor names such as
#    `"x:0"` to values; `Session.run` accepts tensor names as fetches and feed keys), and
#    `{op name: device}` for every imported op whose device is set. The self-check serves a graph
#    whose building code you never see.
# 4. `failing_node(sess, fetch, feed_dict)` (1.5): run `fetch`; return `None` if the run works,
#    else the **name of the graph node** the run-time error points at (every run-time error is a
#    `tf.errors.OpError`; its `.op` is the node that failed, when known). That name is your only way
#    back to the line that built the node.

# %% nbgrader={"grade": false, "grade_id": "ex30_plan", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.1", "1.2"]
def plan_sizes(sess, fetch, feed_dict):
    ### BEGIN SOLUTION
    def kernels():
        return sum(op.type != "Const" for op in sess.last_plan.ops)

    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
    try:
        sess.run(fetch, feed_dict)
        needed, kernels_off = len(sess.last_plan.graph_ops), kernels()
    finally:
        tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": None})
    sess.run(fetch, feed_dict)
    return needed, kernels_off, kernels()
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "ex30_grad", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["3.6", "1.1"]
def graph_derivative(f, x0):
    ### BEGIN SOLUTION
    graph = tf.Graph()
    with graph.as_default():
        s = v1.placeholder(tf.float32, [], name="s")
        (dy_ds,) = tf.gradients(f(s), [s])
    with v1.Session(graph=graph) as session:
        return session.run(dy_ds, {s: x0})
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "ex30_serve", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.3", "1.4"]
def serve(path, feeds, fetch):
    ### BEGIN SOLUTION
    graph = tf.Graph()
    with graph.as_default():
        v1.import_graph_def(tf.io.read_graph(path), name="")
    placement = {op.name: op.device for op in graph.get_operations() if op.device}
    with v1.Session(graph=graph) as session:
        return session.run(fetch, feeds), placement
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "ex30_debug", "locked": false, "schema_version": 3, "solution": true, "task": false} syllabus=["1.5"]
def failing_node(sess, fetch, feed_dict):
    ### BEGIN SOLUTION
    try:
        sess.run(fetch, feed_dict)
    except tf.errors.OpError as error:
        return error.op.name
    return None
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "check30", "locked": true, "schema_version": 3, "solution": false, "task": false}
from autograder.selfcheck import check, run_checks


def _needed_ops(fetch, feed_dict):
    """The graph ops a run of `fetch` needs, walked back through data and control edges, fed tensors cut."""
    fed = {t.name for t in feed_dict}
    seen, stack = {}, [fetch.op if isinstance(fetch, tf.Tensor) else fetch]
    while stack:
        op = stack.pop()
        if op.name not in seen:
            seen[op.name] = op
            stack += [t.op for t in op.inputs if t.name not in fed] + list(op.control_inputs)
    return list(seen.values())


def _check_plan_sizes():
    try:
        for name, s_, fetch, feeds in [("loss", sess, loss, {x: batch}), ("side", sess, side, {x: batch}),
                                       ("the 120-op chain", sc, yc, {xc: xv})]:
            got = plan_sizes(s_, fetch, feeds)
            check(isinstance(got, tuple) and len(got) == 3, f"return (ops needed, kernels off, kernels on), not {got!r}")
            needed, off, on = got
            want = _needed_ops(fetch, feeds)
            total = len(fetch.graph.get_operations())
            check(not tf.config.optimizer.get_experimental_options().get("disable_meta_optimizer"),
                  "the optimizer is still off after plan_sizes: set disable_meta_optimizer back to None")
            check(needed != total, f"{name}: {needed} is every op of the graph; Session.run runs only the "
                                   f"{len(want)} ops the fetch needs (sess.last_plan.graph_ops)")
            check(needed == len(want), f"{name}: the run needs {len(want)} graph ops, you said {needed} "
                                       "(run the fetch, then read sess.last_plan.graph_ops)")
            kernels = sum(op.type != "Const" for op in want)
            check(off == kernels, f"{name}: with the optimizer off the plan calls {kernels} kernels (its ops "
                                  f"that are not Const), you said {off} (run the fetch with the optimizer off, "
                                  "then read sess.last_plan)")
            check(on <= off, f"{name}: the optimizer never adds kernel calls, you said {off} off, {on} on")
        check((off, on) == (off_kernels, on_kernels),
              f"the chain: measured above {off_kernels} kernels off, {on_kernels} on; you said {off}, {on}")
        check(on < off, f"the chain: with the optimizer on it should fuse into fewer kernels, you said {on}")
    finally:
        tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": None})


def _check_graph_derivative():
    rng_check = np.random.default_rng()
    cases = [("3 s**2", lambda s: 3.0 * s ** 2, lambda v: 3.0 * v ** 2, lambda v: 6.0 * v),
             ("sin(s) * s", lambda s: tf.sin(s) * s, lambda v: np.sin(v) * v, lambda v: np.cos(v) * v + np.sin(v)),
             ("exp(-s*s)", lambda s: tf.exp(-s * s), lambda v: np.exp(-v * v), lambda v: -2 * v * np.exp(-v * v))]
    for name, f, f_np, df_np in cases:
        x0 = float(rng_check.uniform(0.5, 2.0))
        eager_calls, args = [], []
        got = graph_derivative(lambda s: (eager_calls.append(tf.executing_eagerly()), args.append(s), f(s))[-1], x0)
        check(eager_calls == [False], "call f once, while building a graph (inside `with graph.as_default():`), "
                                      f"not eagerly: f ran with executing_eagerly() = {eager_calls}")
        built_in = getattr(args[0], "graph", None)
        check(built_in is not None, f"call f on the placeholder s (a graph tensor), not on {args[0]!r}")
        check(any(op.name.startswith("gradients") for op in built_in.get_operations()),
              "the graph f was built in has no gradient ops: differentiate it with tf.gradients")
        check(not isinstance(got, tf.Tensor), f"return the value Session.run gives, not the tensor {got}")
        check(got is not None and np.shape(got) == (), f"d/ds {name} should be a scalar, got {got!r}")
        check(not np.isclose(float(got), f_np(x0), rtol=1e-4) or np.isclose(f_np(x0), df_np(x0), rtol=1e-4),
              f"{got} is {name} itself at s={x0:.3f}, not its derivative")
        check(np.isclose(float(got), df_np(x0), rtol=1e-4),
              f"d/ds {name} at s={x0:.3f}: the hand derivative is {df_np(x0):.5f}, you got {float(got):.5f}")


def _export_placed_graph():
    """Builds, writes and forgets a placed graph: only the file leaves this function."""
    built = tf.Graph()
    with built.as_default():
        q = v1.placeholder(tf.float32, [3], name="q")
        with tf.device("/CPU:0"):
            a = tf.exp(q, name="a")
        with tf.device("/CPU:1"):
            tf.reduce_sum(a * 2.0, name="out")
    placed = {op.name: op.device for op in built.get_operations() if op.device}
    return tf.io.write_graph(built, export_dir, "placed.json"), placed


def _check_serve():
    q_value = np.array([0.0, 0.5, -1.0], np.float32)
    placed_path, placed = _export_placed_graph()
    for label, file, feeds, fetch, want, want_placement in [
            ("model.json", path, {"x:0": [[10.0]]}, "y:0", 10 * w_trained + b_trained, {}),
            ("placed.json", placed_path, {"q:0": q_value}, "out:0", 2 * np.exp(q_value).sum(), placed),
            ("model.json again", path, {"x:0": [[-2.0], [4.0]]}, "y:0", np.array([[-2.0], [4.0]]) * w_trained + b_trained, {})]:
        got = serve(file, feeds, fetch)
        check(isinstance(got, tuple) and len(got) == 2, f"return (value, placement), not {got!r}")
        value, placement = got
        check(value is not None, f"{label}: the value is None: fetch the tensor {fetch!r}, not the op")
        check(np.allclose(value, want, atol=1e-4), f"{label}: {fetch} should be {np.round(want, 4).tolist()}, "
                                                   f"you got {np.round(value, 4).tolist()}")
        check(isinstance(placement, dict), f"{label}: placement should be a dict, not {type(placement).__name__}")
        check(not any(k.startswith("import/") for k in placement),
              f"{label}: names like {sorted(placement)[:1]} are prefixed: import with name=\"\"")
        check(placement == want_placement, f"{label}: the file places {want_placement or 'no op'}, you reported "
                                           f"{placement or 'none'} (only ops whose device is set, from a fresh "
                                           "graph per call)")


def _check_failing_node():
    u_, v_, total_ = (gb.get_tensor_by_name(n) for n in ("u:0", "v:0", "total:0"))
    with v1.Session(graph=gb) as debug:
        check(failing_node(debug, total_, {u_: np.ones((2, 3)), v_: np.ones((3, 2))}) is None,
              "with shapes (2,3) @ (3,2) the run works: return None")
        got = failing_node(debug, total_, {u_: np.ones((2, 3)), v_: np.ones((4, 2))})
        check(got != "total", "'total' is the node you fetched; the error points at the node that failed (error.op)")
        check(isinstance(got, str), f"return the node's name (error.op.name), not {type(got).__name__}")
        check(got == "scores", f"(2,3) @ (4,2) fails in the MatMul named 'scores', you said {got!r}")
        got = failing_node(debug, total_, {u_: np.ones((2, 3))})
        check(got == "v", f"with v not fed, the error names the placeholder 'v', you said {got!r}")
    with v1.Session(graph=g) as no_init:
        reads = sorted(op.name for op in g.get_operations() if op.type == "ReadVariableOp")
        got = failing_node(no_init, loss, {x: batch})
        check(got in reads, f"before init, reading a variable fails (a FailedPreconditionError: catch "
                            f"tf.errors.OpError) in one of {reads}, you said {got!r}")
    built = tf.Graph()
    with built.as_default():
        flat_in = v1.placeholder(tf.float32, None, name="flat_in")
        flat = tf.reshape(flat_in, [4], name="flatten")
    with v1.Session(graph=built) as reshaper:
        check(failing_node(reshaper, flat, {flat_in: np.ones(4)}) is None, "4 values reshape to [4]: return None")
        got = failing_node(reshaper, flat, {flat_in: np.ones(3)})
        check(got == "flatten", f"3 values cannot reshape to [4]: the node is 'flatten', you said {got!r}")


run_checks({"1. plan_sizes (1.1, 1.2)": _check_plan_sizes,
            "2. graph_derivative (3.6)": _check_graph_derivative,
            "3. serve (1.3, 1.4)": _check_serve,
            "4. failing_node (1.5)": _check_failing_node})

# %% [markdown]
# ## Interview question
# > *"Explain TensorFlow's two execution modes, Graph mode and Eager execution. How do they differ?"*
# > (「请介绍一下 TensorFlow 的两种执行模式：Graph Mode 和 Eager Execution，它们有什么区别？」)
#
# The article's answer for graph mode: build a static graph, then run it with `Session.run()`;
# it can be optimized globally (fusion, memory reuse), deployed (Serving), run across devices and
# languages; but it is hard to debug and nothing runs until the graph is defined. Each claim,
# runnable, plus the correction: the speed comes from removing per-op dispatch and from the
# optimizer, not from automatic parallelism.

# %%
print("1.1 built first, run later:", h, "->", sess.run(h, {x: batch[:1]}))
print("1.2 optimized as a whole:", opt_plan.report.summary())
print(f"    measured here: eager {t['eager']:.0f} µs, graph {t['graph, optimizer off']:.0f} µs, optimized graph "
      f"{t['graph, optimizer on']:.0f} µs per run; peak memory {peaks['eager']:.1f} MiB eager, "
      f"{peaks['graph, freed at last reader']:.1f} MiB graph, {peaks['graph, whole optimizer']:.1f} MiB optimized")
print("1.3 deployed: model.json served without the code that built it:", run_graph_file(path, {"x": [[1.0]]}, "y").ravel())
print("1.4 across devices:", {op.name: op.device[-5:] for op in gp.get_operations() if op.device},
      "and languages: the file is plain JSON")
print(f"1.5 the cost: the bug in {late_error.op.name!r} surfaced only in Session.run, as {type(late_error).__name__}")
print("3.6 gradients are graph nodes too:", dy_dx.name, "=", dy_dx_value)
print(f"correction: the speed comes from no per-op dispatch plus the optimizer; this executor runs independent "
      f"branches one after the other (both / (left + right) = {overlap:.2f})")

# %% [markdown]
# ## Build it yourself
#
# **A2, run a graph** (20 points, 3–5 h): the executor behind `Session.run`: prune to what the
# fetches and targets need, order it, run the kernels, and run real TF1 programs on it (variables,
# control dependencies, `tf.gradients`, a training loop) through the `executor` seam.
#
# **A6, optimize a graph** (20 points, 4–5 h): dead-node pruning, constant folding and common-
# subexpression elimination as graph-optimizer passes through the `graph_pass` seam, then a fold,
# CSE, prune pipeline, graded on random `tf.function` and TF1 programs.
#
# Fetch it from the *Assignment List* (Nbgrader menu): it lands in a folder of its name in the course
# root. Work there, and check your work with `python -m autograder check <name>.ipynb` in that folder.
