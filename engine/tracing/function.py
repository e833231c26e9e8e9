"""``tf.function``: trace a Python function into a graph once, then run the graph.

The life of a call ``f(x)``:

1. **Key.** Bind the arguments to the Python signature (defaults filled in, so
   ``f(t)`` and ``f(t, y=2)`` are the same call), then turn them into a *trace
   key*: tensors (and NumPy arrays) by dtype and shape, Python scalars and
   strings by value, nests by structure, variables by dtype and shape (and
   which arguments are the same variable: the graph gets a resource input per
   variable, fed with whichever variable a call passes), ``tf.data`` iterators
   by their element spec (``IteratorSpec``: the graph gets a resource input for
   one, and ``next(it)`` is an ``IteratorGetNext`` node on it, so every call
   advances the iterator it is given), other objects by identity.
   (:meth:`Function._canonical`, :func:`_trace_key`)
2. **Lookup.** A ``ConcreteFunction`` already traced for that key (or, with
   ``reduce_retracing``/``input_signature``, for a compatible one) is reused.
3. **Trace** (only on a miss). Run the Python function once on *symbolic*
   placeholders inside a ``FuncGraph``: every op it calls adds a node instead
   of computing. Python side effects (``print``) happen now, and only now.
4. **Run.** The concrete function's graph was compiled into a straight-line
   plan (``engine/framework/executor.py``); feed the argument tensors, get the
   outputs back as eager tensors. (Calling a ``ConcreteFunction`` directly binds
   the call as TF does: to the traced Python parameters, every one given and a
   Python value equal to the traced one, else to the flat tensor inputs; a call
   that fits neither is a ``TypeError`` giving both reasons: ``_FunctionType``.)

A ``GradientTape`` outside the call sees the call as one op; its gradient runs
the gradient graph built from the same registry gradient functions, fed with
the forward values the forward run saved. Under nested tapes (higher-order
gradients) the call instead replays the traced ops eagerly, one by one, so every
tape records them; TF reaches the same result by differentiating the gradient
function itself. Control flow replays too: a cond runs its chosen branch's ops,
a while loop its cond and body ops iteration by iteration, and a loop gradient
computed inside the function (``WhileGrad``) its backward body over the
recorded iterations, so higher-order gradients through ``tf.cond`` and
``tf.while_loop`` are exact. A function that cannot be replayed (it holds ops
that need the graph runtime, such as random ops) raises ``NotImplementedError``
when its gradient is differentiated again, instead of returning ``None``.

AutoGraph (``engine/autograph``) converts the function's Python ``if``/``while``/
``for`` on tensors into ``tf.cond``/``tf.while_loop`` before tracing.

The module reads in that order: ``tf.function`` and :class:`Function` (key,
lookup, trace, warn about retracing), :class:`FunctionTracer` (the reference
key and trace), :class:`ConcreteFunction` (one graph: calling it, its gradient,
replay), then the rules for trace keys and the helpers of a call.

**The tracer seam.** Steps 1 and 3, the key and the trace, are the ``tracer``
seam (``engine.seams``). A tracer is a class, built once per ``tf.function``
(and per tracer class) as ``Tracer(python_function)``, with two methods, and
two optional ones for the retracing rules::

    class MyTracer:
        def __init__(self, python_function): ...   # the function to trace (AutoGraph-converted)
        def cache_key(self, args, kwargs): ...     # -> a hashable key: equal keys share one trace
        def trace(self, args, kwargs): ...         # -> a ConcreteFunction
        # optional:
        def accepts(self, traced_key, key): ...    # -> may a call keyed `key` reuse the trace of `traced_key`?
        def relax(self, traced_key, key, args, kwargs): ...   # -> (args, kwargs) to trace instead, or None

``args``/``kwargs`` are the call's arguments bound to the Python signature
(defaults filled in); with an ``input_signature`` (or ``get_concrete_function``
on specs) the tensor arguments are ``tf.TensorSpec`` s. ``trace`` builds a
``FuncGraph`` (``engine/framework/func_graph.py``): ``graph.add_input(dtype,
shape)`` gives the placeholder that stands for each tensor argument (a
``tf.Tensor``, NumPy array or ``tf.TensorSpec`` leaf, in flat order);
:func:`variable_input` gives a variable argument its resource input (once per
distinct variable, at its first place in flat order; a tracer may instead pass
the variable as it is, captured, and key it by identity); other leaves are
passed to the function as they are (baked into the graph); it calls
``python_function`` inside ``graph.as_default()``, ``graph.set_outputs(result)``
turns what it returned into the graph's outputs, and ``ConcreteFunction(graph)``
wraps the graph. A call feeds the concrete function with the call's tensor
arguments (and its variable arguments, if the graph has resource inputs),
checked against the placeholders' dtypes and shapes, so a key must tell apart
every argument the graph cannot serve (a key that forgets shapes needs
placeholders of unknown shape).

A call whose key is new is offered to ``accepts(traced_key, key)`` for each
earlier trace of this tracer, oldest first: the first that accepts serves it
(a trace for shape ``(None,)`` serves ``(3,)``). Without ``accepts``, only equal
keys share a trace. If none accepts and the function has ``reduce_retracing``,
``relax(traced_key, key, args, kwargs)`` is asked for each earlier trace, newest
first: the first answer that is not None, the call's arguments generalized
against that trace (tensors replaced by ``tf.TensorSpec`` s with ``None`` in
the dimensions that differ), is traced instead of the call's arguments, and
keyed ``cache_key(*relaxed)`` for later calls' ``accepts``. The reference's
``accepts``/``relax`` are TF's rules, the ones the engine's own lookup applies.

Inside ``with engine.seams.using(tracer=MyTracer):`` every ``tf.function``, old
or new, keys and traces its calls with ``MyTracer``. Each function keeps its
traces per tracer class: inside the block it does not reuse the reference's
traces, after it the reference does not reuse MyTracer's (a later block with
MyTracer does). ``experimental_get_tracing_count()`` counts every trace, and the
rules around any tracer stay the engine's: the binding of a call to an
``input_signature`` (a call that does not fit raises ``TypeError``), a first
trace that creates variables is traced again (TF's rule), the retracing
warning. The reference is :class:`FunctionTracer`; outside a ``using`` block a
call costs one attribute read for the seam.

Deliberate differences from TF (for now): ``jit_compile`` is accepted and ignored;
distributed variables passed as arguments are captured and keyed by identity; a higher-order gradient that is
identically zero on the branch a cond took is ``None`` (as in TF's eager mode;
TF's traced cond gives ``0.``: pass ``unconnected_gradients=ZERO`` for that).
"""
import collections
import functools
import inspect
import itertools
import logging

import numpy as np

from .. import autograph, config_optimizer, seams
from ..autograph.user_code_errors import in_user_code
from ..framework import dtypes
from ..framework.context import ctx
from ..framework.device import default_device
from ..framework.errors import InvalidArgumentError
from ..framework.executor import compile_plan
from ..framework.func_graph import FuncGraph
from ..framework.tensor import EagerTensor, Tensor, convert_to_tensor
from ..framework.trace_type import user_trace_type
from ..framework.tensor_shape import TensorShape
from ..framework.graph_gradients import build_gradient_graph
from ..framework.composite_tensor import CompositeTensor
from ..framework.tensor_spec import TensorSpec
from ..framework.type_spec import TypeSpec
from ..eager.tape import record_operation
from ..ops import array_ops, resource_ops
from ..ops.control_flow_ops import replay_ops
from ..util import nest
from ..variables import ResourceVariable as _Variable   # what tf.Variable(...) makes (TF: ResourceVariable)

__all__ = ["function", "Function", "ConcreteFunction", "variable_input"]

logger = logging.getLogger("tensorflow")

_function_ids = itertools.count(1)
_RETRACE_THRESHOLD = 5       # warn when this many of the recent calls traced (TF's numbers)
_RETRACE_HISTORY = 10
_RETRACE_MAX_WARNINGS = 2
RUN_EAGERLY = False          # tf.config.run_functions_eagerly


def set_run_eagerly(flag):
    global RUN_EAGERLY
    RUN_EAGERLY = flag


# --------------------------------------------------------------------------------------
# tf.function: the decorator
# --------------------------------------------------------------------------------------
def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None):
    """``tf.function``: as a decorator (with or without arguments) or called on a function."""
    if experimental_relax_shapes:
        reduce_retracing = True

    def decorate(fn):
        return Function(fn, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=reduce_retracing, jit_compile=jit_compile)
    return decorate if func is None else decorate(func)


