"""String ops: the core of ``tf.strings``, one registry row each.

A string tensor holds byte strings (``tf.constant("语言")`` is its UTF-8 bytes). Its value inside
the engine is a NumPy ``|S`` array (or an ``object`` array of bytes scalars when a string ends
in a NUL byte: see ``framework/tensor.py``'s ``string_array``); ``.numpy()`` gives TF's view, an
object array of Python ``bytes``. The kernels here read any of those as a flat list of ``bytes``
(:func:`string_list`), work in Python, and build their result with :func:`string_array`.

No string op has a gradient: every row is registered with ``grad=None`` (not differentiable),
like TF's ``NotDifferentiable`` string ops, so a tape records nothing for them.

The ops that take one string per element (``length``, ``upper``, ``substr``, ``to_number``, ...)
accept a ``tf.RaggedTensor`` too, as in TF: they run on its ``flat_values`` and keep its rows.
``split`` and ``bytes_split`` return a ``tf.RaggedTensor`` for inputs of rank >= 1 (a plain
tensor for a scalar), as TF does. Next to this module: ``regex_ops.py`` (regular expressions),
``string_hash_ops.py`` (``to_hash_bucket_fast``), ``string_codec_ops.py`` (``tf.io``'s
``decode_raw`` and base64) and ``unicode_ops.py`` (decoding and encoding text).

Where the engine deliberately differs from TF 2.21:

* ``to_number`` parses with Python (after TF's checks: optional whitespace and sign, digits,
  ``inf``/``nan``); results equal TF's for every decimal input (correctly rounded).
"""
import re

import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError, OutOfRangeError
from ..framework.registry import register_op
from ..framework.tensor import Tensor, convert_to_tensor, string_array, string_list
from ..framework.tensor_shape import TensorShape
from . import _shapes, array_ops, sort_ops
from ._dispatch import execute, int_tensor
from .logging_ops import _format as _summarize
from .ragged.ragged_tensor import RaggedTensor

__all__ = ["length", "join", "reduce_join", "format", "to_number", "string_to_number", "as_string", "upper",
           "lower", "strip", "substr", "split", "bytes_split"]

_STRING = frozenset([dtypes.string])


# --------------------------------------------------------------------------------------
# Helpers shared by the kernels and the public functions
# --------------------------------------------------------------------------------------
def _shape(value):
    return tuple(getattr(value, "shape", ()))


def _strings_out(flat, shape):
    """Kernel result: ``flat`` bytes as a value of ``shape`` (a scalar for rank 0)."""
    out = string_array(flat, shape)
    return out[()] if out.ndim == 0 else out


def _numbers_out(flat, shape, np_dtype):
    out = np.array(flat, dtype=np_dtype).reshape(shape)
    return out[()] if out.ndim == 0 else out


def _text(b):
    """Bytes as TF writes them into an error message (raw, undecodable bytes escaped)."""
    return b.decode("utf-8", "backslashreplace")


def _string_input(x, op_name, what="input"):
    """``x`` as a string tensor, or TF's error for a tensor of another dtype (eagerly; in a graph the
    row's op definition refuses it when the node is created, with TF's ``TypeError``)."""
    if isinstance(x, Tensor) or hasattr(x, "__tf_tensor__"):
        t = convert_to_tensor(x)
        if t.dtype != dtypes.string and ctx.graph is None:
            raise InvalidArgumentError(
                None, None, f"cannot compute {op_name} as input #0(zero-based) was expected to be a string tensor "
                            f"but is a {t.dtype.runtime_name} tensor [Op:{op_name}]")
        return t
    return convert_to_tensor(x, dtype=dtypes.string)


def _on_flat_values(fn, x, *args, **kwargs):
    """Run ``fn`` on a tensor, or on a RaggedTensor's ``flat_values`` (keeping its rows), as TF's dispatch does."""
    if isinstance(x, RaggedTensor):
        return x.with_flat_values(fn(x.flat_values, *args, **kwargs))
    return fn(x, *args, **kwargs)


