"""Graph mode: ``tf.Graph``, ``Operation`` and symbolic tensors.

In TensorFlow 1 you first *build* a dataflow graph and then *run* it. Building
calls the very same op functions as eager mode (``tf.add``, ``tf.matmul``...):
the dispatcher (``engine.eager.execute.execute``) sees that a graph is being
built (``ctx.graph``) and, instead of running a kernel, asks that graph to add
a node. The node is described by the same registry entry, so its output dtypes
and (partial) shapes come from the op's shape function, run right now: a
``matmul`` of (2, 3) by (4, 5) fails here, at construction, with ``ValueError``.

A symbolic tensor has a dtype and a static shape, but no value. Values exist
only inside ``Session.run`` (``engine/client/session.py``).
"""
import collections
import contextlib
import re
import threading

import numpy as np

from . import dtypes as _dtypes
from . import context as _context
from .context import _eager_enabled, ctx, get_default_session
from .op_def_library import check_inputs
from .registry import InferenceContext, get_op
from .tensor import EagerTensor, Tensor, _next_id
from .tensor_shape import TensorShape, as_shape
from .errors import OperatorNotAllowedInGraphError
from .name_scope import name_scope

__all__ = ["Graph", "Operation", "SymbolicTensor", "get_default_graph", "reset_default_graph",
           "control_dependencies", "constant_value", "GraphKeys"]


class GraphKeys:
    """Names of the standard graph collections."""

    GLOBAL_VARIABLES = "variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    LOCAL_VARIABLES = "local_variables"
    UPDATE_OPS = "update_ops"
    TRAIN_OP = "train_op"



def _disallow(task):
    """TF 2.21's ``OperatorNotAllowedInGraphError`` for what a symbolic tensor cannot do in Python."""
    raise OperatorNotAllowedInGraphError(
        f"{task} is not allowed. You can attempt the following resolutions to the problem: If you are running in "
        f"Graph mode, use Eager execution mode or decorate this function with @tf.function. If you are using "
        f"AutoGraph, you can try decorating this function with @tf.function. If that does not work, then you may "
        f"be using an unsupported feature or your source code may not be visible to AutoGraph. See "
        f"https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/"
        f"limitations.md#access-to-source-code for more information.")

class SymbolicTensor(Tensor):
    """An output of an ``Operation`` in a graph: dtype and static shape, no value."""

    __slots__ = ("_op", "_index", "_dtype", "_shape", "_id", "_consumers", "__weakref__")

    def __init__(self, op, index, dtype, shape):
        self._op = op
        self._index = index
        self._dtype = dtype
        self._shape = as_shape(shape)
        self._id = _next_id()
        self._consumers = []

    op = property(lambda self: self._op)
    value_index = property(lambda self: self._index)
    dtype = property(lambda self: self._dtype)
    graph = property(lambda self: self._op.graph)
    device = property(lambda self: self._op.device)

    @property
    def shape(self):
        return self._shape

    @property
    def name(self):
        return f"{self._op.name}:{self._index}"

    def set_shape(self, shape):
        """Refine the static shape (``merge_with``); incompatible shapes raise ``ValueError``."""
        self._shape = self._shape.merge_with(shape)

    def consumers(self):
        return list(self._consumers)

    def numpy(self):
        """A symbolic tensor has no value yet (run it: ``sess.run(t)``, or return it from the tf.function).
        TF's class for it is ``SymbolicTensor``, which has no ``numpy`` at all: its AttributeError."""
        raise AttributeError("'SymbolicTensor' object has no attribute 'numpy'")

    def eval(self, feed_dict=None, session=None):
        """Run this tensor in ``session`` (default: the session in a ``with`` block)."""
        session = session or get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. Use "
                             "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
        return session.run(self, feed_dict=feed_dict)

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This "
                                  f"error may indicate that you're trying to pass a Tensor to a NumPy call, "
                                  f"which is not supported.")

    def __bool__(self):
        """Refuse, with TF 2.21's message: a symbolic tensor has no value while the graph is built. (Inside
        ``tf.function``, AutoGraph turns an ``if`` on a tensor into ``tf.cond`` and never calls this.)"""
        _disallow("Using a symbolic `tf.Tensor` as a Python `bool`")

    def __len__(self):
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}). Please call `x.shape` "
                        f"rather than `len(x)` for shape information.")

    def __iter__(self):
        """Refuse, as TF 2.21 does: a symbolic tensor's elements do not exist while the graph is built.

        TF raises ``OperatorNotAllowedInGraphError`` in a TF1 graph and inside
        ``tf.function(autograph=False)``, even when the length is static (so ``a, b = x``
        and ``list(x)`` fail too). With AutoGraph on, a ``for x in tensor`` statement
        becomes a ``tf.while_loop`` (``autograph.operators.for_stmt``) and never calls
        this; comprehensions and unpacking still land here. Engine code that needs the
        pieces of a tensor of known length uses ``tf.unstack`` instead.
        """
        _disallow("Iterating over a symbolic `tf.Tensor`")

    def __index__(self):
        raise TypeError(f"A symbolic tensor ({self.name}) cannot be used as a Python index.")

    # In a TF1 graph, tensors compare and hash by identity (so they can key a feed_dict); inside a
    # tf.function graph they behave like eager tensors (elementwise ==, unhashable). ``==`` and ``!=``
    # are the op library's (``ops/overloads.py`` installs them, with every other operator).
    def __hash__(self):
        if self._op.graph.building_function:
            raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")
        return id(self)

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self):
        return f"Tensor(\"{self.name}\", shape={self._shape}, dtype={self._dtype.name})"


