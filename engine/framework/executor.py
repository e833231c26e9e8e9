"""Compile part of a graph into a straight-line program, then run it many times.

``Session.run`` (and ``tf.function``) never walks the graph per call.
For each distinct request (which tensors to fetch, which to feed) it:

1. **prunes** the graph to the ops the fetches need (walking inputs and control
   inputs backwards, stopping at fed tensors),
2. **orders** them topologically,
3. copies them into the optimizer's IR and **optimizes** the copy
   (``engine/framework/optimizer/``: constant folding, CSE, arithmetic
   simplification, pruning, fusion, a memory plan; the graph itself is never
   modified),
4. **generates Python source** for one function that calls each node's kernel
   in that order, with every intermediate value in a local variable that is
   deleted right after its last reader (the memory plan), and
5. caches the compiled function (a :class:`Plan`).

A plan reads each node's kernel from the op registry when it is compiled. If a
row changes later (``registry.override`` swaps a kernel or a gradient for a
block), the plan notices on its next call and compiles itself again, so every
cached ``Session.run`` request and ``tf.function`` follows the registry.

``plan.source`` shows the generated code, which is the best way to see what
"compiling a graph" means; ``print(plan.report)`` shows what the optimizer
changed. Constants are not computed at all: the generated code refers to their
values directly. Errors raised by a kernel are reported with the name of the
node that failed: every node is one line of the generated code, so the line
number in the traceback says which node it was (no bookkeeping per step).
"""
import itertools

import numpy as np

from .. import config_optimizer
from .backend import NUMPY
from .device import default_device, lookup_device
from .errors import InvalidArgumentError, OpError
from .optimizer import from_operations, optimize   # (importing it declares the ``graph_pass`` seam)
from .random_state import stream_owner
from .registry import _GENERATION, InferenceContext
from .tensor import EagerTensor

__all__ = ["Plan", "compile_plan", "prune"]


def prune(fetch_ops, fed_tensor_ids):
    """The ops needed to compute ``fetch_ops``, in a valid execution order.

    An op is needed if a fetch depends on one of its outputs (through data or
    control edges) and that output is not fed. A control dependency on an op
    whose outputs are all fed (a fed placeholder) is already satisfied.
    Order: depth-first post-order, which puts every op after its inputs.
    """
    order, state = [], {}
    for root in fetch_ops:
        if root is None or id(root) in state:
            continue
        stack = [(root, False)]
        while stack:
            op, expanded = stack.pop()
            key = id(op)
            if expanded:
                state[key] = 2
                order.append(op)
                continue
            if state.get(key):
                continue
            state[key] = 1
            stack.append((op, True))
            deps = [c for c in op.control_inputs if not _fully_fed(c, fed_tensor_ids)]
            deps += [t.op for t in op.inputs if t._id not in fed_tensor_ids]
            for dep in reversed(deps):
                if not state.get(id(dep)):
                    stack.append((dep, False))
    return order


def _fully_fed(op, fed_tensor_ids):
    """An op whose every output is fed is replaced by its feeds (as TF does): waiting for it is free."""
    return bool(op.outputs) and all(t._id in fed_tensor_ids for t in op.outputs)