def _attr_error(op_name, attr, value, allowed, signature, default):
    """TF's eager error for a string attr outside its allowed list (``unit="CHAR"``)."""
    allowed_text = ", ".join(f'"{a}"' for a in allowed)
    return InvalidArgumentError(
        None, None, f"Value for attr '{attr}' of \"{value}\" is not in the list of allowed values: {allowed_text}\n\t; "
                    f"NodeDef: {{{{node {op_name}}}}}; Op<name={op_name}; signature={signature}; attr={attr}:string,"
                    f"default=\"{default}\",allowed=[{allowed_text}]> [Op:{op_name}]")


_UNITS = ("BYTE", "UTF8_CHAR")


def _same_shape(out_dtype):
    def infer(ic):
        return [(out_dtype, ic.shape(0))]
    return infer


def _elementwise(name, fn, out_dtype=dtypes.string, doc="", inputs="input: string", **options):
    """Register a one-string-in, one-value-out op: ``fn(bytes, **attrs)`` per element."""
    def make(xp):
        def k(x, **attrs):
            flat = [fn(s, **attrs) for s in string_list(x)]
            if out_dtype is dtypes.string:
                return _strings_out(flat, _shape(x))
            return _numbers_out(flat, _shape(x), out_dtype.as_numpy_dtype)
        return k
    return register_op(name, kernel=make, infer=_same_shape(out_dtype), grad=None, dtypes=_STRING,
                       inputs=inputs, doc=doc, **options)


# --------------------------------------------------------------------------------------
# length, upper, lower, strip
# --------------------------------------------------------------------------------------
def _utf8_length(s):
    return sum(1 for b in s if b & 0xC0 != 0x80)


_STRING_LENGTH = _elementwise("StringLength", lambda s, unit="BYTE": len(s) if unit == "BYTE" else _utf8_length(s),
                              out_dtype=dtypes.int32, doc="The length of each string, in bytes or UTF-8 characters.")


def length(input, unit="BYTE", name=None):  # noqa: A002  (TF's argument name)
    """``tf.strings.length``: the length of each string (int32), in bytes or, with ``unit="UTF8_CHAR"``,
    in UTF-8 characters: ``length("语言") == 6``, ``length("语言", unit="UTF8_CHAR") == 2``.

    A character is counted at each byte that does not continue one (``0b10xxxxxx``), as TF counts them.
    """
    if unit not in _UNITS:
        raise _attr_error("StringLength", "unit", unit, _UNITS, "input:string -> output:int32", "BYTE")
    return _on_flat_values(lambda x: execute(_STRING_LENGTH, (_string_input(x, "StringLength"),), {"unit": unit},
                                             name=name), input)


def _upper(s, encoding=""):
    return s.upper() if not encoding else s.decode("utf-8").upper().encode("utf-8")


def _lower(s, encoding=""):
    return s.lower() if not encoding else s.decode("utf-8").lower().encode("utf-8")


_STRING_UPPER = _elementwise("StringUpper", _upper, doc="Uppercase (ASCII letters, or all with encoding='utf-8').")
_STRING_LOWER = _elementwise("StringLower", _lower, doc="Lowercase (ASCII letters, or all with encoding='utf-8').")


def _case(op, op_name, input, encoding, name):  # noqa: A002
    if encoding not in ("", "utf-8"):
        raise InvalidArgumentError(None, None, f"encoding must be \"\" or \"utf-8\", got \"{encoding}\" "
                                               f"[Op:{op_name}]")
    return _on_flat_values(lambda x: execute(op, (_string_input(x, op_name),), {"encoding": encoding}, name=name),
                           input)


def upper(input, name=None, encoding=""):  # noqa: A002
    """``tf.strings.upper``: ASCII letters uppercased (other bytes kept); ``encoding="utf-8"``: every
    letter, with Unicode's rules (``"ß"`` becomes ``"SS"``)."""
    return _case(_STRING_UPPER, "StringUpper", input, encoding, name)


def lower(input, name=None, encoding=""):  # noqa: A002
    """``tf.strings.lower``: ASCII letters lowercased; ``encoding="utf-8"``: every letter."""
    return _case(_STRING_LOWER, "StringLower", input, encoding, name)


_ASCII_SPACE = b" \t\n\v\f\r"
_STRING_STRIP = _elementwise("StringStrip", lambda s: s.strip(_ASCII_SPACE),
                             doc="Leading and trailing ASCII whitespace removed.")


