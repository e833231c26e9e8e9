"""``tf.compat.v1.Session``: run parts of a graph, keeping variable values between runs.

``sess.run(fetches, feed_dict)``:

1. flattens ``fetches`` (any nest of tensors, operations, variables or names),
2. checks and converts every fed value against its tensor's dtype and shape,
3. looks up, or builds once, the *executor* for this (fetches, targets, feeds)
   signature: the reference compiles a :class:`~engine.framework.executor.Plan`,
   only the needed subgraph, in order,
4. runs it and packs the results back into the structure of ``fetches``.

The executor is a seam (``engine/client/executor_seam.py``): inside
``engine.seams.using(executor=MyExecutor)`` every ``Session.run`` builds and runs
``MyExecutor`` s instead.

Variables created in graph mode keep their values in the session's resource
table (``runtime``), so two sessions on one graph have independent variables.
"""

import numpy as np

from .. import config_optimizer
from ..framework import dtypes as _dtypes
from ..framework.backend import to_numpy
from ..framework.context import ctx, get_default_session
from ..framework.graph import Graph, Operation, SymbolicTensor, get_default_graph
from ..framework.tensor import EagerTensor, host_strings, is_string_value
from ..ops.resource_ops import ResourceSlot
from ..util import nest
from .executor_seam import EXECUTOR_SEAM

__all__ = ["Session", "InteractiveSession", "get_default_session"]



class _Runtime:
    """What kernels that need session state see (``_runtime=``): the resource table, ``resource(name)``."""

    def __init__(self):
        self.resources = {}

    def resource(self, name):
        slot = self.resources.get(name)
        if slot is None:
            slot = self.resources[name] = ResourceSlot(name)
        return slot


class Session:
    """Runs operations of one graph. Use as a context manager, or call ``close()``."""

    def __init__(self, target="", graph=None, config=None):
        if graph is None:
            graph = ctx.graph if isinstance(ctx.graph, Graph) else get_default_graph()
        self.graph = graph
        self._runtime = _Runtime()
        self._plans = {}    # request signature (and executor class) -> its executor: built once, run per call
        self.last_plan = None
        self._closed = False
        self._entered = []

    @property
    def graph_def(self):
        return self.graph.as_graph_def()

    # --- context management -------------------------------------------------------------
    def __enter__(self):
        graph_ctx = self.graph.as_default()
        graph_ctx.__enter__()
        self._entered.append(graph_ctx)
        ctx.sessions.append(self)
        return self

    def __exit__(self, *exc):
        ctx.sessions.pop()
        self._entered.pop().__exit__(*exc)
        self.close()
        return False

    def as_default(self):
        session = self

        class _Default:
            def __enter__(self):
                ctx.sessions.append(session)
                return session

            def __exit__(self, *exc):
                ctx.sessions.pop()
                return False
        return _Default()

    def close(self):
        self._closed = True
        self._plans.clear()

    # --- running ------------------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Compute ``fetches``; the result has the same nested structure (operations give ``None``)."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        flat = nest.flatten(fetches)
        elements = [self._fetch_element(f) for f in flat]
        feed_tensors, feed_values = self._prepare_feeds(feed_dict or {})

        fetch_tensors = []
        targets = []
        for e in elements:
            if isinstance(e, Operation):
                targets.append(e)
            else:
                fetch_tensors.append(e)
        executor_class = EXECUTOR_SEAM.current   # the reference GraphExecutor, or a using(executor=...)'s
        key = (tuple(t._id for t in fetch_tensors), tuple(op._id for op in targets),
               tuple(t._id for t in feed_tensors), self.graph.version, config_optimizer.options_key(),
               executor_class)
        executor = self._plans.get(key)
        if executor is None:
            executor = self._plans[key] = executor_class(fetch_tensors, targets, feed_tensors)
        # engine extra: print(sess.last_plan.report) shows what the optimizer did (the reference's Plan)
        self.last_plan = executor
        values = iter(executor.run(feed_values, self._runtime))
        results = [None if isinstance(e, Operation) else _to_host(next(values)) for e in elements]
        return nest.pack_sequence_as(fetches, results)

    def make_callable(self, fetches, feed_list=None):
        """A function running ``fetches`` with positional feeds (TF's fast path for repeated runs)."""
        feed_list = list(feed_list or [])

        def call(*values):
            return self.run(fetches, dict(zip(feed_list, values)))
        return call

    # --- helpers --------------------------------------------------------------------------------
    def _fetch_element(self, fetch):
        if fetch is None:
            raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
        if isinstance(fetch, EagerTensor):
            raise TypeError(f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. (It is an eager tensor, "
                            f"which already has a value: call .numpy() instead of fetching it.)")
        try:
            element = self.graph.as_graph_element(fetch)
        except (TypeError, ValueError, KeyError) as error:
            # as TF's session: a name the graph does not have (the lookup's KeyError) is a ValueError here
            kind = TypeError if isinstance(error, TypeError) else ValueError
            raise kind(f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. ({error})") from None
        return element

    def _prepare_feeds(self, feed_dict):
        tensors, values = [], []
        for key, value in feed_dict.items():
            tensor = self.graph.as_graph_element(key.deref() if hasattr(key, "deref") else key,
                                                 allow_operation=False)
            if not isinstance(tensor, SymbolicTensor):
                raise TypeError(f"The value of a feed cannot be a tf.Operation: {key!r}")
            values.append(_check_feed(tensor, value))
            tensors.append(tensor)
        return tensors, values


def _check_feed(tensor, value):
    """Convert a fed value to the tensor's dtype; refuse incompatible shapes with TF's message."""
    dtype = tensor.dtype
    if isinstance(value, (SymbolicTensor, Operation)):
        raise TypeError(f"The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
                        f"Python scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, the "
                        f"tensor object was {value!r} which was passed to the argument `feed_dict` with key "
                        f"{tensor!r}.")
    if isinstance(value, EagerTensor):
        value = value.numpy()
    if isinstance(value, (int, float)) and not isinstance(value, bool) and dtype.is_integer \
            and float(value) != int(value):
        raise TypeError(f"Type of feed value {value} with type {type(value)} is not compatible with Tensor type "
                        f"{dtype.name}. Cast it first, or feed a {dtype.name} value.")
    try:
        array = np.asarray(value, dtype=dtype.as_numpy_dtype if dtype is not _dtypes.string else None)
    except (TypeError, ValueError) as error:
        raise ValueError(f"Cannot feed value {value!r} for Tensor {tensor.name} of dtype {dtype.name}: "
                         f"{error}") from None
    if not tensor.shape.is_compatible_with(array.shape):
        raise ValueError(f"Cannot feed value of shape {array.shape} for Tensor {tensor.name}, which has shape "
                         f"{tensor.shape}")
    return array[()] if array.ndim == 0 else array


def _to_host(value):
    value = to_numpy(value)
    if isinstance(value, (np.ndarray, np.generic)) and is_string_value(value):
        return host_strings(value)   # strings as TF fetches them: an object array of bytes, or bytes
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


class InteractiveSession(Session):
    """A Session that installs itself as the default session (for notebooks and shells)."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        ctx.sessions.append(self)

    def close(self):
        super().close()
        if self in ctx.sessions:
            ctx.sessions.remove(self)
