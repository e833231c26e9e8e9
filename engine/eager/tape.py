"""``tf.GradientTape``: record ops while they run, then walk them backwards.

How it works, in the order a student should read it:

1. **Watching.** A tape keeps a set of *watched* tensor ids. ``tape.watch(x)``
   adds ``x``; reading a trainable variable inside the tape adds the variable
   (``watch_accessed_variables=True``).
2. **Recording.** The dispatcher offers every op it runs to each active tape
   (:meth:`GradientTape.record_operation`). The tape keeps the op only if one
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
refuses a second call with ``RuntimeError``, as TF does. Called inside the
tape's own ``with`` block, ``gradient`` stops a non-persistent tape for good,
while a persistent tape goes on recording, the gradient's own ops included (TF
logs a warning about the cost): that is how one persistent tape can take a
second derivative of what it computed inside its block.

The argument checks and their error classes follow TF 2.21 (recorded in
``tests/conformance/test_gradient_tape_api.py``); none of them is on the
recording path, which stays as short as it can be.
"""
import enum
import logging
import sys

import numpy as np

from ..framework.backend import NUMPY
from ..framework.context import ctx
from ..framework.dtypes import from_numpy, variant as _VARIANT
from ..framework.indexed_slices import IndexedSlices, aggregate as aggregate_indexed_slices, \
    densify as densify_indexed_slices
from ..framework.registry import call_gradient
from ..framework.tensor import EagerTensor, Tensor
from ..framework.tensor_shape import TensorShape
from .. import seams
from ..util import nest
from ..variables import Variable

__all__ = ["GradientTape", "UnconnectedGradients", "record_operation", "stop_recording",
           "imperative_grad", "push_tape", "pop_tape", "TAPE_PROTOCOL"]

logger = logging.getLogger("tensorflow")


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

    This runs once per recorded op before every backward walk, so the commonest
    shapes of record (one or two inputs, one output) are unrolled: no lists to
    grow and convert, just the two tuples the :class:`RecordedOp` keeps. They
    hold exactly what the general loop below would build.
    """
    op_def, kept_in, kept_out, attrs = record
    if len(kept_out) == 1:
        (o,) = kept_out
        if type(o) is tuple:
            o = _Meta(o)
            outputs, output_ids = (o,), (o[2],)
        else:                      # e.g. Exp, Relu: the output is kept (or an already-built _Meta)
            outputs, output_ids = kept_out, (o._id,)
        n = len(kept_in)
        if n == 2:
            x, y = kept_in
            if type(x) is tuple:
                x = _Meta(x)
                xi = x[2]
            else:
                xi = x._id
            if type(y) is tuple:
                y = _Meta(y)
                yi = y[2]
            else:
                yi = y._id
            return RecordedOp(op_def, op_def.name, (x, y), outputs, attrs, (xi, yi), output_ids)
        if n == 1:
            (x,) = kept_in
            if type(x) is tuple:
                x = _Meta(x)
                xi = x[2]
            else:
                xi = x._id
            return RecordedOp(op_def, op_def.name, (x,), outputs, attrs, (xi,), output_ids)
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
    inputs, input_ids = [], []
    for x in kept_in:
        if type(x) is tuple:
            x = _Meta(x)
            input_ids.append(x[2])
        else:
            input_ids.append(x._id)
        inputs.append(x)
    return RecordedOp(op_def, op_def.name, tuple(inputs), outputs, attrs, tuple(input_ids), output_ids)


# --------------------------------------------------------------------------------------
# The tape seam: what the engine asks of a tape
# --------------------------------------------------------------------------------------
TAPE_PROTOCOL = ("record_operation", "record_custom", "variable_accessed", "watch", "gradient",
                 "__enter__", "__exit__")
"""The methods of a tape. The engine calls the first three on every tape in ``ctx.tapes``:

``record_operation(op_def, inputs, attrs, outputs)``
    A registry op ran (eagerly, or was added to a graph being traced). ``op_def`` is
    its registry row: ``op_def.name`` (``"Mul"``) and ``op_def.grad``, the gradient
    function, ``None`` for ops that have none. ``inputs``/``outputs`` are tensors;
    a variable read is a ``ReadVariableOp`` whose input is the ``Variable`` itself.
