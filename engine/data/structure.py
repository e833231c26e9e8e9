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
from ..framework.tensor_spec import TensorSpec
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
    """The spec nest of a nest of tensors."""
    return nest.map_structure(lambda t: TensorSpec(t.shape, t.dtype), structure)


def flat_specs(spec):
    return tuple(nest.flatten(spec))


def pack(spec, components):
    """Rebuild the element nest from its flat components (a single leaf stays bare)."""
    if not nest.is_nested(spec):
        return components[0]
    return nest.pack_sequence_as(spec, list(components))


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
    components = [bytes(c) if isinstance(c, np.bytes_) else c for c in components]
    return components[0] if len(components) == 1 and not nest.is_nested(spec) else pack(spec, components)


# --------------------------------------------------------------------------------------
# Batching
# --------------------------------------------------------------------------------------
def batched_spec(spec, batch_size):
    """Every leaf gains a leading dimension: ``batch_size`` (drop_remainder) or ``None``."""
    return nest.map_structure(lambda s: TensorSpec(TensorShape([batch_size]).concatenate(s.shape), s.dtype), spec)


def unbatched_spec(spec):
    def drop(s):
        if s.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        return TensorSpec(s.shape[1:] if s.shape.rank is not None else TensorShape(None), s.dtype)
    return nest.map_structure(drop, spec)


def _fmt(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def batch_components(elements):
    """Stack a list of elements (tuples of components) into one batched element.

    Every element must have the same shape in each component, as TF's ``batch``
    requires (``padded_batch`` is for ragged data).
    """
    out = []
    for i in range(len(elements[0])):
        column = [e[i] for e in elements]
        try:
            out.append(np.stack(column))
        except ValueError:
            shape0 = np.shape(column[0])
            j = next(j for j, value in enumerate(column) if np.shape(value) != shape0)
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
