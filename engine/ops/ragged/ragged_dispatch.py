"""How ``tf.*`` functions accept RaggedTensors (TF: ``ragged_dispatch.py``, ``ragged_operators.py``).

Two doors, both outside the dense fast path:

* **Elementwise ops** (``tf.add``, ``tf.math.square``, ``+``, ``<``, ...): the one door for
  elementwise ops (``ops/_dispatch.py``'s ``binary_op`` / ``unary_op``) hands any call
  whose operand is a ``CompositeTensor`` to the handler registered for its class, *after*
  its dense fast path: ``a + b`` on two tensors pays nothing. For RaggedTensors the handler
  (:func:`ragged_elementwise`) runs the op on ``flat_values`` and keeps the row partition.
  Two RaggedTensors must have the same row partition (TF's InvalidArgumentError
  "Condition x == y did not hold." otherwise); a dense operand broadcasts against the
  ragged one as in TF (``[[1000], [2000], [3000]]`` adds one number per row).
* **Other APIs** (``tf.concat``, ``tf.reduce_sum``, ``tf.gather``, ...): :func:`dispatch_for_api`
  registers a ragged implementation for a public function; the function then runs it when
  one of the named arguments is a RaggedTensor, and its dense self otherwise (one type
  check). ``engine/__init__`` imports this module before it exports the ``tf.*`` names.

Another module (``tf.strings``) registers its own ops with the same hooks::

    ragged_dispatch.register_elementwise_api(string_ops, "substr", "input")   # map over flat_values
    ragged_dispatch.dispatch_for_api(string_ops, "split", "input")(ragged_split)
"""
import functools


from ...framework import dtypes
from ...framework.errors import InvalidArgumentError
from ...framework.tensor import EagerTensor, Tensor
from .. import _dispatch, array_ops, functional_ops, math_ops, nn_ops, reduction_ops
from . import dynamic_ragged_shape, ragged_array_ops, ragged_gather_ops, ragged_math_ops
from .dynamic_ragged_shape import DynamicRaggedShape
from .ragged_tensor import RaggedTensor
from .row_partition import assert_equal_error, graph_check

__all__ = ["dispatch_for_api", "install_operators", "ragged_binary", "ragged_elementwise", "register_elementwise_api"]


# --------------------------------------------------------------------------------------
# Elementwise: run the op on flat_values
# --------------------------------------------------------------------------------------
def _check_same_splits(x, y):
    """Equal row partitions at every level, or TF's ``assert_equal`` error for the first that differs
    (eagerly; inside a graph, an ``Assert`` node)."""
    if x.ragged_rank != y.ragged_rank:
        raise NotImplementedError("elementwise op on RaggedTensors of different ragged_rank")
    for a, b in zip(x.nested_row_splits, y.nested_row_splits):
        if type(a) is EagerTensor and type(b) is EagerTensor:
            error = assert_equal_error(a.numpy(), b.numpy())
            if error is not None:
                raise error
        elif a.shape.is_compatible_with(b.shape):
            graph_check(math_ops.equal(a, math_ops.cast(b, a.dtype)), "Inputs must have identical ragged splits")


def _dense_for(value, like):
    """A non-ragged operand as a tensor; a Python value adopts ``like``'s dtype (as for dense ops)."""
    if isinstance(value, Tensor):
        return value
    return _dispatch._adopt(value, like)


def _broadcast_binary(fn, rt, dense, ragged_first):
    """``fn(rt, dense)`` (or ``fn(dense, rt)``): ``dense`` broadcast against a RaggedTensor."""
    values_rank = rt.flat_values.shape.rank
    rank = dense.shape.rank
    if rank is None:
        raise ValueError("Unable to broadcast: dense operand has unknown rank")
    if rank < values_rank:   # lines up with flat_values' inner dimensions only
        return rt.with_flat_values(fn(rt.flat_values, dense) if ragged_first else fn(dense, rt.flat_values))
    full = rt.shape.rank
    while rank < full:
        dense = array_ops.expand_dims(dense, 0)
        rank += 1
    return _broadcast_level(fn, rt, dense, ragged_first)