# --------------------------------------------------------------------------------------
# Function
# --------------------------------------------------------------------------------------
class Function:
    """The callable ``tf.function`` returns: a cache of ConcreteFunctions keyed by argument types."""

    def __init__(self, python_function, name=None, input_signature=None, autograph=True, reduce_retracing=False,
                 jit_compile=None):
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._input_signature = None if input_signature is None else list(input_signature)
        self._autograph = autograph
        self._reduce_retracing = reduce_retracing
        self._jit_compile = jit_compile
        self._cache = {}              # exact trace key -> ConcreteFunction
        self._fast_cache = {}         # calls with eager tensors only: (dtype, shape) per argument -> ConcreteFunction
        self._by_skeleton = collections.defaultdict(list)  # skeleton -> [(key, ConcreteFunction)]
        self._tracing_count = 0
        self._history = []            # TF's frequent-retracing detector: calls per tracing
        self._history_calls = 0
        self._warnings = 0
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return None if self._input_signature is None else tuple(self._input_signature)

    def experimental_get_tracing_count(self):
        """How many times the Python function has been traced."""
        return self._tracing_count

    def __get__(self, instance, owner):
        """``@tf.function`` on a method: one Function (and one trace cache) per instance."""
        if instance is None:
            return self
        cache = instance.__dict__.setdefault("_tf_function_instances", {}) if hasattr(instance, "__dict__") \
            else None
        bound = cache.get(id(self)) if cache is not None else None
        if bound is None:
            method = self._python_function.__get__(instance, owner)
            bound = Function(method, self._name, self._input_signature, self._autograph, self._reduce_retracing,
                             self._jit_compile)
            if cache is not None:
                cache[id(self)] = bound
        return bound

    # --- calling ---------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if RUN_EAGERLY:  # tf.config.run_functions_eagerly(True): plain Python, for debugging
            return self._python_function(*args, **kwargs)
        if _TRACER_SEAM.replaced or _AUTOGRAPH_SEAM.replaced:  # inside engine.seams.using(tracer=/autograph=...)
            concrete, traced, args, kwargs = self._lookup_or_trace_with(_TRACER_SEAM.current, args, kwargs)
            self._note_call(traced)
            return concrete(*args, **kwargs)
        fast_key = None if kwargs else _fast_key(args)
        if fast_key is not None:  # the common call: eager tensors only; skip building the full trace key
            concrete = self._fast_cache.get(fast_key)
            if concrete is not None:
                self._note_call(False)
                return concrete._call_flat(args)
        concrete, traced, args, kwargs = self._lookup_or_trace(args, kwargs)
        if fast_key is not None:
            self._fast_cache[fast_key] = concrete
        self._note_call(traced)
        return concrete._call_flat(_flat_tensor_args((args, kwargs)))

    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments (tensors or ``tf.TensorSpec`` s), tracing if needed."""
        if not args and not kwargs and self._input_signature is not None:
            args = tuple(self._input_signature)
        if _TRACER_SEAM.replaced or _AUTOGRAPH_SEAM.replaced:
            return self._lookup_or_trace_with(_TRACER_SEAM.current, args, kwargs)[0]
        concrete, _, _, _ = self._lookup_or_trace(args, kwargs)
        return concrete

    def _canonical(self, args, kwargs):
        """The call's arguments as TF keys them: bound to the Python signature, defaults filled in,
        so ``f(t)``, ``f(t, 2)``, ``f(t, y=2)`` and ``f(x=t)`` (with ``def f(x, y=2)``) share one trace."""
        signature = self.__dict__.get("_signature", False)
        if signature is False:
            try:
                signature = inspect.signature(self._python_function)
            except (TypeError, ValueError):  # builtins and other callables without a signature
                signature = None
            self._signature = signature
        if signature is None:
            return args, kwargs
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self._name}() got arguments that do not fit its signature {signature}: {e}") from None
        bound.apply_defaults()
        return bound.args, bound.kwargs

    def _arguments(self, args, kwargs):
        """``(args, kwargs)`` to key and trace, then ``(args, kwargs)`` to feed: the call bound to the Python
        signature (canonical); with ``input_signature``, its specs, and the call converted to their dtypes."""
        if self._input_signature is not None:
            call_args = self._bind_to_signature(args, kwargs)   # raises TypeError if the call does not fit
            return tuple(self._input_signature), {}, call_args, {}
        args, kwargs = self._canonical(args, kwargs)
        return args, kwargs, args, kwargs

    def _lookup_or_trace(self, args, kwargs):
        """The ConcreteFunction for this call (tracing on a miss), whether it traced, and the arguments
        to feed it (canonical; with ``input_signature``, converted to the signature's dtypes)."""
        args, kwargs, call_args, call_kwargs = self._arguments(args, kwargs)
        key = _trace_key(args, kwargs)
        concrete = self._cache.get(key)
        if concrete is not None:
            return concrete, False, call_args, call_kwargs
        skeleton = _skeleton(key)
        for other_key, candidate in self._by_skeleton[skeleton]:
            if _compatible(other_key, key):
                return candidate, False, call_args, call_kwargs
        relaxed = None
        if self._reduce_retracing and self._by_skeleton[skeleton]:
            relaxed = _relax(self._by_skeleton[skeleton][-1][0], key)
        tracer = self._reference_tracer()
        concrete = self._trace(functools.partial(tracer.trace, relaxed=relaxed), args, kwargs)
        trace_key = _trace_key(*_specs_from(args, kwargs, relaxed)) if relaxed is not None else key
        self._cache[key] = concrete
        self._by_skeleton[skeleton].append((trace_key, concrete))
        return concrete, True, call_args, call_kwargs

    def _lookup_or_trace_with(self, tracer_class, args, kwargs):
        """:meth:`_lookup_or_trace` with a ``tracer`` seam's tracer: its key, its traces (kept per tracer class)."""
        args, kwargs, call_args, call_kwargs = self._arguments(args, kwargs)
        # (tracer class, AutoGraph converter) -> (tracer, {key: concrete}): traces made with a seam's tracer or
        # converter are never reused by another, nor by the reference outside the block.
        converter = _AUTOGRAPH_SEAM.current if _AUTOGRAPH_SEAM.replaced else None
        tracers = self.__dict__.setdefault("_seam_tracers", {})
        entry = tracers.get((tracer_class, converter))
        if entry is None:
            entry = tracers[(tracer_class, converter)] = (tracer_class(self._converted_function(converter)), {})
        tracer, cache = entry
        key = tracer.cache_key(args, kwargs)
        concrete = cache.get(key)
        if concrete is not None:
            return concrete, False, call_args, call_kwargs
        traced = self.__dict__.setdefault("_seam_traced", {}).setdefault((tracer_class, converter), [])
        accepts = getattr(tracer, "accepts", None)   # optional: the reuse of a compatible trace
        if accepts is not None:
            for traced_key, candidate in traced:
                if accepts(traced_key, key):
                    return candidate, False, call_args, call_kwargs
        trace_args, trace_kwargs, trace_key = args, kwargs, key
        relax = getattr(tracer, "relax", None)       # optional: reduce_retracing's generalization
        if self._reduce_retracing and relax is not None:
            for traced_key, _ in reversed(traced):
                relaxed = relax(traced_key, key, args, kwargs)
                if relaxed is not None:
                    trace_args, trace_kwargs = relaxed
                    trace_key = tracer.cache_key(trace_args, trace_kwargs)
                    break
        concrete = cache[key] = self._trace(tracer.trace, trace_args, trace_kwargs)
        traced.append((trace_key, concrete))
        return concrete, True, call_args, call_kwargs

    def _reference_tracer(self):
        tracer = self.__dict__.get("_tracer")
        if tracer is None:
            tracer = self._tracer = FunctionTracer(self._converted_function(), self._name)
        return tracer

    def _bind_to_signature(self, args, kwargs):
        """Check the call against ``input_signature``; the specs, not the values' shapes, are traced."""
        if kwargs:
            params = list(inspect.signature(self._python_function).parameters)
            args = tuple(args) + tuple(kwargs[p] for p in params[len(args):] if p in kwargs)
        specs = self._input_signature
        if len(args) != len(specs):
            raise TypeError(f"{self._name} has an input_signature of {len(specs)} tensors but was called with "
                            f"{len(args)} arguments.")
        bound = []
        for value, spec in zip(args, specs):
            if _is_composite_spec(spec):   # a RaggedTensorSpec: a RaggedTensor (or spec) it accepts
                if not spec.is_compatible_with(value):
                    raise self._composite_binding_error(args, kwargs, value, spec)
                bound.append(value)
                continue
            if isinstance(value, TensorSpec):
                got = t = value
            else:
                t = value if isinstance(value, Tensor) else _to_signature_dtype(value, spec.dtype)
                got = TensorSpec(t.shape, t.dtype)
            if not spec.is_compatible_with(got):
                raise TypeError(f"Binding inputs to tf.function failed due to `Can not cast {got!r} to {spec!r}`. "
                                f"Received args: {args} and kwargs: {kwargs} for signature: {tuple(specs)}.")
            bound.append(t)
        return tuple(bound)

    def _composite_binding_error(self, args, kwargs, value, spec):
        """TF's TypeError for a composite argument its ``input_signature`` spec refuses: the first
        component that does not fit, and the signature with the parameter names."""
        got = value._type_spec if isinstance(value, CompositeTensor) else value
        what = f"{got!r} to {spec!r}"
        if isinstance(got, TypeSpec) and type(got) is type(spec):
            parts = nest.flatten(value, expand_composites=True) if isinstance(value, CompositeTensor) else []
            actual = [TensorSpec(t.shape, t.dtype) for t in parts] or got._flat_tensor_specs
            for a, b in zip(actual, spec._flat_tensor_specs):
                if not b.is_compatible_with(a):
                    what = f"{a!r} to {b!r}"
                    break
        try:
            names = list(inspect.signature(self._python_function).parameters)
        except (TypeError, ValueError):
            names = []
        shown = ", ".join(f"{n}: {s!r}" for n, s in zip(names, self._input_signature))
        return TypeError(f"Binding inputs to tf.function failed due to `Can not cast {what}`. Received args: "
                         f"{tuple(args)} and kwargs: {kwargs} for signature: ({shown}).")

    # --- tracing ---------------------------------------------------------------------------------------
    def _trace(self, trace, args, kwargs):
        """Trace a new ConcreteFunction with ``trace(args, kwargs)`` (a tracer's), counting the traces.

        As in TF, a first trace that creates ``tf.Variable`` s is followed at once by a second
        trace: the variables exist by then, and the graph that is kept is the second one, which
        only reads them. If the second trace creates variables too, the function makes new ones
        on every call, which a graph cannot do: ``ValueError``. (So such a function has traced
        twice after its first call, and Python side effects ran twice.)
        """
        creates_variables_allowed = self._tracing_count == 0
        concrete = trace(args, kwargs)
        self._tracing_count += 1
        if _created_variables(concrete) and creates_variables_allowed:
            concrete = trace(args, kwargs)
            self._tracing_count += 1
            creates_variables_allowed = False
        if _created_variables(concrete) and not creates_variables_allowed:
            raise ValueError("tf.function only supports singleton tf.Variables created on the first call. Make "
                             "sure the tf.Variable is only created once or created outside tf.function. See "
                             "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")
        return concrete

    def _converted_function(self, converter=None):
        """The Python function as traced: converted by the AutoGraph ``converter`` in use (the
        ``autograph`` seam's; None: the engine's), unless ``autograph=False``. One conversion per converter."""
        conversions = self.__dict__.setdefault("_conversions", {})
        converted = conversions.get(converter)
        if converted is None:
            converted = self._python_function
            if self._autograph:
                converted = _reporting_user_code(autograph.to_graph(self._python_function))
            conversions[converter] = converted
        return converted

    def _note_call(self, traced):
        """TF's frequent-retracing detector: warn when most recent calls had to trace."""
        self._history_calls += 1
        if not traced:
            if self._history:
                self._history[-1] += 1
            return
        self._history.append(1)
        while self._history and self._history_calls - self._history[0] > _RETRACE_HISTORY:
            self._history_calls -= self._history.pop(0)
        if self._tracing_count > 1 and self._warnings < _RETRACE_MAX_WARNINGS and \
                len(self._history) >= _RETRACE_THRESHOLD:
            self._warnings += 1
            logger.warning(
                f"{len(self._history)} out of the last {self._history_calls} calls to {self._python_function!r} "
                f"triggered tf.function retracing. Tracing is expensive, and frequent retracing usually comes "
                f"from (1) creating the @tf.function again inside a loop, (2) passing tensors of changing "
                f"shapes, or (3) passing Python values instead of tensors. For (1), define the function once, "
                f"outside the loop; for (2), use reduce_retracing=True or an input_signature with None "
                f"dimensions; for (3), pass tensors (see the tf.function guide on controlling retracing).")

    # --- printing ----------------------------------------------------------------------------------
    def pretty_printed_concrete_signatures(self, verbose=True):
        """Every trace of this function, as TF prints them (guide/function: "Obtaining concrete functions").

        ``verbose=True``: per trace, its ``Input Parameters`` (name, kind, type), ``Output Type`` and
        ``Captures``, traces separated by a blank line; ``verbose=False``: one line per trace,
        ``(a: TensorSpec(...)) -> TensorSpec(...)``. No trace yet: ``""``. Traces in the order they were made.
        """
        concretes = list(dict.fromkeys(self._cache.values()))
        separator = "\n\n" if verbose else "\n"
        return separator.join(c.pretty_printed_signature(verbose=verbose) for c in concretes)

    def __repr__(self):
        return f"<engine.function {self._name}>"


class FunctionTracer:
    """The reference tracer, the ``tracer`` seam's: TF 2.21's trace keys, and tracing on placeholders.

    ``cache_key``: tensors (NumPy arrays, ``TensorSpec`` s) by dtype and shape, Python
    scalars and strings by value, nests by structure, variables by dtype and shape plus
    which arguments are the same variable, other objects by identity (:func:`_trace_key`).
    ``trace``: a placeholder per tensor argument and a resource placeholder per distinct
    variable argument (fed with whichever variable a later call passes), the function
    called on them inside a ``FuncGraph``. ``accepts``/``relax``: the retracing rules
    (the reuse of a compatible trace: one traced for shape ``(None,)`` serves ``(3,)``;
    ``reduce_retracing``'s generalization). ``Function``'s own lookup applies the same
    rules with the module's helpers, and passes ``trace(..., relaxed=shapes)``.
    """

    def __init__(self, python_function, name=None):
        self.python_function = python_function
        self.name = name or getattr(python_function, "__name__", "function")

    def cache_key(self, args, kwargs):
        """A hashable description of the arguments: calls with equal keys share one trace."""
        return _trace_key(args, kwargs)

    def trace(self, args, kwargs, relaxed=None):
        """Run the Python function once on placeholders inside a new FuncGraph: a ConcreteFunction."""
        graph = FuncGraph(self.name)
        names = _argument_names(self.python_function, args, kwargs)
        specs_args, specs_kwargs = _specs_from(args, kwargs, relaxed)

        def make_input(value, name):
            if isinstance(value, TensorSpec):
                return graph.add_input(value.dtype, value.shape, name=value.name or name)
            if _is_composite_spec(value):   # a RaggedTensor argument: a placeholder per component, rebuilt
                parts = [graph.add_input(c.dtype, c.shape, name=f"{name}_{i}" if i else name)
                         for i, c in enumerate(value._flat_tensor_specs)]
                return value._from_tensor_list(parts)
            if _is_variable_argument(value):
                variable_input(graph, value, name)
            if _is_resource_spec(value):   # an iterator (a dataset) argument: a resource (variant) input,
                graph._resource_arguments = True      # and its graph-side view
                dtype = getattr(value, "dtype", dtypes.resource)
                return value._placeholder_value(graph.add_input(dtype, TensorShape([]), name=name))
            return value
        with graph.as_default():
            symbolic = [make_input(v, n) for v, n in zip(nest.flatten((specs_args, specs_kwargs)), names)]
            call_args, call_kwargs = nest.pack_sequence_as((specs_args, specs_kwargs), symbolic)
            _set_outputs(graph, self.python_function(*call_args, **call_kwargs))
        input_signature = (tuple(_named_specs(specs_args, names)), dict(specs_kwargs))
        concrete = ConcreteFunction(graph, input_signature, graph.structured_outputs,
                                    f"__inference_{self.name}_{next(_function_ids)}")
        concrete._function_type = _FunctionType(self.python_function, specs_args, specs_kwargs,
                                                graph.structured_outputs, self.name,
                                                [p.op.name for p in graph.inputs])
        return concrete

    def accepts(self, traced_key, key):
        """May a call keyed ``key`` reuse the trace made for ``traced_key``? (Same key but for tensor
        shapes, and every traced shape accepts the call's: each traced dimension None or equal.)"""
        return _skeleton(traced_key) == _skeleton(key) and _compatible(traced_key, key)

    def relax(self, traced_key, key, args, kwargs):
        """``reduce_retracing``: the arguments with their tensors as specs of the most specific shapes
        covering both calls (dims that differ become None), or None if the keys differ beyond shapes."""
        if _skeleton(traced_key) != _skeleton(key):
            return None
        return _specs_from(args, kwargs, _relax(traced_key, key))


def _set_outputs(graph, result):
    """``graph.set_outputs(result)``, each output tensor through an ``Identity`` node, as TF's FuncGraphs.

    TF returns every output of a traced function through an ``Identity`` (``Identity``,
    ``Identity_1``, ...: what ``graph.as_graph_def()`` lists last); the graph optimizer
    removes them again before running. An eager tensor among the outputs (a captured value
    returned as it is) is captured by its ``Identity``. A tensor of another graph (leaked
    from a loop body) is left for ``set_outputs`` to refuse. Composites in ``result`` (a
    RaggedTensor) are returned as their component tensors, and ``structured_outputs``
    rebuilds them (``expand_composites``)."""
    flat = nest.flatten(result, expand_composites=True)
    if any(isinstance(t, Tensor) for t in flat):
        flat = [array_ops.identity(t) if type(t) is EagerTensor or (isinstance(t, Tensor) and t.graph is graph)
                else t for t in flat]
        _wait_for_side_effects(graph, [t for t in flat if isinstance(t, Tensor) and t.graph is graph])
        result = nest.pack_sequence_as(result, flat, expand_composites=True)
    if len(flat) == len(nest.flatten(result)):
        graph.set_outputs(result)
        return
    converted = graph.set_outputs(flat)
    graph.structured_outputs = nest.pack_sequence_as(result, converted, expand_composites=True)


def _wait_for_side_effects(graph, outputs):
    """TF's automatic control dependencies, as a function's graph shows them: the ops that must run
    on every call are the control inputs of one ``NoOp``, and each output's ``Identity`` waits for it.

    The ops that must run are the stateful ones (variable reads and writes, ``tf.print``, asserts,
    dataset reductions...), except the legacy random ops (``tf.random.uniform``: their rows'
    ``random``), which TF leaves out. So ``v.assign_add(x); return x`` lists
    ``Identity(x, ^NoOp)`` and ``NoOp(^AssignAddVariableOp)``, as in TF; a function without side
    effects has no NoOp. (The engine's plans run ``graph.stateful_ops`` on every call anyway: the
    NoOp is how the graph says so, for readers and for exported graphs.)
    """
    must_run = [op for op in graph.stateful_ops if not op.op_def.random]
    if not must_run or not outputs:
        return
    with graph.control_dependencies(must_run):
        side_effects = resource_ops.no_op(name="NoOp")
    for t in outputs:
        t.op._add_control_input(side_effects)


def _is_composite_spec(x):
    """A ``tf.TypeSpec`` of a composite value (``RaggedTensorSpec``): not a TensorSpec, not a resource's."""
    return isinstance(x, TypeSpec) and not isinstance(x, TensorSpec)


def variable_input(graph, variable, name=None):
    """The resource input of ``graph`` (a ``FuncGraph`` being traced) for the eager ``variable`` argument.

    Made once per distinct variable (a second call for the same variable returns the same input);
    while tracing, the Python function still gets the variable itself, and its reads and writes go
    through this input. A call of the concrete function then feeds whichever variable (of this dtype
    and shape) it is given there, as TF 2.21 does, instead of capturing the one traced with.
    """
    handles = graph.__dict__.setdefault("_eager_variable_handles", {})
    if variable._id not in handles:
        handles[variable._id] = graph.add_input(dtypes.resource, TensorShape([]), name=name or "variable")
    return handles[variable._id]


TRACER_PROTOCOL = ("cache_key", "trace")   # and the constructor: ``Tracer(python_function)``; optional: accepts, relax
_AUTOGRAPH_SEAM = seams.seam("autograph")   # declared by engine/autograph/api.py
_TRACER_SEAM = seams.declare(
    "tracer", FunctionTracer, TRACER_PROTOCOL,
    doc="The tracer behind tf.function: the cache key of a call's arguments and tracing into a FuncGraph. A "
        "tracer class is built once per tf.function as Tracer(python_function), and asked cache_key(args, "
        "kwargs) -> hashable on every call and trace(args, kwargs) -> ConcreteFunction on a new key (optional: "
        "accepts(traced_key, key) -> bool, the reuse of a compatible trace, and relax(traced_key, key, args, "
        "kwargs) -> (args, kwargs) or None, reduce_retracing's generalization). Inside "
        "`engine.seams.using(tracer=MyTracer)` every tf.function call uses MyTracer. See the docstring of "
        "engine/tracing/function.py.")


# --------------------------------------------------------------------------------------
# ConcreteFunction: one traced graph, and calling it
# --------------------------------------------------------------------------------------
class ConcreteFunction:
    """One traced graph of a ``tf.function``, for one input signature."""

    def __init__(self, graph, structured_input_signature=None, structured_outputs=None, name=None):
        """``graph``: a traced ``FuncGraph`` (``inputs`` fed in order, ``outputs`` fetched);
        ``structured_outputs``: what a call returns (default: ``graph.structured_outputs``);
        ``structured_input_signature``: ``(args, kwargs)`` specs of the trace; ``name``: as TF's
        ``__inference_<function>_<n>``."""
        self.graph = graph
        self.structured_input_signature = structured_input_signature
        if structured_outputs is None:
            structured_outputs = getattr(graph, "structured_outputs", None)
        self.structured_outputs = structured_outputs
        self.name = name or f"__inference_{getattr(graph, 'name', 'function')}_{next(_function_ids)}"
        self._plan = None
        self._plan_options = None
        self._plan_with_intermediates = None
        self._gradient = None
        # a single tensor returned: the call can skip packing the output structure
        self._single_output = isinstance(structured_outputs, Tensor) and len(graph.outputs) == 1

    @property
    def inputs(self):
        return list(self.graph.inputs)

    @property
    def outputs(self):
        return list(self.graph.outputs)

    @property
    def variables(self):
        return tuple(getattr(self.graph, "captured_variables", ()))

    @property
    def captured_inputs(self):
        """The values from outside the function that its graph uses (``graph.external_captures``).

        A captured variable is listed as the variable itself, which is the engine's handle of it
        (TF lists the variable's ``resource`` handle tensor).
        """
        return list(getattr(self.graph, "external_captures", ()))

    @property
    def trainable_variables(self):
        return tuple(v for v in self.variables if v.trainable)

    # --- calling ---------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        """Call with arguments matching the trace, bound as TF binds them: first to the *structured*
        signature (the Python parameters, each a ``TensorSpec``, ``Literal[value]``, nest...: every one
        given, Python values equal to the traced ones), else to the *flat* one (the tensor inputs only,
        by position or by name); if neither fits, ``TypeError`` with both reasons."""
        flat = self.flat_inputs(*args, **kwargs)
        if len(flat) != len(self.graph.inputs):
            raise TypeError(f"{self.name} expected {len(self.graph.inputs)} tensor arguments, got {len(flat)}.")
        for i, (value, placeholder) in enumerate(zip(flat, self.graph.inputs)):
            if placeholder.dtype in (dtypes.resource, dtypes.variant) and (type(value) is _Variable or
                                                                          _is_resource_argument(value)):
                continue  # a variable (iterator, dataset) argument: any one of the traced dtype/shape (spec)
            if value.dtype != placeholder.dtype:
                raise InvalidArgumentError(
                    None, None, f"cannot compute {self.name} as input #{i}(zero-based) was expected to be a "
                                f"{placeholder.dtype.runtime_name} tensor but is a {value.dtype.runtime_name} tensor "
                                f"[Op:{self.name}]")
            if not placeholder.shape.is_compatible_with(value.shape):
                raise InvalidArgumentError(
                    None, None, f"{self.name}: input #{i} must have shape {placeholder.shape} but has shape "
                                f"{value.shape} [Op:{self.name}]")
        return self._call_flat(flat)

    def flat_inputs(self, *args, **kwargs):
        """The values a call with these arguments feeds ``graph.inputs``, in their order: tensors, and
        the variables and iterators passed as arguments (what a coordinator sends a worker to run)."""
        function_type = self.__dict__.get("_function_type")
        if function_type is not None:
            return function_type.bind(args, kwargs, self._takes_variables())
        return _flat_tensor_args((args, kwargs), variables=self._takes_variables())

    def _call_flat(self, tensors):
        if ctx.graph is not None:  # called while tracing another function (or building a graph): inline
            return nest.pack_sequence_as(self.structured_outputs,
                                         _fill_none(self.structured_outputs, self._inline(ctx.graph, tensors)),
                                         expand_composites=True)
        graph = self.graph
        if self._plan is not None and self._plan_options != config_optimizer.options_key():
            self._plan = self._plan_with_intermediates = None  # optimizer options changed: recompile
        if not ctx.tapes and self._plan is not None and self._single_output:  # the fast path: run the plan
            device = ctx.device or default_device()
            values = self._plan([_feed_value(t) for t in tensors])
            return EagerTensor(values[0] if device.backend == "numpy" else device.put(values[0]), device)
        if ctx.tapes and self._should_replay():
            # Nested tapes (higher-order gradients) or forward-mode accumulators: run the graph's ops one
            # by one, eagerly, so every tape records each op and can differentiate the gradient
            # computations of the inner tapes (and every accumulator pushes its tangents through them).
            outputs = self._replay_eagerly(tensors)
            return nest.pack_sequence_as(self.structured_outputs, _fill_none(self.structured_outputs, outputs),
                                         expand_composites=True)
        variables = self.variables
        record = bool(ctx.tapes) and (any(_is_float_input(t) for t in tensors) or bool(variables))
        arrays = [_feed_value(t) for t in tensors]
        n_out = len(graph.outputs)
        if record:
            for tape in ctx.tapes:
                for v in variables:
                    tape.variable_accessed(v)
                for v in tensors:
                    if type(v) is _Variable:   # variable arguments are read through their resource inputs
                        tape.variable_accessed(v)
            gradient = self._gradient_functions()
            if self._plan_with_intermediates is None:
                self._plan_with_intermediates = compile_plan(graph.outputs + gradient.saved, graph.stateful_ops,
                                                             graph.inputs)
            values = self._plan_with_intermediates(arrays)
            saved = values[n_out:]
            values = values[:n_out]
        else:
            if self._plan is None:
                self._plan = compile_plan(graph.outputs, graph.stateful_ops, graph.inputs)
                self._plan_options = config_optimizer.options_key()
            values = self._plan(arrays)
        device = ctx.device or default_device()
        outputs = [EagerTensor(device.put(v) if device.backend != "numpy" else v, device) for v in values]
        if record:
            inputs = list(tensors) + list(variables)
            if getattr(graph, "_resource_arguments", False):   # iterator arguments: no gradient, not on the tape
                keep = [i for i, t in enumerate(inputs) if not _is_resource_argument(t)]
                kept = [inputs[i] for i in keep]
                record_operation(self.name, kept, outputs, lambda *grads: [
                    g for i, g in enumerate(self._backward(saved, kept, outputs, grads)) if i in keep])
            else:
                record_operation(self.name, inputs, outputs,
                                 lambda *grads: self._backward(saved, inputs, outputs, grads))
        return nest.pack_sequence_as(self.structured_outputs, _fill_none(self.structured_outputs, outputs),
                                     expand_composites=True)

    def _takes_variables(self):
        """Are variable arguments inputs (resource placeholders) of the graph, or captured by it?"""
        takes = self.__dict__.get("_variable_inputs")
        if takes is None:
            takes = self._variable_inputs = any(p.dtype == dtypes.resource for p in self.graph.inputs)
        return takes

    def _should_replay(self):
        """Run the call op by op (see :meth:`_replay_eagerly`) instead of as one recorded op?

        Yes under nested tapes and under forward accumulators, when the graph can be replayed; and
        under any tape when the graph holds a control-flow gradient op (``WhileGrad``, a cond's gradient
        ``If``: a gradient computed inside the function): those have no graph gradient, but their eager
        replay is differentiable.
        """
        tapes = ctx.tapes
        accumulators = any(getattr(t, "_is_forward_accumulator", False) for t in tapes)
        if not (len(tapes) >= 2 or accumulators or self._replay_info()[1]):
            return False
        if getattr(self.graph, "_resource_arguments", False):   # iterator inputs: not replayable op by op
            return False
        replayable, _, variants = self._replay_info()
        # Forward accumulators carry no tangents through variant (TensorList) values: such graphs
        # keep the one-op path, whose JVP is derived from the compiled backward function.
        return replayable and not (accumulators and variants)

    def _replayable(self):
        """Can the graph be re-run op by op eagerly? (Not with ops that need a Session-like runtime.)"""
        return self._replay_info()[0]

    def _replay_info(self):
        """``(replayable, has a control-flow gradient op, has variants)`` for this graph and its sub-graphs."""
        info = getattr(self, "_replay_summary", None)
        if info is None:
            info = self._replay_summary = _replay_summary(self.graph.get_operations())
        return info

    def _replay_eagerly(self, tensors):
        """Execute the traced ops eagerly, in order, through the dispatcher (so tapes record each one)."""
        graph = self.graph
        values = {p._id: t for p, t in zip(graph.inputs, tensors)}
        return replay_ops(graph, values, graph.outputs, list(graph.stateful_ops))

    def _inline(self, graph, tensors):
        """Copy this function's ops into ``graph``, wired to ``tensors``; return the copied outputs.

        TF also inlines function calls into the caller's graph before running it.
        """
        mapping = {p._id: t if isinstance(t, Tensor) else
                   graph.variable_handle(t) if type(t) is _Variable else convert_to_tensor(t)   # a variable: its handle
                   for p, t in zip(self.graph.inputs, tensors)}
        op_mapping = {}
        with graph.name_scope(self.name.replace("__inference_", "")):
            for op in self.graph.get_operations():
                if op.type == "Placeholder" and op.outputs[0]._id in mapping:
                    continue
                if any(t._id not in mapping for t in op.inputs):
                    continue  # a gradient op of this function that the forward call does not need
                controls = [op_mapping[c] for c in op.control_inputs if c in op_mapping]
                with graph.control_dependencies(controls):
                    result = graph.create_op_from_def(op.op_def, [mapping[t._id] for t in op.inputs], op.attrs,
                                                      name=op.name.split("/")[-1])
                new_op = result if not isinstance(result, (list, Tensor)) else \
                    (result[0].op if isinstance(result, list) and result else getattr(result, "op", None))
                if new_op is not None:
                    op_mapping[op] = new_op
                    for old, new in zip(op.outputs, new_op.outputs):
                        mapping[old._id] = new
        return [mapping[t._id] for t in self.graph.outputs]

    # --- gradients ----------------------------------------------------------------------------
    def _gradient_functions(self):
        """Build, once, the gradient graph of this function and what it needs from the forward run."""
        if self._gradient is None:
            self._gradient = _GradientInfo(self)
        return self._gradient

    def _backward(self, saved, inputs, outputs, output_grads):
        info = self._gradient_functions()
        feeds = [np.asarray(v) if not isinstance(v, EagerTensor) else v.numpy() for v in saved]
        for i in info.float_outputs:
            y, g = outputs[i], output_grads[i]
            feeds.append(np.zeros(y.shape.as_list(), y.dtype.as_numpy_dtype) if g is None else g.numpy())
        values = iter(info.plan(feeds))
        device = ctx.device or default_device()
        grads = []
        for g in info.grads:
            grads.append(None if g is None else EagerTensor(next(values), device))
        if ctx.tapes:
            # An outer tape is recording this backward pass (a higher-order gradient of a function that
            # could not be replayed op by op). The compiled backward is opaque to it: record it as one
            # op of the forward inputs whose own gradient raises, so the result is an error, never a
            # silently missing gradient. (Not of the output gradients: the backward is linear in them, and
            # ForwardAccumulator's double-VJP probe of this function must still see it as opaque.)
            record_operation(f"{self.name}_backward", list(inputs), [g for g in grads if g is not None],
                             lambda *_: self._no_higher_order())
        return grads

    def _no_higher_order(self):
        ops = sorted({op.type for op in self.graph.get_operations()
                      if op.op_def.needs_runtime and not op.op_def.subgraphs and
                      not (op.type == "VarHandleOp" and "eager_variable" in op.attrs)})
        raise NotImplementedError(
            f"Cannot compute a higher-order gradient through the tf.function {self.name}: its ops "
            f"{', '.join(ops) or '(none)'} need the graph runtime, so its gradient was computed by a compiled "
            f"backward function that cannot be differentiated again. Move those ops (e.g. random ops: pass "
            f"the random values in as arguments) out of the function, or differentiate it eagerly.")

    # --- printing ----------------------------------------------------------------------------------
    @property
    def function_type(self):
        """TF's ``FunctionType`` of this trace, printed as ``(a: TensorSpec(...)) -> TensorSpec(...)``."""
        return _PrintedType(self.pretty_printed_signature(verbose=False))

    @property
    def inference_fn(self):
        """TF's ``AtomicFunction``: the traced graph itself, called with the flat tensor inputs."""
        return _AtomicFunction(self)

    def pretty_printed_signature(self, verbose=True):
        """This trace's signature, as TF 2.21 prints it.

        ``verbose=True``::

            Input Parameters:
              x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.int32, name=None)
            Output Type:
              TensorSpec(shape=(), dtype=tf.int32, name=None)
            Captures:
              None

        ``verbose=False``: ``(x: TensorSpec(...)) -> TensorSpec(...)`` (keyword-only parameters after ``*``).
        Parameters are typed as the trace keyed them: ``TensorSpec`` (with the name given to an
        ``input_signature`` or ``get_concrete_function`` spec), ``Literal[3]`` for a Python value,
        ``List[...]``/``Tuple[...]``/``Dict[...]`` for nests. Captures: one line per captured variable,
        ``<id>: TensorSpec(shape=(), dtype=tf.resource, name=None)``. Deliberate differences: the id
        is the variable's ``id()`` (TF: its handle tensor's), and captured eager tensors are not listed
        (the engine embeds them in the graph as constants instead of capturing them).
        """
        parameters, output = _printed_parameters(self)
        if not verbose:
            text, star = [], False
            for name, kind, printed in parameters:
                if kind == "KEYWORD_ONLY" and not star:
                    text.append("*")
                    star = True
                text.append(f"{name}: {printed}")
            return f"({', '.join(text)}) -> {output}"
        lines = ["Input Parameters:"]
        lines += [f"  {name} ({kind}): {printed}" for name, kind, printed in parameters]
        lines += ["Output Type:", f"  {output}", "Captures:"]
        lines += [f"  {id(v)}: TensorSpec(shape=(), dtype=tf.resource, name=None)" for v in self.variables] or \
            ["  None"]
        return "\n".join(lines)

    def __str__(self):
        return f"ConcreteFunction {self.pretty_printed_signature()}"

    def __repr__(self):
        if self.__dict__.get("_function_type") is not None:
            return f"<ConcreteFunction {self.pretty_printed_signature(verbose=False)} at " \
                   f"{hex(id(self)).upper().replace('0X', '0x')}>"
        args = ", ".join(f"{p.name.split(':')[0]}: {TensorSpec(p.shape, p.dtype)!r}" for p in self.graph.inputs)
        outs = ", ".join(repr(TensorSpec(t.shape, t.dtype)) for t in self.graph.outputs)
        return f"<ConcreteFunction ({args}) -> {outs} at {hex(id(self)).upper().replace('0X', '0x')}>"


def _printed_parameters(concrete):
    """``([(name, kind, type text)], output type text)`` of a trace, for its printed signature."""
    function_type = concrete.__dict__.get("_function_type")
    outputs = repr(_trace_type(_specs_of_outputs(concrete.structured_outputs)))
    if function_type is None or getattr(function_type, "specs", None) is None:  # a trace without a function type
        return [(p.name.split(":")[0], "POSITIONAL_ONLY", repr(TensorSpec(p.shape, p.dtype)))
                for p in concrete.graph.inputs], outputs
    specs_args, specs_kwargs = function_type.specs
    kinds = function_type.parameter_kinds
    aliases = {}   # variable arguments: the same variable passed twice has one alias id
    parameters = [(n, kinds.get(n, "POSITIONAL_ONLY"), _printed_type(v, aliases))   # (*args: args_0, args_1...)
                  for n, v in zip(function_type.positional, specs_args)]
    parameters += [(k, "KEYWORD_ONLY", _printed_type(specs_kwargs[k], aliases)) for k in function_type.keywords]
    return parameters, outputs


def _printed_type(value, aliases):
    """A parameter's type as TF prints it: as the trace typed it, but a ``TensorSpec`` keeps its name and a
    variable shows TF's ``VariableSpec(shape, dtype, trainable, alias_id)``."""
    if isinstance(value, TensorSpec):
        return repr(TensorSpec(value.shape, value.dtype, value.name))
    if _is_variable_argument(value):
        alias = aliases.setdefault(id(value), len(aliases))
        return f"VariableSpec(shape={value.shape}, dtype={value.dtype!r}, trainable={value.trainable}, alias_id={alias})"

    def each(values):
        return ", ".join(_printed_type(v, aliases) for v in values)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return f"{type(value).__name__}[{each(value)}]"
    if isinstance(value, (tuple, list)):
        return f"{'Tuple' if isinstance(value, tuple) else 'List'}[{each(value)}]"
    if isinstance(value, dict):
        return f"Dict[{', '.join(f'[{k!r}, {_printed_type(v, aliases)}]' for k, v in value.items())}]"
    return repr(_trace_type(value))


class _GradientInfo:
    """The gradient graph of a concrete function: d(outputs)/d(inputs and captured variables).

    It is built inside the function's graph, with a placeholder per output
    gradient. The forward tensors it consumes are ``saved``: a taped forward run
    fetches them too, so the backward run is fed with them and never recomputes
    (or repeats the side effects of) the forward pass.
    """

    def __init__(self, concrete):
        graph = concrete.graph
        self.float_outputs = [i for i, y in enumerate(graph.outputs) if y.dtype.is_floating]
        sources = list(graph.inputs) + [graph.variable_handle(v) for v in concrete.variables]
        self.grad_ys, self.grads, self.saved = build_gradient_graph(
            graph, [graph.outputs[i] for i in self.float_outputs], sources)
        fetch = [g for g in self.grads if g is not None]
        self.plan = compile_plan(fetch, [], self.saved + self.grad_ys)


# --------------------------------------------------------------------------------------
# Trace keys: which calls share a trace (TF's rules)
# --------------------------------------------------------------------------------------
def _is_tensor_like(x):
    return isinstance(x, (Tensor, np.ndarray)) and not hasattr(x, "_is_variable")


def _leaf_key(x, relaxed=None):
    if isinstance(x, TensorSpec):
        return ("T", x.dtype, x.shape)
    if isinstance(x, Tensor):
        return ("T", x.dtype, x.shape if relaxed is None else relaxed)
    if isinstance(x, np.ndarray):
        return ("T", dtypes.as_dtype(x.dtype), TensorShape(x.shape) if relaxed is None else relaxed)
    if _is_variable_argument(x):
        return ("V", x.dtype, x.shape)   # by dtype and shape, as TF 2.21 (aliasing: see _trace_key)
    if hasattr(x, "_is_variable"):
        return ("V", id(x))
    if x is None or isinstance(x, (bool, int, float, str, bytes, np.generic)):
        return ("P", x)
    if _is_resource_argument(x):
        return ("R", x._function_input_spec())   # an iterator: by its spec (element_spec), as TF's IteratorSpec
    if _is_resource_spec(x):
        return ("R", x)
    if isinstance(x, CompositeTensor):
        return ("C", x._type_spec)               # a RaggedTensor: by its RaggedTensorSpec, as TF
    if _is_composite_spec(x):
        return ("C", x)
    chosen = user_trace_type(x)
    if chosen is not None:
        return ("U", chosen)                     # the class chose its trace type (``__tf_tracing_type__``)
    return ("O", id(x))


def _is_resource_argument(x):
    """An argument the graph takes as a ``resource`` input other than a variable: a ``tf.data`` iterator.

    The protocol (``engine/data/iterator_ops.py``): ``x._function_input_spec()`` is its spec, hashable (the
    trace key) and shown in the signature; ``spec._placeholder_value(handle)`` is what the traced Python
    function receives, given the graph's resource placeholder; ``x._resource_handle()`` is what a call feeds.
    """
    return hasattr(x, "_resource_handle") and hasattr(x, "_function_input_spec")


def _is_resource_spec(x):
    return hasattr(x, "_placeholder_value") and not isinstance(x, TensorSpec)


def _is_float_input(t):
    dtype = getattr(t, "dtype", None)
    return dtype is not None and dtype.is_floating


def _to_signature_dtype(value, dtype):
    """A Python value or NumPy array bound to an ``input_signature`` spec: converted to the spec's
    dtype, as TF does (``[1, 2]`` and a float64 array both become float32 for a float32 spec)."""
    try:
        array = np.asarray(value)
        if array.dtype.kind in "biuf" and dtype.is_numpy_compatible and (dtype.is_floating or dtype.is_integer
                                                                        or dtype == dtypes.bool):
            if array.dtype.kind == "f" and dtype.is_integer:
                return convert_to_tensor(value, dtype_hint=dtype)   # no silent float -> int truncation
            return convert_to_tensor(array.astype(dtype.as_numpy_dtype))
    except (TypeError, ValueError, AttributeError):
        pass
    return convert_to_tensor(value, dtype_hint=dtype)


def _is_variable_argument(x):
    """A plain eager ``tf.Variable``: passed to a traced function as a resource input, like a tensor.

    (Distributed variables and graph-mode variables are still captured, keyed by identity.)"""
    return type(x) is _Variable and x._graph is None


def _trace_key(args, kwargs):
    """A hashable description of the arguments that decides whether a trace can be reused.

    Variables count by dtype and shape, plus which positions hold the *same* variable:
    ``f(a, a)`` and ``f(a, b)`` need different graphs, ``f(a, b)`` and ``f(b, a)`` do not."""
    flat = nest.flatten((args, kwargs))
    leaves, first_seen = [], {}
    for i, x in enumerate(flat):
        key = _leaf_key(x)
        if key[0] == "V" and len(key) == 3:
            key = key + (first_seen.setdefault(id(x), i),)
        leaves.append(key)
    return _structure_signature((args, kwargs)), tuple(leaves)


def _structure_signature(x):
    if isinstance(x, dict):
        return ("dict", tuple((k, _structure_signature(x[k])) for k in sorted(x)))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_structure_signature(v) for v in x))
    return "."


