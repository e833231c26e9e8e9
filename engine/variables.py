"""``tf.Variable``: mutable state that tapes and optimizers know about.

A variable owns an array on one device. Reading it produces an ordinary tensor
(a snapshot: later assignments do not change tensors already read). Every read
is offered to active tapes as a ``ReadVariableOp`` whose gradient is the
identity, and a tape with ``watch_accessed_variables=True`` starts watching a
trainable variable the moment it is read. This is exactly how TF's
``ResourceVariable`` meets ``GradientTape``.

Assignments replace the stored array instead of writing into it, so snapshots
stay valid; the stored arrays are marked read-only to keep it that way.

Reads and writes are the registry's resource ops, run through the one door
(``engine.eager.execute``) like every other op: eagerly, ``v.read_value()`` runs
``ReadVariableOp`` and ``v.assign_sub(d)`` runs ``AssignSubVariableOp`` on the
variable itself (TF's resource handle). In graph mode (a variable created
inside ``with graph.as_default():``) the same methods add those ops
(``VarHandleOp``, ``ReadVariableOp``, ``AssignVariableOp``...) to the graph, and
the value lives in each ``Session``; see ``engine/ops/resource_ops.py``.

Types, as in TF: ``tf.Variable`` is the type every variable is an instance of, and a factory whose
metaclass makes ``tf.Variable(...)`` return a :class:`ResourceVariable`
(``type(v).__name__ == "ResourceVariable"``). An eager ``v.assign(...)`` (``assign_add``,
``assign_sub``, ``v[i].assign``) returns an ``_UnreadVariable``: a view of ``v`` printed as
``<tf.Variable 'UnreadVariable' shape=() dtype=float32, numpy=2.0>``, whose value is read when used.
"""
import contextlib
import sys

import numpy as np

from .eager.execute import execute, execute_read
from .framework import dtypes as _dtypes
from .framework.backend import NUMPY
from .framework.context import ctx
from .framework.device import default_device
from .framework.errors import InvalidArgumentError
from .framework.func_graph import init_scope
from .framework.graph import GraphKeys, constant_value, control_dependencies
from .framework.registry import get_op, op_rows
from .framework.tensor import EagerTensor, Tensor, _Reference, _next_id, convert_to_tensor, numpy_text
from .framework.tensor_shape import TensorShape, as_shape
from .ops import array_ops, math_ops, resource_ops  # noqa: F401  (resource_ops: registers the variable ops)
from .ops.overloads import unhashable
from .ops.resource_ops import freeze_buffer

__all__ = ["Variable", "ResourceVariable", "VariableSynchronization", "VariableAggregation", "VariableMetaclass"]

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


_NO_ATTRS = {}   # shared by every recorded read: attrs are never modified
_ROWS = op_rows()   # the op registry's table: ``_ROWS["ReadVariableOp"]`` (registered by ops/resource_ops.py)


def _READ():  # noqa: N802
    return _ROWS["ReadVariableOp"]


class VariableMetaclass(type):
    """The metaclass of ``tf.Variable``: calling ``tf.Variable(...)`` makes a :class:`ResourceVariable`.

    As in TF, ``tf.Variable`` is the abstract type every variable is an instance of and a factory:
    ``type(tf.Variable(1.))`` is ``ResourceVariable``, and ``isinstance(v, tf.Variable)`` holds. Inside a
    distribution strategy's scope the strategy's variable creator (installed as ``Variable.__new__`` by
    ``engine.distribute``) may make a different (mirrored) variable instead; subclasses are made as they are.
    """

    def __call__(cls, *args, **kwargs):
        if cls is not Variable:
            return super().__call__(*args, **kwargs)
        made = cls.__new__(cls, *args, **kwargs)
        if type(made) is Variable:           # no creator took it: a ResourceVariable
            made.__class__ = ResourceVariable
        elif not isinstance(made, cls):
            return made
        made.__init__(*args, **kwargs)
        return made


