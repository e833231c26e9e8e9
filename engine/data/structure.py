"""Element structures: how a dataset element is described, stored and handed out.

An *element* of a dataset is a nest of tensors: a single tensor, a tuple, a
dict, or any nesting of those (``({"a": x, "b": y}, label)``). Three views of
one element appear in ``engine.data``:

* its **spec** (``dataset.element_spec``): the same nest with every tensor
  replaced by a :class:`~engine.TensorSpec` (dtype and static shape, maybe with
  ``None`` dimensions);
* its **components**: the leaves in ``nest.flatten`` order, as a plain tuple of
  host NumPy values. This is what flows *inside* a pipeline: every internal
  iterator returns a tuple of components, so transformations never pay for
  building tensors or walking nests;
* the **tensors** the user receives: the components wrapped as eager tensors
  on the host CPU and packed back into the nest (:func:`to_tensors`).

Rank-0 components are NumPy scalars (``np.int64(3)``), never 0-d arrays: that
is the engine's convention for rank-0 tensor values.

As in TF, a Python *list* is not a structure here: ``from_tensor_slices([1, 2])``
is one int32 tensor, not two components. Tuples, dicts and namedtuples are
structures.

A ``tf.RaggedTensor`` leaf has a ``tf.RaggedTensorSpec`` in the spec and is carried as its
component tensors (``flat_values`` and the row splits, ``expand_composites`` order), as in TF.
A ``RaggedTensorSpec`` with ``ragged_rank=0`` describes a plain tensor that batches raggedly:
``from_tensor_slices(ragged)`` yields such rows, ``batch`` stacks them into a RaggedTensor
(:func:`batch_components`), ``unbatch`` and ``ragged_batch`` go the other way and back.
"""
import collections.abc
import contextlib

import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.device import manager as device_manager
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import EagerTensor, Tensor, convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..framework.composite_tensor import CompositeTensor
from ..framework.tensor_spec import TensorSpec
from ..framework.type_spec import TypeSpec
from ..ops.ragged import ragged_array_ops
from ..ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
from ..util import nest

__all__ = ["normalize_element", "to_tensor_nest", "spec_of", "flat_specs", "pack", "to_tensors", "to_numpy",
           "host_value", "host_device", "host_scope", "batch_components", "batched_spec", "unbatched_spec",
           "as_int64"]


def normalize_element(value, what="element"):
    """Convert every leaf of ``value`` to an eager tensor (lists become tensors, as in TF).

    Returns the same nest with tensors at the leaves. Symbolic tensors (built
    inside a ``tf.function`` trace) are refused: a dataset's sources are host
    data, and the engine runs pipelines outside graphs (see ``graph_ops``).
    """
    if value is None:
        raise ValueError(f"Invalid `{what}`. `{what}` should not be empty.")

    def convert(leaf):
        if isinstance(leaf, Tensor) and not isinstance(leaf, EagerTensor):
            raise TypeError(
                f"tf.data in the engine builds datasets from host values, but got the symbolic tensor {leaf!r} "
                f"(this dataset is being created inside a tf.function from a traced value). Build the dataset "
                f"outside the function from eager tensors or NumPy arrays, or pass the values through `map`.")
        if hasattr(leaf, "_is_variable"):
            leaf = leaf._read()
        if isinstance(leaf, CompositeTensor):
            return leaf
        return convert_to_tensor(leaf)
    with host_scope():
        return _map(convert, value)


def to_tensor_nest(value):
    """Every leaf of ``value`` as a tensor (eager or symbolic); lists become tensors."""
    return _map(lambda leaf: convert_to_tensor(leaf._read() if hasattr(leaf, "_is_variable") else leaf), value)


def _map(fn, value):
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*[_map(fn, v) for v in value])
    if isinstance(value, tuple):
        return tuple(_map(fn, v) for v in value)
    if isinstance(value, collections.abc.Mapping):
        return type(value)((k, _map(fn, value[k])) for k in value)
    return fn(value)


def spec_of(structure):
    """The spec nest of a nest of tensors (a RaggedTensor leaf: its RaggedTensorSpec)."""
    return nest.map_structure(lambda t: t._type_spec if isinstance(t, CompositeTensor) else TensorSpec(t.shape, t.dtype),
                              structure)


def flat_specs(spec):
    """The ``TensorSpec`` of every component (composite leaves expanded)."""
    return tuple(nest.flatten(spec, expand_composites=True))


