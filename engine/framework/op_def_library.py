"""Checking an op's inputs when a graph node is made, as TF's ``op_def_library`` does.

In TensorFlow every op has an *op definition* (``REGISTER_OP`` in C++): its inputs, each with a
type, and its type attributes with the dtypes each may take::

    REGISTER_OP("AddV2").Input("x: T").Input("y: T").Output("z: T")
        .Attr("T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, ...}")
    REGISTER_OP("LogicalOr").Input("x: bool").Input("y: bool").Output("z: bool")
    REGISTER_OP("OneHot").Input("indices: TI").Input("depth: int32").Input("on_value: T")
        .Input("off_value: T").Attr("TI: {uint8, int8, int32, int64} = DT_INT64")
    REGISTER_OP("ConcatV2").Input("values: N * T").Input("axis: Tidx")

When Python builds a node (``tf.Graph``, ``tf.function`` tracing), ``op_def_library`` walks the
inputs in order. The first input of type ``T`` *infers* ``T`` (and must be one of T's allowed dtypes);
every later input of type ``T`` must have that same dtype; an input of a fixed type must have it.
Each failure is a ``TypeError`` raised right then, at construction, naming the op and the input::

    Input 'y' of 'AddV2' Op has type int32 that does not match type float32 of argument 'x'.
    Input 'y' of 'LogicalOr' Op has type int32 that does not match expected type of bool.
    Value passed to parameter 'indices' has DataType float32 not in list of allowed values: uint8, int8, int32, int64
    Tensors in list passed to 'values' of 'ConcatV2' Op have types [float32, int32] that don't all match.

Eagerly, TF skips this library: the kernel's own check fails instead, with ``InvalidArgumentError``
("cannot compute AddV2 as input #1(zero-based) was expected to be a float tensor but is a int32
tensor"). The engine does the same: its op functions check eagerly (``ops/_dispatch.py``), and
graph construction checks here, from the op's registry row, so an eager op never pays for this.

A row declares its definition with ``inputs=`` (TF's ``Input`` lines, comma-separated: ``"x: T, y: T"``,
``"condition: bool, t: T, e: T"``, ``"values: N * T, axis: Tidx"``) and ``type_attrs=`` (each type
attribute's allowed dtypes; an attribute left out accepts any). A row without ``inputs`` has no
constraint checked here.

The allowed dtypes are listed in one fixed order (TF lists them in each op definition's order, which
for most ops is this one); the engine's dtypes are fewer than TF's (no bfloat16, few complex kernels),
so a list may be shorter than TF's.
"""
from . import dtypes as _dtypes

__all__ = ["Arg", "parse_inputs", "check_inputs", "mismatch_error", "fixed_type_error", "not_allowed_error",
           "list_mismatch_error", "conversion_error", "allowed_names"]

# The order TF's op definitions mostly list dtypes in (``TF_CALL_REAL_NUMBER_TYPES`` and friends).
_ORDER = ["bfloat16", "float16", "float32", "float64", "uint8", "int8", "uint16", "int16", "int32", "uint32",
          "uint64", "int64", "complex64", "complex128", "bool", "string", "resource", "variant"]


class Arg:
    """One input of an op definition: its name, its type (an attr name like ``"T"`` or a fixed DType),
    and whether it is a list (``N * T``)."""

    __slots__ = ("name", "type_attr", "dtype", "is_list")

    def __init__(self, name, type_attr=None, dtype=None, is_list=False):
        self.name, self.type_attr, self.dtype, self.is_list = name, type_attr, dtype, is_list

    def __repr__(self):
        kind = self.type_attr or self.dtype.name
        return f"{self.name}: {'N * ' if self.is_list else ''}{kind}"


def parse_inputs(spec):
    """``"x: T, y: T"`` -> ``(Arg('x', 'T'), Arg('y', 'T'))``; a lower-case type is a fixed dtype."""
    if spec is None:
        return None
    args = []
    for part in spec.split(","):
        name, _, kind = (p.strip() for p in part.partition(":"))
        is_list = "*" in kind
        if is_list:
            kind = kind.split("*")[1].strip()
        if kind[:1].islower():
            args.append(Arg(name, dtype=_dtypes.as_dtype(kind), is_list=is_list))
        else:
            args.append(Arg(name, type_attr=kind, is_list=is_list))
    if sum(a.is_list for a in args) > 1:
        raise ValueError(f"an op definition with more than one list input is not supported: {spec!r}")
    return tuple(args)


def allowed_names(allowed):
    return ", ".join(sorted((d.name for d in allowed), key=lambda n: (_ORDER.index(n) if n in _ORDER else 99, n)))


# --- TF's messages ------------------------------------------------------------------------------
def mismatch_error(op_name, arg_name, got, expected, inferred_from):
    return TypeError(f"Input '{arg_name}' of '{op_name}' Op has type {got.name} that does not match type "
                     f"{expected.name} of argument '{inferred_from}'.")


def fixed_type_error(op_name, arg_name, got, expected):
    return TypeError(f"Input '{arg_name}' of '{op_name}' Op has type {got.name} that does not match expected "
                     f"type of {expected.name}.")


def not_allowed_error(arg_name, got, allowed):
    return TypeError(f"Value passed to parameter '{arg_name}' has DataType {got.name} not in list of allowed "
                     f"values: {allowed_names(allowed)}")


def list_mismatch_error(op_name, arg_name, got):
    return TypeError(f"Tensors in list passed to '{arg_name}' of '{op_name}' Op have types "
                     f"[{', '.join(d.name for d in got)}] that don't all match.")


def conversion_error(op_name, arg_name, value, dtype):
    """A Python value that cannot take the dtype its input was inferred to have (``bool_tensor & 1``)."""
    first = value
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    return TypeError(f"Expected {dtype.name} passed to parameter '{arg_name}' of op '{op_name}', got {value!r} of "
                     f"type '{type(value).__name__}' instead. Error: Expected {dtype.name}, but got {first!r} of "
                     f"type '{type(first).__name__}'.")


# --- the check ------------------------------------------------------------------------------------
def _spread(args, n_inputs):
    """Pair each of ``n_inputs`` flat inputs with its Arg (a list Arg takes what the others leave)."""
    fixed = len(args) - sum(a.is_list for a in args)
    n_list = n_inputs - fixed
    out = []
    for a in args:
        if a.is_list:
            out.append((a, n_list))
        else:
            out.append((a, 1))
    return out


def check_inputs(op_def, inputs):
    """Raise TF's ``TypeError`` if ``inputs`` (tensors, in order) do not fit ``op_def``'s definition."""
    attrs, inferred_from = {}, {}
    allowed = op_def.type_attrs
    i = 0
    for arg, count in _spread(op_def.signature, len(inputs)):
        group = inputs[i:i + count]
        i += count
        if not group:
            continue
        kinds = [t.dtype for t in group]
        if arg.dtype is not None:
            for t in group:
                if t.dtype != arg.dtype:
                    raise fixed_type_error(op_def.name, arg.name, t.dtype, arg.dtype)
            continue
        if arg.is_list and any(k != kinds[0] for k in kinds):
            raise list_mismatch_error(op_def.name, arg.name, kinds)
        got = kinds[0]
        attr = arg.type_attr
        if attr in attrs:
            if got != attrs[attr]:
                raise mismatch_error(op_def.name, arg.name, got, attrs[attr], inferred_from[attr])
            continue
        ok = allowed.get(attr)
        if ok is not None and got not in ok:
            raise not_allowed_error(arg.name, got, ok)
        attrs[attr], inferred_from[attr] = got, arg.name
