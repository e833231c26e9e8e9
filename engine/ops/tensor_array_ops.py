"""``tf.TensorArray``: a list of tensors that loops can grow, read and stack.

A ``tf.while_loop`` carries tensors of a *fixed* shape from one iteration to
the next; a TensorArray is how a loop collects one value per iteration::

    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    for i in tf.range(n):                       # in a tf.function: a while loop
        ta = ta.write(i, tf.cast(i, tf.float32) ** 2)
    ta.stack()                                  # [0., 1., 4., ...]

Two implementations sit behind the one public class, as in TF 2:

* **Eagerly** (``_EagerTensorArray``) it is a Python list of EagerTensors.
  ``write`` stores the tensor (in place: the returned TensorArray is the same
  object), ``read`` returns it, ``stack`` is ``tf.stack`` of the list. The
  gradient tape needs nothing special: it records the ``Pack``/``Unpack``
  ops, and a read returns the very tensor that was written.
* **In a graph** (``_GraphTensorArray``: a ``tf.function`` trace, TF1 graphs)
  a tensor cannot hold a Python list that changes as the graph runs. The
  array is a *value*: a scalar tensor of dtype ``variant``, its **flow**,
  holding a :class:`TensorListValue` (an immutable Python list of arrays).
  Every operation is a graph op with TF's name that takes a list and returns
  a *new* list::

      TensorListReserve ──▶ TensorListSetItem ──▶ TensorListSetItem ──▶ TensorListStack
        (size, shape)        (list, 0, x0)          (list, 1, x1)          ──▶ [x0, x1]

  That is why ``write`` *returns* a TensorArray: the new one holds the new
  flow. A TensorArray used as a loop variable is carried by its flow: the
  class follows the nest protocol (``__tf_flatten__``: components ``(flow,)``),
  so ``tf.while_loop``, ``tf.cond`` and AutoGraph see a plain variant tensor,
  and rebuild a TensorArray around the flow that comes out. TensorArrays built
  from one another share one cell holding the inferred element shape, as in TF:
  a write inside a loop body tells the TensorArray outside what its elements
  look like.

Kernels never mutate a list: ``SetItem`` copies the Python list (pointers, not
data) and replaces one entry, so a list value can be shared freely (the graph
optimizer may deduplicate ops, a loop record may keep every iteration's list).

Gradients (graph mode) are lists too: the gradient of a list is a list of the
gradients of its elements, where a missing entry (``None``) means zeros. Each
op's gradient is the op that undoes its data movement (TF's ``list_grad.py``):
``Stack`` ⟷ ``FromTensor``, ``SetItem`` ⟷ ``GetItem``, ``Gather`` ⟷
``Scatter``, ``ConcatV2`` ⟷ ``Split``. Lists add element-wise (``AddN`` on two
variants, or the ``WhileGrad`` kernel summing the gradients of a list a loop
body reads), and ``zeros_like`` of a list is a list of zeros.

Deliberate differences from TF: ``clear_after_read`` is honoured eagerly and
ignored in graphs (as in TF 2); ``TensorArray.grad`` is not supported; a
TensorArray returned from a ``tf.function`` comes back as a TensorArray (TF
2.21 returns its bare variant flow tensor).
"""
import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError, OutOfRangeError
from ..framework.registry import get_op, register_op
from ..framework.tensor import EagerTensor, Tensor, convert_to_tensor
from ..framework.tensor_shape import TensorShape, as_shape
from . import array_ops, math_ops
from ._dispatch import execute
from ..framework.graph import constant_value

__all__ = ["TensorArray"]

variant = dtypes.variant


# ======================================================================================
# The value of a variant list tensor
# ======================================================================================
class TensorListValue:
    """What a ``variant`` TensorList tensor holds: an immutable list of arrays.

    ``items[i]`` is an array, or ``None`` for an element never written (read
    as zeros). ``element_shape`` is a tuple (``None`` for unknown dims) or
    ``None`` for an unknown rank. It looks like a rank-0 array of dtype
    ``variant`` (``.dtype``, ``.shape``), so an ``EagerTensor`` can hold one.
    """

    __slots__ = ("items", "element_dtype", "element_shape")
    dtype = variant
    shape = ()
    ndim = 0

    def __init__(self, items, element_dtype, element_shape):
        self.items = list(items)
        self.element_dtype = element_dtype
        self.element_shape = element_shape

    def copy(self, items=None):
        return TensorListValue(self.items if items is None else items, self.element_dtype, self.element_shape)

    def zeros(self):
        """``zeros_like``: same length and element shapes, every element zero (``None``)."""
        return TensorListValue([None] * len(self.items), self.element_dtype, self.element_shape)

    def __add__(self, other):
        """Element-wise sum (gradient aggregation); a missing element counts as zero."""
        other = _unwrap(other)
        if not isinstance(other, TensorListValue):
            return self
        n = max(len(self.items), len(other.items))
        a = self.items + [None] * (n - len(self.items))
        b = other.items + [None] * (n - len(other.items))
        return self.copy([x if y is None else y if x is None else x + y for x, y in zip(a, b)])

    __radd__ = __add__

    def __array_function__(self, func, types, args, kwargs):
        # ``np.zeros_like(list)`` (the ZerosLike kernel) gives a list of zeros; shape queries see a scalar.
        if func is np.zeros_like:
            return _object_scalar(self.zeros())
        if func is np.shape:
            return ()
        if func is np.ndim:
            return 0
        return func._implementation(*args, **kwargs)

    def __repr__(self):
        return f"<TensorList of {len(self.items)} {self.element_dtype.name} elements>"


