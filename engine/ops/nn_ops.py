"""Neural-network ops (``tf.nn``): activations, softmax, losses, bias, dropout, convolution, pooling.

Read this module in sections, top to bottom:

1. **Activations** (``Relu``, ``Relu6``, ``LeakyRelu``, ``Elu``, ``Selu``, ``Softplus``,
   ``Softsign``, ``gelu``, ``silu``). Where TF has a dedicated gradient op (``ReluGrad``,
   ``Relu6Grad``, ``LeakyReluGrad``, ``EluGrad``, ``SeluGrad``, ``SoftsignGrad``) the engine
   registers it too, with TF's rule at the kinks (``SeluGrad`` gives ``scale`` at 0): the
   backward pass is then one fused kernel instead of several small ops, and
   because the gradient op has a gradient of its own, second derivatives stay
   correct. Where a gradient is a short formula (``Softplus``: ``g * sigmoid(x)``)
   it is composed of differentiable engine ops instead.
2. **Softmax and losses**. ``SoftmaxCrossEntropyWithLogits`` returns two
   outputs, the loss and ``backprop = softmax(logits) - labels``; the gradient
   reuses ``backprop``, so forward and backward together cost one fused kernel
   and one multiply.
3. **BiasAdd, dropout, moments, compute_average_loss**.
4. **Convolution and pooling** (NHWC). The kernels never loop over pixels: a
   strided *view* of the padded input (``as_strided``) exposes every window as
   extra axes, and ``Conv2D`` becomes one matrix multiply of the flattened
   windows (im2col) with the flattened filter. The backward ops
   (``Conv2DBackpropInput``, ``Conv2DBackpropFilter``, ``MaxPoolGrad`` ...) are
   registered ops whose own gradients are again convolutions/pools, so
   second-order gradients work.

Deliberate differences from TensorFlow are noted in each docstring.
"""
import collections
import importlib
import math

import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError, UnimplementedError
from ..framework.registry import get_op, register_op
from ..framework.tensor import EagerTensor, Tensor, converted_by_wrapper
from ..framework.tensor_shape import TensorShape
from . import _shapes, array_ops, math_ops, random_ops, reduction_ops
from ._dispatch import FLOAT, NUMERIC, binary_inputs, check_dtype, execute, int_tensor, to_tensor

__all__ = [
    # activations
    "relu", "relu6", "leaky_relu", "elu", "selu", "softplus", "softsign", "gelu", "silu", "swish", "sigmoid",
    "tanh",
    # softmax and losses
    "softmax", "log_softmax", "softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits", "l2_loss", "compute_average_loss",
    # layers' building blocks
    "bias_add", "dropout", "moments", "conv2d", "conv2d_transpose", "convolution", "max_pool2d", "max_pool", "avg_pool2d",
    "avg_pool",
]

_REAL = NUMERIC          # TF's "realnumbertypes" (no bool)
_CONV_TYPES = FLOAT | frozenset([dtypes.int32])
_INDEX = frozenset([dtypes.int32, dtypes.int64])

sigmoid = math_ops.sigmoid
tanh = math_ops.tanh


def _fmt(shape):
    return _shapes.fmt(TensorShape(list(shape)))


def _unary_op(name, kernel, grad, allowed, saves_inputs, saves_outputs, doc, **traits):
    """An elementwise activation: its row (kernel, shape, gradient, traits) and its public function."""
    op = register_op(name, kernel=kernel, infer=_shapes.same_as_input, grad=grad, saves_inputs=saves_inputs,
                     saves_outputs=saves_outputs, doc=doc, elementwise=True, inputs="features: T",
                     type_attrs={"T": allowed}, **traits)

    def run(x, name=None, **attrs):
        x = to_tensor(x)
        check_dtype(op.name, x, allowed, "features")
        return execute(op, (x,), attrs, name=name)
    return op, run


def _grad_op(name, kernel, grad, doc, saves_inputs=(1,), quiet_fp=False):
    """A two-input ``(gradients, features_or_outputs)`` backward op, shaped like its first input.

    Its own gradient needs only the second input's value (it is linear in the first), unless stated.
    """
    return register_op(name, kernel=kernel, infer=_shapes.same_as_input, grad=grad, saves_inputs=saves_inputs,
                       saves_outputs=False, doc=doc, quiet_fp=quiet_fp)


# ======================================================================================
# 1. Activations
# ======================================================================================
# --- Relu ---------------------------------------------------------------------------
def _relu_grad_grad(op, grad):
    # ReluGrad(g, y) = g * (y > 0) is linear in g and piecewise constant in y.
    return relu_grad(grad, op.inputs[1]), array_ops.zeros_like(op.inputs[1])


_RELU_GRAD = _grad_op("ReluGrad", lambda xp: (lambda gradients, features: gradients * (features > 0)),
                      _relu_grad_grad, "``gradients * (features > 0)``: the backward pass of Relu.")


def relu_grad(gradients, features):
    """The ``ReluGrad`` op (TF's ``gen_nn_ops.relu_grad``)."""
    return execute(_RELU_GRAD, (gradients, features))


# TF's Relu gradient reads the *output* (y > 0 exactly where x > 0), so the tape keeps y, not x.
# Its kernel is one ufunc with a constant operand, ``maximum(x, 0)``: a fused kernel can run it in place.
_RELU, _relu = _unary_op("Relu", lambda xp: (lambda x: xp.maximum(x, 0)),
                         lambda op, g: relu_grad(g, op.outputs[0]), _REAL, False, True, "max(x, 0)",
                         ufunc="maximum", ufunc_args=(0,))


def relu(features, name=None):
    """``max(features, 0)``. Integer tensors are allowed, as in TF. Gradient: ``ReluGrad`` (0 at 0)."""
    return _relu(features, name=name)


# --- Relu6 --------------------------------------------------------------------------
def _relu6_grad_grad(op, grad):
    return relu6_grad(grad, op.inputs[1]), array_ops.zeros_like(op.inputs[1])


_RELU6_GRAD = _grad_op("Relu6Grad",
                       lambda xp: (lambda gradients, features: gradients * ((features > 0) & (features < 6))),
                       _relu6_grad_grad, "``gradients * (0 < features < 6)``: the backward pass of Relu6.")


def relu6_grad(gradients, features):
    return execute(_RELU6_GRAD, (gradients, features))


_RELU6, _relu6 = _unary_op("Relu6", lambda xp: (lambda x: xp.minimum(xp.maximum(x, 0), 6)),
                           lambda op, g: relu6_grad(g, op.inputs[0]), _REAL, True, False, "min(max(x, 0), 6)")


def relu6(features, name=None):
    """``min(max(features, 0), 6)``; the gradient is 0 at both kinks, as in TF."""
    return _relu6(features, name=name)


# --- LeakyRelu ----------------------------------------------------------------------
def _leaky_relu_grad_kernel(xp):
    def k(gradients, features, alpha=0.2):
        return xp.where(features > 0, gradients, gradients * features.dtype.type(alpha))[()]
    return k


def _leaky_relu_grad_grad(op, grad):
    return (execute(_LEAKY_RELU_GRAD, (grad, op.inputs[1]), {"alpha": op.attrs["alpha"]}),
            array_ops.zeros_like(op.inputs[1]))


_LEAKY_RELU_GRAD = _grad_op("LeakyReluGrad", _leaky_relu_grad_kernel, _leaky_relu_grad_grad,
                            "``gradients`` where features > 0, else ``alpha * gradients``.")


def _leaky_relu_kernel(xp):
    def k(x, alpha=0.2):
        return xp.where(x > 0, x, x * x.dtype.type(alpha))[()]
    return k


_LEAKY_RELU, _leaky_relu = _unary_op(
    "LeakyRelu", _leaky_relu_kernel,
    lambda op, g: execute(_LEAKY_RELU_GRAD, (g, op.inputs[0]), {"alpha": op.attrs["alpha"]}),
    FLOAT, True, False, "x if x > 0 else alpha * x")


def leaky_relu(features, alpha=0.2, name=None):
    """``features`` where positive, else ``alpha * features``. Integer inputs are cast to float32 (as TF does)."""
    x = to_tensor(features)
    if x.dtype.is_integer:
        x = math_ops.cast(x, dtypes.float32)
    return _leaky_relu(x, name=name, alpha=float(alpha))


# --- Elu ----------------------------------------------------------------------------
def _elu_grad_kernel(xp):
    def k(gradients, outputs):
        return xp.where(outputs < 0, gradients * (outputs + 1), gradients)[()]
    return k


def _elu_grad_grad(op, grad):
    g, y = op.inputs
    # d/dy [g * (y + 1)] = g where y < 0, else 0.
    return elu_grad(grad, y), array_ops.where(math_ops.less(y, 0), math_ops.multiply(grad, g),
                                              array_ops.zeros_like(y))


_ELU_GRAD = _grad_op("EluGrad", _elu_grad_kernel, _elu_grad_grad,
                     "``gradients * (outputs + 1)`` where outputs < 0, else ``gradients``.", saves_inputs=True)


def elu_grad(gradients, outputs):
    return execute(_ELU_GRAD, (gradients, outputs))


_ELU, _elu = _unary_op("Elu", lambda xp: (lambda x: xp.where(x > 0, x, xp.expm1(x))[()]),
                       lambda op, g: elu_grad(g, op.outputs[0]), FLOAT, False, True, "x if x > 0 else exp(x) - 1",
                       quiet_fp=True)


def elu(features, name=None):
    """Exponential linear unit: ``x`` if ``x > 0`` else ``exp(x) - 1``. Gradient via ``EluGrad``."""
    return _elu(features, name=name)


# --- Selu ---------------------------------------------------------------------------
_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE_ALPHA = 1.7580993408473768599402175208123


def _selu_grad_kernel(xp):
    def k(gradients, outputs):
        t = outputs.dtype.type
        return xp.where(outputs < 0, gradients * (outputs + t(_SELU_SCALE_ALPHA)), gradients * t(_SELU_SCALE))[()]
    return k