def _broadcast_level(fn, rt, dense, ragged_first):
    """One partition level: ``dense`` (same rank as ``rt``) spread over ``rt``'s values."""
    d0, d1 = dense.shape[0], dense.shape[1]
    nrows = rt.shape[0]
    if d0 is not None and d0 != 1 and nrows is not None and d0 != nrows:
        raise _broadcast_error(rt, dense)
    if d1 != 1:   # a dense dimension against a ragged one: every row must have that length (TF checks splits)
        if d0 == 1:
            dense = array_ops.tile(dense, array_ops.stack([rt.nrows(out_type=dtypes.int32)] +
                                                          [1] * (dense.shape.rank - 1)))
        width = array_ops.shape(dense, out_type=rt.row_splits_dtype)[1]
        expected = array_ops.range(rt.nrows() + 1) * width   # the dense operand's row splits
        splits = rt.row_splits
        if type(splits) is EagerTensor and type(expected) is EagerTensor:
            error = assert_equal_error(expected.numpy(), splits.numpy())
            if error is not None:
                raise error
        else:
            graph_check(math_ops.equal(expected, splits), "Unable to broadcast: dimension size mismatch")
        shape = array_ops.shape(dense)
        per_value = array_ops.reshape(dense, array_ops.concat([[-1], shape[2:]], 0))
    elif d0 == 1:
        per_value = array_ops.squeeze(dense, [0])
    else:
        per_value = array_ops.gather(array_ops.squeeze(dense, [1]), rt.value_rowids())
    values = rt.values
    if isinstance(values, RaggedTensor):
        return rt.with_values(_broadcast_level(fn, values, per_value, ragged_first))
    return rt.with_values(fn(values, per_value) if ragged_first else fn(per_value, values))


def _broadcast_error(rt, dense):
    return InvalidArgumentError(None, None, "Condition x == y did not hold.\n"
                                            f"Unable to broadcast: dimension size mismatch in dimension 1 "
                                            f"(RaggedTensor of shape {rt.shape} and Tensor of shape {dense.shape})")


def ragged_elementwise(op_type, inputs, name=None):
    """The elementwise door's handler for RaggedTensor operands (see the module docstring)."""
    if len(inputs) == 1:
        (rt,) = inputs
        return rt.with_flat_values(_dispatch.unary_op(op_type, rt.flat_values, name))

    def fn(a, b):
        return _dispatch.binary_op(op_type, a, b, name)
    return ragged_binary(fn, *inputs)


def ragged_binary(fn, x, y):
    """``fn(x, y)`` (a dense binary function) where ``x`` or ``y`` is a RaggedTensor: on ``flat_values``,
    with the row partitions checked equal or the dense operand broadcast."""
    if isinstance(x, RaggedTensor) and isinstance(y, RaggedTensor):
        if x.ragged_rank == y.ragged_rank:
            _check_same_splits(x, y)
            return x.with_flat_values(fn(x.flat_values, y.flat_values))
        raise NotImplementedError("elementwise op on RaggedTensors of different ragged_rank")
    if isinstance(x, RaggedTensor):
        return _broadcast_binary(fn, x, _dense_for(y, x.flat_values), True)
    return _broadcast_binary(fn, y, _dense_for(x, y.flat_values), False)


_dispatch.register_composite_elementwise(RaggedTensor, ragged_elementwise)


# --------------------------------------------------------------------------------------
# Other APIs: a ragged implementation per public function
# --------------------------------------------------------------------------------------
def _picker(arg_name, position, is_list, kind):
    """A fast ``has a RaggedTensor (a ``kind``) in argument arg_name`` test for one API."""
    if is_list:
        def check(args, kwargs):
            v = args[position] if len(args) > position else kwargs.get(arg_name)
            return isinstance(v, (list, tuple)) and any(type(e) is kind for e in v)
    else:
        def check(args, kwargs):
            v = args[position] if len(args) > position else kwargs.get(arg_name)
            return type(v) is kind
    return check


