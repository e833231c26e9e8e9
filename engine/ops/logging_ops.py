"""``tf.print``: a stateful op that prints when it *runs*.

Python's ``print`` inside a ``tf.function`` runs once, while tracing, and shows
symbolic tensors. ``tf.print`` is an op in the graph, so it prints actual values
on every call. Like TF, it writes to ``sys.stderr`` by default.
"""
import collections
import pprint
import random
import sys

import numpy as np

from ..framework.registry import register_op
from ..framework.tensor import Tensor
from ._dispatch import execute, to_tensor

__all__ = ["print"]

_STREAMS = {"stderr": lambda: sys.stderr, "stdout": lambda: sys.stdout}


def _element(v, kind):
    """One element as TF's C++ runtime prints it (``tensor.cc``'s ``PrintOneElement``)."""
    if kind == "b":
        return "1" if v else "0"  # bools print as 1/0
    if kind == "f":
        return _shortest_g(float(v), 6 if v.dtype.itemsize <= 4 else 15)
    if kind == "c":
        return f"({_shortest_g(float(v.real), 6)},{_shortest_g(float(v.imag), 6)})"
    if kind in "SUO":
        return '"' + _text(v) + '"'
    return str(int(v))


def _text(v):
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def _shortest_g(v, digits):
    """``%.{digits}g`` if it reads back as the same number, else ``%.{digits+2|3}g`` (TF's FloatToBuffer).

    float32 (and half) use 6 then 9 significant digits; float64 uses 15 then 17.
    """
    if v != v:
        return "-nan" if np.signbit(v) else "nan"
    text = "%.*g" % (digits, v)
    if digits == 6:
        if np.float32(float(text)) != np.float32(v):
            text = "%.9g" % v
    elif float(text) != v:
        text = "%.17g" % v
    return text


def _format(value, summarize):
    """TF's tensor text for ``tf.print``: ``[1 2 ... 9]``, ``summarize`` elements at each end of each dimension.

    A port of ``Tensor::SummarizeValue(print_v2=true)``: elements are separated by one space (no
    column alignment, unlike NumPy), rows by a newline plus one more blank line per extra dimension.
    """
    arr = np.asarray(value)
    kind = arr.dtype.kind
    if arr.ndim == 0:
        return _element(arr[()], kind)
    ends = arr.size if summarize is None or summarize < 0 else min(summarize, arr.size)
    out = []

    def spacing(dim):
        if dim == arr.ndim - 1:
            out.append(" ")
        else:
            out.append("\n" * (arr.ndim - dim - 1) + " " * (dim + 1))

    def dim_text(dim, sub):
        if dim == arr.ndim:
            out.append(_element(sub, kind))
            return
        out.append("[")
        count = sub.shape[0]
        for i in range(min(ends, count)):
            if i > 0:
                spacing(dim)
            dim_text(dim + 1, sub[i])
        if count > 2 * ends:
            spacing(dim)
            out.append("...")
        for i in range(max(ends, count - ends), count):
            spacing(dim)
            dim_text(dim + 1, sub[i])
        out.append("]")

    dim_text(0, arr)
    return "".join(out)


_TOKEN = "\ue000"  # stands for "the next tensor" in a structure's text; a private-use character


class _Slot:
    """Stands for a tensor inside a printed Python structure; its repr is TF's quoted placeholder, so
    ``pprint`` lays the structure out (line breaks at 80 columns) exactly as TF's template does."""

    def __init__(self, placeholder):
        self.placeholder = placeholder

    def __repr__(self):
        return repr(self.placeholder)


