"""Fused ops: one kernel doing the work of several nodes (made by the graph optimizer, never by users).

Graph optimizers replace a pattern of nodes by one *fused* node when one
kernel can do the same work with fewer passes over memory and less overhead
per op. Two kinds are registered here, in the one registry:

``_FusedMatMul`` (TensorFlow's name; Grappler's *remapper* creates it)
    ``MatMul -> BiasAdd -> activation`` in one kernel: the product is computed
    into a fresh buffer, then the bias and the activation are applied *in that
    buffer* (``xp.add(y, bias, out=y)``), so the two intermediate tensors of the
    unfused graph are never allocated. Attrs as in TF: ``transpose_a``,
    ``transpose_b``, ``fused_ops`` (``("BiasAdd",)`` or ``("BiasAdd", "Relu")``
    ...), ``num_args`` (1: the bias), ``leakyrelu_alpha``. The kernel is composed
    of the registry's rows: the product is the ``MatMul`` row's kernel, an
    activation is its row's ufunc (Relu: ``maximum(y, 0, out=y)``) or its row's
    kernel. Working in place is exact only for the registered kernels, so the
    remapper never fuses a node whose op is overridden (``registry.override``).

``_FusedElementwise`` (engine-specific; XLA does this kind of fusion in TF)
    A chain (or tree) of elementwise ops evaluated by *one generated Python
    function*: an :class:`ElementwiseProgram`. Each step does what the original
    op's registry row says: when the row names the ufunc its kernel is
    (``row.ufunc``), the step calls that ufunc, writing into a buffer the
    kernel itself allocated earlier (``multiply(t0, i1, out=t0)``) when that
    buffer is dead afterwards and the result is guaranteed to have the
    buffer's shape and dtype; otherwise it calls the row's kernel
    (``row.kernel(backend)``). An overridden op has no ufunc, so its
    replacement kernel is what runs. Print ``program.source`` to see the code.

Neither op is differentiable: the optimizer runs after gradients are built.
Both compute exactly what the unfused nodes compute (same ufuncs and kernels, same order).
"""
import itertools

import numpy as np

from ..backend import CUPY, NUMPY
from ..errors import InvalidArgumentError, OpError
from ..floating_point import quiet
from ..registry import InferenceContext, get_op, register_op
from ..tensor_shape import TensorShape

__all__ = ["ElementwiseProgram", "Step", "ACTIVATIONS", "ufunc_of"]


def _backend(xp):
    """The backend name of an array module: kernel factories get ``xp``, rows hand out kernels per backend."""
    return NUMPY if xp is np else CUPY


def _into(ufunc_name, buffer):
    """The argument that makes a ufunc write into ``buffer``.

    It is the ufunc's last positional argument, ``add(x, y, t0)``: the same call as ``out=t0``, which
    NumPy parses more slowly, a good part of a small array's time. NumPy 2 deprecates that form for
    ``maximum`` and ``minimum`` only (they may become n-ary), so those two take the keyword.
    """
    return f", out={buffer}" if ufunc_name in ("maximum", "minimum") else f", {buffer}"


# ======================================================================================
# _FusedMatMul
# ======================================================================================
# What the kernel can apply after the bias (its ``fused_ops`` attr), as TF's remapper fuses them on a CPU.
# This is the fused op's contract, not a fact about the activations: the remapper reads it.
ACTIVATIONS = ("Relu", "Relu6", "Elu", "LeakyRelu")


def _fused_matmul_kernel(xp):
    backend = _backend(xp)
    matmul, bias_add = get_op("MatMul"), get_op("BiasAdd")

    def k(a, b, bias, transpose_a=False, transpose_b=False, fused_ops=("BiasAdd",), num_args=1,
          leakyrelu_alpha=0.2, **_):
        # The rows' kernels are read on every call (a dict lookup): a kernel cached here could outlive an override.
        y = matmul.kernel(backend)(a, b, transpose_a=transpose_a, transpose_b=transpose_b)   # a fresh buffer
        if bias.ndim != 1 or bias.shape[0] != y.shape[-1]:
            return bias_add.kernel(backend)(y, bias)       # raises BiasAdd's error, with its message
        xp.add(y, bias, out=y)                             # what BiasAdd (or the bias AddV2) computes, in place
        for name in fused_ops[1:]:
            ufunc = ufunc_of(name)
            if ufunc is not None:                          # Relu: maximum(y, 0, out=y)
                names, constants = ufunc
                getattr(xp, names[0])(y, *constants, out=y)
                for then in names[1:]:
                    getattr(xp, then)(y, out=y)
            elif name == "LeakyRelu":
                y = get_op(name).kernel(backend)(y, alpha=leakyrelu_alpha)
            else:
                y = get_op(name).kernel(backend)(y)
        return y
    return k


