"""Reading whole files the way TensorFlow's readers do: TF's errors, and ``GZIP``/``ZLIB`` decompression.

Every reader of the engine (``TextLineDataset``, ``TFRecordDataset``, ``CsvDataset``, ``tf.io.read_file``,
``tf_record_iterator``) opens its files through :func:`read_file_bytes`, so a missing file is always TF's
``NotFoundError`` ("``path; No such file or directory``") and a bad compressed stream TF's ``DataLossError``
("``inflate() failed with error -3: incorrect header check``").

Differences from TensorFlow: a file is read (and decompressed) whole when its reader opens it, where TF
streams it through a buffer of ``buffer_size`` bytes (accepted and checked, without effect here); only
local paths are supported (no ``gs://``, ``s3://``).
"""
import errno
import os
import re
import zlib

from ..framework import errors

__all__ = ["COMPRESSION_TYPES", "read_file_bytes", "decompress", "os_error", "check_compression_type"]

COMPRESSION_TYPES = ("", "ZLIB", "GZIP")

_ZLIB_ERROR = re.compile(r"Error (-?\d+) while decompressing data: (.*)")


def os_error(err, path):
    """TF's error class and message for a failed open/read/write of ``path``."""
    path = os.fsdecode(path)
    if err.errno == errno.ENOENT:
        return errors.NotFoundError(None, None, f"{path}; No such file or directory")
    if err.errno in (errno.EACCES, errno.EPERM):
        return errors.PermissionDeniedError(None, None, f"{path}; Permission denied")
    if err.errno == errno.EISDIR:
        return errors.FailedPreconditionError(None, None, f"{path}; Is a directory")
    return errors.UnknownError(None, None, f"{path}; {os.strerror(err.errno) if err.errno else err}")


def check_compression_type(compression_type, error=errors.InvalidArgumentError):
    """``None``/``""``, ``"ZLIB"`` or ``"GZIP"`` (as a str); anything else raises ``error`` as TF's readers do."""
    if compression_type is None:
        return ""
    if isinstance(compression_type, bytes):
        compression_type = compression_type.decode("utf-8", "replace")
    if hasattr(compression_type, "numpy"):
        compression_type = compression_type.numpy()
        compression_type = compression_type.decode() if isinstance(compression_type, bytes) else str(compression_type)
    if compression_type not in COMPRESSION_TYPES:
        raise error(None, None, f"Unsupported compression_type: {compression_type}.")
    return compression_type


def decompress(data, compression_type):
    """The bytes of a ``GZIP`` or ``ZLIB`` stream (``""``: ``data`` unchanged); a bad stream is a DataLossError."""
    if not compression_type:
        return data
    wbits = 16 + zlib.MAX_WBITS if compression_type == "GZIP" else zlib.MAX_WBITS
    try:
        d = zlib.decompressobj(wbits)
        return d.decompress(data) + d.flush()
    except zlib.error as e:
        match = _ZLIB_ERROR.match(str(e))
        message = f"inflate() failed with error {match.group(1)}: {match.group(2)}" if match else str(e)
        raise errors.DataLossError(None, None, message) from None


def read_file_bytes(path, compression_type=""):
    """The (decompressed) contents of the local file ``path``, with TF's errors."""
    path = os.fsdecode(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise os_error(e, path) from None
    return decompress(data, compression_type)