``record_custom(op_type, inputs, outputs, backward)``
    An op with its own backward function ran: a ``tf.custom_gradient`` function,
    a ``tf.function`` call. ``backward(*output_grads)`` returns one gradient per input.
``variable_accessed(variable)``
    A variable was read or assigned; called *before* its ``ReadVariableOp`` is
    recorded, so a tape that watches accessed variables sees the read as watched.

``watch``, ``gradient``, ``__enter__`` and ``__exit__`` are what users call; a tape
joins and leaves ``ctx.tapes`` with :func:`push_tape` and :func:`pop_tape`.
"""


def push_tape(tape):
    """Make ``tape`` active: from now on the engine offers it every op it runs."""
    ctx.tapes.append(tape)


def pop_tape(tape):
    """Stop offering ops to ``tape`` (nothing happens if it is not active)."""
    if tape in ctx.tapes:
        ctx.tapes.remove(tape)


class _TapeSeamMeta(type):
    """``tf.GradientTape(...)`` builds the tape that fills the ``tape`` seam now (see ``engine.seams``)."""

    def __call__(cls, *args, **kwargs):
        if cls is GradientTape:
            implementation = _TAPE_SEAM.current
            if implementation is not GradientTape:
                return implementation(*args, **kwargs)
        return super().__call__(*args, **kwargs)


class GradientTape(metaclass=_TapeSeamMeta):
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
        # ``_records is None`` means "no tape yet" (TF: ``self._tape is None``): never entered, or a
        # non-persistent tape whose gradient was taken. Entering the tape then starts a fresh one.
        self._records = None
        self._watched = set()
        self._variables = {}

    def _reset_state(self):
        self._records = []           # what was recorded: RecordedOps, or their arguments as a tuple
        self._watched = set()        # ids of watched tensors and variables
        self._variables = {}         # id -> Variable

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
        if self._records is None:
            self._reset_state()
        push_tape(self)
        self._recording = True

    def _pop(self):
        if not self._recording:
            raise ValueError("Tape is not recording.")
        pop_tape(self)   # (a stop_recording() around us may have taken it out already)
        self._recording = False

    # --- watching ---------------------------------------------------------------------
    def watch(self, tensor):
        """Track ``tensor`` (or every tensor/variable in a nest) so gradients can flow to it.

        As in TF: a dtype that cannot carry a gradient (integers, bool, string) logs a
        warning on the ``"tensorflow"`` logger (first 5 times per call site) and is
        watched anyway (its gradient will be ``None``); watching does nothing while no
        tape at all is recording on this thread (e.g. after the ``with`` block, or
        inside ``stop_recording`` with no outer tape), and raises ``AttributeError``
        when this tape has no recording yet (never entered) or any more (a
        non-persistent tape after its ``gradient``).
        """
        for t in nest.flatten(tensor):
            is_variable = hasattr(t, "_is_variable")
            if not is_variable and not isinstance(t, Tensor):
                raise ValueError(f"Passed in object {t} of type {type(t).__name__!r}, not tf.Tensor or "
                                 f"tf.Variable or ExtensionType.")
            dtype = t.dtype
            if not _is_trainable_dtype(dtype):
                _log_first_n("The dtype of the watched tensor must be floating (e.g. tf.float32), got %r", 5,
                             dtype)
            if self._records is None:
                raise AttributeError(
                    "'NoneType' object has no attribute '_tape': GradientTape.watch needs a recording tape; "
                    "this one was never entered (call watch inside `with tape:`) or, being non-persistent, "
                    "was already used by gradient/jacobian.")
            if not ctx.tapes:   # TF: nothing is watched while no tape records on this thread
                continue
            if is_variable:
                self._watch_variable(t)
            else:
                self._watched.add(t._id)

    def _watch_variable(self, variable):
        self._watched.add(variable._id)
        self._variables.setdefault(variable._id, variable)

    def variable_accessed(self, variable):
        """Called by ``Variable`` reads: auto-watch trainable variables."""
        if self._watch_accessed_variables and variable.trainable:
            self._watch_variable(variable)

    def watched_variables(self):
        """The variables this tape watches, in order of construction (as TF), not in the order first watched.

        After a non-persistent tape computed its gradient, the variables it watched until then.
        """
        return tuple(sorted(self._variables.values(), key=_source_id))

    # --- recording ----------------------------------------------------------------------
    def record_operation(self, op_def, inputs, attrs, outputs):
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
        if keep is False and len(outputs) == 1:
            # Fast path: ``_shape_only(outputs)`` for the usual single output, inline (one call less per
            # recorded op). A symbolic output (no ``_value``) takes the general path, as there.
            try:
                v = o._value   # (``o``: the only output, from the loop above)
                kept_out = ((v.shape, v.dtype, o._id),)
            except AttributeError:
                kept_out = _shape_only(outputs)
        else:
            kept_out = tuple(outputs) if keep is True else _shape_only(outputs) if keep is False else \
                _keep(outputs, keep)
        self._records.append((op_def, kept_in, kept_out, attrs))

    def record_custom(self, op_type, inputs, outputs, backward):
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
        """``with tape.stop_recording():`` runs ops without recording them on this tape.

        Entering it raises ``RuntimeError`` if the tape has no recording (never entered, or
        used up by ``gradient``) and ``ValueError`` if the tape is not recording right now
        (outside its ``with`` block, or already inside ``stop_recording``), as in TF.
        """
        return _StopRecording(self)

    def reset(self):
        """Forget everything recorded and watched so far; the tape keeps recording.

        The same as leaving the ``with`` block and entering a new tape. Only valid while
        the tape records (``ValueError`` otherwise).
        """
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._reset_state()

    # --- gradients ------------------------------------------------------------------------
    def _check_usable(self):
        if self._records is None:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of "
                               "gradients (or jacobians)")

    def _leave_for_backward(self):
        """``gradient``/``jacobian`` called inside this tape's own ``with`` block: TF's rules.

        A non-persistent tape stops recording for good (the end of the ``with`` block then
        does nothing more). A persistent one keeps recording: the gradient's own ops are
        recorded on it, which is how it can differentiate them again, at a cost that TF
        warns about.
        """
        if not self._persistent:
            self._pop()
        else:
            _log_first_n(_INSIDE_CONTEXT_WARNING, 1)

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(sum of ``target``)/d(``sources``), with ``sources``' structure.

        ``target`` and ``sources`` are tensors or variables, or nests of them.
        ``output_gradients`` seeds the backward pass (default: ones): it is flattened
        and matched to the flattened targets in order (missing seeds are ones, extra
        ones are ignored); each is converted with ``tf.convert_to_tensor``, so a
        Python float seed is float32. Integer sources get ``None``.
        ``unconnected_gradients="zero"`` (or ``UnconnectedGradients.ZERO``) turns
        ``None`` for an unconnected source into zeros.

        Errors, as TF: ``RuntimeError`` on a used non-persistent tape, ``TypeError``
        for ``target=None``, ``TypeError``/``AttributeError``/``ValueError`` for
        non-tensors in ``target``/``sources`` (TF's classes), ``ValueError`` for an
        unknown ``unconnected_gradients`` or a ``None`` in ``output_gradients``.
        Called inside the ``with`` block, see :meth:`_leave_for_backward`.
        """
        self._check_usable()
        if self._recording:
            self._leave_for_backward()
        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of Tensors, Variables or "
                            "CompositeTensors to be differentiated, but received None.")
        flat_targets = [_as_target(t, True) for t in _flatten(target)]
        flat_sources = _flatten(sources)
        for s in flat_sources:
            if type(s) not in _PLAIN_LEAVES and not (isinstance(s, Tensor) or hasattr(s, "_is_variable")):
                raise _bad_argument(s, "sources")
        if unconnected_gradients is not UnconnectedGradients.NONE:   # (an Enum call costs a microsecond)
            unconnected_gradients = _unconnected(unconnected_gradients)
        seeds = None
        if output_gradients is not None:
            seeds = [_as_tensor(g) for g in nest.flatten(output_gradients)]
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
        """Full Jacobian: result[i] has shape ``target.shape + source[i].shape`` (``None`` if unconnected).

        ``target`` is one tensor (or variable). Computed row by row (one backward
        walk per element of ``target``); TF vectorizes this with pfor, the values
        are the same. As in TF, ``experimental_use_pfor=False`` needs a persistent
        tape when executing eagerly (``RuntimeError``).
        """
        from .. import ops as _ops
        self._check_usable()
        flat_sources = nest.flatten(sources)
        if not hasattr(target, "shape"):
            raise AttributeError(f"'{type(target).__name__}' object has no attribute 'shape': "
                                 f"GradientTape.jacobian takes one tensor as `target` (tf.stack a list of them).")
        if not experimental_use_pfor and not self._persistent and ctx.graph is None:
            raise RuntimeError("GradientTape must be created with persistent=True to compute the jacobian with "
                               "eager execution enabled and with experimental_use_pfor set to False.")
        for s in flat_sources:
            if not (isinstance(s, Tensor) or hasattr(s, "_is_variable")):
                raise _bad_argument(s, "sources")
        unconnected_gradients = _unconnected(unconnected_gradients, experimental_use_pfor and "jacobian")
        if self._recording:
            self._leave_for_backward()
        target = _as_target(target)
        n = target.shape.num_elements()
        rows = [[] for _ in flat_sources]
        entries = self._entries
        for i in range(n):
            seed = _ops.array_ops.reshape(_ops.array_ops.one_hot(i, n, dtype=target.dtype),
                                          target.shape.as_list())
            grads = imperative_grad(entries, [target], flat_sources, [seed], unconnected_gradients)
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
            self._watched = set()
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobian: result shape ``target.shape + source.shape[1:]``.

        ``target`` (``[b, y1, ...]``) and ``source`` (``[b, x1, ...]``) must both have
        rank at least 2 and the same first dimension (``ValueError``, as TF). Assumes
        example ``b`` of ``target`` depends only on example ``b`` of ``source`` (as TF
        does). One backward walk per non-batch element of target. As in TF, an
        unconnected ``source`` gives zeros of ``target``'s dtype (never ``None``),
        whatever ``unconnected_gradients`` says, and ``experimental_use_pfor=False``
        needs a persistent tape. Deliberate difference: a batch of size 0 gives an
        empty result; TF 2.21 fails with ``ZeroDivisionError``.
        """
        from .. import ops as _ops
        self._check_usable()
        if not hasattr(target, "shape"):
            raise AttributeError(f"'{type(target).__name__}' object has no attribute 'shape': "
                                 f"GradientTape.batch_jacobian takes one tensor as `target`.")
        target_shape, source_shape = target.shape, source.shape
        if target_shape.rank == 0:
            raise IndexError(f"list index out of range: GradientTape.batch_jacobian needs a `target` of rank "
                             f"at least 2 ([batch, ...]), got a scalar.")
        for shape in (target_shape, source_shape):
            if shape.rank is not None and shape.rank < 2:
                raise ValueError(f"Shape {shape} must have rank at least 2")
        batch = target_shape[0] if target_shape.rank is not None else None
        if not TensorShape([batch]).is_compatible_with(TensorShape([source_shape[0]])):
            raise ValueError(f"Need first dimension of target shape ({target_shape}) and source shape "
                             f"({source_shape}) to match.")
        if not experimental_use_pfor and not self._persistent and ctx.graph is None:
            raise RuntimeError("GradientTape must be created with persistent=True to compute the batch_jacobian "
                               "with eager execution enabled and with experimental_use_pfor set to False.")
        unconnected_gradients = _unconnected(unconnected_gradients, experimental_use_pfor and "batch_jacobian")
        if self._recording:
            self._leave_for_backward()
        target = _as_target(target)
        batch = target.shape[0]
        out_shape = target.shape.as_list() + source.shape.as_list()[1:]
        inner = target.shape[1:].num_elements()
        rows = []
        entries = self._entries
        for j in range(inner):
            seed = _ops.array_ops.reshape(
                _ops.array_ops.tile(_ops.array_ops.expand_dims(
                    _ops.array_ops.one_hot(j, inner, dtype=target.dtype), 0), [batch, 1]),
                target.shape.as_list())
            (g,) = imperative_grad(entries, [target], [source], [seed], unconnected_gradients)
            if g is None:
                rows = None
                break
            rows.append(g)
        if not rows:   # unconnected (or no element per example): zeros, as TF
            result = _ops.array_ops.zeros(out_shape, dtype=target.dtype)
        else:
            stacked = _ops.array_ops.stack(rows, axis=1)  # (batch, inner, *source[1:])
            result = _ops.array_ops.reshape(stacked, out_shape)
        if not self._persistent:
            self._records = None
            self._watched = set()
        return result


_INSIDE_CONTEXT_WARNING = (
    "Calling GradientTape.gradient on a persistent tape inside its context is significantly less efficient than "
    "calling it outside the context (it causes the gradient ops to be recorded on the tape, leading to increased "
    "CPU and memory usage). Only call GradientTape.gradient inside the context if you actually want to trace the "
    "gradient in order to compute higher order derivatives.")

_LOG_COUNTS = {}   # (message, file, line) -> how many times it was asked for


_TAPE_SEAM = seams.declare(
    "tape", GradientTape, TAPE_PROTOCOL,
    doc="The tape behind tf.GradientTape: what is recorded, and the backward walk. Inside "
        "`engine.seams.using(tape=MyTape)`, `tf.GradientTape(...)` builds a MyTape, everywhere in the engine. "
        "Protocol: engine.eager.tape.TAPE_PROTOCOL.")


def _log_first_n(msg, n, *args):
    """TF's ``logging.log_first_n``: warn on the ``"tensorflow"`` logger, at most ``n`` times per call site.

    The call site is the first frame outside this module (the user's line calling
    ``watch``/``gradient``), as TF counts it.
    """
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    key = (msg,) if frame is None else (msg, frame.f_code.co_filename, frame.f_lineno)
    count = _LOG_COUNTS.get(key, 0)
    _LOG_COUNTS[key] = count + 1
    if count < n:
        logger.warning(msg, *args)


def _is_trainable_dtype(dtype):
    """Gradients flow into floating and complex values (and variants: TensorLists), as TF's ``IsTrainable``."""
    return dtype.is_floating or dtype.is_complex or dtype is _VARIANT


