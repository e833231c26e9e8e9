"""Regular expressions on string tensors: ``tf.strings.regex_full_match`` and ``regex_replace``.

Each has two rows, as in TF: with a Python string pattern it is an attr (``StaticRegexFullMatch``,
``StaticRegexReplace``), with a tensor an input (``RegexFullMatch``, ``RegexReplace``). None is
differentiable. RaggedTensor inputs run on their ``flat_values``.

Where the engine deliberately differs from TF 2.21:

* Regular expressions are Python's ``re`` (on the UTF-8 text, so ``.`` matches one character as
  in RE2), not RE2: RE2-only syntax (``\\C``, ``(?P=name)`` differences, possessive classes) and
  Python-only syntax (lookarounds, backreferences in patterns) are not refused as RE2 refuses
  them, and the error text after ``Invalid pattern: ...`` is Python's for patterns other than a
  missing ``)`` or ``]``.
"""
import re

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor import string_list
from ._dispatch import execute
from .string_ops import _numbers_out, _on_flat_values, _same_shape, _shape, _string_input, _strings_out

__all__ = ["regex_full_match", "regex_replace"]

# --------------------------------------------------------------------------------------
# Regular expressions
# --------------------------------------------------------------------------------------
_REGEX_CACHE = {}


def _compile(pattern):
    """A pattern (bytes or str) compiled for matching UTF-8 text, or TF's "Invalid pattern" error."""
    text = pattern.decode("utf-8", "surrogateescape") if isinstance(pattern, bytes) else pattern
    compiled = _REGEX_CACHE.get(text)
    if compiled is None:
        try:
            compiled = re.compile(text)
        except re.error as error:
            message = str(error)
            if message.startswith("missing ), unterminated subpattern"):
                message = f"missing ): {text}"
            elif message.startswith("unterminated character set"):
                message = f"missing ]: {text}"
            raise InvalidArgumentError(None, None, f"Invalid pattern: {text}, error: {message}") from None
        if len(_REGEX_CACHE) > 256:
            _REGEX_CACHE.clear()
        _REGEX_CACHE[text] = compiled
    return compiled


def _decode(s):
    return s.decode("utf-8", "surrogateescape")


def _encode(s):
    return s.encode("utf-8", "surrogateescape")


def _full_match_kernel(static):
    def make(xp):
        def match(input, pattern):  # noqa: A002
            regex = _compile(pattern if static else string_list(pattern)[0])
            flat = [regex.fullmatch(_decode(s)) is not None for s in string_list(input)]
            return _numbers_out(flat, _shape(input), np.bool_)

        if static:
            return lambda input, pattern="": match(input, pattern)  # noqa: A002
        return match
    return make


_REGEX_FULL_MATCH = register_op("RegexFullMatch", kernel=_full_match_kernel(False), infer=_same_shape(dtypes.bool),
                                grad=None, inputs="input: string, pattern: string",
                                doc="Whether each whole string matches a regex given as a scalar tensor.")
_STATIC_REGEX_FULL_MATCH = register_op("StaticRegexFullMatch", kernel=_full_match_kernel(True),
                                       infer=_same_shape(dtypes.bool), grad=None, inputs="input: string",
                                       doc="Whether each whole string matches a regex (an attr).")


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """``tf.strings.regex_full_match``: whether each whole string matches ``pattern`` (bool).

    A Python string pattern is an attr (``StaticRegexFullMatch``), a tensor pattern an input
    (``RegexFullMatch``), as in TF. See the module notes: the syntax is Python's ``re``, not RE2.
    """
    if isinstance(pattern, (str, bytes)):
        return _on_flat_values(lambda x: execute(_STATIC_REGEX_FULL_MATCH, (_string_input(x, "StaticRegexFullMatch"),),
                                                 {"pattern": pattern}, name=name), input)
    p = _string_input(pattern, "RegexFullMatch")
    return _on_flat_values(lambda x: execute(_REGEX_FULL_MATCH, (_string_input(x, "RegexFullMatch"), p), name=name),
                           input)


def _rewrite(rewrite):
    """RE2's rewrite string (``\\1``, ``\\0`` the whole match, ``\\\\`` a backslash) as a replacement function."""
    text = _decode(rewrite) if isinstance(rewrite, bytes) else rewrite
    parts, i, literal = [], 0, []
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt.isdigit():
                parts.append("".join(literal))
                literal = []
                parts.append(int(nxt))
                i += 2
                continue
            if nxt == "\\":
                literal.append("\\")
                i += 2
                continue
            raise InvalidArgumentError(None, None, f"Invalid rewrite pattern: {text}")
        literal.append(c)
        i += 1
    parts.append("".join(literal))

    def replace(match):
        return "".join(p if isinstance(p, str) else (match.group(p) or "") for p in parts)
    return replace


def _replace_kernel(static):
    def make(xp):
        def run(input, pattern, rewrite, replace_global):  # noqa: A002
            regex = _compile(pattern)
            fn = _rewrite(rewrite)
            count = 0 if replace_global else 1
            flat = [_encode(regex.sub(fn, _decode(s), count=count)) for s in string_list(input)]
            return _strings_out(flat, _shape(input))

        if static:
            return lambda input, rewrite="", pattern="", replace_global=True: run(input, pattern, rewrite,  # noqa: A002
                                                                                 replace_global)
        return lambda input, pattern, rewrite, replace_global=True: run(  # noqa: A002
            input, string_list(pattern)[0], string_list(rewrite)[0], replace_global)
    return make


_REGEX_REPLACE = register_op("RegexReplace", kernel=_replace_kernel(False), infer=_same_shape(dtypes.string),
                             grad=None, inputs="input: string, pattern: string, rewrite: string",
                             doc="Regex matches replaced by a rewrite (pattern and rewrite as tensors).")
_STATIC_REGEX_REPLACE = register_op("StaticRegexReplace", kernel=_replace_kernel(True),
                                    infer=_same_shape(dtypes.string), grad=None, inputs="input: string",
                                    doc="Regex matches replaced by a rewrite (attrs).")


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """``tf.strings.regex_replace``: matches of ``pattern`` replaced by ``rewrite`` (all, or with
    ``replace_global=False`` the first). In ``rewrite``, ``\\1``..``\\9`` are groups and ``\\0`` the whole
    match, as in RE2. Python strings are attrs (``StaticRegexReplace``), tensors inputs (``RegexReplace``).
    """
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return _on_flat_values(lambda x: execute(_STATIC_REGEX_REPLACE, (_string_input(x, "StaticRegexReplace"),),
                                                 {"pattern": pattern, "rewrite": rewrite,
                                                  "replace_global": bool(replace_global)}, name=name), input)
    p = _string_input(pattern, "RegexReplace")
    r = _string_input(rewrite, "RegexReplace")
    return _on_flat_values(lambda x: execute(_REGEX_REPLACE, (_string_input(x, "RegexReplace"), p, r),
                                             {"replace_global": bool(replace_global)}, name=name), input)
