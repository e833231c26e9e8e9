"""Datasets read from files: ``TextLineDataset``, ``TFRecordDataset``, ``FixedLengthRecordDataset``,
``CsvDataset``, ``list_files``, ``make_csv_dataset``.

Every reader is built the way TF builds it (``tensorflow/python/data/ops/readers.py``): the file
names become a dataset of scalar strings, each file is read by a one-file dataset, and the per-file
datasets are chained::

    filenames --flat_map(read one file)-->                       num_parallel_reads=None: file after file
    filenames --interleave(read one file, cycle_length=n, block_length=1)-->   num_parallel_reads=n

so with ``num_parallel_reads=n`` the records of ``n`` files alternate, one at a time, in TF's
deterministic order (a file that ends gives its slot to the next file). ``filenames`` may be a string,
a list of strings, a string tensor of any shape, or a dataset of scalar strings (``list_files``).

The one-file datasets open their file when iterated (a missing file is ``NotFoundError`` at ``next()``,
as in TF) and read it whole (see ``engine/io/file_io.py``); ``compression_type`` ``"GZIP"``/``"ZLIB"``
decompresses it. Records come out as scalar ``tf.string`` tensors (``TextLineDataset``: one line, without
its ``\\n`` or ``\\r\\n``; ``TFRecordDataset``: one record, both CRCs checked) or, for ``CsvDataset``, as a
tuple of scalars, one per column (``engine/io/csv_ops.py`` parses them).

Deliberate differences from TF: ``buffer_size`` is checked (CSV) or accepted, without effect; an
unknown ``compression_type`` for ``TFRecordDataset`` is ``InvalidArgumentError`` when the dataset is
built (TF logs an error and reads the file uncompressed); ``list_files(shuffle=True)`` and
``make_csv_dataset(shuffle=True)`` shuffle with the engine's ``shuffle`` (a different random order from
TF's for the same seed); like every engine dataset, readers are built from host values, not from
tensors traced inside a ``tf.function`` (iterating them inside one works).
"""
import collections
import csv
import gzip
import os

import numpy as np

from ..framework import dtypes, errors
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import EagerTensor, Tensor, constant, convert_to_tensor
from ..framework.tensor_spec import TensorSpec
from ..io import csv_ops, file_io, gfile
from ..io._strings import string_array, to_bytes
from ..io.tf_record import iter_records
from . import structure
from .dataset_ops import AUTOTUNE, UNKNOWN_CARDINALITY, Dataset, implements

__all__ = ["TextLineDatasetV2", "TFRecordDatasetV2", "CsvDatasetV2", "FixedLengthRecordDatasetV2", "TextLineDataset",
           "TFRecordDataset", "CsvDataset", "FixedLengthRecordDataset", "list_files", "make_csv_dataset"]

_STRING_SPEC = TensorSpec([], dtypes.string)


def _iae(message):
    return InvalidArgumentError(None, None, message)


# --------------------------------------------------------------------------------------
# File names -> a dataset of scalar strings
# --------------------------------------------------------------------------------------
def _filenames_dataset(filenames):
    """TF's ``_create_or_validate_filenames_dataset``: a dataset of scalar ``tf.string`` file names."""
    if isinstance(filenames, Dataset):
        spec = filenames.element_spec
        if not isinstance(spec, TensorSpec) or spec.dtype != dtypes.string:
            raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got a dataset of "
                            f"`{spec!r}` elements.")
        if spec.shape.rank not in (None, 0):
            raise TypeError(f"The `filenames` argument must contain `tf.string` elements of shape [] (i.e. "
                            f"scalars). Got a dataset of element shape {spec.shape}.")
        return filenames
    if isinstance(filenames, (str, bytes, os.PathLike)):
        filenames = os.fspath(filenames)
    elif isinstance(filenames, (list, tuple)):
        filenames = [os.fspath(f) if isinstance(f, os.PathLike) else f for f in filenames]
    with structure.host_scope():
        tensor = filenames if isinstance(filenames, EagerTensor) else convert_to_tensor(filenames)
        if tensor.dtype != dtypes.string:
            raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got `tf.{tensor.dtype.name}` "
                            f"elements.")
        flat = np.asarray(tensor.numpy()).reshape(-1)
        return mark_file_names(Dataset.from_tensor_slices(constant(string_array([to_bytes(f) for f in flat]),
                                                                   dtype=dtypes.string)), len(flat))


