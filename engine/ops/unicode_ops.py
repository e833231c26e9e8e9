"""Unicode string ops: ``tf.strings.unicode_decode``, ``unicode_encode``, ``unicode_split``, ``unicode_transcode``,
``unicode_decode_with_offsets`` and ``unicode_script``; one registry row per TF op, none differentiable.

A string tensor holds bytes; these ops read them as text in an ``input_encoding`` (``"UTF-8"``,
``"UTF-16-BE"``, ``"UTF-32-BE"``, ``"UTF-16-LE"``, ``"ISO-8859-1"``, ...: any encoding Python
knows, as ICU's converters in TF) and give code points (int32). The decode ops return a
``tf.RaggedTensor`` one rank higher than the input (a vector for a scalar input), as in TF.

Invalid input follows ``errors``: ``"replace"`` (the default) puts ``replacement_char``
(U+FFFD) for each maximal invalid subsequence (the Unicode recommendation ICU and Python share),
``"ignore"`` drops it, ``"strict"`` raises ``InvalidArgumentError``. ``replace_control_characters``
also replaces C0 controls (U+0000..U+001F).

Where the engine deliberately differs from TF 2.21: ``unicode_script`` knows the scripts of a
built-in table of Unicode blocks (Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic, Devanagari,
Bengali, Thai, Georgian, Hangul, Hiragana, Katakana, Han and the common punctuation and digits);
other code points give ``USCRIPT_UNKNOWN`` (103) where ICU knows their script.
"""
import codecs
import threading

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor import convert_to_tensor, string_list
from ..framework.tensor_shape import TensorShape
from . import array_ops
from ._dispatch import execute
from .ragged.ragged_tensor import RaggedTensor
from .string_ops import _on_flat_values, _same_shape, _shape, _string_input, _strings_out

__all__ = ["unicode_decode", "unicode_decode_with_offsets", "unicode_encode", "unicode_split",
           "unicode_split_with_offsets", "unicode_transcode", "unicode_script"]

_STRING = frozenset([dtypes.string])
_ERRORS = ("strict", "replace", "ignore")
_OUTPUT_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
_MARK = "\ud800"   # stands for one invalid subsequence while decoding (a lone surrogate no decoder returns)
_LOCAL = threading.local()   # .spans: the byte spans of the invalid subsequences of the string being decoded


def _mark_invalid(error):
    _LOCAL.spans.append((error.start, error.end))
    return _MARK, error.end


codecs.register_error("engine_tf_unicode", _mark_invalid)


def _codec(encoding, what="input"):
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        raise InvalidArgumentError(None, None, f"Could not create converter for {what} encoding: {encoding}") \
            from None


def _decode_one(s, codec, errors, replacement_char, replace_control):
    """``(code points, byte offsets)`` of one string, invalid parts handled as ``errors`` says."""
    spans = _LOCAL.spans = []
    text = s.decode(codec, "engine_tf_unicode")
    points, offsets, pos, bad = [], [], 0, 0
    for ch in text:
        if ch == _MARK:
            start, end = spans[bad]
            bad += 1
            pos = end
            if errors == "strict":
                raise InvalidArgumentError(None, None, "Invalid formatting on input string")
            if errors == "ignore":
                continue
            points.append(replacement_char)
            offsets.append(start)
            continue
        code = ord(ch)
        offsets.append(pos)
        pos += len(ch.encode(codec, "surrogatepass"))
        if replace_control and code <= 0x1F:
            code = replacement_char
        points.append(code)
    return points, offsets


def _decode_kernel(with_offsets):
    def make(xp):
        def k(input, input_encoding="UTF-8", errors="replace", replacement_char=0xFFFD,  # noqa: A002
              replace_control_characters=False, Tsplits=dtypes.int64):  # noqa: N803
            codec = _codec(input_encoding)
            splits, values, offsets = [0], [], []
            for s in string_list(input):
                points, starts = _decode_one(s, codec, errors, replacement_char, replace_control_characters)
                values.extend(points)
                offsets.extend(starts)
                splits.append(len(values))
            out = [np.array(splits, dtype=Tsplits.as_numpy_dtype), np.array(values, dtype=np.int32)]
            if with_offsets:
                out.append(np.array(offsets, dtype=np.int64))
            return out
        return k
    return make


def _decode_infer(with_offsets):
    def infer(ic):
        n = ic.shape(0).num_elements() if ic.shape(0).is_fully_defined() else None
        out = [(ic.attrs.get("Tsplits", dtypes.int64), TensorShape([None if n is None else n + 1])),
               (dtypes.int32, TensorShape([None]))]
        if with_offsets:
            out.append((dtypes.int64, TensorShape([None])))
        return out
    return infer


