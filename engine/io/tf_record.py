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
and course-sized data sets, slow for gigabytes); ``GZIP`` and ``ZLIB`` compression use Python's ``zlib``.
"""
import gzip
import struct
import zlib

from ..framework import errors

__all__ = ["crc32c", "masked_crc32c", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator"]


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
    """``tf.io.TFRecordOptions``: only the compression type (``""``/``None``, ``"GZIP"`` or ``"ZLIB"``)."""

    def __init__(self, compression_type=None, **unused_zlib_tuning):
        compression_type = compression_type or ""
        if compression_type not in ("", "GZIP", "ZLIB"):
            raise ValueError(f"Unsupported compression type: {compression_type!r}; "
                             f'use "", "GZIP" or "ZLIB".')
        self.compression_type = compression_type

    @classmethod
    def get_compression_type_string(cls, options):
        if options is None:
            return ""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return cls(options).compression_type


def _frame(data):
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc32c(header)) + data + struct.pack("<I", masked_crc32c(data))


class TFRecordWriter:
    """``tf.io.TFRecordWriter(path, options=None)``: ``write(record)``, ``flush()``, ``close()``; a context manager."""

    def __init__(self, path, options=None):
        self._compression = TFRecordOptions.get_compression_type_string(options)
        self._path = path
        self._file = open(path, "wb")
        self._zlib = zlib.compressobj() if self._compression == "ZLIB" else None
        self._gzip = gzip.GzipFile(fileobj=self._file, mode="wb") if self._compression == "GZIP" else None

    def write(self, record):
        if isinstance(record, str):
            record = record.encode("utf-8")
        if not isinstance(record, (bytes, bytearray, memoryview)):
            raise TypeError(f"TFRecordWriter.write takes bytes, not {type(record).__name__}.")
        framed = _frame(bytes(record))
        if self._gzip is not None:
            self._gzip.write(framed)
        elif self._zlib is not None:
            self._file.write(self._zlib.compress(framed))
        else:
            self._file.write(framed)

    def flush(self):
        if self._gzip is not None:
            self._gzip.flush()
        elif self._zlib is not None:
            self._file.write(self._zlib.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()

    def close(self):
        if self._file.closed:
            return
        if self._gzip is not None:
            self._gzip.close()
        elif self._zlib is not None:
            self._file.write(self._zlib.flush())
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _read_all(path, compression_type):
    with open(path, "rb") as f:
        raw = f.read()
    if compression_type == "GZIP":
        return gzip.decompress(raw)
    if compression_type == "ZLIB":
        return zlib.decompress(raw)
    return raw


def tf_record_iterator(path, options=None):
    """Yield each record of the TFRecord file ``path`` as bytes, checking both CRCs.

    A truncated or corrupted file raises ``DataLossError``, as TensorFlow's reader does.
    """
    data = _read_all(path, TFRecordOptions.get_compression_type_string(options))
    offset = 0
    while offset < len(data):
        if offset + 12 > len(data):
            raise errors.DataLossError(None, None, f"truncated record at {offset} in {path}")
        header = data[offset:offset + 8]
        (length,) = struct.unpack("<Q", header)
        (header_crc,) = struct.unpack("<I", data[offset + 8:offset + 12])
        if header_crc != masked_crc32c(header):
            raise errors.DataLossError(None, None, f"corrupted record at {offset} in {path}")
        start, end = offset + 12, offset + 12 + length
        if end + 4 > len(data):
            raise errors.DataLossError(None, None, f"truncated record at {offset} in {path}")
        record = data[start:end]
        (data_crc,) = struct.unpack("<I", data[end:end + 4])
        if data_crc != masked_crc32c(record):
            raise errors.DataLossError(None, None, f"corrupted record at {offset} in {path}")
        yield record
        offset = end + 4
