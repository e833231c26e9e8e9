"""TensorBoard's records: ``tensorflow.Event``, ``Summary``, ``SummaryMetadata`` and ``TensorProto``, as bytes.

An event file is a TFRecord file (``engine/io/tf_record.py``) whose records are serialized
``Event`` messages (``tensorflow/core/util/event.proto``)::

    Event   { double wall_time = 1; int64 step = 2;
              oneof what { string file_version = 3; bytes graph_def = 4; Summary summary = 5; ... }
              SourceMetadata source_metadata = 10; }
    Summary { repeated Value value = 1; }
    Value   { string tag = 1; TensorProto tensor = 8; SummaryMetadata metadata = 9; }
    SummaryMetadata { PluginData plugin_data = 1; string display_name = 2; string summary_description = 3; }
    PluginData      { string plugin_name = 1; bytes content = 2; }

The first record of every file is ``file_version: "brain.Event:2"`` (with ``source_metadata``
naming the writer); each later one holds one summary value. TF 2 writes every summary as a
*tensor* summary: the data is a ``TensorProto`` and the metadata's ``plugin_name`` says which
TensorBoard dashboard reads it (``"scalars"``, ``"histograms"``, ``"images"``, ``"text"``).

``TensorProto``: ``dtype = 1`` (TF's ``DataType`` enum), ``tensor_shape = 2`` (``dim = 2``, each
``size = 1``), numbers as raw little-endian bytes in ``tensor_content = 4``, strings one per
``string_val = 8``: what TF's ``Tensor::AsProtoTensorContent`` writes.
"""
import numpy as np

from ..framework import dtypes as _dtypes
from . import wire

__all__ = ["FILE_VERSION", "SOURCE_WRITER", "DATA_TYPE_ENUM", "tensor_proto", "tensor_shape_proto",
           "summary_metadata", "summary_value", "summary", "event"]

FILE_VERSION = "brain.Event:2"
SOURCE_WRITER = "tensorflow.core.util.events_writer"   # what TF 2.21's EventsWriter puts in source_metadata

# TF's DataType enum (types.proto): the number each dtype is written as.
DATA_TYPE_ENUM = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7,
                  "complex64": 8, "int64": 9, "bool": 10, "qint8": 11, "quint8": 12, "qint32": 13,
                  "bfloat16": 14, "qint16": 15, "quint16": 16, "uint16": 17, "complex128": 18, "float16": 19,
                  "resource": 20, "variant": 21, "uint32": 22, "uint64": 23}


def _dtype_name(array):
    if array.dtype.kind in "SUO":
        return "string"
    return _dtypes.as_dtype(array.dtype.newbyteorder("=")).name


def tensor_shape_proto(shape):
    """``TensorShapeProto``: one ``dim { size }`` per dimension (a size of 0 is an empty ``dim``)."""
    return b"".join(wire.message(2, wire.uint(1, d)) for d in shape)


def _as_bytes(x):
    return x if isinstance(x, bytes) else str(x).encode("utf-8")


def tensor_proto(value):
    """``TensorProto`` bytes of a NumPy array (or anything ``np.asarray`` takes), as TF writes it."""
    array = np.asarray(value)
    name = _dtype_name(array)
    out = wire.uint(1, DATA_TYPE_ENUM[name]) + wire.message(2, tensor_shape_proto(array.shape))
    if name == "string":
        return out + b"".join(wire.length_delimited(8, _as_bytes(x), keep_default=True)
                              for x in array.reshape(-1).tolist())
    raw = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return out + wire.length_delimited(4, raw)


def summary_metadata(plugin_name, content=b"", display_name="", description=""):
    """``SummaryMetadata`` bytes: which plugin reads the value, its own data, and a description."""
    plugin_data = wire.length_delimited(1, plugin_name) + wire.length_delimited(2, content)
    return (wire.message(1, plugin_data) + wire.length_delimited(2, display_name)
            + wire.length_delimited(3, description or ""))


def summary_value(tag, tensor=None, metadata=None):
    """One ``Summary.Value``: ``tag``, the tensor (TensorProto bytes) and the metadata (bytes)."""
    out = wire.length_delimited(1, tag)
    if tensor is not None:
        out += wire.message(8, tensor)
    if metadata:   # TF leaves empty metadata out (tf.summary.write without metadata)
        out += wire.message(9, metadata)
    return out


def summary(*values):
    """``Summary`` bytes holding the given ``Summary.Value`` s."""
    return b"".join(wire.message(1, v) for v in values)


def event(wall_time, step=0, file_version=None, graph_def=None, summary=None, source_writer=None):
    """``Event`` bytes. Exactly one of ``file_version``, ``graph_def`` (GraphDef bytes), ``summary``."""
    out = wire.double(1, wall_time) + wire.uint(2, step)
    if file_version is not None:
        out += wire.length_delimited(3, file_version, keep_default=True)
    if graph_def is not None:
        out += wire.length_delimited(4, graph_def, keep_default=True)
    if summary is not None:
        out += wire.message(5, summary)
    if source_writer is not None:
        out += wire.message(10, wire.length_delimited(1, source_writer))
    return out
