"""Graph-level building blocks: constants, placeholders, no-ops, and resource (variable) ops.

A *resource* is a handle to state that outlives one run: a variable. At run
time a handle is any object with a ``_value`` attribute holding the current
array: an eager ``tf.Variable`` itself, or a slot in a ``Session`` 's resource
table for variables created in graph mode. ``ReadVariableOp`` reads
``handle._value``; the assign ops replace it.
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


def _freeze(value):
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
        return value[()] if getattr(value, "ndim", 1) == 0 else value
    return k


def _read_infer(ic):
    return [(ic.attrs.get("dtype", dtypes.float32), ic.attrs.get("shape", TensorShape(None)))]


register_op("ReadVariableOp", kernel=_read_kernel, infer=_read_infer, grad=lambda op, g: g,
            saves_inputs=False, saves_outputs=False, stateful=True, resource_input=True, persistent=True,
            linear="identity",
            doc="Reads a variable's current value.")


def _assign_kernel(combine):
    """``combine`` is None (assign) or a ufunc (``np.add``/``np.subtract``) for assign_add/assign_sub."""
    def make(xp):
        def k(handle, value, dtype=None):
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
            handle._value = _freeze(value)
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
    register_op(_name, kernel=_assign_kernel(_combine), infer=lambda ic: [], num_outputs=0, stateful=True,
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
        handle._value = _freeze(new)
        return ()
    return k


_STRIDED_SLICE_ASSIGN = register_op(
    "ResourceStridedSliceAssign", kernel=_strided_slice_assign_kernel, infer=lambda ic: [], num_outputs=0,
    stateful=True, resource_input=True,
    doc="``v[begin:end:strides] = value`` on a variable (the op behind ``v[1:3].assign(...)``).")


from .slicing import _kernel_index  # noqa: E402  (slicing builds on this module: imported last)