def _object_scalar(value):
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def _unwrap(value):
    """A variant value may arrive wrapped in a 0-d object array (fed from NumPy land)."""
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        return value[()]
    return value


def _as_list(value, op_name):
    value = _unwrap(value)
    if not isinstance(value, TensorListValue):
        raise InvalidArgumentError(None, None, f"Input handle is not a list. Saw: '{type(value).__name__}' "
                                               f"[Op:{op_name}]")
    return value


# --- element shapes: an int32 tensor input, -1 for an unknown dim, a scalar -1 for unknown rank --------
def _shape_input(shape):
    """An ``element_shape`` op input: a TensorShape/list becomes int32 with -1 for unknown dims."""
    if isinstance(shape, Tensor):
        return shape
    shape = as_shape(shape)
    if shape.rank is None:
        return convert_to_tensor(np.int32(-1))
    return convert_to_tensor(np.array([-1 if d is None else d for d in shape.as_list()], np.int32))


def _decode_shape(arr):
    arr = np.asarray(arr)
    if arr.ndim == 0:
        return None
    return tuple(None if int(d) < 0 else int(d) for d in arr.reshape(-1))


def _merge(a, b):
    """Merge two partial shapes (tuples, None = unknown rank); None if they conflict."""
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b):
        raise _MergeError(f"Incompatible ranks during merge: {len(a)} vs. {len(b)}")
    out = []
    for x, y in zip(a, b):
        if x is not None and y is not None and x != y:
            raise _MergeError(f"Incompatible shapes during merge: {_fmt(a)} vs. {_fmt(b)}")
        out.append(x if x is not None else y)
    return tuple(out)


class _MergeError(Exception):
    pass


def _fmt(shape):
    if shape is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _static_shape_input(ic, i):
    """The TensorShape an ``element_shape`` input stands for, at graph-building time."""
    value = ic.constant_value(i)
    if value is not None:
        decoded = _decode_shape(value)
        return TensorShape(None if decoded is None else list(decoded))
    s = ic.shape(i)
    if s.rank == 1 and s[0] is not None:
        return TensorShape([None] * s[0])
    return TensorShape(None)


def _iae(message, op_name):
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def _element_shape_of(lst, requested, op_name):
    """The shape of every element: the list's, the op's and the written elements' shapes merged."""
    try:
        shape = _merge(lst.element_shape, requested)
        for item in lst.items:
            if item is not None:
                shape = _merge(shape, tuple(np.shape(item)))
    except _MergeError as error:
        raise _iae(f"PartialTensorShape: {error}", op_name) from None
    return shape


def _zeros(xp, shape, dtype, op_name, what):
    if shape is None or any(d is None for d in shape):
        raise _iae(f"Trying to read an uninitialized tensor but element_shape is not fully defined: "
                   f"{_fmt(shape)} and no list element is set ({what}).", op_name)
    return xp.zeros(shape, dtype.as_numpy_dtype)


def _stack_items(xp, items, shape, dtype, op_name):
    if not items:
        if shape is None or any(d is None for d in shape):
            raise _iae(f"Tried to stack elements of an empty list with non-fully-defined element_shape: "
                       f"{_fmt(shape)}", op_name)
        return xp.zeros((0,) + shape, dtype.as_numpy_dtype)
    filled = [x if x is not None else _zeros(xp, shape, dtype, op_name, "stack") for x in items]
    return xp.stack([xp.asarray(x) for x in filled]).astype(dtype.as_numpy_dtype, copy=False)


# ======================================================================================
# Kernels and shape functions
# ======================================================================================
def _list_out(ic):
    return [(variant, TensorShape([]))]


def _reserve_kernel(xp):
    def k(element_shape, num_elements, element_dtype):
        n = int(num_elements)
        if n < 0:
            raise _iae(f"The num_elements to reserve must be a non negative number, but got {n}",
                       "TensorListReserve")
        return TensorListValue([None] * n, element_dtype, _decode_shape(element_shape))
    return k


