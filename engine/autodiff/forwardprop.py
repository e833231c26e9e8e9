"""``tf.autodiff.ForwardAccumulator``: forward-mode automatic differentiation.

A ``GradientTape`` computes vector-Jacobian products (VJPs) *after* the forward
pass, walking it backwards. A ``ForwardAccumulator`` computes Jacobian-vector
products (JVPs) *during* the forward pass: each watched tensor (a *primal*)
carries a *tangent* ``t``, and every op that consumes a tensor with a tangent
immediately computes the tangents of its outputs, ``J @ t``::

    with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
        y = f(x)
    acc.jvp(y)           # J_f(x) @ v, with one forward pass and no tape

One pass gives the derivative of *every* output along *one* direction, which
is what you want for few inputs and many outputs (a tape gives the gradient of
one output for every input).

How the accumulator meets the ops
---------------------------------
It is offered every executed op exactly as tapes are: it sits in ``ctx.tapes``
and has the tape interface (``record_operation`` for registry ops,
``record_custom`` for ops with a custom backward function, such as
``tf.function`` calls, ``variable_accessed`` for variable reads). So the
engine's dispatcher needed no new hook at all, and plain eager dispatch (no
tape, no accumulator) still pays one falsy check, ``if ctx.tapes:``.

Where do JVPs come from? The "double VJP" trick
-----------------------------------------------
Every differentiable op in the registry has a gradient function: its VJP,
``g -> J^T g``, written in engine ops. That map is *linear in g*. Its own VJP
(differentiate it with respect to ``g``) is the transpose of ``J^T``, i.e.
``t -> J t``: the JVP we want. So, for one op::

    g = ones_like(y)                     # any value works: J^T g is linear in g
    with GradientTape() as inner:
        inner.watch(g)
        v = op_grad(op, g)               # v = J^T g, recorded as ops of g
    jvp = inner.gradient(v, g, output_gradients=t)    # d<v, t>/dg = J t

This is the trick TensorFlow itself uses for ops without a hand-written JVP
(``forwardprop_util`` / ``_jvp_helper``): it covers the whole registry, and
``tf.custom_gradient`` functions and function calls (their backward function
plays the role of ``op_grad``), with no per-op code. It costs a backward pass
and a second-order backward pass per op, so the commonest ops are handled
directly, by what their registry row says (its ``linear`` trait):

* **linear** ops (``"linear"``: ``Add``, ``Reshape``, ``Sum``, ``ConcatV2``...):
  the JVP is the op itself applied to the tangents (zeros for inputs without one);
* **multilinear** ops (``"multilinear"``: ``Mul``, ``MatMul``, ``Conv2D``,
  ``Einsum``...): linear in each input separately, so
  ``J t = sum_i op(x_1, .., t_i, .., x_n)``;
* **identity** ops (``"identity"``: ``Identity``, ``ReadVariableOp``): the
  output is the input's value, so the tangent passes through unchanged.

``tests/test_forwardprop.py`` checks every such op against the double VJP.

Nesting (TF's rule): an accumulator's JVP computations are visible to the tapes
and accumulators that were active when it was *entered* (outer ones), never to
inner ones. An outer ``GradientTape`` can therefore differentiate a JVP
(backward-over-forward), and an outer accumulator can take the JVP of the
backward pass of an inner tape (forward-over-backward: Hessian-vector
products) or of an inner accumulator's JVPs (higher-order forward mode).

Deliberate differences from TF
------------------------------
* A tangent whose shape differs from its primal's is rejected when the
  accumulator is created (TF fails later, inside the first op that uses it).
* Tangents are kept for every tensor computed under the accumulator while the
  accumulator object lives (TF drops them when the tensors die).
* ``tf.custom_gradient``: TF propagates tangents through the *forward* ops of
  the decorated function; the engine's ``custom_gradient`` runs the function
  with recording paused, so the accumulator derives the JVP from the custom
  gradient function instead (the same value when the custom gradient is the
  true derivative).
* A ``tf.function`` call under an accumulator without any tape has an opaque
  (compiled) backward function; its JVP is then computed by probing that
  backward function once per output element (exact, but slow for big outputs).
"""
import warnings