class Plan:
    """A compiled program: call it with fed arrays (in ``feed_tensors`` order), get fetched arrays back.

    ``ops``: the nodes that run, in order (optimizer IR nodes: ``name``, ``type``,
    ``inputs``, ``fused_from``); ``graph_ops``: the graph operations the request
    needed before optimization; ``report``: what the optimizer changed;
    ``memory``: the memory plan; ``options``: the optimizer options it was
    compiled with (hashable: part of a plan cache key); ``source``: the code.
    """

    def __init__(self, program, feed_tensors, fetch_tensors, fn, source, node_at_line, report=None,
                 graph_ops=(), options=(), request=None):
        self._request = request            # compile_plan's arguments: to compile again after an override
        self._generation = _GENERATION[0]
        self.program = program
        self.ops = list(program.nodes)
        self.graph_ops = list(graph_ops)
        self.feed_tensors = feed_tensors
        self.fetch_tensors = fetch_tensors
        self._fn = fn
        self._node_at_line, self._inputs_at_line = node_at_line
        self.source = source
        self.report = report
        self.memory = report.memory if report is not None else None
        self.options = options

    def __call__(self, feed_arrays, runtime=None):
        if self._generation != _GENERATION[0] and self._request is not None:
            self._recompile()
        try:
            return self._fn(feed_arrays, runtime)
        except OpError as error:
            raise self._annotate(error, self._failed_node(error)) from None
        except Exception as error:  # a kernel failed: say which node and why, as TF does
            node = self._failed_node(error)
            if node is None:
                raise
            fused = f", fused from {', '.join(node.fused_from)}" if node.fused_from else ""
            values = self._failed_inputs(error)
            inputs = ", ".join(f"{_input_name(t)} {_shape_text(t, v)} {t.dtype.name}"
                               for t, v in zip(node.inputs, values))
            raise InvalidArgumentError(
                None, node.origin or node, f"{_explain(node, values, error)}\n\t [[node {node.name} (op type "
                f"{node.type}{fused})]] Inputs: {inputs}") from None

    def _recompile(self):
        """An op's kernel or gradient changed since this plan was compiled: compile it again, in place."""
        fresh = compile_plan(*self._request)
        self.__dict__.update(fresh.__dict__)

    def _failed_frame(self, error):
        """The generated plan's frame and line where ``error`` was raised (or ``(None, None)``)."""
        tb = error.__traceback__
        code = self._fn.__code__
        while tb is not None:
            if tb.tb_frame.f_code is code:
                return tb.tb_frame, tb.tb_lineno
            tb = tb.tb_next
        return None, None

    def _failed_node(self, error):
        _, line = self._failed_frame(error)
        return self._node_at_line.get(line)

    def _failed_inputs(self, error):
        """The actual input values of the failed node, read from the plan's local variables."""
        frame, line = self._failed_frame(error)
        names = self._inputs_at_line.get(line, ())
        if frame is None:
            return [None] * len(names)
        local, glob = frame.f_locals, frame.f_globals
        feeds = local.get("feeds") or ()
        out = []
        for n in names:
            if n in local:
                out.append(local[n])
            elif n in glob:
                out.append(glob[n])
            elif n.startswith("f") and n[1:].isdigit() and int(n[1:]) < len(feeds):
                out.append(feeds[int(n[1:])])
            else:
                out.append(None)
        return out

    def _annotate(self, error, node):
        if node is not None and f"node {node.name}" not in error.message:
            error.message = f"{error.message}\n\t [[{{{{node {node.name}}}}}]]"
            error.args = (error.message,)
            error.op = node.origin or node
        return error

    @property
    def fused_kernels(self):
        """``{node name: generated source}`` of the ``_FusedElementwise`` nodes (their code is generated too)."""
        return {op.name: op.attrs["program"].source for op in self.ops if op.type == "_FusedElementwise"}

    def measure_peak_bytes(self, feed_arrays, runtime=None):
        """Run once under ``tracemalloc`` and return the peak bytes NumPy allocated during the run.

        This measures what the static memory plan can only estimate (values of
        unknown static shape, temporaries inside kernels). Slow: for reports, not
        for production.
        """
        import tracemalloc
        tracing = tracemalloc.is_tracing()
        if not tracing:
            tracemalloc.start()
        try:
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            result = self(feed_arrays, runtime)
            peak = tracemalloc.get_traced_memory()[1] - base
            del result
        finally:
            if not tracing:
                tracemalloc.stop()
        return peak

    def __repr__(self):
        return f"<Plan: {len(self.ops)} ops, {len(self.feed_tensors)} feeds, {len(self.fetch_tensors)} fetches>"


_plan_ids = itertools.count()


