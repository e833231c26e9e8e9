"""Graphs as TensorFlow's binary ``GraphDef`` protobuf, the form TensorBoard's Graphs dashboard reads.

The engine's own GraphDef (``engine/framework/graph_io.py``) is JSON; the fields are TF's, so writing
the binary form is a matter of wire encoding (``graph.proto``, ``node_def.proto``, ``attr_value.proto``)::

    GraphDef  { repeated NodeDef node = 1; FunctionDefLibrary library = 2; VersionDef versions = 4; }
    NodeDef   { string name = 1; string op = 2; repeated string input = 3; string device = 4;
                map<string, AttrValue> attr = 5; }
    AttrValue { oneof value { ListValue list = 1; bytes s = 2; int64 i = 3; float f = 4; bool b = 5;
                              DataType type = 6; TensorShapeProto shape = 7; TensorProto tensor = 8;
                              NameAttrList func = 10; } }

A map is a repeated message of ``{key = 1, value = 2}`` entries (written in sorted key order).
``tf.summary.trace_export`` wraps the traced functions' graphs in a ``RunMetadata``
(``config.proto``: ``repeated FunctionGraphs function_graphs = 4``, each with its
``pre_optimization_graph = 2``).

Differences from TF: attrs holding Python objects that have no protobuf form (a summary writer, a
Python stream) are left out; a sub-graph attr (a cond's branch) becomes a ``func`` naming it, without
a function library; shapes are not stored per node (TF's ``_output_shapes`` appears only with
``add_shapes=True``).
"""
import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.graph import Graph
from ..framework.graph_io import GraphDef, NameAttrList, VersionDef, graph_to_graph_def, node_def_of
from ..framework.tensor_shape import TensorShape
from . import events, wire

__all__ = ["attr_value", "node_def", "graph_def_bytes", "run_metadata_bytes"]


def _shape_proto(shape):
    if shape.rank is None:
        return wire.uint(3, 1)   # unknown_rank: true
    return b"".join(wire.message(2, wire.sint(1, -1 if d is None else d)) for d in shape)


def _dtype_enum(dtype):
    return events.DATA_TYPE_ENUM.get(dtype.name, 0)


def attr_value(value):
    """``AttrValue`` bytes for one engine attr value, or None when it has no protobuf form."""
    if isinstance(value, (bool, np.bool_)):
        return wire.uint(5, bool(value))
    if isinstance(value, (int, np.integer)):
        return wire.sint(3, int(value))
    if isinstance(value, (float, np.floating)):
        return wire.float32(4, float(value))
    if isinstance(value, (str, bytes)):
        return wire.length_delimited(2, value)
    if isinstance(value, _dtypes.DType):
        return wire.uint(6, _dtype_enum(value))
    if isinstance(value, TensorShape):
        return wire.message(7, _shape_proto(value))
    if isinstance(value, (np.ndarray, np.generic)):
        return wire.message(8, events.tensor_proto(np.asarray(value)))
    if isinstance(value, NameAttrList):
        return wire.message(10, wire.length_delimited(1, value.name))
    if isinstance(value, (list, tuple)):
        return wire.message(1, _list_value(value))
    name = getattr(value, "name", None)
    if _is_graph_function(value) and isinstance(name, str):   # a control-flow sub-graph: name it
        return wire.message(10, wire.length_delimited(1, name))
    return None


def _is_graph_function(value):
    return all(hasattr(value, a) for a in ("graph", "plan", "outputs", "inputs")) and not isinstance(value, type)


def _list_value(values):
    """``ListValue``: one repeated field per kind (s = 2, i = 3 packed, f = 4 packed, b = 5, type = 6, shape = 7)."""
    out = b""
    if all(isinstance(v, (str, bytes)) for v in values):
        return b"".join(wire.length_delimited(2, v, keep_default=True) for v in values)
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return wire.packed_varints(5, [bool(v) for v in values])
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        return wire.packed_varints(3, values)
    if all(isinstance(v, (float, np.floating, int)) for v in values):
        return wire.length_delimited(4, np.asarray(values, "<f4").tobytes())
    if all(isinstance(v, _dtypes.DType) for v in values):
        return wire.packed_varints(6, [_dtype_enum(v) for v in values])
    if all(isinstance(v, TensorShape) for v in values):
        return b"".join(wire.message(7, _shape_proto(v)) for v in values)
    return out


def node_def(node):
    """``NodeDef`` bytes of an engine :class:`~engine.framework.graph_io.NodeDef`."""
    out = wire.length_delimited(1, node.name) + wire.length_delimited(2, node.op)
    out += b"".join(wire.length_delimited(3, i, keep_default=True) for i in node.input)
    out += wire.length_delimited(4, node.device or "")
    for k in sorted(node.attr):
        encoded = attr_value(node.attr[k])
        if encoded is None:
            continue
        out += wire.message(5, wire.length_delimited(1, k) + wire.message(2, encoded))
    return out


def _nodes_of(graph_or_graph_def):
    if isinstance(graph_or_graph_def, GraphDef):
        return graph_or_graph_def.node, graph_or_graph_def.versions
    if isinstance(graph_or_graph_def, Graph):
        try:
            graph_def = graph_to_graph_def(graph_or_graph_def)
        except (TypeError, ValueError):   # eager variables, Python-object attrs: write what can be written
            return [node_def_of(op) for op in graph_or_graph_def.get_operations()], VersionDef()
        return graph_def.node, graph_def.versions
    raise TypeError(f"Expected a tf.Graph or a GraphDef, got {type(graph_or_graph_def).__name__}")


def graph_def_bytes(graph_or_graph_def):
    """Serialized ``GraphDef`` of a ``tf.Graph`` (a ``FuncGraph`` too) or an engine ``GraphDef``."""
    nodes, versions = _nodes_of(graph_or_graph_def)
    out = b"".join(wire.message(1, node_def(n)) for n in nodes)
    if versions is not None:
        out += wire.message(4, wire.sint(1, versions.producer) + wire.sint(2, versions.min_consumer))
    return out


def run_metadata_bytes(graphs):
    """Serialized ``RunMetadata`` with one ``function_graphs`` entry per graph (its pre-optimization graph)."""
    return b"".join(wire.message(4, wire.message(2, graph_def_bytes(g))) for g in graphs)
