"""Higher-order functions over the first dimension: ``tf.map_fn``, ``tf.scan``, ``tf.foldl``, ``tf.foldr``.

They are built exactly as TF builds them, from two pieces the course already has:

* a ``tf.while_loop`` over an index ``i`` (a Python loop eagerly; one
  ``While`` op in a graph, whatever the number of elements), and
* ``tf.TensorArray`` s: the inputs are *unstacked* into TensorArrays that the
  body ``read(i)`` s, and each result is ``write(i, ...)`` n into a
  TensorArray carried as a loop variable, then ``stack()`` ed::

      map_fn(fn, elems)  ==  elems_ta = TensorArray(...).unstack(elems)
                             out_ta = TensorArray(..., size=n)
                             i, out_ta = while_loop(lambda i, _: i < n,
                                                    lambda i, ta: (i + 1, ta.write(i, fn(elems_ta.read(i)))),
                                                    (0, out_ta))
                             out_ta.stack()

Gradients therefore need nothing new: the tape (eagerly) or the while loop's
gradient with the TensorList gradients (in a graph) differentiate them.

``elems`` may be a nest of tensors (all with the same first dimension); ``fn``
then receives the same nest of slices. ``parallel_iterations``,
``back_prop`` and ``swap_memory`` are accepted and ignored (the loop is
sequential). Deliberate differences from TF: ``tf.vectorized_map`` is
``map_fn`` (no pfor vectorization: same values, one ``fn`` call per element;
its output signature is found by tracing ``fn`` once on an element's spec);
a non-callable ``fn`` raises ``TypeError`` (TF 2.21 raises ``AttributeError``
while formatting its message); RaggedTensor/SparseTensor signatures are not
supported.
"""
from ..framework import dtypes
from ..framework.context import ctx
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..util import nest
from . import array_ops
from .control_flow_ops import while_loop
from .tensor_array_ops import TensorArray
from ..framework.func_graph import FuncGraph
from ..framework.registry import get_op

__all__ = ["map_fn", "scan", "foldl", "foldr", "vectorized_map"]


def _check_callable(fn):
    if not callable(fn):
        name = getattr(fn, "__name__", repr(fn))
        raise TypeError(f"The provided function {name} is not callable.fn must be callable.")


def _as_tensor(x):
    if hasattr(x, "_is_variable"):
        return x.read_value()
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


def _leading_dims(elems_flat):
    """The static first dimension (or None), and ``n``: that dimension, or ``tf.shape(e)[0]``."""
    first = elems_flat[0]
    if first.shape.rank is not None and first.shape.rank < 1:
        raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    n_static = first.shape[0] if first.shape.rank else None
    for e in elems_flat[1:]:
        if e.shape.rank == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
        d = e.shape[0] if e.shape.rank else None
        if n_static is not None and d is not None and d != n_static:
            raise ValueError(f"Dimensions {n_static} and {d} are not compatible")
        n_static = n_static if n_static is not None else d
    n = n_static if n_static is not None else array_ops.shape(first)[0]
    return n_static, n


def _unstacked(elems_flat, n, with_shape=False):
    return [TensorArray(e.dtype, size=n, dynamic_size=False, infer_shape=True,
                        element_shape=e.shape[1:] if with_shape and e.shape.rank else None).unstack(e)
            for e in elems_flat]


def _set_leading(results, n_static):
    for r in results:
        if isinstance(r, Tensor) and ctx.graph is not None and r.shape.rank is not None:
            r.set_shape(TensorShape([n_static]).concatenate(r.shape[1:]))
    return results


