"""``tf.py_function`` and ``tf.numpy_function``: run arbitrary Python as an op.

A graph can only run ops, so Python code that cannot be traced (a call into a
library, a ``print`` of values, data-dependent Python logic) is wrapped as one
op whose *kernel calls the Python function* when the graph runs:

* ``tf.py_function(func, inp, Tout)`` (op ``EagerPyFunc``): ``func`` receives
  **EagerTensors** and runs eagerly, even inside a ``tf.function``. It is
  differentiable: when a gradient of the op is built, each run of the kernel
  records ``func`` on a private ``GradientTape``; the gradient op (another
  ``EagerPyFunc``) asks that tape for the gradients (TF's ``tape_cache``).
  Called eagerly, ``func`` just runs, and the active tapes record its ops
  like any other code.
* ``tf.numpy_function(func, inp, Tout)`` (ops ``PyFunc``/``PyFuncStateless``):
  ``func`` receives NumPy arrays and returns NumPy values; no gradient.
  Called eagerly it simply calls ``func`` on NumPy copies of the inputs and
  converts what it returns (as TF 2.21 does: ``Tout`` is not checked).

The static shape of every output is unknown (TF cannot see inside Python
either); ``Tout`` gives the dtypes, and a value of another dtype is an
``InvalidArgumentError`` when the op runs. An exception raised by ``func``
becomes a TF error when it runs inside an op: ``ValueError``/``TypeError``
give ``InvalidArgumentError``, ``StopIteration``/``IndexError`` give
``OutOfRangeError``, ``NotImplementedError`` gives ``UnimplementedError``,
``MemoryError`` gives ``ResourceExhaustedError``, anything else
``UnknownError``; the message starts with the Python exception's type and text.

Both ops are stateful: never folded, deduplicated or pruned away, and run in
program order inside a ``tf.function``. Deliberate differences from TF: the
function is kept in the op's attrs (TF keeps a token into a registry), so a
graph that holds one cannot be serialized; the gradient tape of a
``py_function`` keeps the last 64 forward runs that have not been
differentiated yet; messages carry no Python traceback.
"""
import functools
import itertools

import numpy as np

from ..eager.tape import GradientTape
from ..framework import dtypes
from ..framework.context import ctx
from ..framework.device import default_device
from ..framework.errors import (InvalidArgumentError, OpError, OutOfRangeError, ResourceExhaustedError,
                                UnimplementedError, UnknownError)
from ..framework.registry import register_op
from ..framework.tensor import EagerTensor, convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..util import nest
from . import array_ops
from ._dispatch import execute

__all__ = ["py_function", "numpy_function", "eager_py_func"]

_tokens = itertools.count()
_MAX_PENDING_TAPES = 64


# ======================================================================================
# Errors raised by the Python function
# ======================================================================================
def _op_error(exc, op_name=None):
    """The TF error a Python exception becomes when it escapes a py_func kernel."""
    if isinstance(exc, OpError):
        return exc
    if isinstance(exc, (ValueError, TypeError)):
        cls = InvalidArgumentError
    elif isinstance(exc, (StopIteration, IndexError)):
        cls = OutOfRangeError
    elif isinstance(exc, NotImplementedError):
        cls = UnimplementedError
    elif isinstance(exc, MemoryError):
        cls = ResourceExhaustedError
    else:
        cls = UnknownError
    message = f"{type(exc).__name__}: {exc}"
    if op_name is not None:
        message += f" [Op:{op_name}]"
    return cls(None, None, message)


class _EagerMode:
    """Run Python code eagerly, whatever is being built (TF's ``context.eager_mode()``)."""

    def __enter__(self):
        self._saved = ctx.graph, ctx.tapes
        ctx.graph, ctx.tapes = None, []
        return self

    def __exit__(self, *exc):
        ctx.graph, ctx.tapes = self._saved
        return False


