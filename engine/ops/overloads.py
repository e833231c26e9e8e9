"""Python operators on tensors and variables: ``x + y`` is ``tf.add(x, y)``.

TensorFlow attaches operators to ``Tensor`` from its math module; so does the
engine, here, once every op exists. Each operator binds its registry op
(``x + y`` is ``AddV2``) exactly as the public function does, through
``binary_op`` and the one door, ``execute``; that call is what the dispatch
benchmark measures. In a graph, operator nodes get TF's lower-case names
("add", "mul"...).
"""
import numpy as np

from ..framework.graph import SymbolicTensor
from ..framework.tensor import EagerTensor, Tensor, constant, converted_by_wrapper, set_auto_packing
from . import array_ops, linalg_ops, math_ops, slicing
from ._dispatch import binary_inputs, binary_op, to_tensor
from ..framework.errors import InvalidArgumentError

_NP_BOOL = np.dtype(bool)

__all__ = []


# --------------------------------------------------------------------------------------
# Arithmetic and comparison operators: one registry op each, through the one door
# --------------------------------------------------------------------------------------
# Graph nodes made by operators get TF's lower-case names ("add", "mul"...), as in TF graphs.
def _add(x, y):
    return binary_op("AddV2", x, y, "add", convert=math_ops._add_inputs)


def _radd(y, x):
    return binary_op("AddV2", x, y, "add", convert=math_ops._add_inputs)


def _mul(x, y):
    """``*``: ``Mul``; on bool tensors a logical AND, as TF's operator (``tf.multiply`` refuses bool)."""
    if type(x) is EagerTensor and x._value.dtype != _NP_BOOL:
        return binary_op("Mul", x, y, "mul")
    return math_ops._mul_operator(x, y, name="mul")


def _rmul(y, x):
    if type(y) is EagerTensor and y._value.dtype != _NP_BOOL:
        return binary_op("Mul", x, y, "mul", convert=_reflected_inputs)
    return math_ops._mul_operator(x, y, name="mul")


def _pow(x, y):
    return math_ops.pow(x, y, name="pow")


def _rpow(y, x):
    return math_ops.pow(x, y, name="pow")


def _reflected_inputs(op_type, x, y):
    """``[1.0, 2.0] - t``: TF's reflected operator converts its left operand before the op runs
    (its errors then end as a tensor's: "[Op:Sub] name: "; see ``framework/tensor.py``)."""
    return converted_by_wrapper(*binary_inputs(op_type, x, y))


def _operator(op_type, graph_name):
    """``x (op) y`` and its reflected form ``y (op) x`` (``2 - x``), both binding ``op_type``."""
    def forward(x, y):
        return binary_op(op_type, x, y, graph_name)

    def reflected(y, x):
        return binary_op(op_type, x, y, graph_name, convert=_reflected_inputs)
    forward.__name__, reflected.__name__ = f"_{graph_name.lower()}", f"_r{graph_name.lower()}"
    return forward, reflected


def _bool_or_bitwise(logical, bitwise, logical_op, bitwise_op):
    """``&``, ``|``, ``^``: the logical op on bool tensors, the bitwise op on integers. A Python number
    beside a bool tensor is refused (TF: "Cannot convert 1 to EagerTensor of dtype bool")."""
    def forward(x, y):
        x, y = _as_pair(x, y, logical_op, bitwise_op)
        return logical(x, y) if x.dtype.is_bool else bitwise(x, y)

    def reflected(y, x):
        return forward(x, y)
    return forward, reflected


def _as_pair(x, y, logical_op, bitwise_op):
    tensor = x if isinstance(x, Tensor) else y
    is_bool = isinstance(tensor, Tensor) and tensor.dtype.is_bool
    return binary_inputs(logical_op if is_bool else bitwise_op, x, y)


def _invert(x):
    x = to_tensor(x)
    return math_ops.logical_not(x) if x.dtype.is_bool else math_ops.invert(x)