def _skeleton(key):
    """The key with tensor shapes forgotten: calls that differ only in shapes share a skeleton."""
    structure, leaves = key
    return structure, tuple((k[0], k[1]) if k[0] == "T" else _composite_skeleton(k) if k[0] == "C" else k
                            for k in leaves)


def _composite_skeleton(leaf):
    """A composite's key without its shapes (``RaggedTensorSpec`` of any nrows): type, dtype, ragged rank..."""
    spec = leaf[1]
    return ("C", type(spec).__name__, tuple(p for p in spec._serialize() if not isinstance(p, TensorShape)))


def _compatible(traced_key, key):
    """Can a call with ``key`` use the function traced for ``traced_key``?

    Same skeleton, and every traced shape accepts the call's shape: each traced
    dimension is ``None`` or equal (a trace for (None,) serves (3,), not vice versa).
    """
    for a, b in zip(traced_key[1], key[1]):
        if a[0] == "T":
            if a[1] != b[1] or not _accepts(a[2], b[2]):
                return False
        elif a[0] == "C" and b[0] == "C":
            if a[1] != b[1] and not b[1].is_subtype_of(a[1]):   # a (None, None) trace serves (3, None)
                return False
        elif a != b:
            return False
    return True


def _accepts(traced, shape):
    if traced.rank is None:
        return True
    if shape.rank != traced.rank:
        return False
    return all(t is None or t == d for t, d in zip(traced, shape))