_UNICODE_DECODE = register_op("UnicodeDecode", kernel=_decode_kernel(False), infer=_decode_infer(False), grad=None,
                              num_outputs=2, dtypes=_STRING, inputs="input: string",
                              doc="Each string's code points: row_splits and char_values (a ragged result).")
_UNICODE_DECODE_WITH_OFFSETS = register_op(
    "UnicodeDecodeWithOffsets", kernel=_decode_kernel(True), infer=_decode_infer(True), grad=None, num_outputs=3,
    dtypes=_STRING, inputs="input: string",
    doc="UnicodeDecode, plus each character's starting byte offset.")


def _check_errors(errors):
    if errors not in _ERRORS:
        raise ValueError(f"errors must be one of {', '.join(repr(e) for e in _ERRORS)}, got {errors!r}")


def _decode(input, input_encoding, errors, replacement_char, replace_control_characters,  # noqa: A002
            with_offsets, name):
    """TF's ``_unicode_decode``: flatten to a vector, decode it, give back the input's rows plus one ragged dim."""
    _check_errors(errors)
    if isinstance(input, RaggedTensor):
        inner = _decode(input.flat_values, input_encoding, errors, replacement_char, replace_control_characters,
                        with_offsets, name)
        return tuple(input.with_flat_values(t) for t in inner) if with_offsets else input.with_flat_values(inner)
    x = _string_input(input, "UnicodeDecode")
    rank = x.shape.rank
    if rank is None:
        raise ValueError("unicode_decode needs an input of known rank")
    if rank > 1:
        return _decode(RaggedTensor.from_tensor(x, ragged_rank=rank - 1), input_encoding, errors, replacement_char,
                       replace_control_characters, with_offsets, name)
    vector = array_ops.reshape(x, [1]) if rank == 0 else x
    attrs = {"input_encoding": input_encoding, "errors": errors, "replacement_char": int(replacement_char),
             "replace_control_characters": bool(replace_control_characters), "Tsplits": dtypes.int64}
    op = _UNICODE_DECODE_WITH_OFFSETS if with_offsets else _UNICODE_DECODE
    outs = execute(op, (vector,), attrs, name=name)
    splits, parts = outs[0], outs[1:]
    if rank == 0:
        results = tuple(parts)
    else:
        results = tuple(RaggedTensor.from_row_splits(p, splits, validate=False) for p in parts)
    return results if with_offsets else results[0]


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
    """``tf.strings.unicode_decode``: each string's code points (int32), a ``tf.RaggedTensor`` one rank
    higher than ``input`` (a vector for a scalar): ``unicode_decode("语言", "UTF-8") == [35821, 35328]``."""
    return _decode(input, input_encoding, errors, replacement_char, replace_control_characters, False, name)


def unicode_decode_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                                replace_control_characters=False, name=None):
    """``tf.strings.unicode_decode_with_offsets``: ``(code points, start byte offsets)``, each shaped as
    :func:`unicode_decode`'s result (offsets are int64)."""
    return _decode(input, input_encoding, errors, replacement_char, replace_control_characters, True, name)


# --------------------------------------------------------------------------------------
# unicode_encode
# --------------------------------------------------------------------------------------
def _encode_point(code, codec, errors, replacement_char):
    if code < 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        if errors == "strict":
            raise InvalidArgumentError(None, None, "Code point is out of range for Unicode, or is a surrogate.")
        if errors == "ignore":
            return b""
        code = replacement_char
    return chr(code).encode(codec)


def _encode_kernel(xp):
    def k(input_values, input_splits, errors="replace", output_encoding="UTF-8", replacement_char=0xFFFD,
          Tsplits=None):  # noqa: N803
        codec = _OUTPUT_ENCODINGS[output_encoding]
        values = np.asarray(input_values).reshape(-1).tolist()
        splits = np.asarray(input_splits).reshape(-1).tolist()
        flat = [b"".join(_encode_point(c, codec, errors, replacement_char) for c in values[a:b])
                for a, b in zip(splits[:-1], splits[1:])]
        return _strings_out(flat, (len(flat),))
    return k


def _encode_infer(ic):
    n = ic.shape(1)
    return [(dtypes.string, TensorShape([None if n.rank is None or n[0] is None else n[0] - 1]))]