def has_composites(spec):
    return any(isinstance(s, TypeSpec) and not isinstance(s, TensorSpec) for s in nest.flatten(spec))


def pack(spec, components):
    """Rebuild the element nest from its flat components (a single leaf stays bare)."""
    if isinstance(spec, TypeSpec) and not isinstance(spec, TensorSpec):
        return spec._from_tensor_list(list(components))
    if not nest.is_nested(spec):
        return components[0]
    return nest.pack_sequence_as(spec, list(components), expand_composites=True)


def host_value(array):
    """A host NumPy value in the engine's convention (rank 0: a NumPy scalar)."""
    if isinstance(array, np.ndarray):
        return array[()] if array.ndim == 0 else array
    if isinstance(array, np.generic):
        return array
    return np.asarray(array)[()] if np.ndim(array) == 0 else np.asarray(array)


@contextlib.contextmanager
def host_scope():
    """Run pipeline code eagerly, on the host CPU, invisible to gradient tapes.

    Datasets may be built (and their functions traced) while a ``tf.function``
    is being traced or under a ``GradientTape``; neither may see that work (TF
    does it in its C++ runtime, outside both).
    """
    saved = ctx.graph, ctx.tapes, ctx.device, ctx.name_scope
    ctx.graph, ctx.tapes, ctx.device, ctx.name_scope = None, [], host_device(), ""
    try:
        yield
    finally:
        ctx.graph, ctx.tapes, ctx.device, ctx.name_scope = saved


def host_device():
    """The host CPU device: dataset elements live there, as in TF (``/device:CPU:0``)."""
    return device_manager.lookup("CPU", 0)


def to_tensors(spec, components):
    """Components -> the element the user sees: eager tensors on the host CPU, packed as ``spec``."""
    device = host_device()
    tensors = [c if _is_dataset(c) else EagerTensor(c, device) for c in components]   # window: datasets
    return tensors[0] if len(tensors) == 1 and not nest.is_nested(spec) else pack(spec, tensors)


def _is_dataset(value):
    return hasattr(value, "_make_iterator")


def to_numpy(spec, components):
    """Components -> the element ``as_numpy_iterator`` yields (NumPy values, packed as ``spec``).

    A string scalar comes out as Python ``bytes``, as TF returns it.
    """
    if has_composites(spec):   # a RaggedTensor leaf: its ``numpy()`` (rows of different lengths: an object array)
        element = to_tensors(spec, components)
        return nest.map_structure(lambda v: v.numpy() if isinstance(v, RaggedTensor) else _numpy_leaf(v.numpy()),
                                  element)
    components = [bytes(c) if isinstance(c, np.bytes_) else c for c in components]
    return components[0] if len(components) == 1 and not nest.is_nested(spec) else pack(spec, components)


def _numpy_leaf(value):
    return bytes(value) if isinstance(value, np.bytes_) else value


# --------------------------------------------------------------------------------------
# Batching
# --------------------------------------------------------------------------------------
def batched_spec(spec, batch_size):
    """Every leaf gains a leading dimension: ``batch_size`` (drop_remainder) or ``None``. A RaggedTensorSpec
    leaf also gains a ragged rank (its elements may differ in length)."""
    def add(s):
        shape = TensorShape([batch_size]).concatenate(s.shape)
        if isinstance(s, RaggedTensorSpec):
            return RaggedTensorSpec(shape, s.dtype, s.ragged_rank + 1, s.row_splits_dtype)
        return TensorSpec(shape, s.dtype)
    return nest.map_structure(add, spec)


def unbatched_spec(spec):
    def drop(s):
        if s.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        shape = s.shape[1:] if s.shape.rank is not None else TensorShape(None)
        if isinstance(s, RaggedTensorSpec):   # (ragged rank 0 unbatched: -1, as TF; still one plain tensor)
            return RaggedTensorSpec(shape, s.dtype, s.ragged_rank - 1, s.row_splits_dtype)
        return TensorSpec(shape, s.dtype)
    return nest.map_structure(drop, spec)


def ragged_spec(spec, row_splits_dtype=dtypes.int64):
    """``ragged_batch``'s view of a dense spec: each leaf of rank >= 1 a ``RaggedTensorSpec`` of ragged
    rank 0 (the same single component), so that ``batch`` stacks those leaves raggedly."""
    def convert(s):
        if isinstance(s, TensorSpec) and s.shape.rank != 0:
            return RaggedTensorSpec(s.shape, s.dtype, 0, row_splits_dtype)
        return s
    return nest.map_structure(convert, spec)


