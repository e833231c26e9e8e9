"""Eager dispatch: run one registered op *now*.

This is the hot path of the engine: every ``tf.add(a, b)`` lands here. In order:

1. Choose the device (``tf.device`` scope, else the first input's device).
2. Fetch the op's kernel for that device's backend and call it on the input arrays.
3. Wrap the result arrays as ``EagerTensor`` s.
4. If any gradient tape is recording, offer it the op (inputs, outputs, attrs).

When the graph-building context is active (graph mode, ``tf.function`` tracing)
the same call builds a graph node instead: one entry point, two modes.

Errors: if a kernel fails, the op's shape function is asked to explain the
failure; the user gets ``InvalidArgumentError`` naming the op, shapes and
dtypes, in TF's ``... [Op:MatMul]`` style, never a raw NumPy traceback.

Every op of the engine runs through :func:`execute` (eager calls, operators,
variable reads and writes; graph construction goes through its graph branch),
so swapping a registry row (``registry.override``) reaches every caller. The two
commonest calls have entries of their own that take the same steps with fewer
checks: :func:`execute_binary` (``a + b`` on two host tensors) and
:func:`execute_read` (a variable read). Read :func:`execute` first.
"""
from ..framework.backend import NUMPY
from ..framework.context import ctx
from ..framework.device import default_device
from ..framework.errors import InvalidArgumentError, OpError, finish_op_message
from ..framework.floating_point import FP_IGNORE, FP_STATE
from ..framework.func_graph import out_of_scope_error
from ..framework.registry import InferenceContext, format_shapes
from ..framework.graph import SymbolicTensor
from ..framework.tensor import EagerTensor, made_from_python_sequence

__all__ = ["execute", "execute_binary", "execute_read", "record", "explain_failure", "eager_op_error"]

_NO_ATTRS = {}


def execute(op, inputs, attrs=_NO_ATTRS, name=None):
    """Run ``op`` (an OpDef) on ``inputs`` (tensors) with ``attrs``.

    Returns one tensor for single-output ops, else a list of tensors.
    """
    c = ctx
    if c.graph is not None:
        result = c.graph.create_op_from_def(op, inputs, attrs, name)
        if c.tapes and isinstance(result, (list, SymbolicTensor)):  # tapes inside a traced function
            record(op, inputs, attrs, result if isinstance(result, list) else (result,))
        return result
    try:
        device = c.device or (inputs[0]._device if inputs else default_device())
        if op.resource_input:   # a variable's op runs where the variable lives, as TF colocates it
            device = inputs[0]._device
    except AttributeError:
        raise _symbolic_input_error(op, inputs) from None
    try:
        if device.backend is NUMPY:
            # The host: call the NumPy kernel on the arrays. The commonest calls (one or two inputs
            # already on the host) pass them directly. A ``quiet_fp`` op runs in NumPy's "ignore"
            # error state, set here around the call rather than by a wrapper (see ``OpDef.kernel``).
            kernel = op.door_kernel or _build_kernel(op)
            token = FP_STATE.set(FP_IGNORE) if op.quiet_fp else None
            try:
                n = len(inputs)
                if op.resource_input:   # a variable op: the kernel gets the variable itself, and the values
                    if n == 2 and inputs[1]._device.backend is NUMPY:   # an assignment
                        result = kernel(inputs[0], inputs[1]._value, **attrs)
                    else:
                        result = kernel(inputs[0], *_values_on(device, inputs[1:]), **attrs)
                elif n == 2 and inputs[0]._device.backend is NUMPY and inputs[1]._device.backend is NUMPY:
                    x, y = inputs
                    result = kernel(x._value, y._value, **attrs) if attrs else kernel(x._value, y._value)
                elif n == 1 and inputs[0]._device.backend is NUMPY:
                    result = kernel(inputs[0]._value, **attrs) if attrs else kernel(inputs[0]._value)
                else:
                    result = kernel(*_values_on(device, inputs), **attrs)
            finally:
                if token is not None:
                    FP_STATE.reset(token)
        else:
            kernel = op.kernel(device.backend)
            with device.activate():
                values = [t._value if t._device is device else device.put(t._value) for t in inputs]
                if op.resource_input:
                    values[0] = inputs[0]
                result = kernel(*values, **attrs)
    except Exception as exc:  # translate kernel failures into TF's errors
        if any(_is_symbolic(t) for t in inputs):
            raise _symbolic_input_error(op, inputs) from None
        raise explain_failure(op, inputs, attrs, exc) from None

    if op.num_outputs == 1:
        outs = (EagerTensor(result, device),)
    else:   # several outputs, or none (an assignment: nothing to wrap)
        if result is not None and not isinstance(result, (list, tuple)) and callable(op.num_outputs):
            result = (result,)   # a list op (Unpack, Split ...) with one output returns it bare, as graphs expect
        outs = [EagerTensor(r, device) for r in result] if result else []
    for tape in c.tapes:   # 4. offer the op to every recording tape
        tape.record_operation(op, inputs, attrs, outs)
    return outs[0] if op.num_outputs == 1 else outs