def _from_tensor_kernel(xp):
    def k(tensor, element_shape):
        if np.ndim(tensor) == 0:
            raise _iae("Tensor must be at least a vector, but saw shape: []", "TensorListFromTensor")
        try:
            shape = _merge(_decode_shape(element_shape), tuple(np.shape(tensor)[1:]))
        except _MergeError as error:
            raise _iae(f"Specified a list with shape {_fmt(_decode_shape(element_shape))} from a tensor with "
                       f"shape {_fmt(tuple(np.shape(tensor)))}: {error}", "TensorListFromTensor") from None
        return TensorListValue([tensor[i] for i in range(np.shape(tensor)[0])],
                               dtypes.from_numpy(tensor.dtype), shape)
    return k


def _set_item_kernel(xp):
    def k(handle, index, item, resize_if_index_out_of_bounds=False, element_dtype=None):
        lst = _as_list(handle, "TensorListSetItem")
        dtype = dtypes.from_numpy(np.asarray(item).dtype)
        if dtype != lst.element_dtype:
            raise _iae(f"Invalid data types; op elements {dtype.runtime_name} but list elements "
                       f"{lst.element_dtype.runtime_name}", "TensorListSetItem")
        i, n = int(index), len(lst.items)
        items = list(lst.items)
        if resize_if_index_out_of_bounds and i >= n:
            items += [None] * (i + 1 - n)
        elif i < 0 or i >= n:
            raise _iae(f"Trying to modify element {i} in a list with {n} elements.", "TensorListSetItem")
        items[i] = item
        return lst.copy(items)
    return k


def _get_item_kernel(xp):
    def k(handle, index, element_shape, element_dtype):
        lst = _as_list(handle, "TensorListGetItem")
        i, n = int(index), len(lst.items)
        if i < 0 or i >= n:
            raise _iae(f"Trying to access element {i} in a list with {n} elements.", "TensorListGetItem")
        item = lst.items[i]
        if item is not None:
            return item
        shape = _element_shape_of(lst, _decode_shape(element_shape), "TensorListGetItem")
        return _zeros(xp, shape, element_dtype, "TensorListGetItem", f"index {i}")[()]
    return k


def _get_item_infer(ic):
    return [(ic.attrs["element_dtype"], _static_shape_input(ic, 2))]


def _stack_kernel(xp):
    def k(handle, element_shape, element_dtype, num_elements=-1):
        lst = _as_list(handle, "TensorListStack")
        if num_elements != -1 and len(lst.items) != num_elements:
            raise _iae(f"Operation expected a list with {num_elements} elements but got a list with "
                       f"{len(lst.items)} elements.", "TensorListStack")
        shape = _element_shape_of(lst, _decode_shape(element_shape), "TensorListStack")
        return _stack_items(xp, lst.items, shape, element_dtype, "TensorListStack")
    return k


def _stack_infer(ic):
    n = ic.attrs.get("num_elements", -1)
    return [(ic.attrs["element_dtype"], TensorShape([None if n == -1 else n]).concatenate(
        _static_shape_input(ic, 1)))]


def _gather_kernel(xp):
    def k(handle, indices, element_shape, element_dtype):
        lst = _as_list(handle, "TensorListGather")
        n = len(lst.items)
        chosen = []
        for i in np.asarray(indices).reshape(-1):
            i = int(i)
            if i < 0 or i >= n:
                raise _iae(f"Trying to gather element {i} in a list with {n} elements.", "TensorListGather")
            chosen.append(lst.items[i])
        shape = _element_shape_of(lst, _decode_shape(element_shape), "TensorListGather")
        return _stack_items(xp, chosen, shape, element_dtype, "TensorListGather")
    return k


def _gather_infer(ic):
    idx = ic.shape(1)
    n = idx[0] if idx.rank == 1 else None
    return [(ic.attrs["element_dtype"], TensorShape([n]).concatenate(_static_shape_input(ic, 2)))]


def _scatter_kernel(xp):
    def k(handle, tensor, indices):
        lst = _as_list(handle, "TensorListScatterIntoExistingList")
        indices = [int(i) for i in np.asarray(indices).reshape(-1)]
        if np.ndim(tensor) == 0 or np.shape(tensor)[0] != len(indices):
            raise _iae(f"Specified a list with {len(indices)} indices but a tensor with shape "
                       f"{_fmt(tuple(np.shape(tensor)))}", "TensorListScatterIntoExistingList")
        dtype = dtypes.from_numpy(np.asarray(tensor).dtype)
        if dtype != lst.element_dtype:
            raise _iae(f"Invalid data types; op elements {dtype.runtime_name} but list elements "
                       f"{lst.element_dtype.runtime_name}", "TensorListScatterIntoExistingList")
        items = list(lst.items)
        for k_, i in enumerate(indices):
            if i < 0:
                raise _iae("Indices in TensorListScatter must all be non-negative.",
                           "TensorListScatterIntoExistingList")
            if i >= len(items):
                items += [None] * (i + 1 - len(items))
            items[i] = tensor[k_]
        return lst.copy(items)
    return k


