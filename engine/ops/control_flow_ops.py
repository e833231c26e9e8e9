"""Control flow as ops: ``tf.cond``, ``tf.while_loop`` (and ``tf.case``, ``tf.switch_case``).

Eagerly there is nothing to build: ``tf.cond`` calls one branch, ``tf.while_loop``
is a Python ``while`` loop, and the tape records the ops that actually ran.

In a graph (a ``tf.function`` trace, or TF1 graph mode) a branch cannot be
"chosen": its value is unknown while the graph is built. So, as TensorFlow 2
does ("control flow v2"), each branch and each loop body is *traced into its own
small graph*, and one op carries them as attributes::

    tf.cond(x > 0, lambda: x * 2., lambda: -x)

    outer graph:   Greater ──pred──▶ StatelessIf(pred, x) ──▶ output
                                       then_branch: [x] ─Mul─▶ [2x]
                                       else_branch: [x] ─Neg─▶ [-x]

* **Sub-graphs and captures.** A :class:`ControlFlowGraph` is a ``FuncGraph``
  that knows its enclosing graph. When a branch uses a tensor of an enclosing
  graph (``x`` above), it is *captured*: it becomes a Placeholder of the
  branch, and the op gets the outer tensor as an extra input. Variables are
  captured the same way, through their resource handles.
* **Graph functions.** A :class:`GraphFunction` is a sub-graph with chosen
  input and output tensors, compiled once into a plan by the same executor
  ``Session.run`` and ``tf.function`` use. It plays the role of TF's
  ``FunctionDef`` (the ``then_branch``/``body`` attrs).
* **Kernels.** The ``If`` kernel evaluates the predicate and runs *one* branch
  plan; the ``While`` kernel runs the ``cond`` plan and the ``body`` plan in a
  Python loop. ``If``/``While`` are used when a branch has side effects
  (variable reads and writes, ``tf.print``); ``StatelessIf``/``StatelessWhile``
  otherwise, exactly TF's split.

Gradients
---------
**cond.** The gradient of a cond is a cond over the branches' gradients. Each
branch's gradient is built *inside the branch graph* (the same
``tf.gradients`` walk, the same registered gradient functions). The backward
ops read forward values (``x`` for ``d(x*x)``): those that are intermediates of
a branch become *extra outputs of the forward op*; the other branch outputs a
dummy there (TF's cond_v2 does the same). The forward op is rewritten in place
(new outputs, new branch functions), which is safe because plans compiled
earlier keep the old functions.

**while_loop.** The backward pass must run the body's gradient once per
iteration, in reverse, and each iteration needs *that iteration's* forward
values. The engine's design:

1. Build the gradient of one iteration in the body graph: given the gradients
   of the body's outputs, the gradients of its inputs (loop variables and
   captured tensors). The forward values it reads are listed.
2. Rewrite the forward ``While`` so its body also outputs those values, and so
   the kernel appends them, once per iteration, to a :class:`LoopRecord`
   returned as one extra output of dtype ``variant`` (a tensor holding a Python
   object, like TF's TensorList accumulators).
3. A ``WhileGrad`` op walks the record backwards: ``g = body_grad(saved_i, g)``
   for i = n-1 .. 0, summing the gradients of captured tensors over the
   iterations. Its outputs are the gradients of the initial loop variables and
   of the captured tensors.

Nothing is recomputed, and a loop run without a gradient records nothing.

Higher-order gradients and files
--------------------------------
``WhileGrad`` has no graph gradient (its registered gradient raises a clear
``NotImplementedError``). Higher-order gradients of a ``tf.function`` come from
*eager replay* instead: under nested tapes the function's ops are run eagerly,
one by one (:func:`replay_op` runs a cond's chosen branch, a loop's iterations,
a ``WhileGrad`` 's backward body over the recorded iterations), so every tape
records every op and can differentiate again, to any order.

A ``GraphDef`` stores each :class:`GraphFunction` in its function *library*
(``engine/framework/graph_io.py``); import rebuilds it as a
:class:`ControlFlowGraph` of the importing graph. A loop saved in its recording
form keeps its record layout when its gradient is built again after loading
(each ``WhileGrad`` reads its prefix of the record, ``_n_saved``).

Deliberate differences from TF: the backward loop is one ``WhileGrad`` op (TF
builds a second ``While`` that pops TensorLists), so in a graph gradients of
while loops are first order only; ``tf.case``/``tf.switch_case`` build nested
conds instead of one ``Case`` op; a single non-nested loop variable is accepted
and returned unwrapped.
"""
import functools
import re
import threading

import numpy as np

from ..eager.tape import record_operation
from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError
from ..framework.executor import prune
from ..framework.graph import SymbolicTensor, control_dependencies
from ..framework.registry import register_op
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.tensor_shape import TensorShape, as_shape
from ..util import nest
from . import array_ops, math_ops
from ._dispatch import execute
from ..framework.graph_gradients import build_gradient_graph
from ..framework.sub_graphs import (ControlFlowGraph, GraphFunction, LoopRecord, _placeholder,  # noqa: F401
                                    resource_spec)

__all__ = ["cond", "while_loop", "case", "switch_case", "Assert"]

#: The dtype of tensors that hold an arbitrary Python object (a loop record).
#: TF's ``tf.variant``; taken from ``engine.framework.dtypes`` once it is defined there.
variant = getattr(dtypes, "variant", None) or dtypes.DType("variant", None, 21)


# ======================================================================================
# Sub-graphs
# ======================================================================================
def _unwrap(value):
    """A variant value fed back from NumPy land arrives as a 0-d object array."""
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        return value[()]
    return value


