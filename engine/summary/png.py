"""PNG encoding with ``zlib`` and ``struct`` only (what ``tf.image.encode_png`` does for image summaries).

A PNG file is an 8-byte signature and a list of *chunks*, each ``length (4 bytes, big-endian) | type
(4 ASCII letters) | data | CRC-32 of type and data``:

* ``IHDR``: width, height, bit depth (8), colour type (0 grey, 2 RGB, 4 grey+alpha, 6 RGBA), and
  three zero bytes (deflate compression, adaptive filtering, no interlace);
* ``IDAT``: the zlib-compressed scanlines, each one *filter byte* followed by the row's pixels;
* ``IEND``: empty, the end.

Difference from TensorFlow: TF calls libpng, which may choose a different filter per row and a
different deflate window, so the bytes differ; the decoded pixels are the same. Here every row uses
filter 0 (none).
"""
import struct
import zlib

import numpy as np

__all__ = ["encode_png", "decode_png"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}   # channels -> PNG colour type


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(image, compression=-1):
    """PNG bytes of a ``[height, width, channels]`` uint8 array (1, 2, 3 or 4 channels)."""
    image = np.asarray(image)
    if image.ndim != 3 or image.shape[2] not in _COLOR_TYPE:
        raise ValueError(f"image must be 3-dimensional [height, width, channels] with 1-4 channels, "
                         f"got shape {image.shape}")
    height, width, channels = image.shape
    image = image.astype(np.uint8, copy=False)
    rows = np.concatenate([np.zeros((height, 1), np.uint8), image.reshape(height, width * channels)], axis=1)
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPE[channels], 0, 0, 0)
    return (_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows.tobytes(), compression))
            + _chunk(b"IEND", b""))


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode_png(data):
    """``[height, width, channels]`` uint8 pixels of an 8-bit, non-interlaced PNG (any of the 5 filters).

    Enough to read back TF's and this module's image summaries (tests use it).
    """
    if data[:8] != _SIGNATURE:
        raise ValueError("not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or interlace:
        raise ValueError("only 8-bit, non-interlaced PNGs are supported")
    channels = {v: k for k, v in _COLOR_TYPE.items()}[color]
    raw = zlib.decompress(idat)
    stride = width * channels
    out = np.zeros((height, stride), np.int64)
    previous = np.zeros(stride, np.int64)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, row = line[0], np.frombuffer(line[1:], np.uint8).astype(np.int64)
        current = np.zeros(stride, np.int64)
        for x in range(stride):
            left = current[x - channels] if x >= channels else 0
            up = previous[x]
            up_left = previous[x - channels] if x >= channels else 0
            predictor = (0, left, up, (left + up) // 2, _paeth(left, up, up_left))[kind]
            current[x] = (row[x] + predictor) & 0xFF
        out[y] = current
        previous = current
    return out.astype(np.uint8).reshape(height, width, channels)


def to_uint8(images):
    """``tf.image.convert_image_dtype(images, tf.uint8, saturate=True)``: floats in [0, 1] are scaled by
    255.5 and truncated (clipped to [0, 255]); wider integers are shifted down; uint8 stays."""
    images = np.asarray(images)
    if images.dtype == np.uint8:
        return images
    if images.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            scaled = images.astype(np.float32 if images.dtype.itemsize <= 4 else np.float64) * 255.5
        return np.clip(np.nan_to_num(scaled), 0, 255).astype(np.uint8)
    if images.dtype.kind in "iu":
        info = np.iinfo(images.dtype)
        scale = (int(info.max) + 1) // 256
        return np.clip(images // scale if scale > 1 else images * (256 // (int(info.max) + 1)), 0, 255) \
            .astype(np.uint8)
    if images.dtype == np.bool_:
        return images.astype(np.uint8) * 255
    raise TypeError(f"Cannot convert images of dtype {images.dtype} to uint8")


def image_summary_tensor(images, max_outputs=3):
    """What an image summary stores: ``[width, height, png_0, ..., png_{n-1}]`` as a 1-D bytes array,
    ``n = min(max_outputs, batch)``; ``images`` is ``[batch, height, width, channels]``."""
    images = np.asarray(images)
    pixels = to_uint8(images[:max_outputs])
    encoded = [encode_png(p) for p in pixels]
    return np.array([str(images.shape[2]).encode(), str(images.shape[1]).encode()] + encoded, dtype=bytes)
