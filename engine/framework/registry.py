"""The op registry: every op is defined exactly once, here.

An op is a row in one table, keyed by TensorFlow's op type name (``"AddV2"``,
``"MatMul"``, ...). A row holds three things:

* ``kernel``: a *kernel factory* ``make(xp) -> callable``. Given an array module
  (NumPy or CuPy) it returns the function that computes the op's outputs from
  input arrays and attrs. Writing kernels against ``xp`` is what lets one
  definition serve CPU and GPU.
* ``infer``: shape and dtype inference ``infer(ic) -> [(dtype, TensorShape), ...]``
  that works with partially known shapes. Graph building and tracing call it when
  an op is created; eager execution calls it only to explain a failure.
* ``grad``: the gradient function ``grad(op, *output_grads) -> input_grads``,
  written with **engine ops**, never raw arrays. Because the backward pass is
  made of ordinary ops, a tape watching it can differentiate it again: second
  derivatives come for free.

Besides these three, a row holds the op's *traits*: the facts the rest of the
engine needs about it, kept here instead of in tables scattered over the passes
(see :class:`OpDef`): which dtypes it accepts, whether it is one NumPy ufunc,
linear, commutative, a forwarding op (its output is its input), random,
stateful.

The same table drives every path that runs an op: eager dispatch
(``engine.eager.execute``), the tape, graph construction, ``Session.run``'s
plans, ``tf.function``, constant folding and fused kernels. This is the
autodidax pattern: ``grad_rules[add_p] = ...`` with all the rules in one place.
Because every path reads the row, :func:`override` can swap an op's kernel or
gradient for a block and the whole engine follows.
"""
import contextlib
import re

from . import errors
from .backend import NUMPY, array_module
from .context import ctx
from .floating_point import INLINE, quietly

from .op_def_library import parse_inputs
from .tensor_shape import TensorShape, as_shape

__all__ = ["OpDef", "register_op", "get_op", "RegisterGradient", "NotDifferentiable", "no_registered_gradient",
           "InferenceContext", "registered_ops", "op_rows", "call_gradient", "override", "generation"]

_REGISTRY = {}

# Bumped whenever a row's kernel or gradient changes (``override``): compiled plans remember the
# generation they were built in, and rebuild themselves when it moved on.
_GENERATION = [0]


def generation():
    """A number that changes whenever any op's kernel or gradient is swapped (see :func:`override`)."""
    return _GENERATION[0]