def _infer_from_attrs(ic):
    return list(zip(ic.attrs["Tout"], ic.attrs["output_shapes"]))


def _dummy(graph, t):
    """A placeholder-valued constant standing in for ``t`` in a branch that does not compute it."""
    value = np.zeros((), t.dtype.as_numpy_dtype) if t.dtype._np is not None else None
    return graph.constant(value, t.dtype, "dummy")


def _fmt_shape(value):
    return "[" + ",".join(str(d) for d in np.shape(value)) + "]"


def _real_op(op):
    """The graph ``Operation`` behind ``op`` (gradient functions may receive a tape's record of it)."""
    for t in op.outputs:
        if isinstance(t, SymbolicTensor):
            return t.op
    return op


def _record_on_tapes(op, grad_fn):
    """Let tapes active in this trace (a GradientTape *inside* a tf.function) see the op.

    Variables captured by a branch enter the op as resource handles; the tape
    knows variables, not handles, so it records the variable in the handle's
    place (and hears that the variable was read).
    """
    if not ctx.tapes or not op.outputs:
        return
    inputs = _tape_inputs(op.inputs)
    outputs = list(op.outputs)
    record_operation(op.type, inputs, outputs, lambda *grads: grad_fn(op, *grads))


def _tape_inputs(tensors):
    """``tensors`` as a tape sees them: a captured variable's handle becomes the variable (marked read)."""
    inputs, read = [], []
    for t in tensors:
        spec = resource_spec(t)
        variable = spec[2] if spec is not None else None
        inputs.append(t if variable is None else variable)
        if variable is not None:
            read.append(variable)
    for tape in ctx.tapes:
        for v in read:
            tape.variable_accessed(v)
    return inputs


def _build_gradient(graph, ys, xs, unconnected="none"):
    """``build_gradient_graph`` for a branch or loop body, which must not capture new outer tensors."""
    n_captures = len(graph.captures)
    result = build_gradient_graph(graph, ys, xs, unconnected)
    if len(graph.captures) != n_captures:
        raise RuntimeError(f"Internal error: the gradient of {graph.name} captured new outer tensors.")
    return result


def _zeros_for(graph, t):
    """Zeros shaped like the value ``t`` stands for (a variable's value for a resource handle), in ``graph``."""
    with graph.as_default():
        graph._chaining_disabled = True
        try:
            spec = resource_spec(t)
            if spec is not None:
                return array_ops.zeros(spec[1].as_list(), spec[0])
            return array_ops.zeros_like(t)
        finally:
            graph._chaining_disabled = False


def _value_dtype_shape(t):
    spec = resource_spec(t)
    return (spec[0], spec[1]) if spec is not None else (t.dtype, t.shape)


def _differentiable(t):
    return t.dtype.is_floating or t.dtype == dtypes.resource or t.dtype == variant


def _carries_gradient(t):
    """Floats, and variant TensorLists (a TensorArray's flow), carry gradients through cond and while."""
    return t.dtype.is_floating or t.dtype == variant


def _is_tensor_array(value):
    return getattr(value, "_is_tensor_array", False)


# ======================================================================================
# Assert (used by tf.case and by AutoGraph's "loop must iterate at least once")
# ======================================================================================
def _summarize_value(value):
    """One element as TF's ``Tensor::SummarizeValue`` prints it: strings as text, floats shortest (``-2``, ``1.5``)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, (float, np.floating)):
        text = str(np.float32(value)) if isinstance(value, np.float32) else str(float(value))
        return text[:-2] if text.endswith(".0") else text
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    return str(value)


def _assert_kernel(xp):
    def k(condition, *data, summarize=3):
        if not bool(condition):
            parts = []
            for d in data:
                arr = np.asarray(d)
                if arr.dtype.kind == "S":
                    arr = arr.astype(object)
                values = [_summarize_value(v) for v in arr.ravel()[:summarize]]
                if arr.size > summarize:
                    values[-1] += "..."
                parts.append("[" + " ".join(values) + "]")
            raise InvalidArgumentError(None, None, "assertion failed: " + " ".join(parts))
        return ()
    return k


_ASSERT = register_op("Assert", kernel=_assert_kernel, infer=lambda ic: [], num_outputs=0, stateful=True,
                      doc="Raises InvalidArgumentError('assertion failed: ...') when its condition is False.")


def Assert(condition, data, summarize=None, name=None):  # noqa: N802  (TF's name)
    """``tf.debugging.Assert``: fail with ``data`` when ``condition`` is False.

    Eagerly it checks now and returns None; in a graph it returns the op (run it,
    or make other ops depend on it with ``tf.control_dependencies``).
    """
    cond_t = convert_to_tensor(condition)
    data = [convert_to_tensor(d) for d in data]
    result = execute(_ASSERT, tuple([cond_t] + data), {"summarize": summarize or 3}, name=name or "Assert")
    return None if ctx.graph is None else result


# ======================================================================================
# cond
# ======================================================================================
def _if_kernel(xp):
    def k(pred, *inputs, then_branch, else_branch, _runtime=None, **attrs):
        if getattr(pred, "ndim", 0) != 0:
            raise InvalidArgumentError(None, None, f"The second input must be a scalar, but it has shape "
                                                   f"{_fmt_shape(pred)}")
        outputs = (then_branch if bool(pred) else else_branch)(list(inputs), _runtime)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)
    return k


def _if_grad(op, *grads):
    """The gradient of a cond: a cond over the gradients of its two branches."""
    if _real_op(op).attrs.get("_gradient"):
        _no_graph_gradient("tf.cond gradient (an If built by a cond's gradient)")
    return _apply_cached_gradient(op, grads, lambda real: _CondGradient(real))


def _no_graph_gradient(what):
    """Backward ops of control flow have no graph gradient: say so, rather than return a wrong one."""
    raise NotImplementedError(
        f"The gradient of a {what} cannot be built into a graph: the engine's control-flow gradients are first "
        f"order in graphs. Compute higher-order gradients with nested tf.GradientTapes outside the tf.function "
        f"(the engine then replays the function's ops eagerly), or eagerly.")


def _apply_cached_gradient(op, grads, build):
    """Build a control-flow op's gradient machinery once per op (cached on it), then apply it."""
    op = _real_op(op)
    info = op.__dict__.get("_control_flow_gradient")
    if info is None:
        info = op._control_flow_gradient = build(op)
    return info.apply(op, grads)


