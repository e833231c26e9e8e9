"""``tf.GradientTape``: record ops while they run, then walk them backwards.

How it works, in the order a student should read it:

1. **Watching.** A tape keeps a set of *watched* tensor ids. ``tape.watch(x)``
   adds ``x``; reading a trainable variable inside the tape adds the variable
   (``watch_accessed_variables=True``).
2. **Recording.** The dispatcher offers every op it runs to each active tape
   (:meth:`GradientTape._record_operation`). The tape keeps the op only if one
   of its inputs is watched; then its outputs become watched too. So the tape
   holds exactly the ops on a path from a watched tensor, in execution order,
   which is already a topological order. Ops with no gradient are not kept.
3. **Saving only what is needed.** Each op declares whether its gradient reads
   its input values and/or output values. Values it does not need are replaced
   by a :class:`_Meta` record (shape and dtype only), so the tape does not keep
   big arrays alive for nothing (``Add`` needs no values; ``Exp`` needs only
   its output).
4. **The backward walk** (:func:`imperative_grad`). Seed the target with ones,
   visit recorded ops newest-first, call each op's registered gradient function
   with the gradients of its outputs, and accumulate (sum) the gradients
   arriving at each input. A tensor used twice receives two contributions.
5. **Higher order.** Gradient functions are written in engine ops, so while one
   tape runs its backward walk, an *outer* tape records those ops and can
   differentiate them again.

A non-persistent tape frees its records after the first ``gradient`` call and
refuses a second call with ``RuntimeError``, as TF does.
"""
import enum

import numpy as np

from ..framework.backend import NUMPY
from ..framework.context import ctx
from ..framework.dtypes import from_numpy, variant as _VARIANT
from ..framework.registry import call_gradient
from ..framework.tensor import EagerTensor, Tensor
from ..framework.tensor_shape import TensorShape
from ..util import nest
from ..variables import Variable

__all__ = ["GradientTape", "UnconnectedGradients", "record_operation", "stop_recording",
           "imperative_grad"]


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


class _Meta(tuple):
    """Stands in for a tensor whose value the gradient does not need: ``(shape, dtype, id)`` only.

    A tuple subclass so that recording one costs almost nothing; ``shape`` and
    ``dtype`` are built only if a gradient function asks for them.
    """

    __slots__ = ()

    @property
    def shape(self):
        return TensorShape(self[0])

    @property
    def dtype(self):
        return from_numpy(self[1])

    @property
    def _id(self):
        return self[2]

    def __repr__(self):
        return f"<value not kept by the tape: shape={self.shape}, dtype={self.dtype.name}>"


class RecordedOp:
    """One op on the tape, and what a gradient function receives as ``op``.

    It offers TF's ``Operation`` interface (``type``, ``inputs``, ``outputs``,
    ``get_attr``). ``inputs``/``outputs`` hold tensors, or :class:`_Meta`
    records where the op declared it does not need the values. ``backward`` is
    set only for custom ops (custom_gradient, function calls); registry ops use
    their registered gradient.
    """

    __slots__ = ("type", "op_def", "inputs", "outputs", "attrs", "input_ids", "output_ids", "backward",
                 "skip_input_indices")

    def __init__(self, op_def, op_type, inputs, outputs, attrs, input_ids, output_ids, backward=None):
        self.op_def = op_def
        self.type = op_type
        self.inputs = inputs      # tuples of tensors and/or _Meta records
        self.outputs = outputs
        self.attrs = attrs
        self.input_ids = input_ids
        self.output_ids = output_ids
        self.backward = backward
        # Set during the backward walk: inputs that need no gradient (TF's op.skip_input_indices),
        # so gradient functions may skip computing them (e.g. MatMul's gradient for constant data).
        self.skip_input_indices = ()

    @property
    def name(self):
        return self.type

    def get_attr(self, name):
        if name in self.attrs:
            return self.attrs[name]
        if name == "T" and self.inputs:
            return self.inputs[0].dtype
        raise ValueError(f"Operation {self.type} has no attr named '{name}'.")

    def input_grads(self, output_grads):
        """Call the gradient function; always returns one entry per input."""
        if self.backward is not None:
            return call_gradient(self, lambda op, *g: self.backward(*g), output_grads)
        return call_gradient(self, self.op_def.grad, output_grads)

    def __repr__(self):
        return f"<RecordedOp {self.type}>"


