"""``tf.Variable``: mutable state that tapes and optimizers know about.

A variable owns an array on one device. Reading it produces an ordinary tensor
(a snapshot: later assignments do not change tensors already read). Every read
is offered to active tapes as a ``ReadVariableOp`` whose gradient is the
identity, and a tape with ``watch_accessed_variables=True`` starts watching a
trainable variable the moment it is read. This is exactly how TF's
``ResourceVariable`` meets ``GradientTape``.

Assignments replace the stored array instead of writing into it, so snapshots
stay valid; the stored arrays are marked read-only to keep it that way.

In eager mode ``assign``/``assign_add``/``assign_sub`` update the buffer
directly; graph mode will express them as resource ops in the registry.
"""
import numpy as np

from .framework import dtypes as _dtypes
from .framework.backend import NUMPY
from .framework.context import ctx
from .framework.device import default_device
from .framework.registry import get_op, register_op
from .framework.tensor import EagerTensor, Tensor, _next_id, convert_to_tensor, numpy_text
from .framework.tensor_shape import TensorShape, as_shape

__all__ = ["Variable", "VariableSynchronization", "VariableAggregation"]

import enum


class VariableSynchronization(enum.Enum):
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


def _identity_grad(op, grad):
    return grad


# The read op exists in the registry so graph mode and pictures share its name and gradient.
_READ = register_op("ReadVariableOp", kernel=lambda xp: (lambda v: v), grad=_identity_grad,
                    saves_inputs=False, saves_outputs=False)


