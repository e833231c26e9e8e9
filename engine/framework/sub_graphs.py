"""The graphs inside ops: control-flow branches and loop bodies, and compiled sub-graphs.

TF's ``If`` and ``While`` ops carry *functions*: small graphs with inputs and
outputs (a ``FunctionDef`` in a ``GraphDef``'s library). The engine builds each
branch, loop condition and loop body as a :class:`ControlFlowGraph`, which can
capture tensors of the graphs around it, and compiles it into a
:class:`GraphFunction` that the op's kernel calls. ``control_flow_ops`` builds
the ops (``tf.cond``, ``tf.while_loop``); ``graph_io`` saves and rebuilds the
functions; both use these classes, which need nothing above the framework.
"""
from . import dtypes
from .executor import compile_plan
from .func_graph import FuncGraph
from .graph import SymbolicTensor
from .registry import get_op
from .tensor import convert_to_tensor
from .tensor_shape import as_shape

__all__ = ["ControlFlowGraph", "GraphFunction", "LoopRecord", "resource_spec"]


class ControlFlowGraph(FuncGraph):
    """The graph of one branch, loop condition or loop body.

    A ``FuncGraph`` that can *capture* tensors of its enclosing graphs: using
    an outer tensor inside the branch creates a Placeholder here and records
    ``(outer tensor, placeholder)`` in :attr:`captures`. The op built from
    this graph takes the outer tensors as extra inputs. For nested control
    flow, a capture goes through every level in between.
    """

    _lists_outer_values = False   # (its ``captures`` are the enclosing graph's tensors it is fed)

    def __init__(self, name, outer_graph):
        super().__init__(name)
        self.outer_graph = outer_graph
        self.seed = getattr(outer_graph, "seed", None)
        self.captures = []           # [(outer tensor, placeholder of this graph)]
        self._captured = {}          # outer tensor id -> placeholder
        self._variable_handles = {}  # variable id -> placeholder holding its handle
        self.resource_specs = {}     # handle placeholder id -> (dtype, shape, eager variable or None)

    def _capture(self, value):
        if isinstance(value, SymbolicTensor) and value.graph is not self:
            return self.capture(value)
        return super()._capture(value)

    def capture(self, tensor):
        """The placeholder of this graph that stands for ``tensor`` (of an enclosing graph)."""
        outer = tensor if tensor.graph is self.outer_graph else self.outer_graph._capture(tensor)
        inner = self._captured.get(outer._id)
        if inner is None:
            with self.control_dependencies(None):
                inner = self.create_op_from_def(get_op("Placeholder"), [],
                                                {"dtype": outer.dtype, "shape": outer.shape},
                                                name=outer.op.name.split("/")[-1])
            self._captured[outer._id] = inner
            self.captures.append((outer, inner))
            spec = resource_spec(outer)
            if spec is not None:
                self.resource_specs[inner._id] = spec
        return inner

    # --- variables: capture the outer graph's handle (reads and writes are Graph's, through it) ---
    def variable_handle(self, variable):
        handle = self._variable_handles.get(variable._id)
        if handle is None:
            handle = self._variable_handles[variable._id] = self.capture(self.outer_graph.variable_handle(variable))
        return handle

    def output(self, value):
        """``value`` (a Python value, tensor or variable) as a tensor of this graph."""
        if hasattr(value, "_is_variable"):
            value = value.read_value()
        t = convert_to_tensor(value)
        return self._capture(t) if not (isinstance(t, SymbolicTensor) and t.graph is self) else t


def resource_spec(t):
    """``(dtype, shape, eager variable or None)`` of the variable a resource tensor points to."""
    if t.dtype != dtypes.resource:
        return None
    if t.op.type == "VarHandleOp":
        return t.op.attrs["dtype"], t.op.attrs["shape"], t.op.attrs.get("eager_variable")
    return getattr(t.graph, "resource_specs", {}).get(t._id)


def _placeholder(graph, dtype, shape, name):
    return graph.create_op_from_def(get_op("Placeholder"), [], {"dtype": dtype, "shape": as_shape(shape)},
                                    name=name)


class GraphFunction:
    """A sub-graph with chosen inputs and outputs, compiled into a plan (TF: a ``FunctionDef``).

    ``inputs`` are tensors of ``graph`` that callers feed (an entry may be
    ``None``: a value the caller passes but this function ignores);
    ``outputs`` are the tensors it returns. ``side_effects=True`` also runs
    every stateful op of the graph (a branch's ``tf.print`` or assignment);
    gradient functions use ``False``, so the backward pass never repeats them.
    """

    def __init__(self, graph, inputs, outputs, side_effects=True):
        self.graph = graph
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        fed = [t for t in self.inputs if t is not None]
        self._take = None if len(fed) == len(self.inputs) else \
            [i for i, t in enumerate(self.inputs) if t is not None]
        self.targets = list(graph.stateful_ops) if side_effects else []   # run for their side effects
        self.plan = compile_plan(self.outputs, self.targets, fed)
        ops = getattr(self.plan, "graph_ops", None) or self.plan.ops   # the graph ops it runs
        self.stateful = any(getattr(op, "op_def", None) is not None and op.op_def.stateful for op in ops)

    def __call__(self, values, runtime=None):
        if self._take is not None:
            values = [values[i] for i in self._take]
        return self.plan(values, runtime)

    def __repr__(self):
        return f"<GraphFunction {self.graph.name}: {len(self.inputs)} inputs -> {len(self.outputs)} outputs>"


class LoopRecord:
    """The value of a ``variant`` loop-record tensor: one tuple of saved arrays per iteration."""

    __slots__ = ("iterations",)

    def __init__(self):
        self.iterations = []

    def __repr__(self):
        return f"<LoopRecord of {len(self.iterations)} iterations>"