# ======================================================================================
# EagerPyFunc
# ======================================================================================
class _EagerFunc:
    """The Python function of one ``py_function`` op, and the tapes of its runs (for the gradient)."""

    def __init__(self, func, out_dtypes, is_grad_func=False):
        self.func = func
        self.out_dtypes = out_dtypes
        self.is_grad_func = is_grad_func
        self.token = f"pyfunc_{next(_tokens)}"
        self.support_gradient = False
        self._tapes = []     # (tape, inputs, outputs) per forward run, newest last

    def _convert(self, value, dtype):
        if value is None and self.is_grad_func:
            return None
        if hasattr(value, "_is_variable"):
            raise RuntimeError(f"Attempting to return a variable from an eagerly executed py_func. Only numeric data "
                               f"structures like Tensors or NumPy arrays should be returned; to return the value of "
                               f"a variable, make sure to obtain the Tensor backing it by calling `.read_value()` on "
                               f"the variable in question: {value}")
        return convert_to_tensor(value, dtype=dtype)

    def call(self, args):
        """Run the function eagerly on EagerTensors; returns a list of EagerTensors (Tout order)."""
        ret = self.func(*args)
        if isinstance(ret, (list, tuple)):
            outputs = [self._convert(x, d) for x, d in zip(ret, self.out_dtypes)]
        elif ret is None:
            outputs = []
        else:
            outputs = [self._convert(ret, self.out_dtypes[0])] if self.out_dtypes else [ret]
        if len(outputs) != len(self.out_dtypes):
            raise InvalidArgumentError(None, None, f"{self.token} returns {len(outputs)} values, but expects to see "
                                                   f"{len(self.out_dtypes)} values.")
        return outputs

    def run_recorded(self, args):
        """``call`` under a private tape, kept for the gradient op."""
        with GradientTape() as tape:
            for a in args:
                if a.dtype.is_floating:
                    tape.watch(a)
            outputs = self.call(args)
        self._tapes.append((tape, args, outputs))
        del self._tapes[:-_MAX_PENDING_TAPES]
        return outputs

    def gradient(self, output_grads):
        """The gradient of the newest recorded run (the backward pass visits runs newest first)."""
        if not self._tapes:
            raise InvalidArgumentError(None, None, f"The gradient of {self.token} was requested, but no recorded run "
                                                   f"of its forward function is pending.")
        tape, inputs, outputs = self._tapes.pop()
        float_outputs = [(o, g) for o, g in zip(outputs, output_grads) if o.dtype.is_floating]
        grads = tape.gradient([o for o, _ in float_outputs], list(inputs),
                              output_gradients=[g for _, g in float_outputs]) if float_outputs else \
            [None] * len(inputs)
        return [array_ops.zeros_like(x) if g is None else g for x, g in zip(inputs, grads)]

    def __repr__(self):
        return f"<py_function {self.token}: {getattr(self.func, '__name__', self.func)!r}>"


def _eager_py_func_kernel(xp):
    def k(*inputs, func, Tout, _runtime=None, **attrs):
        device = default_device()
        args = [EagerTensor(v if device.backend == "numpy" else device.put(v), device) for v in inputs]
        with _EagerMode():
            try:
                outputs = func.run_recorded(args) if func.support_gradient else func.call(args)
            except Exception as exc:  # noqa: BLE001  (every Python error becomes a TF error)
                raise _op_error(exc) from exc
        values = [o.numpy() if isinstance(o, EagerTensor) else o for o in outputs]
        if len(values) == 1:
            return values[0]
        return tuple(values)
    return k


def _unknown_outputs(ic):
    return [(d, TensorShape(None)) for d in ic.attrs["Tout"]]


def _eager_py_func_grad(op, *output_grads):
    func = op.get_attr("func")
    func.support_gradient = True
    grad_func = _EagerFunc(lambda *dys: func.gradient(dys), [t.dtype for t in op.inputs], is_grad_func=True)
    dys = [g for g in output_grads]
    result = execute(_EAGER_PY_FUNC, tuple(dys), {"func": grad_func, "Tout": list(grad_func.out_dtypes),
                                                  "token": grad_func.token, "is_async": False},
                     name="EagerPyFuncGrad")
    if not op.inputs:
        return []
    return result if isinstance(result, list) else [result]


_EAGER_PY_FUNC = register_op("EagerPyFunc", kernel=_eager_py_func_kernel, infer=_unknown_outputs,
                             grad=_eager_py_func_grad, num_outputs=lambda attrs: len(attrs["Tout"]), stateful=True,
                             saves_inputs=False, saves_outputs=False,
                             doc="Calls a Python function on EagerTensors (tf.py_function).")


# ======================================================================================
# PyFunc / PyFuncStateless (numpy_function)
# ======================================================================================
def _py_func_kernel(xp):
    def k(*inputs, func, Tout, token, **attrs):
        args = [np.array(v) for v in inputs]
        with _EagerMode():
            try:
                ret = func(*args)
            except Exception as exc:  # noqa: BLE001
                raise _op_error(exc) from exc
        values = list(ret) if isinstance(ret, (list, tuple)) else ([] if ret is None else [ret])
        if len(values) != len(Tout):
            raise InvalidArgumentError(None, None, f"{token} returns {len(values)} values, but expects to see "
                                                   f"{len(Tout)} values.")
        out = []
        for i, (value, dtype) in enumerate(zip(values, Tout)):
            if isinstance(value, EagerTensor):
                value = value.numpy()
            if isinstance(value, (np.ndarray, np.generic)):
                got = dtypes.from_numpy(value.dtype) if value.dtype.kind not in "USO" else dtypes.string
                if got != dtype:
                    raise InvalidArgumentError(None, None, f"{i}-th value returned by {token} is {got.runtime_name}, "
                                                           f"but expects {dtype.runtime_name}")
            else:
                value = np.asarray(value, dtype=dtype.as_numpy_dtype)
            out.append(value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value)
        if len(out) == 1:
            return out[0]
        return tuple(out)
    return k