def compile_plan(fetch_tensors, target_ops, feed_tensors, options=None):
    """Prune, order, optimize and generate code for one (fetches, targets, feeds) request.

    ``options``: optimizer options as a ``tf.config.optimizer`` dict (``None``:
    the current global settings). ``plan.options`` is their hashable fingerprint.
    """
    _check_kernels_of_graphs(fetch_tensors, target_ops)
    fed_ids = {t._id for t in feed_tensors}
    roots = [t.op for t in fetch_tensors if t._id not in fed_ids] + list(target_ops)
    ops = prune(roots, fed_ids)
    effective = config_optimizer.effective_options(options)
    program = from_operations(ops, feed_tensors, fetch_tensors, target_ops)
    program, report = optimize(program, effective)
    copies = [_now_aliases(v, t, fed_ids) for v, t in zip(program.fetches, fetch_tensors)]
    fn, source, node_at_line = _generate(program, report.memory, copies)
    return Plan(program, list(feed_tensors), list(fetch_tensors), fn, source, node_at_line, report, ops,
                tuple(sorted(effective.items())), request=(fetch_tensors, target_ops, feed_tensors, options))


def _persistent(node):
    """The node's output is a buffer that outlives the run: a constant, a fed array, or what the op's row
    calls ``persistent`` (a variable's value)."""
    return node.type in ("Const", "_Arg") or (node.op_def is not None and node.op_def.persistent)


def _now_aliases(value, tensor, fed_ids):
    """True if the optimizer made fetch ``tensor`` return a persistent buffer it did not return before.

    ``sess.run(x * 1.0)`` computes a new array without optimization; optimized, ``x * 1.0`` is ``x``, the
    caller's own fed array. The plan returns a copy then, so callers never receive (and never write
    into) a constant, a fed array or a variable's buffer they did not fetch as such.
    """
    original = "_Arg" if tensor._id in fed_ids else tensor.op.type
    return _persistent(value.node) and value.node.type != original


def _copy(value):
    return value.copy() if isinstance(value, np.ndarray) else value


def _generate(program, memory, copies=None):
    """Python source for ``program``: one line per node, ``del`` lines from the memory plan."""
    names = {}   # id(value) -> the Python name holding it
    env = {"_np": np, "_copy": _copy}
    lines = ["def plan(feeds, runtime):"]
    node_at_line, inputs_at_line = {}, {}
    for i, arg in enumerate(program.args):
        names[id(arg.outputs[0])] = f"f{i}"
    if program.args:
        lines.append(f"    {', '.join(f'f{i}' for i in range(len(program.args)))}, = feeds")
    release = memory.release if memory is not None else {}
    for index, node in enumerate(program.nodes):
        if node.type == "Const":          # no code: the value is bound into the function's globals
            env[f"c{index}"] = node.attrs["value"]
            names[id(node.outputs[0])] = f"c{index}"
            continue
        if node.type == "NoOp":           # nothing to compute; the order already honours its control inputs
            continue
        env[f"k{index}"] = _kernel_for(node)
        attrs = dict(node.attrs)
        if node.type == "_FusedElementwise" and _backend_of(node) == NUMPY:   # call its generated code directly
            env[f"k{index}"] = attrs.pop("program").function(np)
        if node.type == "Placeholder":
            attrs["name"] = node.name  # for the "You must feed a value for placeholder" error
        env[f"a{index}"] = attrs
        outs = [f"v{index}_{j}" for j in range(len(node.outputs))]
        for v, name in zip(node.outputs, outs):
            names[id(v)] = name
        parts = [names[id(v)] for v in node.inputs]
        if attrs:
            parts.append(f"**a{index}")
        if node.op_def.needs_runtime:
            parts.append("_runtime=runtime")
        call = f"k{index}({', '.join(parts)})"
        comment = f"  # {node.name} ({node.type})"
        if len(outs) == 0:
            lines.append(f"    {call}{comment}")
        elif len(outs) == 1:
            lines.append(f"    {outs[0]} = {call}{comment}")
        else:
            lines.append(f"    {', '.join(outs)}, = {call}{comment}")
        node_at_line[len(lines)] = node
        inputs_at_line[len(lines)] = [names[id(v)] for v in node.inputs]
        dead = [names[id(v)] for v in release.get(index, ()) if names.get(id(v), "").startswith("v")]
        if dead:
            lines.append(f"    del {', '.join(dead)}")
    copies = copies or [False] * len(program.fetches)
    results = ", ".join(f"_copy({names[id(v)]})" if copy else names[id(v)] for v, copy in zip(program.fetches, copies))
    lines.append(f"    return ({results}{',' if len(program.fetches) == 1 else ''})")
    source = "\n".join(lines) + "\n"
    code = compile(source, f"<engine plan {next(_plan_ids)}>", "exec")
    exec(code, env)  # noqa: S102  (code we generated ourselves)
    return env["plan"], source, (node_at_line, inputs_at_line)


