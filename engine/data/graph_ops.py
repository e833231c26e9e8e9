"""Datasets inside ``tf.function``: loops and iterators that run when the function runs.

Tracing runs the Python function once, on symbolic tensors. A dataset loop
must not be unrolled by iterating the dataset *at trace time*: the graph would
contain the elements of one particular pass, frozen as constants (a shuffled
dataset would repeat the same "random" order forever, a ``map`` with side
effects would run once). TF instead puts the *loop* into the graph as one op,
whose kernel iterates the dataset every time the function runs. The engine
does the same, with three registered ops:

``ReduceDataset``
    ``ds.reduce(initial_state, f)`` and AutoGraph's ``for x in ds:``. The loop
    body is traced once into its own graph (:class:`LoopBodyGraph`), taking
    ``(element components..., state..., captures...)`` and returning
    ``(new state..., [continue flag])``, then compiled into a plan. The op's
    inputs are the initial state, the initial continue flag and the captured
    outer tensors; its attrs hold the dataset and the compiled body. The kernel
    (:func:`run_loop`) makes a fresh iterator, and for each element runs the
    body plan, carrying the state, until the data ends or the flag is False.
    The op is stateful, so it runs on every call, in program order with the
    function's other side effects (automatic control dependencies).

``AnonymousIteratorV3`` and ``IteratorGetNext``
    ``it = iter(ds)`` / ``next(it)`` inside a ``tf.function`` (:class:`GraphIterator`).
    The first op makes a fresh iterator per call (a ``resource`` value); each
    ``next(it)`` adds an ``IteratorGetNext`` node that pulls one element at run
    time, raising ``tf.errors.OutOfRangeError`` ("End of sequence") past the end.

**Loop state.** Variables the loop body changes are its *state*: tensors (or
Python numbers, converted) of fixed dtype. If a state tensor's shape changes in
the body (``s = tf.concat([s, [x]], 0)``) its shape is relaxed (to ``None`` in
the dims that differ) and the body traced again, as TF's ``reduce`` does.
Tensors the body only *reads* from the enclosing function are *captured*: they
become placeholders of the body graph, fed from the outer graph.

**The AutoGraph protocol.** AutoGraph's ``for_stmt(iter_, extra_test, body,
get_state, set_state, symbol_names, opts)`` should dispatch to
``iter_._autograph_for_stmt(extra_test, body, get_state, set_state,
symbol_names, opts)`` when ``iter_`` has that method (every ``tf.data.Dataset``
does): see :func:`dataset_for_stmt` for the exact contract.

**Without AutoGraph** (``autograph=False``, or before it is available), a
Python ``for x in ds:`` in a traced function iterates a :class:`GraphIterator`:
the loop is unrolled into one ``IteratorGetNext`` node per element. That is
still correct (every node reads real data at run time), and it stops after
``cardinality()`` elements; for unknown or infinite cardinality it refuses
after :data:`MAX_UNROLL` nodes instead of unrolling forever (TF would hang).

Graphs containing these ops hold Python objects (the dataset) in attrs: they
run in the process that built them but cannot be exported (``as_graph_def``)
meaningfully. Gradients do not flow through ``ReduceDataset`` (as in TF).
"""
import numpy as np

from .. import autograph
from ..eager.execute import execute
from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError, OutOfRangeError
from ..framework.executor import compile_plan
from ..framework.func_graph import FuncGraph
from ..framework.graph import SymbolicTensor
from ..framework.registry import get_op, register_op
from ..framework.tensor import EagerTensor, convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..ops.array_ops import identity
from ..util import nest
from . import structure
from .functions import host_scope

__all__ = ["reduce_dataset", "dataset_for_stmt", "graph_cardinality", "GraphIterator", "bound_graph_iterator", "LoopBodyGraph",
           "run_loop", "MAX_UNROLL"]

MAX_UNROLL = 1000


# --------------------------------------------------------------------------------------
# The loop body: traced once into its own graph
# --------------------------------------------------------------------------------------
class LoopBodyGraph(FuncGraph):
    """The graph of a dataset loop's body.

    Like a ``FuncGraph``, plus *captures*: a symbolic tensor of an enclosing
    graph used in the body becomes a placeholder here (``captures`` lists the
    ``(outer tensor, placeholder)`` pairs), which the loop op feeds.
    """

    _lists_outer_values = False   # (its ``captures`` are the enclosing graph's tensors it is fed)

    def __init__(self, name, outer_graph):
        super().__init__(name)
        self.outer_graph = outer_graph
        self.captures = []
        self._captured = {}
        if outer_graph is not None:
            self.seed = outer_graph.seed

    def _capture(self, value):
        if isinstance(value, SymbolicTensor) and value.graph is not self:
            placeholder = self._captured.get(value._id)
            if placeholder is None:
                placeholder = self.create_op_from_def(get_op("Placeholder"), [],
                                                      {"dtype": value.dtype, "shape": value.shape}, name="capture")
                self._captured[value._id] = placeholder
                self.captures.append((value, placeholder))
            return placeholder
        return super()._capture(value)