def _selu_grad_grad(op, grad):
    # TF's rule: SeluGrad(g, y) = g * (y + scale * alpha) where y < 0, else g * scale.
    g, y = op.inputs
    return selu_grad(grad, y), array_ops.where(math_ops.less(y, 0), math_ops.multiply(grad, g),
                                               array_ops.zeros_like(y))


_SELU_GRAD = _grad_op("SeluGrad", _selu_grad_kernel, _selu_grad_grad,
                      "``gradients * (outputs + scale * alpha)`` where outputs < 0, else ``gradients * scale``.",
                      saves_inputs=True)


def selu_grad(gradients, outputs):
    """The ``SeluGrad`` op (TF's ``gen_nn_ops.selu_grad``)."""
    return execute(_SELU_GRAD, (gradients, outputs))


def _selu_kernel(xp):
    def k(x):
        t = x.dtype.type
        return xp.where(x > 0, x * t(_SELU_SCALE), xp.expm1(x) * t(_SELU_SCALE_ALPHA))[()]
    return k


# As TF's, the gradient reads the output: ``scale`` where ``y >= 0`` (so at x == 0 too), else ``y + scale * alpha``.
_SELU, _selu = _unary_op("Selu", _selu_kernel, lambda op, g: selu_grad(g, op.outputs[0]), FLOAT, False, True,
                         "scale * (x if x > 0 else alpha * (exp(x) - 1))", quiet_fp=True)


def selu(features, name=None):
    """Scaled ELU (op ``Selu``): ``scale * x`` if ``x > 0`` else ``scale * alpha * (exp(x) - 1)``.

    Gradient via ``SeluGrad``, TF's rule: ``scale`` at ``x == 0`` (the right-hand slope).
    """
    return _selu(features, name=name)


# --- Softplus -----------------------------------------------------------------------
def _softplus_kernel(xp):
    def k(x):
        # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow for large |x|.
        return (xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x))))[()]
    return k


_SOFTPLUS, _softplus = _unary_op("Softplus", _softplus_kernel,
                                 lambda op, g: math_ops.multiply(g, math_ops.sigmoid(op.inputs[0])),
                                 FLOAT, True, False, "log(1 + exp(x)), computed stably", quiet_fp=True)


def softplus(features, name=None):
    """``log(exp(features) + 1)``, computed stably.

    Gradient: ``g * sigmoid(x)``, composed of engine ops (TF uses a ``SoftplusGrad``
    op); the composition makes the second derivative ``sigmoid'(x)`` automatic.
    """
    return _softplus(features, name=name)


def _softsign_grad_kernel(xp):
    def k(gradients, features):
        d = 1 + xp.abs(features)
        return (gradients / (d * d))[()]
    return k


def _softsign_grad_grad(op, grad):
    # SoftsignGrad(g, x) = g / (1 + |x|)**2: linear in g; d/dx = -2 g sign(x) / (1 + |x|)**3.
    g, x = op.inputs
    d = math_ops.add(math_ops.abs(x), 1)
    dx = math_ops.multiply(math_ops.multiply(grad, g),
                           math_ops.realdiv(math_ops.multiply(math_ops.sign(x), -2.0), math_ops.pow(d, 3.0)))
    return softsign_grad(grad, x), dx


_SOFTSIGN_GRAD = _grad_op("SoftsignGrad", _softsign_grad_kernel, _softsign_grad_grad,
                          "``gradients / (1 + |features|)**2``: the backward pass of Softsign.", saves_inputs=True,
                          quiet_fp=True)


def softsign_grad(gradients, features):
    """The ``SoftsignGrad`` op (TF's ``gen_nn_ops.softsign_grad``)."""
    return execute(_SOFTSIGN_GRAD, (gradients, features))


def _softsign_kernel(xp):
    def k(x):
        return (x / (1 + xp.abs(x)))[()]
    return k


_SOFTSIGN, _softsign = _unary_op("Softsign", _softsign_kernel, lambda op, g: softsign_grad(g, op.inputs[0]),
                                 FLOAT, True, False, "x / (1 + |x|)", quiet_fp=True)


def softsign(features, name=None):
    """``x / (1 + |x|)`` (op ``Softsign``). Gradient via ``SoftsignGrad``: ``g / (1 + |x|)**2``, so 1 at 0
    and ``sqrt(softsign(x))`` has TF's infinite slope there. (TF registers no gradient for ``SoftsignGrad``;
    the engine's makes second derivatives work.)"""
    return _softsign(features, name=name)


# --- GELU, SiLU ---------------------------------------------------------------------
def _erfc_kernel(xp):
    if xp is np:
        scalar_erfc = np.frompyfunc(math.erfc, 1, 1)
        return lambda x: np.asarray(scalar_erfc(x), dtype=x.dtype)[()]
    from cupyx.scipy.special import erfc  # the CuPy backend
    return erfc


def _erfc_grad(op, grad):
    x = op.inputs[0]
    return math_ops.multiply(grad, math_ops.multiply(-2.0 / math.sqrt(math.pi),
                                                     math_ops.exp(math_ops.negative(math_ops.square(x)))))


def _erfc(x):
    """``tf.math.erfc``. The math module owns ``Erfc``; until it exists, a fallback is registered here.

    The lookup happens at call time so this works whichever module registers
    ``Erfc`` first (registering a name twice is an error).
    """
    erfc = getattr(math_ops, "erfc", None)
    if erfc is not None:
        return erfc(x)
    try:
        op = get_op("Erfc")
    except KeyError:
        op = register_op("Erfc", kernel=_erfc_kernel, infer=_shapes.same_as_input, grad=_erfc_grad,
                         saves_inputs=True, saves_outputs=False, elementwise=True,
                         doc="The complementary error function 1 - erf.")
    return execute(op, (x,))


