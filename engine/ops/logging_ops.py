"""``tf.print``: a stateful op that prints when it *runs*.

Python's ``print`` inside a ``tf.function`` runs once, while tracing, and shows
symbolic tensors. ``tf.print`` is an op in the graph, so it prints actual values
on every call. Like TF, it writes to ``sys.stderr`` by default.
"""
import sys

import numpy as np

from ..framework.registry import register_op
from ..framework.tensor import Tensor
from ._dispatch import execute, to_tensor

__all__ = ["print"]

_STREAMS = {"stderr": lambda: sys.stderr, "stdout": lambda: sys.stdout}


def _format(value, summarize):
    """TF's tensor text: ``[1 2 3]``, with ``...`` after ``summarize`` elements per dimension."""
    arr = np.asarray(value)
    if arr.dtype.kind == "S":
        arr = np.char.decode(arr, "utf-8")
    if arr.ndim == 0:
        item = arr.item()
        return item if isinstance(item, str) else np.format_float_positional(item, trim="-") \
            if isinstance(item, float) else str(item)
    with np.printoptions(threshold=summarize * 2 if summarize and summarize > 0 else sys.maxsize,
                         edgeitems=summarize if summarize and summarize > 0 else 3, floatmode="maxprec",
                         formatter={"float_kind": lambda v: np.format_float_positional(v, trim="-")}):
        return np.array2string(arr, separator=" ")


def _print_kernel(xp):
    def k(*values, template=(), output_stream="stderr", sep=" ", end="\n", summarize=3):
        it = iter(values)
        parts = [_format(next(it), summarize) if is_tensor else text for is_tensor, text in template]
        stream = _STREAMS[output_stream]() if isinstance(output_stream, str) else output_stream
        stream.write(sep.join(parts) + end)
        if hasattr(stream, "flush"):
            stream.flush()
        return ()
    return k


_PRINT = register_op("PrintV2", kernel=_print_kernel, infer=lambda ic: [], num_outputs=0, stateful=True,
                     doc="Prints its inputs when it runs (every call of a tf.function).")


def print(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):  # noqa: A001
    """``tf.print``: print tensors (and Python values) when the op runs. Default stream: stderr."""
    template, tensors = [], []
    for value in inputs:
        if isinstance(value, Tensor) or hasattr(value, "__tf_tensor__"):
            tensors.append(to_tensor(value))
            template.append((True, None))
        else:
            template.append((False, str(value)))
    if output_stream is None or output_stream is sys.stderr:
        stream = "stderr"
    elif output_stream is sys.stdout:
        stream = "stdout"
    else:
        stream = output_stream
    result = execute(_PRINT, tuple(tensors), {"template": tuple(template), "output_stream": stream, "sep": sep,
                                              "end": end, "summarize": summarize}, name=name)
    return None if isinstance(result, list) else result  # eagerly: None; in a graph: the Operation
