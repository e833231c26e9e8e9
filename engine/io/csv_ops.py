"""CSV: ``tf.io.decode_csv`` (the ``DecodeCSV`` op) and the record parser ``CsvDataset`` reads files with.

Both follow RFC 4180 with TF's rules: a field is quoted when it starts with ``"`` (and
``use_quote_delim``), a quote inside a quoted field is written ``""``, an empty field (or one equal to
``na_value``) takes the column's default, and a column whose default is empty (``tf.constant([],
tf.int32)``, or a dtype given to ``CsvDataset``) is *required*: a missing value is an error. Numbers may
have spaces around them (``" 2 "``); ``int32``/``int64`` fields take only decimal digits with a sign,
floats also ``inf``, ``nan``, exponents (float32 overflow gives ``inf``). Strings are kept as they are.

Two parsers, because TF has two:

* :func:`extract_fields` is ``DecodeCSV``'s: one record per string, no newlines inside fields;
  errors name the record's index ("Field 0 in record 2 is not a valid int32: q,r").
* :class:`CsvRecordReader` is ``CsvDataset``'s: it reads a whole file, so a quoted field may span lines
  (and a quote inside one that is not doubled does not end it: an unclosed field runs to the end of the
  file), records end at ``\\n``, ``\\r\\n`` or ``\\r``, an empty line is one empty field; its errors
  say just "in record". After an error it resumes at the next line, so ``ignore_errors()`` skips bad
  records.
"""
import re

import numpy as np

from ..framework import dtypes
from ..framework.context import ctx
from ..framework.errors import InvalidArgumentError
from ..framework.registry import register_op
from ..framework.tensor import Tensor, convert_to_tensor
from ..ops._dispatch import execute
from ..ops.array_ops import kernel_outputs, output_list
from ._strings import flat_strings, string_array, to_bytes

__all__ = ["decode_csv", "CSV_DTYPES", "extract_fields", "convert_field", "CsvRecordReader", "csv_defaults"]

CSV_DTYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)
_TF_NAMES = {dtypes.float32: "float", dtypes.float64: "double", dtypes.int32: "int32", dtypes.int64: "int64",
             dtypes.string: "string"}
_INT = re.compile(rb"^\s*[+-]?\d+\s*$")
_INT_RANGE = {dtypes.int32: (-(1 << 31), (1 << 31) - 1), dtypes.int64: (-(1 << 63), (1 << 63) - 1)}


def _iae(message):
    return InvalidArgumentError(None, None, message)


def _text(field):
    return field.decode("utf-8", "backslashreplace")


_FLOAT32_LIMIT = 3.4028235677973366e38      # float32's largest value plus half an ulp: from here on, inf


def field_converter(dtype, default, index, where):
    """A function ``field -> host value`` for one column: the field parsed as ``dtype``, or ``default``'s value
    (a ``_Default``) when the field is empty or ``na_value``; TF's errors otherwise.

    ``where`` ends the messages: ``"record"`` (CsvDataset) or ``"record 3"`` (DecodeCSV). Made once per
    column, so parsing a field costs no dtype comparisons.
    """
    na, has_default, default_value = default.na_value, default.size == 1, default.value
    missing = f"Field {index} is required but missing in {where}!"
    name = _TF_NAMES[dtype]

    def invalid(field):
        return _iae(f"Field {index} in {where} is not a valid {name}: {_text(field)}")

    if dtype == dtypes.string:
        def convert(field):
            if not field or field == na:
                if not has_default:
                    raise _iae(missing)
                return default_value
            return field
    elif dtype.is_integer:
        low, high = _INT_RANGE[dtype]

        def convert(field):
            if not field or field == na:
                if not has_default:
                    raise _iae(missing)
                return default_value
            if _INT.match(field):
                value = int(field)
                if low <= value <= high:
                    return value
            raise invalid(field)
    else:
        narrow = dtype == dtypes.float32

        def convert(field):
            if not field or field == na:
                if not has_default:
                    raise _iae(missing)
                return default_value
            if b"_" not in field:          # Python's float() also takes "1_0"; TF does not
                try:
                    value = float(field)   # TF's forms: sign, exponent, inf, infinity, nan, spaces around
                except ValueError:
                    raise invalid(field) from None
                if narrow and abs(value) >= _FLOAT32_LIMIT and value == value:
                    value = value * float("inf")      # float32 overflow gives inf, as TF's strtof
                return value
            raise invalid(field)
    return convert