class _Body:
    """A compiled loop body: ``plan(components + state + captures) -> new state (+ continue flag)``."""

    def __init__(self, graph, num_state, has_test):
        self.graph = graph
        self.num_state = num_state
        self.has_test = has_test
        self.plan = compile_plan(graph.outputs, graph.stateful_ops, graph.inputs)

    def __repr__(self):
        return f"<loop body {self.graph.name}: {self.num_state} state tensors, {len(self.graph.captures)} captures>"


def _dtype_text(dtype):
    return f"<dtype: '{dtype.name}'>"


def _trace_body(step, dataset, state_structure, state_specs, name, has_test):
    """Trace ``step(state, element) -> (new_state, continue_flag_or_None)`` into a ``_Body``.

    Retraces with relaxed shapes until the state's shapes are loop-invariant.
    Returns ``(body, state_specs)``.
    """
    for _ in range(64):
        graph = LoopBodyGraph(name, ctx.graph)
        with graph.as_default():
            element_inputs = [graph.create_op_from_def(get_op("Placeholder"), [], {"dtype": s.dtype,
                                                                                  "shape": s.shape}, name="element")
                              for s in dataset._flat_specs()]
            state_inputs = [graph.create_op_from_def(get_op("Placeholder"), [], {"dtype": s.dtype, "shape": s.shape},
                                                     name="state") for s in state_specs]
            element = structure.pack(dataset.element_spec, element_inputs)
            state = nest.pack_sequence_as(state_structure, state_inputs) if nest.is_nested(state_structure) \
                else state_inputs[0]
            new_state, keep_going = step(state, element)
            new_flat = _flat_state(new_state, state_structure)
            outputs = []
            for t, spec in zip(new_flat, state_specs):
                if t.dtype != spec.dtype:
                    raise TypeError(f"The element types for the new state must match the initial state. Expected "
                                    f"{_dtype_text(spec.dtype)} but got {_dtype_text(t.dtype)}.")
                outputs.append(t)
            if has_test:
                flag = convert_to_tensor(keep_going)
                if flag.dtype != dtypes.bool or flag.shape.rank not in (0, None):
                    raise TypeError(f"The loop condition must be a scalar tf.bool, got {flag!r}.")
                outputs.append(flag)
            outputs = [_body_output(graph, t, element_inputs + state_inputs) for t in outputs]
        graph.inputs = element_inputs + state_inputs + [p for _, p in graph.captures]
        graph.outputs = outputs
        relaxed = [TensorSpec(s.shape.most_specific_compatible_shape(t.shape), s.dtype)
                   for s, t in zip(state_specs, outputs)]
        if all(r.shape == s.shape for r, s in zip(relaxed, state_specs)):
            return _Body(graph, len(state_specs), has_test), state_specs
        state_specs = relaxed
    raise RuntimeError("The loop state's shapes did not settle after 64 traces.")


def _body_output(graph, t, inputs):
    """An output of the body graph: outer and eager values are captured, a fed value goes through Identity."""
    if not (isinstance(t, SymbolicTensor) and t.graph is graph):
        t = graph._capture(t)
    fed = {x._id for x in inputs} | {p._id for _, p in graph.captures}
    return identity(t) if t._id in fed else t     # the plan must compute every output it returns


def _flat_state(new_state, state_structure):
    n_in, n_out = len(nest.flatten(state_structure)), len(nest.flatten(new_state))
    if n_in != n_out:
        raise InvalidArgumentError(None, None, f"The number of components of the initial state and the reduce "
                                               f"function output does not match. (initial_state={n_in}, "
                                               f"output={n_out}). [Op:ReduceDataset]")
    try:
        nest.assert_same_structure(state_structure, new_state, check_types=False)
    except (ValueError, TypeError):
        raise TypeError(f"The loop body must return the state in the structure it received: the initial state "
                        f"is {state_structure!r}, the body returned {new_state!r}.") from None
    return [convert_to_tensor(t) for t in nest.flatten(new_state)]