def _num_if_outputs(attrs):
    return len(attrs["then_branch"].outputs)


_STATELESS_IF = register_op("StatelessIf", kernel=_if_kernel, infer=_infer_from_attrs, grad=_if_grad,
                            num_outputs=_num_if_outputs, needs_runtime=True, subgraphs=True,
                            doc="Runs then_branch or else_branch (sub-graphs) depending on a scalar predicate.")
_IF = register_op("If", kernel=_if_kernel, infer=_infer_from_attrs, grad=_if_grad, num_outputs=_num_if_outputs,
                  needs_runtime=True, stateful=True, subgraphs=True,
                  doc="StatelessIf for branches with side effects: never pruned, run in program order.")


class _CondGradient:
    """The gradient of one ``If`` op, built once (then reused by every later gradient request).

    Building it rewrites the forward op: the forward intermediates the branch
    gradients read become extra outputs (``then`` intermediates, then ``else``
    intermediates; each branch outputs dummies for the other's).
    """

    def __init__(self, op):
        then_fn, else_fn = op.attrs["then_branch"], op.attrs["else_branch"]
        self.n_out = len(then_fn.outputs)
        self.float_out = [i for i in range(self.n_out) if _carries_gradient(op.outputs[i])]
        captured = op.inputs[1:]
        self.wrt = [j for j, t in enumerate(captured) if _differentiable(t)]
        branches = []
        for fn in (then_fn, else_fn):
            grad_ys, grads, saved = _build_gradient(fn.graph, [fn.outputs[i] for i in self.float_out],
                                                    [fn.inputs[j] for j in self.wrt])
            fed = {t._id for t in fn.inputs}
            branches.append((fn, grad_ys, grads, [t for t in saved if t._id not in fed]))
        (_, _, then_grads, then_saved), (_, _, else_grads, else_saved) = branches

        # 1. The forward op also outputs the intermediates the backward branches read.
        then_outputs = then_fn.outputs + then_saved + [_dummy(then_fn.graph, t) for t in else_saved]
        else_outputs = else_fn.outputs + [_dummy(else_fn.graph, t) for t in then_saved] + else_saved
        extra = then_saved + else_saved
        first_new = len(op.outputs)
        op.attrs = dict(op.attrs, then_branch=GraphFunction(then_fn.graph, then_fn.inputs, then_outputs),
                        else_branch=GraphFunction(else_fn.graph, else_fn.inputs, else_outputs),
                        Tout=list(op.attrs["Tout"]) + [t.dtype for t in extra],
                        output_shapes=list(op.attrs["output_shapes"]) +
                        [t.shape if t.shape.rank == 0 else TensorShape(None) for t in extra])
        for k, t in enumerate(extra):
            op.outputs.append(SymbolicTensor(op, first_new + k, t.dtype, op.attrs["output_shapes"][first_new + k]))
        self.saved_outputs = op.outputs[first_new:]

        # 2. The backward branches. Inputs: output grads, saved values (own, or ignored), captured inputs.
        self.positions = [j for k, j in enumerate(self.wrt) if then_grads[k] is not None or else_grads[k] is not None]
        functions = []
        for b, (fn, grad_ys, grads, saved) in enumerate(branches):
            outputs = []
            for k, j in enumerate(self.wrt):
                if j in self.positions:
                    outputs.append(grads[k] if grads[k] is not None else _zeros_for(fn.graph, fn.inputs[j]))
            layout = (then_saved + [None] * len(else_saved)) if b == 0 else ([None] * len(then_saved) + else_saved)
            functions.append(GraphFunction(fn.graph, grad_ys + layout + fn.inputs, outputs, side_effects=False))
        self.then_grad, self.else_grad = functions

    def apply(self, op, grads):
        n_inputs = len(op.inputs)
        if not self.positions:
            return [None] * n_inputs
        dys = [grads[i] if grads[i] is not None else array_ops.zeros_like(op.outputs[i]) for i in self.float_out]
        dtypes_out = [_value_dtype_shape(op.inputs[1 + j])[0] for j in self.positions]
        out_shapes = [a.shape.most_specific_compatible_shape(b.shape)
                      for a, b in zip(self.then_grad.outputs, self.else_grad.outputs)]
        stateful = self.then_grad.stateful or self.else_grad.stateful
        graph = ctx.graph
        result = graph.create_op_from_def(
            _IF if stateful else _STATELESS_IF, [op.inputs[0]] + dys + self.saved_outputs + list(op.inputs[1:]),
            {"then_branch": self.then_grad, "else_branch": self.else_grad, "Tout": dtypes_out,
             "output_shapes": out_shapes, "_gradient": True}, name="cond_grad")
        result = result if isinstance(result, list) else [result]
        _record_gradient_on_tapes("If", op, dys, result, "tf.cond gradient (an If built by a cond's gradient)")
        in_grads = [None] * n_inputs
        for j, g in zip(self.positions, result):
            in_grads[1 + j] = g
        return in_grads


