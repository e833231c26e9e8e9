"""The backward walk: reverse-mode differentiation over ops in a topological order.

Both of TensorFlow's ways to ask for gradients come down to one algorithm:

* ``tf.GradientTape.gradient`` (``engine/eager/tape.py``) walks the ops a tape
  recorded while they ran (TF: the C++ tape, ``ComputeGradient`` in
  ``tensorflow/c/eager/tape.h``);
* ``tf.gradients`` (``engine/framework/graph_gradients.py``) walks the nodes of
  a graph (TF: ``_GradientsHelper`` in ``tensorflow/python/ops/gradients_util.py``).

TF writes it twice; the engine writes it once, here. Given ``ops`` in an order
where every op comes after the ops that produced its inputs (the order a tape
recorded them in, or a graph's execution order):

1. **Keep what matters.** Only ops on a path from a *source* can pass a gradient
   to one, so a forward pass over ``ops`` keeps the ops that consume a tensor
   reached from a source, and marks their outputs reached. ``stop_gradients``
   (``tf.gradients`` only) makes a tensor a constant: its producer is not
   walked through, though the tensor itself still receives its gradient.
2. **Seed the targets** with the gradient flowing into each (default: ones, so a
   non-scalar target is summed).
3. **Walk newest-first.** Every consumer of a tensor comes after its producer, so
   when the walk reaches an op, the gradients of its outputs are complete. Sum
   the contributions each output received (a tensor used twice gets two), call
   the op's gradient function with them, and hand each input its share. An op
   also learns which of its inputs need no gradient (``op.skip_input_indices``:
   not reached from a source), so it may skip computing those.
4. **Read off the sources' gradients**; an unconnected source gets ``None``, or
   zeros with ``unconnected_gradients="zero"``.

Gradients flow into floating values only (and variants: TensorLists; resources:
a variable's handle in a graph), never into integers or booleans.

**Summing contributions** follows TF's rule, the same for the tape and for
``tf.gradients`` (TF: ``backprop_util.AggregateIndexedSlicesGradients``): dense
contributions are added (``add_n``); contributions that are all
``tf.IndexedSlices`` (the sparse gradient of ``tf.gather``) are concatenated, so
the sum stays sparse; a dense one among them makes the sum dense
(:func:`engine.framework.indexed_slices.aggregate`). A gradient function
receives a sparse gradient densified, except for the ops that pass it through
unchanged (reading a variable, ``Identity``), as TF's do.

What differs between the tape and a graph is only how an op is read (the walk
reads *records*: the tape's own, or a wrapper around each graph node) and how the
ops a gradient function builds are emitted: that is the :class:`Adapter`.
"""
import enum

from . import dtypes
from .indexed_slices import IndexedSlices, aggregate, densify
from .registry import call_gradient
from .tensor import EagerTensor
from .tensor_shape import TensorShape

__all__ = ["backprop", "Adapter", "TapeTensor", "UnconnectedGradients", "carries_gradient"]


class UnconnectedGradients(enum.Enum):
    """What a gradient is for a source the target does not depend on (TF: ``tf.UnconnectedGradients``)."""

    NONE = "none"
    ZERO = "zero"


class TapeTensor(tuple):
    """What a tape keeps of a tensor whose value the gradient never reads: ``(shape, dtype, id)``.

    TF's C++ tape keeps exactly this for each output it records (``TapeTensor``: id,
    dtype, shape), and drops the values no gradient function reads. A gradient function
    finds one in ``op.inputs``/``op.outputs`` where the value was dropped: it has
    ``shape`` and ``dtype`` (built when asked for, from the NumPy shape tuple and dtype
    stored) and the tensor's id, but no value. ``Add``'s gradient, which only
    unbroadcasts, needs nothing more.
    """

    __slots__ = ()

    @property
    def shape(self):
        return TensorShape(self[0])

    @property
    def dtype(self):
        return dtypes.from_numpy(self[1])

    @property
    def _id(self):
        return self[2]

    def __repr__(self):
        return f"<value not kept by the tape: shape={self.shape}, dtype={self.dtype.name}>"


