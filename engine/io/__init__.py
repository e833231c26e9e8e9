"""``tf.io``: files, records and parsing, and writing graphs to files (and reading them back).

Files and records: ``gfile`` (TF's file API), ``read_file``/``write_file``/``matching_files`` (ops),
``TFRecordWriter``/``TFRecordOptions`` (``tf_record.py``: the TFRecord framing), ``decode_csv``
(``csv_ops.py``), ``parse_example``/``parse_single_example`` with ``FixedLenFeature`` (``parsing.py``:
serialized ``tf.train.Example`` s, defined in ``example.py``), ``serialize_tensor``/``parse_tensor``.
The readers that turn files into datasets are ``tf.data``'s (``engine/data/readers.py``).

The deployment story in two calls::

    tf.io.write_graph(graph, "/tmp/model", "model.json")        # where the model is built
    graph_def = tf.io.read_graph("/tmp/model/model.json")       # where it is served
    tf.compat.v1.import_graph_def(graph_def, name="")

The file is the JSON GraphDef described in ``docs/graph_format.md``.
Differences from TensorFlow: TF writes a protocol buffer (binary, or its text
form with ``as_text=True``); the engine writes JSON in both cases, pretty with
``as_text=True`` and compact otherwise, so either file can be read with
``read_graph`` or ``GraphDef.FromString``. ``read_graph`` is the engine's
shortcut for TF's ``GraphDef.ParseFromString(tf.io.gfile.GFile(path, "rb").read())``.
"""
import os

from ..framework.graph import Graph
from ..framework.graph_io import GraphDef, graph_to_graph_def
from . import gfile  # noqa: F401
from .csv_ops import decode_csv  # noqa: F401
from .file_ops import matching_files, parse_tensor, read_file, serialize_tensor, write_file  # noqa: F401
from .parsing import (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, parse_example,  # noqa: F401
                      parse_single_example)
from .tf_record import TFRecordOptions, TFRecordWriter  # noqa: F401
from ..ops.string_codec_ops import decode_base64, decode_raw, encode_base64  # noqa: F401  (tf.io's string ops)

__all__ = ["write_graph", "read_graph", "gfile", "decode_csv", "read_file", "write_file", "matching_files",
           "serialize_tensor", "parse_tensor", "FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature",
           "parse_example", "parse_single_example", "TFRecordOptions", "TFRecordWriter"]


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Write a ``Graph`` or ``GraphDef`` to ``logdir/name`` (creating ``logdir``); returns the path.

    ``as_text=True`` writes readable JSON (one node per line), ``False`` compact JSON. A graph that
    uses eager variables must be frozen first: pass
    ``graph_to_graph_def(graph, freeze_variables=True)``.
    """
    if isinstance(graph_or_graph_def, Graph):
        graph_def = graph_to_graph_def(graph_or_graph_def)
    elif isinstance(graph_or_graph_def, GraphDef):
        graph_def = graph_or_graph_def
    else:
        raise TypeError(f"write_graph needs a tf.Graph or a GraphDef, not {type(graph_or_graph_def).__name__}.")
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(graph_def.to_json(pretty=as_text))
    return path


def read_graph(path):
    """The :class:`GraphDef` stored in the file ``path`` (written by ``write_graph``, text or compact)."""
    with open(path, "r", encoding="utf-8") as f:
        return GraphDef.from_json(f.read())