def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit, composed of engine ops as in TF.

    ``approximate=False``: ``0.5 * x * erfc(-x / sqrt(2))`` (= ``0.5 * x * (1 + erf(x / sqrt(2)))``,
    but accurate for large negative ``x``, as TF computes it).
    ``approximate=True``: ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``.
    """
    x = to_tensor(features)
    if not x.dtype.is_floating:
        raise ValueError(f"`features.dtype` must be a floating point tensor.Received:features.dtype="
                         f"<dtype: '{x.dtype.name}'>")
    if approximate:
        inner = math_ops.multiply(0.7978845608028654,
                                  math_ops.add(x, math_ops.multiply(0.044715, math_ops.pow(x, 3.0))))
        return math_ops.multiply(math_ops.multiply(0.5, x), math_ops.add(1.0, math_ops.tanh(inner)))
    return math_ops.multiply(math_ops.multiply(0.5, x),
                             _erfc(math_ops.multiply(math_ops.negative(x), 0.7071067811865476)))


def silu(features, beta=1.0, name=None):
    """``features * sigmoid(beta * features)`` (a.k.a. swish), composed of engine ops."""
    x = to_tensor(features)
    check_dtype("Silu", x, FLOAT, "features")
    if isinstance(beta, (int, float)) and beta == 1.0:
        return math_ops.multiply(x, math_ops.sigmoid(x))
    return math_ops.multiply(x, math_ops.sigmoid(math_ops.multiply(beta, x)))


swish = silu


# ======================================================================================
# 2. Softmax and losses
# ======================================================================================
def _softmax_kernel(xp):
    def k(logits):
        if logits.ndim < 1:
            raise InvalidArgumentError(None, None, f"logits must have >= 1 dimension, got {_fmt(logits.shape)}")
        e = xp.exp(logits - logits.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return k


def _log_softmax_kernel(xp):
    def k(logits):
        if logits.ndim < 1:
            raise InvalidArgumentError(None, None, f"logits must have >= 1 dimension, got {_fmt(logits.shape)}")
        shifted = logits - logits.max(axis=-1, keepdims=True)
        return shifted - xp.log(xp.exp(shifted).sum(axis=-1, keepdims=True))
    return k


def _softmax_infer(ic):
    x = ic.shape(0)
    if x.rank == 0:
        ic.error("Shape must be at least rank 1 but is rank 0")
    return [(ic.dtype(0), x)]


def _softmax_grad(op, grad):
    # dx = (g - sum(g * s)) * s, written with ops so it can be differentiated again.
    s = op.outputs[0]
    inner = reduction_ops.reduce_sum(math_ops.multiply(grad, s), -1, keepdims=True)
    return math_ops.multiply(math_ops.subtract(grad, inner), s)


def _log_softmax_grad(op, grad):
    # dx = g - sum(g) * softmax, with softmax = exp(log_softmax).
    total = reduction_ops.reduce_sum(grad, -1, keepdims=True)
    return math_ops.subtract(grad, math_ops.multiply(total, math_ops.exp(op.outputs[0])))


_SOFTMAX = register_op("Softmax", kernel=_softmax_kernel, infer=_softmax_infer, grad=_softmax_grad,
                       saves_inputs=False, saves_outputs=True, doc="Softmax over the last axis.", quiet_fp=True,
                       inputs="logits: T", type_attrs={"T": FLOAT})
_LOG_SOFTMAX = register_op("LogSoftmax", kernel=_log_softmax_kernel, infer=_softmax_infer, grad=_log_softmax_grad,
                           saves_inputs=False, saves_outputs=True, doc="Log-softmax over the last axis.", quiet_fp=True,
                           inputs="logits: T", type_attrs={"T": FLOAT})


def _on_axis(op, x, axis, name):
    """Run a last-axis op along ``axis`` by swapping that axis with the last one (TF's ``_wrap_2d_function``)."""
    if axis is None or axis == -1:
        return execute(op, (x,), name=name)
    rank = x.shape.rank
    if rank is None:
        raise NotImplementedError(f"{op.name} along axis {axis} needs a tensor of known rank")
    if not -rank <= axis < rank:
        raise InvalidArgumentError(None, None, f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the "
                                               f"number of dimensions in the input. Received: dim={axis}")
    axis %= rank
    if axis == rank - 1:
        return execute(op, (x,), name=name)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return array_ops.transpose(execute(op, (array_ops.transpose(x, perm),)), perm)


def softmax(logits, axis=None, name=None):
    """``exp(x) / sum(exp(x))`` along ``axis`` (default: the last axis).

    Gradient: ``(g - sum(g * s)) * s`` in engine ops, so it can be differentiated again.

    A row holding a NaN is NaN throughout, as the formula says and as TF computes it on GPU or with
    ``TF_ENABLE_ONEDNN_OPTS=0``. A deliberate difference from TF 2.21's default x86 CPU build, whose
    oneDNN softmax gives 0 for the row's other entries (``softmax([nan, 1.]) == [nan, 0.]``), and
    refuses a scalar with oneDNN's ``AbortedError`` ("Input dims must be <= 5 and >=1") where the
    engine, as TF without oneDNN, raises ``InvalidArgumentError`` ("logits must have >= 1 dimension").
    """
    x = converted_by_wrapper(to_tensor(logits))   # (TF's softmax converts first)
    check_dtype("Softmax", x, FLOAT, "logits")
    return _on_axis(_SOFTMAX, x, axis, name)


def log_softmax(logits, axis=None, name=None):
    """``x - log(sum(exp(x)))`` along ``axis``, computed stably."""
    x = to_tensor(logits)
    check_dtype("LogSoftmax", x, FLOAT, "logits")
    return _on_axis(_LOG_SOFTMAX, x, axis, name)


def _may_be_nonzero(t):
    """False for ``None`` and for an all-zero eager gradient that no tape is watching.

    Multi-output ops receive zeros for outputs nothing used. When no outer tape
    records the backward pass, skipping a term multiplied by such zeros changes
    no value and saves work; when one does (higher-order gradients), the exact
    formula is built. In a graph, as TF's ``IsZero``: a gradient made by a
    ``ZerosLike``/``Zeros`` node is zero whatever the inputs (and nothing flows
    back through it), so the term is skipped; any other symbolic gradient may
    be nonzero.
    """
    if t is None:
        return False
    if not isinstance(t, EagerTensor):
        node = getattr(t, "op", None)
        return getattr(node, "type", None) not in ("ZerosLike", "Zeros")
    if ctx.tapes:
        return True
    value = t._value
    if type(value) is np.ndarray:   # (the same answer as ``value.any()``, from one C call: about half the time)
        return np.count_nonzero(value) != 0
    return bool(value.any()) if hasattr(value, "any") else bool(value)


def _cross_entropy_grad_grad_term(grad_grad, logits):
    """The part of d(logits) that flows in through the ``backprop = softmax - labels`` output."""
    s = softmax(logits)
    inner = reduction_ops.reduce_sum(math_ops.multiply(grad_grad, s), -1, keepdims=True)
    return math_ops.multiply(math_ops.subtract(grad_grad, inner), s)


# --- SoftmaxCrossEntropyWithLogits ---------------------------------------------------
def _softmax_parts(xp, logits):
    """``(shifted, exp(shifted), row sums)`` with ``shifted = logits - rowmax``: overflow-free softmax pieces."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = xp.exp(shifted)
    return shifted, e, e.sum(axis=1, keepdims=True)


def _sce_kernel(xp):
    def k(features, labels):
        if features.ndim != 2 or labels.ndim != 2:
            raise InvalidArgumentError(None, None, f"logits and labels must be either 2-dimensional, or "
                                                   f"broadcasted to be 2-dimensional: logits_size="
                                                   f"{_fmt(features.shape)} labels_size={_fmt(labels.shape)}")
        try:
            np.broadcast_shapes(features.shape, labels.shape)
        except ValueError:
            raise InvalidArgumentError(None, None, f"logits and labels must be broadcastable: logits_size="
                                                   f"{_fmt(features.shape)} labels_size={_fmt(labels.shape)}"
                                       ) from None
        shifted, e, total = _softmax_parts(xp, features)
        loss = (labels * (xp.log(total) - shifted)).sum(axis=1)      # -sum(labels * log_softmax)
        backprop = e / total - labels
        return loss.astype(features.dtype, copy=False), backprop.astype(features.dtype, copy=False)
    return k


def _two_dim_infer(ic):
    a, b = ic.shape(0), ic.shape(1)
    for s in (a, b):
        if s.rank is not None and s.rank != 2:
            ic.error(f"Shape must be rank 2 but is rank {s.rank}")
    shape = _shapes.broadcast_shapes(a, b, ic.op_name)
    if shape.rank is None:
        shape = TensorShape([None, None])
    return [(ic.dtype(0), TensorShape([shape[0]])), (ic.dtype(0), shape)]


def _sce_grad(op, grad_loss, grad_grad):
    """TF's gradient, plus the labels' share of ``grad_grad`` (TF drops it; the engine keeps it).

    ``backprop = softmax(logits) - labels``, so ``grad_grad`` reaches the logits through
    the softmax Jacobian and the labels with a minus sign.
    """
    logits, labels = op.inputs
    g = array_ops.expand_dims(grad_loss, -1)
    d_logits = math_ops.multiply(g, op.outputs[1])
    d_labels = math_ops.multiply(g, math_ops.negative(log_softmax(logits)))
    if _may_be_nonzero(grad_grad):
        d_logits = math_ops.add(d_logits, _cross_entropy_grad_grad_term(grad_grad, logits))
        d_labels = math_ops.subtract(d_labels, grad_grad)
    return math_ops.unbroadcast(d_logits, logits), math_ops.unbroadcast(d_labels, labels)


_SCE = register_op("SoftmaxCrossEntropyWithLogits", kernel=_sce_kernel, infer=_two_dim_infer, grad=_sce_grad,
                   num_outputs=2, saves_inputs=(0,), saves_outputs=(1,), quiet_fp=True,
                   doc="(loss, backprop) for 2-D logits and one-hot/probability labels.")


def _flatten_outer_dims(x):
    """Reshape to 2-D ``[-1, last]`` (rank-1 inputs become ``[1, n]``)."""
    if x.shape.rank == 2:
        return x
    last = x.shape[-1]
    return array_ops.reshape(x, [-1, last if last is not None else array_ops.shape(x)[-1]])


def _move_axis_to_end(x, axis):
    rank = x.shape.rank
    perm = [i for i in range(rank) if i != axis] + [axis]
    return array_ops.transpose(x, perm)


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Cross-entropy between ``labels`` (a probability distribution along ``axis``) and ``softmax(logits)``.

    Returns one loss per example (``logits``' shape without ``axis``). Gradients flow to
    both ``logits`` and ``labels``, as in TF v2. float16 logits are computed in float32.
    ``labels`` are cast to the logits' dtype. As in TF, the logits' gradient is
    ``softmax(logits) - labels``, exact when each label distribution sums to 1.
    """
    logits, labels = converted_by_wrapper(to_tensor(logits), to_tensor(labels))   # (as TF's function, first)
    check_dtype("SoftmaxCrossEntropyWithLogits", logits, FLOAT, "features")
    input_dtype = logits.dtype
    if logits.dtype == dtypes.float16:
        logits = math_ops.cast(logits, dtypes.float32)
    labels = math_ops.cast(labels, logits.dtype)
    rank = logits.shape.rank
    if rank == 0:
        raise InvalidArgumentError(None, None, f"logits must have rank >= 1 (an axis of classes), got shape [] "
                                               f"(labels shape {labels.shape}) [Op:SoftmaxCrossEntropyWithLogits]")
    if rank is not None and labels.shape.rank is not None:
        _check_broadcastable_labels(labels, logits)
        if axis != -1 and axis % rank != rank - 1:
            axis %= rank
            logits = _move_axis_to_end(logits, axis)
            labels = _move_axis_to_end(labels, axis)
    if labels.shape != logits.shape and logits.shape.is_fully_defined():
        labels = array_ops.broadcast_to(labels, logits.shape.as_list())
    batch_shape = logits.shape[:-1] if rank is not None else None
    loss, _ = execute(_SCE, (_flatten_outer_dims(logits), _flatten_outer_dims(labels)), name=name)
    if rank != 2:
        if batch_shape is not None and batch_shape.is_fully_defined():
            loss = array_ops.reshape(loss, batch_shape.as_list())
        else:
            loss = array_ops.reshape(loss, array_ops.shape(logits)[:-1])
    if input_dtype != loss.dtype:
        loss = math_ops.cast(loss, input_dtype)
    return loss


def _check_broadcastable_labels(labels, logits):
    a, b = logits.shape.as_list(), labels.shape.as_list()
    ok = len(a) == len(b) and all(x is None or y is None or x == y or y == 1 for x, y in zip(a, b))
    if not ok:
        message = (f"logits and labels must be broadcastable: logits_size={_fmt(a)} labels_size={_fmt(b)}; "
                   f"labels need the logits' shape (one probability per class)")
        if ctx.graph is not None:
            raise ValueError(message)
        raise InvalidArgumentError(None, None, message + " [Op:SoftmaxCrossEntropyWithLogits]")


# --- SparseSoftmaxCrossEntropyWithLogits ---------------------------------------------
def _sparse_sce_kernel(xp):
    def k(features, labels):
        if features.ndim != 2 or labels.ndim != 1 or labels.shape[0] != features.shape[0]:
            raise InvalidArgumentError(None, None, f"logits must be 2-D and labels 1-D with the same first "
                                                   f"dimension, but got logits shape {_fmt(features.shape)} and "
                                                   f"labels shape {_fmt(labels.shape)}")
        classes = features.shape[1]
        # Range check with one reduction instead of two (min and max): seen as unsigned integers of the
        # same width, negative labels become huge (two's complement), so "some label < 0 or >= classes"
        # is exactly "the unsigned maximum >= classes". (Labels are int32 or int64; other widths keep
        # the two reductions.)
        width = labels.dtype.itemsize
        if width == 4 or width == 8:
            out_of_range = labels.size and int(labels.view(xp.uint32 if width == 4 else xp.uint64).max()) >= classes
        else:
            out_of_range = labels.size and (int(labels.min()) < 0 or int(labels.max()) >= classes)
        if out_of_range:
            bad = (labels < 0) | (labels >= classes)
            first = int(labels[bad][0])
            values = [str(int(v)) for v in labels.tolist()[:100]]
            raise InvalidArgumentError(None, None, f"Received a label value of {first} which is outside the valid "
                                                   f"range of [0, {classes}).  Label values: {' '.join(values)}")
        shifted, e, total = _softmax_parts(xp, features)
        backprop = e / total
        if classes and backprop.flags.c_contiguous and shifted.flags.c_contiguous:
            # The label's entry of each row, addressed in the flattened (row-major) arrays: index
            # ``row * classes + label``. The same elements as ``[rows, labels]`` below, so the same
            # values, but 1-D indexing costs NumPy about half as much as indexing with two arrays. (Only
            # for C-ordered arrays, where ``reshape(-1)`` is a view that the ``-=`` writes through.)
            flat = xp.arange(0, features.shape[0] * classes, classes) + labels
            loss = xp.log(total[:, 0]) - shifted.reshape(-1)[flat]     # -log_softmax at the label
            backprop.reshape(-1)[flat] -= 1                            # softmax - one_hot(labels)
        else:
            rows = xp.arange(features.shape[0])
            loss = xp.log(total[:, 0]) - shifted[rows, labels]         # -log_softmax at the label
            backprop[rows, labels] -= 1                                # softmax - one_hot(labels)
        dtype = features.dtype
        if loss.dtype == dtype and backprop.dtype == dtype:   # (the usual case: no astype calls needed)
            return loss, backprop
        return loss.astype(dtype, copy=False), backprop.astype(dtype, copy=False)
    return k


def _sparse_sce_infer(ic):
    logits, labels = ic.shape(0), ic.shape(1)
    if logits.rank is not None and logits.rank != 2:
        ic.error(f"Shape must be rank 2 but is rank {logits.rank}")
    if labels.rank is not None and labels.rank != 1:
        ic.error(f"Shape must be rank 1 but is rank {labels.rank}")
    batch = logits[0] if logits.rank is not None else (labels[0] if labels.rank is not None else None)
    classes = logits[1] if logits.rank is not None else None
    return [(ic.dtype(0), TensorShape([batch])), (ic.dtype(0), TensorShape([batch, classes]))]


def _sparse_sce_grad(op, grad_loss, grad_grad):
    logits = op.inputs[0]
    d_logits = math_ops.multiply(array_ops.expand_dims(grad_loss, -1), op.outputs[1])
    if _may_be_nonzero(grad_grad):
        d_logits = math_ops.add(d_logits, _cross_entropy_grad_grad_term(grad_grad, logits))
    return d_logits, None


_SPARSE_SCE = register_op("SparseSoftmaxCrossEntropyWithLogits", kernel=_sparse_sce_kernel,
                          infer=_sparse_sce_infer, grad=_sparse_sce_grad, num_outputs=2, saves_inputs=(0,),
                          saves_outputs=(1,), quiet_fp=True,
                          doc="(loss, backprop) for 2-D logits and 1-D integer class labels.")


_SCE_FAST_FLOATS = frozenset([np.dtype(np.float32), np.dtype(np.float64)])
_SCE_FAST_LABELS = frozenset([np.dtype(np.int32), np.dtype(np.int64)])


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Cross-entropy with integer class ``labels`` (shape: ``logits.shape[:-1]``).

    An out-of-range label raises ``InvalidArgumentError`` (TF's CPU behaviour; TF's GPU
    kernel returns NaN instead). No gradient flows to ``labels``.
    """
    if type(logits) is EagerTensor and type(labels) is EagerTensor and ctx.graph is None:
        # Fast path: eager 2-D float32/float64 logits and 1-D int32/int64 labels of the same length (a
        # classifier's loss). Every check below passes for these and nothing is cast or reshaped, so the
        # general path would come to this same ``execute`` call; it is taken directly.
        lv, yv = logits._value, labels._value
        if (lv.dtype in _SCE_FAST_FLOATS and yv.dtype in _SCE_FAST_LABELS and lv.ndim == 2 and yv.ndim == 1
                and yv.shape[0] == lv.shape[0]):
            return execute(_SPARSE_SCE, (logits, labels), name=name)[0]
    logits, labels = converted_by_wrapper(to_tensor(logits), to_tensor(labels))   # (as TF's function, first)
    check_dtype("SparseSoftmaxCrossEntropyWithLogits", logits, FLOAT, "features")
    if labels.dtype not in _INDEX:
        message = (f"Value for attr 'Tlabels' of {labels.dtype.name} is not in the list of allowed values: int32, "
                   f"int64; NodeDef: {{{{node SparseSoftmaxCrossEntropyWithLogits}}}}; labels must be integer "
                   f"class indices")
        if ctx.graph is not None:
            raise TypeError(message)
        raise InvalidArgumentError(None, None, message + " [Op:SparseSoftmaxCrossEntropyWithLogits]")
    input_dtype = logits.dtype
    if logits.dtype == dtypes.float16:
        logits = math_ops.cast(logits, dtypes.float32)
    lrank, yrank = logits.shape.rank, labels.shape.rank
    if lrank == 0:
        raise ValueError(f"`logits` cannot be a scalar. Received logits={logits}`")
    if lrank is not None and yrank is not None:
        if yrank != lrank - 1 or not labels.shape.is_compatible_with(logits.shape[:-1]):
            raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
                             f"labels.shape={labels.shape} and logits.shape={logits.shape}")
    if lrank == 2:
        loss, _ = execute(_SPARSE_SCE, (logits, labels), name=name)
    else:
        loss, _ = execute(_SPARSE_SCE, (_flatten_outer_dims(logits), array_ops.reshape(labels, [-1])), name=name)
        loss = array_ops.reshape(loss, labels.shape.as_list() if labels.shape.is_fully_defined()
                                 else array_ops.shape(labels))
    if input_dtype != loss.dtype:
        loss = math_ops.cast(loss, input_dtype)
    return loss


# --- sigmoid cross-entropy, L2 loss -------------------------------------------------
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Elementwise logistic loss: ``max(x, 0) - x * z + log(1 + exp(-|x|))`` (stable for any ``x``).

    Composed of engine ops exactly as TF composes it, so every derivative order works.
    """
    if labels is None or logits is None:
        raise ValueError("Both `labels` and `logits` must be provided. Received: labels=%s and logits=%s"
                         % (labels, logits))
    logits = to_tensor(logits)
    labels = to_tensor(labels)
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError(f"`logits` and `labels` must have the same shape, received ({logits.shape} vs "
                         f"{labels.shape}).")
    zeros = array_ops.zeros_like(logits)
    cond = math_ops.greater_equal(logits, zeros)
    relu_logits = array_ops.where(cond, logits, zeros)
    neg_abs_logits = array_ops.where(cond, math_ops.negative(logits), logits)
    return math_ops.add(math_ops.subtract(relu_logits, math_ops.multiply(logits, labels)),
                        math_ops.log1p(math_ops.exp(neg_abs_logits)))


_L2_LOSS = register_op(
    "L2Loss", kernel=lambda xp: (lambda t: (xp.sum(t * t, dtype=t.dtype) / 2).astype(t.dtype)[()]),
    infer=lambda ic: [(ic.dtype(0), TensorShape([]))],
    grad=lambda op, g: math_ops.multiply(op.inputs[0], g), saves_inputs=True, saves_outputs=False,
    doc="sum(t ** 2) / 2")


def l2_loss(t, name=None):
    """``sum(t ** 2) / 2``, a scalar. Gradient: ``t * grad``."""
    t = to_tensor(t)
    check_dtype("L2Loss", t, FLOAT, "t")
    return execute(_L2_LOSS, (t,), name=name)


# --- compute_average_loss -----------------------------------------------------------
def _num_replicas_in_sync():
    """The distribution hook: how many replicas share the global batch.

    Inside ``strategy.run`` the distribution layer sets ``ctx.replica_context``, which
    has ``num_replicas_in_sync``. Outside any strategy there is one replica. Calling
    from a strategy's ``scope()`` but outside ``strategy.run`` (cross-replica
    context) is an error, as in TF.
    """
    replica = ctx.replica_context
    if replica is not None:
        return int(replica.num_replicas_in_sync)
    if ctx.strategy_stack:
        raise RuntimeError("You are calling `compute_average_loss` in cross replica context, while it was "
                           "expected to be called in replica context.")
    return 1


def _scale_by_sample_weight(losses, sample_weight):
    """``losses * sample_weight`` after TF's squeeze-or-expand rank matching."""
    weight = math_ops.cast(to_tensor(sample_weight), losses.dtype)
    lr, wr = losses.shape.rank, weight.shape.rank
    if wr is not None and lr is not None and wr != 0:
        if wr == lr - 1:
            weight = array_ops.expand_dims(weight, -1)
        elif wr == lr + 1 and weight.shape[-1] == 1:
            weight = array_ops.squeeze(weight, [-1])
    return math_ops.multiply(losses, weight)


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """``sum(per_example_loss * sample_weight) / global_batch_size``.

    ``global_batch_size`` defaults to the per-replica batch (``shape[0]``) times the
    number of replicas in sync (see :func:`_num_replicas_in_sync`), so summing the
    per-replica results of a distributed step gives the mean over the global batch.
    Deviation: with ``sample_weight``, TF multiplies in float32 and casts back; the
    engine multiplies in the loss's own dtype (identical for float32).
    """
    loss = to_tensor(per_example_loss)
    input_dtype = loss.dtype
    if loss.shape.rank == 0:
        raise ValueError(f"Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. "
                         f"Received per_example_loss={loss} with rank 0")
    if sample_weight is not None:
        loss = _scale_by_sample_weight(loss, sample_weight)
    if global_batch_size is None:
        replicas = _num_replicas_in_sync()
        batch = loss.shape[0]
        global_batch_size = batch * replicas if batch is not None else math_ops.multiply(
            array_ops.shape(loss)[0], replicas)
    gbs = to_tensor(global_batch_size)
    if gbs.shape.rank != 0:
        raise ValueError(f"global_batch_size must be scalar..  Expected scalar shape, saw shape: {gbs.shape}.")
    if not gbs.dtype.is_integer:
        raise TypeError(f"global_batch_size must be an integer..  Expected \"x\" to be integer type.  Found: "
                        f"tensor of dtype <dtype: '{gbs.dtype.name}'>")
    if isinstance(gbs, EagerTensor) and int(gbs) < 0:
        raise InvalidArgumentError(None, None, f"global_batch_size must be non-negative..  \nCondition x >= 0 did "
                                               f"not hold element-wise:\nx (shape=() dtype={gbs.dtype.name}) = \n"
                                               f"{int(gbs)}")
    total = reduction_ops.reduce_sum(loss)
    return math_ops.truediv(total, math_ops.cast(gbs, input_dtype))


# ======================================================================================
# 3. BiasAdd, dropout, moments
# ======================================================================================
def _channel_axis(data_format, ndim):
    return 1 if data_format.startswith("NC") and ndim > 2 else ndim - 1


def _bias_add_kernel(xp):
    def k(value, bias, data_format="NHWC"):
        if value.ndim < 2:
            raise InvalidArgumentError(None, None, f"Input tensor must be at least 2D: {_fmt(value.shape)}")
        if bias.ndim != 1:
            raise InvalidArgumentError(None, None, f"Biases must be 1D: {_fmt(bias.shape)}")
        axis = _channel_axis(data_format, value.ndim)
        if value.shape[axis] != bias.shape[0]:
            where = "last" if axis == value.ndim - 1 else "channel"
            raise InvalidArgumentError(None, None, f"Must provide as many biases as the {where} dimension of the "
                                                   f"input tensor: {_fmt(bias.shape)} vs. {_fmt(value.shape)}")
        if axis != value.ndim - 1:
            bias = bias.reshape((-1,) + (1,) * (value.ndim - axis - 1))
        return value + bias
    return k


def _bias_add_infer(ic):
    v, b = ic.shape(0), ic.shape(1)
    if b.rank is not None and b.rank != 1:
        ic.error(f"Shape must be rank 1 but is rank {b.rank}")
    if v.rank is not None:
        if v.rank < 2:
            ic.error(f"Shape must be at least rank 2 but is rank {v.rank}")
        axis = _channel_axis(ic.attrs.get("data_format", "NHWC"), v.rank)
        if b.rank == 1 and v[axis] is not None and b[0] is not None and v[axis] != b[0]:
            ic.error(f"Dimensions must be equal, but are {v[axis]} and {b[0]}")
        if b.rank == 1 and v[axis] is None and b[0] is not None:   # TF merges the channel with the bias's length
            dims = v.as_list()
            dims[axis] = b[0]
            v = TensorShape(dims)
    return [(ic.dtype(0), v)]


def _bias_add_grad(op, grad):
    return grad, execute(_BIAS_ADD_GRAD, (grad,), {"data_format": op.attrs.get("data_format", "NHWC")})


def _bias_add_grad_kernel(xp):
    def k(out_backprop, data_format="NHWC"):
        axis = _channel_axis(data_format, out_backprop.ndim)
        others = tuple(i for i in range(out_backprop.ndim) if i != axis)
        return out_backprop.sum(axis=others, dtype=out_backprop.dtype)
    return k


def _bias_add_grad_infer(ic):
    g = ic.shape(0)
    if g.rank is None:
        return [(ic.dtype(0), TensorShape([None]))]
    return [(ic.dtype(0), TensorShape([g[_channel_axis(ic.attrs.get("data_format", "NHWC"), g.rank)]]))]


def _bias_add_grad_grad(op, grad):
    """BiasAddGrad sums over all but the channel axis; its gradient broadcasts back."""
    g = op.inputs[0]
    rank = g.shape.rank
    axis = _channel_axis(op.attrs.get("data_format", "NHWC"), rank)
    expanded = array_ops.reshape(grad, [1] * axis + [-1] + [1] * (rank - axis - 1))
    return array_ops.broadcast_to(expanded, array_ops.static_or_dynamic_shape(g))


_BIAS_ADD = register_op("BiasAdd", kernel=_bias_add_kernel, infer=_bias_add_infer, grad=_bias_add_grad,
                        saves_inputs=False, saves_outputs=False, linear="linear",
                        inputs="value: T, bias: T", type_attrs={"T": _REAL},
                        doc="value + bias along the channel axis.")
_BIAS_ADD_GRAD = register_op("BiasAddGrad", kernel=_bias_add_grad_kernel, infer=_bias_add_grad_infer,
                             grad=_bias_add_grad_grad, saves_inputs=False, saves_outputs=False,
                             doc="Sum of out_backprop over every axis but the channel axis.")


def bias_add(value, bias, data_format=None, name=None):
    """``value + bias`` where ``bias`` is 1-D and matches the channel axis (last for ``N...C``, 1 for ``NC...``)."""
    if data_format is not None:
        if data_format.startswith("NC"):
            data_format = "NCHW"
        elif data_format.startswith("N") and data_format.endswith("C"):
            data_format = "NHWC"
        else:
            raise ValueError(f"`data_format` must be of the form `N...C` or `NC...`. Received: "
                             f"data_format={data_format}")
    value, bias = binary_inputs("BiasAdd", value, bias)
    check_dtype("BiasAdd", value, _REAL, "value")
    return execute(_BIAS_ADD, (value, bias), {"data_format": data_format or "NHWC"}, name=name)


def _noise_shape(x, noise_shape):
    if noise_shape is None:
        return array_ops.static_or_dynamic_shape(x)
    if isinstance(noise_shape, Tensor):
        return noise_shape
    dims = list(noise_shape.as_list() if isinstance(noise_shape, TensorShape) else noise_shape)
    if x.shape.rank is not None and len(dims) == x.shape.rank:
        dims = [x.shape[i] if d is None and x.shape[i] is not None else d for i, d in enumerate(dims)]
    return dims


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero each element with probability ``rate`` and scale the kept ones by ``1 / (1 - rate)``.

    ``noise_shape`` (broadcastable to ``x``) shares one keep/drop decision along
    dimensions of size 1. The mask comes from ``tf.random.uniform(noise_shape, seed=seed)``,
    so TF's seed rules apply. ``rate == 0`` returns ``x`` but still advances the op-seed
    counter, as TF does, so later random ops do not depend on it.
    """
    is_rate_number = isinstance(rate, (int, float, np.floating, np.integer)) and not isinstance(rate, bool)
    if is_rate_number and not 0 <= rate < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
    x = to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                         f"x_dtype=<dtype: '{x.dtype.name}'>")
    if is_rate_number and rate == 0:
        random_ops.get_seed(seed)  # keep the op-seed sequence independent of the fast path
        return x
    if is_rate_number:
        scaled = math_ops.multiply(x, to_tensor(1 / (1 - rate), dtype=x.dtype))
    else:
        rate = to_tensor(rate)
        if rate.shape.rank not in (0, None):
            raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
        if rate.dtype != x.dtype:
            rate = math_ops.cast(rate, x.dtype)
        scaled = math_ops.realdiv(x, math_ops.subtract(to_tensor(1, dtype=x.dtype), rate))
    noise = random_ops.uniform(_noise_shape(x, noise_shape), dtype=x.dtype, seed=seed)
    keep = math_ops.greater_equal(noise, rate)
    return array_ops.where(keep, scaled, to_tensor(0, dtype=x.dtype))


def moments(x, axes, shift=None, keepdims=False, name=None):
    """``(mean, variance)`` of ``x`` over ``axes`` (population variance). float16 is computed in float32.

    Deviation: TF wraps the mean inside the variance in ``stop_gradient`` (which leaves
    the first derivative unchanged because its contribution is zero); the engine
    does not, so second derivatives of the variance are also correct.
    """
    x = to_tensor(x)
    y = math_ops.cast(x, dtypes.float32) if x.dtype == dtypes.float16 else x
    axes = [axes] if isinstance(axes, int) else list(axes)
    mean = reduction_ops.reduce_mean(y, axes, keepdims=True)
    variance = reduction_ops.reduce_mean(math_ops.squared_difference(y, mean), axes, keepdims=True)
    if not keepdims:
        mean = array_ops.squeeze(mean, axes)
        variance = array_ops.squeeze(variance, axes)
    if x.dtype == dtypes.float16:
        return math_ops.cast(mean, dtypes.float16), math_ops.cast(variance, dtypes.float16)
    return mean, variance


# ======================================================================================
# 4. Convolution and pooling (NHWC)
# ======================================================================================
# A window op slides a (kh, kw) window with strides (sh, sw) and dilations (dh, dw)
# over the padded input. ``_Window`` holds everything the kernels need.
_Window = collections.namedtuple("_Window", "oh ow top bottom left right kh kw sh sw dh dw")

_PADDINGS = ("SAME", "VALID", "EXPLICIT")


def _trunc_div(a, b):
    return a // b if a >= 0 else -((-a) // b)


def _output_size(in_size, k, stride, dilation, padding, pad_pair, error):
    """TF's ``GetWindowedOutputSize``: (output size, pad before, pad after) along one axis.

    An unknown size (``None``, graph inputs) gives an unknown output size, except that ``SAME``
    padding needs no window size: ``ceil(in_size / stride)``.
    """
    if in_size is None:
        return None, 0, 0
    if k is None:
        return ((in_size + stride - 1) // stride if padding == "SAME" else None), 0, 0
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = (in_size + stride - 1) // stride
        needed = max(0, (out - 1) * stride + eff - in_size)
        before, after = needed // 2, needed - needed // 2
    else:
        before, after = pad_pair if padding == "EXPLICIT" else (0, 0)
        out = _trunc_div(in_size + before + after - eff + stride, stride)
    if out < 0:
        error(f"Computed output size would be negative: {out} [input_size: {in_size}, effective_filter_size: "
              f"{eff}, stride: {stride}]")
    return out, before, after


def _window(in_h, in_w, kh, kw, strides, dilations, padding, explicit_paddings, error):
    explicit = list(explicit_paddings) or [0] * 8
    oh, top, bottom = _output_size(in_h, kh, strides[1], dilations[1], padding, explicit[2:4], error)
    ow, left, right = _output_size(in_w, kw, strides[2], dilations[2], padding, explicit[4:6], error)
    return _Window(oh, ow, top, bottom, left, right, kh, kw, strides[1], strides[2], dilations[1], dilations[2])


def _kernel_error(message):
    raise InvalidArgumentError(None, None, message)


def _pad(xp, x, w, value=0):
    if not (w.top or w.bottom or w.left or w.right):
        return x
    return xp.pad(x, ((0, 0), (w.top, w.bottom), (w.left, w.right), (0, 0)), constant_values=value)


def _as_strided(xp):
    return importlib.import_module(xp.__name__ + ".lib.stride_tricks").as_strided   # numpy or cupy


def _windows(xp, padded, w):
    """A strided view ``(N, OH, OW, KH, KW, C)`` of every window of ``padded`` (no copy)."""
    n, _, _, c = padded.shape
    s0, s1, s2, s3 = padded.strides
    return _as_strided(xp)(
        padded, shape=(n, w.oh, w.ow, w.kh, w.kw, c),
        strides=(s0, s1 * w.sh, s2 * w.sw, s1 * w.dh, s2 * w.dw, s3))


def _scatter_windows(xp, per_tap, w, input_shape, dtype):
    """The adjoint of :func:`_windows`: add ``per_tap(i, j)`` (shape N, OH, OW, C) back onto the input.

    Loops over the kh * kw filter taps, never over pixels; each step is one
    strided slice-add. Returns the un-padded ``input_shape`` gradient.
    """
    n, h, wd, c = input_shape
    out = xp.zeros((n, h + w.top + w.bottom, wd + w.left + w.right, c), dtype=dtype)
    if w.oh and w.ow:
        for i in range(w.kh):
            for j in range(w.kw):
                r, q = i * w.dh, j * w.dw
                out[:, r:r + (w.oh - 1) * w.sh + 1:w.sh, q:q + (w.ow - 1) * w.sw + 1:w.sw, :] += per_tap(i, j)
    return xp.ascontiguousarray(out[:, w.top:w.top + h, w.left:w.left + wd, :])


def _conv_attrs(attrs):
    return (tuple(attrs["strides"]), attrs["padding"], tuple(attrs.get("explicit_paddings", ())),
            tuple(attrs.get("dilations", (1, 1, 1, 1))), attrs.get("data_format", "NHWC"))


def _check_conv_attrs(op_name, strides, dilations, data_format, raise_fn=None):
    if data_format != "NHWC":
        raise UnimplementedError(None, None, f"The engine's {op_name} supports only the NHWC data format; got "
                                             f"{data_format}. Transpose the input to NHWC.")
    if strides[0] != 1 or strides[3] != 1:
        raise UnimplementedError(None, None, "Current implementation does not yet support strides in the batch "
                                             "and depth dimensions.")
    if dilations[0] != 1 or dilations[3] != 1:
        raise UnimplementedError(None, None, "Current implementation does not yet support dilations in the batch "
                                             "and depth dimensions.")


def _check_conv_shapes(input_shape, filter_shape, error):
    """TF's Conv2D checks, on full or partial shapes; ``error(message)`` raises."""
    if input_shape is not None and len(input_shape) != 4:
        error(f"convolution input must be 4-dimensional: {_fmt(input_shape)} (NHWC: batch, height, width, "
              f"channels)")
    if filter_shape is not None and len(filter_shape) != 4:
        error(f"convolution filter must be 4-dimensional: {_fmt(filter_shape)} (height, width, in_channels, "
              f"out_channels)")
    if input_shape is None or filter_shape is None:
        return
    c, fc = input_shape[3], filter_shape[2]
    if c is not None and fc is not None:
        if fc == 0 or c % fc:
            error(f"input depth must be evenly divisible by filter depth: {c} vs {fc} (input shape "
                  f"{_fmt(input_shape)}, filter shape {_fmt(filter_shape)}: the filter's third dimension must be "
                  f"the input's channel count)")
        if c != fc:
            raise UnimplementedError(None, None, f"Grouped convolutions (input depth {c}, filter depth {fc}) are "
                                                 f"not supported by the engine")


def _conv2d_kernel(xp):
    def k(input, filter, strides, padding, explicit_paddings=(), dilations=(1, 1, 1, 1),  # noqa: A002
          data_format="NHWC", use_cudnn_on_gpu=True):
        _check_conv_attrs("Conv2D", strides, dilations, data_format)
        _check_conv_shapes(input.shape, filter.shape, _kernel_error)
        kh, kw, c, o = filter.shape
        w = _window(input.shape[1], input.shape[2], kh, kw, strides, dilations, padding, explicit_paddings,
                    _kernel_error)
        cols = _windows(xp, _pad(xp, input, w), w).reshape(-1, kh * kw * c)      # im2col (one copy)
        out = cols @ filter.reshape(kh * kw * c, o)                                # one matmul
        return out.reshape(input.shape[0], w.oh, w.ow, o)
    return k


def _shape_list(s):
    return None if s.rank is None else s.as_list()


def _conv_output_shape(ic, input_shape, filter_shape):
    strides, padding, explicit, dilations, _ = _conv_attrs(ic.attrs)
    _check_conv_shapes(input_shape, filter_shape, ic.error)
    if input_shape is None:
        return TensorShape([None, None, None, None if filter_shape is None else filter_shape[3]])
    kh, kw = (None, None) if filter_shape is None else filter_shape[:2]
    w = _window(input_shape[1], input_shape[2], kh, kw, strides, dilations, padding, explicit, ic.error)
    return TensorShape([input_shape[0], w.oh, w.ow, None if filter_shape is None else filter_shape[3]])


def _conv2d_infer(ic):
    return [(ic.dtype(0), _conv_output_shape(ic, _shape_list(ic.shape(0)), _shape_list(ic.shape(1))))]


def _conv_attr_dict(op):
    return {k: op.attrs[k] for k in ("strides", "padding", "explicit_paddings", "dilations", "data_format")
            if k in op.attrs}


def _conv2d_grad(op, grad):
    x, w = op.inputs
    attrs = _conv_attr_dict(op)
    return (conv2d_backprop_input(array_ops.static_or_dynamic_shape(x), w, grad, **attrs),
            conv2d_backprop_filter(x, array_ops.static_or_dynamic_shape(w), grad, **attrs))


def _sizes_or_none(ic, i, rank=4):
    """The shape held by size input ``i`` (``input_sizes``...): what is known of it, else ``rank`` unknown dims."""
    shape = array_ops._shape_from_input(ic, i)
    return shape.as_list() if shape.rank is not None else [None] * rank


def _backprop_input_kernel(xp):
    def k(input_sizes, filter, out_backprop, strides, padding, explicit_paddings=(),  # noqa: A002
          dilations=(1, 1, 1, 1), data_format="NHWC", use_cudnn_on_gpu=True):
        _check_conv_attrs("Conv2DBackpropInput", strides, dilations, data_format)
        sizes = array_ops._ints(input_sizes)
        _check_conv_shapes(sizes, filter.shape, _kernel_error)
        kh, kw, c, o = filter.shape
        w = _window(sizes[1], sizes[2], kh, kw, strides, dilations, padding, explicit_paddings, _kernel_error)
        expected = (sizes[0], w.oh, w.ow, o)
        if tuple(out_backprop.shape) != expected:
            _kernel_error(f"Conv2DBackpropInput: out_backprop has shape {_fmt(out_backprop.shape)} but input "
                          f"{_fmt(sizes)} and filter {_fmt(filter.shape)} give outputs of shape {_fmt(expected)}")
        taps = (out_backprop.reshape(-1, o) @ filter.reshape(kh * kw * c, o).T).reshape(
            sizes[0], w.oh, w.ow, kh, kw, c)
        return _scatter_windows(xp, lambda i, j: taps[:, :, :, i, j, :], w, sizes, out_backprop.dtype)
    return k


def _backprop_input_infer(ic):
    return [(ic.dtype(1), TensorShape(_sizes_or_none(ic, 0)))]


def _backprop_input_grad(op, grad):
    """dx = A(w, g) is bilinear: d/dg is a convolution, d/dw a filter backprop."""
    _, w, g = op.inputs
    attrs = _conv_attr_dict(op)
    return (None, conv2d_backprop_filter(grad, array_ops.static_or_dynamic_shape(w), g, **attrs),
            _conv2d_raw(grad, w, attrs))


def _backprop_filter_kernel(xp):
    def k(input, filter_sizes, out_backprop, strides, padding, explicit_paddings=(),  # noqa: A002
          dilations=(1, 1, 1, 1), data_format="NHWC", use_cudnn_on_gpu=True):
        _check_conv_attrs("Conv2DBackpropFilter", strides, dilations, data_format)
        sizes = array_ops._ints(filter_sizes)
        _check_conv_shapes(input.shape, sizes, _kernel_error)
        kh, kw, c, o = sizes
        w = _window(input.shape[1], input.shape[2], kh, kw, strides, dilations, padding, explicit_paddings,
                    _kernel_error)
        expected = (input.shape[0], w.oh, w.ow, o)
        if tuple(out_backprop.shape) != expected:
            _kernel_error(f"Conv2DBackpropFilter: out_backprop has shape {_fmt(out_backprop.shape)} but input "
                          f"{_fmt(input.shape)} and filter {_fmt(sizes)} give outputs of shape {_fmt(expected)}")
        cols = _windows(xp, _pad(xp, input, w), w).reshape(-1, kh * kw * c)
        return (cols.T @ out_backprop.reshape(-1, o)).reshape(kh, kw, c, o)
    return k


def _backprop_filter_infer(ic):
    return [(ic.dtype(0), TensorShape(_sizes_or_none(ic, 1)))]


def _backprop_filter_grad(op, grad):
    x, _, g = op.inputs
    attrs = _conv_attr_dict(op)
    return (conv2d_backprop_input(array_ops.static_or_dynamic_shape(x), grad, g, **attrs), None,
            _conv2d_raw(x, grad, attrs))


_CONV2D = register_op("Conv2D", kernel=_conv2d_kernel, infer=_conv2d_infer, grad=_conv2d_grad,
                      saves_inputs=True, saves_outputs=False, linear="multilinear",
                      doc="2-D convolution, NHWC input, HWIO filter.")
_CONV2D_BACKPROP_INPUT = register_op(
    "Conv2DBackpropInput", kernel=_backprop_input_kernel, infer=_backprop_input_infer, grad=_backprop_input_grad,
    saves_inputs=(1, 2), saves_outputs=False, doc="Gradient of Conv2D with respect to its input.")
_CONV2D_BACKPROP_FILTER = register_op(
    "Conv2DBackpropFilter", kernel=_backprop_filter_kernel, infer=_backprop_filter_infer,
    grad=_backprop_filter_grad, saves_inputs=(0, 2), saves_outputs=False,
    doc="Gradient of Conv2D with respect to its filter.")


def _conv2d_raw(x, w, attrs):
    return execute(_CONV2D, (x, w), attrs)


def conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                          explicit_paddings=(), dilations=(1, 1, 1, 1), data_format="NHWC", name=None):
    """The ``Conv2DBackpropInput`` op: d(conv2d)/d(input) applied to ``out_backprop``."""
    return execute(_CONV2D_BACKPROP_INPUT, (int_tensor(input_sizes), filter, out_backprop),
                   {"strides": tuple(strides), "padding": padding, "explicit_paddings": tuple(explicit_paddings),
                    "dilations": tuple(dilations), "data_format": data_format}, name=name)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           explicit_paddings=(), dilations=(1, 1, 1, 1), data_format="NHWC", name=None):
    """The ``Conv2DBackpropFilter`` op: d(conv2d)/d(filter) applied to ``out_backprop``."""
    return execute(_CONV2D_BACKPROP_FILTER, (input, int_tensor(filter_sizes), out_backprop),
                   {"strides": tuple(strides), "padding": padding, "explicit_paddings": tuple(explicit_paddings),
                    "dilations": tuple(dilations), "data_format": data_format}, name=name)