def _unconnected(value, vectorizing=None):
    """``unconnected_gradients`` as an :class:`UnconnectedGradients`, with TF's error for anything else.

    ``jacobian``/``batch_jacobian`` with pfor (``vectorizing`` names them) wrap the error as TF's pfor does.
    """
    try:
        return UnconnectedGradients(value)
    except (ValueError, TypeError):
        error = ValueError(f"Unknown value for unconnected_gradients: {value!r}")
    if vectorizing:
        raise ValueError(f"Encountered an exception while vectorizing the {vectorizing} computation. Vectorization "
                         f"can be disabled by setting experimental_use_pfor to False.") from error
    raise error


def _bad_argument(x, what):
    """The error for a non-tensor in ``gradient``'s ``target`` or ``sources``, with the class TF 2.21 raises.

    TF's classes come from where each value happens to fail inside its code: ``None``,
    strings and other objects fail a dtype conversion (``TypeError``); Python and NumPy
    numbers fail an attribute lookup (``AttributeError``); a NumPy array fails as a
    source with ``ValueError`` and as a target with ``AttributeError``.
    """
    name = type(x).__name__
    hint = (f" GradientTape.gradient: `{what}` must be tensors or variables (or nests of them), got {x!r} of "
            f"type {name!r}.")
    if isinstance(x, (bool, np.generic)):
        qualified = name if type(x).__module__ == "builtins" else f"{type(x).__module__}.{name}"
        return AttributeError(f"'{qualified}' object has no attribute '_id'." + hint)
    if isinstance(x, (int, float, complex)):
        return AttributeError(f"'{name}' object has no attribute 'dtype'." + hint)
    if isinstance(x, np.ndarray):
        if what == "target":
            return AttributeError("'numpy.ndarray' object has no attribute '_id'." + hint)
        return ValueError("A NumPy array cannot be a gradient source: wrap it with tf.constant and watch that "
                          "tensor." + hint)
    return TypeError(f"Cannot convert the argument `type_value`: {x!r} to a TensorFlow DType." + hint)