# --------------------------------------------------------------------------------------
# Running a loop (the ReduceDataset kernel, and eager reduce)
# --------------------------------------------------------------------------------------
def run_loop(dataset, body, state, keep_going, captures, runtime=None):
    """Iterate ``dataset`` afresh, running ``body`` per element; returns the final state values."""
    iterator = dataset._make_iterator()
    n = body.num_state
    state = list(state)
    try:
        while keep_going:
            try:
                element = next(iterator)
            except StopIteration:
                break
            values = body.plan(list(element) + state + list(captures), runtime)
            state = [structure.host_value(v) if isinstance(v, (np.ndarray, np.generic)) else v for v in values[:n]]
            if body.has_test:
                keep_going = bool(values[n])
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()
    return state


def _arguments_in(dataset):
    """The dataset arguments of the function being traced that ``dataset``'s pipeline reads
    (``extras.ArgumentDataset``: what a call passes, known when it runs), each once."""
    found, stack = {}, [dataset]
    while stack:
        ds = stack.pop()
        if hasattr(ds, "variant_tensor") and hasattr(ds, "bind"):
            found.setdefault(id(ds), ds)
        stack.extend(ds._inputs())
    return list(found.values())


def _bind_arguments(arguments, fed):
    """Before a kernel iterates: each argument dataset stands for the dataset its input was fed."""
    for argument, dataset in zip(arguments, fed):
        argument.bind(dataset)


def _reduce_kernel(xp):
    def k(*inputs, dataset, body, output_types, output_shapes, arguments=(), _runtime=None):
        _bind_arguments(arguments, inputs[:len(arguments)])
        inputs = inputs[len(arguments):]
        n = len(output_types)
        state = run_loop(dataset, body, inputs[:n], bool(inputs[n]), inputs[n + 1:], _runtime)
        if n == 1:
            return state[0]
        return tuple(state)
    return k


def _reduce_infer(ic):
    return [(dt, shape) for dt, shape in zip(ic.attrs["output_types"], ic.attrs["output_shapes"])]


_REDUCE = register_op("ReduceDataset", kernel=_reduce_kernel, infer=_reduce_infer, stateful=True,
                      needs_runtime=True, num_outputs=lambda attrs: len(attrs["output_types"]),
                      doc="Fold a dataset: run a traced loop body per element, carrying state.")


def _state_to_tensors(initial_state, symbol_names=()):
    """The flat tensors of the loop state; a value that cannot be a tensor is an error naming its variable."""
    if symbol_names and isinstance(initial_state, tuple):
        variables = list(zip(initial_state, list(symbol_names) + [None] * len(initial_state)))
    else:
        variables = [(initial_state, None)]
    tensors = []
    for value, name in variables:
        for leaf in nest.flatten(value):
            try:
                tensors.append(convert_to_tensor(leaf._read() if hasattr(leaf, "_is_variable") else leaf))
            except (TypeError, ValueError) as error:
                what = f"'{name}'" if name else "a loop variable"
                raise TypeError(f"{what} is modified in a `for` loop over a tf.data.Dataset inside a tf.function, "
                                f"so it must be a tensor or a nest of tensors, but it is {leaf!r} ({error}).") from None
    return tensors


def _loop(dataset, state_structure, state_tensors, step, keep_going, name):
    """Trace ``step`` and run the loop: eagerly now, or as a ``ReduceDataset`` node of the graph being built."""
    has_test = keep_going is not None
    specs = [TensorSpec(t.shape, t.dtype) for t in state_tensors]
    body, specs = _trace_body(step, dataset, state_structure, specs, name, has_test)
    if ctx.graph is None:                                  # eager: run the loop right away
        values = run_loop(dataset, body, [t.numpy() for t in state_tensors],
                          True if keep_going is None else bool(keep_going), [])
        device = structure.host_device()
        outputs = [EagerTensor(v, device) for v in values]
    else:
        flag = convert_to_tensor(True if keep_going is None else keep_going)
        arguments = _arguments_in(dataset)   # (first, as TF's input_dataset: the function's dataset inputs)
        inputs = [a.variant_tensor for a in arguments] + list(state_tensors) + [flag] + \
            [outer for outer, _ in body.graph.captures]
        attrs = {"dataset": dataset, "body": body, "output_types": [s.dtype for s in specs],
                 "output_shapes": [s.shape for s in specs], "arguments": tuple(arguments)}
        result = execute(_REDUCE, tuple(inputs), attrs, name="ReduceDataset")
        outputs = [] if not specs else ([result] if len(specs) == 1 else list(result))
    if not nest.is_nested(state_structure):
        return outputs[0]
    return nest.pack_sequence_as(state_structure, outputs)