def _get_sequence(value, n, channel_index, name):
    """TF's helper: an int or a list of length 1, n or n + 2 -> a list of length n + 2."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, (int, np.integer)):
        value = [int(value)]
    else:
        value = [int(v) for v in value]
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2}. Received: {name}={value} of length "
                         f"{len(value)}")
    return [1, 1] + value if channel_index == 1 else [1] + value + [1]


def _padding_attrs(op_name, padding, allow_explicit=True):
    """``padding`` as TF's ``(padding, explicit_paddings)`` attrs; raises TF's error for a bad string."""
    if isinstance(padding, (list, tuple)) and allow_explicit:
        pairs = [list(p) for p in padding]
        if len(pairs) != 4 or any(len(p) != 2 for p in pairs):
            raise ValueError(f"When padding is explicit, it must be a list of 4 pairs of ints (NHWC). Received: "
                             f"padding={padding}")
        if pairs[0] != [0, 0] or pairs[3] != [0, 0]:
            raise ValueError(f"Explicit padding of the batch and channel dimensions must be zero. Received: "
                             f"padding={padding}")
        return "EXPLICIT", tuple(int(v) for p in pairs for v in p)
    allowed = _PADDINGS if allow_explicit else _PADDINGS[:2]
    if padding not in allowed:
        listed = ", ".join(f'"{p}"' for p in allowed)
        message = (f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: {listed}; "
                   f"NodeDef: {{{{node {op_name}}}}}; padding names are upper case")
        if ctx.graph is not None:
            raise ValueError(message)
        raise InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")
    return padding, ()


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """2-D convolution: NHWC ``input``, HWIO ``filters`` (height, width, in_channels, out_channels).

    ``strides`` and ``dilations`` are an int or a list of 1, 2 or 4 ints; ``padding``
    is ``"SAME"``, ``"VALID"`` or explicit ``[[0, 0], [top, bottom], [left, right], [0, 0]]``.

    Implementation: im2col (a strided view of the padded input, copied once into a
    ``(N*OH*OW, KH*KW*C)`` matrix) times the ``(KH*KW*C, O)`` filter. Gradients are
    the registered ``Conv2DBackpropInput`` / ``Conv2DBackpropFilter`` ops, whose own
    gradients are convolutions again (second order works).
    Deviations: only NHWC (TF's CPU kernel also refuses NCHW) and no grouped convolution.
    """
    x, w = binary_inputs("Conv2D", input, filters)
    check_dtype("Conv2D", x, _CONV_TYPES, "input")
    padding, explicit = _padding_attrs("Conv2D", padding)
    channel_index = 1 if data_format.startswith("NC") else 3
    attrs = {"strides": tuple(_get_sequence(strides, 2, channel_index, "strides")), "padding": padding,
             "explicit_paddings": explicit,
             "dilations": tuple(_get_sequence(dilations, 2, channel_index, "dilations")),
             "data_format": data_format}
    return execute(_CONV2D, (x, w), attrs, name=name)


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose (adjoint) of ``conv2d``: ``Conv2DBackpropInput`` run forwards.

    ``filters`` is ``(height, width, output_channels, input_channels)``; ``output_shape``
    is the NHWC shape of the result, i.e. the input shape of the ``conv2d`` it inverts.
    """
    y, w = binary_inputs("Conv2DBackpropInput", input, filters)
    check_dtype("Conv2DBackpropInput", y, _CONV_TYPES, "out_backprop")
    padding, explicit = _padding_attrs("Conv2DBackpropInput", padding)
    channel_index = 1 if data_format.startswith("NC") else 3
    return conv2d_backprop_input(output_shape, w, y, _get_sequence(strides, 2, channel_index, "strides"), padding,
                                 explicit, _get_sequence(dilations, 2, channel_index, "dilations"), data_format,
                                 name=name)


def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None,  # noqa: A002
                name=None):
    """``tf.nn.convolution`` for the 2-D (rank-4) case; other ranks are not implemented."""
    rank = to_tensor(input).shape.rank
    if rank not in (4, None):
        raise NotImplementedError(f"tf.nn.convolution: the engine implements only 2-D convolution (rank-4 input), "
                                  f"got rank {rank}")
    return conv2d(input, filters, strides if strides is not None else 1, padding, data_format or "NHWC",
                  dilations, name)


