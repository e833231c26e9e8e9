"""``tf.GradientTape``: record ops while they run, then walk them backwards.

How it works, in the order this file reads:

1. **Watching.** A tape keeps a set of *watched* tensor ids. ``tape.watch(x)``
   adds ``x``; reading a trainable variable inside the tape adds the variable
   (``watch_accessed_variables=True``).
2. **Recording.** The dispatcher offers every op it runs to each active tape
   (:meth:`GradientTape.record_operation`). The tape keeps the op only if one
   of its inputs is watched; then its outputs become watched too. So the tape
   holds exactly the ops on a path from a watched tensor, in execution order,
   which is already a topological order. Ops with no gradient are not kept.
3. **The backward walk** (:meth:`GradientTape.gradient`, :func:`imperative_grad`).
   Seed the target with ones, visit the recorded ops newest-first, call each
   op's registered gradient function with the gradients of its outputs, and sum
   the gradients arriving at each input: a tensor used twice receives two
   contributions. ``tf.gradients`` runs the very same walk over graph nodes; it
   is written once, in ``engine/framework/backprop.py``. What is the tape's own
   is how it reads a record (:class:`RecordedOp`) and that the gradient's ops
   run eagerly as the gradient functions call them.
4. **Higher order.** Gradient functions are written in engine ops, so while one
   tape runs its backward walk, an *outer* tape records those ops and can
   differentiate them again.
5. **Saving only what is needed** (the end of the file). Each op declares
   whether its gradient reads its input values and/or its output values; the
   values it does not read are kept as shape-and-dtype records (:class:`TapeTensor`),
   so the tape does not keep big arrays alive for nothing (``Add`` needs no
   values; ``Exp`` needs only its output). TF's tape does the same, from a
   table of the inputs and outputs each op's gradient leaves unused.

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
import logging
import sys

import numpy as np

from ..framework.backend import NUMPY
from ..framework.backprop import Adapter, TapeTensor, UnconnectedGradients, backprop, carries_gradient
from ..framework.context import ctx
from ..framework.dtypes import variant as _VARIANT
from ..framework.name_scope import name_scope
from ..framework.op_library import OPS
from ..framework.registry import call_gradient
from ..framework.tensor import EagerTensor, Tensor, convert_to_tensor
from ..framework.tensor_shape import TensorShape
from .. import seams
from ..util import nest

__all__ = ["GradientTape", "UnconnectedGradients", "record_operation", "stop_recording",
           "imperative_grad", "push_tape", "pop_tape", "TAPE_PROTOCOL"]

logger = logging.getLogger("tensorflow")


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
        self._log = None
        self._watched = set()
        self._variables = {}

    def _reset_state(self):
        self._records = []           # the recorded ops read so far, as RecordedOps (see _entries)
        self._log = []               # what was recorded since, in the flat form of the end of the file
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
        if variable._id not in self._watched and self._watch_accessed_variables and variable.trainable:
            self._watch_variable(variable)

    def watched_variables(self):
        """The variables this tape watches, in order of construction (as TF), not in the order first watched.

        After a non-persistent tape computed its gradient, the variables it watched until then.
        """
        return tuple(sorted(self._variables.values(), key=_source_id))

    # --- recording ----------------------------------------------------------------------
    def record_operation(self, op_def, inputs, attrs, outputs):
        """Offered every op the dispatcher runs while this tape is active.

        Keep the op if one of its inputs is watched and it has a gradient; then its
        outputs are watched too. What is kept of each input and output is what the
        op's gradient reads (its row's ``saves_inputs``/``saves_outputs``): the tensor
        itself, or only its shape, dtype and id (see "Storage" at the end of the file).
        """
        watched = self._watched
        for t in inputs:
            if t._id in watched:
                break
        else:
            return
        if op_def.grad is None:
            return  # not differentiable: outputs stay unwatched
        if op_def.resource_input and len(outputs) == 1 and hasattr(outputs[0], "_value"):
            # A variable read (``ReadVariableOp``, eagerly): the variable and the output's id say it all.
            o = outputs[0]
            o_id, v = o._id, o._value
            watched.add(o_id)
            self._log += (_VARIABLE_READ, op_def, attrs, inputs[0], v.shape, v.dtype, o_id)
            return
        for o in outputs:
            watched.add(o._id)
        if op_def.saves_outputs is False and len(outputs) == 1 and not op_def.saves_inputs and \
                len(inputs) == 2 and not op_def.resource_input:
            # The commonest record, spelled out (recording runs for every op under a tape): ``a + b``,
            # no value kept. The same entries as :func:`_log_op` appends.
            x, y = inputs
            try:
                xv, yv, v = x._value, y._value, o._value   # (``o``: the only output, from the loop above)
            except AttributeError:   # a symbolic tensor (a tape inside tf.function)
                pass
            else:
                self._log += (op_def, attrs, 2, 1, xv.shape, xv.dtype, x._id, yv.shape, yv.dtype, y._id,
                              v.shape, v.dtype, o._id)
                return
        _log_op(self._log, op_def, inputs, attrs, outputs)

    def record_custom(self, op_type, inputs, outputs, backward):
        """Record an op whose gradient is an arbitrary function (custom_gradient, tf.function calls)."""
        watched = self._watched
        if not any(t._id in watched for t in inputs):
            return
        output_ids = tuple(o._id for o in outputs)
        watched.update(output_ids)
        self._log += (None, RecordedOp(
            None, op_type, _keep(inputs, False), _keep(outputs, False), {},
            tuple(t._id for t in inputs), output_ids, backward))

    @property
    def _entries(self):
        """The recorded ops as :class:`RecordedOp` objects, in recording order (None once freed)."""
        records = self._records
        if records is None:
            return None
        if self._log:
            records += _read_log(self._log)
            self._log = []
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
            if not (isinstance(s, Tensor) or hasattr(s, "_is_variable")):
                raise _bad_argument(s, "sources")
        if unconnected_gradients is not UnconnectedGradients.NONE:   # (an Enum call costs a microsecond)
            unconnected_gradients = _unconnected(unconnected_gradients)
        seeds = None
        if output_gradients is not None:
            seeds = [_as_tensor(g) for g in nest.flatten(output_gradients)]
        grads = imperative_grad(self._entries, flat_targets, flat_sources, seeds, unconnected_gradients)
        if not self._persistent:
            self._records = self._log = None
            self._watched = set()
        kind = type(sources)
        if _plain_leaf(kind):
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
        array_ops = OPS.array_ops
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
            seed = array_ops.reshape(array_ops.one_hot(i, n, dtype=target.dtype),
                                          target.shape.as_list())
            grads = imperative_grad(entries, [target], flat_sources, [seed], unconnected_gradients)
            for k, g in enumerate(grads):
                rows[k].append(g)
        out = []
        for src, r in zip(flat_sources, rows):
            if any(g is None for g in r):
                out.append(None)
                continue
            stacked = array_ops.stack(r) if r else array_ops.zeros(
                [0] + src.shape.as_list(), dtype=src.dtype)
            out.append(array_ops.reshape(stacked, target.shape.as_list() + src.shape.as_list()))
        if not self._persistent:
            self._records = self._log = None
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
        array_ops = OPS.array_ops
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
            seed = array_ops.reshape(
                array_ops.tile(array_ops.expand_dims(
                    array_ops.one_hot(j, inner, dtype=target.dtype), 0), [batch, 1]),
                target.shape.as_list())
            (g,) = imperative_grad(entries, [target], [source], [seed], unconnected_gradients)
            if g is None:
                rows = None
                break
            rows.append(g)
        if not rows:   # unconnected (or no element per example): zeros, as TF
            result = array_ops.zeros(out_shape, dtype=target.dtype)
        else:
            stacked = array_ops.stack(rows, axis=1)  # (batch, inner, *source[1:])
            result = array_ops.reshape(stacked, out_shape)
        if not self._persistent:
            self._records = self._log = None
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


# --------------------------------------------------------------------------------------
# Pausing tapes, and ops with a backward of their own
# --------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------
# What gradient() accepts, and the warnings it logs (TF 2.21's rules)
# --------------------------------------------------------------------------------------
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


def _as_tensor(x):
    if isinstance(x, EagerTensor):
        return x
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
def _plain_leaf(kind):
    """An eager tensor or a variable (``tf.Variable`` and its subclasses say so with ``_is_variable``)."""
    return kind is EagerTensor or getattr(kind, "_is_variable", False)


def _is_flat(structure):
    for x in structure:
        kind = type(x)
        if kind is not EagerTensor and not getattr(kind, "_is_variable", False):   # (_plain_leaf, inline)
            return False
    return True


def _flatten(structure):
    """``nest.flatten``, with a shortcut for a leaf or a flat list/tuple of eager tensors and variables."""
    kind = type(structure)
    if _plain_leaf(kind):
        return [structure]
    if (kind is list or kind is tuple) and _is_flat(structure):
        return list(structure)
    return nest.flatten(structure)


def _source_id(s):
    return s._id


# --------------------------------------------------------------------------------------
# The backward walk
# --------------------------------------------------------------------------------------
def imperative_grad(entries, targets, sources, seeds=None,
                    unconnected_gradients=UnconnectedGradients.NONE):
    """The backward walk over a tape's records (:class:`RecordedOp`). Returns one gradient per source.

    ``seeds[i]`` is the gradient flowing into ``targets[i]`` (default: ones, which
    is how a non-scalar target gets summed). The walk is the one ``tf.gradients``
    runs too (:func:`engine.framework.backprop.backprop`: reachability, seeding,
    newest-first visit, summing, unconnected sources); the tape gives it its
    records and :data:`_TAPE`, which says how to read them and how ops are emitted.
    """
    if ctx.graph is None:
        return backprop(entries, targets, sources, seeds, _TAPE, unconnected_gradients)
    # Inside a graph being built (a tf.function's trace), the gradient's ops are graph nodes: as in TF
    # they go under ``gradient_tape/``, each op's under the name of the op it differentiates
    # (``gradient_tape/MatMul/MatMul``).
    with name_scope("gradient_tape"):
        return backprop(entries, targets, sources, seeds, _TAPE_IN_GRAPH, unconnected_gradients)


class RecordedOp:
    """One op on the tape, and what a gradient function receives as ``op``.

    It offers TF's ``Operation`` interface (``type``, ``inputs``, ``outputs``,
    ``get_attr``). ``inputs``/``outputs`` hold tensors, or :class:`TapeTensor`
    records where the op declared it does not need the values. ``backward`` is
    set only for custom ops (custom_gradient, function calls); registry ops use
    their registered gradient.
    """

    __slots__ = ("type", "op_def", "inputs", "outputs", "attrs", "input_ids", "output_ids", "backward",
                 "skip_input_indices")

    def __init__(self, op_def, op_type, inputs, outputs, attrs, input_ids, output_ids, backward=None):
        self.op_def = op_def
        self.type = op_type
        self.inputs = inputs      # tuples of tensors and/or TapeTensor records
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
        """Call the gradient function (the op's own backward, or the registered one); one entry per input."""
        return call_gradient(self, self.op_def.grad if self.backward is None else _call_backward, output_grads)

    def __repr__(self):
        return f"<RecordedOp {self.type}>"


def _carries_gradient(x):
    """Can ``x`` (an input the tape recorded, or a source) receive a gradient? Floating values can, never
    integers or bools: the rule of :func:`engine.framework.backprop.carries_gradient`.

    Fast path: eager values and shape records say it with their NumPy dtype, without building a DType.
    """
    kind = type(x)
    if kind is TapeTensor:
        if getattr(x[1], "kind", None) == "f":
            return True
    elif kind is EagerTensor and getattr(x._value.dtype, "kind", None) == "f":
        return True
    elif getattr(kind, "_is_variable", False) and x._graph is None:   # a variable read's input: the variable
        return getattr(x._value, "dtype", None) is not None and x._value.dtype.kind == "f" or carries_gradient(x)
    return carries_gradient(x)


def _filled_like(x, fill):
    """Ones (the default seed) or zeros (an unused output, an unconnected source) shaped like ``x``.

    ``x`` is a tensor, a variable or a ``TapeTensor`` record.

    For an eager NumPy value the array is made directly: ``OnesLike``/``ZerosLike``
    have no gradient, so no tape would record them, and the tensor is the one the
    op would return. Anything else (other devices, graphs, shape records) uses the ops.
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
    array_ops = OPS.array_ops
    if isinstance(x, Tensor):
        return array_ops.ones_like(x) if fill else array_ops.zeros_like(x)
    return (array_ops.ones if fill else array_ops.zeros)(x.shape.as_list(), dtype=x.dtype)


def _call_backward(op, *output_grads):
    """The gradient function of a custom op (custom_gradient, a tf.function call): its own backward."""
    return op.backward(*output_grads)


class _TapeAdapter(Adapter):
    """How the backward walk emits ops for a tape (see :class:`engine.framework.backprop.Adapter`).

    The walk reads the tape's :class:`RecordedOp` records as they are. The gradient's
    ops run eagerly as the gradient functions call them (``call`` stays ``None``), and
    any outer tape records them: that is what makes higher-order gradients work. Seeds
    and zeros are made directly (:func:`_filled_like`), and the values the tape kept
    answer :func:`_carries_gradient` from their NumPy dtype.
    """

    carries_gradient = staticmethod(_carries_gradient)

    @staticmethod
    def ones_like(x):
        return _filled_like(x, 1)

    @staticmethod
    def zeros_like(x):
        return _filled_like(x, 0)


class _TapeInGraphAdapter(_TapeAdapter):
    """The tape's adapter while a graph is built: each gradient function runs under its op's name."""

    @staticmethod
    def call(op, fn, output_grads):
        node = getattr(op.outputs[0], "op", None) if op.outputs else None
        scope = getattr(node, "name", None) or op.type
        with name_scope(scope.rsplit("/", 1)[-1]):
            return fn(op, *output_grads)


_TAPE = _TapeAdapter()
_TAPE_IN_GRAPH = _TapeInGraphAdapter()


# --------------------------------------------------------------------------------------
# Storage: what the tape keeps of each op
#
# TF's tape does not keep every input and output of a recorded op alive: a generated
# table says, for each op type, which inputs and outputs its gradient never reads
# (``OpGradientUnusedInputIndices`` / ``...OutputIndices``), and those are dropped. The
# engine's registry rows say it the other way round (``saves_inputs``/``saves_outputs``:
# True, False, or the indices kept); a value dropped keeps only its shape and dtype,
# which is what gradient functions such as ``Add``'s (unbroadcasting) still read: a
# :class:`~engine.framework.backprop.TapeTensor`, as TF's tape keeps one for every output.
# --------------------------------------------------------------------------------------
def _meta(t):
    try:
        value = t._value  # eager tensors and variables
        return TapeTensor((value.shape, value.dtype, t._id))
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


# The log. A tape records every op on a path from a watched tensor, thousands in a long
# step, and most records are read once, by one backward walk, if at all. So recording
# appends to one flat list, and RecordedOps are built only when a gradient is asked for
# (:func:`_read_log`). One op takes
#
#     op_def, attrs, number of inputs, number of outputs, then three entries per tensor:
#         tensor, None, None        a value the gradient reads (or a variable, or a symbolic tensor)
#         shape, dtype, id          a value it does not read: NumPy's shape tuple and dtype
#
# a variable read takes ``_VARIABLE_READ, op_def, attrs, variable, shape, dtype, output id`` (the
# variable itself, the input its gradient flows to, and the value read as a shape and dtype), and an op with a
# backward of its own (custom_gradient, a tf.function call) takes ``None, RecordedOp``.
# The flat list is also what keeps recording cheap for Python's garbage collector: it holds
# no new container per op that the collector must keep scanning (a tuple of ints is dropped
# from its lists at its first pass), where a tuple per record would add thousands of live
# objects to every collection.
def _log_op(log, op_def, inputs, attrs, outputs):
    """Append one op to the log: the entries described above."""
    keep_inputs = True if op_def.resource_input else op_def.saves_inputs   # a variable op keeps its variable
    keep_outputs = op_def.saves_outputs
    if keep_outputs is False and len(outputs) == 1:
        # Common records, spelled out: one output whose value is dropped, one input whose value is
        # dropped (``Neg``) or kept (a variable read, ``Relu``'s input), or two inputs kept (``MatMul``).
        # The same entries as the general path below.
        try:
            (o,) = outputs
            v = o._value
            n = len(inputs)
            if n == 2 and keep_inputs is True:
                x, y = inputs
                log += (op_def, attrs, 2, 1, x, None, None, y, None, None, v.shape, v.dtype, o._id)
                return
            if n == 1:
                (x,) = inputs
                if keep_inputs is True:
                    log += (op_def, attrs, 1, 1, x, None, None, v.shape, v.dtype, o._id)
                    return
                if keep_inputs is False:
                    xv = x._value
                    log += (op_def, attrs, 1, 1, xv.shape, xv.dtype, x._id, v.shape, v.dtype, o._id)
                    return
        except AttributeError:   # a symbolic tensor (a tape inside tf.function): the general path keeps it
            pass
    log += (op_def, attrs, len(inputs), len(outputs))
    _store(log, inputs, keep_inputs)
    _store(log, outputs, keep_outputs)


def _store(log, tensors, keep):
    """Append the three entries of each of ``tensors`` to ``log``, keeping the values ``keep`` names."""
    if keep is False:
        for t in tensors:
            try:
                v = t._value
                log += (v.shape, v.dtype, t._id)
            except AttributeError:   # a symbolic tensor (a tape inside tf.function): kept, it holds no data
                log += (t, None, None)
    elif keep is True:
        for t in tensors:
            log += (t, None, None)
    else:
        n = len(tensors)
        for i, t in enumerate(tensors):
            _store(log, (t,), i in keep or i - n in keep)


_VARIABLE_READ = "<a variable read>"   # the marker that starts a variable read's entries in the log


def _read_log(log):
    """The log's ops as :class:`RecordedOp` s, in recording order."""
    entries = []
    i, end = 0, len(log)
    while i < end:
        op_def = log[i]
        if op_def is None:   # a custom op: its RecordedOp is already built
            entries.append(log[i + 1])
            i += 2
            continue
        if op_def is _VARIABLE_READ:
            op_def, attrs, variable, shape, dtype, output_id = log[i + 1:i + 7]
            i += 7
            output = TapeTensor((shape, dtype, output_id))   # the value read, as it was then
            entries.append(RecordedOp(op_def, op_def.name, (variable,), (output,), attrs, (variable._id,),
                                      (output_id,)))
            continue
        attrs, n_in, n_out = log[i + 1], log[i + 2], log[i + 3]
        i += 4
        if n_out == 1 and 0 < n_in <= 2:
            # Fast path: one output and one or two inputs (most ops), read as _read_tensors reads them.
            first = log[i]
            if type(first) is tuple:   # a shape: the value was not kept
                a = TapeTensor((first, log[i + 1], log[i + 2]))
                a_id = a[2]
            else:
                a, a_id = first, first._id
            if n_in == 2:
                first = log[i + 3]
                if type(first) is tuple:
                    b = TapeTensor((first, log[i + 4], log[i + 5]))
                    b_id = b[2]
                else:
                    b, b_id = first, first._id
                inputs, input_ids = (a, b), (a_id, b_id)
                i += 6
            else:
                inputs, input_ids = (a,), (a_id,)
                i += 3
            first = log[i]
            if type(first) is tuple:
                o = TapeTensor((first, log[i + 1], log[i + 2]))
                o_id = o[2]
            else:
                o, o_id = first, first._id
            i += 3
            entries.append(RecordedOp(op_def, op_def.name, inputs, (o,), attrs, input_ids, (o_id,)))
            continue
        inputs, input_ids = _read_tensors(log, i, n_in)
        i += 3 * n_in
        outputs, output_ids = _read_tensors(log, i, n_out)
        i += 3 * n_out
        entries.append(RecordedOp(op_def, op_def.name, inputs, outputs, attrs, input_ids, output_ids))
    return entries


def _read_tensors(log, i, n):
    """``n`` tensors of the log from index ``i``: the kept ones as they are, the others as :class:`TapeTensor`."""
    tensors, ids = [], []
    for k in range(i, i + 3 * n, 3):
        first = log[k]
        if type(first) is tuple:   # a shape: the value was not kept
            t = TapeTensor((first, log[k + 1], log[k + 2]))
            ids.append(t[2])
        else:
            t = first
            ids.append(t._id)
        tensors.append(t)
    return tuple(tensors), tuple(ids)
