"""Source datasets: where elements come from (``from_tensor_slices``, ``from_tensors``, ``range``,
``from_generator``).

A source holds host NumPy arrays (copied once, when the dataset is built, and
made read-only) and its iterator hands out rows of them. Slicing a row of a
NumPy array is a view, so producing an element costs no copy.

Sources also offer a **batch fast path**: their iterators implement
``next_batch(n)``, which returns ``n`` rows at once as one slice per component
(``x[i:i + n]``) instead of ``n`` separate rows that ``batch`` would then
stack. ``_BatchDataset`` uses it when its input iterator has it; the values are
the same, only faster, which matters for ``from_tensor_slices(arrays).batch(b)``,
the most common pipeline in training loops.
"""
import numpy as np

from ..framework import dtypes
from ..framework.composite_tensor import CompositeTensor
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import EagerTensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..util import nest
from . import structure
from .dataset_ops import INFINITE_CARDINALITY, Dataset, implements

__all__ = ["_TensorSliceDataset", "_TensorDataset", "_RangeDataset", "_GeneratorDataset", "generator_signature"]

_INT64_MAX = int(np.iinfo(np.int64).max)


def _host_arrays(tensors):
    """Flat read-only host arrays for a nest of (eager) tensors."""
    arrays = []
    for t in nest.flatten(tensors, expand_composites=True):   # (a RaggedTensor: its component tensors)
        a = np.array(t.numpy() if isinstance(t, EagerTensor) else t)   # our own read-only copy
        a.flags.writeable = False
        arrays.append(a)
    return arrays


@implements("from_tensor_slices")
class _TensorSliceDataset(Dataset):
    """``from_tensor_slices``: row ``i`` of every component."""

    def __init__(self, tensors):
        tensors = structure.normalize_element(tensors)
        flat = nest.flatten(tensors)
        if not flat:
            raise ValueError("Invalid `element`. `element` should not be empty.")
        self._rows = None
        if any(isinstance(t, CompositeTensor) for t in flat):   # RaggedTensor leaves: rows precomputed
            self._init_ragged(tensors, flat)
            return
        first = TensorShape(None)
        for t in flat:
            if t.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            dim = TensorShape([t.shape[0]])
            if not first.is_compatible_with(dim):
                raise ValueError(f"Dimensions {first[0]} and {dim[0]} are not compatible")
            first = dim
        self._arrays = _host_arrays(tensors)
        self._length = int(first[0])
        self._element_spec = nest.map_structure(lambda t: TensorSpec(t.shape[1:], t.dtype), tensors)

    def _init_ragged(self, tensors, flat):
        """Slices of a structure with RaggedTensor leaves: row ``i`` of a RaggedTensor is ``rt[i]`` (a Tensor
        for ragged rank 1), its spec a RaggedTensorSpec of one ragged rank less, as in TF."""
        lengths = {int(t.nrows().numpy()) if isinstance(t, CompositeTensor) else int(t.shape[0]) for t in flat}
        if len(lengths) != 1:
            a, b = sorted(lengths)[:2]
            raise ValueError(f"Dimensions {a} and {b} are not compatible")
        self._length = lengths.pop()
        self._element_spec = structure.unbatched_spec(structure.spec_of(tensors))
        with structure.host_scope():
            self._rows = [tuple(c for leaf in flat for c in structure._host_components(leaf[i]))
                          for i in range(self._length)]

    def _cardinality(self):
        return self._length

    def _make_iterator(self):
        if self._rows is not None:
            return iter(self._rows)
        return _SliceIterator(self._arrays, self._length)

    def _describe(self):
        return f"TensorSliceDataset({self._length} rows)"


class _SliceIterator:
    __slots__ = ("_arrays", "_length", "_index")

    def __init__(self, arrays, length):
        self._arrays = arrays
        self._length = length
        self._index = 0

    def __iter__(self):
        return self

    def __next__(self):
        i = self._index
        if i >= self._length:
            raise StopIteration
        self._index = i + 1
        return tuple(a[i] for a in self._arrays)

    def next_batch(self, n):
        """Up to ``n`` rows as one slice per component (``None`` at the end)."""
        i = self._index
        if i >= self._length:
            return None
        j = min(i + n, self._length)
        self._index = j
        return tuple(a[i:j] for a in self._arrays)


@implements("from_tensors")
class _TensorDataset(Dataset):
    """``from_tensors``: the whole value, once."""

    def __init__(self, tensors):
        tensors = structure.normalize_element(tensors)
        self._components = tuple(structure.host_value(a) for a in _host_arrays(tensors))
        self._element_spec = structure.spec_of(tensors)

    def _cardinality(self):
        return 1

    def _make_iterator(self):
        return iter([self._components])

    def _describe(self):
        return "TensorDataset"