def _concat_kernel(xp):
    def k(handle, element_shape, leading_dims, element_dtype):
        lst = _as_list(handle, "TensorListConcatV2")
        requested = _decode_shape(element_shape)
        leading = np.asarray(leading_dims).reshape(-1)
        parts = []
        for i, item in enumerate(lst.items):
            if item is None:
                rest = requested[1:] if requested is not None else None
                if i < len(leading):
                    shape = (int(leading[i]),) + (rest or ())
                else:
                    shape = _element_shape_of(lst, requested, "TensorListConcatV2")
                item = _zeros(xp, shape, element_dtype, "TensorListConcatV2", f"index {i}")
            if np.ndim(item) == 0:
                raise _iae(f"Concat saw a scalar shape at index {i} but requires at least vectors.",
                           "TensorListConcatV2")
            parts.append(xp.asarray(item))
        lengths = np.array([np.shape(p)[0] for p in parts], np.int64)
        if not parts:
            rest = requested[1:] if requested is not None else None
            if rest is None or any(d is None for d in rest):
                raise _iae("All except the first dimension must be fully defined when concating an empty "
                           "tensor list. element_shape: " + _fmt(requested), "TensorListConcatV2")
            return xp.zeros((0,) + rest, element_dtype.as_numpy_dtype), lengths
        try:
            out = xp.concatenate(parts, axis=0)
        except ValueError:
            raise _iae("Incompatible shapes in TensorListConcat: " + ", ".join(
                _fmt(tuple(np.shape(p))) for p in parts), "TensorListConcatV2") from None
        return out.astype(element_dtype.as_numpy_dtype, copy=False), lengths
    return k


def _concat_infer(ic):
    shape = _static_shape_input(ic, 1)
    rest = shape[1:] if shape.rank is not None and shape.rank >= 1 else TensorShape(None)
    return [(ic.attrs["element_dtype"], TensorShape([None]).concatenate(rest)), (dtypes.int64, TensorShape([None]))]


def _split_kernel(xp):
    def k(tensor, element_shape, lengths):
        if np.ndim(tensor) == 0:
            raise _iae("Tensor must be at least a vector, but saw shape: []", "TensorListSplit")
        lengths = [int(v) for v in np.asarray(lengths).reshape(-1)]
        n = np.shape(tensor)[0]
        items, start = [], 0
        for length in lengths:
            if length < 0 or start + length > n:
                raise _iae(f"Attempting to slice [{start}, {start + length}] from tensor with length {n}.",
                           "TensorListSplit")
            items.append(tensor[start:start + length])
            start += length
        if start != n:
            raise _iae(f"Unused values in tensor. Length of tensor: {n} Values used: {start}", "TensorListSplit")
        shape = _decode_shape(element_shape)
        if shape is not None:
            shape = (None,) + shape[1:]
        return TensorListValue(items, dtypes.from_numpy(tensor.dtype), shape)
    return k


def _length_kernel(xp):
    def k(handle):
        return np.int32(len(_as_list(handle, "TensorListLength").items))
    return k


def _resize_kernel(xp):
    def k(handle, size):
        lst = _as_list(handle, "TensorListResize")
        n = int(size)
        if n < 0:
            raise _iae(f"TensorListSlice expects size to be non-negative. Got: {n}", "TensorListResize")
        return lst.copy((lst.items + [None] * n)[:n])
    return k


# ======================================================================================
# Gradients: each op's gradient is the list op that moves the data back
# ======================================================================================
def _set_item_grad(op, dlist):
    lst, index, item = op.inputs
    list_grad = _set_item(dlist, index, array_ops.zeros_like(item), resize=True)
    if op.get_attr("resize_if_index_out_of_bounds"):
        list_grad = _resize(list_grad, _length(lst))
    item_grad = _get_item(dlist, index, array_ops.shape(item), item.dtype)
    return [list_grad, None, item_grad]


def _get_item_grad(op, ditem):
    lst, index, _ = op.inputs
    zeros = _reserve(array_ops.shape(ditem), _length(lst), ditem.dtype)
    return [_set_item(zeros, index, ditem), None, None]


def _stack_grad(op, dtensor):
    return [_from_tensor(dtensor, op.inputs[1]), None]


def _from_tensor_grad(op, dlist):
    tensor = op.inputs[0]
    return [_stack(dlist, array_ops.shape(tensor)[1:], tensor.dtype), None]


def _gather_grad(op, dtensor):
    lst, indices, _ = op.inputs
    zeros = _reserve(array_ops.shape(dtensor)[1:], _length(lst), dtensor.dtype)
    return [_scatter(zeros, dtensor, indices), None, None]


def _scatter_grad(op, dlist):
    _, tensor, indices = op.inputs
    tensor_grad = _gather(dlist, indices, array_ops.shape(tensor)[1:], tensor.dtype)
    list_grad = _scatter(dlist, array_ops.zeros_like(tensor), indices)
    return [list_grad, tensor_grad, None]


