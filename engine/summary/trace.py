"""``tf.summary.trace_on`` / ``trace_export`` / ``trace_off``: record the graphs of the tf.functions called in between.

::

    tf.summary.trace_on(graph=True)
    f(x)                                  # a tf.function: its graph is collected
    with writer.as_default():
        tf.summary.trace_export("f_trace", step=0)

``trace_export`` writes, as TF 2 does, one tensor summary tagged ``name`` whose plugin is
``"graph_run_metadata_graph"`` (content ``b"1"``) and whose value is a serialized ``RunMetadata``
holding one ``function_graphs`` entry per function call collected: its ``pre_optimization_graph`` is
the traced function's GraphDef (``graph_proto.py``). TensorBoard's Graphs dashboard shows it under
the tag. ``trace_export`` then turns tracing off.

Differences from TF: TF's runtime collects the graphs it executes, as partitioned and optimized (its
``partition_graphs`` and ``post_optimization_graph``); the engine writes the graph as traced. The
profiler is not available: ``profiler=True`` only logs a warning. Collection works by watching
``ConcreteFunction`` calls while tracing is on (the stand-in for TF's
``context.enable_graph_collection()``); each distinct graph is written once.
"""
import logging
import threading

from ..framework.context import ctx
from ..tracing.function import ConcreteFunction
from . import events, graph_proto, summary_ops

__all__ = ["trace_on", "trace_export", "trace_off"]

logger = logging.getLogger("tensorflow")

_lock = threading.Lock()
_trace = {"context": None, "graphs": [], "original": None}


def _collecting_call_flat(self, tensors):
    if ctx.graph is None:   # an eager call (a call while tracing another function is inlined there)
        graphs = _trace["graphs"]
        if _trace["context"] is not None and all(g is not self.graph for g in graphs):
            graphs.append(self.graph)
    return _trace["original"](self, tensors)


def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Start collecting the graphs of the ``tf.function`` s called from now on (``graph=True``)."""
    if ctx.graph is not None:
        logger.warning("Cannot enable trace inside a tf.function.")
        return
    with _lock:
        if _trace["context"] is not None:
            logger.warning("Trace already enabled")
            return
        if profiler:
            logger.warning("The profiler is not available in the engine; trace_on(profiler=True) collects "
                           "graphs only.")
        _trace["context"] = (bool(graph), bool(profiler))
        _trace["graphs"] = []
        if graph and _trace["original"] is None:
            _trace["original"] = ConcreteFunction._call_flat
            ConcreteFunction._call_flat = _collecting_call_flat


def trace_export(name, step=None, profiler_outdir=None):
    """Write the collected graphs to the default writer under ``name`` at ``step``, then stop tracing.

    ``ValueError`` if tracing is not on ("Must enable trace before export through tf.summary.trace_on.")
    or if a default writer exists but there is no step.
    """
    del profiler_outdir
    if ctx.graph is not None:
        logger.warning("Cannot export trace inside a tf.function.")
        return
    with _lock:
        if _trace["context"] is None:
            raise ValueError("Must enable trace before export through tf.summary.trace_on.")
        graphs = list(_trace["graphs"])
    metadata = events.summary_metadata("graph_run_metadata_graph", content=b"1")
    with summary_ops.summary_scope(name, "graph_run_metadata_graph_summary") as (tag, _):
        summary_ops.write(tag, lambda: graph_proto.run_metadata_bytes(graphs), step=step, metadata=metadata)
    trace_off()


def trace_off():
    """Stop collecting graphs and forget those collected."""
    with _lock:
        _trace["context"] = None
        _trace["graphs"] = []
        if _trace["original"] is not None:
            ConcreteFunction._call_flat = _trace["original"]
            _trace["original"] = None