_UNICODE_ENCODE = register_op("UnicodeEncode", kernel=_encode_kernel, infer=_encode_infer, grad=None,
                              inputs="input_values: int32, input_splits: Tsplits",
                              doc="Rows of code points (values and row_splits) encoded as strings.")


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """``tf.strings.unicode_encode``: the code points along ``input``'s last dimension (dense or ragged)
    encoded as one string each, in ``"UTF-8"``, ``"UTF-16-BE"`` or ``"UTF-32-BE"``; the result has one
    rank less. Invalid code points follow ``errors`` ("Code point is out of range for Unicode, or is a
    surrogate." when ``"strict"``)."""
    if output_encoding not in _OUTPUT_ENCODINGS:
        raise ValueError(f"output_encoding must be one of {', '.join(_OUTPUT_ENCODINGS)}, got {output_encoding!r}")
    _check_errors(errors)
    attrs = {"errors": errors, "output_encoding": output_encoding, "replacement_char": int(replacement_char)}
    if isinstance(input, RaggedTensor):
        if isinstance(input.values, RaggedTensor):
            return input.with_values(unicode_encode(input.values, output_encoding, errors, replacement_char, name))
        values = input.values
        splits = input.row_splits
        attrs["Tsplits"] = splits.dtype
        return execute(_UNICODE_ENCODE, (values, splits), attrs, name=name)
    x = convert_to_tensor(input, dtype=dtypes.int32)
    rank = x.shape.rank
    if rank == 0:
        raise ValueError("unicode_encode needs an input of rank >= 1")
    if rank == 1:
        return array_ops.reshape(unicode_encode(RaggedTensor.from_tensor(array_ops.reshape(x, [1, -1])),
                                                output_encoding, errors, replacement_char, name), [])
    return unicode_encode(RaggedTensor.from_tensor(x, ragged_rank=rank - 1), output_encoding, errors,
                          replacement_char, name)


# --------------------------------------------------------------------------------------
# unicode_split
# --------------------------------------------------------------------------------------
def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                               name=None):
    """``tf.strings.unicode_split_with_offsets``: :func:`unicode_split` and the start byte offsets."""
    codes, offsets = unicode_decode_with_offsets(input, input_encoding, errors, replacement_char, name=name)
    return _chars_of(codes, input_encoding, errors, replacement_char), offsets


def _chars_of(codes, encoding, errors, replacement_char):
    """Each code point as its own string (TF re-encodes them one by one)."""
    flat = codes.flat_values if isinstance(codes, RaggedTensor) else codes
    splits = array_ops.range(array_ops.size(flat, out_type=dtypes.int64) + 1, dtype=dtypes.int64)
    attrs = {"errors": errors, "output_encoding": "UTF-8" if encoding not in _OUTPUT_ENCODINGS else encoding,
             "replacement_char": int(replacement_char), "Tsplits": dtypes.int64}
    chars = execute(_UNICODE_ENCODE, (flat, splits), attrs)
    return codes.with_flat_values(chars) if isinstance(codes, RaggedTensor) else chars


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """``tf.strings.unicode_split``: each string split into its characters (each a string), a
    ``tf.RaggedTensor`` one rank higher (a vector for a scalar)."""
    codes = unicode_decode(input, input_encoding, errors, replacement_char, name=name)
    return _chars_of(codes, input_encoding, errors, replacement_char)


# --------------------------------------------------------------------------------------
# unicode_transcode
# --------------------------------------------------------------------------------------
def _transcode_kernel(xp):
    def k(input, input_encoding="UTF-8", output_encoding="UTF-8", errors="replace",  # noqa: A002
          replacement_char=0xFFFD, replace_control_characters=False):
        codec = _codec(input_encoding)
        out_codec = _OUTPUT_ENCODINGS[output_encoding]
        flat = []
        for s in string_list(input):
            points, _ = _decode_one(s, codec, errors, replacement_char, replace_control_characters)
            flat.append(b"".join(_encode_point(c, out_codec, "replace", 0xFFFD) for c in points))
        return _strings_out(flat, _shape(input))
    return k


_UNICODE_TRANSCODE = register_op("UnicodeTranscode", kernel=_transcode_kernel, infer=_same_shape(dtypes.string),
                                 grad=None, dtypes=_STRING, inputs="input: string",
                                 doc="Each string re-encoded from input_encoding to output_encoding.")


def unicode_transcode(input, input_encoding, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                      replace_control_characters=False, name=None):
    """``tf.strings.unicode_transcode``: each string's text re-encoded from ``input_encoding`` to
    ``output_encoding`` (``"UTF-8"``, ``"UTF-16-BE"``, ``"UTF-32-BE"``); invalid input follows ``errors``."""
    if output_encoding not in _OUTPUT_ENCODINGS:
        raise ValueError(f"output_encoding must be one of {', '.join(_OUTPUT_ENCODINGS)}, got {output_encoding!r}")
    _check_errors(errors)
    attrs = {"input_encoding": input_encoding, "output_encoding": output_encoding, "errors": errors,
             "replacement_char": int(replacement_char), "replace_control_characters": bool(replace_control_characters)}
    return _on_flat_values(lambda x: execute(_UNICODE_TRANSCODE, (_string_input(x, "UnicodeTranscode"),), attrs,
                                             name=name), input)