import numpy as np

from ..eager.execute import execute
from ..eager.tape import GradientTape, RecordedOp, UnconnectedGradients
from ..framework.context import ctx
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor, convert_to_tensor
from ..ops import array_ops, math_ops, reduction_ops
from ..util import nest

__all__ = ["ForwardAccumulator"]

USE_RULES = True       # False: every JVP by the double-VJP trick, whatever the rows say (the tests compare both)
MAX_PROBES = 4096      # output elements allowed when a backward function is opaque (see _jvp_by_probing)


class ForwardAccumulator:
    """Computes Jacobian-vector products with forward-mode autodiff.

    >>> x = tf.constant([1.0, 2.0])
    >>> with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])) as acc:
    ...     y = tf.reduce_sum(x ** 3.0)
    >>> acc.jvp(y)                        # 3 * x[0]**2 * 1 + 3 * x[1]**2 * 0
    <tf.Tensor: shape=(), dtype=float32, numpy=3.0>

    ``primals``: tensors or variables (a nest); ``tangents``: the direction, the
    same structure, each tangent converted to its primal's dtype.
    """

    _is_forward_accumulator = True

    def __init__(self, primals, tangents):
        self._tangents = {}        # tensor/variable id -> tangent tensor
        self._recording = False
        self._outer_ids = frozenset()
        seen = set()
        for primal in nest.flatten(primals):
            if id(primal) in seen:
                raise ValueError(f"Tensor {primal!r} was specified as a primal multiple times. This may indicate "
                                 f"an error. If it was intended, please sum the corresponding tangents.")
            seen.add(id(primal))
        nest.assert_same_structure(primals, tangents)
        for primal, tangent in zip(nest.flatten(primals), nest.flatten(tangents)):
            self._watch(primal, tangent)

    def _watch(self, primal, tangent):
        if not (isinstance(primal, Tensor) or hasattr(primal, "_is_variable")):
            raise ValueError(f"Primals must be tensors or variables, got {primal!r} of type "
                             f"{type(primal).__name__}.")
        if not primal.dtype.is_floating:
            warnings.warn(f"The dtype of the watched primal must be floating (e.g. tf.float32), got "
                          f"{primal.dtype!r}")
        tangent = convert_to_tensor(tangent, dtype=primal.dtype)
        if not primal.shape.is_compatible_with(tangent.shape):
            raise ValueError(f"A tangent must have its primal's shape: the primal {getattr(primal, 'name', '')} "
                             f"has shape {primal.shape}, the tangent has shape {tangent.shape}.")
        self._tangents[primal._id] = tangent

    # --- context manager (the tape protocol) -------------------------------------------
    def __enter__(self):
        if self._recording:
            raise ValueError("Accumulator is already recording.")
        self._outer_ids = frozenset(id(t) for t in ctx.tapes)
        ctx.tapes.append(self)
        self._recording = True
        return self

    def __exit__(self, *exc):
        if self._recording:
            if self in ctx.tapes:
                ctx.tapes.remove(self)
            self._recording = False
        return False

    # --- results -------------------------------------------------------------------------
    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The tangent (``J @ v``) of each tensor in ``primals``: ``None`` (or zeros) if it has none."""
        unconnected_gradients = UnconnectedGradients(unconnected_gradients)

        def fetch(tensor):
            result = self._tangents.get(getattr(tensor, "_id", None))
            if result is None and unconnected_gradients is UnconnectedGradients.ZERO:
                with _Hidden(self):
                    result = array_ops.zeros_like(tensor)
            return result
        return nest.map_structure(fetch, primals)

    # --- what the dispatcher calls -------------------------------------------------------
    def variable_accessed(self, variable):
        pass  # a variable carries a tangent only if it was passed as a primal

    def record_operation(self, op_def, inputs, attrs, outputs):
        """A registry op ran: if a floating input has a tangent, compute the outputs' tangents now."""
        tangents = self._tangents
        for t in inputs:
            if t._id in tangents:
                break
        else:
            return
        if op_def.grad is None:
            return  # not differentiable: no tangent flows through (as TF)
        in_tangents = [tangents.get(t._id) if t.dtype.is_floating else None for t in inputs]
        if all(t is None for t in in_tangents):
            return
        with _Hidden(self):
            out_tangents = _op_jvp(op_def, inputs, attrs, outputs, in_tangents)
        self._store(outputs, out_tangents)

    def record_custom(self, op_type, inputs, outputs, backward):
        """An op with a custom backward function (custom_gradient, function calls): JVP by double VJP."""
        tangents = self._tangents
        in_tangents = [tangents.get(t._id) if t.dtype.is_floating else None for t in inputs]
        if all(t is None for t in in_tangents):
            return
        if all(o._id in tangents for o in outputs if o.dtype.is_floating):
            return  # the forward ops already gave every output a tangent
        op = RecordedOp(None, op_type, tuple(inputs), tuple(outputs), {}, tuple(t._id for t in inputs),
                        tuple(o._id for o in outputs), backward)
        with _Hidden(self):
            out_tangents = _jvp_by_double_vjp(op, in_tangents)
        self._store(outputs, out_tangents)

    def _store(self, outputs, out_tangents):
        for o, t in zip(outputs, out_tangents):
            if t is not None and o.dtype.is_floating:
                self._tangents[o._id] = t

    def __repr__(self):
        return f"<ForwardAccumulator: {len(self._tangents)} tangents, recording={self._recording}>"