class _StopRecording:
    """``tape.stop_recording()``: the tape leaves the active list for the block, then comes back in its place."""

    def __init__(self, tape):
        self._tape = tape
        self._paused = _Paused([tape])

    def __enter__(self):
        tape = self._tape
        if tape._records is None:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        if not tape._recording:
            raise ValueError("Tape is not recording.")
        self._paused.__enter__()
        tape._recording = False
        return None

    def __exit__(self, *exc):
        tape = self._tape
        if tape._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an "
                             "already-active tape.")
        if tape._records is None:
            tape._reset_state()
        self._paused.__exit__(*exc)
        tape._recording = True
        return False


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
        tape.record_custom(op_type, inputs, outputs, backward)


def _as_tensor(x):
    if isinstance(x, EagerTensor):
        return x
    from ..framework.tensor import convert_to_tensor
    if hasattr(x, "_is_variable"):
        return x._read_untracked()
    return convert_to_tensor(x)


def _as_target(x, strict=False):
    """A gradient target as a tensor. A Variable target stands for the variable itself (its value, under
    the variable's own id), so ``tape.gradient(v, v)`` is ones, as in TF, even if ``v`` was never read.

    ``strict`` (``gradient``'s targets): Python values, NumPy values and ``None`` raise TF's errors
    instead of being converted (``jacobian`` converts them, as TF's does).
    """
    if type(x) is EagerTensor:
        return x
    if hasattr(x, "_is_variable"):
        t = x._read_untracked()
        t._id = x._id
        return t
    if strict and not isinstance(x, Tensor):
        if x is None or isinstance(x, (str, bytes, bool, int, float, complex, np.generic, np.ndarray)):
            raise _bad_argument(x, "target")
        try:
            return _as_tensor(x)
        except (TypeError, ValueError) as error:
            raise _bad_argument(x, "target") from error
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
        if isinstance(v, np.floating):
            # Fast path: a rank-0 float value is stored as a NumPy scalar (a scalar loss: the usual seed).
            # Its own type builds the scalar ``np.ones_like(v)[()]`` returns (same dtype, same value),
            # without making an array first.
            return EagerTensor(type(v)(fill), x._device)
        if type(v) is np.ndarray and v.ndim and v.flags.c_contiguous:
            # Fast path: for a C-ordered array, ``np.ones``/``np.zeros`` (one C call) build exactly what
            # ``np.ones_like``/``np.zeros_like`` (Python functions: an empty array, then a fill) build:
            # same shape, dtype, values and memory order.
            return EagerTensor((np.ones if fill else np.zeros)(v.shape, v.dtype), x._device)
        return EagerTensor((np.ones_like(v) if fill else np.zeros_like(v))[()], x._device)
    array_ops = _ops().array_ops
    if isinstance(x, Tensor):
        return array_ops.ones_like(x) if fill else array_ops.zeros_like(x)
    return (array_ops.ones if fill else array_ops.zeros)(x.shape.as_list(), dtype=x.dtype)