def strip(input, name=None):  # noqa: A002
    """``tf.strings.strip``: leading and trailing ASCII whitespace (space, ``\\t\\n\\v\\f\\r``) removed."""
    return _on_flat_values(lambda x: execute(_STRING_STRIP, (_string_input(x, "StringStrip"),), name=name), input)


# --------------------------------------------------------------------------------------
# join, reduce_join
# --------------------------------------------------------------------------------------
def _join_kernel(xp):
    def k(*inputs, N=None, separator=""):  # noqa: N803  (TF attr name)
        sep = separator.encode("utf-8") if isinstance(separator, str) else separator
        shape = None
        for x in inputs:
            s = _shape(x)
            if s == ():
                continue
            if shape is None:
                shape = s
            elif s != shape:
                raise InvalidArgumentError(None, None, f"Input shapes do not match: {_shapes.fmt(list(shape))} vs. "
                                                       f"{_shapes.fmt(list(s))}")
        shape = () if shape is None else shape
        n = int(np.prod(shape, dtype=np.int64))
        columns = [string_list(x) * n if _shape(x) == () else string_list(x) for x in inputs]
        flat = [sep.join(parts) for parts in zip(*columns)] if columns else [b""] * n
        return _strings_out(flat, shape)
    return k


def _join_infer(ic):
    shape = TensorShape([])
    for i in range(len(ic.inputs)):
        s = ic.shape(i)
        if s.rank == 0:
            continue
        shape = s if shape.rank == 0 else shape.merge_with(s)
    return [(dtypes.string, shape)]


_STRING_JOIN = register_op("StringJoin", kernel=_join_kernel, infer=_join_infer, grad=None, dtypes=_STRING,
                           inputs="inputs: N * string",
                           doc="Elementwise concatenation of N string tensors (scalars broadcast).")


def join(inputs, separator="", name=None):
    """``tf.strings.join``: the strings of several tensors joined elementwise, with ``separator``.

    The tensors must have one shape, except scalars, which are used for every element:
    ``join([["a", "b"], "x"], separator="+") == ["a+x", "b+x"]``. Other shapes:
    ``InvalidArgumentError`` ("Input shapes do not match"). RaggedTensors of one row structure
    are joined on their ``flat_values``.
    """
    inputs = list(inputs)
    ragged = next((x for x in inputs if isinstance(x, RaggedTensor)), None)
    if ragged is not None:
        flat = [x.flat_values if isinstance(x, RaggedTensor) else x for x in inputs]
        return ragged.with_flat_values(join(flat, separator, name))
    tensors = tuple(_string_input(x, "StringJoin") for x in inputs)
    return execute(_STRING_JOIN, tensors, {"N": len(tensors), "separator": separator}, name=name)


def _reduce_join_kernel(xp):
    def k(inputs, reduction_indices, keep_dims=False, separator=""):
        sep = separator.encode("utf-8") if isinstance(separator, str) else separator
        shape = _shape(inputs)
        rank = len(shape)
        axes = [int(a) for a in np.asarray(reduction_indices).reshape(-1)]
        norm = []
        for a in axes:
            if not -rank <= a < rank:
                raise OutOfRangeError(None, None, f"Invalid reduction dimension {a} for input with {rank} "
                                                  f"dimension(s)")
            a = a + rank if a < 0 else a
            if a in norm:
                raise InvalidArgumentError(None, None, f"Duplicate reduction dimension {a}")
            norm.append(a)
        kept = [d for d in range(rank) if d not in norm]
        # TF joins along the listed axes with the *first* one varying fastest ([0, 1] on [[a, b], [c, d]]: "acbd").
        order = kept + list(reversed(norm))
        flat_in = string_list(inputs)
        arr = np.empty(len(flat_in), dtype=object)
        arr[:] = flat_in
        arr = arr.reshape(shape).transpose(order)
        kept_shape = tuple(shape[d] for d in kept)
        n_out = len_of(kept_shape)
        flat = [sep.join(row) for row in arr.reshape(n_out, -1).tolist()] if n_out else []
        out_shape = tuple(1 if d in norm else shape[d] for d in range(rank)) if keep_dims else kept_shape
        return _strings_out(flat, out_shape)
    return k