class _Hidden:
    """While an accumulator computes JVPs, only the tapes/accumulators outer to it see the ops.

    ``ctx.tapes`` is *replaced* (not mutated), so a dispatcher loop iterating the
    original list is not disturbed; the original list comes back afterwards.
    """

    __slots__ = ("_acc", "_saved")

    def __init__(self, accumulator):
        self._acc = accumulator

    def __enter__(self):
        self._saved = ctx.tapes
        outer = self._acc._outer_ids
        ctx.tapes = [t for t in self._saved if id(t) in outer]

    def __exit__(self, *exc):
        ctx.tapes = self._saved
        return False


# --------------------------------------------------------------------------------------
# JVP rules
# --------------------------------------------------------------------------------------
def _op_jvp(op_def, inputs, attrs, outputs, in_tangents):
    """Output tangents of one registry op (a list, one entry or None per output).

    The row's ``linear`` trait picks a rule: ``"identity"`` (the tangent passes through),
    ``"linear"`` (the op applied to the tangents), ``"multilinear"`` (one term per input).
    """
    name = op_def.name
    kind = op_def.linear if USE_RULES else None
    if kind == "identity":
        return [in_tangents[0]]
    if kind == "linear":
        return _linear_jvp(op_def, inputs, attrs, in_tangents)
    if kind == "multilinear":
        return _multilinear_jvp(op_def, inputs, attrs, in_tangents)
    op = RecordedOp(op_def, name, tuple(inputs), tuple(outputs), attrs, tuple(t._id for t in inputs),
                    tuple(o._id for o in outputs))
    return _jvp_by_double_vjp(op, in_tangents)


def _run(op_def, args, attrs):
    result = execute(op_def, tuple(args), attrs)
    return result if isinstance(result, list) else [result]


def _linear_jvp(op_def, inputs, attrs, in_tangents):
    args = []
    for x, t in zip(inputs, in_tangents):
        if x.dtype.is_floating:
            args.append(t if t is not None else array_ops.zeros_like(x))
        else:
            args.append(x)
    return _run(op_def, args, attrs)


def _multilinear_jvp(op_def, inputs, attrs, in_tangents):
    total = None
    for i, t in enumerate(in_tangents):
        if t is None:
            continue
        args = list(inputs)
        args[i] = t
        term = _run(op_def, args, attrs)
        total = term if total is None else [math_ops.add(a, b) for a, b in zip(total, term)]
    return total