class Variable(metaclass=VariableMetaclass):
    """A mutable tensor-like value. See the module docstring for how reads meet tapes.

    ``tf.Variable(...)`` returns a :class:`ResourceVariable` (see :class:`VariableMetaclass`).
    """

    _is_variable = True
    __array_priority__ = 100

    def __init__(self, initial_value=None, trainable=None, validate_shape=True, caching_device=None,
                 name=None, variable_def=None, dtype=None, import_scope=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE,
                 shape=None, experimental_enable_variable_lifting=True):
        if initial_value is None:
            raise ValueError("The `initial_value` arg to `tf.Variable` must be specified except when you are "
                             "not providing a `variable_def`. You provided neither.")
        graph = ctx.graph
        if graph is not None and getattr(graph, "building_function", False):
            # Created while tracing a tf.function: lift the creation out of the function (TF's init_scope),
            # so the variable exists once, eagerly, and the function captures it.
            graph.created_variables.append(self)
            with init_scope():
                self.__init__(initial_value, trainable, validate_shape, caching_device, name, variable_def, dtype,
                              import_scope, constraint, synchronization, aggregation, shape,
                              experimental_enable_variable_lifting)
            return
        if callable(initial_value):
            initial_value = initial_value()
        if dtype is not None:
            dtype = _dtypes.as_dtype(dtype)
        if isinstance(initial_value, Tensor) and not isinstance(initial_value, EagerTensor) and ctx.graph is None:
            initial_value = _lift_symbolic_initial_value(initial_value)
        if isinstance(initial_value, Tensor) or hasattr(initial_value, "__tf_tensor__"):
            value = convert_to_tensor(initial_value)
            if dtype is not None and value.dtype != dtype:
                # As TF: a tensor is never cast silently (Python and NumPy values are converted to ``dtype``).
                raise ValueError(f"initial_value: Tensor conversion requested dtype {dtype.name} for Tensor with "
                                 f"dtype {value.dtype.name}: {value!r}")
        else:
            value = convert_to_tensor(initial_value, dtype=dtype)
        if synchronization is VariableSynchronization.ON_READ and trainable:
            raise ValueError("Synchronization value can be set to VariableSynchronization.ON_READ only "
                             "for non-trainable variables.")
        if trainable is None:
            trainable = synchronization is not VariableSynchronization.ON_READ
        self._trainable = bool(trainable)
        self._id = _next_id()
        self.constraint = constraint
        self._synchronization = synchronization
        self._aggregation = aggregation
        self._graph = None
        if ctx.graph is not None and not isinstance(value, EagerTensor):
            self._init_in_graph(ctx.graph, value, name, shape)
            return
        self._device = ctx.device or default_device()
        self._value = self._store(value)
        self._dtype = value.dtype
        self._shape = as_shape(shape) if shape is not None else TensorShape(self._value.shape)
        if not self._shape.is_compatible_with(TensorShape(self._value.shape)):
            raise ValueError(f"The initial value's shape ({TensorShape(self._value.shape)}) is not compatible "
                             f"with the explicitly supplied `shape` argument ({self._shape}).")
        self._name = _eager_name(name)

    def _init_in_graph(self, graph, value, name, shape):
        """Graph mode: a handle op, an initializer, and reads/assigns as graph ops; values live in Sessions."""
        self._graph = graph
        self._dtype = value.dtype
        self._shape = as_shape(shape) if shape is not None else value.shape
        self._device = ctx.device or default_device()
        base = graph.unique_name(ctx.name_scope + (name or "Variable").split(":")[0])
        self._name = base + ":0"
        self._initial_value = value
        self._handle = graph.create_op_from_def(
            get_op("VarHandleOp"), [], {"dtype": self._dtype, "shape": self._shape, "shared_name": base},
            name=base + "/")
        self.initializer = execute(get_op("AssignVariableOp"), (self._handle, value), {"dtype": self._dtype},
                                   name=base + "/Assign/")
        graph.add_to_collection(GraphKeys.GLOBAL_VARIABLES, self)
        if self._trainable:
            graph.add_to_collection(GraphKeys.TRAINABLE_VARIABLES, self)

    @property
    def graph(self):
        return self._graph

    @property
    def op(self):
        return self._handle.op if self._graph is not None else None

    @property
    def initial_value(self):
        return self._initial_value if self._graph is not None else self._read_untracked()

    def _graph_value(self):
        """The variable's value as a tensor of its graph (what fetching the variable runs).

        One ``ReadVariableOp``, made on first use and reused, as TF's ``Variable.value()``
        is: fetching a variable in a loop must not grow the graph (and recompile the plan).
        """
        read = self.__dict__.get("_graph_read")
        if read is None or read.graph is not self._graph:
            with self._graph.as_default(), self._graph.control_dependencies(None):
                read = self._graph_read = self._graph.read_variable(self)
        return read

    def eval(self, session=None):
        if self._graph is None:
            raise RuntimeError("This operation is not supported when eager execution is enabled.")
        return self._graph_value().eval(session=session)

    def is_initialized(self, name=None):
        """Eagerly a variable always holds a value: ``tf.Tensor(True)``. (Not available in a tf.Graph.)"""
        if self._graph is not None:
            raise NotImplementedError("Variable.is_initialized is only available eagerly in this engine.")
        return convert_to_tensor(True)

    def set_shape(self, shape):
        """Refine the static shape (``ValueError`` if ``shape`` is incompatible with the current one)."""
        self._shape = self._shape.merge_with(as_shape(shape))

    def sparse_read(self, indices, name=None):
        """``tf.gather(v, indices)``: the rows ``indices`` of the value (recorded as a read)."""
        return array_ops.gather(self._read(), indices, name=name)

    def gather_nd(self, indices, name=None):
        """``tf.gather_nd(v, indices)`` on the value (recorded as a read)."""
        return array_ops.gather_nd(self._read(), indices, name=name)

    def _not_in_graph_error(self):
        return ValueError(f"Variable '{self._name}' was created in a tf.Graph and has no value outside a Session. "
                          f"Run it instead: sess.run(variable) after sess.run(variable.initializer).")

    def _store(self, tensor):
        """Take ``tensor``'s array as the new value, without copying.

        Engine kernels never write into arrays, so sharing is safe; the variable
        keeps a read-only view so its snapshots cannot be modified through it.
        """
        value = tensor._value if tensor._device is self._device else self._device.put(tensor._value)
        return freeze_buffer(value) if self._device.backend == NUMPY else value

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
        """``"Variable:0"``, ``"scope/w:0"``: TF's name. A Keras layer's weight is named as Keras 3 names it,
        the last part of its ``path`` (``"kernel"``; ``path`` is ``"dense/kernel"``)."""
        keras_path = self.__dict__.get("_keras_path")
        return self._name if keras_path is None else keras_path.rsplit("/", 1)[-1]

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
        if self._graph is not None:
            raise self._not_in_graph_error()
        v = self._value
        return EagerTensor(v[()] if v.ndim == 0 else v, self._device)

    def _read(self):
        """Produce a snapshot tensor: run ``ReadVariableOp``, after telling active tapes about the access.

        The tapes hear ``variable_accessed`` first, so a tape watching accessed variables
        watches this one before it records the read (TF's order).
        """
        c = ctx
        if c.graph is not None:
            t = c.graph.read_variable(self)
            for tape in c.tapes:  # a tape inside a traced function
                tape.variable_accessed(self)
                tape.record_operation(_READ(), (self,), _NO_ATTRS, (t,))
            return t
        if self._graph is not None:
            raise self._not_in_graph_error()
        if c.variable_watchers:
            for watcher in c.variable_watchers:
                watcher.setdefault(self._id, self)
        tapes = c.tapes
        for tape in tapes:
            tape.variable_accessed(self)
        return execute_read(_ROWS["ReadVariableOp"], self, tapes)

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
        if self._graph is not None:
            raise NotImplementedError("numpy() is only available when eager execution is enabled. This variable "
                                      "lives in a tf.Graph: use sess.run(variable).")
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

    def __iter__(self):
        return iter(self._read())

    # --- in-place operators: refused, as TF 2.21 does ------------------------------------
    # Without these, ``v += 1`` would silently fall back to ``v = v + 1`` and rebind ``v`` to a Tensor.
    def __iadd__(self, other):
        raise RuntimeError("`variable += value` with `tf.Variable`s is not supported. Use "
                           "`variable.assign_add(value)` to modify the variable, or `out = variable + value` if "
                           "you need to get a new output Tensor.")

    def __isub__(self, other):
        raise RuntimeError("`variable -= value` with `tf.Variable`s is not supported. Use "
                           "`variable.assign_sub(value)` to modify the variable, or `out = variable - value` if "
                           "you need to get a new output Tensor.")

    def __imul__(self, other):
        raise RuntimeError("`var *= value` with `tf.Variable`s is not supported. Use `var.assign(var * value)` to "
                           "modify the variable, or `out = var * value` if you need to get a new output Tensor.")

    def __itruediv__(self, other):
        raise RuntimeError("`var /= value` with `tf.Variable`s is not supported. Use `var.assign(var / value)` to "
                           "modify the variable, or `out = var / value` if you need to get a new output Tensor.")

    def __ipow__(self, other):
        raise RuntimeError("`var **= value` with `tf.Variable`s is not supported. Use `var.assign(var ** value)` "
                           "to modify the variable, or `out = var ** value` if you need to get a new output "
                           "Tensor.")

    def ref(self):
        return _Reference(self)

    experimental_ref = ref

    # --- writing -----------------------------------------------------------------------
    def _prepare(self, value, op_name):
        if self._takes_as_is(value):
            return value  # the common case (an optimizer's update): nothing to convert or check
        try:
            t = convert_to_tensor(value, dtype=self._dtype)
        except ValueError as error:
            raise ValueError(f"{error}. Variable.{op_name} on '{self._name}' needs a {self._dtype.name} value: "
                             f"cast it first with tf.cast(value, {self._dtype!r}).") from None
        if not self._shape.is_compatible_with(t.shape):
            if op_name == "assign":    # TF's words, spacing included (Python's check in ResourceVariable.assign)
                raise ValueError(f"Cannot assign value to variable ' {self._name}': Shape mismatch.The variable "
                                 f"shape {self._shape}, and the assigned value shape {t.shape} are incompatible.")
            op = "AssignAddVariableOp" if op_name == "assign_add" else "AssignSubVariableOp"
            raise InvalidArgumentError(None, None, f"Cannot update variable with shape {self._shape.as_list()} using "
                                                   f"a Tensor with shape {t.shape.as_list()}, shapes must be equal. "
                                                   f"[Op:{op}]")
        return t

    def _takes_as_is(self, value):
        """A value that needs no conversion or check: an eager tensor of the variable's dtype and shape."""
        return type(value) is EagerTensor and self._graph is None and value._value.dtype == self._value.dtype \
            and value._value.shape == self._value.shape

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Replace the value. A value of a different shape raises ``ValueError`` naming both shapes."""
        return self._write("AssignVariableOp", self._prepare(value, "assign"), read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """``v += delta``."""
        return self._write("AssignAddVariableOp", self._prepare(delta, "assign_add"), read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """``v -= delta``."""
        return self._write("AssignSubVariableOp", self._prepare(delta, "assign_sub"), read_value)

    def _write(self, op_type, value, read_value):
        """Run the assignment op ``op_type``: eagerly through the one door, in a graph as a node.

        Eagerly the kernel replaces the variable's buffer, or, for ``assign_add``/``assign_sub``
        on a buffer no tensor shares, updates it in place (``resource_ops._assign_kernel``):
        tensors read earlier keep their values either way (copy on write).
        """
        graph = ctx.graph
        if graph is not None:
            assign = graph.assign_variable(self, value, op_type)
            if not read_value:
                return assign
            # TF's ``_lazy_read``: in a function, the value is read after the assignment only where it is
            # used; in a tf.Graph (Session.run's world, which fetches tensors) the read is made now.
            view = _UnreadVariable._of(self, assign)
            if not getattr(graph, "building_function", False):
                view._graph_element = view._read()
            return view
        execute(_ROWS[op_type], (self, value))
        return self._assigned(read_value)

    def _assigned(self, read_value):
        """What an eager assign returns: TF's ``_UnreadVariable``, a view of this variable (its value read
        lazily, when used; printed as ``<tf.Variable 'UnreadVariable' ...>``), which counts as an access
        for the active tapes; or None (``read_value=False``)."""
        if not read_value:
            return None
        for tape in ctx.tapes:
            tape.variable_accessed(self)
        return _UnreadVariable._of(self)

    # --- sparse writes (scatter) ---------------------------------------------------------
    # TF runs these as ResourceScatter* ops on the variable's buffer. Eagerly the engine computes the new
    # array with NumPy (``ufunc.at``, so duplicate indices accumulate) and stores it as an assignment
    # does: tensors read earlier keep their values. Inside a graph or tf.function, the ``*_add``,
    # ``*_sub`` and ``*_update`` forms are built from ScatterNd / SelectV2 and an assign.
    def scatter_nd_update(self, indices, updates, name=None):
        """``v[indices[i]] = updates[i]``; ``indices[..., :k]`` addresses the first ``k`` dims. Returns ``v``."""
        return self._scatter("ResourceScatterNdUpdate", indices, updates, nd=True)

    def scatter_nd_add(self, indices, updates, name=None):
        """``v[indices[i]] += updates[i]`` (duplicate indices add up). Returns ``v``."""
        return self._scatter("ResourceScatterNdAdd", indices, updates, nd=True)

    def scatter_nd_sub(self, indices, updates, name=None):
        """``v[indices[i]] -= updates[i]``. Returns ``v``."""
        return self._scatter("ResourceScatterNdSub", indices, updates, nd=True)

    def scatter_nd_max(self, indices, updates, name=None):
        """``v[indices[i]] = max(v[indices[i]], updates[i])``. Returns ``v``."""
        return self._scatter("ResourceScatterNdMax", indices, updates, nd=True)

    def scatter_nd_min(self, indices, updates, name=None):
        """``v[indices[i]] = min(v[indices[i]], updates[i])``. Returns ``v``."""
        return self._scatter("ResourceScatterNdMin", indices, updates, nd=True)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Rows ``v[sparse_delta.indices[i]] = sparse_delta.values[i]`` (along the first dimension).

        ``sparse_delta`` is a ``tf.IndexedSlices`` (anything with ``.indices`` and
        ``.values``) or, as an engine extension, an ``(indices, updates)`` pair.
        """
        return self._scatter("ResourceScatterUpdate", *_sparse_delta(sparse_delta), nd=False)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """Rows ``v[indices[i]] += values[i]`` (duplicates add up). See :meth:`scatter_update`."""
        return self._scatter("ResourceScatterAdd", *_sparse_delta(sparse_delta), nd=False)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        """Rows ``v[indices[i]] -= values[i]``. See :meth:`scatter_update`."""
        return self._scatter("ResourceScatterSub", *_sparse_delta(sparse_delta), nd=False)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        """Rows ``v[indices[i]] = max(v[indices[i]], values[i])``. See :meth:`scatter_update`."""
        return self._scatter("ResourceScatterMax", *_sparse_delta(sparse_delta), nd=False)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        """Rows ``v[indices[i]] = min(v[indices[i]], values[i])``. See :meth:`scatter_update`."""
        return self._scatter("ResourceScatterMin", *_sparse_delta(sparse_delta), nd=False)

    def _scatter(self, op_name, indices, updates, nd):
        idx = convert_to_tensor(indices)
        if idx.dtype not in (_dtypes.int32, _dtypes.int64):
            raise InvalidArgumentError(None, None, f"Value for attr 'Tindices' of {idx.dtype.name} is not in the "
                                                   f"list of allowed values: int32, int64 [Op:{op_name}]")
        upd = convert_to_tensor(updates, dtype=self._dtype)
        if ctx.graph is not None or self._graph is not None:
            return self._scatter_in_graph(op_name, idx, upd, nd)
        execute(_ROWS[op_name], (self, idx, upd), {"dtype": self._dtype})   # a new buffer: copy on write
        return self

    def _scatter_in_graph(self, op_name, idx, upd, nd):
        kind = op_name.replace("ResourceScatter", "").replace("Nd", "")
        if kind not in ("Update", "Add", "Sub"):
            raise NotImplementedError(f"Variable.{op_name} inside a graph or tf.function is not implemented in the "
                                      f"engine (only the update, add and sub forms are); call it eagerly.")
        if not nd:
            idx = array_ops.expand_dims(idx, -1)
        shape = array_ops.shape(self.read_value())
        delta = array_ops.scatter_nd(idx, upd, math_ops.cast(shape, idx.dtype))
        if kind == "Add":
            return self.assign_add(delta)
        if kind == "Sub":
            return self.assign_sub(delta)
        mask = array_ops.scatter_nd(idx, array_ops.ones_like(upd, dtype=_dtypes.int32),
                                    math_ops.cast(shape, idx.dtype))
        return self.assign(array_ops.where(math_ops.greater(mask, 0), delta, self.read_value()))

    @staticmethod
    def _sole_owner(view, extra_refs=0):
        """True if only this variable refers to ``view`` and to the memory under it.

        ``extra_refs``: references the caller's own call chain holds besides the usual ones.
        """
        base = view.base
        # references: the variable's attribute, the caller's local, our argument, getrefcount's argument
        if sys.getrefcount(view) > 4 + extra_refs or base is None or not isinstance(base, np.ndarray):
            return False
        # the base array: referenced by the view (+ getrefcount's argument + our local); it must own its data
        return sys.getrefcount(base) <= 3 and base.base is None and base.flags.owndata

    # --- printing ------------------------------------------------------------------------
    def __repr__(self):
        keras_path = self.__dict__.get("_keras_path")
        if keras_path is not None and self._graph is None:   # a Keras layer's weight: Keras 3's repr
            return f"<Variable path={keras_path}, shape={tuple(self._shape.as_list())}, " \
                   f"dtype={self._dtype.name}, value={self._read_untracked().numpy()}>"
        if self._graph is not None:
            return f"<tf.Variable '{self._name}' shape={self._shape} dtype={self._dtype.name}>"
        text = numpy_text(self._read_untracked().numpy(), True)
        return f"<tf.Variable '{self._name}' shape={self._shape} dtype={self._dtype.name}, numpy={text}>"

    def __str__(self):
        return self.__repr__()