def _trace_branch(fn, outer, name):
    """Trace ``fn()`` into a new ControlFlowGraph; returns (graph, structure, flat output tensors)."""
    graph = ControlFlowGraph(name, outer)
    with graph.as_default():
        structure = fn()
        flat = [graph.output(v) for v in nest.flatten(structure) if v is not None]
    return graph, structure, flat


def _cond_mismatch(t_struct, f_struct, detail):
    return TypeError(f"true_fn and false_fn arguments to tf.cond must have the same number, type, and overall "
                     f"structure of return values.\n\ntrue_fn output: {t_struct}\nfalse_fn output: {f_struct}\n\n"
                     f"Error details:\n{detail}")


def _check_callable(fn, arg):
    if fn is None:
        raise TypeError(f"cond(): '{arg}' argument required")
    if not callable(fn):
        raise TypeError(f"'{arg}' must be callable.")


def _graph_tensor(graph, value):
    """``value`` as a tensor of ``graph`` (eager tensors and Python values become constants)."""
    if hasattr(value, "_is_variable"):
        value = value.read_value()
    t = convert_to_tensor(value)
    return graph._capture(t)


def cond(pred, true_fn=None, false_fn=None, name=None):
    """``tf.cond``: ``true_fn()`` if ``pred`` else ``false_fn()``.

    Eagerly, the chosen function simply runs. In a graph both functions are
    traced (so Python side effects of both happen, once) into branch graphs of
    one ``If``/``StatelessIf`` op, which runs only the chosen branch each time.
    Both must return the same structure of tensors with the same dtypes.
    """
    _check_callable(true_fn, "true_fn")
    _check_callable(false_fn, "false_fn")
    graph = ctx.graph
    if graph is None:
        return true_fn() if pred else false_fn()
    if isinstance(pred, (bool, np.bool_)):
        raise TypeError("pred must not be a Python bool", pred)
    name = name or "cond"
    pred = _graph_tensor(graph, pred)
    if pred.dtype != dtypes.bool:
        raise TypeError(f"Input 'pred' of '{name}' Op has type {pred.dtype.name} that does not match expected type "
                        f"of bool. The predicate of tf.cond must be a scalar bool tensor: compare, or use tf.cast.")
    then_graph, t_struct, t_flat = _trace_branch(true_fn, graph, f"{name}_true")
    else_graph, f_struct, f_flat = _trace_branch(false_fn, graph, f"{name}_false")
    try:
        nest.assert_same_structure(t_struct, f_struct, check_types=False)
    except (TypeError, ValueError) as error:
        raise _cond_mismatch(t_struct, f_struct, error) from None
    for a, b in zip(nest.flatten(t_struct), nest.flatten(f_struct)):
        if (a is None) != (b is None):
            raise _cond_mismatch(t_struct, f_struct, f"{a} and {b} are not both None")
    for a, b in zip(t_flat, f_flat):
        if a.dtype != b.dtype:
            raise _cond_mismatch(t_struct, f_struct, f"{a} and {b} have different types")

    outers = _union_captures([then_graph, else_graph])
    then_fn = GraphFunction(then_graph, [then_graph.capture(o) for o in outers], t_flat)
    else_fn = GraphFunction(else_graph, [else_graph.capture(o) for o in outers], f_flat)
    stateful = then_fn.stateful or else_fn.stateful
    result = graph.create_op_from_def(
        _IF if stateful else _STATELESS_IF, [pred] + outers,
        {"then_branch": then_fn, "else_branch": else_fn, "Tout": [t.dtype for t in t_flat],
         "output_shapes": [a.shape.most_specific_compatible_shape(b.shape) for a, b in zip(t_flat, f_flat)]},
        name=name)
    if not t_flat:  # no outputs (side effects only, or nothing at all)
        return t_struct
    outputs = result if isinstance(result, list) else [result]
    _record_on_tapes(outputs[0].op, _if_grad)
    it = iter(outputs)
    return nest.pack_sequence_as(t_struct, [None if v is None else next(it) for v in nest.flatten(t_struct)])


def _union_captures(graphs):
    """The outer tensors captured by any of ``graphs``, in first-capture order; every graph captures all."""
    outers, seen = [], set()
    for g in graphs:
        for outer, _ in list(g.captures):
            if outer._id not in seen:
                seen.add(outer._id)
                outers.append(outer)
    for g in graphs:
        for o in outers:
            g.capture(o)
    return outers