# --- sparse gradients (tf.IndexedSlices) -----------------------------------------------------------
# The gradient of tf.gather w.r.t. its params is an IndexedSlices (engine/framework/indexed_slices.py).
# The walk keeps it sparse where TF does: contributions that are all IndexedSlices are concatenated;
# a dense one among them makes the sum dense (_aggregate). A gradient function receives the dense
# tensor (TF's gradient functions convert it the first time they use it as an op input), except the
# pass-through ops below, whose gradient forwards it unchanged (reading a variable, identity), as in TF.
_SPARSE_PASS_THROUGH = frozenset({"ReadVariableOp", "Identity"})


def _aggregate(parts):
    """The sum of several gradient contributions for one tensor (``add_n``, or sparse-aware)."""
    for p in parts:
        if type(p) is IndexedSlices:   # the walk runs newest-first; TF concatenates in recording order
            return aggregate_indexed_slices(parts[::-1])
    return _ops().math_ops.add_n(parts)


def _sparse_into(e, out_grads):
    """``out_grads`` as op ``e``'s gradient function receives them: IndexedSlices densified, except where
    ``e`` passes them through unchanged. (TF also keeps them sparse through ``Cast``; the engine densifies.)"""
    if e.backward is None and e.type in _SPARSE_PASS_THROUGH:
        return out_grads
    return [densify_indexed_slices(g) if type(g) is IndexedSlices else g for g in out_grads]


