"""Graph-level building blocks: constants, placeholders, no-ops, and resource (variable) ops.

A *resource* is a handle to state that outlives one run: a variable. At run
time a handle is any object with a ``_value`` attribute holding the current
array: an eager ``tf.Variable`` itself, or a slot in a ``Session`` 's resource
table for variables created in graph mode. ``ReadVariableOp`` reads
``handle._value``; the assign ops replace it.

A handle may also stand for a variable that lives in another process, on a
parameter server (``distribute/ps_values.py``): its ``_value`` is fetched
over gRPC, and it has a ``remote_update(op_type, value)`` method. The assign
ops call it, so the update (``AssignAddVariableOp``...) happens where the
variable lives, atomically: two workers adding to the same variable at the
same time never lose an update, which a read here and a write back could.
"""
import numpy as np

from ..eager.execute import execute
from ..framework import dtypes
from ..framework.errors import FailedPreconditionError, InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape

__all__ = []


class ResourceSlot:
    """Session-owned storage for one graph-mode variable."""

    __slots__ = ("name", "_value")

    def __init__(self, name):
        self.name = name
        self._value = None

    def __repr__(self):
        return f"<ResourceSlot {self.name} {'uninitialized' if self._value is None else 'initialized'}>"


def freeze_buffer(value):
    """The array a variable keeps: a read-only view, so snapshots read from it can never change."""
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        value = value.view()
        value.flags.writeable = False
    return value


# --- constants, placeholders, grouping --------------------------------------------------------
register_op("Const", kernel=lambda xp: (lambda value, dtype: value),
            infer=lambda ic: [(ic.attrs["dtype"], TensorShape(np.shape(ic.attrs["value"])))],
            doc="A value stored in the graph.")


def _placeholder_kernel(xp):
    def k(dtype, shape=None, name=None):
        shape_text = "<unknown>" if shape is None or shape.rank is None else \
            "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"
        raise InvalidArgumentError(None, None, f"You must feed a value for placeholder tensor '{name}' with dtype "
                                               f"{dtype.name} and shape {shape_text}")
    return k


register_op("Placeholder", kernel=_placeholder_kernel,
            infer=lambda ic: [(ic.attrs["dtype"], ic.attrs.get("shape") or TensorShape(None))],
            doc="An input that must be fed at run time.")
register_op("PlaceholderWithDefault", kernel=lambda xp: (lambda default, dtype=None, shape=None: default),
            infer=lambda ic: [(ic.dtype(0), ic.attrs.get("shape") or ic.shape(0))], grad=lambda op, g: g,
            linear="identity",
            doc="An input that may be fed; otherwise it takes the value of its input.")
_NO_OP = register_op("NoOp", kernel=lambda xp: (lambda *args: ()), infer=lambda ic: [], num_outputs=0,
                     doc="Does nothing; used to group control dependencies (tf.group).")


def no_op(name=None):
    """``tf.no_op()``: does nothing. Eagerly it returns None; in a graph, the ``NoOp`` Operation (a target for
    control dependencies)."""
    result = execute(_NO_OP, (), {}, name=name)
    return None if isinstance(result, (list, tuple)) else result


# --- resources ----------------------------------------------------------------------------------
def _var_handle_kernel(xp):
    def k(dtype, shape, shared_name, eager_variable=None, _runtime=None):
        if eager_variable is not None:
            return eager_variable
        return _runtime.resource(shared_name)
    return k


register_op("VarHandleOp", kernel=_var_handle_kernel,
            infer=lambda ic: [(dtypes.resource, TensorShape([]))], stateful=True, needs_runtime=True,
            persistent=True,
            doc="Produces the handle of a variable.")


def _read_kernel(xp):
    def k(handle, dtype=None, shape=None):
        value = handle._value
        if value is None:
            raise FailedPreconditionError(
                None, None, f"Could not find variable {handle.name}. This could mean that the variable has been "
                            f"deleted. In TF1, it can also mean the variable is uninitialized: run "
                            f"tf.compat.v1.global_variables_initializer() (or the variable's initializer) first.")
        return value if value.ndim else value[()]   # (a rank-0 value is read as a NumPy scalar)
    return k