_PY_FUNC = register_op("PyFunc", kernel=_py_func_kernel, infer=_unknown_outputs,
                       num_outputs=lambda attrs: len(attrs["Tout"]), stateful=True,
                       doc="Calls a Python function on NumPy arrays (tf.numpy_function). Not differentiable.")
_PY_FUNC_STATELESS = register_op("PyFuncStateless", kernel=_py_func_kernel, infer=_unknown_outputs,
                                 num_outputs=lambda attrs: len(attrs["Tout"]), stateful=True,
                                 doc="PyFunc declared stateless by the user (still run in order by the engine).")


# ======================================================================================
# Public functions
# ======================================================================================
def _decorator_or_none(script_op, script_op_name, func, inp, Tout, **kwargs):
    """TF's argument checks; with ``func=None``, the decorator form (``@tf.py_function(Tout=...)``)."""
    if Tout is None:
        raise TypeError(f"Missing required argument: 'Tout'\n  If using {script_op_name} as a decorator, set `Tout`\n"
                        f"  **by name** above the function:\n  `@{script_op_name}(Tout=tout)`")
    if func is None:
        if inp is not None:
            raise TypeError(f"Don't set the `inp` argument when using {script_op_name} as a decorator "
                            f"(`func=None`).")

        def decorator(fun):
            @functools.wraps(fun)
            def wrapper(*args):
                return script_op(fun, inp=args, Tout=Tout, **kwargs)
            # AutoGraph must call the wrapper as it is, never convert it: ``functools.wraps`` gives it the
            # user's module and ``__wrapped__`` (the user's source), so it would be replaced by the converted
            # user function, traced into the graph once instead of becoming the op that calls it on every run.
            wrapper.__ag_do_not_convert__ = True
            return wrapper
        return decorator
    if inp is None:
        raise TypeError(f"Missing argument `inp`:\n  You must set the `inp` argument (the list of arguments to the\n"
                        f"  function), unless you use `{script_op_name}` as a decorator(`func=None`).")
    return None


def _inputs(inp):
    return [x.read_value() if hasattr(x, "_is_variable") else convert_to_tensor(x) for x in list(inp)]


def _tout(Tout):  # noqa: N803  (TF's name)
    is_list = isinstance(Tout, (list, tuple))
    return is_list, [dtypes.as_dtype(t) for t in (Tout if is_list else [Tout])]


def py_function(func=None, inp=None, Tout=None, name=None):  # noqa: N803
    """``tf.py_function``: call ``func`` (which takes and returns tensors) eagerly, even in a graph.

    ``Tout`` is a dtype (one output) or a list of dtypes (a list of outputs,
    possibly empty). Gradients flow through ``func``'s TF ops.
    """
    decorator = _decorator_or_none(py_function, "tf.py_function", func, inp, Tout, name=name)
    if decorator is not None:
        return decorator
    if not callable(func):
        raise ValueError(f"Expected func to be callable. Received func={func} of type {type(func)}.")
    is_list, out_dtypes = _tout(Tout)
    inputs = _inputs(inp)
    wrapped = _EagerFunc(func, out_dtypes)
    if ctx.graph is None:
        # Eagerly: run the function now. Active tapes record its ops, so gradients flow through it.
        try:
            outputs = wrapped.call(inputs)
        except Exception as exc:  # noqa: BLE001
            raise _op_error(exc, "EagerPyFunc") from exc
        return outputs if is_list else outputs[0]
    result = execute(_EAGER_PY_FUNC, tuple(inputs), {"func": wrapped, "Tout": out_dtypes, "token": wrapped.token,
                                                     "is_async": False}, name=name or "EagerPyFunc")
    if not out_dtypes:
        return result if is_list else None
    result = result if isinstance(result, list) else [result]
    return result if is_list else result[0]


eager_py_func = py_function


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):  # noqa: N803
    """``tf.numpy_function``: call ``func`` on NumPy arrays as an op; it returns NumPy values. No gradient."""
    decorator = _decorator_or_none(numpy_function, "tf.numpy_function", func, inp, Tout, stateful=stateful,
                                   name=name)
    if decorator is not None:
        return decorator
    if not callable(func):
        raise ValueError(f"Expected func to be callable. Received func={func} of type {type(func)}.")
    inputs = _inputs(inp)
    if ctx.graph is None:
        result = nest.flatten(func(*[np.array(x) for x in inputs]))
        result = [x if x is None else convert_to_tensor(x) for x in result]
        return result[0] if len(result) == 1 else result
    is_list, out_dtypes = _tout(Tout)
    token = f"pyfunc_{next(_tokens)}"
    result = execute(_PY_FUNC if stateful else _PY_FUNC_STATELESS, tuple(inputs),
                     {"func": func, "Tout": out_dtypes, "token": token}, name=name or "PyFunc")
    if not out_dtypes:
        return result if is_list else None
    result = result if isinstance(result, list) else [result]
    return result if is_list else result[0]