class Adapter:
    """How one front-end emits the gradient's ops, and reads values: all the walk asks of it besides its ops.

    The ops themselves are *records* that the walk reads directly:

    ``input_ids``, ``output_ids``
        the ids of the tensors the op consumed and produced: how the walk follows a
        tensor from its consumers back to its producer;
    ``inputs``, ``outputs``, ``type``
        TF's ``Operation`` interface, as gradient functions see it;
    ``op_def``, ``backward``
        where the gradient function comes from: ``backward(*output_grads)``, the op's own
        (a ``tf.custom_gradient`` function, a ``tf.function`` call), or else the registered
        gradient ``op_def.grad(op, *output_grads)`` (``None``: the op has no gradient).

    The walk also sets ``skip_input_indices`` on each record it differentiates. A tape's
    :class:`~engine.eager.tape.RecordedOp` is such a record; ``tf.gradients`` wraps each
    graph node in one. The adapter says the rest:

    ``call(op, fn, output_grads)``
        Run the registered gradient ``fn`` of record ``op`` where its ops belong (a graph:
        under a name scope ``<op name>_grad``). ``None`` (the default): call
        ``fn(op, *output_grads)`` directly; eagerly, its ops just run.
    ``ones_like(x)``, ``zeros_like(x)``
        Ones shaped like ``x``: the default seed of a target. Zeros shaped like ``x``: the
        gradient of an output nobody used, and of an unconnected source under
        ``unconnected_gradients="zero"`` (``None`` where there is no such thing).
    ``aggregate(parts)``
        The sum of the contributions a tensor received, dense or sparse: by default
        :func:`engine.framework.indexed_slices.aggregate`, TF's rule for both front-ends.
    ``carries_gradient(x)``
        Can the input or source ``x`` receive a gradient (:func:`carries_gradient`)? A
        front-end may answer faster for the values it keeps.

    TF's C++ tape asks the same of Python through a *VSpace* (``ones_like_fn``,
    ``zeros_like_fn``, ``aggregate_fn``, ..., registered by ``eager/backprop.py``): the walk
    itself builds no op.
    """

    call = None
    aggregate = staticmethod(aggregate)

    def ones_like(self, x):
        raise NotImplementedError(f"{type(self).__name__} must say how to build ones (the default seed)")

    def zeros_like(self, x):
        raise NotImplementedError(f"{type(self).__name__} must say how to build zeros (unused outputs)")

    def carries_gradient(self, x):
        return carries_gradient(x)


def carries_gradient(x):
    """Gradients flow into floating values, variants (TensorLists) and resources (variable handles)."""
    dtype = x.dtype
    return dtype.is_floating or dtype is dtypes.variant or dtype is dtypes.resource