class ResourceVariable(Variable):
    """What ``tf.Variable(...)`` makes (TF's ``ResourceVariable``): every behaviour is :class:`Variable`'s."""


class _UnreadVariable(ResourceVariable):
    """What ``v.assign(...)`` (``assign_add``, ``assign_sub``) returns: TF's ``_UnreadVariable``.

    A view of the assigned variable, not a copy: it shares the variable's state (its value, its id,
    so tapes and graphs see the same variable), reads its value when used (``r.numpy()`` after a later
    ``v.assign`` shows the later value, as in TF), writes through to it, and is named ``"UnreadVariable"``.

    In a graph (a ``tf.function``, a ``tf.Graph``) it holds the assignment op, ``op``: the graph reads
    the variable only where the view is used, in a ``ReadVariableOp`` that runs after that op
    (``sess.run(v.assign_add(1))`` runs the assignment, then reads); unused, there is no read.
    """

    __slots__ = ("_parent_op", "_graph_element")

    @classmethod
    def _of(cls, variable, parent_op=None):
        view = object.__new__(cls)
        view.__dict__ = variable.__dict__     # the same state: a view of the variable
        view._parent_op = parent_op           # (slots of the view, not of that state)
        view._graph_element = None            # in a tf.Graph: the read made with the assignment
        return view

    @property
    def op(self):
        return self._parent_op if self._parent_op is not None else super().op

    def _read(self):
        parent = self._parent_op
        if parent is None:
            return super()._read()
        if self._graph_element is not None and ctx.graph is self._graph_element.graph:
            return self._graph_element
        graph = parent.graph
        with graph.as_default() if ctx.graph is not graph else contextlib.nullcontext(), \
                graph.control_dependencies([parent]):
            return super()._read()

    def _graph_value(self):
        if self._graph_element is not None:
            return self._graph_element
        if self._parent_op is None:
            return super()._graph_value()
        return self._read()   # (a read of its own, after the assignment: not the variable's shared one)

    @property
    def name(self):
        return "UnreadVariable"

    def __repr__(self):
        if self._graph is not None:
            return f"<tf.Variable 'UnreadVariable' shape={self._shape} dtype={self._dtype.name}>"
        text = numpy_text(self._read_untracked().numpy(), True)
        return f"<tf.Variable 'UnreadVariable' shape={self._shape} dtype={self._dtype.name}, numpy={text}>"