class Operation:
    """A node of a graph: one registered op applied to symbolic inputs."""

    def __init__(self, graph, op_def, name, inputs, attrs, output_specs, control_inputs, device):
        self.graph = graph
        self.op_def = op_def
        self.type = op_def.name
        self.name = name
        self._inputs = tuple(inputs)
        self.attrs = dict(attrs)
        self._control_inputs = list(control_inputs)
        self.device = device or ""
        self._id = _next_id()
        self.skip_input_indices = ()  # set while building gradients: inputs that need none
        self.outputs = [SymbolicTensor(self, i, dtype, shape) for i, (dtype, shape) in enumerate(output_specs)]
        for t in self._inputs:
            t._consumers.append(self)

    @property
    def inputs(self):
        return self._inputs

    @property
    def control_inputs(self):
        return list(self._control_inputs)

    def _add_control_input(self, op):
        if op not in self._control_inputs:
            self._control_inputs.append(op)

    def get_attr(self, name):
        if name in self.attrs:
            return self.attrs[name]
        if name == "T" and self._inputs:
            return self._inputs[0].dtype
        raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.")

    @property
    def node_def(self):
        return {"name": self.name, "op": self.type, "input": [t.name for t in self._inputs] +
                ["^" + c.name for c in self._control_inputs], "attr": dict(self.attrs), "device": self.device}

    def run(self, feed_dict=None, session=None):
        (session or get_default_session()).run(self, feed_dict=feed_dict)

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