def reduce_dataset(dataset, initial_state, reduce_func):
    """``Dataset.reduce``: ``state = reduce_func(state, element)`` for every element; returns the final state."""
    func = autograph.to_graph(reduce_func)
    if ctx.graph is None:
        with host_scope():
            return _reduce(dataset, initial_state, func)
    return _reduce(dataset, initial_state, func)


def _reduce(dataset, initial_state, func):
    initial_state = structure.to_tensor_nest(initial_state)
    state_tensors = nest.flatten(initial_state)

    def step(state, element):
        return func(state, element), None
    return _loop(dataset, initial_state, state_tensors, step, None, "reduce_func")


# --------------------------------------------------------------------------------------
# The AutoGraph ``for`` protocol
# --------------------------------------------------------------------------------------
def dataset_for_stmt(dataset, extra_test, body, get_state, set_state, symbol_names=(), opts=None):
    """``for target in dataset: body(target)``, as AutoGraph's ``for_stmt`` hands it over.

    The contract (TF's ``for_stmt`` signature):

    * ``body(element)``: runs one iteration; it reads and writes the loop
      variables through the enclosing scope (``nonlocal``), and receives the
      element as one structure (AutoGraph unpacks ``for x, y in ds``).
    * ``get_state()`` returns the loop variables as a tuple;
      ``set_state(values)`` assigns them.
    * ``extra_test()`` (or ``None``): evaluated before each iteration after the
      first; False ends the loop (``break``, or an early ``return``).
    * ``symbol_names``: the loop variables' names, for error messages.

    Eagerly this is a Python loop over the dataset. In a graph, ``body`` is
    traced once as the body of a ``ReduceDataset`` op (see the module
    docstring), and after the op is built the loop variables are set to its
    outputs, so code after the loop sees the final values.
    """
    if ctx.graph is None:
        if extra_test is None:
            for element in dataset:
                body(element)
        elif extra_test():
            for element in dataset:
                body(element)
                if not extra_test():
                    break
        return
    initial = tuple(get_state())
    names = tuple(symbol_names or ())
    _verify_initial_state(initial, names)
    state_tensors = _state_to_tensors(initial, names)
    initial_structure = nest.pack_sequence_as(initial, state_tensors) if initial else ()

    def step(state, element):
        set_state(tuple(state))
        body(element)
        new_state = tuple(get_state())
        return new_state, (extra_test() if extra_test is not None else None)
    keep_going = extra_test() if extra_test is not None else None
    final = _loop(dataset, initial_structure, state_tensors, step, keep_going, "for_body")
    set_state(tuple(final))


def _verify_initial_state(initial, names):
    """TF's checks (and messages) on the loop variables before a dataset loop.

    AutoGraph's placeholders for "not assigned yet" are recognised by class name
    (``Undefined``, ``UndefinedReturnValue``), so this module does not import AutoGraph.
    """
    for i, value in enumerate(initial):
        name = names[i] if i < len(names) else f"loop variable {i}"
        kind = type(value).__name__
        if kind == "UndefinedReturnValue":
            raise NotImplementedError("a return statement cannot be placed inside this TensorFlow loop; this may "
                                      "happen if a return statement depends on a static Python condition such as a "
                                      "hyperparameter")
        if kind == "Undefined":
            raise ValueError(f"'{name}' must be defined before the loop")
        if value is None:
            raise ValueError(f"'{name}' is not allowed to be None before the loop")
        if isinstance(value, list):
            raise TypeError(f"'{name}' is modified in a `for` loop over a tf.data.Dataset inside a tf.function, so it "
                            f"must be a tensor or a nest of tensors, but it is the Python list {value!r}. Collect "
                            f"values in a tf.TensorArray, or use Dataset.reduce.")


# --------------------------------------------------------------------------------------
# iter() / next() inside a graph
# --------------------------------------------------------------------------------------
class _IteratorResource:
    """The run-time value of an ``AnonymousIteratorV3`` node: a fresh pass over the dataset."""

    __slots__ = ("iterator",)

    def __init__(self, dataset):
        self.iterator = dataset._make_iterator()


def _anonymous_iterator_kernel(xp):
    def k(*fed, dataset, arguments=()):
        _bind_arguments(arguments, fed)
        return _IteratorResource(dataset)
    return k


