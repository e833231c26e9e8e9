"""Symbolic gradients (``tf.compat.v1.gradients``): build the backward pass *into the graph*.

The algorithm is the one the tape uses: the shared backward walk of
``engine/framework/backprop.py``, here over graph nodes instead of recorded ops.
Keep the nodes on a path from ``xs`` to ``ys`` (``prune`` gives them in execution
order), visit them in reverse, and call each node's registered gradient
function. Because the graph is the default graph while we do it, the engine ops
those functions call become new graph nodes (each op's under a name scope
``gradients/<op name>_grad``, as in TF). Same registry, same gradient functions,
same walk: the graph's gradients equal the tape's, and ``gradients`` of
``gradients`` works.

What is particular to graphs is only how a node is read (:class:`_GraphNode`:
its tensors' ids) and how the gradient's ops are emitted (:class:`_GraphAdapter`:
under a name scope, and each gradient with its input's static shape, as in TF).
"""
from ..util import nest
from . import dtypes
from .backprop import Adapter, UnconnectedGradients, backprop
from .context import executing_eagerly
from .executor import prune
from .graph import SymbolicTensor, get_default_graph
from .name_scope import name_scope
from .op_library import OPS
from .registry import call_gradient, get_op

__all__ = ["gradients", "build_gradient_graph"]


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False, aggregation_method=None,
              stop_gradients=None, unconnected_gradients="none"):
    """Symbolic d(sum ys)/d(xs): one tensor (or None) per element of ``xs``. Graph mode only.

    ``grad_ys`` (one per ``ys``, ``None`` for ones) seeds the walk. ``stop_gradients``
    tensors are held constant, as in TF: they receive their gradient, but it does not
    flow on to what computed them (``tf.gradients(a + b, [a, b], stop_gradients=[a, b])``
    with ``b = 2 * a`` is ``[1., 1.]``, not ``[3., 1.]``). ``unconnected_gradients``:
    ``"none"`` or ``"zero"`` (zeros shaped like the source; for a variable, like its
    value), ``ValueError`` for anything else, as TF.
    """
    if executing_eagerly():
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape "
                           "instead.")
    try:
        unconnected_gradients = UnconnectedGradients(unconnected_gradients)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}") from None
    ys = [y for y in nest.flatten(ys)]
    xs_flat = nest.flatten(xs)
    graph = ys[0].graph if isinstance(ys[0], SymbolicTensor) else get_default_graph()
    sources = [(graph.variable_handle(x) if hasattr(x, "_is_variable") else x) for x in xs_flat]
    for x in sources:
        if not isinstance(x, SymbolicTensor):
            raise TypeError(f"gradients() expects graph tensors or variables in xs, got {x!r}")
    stops = {t._id for t in nest.flatten(stop_gradients)} if stop_gradients is not None else None
    seeds = nest.flatten(grad_ys) if grad_ys is not None else None
    if seeds is not None and len(seeds) != len(ys):
        raise ValueError(f"Passed {len(seeds)} grad_ys for {len(ys)} ys")

    variables = {h._id: x for x, h in zip(xs_flat, sources) if hasattr(x, "_is_variable")}
    with graph.as_default(), name_scope(name):
        nodes = [_GraphNode(op) for op in prune([y.op for y in ys], set())]
        return backprop(nodes, ys, sources, seeds, _GraphAdapter(variables), unconnected_gradients, stops)


class _GraphNode:
    """A graph node as the backward walk reads it (a record, see ``backprop.Adapter``).

    Its tensors' ids, and the node itself (``op``), which its gradient function receives.
    """

    __slots__ = ("op", "type", "op_def", "inputs", "outputs", "input_ids", "output_ids", "skip_input_indices",
                 "backward")

    def __init__(self, op):
        self.op = op
        self.type = op.type
        self.op_def = op.op_def
        self.inputs = op.inputs
        self.outputs = op.outputs
        self.input_ids = tuple([t._id for t in op.inputs])
        self.output_ids = tuple([t._id for t in op.outputs])
        self.skip_input_indices = ()
        # graph nodes use their registered gradient, unless tf.custom_gradient gave the node its own
        self.backward = getattr(op, "_custom_backward", None)


class _GraphAdapter(Adapter):
    """How ``tf.gradients`` emits the gradient's ops: as graph nodes (see ``backprop.Adapter``).

    ``variables`` maps the ids of the variable handles among the sources to their variables.
    """

    def __init__(self, variables):
        self._variables = variables

    def ones_like(self, x):
        return OPS.array_ops.ones_like(x)

    def zeros_like(self, x):
        if x.dtype is dtypes.resource:   # a variable's handle: zeros like the variable's value, as TF
            variable = self._variables.get(x._id)
            return None if variable is None else OPS.array_ops.zeros(variable.shape, variable.dtype)
        return OPS.array_ops.zeros_like(x)

    def call(self, node, fn, output_grads):
        """Run ``node``'s gradient function under ``<op name>_grad``; each gradient gets its input's static shape."""
        op = node.op
        op.skip_input_indices = node.skip_input_indices
        with name_scope(op.name + "_grad"):
            grads = call_gradient(op, fn, output_grads)
        for t, g in zip(op.inputs, grads):
            if isinstance(g, SymbolicTensor) and t.dtype is not dtypes.resource and self.carries_gradient(t):
                try:
                    g.set_shape(t.shape)  # a gradient has its input's shape (TF does the same)
                except ValueError:
                    pass
        return grads


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