class Graph:
    """A dataflow graph. ``with g.as_default():`` makes op functions add nodes to ``g``."""

    def __init__(self):
        self._ops = []
        self._ops_by_name = {}
        self._names_in_use = {}
        self._collections = collections.defaultdict(list)
        self._control_stack = []  # list of lists of ops (tf.control_dependencies)
        self._device_stack = []
        self._finalized = False
        self._lock = threading.RLock()
        self.seed = None
        self.building_function = False
        self._version = 0

    # --- default-graph management ------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self):
        saved_graph, saved_scope = ctx.graph, ctx.name_scope
        ctx.graph, ctx.name_scope = self, ""
        _default_graph_stack().append(self)
        try:
            yield self
        finally:
            _default_graph_stack().pop()
            ctx.graph, ctx.name_scope = saved_graph, saved_scope

    # --- naming ---------------------------------------------------------------------------
    def unique_name(self, name, mark_as_used=True):
        """``name``, or ``name_1``, ``name_2``... if taken (case-insensitively, as TF does)."""
        key = name.lower()
        count = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = count + 1
        if count == 0:
            return name
        candidate = f"{name}_{count}"
        while candidate.lower() in self._names_in_use:
            count += 1
            candidate = f"{name}_{count}"
        if mark_as_used:
            self._names_in_use[candidate.lower()] = 1
        return candidate

    def _op_name(self, name, default):
        base = name if name else default
        if base.endswith("/"):  # an explicit absolute scope name
            return base[:-1]
        return self.unique_name(ctx.name_scope + base)

    def name_scope(self, name):
        return name_scope(name)

    # --- building ------------------------------------------------------------------------
    def _check_not_finalized(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    def _capture(self, value):
        """Bring an input into this graph: tensors of other graphs are an error, eager values become constants."""
        if isinstance(value, SymbolicTensor):
            if value.graph is not self:
                raise ValueError(f"Tensor {value.name} must be from the same graph as the op being created "
                                 f"(it belongs to another tf.Graph). Build both in one `with g.as_default():` block.")
            return value
        if isinstance(value, EagerTensor):
            return self.constant(np.asarray(value.numpy()), value.dtype, "Const")
        raise TypeError(f"Cannot use {value!r} as an input of a graph op")

    def create_op_from_def(self, op_def, inputs, attrs, name=None, output_count=None):
        """Add a node for ``op_def``; returns its output tensor(s) like ``execute`` does.

        This is where TF's graph construction rules apply, for ``tf.Graph`` and ``tf.function``
        alike, both read from the op's registry row:

        1. the input dtypes against the op's definition (``op_def_library.check_inputs``: inputs
           that share a type attribute, fixed-type inputs, allowed dtypes): ``TypeError``;
        2. the shape function, run now on the static shapes (and constant inputs): what it can
           prove wrong is a ``ValueError`` now; what it leaves to the kernel (as TF's does: the
           axis of ``argmax`` of a scalar, ``cumsum``'s axis) is an ``InvalidArgumentError`` when
           the graph runs.
        """
        self._check_not_finalized()
        inputs = [self._capture(t) for t in inputs]
        if op_def.signature is not None:
            check_inputs(op_def, inputs)
        ic = InferenceContext(op_def.name, inputs, attrs, constant_value)
        if op_def.infer is not None:
            specs = op_def.infer(ic)
        else:
            specs = [(inputs[0].dtype if inputs else _dtypes.float32, TensorShape(None))] * \
                (output_count if output_count is not None else op_def.output_count(attrs))
        with self._lock:
            op = Operation(self, op_def, self._op_name(name, op_def.name), inputs, attrs, specs,
                           self._current_control_inputs(inputs), ctx.device.name if ctx.device else "")
            self._add_op(op)
        n = op_def.output_count(attrs)
        if n == 0:
            return op  # ops with no outputs (assignments, NoOp) are used through the Operation
        if n == 1 and len(op.outputs) == 1:
            return op.outputs[0]
        return list(op.outputs)

    def _add_op(self, op):
        self._ops.append(op)
        self._ops_by_name[op.name] = op
        self._version += 1

    def _current_control_inputs(self, inputs):
        controls = []
        input_ops = {t.op for t in inputs}
        for frame in self._control_stack:
            for c in frame:
                if c not in controls and c not in input_ops:
                    controls.append(c)
        return controls

    def constant(self, array, dtype, name="Const"):
        """A ``Const`` node holding ``array``."""
        op_def = get_op("Const")
        with self._lock:
            op = Operation(self, op_def, self._op_name(name, "Const"), [], {"value": array, "dtype": dtype},
                           [(dtype, TensorShape(np.shape(array)))], self._current_control_inputs([]),
                           ctx.device.name if ctx.device else "")
            self._add_op(op)
        return op.outputs[0]

    def control_dependencies(self, control_inputs):
        """Ops created inside run only after ``control_inputs``. ``None`` clears the outer frames."""
        return _ControlDependencies(self, control_inputs)

    # --- variables: their handles, reads and writes as nodes of this graph ------------------------
    def variable_handle(self, variable):
        """The tensor of this graph that yields ``variable``'s handle (TF's resource).

        A variable made in this graph has its own ``VarHandleOp``. An eager variable used
        here (a ``tf.function`` reading a model's weights) gets one ``VarHandleOp`` per
        graph, made on first use, that refers to the eager variable itself.
        """
        if variable._graph is self:
            return variable._handle
        if variable._graph is not None:
            raise ValueError(f"Variable '{variable.name}' belongs to another tf.Graph and cannot be used here.")
        cache = self.__dict__.setdefault("_eager_variable_handles", {})
        handle = cache.get(variable._id)
        if handle is None:
            self.__dict__.setdefault("captured_variables", []).append(variable)
            base = variable.name.split(":")[0]
            handle = cache[variable._id] = self.create_op_from_def(
                get_op("VarHandleOp"), [], {"dtype": variable.dtype, "shape": variable.shape, "shared_name": base,
                                            "eager_variable": variable}, name=base)
        return handle

    def read_variable(self, variable):
        """A ``ReadVariableOp`` node reading ``variable`` (made in this graph, or eager)."""
        return self.create_op_from_def(get_op("ReadVariableOp"), (self.variable_handle(variable),),
                                       {"dtype": variable.dtype, "shape": variable.shape}, name="ReadVariableOp")

    def assign_variable(self, variable, value, op_type):
        """An ``op_type`` node (``AssignVariableOp``, ``AssignAddVariableOp``...) writing ``value`` to
        ``variable``; returns the op (``Variable`` reads its value after it, where it is used)."""
        return self.create_op_from_def(get_op(op_type), (self.variable_handle(variable), value),
                                       {"dtype": variable.dtype}, name=op_type.replace("VariableOp", ""))

    # (``as_graph_def``, the graph as a ``GraphDef``, is ``graph_io.py``'s: it builds on this module.)

    # --- queries ---------------------------------------------------------------------------
    def get_operations(self):
        return list(self._ops)

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        try:
            return self._ops_by_name[name]
        except KeyError:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph.") from None

    def get_tensor_by_name(self, name):
        m = re.match(r"^(.*):(\d+)$", name)
        if not m:
            raise ValueError(f"The name {name!r} looks a like an Operation name, not a Tensor name: Tensor names "
                             f"must be of the form \"<op_name>:<output_index>\".")
        op = self.get_operation_by_name(m.group(1)) if m.group(1) in self._ops_by_name else None
        if op is None:
            raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The operation, "
                           f"{m.group(1)!r}, does not exist in the graph.")
        index = int(m.group(2))
        if index >= len(op.outputs):
            raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The operation, "
                           f"{op.name!r}, exists but only has {len(op.outputs)} outputs.")
        return op.outputs[index]

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj else self.get_operation_by_name(obj)
        if hasattr(obj, "_is_variable") and getattr(obj, "_graph", None) is self:
            return obj._graph_value()
        if isinstance(obj, (SymbolicTensor, Operation)):
            if obj.graph is not self:
                raise ValueError(f"{obj!r} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a Tensor or Operation.")

    # --- collections ------------------------------------------------------------------------
    def add_to_collection(self, name, value):
        self._collections[name].append(value)

    def get_collection(self, name, scope=None):
        items = list(self._collections.get(name, []))
        if scope:
            items = [i for i in items if getattr(i, "name", "").startswith(scope)]
        return items

    def get_collection_ref(self, name):
        return self._collections[name]

    # --- misc -----------------------------------------------------------------------------------
    def finalize(self):
        self._finalized = True

    @property
    def finalized(self):
        return self._finalized

    @property
    def version(self):
        return self._version

    def __repr__(self):
        return f"<tf.Graph with {len(self._ops)} ops at {hex(id(self))}>"