def _relax(previous_key, key):
    """reduce_retracing: the most specific shapes covering both calls (dims that differ become None)."""
    relaxed = []
    for a, b in zip(previous_key[1], key[1]):
        if a[0] == "T":
            relaxed.append(a[2].most_specific_compatible_shape(b[2]))
        elif a[0] == "C" and b[0] == "C":   # a RaggedTensorSpec: its shapes relaxed the same way
            relaxed.append(a[1].most_specific_common_supertype([b[1]]))
        else:
            relaxed.append(None)
    return relaxed


def _specs_from(args, kwargs, relaxed=None):
    """Arguments with tensors replaced by TensorSpecs (relaxed shapes if given)."""
    flat = nest.flatten((args, kwargs))
    out = []
    for i, x in enumerate(flat):
        shape = relaxed[i] if relaxed is not None else None
        if isinstance(x, TensorSpec):
            out.append(x if shape is None else TensorSpec(shape, x.dtype))
        elif _is_tensor_like(x):
            t = x if isinstance(x, Tensor) else convert_to_tensor(x)
            out.append(TensorSpec(t.shape if shape is None else shape, t.dtype))
        elif _is_resource_argument(x):
            out.append(x._function_input_spec())
        elif isinstance(x, CompositeTensor):
            out.append(shape if isinstance(shape, TypeSpec) else x._type_spec)
        elif _is_composite_spec(x):
            out.append(shape if isinstance(shape, TypeSpec) else x)
        else:
            chosen = user_trace_type(x)
            out.append(chosen.placeholder_value(None) if chosen is not None else x)
    return nest.pack_sequence_as((args, kwargs), out)