# --------------------------------------------------------------------------------------
# unicode_script (ICU's UScriptCode numbers)
# --------------------------------------------------------------------------------------
_COMMON, _INHERITED, _UNKNOWN = 0, 1, 103
_SCRIPT_RANGES = [   # (first, last, ICU UScriptCode)
    (0x0000, 0x0040, _COMMON), (0x0041, 0x005A, 25), (0x005B, 0x0060, _COMMON), (0x0061, 0x007A, 25),
    (0x007B, 0x00A9, _COMMON), (0x00AA, 0x00AA, 25), (0x00AB, 0x00B9, _COMMON), (0x00BA, 0x00BA, 25),
    (0x00BB, 0x00BF, _COMMON), (0x00C0, 0x00D6, 25), (0x00D7, 0x00D7, _COMMON), (0x00D8, 0x00F6, 25),
    (0x00F7, 0x00F7, _COMMON), (0x00F8, 0x024F, 25), (0x0250, 0x02AF, 25), (0x02B0, 0x02FF, _COMMON),
    (0x0300, 0x036F, _INHERITED), (0x0370, 0x03FF, 14), (0x0400, 0x052F, 8), (0x0531, 0x058F, 3),
    (0x0591, 0x05FF, 19), (0x0600, 0x06FF, 2), (0x0900, 0x097F, 10), (0x0980, 0x09FF, 4), (0x0E00, 0x0E7F, 38),
    (0x10A0, 0x10FF, 12), (0x1100, 0x11FF, 18), (0x1E00, 0x1EFF, 25), (0x1F00, 0x1FFF, 14),
    (0x2000, 0x206F, _COMMON), (0x20A0, 0x20CF, _COMMON), (0x2100, 0x2BFF, _COMMON), (0x3000, 0x3004, _COMMON),
    (0x3005, 0x3005, 17), (0x3006, 0x3006, _COMMON), (0x3007, 0x3007, 17), (0x3008, 0x3020, _COMMON),
    (0x3041, 0x3096, 20), (0x309D, 0x309F, 20), (0x30A1, 0x30FA, 22), (0x30FD, 0x30FF, 22),
    (0x3130, 0x318F, 18), (0x3400, 0x4DBF, 17), (0x4E00, 0x9FFF, 17), (0xAC00, 0xD7AF, 18),
    (0xF900, 0xFAFF, 17), (0xFF01, 0xFF20, _COMMON), (0xFF21, 0xFF3A, 25), (0xFF41, 0xFF5A, 25),
    (0x1F000, 0x1FAFF, _COMMON), (0x20000, 0x2FA1F, 17),
]
_STARTS = np.array([r[0] for r in _SCRIPT_RANGES], dtype=np.int64)
_ENDS = np.array([r[1] for r in _SCRIPT_RANGES], dtype=np.int64)
_CODES = np.array([r[2] for r in _SCRIPT_RANGES], dtype=np.int32)


def _script_kernel(xp):
    def k(input):  # noqa: A002
        x = np.asarray(input).astype(np.int64)
        i = np.searchsorted(_STARTS, x, side="right") - 1
        inside = (i >= 0) & (x <= _ENDS[np.clip(i, 0, None)])
        out = np.where(inside, _CODES[np.clip(i, 0, None)], _UNKNOWN).astype(np.int32)
        out = np.where((x < 0) | (x > 0x10FFFF), -1, out).astype(np.int32)
        return out[()] if out.ndim == 0 else out
    return k


_UNICODE_SCRIPT = register_op("UnicodeScript", kernel=_script_kernel, infer=_same_shape(dtypes.int32), grad=None,
                              inputs="input: int32",
                              doc="The ICU script code of each code point.")


def unicode_script(input, name=None):  # noqa: A002
    """``tf.strings.unicode_script``: each code point's script, as ICU's ``UScriptCode`` (int32): 25 Latin,
    8 Cyrillic, 17 Han, 0 Common (digits, punctuation), -1 for an invalid code point. See the module
    notes: the table covers the common scripts only."""
    return _on_flat_values(lambda x: execute(_UNICODE_SCRIPT, (convert_to_tensor(x, dtype=dtypes.int32),),
                                             name=name), input)