def mark_file_names(dataset, count):
    """Mark ``dataset`` as the list of ``count`` files a pipeline reads: where ``tf.distribute``'s FILE
    auto-sharding deals out the files to the workers (``distribute/input_lib.py``)."""
    dataset._file_names_count = count
    return dataset


def _path_of(filename):
    """The path a one-file dataset receives: an eager scalar string tensor (or bytes/str) -> str."""
    if isinstance(filename, Tensor):
        filename = filename.numpy()
    return os.fsdecode(to_bytes(filename))


def _chain(filenames, read_one_file, num_parallel_reads):
    """TF's ``_create_dataset_reader``: flat_map over the files, or interleave ``num_parallel_reads`` of them."""
    if num_parallel_reads is None:
        return filenames.flat_map(read_one_file)
    n = structure.as_int64(num_parallel_reads, "num_parallel_reads")
    if n == AUTOTUNE:
        return filenames.interleave(read_one_file, num_parallel_calls=AUTOTUNE)
    if n <= 0:
        raise _iae("`cycle_length` must be > 0 [Op:LegacyParallelInterleaveDatasetV2]")
    return filenames.interleave(read_one_file, cycle_length=n, block_length=1)


class _ReaderDataset(Dataset):
    """A public reader: its element spec, and the chain of one-file datasets that produces the elements."""

    def __init__(self, impl, element_spec):
        self._impl = impl
        self._element_spec = element_spec

    def _inputs(self):
        return [self._impl]

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _make_iterator(self):
        return self._impl._make_iterator()


class _OneFileDataset(Dataset):
    """The records of one file; ``_records(path)`` (a generator) reads them when the iteration starts."""

    def __init__(self, path, element_spec):
        self._path = path
        self._element_spec = element_spec

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _make_iterator(self):
        return self._records()

    def _describe(self):
        return f"{type(self).__name__.lstrip('_')}({self._path!r})"


# --------------------------------------------------------------------------------------
# TextLineDataset
# --------------------------------------------------------------------------------------
class _TextLineFile(_OneFileDataset):
    def __init__(self, path, compression_type):
        super().__init__(path, _STRING_SPEC)
        self._compression = compression_type

    def _records(self):
        if self._compression not in file_io.COMPRESSION_TYPES:
            raise _iae("Unsupported compression_type.")
        data = file_io.read_file_bytes(self._path, self._compression)
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()                     # a final newline ends the last line; it does not start a new one
        for line in lines:
            if line.endswith(b"\r"):
                line = line[:-1]
            yield (string_array([line], ()),)


