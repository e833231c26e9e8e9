"""The summary ops: ``tf.summary.write`` and the summaries built on it (scalar, histogram, text, image, graph).

Writing a summary is an op, ``WriteSummary``, *stateful* in its registry row, so it is never folded
or pruned away: eagerly it writes when called; inside a ``tf.function`` (or a ``tf.compat.v1``
graph run by a ``Session``) it is a node that writes each time the graph runs, with that run's
step and value, exactly as ``tf.print`` prints on every call. The node holds the default writer
of the moment it was traced (TF captures the writer's resource handle the same way).

``write(tag, tensor, step=None, metadata=None)`` returns a bool tensor: True when it wrote, False
when there is no default writer, or ``tf.summary.record_if`` says no. A Python step (or one set by
``tf.summary.experimental.set_step``) is baked into a traced function; a ``tf.Variable`` step is
read on every call. With a writer but no step, ``ValueError("No step set...")``.

The tag is ``name`` inside the current ``tf.name_scope`` (``"train/loss"``). Each summary's
metadata names the TensorBoard plugin that reads it: ``scalar`` writes a float32 scalar
(``"scalars"``), ``histogram`` a ``[k, 3]`` float64 tensor of buckets (``"histograms"``),
``text`` the string tensor (``"text"``), ``image`` ``[width, height, png...]`` strings
(``"images"``), the same tensors TF 2 writes.

Differences from TF: TF's ``WriteSummary`` takes the writer, the tag and the metadata as tensor
inputs; here they are attrs (the tag and metadata are fixed when the op is made, as in practice
they are in TF). TF builds the histogram buckets and the PNG encoding from many small ops; here
each is one row (``SummaryHistogramBuckets``, ``SummaryImageEncode``) with the same results.
"""
import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.graph import Graph, constant_value
from ..framework.graph_io import GraphDef
from ..framework.name_scope import get_current_name_scope
from ..framework.registry import register_op, NotDifferentiable
from ..framework.tensor import Tensor, constant
from ..framework.tensor_shape import TensorShape
from ..ops._dispatch import execute, to_tensor
from ..ops.array_ops import stop_gradient
from ..ops.math_ops import cast
from . import events, graph_proto, histogram as _histogram, png, writer as _writer

__all__ = ["write", "scalar", "histogram", "text", "image", "graph", "should_record_summaries", "summary_scope"]


def _host(array):
    get = getattr(array, "get", None)   # a CuPy array: copy it to the host
    return np.asarray(get() if get is not None else array)


def _write_kernel(xp):
    def k(step, tensor, record, writer=None, tag="", metadata=b""):
        if not bool(_host(record)):
            return xp.asarray(False)
        value = events.summary_value(tag, events.tensor_proto(_host(tensor)), metadata)
        return xp.asarray(bool(writer.write_summary(int(_host(step)), events.summary(value))))
    return k


def _bool_scalar(ic):
    return [(dtypes.bool, TensorShape([]))]


_WRITE = register_op("WriteSummary", kernel=_write_kernel, infer=_bool_scalar, stateful=True,
                     doc="Writes one tensor summary (tag, step, tensor, metadata) to a summary writer when it runs.")


def _buckets_kernel(xp):
    def k(data, bucket_count=_histogram.DEFAULT_BUCKET_COUNT):
        return xp.asarray(_histogram.histogram_buckets(_host(data), bucket_count))
    return k


def _buckets_infer(ic):
    return [(dtypes.float64, TensorShape([max(0, ic.attrs.get("bucket_count", 30)), 3]))]


_BUCKETS = register_op("SummaryHistogramBuckets", kernel=_buckets_kernel, infer=_buckets_infer,
                       doc="The [k, 3] (left, right, count) float64 buckets of a histogram summary.")


def _image_kernel(xp):
    def k(images, max_outputs=3):   # strings: always a host (NumPy) array
        return png.image_summary_tensor(_host(images), max_outputs)
    return k


def _image_infer(ic):
    shape = ic.shape(0)
    n = None if shape.rank is None or shape[0] is None else min(shape[0], ic.attrs.get("max_outputs", 3))
    return [(dtypes.string, TensorShape([None if n is None else n + 2]))]


_IMAGES = register_op("SummaryImageEncode", kernel=_image_kernel, infer=_image_infer,
                      doc="[width, height, png...]: the PNG-encoded images of an image summary.")

for _name in ("WriteSummary", "SummaryHistogramBuckets", "SummaryImageEncode"):
    NotDifferentiable(_name)


class summary_scope:  # noqa: N801  (TF's name)
    """``tf.summary.experimental.summary_scope(name)``: yields ``(tag, scope)``; the tag is ``name`` in the
    current name scope. (TF also opens a name scope for the summary's ops; the engine does not.)"""

    def __init__(self, name, default_name=None, values=None):
        self._name = name or default_name or "summary"

    def __enter__(self):
        scope = get_current_name_scope()
        tag = f"{scope}/{self._name}" if scope else self._name
        return tag, tag + "/"

    def __exit__(self, *exc):
        return False