# --- pooling ------------------------------------------------------------------------
def _pool_window(op_name, x_shape, ksize, strides, padding, data_format, error):
    if data_format != "NHWC":
        error(f"The engine's {op_name} supports only the NHWC data format; got {data_format}")
    if len(x_shape) != 4:
        error(f"{op_name}: input must be 4-dimensional (NHWC: batch, height, width, channels), got shape "
              f"{_fmt(x_shape)}")
    if ksize[0] != 1 or ksize[3] != 1 or strides[0] != 1 or strides[3] != 1:
        raise UnimplementedError(None, None, "Pooling is not yet supported on the batch nor channel dimension.")
    if min(ksize) < 1 or min(strides) < 1:
        error(f"Sliding window ksize and strides must be positive, got ksize={list(ksize)}, "
              f"strides={list(strides)}")
    return _window(x_shape[1], x_shape[2], ksize[1], ksize[2], strides, (1, 1, 1, 1), padding, (), error)


def _pool_attrs(attrs):
    return tuple(attrs["ksize"]), tuple(attrs["strides"]), attrs["padding"], attrs.get("data_format", "NHWC")


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _argmax_in_window(xp, x, w):
    """Index (0 .. kh*kw-1) of the first maximum in each window: TF's CPU tie rule (row-major scan)."""
    windows = _windows(xp, _pad(xp, x, w, _lowest(x.dtype)), w)
    n, oh, ow, kh, kw, c = windows.shape
    return windows.reshape(n, oh, ow, kh * kw, c).argmax(axis=3)