@implements("range")
class _RangeDataset(Dataset):
    """``range(start, stop, step)``: scalars of ``output_type`` (int64 by default)."""

    def __init__(self, *args, output_type=dtypes.int64):
        if not 1 <= len(args) <= 3:
            raise TypeError(f"Invalid arguments to `range`: {args}. Expected 1 to 3 integers "
                            f"(stop), (start, stop) or (start, stop, step).")
        values = [structure.as_int64(a, "range argument") for a in args]
        start, stop, step = (0, values[0], 1) if len(values) == 1 else (values + [1])[:3]
        if step == 0:
            raise InvalidArgumentError(None, None, "step must be a non-zero integer. [Op:RangeDataset]")
        self._start, self._stop, self._step = start, stop, step
        self._dtype = dtypes.as_dtype(output_type)
        self._element_spec = TensorSpec([], self._dtype)

    def _cardinality(self):
        if self._stop == _INT64_MAX and self._step > 0:
            return INFINITE_CARDINALITY      # TF's convention: a range up to the largest int64 never ends
        return len(range(self._start, self._stop, self._step))

    def _make_iterator(self):
        return _RangeIterator(self._start, self._stop, self._step, self._dtype._np.type)

    def _describe(self):
        return f"RangeDataset({self._start}, {self._stop}, {self._step})"


class _RangeIterator:
    __slots__ = ("_next", "_stop", "_step", "_type")

    def __init__(self, start, stop, step, np_type):
        self._next, self._stop, self._step, self._type = start, stop, step, np_type

    def __iter__(self):
        return self

    def _done(self, value):
        return value >= self._stop if self._step > 0 else value <= self._stop

    def __next__(self):
        value = self._next
        if self._done(value):
            raise StopIteration
        self._next = value + self._step
        return (self._type(value),)

    def next_batch(self, n):
        value = self._next
        if self._done(value):
            return None
        count = min(n, len(range(value, self._stop, self._step)))
        self._next = value + count * self._step
        return (np.arange(value, value + count * self._step, self._step, dtype=np.int64).astype(self._type,
                                                                                                copy=False),)


# --------------------------------------------------------------------------------------
# from_generator: elements produced by a Python generator, checked against a signature
# --------------------------------------------------------------------------------------
class _GeneratorDataset(Dataset):
    """``from_generator(generator, output_signature=..., args=...)``.

    Every pass (``iter``) calls ``generator(*args)`` anew (``args`` are converted to
    tensors once and handed to the generator as NumPy values, strings as ``bytes``,
    as TF does). Each yielded value is checked against the signature, in TF's
    order and with TF's messages (raised as ``InvalidArgumentError`` at ``next``):
    its *structure* (a tuple yielded where a tuple is expected...), then each
    component's *dtype* (converted with NumPy, as TF's ``py_func`` does), then its
    *shape* (compatible with the signature's, ``None`` matching any size).
    The cardinality is unknown (-2): a generator's length cannot be known.

    Deliberate difference: TF runs the generator through a ``py_func`` op; here
    it is called directly by the iterator (in the prefetch thread if there is one).
    Its ``repr`` says ``_FlatMapDataset``, as TF's does (TF builds it as ``from_tensors`` + ``flat_map``).
    """

    _repr_name = "_FlatMapDataset"

    def __init__(self, generator, output_signature, args):
        self._generator = generator
        self._element_spec = output_signature
        self._specs = structure.flat_specs(output_signature)
        if args is None:
            self._args = ()
        else:
            args = tuple(args) if isinstance(args, (list, tuple)) else (args,)
            with structure.host_scope():
                self._args = tuple(structure.host_value(_host_arrays(structure.normalize_element(a, "args"))[0])
                                   for a in args)
            self._args = tuple(bytes(a) if isinstance(a, np.bytes_) else a for a in self._args)

    def _cardinality(self):
        return -2

    def _make_iterator(self):
        return _GeneratorIterator(iter(self._generator(*self._args)), self._element_spec, self._specs)

    def _describe(self):
        return f"GeneratorDataset({getattr(self._generator, '__name__', 'generator')})"


def _yield_error(message):
    return InvalidArgumentError(None, None, f"TypeError: `generator` {message} [Op:IteratorGetNext]")


def _dtype_name(spec_tree):
    return str(nest.map_structure(lambda s: _DtypeRepr(s.dtype), spec_tree))


class _DtypeRepr:
    def __init__(self, dtype):
        self.dtype = dtype

    def __repr__(self):
        return f"tf.{self.dtype.name}"