def _static_bool(value):
    """The condition's value if known now (a Python bool, an eager or constant tensor), else None."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, Tensor):
        known = constant_value(value)
        return None if known is None else bool(known)
    if hasattr(value, "dtype") and hasattr(value, "numpy"):   # a tf.Variable: read now, or on each run
        return bool(value.numpy()) if ctx.graph is None else None
    return bool(value)


def should_record_summaries():
    """``tf.summary.should_record_summaries()``: a bool tensor, True when summaries will be written now
    (a default writer is set and ``record_if``'s condition, if any, holds)."""
    cond = _writer.should_record_summaries()
    if cond is None:
        return constant(True)
    if isinstance(cond, Tensor):
        return cast(cond, dtypes.bool)
    return constant(bool(cond))


def write(tag, tensor, step=None, metadata=None, name=None):
    """``tf.summary.write``: write ``tensor`` under ``tag`` at ``step`` to the default writer.

    ``tensor`` may be a callable returning the tensor (called only when the summary is written).
    ``metadata``: ``SummaryMetadata`` bytes (or an object with ``SerializeToString``). Returns a bool
    tensor: True when written; False without a default writer or when ``record_if`` says no.
    """
    del name
    writer = _writer.default_writer()
    if writer is None or not hasattr(writer, "write_summary"):
        return constant(False)
    if step is None:
        step = _writer.get_step()
    if metadata is None:
        metadata = b""
    elif hasattr(metadata, "SerializeToString"):
        metadata = metadata.SerializeToString()
    cond = _writer.should_record_summaries()
    static = True if cond is None else _static_bool(cond)
    if static is False:
        return constant(False)
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` argument or through "
                         "tf.summary.experimental.set_step()")
    value = tensor() if callable(tensor) else tensor
    value = to_tensor(value)
    step = cast(to_tensor(step), dtypes.int64)
    record = constant(True) if static else cast(to_tensor(cond), dtypes.bool)
    return execute(_WRITE, (step, value, record), {"writer": writer, "tag": tag, "metadata": bytes(metadata)})


def _writing():
    """Will a summary be written now (statically)? False only when there is no writer or record_if(False)."""
    if _writer.default_writer() is None:
        return False
    cond = _writer.should_record_summaries()
    return cond is None or _static_bool(cond) is not False


def scalar(name, data, step=None, description=None):
    """``tf.summary.scalar``: write a scalar (cast to float32) for TensorBoard's Scalars dashboard.

    ``data`` must be a scalar (``ValueError`` otherwise). Returns True (a bool tensor) when written,
    False when there is no default writer.
    """
    metadata = events.summary_metadata("scalars", description=description)
    with summary_scope(name, "scalar_summary") as (tag, _):
        data = to_tensor(data)
        if data.shape.rank is not None and data.shape.rank != 0:
            raise ValueError(f"Expected scalar shape, saw shape: {data.shape}.")
        return write(tag, lambda: cast(data, dtypes.float32), step=step, metadata=metadata)


def histogram(name, data, step=None, buckets=None, description=None):
    """``tf.summary.histogram``: write the histogram of all of ``data``'s elements (Histograms and
    Distributions dashboards): ``buckets`` (default 30) rows of ``(left_edge, right_edge, count)``,
    computed as TF does (see ``engine/summary/histogram.py``)."""
    metadata = events.summary_metadata("histograms", description=description)
    bucket_count = _histogram.DEFAULT_BUCKET_COUNT if buckets is None else int(buckets)
    with summary_scope(name, "histogram_summary") as (tag, _):
        def buckets_tensor():
            values = stop_gradient(to_tensor(data))
            return execute(_BUCKETS, (values,), {"bucket_count": bucket_count})
        return write(tag, buckets_tensor, step=step, metadata=metadata)


def text(name, data, step=None, description=None):
    """``tf.summary.text``: write a string tensor (any shape) for the Text dashboard (Markdown is rendered).

    ``data`` must be strings: anything else is a ``TypeError``, as TF's ``assert_type`` raises.
    """
    metadata = events.summary_metadata("text", description=description)
    with summary_scope(name, "text_summary") as (tag, _):
        data = to_tensor(data)
        if data.dtype != dtypes.string:
            raise TypeError(f"tensor must be of type tf.string; got tf.{data.dtype.name}")
        return write(tag, data, step=step, metadata=metadata)


def image(name, data, step=None, max_outputs=3, description=None):
    """``tf.summary.image``: write up to ``max_outputs`` images of ``data`` (``[k, h, w, c]``, c = 1, 3 or 4)
    as PNGs for the Images dashboard. Floats are taken in [0, 1] and converted to uint8 as
    ``tf.image.convert_image_dtype(..., saturate=True)`` does."""
    metadata = events.summary_metadata("images", description=description)
    with summary_scope(name, "image_summary") as (tag, _):
        def images_tensor():
            images = to_tensor(data)
            if images.shape.rank is not None and images.shape.rank != 4:
                # TF's message, with the tensor's name (empty for an eager tensor, as in TF)
                raise ValueError(f"Tensor {'' if ctx.graph is None else images.name} must have rank 4.  "
                                 f"Received rank {images.shape.rank}, shape {images.shape}")
            if int(max_outputs) < 0:
                raise ValueError("max_outputs must be non-negative")
            return execute(_IMAGES, (images,), {"max_outputs": int(max_outputs)})
        return write(tag, images_tensor, step=step, metadata=metadata)


def graph(graph_data):
    """``tf.summary.graph``: write a ``tf.Graph`` (a traced function's ``.graph`` too) or GraphDef to the
    default writer, as an ``Event`` whose ``graph_def`` field TensorBoard's Graphs dashboard shows.

    Returns True when written, False without a default writer (``ValueError`` inside a
    ``tf.function`` or graph: like TF, only eagerly).
    """
    if ctx.graph is not None:
        raise ValueError("graph() cannot be invoked inside a graph context.")
    writer = _writer.default_writer()
    if writer is None or not hasattr(writer, "write_graph_def") or not _writing():
        return constant(False)
    if not isinstance(graph_data, (Graph, GraphDef)):
        raise ValueError(f"Argument 'graph_data' is not tf.Graph or tf.compat.v1.GraphDef. Received "
                         f"graph_data={graph_data} of type {type(graph_data).__name__}.")
    return constant(bool(writer.write_graph_def(0, graph_proto.graph_def_bytes(graph_data))))