def dispatch_for_api(module, name, *arg_names, list_arg=False, kind=RaggedTensor):
    """Decorator: ``impl`` is ``module.name`` for calls with a RaggedTensor in one of ``arg_names``.

    ``module.name`` is replaced by a function that checks those arguments and calls ``impl`` or the
    original (``__wrapped__``). Register before the ``tf.*`` namespaces copy the name. ``list_arg``:
    the argument is a list of values (``tf.concat``'s ``values``). ``kind``: the class that selects
    ``impl`` (``RaggedTensor``; ``DynamicRaggedShape`` for ``tf.zeros(shape)``).
    """
    original = getattr(module, name)
    params = list(original.__code__.co_varnames[:original.__code__.co_argcount])
    checks = [_picker(a, params.index(a), list_arg, kind) for a in (arg_names or params[:1])]

    names = arg_names or params[:1]

    def decorator(impl):
        if len(names) == 1 and not list_arg:   # the common case, inlined: one type check per call
            position, arg_name = params.index(names[0]), names[0]

            def api(*args, **kwargs):
                v = args[position] if len(args) > position else kwargs.get(arg_name)
                if type(v) is kind:
                    return impl(*args, **kwargs)
                return original(*args, **kwargs)
        else:
            def api(*args, **kwargs):
                for check in checks:
                    if check(args, kwargs):
                        return impl(*args, **kwargs)
                return original(*args, **kwargs)
        functools.update_wrapper(api, original)
        api._ragged_impl = impl
        setattr(module, name, api)
        return impl
    return decorator


def register_elementwise_api(module, name, arg_name=None):
    """Make ``module.name`` map over ``flat_values`` when its argument ``arg_name`` (default: the
    first) is a RaggedTensor: ``tf.strings.substr(ragged_words, 0, 2)`` keeps the rows."""
    original = getattr(module, name)
    params = list(original.__code__.co_varnames[:original.__code__.co_argcount])
    arg_name = arg_name or params[0]
    position = params.index(arg_name)

    def impl(*args, **kwargs):
        args = list(args)
        if len(args) > position:
            rt = args[position]
            args[position] = rt.flat_values
        else:
            rt = kwargs[arg_name]
            kwargs[arg_name] = rt.flat_values
        return rt.with_flat_values(original(*args, **kwargs))
    return dispatch_for_api(module, name, arg_name)(impl)


def _install_reduction(kind):
    """``tf.reduce_<kind>``: the ragged reduction for a RaggedTensor. (Written out with the API's own
    parameters instead of ``*args``: the dense call, common in losses, pays one type check only.)"""
    original = getattr(reduction_ops, f"reduce_{kind}")

    def impl(input_tensor, axis=None, keepdims=False, name=None):
        return ragged_math_ops.ragged_reduce(kind, input_tensor, axis, keepdims)

    def api(input_tensor, axis=None, keepdims=False, name=None):
        if type(input_tensor) is RaggedTensor:
            return impl(input_tensor, axis, keepdims, name)
        return original(input_tensor, axis, keepdims, name)
    functools.update_wrapper(api, original)
    api._ragged_impl = impl
    setattr(reduction_ops, f"reduce_{kind}", api)


for _kind in ("sum", "mean", "max", "min", "prod", "any", "all"):
    _install_reduction(_kind)


@dispatch_for_api(array_ops, "concat", "values", list_arg=True)
def _concat(values, axis, name=None):
    return ragged_array_ops.concat(values, axis)


@dispatch_for_api(array_ops, "stack", "values", list_arg=True)
def _stack(values, axis=0, name="stack"):
    return ragged_array_ops.stack(values, axis)


@dispatch_for_api(array_ops, "tile", "input")
def _tile(input, multiples, name=None):
    return ragged_array_ops.tile(input, multiples)


@dispatch_for_api(array_ops, "gather", "params", "indices")
def _gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    if not isinstance(params, RaggedTensor):   # dense params, ragged indices: the indices' rows
        return indices.with_flat_values(array_ops.gather(params, indices.flat_values, axis=axis))
    return ragged_gather_ops.gather(params, indices, axis=axis, batch_dims=batch_dims)


@dispatch_for_api(array_ops, "where", "condition", "x", "y")
def _where(condition, x=None, y=None, name=None):
    return ragged_array_ops.where(condition, x, y)


@dispatch_for_api(array_ops, "reverse", "tensor")
def _reverse(tensor, axis, name=None):
    return ragged_array_ops.reverse(tensor, axis)


