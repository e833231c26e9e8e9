"""Compile part of a graph into a straight-line program, then run it many times.

``Session.run`` (and, later, ``tf.function``) never walks the graph per call.
For each distinct request (which tensors to fetch, which to feed) it:

1. **prunes** the graph to the ops the fetches need (walking inputs and control
   inputs backwards, stopping at fed tensors),
2. **orders** them topologically,
3. **generates Python source** for one function that calls each op's kernel in
   that order, with every intermediate value in a local variable, and
4. caches the compiled function (a :class:`Plan`).

``plan.source`` shows the generated code, which is the best way to see what
"compiling a graph" means. Errors raised by a kernel are reported with the
name of the node that failed.
"""
import numpy as np

from .backend import NUMPY
from .device import lookup_device
from .errors import InvalidArgumentError, OpError

__all__ = ["Plan", "compile_plan", "prune"]


def prune(fetch_ops, fed_tensor_ids):
    """The ops needed to compute ``fetch_ops``, in a valid execution order.

    An op is needed if a fetch depends on one of its outputs (through data or
    control edges) and that output is not fed. Order: depth-first post-order,
    which puts every op after its inputs.
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
            deps = [c for c in op.control_inputs]
            deps += [t.op for t in op.inputs if t._id not in fed_tensor_ids]
            for dep in reversed(deps):
                if not state.get(id(dep)):
                    stack.append((dep, False))
    return order


class Plan:
    """A compiled program: call it with fed arrays (in ``feed_tensors`` order), get fetched arrays back."""

    def __init__(self, ops, feed_tensors, fetch_tensors, fn, source):
        self.ops = ops
        self.feed_tensors = feed_tensors
        self.fetch_tensors = fetch_tensors
        self._fn = fn
        self.source = source

    def __call__(self, feed_arrays, runtime=None):
        step = [0]
        try:
            return self._fn(feed_arrays, runtime, step)
        except OpError as error:
            raise self._annotate(error, step[0]) from None
        except Exception as error:  # a kernel failed: say which node, as TF does
            op = self.ops[step[0]]
            raise InvalidArgumentError(
                None, op, f"{error} [[node {op.name} (op type {op.type})]] Inputs: "
                          f"{', '.join(f'{t.name} {t.shape} {t.dtype.name}' for t in op.inputs)}") from None

    def _annotate(self, error, index):
        op = self.ops[index] if index < len(self.ops) else None
        if op is not None and f"node {op.name}" not in error.message:
            error.message = f"{error.message}\n\t [[{{{{node {op.name}}}}}]]"
            error.args = (error.message,)
            error.op = op
        return error

    def __repr__(self):
        return f"<Plan: {len(self.ops)} ops, {len(self.feed_tensors)} feeds, {len(self.fetch_tensors)} fetches>"


def compile_plan(fetch_tensors, target_ops, feed_tensors):
    """Prune, order and generate code for one (fetches, targets, feeds) request."""
    fed_ids = {t._id for t in feed_tensors}
    roots = [t.op for t in fetch_tensors if t._id not in fed_ids] + list(target_ops)
    ops = prune(roots, fed_ids)

    names = {}   # tensor id -> local variable name
    env = {"_np": np}
    lines = ["def plan(feeds, runtime, step):"]
    for i, t in enumerate(feed_tensors):
        names[t._id] = f"f{i}"
        lines.append(f"    f{i} = feeds[{i}]")
    for index, op in enumerate(ops):
        kernel = _kernel_for(op)
        env[f"k{index}"] = kernel
        attrs = dict(op.attrs)
        if op.type == "Placeholder":
            attrs["name"] = op.name  # for the "You must feed a value for placeholder" error
        env[f"a{index}"] = attrs
        outs = [f"v{index}_{j}" for j in range(len(op.outputs))]
        for t, name in zip(op.outputs, outs):
            if t._id not in fed_ids:
                names[t._id] = name
        parts = [names[t._id] for t in op.inputs]
        if attrs:
            parts.append(f"**a{index}")
        if op.op_def.needs_runtime:
            parts.append("_runtime=runtime")
        call = f"k{index}({', '.join(parts)})"
        lines.append(f"    step[0] = {index}")
        if len(outs) == 0:
            lines.append(f"    {call}")
        elif len(outs) == 1:
            lines.append(f"    {outs[0]} = {call}  # {op.name} ({op.type})")
        else:
            lines.append(f"    {', '.join(outs)}, = {call}  # {op.name} ({op.type})")
    results = ", ".join(names[t._id] for t in fetch_tensors)
    lines.append(f"    return ({results}{',' if len(fetch_tensors) == 1 else ''})")
    source = "\n".join(lines) + "\n"
    exec(compile(source, "<engine plan>", "exec"), env)  # noqa: S102  (code we generated ourselves)
    return Plan(ops, list(feed_tensors), list(fetch_tensors), env["plan"], source)


_RANDOM_OPS = frozenset(["RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt",
                         "RandomShuffle"])


def _kernel_for(op):
    """The kernel of ``op`` for the backend of the device it was placed on.

    Random ops get their own random stream per graph node (as each TF node has
    its own generator), rather than sharing the eager streams.
    """
    device = lookup_device(op.device) if op.device else None
    backend = device.backend if device is not None else NUMPY
    kernel = op.op_def.kernel(backend)
    if op.type in _RANDOM_OPS:
        kernel = _with_stream_owner(op, kernel)
    if backend == NUMPY:
        return kernel

    def on_device(*args, **kwargs):
        with device.activate():
            return kernel(*[device.put(a) if hasattr(a, "shape") else a for a in args], **kwargs)
    return on_device


def _with_stream_owner(op, kernel):
    from ..ops.random_ops import stream_owner

    def random_kernel(*args, **kwargs):
        with stream_owner(op):
            return kernel(*args, **kwargs)
    return random_kernel
