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
    ...), ``num_args`` (1: the bias), ``leakyrelu_alpha``.

``_FusedElementwise`` (engine-specific; XLA does this kind of fusion in TF)
    A chain (or tree) of elementwise ops evaluated by *one generated Python
    function*: an :class:`ElementwiseProgram`. Each step calls the NumPy ufunc
    of the original op, writing into a buffer the kernel itself allocated
    earlier (``multiply(t0, i1, out=t0)``) when that buffer is dead afterwards
    and the result is guaranteed to have the buffer's shape and dtype. Print
    ``program.source`` to see the code.

Neither op is differentiable: the optimizer runs after gradients are built.
Both compute exactly what the unfused nodes compute (same ufuncs, same order).
"""
import itertools

from ..framework.errors import InvalidArgumentError, OpError
from ..framework.registry import get_op, register_op
from ..framework.tensor_shape import TensorShape

__all__ = ["ElementwiseProgram", "Step", "FUSIBLE_ELEMENTWISE", "ACTIVATIONS"]


# ======================================================================================
# _FusedMatMul
# ======================================================================================
ACTIVATIONS = ("Relu", "Relu6", "Elu", "LeakyRelu")


def _fused_matmul_kernel(xp):
    bias_add = get_op("BiasAdd").make_kernel(xp)
    activation = {name: get_op(name).make_kernel(xp) for name in ACTIVATIONS}

    def k(a, b, bias, transpose_a=False, transpose_b=False, fused_ops=("BiasAdd",), num_args=1,
          leakyrelu_alpha=0.2, **_):
        y = xp.matmul(a.T if transpose_a else a, b.T if transpose_b else b)   # a fresh buffer
        if bias.ndim != 1 or bias.shape[0] != y.shape[-1]:
            return bias_add(y, bias)       # raises BiasAdd's error, with its message
        xp.add(y, bias, out=y)
        for op in fused_ops[1:]:
            if op == "Relu":
                xp.maximum(y, 0, out=y)
            elif op == "LeakyRelu":
                y = activation[op](y, alpha=leakyrelu_alpha)
            else:
                y = activation[op](y)
        return y
    return k


def _fused_matmul_infer(ic):
    from ..framework.registry import InferenceContext
    a, b = ic.inputs[0], ic.inputs[1]
    attrs = {"transpose_a": ic.attrs.get("transpose_a", False), "transpose_b": ic.attrs.get("transpose_b", False)}
    return get_op("MatMul").infer(InferenceContext("MatMul", [a, b], attrs, lambda t: None))


register_op("_FusedMatMul", kernel=_fused_matmul_kernel, infer=_fused_matmul_infer, grad=None,
            doc="MatMul + BiasAdd (+ activation) in one kernel, made by the remapper.")


# ======================================================================================
# _FusedElementwise
# ======================================================================================
# Ops whose kernel is exactly one NumPy ufunc (same dtype rules, same results): the fused
# kernel calls the ufunc itself, with ``out=`` when a buffer can be reused.
_UFUNC = {
    "AddV2": "add", "Sub": "subtract", "Mul": "multiply", "RealDiv": "true_divide", "Maximum": "maximum",
    "Minimum": "minimum", "Neg": "negative", "Abs": "absolute", "Sign": "sign", "Exp": "exp", "Log": "log",
    "Log1p": "log1p", "Sqrt": "sqrt", "Square": "square", "Sin": "sin", "Cos": "cos", "Tanh": "tanh",
    "Reciprocal": "reciprocal", "Floor": "floor", "Ceil": "ceil", "LogicalNot": "logical_not",
    "LogicalAnd": "logical_and", "LogicalOr": "logical_or", "Equal": "equal", "NotEqual": "not_equal",
    "Less": "less", "LessEqual": "less_equal", "Greater": "greater", "GreaterEqual": "greater_equal",
    "BitwiseAnd": "bitwise_and", "BitwiseOr": "bitwise_or", "BitwiseXor": "bitwise_xor", "Invert": "invert",
}
# Ops computed by two ufuncs in a row (both may write the same buffer): exactly their kernels' formulas.
_TWO_UFUNCS = {"Rsqrt": ("sqrt", "reciprocal"), "SquaredDifference": ("subtract", "square")}
# Ops whose kernel is called as it is (it has its own formula or checks); its result is a new value.
_KERNEL_CALL = frozenset(["Sigmoid", "Relu6", "Elu", "LeakyRelu", "Softplus", "Round", "Pow", "Cast", "IsNan",
                          "IsInf", "IsFinite", "DivNoNan", "FloorDiv", "FloorMod", "Erf", "Erfc"])
FUSIBLE_ELEMENTWISE = frozenset(_UFUNC) | frozenset(_TWO_UFUNCS) | _KERNEL_CALL | frozenset(["Relu"])


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

        A step may write into the buffer of one of its arguments ``t_j`` when:
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
            if self.reuse and step.op_type not in _KERNEL_CALL:
                for a, ((kind, i), shape) in enumerate(zip(step.args, arg_shapes)):
                    if kind == "t" and owned.get(i) and self.steps[i].dtype == step.dtype and covers(a) and \
                            _fits(shape, TensorShape([])):
                        out = f"t{i}"
                        break
            comment = f"  # {step.name!r} ({step.op_type})"
            if step.op_type in _KERNEL_CALL:
                code = f"t{j} = k{j}({', '.join(args)}{', **a' + str(j) if step.attrs else ''})"
                owned[j] = False
                comment += ": its own kernel"
            else:
                code = self._ufunc_code(j, step, args, out, _fits(step.shape, TensorShape([])))
                owned[j] = True
                comment += ": in place, " + out if out else ": new buffer"
                buffers += out is None
            lines.append("    " + code + comment)
            line_of_step[len(lines)] = step
        lines.append(f"    return t{len(self.steps) - 1}")
        return "\n".join(lines) + "\n", buffers, line_of_step

    @staticmethod
    def _ufunc_code(j, step, args, out, has_buffer):
        tail = f", out={out})" if out else ")"
        if step.op_type == "Relu":
            return f"t{j} = maximum({args[0]}, 0{tail}"
        if step.op_type in _TWO_UFUNCS:
            first, second = _TWO_UFUNCS[step.op_type]
            if out:
                return f"t{j} = {second}({first}({', '.join(args)}, out={out}), out={out})"
            if has_buffer:   # the first ufunc makes a buffer, the second works in it
                return f"t{j} = {first}({', '.join(args)}); {second}(t{j}, out=t{j})"
            return f"t{j} = {second}({first}({', '.join(args)}))"
        return f"t{j} = {_UFUNC[step.op_type]}({', '.join(args)}{tail}"

    def _compile(self, xp):
        env = {name: getattr(xp, name) for name in set(_UFUNC.values()) | {"maximum", "sqrt", "reciprocal",
                                                                             "subtract", "square"}}
        for j, step in enumerate(self.steps):
            if step.op_type in _KERNEL_CALL:
                env[f"k{j}"] = get_op(step.op_type).make_kernel(xp)
                env[f"a{j}"] = dict(step.attrs)
        filename = f"<fused elementwise kernel {self._id}>"
        exec(compile(self.source, filename, "exec"), env)  # noqa: S102  (code we generated ourselves)
        fn = env[f"fused_{self._id}"]
        from .math_ops import quiet
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