def _get_next_kernel(xp):
    def k(handle, output_types, output_shapes):
        try:
            components = next(handle.iterator)
        except StopIteration:
            raise OutOfRangeError(None, None, "End of sequence") from None
        return components[0] if len(components) == 1 else tuple(components)
    return k


def _cardinality_kernel(xp):
    def k(*fed, dataset, arguments=()):
        _bind_arguments(arguments, fed)
        return np.int64(dataset._cardinality())
    return k


_CARDINALITY = register_op("DatasetCardinality", kernel=_cardinality_kernel,
                           infer=lambda ic: [(dtypes.int64, TensorShape([]))], stateful=True,
                           doc="The number of elements of a dataset, counted when the graph runs.")


def graph_cardinality(dataset):
    """``ds.cardinality()`` in a graph: a constant, unless the pipeline reads a dataset argument of the
    function (known when it runs): then a ``DatasetCardinality`` node, as TF's."""
    arguments = _arguments_in(dataset)
    if not arguments:
        return None
    return execute(_CARDINALITY, tuple(a.variant_tensor for a in arguments),
                   {"dataset": dataset, "arguments": tuple(arguments)}, name="DatasetCardinality")


_ANONYMOUS_ITERATOR = register_op("AnonymousIteratorV3", kernel=_anonymous_iterator_kernel,
                                  infer=lambda ic: [(dtypes.resource, TensorShape([]))], stateful=True,
                                  doc="A fresh iterator over a dataset, per run.")
_GET_NEXT = register_op("IteratorGetNext", kernel=_get_next_kernel, infer=_reduce_infer, stateful=True,
                        num_outputs=lambda attrs: len(attrs["output_types"]),
                        doc="The next element of an iterator; OutOfRangeError at the end.")


class GraphIterator:
    """``iter(dataset)`` while tracing: ``next()`` adds a node that reads an element at run time.

    Also what a ``tf.function`` receives for an iterator *argument* (:func:`bound_graph_iterator`):
    then the handle is the function's ``resource`` input, fed with the caller's iterator on every call.
    """

    def __init__(self, dataset):
        self._dataset = dataset
        self._element_spec = dataset.element_spec
        self._flat_specs = dataset._flat_specs()
        arguments = _arguments_in(dataset)
        self._handle = execute(_ANONYMOUS_ITERATOR, tuple(a.variant_tensor for a in arguments),
                               {"dataset": dataset, "arguments": tuple(arguments)}, name="AnonymousIteratorV3")
        self._cardinality = dataset._cardinality()
        self._produced = 0

    @property
    def element_spec(self):
        return self._element_spec

    def __iter__(self):
        return self

    def __next__(self):
        """The Python iteration protocol: unrolls, stopping after ``cardinality()`` elements."""
        if 0 <= self._cardinality <= self._produced:
            raise StopIteration
        if self._cardinality < 0 and self._produced >= MAX_UNROLL:
            raise ValueError(
                f"A Python `for` loop over a tf.data.Dataset of {'infinite' if self._cardinality == -1 else 'unknown'}"
                f" cardinality was unrolled {MAX_UNROLL} times while tracing a tf.function. Let AutoGraph convert "
                f"the loop (tf.function(autograph=True)), or use Dataset.reduce, so that it runs as one graph loop.")
        return self.get_next()

    def get_next(self):
        """An ``IteratorGetNext`` node: the next element when the function runs."""
        specs = self._flat_specs
        result = execute(_GET_NEXT, (self._handle,), {"output_types": [s.dtype for s in specs],
                                                      "output_shapes": [s.shape for s in specs]},
                         name="IteratorGetNext")
        self._produced += 1
        flat = [result] if len(specs) == 1 else list(result)
        return structure.pack(self._element_spec, flat)

    def __repr__(self):
        return f"<GraphIterator element_spec={self._element_spec!r}>"


def bound_graph_iterator(element_spec, handle):
    """The iterator a traced ``tf.function`` sees for an iterator argument: ``next(it)`` adds an
    ``IteratorGetNext`` node on ``handle`` (the graph's ``resource`` input for the argument), so each call
    pulls the next element of the iterator the call passes. How many elements are left is unknown here,
    so a Python ``for`` over it unrolls at most :data:`MAX_UNROLL` nodes (then ``ValueError``)."""
    it = GraphIterator.__new__(GraphIterator)
    it._dataset = None
    it._element_spec = element_spec
    it._flat_specs = structure.flat_specs(element_spec)
    it._handle = handle
    it._cardinality = -2      # UNKNOWN_CARDINALITY
    it._produced = 0
    return it