def _reduce_join_infer(ic):
    shape = ic.shape(0)
    axes = ic.constant_value(1)
    if shape.rank is None or axes is None:
        return [(dtypes.string, TensorShape(None))]
    rank = shape.rank
    norm = {int(a) + rank if int(a) < 0 else int(a) for a in np.asarray(axes).reshape(-1)}
    dims = shape.as_list()
    if ic.attrs.get("keep_dims"):
        return [(dtypes.string, TensorShape([1 if d in norm else dims[d] for d in range(rank)]))]
    return [(dtypes.string, TensorShape([dims[d] for d in range(rank) if d not in norm]))]


_REDUCE_JOIN = register_op("ReduceJoin", kernel=_reduce_join_kernel, infer=_reduce_join_infer, grad=None,
                           dtypes=_STRING, inputs="inputs: string, reduction_indices: int32",
                           doc="Strings joined along axes (the reduction of string tensors).")


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """``tf.strings.reduce_join``: the strings joined along ``axis`` (all axes when None), with ``separator``.

    ``reduce_join([["a", "b"], ["c", "d"]]) == "abcd"``, ``axis=0`` gives ``["ac", "bd"]``. An empty
    reduction gives ``b""``. An axis out of range is TF's ``OutOfRangeError``.

    A ``tf.RaggedTensor`` is joined along its last (ragged) axis, ``axis=-1``, one string per row
    (``UnsortedSegmentJoin`` of its values, as TF's ragged dispatch does); other axes of a
    RaggedTensor are not supported here (``ValueError``).
    """
    if isinstance(inputs, RaggedTensor):
        return _ragged_reduce_join(inputs, axis, keepdims, separator, name)
    x = _string_input(inputs, "ReduceJoin")
    if axis is None:
        rank = x.shape.rank
        if rank is None:
            raise ValueError("reduce_join with axis=None needs an input of known rank")
        axis = list(range(rank - 1, -1, -1))   # as TF: the last axis first, so the join is row-major
    axes = axis if isinstance(axis, Tensor) else int_tensor([int(a) for a in np.asarray(axis).reshape(-1)])
    return execute(_REDUCE_JOIN, (x, axes), {"keep_dims": bool(keepdims), "separator": separator}, name=name)


def _segment_join_kernel(xp):
    def k(inputs, segment_ids, num_segments, separator="", Tindices=None, Tnumsegments=None):  # noqa: N803
        sep = separator.encode("utf-8") if isinstance(separator, str) else separator
        n = int(np.asarray(num_segments))
        groups = [[] for _ in range(n)]
        for s, i in zip(string_list(inputs), np.asarray(segment_ids).reshape(-1).tolist()):
            if 0 <= i < n:
                groups[i].append(s)
        return _strings_out([sep.join(g) for g in groups], (n,))
    return k


_UNSORTED_SEGMENT_JOIN = register_op(
    "UnsortedSegmentJoin", kernel=_segment_join_kernel, grad=None,
    infer=lambda ic: [(dtypes.string, TensorShape([None]))],
    inputs="inputs: string, segment_ids: Tindices, num_segments: Tnumsegments",
    doc="The strings of each segment joined (segment_ids give each string's segment).")


def _ragged_reduce_join(rt, axis, keepdims, separator, name):
    rank = rt.shape.rank
    if axis is not None and not isinstance(axis, (list, tuple)) and int(axis) in (-1, rank - 1) and not keepdims:
        if isinstance(rt.values, RaggedTensor):
            return rt.with_values(_ragged_reduce_join(rt.values, -1, False, separator, name))
        ids = rt.value_rowids()
        attrs = {"separator": separator, "Tindices": ids.dtype, "Tnumsegments": dtypes.int64}
        return execute(_UNSORTED_SEGMENT_JOIN, (rt.values, ids, rt.nrows(out_type=dtypes.int64)), attrs, name=name)
    raise ValueError("reduce_join of a RaggedTensor is supported along its last axis (axis=-1, keepdims=False)")