# --- sliced assignment: ``v[0].assign(10)``, ``v[1:3].assign([5., 6.])`` ----------------------------
_SLICE_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


class _SliceOfVariableMixin:
    """What ``v[key]`` returns: the sliced value (a tensor like any other) that also knows where it came from,
    so ``v[key].assign(value)`` writes that slice of ``v`` (TF's ``ResourceStridedSliceAssign``)."""

    def assign(self, value, name=None, read_value=True):
        return self._slice_var._assign_slice(self._slice_key, self._slice_op, value, read_value)


def _slice_subclass(base):
    return type(f"SliceOf{base.__name__}", (_SliceOfVariableMixin, base),
                {"__slots__": ("_slice_var", "_slice_key", "_slice_op"), "__module__": __name__})


_SLICE_CLASSES = {}


def _sliced_getitem(self, key):
    """``Variable.__getitem__``: the slice of the current value, with an ``assign`` method.

    The result is a copy of the ``StridedSlice`` output's object (same value, same tape/graph id) of a
    subclass of its class; a boolean mask (``tf.boolean_mask``) gives a plain tensor.
    """
    t = Tensor.__getitem__(self._read(), key)
    kind = type(t)
    if kind not in _SLICE_CLASSES:
        try:
            _SLICE_CLASSES[kind] = _slice_subclass(kind)
        except TypeError:
            _SLICE_CLASSES[kind] = None
    cls = _SLICE_CLASSES[kind]
    if cls is None:
        return t
    op = getattr(t, "_op", None) if not isinstance(t, EagerTensor) else None
    if op is not None and getattr(op, "type", None) != "StridedSlice":
        return t
    out = object.__new__(cls)
    for klass in kind.__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if slot != "__weakref__" and hasattr(t, slot):
                object.__setattr__(out, slot, getattr(t, slot))
    out._slice_var, out._slice_key, out._slice_op = self, key, op
    return out