def _meta(t):
    try:
        value = t._value  # eager tensors and variables
        return _Meta((value.shape, value.dtype, t._id))
    except AttributeError:
        return t          # symbolic tensors (tapes inside tf.function): keep them, they hold no data


def _keep(tensors, keep):
    """Keep the values a gradient needs: all (True), none (False), or the listed indices (-1 = last)."""
    if keep is True:
        return tuple(tensors)
    if keep is False:
        return tuple([_meta(t) for t in tensors])
    n = len(tensors)
    return tuple([t if i in keep or i - n in keep else _meta(t) for i, t in enumerate(tensors)])


def _shape_only(tensors):
    """What the tape keeps of values a gradient does not read: plain ``(shape, dtype, id)`` tuples.

    The recording hot path. A plain tuple is the cheapest object Python can build
    (a :class:`_Meta` costs a second allocation), and most taped ops never reach
    a gradient (``tf.GradientTape`` records everything in its scope), so the
    tuples become ``_Meta`` records only when :func:`_materialize` needs them.
    The common arities are unrolled: a list comprehension is a function call of
    its own in CPython 3.11. A symbolic input (no ``_value``: a tape inside
    ``tf.function``) takes the general path, which keeps it as it is.
    """
    try:
        if len(tensors) == 1:
            (x,) = tensors
            v = x._value
            return ((v.shape, v.dtype, x._id),)
        if len(tensors) == 2:
            x, y = tensors
            v, w = x._value, y._value
            return ((v.shape, v.dtype, x._id), (w.shape, w.dtype, y._id))
        return tuple([(t._value.shape, t._value.dtype, t._id) for t in tensors])
    except AttributeError:
        return _keep(tensors, False)


def _materialize(record):
    """A tape record ``(op_def, inputs, outputs, attrs)`` as the :class:`RecordedOp` a gradient function sees.

    Plain ``(shape, dtype, id)`` tuples become :class:`_Meta` records; the tensor ids
    the backward walk follows are read off the kept tensors and records.
    """
    op_def, kept_in, kept_out, attrs = record
    inputs, input_ids = [], []
    for x in kept_in:
        if type(x) is tuple:
            x = _Meta(x)
            input_ids.append(x[2])
        else:
            input_ids.append(x._id)
        inputs.append(x)
    if len(kept_out) == 1 and type(kept_out[0]) is not tuple:   # e.g. Exp, Relu: the output is kept
        outputs, output_ids = kept_out, (kept_out[0]._id,)
    else:
        outputs, output_ids = [], []
        for x in kept_out:
            if type(x) is tuple:
                x = _Meta(x)
                output_ids.append(x[2])
            else:
                output_ids.append(x._id)
            outputs.append(x)
        outputs, output_ids = tuple(outputs), tuple(output_ids)
    return RecordedOp(op_def, op_def.name, tuple(inputs), outputs, attrs, tuple(input_ids), output_ids)