def _eq(x, y):
    """TF2's ``==``: elementwise; ``None`` and incompatible shapes compare as False."""
    if y is None:
        return False
    try:
        return math_ops.equal(x, y)
    except Exception as error:
        if isinstance(error, (InvalidArgumentError, ValueError)) and "shapes" in str(error).lower():
            return constant(False)
        raise


def _ne(x, y):
    if y is None:
        return True
    try:
        return math_ops.not_equal(x, y)
    except Exception as error:
        if isinstance(error, (InvalidArgumentError, ValueError)) and "shapes" in str(error).lower():
            return constant(True)
        raise


_BINARY = {
    "add": (_add, _radd), "sub": _operator("Sub", "sub"), "mul": (_mul, _rmul),
    "floordiv": _operator("FloorDiv", "floordiv"), "mod": _operator("FloorMod", "mod"), "pow": (_pow, _rpow),
    # comparisons have no reflected form: Python tries ``y > x`` for ``x < y`` itself
    "lt": (_operator("Less", "Less")[0], None), "le": (_operator("LessEqual", "LessEqual")[0], None),
    "gt": (_operator("Greater", "Greater")[0], None), "ge": (_operator("GreaterEqual", "GreaterEqual")[0], None),
}


def _truediv(x, y):
    return math_ops.truediv(x, y, name="truediv")


def _matmul(x, y):
    return linalg_ops.matmul(x, y, name="matmul")


def _getitem(x, key):
    return slicing.getitem(x, key)


def install(cls):
    """Attach every operator to ``cls`` (``Tensor``; ``variables.py`` gives ``Variable`` the same, on its value)."""
    for name, (forward, reflected) in _BINARY.items():
        setattr(cls, f"__{name}__", forward)
        if reflected is not None:
            setattr(cls, f"__r{name}__", reflected)
    cls.__truediv__ = _truediv
    cls.__rtruediv__ = lambda y, x: math_ops.truediv(x, y, name="truediv")
    cls.__matmul__ = _matmul
    cls.__rmatmul__ = lambda y, x: linalg_ops.matmul(x, y, name="matmul")
    for name, (forward, reflected) in {
        "and": _bool_or_bitwise(math_ops.logical_and, math_ops.bitwise_and, "LogicalAnd", "BitwiseAnd"),
        # (TF's logical_xor is (x | y) & ~(x & y): its first op, and the one its errors name, is LogicalOr)
        "or": _bool_or_bitwise(math_ops.logical_or, math_ops.bitwise_or, "LogicalOr", "BitwiseOr"),
        "xor": _bool_or_bitwise(math_ops.logical_xor, math_ops.bitwise_xor, "LogicalOr", "BitwiseXor"),
    }.items():
        setattr(cls, f"__{name}__", forward)
        setattr(cls, f"__r{name}__", reflected)
    cls.__invert__ = _invert
    cls.__neg__ = lambda x: math_ops.negative(x)
    cls.__pos__ = lambda x: x
    cls.__abs__ = lambda x: math_ops.abs(x)
    cls.__eq__ = _eq
    cls.__ne__ = _ne
    cls.__getitem__ = _getitem
    cls.OVERLOADABLE_OPERATORS = frozenset(n for n in dir(cls) if n.startswith("__") and n.endswith("__"))


def unhashable(kind):
    def __hash__(self):
        raise TypeError(f"{kind} is unhashable. Instead, use {kind.lower()}.ref() as the key.")
    return __hash__


install(Tensor)
Tensor.__hash__ = unhashable("Tensor")  # defining __eq__ would otherwise reset it


def _symbolic_eq(x, y):
    """A TF1 graph's tensors compare by identity (they key feed_dicts); a tf.function's elementwise."""
    return _eq(x, y) if x._op.graph.building_function else x is y


def _symbolic_ne(x, y):
    return _ne(x, y) if x._op.graph.building_function else x is not y


SymbolicTensor.__eq__ = _symbolic_eq
SymbolicTensor.__ne__ = _symbolic_ne





# A list holding tensors converts to one tensor by stacking it (TF's auto-packing): ``tf.constant``'s
# module defines conversions, the op that packs (``Pack``) is the op library's.
set_auto_packing(array_ops.stack)