def imperative_grad(entries, targets, sources, seeds=None,
                    unconnected_gradients=UnconnectedGradients.NONE):
    """The backward walk over a tape's entries. Returns one gradient per source.

    ``seeds[i]`` is the gradient flowing into ``targets[i]`` (default: ones, which
    is how a non-scalar target gets summed).

    This loop runs once per recorded op, so its commonest cases are spelled out
    where a general helper would cost a function call (marked "fast path" below);
    each does exactly what the general code does for that case.
    """
    source_ids = [s._id for s in sources]

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
            parts[:] = [_aggregate(parts)]
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
            if type(out_grads[0]) is IndexedSlices:   # sparse gradients: see _sparse_into
                out_grads = _sparse_into(e, out_grads)
        else:
            out_grads = [total(o) for o in output_ids]
            if all(g is None for g in out_grads):
                continue
            for k, g in enumerate(out_grads):
                if g is None:  # unused output of a multi-output op: zeros
                    out_grads[k] = _filled_like(e.outputs[k], 0)
            out_grads = _sparse_into(e, out_grads)
        input_ids = e.input_ids
        inputs = e.inputs
        # Inputs that need no gradient (not reached from a source). Fast path: with one or two
        # inputs, the usual "all reached" answer () is found with one or two set lookups.
        if len(input_ids) == 2:
            i0, i1 = input_ids
            e.skip_input_indices = (() if i1 in reach else (1,)) if i0 in reach else \
                ((0,) if i1 in reach else (0, 1))
        elif len(input_ids) == 1:
            e.skip_input_indices = () if input_ids[0] in reach else (0,)
        else:
            e.skip_input_indices = tuple([i for i, tid in enumerate(input_ids) if tid not in reach])
        if e.backward is not None:
            grads = e.input_grads(out_grads)
        else:
            # Fast path: ``call_gradient(e, e.op_def.grad, out_grads)`` for a registry op, inline. The
            # usual answer of a gradient function, one gradient per input as a tuple or list (a lone
            # gradient for a one-input op), is used as it is; any other answer goes to
            # ``call_gradient``'s checks by calling it.
            grads = e.op_def.grad(e, *out_grads)
            kind = type(grads)
            if kind is tuple or kind is list:
                if len(grads) != len(inputs):
                    grads = call_gradient(e, lambda op, *g: grads, out_grads)   # its error message
            elif len(inputs) == 1 and grads is not None and not isinstance(grads, (list, tuple)):
                grads = (grads,)
            else:
                grads = call_gradient(e, lambda op, *g: grads, out_grads)
        for tid, x, g in zip(input_ids, inputs, grads):
            if g is None:
                continue
            # Fast path of ``_carries_gradient(x)`` for float records and eager float tensors (the
            # usual case); anything else asks the function itself.
            kind = type(x)
            if kind is _Meta:
                if getattr(x[1], "kind", None) != "f" and not _carries_gradient(x):
                    continue   # no gradient flows into integer or boolean values (variants: TensorLists)
            elif not (kind is EagerTensor and getattr(x._value.dtype, "kind", None) == "f") \
                    and not _carries_gradient(x):
                continue
            parts = pending.get(tid)
            if parts is None:
                pending[tid] = [g]
            else:
                parts.append(g)

    results = []
    for s, sid in zip(sources, source_ids):
        if _carries_gradient(s):
            g = total(sid)
        else:   # an integer source gets no gradient, unless it is a target itself: then its seed (TF)
            g = total(sid) if any(t._id == sid for t in targets) else None
        if g is None and unconnected_gradients is UnconnectedGradients.ZERO:
            g = _ops().array_ops.zeros_like(s)
        results.append(g)
    return results
