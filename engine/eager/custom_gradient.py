"""``tf.custom_gradient``: replace the gradient of a Python function.

The decorated function returns ``(result, grad_fn)``. The engine runs it with
the gradient tapes paused, then records a *single* op on every active tape whose
backward is ``grad_fn``. Forward-mode accumulators are not paused: as in TF, a
JVP comes from ``f``'s own forward ops, not from ``grad_fn``. If the function reads variables, ``grad_fn`` must
accept ``variables=`` and return ``(input_grads, variable_grads)``, as in TF.

Inside a graph (a ``tf.function`` being traced), the results also pass through one ``IdentityN`` node
over ``results + inputs`` whose gradient is ``grad_fn`` (TF's gradient override on the same node): the
function's own gradient graph (what a tape around the function call, or ``tf.gradients``, uses) sends
the results' gradients through ``grad_fn`` to the inputs instead of through ``f``'s ops. Deliberate
difference: in a graph, variables ``f`` reads are not collected, so ``grad_fn`` gets no ``variables=``.
"""
import functools
import inspect

from ..framework.context import ctx
from ..framework.registry import get_op
from ..framework.tensor import Tensor, convert_to_tensor
from ..util import nest
from .execute import execute
from .tape import _Paused, record_operation

__all__ = ["custom_gradient"]


def custom_gradient(f=None):
    if f is None:
        return lambda g: custom_gradient(g)

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        args = [a if isinstance(a, Tensor) else convert_to_tensor(a) for a in args]  # TF converts every arg
        watcher = {}
        ctx.variable_watchers.append(watcher)
        try:
            with _Paused([t for t in ctx.tapes if not getattr(t, "_is_forward_accumulator", False)]):
                result, grad_fn = f(*args, **kwargs)
                if ctx.graph is not None:
                    flat = _graph_override(nest.flatten(result), args, grad_fn)
                else:
                    flat = [execute(get_op("Identity"), (convert_to_tensor(r),)) for r in nest.flatten(result)]
        finally:
            ctx.variable_watchers.remove(watcher)
        variables = list(watcher.values())
        if variables and not _accepts_variables(grad_fn):
            raise TypeError(f"@tf.custom_gradient grad_fn must accept keyword argument 'variables', since "
                            f"function uses variables: {variables}")

        def backward(*grads):
            grads = grads[0] if len(grads) == 1 else list(grads)
            if variables:
                input_grads, variable_grads = grad_fn(grads, variables=variables)
                if len(variable_grads) != len(variables):
                    raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
            else:
                input_grads, variable_grads = grad_fn(grads), []
            input_grads = list(nest.flatten(input_grads))
            if len(input_grads) != len(args):
                raise ValueError(f"custom_gradient function expected to return {len(args)} gradients, but "
                                 f"returned {len(input_grads)} instead.")
            return input_grads + list(variable_grads)

        record_operation(f.__name__, args + variables, flat, backward)
        return nest.pack_sequence_as(result, flat)
    # AutoGraph must call the wrapper, not convert ``f``'s source (which inspect finds through __wrapped__):
    # as in TF, the decorated function runs as library code, and ``f`` itself is traced as plain Python.
    decorated.__ag_do_not_convert__ = True
    return decorated


def _graph_override(results, args, grad_fn):
    """The results, through one graph ``IdentityN`` over ``results + args`` whose backward is ``grad_fn``."""
    results = [convert_to_tensor(r) for r in results]
    tensors = results + list(args)
    outputs = execute(get_op("IdentityN"), tuple(tensors), {"T": tuple(t.dtype for t in tensors)})
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    count = len(results)

    def backward(*grads):
        result_grads = grads[:count]
        input_grads = grad_fn(result_grads[0] if count == 1 else list(result_grads))
        input_grads = list(nest.flatten(input_grads))
        if len(input_grads) != len(args):
            raise ValueError(f"custom_gradient function expected to return {len(args)} gradients, but "
                             f"returned {len(input_grads)} instead.")
        return [None] * count + input_grads

    outputs[0].op._custom_backward = backward
    return list(outputs[:count])


def _accepts_variables(grad_fn):
    """Can ``grad_fn`` be called with ``variables=``? (A parameter of that name, or ``**kwargs``.)"""
    try:
        params = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