# --------------------------------------------------------------------------------------
# format
# --------------------------------------------------------------------------------------
def _format_kernel(xp):
    def k(*inputs, template="", placeholder="{}", summarize=3, T=None):  # noqa: N803
        pieces = template.split(placeholder)
        out = [pieces[0]]
        for value, piece in zip(inputs, pieces[1:]):
            out.append(_summarize(np.asarray(value) if not isinstance(value, bytes) else np.asarray(value, object),
                                  summarize))
            out.append(piece)
        return np.bytes_("".join(out).encode("utf-8"))
    return k


_STRING_FORMAT = register_op("StringFormat", kernel=_format_kernel, infer=lambda ic: [(dtypes.string, TensorShape([]))],
                             grad=None, doc="A template with each placeholder replaced by a tensor's text.")


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001  (TF's name)
    """``tf.strings.format``: ``template`` with each ``placeholder`` replaced by one tensor's text, as ``tf.print``
    writes tensors: ``format("x = {}", tf.range(10)) == "x = [0 1 2 ... 7 8 9]"``.

    ``summarize`` elements are kept at each end of each dimension (``-1``: all of them). Strings
    inside are quoted (``"bob"``), bools print as 1 and 0. ``inputs`` is one tensor or a list; the
    number of placeholders must match it (``ValueError`` otherwise, as TF).
    """
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    tensors = tuple(convert_to_tensor(x) for x in inputs)
    count = template.count(placeholder)
    if count != len(tensors):
        raise ValueError(f"The template expects {count} tensors, but the inputs only has {len(tensors)}. Please "
                         f"ensure the number of placeholders in template matches inputs length.")
    return execute(_STRING_FORMAT, tensors, {"template": template, "placeholder": placeholder,
                                             "summarize": int(summarize), "T": [t.dtype for t in tensors]},
                   name=name)


# --------------------------------------------------------------------------------------
# to_number, as_string
# --------------------------------------------------------------------------------------
_TO_NUMBER_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.uint32, dtypes.uint64)
_FLOAT_TEXT = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_SPECIAL_FLOAT = re.compile(rb"[+-]?(inf|infinity|nan)", re.IGNORECASE)
_INT_TEXT = re.compile(rb"[+-]?\d+")


def _parse_number(s, out_type):
    t = s.strip(_ASCII_SPACE)
    np_type = out_type.as_numpy_dtype
    if out_type.is_floating:
        if _FLOAT_TEXT.fullmatch(t) or _SPECIAL_FLOAT.fullmatch(t):
            with np.errstate(over="ignore"):
                return np_type(float(t))
    elif _INT_TEXT.fullmatch(t):
        v = int(t)
        info = np.iinfo(np_type)
        if info.min <= v <= info.max:
            return v
    raise InvalidArgumentError(None, None, f"StringToNumberOp could not correctly convert string: {_text(s)}")


def _to_number_kernel(xp):
    def k(string_tensor, out_type=dtypes.float32):
        flat = [_parse_number(s, out_type) for s in string_list(string_tensor)]
        return _numbers_out(flat, _shape(string_tensor), out_type.as_numpy_dtype)
    return k


_STRING_TO_NUMBER = register_op("StringToNumber", kernel=_to_number_kernel, grad=None, dtypes=_STRING,
                                infer=lambda ic: [(ic.attrs.get("out_type", dtypes.float32), ic.shape(0))],
                                inputs="string_tensor: string",
                                doc="Each string parsed as a number of out_type.")


def to_number(input, out_type=dtypes.float32, name=None):  # noqa: A002
    """``tf.strings.to_number``: each string parsed as a number (float32 by default; float64, int32, int64,
    uint32, uint64). Surrounding ASCII whitespace is allowed; ``inf``, ``nan`` are floats; a float
    beyond float32 becomes ``inf``. Anything else: ``InvalidArgumentError`` ("StringToNumberOp could
    not correctly convert string: ...").
    """
    out_type = dtypes.as_dtype(out_type)
    if out_type not in _TO_NUMBER_TYPES:
        raise InvalidArgumentError(
            None, None, f"Value for attr 'out_type' of {out_type.name} is not in the list of allowed values: float, "
                        f"double, int32, int64, uint32, uint64\n\t; NodeDef: {{{{node StringToNumber}}}}; "
                        f"Op<name=StringToNumber; signature=string_tensor:string -> output:out_type; attr=out_type:"
                        f"type,default=DT_FLOAT,allowed=[DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_UINT32, "
                        f"DT_UINT64]> [Op:StringToNumber]")
    return _on_flat_values(lambda x: execute(_STRING_TO_NUMBER, (_string_input(x, "StringToNumber"),),
                                             {"out_type": out_type}, name=name), input)


