"""TFRecord files: the record framing that ``tf.data.TFRecordDataset`` reads and TensorBoard's event files use.

A TFRecord file is a sequence of records, each framed as::

    uint64  length                      (little-endian)
    uint32  masked_crc32c(length bytes)
    bytes   data[length]
    uint32  masked_crc32c(data)

The checksum is CRC-32C (Castagnoli), "masked" by rotating it right 15 bits and adding a constant, so
that a file holding CRCs of CRCs does not look like valid records by accident. TensorFlow writes this
format in ``tensorflow/core/lib/io/record_writer.cc``; this module writes and reads the same bytes, so a
file written here is read by TensorFlow and TensorBoard, and the other way round.

Differences from TensorFlow: the CRC is computed in pure Python, a byte at a time (fine for summaries
and course-sized data sets, slow for gigabytes); ``GZIP`` and ``ZLIB`` compression use Python's ``zlib``
(with TF's parameters, so the compressed bytes are TF's too); a file is read whole when it is opened.
"""
import os
import struct
import zlib

from ..framework import errors
from .file_io import os_error, read_file_bytes

__all__ = ["crc32c", "masked_crc32c", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator", "iter_records"]


def _crc32c_table():
    polynomial = 0x82F63B78           # CRC-32C's polynomial, bit-reversed
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ polynomial if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _crc32c_table()


def crc32c(data):
    """CRC-32C of ``data`` (bytes): ``crc32c(b"123456789") == 0xE3069283``."""
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    """The masked CRC that TFRecord frames store: rotate right by 15, add 0xa282ead8 (mod 2**32)."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


class TFRecordOptions:
    """``tf.io.TFRecordOptions``: how a TFRecord file is compressed.

    ``compression_type``: ``""``/``None`` (none), ``"ZLIB"`` or ``"GZIP"`` (case matters, as in TF).
    The zlib tuning arguments are kept; the writer uses ``compression_level`` (default: zlib's default, 6),
    ``window_bits`` (15), ``mem_level`` (9, TF's default) and ``compression_strategy`` (0), so its
    compressed bytes are TF's. ``flush_mode`` and the buffer sizes are accepted without effect.
    """

    compression_type_map = {0: "", 1: "ZLIB", 2: "GZIP"}   # TF 1's ``TFRecordCompressionType`` values

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None, output_buffer_size=None,
                 window_bits=None, compression_level=None, compression_method=None, mem_level=None,
                 compression_strategy=None):
        if isinstance(compression_type, int) and compression_type in self.compression_type_map:
            compression_type = self.compression_type_map[compression_type]
        compression_type = compression_type or ""
        if compression_type not in ("", "GZIP", "ZLIB"):
            raise ValueError(f'Not a valid compression_type: "{compression_type}"')
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """The compression type string of ``options`` (a ``TFRecordOptions``, a string or ``None``)."""
        if options is None:
            return ""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return cls(options).compression_type

    def _compressor(self):
        """A zlib compressor with TF's parameters, or ``None`` when the file is not compressed."""
        if not self.compression_type:
            return None
        window_bits = zlib.MAX_WBITS if self.window_bits is None else self.window_bits
        if self.compression_type == "GZIP":
            window_bits += 16
        return zlib.compressobj(-1 if self.compression_level is None else self.compression_level, zlib.DEFLATED,
                                window_bits, 9 if self.mem_level is None else self.mem_level,
                                0 if self.compression_strategy is None else self.compression_strategy)


def _as_options(options):
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(options)


def _frame(data):
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc32c(header)) + data + struct.pack("<I", masked_crc32c(data))


class TFRecordWriter:
    """``tf.io.TFRecordWriter(path, options=None)``: ``write(record)``, ``flush()``, ``close()``; a context manager.

    ``options``: a ``TFRecordOptions`` or a compression type string. Uncompressed and compressed files are
    byte for byte what TF writes (for compressed ones: the same zlib parameters, see ``TFRecordOptions``).
    Writing to a closed writer raises ``FailedPreconditionError`` ("Writer is closed."), as TF.
    """

    def __init__(self, path, options=None):
        self._options = _as_options(options)
        self._compression = self._options.compression_type
        self._path = os.fsdecode(path)
        try:
            self._file = open(self._path, "wb")
        except OSError as e:
            raise os_error(e, self._path) from None
        self._zlib = self._options._compressor()

    def write(self, record):
        """Append one record (bytes; a ``str`` is written as its UTF-8 bytes, as TF does)."""
        if isinstance(record, str):
            record = record.encode("utf-8")
        if not isinstance(record, (bytes, bytearray, memoryview)):
            raise TypeError(f"write(): incompatible function arguments. The following argument types are "
                            f"supported:\n    1. (self, record: str) -> None\n\nInvoked with: {record!r}")
        if self._file.closed:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        framed = _frame(bytes(record))
        if self._zlib is not None:
            self._file.write(self._zlib.compress(framed))
        else:
            self._file.write(framed)

    def flush(self):
        """Write what is buffered to the file (a compressed stream is not flushed mid-block, as in TF)."""
        if self._file.closed:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        self._file.flush()

    def close(self):
        if self._file.closed:
            return
        if self._zlib is not None:
            self._file.write(self._zlib.flush())
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_HEADER = 12   # uint64 length + uint32 masked CRC of it


def iter_records(data, what=""):
    """Yield the records of the (decompressed) TFRecord bytes ``data``, with TF's errors.

    As TF's ``RecordReader``: an incomplete header at the end of the data is the end of the file (no
    error); an incomplete record body is ``DataLossError("truncated record at <offset>' failed with Read
    less bytes than requested")``; a wrong checksum is ``DataLossError("corrupted record at <offset>")``
    (the header's offset, with "(Is this even a TFRecord file?)" for the first record; the data's offset
    for a corrupted body).
    """
    offset, size = 0, len(data)
    while offset + _HEADER <= size:
        header = data[offset:offset + 8]
        (header_crc,) = struct.unpack("<I", data[offset + 8:offset + 12])
        if header_crc != masked_crc32c(header):
            hint = " (Is this even a TFRecord file?)" if offset == 0 else ""
            raise errors.DataLossError(None, None, f"corrupted record at {offset}{hint}")
        (length,) = struct.unpack("<Q", header)
        start, end = offset + _HEADER, offset + _HEADER + length
        if end + 4 > size:
            raise errors.DataLossError(
                None, None, f"truncated record at {offset}' failed with Read less bytes than requested")
        record = data[start:end]
        (data_crc,) = struct.unpack("<I", data[end:end + 4])
        if data_crc != masked_crc32c(record):
            raise errors.DataLossError(None, None, f"corrupted record at {start}")
        yield record
        offset = end + 4


def tf_record_iterator(path, options=None):
    """``tf.compat.v1.io.tf_record_iterator(path, options=None)``: yield each record of a TFRecord file as bytes.

    ``options``: a ``TFRecordOptions`` or a compression type string. Both CRCs are checked; a missing file
    is ``NotFoundError``, a truncated or corrupted one ``DataLossError`` (see :func:`iter_records`).
    """
    compression = TFRecordOptions.get_compression_type_string(options)
    yield from iter_records(read_file_bytes(path, compression))
