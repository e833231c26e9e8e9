"""``FuncGraph``: the graph a ``tf.function`` traces its Python function into.

It is a ``Graph`` with three extra duties:

* **Inputs and outputs.** Placeholders stand for the function's tensor
  arguments (:meth:`FuncGraph.add_input`); ``outputs`` are the tensors it
  returns (:meth:`FuncGraph.set_outputs`). A call feeds the inputs, in order,
  and fetches the outputs.
* **Automatic control dependencies.** In a function, stateful ops (variable
  reads and writes, ``tf.print``, random ops) must run in program order even
  when no data edge says so. Every stateful op gets a control edge from the
  previous one, and all of them run on every call, as TF's
  ``AutomaticControlDependencies`` arranges. The graph says so as TF's does:
  one ``NoOp`` waits for the ops that must run, and each output's
  ``Identity`` waits for the ``NoOp`` (``tracing/function.py``,
  ``_wait_for_side_effects``).
* **Isolation from outer tapes.** A tape outside the function must see the
  *call* as one op, not the ops inside; so while tracing, the outer tapes are
  set aside (tapes created inside the function work normally).
"""
import contextlib

from ..util import nest
from . import dtypes
from .context import _eager_enabled, ctx
from .errors import InaccessibleTensorError
from .graph import Graph, SymbolicTensor, _default_graph_stack
from .registry import get_op
from .tensor import EagerTensor, convert_to_tensor
from .tensor_shape import TensorShape

__all__ = ["FuncGraph", "init_scope", "inside_function", "out_of_scope_error"]


def out_of_scope_error(tensor):
    """TF's ``TypeError`` for a tensor leaked out of a traced function (kept in a global or an attribute)
    and used afterwards: eagerly, or inside another function, whose call would feed it (TF raises it
    from the eager executor, ``quick_execute``; the engine when the op is built)."""
    error = TypeError(
        f"{tensor!r} is out of scope and cannot be used here. Use return values, explicit Python locals or "
        f"TensorFlow collections to access it.\nPlease see https://www.tensorflow.org/guide/function"
        f"#all_outputs_of_a_tffunction_must_be_return_values for more information.\n\nThe tensor {tensor!r} "
        f"cannot be accessed from here, because it was defined in {tensor.graph!r}, which is out of scope.")
    error.ag_pass_through = True   # (TF raises it when the function runs, not while tracing: no "in user code")
    return error


def _is_dead_function_tensor(value):
    """A tensor of a FuncGraph that is no longer being built (its trace is over)."""
    graph = getattr(value, "graph", None)
    return getattr(graph, "building_function", False) and graph is not ctx.graph and \
        graph not in _default_graph_stack()


def inside_function():
    """``tf.inside_function()``: True while a ``tf.function`` (or a function of a control-flow op inside one)
    is being traced; False eagerly and in a plain ``tf.Graph``."""
    return ctx.graph is not None and bool(getattr(ctx.graph, "building_function", False))