class _ControlDependencies:
    def __init__(self, graph, control_inputs):
        self._graph = graph
        self._inputs = control_inputs
        self._saved = None

    def __enter__(self):
        g = self._graph
        self._saved = g._control_stack
        if self._inputs is None:
            g._control_stack = []
            return None
        ops = []
        for c in self._inputs:
            if getattr(c, "_parent_op", None) is not None:   # ``v.assign(...)``'s result: its assignment op
                c = c._parent_op
            elif hasattr(c, "_is_variable"):
                c = c._graph_value() if getattr(c, "_graph", None) is g else c
            if isinstance(c, SymbolicTensor):
                c = c.op
            if isinstance(c, EagerTensor):
                continue  # eager values are already computed: nothing to wait for
            if not isinstance(c, Operation):
                raise TypeError(f"Control input must be an Operation, a Tensor, or IndexedSlices: {c!r}")
            ops.append(c)
        g._control_stack = self._saved + [ops]
        return None

    def __exit__(self, *exc):
        self._graph._control_stack = self._saved
        return False


def control_dependencies(control_inputs):
    """``tf.control_dependencies``: in a graph, order ops; eagerly, a no-op (ops already ran in order)."""
    graph = ctx.graph
    if graph is None:
        return contextlib.nullcontext()
    return graph.control_dependencies(control_inputs)