# ======================================================================================
# case, switch_case
# ======================================================================================
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """``tf.case``: the function of the first pair whose predicate is True, else ``default()``.

    Without ``default``, the last pair's function is the default (and its
    predicate is asserted to be True, as TF does). Built as nested conds.
    """
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    if not isinstance(pred_fn_pairs, (list, tuple)):
        raise TypeError(f"pred_fn_pairs must be a list or tuple, got {type(pred_fn_pairs).__name__}")
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in pred_fn_pairs must be a 2-tuple. Received {pair}.")
        if not callable(pair[1]):
            raise TypeError(f"fn for pred {pair[0]} must be callable.")
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    preds = [convert_to_tensor(p) for p, _ in pred_fn_pairs]
    fns = [f for _, f in pred_fn_pairs]
    if exclusive and ctx.graph is None and sum(bool(p) for p in preds) > 1:
        raise InvalidArgumentError(None, None, "Input error: exclusive=True: more than 1 conditions "
                                               f"({', '.join(str(bool(p)) for p in preds)}) evaluated as True")
    if default is None:
        last_pred, last_fn = preds[-1], fns[-1]
        preds, fns = preds[:-1], fns[:-1]

        def default():
            if ctx.graph is None:
                if not bool(last_pred):
                    raise InvalidArgumentError(None, None, "Input error: None of conditions evaluated as True")
                return last_fn()
            check = Assert(last_pred, ["Input error: None of conditions evaluated as True"])
            with control_dependencies([check]):
                return last_fn()
    fn = default
    for p, f in reversed(list(zip(preds, fns))):
        fn = functools.partial(cond, p, f, fn, name)
    return fn()


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``tf.switch_case``: ``branch_fns[branch_index]()``; out of range runs ``default`` (else the last branch)."""
    if isinstance(branch_fns, dict):
        items = sorted(branch_fns.items())
    elif isinstance(branch_fns, (list, tuple)) and branch_fns and isinstance(branch_fns[0], tuple):
        items = sorted(branch_fns)
    else:
        items = list(enumerate(branch_fns))
    if not items:
        raise ValueError("Must provide at least one item in branch_fns")
    for _, f in items:
        if not callable(f):
            raise TypeError("fn for branch must be callable.")
    index = convert_to_tensor(branch_index)
    if ctx.graph is None:
        return dict(items).get(int(index), default if default is not None else items[-1][1])()
    # Nested conds; the innermost "else" is the default, which without one is the last branch itself
    # (so each branch is traced exactly once, as TF's Case op does).
    if default is None:
        fn, tested = items[-1][1], items[:-1]
    else:
        fn, tested = default, items
    for k, f in reversed(tested):
        fn = functools.partial(cond, math_ops.equal(index, k), f, fn, name)
    return fn()


# ======================================================================================
# while_loop
# ======================================================================================
def _while_kernel(xp):
    def k(*inputs, cond, body, _n_vars, _record=False, _runtime=None, **attrs):
        values = list(inputs[:_n_vars])
        captured = list(inputs[_n_vars:])
        record = LoopRecord() if _record else None
        while bool(cond(values + captured, _runtime)[0]):
            outputs = body(values + captured, _runtime)
            values = list(outputs[:_n_vars])
            if record is not None:
                record.iterations.append(tuple(outputs[_n_vars:]))
        if record is not None:
            values.append(record)
        return values[0] if len(values) == 1 else tuple(values)
    return k


def _while_grad(op, *grads):
    """The gradient of a while loop: a WhileGrad op runs the body's gradient over the record, in reverse."""
    return _apply_cached_gradient(op, grads, lambda real: _WhileGradient(real))


def _num_while_outputs(attrs):
    return attrs["_n_vars"] + (1 if attrs.get("_record") else 0)


_STATELESS_WHILE = register_op("StatelessWhile", kernel=_while_kernel, infer=_infer_from_attrs, grad=_while_grad,
                               num_outputs=_num_while_outputs, needs_runtime=True, subgraphs=True,
                               doc="Runs the body sub-graph while the cond sub-graph returns True.")
_WHILE = register_op("While", kernel=_while_kernel, infer=_infer_from_attrs, grad=_while_grad,
                     num_outputs=_num_while_outputs, needs_runtime=True, stateful=True, subgraphs=True,
                     doc="StatelessWhile for loops with side effects.")


def _while_grad_kernel(xp):
    def k(record, *inputs, body_grad, _n_grads, _cap_positions, _n_saved=None, _runtime=None, **attrs):
        record = _unwrap(record)
        g = list(inputs[:_n_grads])
        captured = list(inputs[_n_grads:])
        totals = None
        for saved in reversed(record.iterations):  # the last iteration first
            outputs = body_grad(list(saved[:_n_saved]) + captured + g, _runtime)
            g = list(outputs[:_n_grads])
            step = outputs[_n_grads:]
            totals = list(step) if totals is None else [a + b for a, b in zip(totals, step)]
        if totals is None:  # the loop ran zero times: captured tensors get zero gradients
            totals = [xp.zeros_like(getattr(captured[j], "_value", captured[j])) for j in _cap_positions]
        result = g + totals
        return result[0] if len(result) == 1 else tuple(result)
    return k


def _while_grad_grad(op, *grads):
    """WhileGrad has no graph gradient: say so, rather than let the gradient be silently missing."""
    _no_graph_gradient("tf.while_loop gradient (WhileGrad)")


def _record_gradient_on_tapes(op_type, forward, dys, result, what):
    """Let tapes recording a graph gradient computation (nested tapes inside a tf.function) see it.

    They see the backward op as a function of the forward op's inputs, so differentiating it again
    raises the clear error of :func:`_no_graph_gradient` instead of returning a silently missing
    (None) or partial gradient.
    """
    if ctx.tapes:
        record_operation(op_type, _tape_inputs(list(forward.inputs)) + list(dys), list(result),
                         lambda *grads: _no_graph_gradient(what))


_WHILE_GRAD = register_op("WhileGrad", kernel=_while_grad_kernel, infer=_infer_from_attrs, grad=_while_grad_grad,
                          num_outputs=lambda attrs: len(attrs["Tout"]), needs_runtime=True, subgraphs=True,
                          doc="Backward pass of a while loop: body_grad over the loop record, last iteration first.")