def _max_pool_kernel(xp):
    def k(input, ksize, strides, padding, data_format="NHWC", explicit_paddings=()):  # noqa: A002
        w = _pool_window("MaxPool", input.shape, ksize, strides, padding, data_format, _kernel_error)
        return _windows(xp, _pad(xp, input, w, _lowest(input.dtype)), w).max(axis=(3, 4))
    return k


def _max_pool_grad_kernel(xp):
    def k(orig_input, orig_output, grad, ksize, strides, padding, data_format="NHWC", explicit_paddings=()):
        w = _pool_window("MaxPoolGrad", orig_input.shape, ksize, strides, padding, data_format, _kernel_error)
        if tuple(grad.shape) != tuple(orig_output.shape):
            _kernel_error(f"MaxPoolGrad: grad shape {_fmt(grad.shape)} must match the pooled output shape "
                          f"{_fmt(orig_output.shape)}")
        winner = _argmax_in_window(xp, orig_input, w)
        zero = grad.dtype.type(0)
        return _scatter_windows(xp, lambda i, j: xp.where(winner == i * w.kw + j, grad, zero), w,
                                orig_input.shape, grad.dtype)
    return k


def _max_pool_grad_grad_kernel(xp):
    def k(orig_input, orig_output, grad, ksize, strides, padding, data_format="NHWC", explicit_paddings=()):
        w = _pool_window("MaxPoolGradGrad", orig_input.shape, ksize, strides, padding, data_format, _kernel_error)
        winner = _argmax_in_window(xp, orig_input, w)
        windows = _windows(xp, _pad(xp, grad, w, 0), w)
        n, oh, ow, kh, kw, c = windows.shape
        picked = xp.take_along_axis(windows.reshape(n, oh, ow, kh * kw, c), winner[:, :, :, None, :], axis=3)
        return picked[:, :, :, 0, :]
    return k