class _GeneratorIterator:
    __slots__ = ("_it", "_spec", "_specs")

    def __init__(self, iterator, spec, specs):
        self._it, self._spec, self._specs = iterator, spec, specs

    def _flatten(self, value):
        """The components of ``value``, flattened only down to the signature's leaves (TF's ``flatten_up_to``)."""
        def flatten_up_to(spec, v):
            if isinstance(spec, TensorSpec):
                return [v]
            if isinstance(spec, dict):
                if not isinstance(v, dict) or set(v) != set(spec):
                    raise TypeError
                return [c for k in sorted(spec) for c in flatten_up_to(spec[k], v[k])]
            if not isinstance(v, (tuple, list)) or len(v) != len(spec):   # a list counts as a tuple here
                raise TypeError
            return [c for s, x in zip(spec, v) for c in flatten_up_to(s, x)]
        try:
            return flatten_up_to(self._spec, value)
        except TypeError:
            raise _yield_error(f"yielded an element that did not match the expected structure. The expected "
                               f"structure was {_dtype_name(self._spec)}, but the yielded element was "
                               f"{value}.") from None

    def __next__(self):
        value = next(self._it)
        out = []
        for spec, v in zip(self._specs, self._flatten(value)):
            if isinstance(v, EagerTensor):
                v = v.numpy()
            try:
                if spec.dtype == dtypes.string:
                    a = np.asarray(v)
                    if a.dtype.kind not in "SUO":
                        raise ValueError
                    a = np.vectorize(lambda s: s.encode() if isinstance(s, str) else bytes(s), otypes=[object])(a) \
                        if a.size else a.astype(object)
                else:
                    a = np.asarray(v, dtype=spec.dtype.as_numpy_dtype)
            except (ValueError, TypeError):
                raise _yield_error(f"yielded an element that could not be converted to the expected type. The "
                                   f"expected type was {spec.dtype.name}, but the yielded element was {v}.") from None
            if not spec.shape.is_compatible_with(TensorShape(a.shape)):
                raise _yield_error(f"yielded an element of shape {a.shape} where an element of shape "
                                   f"{tuple(spec.shape.as_list()) if spec.shape.rank is not None else None} was "
                                   f"expected.")
            out.append(structure.host_value(a))
        return tuple(out)


def generator_signature(output_types, output_shapes, output_signature):
    """The element spec of ``from_generator`` from its arguments (TF's argument rules and messages)."""
    if output_signature is not None:
        if output_types is not None:
            raise TypeError("The `output_types` argument can not be used together with the `output_signature` "
                            "argument.")
        if output_shapes is not None:
            raise TypeError("The `output_shapes` argument can not be used together with the `output_signature` "
                            "argument.")
        for spec in nest.flatten(output_signature):
            if not isinstance(spec, TensorSpec):
                raise TypeError(f"`output_signature` must contain objects that are subclass of `tf.TypeSpec` but "
                                f"found {type(spec)} which is not.")
        return output_signature
    if output_types is None:
        raise TypeError("To specify the output signature you need to provide either the `output_signature` "
                        "argument or the `output_types` argument.")
    if output_shapes is None:
        return nest.map_structure(lambda t: TensorSpec(TensorShape(None), dtypes.as_dtype(t)), output_types)
    flat_types = nest.flatten(output_types)
    if len(flat_types) == 1 and not nest.is_nested(output_types):
        shapes = [output_shapes]
    else:
        shapes = _flatten_shapes_up_to(output_types, output_shapes)
    specs = [TensorSpec(TensorShape(s), dtypes.as_dtype(t)) for t, s in zip(flat_types, shapes)]
    return nest.pack_sequence_as(output_types, specs) if nest.is_nested(output_types) else specs[0]


@implements("from_generator")
def _from_generator(generator, output_types, output_shapes, output_signature, args):
    """``Dataset.from_generator``: the element spec from the arguments, then the dataset."""
    return _GeneratorDataset(generator, generator_signature(output_types, output_shapes, output_signature), args)


def _flatten_shapes_up_to(types, shapes):
    """Shapes are lists themselves: flatten ``shapes`` only as deep as the ``types`` structure."""
    if isinstance(types, dict):
        return [s for k in sorted(types) for s in _flatten_shapes_up_to(types[k], shapes[k])]
    if isinstance(types, (tuple, list)):
        if len(types) != len(shapes):
            raise ValueError(f"The two structures don't have the same sequence length: {types} and {shapes}.")
        return [s for t, sh in zip(types, shapes) for s in _flatten_shapes_up_to(t, sh)]
    return [shapes]
