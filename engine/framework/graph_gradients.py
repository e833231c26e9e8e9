"""Symbolic gradients (``tf.compat.v1.gradients``): build the backward pass *into the graph*.

The algorithm is the tape's backward walk (``engine/eager/tape.py``) over graph
nodes instead of recorded ops: keep the ops on a path from ``xs`` to ``ys``,
visit them in reverse topological order, and call each op's registered gradient
function. Because graph mode is active while we do it, the engine ops those
functions call become new graph nodes. Same registry, same gradient functions:
the graph's gradients equal the tape's, and ``gradients`` of ``gradients`` works.
"""
from ..util import nest
from . import dtypes
from .executor import prune
from .graph import SymbolicTensor
from .name_scope import name_scope
from .registry import call_gradient

__all__ = ["gradients", "build_gradient_graph"]


def _flows_into(tensor):
    """Gradients flow into floating-point values, resources (variables) and variants (TensorLists)."""
    return tensor.dtype.is_floating or tensor.dtype is dtypes.resource or tensor.dtype is dtypes.variant


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False, aggregation_method=None,
              stop_gradients=None, unconnected_gradients="none"):
    """Symbolic d(sum ys)/d(xs): one tensor (or None) per element of ``xs``. Graph mode only."""
    from .context import executing_eagerly
    if executing_eagerly():
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape "
                           "instead.")
    from ..ops import array_ops, math_ops
    from ..variables import _handle_in
    from .graph import get_default_graph
    ys = [y for y in nest.flatten(ys)]
    xs_flat = nest.flatten(xs)
    graph = ys[0].graph if isinstance(ys[0], SymbolicTensor) else get_default_graph()
    sources = [(_handle_in(graph, x) if hasattr(x, "_is_variable") else x) for x in xs_flat]
    for x in sources:
        if not isinstance(x, SymbolicTensor):
            raise TypeError(f"gradients() expects graph tensors or variables in xs, got {x!r}")
    stops = {t._id for t in nest.flatten(stop_gradients)} if stop_gradients is not None else set()
    seeds = nest.flatten(grad_ys) if grad_ys is not None else [None] * len(ys)

    with graph.as_default(), name_scope(name):
        order = prune([y.op for y in ys], set())
        # Ops reachable forward from a source.
        reach = {x._id for x in sources}
        relevant = []
        for op in order:
            if any(t._id in reach and t._id not in stops for t in op.inputs):
                relevant.append(op)
                reach.update(t._id for t in op.outputs)

        pending = {}
        for y, seed in zip(ys, seeds):
            pending.setdefault(y._id, []).append(array_ops.ones_like(y) if seed is None else seed)

        def total(t):
            parts = pending.get(t._id)
            if not parts:
                return None
            if len(parts) > 1:
                parts[:] = [math_ops.add_n(parts)]
            return parts[0]

        for op in reversed(relevant):
            if op.op_def.grad is None:
                continue
            out_grads = [total(t) for t in op.outputs]
            if all(g is None for g in out_grads):
                continue
            out_grads = [array_ops.zeros_like(t) if g is None else g for t, g in zip(op.outputs, out_grads)]
            op.skip_input_indices = tuple(i for i, t in enumerate(op.inputs) if t._id not in reach)
            with name_scope(op.name + "_grad"):
                in_grads = call_gradient(op, op.op_def.grad, out_grads)
            for t, g in zip(op.inputs, in_grads):
                if g is not None and _flows_into(t) and t._id not in stops:
                    if isinstance(g, SymbolicTensor) and t.dtype is not dtypes.resource:
                        try:
                            g.set_shape(t.shape)  # a gradient has its input's shape (TF does the same)
                        except ValueError:
                            pass
                    pending.setdefault(t._id, []).append(g)

        results = []
        for x in sources:
            g = total(x)
            if g is None and str(getattr(unconnected_gradients, "value", unconnected_gradients)) == "zero":
                g = array_ops.zeros_like(x) if x.dtype is not dtypes.resource else None
            results.append(g)
    return results


def build_gradient_graph(graph, ys, xs, unconnected_gradients="none"):
    """Add ``d(ys)/d(xs)`` to ``graph``, with a placeholder per output gradient.

    Used to differentiate traced functions and control-flow bodies. Returns
    ``(grad_ys, grads, saved)``: the placeholders to feed with the gradients of
    ``ys``, the gradients of ``xs`` (or None), and ``saved``, the forward tensors
    the new backward ops read. A forward run that also fetches ``saved`` lets the
    backward run be fed with them, so it never recomputes (or repeats the side
    effects of) the forward pass. Stateful ops added here are not chained after the
    forward pass's side effects.
    """
    from .registry import get_op
    first = len(graph.get_operations())
    with graph.as_default():
        graph._chaining_disabled = True
        try:
            grad_ys = [graph.create_op_from_def(get_op("Placeholder"), [], {"dtype": y.dtype, "shape": y.shape},
                                                name="grad_y") for y in ys]
            grads = gradients(ys, xs, grad_ys=grad_ys, unconnected_gradients=unconnected_gradients) if ys else \
                [None] * len(xs)
        finally:
            graph._chaining_disabled = False
    new_ops = graph.get_operations()[first:]
    new_ids = {id(op) for op in new_ops}
    saved, seen = [], set()
    for op in new_ops:
        for t in op.inputs:
            if id(t.op) not in new_ids and t._id not in seen:
                seen.add(t._id)
                saved.append(t)
    return grad_ys, grads, saved