def _spec_of(d):
    """An ``fn_output_signature`` leaf (a DType or a TensorSpec) as a TensorSpec."""
    if isinstance(d, TensorSpec):
        return d
    return TensorSpec(None, dtypes.as_dtype(d))


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """``tf.map_fn``: ``stack([fn(elems[0]), fn(elems[1]), ...])``.

    ``fn_output_signature`` (a dtype, a ``tf.TensorSpec``, or a nest of them)
    describes ``fn``'s result when it differs from the structure/dtypes of
    ``elems``; without it, ``fn`` must return what ``elems`` holds.
    """
    if fn_output_signature is None:
        fn_output_signature = dtype
    _check_callable(fn)
    elems_flat = nest.flatten(elems)
    if not elems_flat:
        raise ValueError(f"elems must be a Tensor or (possibly nested) sequence of Tensors. Got {elems}, which does "
                         f"not contain any Tensors.")
    elems_flat = [_as_tensor(e) for e in elems_flat]
    if fn_output_signature is None:
        result_specs = [TensorSpec(None, e.dtype) for e in elems_flat]
        structure = elems
    else:
        result_specs = [_spec_of(d) for d in nest.flatten(fn_output_signature)]
        structure = fn_output_signature
    n_static, n = _leading_dims(elems_flat)
    elems_ta = _unstacked(elems_flat, n)
    accs = [TensorArray(s.dtype, size=n, dynamic_size=False, infer_shape=infer_shape, element_shape=s.shape)
            for s in result_specs]

    def compute(i, tas):
        value = nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_ta])
        result = fn(value)
        nest.assert_same_structure(structure, result)
        flat = nest.flatten(result)
        return i + 1, [ta.write(i, v) for ta, v in zip(tas, flat)]

    _, accs = while_loop(lambda i, _: i < n, compute, (0, accs), maximum_iterations=n)
    results = _set_leading([ta.stack() for ta in accs], n_static)
    return nest.pack_sequence_as(structure, results)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
         infer_shape=True, reverse=False, name=None):
    """``tf.scan``: the running ``a = fn(a, x)`` over ``elems``, every intermediate ``a`` stacked.

    Without ``initializer`` the first element starts the accumulation (and is
    the first output); with ``reverse=True`` the scan runs from the end.
    """
    _check_callable(fn)
    input_nested = nest.is_nested(elems)
    elems_flat = [_as_tensor(e) for e in (nest.flatten(elems) if input_nested else [elems])]

    def input_pack(flat):
        return nest.pack_sequence_as(elems, flat) if input_nested else flat[0]

    template = elems if initializer is None else initializer
    output_nested = nest.is_nested(template)

    def output_pack(flat):
        return nest.pack_sequence_as(template, flat) if output_nested else flat[0]

    def output_flatten(x):
        return nest.flatten(x) if output_nested else [x]

    n_static, n = _leading_dims(elems_flat)
    elems_ta = _unstacked(elems_flat, n, with_shape=True)
    last = n - 1
    if initializer is None:
        a_flat = [ta.read(last if reverse else 0) for ta in elems_ta]
        start = 1
    else:
        a_flat = [_as_tensor(v) for v in output_flatten(initializer)]
        start = 0
    accs = [TensorArray(a.dtype, size=n, dynamic_size=False, infer_shape=infer_shape,
                        element_shape=a.shape if infer_shape else None) for a in a_flat]
    if initializer is None:
        accs = [ta.write(last if reverse else 0, a) for ta, a in zip(accs, a_flat)]

    def compute(i, a_flat, tas):
        a_out = fn(output_pack(a_flat), input_pack([ta.read(i) for ta in elems_ta]))
        nest.assert_same_structure(template, a_out)
        flat = output_flatten(a_out)
        tas = [ta.write(i, v) for ta, v in zip(tas, flat)]
        return (i - 1 if reverse else i + 1), flat, tas

    if reverse:
        initial_i = n - 1 - start

        def condition(i, _1, _2):
            return i >= 0
    else:
        initial_i = start

        def condition(i, _1, _2):
            return i < n
    _, _, accs = while_loop(condition, compute, (initial_i, a_flat, accs), maximum_iterations=n)
    return output_pack(_set_leading([ta.stack() for ta in accs], n_static))


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``tf.foldl``: ``fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1])``.

    Without ``initializer``, ``elems[0]`` is the initial accumulator.
    """
    _check_callable(fn)
    elems_flat = [_as_tensor(e) for e in nest.flatten(elems)]
    _, n = _leading_dims(elems_flat)
    elems_ta = _unstacked(elems_flat, n)
    if initializer is None:
        a = nest.pack_sequence_as(elems, [ta.read(0) for ta in elems_ta])
        i = 1
    else:
        a = initializer
        i = 0

    def compute(i, a):
        elem = nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_ta])
        return [i + 1, fn(a, elem)]

    _, a = while_loop(lambda i, a: i < n, compute, [i, a], maximum_iterations=n)
    return a


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``tf.foldr``: ``fn(...fn(fn(initializer, elems[n-1]), elems[n-2])..., elems[0])``.

    Without ``initializer``, ``elems[n-1]`` is the initial accumulator.
    """
    _check_callable(fn)
    elems_flat = [_as_tensor(e) for e in nest.flatten(elems)]
    _, n = _leading_dims(elems_flat)
    elems_ta = _unstacked(elems_flat, n)
    if initializer is None:
        i = n - 1
        a = nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_ta])
    else:
        i = n
        a = initializer

    def compute(i, a):
        i -= 1
        elem = nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_ta])
        return [i, fn(a, elem)]

    _, a = while_loop(lambda i, a: i > 0, compute, [i, a], maximum_iterations=n)
    return a


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``tf.vectorized_map``, implemented as ``map_fn`` (a deliberate difference: TF vectorizes with pfor).

    The values are the same; ``fn`` runs once per element. Its output
    signature (which may differ from ``elems``) is found by tracing ``fn``
    once on symbolic slices of ``elems``, so Python side effects of ``fn``
    happen one extra time.
    """
    _check_callable(fn)
    elems_flat = [_as_tensor(e) for e in nest.flatten(elems)]
    signature = _trace_output_signature(fn, elems, elems_flat)
    return map_fn(fn, nest.pack_sequence_as(elems, elems_flat), fn_output_signature=signature)


def _trace_output_signature(fn, elems, elems_flat):
    probe = FuncGraph("vectorized_map_probe")
    with probe.as_default():
        slices = [probe.create_op_from_def(get_op("Placeholder"), [],
                                           {"dtype": e.dtype, "shape": e.shape[1:] if e.shape.rank else
                                            TensorShape(None)}, name="elem") for e in elems_flat]
        result = fn(nest.pack_sequence_as(elems, slices))
        return nest.map_structure(lambda t: TensorSpec(_as_tensor(t).shape, _as_tensor(t).dtype), result)