class OpDef:
    """One registered op: its kernel, shape function and gradient, and its traits.

    Traits (all optional, read by the passes, forward-mode autodiff and the executor):

    ``dtypes``
        The input dtypes its kernel accepts (a frozenset of DTypes), or None for any.
        Eager dispatch refuses others with TF's "not in the list of allowed values" error.
    ``inputs``, ``type_attrs``
        Its TF op definition, as graph construction checks it (``op_def_library.py``):
        ``inputs`` is TF's ``Input`` lines, comma-separated (``"x: T, y: T"``,
        ``"x: bool, y: bool"``, ``"values: N * T, axis: Tidx"``), ``type_attrs`` the dtypes
        each type attribute allows (``{"T": FLOAT}``; an attribute left out allows any).
        When a ``tf.Graph`` or a ``tf.function`` trace creates the node, inputs that must
        share a dtype, fixed-type inputs and allowed dtypes are checked, and a failure is
        TF's ``TypeError``. None (the default): nothing is checked there. Eager calls
        never run this check (TF's kernels check eagerly, with ``InvalidArgumentError``).
    ``ufunc``
        The NumPy/CuPy ufunc name the kernel *is* (``"add"`` for AddV2), or a tuple of
        ufunc names applied in turn (Rsqrt: ``("sqrt", "reciprocal")``). Fused kernels
        call it with ``out=`` to reuse buffers. None: call the kernel itself.
    ``ufunc_args``
        Constant operands the (first) ufunc takes after the op's inputs: Relu is
        ``ufunc="maximum", ufunc_args=(0,)``, i.e. ``maximum(x, 0)``.
    ``elementwise``
        Each output element depends only on the same element of each (broadcast) input:
        the elementwise fusion pass may put the op inside a fused kernel.
    ``linear``
        ``"linear"`` (linear in all its floating inputs together: AddV2, Reshape, Sum),
        ``"multilinear"`` (linear in each input separately: Mul, MatMul, Conv2D),
        ``"identity"`` (its output is its input's value: Identity, ReadVariableOp) or
        None. Forward-mode autodiff uses it: the JVP of a linear op is the op itself
        applied to the tangents.
    ``commutative``
        ``op(x, y) == op(y, x)``: common-subexpression elimination sorts the inputs.
    ``forwarding``
        The output is the input, unchanged (Identity, StopGradient, Snapshot):
        pruning may bypass the node; the memory plan knows it allocates nothing.
    ``persistent``
        The output is a buffer that outlives the run: a variable's buffer or handle
        (ReadVariableOp, VarHandleOp; a plan's constants and fed values are too). The
        memory plan does not count it; a plan copies it before handing it to a caller
        who fetched something else.
    ``shape_only``
        The output depends only on input 0's static ``"shape"`` (Shape, Size) or only
        its ``"rank"`` (Rank), never on its values: constant folding computes it as soon
        as that much is known before running ("shape materialization" in Grappler).
    ``random``
        Draws random numbers: each graph node gets its own random stream.
    ``stateful``
        Random ops, assignments, prints: never folded, merged or removed.
    ``resource_input``
        Input 0 is a variable (TF: a resource handle), passed to the kernel as the
        variable itself, whose buffer the kernel reads or replaces: ReadVariableOp,
        AssignVariableOp, ... Eagerly that input is the ``tf.Variable``.
    ``subgraphs``
        The op runs graphs held in its attrs (``If``, ``While``): replaying it op by op
        (higher-order gradients through ``tf.function``) replays those graphs too.
    ``quiet_fp``
        The kernel runs in NumPy's "ignore" floating-point error state: ``exp(1000.)``
        is ``inf`` without a warning, as in TF (see ``floating_point.py``).
    ``eager_error_name``
        How TF 2.21's eager error for this op ends: ``"... [Op:MatMul] name: "``. TF's
        generated op wrappers append `` name: `` and the name they were given, and most
        public functions pass one (an empty name scope eagerly, ``""``; or their own,
        ``"concat"``); ``None`` for the ops whose public function passes none
        (``tf.reshape``: ``"... [Op:Reshape]"``).
    """

    __slots__ = ("name", "make_kernel", "infer", "grad", "num_outputs", "stateful",
                 "saves_inputs", "saves_outputs", "_kernels", "cpu_kernel", "needs_runtime", "doc",
                 "dtypes", "np_dtypes", "ufunc", "elementwise", "linear", "commutative", "forwarding",
                 "random", "resource_input", "subgraphs", "quiet_fp", "overridden", "door_kernel", "ufunc_args",
                 "persistent", "shape_only", "signature", "type_attrs", "eager_error_name")

    def __init__(self, name, kernel, infer=None, grad=None, num_outputs=1, stateful=False,
                 saves_inputs=True, saves_outputs=True, needs_runtime=False, doc="",
                 dtypes=None, ufunc=None, elementwise=False, linear=None, commutative=False,
                 forwarding=False, random=False, resource_input=False, subgraphs=False, quiet_fp=False, ufunc_args=(),
                 persistent=False, shape_only=None, inputs=None, type_attrs=None, eager_error_name=""):
        self.name = name
        self.make_kernel = kernel
        self.infer = infer
        self.grad = grad
        self.num_outputs = num_outputs       # an int, or a callable(attrs) -> int for ops like Split
        self.stateful = stateful or random   # random ops, assignments: never folded or deduplicated
        self.saves_inputs = saves_inputs     # does ``grad`` read input *values*? True, False or indices
        self.saves_outputs = saves_outputs   # does ``grad`` read the output *values*?
        self._kernels = {}
        self.cpu_kernel = None               # the NumPy kernel, built on first use (the hot path reads it)
        self.needs_runtime = needs_runtime   # graph executors pass ``_runtime=`` (session state: resources)
        self.doc = doc
        self.dtypes = None if dtypes is None else frozenset(dtypes)
        self.np_dtypes = None if dtypes is None else frozenset(
            d._np for d in dtypes if getattr(d, "_np", None) is not None and d.name != "string")
        self.ufunc = ufunc
        self.ufunc_args = tuple(ufunc_args)
        self.elementwise = elementwise or ufunc is not None
        self.linear = linear
        self.commutative = commutative
        self.forwarding = forwarding
        self.random = random
        self.resource_input = resource_input
        self.subgraphs = subgraphs
        self.persistent = persistent
        self.shape_only = shape_only
        self.quiet_fp = quiet_fp
        self.overridden = False              # True while ``override`` has swapped its kernel
        self.door_kernel = None              # the NumPy kernel as eager dispatch calls it (see ``kernel``)
        self.signature = parse_inputs(inputs)   # TF's op definition: a tuple of op_def_library.Arg, or None
        self.type_attrs = {k: (None if v is None else frozenset(v)) for k, v in (type_attrs or {}).items()}
        self.eager_error_name = eager_error_name

    def kernel(self, backend):
        """The compiled kernel for one backend (built on first use, then cached).

        A ``quiet_fp`` row's kernel is wrapped to run quietly. Eager dispatch, which sets
        the quiet state itself around the call, reads the unwrapped NumPy kernel from
        ``door_kernel`` (one function call fewer on the hottest path of the engine).
        """
        k = self._kernels.get(backend)
        if k is None:
            raw = self.make_kernel(array_module(backend))
            k = self._kernels[backend] = quietly(raw) if self.quiet_fp else raw
            if backend == NUMPY:
                self.cpu_kernel = k
                self.door_kernel = raw if INLINE or not self.quiet_fp else k
        return k

    @property
    def differentiable(self):
        return self.grad is not None

    def output_count(self, attrs):
        n = self.num_outputs
        return n(attrs) if callable(n) else n

    def __repr__(self):
        return f"<OpDef {self.name}>"