def _reporting_user_code(converted):
    """``converted`` (AutoGraph's function), whose errors while it is traced name the user's code first:
    TF's "in user code:" (``autograph/user_code_errors.py``)."""
    @functools.wraps(converted)
    def autograph_handler(*args, **kwargs):
        try:
            return converted(*args, **kwargs)
        except Exception as error:  # noqa: BLE001  (re-raised, as it is or rewritten)
            rewritten = in_user_code(error)
            if rewritten is error:
                raise
            raise rewritten from None
    return autograph_handler


def _argument_names(fn, args, kwargs):
    """A name per flat argument leaf, from the Python parameter names (``x``, ``x_1`` for nests)."""
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        params = []
    names = []
    for i, a in enumerate(args):
        base = params[i] if i < len(params) else f"args_{i}"
        n = len(nest.flatten(a))
        names += [base] if n == 1 else [f"{base}_{k}" for k in range(n)]
    for k in sorted(kwargs):
        n = len(nest.flatten(kwargs[k]))
        names += [k] if n == 1 else [f"{k}_{j}" for j in range(n)]
    return names


def _named_specs(specs_args, names):
    flat = nest.flatten(specs_args)
    named = [TensorSpec(s.shape, s.dtype, s.name or n) if isinstance(s, TensorSpec) else s
             for s, n in zip(flat, names)]
    return nest.pack_sequence_as(specs_args, named) if nest.is_nested(specs_args) else named