class TextLineDatasetV2(_ReaderDataset):
    """``tf.data.TextLineDataset(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None)``:
    the lines of one or more text files, as scalar strings without their line ending.

    Files are read one after the other, or ``num_parallel_reads`` at a time, interleaved line by line (see
    the module docstring). ``compression_type``: ``""``, ``"GZIP"`` or ``"ZLIB"``.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        compression = _compression_string(compression_type)
        super().__init__(_chain(_filenames_dataset(filenames), lambda f: _TextLineFile(_path_of(f), compression),
                                num_parallel_reads), _STRING_SPEC)

    def _describe(self):
        return "TextLineDataset"


# --------------------------------------------------------------------------------------
# TFRecordDataset
# --------------------------------------------------------------------------------------
class _TFRecordFile(_OneFileDataset):
    def __init__(self, path, compression_type):
        super().__init__(path, _STRING_SPEC)
        self._compression = compression_type

    def _records(self):
        for record in iter_records(file_io.read_file_bytes(self._path, self._compression)):
            yield (string_array([record], ()),)


class TFRecordDatasetV2(_ReaderDataset):
    """``tf.data.TFRecordDataset(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None)``:
    the records of one or more TFRecord files (``tf.io.TFRecordWriter`` writes them), as scalar strings.

    Each record's length and data CRCs are checked: a damaged file raises ``DataLossError`` at the record
    (``engine/io/tf_record.py``). Typically followed by ``.map(lambda r: tf.io.parse_single_example(r, spec))``.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        compression = file_io.check_compression_type(_compression_string(compression_type))
        super().__init__(_chain(_filenames_dataset(filenames), lambda f: _TFRecordFile(_path_of(f), compression),
                                num_parallel_reads), _STRING_SPEC)

    def _describe(self):
        return "TFRecordDataset"


# --------------------------------------------------------------------------------------
# FixedLengthRecordDataset
# --------------------------------------------------------------------------------------
class _FixedLengthFile(_OneFileDataset):
    def __init__(self, path, record_bytes, header_bytes, footer_bytes, compression_type):
        super().__init__(path, _STRING_SPEC)
        self._sizes = record_bytes, header_bytes, footer_bytes
        self._compression = compression_type

    def _records(self):
        record, header, footer = self._sizes
        if record <= 0:
            raise _iae("`record_bytes` must be > 0")
        data = file_io.read_file_bytes(self._path, self._compression)
        body = len(data) - header - footer
        if body % record:
            error = errors.DataLossError if self._compression else InvalidArgumentError
            raise error(None, None, f"Excluding the header ({header} bytes) and footer ({footer} bytes), input file "
                                    f"\"{self._path}\" has body length {body} bytes, which is not an exact multiple "
                                    f"of the record length ({record} bytes).")
        for start in range(header, header + body, record):
            yield (string_array([data[start:start + record]], ()),)


class FixedLengthRecordDatasetV2(_ReaderDataset):
    """``tf.data.FixedLengthRecordDataset(filenames, record_bytes, header_bytes=None, footer_bytes=None,
    buffer_size=None, compression_type=None, num_parallel_reads=None)``: the ``record_bytes``-long records
    of binary files (after ``header_bytes``, before ``footer_bytes``), as scalar strings.

    A body that is not a whole number of records is TF's error (``InvalidArgumentError``; ``DataLossError``
    for a compressed file), raised when the file is read.
    """

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None, name=None):
        sizes = (structure.as_int64(record_bytes, "record_bytes"),
                 0 if header_bytes is None else structure.as_int64(header_bytes, "header_bytes"),
                 0 if footer_bytes is None else structure.as_int64(footer_bytes, "footer_bytes"))
        compression = file_io.check_compression_type(_compression_string(compression_type))
        super().__init__(_chain(_filenames_dataset(filenames),
                                lambda f: _FixedLengthFile(_path_of(f), *sizes, compression), num_parallel_reads),
                         _STRING_SPEC)

    def _describe(self):
        return "FixedLengthRecordDataset"


def _compression_string(compression_type):
    if compression_type is None:
        return ""
    if isinstance(compression_type, Tensor):
        compression_type = compression_type.numpy()
    if isinstance(compression_type, (bytes, np.bytes_)):
        compression_type = bytes(compression_type).decode("utf-8", "replace")
    return str(compression_type)


# --------------------------------------------------------------------------------------
# CsvDataset
# --------------------------------------------------------------------------------------
# TF compares each default with its CSV dtypes (``x in (tf.float32, ...)``), and a TF ``DType`` equals
# the int of its enum: so a default of 1, 2, 3, 7 or 9 *is* that dtype, a required column (TF's quirk, kept).
_CSV_ENUMS = {d.as_datatype_enum: d for d in csv_ops.CSV_DTYPES}