def _print_kernel(xp):
    def k(*values, template=(), output_stream="stderr", sep=" ", end="\n", summarize=3):
        it = iter(values)
        parts = []
        for is_tensor, text in template:
            if is_tensor:
                parts.append(_format(next(it), summarize))
            elif _TOKEN in text:  # the text of a structure: each token stands for the next tensor
                chunks = text.split(_TOKEN)
                parts.append(chunks[0] + "".join(_format(next(it), summarize) + c for c in chunks[1:]))
            else:
                parts.append(text)
        if len(template) == 1 and template[0][0] and values[0].ndim == 0 and values[0].dtype.kind in "SO":
            parts = [_text(values[0].item())]  # a lone scalar string prints bare (TF formats nothing then)
        text = sep.join(parts) + end
        if isinstance(output_stream, str) and output_stream.startswith("file://"):
            with open(output_stream[len("file://"):], "a") as f:  # TF appends to the file
                f.write(text)
            return ()
        stream = _STREAMS[output_stream]() if isinstance(output_stream, str) else output_stream
        stream.write(text)
        if hasattr(stream, "flush"):
            stream.flush()
        return ()
    return k


_PRINT = register_op("PrintV2", kernel=_print_kernel, infer=lambda ic: [], num_outputs=0, stateful=True,
                     doc="Prints its inputs when it runs (every call of a tf.function).")


def _with_slots(value, found, slot):
    """``value`` rebuilt for printing: each tensor -> ``slot`` (and appended to ``found``), dicts sorted by key
    (the order ``pprint`` prints them in, and ``nest.flatten``'s)."""
    if _is_tensor_like(value):
        found.append(value)
        return slot
    if isinstance(value, dict):
        try:
            keys = sorted(value)
        except TypeError:
            keys = list(value)
        rebuilt = {k: _with_slots(value[k], found, slot) for k in keys}
        return collections.OrderedDict(rebuilt) if isinstance(value, collections.OrderedDict) else rebuilt
    if isinstance(value, (list, tuple)):
        items = [_with_slots(v, found, slot) for v in value]
        if isinstance(value, list):
            return items
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value


def _placeholder(inputs):
    """TF's placeholder: ``"{}"``, plus digits until it appears nowhere in the tensor-free text."""
    free = " ".join(pprint.pformat(_with_slots(v, [], "")) for v in inputs)
    placeholder, rng = "{}", random.Random(5)
    while placeholder in free:
        placeholder += str(rng.randint(0, 9))
    return placeholder


def _is_tensor_like(value):
    return isinstance(value, Tensor) or hasattr(value, "__tf_tensor__")


def print(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):  # noqa: A001
    """``tf.print``: print tensors (and Python values) when the op runs. Default stream: stderr.

    ``output_stream``: ``sys.stderr`` (default), ``sys.stdout``, or ``"file:///path"`` (appended to).
    Tensors print as TF's runtime prints them (``[0 1 2 ... 7 8 9]``, bools as ``1``/``0``, float32
    with up to 9 significant digits); ``summarize`` elements are shown at each end of every dimension
    (``-1``: all). A Python string prints as is; any other value as ``pprint.pformat`` shows it, with the
    tensors inside shown as above.
    """
    template, tensors = [], []   # template: per input, (True, None) for a tensor or (False, its text)
    slot = None
    for value in inputs:
        if _is_tensor_like(value):
            tensors.append(to_tensor(value))
            template.append((True, None))
            continue
        if isinstance(value, str):
            template.append((False, value))
            continue
        # Any other value prints as TF prints it: ``pprint.pformat`` of it (dict keys sorted, long lines
        # wrapped), each tensor inside shown as tf.print shows it: one token per tensor, filled in at run time.
        if slot is None:
            slot = _Slot(_placeholder(inputs))
        found = []
        text = pprint.pformat(_with_slots(value, found, slot)).replace(repr(slot.placeholder), _TOKEN)
        template.append((False, text))
        tensors.extend(to_tensor(t) for t in found)
    if output_stream is None or output_stream is sys.stderr:
        stream = "stderr"
    elif output_stream is sys.stdout:
        stream = "stdout"
    else:
        stream = output_stream
    result = execute(_PRINT, tuple(tensors), {"template": tuple(template), "output_stream": stream, "sep": sep,
                                              "end": end, "summarize": summarize}, name=name)
    return None if isinstance(result, list) else result  # eagerly: None; in a graph: the Operation