def register_op(name, kernel, infer=None, grad=None, **options):
    """Add an op to the registry. Registering a name twice is a bug, so it raises."""
    if name in _REGISTRY:
        raise KeyError(f"Op type '{name}' is already registered")
    op = OpDef(name, kernel, infer, grad, **options)
    _REGISTRY[name] = op
    return op


_OP_AT_END = re.compile(r"\[Op:(\w+)\]$")


def _finish_eager_op_message(message):
    """``"... [Op:MatMul]"`` -> ``"... [Op:MatMul] name: "``, as TF's eager errors end (see ``errors.py``).

    Only eagerly (TF's graph-building errors have no ``[Op:...]``), and as the op's row says:
    ``eager_error_name`` is the name TF's wrapper passes, or ``None`` for none.
    """
    match = _OP_AT_END.search(message)
    if match is None or ctx.graph is not None:
        return message
    row = _REGISTRY.get(match.group(1))   # (not a row: a function call, ``[Op:__inference_f_12]``; TF adds nothing)
    name = None if row is None else row.eager_error_name
    return message if name is None else f"{message} name: {name}"


errors.set_op_message_rule(_finish_eager_op_message)


def get_op(name):
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"Op type not registered '{name}'") from None


def op_rows():
    """The registry's table itself, ``{name: OpDef}``, for the dispatch hot path to read (never write it)."""
    return _REGISTRY


def registered_ops():
    """A snapshot of the whole table: ``{name: OpDef}``."""
    return dict(_REGISTRY)


class RegisterGradient:
    """Decorator in TF's style: ``@RegisterGradient("Square") def _g(op, grad): ...``."""

    def __init__(self, op_type):
        self._op_type = op_type

    def __call__(self, fn):
        get_op(self._op_type).grad = fn
        return fn


def NotDifferentiable(op_type):  # noqa: N802  (TF's name)
    """Declare that an op has no gradient: the tape will not record it."""
    get_op(op_type).grad = None


def no_registered_gradient(op, *output_grads):
    """The ``grad`` of an op TF registers no gradient for, *without* declaring it ``NotDifferentiable``
    (``Unique``): tapes record it like any op, and only a backward pass that reaches it through a
    float path fails, with TF's ``LookupError``. (``grad=None`` instead means "not differentiable":
    nothing is recorded, and the gradient is ``None``.)"""
    raise LookupError(f"gradient registry has no entry for: {op.type}")