def _fused_matmul_infer(ic):
    a, b = ic.inputs[0], ic.inputs[1]
    attrs = {"transpose_a": ic.attrs.get("transpose_a", False), "transpose_b": ic.attrs.get("transpose_b", False)}
    return get_op("MatMul").infer(InferenceContext("MatMul", [a, b], attrs, lambda t: None))


register_op("_FusedMatMul", kernel=_fused_matmul_kernel, infer=_fused_matmul_infer, grad=None,
            doc="MatMul + BiasAdd (+ activation) in one kernel, made by the remapper.")


# ======================================================================================
# _FusedElementwise
# ======================================================================================
def ufunc_of(op_type):
    """``(ufunc names, constant operands)`` when the op's row says its kernel *is* those ufuncs, else ``None``.

    ``AddV2`` gives ``(("add",), ())``, ``Rsqrt`` ``(("sqrt", "reciprocal"), ())`` (applied in
    turn), ``Relu`` ``(("maximum",), (0,))``. An op whose kernel is overridden has no ufunc
    (``registry.override`` clears it): a fused kernel then calls the row's kernel.
    """
    op = get_op(op_type)
    if op.ufunc is None:
        return None
    return ((op.ufunc,) if isinstance(op.ufunc, str) else tuple(op.ufunc)), op.ufunc_args


class Step:
    """One original node inside a fused kernel.

    ``args``: ``("in", i)`` for input ``i`` of the fused node, ``("t", j)`` for the
    result of step ``j``. ``dtype``/``shape``: the static output type of the node.
    """

    __slots__ = ("op_type", "name", "args", "attrs", "dtype", "shape")

    def __init__(self, op_type, name, args, attrs, dtype, shape):
        self.op_type = op_type
        self.name = name
        self.args = tuple(args)
        self.attrs = dict(attrs)
        self.dtype = dtype
        self.shape = shape

    def __repr__(self):
        return f"<Step {self.name!r} {self.op_type}{self.args}>"