class _WhileGradient:
    """The gradient of one ``While`` op, built once; building it makes the forward loop keep a record."""

    def __init__(self, op):
        body = op.attrs["body"]
        n = self.n = op.attrs["_n_vars"]
        graph, placeholders, outputs = body.graph, body.inputs, body.outputs[:n]
        self.float_vars = [i for i in range(n) if _carries_gradient(op.inputs[i])]
        wrt_caps = [j for j in range(len(placeholders) - n) if _differentiable(placeholders[n + j])]
        grad_ys, grads, saved = _build_gradient(
            graph, [outputs[i] for i in self.float_vars],
            [placeholders[i] for i in self.float_vars] + [placeholders[n + j] for j in wrt_caps], unconnected="zero")
        captured_ids = {t._id for t in placeholders[n:]}
        per_iteration = [t for t in saved if t._id not in captured_ids]
        var_grads, cap_grads = grads[:len(self.float_vars)], grads[len(self.float_vars):]
        self.cap_positions = [j for j, g in zip(wrt_caps, cap_grads) if g is not None]
        # What each iteration records. A loop that already records (its gradient was built before
        # the graph was saved and loaded again, and other WhileGrad ops may read the record) keeps
        # its layout; values it lacks are appended, and each WhileGrad reads only its prefix.
        recorded = list(body.outputs[n:]) if op.attrs.get("_record") else []
        known = {t._id for t in recorded}
        missing = [t for t in per_iteration if t._id not in known]
        needed = {t._id for t in per_iteration}
        layout = [t if t._id in needed else None for t in recorded] + missing
        self.n_saved = len(layout)
        self.backward = GraphFunction(graph, layout + placeholders[n:] + grad_ys,
                                      list(var_grads) + [g for g in cap_grads if g is not None], side_effects=False)
        if op.attrs.get("_record") and not missing:
            self.record = op.outputs[n]
            return
        # The forward body also returns this iteration's saved values; the kernel records them.
        op.attrs = dict(op.attrs, body=GraphFunction(graph, placeholders, list(outputs) + recorded + missing),
                        _record=True, Tout=list(op.attrs["Tout"])[:n] + [variant],
                        output_shapes=list(op.attrs["output_shapes"])[:n] + [TensorShape([])])
        if len(op.outputs) == n:
            op.outputs.append(SymbolicTensor(op, n, variant, TensorShape([])))
        self.record = op.outputs[n]

    def apply(self, op, grads):
        n = self.n
        dys = [grads[i] if grads[i] is not None else array_ops.zeros_like(op.outputs[i]) for i in self.float_vars]
        captured = list(op.inputs[n:])
        specs = [(op.inputs[i].dtype, op.outputs[i].shape) for i in self.float_vars] + \
            [_value_dtype_shape(captured[j]) for j in self.cap_positions]
        if not specs:
            return [None] * len(op.inputs)
        result = execute(_WHILE_GRAD, tuple([self.record] + dys + captured),
                         {"body_grad": self.backward, "_n_grads": len(dys), "_cap_positions": self.cap_positions,
                          "_n_saved": self.n_saved,
                          "Tout": [d for d, _ in specs], "output_shapes": [s for _, s in specs]}, name="while_grad")
        result = result if isinstance(result, list) else [result]
        _record_gradient_on_tapes("WhileGrad", op, dys, result, "tf.while_loop gradient (WhileGrad)")
        in_grads = [None] * len(op.inputs)
        for i, g in zip(self.float_vars, result):
            in_grads[i] = g
        for j, g in zip(self.cap_positions, result[len(self.float_vars):]):
            in_grads[n + j] = g
        return in_grads


# ======================================================================================
# Eager replay (higher-order gradients through tf.function)
# ======================================================================================
def replay_ops(graph, values, fetches, targets=()):
    """Run the ops of ``graph`` that ``fetches`` and ``targets`` need, eagerly, one by one.

    ``values`` maps fed tensor ids to eager values: EagerTensors, the eager ``tf.Variable`` for a
    resource handle, a ``LoopRecord`` for a loop record. Every op goes through the dispatcher, so
    the active tapes and accumulators record it; control-flow ops run their sub-graphs the same way
    (``control_flow_ops.replay_op``: the chosen branch, each loop iteration). Returns the fetched values.
    """
    for op in prune([t.op for t in fetches] + list(targets), set(values)):
        if op.type == "Placeholder":
            if op.outputs[0]._id not in values:
                raise InvalidArgumentError(None, None, f"Replaying {graph.name}: placeholder '{op.name}' is "
                                                       f"needed but was not fed.")
            continue
        if op.type == "VarHandleOp":
            values[op.outputs[0]._id] = op.attrs["eager_variable"]
            continue
        args = [values[t._id] for t in op.inputs]
        if op.type == "ReadVariableOp":
            result = args[0]._read()
        elif op.type in ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"):
            method = {"AssignVariableOp": "assign", "AssignAddVariableOp": "assign_add",
                      "AssignSubVariableOp": "assign_sub"}[op.type]
            getattr(args[0], method)(args[1], read_value=False)
            continue
        elif op.op_def.subgraphs:   # If, While: replayed by running their branch / iterations (replay_op)
            result = replay_op(op, args)
        else:
            result = execute(op.op_def, tuple(args), op.attrs)
        outs = result if isinstance(result, list) else [result]
        for t, v in zip(op.outputs, outs):
            values[t._id] = v
    return [values[t._id] for t in fetches]


def replay_function(fn, args):
    """Call the GraphFunction ``fn`` on eager ``args`` by running its ops eagerly, one by one.

    Every op goes through the dispatcher, so the active tapes record it: the result is
    differentiable to any order (the compiled plan is not). See ``ConcreteFunction._replay_eagerly``.
    """
    values = {t._id: a for t, a in zip(fn.inputs, args) if t is not None}
    return replay_ops(fn.graph, values, fn.outputs, getattr(fn, "targets", ()))