string_to_number = to_number


def _as_string_format(dtype, precision, scientific, shortest, width, fill):
    """The printf format TF's AsString kernel builds (``%08.3f``), or its error."""
    kind = "float" if dtype.is_floating or dtype.is_complex else dtype.name
    if scientific and shortest:
        raise InvalidArgumentError(None, None, "Cannot select both scientific and shortest notation")
    if len(fill) > 1:
        raise InvalidArgumentError(None, None, f"Fill string must be one or fewer characters: \"{fill}\"")
    if kind != "float":
        for attr, on in (("scientific", scientific), ("shortest", shortest), ("precision", precision > -1)):
            if on:
                raise InvalidArgumentError(None, None, f"{attr} not supported for datatype {dtype.name}")
    fmt = "%"
    if fill:
        if fill not in " +-0#":
            raise InvalidArgumentError(None, None, f"Fill argument not supported: \"{fill}\"")
        fmt += fill
    if width > -1:
        fmt += str(width)
    if precision > -1:
        fmt += f".{precision}"
    if kind == "float":
        return fmt + ("g" if shortest else "e" if scientific else "f")
    if dtype == dtypes.string:
        return fmt + "s"
    return fmt + "d"


def _as_string_kernel(xp):
    def k(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", T=None):  # noqa: A002, N803
        dtype = T
        fmt = _as_string_format(dtype, precision, scientific, shortest, width, fill)
        shape = _shape(input)
        if dtype == dtypes.string:
            flat = [(fmt % _text(s)).encode("utf-8") for s in string_list(input)]
        elif dtype.is_bool:
            flat = [b"true" if v else b"false" for v in np.asarray(input).reshape(-1).tolist()]
        elif dtype.is_complex:
            flat = [f"({fmt % float(v.real)},{fmt % float(v.imag)})".encode() for v in np.asarray(input).reshape(-1)]
        elif dtype.is_floating:
            flat = [(fmt % float(v)).encode() for v in np.asarray(input).reshape(-1).tolist()]
        else:
            flat = [(fmt % int(v)).encode() for v in np.asarray(input).reshape(-1).tolist()]
        return _strings_out(flat, shape)
    return k


_AS_STRING = register_op("AsString", kernel=_as_string_kernel, infer=_same_shape(dtypes.string), grad=None,
                         doc="Each element as text (printf-style formatting).")


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """``tf.strings.as_string``: each element as text, with C's printf rules as TF: floats ``%f``
    (``3.5`` is ``"3.500000"``; ``precision``, ``scientific`` (``%e``), ``shortest`` (``%g``)), integers
    ``%d``, bools ``"true"``/``"false"``; ``width`` pads on the left with spaces or ``fill``.
    """
    x = input if isinstance(input, RaggedTensor) else convert_to_tensor(input)

    def run(t):
        return execute(_AS_STRING, (t,), {"precision": int(precision), "scientific": bool(scientific),
                                          "shortest": bool(shortest), "width": int(width), "fill": fill,
                                          "T": t.dtype}, name=name)
    return _on_flat_values(run, x)


# --------------------------------------------------------------------------------------
# substr
# --------------------------------------------------------------------------------------
def _char_starts(s):
    """Byte offsets of each UTF-8 character of ``s``, plus ``len(s)``."""
    return [i for i, b in enumerate(s) if b & 0xC0 != 0x80] + [len(s)]


def _substr_one(s, pos, n, unit, index):
    if unit == "UTF8_CHAR":
        starts = _char_starts(s)
        size = len(starts) - 1
    else:
        size = len(s)
    if pos < -size or pos > size:
        raise InvalidArgumentError(None, None, f"pos {pos} out of range for string b'{_text(s)}' at index {index}")
    if pos < 0:
        pos += size
    end = size if n < 0 else min(size, pos + n)   # (a negative len reads to the end, as TF's unsigned min)
    if unit == "UTF8_CHAR":
        return s[starts[pos]:starts[end]]
    return s[pos:end]


def _substr_kernel(xp):
    def k(input, pos, len, unit="BYTE", T=None):  # noqa: A002, N803
        shape = _shape(input)
        try:
            out_shape = np.broadcast_shapes(shape, np.shape(pos), np.shape(len))
        except ValueError:
            raise InvalidArgumentError(None, None, f"Incompatible shapes: {_shapes.fmt(list(shape))} vs. "
                                                   f"{_shapes.fmt(list(np.shape(pos)))}") from None
        strings = np.empty(len_of(shape), dtype=object)
        strings[:] = string_list(input)
        strings = strings.reshape(shape)
        s_b = np.broadcast_to(strings, out_shape).reshape(-1).tolist()
        p_b = np.broadcast_to(np.asarray(pos), out_shape).reshape(-1).tolist()
        n_b = np.broadcast_to(np.asarray(len), out_shape).reshape(-1).tolist()
        flat = [_substr_one(s, int(p), int(n), unit, i) for i, (s, p, n) in enumerate(zip(s_b, p_b, n_b))]
        return _strings_out(flat, out_shape)
    return k


def len_of(shape):
    return int(np.prod(shape, dtype=np.int64))


def _substr_infer(ic):
    try:
        shape = _shapes.broadcast_shapes(_shapes.broadcast_shapes(ic.shape(0), ic.shape(1)), ic.shape(2))
    except ValueError:
        shape = TensorShape(None)
    return [(dtypes.string, shape)]


_SUBSTR = register_op("Substr", kernel=_substr_kernel, infer=_substr_infer, grad=None,
                      inputs="input: string, pos: T, len: T",
                      type_attrs={"T": frozenset([dtypes.int32, dtypes.int64])},
                      doc="Substrings from pos, len long (bytes or UTF-8 characters).")


def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002
    """``tf.strings.substr``: ``len`` bytes (or UTF-8 characters) of each string from ``pos``.

    A negative ``pos`` counts from the end; a ``len`` past the end (or negative) stops at the end.
    ``pos`` beyond the string is ``InvalidArgumentError`` ("pos 5 out of range for string b'abc' at
    index 0"). ``pos`` and ``len`` are scalars, or broadcast against ``input``.
    """
    if unit not in _UNITS:
        raise _attr_error("Substr", "unit", unit, _UNITS, "input:string, pos:T, len:T -> output:string", "BYTE")

    def run(x):
        p = pos if isinstance(pos, Tensor) else convert_to_tensor(pos, dtype=dtypes.int32)
        n = len if isinstance(len, Tensor) else convert_to_tensor(len, dtype=p.dtype)
        return execute(_SUBSTR, (_string_input(x, "Substr"), p, n), {"unit": unit, "T": p.dtype}, name=name)
    return _on_flat_values(run, input)


# --------------------------------------------------------------------------------------
# split, bytes_split (RaggedTensor results)
# --------------------------------------------------------------------------------------
def _split_outputs(pieces_per_row):
    """TF's sparse triple for split results: indices [n, 2] int64, values, dense_shape [2] int64."""
    indices = [(r, j) for r, pieces in enumerate(pieces_per_row) for j in range(len(pieces))]
    values = [p for pieces in pieces_per_row for p in pieces]
    width = max((len(p) for p in pieces_per_row), default=0)
    return (np.array(indices, dtype=np.int64).reshape(-1, 2), _strings_out(values, (len(values),)),
            np.array([len(pieces_per_row), width], dtype=np.int64))


def _split_v2_kernel(xp):
    def k(input, sep, maxsplit=-1):  # noqa: A002
        sep = string_list(sep)[0]
        limit = -1 if maxsplit is None or maxsplit < 0 else maxsplit
        if sep:
            rows = [s.split(sep, limit) for s in string_list(input)]
        else:
            rows = [s.split(None, limit) for s in string_list(input)]
            if limit >= 0:   # (Python keeps the tail's leading whitespace after the last split; TF strips it too)
                rows = [r[:-1] + [r[-1].strip(_ASCII_SPACE)] if r else r for r in rows]
        return _split_outputs(rows)
    return k


def _split_infer(ic):
    return [(dtypes.int64, TensorShape([None, 2])), (dtypes.string, TensorShape([None])),
            (dtypes.int64, TensorShape([2]))]


_STRING_SPLIT_V2 = register_op("StringSplitV2", kernel=_split_v2_kernel, infer=_split_infer, grad=None,
                               num_outputs=3, inputs="input: string, sep: string",
                               doc="Each string of a vector split on sep (whitespace when empty): a sparse triple.")


def _split_v1_kernel(xp):
    def k(input, delimiter, skip_empty=True):  # noqa: A002
        delims = string_list(delimiter)[0]
        rows = []
        for s in string_list(input):
            if not delims:
                pieces = [s[i:i + 1] for i in range(len(s))]
            else:
                pieces = re.split(b"[" + re.escape(delims) + b"]", s)
                if skip_empty:
                    pieces = [p for p in pieces if p]
            rows.append(pieces)
        return _split_outputs(rows)
    return k


_STRING_SPLIT = register_op("StringSplit", kernel=_split_v1_kernel, infer=_split_infer, grad=None, num_outputs=3,
                            inputs="input: string, delimiter: string",
                            doc="Each string of a vector split on any delimiter byte (bytes when empty).")


def _ragged_from_triple(indices, values, dense_shape, vector):
    """The RaggedTensor of a split's sparse triple: one row per string of ``vector`` (a static count when known)."""
    n = vector.shape[0] if vector.shape.rank == 1 else None
    if n is None:
        return RaggedTensor.from_value_rowids(values, indices[:, 0], nrows=dense_shape[0], validate=False)
    splits = sort_ops.searchsorted(indices[:, 0], array_ops.range(n + 1, dtype=dtypes.int64), side="left",
                                   out_type=dtypes.int64)
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def _split_rows(x, run):
    """Apply a vector split (``run(vector) -> RaggedTensor``) to a tensor or RaggedTensor of any rank (TF's way)."""
    if isinstance(x, RaggedTensor):
        return x.with_flat_values(_split_rows(x.flat_values, run))
    rank = x.shape.rank
    if rank == 0:
        return run(array_ops.reshape(x, [1])).values
    if rank == 1:
        return run(x)
    if rank is None:
        raise ValueError("split needs an input of known rank")
    return _split_rows(RaggedTensor.from_tensor(x, ragged_rank=rank - 1), run)


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """``tf.strings.split``: each string split into pieces, a ``tf.RaggedTensor`` one rank higher
    (a vector for a scalar ``input``).

    ``sep=None`` splits on runs of ASCII whitespace and drops empty pieces (Python's ``str.split()``);
    a ``sep`` splits on exactly it and keeps empty pieces (``"a,,b"`` gives ``["a", "", "b"]``).
    ``maxsplit`` limits the number of splits per string.
    """
    x = input if isinstance(input, RaggedTensor) else _string_input(input, "StringSplitV2")
    sep_t = convert_to_tensor(b"" if sep is None else sep, dtype=dtypes.string)

    def run(vector):
        indices, values, shape = execute(_STRING_SPLIT_V2, (vector, sep_t), {"maxsplit": int(maxsplit)}, name=name)
        return _ragged_from_triple(indices, values, shape, vector)
    return _split_rows(x, run)


def bytes_split(input, name=None):  # noqa: A002
    """``tf.strings.bytes_split``: each string split into its bytes, a ``tf.RaggedTensor`` one rank higher
    (a vector for a scalar): ``bytes_split("Duck") == [b"D", b"u", b"c", b"k"]``."""
    x = input if isinstance(input, RaggedTensor) else _string_input(input, "StringSplit")
    empty = convert_to_tensor(b"", dtype=dtypes.string)

    def run(vector):
        indices, values, shape = execute(_STRING_SPLIT, (vector, empty), {"skip_empty": False}, name=name)
        return _ragged_from_triple(indices, values, shape, vector)
    return _split_rows(x, run)