class Variable:
    """A mutable tensor-like value. See the module docstring for how reads meet tapes."""

    _is_variable = True
    __array_priority__ = 100

    def __init__(self, initial_value=None, trainable=None, validate_shape=True, caching_device=None,
                 name=None, variable_def=None, dtype=None, import_scope=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE,
                 shape=None, experimental_enable_variable_lifting=True):
        if initial_value is None:
            raise ValueError("The `initial_value` arg to `tf.Variable` must be specified except when you are "
                             "not providing a `variable_def`. You provided neither.")
        if callable(initial_value):
            initial_value = initial_value()
        if dtype is not None:
            dtype = _dtypes.as_dtype(dtype)
        if isinstance(initial_value, Tensor) or hasattr(initial_value, "__tf_tensor__"):
            value = convert_to_tensor(initial_value)
            if dtype is not None and value.dtype != dtype:
                from .ops import math_ops
                value = math_ops.cast(value, dtype)
        else:
            value = convert_to_tensor(initial_value, dtype=dtype)
        if synchronization is VariableSynchronization.ON_READ and trainable:
            raise ValueError("Synchronization value can be set to VariableSynchronization.ON_READ only "
                             "for non-trainable variables.")
        if trainable is None:
            trainable = synchronization is not VariableSynchronization.ON_READ
        self._device = ctx.device or default_device()
        self._value = self._store(value)
        self._dtype = value.dtype
        self._shape = as_shape(shape) if shape is not None else TensorShape(self._value.shape)
        if not self._shape.is_compatible_with(TensorShape(self._value.shape)):
            raise ValueError(f"The initial value's shape ({TensorShape(self._value.shape)}) is not compatible "
                             f"with the explicitly supplied `shape` argument ({self._shape}).")
        self._trainable = bool(trainable)
        self._name = (name or "Variable") + ":0" if not (name or "").endswith(":0") else name
        self._id = _next_id()
        self.constraint = constraint
        self._synchronization = synchronization
        self._aggregation = aggregation

    def _store(self, tensor):
        """Take ``tensor``'s array as the new value, without copying.

        Engine kernels never write into arrays, so sharing is safe; the variable
        keeps a read-only view so its snapshots cannot be modified through it.
        """
        value = tensor._value if tensor._device is self._device else self._device.put(tensor._value)
        if self._device.backend == NUMPY:
            value = value.view() if isinstance(value, np.ndarray) else np.asarray(value)
            value.flags.writeable = False
        return value

    # --- metadata ---------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    @property
    def ndim(self):
        return self._shape.rank

    @property
    def name(self):
        return self._name

    @property
    def trainable(self):
        return self._trainable

    @property
    def device(self):
        return self._device.name

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def aggregation(self):
        return self._aggregation

    @property
    def handle(self):
        return self

    # --- reading ----------------------------------------------------------------------
    def _read_untracked(self):
        v = self._value
        return EagerTensor(v[()] if v.ndim == 0 else v, self._device)

    def _read(self):
        """Produce a snapshot tensor and tell active tapes about the read."""
        if ctx.graph is not None:
            return ctx.graph.read_variable(self)
        t = self._read_untracked()
        for watcher in ctx.variable_watchers:
            watcher.setdefault(self._id, self)
        for tape in ctx.tapes:
            tape._variable_accessed(self)
            tape._record_operation(_READ, (self,), {}, (t,))
        return t

    def value(self):
        return self._read()

    def read_value(self):
        return self._read()

    def __tf_tensor__(self, dtype=None, name=None):
        t = self._read()
        if dtype is not None and _dtypes.as_dtype(dtype) != self._dtype:
            raise ValueError(f"Incompatible type conversion requested to type '{_dtypes.as_dtype(dtype).name}' "
                             f"for variable of type '{self._dtype.name}' (name: {self._name})")
        return t

    def numpy(self):
        v = self._read_untracked().numpy()
        return np.array(v) if isinstance(v, np.ndarray) else v

    def __array__(self, dtype=None, copy=None):
        arr = np.array(self._read_untracked().numpy())
        return arr if dtype is None else arr.astype(dtype)

    def __bool__(self):
        return bool(self.numpy())

    def __float__(self):
        return float(self.numpy())

    def __int__(self):
        return int(self.numpy())

    def __index__(self):
        return self._read().__index__()

    def __len__(self):
        return len(self._read_untracked())

    def __iter__(self):
        return iter(self._read())

    def ref(self):
        from .framework.tensor import _Reference
        return _Reference(self)

    experimental_ref = ref

    # --- writing -----------------------------------------------------------------------
    def _prepare(self, value, op_name):
        try:
            t = convert_to_tensor(value, dtype=self._dtype)
        except ValueError as error:
            raise ValueError(f"{error}. Variable.{op_name} on '{self._name}' needs a {self._dtype.name} value: "
                             f"cast it first with tf.cast(value, {self._dtype!r}).") from None
        if not self._shape.is_compatible_with(t.shape):
            raise ValueError(f"Cannot assign value to variable '{self._name}': Shape mismatch. The variable "
                             f"shape {self._shape}, and the assigned value shape {t.shape} are incompatible.")
        return t

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Replace the value. A value of a different shape raises ``ValueError`` naming both shapes."""
        t = self._prepare(value, "assign")
        if ctx.graph is not None:
            return ctx.graph.assign_variable(self, t, "AssignVariableOp", read_value)
        self._value = self._store(t)
        return self if read_value else None

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """``v += delta``, in place."""
        t = self._prepare(delta, "assign_add")
        if ctx.graph is not None:
            return ctx.graph.assign_variable(self, t, "AssignAddVariableOp", read_value)
        from .ops import math_ops
        self._value = self._store(math_ops.add(self._read_untracked(), t))
        return self if read_value else None

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """``v -= delta``, in place."""
        t = self._prepare(delta, "assign_sub")
        if ctx.graph is not None:
            return ctx.graph.assign_variable(self, t, "AssignSubVariableOp", read_value)
        from .ops import math_ops
        self._value = self._store(math_ops.subtract(self._read_untracked(), t))
        return self if read_value else None

    # --- printing ------------------------------------------------------------------------
    def __repr__(self):
        text = numpy_text(self._read_untracked().numpy(), True)
        return f"<tf.Variable '{self._name}' shape={self._shape} dtype={self._dtype.name}, numpy={text}>"

    def __str__(self):
        return self.__repr__()