def _read_infer(ic):
    return [(ic.attrs.get("dtype", dtypes.float32), ic.attrs.get("shape", TensorShape(None)))]


register_op("ReadVariableOp", kernel=_read_kernel, infer=_read_infer, grad=lambda op, g: g,
            saves_inputs=False, saves_outputs=False, stateful=True, resource_input=True, persistent=True,
            linear="identity",
            doc="Reads a variable's current value.")


def _assign_kernel(op_type, combine):
    """``combine`` is None (assign) or a ufunc (``np.add``/``np.subtract``) for assign_add/assign_sub."""
    def make(xp):
        def k(handle, value, dtype=None):
            update_remotely = getattr(handle, "remote_update", None)
            if update_remotely is not None:     # a parameter server's variable: updated where it lives
                update_remotely(op_type, value)
                return ()
            if combine is not None:
                current = handle._value
                if _can_update_in_place(handle, current, value):
                    current.flags.writeable = True   # nobody else can see this buffer (see Variable._update)
                    try:
                        combine(current, value, out=current)
                    finally:
                        current.flags.writeable = False
                    return ()
                value = combine(_read_kernel(xp)(handle), value)  # reading raises if uninitialized
            handle._value = freeze_buffer(value)
            return ()
        return k
    return make


def _can_update_in_place(handle, current, value):
    """An eager variable's buffer that no tensor or array shares (``Variable._sole_owner``), same shape/dtype."""
    return (isinstance(current, np.ndarray) and isinstance(value, np.ndarray) and current.ndim
            and current.shape == value.shape and current.dtype == value.dtype
            and hasattr(handle, "_sole_owner") and handle._sole_owner(current, extra_refs=1))


for _name, _combine in [("AssignVariableOp", None), ("AssignAddVariableOp", np.add),
                        ("AssignSubVariableOp", np.subtract)]:
    register_op(_name, kernel=_assign_kernel(_name, _combine), infer=lambda ic: [], num_outputs=0, stateful=True,
                resource_input=True, quiet_fp=_combine is not None,
                doc="Writes a variable (replacing its buffer, so earlier reads stay valid).")


# --- sliced assignment: ``v[1:3].assign(...)`` ----------------------------------------------------
def _strided_slice_assign_kernel(xp):
    def k(handle, begin, end, strides, value, dtype=None, **attrs):
        current = _read_kernel(xp)(handle)
        current = xp.asarray(current)
        index = _kernel_index(current.shape, begin, end, strides, attrs)
        target = current[index]
        try:   # the value broadcasts against the slice, as in TF 2.21 (v[1:3].assign([5.]))
            value = xp.broadcast_to(value, target.shape)
        except ValueError:
            raise InvalidArgumentError(
                None, None, f"sliced l-value shape [{','.join(str(d) for d in target.shape)}] does not match "
                            f"r-value shape [{','.join(str(d) for d in xp.shape(value))}] (and cannot be broadcast "
                            f"to it) [Op:ResourceStridedSliceAssign]") from None
        new = current.copy()
        new[index] = value
        handle._value = freeze_buffer(new)
        return ()
    return k


_STRIDED_SLICE_ASSIGN = register_op(
    "ResourceStridedSliceAssign", kernel=_strided_slice_assign_kernel, infer=lambda ic: [], num_outputs=0,
    stateful=True, resource_input=True,
    doc="``v[begin:end:strides] = value`` on a variable (the op behind ``v[1:3].assign(...)``).")