def _input_name(value):
    """The graph tensor a plan value stands for (``u:0``), not the plan's internal name (``_arg_u:0``)."""
    node = value.node
    if node.type == "_Arg" and node.name.startswith("_arg_"):
        return node.name[len("_arg_"):]
    return value.name


def _shape_text(value, array):
    shape = getattr(array, "shape", None)
    return str(tuple(shape)) if shape is not None else str(value.shape)


def _explain(node, arrays, error):
    """Why the kernel failed, in TF's words: the op's shape function, run on the actual shapes."""
    op_def = node.op_def
    if op_def is not None and op_def.infer is not None and all(a is not None for a in arrays):
        try:
            tensors = [EagerTensor(a if hasattr(a, "shape") else np.asarray(a), default_device()) for a in arrays]
            op_def.infer(InferenceContext(op_def.name, tensors, dict(node.attrs),
                                          lambda t: t.numpy() if isinstance(t, EagerTensor) else None))
        except (ValueError, TypeError) as shape_error:
            return str(shape_error)
        except Exception:  # noqa: BLE001 - the explanation is best effort; the kernel's error follows
            pass
    return f"{node.type} failed: {error}"


def _backend_of(op):
    device = lookup_device(op.device) if op.device else None
    return device.backend if device is not None else NUMPY


def _kernel_for(op):
    """The kernel of ``op`` for the backend of the device it was placed on.

    Random ops (the ``random`` trait of their row) get their own random stream
    per graph node (as each TF node has its own generator), rather than sharing
    the eager streams.
    """
    _check_kernel_registered(op)
    device = lookup_device(op.device) if op.device else None
    backend = device.backend if device is not None else NUMPY
    kernel = op.op_def.kernel(backend)
    if op.op_def.random:   # the stream belongs to the graph Operation the node was copied from
        kernel = _with_stream_owner(getattr(op, "origin", None) or op, kernel)
    if backend == NUMPY:
        return kernel

    def on_device(*args, **kwargs):
        with device.activate():
            return kernel(*[device.put(a) if hasattr(a, "shape") else a for a in args], **kwargs)
    return on_device


def _check_kernels_of_graphs(fetch_tensors, target_ops):
    """Every node of the graphs being run needs a kernel, fetched or not: TF places the whole graph
    before it prunes it to the fetches, and placing a node no kernel implements is the error."""
    graphs = {id(g): g for g in [getattr(t, "graph", None) for t in fetch_tensors] +
              [getattr(op, "graph", None) for op in target_ops] if g is not None}
    for g in graphs.values():
        for op in g.get_operations():
            if op.op_def is not None:
                _check_kernel_registered(op)


def _check_kernel_registered(node):
    """A node whose dtype TF's op definition allows but no kernel implements fails when its graph is
    made ready to run, as TF's does: ``InvalidArgumentError`` ("No OpKernel was registered ...").

    The row says both: ``type_attrs`` (the op definition, checked when the node was built) and
    ``dtypes`` (what its kernels take). Eagerly, the op's function refuses first, with TF's
    eager ``NotFoundError``.
    """
    op_def = node.op_def
    if op_def.signature is None or op_def.dtypes is None or not node.inputs:
        return
    attr = op_def.signature[0].type_attr
    dtype = node.inputs[0].dtype
    if attr is not None and dtype not in op_def.dtypes and dtype in (op_def.type_attrs.get(attr) or ()):
        raise InvalidArgumentError(
            None, None, f"No OpKernel was registered to support Op '{node.type}' used by {{{{node {node.name}}}}} "
                        f"with these attrs: [{attr}=DT_{dtype.name.upper()}]\nRegistered kernels: "
                        f"{', '.join(sorted(d.name for d in op_def.dtypes))}")


def _with_stream_owner(op, kernel):

    def random_kernel(*args, **kwargs):
        with stream_owner(op):
            return kernel(*args, **kwargs)
    return random_kernel