def _fast_key(args):
    key = []
    for a in args:
        if type(a) is not EagerTensor:
            return None
        value = a._value
        key.append((value.dtype, value.shape))
    return tuple(key)


# --------------------------------------------------------------------------------------
# Calling helpers
# --------------------------------------------------------------------------------------
class _PrintedType:
    """What ``ConcreteFunction.function_type`` gives: TF's ``FunctionType``, as far as printing it goes."""

    def __init__(self, text):
        self._text = text

    def __str__(self):
        return self._text

    __repr__ = __str__


class _AtomicFunction:
    """``ConcreteFunction.inference_fn``: one graph, called on its flat inputs (TF's ``AtomicFunction``)."""

    def __init__(self, concrete):
        self._concrete = concrete
        self.name = concrete.name

    def __call__(self, *args):
        return self._concrete._call_flat([convert_to_tensor(a) if not hasattr(a, "_is_variable") else a
                                          for a in args])

    def __repr__(self):
        return f"<AtomicFunction> {self.name}"


class _FunctionType:
    """How a ConcreteFunction binds a call (TF's ``FunctionType`` and its flat fallback).

    *Structured*: one parameter per Python parameter of the trace, each typed by what was traced
    (``TensorSpec``, ``Literal[2]`` for a Python value, ``Tuple[...]``/``List[...]``/``Dict[...]`` for nests,
    a variable or iterator spec); a call must give every one (Python's binding rules and messages), a
    Python value must equal the traced one, a nest must keep its structure. *Flat*: the tensor inputs
    only, by position or by name (``pow(a)``). A call that fits neither raises TF's ``TypeError``.
    """

    def __init__(self, python_function, specs_args, specs_kwargs, structured_outputs, name, input_names):
        self.name = name
        self.input_names = list(input_names)
        try:
            positional = [p for p in inspect.signature(python_function).parameters.values()
                          if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            positional = []
        self.positional = [positional[i].name if i < len(positional) else f"args_{i}"
                           for i in range(len(specs_args))]
        self.keywords = list(specs_kwargs)
        self.specs = (specs_args, specs_kwargs)    # as traced, spec names kept: for the printed signature
        self.parameter_kinds = {p.name: p.kind.name for p in positional}
        self.types = dict(zip(self.positional, map(_trace_type, specs_args)))
        self.types.update((k, _trace_type(specs_kwargs[k])) for k in self.keywords)
        try:
            self.signature = inspect.Signature(
                [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=self.types[n])
                 for n in self.positional] +
                [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, annotation=self.types[k]) for k in self.keywords],
                return_annotation=_trace_type(_specs_of_outputs(structured_outputs)))
        except (TypeError, ValueError):   # parameter names Python cannot bind: the flat signature only
            self.signature = None

    def bind(self, args, kwargs, variables):
        """The flat inputs (tensors, variables, iterators) of a call, or TF's ``TypeError``."""
        if self.signature is None:
            return self._bind_flat(args, kwargs)
        try:
            return self._bind_structured(args, kwargs, variables)
        except TypeError as structured_error:
            try:
                return self._bind_flat(args, kwargs)
            except (TypeError, ValueError) as flat_error:
                raise TypeError(f"{structured_error}\nFallback to flat signature also failed due to: "
                                f"{flat_error}") from None

    def _bind_structured(self, args, kwargs, variables):
        try:
            bound = self.signature.bind(*args, **kwargs).arguments
            values = {n: self.types[n].cast(bound[n]) for n in self.positional + self.keywords}
        except Exception as e:  # noqa: BLE001  (TF reports any failure of the binding the same way)
            raise TypeError(f"Binding inputs to tf.function failed due to `{e}`. Received args: {args} and kwargs: "
                            f"{kwargs} for signature: {self.signature}.") from None
        call = (tuple(values[n] for n in self.positional), {k: values[k] for k in self.keywords})
        return _flat_tensor_args(call, variables=variables)

    def _bind_flat(self, args, kwargs):
        """TF's ``_call_with_flat_signature``: the tensor inputs, positionally or by their names."""
        names = self.input_names
        summary = f"{self.name}({', '.join(names)})"
        if len(args) > len(names):
            raise TypeError(f"{summary} takes {len(names)} positional arguments, got {len(args)}.")
        args, kwargs = list(args), dict(kwargs)
        for keyword in names[len(args):]:
            if keyword not in kwargs:
                missing = sorted(set(names) - set(names[:len(args)]) - set(kwargs))
                raise TypeError(f"{summary} missing required arguments: {', '.join(missing)}.")
            args.append(kwargs.pop(keyword))
        if kwargs:
            for key in kwargs:
                if key in names[:len(args)]:
                    raise TypeError(f"{summary} got two values for '{key}'.")
            raise TypeError(f"{summary} got unexpected keyword arguments: {', '.join(sorted(kwargs))}.")
        for i, arg in enumerate(args):
            if not (isinstance(arg, Tensor) or hasattr(arg, "_is_variable") or _is_resource_argument(arg)):
                raise TypeError(f"{summary}: expected argument #{i}(zero-based) to be a Tensor; got "
                                f"{type(arg).__name__} ({arg}).")
        return args