def _eager_slice_spec(key):
    """``(begin, end, strides, attrs)`` of TF's sparse strided-slice spec for a Python index ``key``."""
    items = list(key) if isinstance(key, (list, tuple)) else [key]
    begin, end, strides = [], [], []
    masks = dict.fromkeys(_SLICE_MASKS, 0)
    for i, item in enumerate(items):
        bit = 1 << i
        if isinstance(item, slice):
            start, stop, step = [None if v is None else int(v) for v in (item.start, item.stop, item.step)]
            begin.append(0 if start is None else start)
            end.append(0 if stop is None else stop)
            strides.append(1 if step is None else step)
            masks["begin_mask"] |= bit if start is None else 0
            masks["end_mask"] |= bit if stop is None else 0
        elif item is Ellipsis:
            begin.append(0), end.append(0), strides.append(1)
            masks["ellipsis_mask"] |= bit
        elif item is None:
            begin.append(0), end.append(0), strides.append(1)
            masks["new_axis_mask"] |= bit
        else:
            try:
                i_val = int(item.__index__() if hasattr(item, "__index__") else item)
            except (TypeError, ValueError):
                raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                                f"tf.int32/tf.int64 tensors are valid indices for a sliced assignment, got "
                                f"{item!r}") from None
            begin.append(i_val), end.append(i_val + 1), strides.append(1)
            masks["shrink_axis_mask"] |= bit
    as_array = [np.asarray(v, dtype=np.int64 if any(abs(x) >= 2 ** 31 for x in v) else np.int32)
                for v in (begin, end, strides)]
    return as_array, masks