class ElementwiseProgram:
    """The generated kernel of one ``_FusedElementwise`` node.

    ``input_shapes``: static shapes of the fused node's inputs; ``steps``: the
    original nodes in execution order (the last one is the result). With
    ``reuse`` the generated code writes into dead buffers it owns (see
    :meth:`_generate`). ``source`` is the NumPy version of the code;
    ``buffers`` how many arrays one call allocates.
    """

    _count = itertools.count()

    def __init__(self, input_shapes, steps, reuse=True):
        self.input_shapes = list(input_shapes)
        self.steps = list(steps)
        self.reuse = reuse
        self._id = next(self._count)
        self._compiled = {}
        self._ufuncs = [ufunc_of(step.op_type) for step in self.steps]   # None: call the row's kernel
        self.source, self.buffers, self._lines = self._generate()

    @property
    def output_spec(self):
        last = self.steps[-1]
        return last.dtype, last.shape

    def function(self, xp):
        """The compiled kernel for array module ``xp`` (compiled once per module)."""
        fn = self._compiled.get(xp)
        if fn is None:
            fn = self._compiled[xp] = self._compile(xp)
        return fn

    # --- code generation ------------------------------------------------------------------
    def _generate(self):
        """Python source of the kernel, the number of allocated buffers, and {line: step}.

        A step whose row names a ufunc runs it; any other step calls its row's
        kernel, whose result is a new value (never written in place).
        A ufunc step may write into the buffer of one of its arguments ``t_j`` when:
        ``t_j`` was made by a ufunc inside this kernel (so nobody else holds it;
        kernel calls may return an input or a view of one), it is read by no other
        step (the fusion pass guarantees each intermediate has one reader), it has
        the step's dtype, its static rank is at least 1 (ufuncs on rank-0 values
        return NumPy scalars, which have no buffer), and the other arguments
        cannot make the result bigger than ``t_j``: either statically (see
        :func:`_fits`), or because they have the *same runtime shape*. Values
        get a shape class: an input is its own class; a step whose result
        provably has the shape of one of its arguments joins that argument's
        class. So ``exp(x) + sin(x)`` may write into ``exp(x)`` 's buffer even
        when ``x`` is ``[None, 3]``: both sides have ``x`` 's shape, whatever it is.
        """
        names = [f"i{i}" for i in range(len(self.input_shapes))]
        shapes = list(self.input_shapes)
        owned = {}          # step index -> True if its value is a buffer this kernel allocated
        klass = {("in", i): ("in", i) for i in range(len(names))}   # arg -> its shape class
        lines = [f"def fused_{self._id}({', '.join(names)}):"]
        line_of_step = {}
        buffers = 0
        for j, step in enumerate(self.steps):
            args = [names[i] if kind == "in" else f"t{i}" for kind, i in step.args]
            arg_shapes = [shapes[i] if kind == "in" else self.steps[i].shape for kind, i in step.args]
            classes = [klass[a] for a in step.args]

            def covers(a):   # the result of this step has exactly argument a's runtime shape
                return all(b == a or classes[b] == classes[a] or _fits(arg_shapes[a], arg_shapes[b])
                           for b in range(len(args)))
            klass[("t", j)] = next((classes[a] for a in range(len(args)) if covers(a)), ("t", j))
            out = None
            ufunc = self._ufuncs[j]
            if self.reuse and ufunc is not None:
                for a, ((kind, i), shape) in enumerate(zip(step.args, arg_shapes)):
                    if kind == "t" and owned.get(i) and self.steps[i].dtype == step.dtype and covers(a) and \
                            _fits(shape, TensorShape([])):
                        out = f"t{i}"
                        break
            comment = f"  # {step.name!r} ({step.op_type})"
            if ufunc is None:
                code = f"t{j} = k{j}({', '.join(args)}{', **a' + str(j) if step.attrs else ''})"
                owned[j] = False
                comment += ": its own kernel"
            else:
                code = self._ufunc_code(j, ufunc, args, out, _fits(step.shape, TensorShape([])))
                owned[j] = True
                comment += ": in place, " + out if out else ": new buffer"
                buffers += out is None
            lines.append("    " + code + comment)
            line_of_step[len(lines)] = step
        lines.append(f"    return t{len(self.steps) - 1}")
        return "\n".join(lines) + "\n", buffers, line_of_step

    @staticmethod
    def _ufunc_code(j, ufunc, args, out, has_buffer):
        """``t{j} = ...``: the ufuncs in turn; the first takes the arguments, then the row's constant operands."""
        names, constants = ufunc
        first = f"{names[0]}({', '.join(list(args) + [repr(c) for c in constants])}"
        if out:                      # every ufunc writes the dead buffer ``out``
            code = f"{first}{_into(names[0], out)})"
            for name in names[1:]:
                code = f"{name}({code}{_into(name, out)})"
            return f"t{j} = {code}"
        if len(names) > 1 and has_buffer:   # the first ufunc makes a buffer, the others work in it
            return f"t{j} = {first}); " + "; ".join(f"{name}(t{j}{_into(name, f't{j}')})" for name in names[1:])
        code = f"{first})"
        for name in names[1:]:
            code = f"{name}({code})"
        return f"t{j} = {code}"

    def _compile(self, xp):
        backend = _backend(xp)
        env = {}
        for j, step in enumerate(self.steps):
            if self._ufuncs[j] is not None:
                env.update((name, getattr(xp, name)) for name in self._ufuncs[j][0])
            else:   # the row's kernel, as the unfused node runs it (quiet floating point, an override included)
                env[f"k{j}"] = get_op(step.op_type).kernel(backend)
                env[f"a{j}"] = dict(step.attrs)
        filename = f"<fused elementwise kernel {self._id}>"
        exec(compile(self.source, filename, "exec"), env)  # noqa: S102  (code we generated ourselves)
        fn = env[f"fused_{self._id}"]
        lines = self._lines

        def kernel(*inputs):
            try:
                with quiet():
                    return fn(*inputs)
            except Exception as error:  # name the original node that failed
                step = _failing_step(error, fn.__code__, lines)
                where = f" (in {step.name!r} ({step.op_type}), fused into this kernel)" if step else ""
                if isinstance(error, OpError):
                    error.message += where
                    error.args = (error.message,)
                    raise
                raise InvalidArgumentError(None, None, f"{error}{where}") from None
        return kernel

    def __repr__(self):
        return f"<ElementwiseProgram: {len(self.steps)} steps, {self.buffers} buffers>"


def _fits(buffer, other):
    """Statically certain: broadcasting ``other`` against a tensor of shape ``buffer`` gives ``buffer`` 's shape.

    Needs both ranks known, ``buffer`` of rank >= 1 and ``other`` of no larger rank;
    then, aligning from the right, each dimension of ``other`` is 1, or the
    buffer's is known and not 1 (the other one can then only be 1 or equal:
    anything else is a broadcasting error, raised with or without fusion).
    """
    if buffer.rank is None or buffer.rank == 0 or other.rank is None or other.rank > buffer.rank:
        return False
    for o, b in zip(reversed(other.as_list()), reversed(buffer.as_list())):
        if o == 1 or (b is not None and b != 1):
            continue
        return False
    return True


def _failing_step(error, code, lines):
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is code:
            return lines.get(tb.tb_lineno)
        tb = tb.tb_next
    return None


def _fused_elementwise_kernel(xp):
    def k(*inputs, program, **_):
        return program.function(xp)(*inputs)
    return k


def _fused_elementwise_infer(ic):
    dtype, shape = ic.attrs["program"].output_spec
    return [(dtype, TensorShape(shape))]


register_op("_FusedElementwise", kernel=_fused_elementwise_kernel, infer=_fused_elementwise_infer, grad=None,
            doc="A chain of elementwise ops in one generated kernel that reuses its buffers.")