def execute_binary(op, x, y, name=None):
    """``execute(op, (x, y))`` for two eager tensors: the hottest call of the engine (``a + b``).

    The same steps as :func:`execute`, for the case elementwise arithmetic meets almost
    always (both on the one host device, no device scope, no graph being built); any
    other case goes through :func:`execute` itself. A kernel failure gets the same error.
    """
    c = ctx
    device = x._device
    if c.graph is not None or c.device is not None or device is not y._device or device.backend is not NUMPY:
        return execute(op, (x, y), _NO_ATTRS, name)
    kernel = op.door_kernel or _build_kernel(op)
    token = FP_STATE.set(FP_IGNORE) if op.quiet_fp else None
    try:
        result = kernel(x._value, y._value)
    except Exception as exc:  # noqa: BLE001  (translated into TF's error, as execute does)
        raise explain_failure(op, (x, y), _NO_ATTRS, exc) from None
    finally:
        if token is not None:
            FP_STATE.reset(token)
    out = EagerTensor(result, device)
    if c.tapes:
        outs = (out,)
        for tape in c.tapes:
            tape.record_operation(op, (x, y), _NO_ATTRS, outs)
    return out


def execute_read(op, variable, tapes):
    """``execute(op, (variable,))`` for ``ReadVariableOp`` on an eager variable (every layer reads its weights).

    Called by an eager read (no graph being built), with ``ctx.tapes``, which have heard of
    the access already. The op runs where the variable lives, on its buffer; what a tape
    records is the op with the ``Variable`` itself as its input, as :func:`execute` records it.
    """
    device = variable._device
    if device.backend is not NUMPY:
        return execute(op, (variable,))
    kernel = op.door_kernel or _build_kernel(op)
    try:
        out = EagerTensor(kernel(variable), device)
    except Exception as exc:  # noqa: BLE001  (translated into TF's error, as execute does)
        raise explain_failure(op, (variable,), _NO_ATTRS, exc) from None
    if tapes:
        outs = (out,)
        for tape in tapes:
            tape.record_operation(op, (variable,), _NO_ATTRS, outs)
    return out


def _build_kernel(op):
    """Build the op's NumPy kernel on its first eager call (or after ``registry.override``)."""
    op.kernel(NUMPY)
    return op.door_kernel


def _values_on(device, inputs):
    """The input arrays for a NumPy kernel (values on other devices are copied to the host)."""
    return [t._value if t._device.backend is NUMPY else device.put(t._value) for t in inputs]


def _is_symbolic(t):
    """Not a value: neither an eager tensor nor an eager variable (a graph tensor, for instance)."""
    return not isinstance(t, EagerTensor) and not hasattr(t, "_is_variable")


def _symbolic_input_error(op, inputs):
    for t in inputs:   # a tensor leaked out of a finished tf.function trace: TF's "out of scope" TypeError
        if _is_symbolic(t) and getattr(getattr(t, "graph", None), "building_function", False):
            return out_of_scope_error(t)
    names = ", ".join(repr(getattr(t, "name", t)) for t in inputs if _is_symbolic(t))
    return TypeError(f"{op.name} was called eagerly on symbolic tensor(s) {names}: they belong to a tf.Graph "
                     f"and have no value here. Build the op inside that graph (`with graph.as_default():`) and "
                     f"run it with a Session, or use eager tensors.")


def record(op, inputs, attrs, outputs):
    """Offer an executed op to every active tape."""
    for tape in ctx.tapes:
        tape.record_operation(op, inputs, attrs, outputs)


def explain_failure(op, inputs, attrs, exc):
    """Build the user-facing error for a failed kernel."""
    if isinstance(exc, OpError):
        if "[Op:" not in exc.message:
            _end_message(exc, f"{exc.message} [Op:{op.name}]", inputs)
        return exc
    detail = None
    if op.infer is not None:
        try:
            op.infer(InferenceContext(op.name, inputs, attrs, _eager_constant))
        except (ValueError, TypeError) as shape_error:
            detail = str(shape_error)
    if detail is None:
        detail = f"{op.name} failed on inputs with shapes {format_shapes(inputs)} and dtypes " \
                 f"{', '.join(t.dtype.name for t in inputs)}: {exc}"
    error = InvalidArgumentError(None, None, detail)
    _end_message(error, f"{detail} [Op:{op.name}]", inputs)
    return error


def eager_op_error(error_class, text, inputs):
    """An op's error raised eagerly before its kernel runs (a dtype it refuses), ended as :func:`_end_message` ends it."""
    error = error_class(None, None, text.rsplit(" [Op:", 1)[0])
    _end_message(error, text, inputs)
    return error


def _end_message(error, text, inputs):
    """End the error's text as TF 2.21's eager errors end: ``[Op:GatherV2] name: ``, or, where the op was
    handed a Python list, tuple or string (TF's slow path: ``tf.gather(x, [5])``), ``[Op:GatherV2]``.
    See "TF's two eager paths" in ``framework/tensor.py``."""
    error.message = text if made_from_python_sequence(inputs) else finish_op_message(text)
    error.args = (error.message,)


def _eager_constant(tensor):
    return tensor.numpy() if isinstance(tensor, EagerTensor) else None
