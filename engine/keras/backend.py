"""Keras' small shared state: the float type, unique names, the call context.

Three things every Keras object needs and none owns:

* ``floatx()`` (``"float32"``) and ``epsilon()`` (``1e-7``): the default dtype of
  weights and the fuzz factor that keeps ``log`` and divisions finite.
* **Unique names.** ``Dense()`` is called ``dense``, the next one ``dense_1``,
  then ``dense_2``: one counter per prefix, as Keras does
  (:func:`unique_object_name`). ``clear_session()`` resets the counters.
* **The call context.** ``model(x, training=True)`` must reach every ``Dropout``
  and ``BatchNormalization`` inside, even through layers whose ``call`` does not
  pass ``training`` on. The outermost call records the value on a per-thread
  stack (:class:`call_context`); an inner layer called without ``training``
  reads it from there.
"""
import collections
import contextlib
import re
import threading

from ..framework.context import ctx

__all__ = ["floatx", "epsilon", "clear_session", "unique_object_name", "to_snake_case", "set_keras_mask",
           "get_keras_mask"]

_FLOATX = "float32"
_EPSILON = 1e-7
_name_counters = collections.defaultdict(int)
_local = threading.local()


def floatx():
    """The default float dtype name of weights and computations: ``"float32"``."""
    return _FLOATX


def epsilon():
    """The fuzz factor used by losses and optimizers: ``1e-7``."""
    return _EPSILON


def to_snake_case(name):
    """``"BatchNormalization"`` -> ``"batch_normalization"``, ``"Conv2D"`` -> ``"conv2d"``."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def unique_object_name(prefix):
    """``prefix`` the first time, then ``prefix_1``, ``prefix_2`` ... (Keras' auto-naming)."""
    count = _name_counters[prefix]
    _name_counters[prefix] += 1
    return prefix if count == 0 else f"{prefix}_{count}"


def clear_session():
    """``tf.keras.backend.clear_session()``: restart the auto-naming counters (``dense``, ``dense_1``...)."""
    _name_counters.clear()


# --------------------------------------------------------------------------------------
# The call context: what ``training`` is for layers called inside an outer call
# --------------------------------------------------------------------------------------
def _stack():
    stack = getattr(_local, "training", None)
    if stack is None:
        stack = _local.training = []
    return stack


def current_training():
    """The ``training`` value set by an enclosing layer call, or None at the outermost call."""
    stack = _stack()
    return stack[-1] if stack else None


@contextlib.contextmanager
def call_context(training):
    """Inside this block, layers called without ``training`` use this value."""
    stack = _stack()
    stack.append(training)
    try:
        yield
    finally:
        stack.pop()


# --------------------------------------------------------------------------------------
# tf.distribute hooks (implemented by the distribution layer; neutral without a strategy)
# --------------------------------------------------------------------------------------
def current_strategy():
    """The strategy whose ``scope()`` is active (``engine.framework.context.ctx.strategy_stack``), or None."""
    return ctx.strategy_stack[-1] if ctx.strategy_stack else None


def num_replicas_in_sync():
    """How many replicas share one global batch: 1 without a strategy.

    Inside ``strategy.run`` the replica context knows; in a strategy's scope the
    strategy does. Losses divide by it (``scale_loss_for_distribution``) so that
    summing the replicas' losses gives the mean over the global batch.
    """
    replica = ctx.replica_context
    if replica is not None:
        return int(getattr(replica, "num_replicas_in_sync", 1))
    strategy = current_strategy()
    return int(getattr(strategy, "num_replicas_in_sync", 1)) if strategy is not None else 1


def current_call_depth():
    """How many layer calls enclose this point (0 outside any: the next call is the *outermost* one)."""
    return len(_stack())


# --------------------------------------------------------------------------------------
# Symbolic tracing: a layer run only to learn its output shapes (functional API)
# --------------------------------------------------------------------------------------
def in_symbolic_trace():
    """True while ``keras_tensor.compute_output_spec`` traces a call for its shapes (``add_loss`` records nothing)."""
    return getattr(_local, "symbolic", 0) > 0


@contextlib.contextmanager
def symbolic_trace():
    _local.symbolic = getattr(_local, "symbolic", 0) + 1
    try:
        yield
    finally:
        _local.symbolic -= 1


# --------------------------------------------------------------------------------------
# Masks: ``tensor._keras_mask``
# --------------------------------------------------------------------------------------
# Keras attaches a layer's output mask (a boolean ``(batch, timesteps)`` tensor, True = a real
# step) to the output tensor itself, as the attribute ``_keras_mask``. The engine's tensors
# have ``__slots__``, so, as Keras 3 does for such tensors
# (``keras/src/backend/common/tensor_attributes.py``), the mask is kept in a side table keyed
# by ``id(tensor)`` and dropped when the tensor is garbage collected. ``KerasTensor`` s take
# the attribute directly.
_MASKS = {}


def _forget_mask(key):
    _MASKS.pop(key, None)


def set_keras_mask(x, mask):
    """Attach ``mask`` to tensor ``x`` (``None`` removes it)."""
    if x is None:
        return
    try:
        object.__setattr__(x, "_keras_mask", mask)
        return
    except (AttributeError, TypeError):
        pass
    key = id(x)
    if mask is None:
        _MASKS.pop(key, None)
        return
    if key not in _MASKS:
        import weakref
        try:
            weakref.finalize(x, _forget_mask, key)
        except TypeError:      # not weak-referenceable: cannot carry a mask safely
            return
    _MASKS[key] = mask


def get_keras_mask(x):
    """The mask attached to ``x`` by :func:`set_keras_mask` (or a layer call), else ``None``."""
    if x is None:
        return None
    own = getattr(x, "__dict__", None)
    if own is not None and own.get("_keras_mask") is not None:
        return own["_keras_mask"]
    return _MASKS.get(id(x))


# --------------------------------------------------------------------------------------
# Variable paths: Keras 3's name scopes (``dense/kernel``, ``sequential/dense/kernel``)
# --------------------------------------------------------------------------------------
def _path_stack():
    stack = getattr(_local, "paths", None)
    if stack is None:
        stack = _local.paths = []
    return stack


@contextlib.contextmanager
def keras_name_scope(name, caller=None):
    """Keras 3's ``name_scope(name, caller=layer)``: a layer's ``build``, ``call`` and ``add_weight`` run
    inside it, so a weight's ``path`` is the scopes open when it was made, then its name
    (``sequential/dense/kernel`` for a Dense built by its Sequential model). As in Keras, a scope is
    not opened twice in a row for the same caller or the same name. Independent of ``tf.name_scope``."""
    stack = _path_stack()
    if stack and ((caller is not None and stack[-1][1] is caller) or stack[-1][0] == name):
        yield
        return
    stack.append((name, caller))
    try:
        yield
    finally:
        stack.pop()


def current_path():
    """The open Keras name scopes, joined by ``/`` (``""`` outside any)."""
    return "/".join(name for name, _ in _path_stack())
