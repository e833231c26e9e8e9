"""``FuncGraph``: the graph a ``tf.function`` traces its Python function into.

It is a ``Graph`` with three extra duties:

* **Inputs and outputs.** Placeholders stand for the function's tensor
  arguments; ``outputs`` are the tensors it returns.
* **Automatic control dependencies.** In a function, stateful ops (variable
  reads and writes, ``tf.print``, random ops) must run in program order even
  when no data edge says so. Every stateful op gets a control edge from the
  previous one, and all of them run on every call, as TF's
  ``AutomaticControlDependencies`` arranges.
* **Isolation from outer tapes.** A tape outside the function must see the
  *call* as one op, not the ops inside; so while tracing, the outer tapes are
  set aside (tapes created inside the function work normally).
"""
import contextlib

from .context import ctx
from .graph import Graph

__all__ = ["FuncGraph", "init_scope", "inside_function"]


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
        self._chaining_disabled = False  # while building a gradient graph (it must not wait on side effects)

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
    from .graph import _default_graph_stack
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
    from .context import _eager_enabled
    return _eager_enabled[0]