def _assign_slice(self, key, slice_op, value, read_value=True):
    """Write ``value`` (broadcast to the slice's shape) into ``self[key]``: eagerly by running the kernel of
    ``ResourceStridedSliceAssign`` on this variable, in a graph by adding that op."""
    t = convert_to_tensor(value, dtype=self._dtype)
    op_def = get_op("ResourceStridedSliceAssign")
    graph = ctx.graph
    if graph is None and self._graph is None:
        (begin, end, strides), masks = _eager_slice_spec(key)
        spec = [convert_to_tensor(v) for v in (begin, end, strides)]
        execute(op_def, (self, *spec, t), dict(masks, dtype=self._dtype))
        return self._assigned(read_value)   # TF: an _UnreadVariable of the whole variable
    if slice_op is not None and slice_op.graph is graph:
        spec = list(slice_op.inputs[1:4])
        masks = {m: slice_op.attrs.get(m, 0) for m in _SLICE_MASKS}
    else:
        (begin, end, strides), masks = _eager_slice_spec(key)
        spec = [convert_to_tensor(v) for v in (begin, end, strides)]
    assign = execute(op_def, (graph.variable_handle(self), *spec, t), dict(masks, dtype=self._dtype),
                     name="StridedSliceAssign")
    if not read_value:
        return assign
    with control_dependencies([assign]):
        return graph.read_variable(self)