def replay_op(op, args):
    """Run one control-flow op eagerly on ``args`` (EagerTensors, variables for resource handles).

    ``If``: the predicate chooses a branch, which is replayed. ``While``: the cond and the body are
    replayed, iteration after iteration; a recording loop collects each iteration's saved values (eager
    tensors, recorded by the tapes) in a :class:`LoopRecord`. ``WhileGrad``: ``body_grad`` is replayed
    over that record, last iteration first, so the backward pass of the loop is itself recorded and can
    be differentiated again.
    """
    attrs = op.attrs
    if op.type in ("If", "StatelessIf"):
        pred = args[0]
        if getattr(pred, "ndim", 0) != 0:
            raise InvalidArgumentError(None, None, f"The second input must be a scalar, but it has shape "
                                                   f"{_fmt_shape(pred.numpy())}")
        return replay_function(attrs["then_branch"] if bool(pred) else attrs["else_branch"], list(args[1:]))
    if op.type in ("While", "StatelessWhile"):
        n = attrs["_n_vars"]
        values, captured = list(args[:n]), list(args[n:])
        record = LoopRecord() if attrs.get("_record") else None
        while bool(replay_function(attrs["cond"], values + captured)[0]):
            outputs = replay_function(attrs["body"], values + captured)
            values = list(outputs[:n])
            if record is not None:
                record.iterations.append(tuple(outputs[n:]))
        return values + ([record] if record is not None else [])
    if op.type == "WhileGrad":
        record = _unwrap(args[0])
        if not isinstance(record, LoopRecord) or any(not isinstance(v, Tensor) for it in record.iterations
                                                     for v in it):
            raise InvalidArgumentError(None, None, "WhileGrad: the loop record does not come from a replayed "
                                                   "while loop.")
        n_grads, n_saved = attrs["_n_grads"], attrs.get("_n_saved")
        g, captured = list(args[1:1 + n_grads]), list(args[1 + n_grads:])
        totals = None
        for saved in reversed(record.iterations):
            outputs = replay_function(attrs["body_grad"], list(saved[:n_saved]) + captured + g)
            g, step = list(outputs[:n_grads]), list(outputs[n_grads:])
            totals = step if totals is None else [math_ops.add_n([a, b]) for a, b in zip(totals, step)]
        if totals is None:
            totals = [_eager_zeros(captured[j]) for j in attrs["_cap_positions"]]
        return g + totals
    raise TypeError(f"replay_op: {op.type} is not a control-flow op.")


def _eager_zeros(value):
    if hasattr(value, "_is_variable"):
        return array_ops.zeros(value.shape.as_list(), value.dtype)
    return array_ops.zeros_like(value)


def _is_subshape(shape, invariant):
    """True if ``shape`` is at least as specific as ``invariant`` (every known dim of the invariant matches)."""
    if invariant.rank is None:
        return True
    if shape.rank != invariant.rank:
        return False
    return all(b is None or a == b for a, b in zip(shape.as_list(), invariant.as_list()))


def _invariants_for(structure, shape_invariants):
    """One TensorShape per loop-variable leaf (shape invariants may use lists like ``[None, 2]``)."""
    out = []

    def walk(s, inv):
        if nest.is_nested(s):
            items = s.values() if isinstance(s, dict) else s
            invs = inv.values() if isinstance(inv, dict) else inv
            for a, b in zip(items, invs):
                walk(a, b)
        else:
            out.append(as_shape(inv))
    walk(structure, shape_invariants)
    return out


def _loop_args(structure, flat):
    return nest.pack_sequence_as(structure, flat)


_NEXT_LOOP_NAMES = threading.local()


def name_next_loop_variables(names):
    """Name the loop-variable placeholders of the next ``tf.while_loop`` built on this thread.

    AutoGraph passes the Python names of a ``while`` loop's variables, so the body graph reads
    ``n``, ``steps`` instead of ``loop_var``, ``loop_var_1``. (TF names them ``Placeholder``,
    ``Placeholder_1``, ...: a deliberate difference, for pictures a student can read. Names that
    do not fit the loop's flattened variables are ignored.)"""
    _NEXT_LOOP_NAMES.names = list(names)


def _loop_labels(names, loop_vars, counted):
    """One placeholder name per flattened loop variable (``x_0``, ``x_1`` for a nested ``x``), or None."""
    if not names or not isinstance(loop_vars, (list, tuple)) or len(names) != len(loop_vars):
        return None
    labels = ["iteration"] if counted else []
    for name, var in zip(names, loop_vars):
        name = re.sub(r"[^A-Za-z0-9_.]", "_", str(name)).strip("_.") or "loop_var"
        k = len(nest.flatten(var))
        labels += [name] if k == 1 else [f"{name}_{j}" for j in range(k)]
    return labels


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """``tf.while_loop``: ``while cond(*loop_vars): loop_vars = body(*loop_vars)``.

    Eagerly this is exactly that Python loop. In a graph, ``cond`` and ``body``
    are traced once into sub-graphs of one ``While``/``StatelessWhile`` op, with
    placeholders for the loop variables. Every loop variable must keep its
    dtype, and its shape must stay within its shape invariant (by default, its
    initial shape; use ``shape_invariants`` with ``None`` dims to let it vary).
    ``maximum_iterations`` stops the loop after that many iterations.
    """
    names, _NEXT_LOOP_NAMES.names = getattr(_NEXT_LOOP_NAMES, "names", None), None
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    if loop_vars is None or (ctx.graph is None and nest.is_nested(loop_vars) and not nest.flatten(loop_vars)):
        raise ValueError("'loop_vars' must be provided.")   # (in a graph TF accepts none: a loop of side effects)
    single = not nest.is_nested(loop_vars) or _is_tensor_array(loop_vars)  # engine leniency: one bare variable
    structure = [loop_vars] if single else loop_vars
    if shape_invariants is not None and single:
        shape_invariants = [shape_invariants]
    structure = nest.map_structure(lambda v: v.read_value() if hasattr(v, "_is_variable") else v, structure)
    user_cond, user_body = cond, body
    if maximum_iterations is not None:
        max_t = convert_to_tensor(maximum_iterations)
        if max_t.shape.rank != 0:
            raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: {max_t.shape}")
        counter = 0 if ctx.graph is None else array_ops.zeros([], max_t.dtype)
        if ctx.graph is None:
            max_t = int(max_t)
        structure = [counter, structure]
        if shape_invariants is not None:
            shape_invariants = [TensorShape([]), shape_invariants]

        def cond(i, lv):
            return math_ops.logical_and(i < max_t, user_cond(*lv)) if ctx.graph is not None else \
                (i < max_t and user_cond(*lv))

        def body(i, lv):
            out = user_body(*lv)
            return [i + 1, out if nest.is_nested(out) else [out]]

    if ctx.graph is None:
        result = _eager_while(cond, body, structure)
    else:
        labels = _loop_labels(names, [loop_vars] if single else loop_vars, maximum_iterations is not None)
        result = _graph_while(cond, body, structure, shape_invariants, parallel_iterations, name or "while", labels)
    if maximum_iterations is not None:
        result = result[1]
    return result[0] if single else result