def _specs_of_outputs(outputs):
    def spec(t):
        if isinstance(t, Tensor):
            return TensorSpec(t.shape, t.dtype)
        return t._type_spec if isinstance(t, CompositeTensor) else t   # (a RaggedTensor: its RaggedTensorSpec)
    return nest.map_structure(spec, outputs) if outputs is not None else None


def _trace_type(value):
    """The type of one traced parameter, as TF's function type shows and checks it."""
    if isinstance(value, TensorSpec):
        return _TensorType(TensorSpec(value.shape, value.dtype))
    if _is_variable_argument(value):
        return _VariableType(value)
    if _is_resource_spec(value):
        return _ResourceType(value)
    if _is_composite_spec(value):
        return _CompositeType(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return _NestType(type(value).__name__, [_trace_type(v) for v in value], kind=type(value))
    if isinstance(value, (tuple, list)):
        return _NestType("Tuple" if isinstance(value, tuple) else "List", [_trace_type(v) for v in value],
                         kind=tuple if isinstance(value, tuple) else list)
    if isinstance(value, dict):
        return _NestType("Dict", {k: _trace_type(v) for k, v in value.items()}, kind=dict)
    if value is None or isinstance(value, (bool, int, float, str, bytes, np.generic)):
        return _LiteralType(value)
    return _ObjectType(value)


class _TensorType:
    def __init__(self, spec):
        self.spec = spec

    def cast(self, value):
        if isinstance(value, Tensor):
            return value            # dtype and shape: checked when fed (InvalidArgumentError, as TF)
        if hasattr(value, "_is_variable"):
            return value._read()
        t = convert_to_tensor(value, dtype_hint=self.spec.dtype)
        if t.dtype != self.spec.dtype:
            raise TypeError(f"Can not cast {TensorSpec(t.shape, t.dtype)!r} to {self.spec!r}")
        return t

    def __repr__(self):
        return repr(self.spec)


class _CompositeType:
    """A composite parameter (a RaggedTensor) of a trace: a call passes a value its spec accepts."""

    def __init__(self, spec):
        self.spec = spec

    def cast(self, value):
        if not (isinstance(value, CompositeTensor) and self.spec.is_compatible_with(value)):
            raise TypeError(f"Can not cast {value!r} to {self.spec!r}")
        return value

    def __repr__(self):
        return repr(self.spec)


class _VariableType:
    def __init__(self, variable):
        self.dtype, self.shape = variable.dtype, variable.shape

    def cast(self, value):
        if not (_is_variable_argument(value) and value.dtype == self.dtype and value.shape == self.shape):
            raise ValueError(f"Can not cast {value!r} to {self!r}")
        return value

    def __repr__(self):
        return f"VariableSpec(shape={self.shape}, dtype={self.dtype!r})"


class _ResourceType:
    def __init__(self, spec):
        self.spec = spec

    def cast(self, value):
        if not (_is_resource_argument(value) and value._function_input_spec() == self.spec):
            raise ValueError(f"Can not cast {value!r} to {self.spec!r}")
        return value

    def __repr__(self):
        return repr(self.spec)


class _LiteralType:
    def __init__(self, value):
        self.value = value

    def cast(self, value):
        try:
            equal = not isinstance(value, Tensor) and bool(value == self.value)
        except Exception:  # noqa: BLE001
            equal = False
        if not equal:
            raise ValueError(f"Can not cast {value!r} to {self!r}")
        return value

    def __repr__(self):
        return f"Literal[{self.value!r}]"


class _ObjectType:
    def __init__(self, value):
        self.value = value

    def cast(self, value):
        if value is not self.value:
            raise ValueError(f"Can not cast {value!r} to {self!r}")
        return value

    def __repr__(self):
        return f"Weakref[{self.value!r}]"


class _NestType:
    def __init__(self, name, components, kind):
        self.name, self.components, self.kind = name, components, kind

    def cast(self, value):
        if self.kind is dict:
            if not isinstance(value, dict):
                raise ValueError(f"Can not cast {value!r} to a Dict type.")
            if set(value) != set(self.components):
                raise ValueError(f"Can not cast {value!r} to {self!r}")
            return {k: self.components[k].cast(value[k]) for k in value}
        if not isinstance(value, self.kind):
            raise ValueError(f"Can not cast {value!r} to {self.name.lower() if self.kind in (tuple, list) else self.name}"
                             f" type.")
        if len(value) != len(self.components):
            raise ValueError(f"Expected {value} to have length {len(self.components)}")
        cast = [c.cast(v) for c, v in zip(self.components, value)]
        return self.kind(*cast) if hasattr(self.kind, "_fields") else self.kind(cast)

    def __repr__(self):
        if self.kind is dict:
            return f"Dict[{', '.join(f'[{k!r}, {t!r}]' for k, t in self.components.items())}]"
        return f"{self.name}[{', '.join(map(repr, self.components))}]"


def _replay_summary(ops, seen=None):
    """``(replayable, has a control-flow gradient op, has variants)`` over ``ops`` and their sub-graphs."""
    seen = set() if seen is None else seen
    replayable, while_grad, variants = True, False, False
    for op in ops:
        if any(t.dtype == dtypes.variant for t in op.outputs):
            variants = True
        if op.op_def.subgraphs:
            while_grad = while_grad or op.type == "WhileGrad" or bool(op.attrs.get("_gradient"))
            for value in op.attrs.values():
                graph = getattr(value, "graph", None)
                if graph is None or not hasattr(value, "plan") or id(graph) in seen:
                    continue
                seen.add(id(graph))
                r, w, v = _replay_summary(graph.get_operations(), seen)
                replayable, while_grad, variants = replayable and r, while_grad or w, variants or v
            continue
        if op.op_def.needs_runtime and not (op.type == "VarHandleOp" and "eager_variable" in op.attrs):
            replayable = False
    return replayable, while_grad, variants


def _feed_value(t):
    """What a plan input is fed: the array of a tensor, the variable object itself for a resource input
    (an iterator argument: its ``_resource_handle()``, the live iterator that ``IteratorGetNext`` advances)."""
    if type(t) is EagerTensor:
        return t.numpy()
    if type(t) is _Variable:
        return t
    if isinstance(t, EagerTensor):
        return t.numpy()
    if _is_resource_argument(t):
        return t._resource_handle()
    return np.asarray(t)


def _fill_none(structure, outputs):
    it = iter(outputs)
    return [None if leaf is None else next(it) for leaf in nest.flatten(structure, expand_composites=True)]


def _flat_tensor_args(structure, variables=True):
    """The tensor leaves of the arguments, in order (NumPy arrays become tensors), and each variable
    argument once (the graph has one resource input per distinct variable; see ``_trace_key``).
    ``variables=False``: a graph that captured its variable arguments (a seam tracer's) is fed none."""
    out, seen = [], set()
    for x in nest.flatten(structure, expand_composites=True):   # (a RaggedTensor: its component tensors)
        if isinstance(x, np.ndarray):
            out.append(convert_to_tensor(x))
        elif isinstance(x, Tensor):
            out.append(x)
        elif variables and _is_variable_argument(x) and id(x) not in seen:  # one resource input per variable
            seen.add(id(x))
            out.append(x)
        elif _is_resource_argument(x):   # an iterator: a resource input at each of its places
            out.append(x)
    return out


def _created_variables(concrete):
    return getattr(concrete.graph, "created_variables", ())