# --- the default graph ------------------------------------------------------------------------
_global_default_graph = [None]
_local = threading.local()


def _default_graph_stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def get_default_graph():
    """The innermost ``as_default`` graph, else the process-wide default graph (created on demand)."""
    stack = _default_graph_stack()
    if stack:
        return stack[-1]
    if _global_default_graph[0] is None:
        _global_default_graph[0] = Graph()
    return _global_default_graph[0]


def reset_default_graph():
    if _default_graph_stack():
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If you need a cleared "
                             "graph, exit the nesting and create a new graph.")
    _global_default_graph[0] = Graph()
    if not _eager_enabled[0]:
        ctx.graph = _global_default_graph[0]


_context._default_graph[0] = get_default_graph   # TF1 mode: new threads build this graph


# --- static values ------------------------------------------------------------------------------
def constant_value(tensor):
    """The NumPy value of ``tensor`` if it can be known without running the graph, else ``None``.

    Knows eager tensors, ``Const`` nodes, ``Shape``/``Size``/``Rank`` of inputs with static shapes, and
    ``Identity``/``Cast``/``Pack``/``Fill`` of known values. Shape functions use this (``tf.get_static_value``).
    """
    if isinstance(tensor, EagerTensor):
        return tensor.numpy()
    if not isinstance(tensor, SymbolicTensor):
        return None
    op = tensor.op
    t = op.type
    if t == "Const":
        return op.attrs["value"]
    if t == "Shape":
        s = op.inputs[0].shape
        return np.array(s.as_list(), dtype=op.attrs.get("out_type", _dtypes.int32).as_numpy_dtype) \
            if s.is_fully_defined() else None
    if t == "Size":
        n = op.inputs[0].shape.num_elements()
        return None if n is None else np.array(n, dtype=op.attrs.get("out_type", _dtypes.int32).as_numpy_dtype)
    if t == "Rank":
        r = op.inputs[0].shape.rank
        return None if r is None else np.int32(r)
    if t in ("Identity", "StopGradient"):
        return constant_value(op.inputs[0])
    if t == "Cast":
        v = constant_value(op.inputs[0])
        return None if v is None else np.asarray(v).astype(op.attrs["DstT"].as_numpy_dtype)
    if t == "Fill":
        dims, value = constant_value(op.inputs[0]), constant_value(op.inputs[1])
        if dims is None or value is None:
            return None
        return np.full([int(d) for d in np.ravel(dims)], value, dtype=np.asarray(value).dtype)
    if t in ("ZerosLike", "OnesLike"):
        s = op.inputs[0].shape
        if not s.is_fully_defined():
            return None
        fill = np.zeros if t == "ZerosLike" else np.ones
        return fill(s.as_list(), dtype=op.inputs[0].dtype.as_numpy_dtype)
    if t == "Pack":
        values = [constant_value(i) for i in op.inputs]
        if any(v is None for v in values):
            return None
        return np.stack(values, axis=op.attrs.get("axis", 0))
    return None