def _pool_infer(ic):
    x = ic.shape(0)
    ksize, strides, padding, data_format = _pool_attrs(ic.attrs)
    if x.rank is None:
        return [(ic.dtype(0), TensorShape([None] * 4))]
    dims = x.as_list()
    w = _pool_window(ic.op_name, dims, ksize, strides, padding, data_format, ic.error)
    return [(ic.dtype(0), TensorShape([dims[0], w.oh, w.ow, dims[3]]))]


def _max_pool_grad(op, grad):
    return execute(_MAX_POOL_GRAD, (op.inputs[0], op.outputs[0], grad), op.attrs)


def _max_pool_grad_grad(op, grad):
    orig_input, orig_output, _ = op.inputs
    return (array_ops.zeros_like(orig_input), array_ops.zeros_like(orig_output),
            execute(_MAX_POOL_GRAD_GRAD, (orig_input, orig_output, grad), op.attrs))


def _max_pool_grad_grad_grad(op, grad):
    orig_input, orig_output, _ = op.inputs
    return (array_ops.zeros_like(orig_input), array_ops.zeros_like(orig_output),
            execute(_MAX_POOL_GRAD, (orig_input, orig_output, grad), op.attrs))


_MAX_POOL = register_op("MaxPool", kernel=_max_pool_kernel, infer=_pool_infer, grad=_max_pool_grad,
                        saves_inputs=True, saves_outputs=True, doc="Max over each window, NHWC.")