@contextlib.contextmanager
def override(op_type, kernel=None, grad=None):
    """Swap an op's kernel factory, its gradient function, or both, for the duration of a block.

    ``kernel`` is a kernel factory ``make(xp) -> callable``, as :func:`register_op` takes;
    ``grad`` a gradient function ``grad(op, *output_grads) -> input_grads``, as
    ``tf.RegisterGradient`` takes; ``None`` leaves that part as it is. Every path that runs the op follows: eager
    calls and operators, variables, graphs and ``Session.run``, ``tf.function``,
    constant folding and fused kernels (an overridden op is never replaced by a
    ufunc: fused kernels call its kernel), ``GradientTape`` and ``tf.gradients``.
    Compiled plans notice the change and rebuild themselves, inside the block and
    again after it. Blocks nest; on exit, also by an exception, the row is exactly
    as before::

        calls = []
        def counting_exp(xp):
            def k(x):
                calls.append(x.shape)
                return xp.exp(x)
            return k
        with override("Exp", kernel=counting_exp):
            tf.exp(tf.constant([1.0, 2.0]))     # calls == [(2,)]

    This is also how an assignment runs a student's gradient rule inside the real engine.
    """
    op = get_op(op_type)
    # (a copy of the kernel cache: kernels first built inside the block must not outlive it half-restored)
    saved = (op.make_kernel, op.grad, dict(op._kernels), op.cpu_kernel, op.door_kernel, op.ufunc, op.overridden)
    if kernel is not None:
        if not callable(kernel):
            raise TypeError(f"override({op_type!r}, kernel=...) takes a kernel factory make(xp) -> callable, "
                            f"not {type(kernel).__name__}")
        op.make_kernel, op._kernels, op.cpu_kernel, op.door_kernel = kernel, {}, None, None
        op.ufunc, op.overridden = None, True
    if grad is not None:
        if not callable(grad):
            raise TypeError(f"override({op_type!r}, grad=...) takes a function grad(op, *output_grads), "
                            f"not {type(grad).__name__}")
        op.grad = grad
    _GENERATION[0] += 1
    try:
        yield op
    finally:
        op.make_kernel, op.grad, op._kernels, op.cpu_kernel, op.door_kernel, op.ufunc, op.overridden = saved
        _GENERATION[0] += 1


def call_gradient(op, grad_fn, output_grads):
    """Run a gradient function and return exactly one entry (gradient or None) per input of ``op``.

    Shared by the tape (eager) and by symbolic gradients (graph mode).
    """
    grads = grad_fn(op, *output_grads)
    n = len(op.inputs)
    if n == 1 and not isinstance(grads, (list, tuple)):
        return [grads]
    if grads is None:
        return [None] * n
    grads = list(grads)
    if len(grads) != n:
        raise ValueError(f"The gradient of {op.type} returned {len(grads)} values for {n} inputs")
    return grads


class InferenceContext:
    """What a shape function sees: input shapes, dtypes, attrs and known constant values.

    ``inputs`` are objects with ``.shape`` (a :class:`TensorShape`) and ``.dtype``.
    ``constant_value(i)`` returns the NumPy value of input ``i`` when it is known at
    build time (eager inputs, graph constants), else ``None``; shape functions for
    ops like ``Reshape`` use it to read their ``shape`` argument.
    """

    __slots__ = ("op_name", "inputs", "attrs", "_const")

    def __init__(self, op_name, inputs, attrs, constant_fn):
        self.op_name = op_name
        self.inputs = inputs
        self.attrs = attrs
        self._const = constant_fn

    def shape(self, i):
        return as_shape(self.inputs[i].shape)

    def dtype(self, i):
        return self.inputs[i].dtype

    def constant_value(self, i):
        return self._const(self.inputs[i])

    def error(self, message):
        """Raise the build-time error for a bad call of this op."""
        raise ValueError(f"{message} for '{{{{node {self.op_name}}}}} = {self.op_name}[]' "
                         f"with input shapes: {', '.join(_fmt(x.shape) for x in self.inputs)}.")


def _fmt(shape):
    shape = as_shape(shape)
    if shape.rank is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def format_shapes(inputs):
    """``[2,3], [4,5]``: TF's way of listing input shapes in error messages."""
    return ", ".join(_fmt(x.shape) for x in inputs)


def unknown(dtype, rank=None):
    return (dtype, TensorShape(None if rank is None else [None] * rank))