def convert_field(field, dtype, default, index, where):
    """The value of one field (see :func:`field_converter`)."""
    return field_converter(dtype, default, index, where)(field)


class _Default:
    """One column's default: its value (if any) and the ``na_value`` that also means "missing"."""

    __slots__ = ("size", "value", "na_value")

    def __init__(self, array, na_value):
        array = np.asarray(array)
        self.size = int(array.size)
        self.value = (to_bytes(array.reshape(-1)[0]) if array.dtype.kind in "SUO" else array.reshape(-1)[0]) \
            if self.size else None
        self.na_value = na_value


def csv_defaults(defaults, na_value):
    """Check the record defaults (TF's messages) and wrap them for :func:`convert_field`."""
    out = []
    for i, d in enumerate(defaults):
        d = np.asarray(d)
        if d.ndim > 1:
            raise _iae(f"Each record default should be at most rank 1 but field {i} has rank {d.ndim}")
        if d.size > 1:
            raise _iae(f"There should only be 1 default per field but field {i} has {d.size}")
        out.append(_Default(d, na_value))
    return out


def _column(values, dtype, shape):
    if dtype == dtypes.string:
        return string_array(values, shape)
    return np.array(values, dtype=dtype.as_numpy_dtype).reshape(shape)


# --------------------------------------------------------------------------------------
# DecodeCSV: one record per string
# --------------------------------------------------------------------------------------
def extract_fields(record, delim, use_quote, select_cols):
    """The fields of one record, as TF's ``DecodeCSV`` kernel splits it (only the selected ones)."""
    result = []
    idx, size = 0, len(record)
    parsed = selector = 0
    select_all = not select_cols
    quote, nl, cr = ord('"'), ord("\n"), ord("\r")
    if size == 0:
        return result
    while idx < size:
        if record[idx] in (nl, cr):
            idx += 1
            continue
        include = select_all or select_cols[selector] == parsed
        field = bytearray()
        if use_quote and record[idx] == quote:
            idx += 1
            while idx < size - 1 and not (record[idx] == quote and record[idx + 1] == delim):
                if record[idx] != quote:
                    field.append(record[idx])
                    idx += 1
                else:
                    if record[idx + 1] != quote:
                        raise _iae("Quote inside a string has to be escaped by another quote")
                    field.append(quote)
                    idx += 2
            if not (idx < size and record[idx] == quote and (idx == size - 1 or record[idx + 1] == delim)):
                raise _iae("Quoted field has to end with quote followed by delim or end")
            idx += 2
        else:
            while idx < size and record[idx] != delim:
                c = record[idx]
                if (use_quote and c == quote) or c in (nl, cr):
                    raise _iae("Unquoted fields cannot have quotes/CRLFs inside")
                field.append(c)
                idx += 1
            idx += 1
        parsed += 1
        if include:
            result.append(bytes(field))
            selector += 1
            if not select_all and selector == len(select_cols):
                return result
    include = select_all or select_cols[selector] == parsed
    if include and record[size - 1] == delim:
        result.append(b"")
    return result


def _decode_csv_kernel(xp):
    def k(records, *record_defaults, OUT_TYPE, field_delim=",", use_quote_delim=True, na_value="",  # noqa: N803
          select_cols=()):
        if len(field_delim) != 1:
            raise _iae("field_delim should be only 1 char")
        na = na_value.encode("utf-8")
        defaults = csv_defaults(record_defaults, na)
        convert_fast = [field_converter(dtype, d, f, "record") for f, (dtype, d) in enumerate(zip(OUT_TYPE, defaults))]
        records, shape = flat_strings(records)
        columns = [[] for _ in OUT_TYPE]
        delim = ord(field_delim)
        for i, record in enumerate(records):
            fields = extract_fields(record, delim, use_quote_delim, list(select_cols))
            if len(fields) != len(OUT_TYPE):
                raise _iae(f"Expect {len(OUT_TYPE)} fields but have {len(fields)} in record {i}")
            for f, (field, dtype) in enumerate(zip(fields, OUT_TYPE)):
                try:
                    columns[f].append(convert_fast[f](field))
                except InvalidArgumentError:     # the message names the record: rebuild it for this one
                    columns[f].append(convert_field(field, dtype, defaults[f], f, f"record {i}"))
        return kernel_outputs([_column(c, dtype, shape) for c, dtype in zip(columns, OUT_TYPE)])
    return k