class GradientTape:
    """Record operations for automatic differentiation.

    >>> x = tf.Variable(2.0)
    >>> with tf.GradientTape() as tape:
    ...     y = x ** 3
    >>> tape.gradient(y, x)          # 3 * x**2
    <tf.Tensor: shape=(), dtype=float32, numpy=12.0>
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._recording = False
        self._reset_state()

    def _reset_state(self):
        self._records = []           # what was recorded: RecordedOps, or their arguments as a tuple
        self._watched = set()        # ids of watched tensors and variables
        self._variables = {}         # id -> Variable, in watch order

    # --- context manager ---------------------------------------------------------------
    def __enter__(self):
        self._push()
        return self

    def __exit__(self, *exc):
        if self._recording:
            self._pop()
        return False

    def _push(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an "
                             "already-active tape.")
        ctx.tapes.append(self)
        self._recording = True

    def _pop(self):
        ctx.tapes.remove(self)
        self._recording = False

    # --- watching ---------------------------------------------------------------------
    def watch(self, tensor):
        """Track ``tensor`` (or every tensor/variable in a nest) so gradients can flow to it."""
        for t in nest.flatten(tensor):
            if hasattr(t, "_is_variable"):
                self._watch_variable(t)
            elif isinstance(t, Tensor):
                self._watched.add(t._id)
            else:
                raise ValueError(f"Passed in object {t!r} of type '{type(t).__name__}', not tf.Tensor or "
                                 f"tf.Variable or ExtensionType.")

    def _watch_variable(self, variable):
        self._watched.add(variable._id)
        self._variables.setdefault(variable._id, variable)

    def _variable_accessed(self, variable):
        """Called by ``Variable`` reads: auto-watch trainable variables."""
        if self._watch_accessed_variables and variable.trainable:
            self._watch_variable(variable)

    def watched_variables(self):
        """The variables this tape watches, in the order they were first watched."""
        return tuple(self._variables.values())

    # --- recording ----------------------------------------------------------------------
    def _record_operation(self, op_def, inputs, attrs, outputs):
        """Offered every op the dispatcher runs while this tape is active.

        It runs once per op executed under the tape, so it does the least it can:
        check that an input is watched, watch the outputs, and append one tuple
        ``(op_def, inputs, outputs, attrs)`` where values the gradient does not read
        are already reduced to ``(shape, dtype, id)`` (see :func:`_shape_only`).
        Tensor ids, ``_Meta`` records and :class:`RecordedOp` objects are built
        later, only if a gradient is asked for (:attr:`_entries`).
        """
        watched = self._watched
        for t in inputs:
            if t._id in watched:
                break
        else:
            return
        if op_def.grad is None:
            return  # not differentiable: outputs stay unwatched
        for o in outputs:
            watched.add(o._id)
        keep = op_def.saves_inputs
        kept_in = tuple(inputs) if keep is True else _shape_only(inputs) if keep is False else _keep(inputs, keep)
        keep = op_def.saves_outputs
        kept_out = tuple(outputs) if keep is True else _shape_only(outputs) if keep is False else \
            _keep(outputs, keep)
        self._records.append((op_def, kept_in, kept_out, attrs))

    def _record_custom(self, op_type, inputs, outputs, backward):
        """Record an op whose gradient is an arbitrary function (custom_gradient, tf.function calls)."""
        watched = self._watched
        if not any(t._id in watched for t in inputs):
            return
        output_ids = tuple(o._id for o in outputs)
        watched.update(output_ids)
        self._records.append(RecordedOp(
            None, op_type, _keep(inputs, False), _keep(outputs, False), {},
            tuple(t._id for t in inputs), output_ids, backward))

    @property
    def _entries(self):
        """The recorded ops as :class:`RecordedOp` objects, in recording order (None once freed)."""
        records = self._records
        if records is None:
            return None
        for i, r in enumerate(records):
            if type(r) is tuple:
                records[i] = _materialize(r)
        return records

    # --- control ------------------------------------------------------------------------
    def stop_recording(self):
        """``with tape.stop_recording():`` runs ops without recording them on this tape."""
        return _Paused([self])

    def reset(self):
        """Forget everything recorded so far; the tape keeps recording. Only valid inside its ``with``."""
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._reset_state()

    # --- gradients ------------------------------------------------------------------------
    def _check_usable(self):
        if self._entries is None:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of "
                               "gradients (or jacobians)")

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(sum of ``target``)/d(``sources``), with ``sources``' structure.

        ``output_gradients`` seeds the backward pass (default: ones). Integer
        sources get ``None``. ``unconnected_gradients=ZERO`` turns ``None`` for an
        unconnected source into zeros.
        """
        self._check_usable()
        if unconnected_gradients is not UnconnectedGradients.NONE:   # (an Enum call costs a microsecond)
            unconnected_gradients = UnconnectedGradients(unconnected_gradients)
        flat_targets = [_as_target(t) for t in _flatten(target)]
        flat_sources = _flatten(sources)
        for s in flat_sources:
            if type(s) not in _PLAIN_LEAVES and (
                    s is None or not (isinstance(s, Tensor) or hasattr(s, "_is_variable"))):
                raise ValueError(f"Argument `sources` must contain tensors or variables, got {s!r}")
        seeds = None
        if output_gradients is not None:
            seeds = [None if g is None else _as_tensor(g) for g in nest.flatten(output_gradients)]
        with _Paused([self]):
            grads = imperative_grad(self._entries, flat_targets, flat_sources, seeds, unconnected_gradients)
        if not self._persistent:
            self._records = None
            self._watched = set()
        kind = type(sources)
        if kind in _PLAIN_LEAVES:
            return grads[0]
        if (kind is list or kind is tuple) and _is_flat(sources):  # the shortcut of _flatten
            return kind(grads)
        return nest.pack_sequence_as(sources, grads)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """Full Jacobian: result[i] has shape ``target.shape + source[i].shape``.

        Computed row by row (one backward walk per element of ``target``). TF
        vectorizes this with pfor; the values are the same.
        """
        from .. import ops as _ops
        self._check_usable()
        target = _as_tensor(target)
        flat_sources = nest.flatten(sources)
        n = target.shape.num_elements()
        rows = [[] for _ in flat_sources]
        with _Paused([self]):
            for i in range(n):
                seed = _ops.array_ops.reshape(_ops.array_ops.one_hot(i, n, dtype=target.dtype),
                                              target.shape.as_list())
                grads = imperative_grad(self._entries, [target], flat_sources, [seed],
                                        UnconnectedGradients(unconnected_gradients))
                for k, g in enumerate(grads):
                    rows[k].append(g)
            out = []
            for src, r in zip(flat_sources, rows):
                if any(g is None for g in r):
                    out.append(None)
                    continue
                stacked = _ops.array_ops.stack(r) if r else _ops.array_ops.zeros(
                    [0] + src.shape.as_list(), dtype=src.dtype)
                out.append(_ops.array_ops.reshape(stacked, target.shape.as_list() + src.shape.as_list()))
        if not self._persistent:
            self._records = None
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobian: result shape ``target.shape + source.shape[1:]``.

        Assumes example ``b`` of ``target`` depends only on example ``b`` of
        ``source`` (as TF does). One backward walk per non-batch element of target.
        """
        from .. import ops as _ops
        self._check_usable()
        target = _as_tensor(target)
        batch = target.shape[0]
        if source.shape[0] != batch:
            raise ValueError(f"Need first dimension of `target` shape ({target.shape}) and `source` shape "
                             f"({source.shape}) to match.")
        inner = target.shape[1:].num_elements()
        rows = []
        with _Paused([self]):
            for j in range(inner):
                seed = _ops.array_ops.reshape(
                    _ops.array_ops.tile(_ops.array_ops.expand_dims(
                        _ops.array_ops.one_hot(j, inner, dtype=target.dtype), 0), [batch, 1]),
                    target.shape.as_list())
                (g,) = imperative_grad(self._entries, [target], [source], [seed],
                                       UnconnectedGradients(unconnected_gradients))
                if g is None:
                    rows = None
                    break
                rows.append(g)
            result = None
            if rows is not None:
                stacked = _ops.array_ops.stack(rows, axis=1)  # (batch, inner, *source[1:])
                result = _ops.array_ops.reshape(stacked, target.shape.as_list() + source.shape.as_list()[1:])
        if not self._persistent:
            self._records = None
        return result


class _Paused:
    """Temporarily remove tapes from the active list (``stop_recording``, backward walks)."""

    def __init__(self, tapes=None):
        self._tapes = tapes
        self._removed = []

    def __enter__(self):
        tapes = ctx.tapes if self._tapes is None else self._tapes
        self._before = list(ctx.tapes)
        self._removed = [t for t in list(tapes) if t in ctx.tapes]
        for t in self._removed:
            ctx.tapes.remove(t)
        return self

    def __exit__(self, *exc):
        # back in their old order: which tape was entered first decides who records whose ops
        active = ctx.tapes
        ctx.tapes[:] = ([t for t in self._before if t in active or t in self._removed]
                        + [t for t in active if t not in self._before])
        return False


def stop_recording():
    """Pause every active tape (``tf.GradientTape`` internals use this; so does custom_gradient)."""
    return _Paused(None)


def record_operation(op_type, inputs, outputs, backward):
    """Offer a custom op to every active tape. ``backward(*output_grads) -> input_grads``."""
    for tape in ctx.tapes:
        tape._record_custom(op_type, inputs, outputs, backward)


def _as_tensor(x):
    if isinstance(x, EagerTensor):
        return x
    from ..framework.tensor import convert_to_tensor
    if hasattr(x, "_is_variable"):
        return x._read_untracked()
    return convert_to_tensor(x)


def _as_target(x):
    """A gradient target as a tensor. A Variable target stands for the variable itself (its value, under
    the variable's own id), so ``tape.gradient(v, v)`` is ones, as in TF, even if ``v`` was never read."""
    if hasattr(x, "_is_variable"):
        t = x._read_untracked()
        t._id = x._id
        return t
    return _as_tensor(x)


# What ``gradient`` is almost always given: a tensor or variable, or a plain list/tuple of them. For these,
# flattening and packing are trivial, so ``_flatten`` skips ``tf.nest``'s general (and slower) walk.
_PLAIN_LEAVES = (EagerTensor, Variable)


def _is_flat(structure):
    for x in structure:
        if type(x) not in _PLAIN_LEAVES:
            return False
    return True


def _flatten(structure):
    """``nest.flatten``, with a shortcut for a leaf or a flat list/tuple of eager tensors and variables."""
    kind = type(structure)
    if kind in _PLAIN_LEAVES:
        return [structure]
    if (kind is list or kind is tuple) and _is_flat(structure):
        return list(structure)
    return nest.flatten(structure)


def _source_id(s):
    return s._id


def _ops():
    from .. import ops   # late import: the op modules import this one
    return ops


def _carries_gradient(x):
    """Gradients flow into floating values only (and variants: TensorLists), never integers or bools."""
    kind = type(x)   # shortcut: read the NumPy dtype of eager values and tape records directly
    if kind is _Meta:
        if getattr(x[1], "kind", None) == "f":
            return True
    elif kind is EagerTensor and getattr(x._value.dtype, "kind", None) == "f":
        return True
    dtype = x.dtype
    return dtype.is_floating or dtype is _VARIANT


def _filled_like(x, fill):
    """Ones (the default seed) or zeros (for an unused output) shaped like ``x``, a tensor or a ``_Meta``.

    For an eager NumPy value the array is made directly: ``OnesLike``/``ZerosLike``
    have no gradient, so no tape would record them, and running them as ops costs
    several times the array itself. Anything else (other devices, graphs, shape
    records) uses the ops.
    """
    if ctx.graph is None and type(x) is EagerTensor and x._device.backend is NUMPY:
        v = x._value
        return EagerTensor((np.ones_like(v) if fill else np.zeros_like(v))[()], x._device)
    array_ops = _ops().array_ops
    if isinstance(x, Tensor):
        return array_ops.ones_like(x) if fill else array_ops.zeros_like(x)
    return (array_ops.ones if fill else array_ops.zeros)(x.shape.as_list(), dtype=x.dtype)


def imperative_grad(entries, targets, sources, seeds=None,
                    unconnected_gradients=UnconnectedGradients.NONE):
    """The backward walk over a tape's entries. Returns one gradient per source.

    ``seeds[i]`` is the gradient flowing into ``targets[i]`` (default: ones, which
    is how a non-scalar target gets summed).
    """
    source_ids = [_source_id(s) for s in sources]

    # 1. Keep only ops on a path from some source: forward reachability.
    reach = set(source_ids)
    relevant = []
    for e in entries:
        for i in e.input_ids:
            if i in reach:
                relevant.append(e)
                reach.update(e.output_ids)
                break

    # 2. Seed the targets.
    pending = {}  # tensor id -> list of gradient contributions
    for k, t in enumerate(targets):
        seed = seeds[k] if seeds is not None and k < len(seeds) else None
        if seed is None:
            seed = _filled_like(t, 1)
        pending.setdefault(t._id, []).append(seed)

    def total(tid):
        parts = pending.get(tid)
        if not parts:
            return None
        if len(parts) > 1:
            parts[:] = [_ops().math_ops.add_n(parts)]
        return parts[0]

    # 3. Walk newest-first: every consumer of a tensor was recorded after its producer,
    #    so when we reach the producer, the tensor's gradient is complete.
    for e in reversed(relevant):
        output_ids = e.output_ids
        if len(output_ids) == 1:   # the common case, without the list and generator below
            parts = pending.get(output_ids[0])
            if not parts:
                continue
            out_grads = [parts[0] if len(parts) == 1 else total(output_ids[0])]
        else:
            out_grads = [total(o) for o in output_ids]
            if all(g is None for g in out_grads):
                continue
            for k, g in enumerate(out_grads):
                if g is None:  # unused output of a multi-output op: zeros
                    out_grads[k] = _filled_like(e.outputs[k], 0)
        input_ids = e.input_ids
        e.skip_input_indices = tuple([i for i, tid in enumerate(input_ids) if tid not in reach])
        # what e.input_grads(out_grads) does, one call less
        grads = e.input_grads(out_grads) if e.backward is not None else call_gradient(e, e.op_def.grad, out_grads)
        for tid, x, g in zip(input_ids, e.inputs, grads):
            if g is None or not _carries_gradient(x):
                continue  # no gradient flows into integer or boolean values (variants: TensorLists)
            parts = pending.get(tid)
            if parts is None:
                pending[tid] = [g]
            else:
                parts.append(g)

    results = []
    for s, sid in zip(sources, source_ids):
        g = total(sid) if _carries_gradient(s) else None
        if g is None and unconnected_gradients is UnconnectedGradients.ZERO:
            g = _ops().array_ops.zeros_like(s)
        results.append(g)
    return results