Variable._assign_slice = _assign_slice


Variable.__getitem__ = _sliced_getitem


def _eager_name(name):
    """An eager variable's name: the open ``tf.name_scope`` + ``name`` (default "Variable") + ``":0"``.

    As TF: ``with tf.name_scope("s"): tf.Variable(1., name="v")`` is named ``"s/v:0"``, and a method
    decorated with ``tf.Module.with_name_scope`` names its variables ``"my_module/Variable:0"``.
    Deliberate differences: a name that already contains ``"/"`` is taken as a full path (Keras layers
    pass ``"dense/kernel"`` from inside the ``dense`` scope), and a name ending in ``":0"`` is kept as is.
    """
    if (name or "").endswith(":0"):
        return name
    name = name or "Variable"
    if "/" not in name:
        name = ctx.name_scope + name
    return name + ":0"


def _lift_symbolic_initial_value(tensor):
    """An initial value computed inside a tf.function, needed outside it: use its static value if known."""
    value = constant_value(tensor)
    if value is None:
        raise ValueError(f"The initial value {tensor!r} of a tf.Variable created inside a tf.function depends on "
                         f"the function's inputs, so it cannot be computed once outside it. Pass a callable "
                         f"(e.g. lambda: tf.zeros([3])) or create the variable outside the function.")
    return value