def _as_csv_dtype(value):
    """The CSV dtype ``value`` stands for in TF's ``x in _ACCEPTABLE_CSV_TYPES`` test, or None."""
    if isinstance(value, dtypes.DType):
        return value if value in csv_ops.CSV_DTYPES else None
    if isinstance(value, (int, np.integer)) and not isinstance(value, Tensor):
        return _CSV_ENUMS.get(int(value))
    return None


def _csv_record_defaults(record_defaults):
    """TF's conversion: a CSV dtype becomes an empty tensor (a required column); anything else a tensor."""
    out = []
    with structure.host_scope():
        for d in record_defaults:
            dtype = _as_csv_dtype(d)
            if dtype is not None:
                out.append(constant([], dtype=dtype))
            else:
                out.append(d if isinstance(d, EagerTensor) else convert_to_tensor(d))
    return out


def _csv_cols(value, name):
    if value is None:
        return []
    cols = [int(c) for c in (value.numpy().reshape(-1) if isinstance(value, Tensor) else np.asarray(value).reshape(-1))]
    if any(c < 0 for c in cols):
        raise _iae(f"{name} should be non-negative indices [Op:CSVDatasetV2]")
    if any(a >= b for a, b in zip(cols, cols[1:])):
        raise _iae(f"{name} should be strictly increasing indices [Op:CSVDatasetV2]")
    return cols


class _CsvFile(_OneFileDataset):
    def __init__(self, path, element_spec, options):
        super().__init__(path, element_spec)
        self._options = options

    def _records(self):
        o = self._options
        data = file_io.read_file_bytes(self._path, o["compression"])
        return csv_ops.CsvRecordReader(data, o["dtypes"], o["defaults"], o["header"], o["field_delim"],
                                       o["use_quote_delim"], o["select_cols"], o["exclude_cols"])


class CsvDatasetV2(_ReaderDataset):
    """``tf.data.experimental.CsvDataset(filenames, record_defaults, compression_type=None, buffer_size=None,
    header=False, field_delim=",", use_quote_delim=True, na_value="", select_cols=None, exclude_cols=None)``.

    Each element is a tuple of scalars, one per column. ``record_defaults``: one entry per (selected)
    column: a dtype (``tf.int32``: a required column) or a default value (``999``, ``""``, ``0.0``,
    ``tf.constant([1], tf.int64)``), whose dtype is the column's. (TF's quirk, kept: a Python int default
    equal to a dtype's enum, 1, 2, 3, 7 or 9, compares equal to that dtype and declares a required float32,
    float64, int32, string or int64 column.) ``header=True`` skips each file's first
    line. ``select_cols`` (sorted indices to keep) or ``exclude_cols`` (to drop). Files are read in order.
    A bad record is ``InvalidArgumentError`` at its ``next()``; ``.ignore_errors()`` skips it.
    """

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
                 field_delim=",", use_quote_delim=True, na_value="", select_cols=None, exclude_cols=None, name=None):
        defaults = _csv_record_defaults(record_defaults)
        if not defaults:
            raise _iae("Length for attr 'output_types' of 0 must be at least minimum 1 [Op:CSVDatasetV2]")
        for d in defaults:
            if d.dtype not in csv_ops.CSV_DTYPES:
                raise _iae(f"Value for attr 'output_types' of {d.dtype.name} is not in the list of allowed values: "
                           f"float, double, int32, int64, string [Op:CSVDatasetV2]")
        for i, d in enumerate(defaults):
            if d.shape.num_elements() > 1:
                raise _iae(f"There should only be 1 default per field but field {i} has {d.shape.num_elements()} "
                           f"[Op:CSVDatasetV2]")
        select, exclude = _csv_cols(select_cols, "select_cols"), _csv_cols(exclude_cols, "exclude_cols")
        if select and exclude:
            raise _iae("Either select_cols or exclude_cols should be empty [Op:CSVDatasetV2]")
        field_delim = _compression_string(field_delim)
        if len(field_delim) != 1:
            raise _iae("field_delim should be only 1 char [Op:CSVDatasetV2]")
        if buffer_size is not None and structure.as_int64(buffer_size, "buffer_size") <= 0:
            raise _iae("buffer_size should be positive [Op:CSVDatasetV2]")
        compression = _compression_string(compression_type)
        if compression not in file_io.COMPRESSION_TYPES:
            raise _iae(f"Unsupported compression_type: {compression}. [Op:CSVDatasetV2]")
        na = _compression_string(na_value).encode("utf-8")
        options = {"compression": compression, "dtypes": [d.dtype for d in defaults],
                   "defaults": csv_ops.csv_defaults([d.numpy() for d in defaults], na), "header": bool(header),
                   "field_delim": field_delim, "use_quote_delim": bool(use_quote_delim), "select_cols": select,
                   "exclude_cols": exclude}
        spec = tuple(TensorSpec([], d.dtype) for d in defaults)
        self._record_defaults = defaults
        super().__init__(_chain(_filenames_dataset(filenames), lambda f: _CsvFile(_path_of(f), spec, options),
                                None), spec)

    def _describe(self):
        return "CsvDataset"


