"""``tf.summary``: write data for TensorBoard (scalars, histograms, images, text, graphs) to event files.

::

    writer = tf.summary.create_file_writer("logs/run1")
    with writer.as_default():
        for step in range(100):
            tf.summary.scalar("loss", loss_value, step=step)
            tf.summary.histogram("weights", w, step=step)
    # then: tensorboard --logdir logs

The pieces, bottom up:

* ``wire.py``: the protocol-buffer wire format, by hand (varints, length-delimited fields, doubles);
* ``events.py``: ``Event``, ``Summary``, ``SummaryMetadata`` and ``TensorProto`` as bytes;
* ``graph_proto.py``: graphs as TF's binary ``GraphDef`` (for ``tf.summary.graph`` and traces);
* ``histogram.py`` and ``png.py``: histogram buckets and PNG encoding, computed as TF does;
* ``writer.py``: ``SummaryWriter`` (one event file, framed by ``engine/io/tf_record.py``), the
  default writer and step of each thread, ``record_if``;
* ``summary_ops.py``: the ``WriteSummary`` op (stateful: it writes on every run of a traced
  ``tf.function``) and ``write``, ``scalar``, ``histogram``, ``text``, ``image``, ``graph``;
* ``trace.py``: ``trace_on``/``trace_export``/``trace_off``.

The files are what TF 2.21 writes, record for record: TensorBoard reads them, and a scalar event
is byte-for-byte TF's (``tests/summary`` checks both against TF's own files).
"""
import types as _types

from .summary_ops import graph, histogram, image, scalar, should_record_summaries, summary_scope, text, write
from .trace import trace_export, trace_off, trace_on
from .writer import SummaryWriter, create_file_writer, create_noop_writer, flush, get_step, record_if, set_step

experimental = _types.SimpleNamespace(get_step=get_step, set_step=set_step, summary_scope=summary_scope)
"""``tf.summary.experimental``: ``get_step``, ``set_step``, ``summary_scope``."""

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "experimental", "flush", "graph",
           "histogram", "image", "record_if", "scalar", "should_record_summaries", "text", "trace_export",
           "trace_off", "trace_on", "write"]