_DECODE_CSV = register_op(
    "DecodeCSV", kernel=_decode_csv_kernel,
    infer=lambda ic: [(dtype, ic.shape(0)) for dtype in ic.attrs["OUT_TYPE"]],
    num_outputs=lambda attrs: len(attrs["OUT_TYPE"]), saves_inputs=False, saves_outputs=False,
    doc="Parse CSV records (strings) into one tensor per column, shaped like the records.")


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="",
               select_cols=None):
    """``tf.io.decode_csv``: convert CSV records to tensors, one per column.

    ``records``: a string tensor of any shape, one record per element. ``record_defaults``: one entry per
    column (per *selected* column with ``select_cols``): a one-element list or tensor, the default (its
    dtype, one of float32, float64, int32, int64, string, is the column's), or an empty tensor for a
    required column. Each result has the shape of ``records``. ``select_cols``: sorted indices of the
    columns to return. Errors are TF's ``InvalidArgumentError`` (``"Expect 2 fields but have 3 in record
    0"``), raised when the op runs; not differentiable.
    """
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    records = records if isinstance(records, Tensor) else convert_to_tensor(records, dtype=dtypes.string)
    if records.dtype != dtypes.string:
        raise TypeError(f"Input 'records' of 'DecodeCSV' Op has type {records.dtype.name} that does not match "
                        f"expected type of string.")
    defaults = [d if isinstance(d, Tensor) else convert_to_tensor(d) for d in record_defaults]
    if not defaults:
        raise ValueError("record_defaults must not be empty: DecodeCSV needs at least one column "
                         "(attr 'OUT_TYPE' has minimum length 1).")
    out_type = tuple(d.dtype for d in defaults)
    for d in out_type:
        if d not in CSV_DTYPES:
            message = (f"Value for attr 'OUT_TYPE' of {d.name} is not in the list of allowed values: float, "
                       f"double, int32, int64, string")
            if ctx.graph is not None:
                raise TypeError(message)
            raise _iae(message + " [Op:DecodeCSV]")
    attrs = {"OUT_TYPE": out_type, "field_delim": field_delim, "use_quote_delim": bool(use_quote_delim),
             "na_value": na_value, "select_cols": tuple(select_cols or ())}
    return output_list(execute(_DECODE_CSV, (records, *defaults), attrs, name=name))