TextLineDataset = TextLineDatasetV2
TFRecordDataset = TFRecordDatasetV2
FixedLengthRecordDataset = FixedLengthRecordDatasetV2
CsvDataset = CsvDatasetV2


# --------------------------------------------------------------------------------------
# Dataset.list_files
# --------------------------------------------------------------------------------------
@implements("list_files")
def list_files(file_pattern, shuffle=None, seed=None, name=None):
    """``tf.data.Dataset.list_files(file_pattern, shuffle=None, seed=None)``: the files matching one or more
    glob patterns, as a dataset of scalar strings.

    The names are sorted (``shuffle=False``) or shuffled, by default, with a buffer as large as the list
    (``seed`` makes the order repeatable). No match is TF's ``InvalidArgumentError`` ("... No files matched
    pattern: ...").
    """
    if shuffle is None:
        shuffle = True
    with structure.host_scope():
        patterns = file_pattern if isinstance(file_pattern, Tensor) else convert_to_tensor(
            [os.fspath(p) for p in file_pattern] if isinstance(file_pattern, (list, tuple)) else
            os.fspath(file_pattern) if isinstance(file_pattern, os.PathLike) else file_pattern, dtype=dtypes.string)
        flat = [to_bytes(p) for p in np.asarray(patterns.numpy()).reshape(-1)]
        found = sorted(os.fsencode(m) for p in flat for m in gfile.glob(os.fsdecode(p)))
        if not found:
            message = b"No files matched pattern: " + b", ".join(flat)
            raise _iae(f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: {message!r}")
        dataset = mark_file_names(Dataset.from_tensor_slices(constant(string_array(found), dtype=dtypes.string)),
                                  len(found))
    if shuffle:
        dataset = dataset.shuffle(max(len(found), 1), seed=seed)
    return dataset


# --------------------------------------------------------------------------------------
# make_csv_dataset
# --------------------------------------------------------------------------------------
def _get_file_names(file_pattern):
    if isinstance(file_pattern, list):
        if not file_pattern:
            raise ValueError("Argument `file_pattern` should not be empty.")
        names = []
        for entry in file_pattern:
            names.extend(gfile.glob(entry))
    else:
        names = list(gfile.glob(file_pattern))
    if not names:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return sorted(names)


def _is_valid_int(text, dtype):
    try:
        value = int(text)
    except ValueError:
        return False
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def _is_valid_float(text, dtype):
    try:
        with np.errstate(over="ignore"):
            return dtype(text) < np.inf
    except (ValueError, OverflowError):
        return False


_INFER_ORDER = (
    (dtypes.int32, lambda s: _is_valid_int(s, np.int32)),
    (dtypes.int64, lambda s: _is_valid_int(s, np.int64)),
    (dtypes.float32, lambda s: _is_valid_float(s, np.float32)),
    (dtypes.float64, lambda s: _is_valid_float(s, np.float64)),
    (dtypes.string, lambda s: True),
)


def _infer_type(text, na_value, prev_type):
    """TF's ``_infer_type``: the least permissive type valid for ``text`` and for what was seen before."""
    if text in ("", na_value):
        return prev_type
    allowed = [t for t, _ in _INFER_ORDER]
    for i, (dtype, valid) in enumerate(_INFER_ORDER):
        if valid(text) and (prev_type is None or prev_type in allowed[:i + 1]):
            return dtype
    return dtypes.string


def _open_text(filename, compression_type, encoding):
    if compression_type == "GZIP":
        return gzip.open(filename, "rt", encoding=encoding, newline="")
    return open(filename, "r", encoding=encoding, newline="")


def _csv_reader(f, field_delim, use_quote_delim):
    return csv.reader(f, delimiter=field_delim, quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE)


def _infer_column_names(filenames, field_delim, use_quote_delim, open_fn):
    with open_fn(filenames[0]) as f:
        try:
            names = next(_csv_reader(f, field_delim, use_quote_delim))
        except StopIteration:
            raise ValueError(f"Failed when reading the header line of {filenames[0]}. Is it an empty file?") from None
    for name in filenames[1:]:
        with open_fn(name) as f:
            try:
                if next(_csv_reader(f, field_delim, use_quote_delim)) != names:
                    raise ValueError(f"All input CSV files should have the same column names in the header row. "
                                     f"File {name} has different column names.")
            except StopIteration:
                raise ValueError(f"Failed when reading the header line of {name}. Is it an empty file?") from None
    return names


def _infer_column_defaults(filenames, num_cols, field_delim, use_quote_delim, na_value, header,
                           num_rows_for_inference, select_columns, open_fn):
    if select_columns is None:
        select_columns = range(num_cols)
    inferred = [None] * len(select_columns)
    i = 0
    for filename in filenames:
        with open_fn(filename) as f:
            reader = _csv_reader(f, field_delim, use_quote_delim)
            row_num = 1
            if header:
                next(reader, None)
                row_num += 1
            for row in reader:
                if num_rows_for_inference is not None and i >= num_rows_for_inference:
                    break
                if len(row) != num_cols:
                    raise ValueError(f"Problem inferring types: CSV row {row_num} has {len(row)} number of fields. "
                                     f"Expected: {num_cols}.")
                row_num += 1
                for j, col in enumerate(select_columns):
                    inferred[j] = _infer_type(row[col], na_value, inferred[j])
                i += 1
        if num_rows_for_inference is not None and i >= num_rows_for_inference:
            break
    inferred = [t or dtypes.string for t in inferred]
    with structure.host_scope():
        return [constant([0 if t != dtypes.string else ""], dtype=t) for t in inferred]


def _sorted_col_indices(select_columns, column_names):
    index = {n: i for i, n in enumerate(column_names)}
    results = []
    for v in select_columns:
        if isinstance(v, int):
            if v < 0 or v >= len(column_names):
                raise ValueError(f"Column index {v} specified in `select_columns` should be > 0  and <= "
                                 f"{len(column_names)}, which is the number of columns.")
            results.append(v)
        elif v not in index:
            raise ValueError(f"Column {v} specified in `select_columns` must be of one of the columns: "
                             f"{index.keys()}.")
        else:
            results.append(index[v])
    results = sorted(set(results))
    if len(results) != len(select_columns):
        names = sorted(results)
        duplicates = {a for a, b in zip(names[:-1], names[1:]) if a == b}
        raise ValueError(f"The `select_columns` argument contains duplicate columns: {duplicates}.")
    return results


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False, encoding="utf-8"):
    """``tf.data.experimental.make_csv_dataset``: batches of ``(features, label)`` read from CSV files.

    ``features`` is an ``OrderedDict`` ``{column name: batch tensor}`` in the columns' order, ``label`` the
    ``label_name`` column (without ``label_name`` the element is the features alone). Column names come
    from the header line (or ``column_names``); column types from ``column_defaults`` or, as TF does, from
    the first ``num_rows_for_inference`` rows: the least permissive of int32, int64, float32, float64,
    string that fits every value, with default 0 or ``""``. The dataset repeats ``num_epochs`` times
    (``None``: forever, with full batches only), shuffles (``shuffle``: the files, then the rows through a
    buffer of ``shuffle_buffer_size``), and reads ``num_parallel_reads`` files at a time. TF's argument
    checks and messages. See the module docstring for the shuffle order.
    """
    if num_parallel_reads is None:
        num_parallel_reads = 1
    if prefetch_buffer_size is None:
        prefetch_buffer_size = AUTOTUNE
    filenames = _get_file_names(file_pattern)
    dataset = Dataset.from_tensor_slices(filenames)
    if shuffle:
        dataset = dataset.shuffle(len(filenames), shuffle_seed)
    compression = _compression_string(compression_type)
    if column_names is None or column_defaults is None:
        if compression == "ZLIB":
            raise ValueError(f"`compression_type` {compression_type} is not supported for probing columns.")
        if compression not in ("", "GZIP"):
            raise ValueError(f"Received unknown `compression_type` {compression_type}. Expected: GZIP, ZLIB or  "
                             f"(empty string).")

    def open_fn(filename):
        return _open_text(filename, compression, encoding)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is provided.")
        column_names = _infer_column_names(filenames, field_delim, use_quote_delim, open_fn)
    if len(column_names) != len(set(column_names)):
        names = sorted(column_names)
        duplicates = {a for a, b in zip(names[:-1], names[1:]) if a == b}
        raise ValueError(f"Either `column_names` argument or CSV header row contains duplicate column names: "
                         f"{duplicates}.")
    if select_columns is not None:
        select_columns = _sorted_col_indices(select_columns, column_names)
    if column_defaults is not None:
        with structure.host_scope():
            column_defaults = [constant([], dtype=_as_csv_dtype(x)) if _as_csv_dtype(x) is not None else x
                               for x in column_defaults]
    else:
        column_defaults = _infer_column_defaults(filenames, len(column_names), field_delim, use_quote_delim,
                                                 na_value, header, num_rows_for_inference, select_columns, open_fn)
    if select_columns is not None and len(column_defaults) != len(select_columns):
        raise ValueError(f"If specified, `column_defaults` and `select_columns` must have the same length: "
                         f"`column_defaults` has length {len(column_defaults)}, `select_columns` has length "
                         f"{len(select_columns)}.")
    if select_columns is not None and len(column_names) > len(select_columns):
        column_names = [column_names[i] for i in select_columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError(f"`label_name` provided must be one of the columns: {column_names}. Received: "
                         f"{label_name}.")

    def filename_to_dataset(filename):
        ds = CsvDatasetV2(filename, record_defaults=column_defaults, field_delim=field_delim,
                          use_quote_delim=use_quote_delim, na_value=na_value, select_cols=select_columns,
                          header=header, compression_type=compression_type)
        return ds.ignore_errors() if ignore_errors else ds

    def map_fn(*columns):
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is not None:
            label = features.pop(label_name)
            return features, label
        return features

    if num_parallel_reads == AUTOTUNE:
        dataset = dataset.interleave(filename_to_dataset, num_parallel_calls=AUTOTUNE)
    else:
        dataset = dataset.interleave(filename_to_dataset, cycle_length=num_parallel_reads, block_length=1)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size=batch_size, drop_remainder=num_epochs is None)
    dataset = dataset.map(map_fn)
    return dataset.prefetch(prefetch_buffer_size)