def _concat_grad(op, dtensor, dlengths):
    return [_split(dtensor, op.inputs[1], op.outputs[1]), None, None]


def _split_grad(op, dlist):
    tensor, _, lengths = op.inputs
    element_shape = array_ops.concat([convert_to_tensor(np.array([-1], np.int32)),
                                      array_ops.shape(tensor)[1:]], 0)
    return [_concat(dlist, element_shape, lengths, tensor.dtype)[0], None, None]


def _resize_grad(op, dlist):
    return [_resize(dlist, _length(op.inputs[0])), None]


_RESERVE = register_op("TensorListReserve", kernel=_reserve_kernel, infer=_list_out,
                       doc="A list of num_elements unset (zero) elements of element_dtype.")
_FROM_TENSOR = register_op("TensorListFromTensor", kernel=_from_tensor_kernel, infer=_list_out,
                           grad=_from_tensor_grad, saves_inputs=(0,), saves_outputs=False,
                           doc="A list of the rows of a tensor (TensorArray.unstack).")
_SET_ITEM = register_op("TensorListSetItem", kernel=_set_item_kernel, infer=_list_out, grad=_set_item_grad,
                        saves_outputs=False, doc="A new list with element `index` replaced (TensorArray.write).")
_GET_ITEM = register_op("TensorListGetItem", kernel=_get_item_kernel, infer=_get_item_infer, grad=_get_item_grad,
                        saves_outputs=False, doc="Element `index` of a list; zeros if never set (TensorArray.read).")
_STACK = register_op("TensorListStack", kernel=_stack_kernel, infer=_stack_infer, grad=_stack_grad,
                     saves_inputs=(1,), saves_outputs=False, doc="All elements stacked (TensorArray.stack).")
_GATHER = register_op("TensorListGather", kernel=_gather_kernel, infer=_gather_infer, grad=_gather_grad,
                      saves_outputs=False, doc="Chosen elements stacked (TensorArray.gather).")
_SCATTER = register_op("TensorListScatterIntoExistingList", kernel=_scatter_kernel, infer=_list_out,
                       grad=_scatter_grad, saves_outputs=False,
                       doc="A new list with rows of a tensor written at indices (TensorArray.scatter).")
_CONCAT = register_op("TensorListConcatV2", kernel=_concat_kernel, infer=_concat_infer, grad=_concat_grad,
                      num_outputs=2, saves_inputs=(1,), saves_outputs=(1,),
                      doc="Elements concatenated along axis 0, and their lengths (TensorArray.concat).")
_SPLIT = register_op("TensorListSplit", kernel=_split_kernel, infer=_list_out, grad=_split_grad,
                     saves_outputs=False, doc="A list of consecutive slices of a tensor (TensorArray.split).")
_LENGTH = register_op("TensorListLength", kernel=_length_kernel, infer=lambda ic: [(dtypes.int32, TensorShape([]))],
                      doc="The number of elements of a list (TensorArray.size).")
_RESIZE = register_op("TensorListResize", kernel=_resize_kernel, infer=_list_out, grad=_resize_grad,
                      saves_outputs=False, doc="The list truncated, or padded with unset elements, to `size`.")


# --- op wrappers ------------------------------------------------------------------------------
def _int32(value):
    t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=dtypes.int32)
    if t.dtype != dtypes.int32:
        t = math_ops.cast(t, dtypes.int32)
    return t


def _reserve(element_shape, num_elements, element_dtype, name=None):
    return execute(_RESERVE, (_shape_input(element_shape), _int32(num_elements)),
                   {"element_dtype": element_dtype}, name=name or "TensorListReserve")


def _from_tensor(tensor, element_shape):
    return execute(_FROM_TENSOR, (tensor, _shape_input(element_shape)), name="TensorListFromTensor")


def _set_item(handle, index, item, resize=False):
    return execute(_SET_ITEM, (handle, _int32(index), item),
                   {"resize_if_index_out_of_bounds": bool(resize), "element_dtype": item.dtype},
                   name="TensorListSetItem")


def _get_item(handle, index, element_shape, element_dtype):
    return execute(_GET_ITEM, (handle, _int32(index), _shape_input(element_shape)),
                   {"element_dtype": element_dtype}, name="TensorListGetItem")


def _stack(handle, element_shape, element_dtype, num_elements=-1):
    return execute(_STACK, (handle, _shape_input(element_shape)),
                   {"element_dtype": element_dtype, "num_elements": int(num_elements)}, name="TensorListStack")


def _gather(handle, indices, element_shape, element_dtype):
    return execute(_GATHER, (handle, _int32(indices), _shape_input(element_shape)),
                   {"element_dtype": element_dtype}, name="TensorListGather")


def _scatter(handle, tensor, indices):
    return execute(_SCATTER, (handle, tensor, _int32(indices)), name="TensorListScatterIntoExistingList")