def backprop(ops, targets, sources, seeds, adapter, unconnected_gradients=UnconnectedGradients.NONE,
             stop_ids=None):
    """d(sum of ``targets``)/d(``sources``) over ``ops``: one gradient (or ``None``) per source.

    ``ops`` are in a topological order (producers before consumers); ``targets`` and
    ``sources`` are tensors (anything with an ``_id``). ``seeds[k]`` is the gradient
    flowing into ``targets[k]`` (``None`` or missing: ones). ``ops`` are records, and
    ``adapter`` emits the gradient's ops: both are described in :class:`Adapter`.
    ``stop_ids``: ids of tensors whose producers the walk does not go through
    (``tf.gradients``' ``stop_gradients``).

    The walk visits every op of a training step's backward pass, so its commonest
    cases are spelled out (marked "fast path"); each does exactly what the general
    code does for that case.
    """
    carries = adapter.carries_gradient
    call = adapter.call
    aggregate = adapter.aggregate
    source_ids = [s._id for s in sources]

    # 1. Keep only ops on a path from some source: forward reachability.
    reach = set(source_ids)
    relevant = []
    for op in ops:
        for i in op.input_ids:
            if i in reach:
                if stop_ids and not stop_ids.isdisjoint(op.output_ids):
                    break   # a stopped tensor is a constant: its producer passes no gradient back
                relevant.append(op)
                reach.update(op.output_ids)
                break

    # 2. Seed the targets.
    pending = {}  # tensor id -> the gradient contributions it has received so far
    for k, t in enumerate(targets):
        seed = seeds[k] if seeds is not None and k < len(seeds) else None
        if seed is None:
            seed = adapter.ones_like(t)
        pending.setdefault(t._id, []).append(seed)

    def total(tid):
        """The gradient of tensor ``tid``: its contributions summed (once; the sum replaces them)."""
        parts = pending.get(tid)
        if not parts:
            return None
        if len(parts) > 1:
            parts[:] = [aggregate(_in_tf_order(parts))]
        return parts[0]

    # 3. Walk newest-first: every consumer of a tensor comes after its producer, so when
    #    we reach the producer, the tensor's gradient is complete.
    for op in reversed(relevant):
        output_ids = op.output_ids
        backward = op.backward
        if len(output_ids) == 1:   # fast path: the common case, without the list and generator below
            parts = pending.get(output_ids[0])
            if not parts or backward is None and op.op_def.grad is None:
                continue   # no gradient reached it, or it has none (a graph node; a tape records none)
            out_grads = [parts[0] if len(parts) == 1 else total(output_ids[0])]
            if type(out_grads[0]) is IndexedSlices:
                out_grads = _sparse_into(op, out_grads)
        else:
            if backward is None and op.op_def.grad is None:
                continue
            out_grads = [total(o) for o in output_ids]
            if all(g is None for g in out_grads):
                continue
            for k, g in enumerate(out_grads):
                if g is None:  # an output nobody used: its gradient is zeros
                    out_grads[k] = adapter.zeros_like(op.outputs[k])
            out_grads = _sparse_into(op, out_grads)
        input_ids = op.input_ids
        inputs = op.inputs
        # Inputs that need no gradient (not reached from a source). Fast path: with one or two
        # inputs, the usual "all reached" answer () is found with one or two set lookups.
        if len(input_ids) == 2:
            i0, i1 = input_ids
            op.skip_input_indices = (() if i1 in reach else (1,)) if i0 in reach else \
                ((0,) if i1 in reach else (0, 1))
        elif len(input_ids) == 1:
            op.skip_input_indices = () if input_ids[0] in reach else (0,)
        else:
            op.skip_input_indices = tuple([i for i, tid in enumerate(input_ids) if tid not in reach])
        if backward is not None:
            grads = backward(*out_grads)
        elif call is None:
            grads = op.op_def.grad(op, *out_grads)
        else:
            grads = call(op, op.op_def.grad, out_grads)
        # One gradient per input. Fast path: the usual answer of a gradient function, one per input
        # as a tuple or list (a lone gradient for a one-input op), is used as it is; any other answer
        # goes through ``call_gradient``'s rules and checks.
        kind = type(grads)
        if kind is tuple or kind is list:
            if len(grads) != len(inputs):
                grads = _one_per_input(op, grads)
        elif len(inputs) == 1 and grads is not None and not isinstance(grads, (list, tuple)):
            grads = (grads,)
        else:
            grads = _one_per_input(op, grads)
        for tid, x, g in zip(input_ids, inputs, grads):
            if g is None:
                continue
            # Fast path of ``carries(x)`` for an eager float tensor or a tape's record of one (the usual
            # inputs): the NumPy dtype says it.
            kind = type(x)
            if kind is TapeTensor:
                if getattr(x[1], "kind", None) != "f" and not carries(x):
                    continue   # no gradient flows into integer or boolean values
            elif not (kind is EagerTensor and getattr(x._value.dtype, "kind", None) == "f") and not carries(x):
                continue
            parts = pending.get(tid)
            if parts is None:
                pending[tid] = [g]
            else:
                parts.append(g)

    # 4. The sources' gradients.
    results = []
    for s, sid in zip(sources, source_ids):
        if carries(s):
            g = total(sid)
        else:   # an integer source gets no gradient, unless it is a target itself: then its seed (TF)
            g = total(sid) if any(t._id == sid for t in targets) else None
        if g is None and unconnected_gradients is UnconnectedGradients.ZERO:
            g = adapter.zeros_like(s)
        results.append(g)
    return results


def _in_tf_order(parts):
    """The contributions to one tensor in the order TF sums them.

    They arrive in walk order, newest consumer first: dense ones are added in that order;
    sparse ones are concatenated in the order their consumers ran, as TF does.
    """
    for p in parts:
        if type(p) is IndexedSlices:
            return parts[::-1]
    return parts


def _sparse_into(op, out_grads):
    """``out_grads`` as ``op``'s gradient function receives them: ``IndexedSlices`` densified, except
    for the registered gradients of the ops that pass them through unchanged."""
    # Sparse gradients pass unchanged through the ops whose output is their input (a row's
    # ``linear="identity"``: Identity, ReadVariableOp), as in TF; every other gradient function receives them
    # dense. (TF also keeps them sparse through ``Cast``; the engine densifies.)
    if op.backward is None and op.op_def is not None and op.op_def.linear == "identity":
        return out_grads
    return [densify(g) if type(g) is IndexedSlices else g for g in out_grads]


def _one_per_input(op, grads):
    """A gradient function's answer as exactly one entry (gradient or ``None``) per input of ``op``."""
    return call_gradient(op, lambda op, *output_grads: grads, ())
