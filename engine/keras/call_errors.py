"""Errors raised inside a layer's ``call``, with the call's arguments added, as Keras 3 reports them.

Keras 3 (``keras/src/utils/traceback_utils.py``, ``inject_argument_info_in_traceback``) re-raises an
exception escaping ``Layer.call`` as the same class with the message::

    Exception encountered when calling Dense.call().

    \\x1b[1m<the original message>\\x1b[0m

    Arguments received by Dense.call():
      • inputs=tf.Tensor(shape=(2, 3), dtype=float32)
      • training=None

Tensors show as ``tf.Tensor(shape=..., dtype=...)``, other values by ``repr`` (inside nests too: a list
``[1, 2]`` shows as ``['1', '2']``). Only the innermost failing call adds this (a nested layer's error
passes through its callers unchanged). An ``OpError`` keeps its ``node_def``, ``op`` and code; a class
that cannot be built from a message becomes ``RuntimeError``. The traceback is the original one.
"""
import inspect

from ..framework.errors import OpError
from ..framework.tensor import Tensor
from ..util import nest

__all__ = ["with_call_arguments"]


def _format_argument(value):
    if isinstance(value, Tensor) or hasattr(value, "_is_variable"):
        return f"tf.Tensor(shape={value.shape}, dtype={value.dtype.name})"
    return repr(value)


def with_call_arguments(error, layer, args, kwargs):
    """The exception to raise for ``error`` escaping ``layer.call(*args, **kwargs)`` (see the module docstring)."""
    if getattr(error, "_keras_call_info_injected", False):
        return error
    try:
        signature = inspect.signature(layer.call)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return error
    context = []
    for parameter in signature.parameters.values():
        if parameter.name in bound.arguments:
            value = nest.map_structure(_format_argument, bound.arguments[parameter.name])
        else:
            value = parameter.default
        context.append(f"  • {parameter.name}={value}")
    if not context:
        return error
    if isinstance(error, OpError):
        message = error.message
    else:
        message = error.args[0] if error.args else ""
    name = f"{type(layer).__name__}.call()"
    message = (f"Exception encountered when calling {name}.\n\n\x1b[1m{message}\x1b[0m\n\n"
               f"Arguments received by {name}:\n" + "\n".join(context))
    if isinstance(error, OpError):
        new = error.__class__(error.node_def, error.op, message, error.error_code)
    else:
        try:
            new = error.__class__(message)
        except TypeError:
            new = RuntimeError(message)
    new._keras_call_info_injected = True
    return new.with_traceback(error.__traceback__)