def _concat(handle, element_shape, leading_dims, element_dtype):
    leading = leading_dims if isinstance(leading_dims, Tensor) else \
        convert_to_tensor(np.asarray(leading_dims, np.int64).reshape(-1))
    if leading.dtype != dtypes.int64:
        leading = math_ops.cast(leading, dtypes.int64)
    return execute(_CONCAT, (handle, _shape_input(element_shape), leading),
                   {"element_dtype": element_dtype}, name="TensorListConcatV2")


def _split(tensor, element_shape, lengths):
    lengths = lengths if isinstance(lengths, Tensor) else convert_to_tensor(np.asarray(lengths, np.int64))
    if lengths.dtype != dtypes.int64:
        lengths = math_ops.cast(lengths, dtypes.int64)
    return execute(_SPLIT, (tensor, _shape_input(element_shape), lengths), name="TensorListSplit")


def _length(handle):
    return execute(_LENGTH, (handle,), name="TensorListLength")


def _resize(handle, size):
    return execute(_RESIZE, (handle, _int32(size)), name="TensorListResize")


# ======================================================================================
# The public class
# ======================================================================================
def _convert_value(value, dtype):
    """TF converts a written value with the array's dtype as a *preference*."""
    if isinstance(value, Tensor):
        return value
    if hasattr(value, "_is_variable"):
        return value.read_value()
    return convert_to_tensor(value, dtype_hint=dtype)


def _static_int(value):
    """The Python int of a size argument if known while building, else None."""
    if value is None:
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    v = constant_value(value) if isinstance(value, Tensor) else np.asarray(value)
    return None if v is None else int(v)


class TensorArray:
    """``tf.TensorArray``: a list of same-dtype tensors for loops (see the module docstring).

    >>> ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=False)
    >>> ta = ta.write(0, 10.).write(1, 20.)
    >>> ta.stack()
    <tf.Tensor: shape=(2,), dtype=float32, numpy=array([10., 20.], dtype=float32)>
    """

    _is_tensor_array = True

    def __new__(cls, dtype=None, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                handle=None, flow=None, infer_shape=True, element_shape=None,
                colocate_with_first_write_call=True, name=None):
        if cls is TensorArray:
            graph_flow = flow is not None and getattr(flow, "dtype", None) == variant
            cls = _GraphTensorArray if (graph_flow or ctx.graph is not None) else _EagerTensorArray
        return object.__new__(cls)

    @property
    def dtype(self):
        """The dtype of the elements."""
        return self._dtype

    @property
    def dynamic_size(self):
        """Python bool: can writes grow the array past its size?"""
        return self._dynamic_size

    @property
    def element_shape(self):
        """The (possibly partial) TensorShape of the elements."""
        return self._element_shape[0] if isinstance(self._element_shape, list) else self._element_shape

    @property
    def handle(self):
        return None

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError("TensorArray.grad is not supported: gradients flow through the TensorArray's "
                                  "ops (write/read/stack...) like through any other op.")