# --- sparse writes: ``v.scatter_add(tf.IndexedSlices(...))``, ``v.scatter_nd_update(...)`` ----------------
# TF's ResourceScatter* ops on the variable's buffer. The kernel computes the new array (``ufunc.at``,
# so duplicate indices accumulate) and stores it as an assignment does: tensors read earlier keep their
# values. Indices and shapes are checked as TF's kernels check them, with TF's messages.
def _scatter_error(op_name, message):
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _nd_scatter_args(op_name, shape, indices, updates):
    """NumPy index and values for ``v[indices[..., :k]] (op)= updates``, checked as TF's kernel checks."""
    if not shape:
        raise _scatter_error(op_name, "Output must be at least 1-D, got shape: []")
    if indices.ndim == 0:
        raise _scatter_error(op_name, f"Indices must be at least 1-D, got shape: {_dims(indices.shape)}")
    depth = indices.shape[-1]
    outer = indices.ndim - 1
    if depth > len(shape):
        raise _scatter_error(op_name, f"Dimensions [{depth},{len(shape)}) of input[shape={_dims(shape)}] must "
                                      f"match dimensions [{depth},{updates.ndim}) of "
                                      f"updates[shape={_dims(updates.shape)}]")
    expected = tuple(indices.shape[:-1]) + tuple(shape[depth:])
    if tuple(updates.shape) != expected:
        if tuple(updates.shape[:outer]) != tuple(indices.shape[:-1]):
            raise _scatter_error(op_name, f"Dimensions [0,{outer}) of indices[shape={_dims(indices.shape)}] = "
                                          f"{_dims(indices.shape[:-1])[1:-1]} must match dimensions [0,{outer}) "
                                          f"of updates[shape={_dims(updates.shape)}] = "
                                          f"{_dims(updates.shape[:outer])[1:-1]}")
        raise _scatter_error(op_name, f"Dimensions [{depth},{len(shape)}) of input[shape={_dims(shape)}] must match "
                                      f"dimensions [{outer},{updates.ndim}) of updates[shape={_dims(updates.shape)}]")
    flat = indices.reshape(-1, depth)
    bad = np.nonzero(((flat < 0) | (flat >= np.asarray(shape[:depth], dtype=np.int64))).any(axis=1))[0]
    if bad.size:
        row = int(bad[0])
        raise _scatter_error(op_name, f"indices[{row}] = [{', '.join(str(int(v)) for v in flat[row])}] does not "
                                      f"index into shape {_dims(shape)}")
    return tuple(flat[:, j] for j in range(depth)), updates.reshape((flat.shape[0],) + tuple(shape[depth:]))


def _row_scatter_args(op_name, shape, indices, updates):
    """NumPy index and values for ``v[indices] (op)= updates`` along the first dimension."""
    if not shape:
        raise _scatter_error(op_name, "params must be at least 1-D, got shape: []")
    expected = tuple(indices.shape) + tuple(shape[1:])
    if updates.ndim and tuple(updates.shape) != expected:
        raise _scatter_error(op_name, f"Must have updates.shape = indices.shape + params.shape[1:] or "
                                      f"updates.shape = [], got updates.shape {_dims(updates.shape)}, "
                                      f"indices.shape {_dims(indices.shape)}, params.shape {_dims(shape)}")
    flat = indices.reshape(-1)
    bad = np.nonzero((flat < 0) | (flat >= shape[0]))[0]
    if bad.size:
        raise _scatter_error(op_name, f"indices[{int(bad[0])}] = {int(flat[bad[0]])} is not in [0, {shape[0]})")
    values = np.broadcast_to(updates, expected).reshape((flat.shape[0],) + tuple(shape[1:]))
    return flat, values


def _scatter_kernel(op_name):
    nd = "Nd" in op_name
    kind = op_name.replace("ResourceScatter", "").replace("Nd", "")

    def make(xp):
        def k(handle, indices, updates, dtype=None):
            current = np.asarray(_read_kernel(xp)(handle))
            scatter_args = _nd_scatter_args if nd else _row_scatter_args
            where, values = scatter_args(op_name, list(current.shape), np.asarray(indices), np.asarray(updates))
            new = np.array(current, copy=True)
            if kind == "Update":
                new[where] = values
            else:
                {"Add": np.add, "Sub": np.subtract, "Max": np.maximum, "Min": np.minimum}[kind].at(new, where, values)
            handle._value = freeze_buffer(new)
            return ()
        return k
    return make


for _name in [f"ResourceScatter{nd}{kind}" for nd in ("", "Nd") for kind in ("Update", "Add", "Sub", "Max", "Min")]:
    register_op(_name, kernel=_scatter_kernel(_name), infer=lambda ic: [], num_outputs=0, stateful=True,
                resource_input=True, quiet_fp=True,
                doc="A sparse write to a variable: rows (or elements, Nd) at ``indices`` set/combined with updates.")


from .slicing import _kernel_index  # noqa: E402  (slicing builds on this module: imported last)