# --------------------------------------------------------------------------------------
# CsvDataset's reader: records of a whole file
# --------------------------------------------------------------------------------------
class CsvRecordReader:
    """Iterate the records of one CSV file's bytes as tuples of host values (see the module docstring).

    ``defaults``: from :func:`csv_defaults`; ``dtypes``: the columns' dtypes; ``select_cols`` /
    ``exclude_cols``: lists of column indices (at most one non-empty). ``__next__`` raises
    ``InvalidArgumentError`` for a bad record, then continues with the next one.
    """

    def __init__(self, data, out_dtypes, defaults, header, field_delim, use_quote_delim, select_cols, exclude_cols):
        self._data = data
        self._dtypes = out_dtypes
        self._defaults = defaults
        self._convert = [field_converter(d, default, f, "record") for f, (d, default) in enumerate(zip(out_dtypes,
                                                                                                     defaults))]
        self._host = [_host_scalar(d) for d in out_dtypes]
        self._delim = ord(field_delim)
        self._delim_bytes = field_delim.encode("utf-8")
        self._stop = re.compile(b"[" + re.escape(field_delim.encode("utf-8")) + b"\n\r]")
        self._quote = use_quote_delim
        self._select = set(select_cols) if select_cols else None
        self._exclude = set(exclude_cols) if exclude_cols else set()
        self._pos = 0
        self._header_error = False
        if header:
            if not data:
                self._header_error = True
            else:
                newline = data.find(b"\n")
                self._pos = len(data) if newline < 0 else newline + 1

    def __iter__(self):
        return self

    def _skip_line(self):
        newline = self._data.find(b"\n", self._pos)
        self._pos = len(self._data) if newline < 0 else newline + 1

    def _end_of_record(self, pos):
        """``(is_end, next_pos)`` after a field that stopped at ``pos`` (a delimiter, a newline or the end)."""
        data = self._data
        if pos >= len(data):
            return True, pos
        c = data[pos]
        if c == self._delim:
            return False, pos + 1
        if c == 0x0D and data[pos + 1:pos + 2] == b"\n":
            return True, pos + 2
        return True, pos + 1     # "\n" or a lone "\r"

    def _plain_line(self):
        """The fields of the record at the current position when it is one plain line (no quote character
        to interpret, no ``\\r``): split at once, the position moved past the line. Otherwise None."""
        data, pos = self._data, self._pos
        newline = data.find(b"\n", pos)
        end = len(data) if newline < 0 else newline
        line = data[pos:end]
        if b"\r" in line or (self._quote and b'"' in line):
            return None
        self._pos = end + 1 if newline >= 0 else end
        return line.split(self._delim_bytes)

    def _field(self):
        """Parse the field at the current position: ``(bytes, is_last_of_record)``."""
        data, pos, n = self._data, self._pos, len(self._data)
        if self._quote and data[pos:pos + 1] == b'"':
            out = bytearray()
            i = pos + 1
            while True:
                q = data.find(b'"', i)
                if q < 0:
                    self._pos = n
                    raise _iae("Reached end of file without closing quoted field in record")
                out += data[i:q]
                if data[q + 1:q + 2] == b'"':
                    out.append(0x22)
                    i = q + 2
                    continue
                after = q + 1
                if after < n and data[after] not in (self._delim, 0x0A, 0x0D):
                    out.append(0x22)      # a lone quote inside: TF reads on, looking for the closing one
                    i = after
                    continue
                last, self._pos = self._end_of_record(after)
                return bytes(out), last
        match = self._stop.search(data, pos)     # the delimiter or line end that ends this field
        j = match.start() if match else n
        field = data[pos:j]
        if self._quote and b'"' in field:
            self._pos = j
            self._skip_line()
            raise _iae("Unquoted fields cannot have quotes inside")
        last, self._pos = self._end_of_record(j)
        return field, last

    def __next__(self):
        if self._header_error:
            self._header_error = False
            self._pos = len(self._data)
            raise _iae("Can't read header of file")
        if self._pos >= len(self._data):
            raise StopIteration
        wanted = len(self._dtypes)
        values, index, last = [], 0, False
        fields = self._plain_line()
        while not last:
            if fields is not None:      # the fast path: the line's fields, already split
                field, last = fields[index], index == len(fields) - 1
            else:
                field, last = self._field()
            if self._select is not None:
                include = index in self._select
            else:
                include = index not in self._exclude
            index += 1
            if include:
                if len(values) == wanted:
                    if not last and fields is None:
                        self._skip_line()
                    raise _iae(f"Expect {wanted} fields but have more in record")
                f = len(values)
                try:       # each field is converted as it is read, as TF does (its errors come first)
                    values.append(self._host[f](self._convert[f](field)))
                except InvalidArgumentError:
                    if not last and fields is None:
                        self._skip_line()
                    raise
                if self._select is not None and len(values) == wanted and not last:
                    if fields is None:
                        self._skip_line()
                    break
        if len(values) != wanted:
            raise _iae(f"Expect {wanted} fields but have {len(values)} in record")
        return tuple(values)


def _host_scalar(dtype):
    """``value -> rank-0 host value`` of ``dtype`` (a NumPy scalar; strings as the framework stores them)."""
    if dtype == dtypes.string:
        return lambda value: string_array([value], ())
    return dtype.as_numpy_dtype