class _EagerTensorArray(TensorArray):
    """Eager TensorArray: a Python list of EagerTensors (TF's ``_EagerTensorArray``)."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None,
                 colocate_with_first_write_call=True, name=None):
        if handle is not None:
            raise ValueError("TensorArray handles are not supported when eager execution is enabled.")
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is enabled.")
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        self._element_shape = as_shape(element_shape)
        self._flow = convert_to_tensor(np.int32(0))   # TF's dummy flow: eager arrays need none
        self._previously_read = set()
        self._tensors = [None] * int(size)

    @property
    def flow(self):
        return self._flow

    def _index(self, index):
        return int(index.numpy()) if isinstance(index, EagerTensor) else int(index)

    def identity(self):
        return self

    def read(self, index, name=None):
        """The tensor at ``index`` (zeros if never written); with clear_after_read, only once."""
        index = self._index(index)
        if index < 0:
            raise OutOfRangeError(None, None, f"Reading from negative indices (index {index}) is not allowed.")
        if index >= len(self._tensors):
            raise OutOfRangeError(None, None, f"Tried to read from index {index} but array size is: "
                                              f"{len(self._tensors)} ")
        tensor = self._tensors[index]
        if tensor is None:
            if index in self._previously_read:
                raise InvalidArgumentError(None, None, f"Could not read index {index} twice because it was cleared "
                                                       f"after a previous read (perhaps try setting "
                                                       f"clear_after_read = false?)")
            tensor = self._maybe_zero(index)
        if self._clear_after_read:
            self._tensors[index] = None
            self._previously_read.add(index)
        return tensor

    def _write(self, index, value):
        index = self._index(index)
        if index < 0:
            raise OutOfRangeError(None, None, f"Writing to negative indices (index {index}) is not allowed.")
        size = len(self._tensors)
        if index >= size:
            if not self._dynamic_size:
                raise OutOfRangeError(None, None, f"Tried to write to index {index} but array is not resizeable "
                                                  f"and size is: {size} ")
            self._tensors.extend([None] * (index - size + 1))
        value = _convert_value(value, self._dtype)
        if value.dtype != self._dtype:
            raise InvalidArgumentError(None, None, f"TensorArray dtype is {self._dtype.name} but Op is trying to "
                                                   f"write dtype {value.dtype.name} ")
        if not self._element_shape.is_compatible_with(value.shape):
            raise ValueError(f"Incompatible shape for value ({value.shape}), expected ({self._element_shape})")
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(value.shape)
        self._tensors[index] = value

    def write(self, index, value, name=None):
        """Store ``value`` at ``index``. Eagerly the array changes in place; the same TensorArray is returned."""
        self._write(index, value)
        return self

    def _maybe_zero(self, index):
        if self._tensors[index] is None:
            if not self._element_shape.is_fully_defined():
                raise ValueError(f"Cannot read element {index} of a TensorArray that was never written: its "
                                 f"element shape {self._element_shape} is not fully defined.")
            self._tensors[index] = array_ops.zeros(self._element_shape.as_list(), self._dtype)
        return self._tensors[index]

    def stack(self, name=None):
        """All elements stacked into one tensor (unwritten elements are zeros)."""
        for i in range(len(self._tensors)):
            self._maybe_zero(i)
        if not self._tensors:
            shape = [0] + (self._element_shape.as_list() if self._element_shape.is_fully_defined() else [])
            return array_ops.zeros(shape, self._dtype)
        return array_ops.stack(self._tensors)

    def gather(self, indices, name=None):
        indices = np.asarray(indices.numpy() if isinstance(indices, EagerTensor) else indices).reshape(-1)
        return array_ops.stack([self._maybe_zero(int(i)) for i in indices])

    def concat(self, name=None):
        parts = [self._maybe_zero(i) for i in range(len(self._tensors))]
        for i, p in enumerate(parts):
            if p.shape.rank == 0:
                raise InvalidArgumentError(None, None, f"Concat saw a scalar shape at index {i} but requires at "
                                                       f"least vectors.")
        return array_ops.concat(parts, 0)

    def unstack(self, value, name=None):
        value = _convert_value(value, self._dtype)
        tensors = array_ops.unstack(value)
        if len(tensors) > len(self._tensors) and not self._dynamic_size:
            raise ValueError(f"Cannot unstack {len(tensors)} tensors into a TensorArray of static size "
                             f"{len(self._tensors)} ")
        self._tensors = list(tensors)
        return self

    def scatter(self, indices, value, name=None):
        indices = np.asarray(indices.numpy() if isinstance(indices, EagerTensor) else indices).reshape(-1)
        for index, v in zip(indices, array_ops.unstack(_convert_value(value, self._dtype))):
            self._write(int(index), v)
        return self

    def split(self, value, lengths, name=None):
        value = _convert_value(value, self._dtype)
        lengths = convert_to_tensor(lengths)
        total = int(np.sum(lengths.numpy()))
        if lengths.shape.rank != 1:
            raise InvalidArgumentError(None, None, f"Expected lengths to be a vector, received shape: "
                                                   f"{lengths.shape.as_list()} ")
        if value.shape.rank == 0:
            raise InvalidArgumentError(None, None, f"Expected value to be at least a vector, but received shape: "
                                                   f"{value.shape.as_list()} ")
        if total != value.shape[0]:
            raise InvalidArgumentError(None, None, f"Expected sum of lengths to be equal to values.shape[0], but sum "
                                                   f"of lengths is {total} and value's shape is: "
                                                   f"{value.shape.as_list()} ")
        if not self._dynamic_size and lengths.shape[0] != len(self._tensors):
            raise InvalidArgumentError(None, None, f"TensorArray's size is not equal to the size of lengths "
                                                   f"({len(self._tensors)} vs. {lengths.shape[0]}), and the "
                                                   f"TensorArray is not marked as dynamically resizeable.")
        self._tensors = list(array_ops.split(value, [int(v) for v in lengths.numpy()]))
        return self

    def size(self, name=None):
        return convert_to_tensor(np.int32(len(self._tensors)))

    def close(self, name=None):
        del self._tensors[:]


class _TensorArrayMeta:
    """What a graph TensorArray is besides its flow (the nest metadata, TF's ``TensorArraySpec``).

    Two metas are equal when dtype, dynamic_size and infer_shape agree: the
    element shape may be refined by a loop body (it lives in the shared cell).
    """

    __slots__ = ("dtype", "dynamic_size", "infer_shape", "size", "cell")

    def __init__(self, ta):
        self.dtype, self.dynamic_size, self.infer_shape = ta._dtype, ta._dynamic_size, ta._infer_shape
        self.size, self.cell = ta._size, ta._element_shape

    def _key(self):
        return (self.dtype, self.dynamic_size, self.infer_shape)

    def __eq__(self, other):
        return isinstance(other, _TensorArrayMeta) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"TensorArraySpec(element_shape={self.cell[0]}, dtype={self.dtype!r}, " \
               f"dynamic_size={self.dynamic_size}, infer_shape={self.infer_shape})"


class _GraphTensorArray(TensorArray):
    """Graph TensorArray: a ``variant`` flow tensor holding a TensorList (TF's ``_GraphTensorArrayV2``)."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None,
                 colocate_with_first_write_call=True, name=None):
        if handle is not None:
            raise ValueError("TensorArray handles are not supported: TensorArrays are TensorLists (use `flow`).")
        if flow is not None and (not isinstance(flow, Tensor) or flow.dtype != variant):
            raise TypeError(f"Expected `flow` to be a variant tensor, but received `{getattr(flow, 'dtype', flow)}` "
                            f"instead.")
        if flow is None and size is None:
            raise ValueError("Argument `size` must be provided if argument `flow` is not provided.")
        if flow is not None and size is not None:
            raise ValueError("Cannot provide both `flow` and `size` arguments at the same time.")
        if flow is not None and element_shape is not None:
            raise ValueError("Cannot provide both `flow` and `element_shape` argumentsat the same time.")
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._size = size
        self._infer_shape = infer_shape
        self._element_shape = [as_shape(element_shape)]   # a cell, shared by the TensorArrays derived from this one
        self._flow = flow if flow is not None else \
            _reserve(self._element_shape[0], size, self._dtype, name=name or "TensorArrayV2")

    @property
    def flow(self):
        """The variant tensor holding this array's TensorList."""
        return self._flow

    # --- the nest protocol: a TensorArray is carried through loops and conds by its flow -------------
    def __tf_flatten__(self):
        return _TensorArrayMeta(self), (self._flow,)

    @classmethod
    def __tf_unflatten__(cls, meta, components):
        ta = object.__new__(_GraphTensorArray)
        ta._dtype, ta._dynamic_size, ta._infer_shape = meta.dtype, meta.dynamic_size, meta.infer_shape
        ta._size, ta._element_shape = meta.size, meta.cell
        ta._flow = components[0]
        return ta

    def _with_flow(self, flow):
        """A TensorArray like this one around a new flow (TF's ``build_ta_with_new_flow``)."""
        return _GraphTensorArray.__tf_unflatten__(_TensorArrayMeta(self), (flow,))

    def _check_element_shape(self, shape):
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    def _checked_value(self, value):
        value = _convert_value(value, self._dtype)
        return value

    def identity(self):
        return self._with_flow(array_ops.identity(self._flow))

    def read(self, index, name=None):
        """The element at ``index`` (zeros if never written)."""
        return _get_item(self._flow, index, self.element_shape, self._dtype)

    def write(self, index, value, name=None):
        """A new TensorArray whose element ``index`` is ``value``."""
        value = self._checked_value(value)
        self._check_element_shape(value.shape)
        return self._with_flow(_set_item(self._flow, index, value, resize=self._dynamic_size))

    def _static_size(self):
        return _static_int(self._size) if not self._dynamic_size else None

    def stack(self, name=None):
        """All elements stacked into one tensor."""
        n = self._static_size()
        return _stack(self._flow, self.element_shape, self._dtype, -1 if n is None else n)

    def gather(self, indices, name=None):
        return _gather(self._flow, indices, self.element_shape, self._dtype)

    def concat(self, name=None):
        shape = self.element_shape
        element_shape = TensorShape([None]).concatenate(shape[1:]) if shape.rank else TensorShape(None)
        return _concat(self._flow, element_shape, np.zeros([0], np.int64), self._dtype)[0]

    def unstack(self, value, name=None):
        value = self._checked_value(value)
        self._check_element_shape(value.shape[1:] if value.shape.rank else TensorShape(None))
        return self._with_flow(_from_tensor(value, value.shape[1:] if value.shape.rank else TensorShape(None)))

    def scatter(self, indices, value, name=None):
        value = self._checked_value(value)
        self._check_element_shape(value.shape[1:] if value.shape.rank else TensorShape(None))
        return self._with_flow(_scatter(self._flow, value, indices))

    def split(self, value, lengths, name=None):
        value = self._checked_value(value)
        lengths_t = lengths if isinstance(lengths, Tensor) else convert_to_tensor(lengths)
        known = constant_value(lengths_t)
        if value.shape.rank is not None and known is not None and np.ndim(known) == 1 and len(known) and \
                np.max(known) == np.min(known):
            self._check_element_shape(TensorShape([int(known[0])]).concatenate(value.shape[1:]))
        return self._with_flow(_split(value, self.element_shape, lengths_t))

    def size(self, name=None):
        """The number of elements (an int32 scalar)."""
        if not self._dynamic_size and self._size is not None:
            return _int32(self._size)
        return _length(self._flow)

    def close(self, name=None):
        return execute(get_op("NoOp"), (), {}, name=name or "TensorArrayClose")