def _eager_while(cond, body, structure):
    loop_vars = structure
    while cond(*loop_vars):
        out = body(*loop_vars)
        if not nest.is_nested(out):
            out = [out]
        nest.assert_same_structure(list(out), list(loop_vars), check_types=False)
        loop_vars = out
    return nest.map_structure(lambda v: v if isinstance(v, Tensor) or _is_tensor_array(v) else convert_to_tensor(v),
                              loop_vars)


def _graph_while(cond, body, structure, shape_invariants, parallel_iterations, name, labels=None):
    graph = ctx.graph
    init = [_graph_tensor(graph, v) for v in nest.flatten(structure)]
    if labels is None or len(labels) != len(init):
        labels = ["loop_var"] * len(init)
    if shape_invariants is None:
        invariants = [t.shape for t in init]
    else:
        invariants = _invariants_for(structure, shape_invariants)
        for t, inv in zip(init, invariants):
            if not _is_subshape(t.shape, inv):
                raise ValueError(f"Input tensor `{t.name}` enters the loop with shape {t.shape}, but the specified "
                                 f"shape invariant is {inv}: the shape invariant must be compatible with (less or "
                                 f"equally specific than) the initial shape.")

    cond_graph = ControlFlowGraph(f"{name}_cond", graph)
    with cond_graph.as_default():
        cond_inputs = [_placeholder(cond_graph, t.dtype, s, n) for t, s, n in zip(init, invariants, labels)]
        pred = cond_graph.output(cond(*_loop_args(structure, cond_inputs)))
    if pred.dtype != dtypes.bool:
        raise TypeError(f"Input 'input' of 'LoopCond' Op has type {pred.dtype.name} that does not match expected "
                        f"type of bool: the cond of tf.while_loop '{name}' must return a scalar bool tensor.")
    if pred.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {pred.shape.rank} for the cond of tf.while_loop "
                         f"'{name}': it must return a scalar bool tensor.")

    body_graph = ControlFlowGraph(f"{name}_body", graph)
    with body_graph.as_default():
        body_inputs = [_placeholder(body_graph, t.dtype, s, n) for t, s, n in zip(init, invariants, labels)]
        out = body(*_loop_args(structure, body_inputs))
        if not nest.is_nested(out):
            out = [out]
        try:
            nest.assert_same_structure(list(out), list(structure), check_types=False)
        except ValueError as error:
            raise ValueError(f"{error}\n\nThe body of tf.while_loop must return the same structure as its "
                             f"loop_vars.") from None
        body_outputs = [body_graph.output(v) for v in nest.flatten(out)]
    for t, o, inv in zip(init, body_outputs, invariants):
        if o.dtype != t.dtype:
            raise TypeError(f"Loop var {t.name} enters the loop with type {t.dtype} but has type {o.dtype} after 1 "
                            f"iteration. {t.name} type should remain constant.")
        if not _is_subshape(o.shape, inv):
            raise ValueError(f"Input tensor `{t.name}` enters the loop with shape {t.shape}, but has shape "
                             f"{o.shape} after one iteration. To allow the shape to vary across iterations, use "
                             f"the `shape_invariants` argument of tf.while_loop to specify a less-specific shape.")

    outers = _union_captures([cond_graph, body_graph])
    cond_fn = GraphFunction(cond_graph, cond_inputs + [cond_graph.capture(o) for o in outers], [pred])
    body_fn = GraphFunction(body_graph, body_inputs + [body_graph.capture(o) for o in outers], body_outputs)
    stateful = cond_fn.stateful or body_fn.stateful
    result = graph.create_op_from_def(
        _WHILE if stateful else _STATELESS_WHILE, init + outers,
        {"cond": cond_fn, "body": body_fn, "_n_vars": len(init), "_record": False,
         "parallel_iterations": parallel_iterations, "Tout": [t.dtype for t in init],
         "output_shapes": list(invariants)}, name=name)
    if not init:                         # no loop variables: the op (side effects only) has no outputs
        return structure
    outputs = result if isinstance(result, list) else [result]
    _record_on_tapes(outputs[0].op, _while_grad)
    return nest.pack_sequence_as(structure, outputs[:len(init)])


def is_range_tensor(t):
    """True for the output of ``tf.range`` in a graph (AutoGraph iterates it without materializing it)."""
    return isinstance(t, SymbolicTensor) and t.op.type == "Range"