# --- graph mode ---------------------------------------------------------------------------------
# --- scatter helpers ------------------------------------------------------------------------------
def _sparse_delta(sparse_delta):
    """``(indices, values)`` of a ``tf.IndexedSlices``-like object, or of an ``(indices, updates)`` pair."""
    if hasattr(sparse_delta, "indices") and hasattr(sparse_delta, "values"):
        return sparse_delta.indices, sparse_delta.values
    if isinstance(sparse_delta, tuple) and len(sparse_delta) == 2:
        return sparse_delta
    raise TypeError(f"Argument `sparse_delta` must be a `tf.IndexedSlices` (or, in the engine, an "
                    f"(indices, updates) pair). Received arg: {sparse_delta}")


# --- operators: ``v + 1`` reads the variable, then applies the tensor's operator ------------------
def _variable_operator(name, unary=False):
    """A tensor operator applied to the variable's value (a ``ReadVariableOp``)."""
    tensor_method = getattr(Tensor, name)

    if unary:
        def method(self):
            return tensor_method(self._read())
    else:
        def method(self, other):
            return tensor_method(self._read(), other)
    method.__name__ = name
    return method


for _name in ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__",
              "__rmatmul__", "__lt__", "__le__", "__gt__", "__ge__", "__and__", "__rand__", "__or__", "__ror__",
              "__xor__", "__rxor__", "__eq__", "__ne__"]:
    setattr(Variable, _name, _variable_operator(_name))
for _name in ["__invert__", "__neg__", "__abs__"]:
    setattr(Variable, _name, _variable_operator(_name, unary=True))
# (``Variable.__getitem__`` is this module's own: the slice of the value, with an ``assign`` method.)
Variable.__pos__ = lambda self: self._read()

Variable.__hash__ = unhashable("Variable")