@dispatch_for_api(array_ops, "shape", "input")
def _shape(input, out_type=dtypes.int32, name=None):  # noqa: A002
    return DynamicRaggedShape.from_tensor(input, dtype=out_type)


@dispatch_for_api(array_ops, "rank", "input")
def _rank(input, name=None):  # noqa: A002
    return array_ops.rank(input.flat_values) + input.ragged_rank


dispatch_for_api(array_ops, "zeros", "shape", kind=DynamicRaggedShape)(dynamic_ragged_shape.zeros)
dispatch_for_api(array_ops, "ones", "shape", kind=DynamicRaggedShape)(dynamic_ragged_shape.ones)
dispatch_for_api(array_ops, "fill", "dims", kind=DynamicRaggedShape)(dynamic_ragged_shape.fill)
dispatch_for_api(array_ops, "reshape", "shape", kind=DynamicRaggedShape)(dynamic_ragged_shape.reshape)


@dispatch_for_api(array_ops, "size", "input")
def _size(input, out_type=None, name=None):
    size = array_ops.size(input.flat_values)
    return size if out_type is None else math_ops.cast(size, out_type)


@dispatch_for_api(array_ops, "boolean_mask", "tensor")
def _boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    return ragged_array_ops.boolean_mask(tensor, mask)


@dispatch_for_api(nn_ops, "embedding_lookup", "ids")
def _embedding_lookup(params, ids, max_norm=None, name=None):
    return ids.with_flat_values(nn_ops.embedding_lookup(params, ids.flat_values, max_norm=max_norm))


@dispatch_for_api(math_ops, "truediv", "x", "y")
def _truediv(x, y, name=None):
    return ragged_binary(math_ops.truediv, x, y)


@dispatch_for_api(math_ops, "cast", "x")
def _cast(x, dtype, name=None):
    return x.with_flat_values(math_ops.cast(x.flat_values, dtype))


@dispatch_for_api(functional_ops, "map_fn", "elems")
def _map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
            infer_shape=True, name=None, fn_output_signature=None):
    return ragged_array_ops.map_fn(fn, elems, dtype=dtype, fn_output_signature=fn_output_signature)


# --------------------------------------------------------------------------------------
# Operators
# --------------------------------------------------------------------------------------
def install_operators(cls):
    """``+``, ``-``, ``*``, ``/``, ``//``, ``%``, ``**``, comparisons, ``&``, ``|``, ``~``, ``-x``, ``abs``:
    each the elementwise op of the same name (TF's ``ragged_operators.py``)."""
    binary = {"add": math_ops.add, "sub": math_ops.subtract, "mul": math_ops.multiply,
              "truediv": math_ops.truediv, "floordiv": math_ops.floordiv, "mod": math_ops.floormod,
              "pow": math_ops.pow, "and": math_ops.logical_and, "or": math_ops.logical_or,
              "xor": math_ops.logical_xor}
    for op_name, fn in binary.items():
        setattr(cls, f"__{op_name}__", _forward(fn))
        setattr(cls, f"__r{op_name}__", _reflected(fn))
    for op_name, fn in {"lt": math_ops.less, "le": math_ops.less_equal, "gt": math_ops.greater,
                        "ge": math_ops.greater_equal, "eq": math_ops.equal, "ne": math_ops.not_equal}.items():
        setattr(cls, f"__{op_name}__", _forward(fn))
    cls.__eq__ = lambda x, y: False if y is None else math_ops.equal(x, y)      # (as tf.Tensor's ``==``)
    cls.__ne__ = lambda x, y: True if y is None else math_ops.not_equal(x, y)
    cls.__neg__ = lambda x: math_ops.negative(x)
    cls.__abs__ = lambda x: math_ops.abs(x)
    cls.__invert__ = lambda x: math_ops.logical_not(x)
    cls.__pos__ = lambda x: x
    cls.__hash__ = None


def _forward(fn):
    def method(x, y):
        return fn(x, y)
    method.__name__ = fn.__name__
    return method


def _reflected(fn):
    def method(y, x):
        return fn(x, y)
    method.__name__ = f"r{fn.__name__}"
    return method


install_operators(RaggedTensor)