class FuncGraph(Graph):
    """A graph being traced from (or traced from) a Python function."""

    def __init__(self, name):
        super().__init__()
        self.name = name
        self.building_function = True
        self.inputs = []           # placeholders, in flat argument order
        self.outputs = []          # flat output tensors
        self.structured_outputs = None
        self.stateful_ops = []     # in creation order; all run on every call
        self.created_variables = []
        self.captures = []         # [(outer value, its tensor in this graph)], in the order captured
        self._chaining_disabled = False  # while building a gradient graph (it must not wait on side effects)

    def add_input(self, dtype, shape=None, name=None):
        """A ``Placeholder`` standing for one tensor argument, appended to ``inputs``.

        Tracing calls the Python function with these placeholders instead of the
        argument values; a call of the traced function feeds ``inputs`` in order.
        ``shape`` may leave dimensions (``[None, 3]``) or the rank (``None``)
        unknown: the graph then serves every argument of a compatible shape.
        """
        shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        with self._building():
            placeholder = self.create_op_from_def(get_op("Placeholder"), [],
                                                  {"dtype": dtypes.as_dtype(dtype), "shape": shape},
                                                  name=name or "input")
        self.inputs.append(placeholder)
        return placeholder

    def set_outputs(self, result):
        """Make ``result``, what the traced Python function returned, the graph's outputs.

        Every leaf of the (possibly nested) ``result`` becomes a tensor of this graph:
        a tensor as it is, a variable by a read of its value, a Python value by a
        constant; ``None`` leaves stay ``None`` and are no output. An input returned as
        it is gets an ``Identity`` node (as TF adds). Sets ``outputs`` (the flat
        tensors, what a call fetches) and ``structured_outputs`` (``result`` with those
        tensors in place, what a call returns), and returns ``structured_outputs``.
        A tensor of another graph (one made inside a ``tf.cond`` branch or a loop body
        and leaked out) raises ``InaccessibleTensorError``, as TF does.
        """
        with self._building():
            converted = [None if leaf is None else self._output_tensor(leaf) for leaf in nest.flatten(result)]
        self.outputs = [t for t in converted if t is not None]
        self.structured_outputs = nest.pack_sequence_as(result, converted) if nest.is_nested(result) else \
            converted[0]
        return self.structured_outputs

    # --- captures: values from outside that the traced function uses ------------------------
    # TF feeds a function's captures as extra inputs, placeholders named after their first use. The
    # engine's graph holds them as they are: an eager tensor as a ``Const`` of its value, an eager
    # variable as a ``VarHandleOp`` that refers to the variable (``Graph.variable_handle``). The
    # pairs are listed, as TF lists them, in ``captures``. (Graphs of control-flow branches and
    # loop bodies, which capture the enclosing graph's tensors as placeholders, keep their own list.)
    _lists_outer_values = True

    def _capture(self, value):
        if isinstance(value, SymbolicTensor) and value.graph is not self and _is_dead_function_tensor(value):
            raise out_of_scope_error(value)
        if self._lists_outer_values and type(value) is EagerTensor:
            seen = self.__dict__.setdefault("_captured_values", {})   # (one node per value, however often used)
            inner = seen.get(value._id)
            if inner is None:
                inner = seen[value._id] = super()._capture(value)
                self.captures.append((value, inner))
            return inner
        return super()._capture(value)

    def variable_handle(self, variable):
        known = variable._id in self.__dict__.get("_eager_variable_handles", {})
        handle = super().variable_handle(variable)
        if self._lists_outer_values and not known and variable._graph is None:
            self.captures.append((variable, handle))
        return handle

    @property
    def external_captures(self):
        """The captured values, from outside the function (for a variable, the variable: its handle)."""
        return [outer for outer, _ in self.captures]

    @property
    def internal_captures(self):
        """The tensors of this graph that stand for them."""
        return [inner for _, inner in self.captures]

    def __repr__(self):
        return f"FuncGraph(name={self.name}, id={id(self)})"

    def _building(self):
        """Add nodes to this graph: as it is if it is being built now, else inside ``as_default()``."""
        return contextlib.nullcontext() if ctx.graph is self else self.as_default()

    def _output_tensor(self, leaf):
        t = convert_to_tensor(leaf._read() if hasattr(leaf, "_is_variable") else leaf)
        if getattr(t, "graph", self) is not self:   # e.g. appended to a Python list in a loop body
            raise InaccessibleTensorError(
                f"{t!r} is out of scope and cannot be used here. Use return values, explicit Python locals "
                f"or TensorFlow collections to access it. (It was made inside a tf.while_loop body or a "
                f"tf.cond branch: carry it as a loop variable or a TensorArray instead.)\nPlease see "
                f"https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values"
                f" for more information.")
        if any(t is p for p in self.inputs):  # returning an input: an Identity node, as TF adds
            t = self.create_op_from_def(get_op("Identity"), (t,), {}, name="Identity")
        return t

    def _add_op(self, op):
        if op.op_def.stateful and not self._chaining_disabled and op.type != "VarHandleOp":
            if self.stateful_ops:
                op._add_control_input(self.stateful_ops[-1])
            self.stateful_ops.append(op)
        super()._add_op(op)

    @contextlib.contextmanager
    def as_default(self):
        saved_tapes = ctx.tapes
        ctx.tapes = []  # outer tapes record the call, not the traced ops
        try:
            with super().as_default():
                yield self
        finally:
            ctx.tapes = saved_tapes


@contextlib.contextmanager
def init_scope():
    """Step out of every graph being built, back to eager execution (TF's ``tf.init_scope``).

    ``tf.Variable`` created while tracing are created here, eagerly, once: the
    function then reads them like any other captured variable. The current name
    scope carries over (as in TF), so such variables keep their scoped names.
    """
    saved = (ctx.graph, ctx.name_scope, ctx.tapes)
    stack = _default_graph_stack()
    saved_stack = list(stack)
    outer = None
    for g in reversed(stack):
        if not getattr(g, "building_function", False):
            outer = g
            break
    ctx.graph = outer if outer is not None else (None if _eager() else ctx.graph)
    # The name scope is kept, as TF's init_scope re-enters it outside: a variable created while tracing,
    # inside ``tf.name_scope("s")``, is named "s/Variable:0".
    ctx.tapes = getattr(ctx, "_outer_tapes", [])
    try:
        yield
    finally:
        stack[:] = saved_stack
        ctx.graph, ctx.name_scope, ctx.tapes = saved


def _eager():
    return _eager_enabled[0]