def _leaf_groups(spec):
    """``(leaf spec, number of components)`` per leaf of ``spec``, in component order."""
    return [(s, len(flat_specs(s)) if isinstance(s, TypeSpec) and not isinstance(s, TensorSpec) else 1)
            for s in nest.flatten(spec)]


def _host_components(value):
    """A leaf value's components as host values (a RaggedTensor: flat_values, then the row splits)."""
    return [host_value(t.numpy()) for t in nest.flatten(value, expand_composites=True)]


def _leaf_value(leaf_spec, components):
    device = host_device()
    return leaf_spec._from_tensor_list([EagerTensor(c, device) for c in components])


def batch_ragged_components(elements, spec):
    """:func:`batch_components` for a spec with RaggedTensorSpec leaves: those are rebuilt and stacked
    with ``tf.ragged.stack`` (rows of different lengths), the others stacked as usual."""
    out, start = [], 0
    with host_scope():
        for leaf_spec, n in _leaf_groups(spec):
            columns = [e[start:start + n] for e in elements]
            if isinstance(leaf_spec, RaggedTensorSpec):
                values = [_leaf_value(leaf_spec, c) for c in columns]
                out.extend(_host_components(ragged_array_ops.stack(values)))
            else:
                out.extend(batch_components([c for c in columns]))
            start += n
    return tuple(out)


def unbatch_ragged_components(element, spec):
    """The rows of one batched element whose spec has RaggedTensorSpec leaves: a list of elements."""
    leaves, start, size = [], 0, None
    with host_scope():
        for leaf_spec, n in _leaf_groups(spec):
            part = element[start:start + n]
            start += n
            if isinstance(leaf_spec, RaggedTensorSpec):
                value = _leaf_value(leaf_spec, part)
                n = int(value.nrows().numpy()) if isinstance(value, RaggedTensor) else int(value.shape[0])
                rows = [_host_components(value[i]) for i in range(n)]
            else:
                rows = [[part[0][i]] for i in range(np.shape(part[0])[0])]
            if size is not None and len(rows) != size:
                raise InvalidArgumentError(
                    None, None, f"Input element must have the same batch size in each component. Component 0 "
                                f"had size {size} but component {len(leaves)} had size {len(rows)}.")
            size = len(rows)
            leaves.append(rows)
    return [tuple(c for leaf in leaves for c in leaf[i]) for i in range(size or 0)]


def _fmt(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def batch_components(elements, fused=False):
    """Stack a list of elements (tuples of components) into one batched element.

    Every element must have the same shape in each component, as TF's ``batch``
    requires (``padded_batch`` and ``ragged_batch`` are for ragged data). ``fused``: the
    batch directly follows a ``map``, which TF's optimizer fuses (``MapAndBatchDataset``),
    and whose error for elements of different sizes is another one (TF's, recorded).
    """
    out = []
    for i in range(len(elements[0])):
        column = [e[i] for e in elements]
        try:
            out.append(np.stack(column))
        except ValueError:
            shape0 = np.shape(column[0])
            j = next(j for j, value in enumerate(column) if np.shape(value) != shape0)
            if fused and np.size(column[j]) != np.size(column[0]):
                raise InvalidArgumentError(
                    None, None, f"Cannot add tensor to the batch: number of elements does not match. Shapes are: "
                                f"[tensor]: {_fmt(np.shape(column[j]))}, [batch]: {_fmt(shape0)}") from None
            raise InvalidArgumentError(
                None, None, f"Cannot batch tensors with different shapes in component {i}. First element had "
                            f"shape {_fmt(shape0)} and element {j} had shape {_fmt(np.shape(column[j]))}.") from None
    return tuple(out)


def as_int64(value, name):
    """A scalar argument such as ``count`` or ``batch_size``, converted as TF does (int64)."""
    if isinstance(value, Tensor):
        if not isinstance(value, EagerTensor):
            raise TypeError(f"`{name}` must be known when the dataset is built, got the symbolic tensor {value!r}.")
        return int(value.numpy())
    with host_scope():
        return int(convert_to_tensor(value, dtype=dtypes.int64).numpy())