def _jvp_by_double_vjp(op, in_tangents):
    """``J t`` as the VJP of the (linear) VJP ``g -> J^T g``: see the module docstring."""
    outputs = op.outputs
    n = len(outputs)
    floats = [k for k, o in enumerate(outputs) if o.dtype.is_floating]
    if not floats:
        return [None] * n
    seeds = [array_ops.ones_like(o) if o.dtype.is_floating else array_ops.zeros_like(o) for o in outputs]
    op.skip_input_indices = tuple(i for i, t in enumerate(in_tangents) if t is None)
    inner = GradientTape(watch_accessed_variables=False)
    with inner:
        for k in floats:
            inner.watch(seeds[k])
        vjps = op.input_grads(seeds)
        # A sparse VJP (gather's IndexedSlices) is densified here, on the inner tape, so it stays differentiable.
        vjps = [convert_to_tensor(v) if isinstance(v, IndexedSlices) else v for v in vjps]
    pairs = [(v, t) for v, t in zip(vjps, in_tangents) if v is not None and t is not None]
    connected = [(v, t) for v, t in pairs if v._id in inner._watched]
    if len(connected) < len(pairs) and _opaque(op, in_tangents, vjps, inner):
        return _jvp_by_probing(op, in_tangents)
    if not connected:
        return [None] * n
    grads = inner.gradient([v for v, _ in connected], [seeds[k] for k in floats],
                           output_gradients=[t for _, t in connected])
    out = [None] * n
    for k, g in zip(floats, grads):
        out[k] = g
    return out


def _opaque(op, in_tangents, vjps, inner):
    """True if a VJP that the inner tape did not see depend on the seed is in fact not constant.

    A linear map that does not depend on its argument is zero; a backward function
    that computes outside the engine's ops (a compiled ``tf.function`` plan)
    looks constant to the tape but is not. Probe it at a second, random seed.
    """
    rng = np.random.default_rng(0)
    seeds = [convert_to_tensor(rng.standard_normal(o.shape.as_list()).astype(o.dtype.as_numpy_dtype))
             if o.dtype.is_floating else array_ops.zeros_like(o) for o in op.outputs]
    again = op.input_grads(seeds)
    for v, v2, t in zip(vjps, again, in_tangents):
        if t is None or v is None or v._id in inner._watched:
            continue
        if np.any(np.asarray(v.numpy()) != 0) or (v2 is not None and np.any(np.asarray(v2.numpy()) != 0)):
            return True
    return False


def _jvp_by_probing(op, in_tangents):
    """``(J t)[k] = <J^T e_k, t>`` for every output element ``k``: one backward call per element."""
    outputs = op.outputs
    sizes = [o.shape.num_elements() if o.dtype.is_floating else 0 for o in outputs]
    if any(s is None for s in sizes) or sum(sizes) > MAX_PROBES:
        raise NotImplementedError(
            f"ForwardAccumulator: the backward function of '{op.type}' is opaque to tapes (a compiled "
            f"tf.function), and its outputs have too many elements ({sum(s or 0 for s in sizes)}) to probe it "
            f"element by element. Open a tf.GradientTape around the call too (the function then runs op by op), "
            f"or call the Python function without tf.function.")
    results = []
    for k, out in enumerate(outputs):
        if not out.dtype.is_floating:
            results.append(None)
            continue
        values = []
        for e in range(sizes[k]):
            seeds = [array_ops.zeros_like(o) for o in outputs]
            seeds[k] = array_ops.reshape(array_ops.one_hot(e, sizes[k], dtype=out.dtype), out.shape.as_list())
            dot = None
            for v, t in zip(op.input_grads(seeds), in_tangents):
                if v is None or t is None:
                    continue
                term = reduction_ops.reduce_sum(math_ops.multiply(math_ops.cast(v, t.dtype), t))
                dot = term if dot is None else math_ops.add(dot, term)
            values.append(math_ops.cast(dot, out.dtype) if dot is not None
                          else array_ops.zeros([], dtype=out.dtype))
        stacked = array_ops.stack(values) if values else array_ops.zeros([0], dtype=out.dtype)
        results.append(array_ops.reshape(stacked, out.shape.as_list()))
    return results