_MAX_POOL_GRAD = register_op(
    "MaxPoolGrad", kernel=_max_pool_grad_kernel, infer=lambda ic: [(ic.dtype(2), ic.shape(0))],
    grad=_max_pool_grad_grad, saves_inputs=True, saves_outputs=False,
    doc="Route each window's gradient to its first maximum (TF's CPU tie rule).")
_MAX_POOL_GRAD_GRAD = register_op(
    "MaxPoolGradGrad", kernel=_max_pool_grad_grad_kernel, infer=lambda ic: [(ic.dtype(2), ic.shape(1))],
    grad=_max_pool_grad_grad_grad, saves_inputs=True, saves_outputs=False,
    doc="Pick, in each window, the value at the window's first maximum: the gradient of MaxPoolGrad.")


def _avg_counts(xp, w, h, wd, dtype):
    """How many real (un-padded) inputs each window covers: TF averages over those only."""
    ones = xp.ones((1, h, wd, 1), dtype=dtype)
    return _windows(xp, _pad(xp, ones, w, 0), w).sum(axis=(3, 4))


def _avg_pool_kernel(xp):
    def k(value, ksize, strides, padding, data_format="NHWC"):
        w = _pool_window("AvgPool", value.shape, ksize, strides, padding, data_format, _kernel_error)
        sums = _windows(xp, _pad(xp, value, w, 0), w).sum(axis=(3, 4))
        return (sums / _avg_counts(xp, w, value.shape[1], value.shape[2], value.dtype)).astype(value.dtype)
    return k


def _avg_pool_grad_kernel(xp):
    def k(orig_input_shape, grad, ksize, strides, padding, data_format="NHWC"):
        shape = array_ops._ints(orig_input_shape)
        w = _pool_window("AvgPoolGrad", shape, ksize, strides, padding, data_format, _kernel_error)
        share = grad / _avg_counts(xp, w, shape[1], shape[2], grad.dtype)
        return _scatter_windows(xp, lambda i, j: share, w, shape, grad.dtype)
    return k


def _avg_pool_grad_infer(ic):
    return [(ic.dtype(1), TensorShape(_sizes_or_none(ic, 0)))]


_AVG_POOL = register_op(
    "AvgPool", kernel=_avg_pool_kernel, infer=_pool_infer,
    grad=lambda op, g: execute(_AVG_POOL_GRAD, (int_tensor(array_ops.static_or_dynamic_shape(op.inputs[0])), g),
                               op.attrs),
    saves_inputs=False, saves_outputs=False, quiet_fp=True,
    doc="Mean over each window (padding excluded), NHWC.")
_AVG_POOL_GRAD = register_op(
    "AvgPoolGrad", kernel=_avg_pool_grad_kernel, infer=_avg_pool_grad_infer,
    grad=lambda op, g: (None, execute(_AVG_POOL, (g,), op.attrs)), saves_inputs=False, saves_outputs=False,
    quiet_fp=True,
    doc="Spread each window's gradient evenly over the inputs it averaged.")


def _pool(op, op_name, input, ksize, strides, padding, data_format, name, dtypes_allowed):  # noqa: A002
    x = to_tensor(input)
    check_dtype(op_name, x, dtypes_allowed, "input")
    padding, _ = _padding_attrs(op_name, padding, allow_explicit=False)
    channel_index = 1 if data_format.startswith("NC") else 3
    attrs = {"ksize": tuple(_get_sequence(ksize, 2, channel_index, "ksize")),
             "strides": tuple(_get_sequence(strides, 2, channel_index, "strides")),
             "padding": padding, "data_format": data_format}
    return execute(op, (x,), attrs, name=name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Max over each ``ksize`` window of an NHWC tensor.

    The gradient (``MaxPoolGrad``) goes to the *first* maximum of each window in
    row-major order, as TF's CPU kernel does; its own gradient is ``MaxPoolGradGrad``.
    """
    return _pool(_MAX_POOL, "MaxPool", input, ksize, strides, padding, data_format, name, _REAL)


def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """``tf.nn.max_pool`` for rank-4 (2-D pooling) inputs."""
    return max_pool2d(input, ksize, strides, padding, data_format or "NHWC", name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Mean over each ``ksize`` window of an NHWC tensor; with ``SAME`` padding only real inputs count."""
    return _pool(_AVG_POOL, "AvgPool", input, ksize, strides, padding, data_format, name, FLOAT)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """``tf.nn.avg_pool`` for rank-4 (2-D pooling) inputs."""
    return avg_pool2d(input, ksize, strides, padding, data_format or "NHWC", name)


# ======================================================================================
# Embedding lookup and batch normalization (compositions)
# ======================================================================================
__all__ += ["embedding_lookup", "batch_normalization", "top_k"]

from .sort_ops import top_k  # noqa: E402  (tf.nn.top_k is tf.math.top_k)


def _clip_rows(embeddings, ids_rank, max_norm):
    """Scale each embedding (the dims after the ids' dims) down to an L2 norm of at most ``max_norm``."""
    r = embeddings.shape.rank
    axes = list(range(ids_rank, r))
    if not axes:
        return embeddings
    return clip_by_norm(embeddings, max_norm, axes=axes)


def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows of ``params`` at ``ids``: ``gather(params, ids)``, shape ``ids.shape + params.shape[1:]``.

    ``params`` may also be a list of tensors sharded along dimension 0 with TF2's
    ``"div"`` strategy (contiguous blocks, the first ``total % n`` shards one row
    longer); the ids are then routed with ``dynamic_partition`` and put back with
    ``dynamic_stitch``, as TF does. ``max_norm``: each looked-up embedding is scaled
    down to at most that L2 norm. Eagerly, the gradient for a single ``params`` tensor
    is a ``tf.IndexedSlices`` (it comes from ``gather``'s), as in TF; inside graphs
    and tf.function it is dense.
    """
    if isinstance(params, (list, tuple)):
        params = [to_tensor(p) for p in params]
    else:
        params = [to_tensor(params)]
    if not params:
        raise ValueError("Argument `params` should have at least one element, received an empty list.")
    ids = to_tensor(ids)
    n = len(params)
    if n == 1:
        result = array_ops.gather(params[0], ids)
    else:
        if any(p.shape.rank is None or p.shape[0] is None for p in params):
            raise NotImplementedError("engine's sharded embedding_lookup needs shards of known first dimension")
        total = sum(p.shape[0] for p in params)
        per, extras = total // n, total % n
        flat = math_ops.cast(array_ops.reshape(ids, [-1]), dtypes.int32)
        assign = math_ops.maximum(math_ops.floordiv(flat, per + 1),
                                  math_ops.floordiv(flat - extras, per) if per else flat)
        in_first = math_ops.less(assign, extras)
        local = array_ops.where(in_first, math_ops.floormod(flat, per + 1),
                                math_ops.floormod(flat - extras, per) if per else flat * 0)
        gather_ids = segment_ops.dynamic_partition(local, assign, n)
        positions = segment_ops.dynamic_partition(array_ops.range(array_ops.size(flat)), assign, n)
        parts = [array_ops.gather(p, g) for p, g in zip(params, gather_ids)]
        stitched = segment_ops.dynamic_stitch(positions, parts)
        inner = params[0].shape.as_list()[1:]
        target = array_ops.static_or_dynamic_shape(ids)
        target = target + inner if isinstance(target, list) and None not in inner else array_ops.concat(
            [array_ops.shape(ids), array_ops.shape(params[0])[1:]], 0)
        result = array_ops.reshape(stitched, target)
    if max_norm is not None:
        if ids.shape.rank is None:
            raise NotImplementedError("engine's embedding_lookup with max_norm needs ids of known rank")
        result = _clip_rows(result, ids.shape.rank, max_norm)
    return result


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``scale * (x - mean) / sqrt(variance + variance_epsilon) + offset``, as TF composes it.

    ``mean``/``variance``/``offset``/``scale`` broadcast against ``x`` (typically the
    output of ``tf.nn.moments``); ``offset`` and ``scale`` may be ``None``.
    Differentiable with respect to every tensor argument.
    """
    x = to_tensor(x)
    mean, variance = to_tensor(mean), to_tensor(variance)
    inv = math_ops.rsqrt(math_ops.add(variance, math_ops.cast(variance_epsilon, variance.dtype)))
    if scale is not None:
        inv = math_ops.multiply(inv, scale)
    shift = math_ops.subtract(offset, math_ops.multiply(mean, inv)) if offset is not None else \
        math_ops.negative(math_ops.multiply(mean, inv))
    return math_ops.add(math_ops.multiply(x, math_ops.cast(inv, x.dtype)), math_ops.cast(shift, x.dtype))


from . import segment_ops  # noqa: E402  (segment_ops builds on this module: imported last)
from .clip_ops import clip_by_norm  # noqa: E402
