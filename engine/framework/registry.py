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

The same table drives eager dispatch (``engine.eager.execute``), the tape,
graph construction and ``Session.run``. This is the autodidax pattern:
``grad_rules[add_p] = ...`` with all the rules in one place.
"""
from .tensor_shape import TensorShape, as_shape

__all__ = ["OpDef", "register_op", "get_op", "RegisterGradient", "NotDifferentiable",
           "InferenceContext", "registered_ops", "call_gradient"]

_REGISTRY = {}


class OpDef:
    """One registered op. See the module docstring for the meaning of each field."""

    __slots__ = ("name", "make_kernel", "infer", "grad", "num_outputs", "stateful",
                 "saves_inputs", "saves_outputs", "_kernels", "cpu_kernel", "needs_runtime", "doc")

    def __init__(self, name, kernel, infer=None, grad=None, num_outputs=1, stateful=False,
                 saves_inputs=True, saves_outputs=True, needs_runtime=False, doc=""):
        self.name = name
        self.make_kernel = kernel
        self.infer = infer
        self.grad = grad
        self.num_outputs = num_outputs       # an int, or a callable(attrs) -> int for ops like Split
        self.stateful = stateful             # random ops, assignments: never folded or deduplicated
        self.saves_inputs = saves_inputs     # does ``grad`` read input *values*? True, False or indices
        self.saves_outputs = saves_outputs   # does ``grad`` read the output *values*?
        self._kernels = {}
        self.cpu_kernel = None               # the NumPy kernel, built on first use (the hot path reads it)
        self.needs_runtime = needs_runtime   # graph executors pass ``_runtime=`` (session state: resources)
        self.doc = doc

    def kernel(self, backend):
        """The compiled kernel for one backend (built on first use, then cached)."""
        k = self._kernels.get(backend)
        if k is None:
            from .backend import NUMPY, array_module
            k = self._kernels[backend] = self.make_kernel(array_module(backend))
            if backend == NUMPY:
                self.cpu_kernel = k
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


def get_op(name):
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"Op type not registered '{name}'") from None


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
